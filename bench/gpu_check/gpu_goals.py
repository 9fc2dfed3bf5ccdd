#!/usr/bin/env python3
"""The goals of the first GPU run, against what gpu-check measured in that same run.

Usage: gpu_goals.py --out DIR

Reads DIR/bench-gpu.json (tplab bench gpu) and DIR/verify-*.json (tplab verify) and prints one
line per goal, met or missed:
  - the block's forward+backward at >= 60% of the cuBLAS matmul rate measured in the same run;
  - each of tplab's kernels at >= 70% of a device-to-device copy's bandwidth in the same run;
  - every verify run within tolerance.
A goal without its measurement says so. Exit 0 whatever the goals' verdicts (they are for
people to read); exit 2 when a file cannot be read.
"""
import argparse
import json
import sys
from pathlib import Path

BLOCK_OF_MATMUL = 0.60
KERNEL_OF_COPY = 0.70


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"gpu_goals.py: {path}: cannot read it ({e})")


def bench_goals(path):
    if not path.exists():
        return ["block forward+backward: not measured (bench gpu wrote no JSON)",
                "kernels against a copy: not measured (bench gpu wrote no JSON)"]
    r = load(path)
    met = r["step_of_matmul"] >= BLOCK_OF_MATMUL
    lines = [f"block forward+backward, {r['dtype']}: {r['step_tflops']:.1f} TFLOP/s = "
             f"{100 * r['step_of_matmul']:.0f}% of cuBLAS's matmul ({r['matmul_tflops']:.1f} "
             f"TFLOP/s): {'met' if met else 'MISSED'} (goal >= {100 * BLOCK_OF_MATMUL:.0f}%)"]
    slow = [k for k in r["kernels"] if k["of_copy"] < KERNEL_OF_COPY]
    line = (f"kernels against a device-to-device copy ({r['copy_gb_per_s']:.0f} GB/s): "
            f"{len(r['kernels']) - len(slow)} of {len(r['kernels'])} at >= "
            f"{100 * KERNEL_OF_COPY:.0f}%: {'met' if not slow else 'MISSED'}")
    if slow:
        line += "; below: " + ", ".join(f"{k['name']} {100 * k['of_copy']:.0f}%" for k in slow)
    return lines + [line]


def verify_goal(paths):
    runs = [run for path in paths for run in load(path)["runs"]]
    if not runs:
        return "verify within tolerance: not measured (verify wrote no JSON)"
    failing = [f"{r['scheme']} np={r['np']} {r['dtype']}{' exact' if r['exact'] else ''}"
               for r in runs if not r["pass"]]
    line = (f"verify within tolerance: {len(runs) - len(failing)} of {len(runs)} runs: "
            f"{'met' if not failing else 'MISSED'}")
    return line + ("; failing: " + ", ".join(failing) if failing else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    lines = bench_goals(args.out / "bench-gpu.json")
    lines.append(verify_goal(sorted(args.out.glob("verify-*.json"))))
    print("goals of the first GPU run, against rates measured in this run:")
    for line in lines:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
