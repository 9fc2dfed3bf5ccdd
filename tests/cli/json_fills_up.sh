#!/usr/bin/env bash
# json_fills_up.sh TPLAB DIR
# The disk of --json fills up in the middle of a series: verify 1D at 1, 2 and 4 ranks writes its
# --json into a 2 MiB tmpfs (mounted in a user namespace of the test's own), which the test
# fills as soon as the first job's results are in it. The writes after the next jobs fail; each
# is said, every job still runs, the file keeps the first job's results whole, and the end
# names the jobs whose results are not in it and exits 2.
set -uo pipefail
tplab=$1 dir=$2/json_fills_up
rm -rf "$dir"
mkdir -p "$dir/small"
unshare --user --map-root-user --mount true 2>/dev/null || {
  echo "this machine allows no user namespace with its own mounts: nothing to check"; exit 77; }
unshare --user --map-root-user --mount sh -c '
  mount -t tmpfs -o size=2m tmpfs "$0/small" || exit 1
  timeout 120 "$1" verify --scheme 1d --np 1,2,4 --dtype f64 --overlap off \
    --json "$0/small/verify.json" >"$0/verify.out" 2>&1 &
  verify=$!
  i=0
  while [ ! -s "$0/small/verify.json" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
  dd if=/dev/zero of="$0/small/fill" bs=4k 2>/dev/null
  wait $verify
  echo $? >"$0/verify.code"
  cp "$0/small/verify.json" "$0/kept.json"' "$dir" "$tplab"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
out=$dir/verify.out
tail -n 3 "$out"
[[ $(cat "$dir/verify.code") -eq 2 ]] || fail "verify exited $(cat "$dir/verify.code"), expected 2"
grep -q "^\[3/3, .*mpiexec -n 4 tplab verify" "$out" || fail "the last job did not run"
[[ $(grep -c "the other jobs still run, and it is tried again after each" "$out") -eq 2 ]] ||
  fail "the two failed writes were not both said"
grep -Eq "^tplab: NOT WRITTEN: the results of 2 of 3 jobs \(1d np=2, 1d np=4\) are not in --json: --json .*verify.json: writing it failed \(No space left on device\)" "$out" ||
  fail "the end does not name the jobs whose results are missing"
python3 - "$dir/kept.json" <<'CHECK' || fail "the file does not hold the first job's results whole"
import json, sys
kept = json.load(open(sys.argv[1]))
assert kept["jobs"] == {"planned": 3, "finished": 1}, kept["jobs"]
assert kept["runs"] and all(r["np"] == 1 for r in kept["runs"]), [r["np"] for r in kept["runs"]]
print(f"ok: the file holds the {len(kept['runs'])} runs of the first job")
CHECK
exit $failed
