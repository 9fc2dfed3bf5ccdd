"""Checks the JSON that `tplab model --json` writes: the fields the README documents, and that
every total follows from the parts beside it.

usage: check_model_json.py FILE
"""
import json
import math
import sys


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)


def main():
    out = json.load(open(sys.argv[1]))
    assert set(out["shape"]) == {"b", "s", "h", "heads"}
    hw = out["hardware"]
    for key in ("name", "gpus_per_node", "matmul_flops_per_s", "bytes_per_element",
                "intra_node", "sources"):
        assert key in hw, f"hardware lacks {key}"
    fitting = 0
    for p in out["projections"]:
        if not p["fits"]:
            assert p["why_not"], p
            continue
        fitting += 1
        assert close(p["step_s"], p["compute_s"] + p["comm_s"]), p
        assert close(p["comm_s"], p["comm_latency_s"] + p["comm_bandwidth_s"]), p
        assert close(p["compute_s"], p["flops_per_device"] / hw["matmul_flops_per_s"]), p
        rows = p["collectives"]
        assert close(p["comm_latency_s"], sum(r["latency_s"] for r in rows)), p
        assert p["comm_elements_per_device"] == sum(r["elements"] for r in rows), p
        bus = sum(r["bus_elements"] for r in rows) * hw["bytes_per_element"]
        assert close(p["comm_bus_bytes_per_device"], bus), p
        for r in rows:
            link = hw["inter_node"] if r["inter_node"] else hw["intra_node"]
            rate = link.get("per_collective", {}).get(r["collective"], link)
            assert close(r["bandwidth_s"], r["bus_elements"] * hw["bytes_per_element"]
                         / rate["bandwidth_bytes_per_s"]), r
    assert fitting > 0, "no projection fits"
    for gpus, scheme in out["fastest"].items():
        best = [p for p in out["projections"] if p["fits"] and p["gpus"] == int(gpus)]
        assert min(best, key=lambda p: p["step_s"])["scheme"] == scheme or not all(
            p["fits_memory"] for p in best), (gpus, scheme)
    print(f"ok: {len(out['projections'])} projections, {fitting} with a grid, totals consistent")


if __name__ == "__main__":
    main()
