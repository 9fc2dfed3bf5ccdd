"""Checks the JSON that `tplab model --json` writes: the fields the README documents, that
every total follows from the parts beside it, and that each collective runs on the link its
group's placement on the nodes calls for.

usage: check_model_json.py FILE
"""
import json
import math
import sys


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)


def check_groups(p, per_node, element_bytes):
    """The nodes the ranks fill, each group's placement on them and its share of the traffic."""
    assert p["ranks_per_node"] == per_node, p
    assert p["nodes"] == -(-p["gpus"] // per_node), p
    groups = {g["group"]: g for g in p["groups"]}
    for g in p["groups"]:
        assert g["size"] > 1 and g["size"] * g["groups"] == p["gpus"], g
        assert 0 <= g["groups_across_nodes"] <= g["groups"], g
        assert g["inter_node"] == (g["groups_across_nodes"] > 0), g
        # a group of n ranks needs at least n / per_node nodes and holds at most n of them
        assert -(-g["size"] // per_node) <= g["fewest_nodes"] <= g["most_nodes"], g
        assert g["most_nodes"] <= min(g["size"], p["nodes"]), g
        assert (g["most_nodes"] > 1) == g["inter_node"], g
        assert (g["fewest_nodes"] > 1) == (g["groups_across_nodes"] == g["groups"]), g
    traffic = {t["group"]: t for t in p["traffic_by_group"]}
    assert set(traffic) == set(groups), (traffic, groups)
    for name, t in traffic.items():
        rows = [r for r in p["collectives"] if r["group"] == name]
        assert t["inter_node"] == groups[name]["inter_node"], t
        assert close(t["seconds"], sum(r["latency_s"] + r["bandwidth_s"] for r in rows)), t
        assert close(t["bytes"], sum(r["elements"] for r in rows) * element_bytes), t
    for r in p["collectives"]:
        group = groups[r["group"]]
        assert r["group_size"] == group["size"], (r, group)
        assert r["inter_node"] == group["inter_node"], (r, group)


def main():
    out = json.load(open(sys.argv[1]))
    assert set(out["shape"]) == {"b", "s", "h", "heads"}
    hw = out["hardware"]
    for key in ("name", "gpus_per_node", "matmul_flops_per_s", "bytes_per_element",
                "intra_node", "sources"):
        assert key in hw, f"hardware lacks {key}"
    per_node = out["ranks_per_node"]
    assert isinstance(per_node, int) and per_node >= 1, per_node
    fitting = 0
    for p in out["projections"]:
        if not p["fits"]:
            assert p["why_not"], p
            continue
        fitting += 1
        check_groups(p, per_node, hw["bytes_per_element"])
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
    print(f"ok: {len(out['projections'])} projections, {fitting} with a grid, totals consistent, "
          f"groups placed on nodes of {per_node} ranks")


if __name__ == "__main__":
    main()
