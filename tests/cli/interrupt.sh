#!/usr/bin/env bash
# interrupt.sh TPLAB CASE
# Starts `TPLAB verify` on 4 ranks, stops one rank once all are running (so the job can only end
# if it is ended), then interrupts the launcher the way CASE says: SIGINT, SIGTERM or SIGHUP
# sent to it, or `timeout 4` around it. Checks that tplab exits as shells expect (130, 143,
# 129; 124 from timeout), that no process of the job is left 10 s later, and that the job's
# temporary folder is gone. The job's processes are found by a variable in their environment.
set -uo pipefail
tplab=$1 case=$2
mark="interrupt-$$-$RANDOM"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

job_pids() {
  grep -lsa "TPLAB_TEST_MARK=$mark" /proc/[0-9]*/environ | cut -d/ -f3
}
rank_pids() {
  for p in $(job_pids); do
    grep -qsa "OMPI_COMM_WORLD_RANK=" "/proc/$p/environ" && echo "$p"
  done
}
fail() {
  echo "FAIL ($case): $*"
  ps -o pid,ppid,pgid,stat,args -p "$(job_pids | paste -sd, -)" 2>/dev/null
  for p in $(job_pids); do kill -KILL "$p" 2>/dev/null; done
  exit 1
}

command=("$tplab" verify --scheme 1d --np 4 --shape 8,128,256,8 --dtype f64 --timeout 100)
[[ $case == timeout ]] && command=(timeout 4 "${command[@]}")
TMPDIR=$scratch TPLAB_TEST_MARK=$mark "${command[@]}" >"$scratch.out" 2>&1 &
launcher=$!

for _ in $(seq 200); do
  (($(rank_pids | wc -l) == 4)) && break
  sleep 0.05
done
(($(rank_pids | wc -l) == 4)) || fail "the 4 ranks did not start"
kill -STOP "$(rank_pids | head -1)"
before=$(job_pids | wc -l)

case $case in
  SIGINT | SIGTERM | SIGHUP) kill -"$case" "$launcher"; expected=$((128 + $(kill -l "$case"))) ;;
  timeout) expected=124 ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
wait "$launcher"
code=$?
for _ in $(seq 100); do
  [[ -z $(job_pids) ]] && break
  sleep 0.1
done
left=$(job_pids | wc -l)
cat "$scratch.out"; rm -f "$scratch.out"
((left == 0)) || fail "$left of the job's $before processes still run 10 s after tplab ended"
((code == expected)) || fail "tplab exited $code, expected $expected"
[[ -z $(ls -A "$scratch") ]] || fail "the job's temporary files are left: $(ls -A "$scratch")"
echo "ok ($case): exit $code; the job's $before processes ended; no temporary files left"
