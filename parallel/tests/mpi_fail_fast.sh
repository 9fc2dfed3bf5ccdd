#!/usr/bin/env bash
# mpi_fail_fast.sh MPIEXEC RANKS PROGRAM
# Runs mpi_fail_fast_test (rank 1 fails an ASSERT while the other ranks wait in a barrier) and
# checks that the job ends within 20 s with a non-zero exit, that rank 1's failure message is
# printed, and that the job's end names rank 1 and the test. Prints the output on failure.
set -uo pipefail
mpiexec=$1 ranks=$2 program=$3
limit=20
start=$SECONDS
output=$(timeout "$limit" "$mpiexec" -n "$ranks" "$program" 2>&1)
code=$?
took=$((SECONDS - start))
failed=0
fail() { echo "FAIL: $*"; failed=1; }
[[ $code -eq 124 ]] && fail "the job still ran after $limit s: a failure on one rank left the others waiting"
[[ $code -eq 0 ]] && fail "the job exited 0 though rank 1 failed"
grep -q "rank 1 fails on purpose" <<<"$output" || fail "rank 1's failure message is not printed"
ending="rank 1 of $ranks: FailFast.RankOneFailsBeforeABarrierTheOthersEnter failed at .*mpi_fail_fast_test.cpp:[0-9]+; ending the job"
grep -Eq -- "$ending" <<<"$output" || fail "no line matches /$ending/"
if [[ $failed -ne 0 ]]; then
  printf '%s\n' "$output"
  exit 1
fi
echo "ok: exit $code after $took s, rank 1 and the test named"
