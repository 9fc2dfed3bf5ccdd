#!/usr/bin/env bash
# gpu_bundle_run.sh SOURCE_DIR NVIDIA_LIB_DIRS: a bundle's run.sh and the gpu-check steps, on a
# bundle made of the real scripts and stand-in programs (no build, no GPU, a few seconds each):
#   - libraries missing, of another major version, a glibc or libstdc++ too old and a CPU
#     without a flag are all refused at once, exit 4;
#   - cuBLAS, cuBLASLt and NCCL in a Python site-packages' nvidia/*/lib folders (PyTorch's
#     wheels) are found, and their versions read (NVIDIA_LIB_DIRS holds the real ones);
#   - a driver too old for the runtime stops gpu-check at once: "driver too old", never "no
#     CUDA device", exit 4;
#   - compute mode Exclusive_Process refuses the steps where ranks share the GPU, saying why,
#     and runs the rest;
#   - without a GPU every GPU step says "no CUDA device", exit 4;
#   - a failing test program is run again with CUDA_LAUNCH_BLOCKING=1, and the steps after it
#     still run; a step that runs too long is ended at the budget, the later ones are not run,
#     and no result file passes 16 MiB.
set -uo pipefail
source_dir=$1 nvidia_libs=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# ---- a bundle of stand-ins --------------------------------------------------------------------------

bundle="$work/bundle"
mkdir -p "$bundle/bin" "$bundle/scripts" "$bundle/mpi/bin" "$bundle/lib" "$work/fakebin"
cp "$source_dir/bench/gpu_bundle/run.sh" "$bundle/"
cp "$source_dir/bench/gpu_check/gpu_check_steps.sh" "$source_dir/bench/gpu_check/tolerance_summary.py" \
  "$source_dir/bench/gpu_check/gpu_goals.py" "$bundle/scripts/"
write_env() {  # write_env GLIBC_NEEDED GLIBCXX_NEEDED CPU_FLAGS_NEEDED
  cat >"$bundle/bundle.env" <<EOF
TPLAB_COMMIT="test" BUILT="now" BUILT_ON="a test"
CUDA_ARCHITECTURES="90" CUDA_RUNTIME="13.0" NCCL_BUILT_WITH="2.28.9" OPENMPI_VERSION="5.0.11"
CUBLAS_NEEDED="13.0.0" NCCL_NEEDED="2.18.0" GLIBC_NEEDED="$1" GLIBCXX_NEEDED="$2"
CXXABI_NEEDED="1.3.9" CPU_LEVEL="x86-64-v3" CPU_FLAGS_NEEDED="$3"
EOF
}
write_env 2.17 3.4.21 "fpu"
# mpiexec -n N PROGRAM ARGS: runs PROGRAM once
printf '#!/bin/sh\nshift 2\nexec "$@"\n' >"$bundle/mpi/bin/mpiexec"
# The GPU test programs: FAKE_GPU=none skips them for want of a GPU, failing_tests fails them
cat >"$bundle/bin/cuda_device_tests" <<'EOF'
#!/bin/sh
case "${FAKE_GPU:-none}" in
  none) echo "no CUDA device found (no NVIDIA driver is installed)"; echo "[  SKIPPED ] 36 tests"; exit 0 ;;
  failing_tests) echo "[  FAILED  ] 1 test (CUDA_LAUNCH_BLOCKING=${CUDA_LAUNCH_BLOCKING:-unset} TPLAB_CUDA_SYNC=${TPLAB_CUDA_SYNC:-unset})"; exit 1 ;;
  *) echo "[  PASSED  ] 36 tests"; exit 0 ;;
esac
EOF
cp "$bundle/bin/cuda_device_tests" "$bundle/bin/verify_cuda_tests"
# tplab: verify and bench write their JSON; FAKE_GPU=slow makes bench talk for 20 MiB and hang
cat >"$bundle/bin/tplab" <<'EOF'
#!/usr/bin/env bash
json="" previous=""
for arg in "$@"; do [[ $previous == --json ]] && json=$arg; previous=$arg; done
if [[ ${FAKE_GPU:-none} == none ]]; then
  echo "tplab: no CUDA device found (no NVIDIA driver is installed)" >&2
  exit 4
fi
case "$1" in
  verify)
    echo '{"runs": [{"scheme": "1d", "np": 1, "dtype": "bf16", "exact": false, "pass": true,
      "tensors": [{"name": "y", "tolerance_used": 0.25, "max_rel_l2": 0.01, "rel_l2": 0.001,
      "max_abs": 0.002}]}]}' >"$json"
    echo "ALL PASS: 1 runs" ;;
  bench)
    if [[ $FAKE_GPU == slow ]]; then
      head -c 20000000 /dev/zero | tr '\0' 'x' | fold -w 100
      sleep 100
    fi
    echo '{"dtype": "bf16", "step_tflops": 300, "matmul_tflops": 600, "step_of_matmul": 0.5,
      "copy_gb_per_s": 4000, "kernels": [{"name": "scale", "of_copy": 0.9},
      {"name": "split_heads", "of_copy": 0.5}]}' >"$json"
    echo "GPU benchmark" ;;
esac
EOF
chmod +x "$bundle"/bin/* "$bundle"/mpi/bin/* "$bundle/run.sh" "$bundle"/scripts/*

# nvidia-smi: FAKE_DRIVER_CUDA and FAKE_COMPUTE_MODE describe the machine
cat >"$work/fakebin/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in
  *--query-gpu*) echo "0, NVIDIA H200, ${FAKE_DRIVER:-580.65.06}, 9.0, ${FAKE_COMPUTE_MODE:-Default}, Disabled, 143771 MiB" ;;
  -L) echo "GPU 0: NVIDIA H200" ;;
  -q) echo "(nvidia-smi -q)" ;;
  *) echo "| NVIDIA-SMI ${FAKE_DRIVER:-580.65.06}   Driver Version: ${FAKE_DRIVER:-580.65.06}   CUDA Version: ${FAKE_DRIVER_CUDA:-13.0} |" ;;
esac
EOF
chmod +x "$work/fakebin/nvidia-smi"

# A Python site-packages as PyTorch's wheels lay it out, holding the real libraries.
site="$work/site-packages"
mkdir -p "$site/nvidia/cu13/lib" "$site/nvidia/nccl/lib"
for name in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
  found=""
  for dir in ${nvidia_libs//:/ }; do [[ -e $dir/$name ]] && found="$dir/$name" && break; done
  [[ -n $found ]] || { echo "FAIL: $name is not in $nvidia_libs"; exit 1; }
  case "$name" in libnccl*) ln -s "$found" "$site/nvidia/nccl/lib/$name" ;;
                  *) ln -s "$found" "$site/nvidia/cu13/lib/$name" ;; esac
done

# ---- the scenarios ------------------------------------------------------------------------------

output="" code=0
run() {  # run ENV... -- run.sh ARGS: in the bundle, with nvidia-smi absent unless fakebin is on PATH
  local -a env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done
  shift
  output=$(cd "$work" && env -u TPLAB_NVIDIA_LIBS "${env[@]}" timeout 120 "$bundle/run.sh" "$@" 2>&1)
  code=$?
}
expect() {  # expect NAME CODE PATTERN...: the last run exited CODE and printed every PATTERN
  local name=$1 want=$2 pattern bad=""
  shift 2
  ((code == want)) || bad+=" exit $code, not $want;"
  for pattern in "$@"; do
    if [[ $pattern == !* ]]; then
      grep -qE -- "${pattern#!}" <<<"$output" && bad+=" printed /${pattern#!}/;"
    else
      grep -qE -- "$pattern" <<<"$output" || bad+=" no /$pattern/;"
    fi
  done
  if [[ -n $bad ]]; then
    printf '%s\n' "$output" | tail -n 40
    echo "FAIL: $name:$bad"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}
no_smi_path="/usr/bin:/bin"
smi_path="$work/fakebin:/usr/bin:/bin"

write_env 9.99 3.4.99 "fpu no_such_cpu_flag"
run TPLAB_NVIDIA_LIBS="$work/nowhere" PATH="$no_smi_path" -- check
expect "everything missing is refused at once" 4 \
  "libcublas.so.13 is missing: not in TPLAB_NVIDIA_LIBS=$work/nowhere" "libnccl.so.2 is missing" \
  "glibc [0-9.]+ is older than 9.99" "this CPU lacks no_such_cpu_flag" \
  "libstdc\+\+\.so\.6 lacks GLIBCXX_3\.4\.99"
write_env 2.17 3.4.21 "fpu"

mkdir -p "$work/cuda12"
touch "$work/cuda12/libcublas.so.12" "$work/cuda12/libcublasLt.so.12"
run TPLAB_NVIDIA_LIBS="$work/cuda12:$site/nvidia/nccl/lib" PATH="$no_smi_path" -- check
expect "another major version is refused" 4 \
  "libcublas.so.13: found only libcublas.so.12 \(in $work/cuda12\), of another major version" \
  "libcublasLt.so.13: found only libcublasLt.so.12"

run TPLAB_NVIDIA_LIBS="$site" PATH="$smi_path" -- check
expect "PyTorch's wheels' folders are found, with versions" 0 \
  "libcublas.so.13 +$site/nvidia/cu13/lib/libcublas.so.13 \(13\.[0-9]+\.[0-9]+\)" \
  "libnccl.so.2 +$site/nvidia/nccl/lib/libnccl.so.2 \(2\.[0-9]+\.[0-9]+\)" \
  "driver 580.65.06 supports CUDA 13.0"

run TPLAB_NVIDIA_LIBS="$site" PATH="$smi_path" FAKE_DRIVER=535.104.05 FAKE_DRIVER_CUDA=12.2 \
  FAKE_GPU=ok OUT="$work/old-driver" -- gpu-check
expect "a driver too old stops gpu-check at once" 4 \
  "driver too old: the NVIDIA driver 535.104.05 supports CUDA 12.2; this build's CUDA 13.0 runtime needs CUDA 13.0 \(NVIDIA 580 or newer\)" \
  "!no CUDA device" "!== gpu-check"

run TPLAB_NVIDIA_LIBS="$site" PATH="$smi_path" FAKE_COMPUTE_MODE=Exclusive_Process FAKE_GPU=ok \
  OUT="$work/exclusive" -- gpu-check
expect "Exclusive_Process refuses the shared steps, saying why" 1 \
  "compute mode Exclusive_Process: one process at a time" \
  "REFUSED +1\. GPU unit tests .*cuda_device_tests PASS; verify_cuda_tests np1 PASS; verify_cuda_tests np2 REFUSED" \
  "PASS +2\. verify, 1 rank" "PASS +3\. bench gpu" \
  "REFUSED +4\. verify, shared GPU .*compute mode Exclusive_Process lets one process use the GPU" \
  "block forward\+backward, bf16: 300.0 TFLOP/s = 50% of cuBLAS's matmul .*MISSED" \
  "1 of 2 at >= 70%: MISSED; below: split_heads 50%"

run TPLAB_NVIDIA_LIBS="$site" PATH="$no_smi_path" FAKE_GPU=none OUT="$work/no-gpu" -- gpu-check
expect "without a GPU every GPU step says no CUDA device" 4 \
  "NO CUDA DEVICE +1\. GPU unit tests" "NO CUDA DEVICE +2\. verify, 1 rank" \
  "NO CUDA DEVICE +3\. bench gpu" "NO CUDA DEVICE +4\. verify, shared GPU" \
  "no step found a GPU \(exit 4\)"

run TPLAB_NVIDIA_LIBS="$site" PATH="$smi_path" FAKE_GPU=failing_tests OUT="$work/failing" -- gpu-check
expect "a failing test runs again blocking, and the later steps still run" 1 \
  "again with CUDA_LAUNCH_BLOCKING=1 TPLAB_CUDA_SYNC=1" \
  "FAILED  \] 1 test \(CUDA_LAUNCH_BLOCKING=1 TPLAB_CUDA_SYNC=1\)" \
  "FAIL +1\. GPU unit tests .*cuda_device_tests FAIL \(again, blocking: FAIL\)" \
  "PASS +2\. verify, 1 rank" "PASS +4\. verify, shared GPU"
files=$(find "$work/failing" -type f | wc -l)
((files <= 8)) && echo "ok: $files result files (at most 8)" ||
  { echo "FAIL: $files result files"; failures=$((failures + 1)); }

start=$SECONDS
run TPLAB_NVIDIA_LIBS="$site" PATH="$smi_path" FAKE_GPU=slow OUT="$work/slow" -- gpu-check --budget 30
expect "a step past the budget is ended, and the steps after it are not run" 1 \
  "TIMED OUT +3\. bench gpu" "NOT RUN +4\. verify, shared GPU .*the budget of 30 s is spent"
# the budget bounds the steps; run.sh's look at the machine comes before it
((SECONDS - start <= 35)) && echo "ok: the 30 s budget held ($((SECONDS - start)) s in all)" ||
  { echo "FAIL: a 30 s budget took $((SECONDS - start)) s"; failures=$((failures + 1)); }
largest=$(find "$work/slow" -type f -printf '%s\n' | sort -n | tail -n 1)
((largest <= 16 * 1024 * 1024)) && echo "ok: the largest result file is $largest bytes (at most 16 MiB)" ||
  { echo "FAIL: a result file of $largest bytes"; failures=$((failures + 1)); }

((failures == 0)) && echo "ALL PASS" || echo "FAILED: $failures"
((failures == 0))
