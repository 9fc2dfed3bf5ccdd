#!/usr/bin/env bash
# crash_keeps_results.sh TPLAB DIR
# No result is lost when a later job crashes: verify runs 1D at 2 ranks, then at 4 ranks where
# rank 3 kills itself at its first collective. --json must hold the np=2 runs as soon as that
# job ends (before the crash: a launcher stopped then loses nothing), and in the end those runs,
# "pass": false and one failure naming the job, its world size, how it ended and its last
# message. The summary says how many of the planned runs failed, and mpiexec's advice on slots
# is not given, since mpiexec had enough.
set -uo pipefail
tplab=$1 dir=$2
json=$dir/crash_keeps_results.json
rm -f "$json"
mkdir -p "$dir"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

TPLAB_INJECT_FAULT=rank=3,collective=0,kind=kill timeout 120 "$tplab" verify --scheme 1d \
  --np 2,4 --dtype f64 --overlap off --json "$json" >"$dir/crash_keeps_results.out" 2>&1 &
launcher=$!
# The first version of the file to appear: written when the np=2 job ended.
first=""
for ((i = 0; i < 2400; ++i)); do
  [[ -s $json ]] && first=$(cat "$json") && break
  sleep 0.05
done
wait "$launcher"
code=$?
output=$(cat "$dir/crash_keeps_results.out")
printf '%s\n' "$output" | tail -n 6

[[ $code -eq 5 ]] || fail "verify exited $code, expected 5 (a job ended from outside)"
grep -q "^FAILED: 4 of 8 runs failed: 4 of them left no result" <<<"$output" ||
  fail "no 'FAILED: 4 of 8 runs failed' line"
if grep -q "not enough slots" <<<"$output"; then fail "the advice on slots was given"; fi
python3 - "$first" "$json" <<'CHECK' || fail "the JSON is not as expected (above)"
import json, sys
first = json.loads(sys.argv[1])
assert first["jobs"] == {"planned": 2, "finished": 1}, first["jobs"]
assert [r["np"] for r in first["runs"]] == [2, 2, 2, 2] and not first["pass"], first
final = json.load(open(sys.argv[2]))
assert final["jobs"] == {"planned": 2, "finished": 2}, final["jobs"]
assert [r["np"] for r in final["runs"]] == [2, 2, 2, 2] and all(r["pass"] for r in final["runs"])
assert final["pass"] is False
(failure,) = final["failures"]
assert failure["job"] == "1d" and failure["np"] == 4, failure
assert "signal 9" in failure["exit_reason"], failure
assert "rank 3 fails on purpose" in failure["last_message"], failure
print("ok: the np=2 runs were written as that job ended; the crash is named in failures")
CHECK
exit "$failed"
