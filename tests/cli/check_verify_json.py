"""Checks the JSON that `tplab verify --json` writes: the fields the README documents, that
every verdict follows from the numbers beside it (the communication's included), up to the
top-level "pass" and "failures", and that the default's coverage is there: every configuration
with overlap off and on, and the f64 block with x far from zero (h >= 24).

usage: check_verify_json.py FILE [SCHEME,...]   (the schemes that must appear)
"""
import json
import re
import math
import sys

from series_fields import check_series_fields


def main():
    document = json.load(open(sys.argv[1]))
    runs = document["runs"]
    assert runs, "no runs"
    check_series_fields(document, all(run["pass"] for run in runs))
    assert document["pass"], "the verify run failed"
    for run in runs:
        for key in ("scheme", "np", "backend", "dtype", "shape", "pass", "tensors", "comm",
                    "regather", "overlap", "shifted_input", "saved_bytes", "comm_match",
                    "comm_phases", "hosts"):
            assert key in run, f"run lacks {key}"
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
        assert run["pass"] == (all(t["pass"] for t in run["tensors"]) and run["comm_match"])
        far = run["dtype"] == "f64" and not run["exact"] and run["shape"]["h"] >= 24
        assert run["shifted_input"] == far, f"x far from zero exactly in f64 blocks: {run}"
        if run["np"] > 1:
            assert sum(c["calls"] for c in run["comm"]) > 0, "a multi-rank run must communicate"
    configurations = {}
    for run in runs:
        key = (run["scheme"], run["np"], run["dtype"], run["exact"])
        configurations.setdefault(key, set()).add(run["overlap"])
    for key, overlaps in configurations.items():
        assert overlaps == {False, True}, f"{key} ran with overlap {overlaps} only"
    if len(sys.argv) > 2:
        missing = set(sys.argv[2].split(",")) - {run["scheme"] for run in runs}
        assert not missing, f"no runs of {sorted(missing)}"
    print(f"ok: {len(runs)} runs, every field present and consistent")


if __name__ == "__main__":
    main()
