#!/usr/bin/env bash
# gpu_check.sh: everything that needs a GPU, in one go (./tplab gpu-check runs it).
#   1. builds tplab for the GPU present (preset cuda, build-cuda/, its compute capability only);
#   2. runs the GPU tests (ctest label cuda: CudaDevice against CpuDevice, every scheme);
#   3. verify on the GPU: 1 rank with NCCL, overlap off and on; 2, 4 and 8 ranks sharing the
#      GPU through the host; f64, f32 and bf16; then the worst share of each dtype's tolerance
#      used;
#   4. the GPU benchmark (bench gpu).
# Writes everything under bench/results/gpu-check/<UTC date>-<GPU name>/, a new folder, and stops
# at the first step that fails, saying which (exit 1); exit 4 when no GPU is visible, 2 when the
# results folder cannot be made safely.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"  # the presets are found from here
start=$SECONDS

fail() {
  printf '\ngpu-check: FAILED at %s (after %d s); the output above says why\n' "$*" \
    "$((SECONDS - start))" >&2
  exit 1
}
step() { printf '\n== gpu-check [%d s]: %s\n' "$((SECONDS - start))" "$*"; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no CUDA device found (nvidia-smi is missing or sees no GPU); run it on a machine with an NVIDIA GPU" >&2
  exit 4
fi
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1)
arch=${capability/./}
stamp=$(date -u +%Y-%m-%dT%H%MZ)
out="$root/bench/results/gpu-check/$stamp-$(tr -cs 'A-Za-z0-9' '-' <<<"$gpu_name" | sed 's/-*$//')"
# A new folder of this user's own (refused inside a folder another user could change), so that
# what is written into it below goes nowhere else.
python3 "$root/bench/report/safe_output.py" new-folder "$out" || exit 2
exec > >(tee "$out/gpu-check.log") 2>&1
echo "gpu-check: $gpu_name (compute capability $capability), results in ${out#"$root"/}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/nvidia-smi.csv"

# Open MPI: as root, and 8 ranks on fewer cores if need be.
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

step "build (preset cuda, sm_$arch)"
cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null || fail "configure"
cmake --build --preset cuda --target tplab cuda_device_tests verify_cuda_tests || fail "build"
tplab="$root/build-cuda/bin/tplab"

step "GPU tests (ctest -L cuda)"
ctest --preset cuda --parallel 3 | tee "$out/ctest-cuda.log" || fail "the GPU tests"
if grep -q "Skipped" "$out/ctest-cuda.log"; then
  fail "the GPU tests: some were skipped, so they did not see the GPU"
fi

step "verify, 1 rank, NCCL"
"$tplab" verify --backend cuda --comm nccl --np 1 --dtype f64,f32,bf16 \
  --json "$out/verify-np1-nccl.json" || fail "verify on 1 rank with NCCL"

step "verify, 1 rank, NCCL, overlap on (collectives started on the communication stream)"
"$tplab" verify --backend cuda --comm nccl --np 1 --overlap on --dtype f64,f32,bf16 \
  --json "$out/verify-np1-nccl-overlap.json" || fail "verify on 1 rank with NCCL and overlap"

step "verify, 2, 4 and 8 ranks on one GPU, MPI staged through the host"
"$tplab" verify --backend cuda --comm mpi --np 2,4,8 --dtype f64,f32,bf16 \
  --json "$out/verify-staged.json" || fail "verify with ranks sharing the GPU"

step "the worst share of each dtype's tolerance (for verify/tolerance.cpp)"
python3 "$root/bench/gpu_check/tolerance_summary.py" "$out"/verify-*.json |
  tee "$out/tolerances.txt" || fail "the exact checks"

step "GPU benchmark (bench gpu)"
"$tplab" bench gpu --json "$out/bench-gpu.json" | tee "$out/bench-gpu.txt" ||
  fail "the GPU benchmark"

step "done"
echo "gpu-check: ALL PASS on $gpu_name in $((SECONDS - start)) s; results in ${out#"$root"/}"
