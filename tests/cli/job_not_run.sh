#!/usr/bin/env bash
# job_not_run.sh TPLAB DIR unreachable|full_tmpdir|killed
# A job that could not run, or that was ended from outside, exits 5 (not 1, which says a check
# failed) and the summary gives the cause in Open MPI's own words or the signal:
#   unreachable  its only host cannot be reached (unreachable_rsh.sh stands in for ssh);
#   full_tmpdir  TMPDIR is a full file system (a 4 KiB tmpfs, mounted in a user namespace of
#                the test's own), where Open MPI cannot make its session files;
#   killed       a rank is killed with SIGKILL from outside while it trains (as the kernel's
#                out-of-memory killer would); train says how many of its steps were kept.
set -uo pipefail
tplab=$1 dir=$2 mode=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
out=$dir/job_not_run_$mode.out
failed=0
fail() { echo "FAIL: $*"; failed=1; }

case $mode in
  unreachable)
    printf 'unreachable.invalid slots=2\n' >"$dir/unreachable.hosts"
    OMPI_MCA_plm_rsh_agent=$here/unreachable_rsh.sh timeout 60 "$tplab" verify --scheme 1d \
      --np 2 --dtype f64 --overlap off --hosts "$dir/unreachable.hosts" >"$out" 2>&1
    code=$?
    expected="1d np=2: mpiexec could not run it \(exit [0-9]+\): ORTE was unable to reliably start one or more daemons \(ssh: connect to host unreachable[.a-z]* port 22: No route to host\)"
    ;;
  full_tmpdir)
    unshare --user --map-root-user --mount true 2>/dev/null || {
      echo "this machine allows no user namespace with its own mounts: nothing to check"; exit 77; }
    unshare --user --map-root-user --mount sh -c '
      mkdir -p "$0/tiny" && mount -t tmpfs -o size=4k tmpfs "$0/tiny" &&
      dd if=/dev/zero of="$0/tiny/fill" bs=1k count=64 2>/dev/null
      TMPDIR="$0/tiny" timeout 60 "$1" verify --scheme 1d --np 2 --dtype f64 --overlap off' \
      "$dir" "$tplab" >"$out" 2>&1
    code=$?
    expected="1d np=2: mpiexec could not run it \(exit [0-9]+\): PMIX ERROR: OUT-OF-RESOURCE .*is it full\?"
    ;;
  killed)
    "$tplab" train --scheme 1d --np 2 --steps 1000000 --timeout 60 >"$out" 2>&1 &
    launcher=$!
    rank=""
    for ((i = 0; i < 600; ++i)); do
      [[ -n $rank ]] && break
      sleep 0.1
      mpiexec=$(pgrep -P "$launcher" | head -n 1)
      [[ -n $mpiexec ]] && grep -q '^ *3 ' "$out" && rank=$(pgrep -P "$mpiexec" | head -n 1)
    done
    [[ -n $rank ]] && kill -KILL "$rank"
    wait "$launcher"
    code=$?
    expected="train 1d on .* np=2: a process ended on signal 9 \(Killed\), which tplab never sends: it was ended from outside"
    grep -Eq "^ENDED EARLY: .*; [1-9][0-9]* of its 1000000 steps were kept$" "$out" ||
      fail "no 'ENDED EARLY: ... steps were kept' line"
    ;;
esac
tail -n 4 "$out"
[[ $code -eq 5 ]] || fail "exited $code, expected 5"
grep -Eq "$expected" "$out" || fail "no line matching /$expected/"
exit "$failed"
