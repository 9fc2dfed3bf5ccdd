#!/usr/bin/env bash
# verify_bits.sh TPLAB COMPARE BEFORE.json SCRATCH
# Runs `TPLAB verify --scheme 1d` again and shows with COMPARE (verify/tools/compare_bits.py)
# that every tensor of every run has the bits BEFORE.json recorded: the runs are repeatable to
# the bit. Then changes one tensor's bits in a copy and shows that COMPARE finds it.
set -euo pipefail
tplab=$1 compare=$2 before=$3 scratch=$4
mkdir -p "$scratch"
"$tplab" verify --scheme 1d --json "$scratch/again.json" >/dev/null
python3 "$compare" "$before" "$scratch/again.json" | tail -1
python3 - "$scratch/again.json" "$scratch/changed.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
tensor = document["runs"][3]["tensors"][2]
tensor["bits"] = "{:016x}".format(int(tensor["bits"], 16) ^ 1)
json.dump(document, open(sys.argv[2], "w"))
PY
if python3 "$compare" "$before" "$scratch/changed.json" >"$scratch/changed.txt"; then
  echo "FAIL: a changed tensor's bits went unnoticed"; exit 1
fi
grep -q "different: " "$scratch/changed.txt" || { echo "FAIL: the change is not named"; exit 1; }
grep "different: " "$scratch/changed.txt"
echo "ok: the same bits on a second run; a changed tensor is named"
