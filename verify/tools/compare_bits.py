#!/usr/bin/env python3
"""Compares the bits of every tensor of two `tplab verify --json` files.

    verify/tools/compare_bits.py BEFORE.json AFTER.json

Runs are matched by what was run: the block's or the whole GPT's, the scheme, ranks, replicas,
stages, shape, dtype, and every option that changes the inputs or the code path (exact, shifted
or large inputs, overlap, regather, logit offset, micro-batches); each tensor's "bits" (a
fingerprint of every rank's shard) must be equal. A change that keeps the order of every sum
keeps the bits: use it to show that a rewrite computes what it computed before. Prints one line
per run and exits 1 when a tensor's bits differ or a run is missing from either file.
"""
import json
import sys


def runs_by_key(path):
    with open(path) as f:
        document = json.load(f)
    keyed = {}
    for run in document["runs"]:
        shape = ",".join(f"{k}={v}" for k, v in run["shape"].items())
        options = [f"{field}={run[field]}" for field in KEYED if field in run]
        key = (run.get("workload", "block"), run["scheme"], run["np"], shape, run["dtype"],
               " ".join(options))
        assert key not in keyed, f"{path}: two runs of {key}"
        keyed[key] = {t["name"]: t["bits"] for t in run["tensors"]}
    return keyed


# The fields besides scheme, ranks, shape and dtype that tell two runs of one file apart.
KEYED = ("dp", "pp", "micro_batches", "schedule", "exact", "shifted_input", "large_scores",
         "overlap", "regather", "logit_offset")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = runs_by_key(sys.argv[1]), runs_by_key(sys.argv[2])
    failed = False
    for key in sorted(set(before) | set(after), key=str):
        name = "{} {} np={} shape={} {} {}".format(*key)
        if key not in before or key not in after:
            print(f"{name}: only in {sys.argv[1] if key in before else sys.argv[2]}")
            failed = True
            continue
        differ = [t for t in before[key] if before[key][t] != after[key].get(t)]
        print(f"{name}: {len(before[key]) - len(differ)} of {len(before[key])} tensors the same bits"
              + (f"; different: {', '.join(differ)}" if differ else ""))
        failed |= bool(differ) or set(before[key]) != set(after[key])
    same = sum(1 for k in before if k in after and before[k] == after[k])
    print(f"{same} of {len(set(before) | set(after))} runs have the same bits in every tensor")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
