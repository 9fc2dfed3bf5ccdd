"""Checks the JSON that `tplab model plan --json` writes, and the plot drawn from it: every
DP x TP x PP factorisation of the device count appears (priced or skipped with a reason), each
step is the sum of its parts, memory totals add up, "best" is the fastest layout that fits, and
the PNG is one.

usage: check_plan_json.py PLAN.json [PLOT.png]
"""
import json
import math
import sys

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PARTS = ["compute_s", "tp_comm_s", "p2p_s", "bubble_s", "dp_comm_s"]
MEMORY = ["weights", "gradients", "optimizer", "activations"]


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def factorisations(n):
    return {(dp, tp, n // (dp * tp)) for dp in range(1, n + 1) if n % dp == 0
            for tp in range(1, n // dp + 1) if (n // dp) % tp == 0}


def check_layout(e, plan):
    assert close(e["step_s"], sum(e[p] for p in PARTS)), e
    assert close(e["memory"]["total"], sum(e["memory"][k] for k in MEMORY)), e
    assert e["fits_memory"] == (e["memory"]["total"] <= plan["cluster"]["memory_bytes"]), e
    m, p = e["micro_batches"], e["pp"]
    assert m == plan["batch"]["global_batch"] // (e["dp"] * plan["batch"]["micro_batch"]), e
    assert close(e["bubble_fraction"], (p - 1) / (m + p - 1)), e
    first = plan["layouts"][0]
    assert close(e["mfu"] * e["step_s"], first["mfu"] * first["step_s"]), \
        "MFU x step is the model FLOPs over the cluster's peak, the same in every layout"
    assert (e["scheme"] == "none") == (e["tp"] == 1), e
    assert e["tp_inter_node"] == any(g["inter_node"] for g in e["tp_groups"]), e


def main():
    plan = json.load(open(sys.argv[1]))
    for key in ["model", "batch", "pipeline", "cluster", "assumptions", "layouts", "skipped",
                "best"]:
        assert key in plan, key
    devices = plan["cluster"]["devices"]
    seen = {(e["dp"], e["tp"], e["pp"]) for e in plan["layouts"] + plan["skipped"]}
    only_dp, only_pp = plan["pipeline"]["only_dp"], plan["pipeline"]["only_pp"]
    asked = {(dp, tp, pp) for dp, tp, pp in factorisations(devices)
             if only_dp in (None, dp) and only_pp in (None, pp)}
    assert seen == asked, seen ^ asked
    assert all(s["why"] for s in plan["skipped"])
    for e in plan["layouts"]:
        check_layout(e, plan)
    fitting = [e for e in plan["layouts"] if e["fits_memory"]]
    best = plan["layouts"][plan["best"]]
    assert best["fits_memory"] and best["step_s"] == min(e["step_s"] for e in fitting), best
    if len(sys.argv) > 2:
        with open(sys.argv[2], "rb") as f:
            assert f.read(8) == PNG_MAGIC, f"{sys.argv[2]} is not a PNG"
    print(f"ok: {len(plan['layouts'])} layouts priced, {len(plan['skipped'])} skipped, every "
          f"factorisation of {devices} present; best DP {best['dp']} x TP {best['tp']} x PP "
          f"{best['pp']}")


if __name__ == "__main__":
    main()
