"""Checks the JSON that `tplab verify --json` writes: the fields the README documents, that
every verdict follows from the numbers beside it (the communication's included), up to the
top-level "pass" and "failures", and that the default's coverage is there: every configuration
with overlap off and on (the runs with attention scores past exp's overflow point with one of
them), the f64 block with x far from zero (h >= 24), and in f64 and f32 the scores past the
overflow point, with dy = 0 and so every gradient exactly 0. The whole GPT's runs ("workload":
"gpt") likewise: the loss and every parameter's gradient, the padding untouched, the transfers
between stages as modelled, and one in each dtype beside the block's of each scheme and world
size, unless the file holds none (--no-gpt).

usage: check_verify_json.py FILE [SCHEME,...]   (the schemes that must appear)
"""
import json
import re
import math
import sys

from series_fields import check_series_fields


def check_gpt(run):
    """One run of the whole GPT: its fields, its tensors in the order values flow, its verdict."""
    for key in ("scheme", "np", "dp", "pp", "micro_batches", "schedule", "grid", "backend",
                "dtype", "seed", "shape", "padded_vocab", "logit_offset", "dropout", "loss",
                "reference_loss", "tensors", "padding_untouched", "transfers_as_modelled", "pass",
                "hosts"):
        assert key in run, f"GPT run lacks {key}"
    shape = run["shape"]
    assert set(shape) == {"b", "s", "h", "heads", "vocab", "layers"}, shape
    assert run["padded_vocab"] >= shape["vocab"], run["padded_vocab"]
    names = [t["name"] for t in run["tensors"]]
    layers = [f"d_layer{l}.{p}" for l in range(shape["layers"])
              for p in ("ln1_gamma", "ln1_beta", "wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo",
                        "ln2_gamma", "ln2_beta", "w1", "b1", "w2", "b2")]
    assert names == (["loss", "d_embedding"] + layers
                     + ["d_lnf_gamma", "d_lnf_beta", "d_w_head", "d_b_head"]), names
    for t in run["tensors"]:
        assert re.fullmatch("[0-9a-f]{16}", t["bits"]), t["bits"]
        if t["max_rel_l2"] is not None and run["dtype"] == "f64":
            assert t["rel_l2"] <= 1e-12, t
    if run["logit_offset"]:
        overflow = {"f64": 709.78, "f32": 88.72}[run["dtype"]]
        assert run["logit_offset"] > 1.9 * overflow, f"logits short of the overflow: {run}"
    assert run["pass"] == (all(t["pass"] for t in run["tensors"]) and run["padding_untouched"]
                           and run["transfers_as_modelled"])
    placed = sorted(r for host in run["hosts"] for r in host["ranks"])
    assert placed == list(range(run["np"])), f"hosts {run['hosts']} must place every rank once"


def main():
    document = json.load(open(sys.argv[1]))
    runs = document["runs"]
    assert runs, "no runs"
    check_series_fields(document, all(run["pass"] for run in runs))
    assert document["pass"], "the verify run failed"
    gpts = [run for run in runs if run.get("workload") == "gpt"]
    runs = [run for run in runs if run.get("workload", "block") == "block"]
    for run in gpts:
        check_gpt(run)
    if gpts:
        checked = {(r["scheme"], r["np"], r["dtype"]) for r in gpts}
        for run in runs:
            key = (run["scheme"], run["np"], run["dtype"])
            assert run["exact"] or key in checked, f"{key}: the block's, but no GPT run"
    for run in runs:
        for key in ("scheme", "np", "backend", "dtype", "shape", "pass", "tensors", "comm",
                    "regather", "overlap", "shifted_input", "large_scores", "largest_score", "saved_bytes", "comm_match",
                    "comm_phases", "hosts", "dropout", "recompute", "recompute_match"):
            assert key in run, f"run lacks {key}"
        assert set(run["dropout"]) == {"p", "seed", "keying"}, run["dropout"]
        assert run["recompute"] in ("none", "selective", "full"), run["recompute"]
        assert run["saved_bytes"] > 0, "forward keeps something for backward"
        assert run["saved_bytes"] == run["saved_bytes_model"], "kept bytes differ from the model"
        assert set(run["shape"]) == {"b", "s", "h", "heads"}
        placed = sorted(r for host in run["hosts"] for r in host["ranks"])
        assert placed == list(range(run["np"])), f"hosts {run['hosts']} must place every rank once"
        assert all(host["name"] for host in run["hosts"]), "a host without a name"
        assert run["tensors"], "run checked no tensor"
        for t in run["tensors"]:
            for key in ("name", "shape", "max_abs", "rel_l2", "atol", "rtol", "bits", "pass"):
                assert key in t, f"tensor lacks {key}"
            assert re.fullmatch("[0-9a-f]{16}", t["bits"]), t["bits"]
            if run["exact"]:
                assert t["max_abs"] == 0 and t["pass"], t
            if t["max_rel_l2"] is not None and run["dtype"] == "f64" and not run["exact"]:
                assert t["rel_l2"] <= 1e-12, t
        for c in run["comm"]:
            for key in ("collective", "group", "calls", "elements", "bytes", "model_elements"):
                assert key in c, f"comm row lacks {key}"
            assert c["match"] == all(c[key] == c["model_" + key]
                                     for key in ("group_size", "calls", "elements")), c
        phases = run["comm_phases"]["forward"] + run["comm_phases"]["backward"]
        assert run["comm_match"] == all(c["match"] for c in phases)
        for key in ("calls", "elements", "model_elements"):
            assert sum(c[key] for c in run["comm"]) == sum(c[key] for c in phases), key
        assert run["pass"] == (all(t["pass"] for t in run["tensors"]) and run["comm_match"]
                               and run["recompute_match"])
        far = (run["dtype"] == "f64" and not run["exact"] and not run["large_scores"]
               and run["shape"]["h"] >= 24)
        assert run["shifted_input"] == far, f"x far from zero exactly in f64 blocks: {run}"
        if run["large_scores"]:
            overflow = {"f64": 709.78, "f32": 88.72}[run["dtype"]]
            assert run["largest_score"] > 1.9 * overflow, f"scores short of the overflow: {run}"
            for t in run["tensors"]:
                assert t["name"] == "y" or t["max_abs"] == 0, f"dy = 0 but {t['name']} is not 0"
        if run["np"] > 1:
            assert sum(c["calls"] for c in run["comm"]) > 0, "a multi-rank run must communicate"
    configurations = {}
    for run in runs:
        key = (run["scheme"], run["np"], run["dp"], run["dtype"], run["exact"],
               run["large_scores"], tuple(run["shape"].values()))
        configurations.setdefault(key, []).append(run["overlap"])
    for key, overlaps in configurations.items():
        expected = [False] if key[5] else [False, True]
        if key[2] > 1 and sorted(overlaps) == [False]:
            expected = [False]  # the default's replicas run with overlap off only
        assert sorted(overlaps) == expected, f"{key} ran with overlap {overlaps}"
    # Every block with scores past the overflow point too, but the default's replicas (overlap
    # off only, --no-large-scores): the same scheme runs them without replicas.
    blocks = {(r["scheme"], r["np"], r["dp"], r["dtype"]) for r in runs
              if not r["exact"] and r["dtype"] in ("f64", "f32")}
    for key in blocks:
        large = any(r["large_scores"] for r in runs
                    if (r["scheme"], r["np"], r["dp"], r["dtype"]) == key)
        default_replicas = key[2] > 1 and all(
            not r["overlap"] for r in runs if (r["scheme"], r["np"], r["dp"]) == key[:3])
        assert large or default_replicas, f"{key}: no run with scores past the overflow point"
        if default_replicas:
            assert any(r["large_scores"] for r in runs
                       if (r["scheme"], r["dp"], r["dtype"]) == (key[0], 1, key[3])), \
                f"{key}: no run of {key[0]} without replicas with scores past the overflow point"
    if len(sys.argv) > 2:
        missing = set(sys.argv[2].split(",")) - {run["scheme"] for run in runs}
        assert not missing, f"no runs of {sorted(missing)}"
    print(f"ok: {len(runs)} block runs and {len(gpts)} of the GPT, every field present and "
          "consistent")


if __name__ == "__main__":
    main()
