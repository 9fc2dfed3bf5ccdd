#!/usr/bin/env bash
# json_in_use.sh TPLAB DIR
# Two runs never write one --json: while a verify writes DIR/json_in_use.json (its mpiexec, a
# stand-in, sleeps), a second verify with the same --json exits 2 at once, naming the file and
# the first run's pid, and launches nothing. Once the first run is stopped (SIGTERM), its lock is
# gone with it: a third run takes the file (its mpiexec, /bin/false, then fails: exit 1).
set -uo pipefail
tplab=$1 dir=$2/json_in_use
rm -rf "$dir"
mkdir -p "$dir"
json=$dir/json_in_use.json
failed=0
fail() { echo "FAIL: $*"; failed=1; }

printf '#!/bin/sh\nexec sleep 60\n' >"$dir/sleeping-mpiexec"
chmod +x "$dir/sleeping-mpiexec"
TPLAB_MPIEXEC=$dir/sleeping-mpiexec "$tplab" verify --scheme 1d --np 1 --json "$json" \
  >"$dir/first.out" 2>&1 &
first=$!
trap 'kill $first 2>/dev/null' EXIT
# The first run holds the lock once it shows its first job.
for ((i = 0; i < 600; ++i)); do
  grep -q "mpiexec -n 1 tplab" "$dir/first.out" && break
  sleep 0.05
done
grep -q "mpiexec -n 1 tplab" "$dir/first.out" || fail "the first run never started its job"

second=$(TPLAB_MPIEXEC=/bin/false timeout 20 "$tplab" verify --scheme 1d --np 1 --json "$json" 2>&1)
code=$?
printf '%s\n' "$second" | tail -n 3
[[ $code -eq 2 ]] || fail "the second run exited $code, expected 2"
grep -q "another tplab run is writing $json (pid $first)" <<<"$second" ||
  fail "the second run did not name the file and pid $first"
if grep -q "mpiexec -n" <<<"$second"; then fail "the second run launched a job"; fi

kill -TERM "$first"
wait "$first"
third=$(TPLAB_MPIEXEC=/bin/false timeout 20 "$tplab" verify --scheme 1d --np 1 --json "$json" 2>&1)
code=$?
[[ $code -eq 1 ]] || { printf '%s\n' "$third"; fail "after the first run ended, a run exited $code, expected 1"; }
[[ $failed -eq 0 ]] && echo "ok: a second writer of one --json is refused; the lock goes with its run"
exit $failed
