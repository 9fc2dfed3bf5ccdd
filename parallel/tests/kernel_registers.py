#!/usr/bin/env python3
"""The registers of every CudaDevice kernel, from ptxas, against the blocks a multiprocessor holds.

Usage: kernel_registers.py --nvcc NVCC --source PARALLEL_DIR --architectures "80;90"

Compiles the device code of CudaDevice's CUDA sources (device/cuda/cuda_device.cu,
device/cuda/column_sums.cu and each family's device/ops/<family>.cu: every kernel, every dtype)
for each architecture with nvcc -cubin --resource-usage (device code only, the host code is
not compiled), reads "Used N registers" for every kernel, and fails when a kernel needs so many
that fewer than MIN_BLOCKS blocks of kThreadsPerBlock threads (launch_plan.hpp) fit in a
multiprocessor's 65,536 registers. A kernel that holds one block alone per
multiprocessor cannot hide its memory latency behind another's work. Needs no GPU.
"""
import argparse
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REGISTERS_PER_MULTIPROCESSOR = 65536  # sm_80 and sm_90 alike
ALLOCATION_UNIT = 8  # registers are given to a thread in steps of 8 (256 per warp)
MIN_BLOCKS = 3


def threads_per_block(source):
    text = (source / "device/cuda/launch_plan.hpp").read_text()
    return int(re.search(r"kThreadsPerBlock = (\d+);", text).group(1))


def kernel_sources(source):
    """The .cu files that hold CudaDevice's kernels."""
    return [source / "device/cuda/cuda_device.cu", source / "device/cuda/column_sums.cu",
            *sorted((source / "device/ops").glob("*.cu"))]


def kernel_registers(nvcc, source, arch):
    """{kernel's mangled name: registers} for one architecture."""
    with tempfile.TemporaryDirectory() as out:
        result = subprocess.run(
            [nvcc, "-std=c++20", "-O3", "-DNDEBUG", f"-I{source}", "--resource-usage",
             f"--generate-code=arch=compute_{arch},code=sm_{arch}", "-x", "cu", "-cubin",
             *[str(path) for path in kernel_sources(source)]],
            capture_output=True, text=True, cwd=out)
    if result.returncode != 0:
        sys.exit(f"nvcc failed for sm_{arch}:\n{result.stderr}")
    registers, function = {}, None
    for line in (result.stdout + result.stderr).splitlines():
        entry = re.search(r"Compiling entry function '(\S+)'", line)
        if entry:
            function = entry.group(1)
        used = re.search(r"Used (\d+) registers", line)
        if used and function:
            registers[function] = int(used.group(1))
            function = None
    return registers


def blocks_that_fit(registers, threads):
    per_thread = -(-registers // ALLOCATION_UNIT) * ALLOCATION_UNIT
    return REGISTERS_PER_MULTIPROCESSOR // (per_thread * threads)


def readable(mangled):
    """The kernel's name and storage type from its mangled name: scale_kernel<f64>."""
    found = re.search(r"cuda\d+(\w+?_kernel)I(d|f|13__nv_bfloat16)E", mangled)
    if not found:
        return mangled
    return f"{found.group(1)}<{dict(d='f64', f='f32').get(found.group(2), 'bf16')}>"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nvcc", required=True)
    parser.add_argument("--source", required=True, type=Path)
    parser.add_argument("--architectures", required=True)
    args = parser.parse_args()
    args.source = args.source.resolve()  # nvcc runs in a folder of its own
    threads = threads_per_block(args.source)
    failures = 0
    architectures = re.findall(r"\d+", args.architectures)
    with ThreadPoolExecutor() as pool:  # one nvcc per architecture, side by side
        found = pool.map(lambda arch: kernel_registers(args.nvcc, args.source, arch),
                         architectures)
    for arch, registers in zip(architectures, found):
        if not registers:
            sys.exit(f"sm_{arch}: ptxas reported no kernels")
        worst = max(registers.items(), key=lambda item: item[1])
        print(f"sm_{arch}: {len(registers)} kernels, the most registers {worst[1]} "
              f"({readable(worst[0])}), {blocks_that_fit(worst[1], threads)} blocks of "
              f"{threads} threads per multiprocessor")
        for mangled, used in sorted(registers.items(), key=lambda item: -item[1]):
            blocks = blocks_that_fit(used, threads)
            if blocks < MIN_BLOCKS:
                failures += 1
                print(f"  {readable(mangled)}: {used} registers, {blocks} block(s) of {threads} "
                      f"threads per multiprocessor (at least {MIN_BLOCKS} needed)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
