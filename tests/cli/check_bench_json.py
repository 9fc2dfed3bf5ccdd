"""Checks the JSON that `tplab bench comm --json` and `tplab bench scaling --json` write: the
documented fields, and that every derived number follows from the measured ones beside it.
No timing is judged: a loaded machine may be slow, but it may not be inconsistent.

usage: check_bench_json.py comm FILE COLLECTIVES RANKS MIN_BYTES MAX_BYTES
       check_bench_json.py scaling FILE SCHEMES NP MODES
       check_bench_json.py peak FILE
"""
import json
import math
import os
import sys

from series_fields import check_series_fields

BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def check_comm(path, collectives, ranks, min_bytes, max_bytes):
    document = json.load(open(path))
    rows = document["rows"]
    check_series_fields(document, all(r["wrong"] == 0 for r in rows))
    assert document["pass"], document["failures"]
    sizes = []
    b = min_bytes
    while b <= max_bytes:
        sizes.append(b)
        b *= 2
    seen = {}
    for r in rows:
        for key in ("collective", "bytes", "count", "dtype", "ranks", "time_us", "algbw",
                    "busbw", "wrong", "raw_time_us", "oversubscribed"):
            assert key in r, f"row lacks {key}: {r}"
        c, n = r["collective"], r["ranks"]
        assert c in collectives and n in ranks, r
        assert r["wrong"] == 0, f"wrong elements: {r}"
        size = 4 if r["dtype"] == "f32" else 8
        assert r["bytes"] == r["count"] * size, r
        if c in ("all_gather", "reduce_scatter"):
            assert r["count"] % n == 0 and r["count"] >= n, r
        assert r["time_us"] > 0 and r["raw_time_us"] > 0, r
        assert r["time_us_min"] <= r["time_us"] <= r["time_us_max"], r
        assert close(r["algbw"], r["bytes"] / (r["time_us"] * 1e-6) / 1e9), r
        assert close(r["busbw"], r["algbw"] * BUS_FACTOR[c](n)), r
        # the median of paired ratios lies within the ratios' extremes
        lo = r["time_us_min"] / r["raw_time_us_max"] - 1
        hi = r["time_us_max"] / r["raw_time_us_min"] - 1
        assert lo - 1e-9 <= r["overhead"] <= hi + 1e-9, r
        cores = os.cpu_count()
        assert r["oversubscribed"] == (n > cores), r
        seen.setdefault((c, n), []).append(r)
    for c in collectives:
        for n in ranks:
            got = seen.get((c, n), [])
            assert len(got) == len(sizes), f"{c} at {n} ranks: {len(got)} rows, want {len(sizes)}"
    print(f"ok: {len(rows)} rows, every result exact, bandwidths consistent")


def check_scaling(path, schemes, nps, modes):
    document = json.load(open(path))
    runs = document["runs"]
    assert runs, "no runs"
    check_series_fields(document, True)
    assert document["pass"], document["failures"]
    base = {}
    for r in runs:
        for key in ("scheme", "np", "mode", "shape", "step_ms", "comm_ms", "comm_share",
                    "efficiency", "tokens_per_s", "bytes_per_rank", "model_bytes_per_rank",
                    "peak_mem_bytes", "oversubscribed"):
            assert key in r, f"run lacks {key}: {r}"
        assert r["scheme"] in schemes and r["mode"] in modes, r
        assert r["np"] in nps or r["dp_baseline"] or r["pp_baseline"], r
        assert r["step_ms_min"] <= r["step_ms"] <= r["step_ms_max"], r
        assert 0 <= r["comm_ms"] and close(r["comm_share"], r["comm_ms"] / r["step_ms"]), r
        s = r["shape"]
        tokens = s["b"] * s["s"]
        assert close(r["tokens_per_s"], tokens / (r["step_ms"] * 1e-3)), r
        assert r["peak_mem_bytes"] > 0, r
        check_memory(r)
        assert r["oversubscribed"] == (r["np"] > os.cpu_count()), r
        assert 0 < r["cpu_share"] <= 1.5, r
        assert r["contended"] == (not r["oversubscribed"] and r["cpu_share"] < 0.9), r
        if r["np"] == 1:
            assert r["bytes_per_rank"] == 0 and r["comm_ms"] == 0, "one rank moves nothing"
        else:
            assert r["bytes_per_rank"] > 0, r
        check_groups_of(r)
        check_pipeline(r)
        key = (r["scheme"], r["mode"], r["dp"], r["pp"])
        if key not in base or r["np"] < base[key]["np"]:
            base[key] = r
    for r in runs:
        b = base[(r["scheme"], r["mode"], r["dp"], r["pp"])]
        assert r["baseline_np"] == b["np"], r
        if r["mode"] == "strong":
            assert r["shape"] == b["shape"], "strong scaling keeps the global shape"
            want = b["step_ms"] * b["np"] / (r["step_ms"] * r["np"])
        else:
            assert r["shape"]["b"] * b["np"] == b["shape"]["b"] * r["np"], "weak: b grows with p"
            want = b["step_ms"] / r["step_ms"]
        assert close(r["efficiency"], want), r
        if r is b:
            assert close(r["efficiency"], 1.0), r
    check_data_parallel_efficiency(runs)
    check_pipeline_efficiency(runs)
    check_mfu(document)
    print(f"ok: {len(runs)} runs, efficiency, shares, throughput and MFU consistent")


def check_memory(r):
    """The memory a bench step measured on the device equals the cost model's, kind by kind
    (no optimizer runs: its state is 0), and the allocator's peak holds all of it."""
    memory = r["memory"]
    for kind in ("parameters", "gradients", "optimizer", "activations"):
        assert memory[kind]["measured"] == memory[kind]["model"], (kind, memory)
    held = sum(memory[kind]["measured"] for kind in ("parameters", "gradients", "activations"))
    assert memory["parameters"]["measured"] > 0 and memory["peak_allocated"] >= held, memory
    assert memory["peak_resident"] > 0, memory


def check_mfu(document):
    """Each run's MFU is its FLOP/s over min(np, cores) cores at the peak the document names."""
    peak = document["peak"]
    for key in ("dtype", "path", "flops_per_s_per_core", "cores", "source"):
        assert key in peak, f"peak lacks {key}: {peak}"
    assert peak["path"] in ("avx512f", "avx2+fma", "portable"), peak
    assert peak["flops_per_s_per_core"] > 0 and peak["cores"] == os.cpu_count(), peak
    for r in document["runs"]:
        # bf16 is computed in f32 on the CPU: its MFU is over f32's peak
        assert {"bf16": "f32"}.get(r["dtype"], r["dtype"]) == peak["dtype"], (r["dtype"], peak)
        cores = min(r["np"], peak["cores"])
        want = r["gflops_per_s"] * 1e9 / (cores * peak["flops_per_s_per_core"])
        assert r["mfu"] > 0 and close(r["mfu"], want), (r["mfu"], want)


def check_peak(path):
    """bench peak's JSON: a positive rate for each dtype and path, the fastest as the peak."""
    document = json.load(open(path))
    assert document["command"] == "bench peak", document
    assert document["cores"] == os.cpu_count(), document
    paths = document["paths"]
    for dtype in ("f64", "f32"):
        mine = [p for p in paths if p["dtype"] == dtype]
        assert mine and mine[-1]["path"] == "portable", mine
        assert all(p["flops_per_s"] > 0 for p in mine), mine
        best = max(mine, key=lambda p: p["flops_per_s"])
        peak = document["peak"][dtype]
        assert peak["path"] == best["path"] and peak["flops_per_s_per_core"] == best["flops_per_s"]
    print(f"ok: {len(paths)} rates, the fastest of each dtype its peak")


def check_groups_of(r):
    """The time and bytes in collectives split into the scheme's groups and the DP groups."""
    pp = r.get("bytes_per_rank_pp", 0)
    assert r["bytes_per_rank_tp"] + r["bytes_per_rank_dp"] + pp == r["bytes_per_rank"], r
    assert close(r["comm_share_dp"], r["comm_ms_dp"] / r["step_ms"]), r
    assert close(r["comm_share_tp"], r["comm_ms_tp"] / r["step_ms"]), r
    assert 0 <= r["comm_ms_tp"] <= r["comm_ms_max"] and 0 <= r["comm_ms_dp"] <= r["comm_ms_max"], r
    if r["dp"] == 1:
        assert r["bytes_per_rank_dp"] == 0 and r["comm_ms_dp"] == 0, "no replicas, no DP traffic"
    else:
        assert r["bytes_per_rank_dp"] > 0 and r["comm_ms_dp"] > 0, r


def check_pipeline(r):
    """A pipelined GPT's run: one record per stage, each stage's kept bytes the model's for the
    micro-batches its schedule keeps in flight (GPipe M, 1F1B min(S - s, M)), its idle share a
    share, the bubble's formula (S - 1)/(M + S - 1), and traffic between stages only with them.
    A block's run has none of it."""
    if r["workload"] == "block":
        assert r["pp"] == 1 and "stages" not in r and r["model_bytes_per_rank"] is not None, r
        return
    assert r["workload"] == "gpt" and r["model_bytes_per_rank"] is None, r
    stages, m = r["pp"], r["micro_batches"]
    assert len(r["stages"]) == stages, r
    assert close(r["bubble_formula"], (stages - 1) / (m + stages - 1)), r
    for s, stage in enumerate(r["stages"]):
        want = m if r["schedule"] == "gpipe" else min(stages - s, m)
        assert stage["in_flight"] == want, (s, stage, r["schedule"])
        assert stage["kept_bytes"] == stage["model_kept_bytes"] > 0, (s, stage)
        assert 0 <= stage["idle_share"] <= 1, (s, stage)
    assert r["kept_as_modelled"], r
    assert r["padded_vocab"] >= r["vocab"] and r["layers"] % stages == 0, r
    assert close(r["comm_share_pp"], r["comm_ms_pp"] / r["step_ms"]), r
    assert 0 <= r["comm_ms_pp"] <= r["comm_ms_max"], r
    if stages == 1:
        assert r["bytes_per_rank_pp"] == 0 and r["comm_ms_pp"] == 0, "one stage sends nothing"
    else:
        assert r["bytes_per_rank_pp"] > 0, r
    # every rank's transfers between stages are the model's, call by call and byte for byte
    assert r["pp_transfers_as_modelled"], r
    assert r["bytes_per_rank_pp"] == r["model_bytes_per_rank_pp"], r


def check_pipeline_efficiency(runs):
    """Every run of S > 1 stages against the same GPT on one stage of np/S ranks: PP efficiency
    T(one stage) / (S T(S stages)), beside 1 - the bubble's formula."""
    for r in runs:
        if r["pp"] == 1:
            assert "pp_efficiency" not in r, r
            continue
        same = ("scheme", "mode", "dp", "overlap", "shape", "layers", "vocab", "micro_batches")
        bases = [b for b in runs if b["pp"] == 1 and b["workload"] == "gpt" and
                 all(b[k] == r[k] for k in same) and b["np"] * r["pp"] == r["np"]]
        if not bases:
            assert "pp_efficiency" not in r, r
            continue
        assert len(bases) == 1 and bases[0]["pp_baseline"], (r, bases)
        b = bases[0]
        assert r["pp_baseline_np"] == b["np"] and r["pp_baseline_step_ms"] == b["step_ms"], r
        assert close(r["pp_efficiency"], b["step_ms"] / (r["pp"] * r["step_ms"])), r
        assert close(r["pp_efficiency_formula"], 1 - r["bubble_formula"]), r


def check_data_parallel_efficiency(runs):
    """Every run of D > 1 replicas against the scheme alone on np/D ranks and b/D sequences."""
    for r in runs:
        if r["dp"] == 1:
            assert "dp_efficiency" not in r, r
            continue
        s = r["shape"]
        want = {"b": s["b"] // r["dp"], "s": s["s"], "h": s["h"], "heads": s["heads"]}
        bases = [b for b in runs if b["dp"] == 1 and b["scheme"] == r["scheme"] and
                 b["mode"] == r["mode"] and b["np"] * r["dp"] == r["np"] and b["shape"] == want
                 and b["pp"] == r["pp"] and b["workload"] == r["workload"]]
        if not bases and r["pp_baseline"]:  # measured for PP efficiency: no DP baseline of its own
            assert "dp_efficiency" not in r, r
            continue
        assert len(bases) == 1 and bases[0]["dp_baseline"], (r, bases)
        b = bases[0]
        assert r["dp_baseline_np"] == b["np"] and r["dp_baseline_step_ms"] == b["step_ms"], r
        assert close(r["dp_efficiency"], b["step_ms"] / r["step_ms"]), r
    assert not any(r["dp_baseline"] and r["dp"] > 1 for r in runs)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "peak":
        check_peak(path)
        return
    if kind == "comm":
        check_comm(path, sys.argv[3].split(","), [int(x) for x in sys.argv[4].split(",")],
                   int(sys.argv[5]), int(sys.argv[6]))
    else:
        check_scaling(path, sys.argv[3].split(","), [int(x) for x in sys.argv[4].split(",")],
                      sys.argv[5].split(","))


if __name__ == "__main__":
    main()
