"""Checks the recompute comparison that `tplab bench step --compare recompute --json` writes:
each mode's kept bytes, measured on the device, equal the cost model's; recomputing keeps less
(none > selective > full) and costs FLOPs (full a third more than none, selective more than
none); every time is positive.

usage: check_recompute_json.py FILE
"""
import json
import math
import sys


def main():
    runs = json.load(open(sys.argv[1]))["runs"]
    assert runs, "no runs"
    for run in runs:
        modes = run["recompute_comparison"]
        assert set(modes) == {"none", "selective", "full"}, modes.keys()
        for name, mode in modes.items():
            assert mode["kept_bytes"] == mode["model_kept_bytes"], (name, mode)
            assert mode["step_ms"] > 0 and mode["peak_bytes"] >= mode["kept_bytes"], (name, mode)
        none, selective, full = modes["none"], modes["selective"], modes["full"]
        assert none["kept_bytes"] > selective["kept_bytes"] > full["kept_bytes"] > 0, modes
        assert none["flops_ratio"] == 1 and selective["flops_ratio"] > 1, modes
        assert math.isclose(full["flops_ratio"], 4 / 3, rel_tol=1e-12), full
        assert run["recompute"] in ("none", "selective", "full"), run["recompute"]
        assert set(run["dropout"]) == {"p", "seed", "keying"}, run["dropout"]
    print(f"ok: {len(runs)} runs, each mode's kept bytes as the model says")


if __name__ == "__main__":
    main()
