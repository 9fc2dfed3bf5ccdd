"""Checks the JSON that `tplab placements --json` writes: every rank has one block of every
tensor, the blocks lie inside the global matrix and cover each element the same number of
times, and a tensor's replica count is what the scheme implies. The mesh's coordinates follow
world rank = (replica x S + stage) x P + scheme rank, with its DP and PP groups.

With a pipeline (--pp S > 1) every block tensor is named by its layer ("layer0.wq"), and a
layer's tensors are held on the ranks of the stage that holds that layer and on no other; the
stages split the L blocks evenly, the first holds the embedding, the last the final LayerNorm,
the head and the loss, and every stage's schedule runs each micro-batch's forward before its
backward, the backwards in micro-batch order, keeping at most what the schedule says.

usage: check_placements_json.py FILE SCHEME WORLD_SIZE TENSOR=REPLICAS...
(with a pipeline, TENSOR without a layer, "wq=1", stands for that tensor of every layer)
"""
import json
import re
import sys

LAYER_TENSOR = re.compile(r"^layer(\d+)\.(.+)$")
LAST_STAGE_HOLDS = ["lnf_gamma", "lnf_beta", "w_head", "b_head", "loss"]


def layer_free(tensor):
    """"wq" for "layer0.wq"; the name itself for a tensor of no layer."""
    match = LAYER_TENSOR.match(tensor)
    return match.group(2) if match else tensor


def as_matrix(extents):
    return (1, extents[0]) if len(extents) == 1 else tuple(extents)


def holds(block):
    return block["rows"] > 0 and block["cols"] > 0


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


def check_mesh(mesh, world_size):
    """The coordinates of every world rank and, where present, the DP and PP groups."""
    d, s, p = mesh["dp"], mesh.get("pp", 1), mesh["scheme_ranks"]
    assert d * s * p == world_size, mesh
    stages = mesh.get("stage", [0] * world_size)
    for w, (r, st, t) in enumerate(zip(mesh["replica"], stages, mesh["scheme_rank"])):
        assert w == (r * s + st) * p + t, f"rank {w}: (replica {r} x {s} + stage {st}) x {p} + {t}"
    if "dp_groups" in mesh:
        expected = [[r * s * p + within for r in range(d)] for within in range(s * p)]
        assert mesh["dp_groups"] == expected, mesh["dp_groups"]
    if "pp_groups" in mesh:
        expected = [[(r * s + st) * p + t for st in range(s)] for r in range(d) for t in range(p)]
        assert mesh["pp_groups"] == expected, mesh["pp_groups"]
    return d, s, p


def check_schedule(stage, stages, pipeline):
    """Each micro-batch's forward once and before its backward, the backwards in order, and at
    most the schedule's number of micro-batches in flight."""
    m, index, actions = pipeline["micro_batches"], stage["stage"], stage["actions"].split()
    assert sorted(actions) == sorted([f"F{i}" for i in range(m)] + [f"B{i}" for i in range(m)])
    assert [a for a in actions if a[0] == "B"] == [f"B{i}" for i in range(m)], actions
    now = most = 0
    for a in actions:
        if a[0] == "B":
            assert actions.index("F" + a[1:]) < actions.index(a), (index, a)
        now += 1 if a[0] == "F" else -1
        most = max(most, now)
    kept = m if pipeline["schedule"] == "gpipe" else min(stages - index, m)
    assert stage["most_in_flight"] == most == kept, (index, stage["most_in_flight"], most, kept)


def check_pipeline(out, d, s, p):
    """The stages' blocks, ranks and schedules, and every layer's tensors on its stage only."""
    pipeline = out["pipeline"]
    layers = pipeline["layers"]
    assert layers % s == 0 and len(pipeline["stages"]) == s, pipeline
    per_stage = layers // s
    for st, stage in enumerate(pipeline["stages"]):
        assert stage["stage"] == st and stage["first_layer"] == st * per_stage, stage
        assert stage["layers"] == per_stage, stage
        assert stage["ranks"] == [[(r * s + st) * p + t for t in range(p)] for r in range(d)]
        expected = (["embedding"] if st == 0 else []) + (LAST_STAGE_HOLDS if st == s - 1 else [])
        assert stage["holds"] == expected, (st, stage["holds"])
        check_schedule(stage, s, pipeline)
    stage_of = out["mesh"]["stage"]
    names = {}
    for t in out["tensors"]:
        match = LAYER_TENSOR.match(t["tensor"])
        assert match, f"{t['tensor']}: with stages every block tensor is named by its layer"
        layer, name = int(match.group(1)), match.group(2)
        assert 0 <= layer < layers, t["tensor"]
        names.setdefault(layer, set()).add(name)
        holder = layer // per_stage
        held = [b["rank"] for b in t["blocks"] if holds(b)]
        ranks = [w for w in range(len(stage_of)) if stage_of[w] == holder]
        assert held == ranks, f"{t['tensor']}: held on {held}, stage {holder} is {ranks}"
    assert sorted(names) == list(range(layers)), sorted(names)
    assert all(n == names[0] for n in names.values()), "every layer has the same tensors"
    return layers


def main():
    path, scheme, world_size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    expected = dict(arg.split("=") for arg in sys.argv[4:])
    out = json.load(open(path))
    assert out["scheme"] == scheme and out["world_size"] == world_size, out
    assert set(out["shape"]) == {"b", "s", "h", "heads"}
    d, s, p = check_mesh(out["mesh"], world_size)
    found = {t["tensor"]: replicas(t, world_size) for t in out["tensors"]}
    stages = ""
    if s > 1:
        layers = check_pipeline(out, d, s, p)
        stages = f"; L = {layers} blocks over {s} stages, every layer on its stage's ranks only"
    else:
        assert "pipeline" not in out, "a pipeline section without stages"
    for name, count in expected.items():
        matches = [n for n in found if n == name or (s > 1 and layer_free(n) == name)]
        assert matches, f"{name}: no such tensor"
        for n in matches:
            assert found[n] == int(count), f"{n}: {found[n]} replicas, expected {count}"
    print(f"ok: {len(found)} tensors on {world_size} ranks, every element held equally often"
          f"{stages}")


if __name__ == "__main__":
    main()
