#!/usr/bin/env bash
# json_in_use_once.sh TPLAB DIR model|grade
# The commands that write their --json once, at the end, hold it from the start as those that
# write it after every job do: while `model compare --json F` (its mpiexec, a stand-in,
# sleeps) or `lesson grade 0 --json F` runs, a second run with the same F exits 2 at once,
# naming the file and the first run's pid, and launches nothing.
set -uo pipefail
tplab=$1 dir=$2/json_in_use_once_$3 mode=$3
rm -rf "$dir"
mkdir -p "$dir"
json=$dir/result.json
failed=0
fail() { echo "FAIL: $*"; failed=1; }
case $mode in
  model) run=(model compare --np 2 --repeats 1 --json "$json") ;;
  grade) run=(lesson grade 0 --json "$json") ;;
esac

printf '#!/bin/sh\nexec sleep 60\n' >"$dir/sleeping-mpiexec"
chmod +x "$dir/sleeping-mpiexec"
TPLAB_MPIEXEC=$dir/sleeping-mpiexec "$tplab" "${run[@]}" >"$dir/first.out" 2>&1 &
first=$!
trap 'kill $first 2>/dev/null' EXIT
# The first run holds the lock once its lock file holds its pid.
for ((i = 0; i < 1200; ++i)); do
  [[ $(cat "$dir/.result.json.lock" 2>/dev/null) == "$first" ]] && break
  sleep 0.05
done
[[ $(cat "$dir/.result.json.lock" 2>/dev/null) == "$first" ]] ||
  fail "the first run never locked $json"

second=$(TPLAB_MPIEXEC=/bin/false timeout 20 "$tplab" "${run[@]}" 2>&1)
code=$?
printf '%s\n' "$second" | tail -n 3
[[ $code -eq 2 ]] || fail "the second run exited $code, expected 2"
grep -q "another tplab run is writing $json (pid $first)" <<<"$second" ||
  fail "the second run did not name the file and pid $first"
if grep -q "mpiexec -n" <<<"$second"; then fail "the second run launched a job"; fi
[[ $failed -eq 0 ]] && echo "ok: a second writer of one $mode --json is refused"
exit $failed
