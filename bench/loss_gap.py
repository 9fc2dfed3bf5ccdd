"""The loss gap of tensor-parallel training against the single-device f64 reference, by scheme,
TP degree and dtype: `tplab train --json` once per configuration, then a table and a plot.

usage: python3 bench/loss_gap.py [-o bench/results/training] [--steps 50] [--seeds 1]
                                 [--dtypes f64,f32,bf16] [--optimizer adamw] [--clip 1]
                                 [--shape 4,16,64,8] [--name loss_gap] [--tplab ./tplab]
                                 [--render]

Every run trains the tiny GPT of `tplab train` (V=64, L=2; blocks of --shape b,s,h,heads,
whose 8 heads every scheme splits at every degree up to 8) for --steps steps on one scheme at
one world size, beside the f64 reference on one device, and records every step's loss and the
reference's. The gap of a run is the largest relative difference of any step's loss from the
reference's (what train checks); the table shows it beside the mean over the steps, the mean
over the steps whose reference loss is above 1 (where pretraining spends its time), and the gap
at the last step, relative and absolute (a loss near 0.01 makes a small absolute gap a large
relative one). --render redraws the table and plot from OUT/NAME.json without training. Writes
OUT/NAME.json (every run and its command), OUT/NAME.md (the table) and OUT/NAME.png (the worst
gap against TP degree, one line per scheme and dtype). A configuration that train refuses
(exit 2: the scheme cannot split the shape on that many ranks) is left out and listed.

The runs are precision, not timing: on a machine with fewer cores than ranks they are
oversubscribed, which changes the time of a step and nothing else.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (scheme, ranks): every scheme at every TP degree of 1, 2, 4, 8 that splits the default shape
CONFIGURATIONS = [
    ("1d", 1), ("1d", 2), ("1d", 4), ("1d", 8),
    ("1d-sp", 2), ("1d-sp", 4), ("1d-sp", 8),
    ("2d", 1), ("2d", 4),
    ("2.5d", 4), ("2.5d", 8),
    ("3d", 1), ("3d", 8),
]


def run_one(scheme, np_, dtype, seed, args):
    """One training; its JSON record, or None when train refused the configuration."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.json")
        command = [args.tplab, "train", "--scheme", scheme, "--np", str(np_), "--dtype", dtype,
                   "--steps", str(args.steps), "--seed", str(seed), "--optimizer", args.optimizer,
                   "--shape", args.shape, "--json", path]
        if args.optimizer == "adamw":
            command += ["--clip", str(args.clip)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if done.returncode == 2:
            return None
        if not os.path.exists(path):
            sys.exit(f"loss_gap: {' '.join(command)} left no JSON (exit {done.returncode}):\n"
                     f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        with open(path) as f:
            record = json.load(f)
    steps = record["steps"]
    last = steps[-1]
    return {
        "scheme": scheme, "np": np_, "dtype": dtype, "seed": seed,
        "optimizer": args.optimizer, "clip": args.clip if args.optimizer == "adamw" else 0,
        "steps": len(steps), "pass": record["pass"], "tolerance": record["tolerance"],
        "max_relative_difference": record["max_relative_difference"],
        "max_norm_relative_difference": record["max_norm_relative_difference"],
        "last_relative_difference": last["relative_difference"],
        "mean_relative_difference": sum(s["relative_difference"] for s in steps) / len(steps),
        "last_absolute_difference": abs(last["loss"] - last["reference_loss"]),
        "final_loss": last["loss"], "final_reference_loss": last["reference_loss"],
        "losses": [s["loss"] for s in steps],
        "reference_losses": [s["reference_loss"] for s in steps],
        "gradient_norms": [s["gradient_norm"] for s in steps],
        "reference_gradient_norms": [s["reference_gradient_norm"] for s in steps],
        "command": " ".join(["./tplab"] + command[1:-2]),
    }


def mean_while_large(run):
    """The mean relative gap over the steps whose reference loss is above 1 (None if none)."""
    gaps = [abs(a - b) / abs(b) for a, b in zip(run["losses"], run["reference_losses"]) if b > 1]
    return sum(gaps) / len(gaps) if gaps else None


def table(runs, dtypes):
    """Markdown: one row per scheme and degree; per dtype the worst, mean, mean while the loss is
    above 1, and last relative gap, and the last absolute one."""
    head = "| scheme | TP degree | " + " | ".join(
        f"{d}: worst / mean / mean, loss > 1 / last (last, absolute)" for d in dtypes) + " |"
    lines = [head, "| --- | --- | " + " | ".join("---" for _ in dtypes) + " |"]
    for scheme, np_ in CONFIGURATIONS:
        cells = []
        for d in dtypes:
            found = [r for r in runs if (r["scheme"], r["np"], r["dtype"]) == (scheme, np_, d)]
            if not found:
                cells.append("-")
                continue
            worst = max(r["max_relative_difference"] for r in found)
            mean = max(r["mean_relative_difference"] for r in found)
            large = max((mean_while_large(r) or 0) for r in found)
            last = max(r["last_relative_difference"] for r in found)
            absolute = max(r["last_absolute_difference"] for r in found)
            cells.append(f"{worst:.1e} / {mean:.1e} / {large:.1e} / {last:.1e} ({absolute:.1e})")
        if any(c != "-" for c in cells):
            lines.append(f"| {scheme} | {np_} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(runs, dtypes, path, title):
    fig, ax = plt.subplots(figsize=(7.5, 5.5))
    markers = {"f64": "o", "f32": "s", "bf16": "^"}
    for d in dtypes:
        for scheme in sorted({r["scheme"] for r in runs}):
            mine = sorted((r for r in runs if r["dtype"] == d and r["scheme"] == scheme),
                          key=lambda r: r["np"])
            if not mine:
                continue
            ax.plot([r["np"] for r in mine],
                    [max(r["max_relative_difference"], 1e-17) for r in mine],
                    marker=markers.get(d, "x"), label=f"{scheme} {d}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks([1, 2, 4, 8], ["1", "2", "4", "8"])
    ax.set_xlabel("TP degree (ranks)")
    ax.set_ylabel("worst relative loss gap against f64 reference")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--out", default=os.path.join(ROOT, "bench", "results", "training"))
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--dtypes", default="f64,f32,bf16")
    parser.add_argument("--optimizer", default="adamw", choices=["sgd", "adamw"])
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--shape", default="4,16,64,8")
    parser.add_argument("--name", default="loss_gap")
    parser.add_argument("--render", action="store_true",
                        help="redraw OUT/NAME.md and .png from OUT/NAME.json, training nothing")
    parser.add_argument("--tplab", default="./tplab",
                        help="the program to run (a built copy keeps a long sweep on one build)")
    args = parser.parse_args()
    dtypes = args.dtypes.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    base = os.path.join(args.out, args.name)
    if args.render:
        with open(base + ".json") as f:
            document = json.load(f)
        write_views(base, document["runs"], dtypes, document["configuration"])
        return
    runs, refused = [], []
    plan = [(c, d, s) for c in CONFIGURATIONS for d in dtypes for s in seeds]
    for i, ((scheme, np_), dtype, seed) in enumerate(plan, 1):
        print(f"loss_gap: [{i}/{len(plan)}] {scheme} np={np_} {dtype} seed {seed}", flush=True)
        record = run_one(scheme, np_, dtype, seed, args)
        if record is None:
            refused.append(f"{scheme} np={np_}")
        else:
            runs.append(record)
    os.makedirs(args.out, exist_ok=True)
    what = (f"{args.optimizer}" + (f" --clip {args.clip:g}" if args.optimizer == "adamw" else "")
            + f", {args.steps} steps, seeds {args.seeds}, blocks {args.shape}, V=64 L=2")
    document = {
        "what": "the loss gap of tensor-parallel training against the f64 single-device "
                "reference, by scheme, TP degree and dtype (bench/loss_gap.py)",
        "configuration": what,
        "machine": "ranks oversubscribed where they outnumber the cores: precision, not timing",
        "refused": sorted(set(refused)),
        "worst": {d: max((r["max_relative_difference"] for r in runs if r["dtype"] == d),
                         default=None) for d in dtypes},
        "runs": runs,
    }
    with open(base + ".json", "w") as f:
        json.dump(document, f, indent=1)
    write_views(base, runs, dtypes, what)


def write_views(base, runs, dtypes, what):
    """BASE.md (the table) and BASE.png (the plot) of `runs`."""
    with open(base + ".md", "w") as f:
        f.write(f"Loss gap against the f64 reference: {what}\n\n{table(runs, dtypes)}\n")
    plot(runs, dtypes, base + ".png", f"loss gap, {what}")
    print(table(runs, dtypes))
    print(f"loss_gap: wrote {base}.json, .md and .png")


if __name__ == "__main__":
    main()
