#!/usr/bin/env python3
"""Runs `tplab train` pipelined and without the pipeline, and checks them bit for bit.

check_pipeline_bits.py TPLAB OUT_DIR ARG...: runs `TPLAB train ARG... --json A` (ARG names
--pp S and --micro-batches M) and the same with --pp 1 (the serial run: the same replicas and
tensor-parallel ranks, the M micro-batches one after another); both must pass, and their loss
curves, every step's applied gradient and the final parameters (train's layout-independent
fingerprints) must be identical. Prints what it compared.
"""
import json
import os
import subprocess
import sys


def train(tplab, args, path):
    result = subprocess.run([tplab, "train", *args, "--json", path], capture_output=True,
                            text=True, timeout=600)
    sys.stdout.write(result.stdout)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        sys.exit(f"train {' '.join(args)} exited {result.returncode}")
    return json.load(open(path))


def serial_args(args):
    out = list(args)
    at = out.index("--pp")
    stages = int(out[at + 1])
    out[at + 1] = "1"
    if "--np" in out:  # the serial run has one stage's ranks
        n = out.index("--np") + 1
        out[n] = str(int(out[n]) // stages)
    if "--schedule" in out:  # one stage has nothing to schedule
        at = out.index("--schedule")
        del out[at:at + 2]
    return out


def main():
    tplab, out_dir, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    piped = train(tplab, args, os.path.join(out_dir, "pipelined.json"))
    serial = train(tplab, serial_args(args), os.path.join(out_dir, "serial.json"))
    problems = []
    for run, name in ((piped, "pipelined"), (serial, "serial")):
        if run.get("pass") is not True:
            problems.append(f"the {name} run did not pass")
    for key in ("loss_hash", "parameter_fingerprint"):
        if piped.get(key) != serial.get(key):
            problems.append(f"{key}: pipelined {piped.get(key)}, serial {serial.get(key)}")
    steps = list(zip(piped.get("steps", []), serial.get("steps", [])))
    if len(steps) != len(serial.get("steps", [])) or not steps:
        problems.append("the runs have different numbers of steps")
    for a, b in steps:
        for key in ("loss", "gradient_fingerprint"):
            if a[key] != b[key]:
                problems.append(f"step {a['step']}: {key} {a[key]} vs {b[key]}")
    if problems:
        sys.exit("pipelined and serial runs differ:\n  " + "\n  ".join(problems))
    print(f"BIT FOR BIT: {piped['grid']} ({piped['schedule']}, {piped['micro_batches']} "
          f"micro-batches) and {serial['grid']} one micro-batch after another: the same loss at "
          f"each of {len(steps)} steps, the same gradient fingerprints, the same parameters "
          f"{piped['parameter_fingerprint']}")


if __name__ == "__main__":
    main()
