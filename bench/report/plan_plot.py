"""tplab plan plot: step time and memory per device against the TP degree, from the JSON of
`tplab model plan --json FILE`.

usage: python3 bench/report/plan_plot.py PLAN.json -o PLOT.png

Two panels share the TP axis: the step time of every priced layout (grey; the fastest at each
TP degree joined by a line, hollow where it does not fit in memory) and the memory of the
device that holds the most, with the device's memory as a line. TP degrees whose groups span
nodes are shaded: there the TP collectives leave the node's links for the network. The best
layout is starred. Exit codes: 0 written, 2 bad input.
"""
import argparse
import io
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

from safe_output import UnsafeTarget, write_file  # noqa: E402

GIB = 1024 ** 3


class BadInput(Exception):
    """Input the plot cannot use; the message says what would work."""


def load(path):
    try:
        with open(path) as f:
            plan = json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot read it ({e.strerror})")
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: not JSON ({e})")
    if not isinstance(plan, dict) or not isinstance(plan.get("layouts"), list) or not plan["layouts"]:
        raise BadInput(f"{path}: not the output of `tplab model plan --json` (no layouts)")
    return plan


def fastest_by_tp(layouts):
    """{tp: the fastest layout that fits, else the fastest} in TP order."""
    best = {}
    for e in layouts:
        key = (not e["fits_memory"], e["step_s"])
        if e["tp"] not in best or key < (not best[e["tp"]]["fits_memory"], best[e["tp"]]["step_s"]):
            best[e["tp"]] = e
    return dict(sorted(best.items()))


def label(e):
    grid = f" {e['grid']}" if e["grid"] else ""
    return f"DP {e['dp']} x PP {e['pp']}\n{e['scheme']}{grid}"


def draw_panel(ax, layouts, fastest, value, ylabel):
    ax.scatter([e["tp"] for e in layouts], [value(e) for e in layouts], s=12, color="0.75",
               label="every layout", zorder=2)
    tps = list(fastest)
    ax.plot(tps, [value(fastest[t]) for t in tps], color="tab:blue", zorder=3,
            label="fastest at each TP degree")
    for t in tps:
        e = fastest[t]
        ax.scatter([t], [value(e)], s=40, zorder=4, color="tab:blue",
                   facecolors="tab:blue" if e["fits_memory"] else "none")
    ax.set_xscale("log", base=2)
    ax.set_xticks(tps)
    ax.set_xticklabels([str(t) for t in tps])
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)


def shade_inter_node(ax, plan, fastest):
    per_node = plan["cluster"]["ranks_per_node"]
    beyond = [t for t in fastest if t > per_node]
    if beyond:
        ax.axvspan(per_node * 2 ** 0.5, max(beyond) * 2 ** 0.5, color="tab:red", alpha=0.08,
                   label=f"TP groups span nodes (TP > {per_node})")


def plot(plan, out):
    layouts = plan["layouts"]
    fastest = fastest_by_tp(layouts)
    fig, (time_ax, memory_ax) = plt.subplots(2, 1, figsize=(8, 8), sharex=True)
    draw_panel(time_ax, layouts, fastest, lambda e: e["step_s"], "step time (s)")
    draw_panel(memory_ax, layouts, fastest, lambda e: e["memory"]["total"] / GIB,
               "memory per device (GiB)")
    for t, e in fastest.items():
        time_ax.annotate(label(e), (t, e["step_s"]), textcoords="offset points", xytext=(4, 6),
                         fontsize=7)
    memory_ax.axhline(plan["cluster"]["memory_bytes"] / GIB, color="tab:red", linestyle="--",
                      label="device memory")
    if plan.get("best") is not None:
        best = layouts[plan["best"]]
        time_ax.scatter([best["tp"]], [best["step_s"]], marker="*", s=220, color="tab:orange",
                        zorder=5, label=f"best: DP {best['dp']} x TP {best['tp']} x PP {best['pp']}")
    for ax in (time_ax, memory_ax):
        shade_inter_node(ax, plan, fastest)
        ax.legend(fontsize=8, loc="best")
    memory_ax.set_xlabel("TP degree (hollow: the fastest layout there does not fit in memory)")
    model, cluster = plan["model"], plan["cluster"]
    time_ax.set_title(f"{model['parameters'] / 1e9:.1f}B-parameter GPT on {cluster['devices']} x "
                      f"{cluster['hardware']}, {cluster['ranks_per_node']} per node (a model)",
                      fontsize=10)
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=120)
    plt.close(fig)
    write_file(out, png.getvalue(), f"-o {out}")


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plan_plot.py",
        description="Step time and memory per device against the TP degree, from the JSON of "
                    "`tplab model plan --json FILE`.")
    parser.add_argument("plan", metavar="PLAN.json")
    parser.add_argument("-o", "--out", required=True, metavar="PLOT.png", help="the PNG to write")
    args = parser.parse_args(argv)
    try:
        plot(load(args.plan), args.out)
    except (BadInput, UnsafeTarget) as e:
        print(f"tplab: error: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError) as e:
        print(f"tplab: error: a layout lacks a field the plot needs ({e}); give the JSON that "
              "`tplab model plan --json` wrote", file=sys.stderr)
        return 2
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
