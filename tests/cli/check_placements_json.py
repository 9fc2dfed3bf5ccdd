"""Checks the JSON that `tplab placements --json` writes: every rank has one block of every
tensor, the blocks lie inside the global matrix and cover each element the same number of
times, and a tensor's replica count is what the scheme implies.

usage: check_placements_json.py FILE SCHEME WORLD_SIZE TENSOR=REPLICAS...
"""
import json
import sys


def as_matrix(extents):
    return (1, extents[0]) if len(extents) == 1 else tuple(extents)


def replicas(tensor, world_size):
    rows, cols = as_matrix(tensor["global"])
    cover = [[0] * cols for _ in range(rows)]
    assert [b["rank"] for b in tensor["blocks"]] == list(range(world_size)), tensor["tensor"]
    for b in tensor["blocks"]:
        assert 0 <= b["row0"] and b["row0"] + b["rows"] <= rows, (tensor["tensor"], b)
        assert 0 <= b["col0"] and b["col0"] + b["cols"] <= cols, (tensor["tensor"], b)
        for r in range(b["row0"], b["row0"] + b["rows"]):
            for c in range(b["col0"], b["col0"] + b["cols"]):
                cover[r][c] += 1
    counts = {n for row in cover for n in row}
    assert len(counts) == 1 and 0 not in counts, (tensor["tensor"], counts)
    return counts.pop()


def main():
    path, scheme, world_size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    expected = dict(arg.split("=") for arg in sys.argv[4:])
    out = json.load(open(path))
    assert out["scheme"] == scheme and out["world_size"] == world_size, out
    assert set(out["shape"]) == {"b", "s", "h", "heads"}
    found = {t["tensor"]: replicas(t, world_size) for t in out["tensors"]}
    for name, count in expected.items():
        assert found[name] == int(count), f"{name}: {found[name]} replicas, expected {count}"
    print(f"ok: {len(found)} tensors on {world_size} ranks, every element held equally often")


if __name__ == "__main__":
    main()
