#!/usr/bin/env bash
# train_timeout.sh TPLAB DIR REPORT_PY
# A training that runs past its --timeout keeps the steps it finished: tplab train exits 124,
# says how many steps were kept, and --json holds them (each with the reference's loss beside
# it), "pass": false, one failure saying the job timed out, and no memory (it is measured after
# the last step). The report draws the kept steps and says the memory was not measured.
set -uo pipefail
tplab=$1 dir=$2 report=$3
json=$dir/train_timeout.json
mkdir -p "$dir"
rm -f "$json"
output=$(timeout 60 "$tplab" train --scheme 1d --np 2 --steps 1000000 --timeout 4 \
  --json "$json" 2>&1)
code=$?
printf '%s\n' "$output" | tail -n 4
failed=0
fail() { echo "FAIL: $*"; failed=1; }
[[ $code -eq 124 ]] || fail "train exited $code, expected 124"
grep -Eq "^TIMED OUT: the training ran past --timeout 4 s; [1-9][0-9]* of its 1000000 steps were kept, in $json$" <<<"$output" ||
  fail "no 'TIMED OUT: ... steps were kept' line"
python3 - "$json" <<'CHECK' || fail "the JSON does not keep the finished steps (above)"
import json, sys
run = json.load(open(sys.argv[1]))
steps = run["steps"]
assert 0 < len(steps) < 1000000 and run["steps_planned"] == 1000000, len(steps)
assert [s["step"] for s in steps] == list(range(len(steps))), "the steps are not 0, 1, 2, ..."
assert all(abs(s["loss"] - s["reference_loss"]) <= run["tolerance"] * s["reference_loss"]
           for s in steps), "a kept step disagrees with the reference"
assert run["pass"] is False, run["pass"]
(failure,) = run["failures"]
assert failure["exit_reason"] == "timed out after 4 s", failure
assert "memory" not in run, f"a run cut short claims its memory: {run['memory']}"
print(f"ok: {len(steps)} finished steps kept, the time-out named in failures")
CHECK
python3 "$report" "$json" -o "$dir/report" || fail "the report refused the kept steps"
grep -Eq "^\| 1d .* \| FAIL \|  \| not measured \(cut short\) \|$" "$dir/report/report.md" ||
  fail "the report's training row does not say the memory was not measured"
exit "$failed"
