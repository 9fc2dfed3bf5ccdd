#!/usr/bin/env bash
# leftovers_removed.sh TPLAB DIR
# A launcher killed outright (kill -9) leaves its job folder and Open MPI's session folder
# ($TMPDIR/tplab-job-*, $TMPDIR/tplab-mpi-*); the next run removes them, and says so, while the
# folders of a run that still lives (its mpiexec, a stand-in, sleeps) stay.
set -uo pipefail
tplab=$1 dir=$2/leftovers_removed
rm -rf "$dir"
mkdir -p "$dir/tmp"
export TMPDIR=$dir/tmp
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# Each folder holds the record of the run that made it: its pid, among other things.
made_by() { grep -l " $1 " "$TMPDIR"/tplab-*/owner 2>/dev/null | xargs -r -n 1 dirname | sort; }

# A run whose job trains, to be killed with SIGKILL, and one that lives on (its mpiexec sleeps).
"$tplab" train --scheme 1d --np 2 --steps 1000000 --timeout 60 >"$dir/killed.out" 2>&1 &
killed=$!
printf '#!/bin/sh\nexec sleep 60\n' >"$dir/sleeping-mpiexec"
chmod +x "$dir/sleeping-mpiexec"
TPLAB_MPIEXEC=$dir/sleeping-mpiexec "$tplab" verify --scheme 1d --np 1 >"$dir/live.out" 2>&1 &
live=$!
trap 'kill $live 2>/dev/null' EXIT
for ((i = 0; i < 600; ++i)); do
  grep -q '^ *3 ' "$dir/killed.out" && [[ $(made_by "$live" | wc -l) -eq 2 ]] && break
  sleep 0.1
done
left=$(made_by "$killed") kept=$(made_by "$live")
[[ $(wc -w <<<"$left") -eq 2 ]] || fail "the run to kill made no job and session folders: $left"
[[ $(wc -w <<<"$kept") -eq 2 ]] || fail "the live run made no job and session folders: $kept"
kill -KILL "$killed"
wait "$killed" 2>/dev/null
sleep 1  # its mpiexec ends its ranks (PR_SET_PDEATHSIG)
for f in $left; do [[ -d $f ]] || fail "$f went with the killed run: nothing to remove"; done

output=$(timeout 60 "$tplab" train --scheme 1d --np 1 --steps 1 2>&1)
code=$?
[[ $code -eq 0 ]] || { printf '%s\n' "$output"; fail "the next run exited $code"; }
for f in $left; do
  [[ -e $f ]] && fail "$f, which the killed run left, is still there"
  grep -q "tplab: removed $f, left by a run that ended without removing it" <<<"$output" ||
    fail "the next run did not say it removed $f"
done
for f in $kept; do
  [[ -d $f ]] || fail "$f, a folder of the run that lives, was removed"
done
[[ $failed -eq 0 ]] && echo "ok: the killed run's folders were removed, the live run's kept"
exit $failed
