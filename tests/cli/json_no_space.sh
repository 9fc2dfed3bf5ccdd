#!/usr/bin/env bash
# json_no_space.sh TPLAB DIR
# A --json on a file system that clearly lacks room for it is refused before any job runs
# (exit 2, both amounts named; mpiexec is /bin/false, so a job let through would exit 1), while
# one that fits is written: a 64 KiB tmpfs, mounted in a user namespace of the test's own, takes
# the JSON of 2 training steps, not that of verify's four 1D jobs.
set -uo pipefail
tplab=$1 dir=$2/json_no_space
rm -rf "$dir"
mkdir -p "$dir/small"
unshare --user --map-root-user --mount true 2>/dev/null || {
  echo "this machine allows no user namespace with its own mounts: nothing to check"; exit 77; }
unshare --user --map-root-user --mount sh -c '
  mount -t tmpfs -o size=64k tmpfs "$0/small" || exit 1
  TPLAB_MPIEXEC=/bin/false timeout 60 "$1" verify --scheme 1d --json "$0/small/verify.json" \
    >"$0/verify.out" 2>&1
  echo $? >"$0/verify.code"
  timeout 60 "$1" train --scheme 1d --np 2 --steps 2 --json "$0/small/train.json" \
    >"$0/train.out" 2>&1
  echo $? >"$0/train.code"
  [ -s "$0/small/train.json" ] && echo written >"$0/train.written"' "$dir" "$tplab"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
tail -n 2 "$dir/verify.out"
[[ $(cat "$dir/verify.code") -eq 2 ]] || fail "verify exited $(cat "$dir/verify.code"), expected 2"
grep -Eq -- "--json $dir/small/verify.json: the file system of $dir/small has [0-9.]+ KiB free, and this run writes about [0-9.]+ (KiB|MiB) there" "$dir/verify.out" ||
  fail "verify did not say how much room there is and how much it needs"
if grep -q "mpiexec -n" "$dir/verify.out"; then fail "verify launched a job"; fi
[[ $(cat "$dir/train.code") -eq 0 ]] || { cat "$dir/train.out"; fail "train exited $(cat "$dir/train.code")"; }
[[ -f $dir/train.written ]] || fail "train's --json, which fits, was not written"
[[ $failed -eq 0 ]] && echo "ok: a --json with too little room is refused up front; one that fits is written"
exit $failed
