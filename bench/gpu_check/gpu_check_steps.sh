#!/usr/bin/env bash
# gpu_check_steps.sh: the GPU checks, one bounded step after another. Both ways of running them
# end here: the bundle's `run.sh gpu-check` (bench/gpu_bundle/) and the source tree's
# `./tplab gpu-check` (gpu_check.sh, after its build).
#
# usage: gpu_check_steps.sh --bin DIR --out DIR --runtime CUDA_VERSION [--budget SECONDS]
#        gpu_check_steps.sh --state --runtime CUDA_VERSION
#
#   --bin      the folder of tplab, cuda_device_tests and verify_cuda_tests
#   --out      where the results go: at most 8 files, each cut to 16 MiB
#   --runtime  the CUDA version of the programs' runtime (13.0): the driver must support it
#   --budget   seconds for everything (default 360); each step runs under its own timeout,
#              never past the budget
#   --state    only report the GPU's state (driver, compute mode, MIG) and stop
#
# First the GPU's state: a driver too old for the runtime stops everything here (exit 4, "driver
# too old"); compute mode Exclusive_Process lets one process at a time use the GPU, so the
# steps where ranks share it are refused, saying so; Prohibited refuses every GPU step; MIG is
# reported. Then, in this order, each under its own timeout, a failed step never stopping the
# later ones:
#   1. the GPU unit tests: cuda_device_tests; verify_cuda_tests on 1 rank (NCCL), 2 and 4 ranks
#      (sharing the GPU); a failing one again with CUDA_LAUNCH_BLOCKING=1 and TPLAB_CUDA_SYNC=1
#   2. verify --backend cuda --comm nccl --np 1 in f64, f32 and bf16
#   3. bench gpu at b=8 s=2048 h=4096 heads=32, 3 repeats
#   4. verify with 2 and 4 ranks sharing the GPU (MPI staged through the host), f32 and bf16
#   5. the tolerance summary, and the goals of the first GPU run (gpu_goals.py)
# It ends with one verdict line per step. Exit 0 when every step passed, 4 when no step found a
# GPU (none is visible, or there is no NVIDIA driver) and none failed, 1 otherwise. mpiexec:
# $TPLAB_MPIEXEC, else the one on PATH. python3 writes the summaries.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="" out="" runtime="" budget=360 state_only=0

usage() { sed -n '/^# usage:/,/^#   --state/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
fail_usage() {
  printf 'gpu-check: %s\n' "$*" >&2
  usage >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --bin) bin=${2:-}; shift 2 || fail_usage "--bin needs a folder" ;;
    --out) out=${2:-}; shift 2 || fail_usage "--out needs a folder" ;;
    --runtime) runtime=${2:-}; shift 2 || fail_usage "--runtime needs a CUDA version" ;;
    --budget) budget=${2:-}; shift 2 || fail_usage "--budget needs seconds" ;;
    --state) state_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) fail_usage "unknown option '$1'" ;;
  esac
done
[[ $runtime =~ ^[0-9]+\.[0-9]+$ ]] || fail_usage "--runtime '$runtime': give the runtime's CUDA version, such as 13.0"
if ((!state_only)); then
  [[ $budget =~ ^[0-9]+$ ]] && ((budget >= 30)) ||
    fail_usage "--budget '$budget': give whole seconds, at least 30 (the default is 360)"
  [[ -n $out ]] || fail_usage "--out is needed"
  for program in tplab cuda_device_tests verify_cuda_tests; do
    [[ -x $bin/$program ]] || fail_usage "--bin '$bin' has no $program"
  done
fi

say() { printf 'gpu-check: %s\n' "$*"; }

# ---- the GPU's state ---------------------------------------------------------------------------

# "12.2" < "13.0" as versions.
version_below() { [[ $1 != "$2" && $(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1) == "$1" ]]; }

compute_mode=Default
gpu_state() {
  if ! command -v nvidia-smi >/dev/null; then
    say "no NVIDIA driver found (nvidia-smi is missing): every GPU step will say there is no CUDA device"
    return 0
  fi
  local listing
  if ! listing=$(nvidia-smi 2>&1); then
    say "nvidia-smi sees no GPU (${listing%%$'\n'*}): every GPU step will say there is no CUDA device"
    return 0
  fi
  local query driver_cuda
  query=$(nvidia-smi --query-gpu=index,name,driver_version,compute_cap,compute_mode,mig.mode.current,memory.total \
    --format=csv,noheader 2>/dev/null)
  say "GPUs (index, name, driver, compute capability, compute mode, MIG, memory):"
  printf '  %s\n' "${query:-(nvidia-smi --query-gpu answered nothing)}"
  driver_cuda=$(grep -o 'CUDA Version: *[0-9.]*' <<<"$listing" | grep -o '[0-9.]*$' | head -n 1)
  local driver
  driver=$(cut -d, -f3 <<<"${query%%$'\n'*}" | tr -d ' ')
  if [[ -n $driver_cuda ]] && version_below "$driver_cuda" "$runtime"; then
    local major=${runtime%%.*} needed=""
    case "$major" in 12) needed=" (NVIDIA 525 or newer)" ;; 13) needed=" (NVIDIA 580 or newer)" ;; esac
    say "driver too old: the NVIDIA driver ${driver:-?} supports CUDA $driver_cuda; this build's CUDA $runtime runtime needs CUDA $runtime$needed"
    return 4
  fi
  say "driver ${driver:-?} supports CUDA ${driver_cuda:-?}; the programs' runtime is CUDA $runtime"
  compute_mode=$(cut -d, -f5 <<<"${query%%$'\n'*}" | tr -d ' ')
  case "$compute_mode" in
    Exclusive_Process)
      say "compute mode Exclusive_Process: one process at a time may use the GPU, so the GPU programs run one after another and the steps where ranks share the GPU are refused (nvidia-smi -c 0 by an administrator allows them)" ;;
    Prohibited)
      say "compute mode Prohibited: no process may use the GPU, so every GPU step is refused" ;;
  esac
  local mig
  mig=$(cut -d, -f6 <<<"${query%%$'\n'*}" | tr -d ' ')
  if [[ $mig == Enabled ]]; then
    say "MIG is on: CUDA sees the MIG instances that CUDA_VISIBLE_DEVICES names (nvidia-smi -L lists them), and bench gpu measures one instance, not the whole GPU"
    nvidia-smi -L | sed 's/^/  /'
  fi
  return 0
}

if ((state_only)); then
  gpu_state
  exit $?
fi

mkdir -p "$out" || fail_usage "cannot make --out '$out'"
out="$(cd "$out" && pwd)"
log="$out/gpu-check.log"
exec > >(tee "$log") 2>&1
tee_pid=$!
start=$SECONDS
# The steps stop 15 s before the budget ends: room for a timed-out step's last 10 s of grace
# and for the summaries.
deadline=$((SECONDS + budget - 15))
say "results in $out; budget $budget s"
gpu_state
state=$?
{
  echo "== nvidia-smi"
  nvidia-smi 2>&1 || true
  echo "== nvidia-smi -q"
  nvidia-smi -q 2>&1 || true
  echo "== the loader's cache: CUDA, cuBLAS, NCCL"
  ldconfig -p 2>/dev/null | grep -iE 'libcuda|cublas|nccl|cudart' || true
  echo "== python3 -m pip list"
  python3 -m pip list 2>&1 || true
  echo "== the machine"
  uname -a
  grep -m 1 'model name' /proc/cpuinfo || true
  echo "cores: $(nproc)"
  grep -E '^(PRETTY_NAME)=' /etc/os-release 2>/dev/null || true
} >>"$out/environment.txt" 2>&1
if ((state == 4)); then
  say "FAILED before any step: the driver cannot run these programs (exit 4)"
  exit 4
fi

mpiexec=${TPLAB_MPIEXEC:-$(command -v mpiexec || true)}
[[ -x $mpiexec ]] || { say "no mpiexec: set TPLAB_MPIEXEC to the MPI launcher"; exit 2; }

# ---- steps ---------------------------------------------------------------------------------------

verdicts=()  # one line per step
failed=0 ran_on_gpu=0 without_gpu=0

# The word for a tplab exit code (mpi_launch.hpp), with the reason its output gave for 4.
verdict_of() {
  case "$code" in
    0) echo "PASS" ;;
    1) echo "FAIL" ;;
    2) echo "BAD INPUT" ;;
    3) echo "INTERNAL ERROR" ;;
    4)
      if grep -q 'no CUDA device found' "$step_output"; then echo "NO CUDA DEVICE"
      else echo "GPU UNUSABLE"; fi ;;
    124 | 137) echo "TIMED OUT" ;;
    *) echo "ENDED WITH $code" ;;
  esac
}

# Seconds a step may run: its own limit, never past the budget (0: none left).
allowance() {
  local limit=$1 left=$((deadline - SECONDS))
  ((left < 10)) && { echo 0; return; }
  echo $((limit < left ? limit : left))
}

record() {  # record STEP VERDICT SECONDS [DETAIL]
  local line
  line=$(printf '%-16s %-24s %4d s  %s' "$2" "$1" "$3" "${4:-}")
  verdicts+=("$line")
  case "$2" in
    PASS) ran_on_gpu=1 ;;
    "NO CUDA DEVICE") without_gpu=1 ;;
    "NO RESULTS") ;;  # nothing before it wrote JSON: their verdicts say why
    *) failed=1 ;;
  esac
}

header() { printf '\n== gpu-check [%d s]: %s\n' "$((SECONDS - start))" "$*"; }

# Runs a command under `seconds` (timeout ends its whole process group), its output shown and
# kept in $step_output; sets code.
step_output=$(mktemp)
trap 'rm -f "$step_output"' EXIT
code=0
bounded() {
  local seconds=$1
  shift
  timeout --kill-after=10 "$seconds" "$@" 2>&1 | tee "$step_output"
  code=${PIPESTATUS[0]}
}

# What a command said about the GPU it could not use, for the verdict line.
gpu_reason() {
  grep -m 1 -oE '(no CUDA device found|driver too old|CUDA failed to start)[^;]*' "$step_output"
}

# A GoogleTest program: PASS, FAIL, or NO CUDA DEVICE when it skipped for want of a GPU.
gtest_verdict() {
  if ((code == 0)) && grep -q 'no CUDA device found' "$step_output" &&
    grep -q '\[  SKIPPED \]' "$step_output"; then
    echo "NO CUDA DEVICE"
  elif ((code == 0)); then echo "PASS"
  elif ((code == 124 || code == 137)); then echo "TIMED OUT"
  else echo "FAIL"; fi
}

shares_gpu_refusal() {
  case "$compute_mode" in
    Exclusive_Process) echo "refused: compute mode Exclusive_Process lets one process use the GPU" ;;
    Prohibited) echo "refused: compute mode Prohibited lets no process use the GPU" ;;
  esac
}

# Step 1: the GPU unit tests, one program at a time.
step_tests() {
  header "1. GPU unit tests"
  local began=$SECONDS parts=() verdict overall=PASS
  local -a programs=("cuda_device_tests" "verify_cuda_tests 1" "verify_cuda_tests 2" "verify_cuda_tests 4")
  for entry in "${programs[@]}"; do
    read -r program ranks <<<"$entry"
    local name="$program${ranks:+ np$ranks}"
    local refusal=""
    if [[ $compute_mode == Prohibited ]] || [[ -n $ranks && $ranks -gt 1 ]]; then
      refusal=$(shares_gpu_refusal)
    fi
    if [[ -n $refusal ]]; then
      parts+=("$name REFUSED")
      overall="REFUSED"
      say "$name: $refusal"
      continue
    fi
    local seconds
    seconds=$(allowance 120)
    if ((seconds == 0)); then
      parts+=("$name NOT RUN")
      overall="NOT RUN"
      continue
    fi
    local -a command=("$bin/$program")
    [[ -n $ranks ]] && command=("$mpiexec" -n "$ranks" "$bin/$program")
    say "$name"
    bounded "$seconds" "${command[@]}"
    verdict=$(gtest_verdict)
    if [[ $verdict == FAIL ]]; then
      seconds=$(allowance 120)
      if ((seconds > 0)); then
        say "$name failed: again with CUDA_LAUNCH_BLOCKING=1 TPLAB_CUDA_SYNC=1, so a fault names its kernel"
        CUDA_LAUNCH_BLOCKING=1 TPLAB_CUDA_SYNC=1 bounded "$seconds" "${command[@]}"
        verdict="FAIL (again, blocking: $(gtest_verdict))"
      fi
    fi
    parts+=("$name $verdict")
    case "$verdict" in
      PASS) ;;
      "NO CUDA DEVICE") [[ $overall == PASS ]] && overall="NO CUDA DEVICE" ;;
      *) overall="FAIL" ;;
    esac
  done
  local detail="" part
  for part in "${parts[@]}"; do detail+="${detail:+; }$part"; done
  record "1. GPU unit tests" "$overall" $((SECONDS - began)) "$detail"
}

# Steps 2-4: one tplab command each.
step_tplab() {  # step_tplab NAME LIMIT [--shares-gpu] TPLAB_ARGS...
  local name=$1 limit=$2
  shift 2
  local shares=0
  [[ ${1:-} == --shares-gpu ]] && { shares=1; shift; }
  header "$name"
  local refusal=""
  if [[ $compute_mode == Prohibited ]] || ((shares)); then refusal=$(shares_gpu_refusal); fi
  if [[ -n $refusal ]]; then
    say "$name: $refusal"
    record "$name" "REFUSED" 0 "$refusal"
    return
  fi
  local seconds
  seconds=$(allowance "$limit")
  if ((seconds == 0)); then
    record "$name" "NOT RUN" 0 "the budget of $budget s is spent"
    return
  fi
  local began=$SECONDS
  local -a args=("$@")
  # verify ends its own mpiexec jobs before this step's deadline
  [[ $1 == verify ]] && args+=(--timeout $((seconds > 40 ? seconds - 20 : 20)))
  say "tplab ${args[*]}"
  bounded "$seconds" "$bin/tplab" "${args[@]}"
  local verdict
  verdict=$(verdict_of)
  record "$name" "$verdict" $((SECONDS - began)) "$( ((code == 4)) && gpu_reason)"
}

step_tests
step_tplab "2. verify, 1 rank" 90 verify --backend cuda --comm nccl --np 1 \
  --dtype f64,f32,bf16 --json "$out/verify-np1.json"
step_tplab "3. bench gpu" 120 bench gpu --shape 8,2048,4096,32 --repeats 3 \
  --json "$out/bench-gpu.json"
step_tplab "4. verify, shared GPU" 120 --shares-gpu verify --backend cuda --comm mpi --np 2,4 \
  --dtype f32,bf16 --json "$out/verify-shared.json"

# Step 5: the summaries, from whatever JSON the steps wrote.
header "5. tolerances and goals"
began=$SECONDS
summary="$out/summary.txt"
mapfile -t verify_json < <(ls "$out"/verify-np1.json "$out"/verify-shared.json 2>/dev/null)
if ! command -v python3 >/dev/null; then
  record "5. summaries" "NOT RUN" 0 "no python3 to read the JSON"
elif ((${#verify_json[@]} == 0)) && [[ ! -f $out/bench-gpu.json ]]; then
  record "5. summaries" "NO RESULTS" 0 "no step wrote JSON to summarize"
else
  tolerance_code=0
  if ((${#verify_json[@]})); then
    text=$(python3 "$here/tolerance_summary.py" "${verify_json[@]}" 2>&1)
    tolerance_code=$?
    printf '%s\n' "$text" | tee -a "$summary"
  fi
  text=$(python3 "$here/gpu_goals.py" --out "$out" 2>&1)
  goals_code=$?
  printf '%s\n' "$text" | tee -a "$summary"
  # The goals are reported, not enforced: they measure speed; a script error fails the step.
  detail=""
  ((tolerance_code == 0)) || detail="an exact run was not exact"
  ((goals_code == 0)) || detail+="${detail:+; }gpu_goals.py could not read the results"
  record "5. summaries" "$( [[ -z $detail ]] && echo PASS || echo FAIL)" $((SECONDS - began)) \
    "$detail"
fi

# ---- verdicts ------------------------------------------------------------------------------------

{
  printf '\ngpu-check: one verdict per step (%d s of a %d s budget)\n' "$((SECONDS - start))" "$budget"
  printf '  %s\n' "${verdicts[@]}"
} | tee -a "$summary"
exit_code=0
if ((failed)); then exit_code=1
elif ((without_gpu && !ran_on_gpu)); then exit_code=4
fi
case "$exit_code" in
  0) say "ALL PASS in $((SECONDS - start)) s" ;;
  4) say "no step found a GPU (exit 4)" ;;
  *) say "not everything passed (exit 1): the verdicts above say which step, the log why" ;;
esac

# No file may pass 16 MiB: a longer log keeps its first and last 8 MiB.
exec >&- 2>&-
wait "$tee_pid"
for file in "$out"/*; do
  if (($(stat -c %s "$file") > 16 * 1024 * 1024)); then
    { head -c $((8 * 1024 * 1024)) "$file"; printf '\n[... cut to 16 MiB ...]\n'
      tail -c $((8 * 1024 * 1024 - 64)) "$file"; } >"$file.cut" && mv "$file.cut" "$file"
  fi
done
exit "$exit_code"
