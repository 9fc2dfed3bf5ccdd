#!/usr/bin/env python3
"""Checks the JSON of `tplab train --json`, and that two runs of one command agree bit for bit.

check_train_json.py FILE STEPS [OTHER_FILE]: FILE holds STEPS steps, each loss within the
run's tolerance of the reference's, a pass verdict, no failures and both hashes, and its MFU as
its steps' median time and the peak it names give it; with
OTHER_FILE (a rerun of the same command), every loss and both hashes must be identical.
"""
import json
import math
import sys


def main():
    path, steps = sys.argv[1], int(sys.argv[2])
    run = json.load(open(path))
    problems = []
    for key in ("scheme", "np", "grid", "dtype", "shape", "tolerance", "tolerance_abs",
                "tolerance_first_step",
                "max_relative_difference",
                "replicas_identical", "loss_hash", "parameter_hash", "pass", "failures", "steps"):
        if key not in run:
            problems.append(f"missing '{key}'")
    if len(run.get("steps", [])) != steps:
        problems.append(f"{len(run.get('steps', []))} steps, expected {steps}")
    for s in run.get("steps", []):
        diff = abs(s["loss"] - s["reference_loss"]) / abs(s["reference_loss"])
        bound = run["tolerance"] + run["tolerance_abs"] / abs(s["reference_loss"])
        if s["step"] == 0 and run["tolerance_first_step"] > 0:
            bound = run["tolerance_first_step"]
        if not math.isfinite(s["loss"]) or diff > bound:
            problems.append(f"step {s['step']}: loss {s['loss']} vs {s['reference_loss']}")
    peak = run.get("peak", {})
    # bf16 is computed in f32 on the CPU: its MFU is over f32's peak
    peak_dtype = "f32" if run.get("dtype") == "bf16" else run.get("dtype")
    if not peak.get("flops_per_s_per_core", 0) > 0 or peak.get("dtype") != peak_dtype:
        problems.append(f"no peak of the run's dtype: {peak}")
    else:
        median = sorted(s["seconds"] for s in run["steps"])[len(run["steps"]) // 2]
        cores = min(run["np"], peak["cores"])
        want = run["model_flops_per_step"] / median / (cores * peak["flops_per_s_per_core"])
        if run.get("median_step_seconds") != median or not math.isclose(run.get("mfu", -1), want,
                                                                         rel_tol=1e-9):
            problems.append(f"mfu {run.get('mfu')} is not {want} from its steps and peak")
    if run.get("dtype") == "bf16" and "bf16 GEMM " not in run.get("device", ""):
        problems.append(f"a bf16 run without its products' path: {run.get('device')}")
    memory = run.get("memory", {})
    for kind in ("parameters", "gradients", "optimizer", "activations"):
        if memory.get(kind, {}).get("measured") != memory.get(kind, {}).get("model", -1):
            problems.append(f"memory: {kind} {memory.get(kind)} differs from its model")
    if memory.get("as_modelled") is not True:
        problems.append(f"memory: a rank differs from its model: {memory.get('first_difference')}")
    if not memory.get("activations", {}).get("measured", 0) > 0:
        problems.append(f"memory: no activations kept {memory.get('activations')}")
    # the peak holds the parameters with what forward keeps, and with their gradients and the
    # optimizer's state at the update
    for kinds in (("parameters", "activations"), ("parameters", "gradients", "optimizer")):
        held = sum(memory.get(k, {}).get("measured", 0) for k in kinds)
        if not memory.get("peak_allocated", 0) >= held:
            problems.append(f"memory: the allocator's peak is below {' + '.join(kinds)}: {memory}")
    if not memory.get("peak_resident", 0) > 0:
        problems.append(f"memory: no process peak (VmHWM) {memory}")
    if not run.get("pass") or not run.get("replicas_identical"):
        problems.append("the run did not pass")
    if run.get("failures"):
        problems.append(f"the job failed: {run['failures']}")
    if run["steps"] and run["steps"][-1]["loss"] >= run["steps"][0]["loss"]:
        problems.append("the loss did not fall")
    if len(sys.argv) > 3:
        other = json.load(open(sys.argv[3]))
        for key in ("loss_hash", "parameter_hash"):
            if run[key] != other[key]:
                problems.append(f"rerun: {key} {run[key]} vs {other[key]}")
        if [s["loss"] for s in run["steps"]] != [s["loss"] for s in other["steps"]]:
            problems.append("rerun: the loss curves differ")
    for p in problems:
        print(f"{path}: {p}")
    if problems:
        sys.exit(1)
    print(f"{path}: ok, {steps} steps, loss {run['steps'][0]['loss']:.4f} -> "
          f"{run['steps'][-1]['loss']:.4f}, hashes {run['loss_hash']} {run['parameter_hash']}")


if __name__ == "__main__":
    main()
