#!/usr/bin/env bash
# stop_ends_the_job.sh TPLAB: SIGTERM to `tplab verify` while its mpiexec job runs (what
# `timeout` sends when a gpu-check step runs past its limit, and Ctrl-C's SIGINT alike) ends
# the job's ranks too, within seconds, and tplab then ends by that signal. The job runs in a
# process group of its own, which the signal does not reach: tplab must end it.
set -uo pipefail
tplab=$1
seed=$((RANDOM * 32768 + RANDOM + 1000))  # marks this test's processes
log=$(mktemp)
trap 'rm -f "$log"' EXIT
job() { pgrep -f -- "--seed $seed( |$)" | grep -vx "$tplab_pid"; }

"$tplab" verify --scheme 1d --np 2 --dtype f64 --shape 8,128,1024,16 --seed "$seed" >"$log" 2>&1 &
tplab_pid=$!
for _ in $(seq 200); do
  [[ -n $(job) ]] && break
  sleep 0.1
done
[[ -n $(job) ]] || { cat "$log"; echo "FAIL: the job never started"; exit 1; }
sleep 2  # the ranks are computing
kill -TERM "$tplab_pid"
wait "$tplab_pid"
code=$?
left=""
for _ in $(seq 80); do
  left=$(job)
  [[ -z $left ]] && break
  sleep 0.1
done
if [[ -n $left ]]; then
  cat "$log"
  echo "FAIL: 8 s after SIGTERM to tplab, its job still runs: $(tr '\n' ' ' <<<"$left")"
  kill -KILL $left 2>/dev/null  # this test's own ranks, by their ids
  exit 1
fi
if ((code != 128 + 15)) || ! grep -q 'ending mpiexec -n 2' "$log"; then
  cat "$log"
  echo "FAIL: tplab ended with $code (not 143, SIGTERM's), or without saying it ended the job"
  exit 1
fi
echo "ok: SIGTERM ended the job's ranks, then tplab (exit $code): $(grep -m 1 'ending mpiexec' "$log")"
