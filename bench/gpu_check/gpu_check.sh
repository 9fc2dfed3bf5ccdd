#!/usr/bin/env bash
# gpu_check.sh: ./tplab gpu-check, on a GPU machine that has tplab's build packages (where
# nothing can be installed, make a bundle elsewhere instead: ./tplab gpu-bundle).
#
# usage: ./tplab gpu-check [--budget SECONDS]
#
# Builds preset cuda in build-cuda/ for the GPU present (its compute capability alone, from
# nvidia-smi), then runs the checks of gpu_check_steps.sh, the same as a bundle's
# `run.sh gpu-check`: the GPU tests, verify, bench gpu, verify with ranks sharing the GPU and
# the summaries, each bounded, the whole within --budget (default 360 s, the build not
# counted). Results in bench/results/gpu-check/<UTC date>-<GPU name>/. Installs nothing: a
# missing package stops the configure step, which names it. Exit 4, before building, when no
# GPU is visible.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"  # the presets are found from here

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no CUDA device found (nvidia-smi is missing or sees no GPU); run it on a machine with an NVIDIA GPU, or make a bundle for one with ./tplab gpu-bundle" >&2
  exit 4
fi
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1)
arch=${capability/./}
out="$root/bench/results/gpu-check/$(date -u +%Y-%m-%dT%H%MZ)-$(tr -cs 'A-Za-z0-9' '-' <<<"$gpu_name" | sed 's/-*$//')"
# A new folder of this user's own (refused inside a folder another user could change), so that
# what the steps write into it goes nowhere else.
python3 "$root/bench/report/safe_output.py" new-folder "$out" || exit 2

echo "gpu-check: building for $gpu_name (compute capability $capability): preset cuda, sm_$arch" >&2
cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null || {
  echo "gpu-check: the configure step failed; its message names what is missing" >&2
  exit 3
}
cmake --build --preset cuda --target tplab cuda_device_tests verify_cuda_tests >&2 || {
  echo "gpu-check: the build failed; see the compiler's messages above" >&2
  exit 3
}
nvcc=$(grep -m 1 '^CMAKE_CUDA_COMPILER:' "$root/build-cuda/CMakeCache.txt" | cut -d= -f2)
runtime=$("$nvcc" --version | grep -oE 'release [0-9]+\.[0-9]+' | cut -d' ' -f2)

# Open MPI as root, and with more ranks than cores if need be.
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
exec "$root/bench/gpu_check/gpu_check_steps.sh" --bin "$root/build-cuda/bin" --out "$out" \
  --runtime "$runtime" "$@"
