"""Checks `tplab report` on `tplab bench scaling --dp` JSON, made up here so that the numbers are
known: the data-parallel section, its plot and its table, whose every number must be the JSON's;
the scaling sections keep to the schemes alone. Then the JSON of a sweep from before --dp (no dp
field) must still give its report with no such section, and a run whose baseline is missing
must be refused with exit 2.

usage: check_report_data_parallel.py REPORT.py OLD_SCALING.json OUT_DIR
"""
import json
import os
import re
import subprocess
import sys

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CORES = 4
SHAPE = {"b": 8, "s": 16, "h": 32, "heads": 4}


def run_record(scheme, mode, np, b, step_ms, comm_ms_tp, grid, dp=1, comm_ms_dp=0.0,
               buckets="flat", baseline=None, dp_baseline=False):
    """One run as bench scaling writes it, with the fields of --dp; `baseline` the run with
    D > 1 is measured against."""
    mib = 2**20
    r = {"scheme": scheme, "mode": mode, "np": np, "dp": dp, "dp_buckets": buckets, "grid": grid,
         "dtype": "f32", "shape": dict(SHAPE, b=b), "step_ms": step_ms,
         "step_ms_min": 0.9 * step_ms, "step_ms_max": 1.1 * step_ms,
         "comm_ms": comm_ms_tp + comm_ms_dp, "comm_share": (comm_ms_tp + comm_ms_dp) / step_ms,
         "comm_ms_tp": comm_ms_tp, "comm_ms_dp": comm_ms_dp,
         "comm_share_tp": comm_ms_tp / step_ms, "comm_share_dp": comm_ms_dp / step_ms,
         "bytes_per_rank_tp": 0.75 * mib * (np // dp > 1),
         "bytes_per_rank_dp": 1.5 * mib * (dp > 1),
         "model_bytes_per_rank": None, "efficiency": 1.0, "baseline_np": 1,
         "tokens_per_s": 1000.0 * b * SHAPE["s"] / step_ms, "peak_mem_bytes": 64 * mib,
         "cpu_share": min(1.0, CORES / np), "contended": False, "oversubscribed": np > CORES,
         "cores": CORES, "overlap": False, "dp_baseline": dp_baseline,
         "hosts": [{"name": "vm", "ranks": list(range(np))}]}
    r["bytes_per_rank"] = r["bytes_per_rank_tp"] + r["bytes_per_rank_dp"]
    if baseline:
        r.update(dp_baseline_np=baseline["np"], dp_baseline_step_ms=baseline["step_ms"],
                 dp_efficiency=baseline["step_ms"] / step_ms)
    return r


def sweep():
    """1d strong on 1, 2, 4 ranks, 1d weak on 1, 2 and 2d strong on 1, 4; D = 2 replicas of 1d
    on 4 ranks (strong in both bucketings, and weak), and of 2d on 8 (more ranks than CORES:
    oversubscribed), with their baselines."""
    runs = [run_record("1d", "strong", 1, 8, 40.0, 0.0, "t=1"),
            run_record("1d", "strong", 2, 8, 22.0, 2.0, "t=2"),
            run_record("1d", "strong", 4, 8, 13.0, 2.5, "t=4"),
            run_record("1d", "weak", 1, 4, 20.0, 0.0, "t=1"),
            run_record("1d", "weak", 2, 8, 22.0, 2.0, "t=2"),
            run_record("2d", "strong", 1, 8, 41.0, 0.0, "q=1"),
            run_record("2d", "strong", 4, 8, 14.5, 3.5, "q=2")]
    base_1d = run_record("1d", "strong", 2, 4, 12.125, 1.25, "t=2", dp_baseline=True)
    base_2d = run_record("2d", "strong", 4, 4, 8.0625, 2.0, "q=2", dp_baseline=True)
    base_weak = run_record("1d", "weak", 2, 8, 22.5, 2.0, "t=2", dp_baseline=True)
    runs += [base_1d, base_2d, base_weak,
             run_record("1d", "strong", 4, 8, 13.5, 1.5, "dp=2 x t=2", dp=2, comm_ms_dp=0.75,
                        baseline=base_1d),
             run_record("1d", "strong", 4, 8, 15.3, 1.5, "dp=2 x t=2", dp=2, comm_ms_dp=2.5,
                        buckets="per-tensor", baseline=base_1d),
             run_record("1d", "weak", 4, 16, 24.7, 2.1, "dp=2 x t=2", dp=2, comm_ms_dp=1.3,
                        baseline=base_weak),
             run_record("2d", "strong", 8, 8, 19.0, 4.25, "dp=2 x q=2", dp=2, comm_ms_dp=3.0,
                        baseline=base_2d)]
    return runs


def report(report_py, inputs, out):
    return subprocess.run([sys.executable, report_py, *inputs, "-o", out], capture_output=True,
                          text=True)


def section(markdown, title):
    """The lines of one `## title` section."""
    lines = markdown.splitlines()
    start = lines.index(f"## {title}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def table(lines):
    """The section's Markdown table as dicts by column header."""
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in lines if line.startswith("| ")]
    header, body = rows[0], rows[2:]  # rows[1] is the separator, | --- |
    return [dict(zip(header, row)) for row in body]


def close(text, value, decimals):
    assert abs(float(text) - value) <= 0.5 * 10**-decimals + 1e-12, f"{text} is not {value}"


def check_dp_report(report_py, out):
    runs = sweep()
    path = os.path.join(out, "dp_scaling.json")
    with open(path, "w") as f:
        json.dump({"runs": runs, "pass": True, "failures": []}, f)
    done = report(report_py, [path], os.path.join(out, "dp"))
    assert done.returncode == 0, done.stderr
    assert re.match(r"wrote .*report.md and 6 plots: .*data_parallel.png", done.stdout), done.stdout
    markdown = open(os.path.join(out, "dp", "report.md")).read()
    lines = section(markdown, "Data parallelism around tensor parallelism")
    assert "![data parallelism](data_parallel.png)" in lines, "the section links no plot"
    with open(os.path.join(out, "dp", "data_parallel.png"), "rb") as f:
        assert f.read(8) == PNG_MAGIC, "data_parallel.png is not a PNG"
    assert any("**oversubscribed**" in line and "min(p, c) / (D min(p/D, c))" in line
               for line in lines), "no word on the oversubscribed runs"

    dp_runs = [r for r in runs if r["dp"] > 1]
    rows = table(lines)
    assert len(rows) == len(dp_runs), f"{len(rows)} rows for {len(dp_runs)} runs with D > 1"
    for r in dp_runs:
        row = next(row for row in rows if (row["scheme"], row["mode"], row["p"], row["buckets"])
                   == (r["scheme"], r["mode"], str(r["np"]), r["dp_buckets"]))
        assert (row["D"], row["grid"], row["baseline p/D"]) == (
            str(r["dp"]), r["grid"], str(r["dp_baseline_np"])), row
        close(row["step ms"], r["step_ms"], 1)
        close(row["baseline ms"], r["dp_baseline_step_ms"], 1)
        close(row["DP efficiency"], r["dp_efficiency"], 2)
        close(row["TP comm %"], 100 * r["comm_share_tp"], 1)
        close(row["DP comm %"], 100 * r["comm_share_dp"], 1)
        close(row["TP MiB/rank"], r["bytes_per_rank_tp"] / 2**20, 2)
        close(row["DP MiB/rank"], r["bytes_per_rank_dp"] / 2**20, 2)
        assert ("oversubscribed" in row["note"]) == r["oversubscribed"], row

    # the scaling table holds the schemes alone: no run with D > 1, no baseline
    scaling = table(section(markdown, "Scaling"))
    alone = [r for r in runs if r["dp"] == 1 and not r["dp_baseline"]]
    assert sorted((row["scheme"], row["mode"], row["p"]) for row in scaling) == sorted(
        (r["scheme"], r["mode"], str(r["np"])) for r in alone), scaling
    print(f"ok: the DP section tables {len(rows)} runs as the JSON has them, and links its plot")

    for r in runs:
        r["dp_baseline"] = False
    with open(path, "w") as f:
        json.dump({"runs": runs}, f)
    refused = report(report_py, [path], os.path.join(out, "dp-bad"))
    assert refused.returncode == 2, (refused.returncode, refused.stderr)
    assert "the inputs lack its baseline" in refused.stderr, refused.stderr
    print("ok: a run whose baseline is missing is refused, exit 2")


def check_old_report(report_py, old_json, out):
    done = report(report_py, [old_json], os.path.join(out, "old"))
    assert done.returncode == 0, done.stderr
    assert re.match(r"wrote .*report.md and 5 plots", done.stdout), done.stdout
    markdown = open(os.path.join(out, "old", "report.md")).read()
    assert "## Scaling" in markdown and "Data parallelism" not in markdown, "DP section without dp"
    assert not os.path.exists(os.path.join(out, "old", "data_parallel.png"))
    print("ok: JSON without dp gives the report it gave before, no DP section")


def main():
    report_py, old_json, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    check_dp_report(report_py, out)
    check_old_report(report_py, old_json, out)


if __name__ == "__main__":
    main()
