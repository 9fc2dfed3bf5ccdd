"""tplab report: turns the JSON of `tplab bench scaling`, `tplab bench comm` and `tplab train`
into a Markdown report with plots, and a one-page summary table a course can hand out.

usage: python3 bench/report/report.py RESULT.json|TRACE.json... -o DIR  (or: ./tplab report ...)

Writes DIR/report.md and, as the inputs allow:
  efficiency.png   scaling efficiency against ranks, per scheme (strong and weak)
  throughput.png   tokens/s per rank against ranks, per scheme
  comm_share.png   share of the step spent inside collectives, per scheme and world size
  bytes.png        bytes per rank and step, measured (and the cost model's, when present)
  data_parallel.png  runs with --dp D > 1 beside their baselines: step time split into
                   computation, the scheme's collectives and the DP all-reduce
  pipeline_bubble.png  runs of the GPT in S > 1 pipeline stages: each stage's idle share of the
                   step beside the bubble's formula (S - 1)/(M + S - 1)
  busbw.png        bus bandwidth against message size, per collective
  overhead.png     tplab's Comm against the raw MPI call, per collective and size
  summary.png      the one-page table
  training_loss.png    each `tplab train --json` run's loss curve beside its reference's
  training_memory.png  each training run's memory per rank by kind (parameters, gradients,
                   optimizer state, kept for backward), measured, beside the cost model's
  timeline-T.png   for each trace T (given, or named by a run's "trace"): its last timed step
                   of each series, ranks by time, the overlapped stretch marked; report.md
                   states the exposed communication read from it beside bench's

The scaling plots and table show the schemes alone (dp 1; JSON from before --dp has no dp field, and
counts as dp 1); runs with D > 1 data-parallel replicas and the baselines measured for them
have a section of their own. All of these are the block's runs: runs of the whole GPT in
pipeline stages (`--pp`, workload "gpt"; JSON from before --pp has no workload field, and is the
block's) count other FLOPs on another model, and have the pipeline section alone.

Runs with more ranks than the machine's cores are oversubscribed: hollow markers, hatched
bars and a shaded band in the plots, a mark in every table. Runs on several hosts are marked
"N hosts" in the tables. Exit codes: 0 written, 2 bad input.
"""
import argparse
import io
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

import timeline  # noqa: E402
import trace_schema  # noqa: E402
from safe_output import UnsafeTarget, make_folder, write_file  # noqa: E402

SCHEME_ORDER = ["1d", "1d-sp", "2d", "2.5d", "3d"]
COLLECTIVE_ORDER = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce"]
OVERSUBSCRIBED = "oversubscribed"
CONTENDED = "contended"


class BadInput(Exception):
    """Input the report cannot use; the message says what would work."""


# ---- reading ----------------------------------------------------------------------------------

def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot read it ({e.strerror})")
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: not JSON ({e})")


def checked_trace(path, data):
    """A trace that passes trace_schema, else BadInput with its first problems."""
    found = trace_schema.problems(data)
    if found:
        raise BadInput(f"{path}: not a trace tplab can draw: " + "; ".join(found[:3]))
    return data


def trace_of(run):
    """The trace file a run names, where it is: as written, or beside the run's own JSON (a
    folder of results moved elsewhere keeps them together); None when it is not there."""
    path = run.get("trace")
    if not path:
        return None
    for candidate in (path, os.path.join(run.get("_folder", ""), os.path.basename(path))):
        if os.path.exists(candidate):
            return candidate
    return None


def is_training(data):
    """A record `tplab train --json` wrote: its steps and the hash of its loss curve."""
    return isinstance(data, dict) and isinstance(data.get("steps"), list) and "loss_hash" in data


def ended_before_first_step(data):
    """What `tplab train --json` writes when its job ended before it finished one step: the
    verdict and the job's failures alone."""
    return (isinstance(data, dict) and isinstance(data.get("failures"), list) and "pass" in data
            and "steps" not in data and "runs" not in data and "rows" not in data)


def failure_text(failure):
    """A job's failure as the launcher records it: its job, how it ended, its last message."""
    if not isinstance(failure, dict):
        return str(failure)
    parts = [str(failure[k]) for k in ("job", "exit_reason", "last_message") if failure.get(k)]
    return ": ".join(parts) or json.dumps(failure)


def training_run(path, data):
    """A training record with its file's name, a loss or difference JSON could not hold
    (NaN, written as null) as NaN; BadInput for one with no steps."""
    if not data["steps"]:
        raise BadInput(f"{path}: a `tplab train --json` run with no steps")
    nan = float("nan")
    steps = [dict(s, **{k: nan for k in ("loss", "reference_loss", "relative_difference")
                        if s.get(k) is None}) for s in data["steps"]]
    difference = data.get("max_relative_difference")
    return dict(data, steps=steps, _file=os.path.basename(path),
                max_relative_difference=nan if difference is None else difference)


def load(paths):
    """Splits the inputs into scaling runs, collective rows, training runs and traces (path,
    document), by their shape. A run that names its --trace brings that trace in too, when the
    file is there."""
    runs, rows, trainings, traces = [], [], [], []
    for path in paths:
        data = read_json(path)
        if isinstance(data, dict) and isinstance(data.get("traceEvents"), list):
            traces.append((path, checked_trace(path, data)))
        elif is_training(data):
            trainings.append(training_run(path, data))
        elif isinstance(data, dict) and isinstance(data.get("runs"), list) and data["runs"] and all(
                is_training(r) for r in data["runs"]):  # train's record under mpiexec itself
            trainings += [training_run(path, r) for r in data["runs"]]
        elif ended_before_first_step(data):
            what = "; ".join(failure_text(f) for f in data["failures"]) or "no failure recorded"
            raise BadInput(f"{path}: a `tplab train` run that ended before its first step, so "
                           f"there is nothing to draw ({what})")
        elif isinstance(data, dict) and isinstance(data.get("rows"), list):
            rows += data["rows"]
        elif isinstance(data, dict) and isinstance(data.get("runs"), list) and all(
                "step_ms" in r for r in data["runs"]):
            runs += [dict(r, _folder=os.path.dirname(path)) for r in data["runs"]]
        else:
            raise BadInput(f"{path}: neither `tplab bench scaling --json` (runs with step_ms), "
                           "`tplab bench comm --json` (rows), `tplab train --json` (steps) nor "
                           "a `--trace` file")
    given = {os.path.realpath(p) for p, _ in traces}
    for r in runs:
        path = trace_of(r)
        if not path or os.path.realpath(path) in given:
            continue
        given.add(os.path.realpath(path))
        try:
            traces.append((path, checked_trace(path, read_json(path))))
        except BadInput as e:  # a trace the user did not give: say so and go on without it
            print(f"tplab report: leaving out the trace a run names: {e}", file=sys.stderr)
    if not runs and not rows and not trainings and not traces:
        raise BadInput("the inputs hold no runs, no rows, no training and no traces")
    return runs, rows, trainings, traces


def scheme_key(name):
    return SCHEME_ORDER.index(name) if name in SCHEME_ORDER else len(SCHEME_ORDER)


def by_scheme(runs, mode):
    """{scheme: [runs of this mode sorted by np]} in teaching order."""
    out = {}
    for r in sorted(runs, key=lambda r: (scheme_key(r["scheme"]), r["np"])):
        if r["mode"] == mode:
            out.setdefault(r["scheme"], []).append(r)
    return out


def cores_of(records):
    """The core count the runs were marked against (the JSON carries it; else this machine's)."""
    for r in records:
        if "cores" in r:
            return r["cores"]
    return os.cpu_count() or 1


def shape_text(s):
    return f"{s['b']},{s['s']},{s['h']},{s['heads']}"


def dp_of(r):
    """A run's data-parallel replicas D; JSON from before --dp has no field: one replica."""
    return r.get("dp", 1)


def workload_of(r):
    """What a run timed: "block", one Transformer block, or "gpt", the whole GPT in pipeline
    stages (--pp); JSON from before --pp has no field: the block."""
    return r.get("workload", "block")


def block_runs(records):
    """The runs of one block: what the scaling and data-parallel sections compare."""
    return [r for r in records if workload_of(r) == "block"]


def pipelined_runs(records):
    """The GPT's runs of S > 1 stages, in teaching order; the one-stage baselines measured for
    their PP efficiency are only named by them."""
    return sorted((r for r in records if workload_of(r) == "gpt" and r["pp"] > 1),
                  key=lambda r: (scheme_key(r["scheme"]), r["mode"], r["np"], dp_of(r), r["pp"],
                                 r["micro_batches"], r["schedule"]))


def pipeline_baseline(r, records):
    """The one-stage run `r`'s PP efficiency divides by, found as the run names it (its ranks
    and its step time); None when `r` found none or the inputs lack it."""
    if r.get("pp_efficiency") is None:
        return None
    return next((b for b in records if b.get("pp_baseline") and b["scheme"] == r["scheme"] and
                 b["np"] == r["pp_baseline_np"] and b["step_ms"] == r["pp_baseline_step_ms"]),
                None)


def tensor_parallel_runs(runs):
    """The sweep of the schemes alone: one replica, and not a baseline measured for --dp (one
    replica's work, b/D, would stand beside the sweep's global shape in its lines)."""
    return [r for r in runs if dp_of(r) == 1 and not r.get("dp_baseline", False)]


def with_baselines(runs):
    """[(run, its baseline)] for every run with D > 1, in teaching order. The baseline is the
    scheme alone on one replica's work (np/D ranks, batch b/D) from the same sweep; the run
    names it by its ranks and copies its step time, so those find it."""
    baselines = [r for r in runs if r.get("dp_baseline", False)]
    pairs = []
    for r in sorted((r for r in runs if dp_of(r) > 1), key=lambda r: (
            scheme_key(r["scheme"]), r["mode"], r["np"], dp_of(r), r["dp_buckets"])):
        found = [b for b in baselines if b["scheme"] == r["scheme"] and
                 b["np"] == r["dp_baseline_np"] and b["step_ms"] == r["dp_baseline_step_ms"]]
        if not found:
            raise BadInput(f"{r['scheme']} {r['mode']} np={r['np']} dp={dp_of(r)}: the inputs lack "
                           f"its baseline (a run with dp_baseline true, np={r['dp_baseline_np']} "
                           f"and step_ms={r['dp_baseline_step_ms']}); give the whole JSON of the "
                           "`tplab bench scaling --dp` sweep")
        pairs.append((r, found[0]))
    return pairs


# ---- plots -------------------------------------------------------------------------------------

def shade_oversubscribed(ax, cores, max_x):
    """A grey band over world sizes above the core count, labelled at its top."""
    if max_x > cores:
        ax.axvspan(cores * 2**0.5, max_x * 1.6, color="0.92", zorder=0)
        ax.text(0.99, 0.98, f"shaded: {OVERSUBSCRIBED}\n(more ranks than {cores} cores)",
                transform=ax.transAxes, ha="right", va="top", fontsize=8, color="0.35")


def plot_lines(ax, series, y_of, cores):
    """One line per scheme; oversubscribed points hollow."""
    for i, (scheme, rs) in enumerate(series.items()):
        color = f"C{i}"
        xs = [r["np"] for r in rs]
        ys = [y_of(r) for r in rs]
        ax.plot(xs, ys, "-", color=color, label=scheme, zorder=2)
        for r, x, y in zip(rs, xs, ys):
            over = r.get("oversubscribed", False)
            ax.plot([x], [y], "o", color=color, markersize=7, zorder=3,
                    markerfacecolor="white" if over else color)
            if r.get("contended"):
                ax.plot([x], [y], "x", color="black", markersize=9, zorder=4)
    ax.set_xscale("log", base=2)
    nps = sorted({r["np"] for rs in series.values() for r in rs})
    ax.set_xticks(nps)
    ax.set_xticklabels([str(n) for n in nps])
    ax.set_xlim(min(nps) / 1.4, max(nps) * 1.4)
    ax.set_xlabel("ranks (p)")
    shade_oversubscribed(ax, cores, max(nps))
    ax.grid(True, alpha=0.3)


def subtitle(mode, runs):
    shapes = sorted({shape_text(r["shape"]) for r in runs if r["mode"] == mode and r["np"] ==
                     min(x["np"] for x in runs if x["mode"] == mode)})
    if mode == "strong":
        return f"strong scaling: global shape b,s,h,heads = {', '.join(shapes)} at every p"
    return f"weak scaling: b grows with p (shape at the first p: {', '.join(shapes)})"


def modes_in(runs):
    return [m for m in ("strong", "weak") if any(r["mode"] == m for r in runs)]


def legend_title(runs):
    marks = []
    if any(r.get("oversubscribed") for r in runs):
        marks.append(f"hollow: {OVERSUBSCRIBED}")
    if any(r.get("contended") for r in runs):
        marks.append(f"x: {CONTENDED}")
    return "scheme" + (f" ({', '.join(marks)})" if marks else "")


def efficiency_plot(runs, out, cores):
    modes = modes_in(runs)
    fig, axes = plt.subplots(1, len(modes), figsize=(6.5 * len(modes), 4.6), squeeze=False)
    for ax, mode in zip(axes[0], modes):
        plot_lines(ax, by_scheme(runs, mode), lambda r: r["efficiency"], cores)
        ax.axhline(1.0, color="0.4", linestyle=":", linewidth=1)
        # p ranks on c < p cores can do at most c/p of the work of p cores: the machine's bound.
        nps = sorted({r["np"] for r in runs if r["mode"] == mode})
        bound = [n for n in nps if n >= cores]
        if len(bound) > 1 or (bound and bound[-1] > cores):
            xs = [cores] + [n for n in bound if n > cores]
            ax.plot(xs, [min(1.0, cores / n) for n in xs], "--", color="0.3", linewidth=1.2,
                    label=f"bound of {cores} cores: {cores}/p")
        ax.set_ylim(0, max(1.25, max(r["efficiency"] for r in runs if r["mode"] == mode) * 1.15))
        formula = "T(1) / (p T(p))" if mode == "strong" else "T(1) / T(p)"
        ax.set_ylabel(f"efficiency  {formula}")
        ax.set_title(subtitle(mode, runs), fontsize=9)
        ax.legend(title=legend_title(runs), fontsize=8, title_fontsize=8, loc="lower left")
    fig.suptitle("Scaling efficiency of the block's forward + backward step (1.0 = ideal)")
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


def throughput_plot(runs, out, cores):
    modes = modes_in(runs)
    fig, axes = plt.subplots(1, len(modes), figsize=(6.5 * len(modes), 4.6), squeeze=False)
    for ax, mode in zip(axes[0], modes):
        plot_lines(ax, by_scheme(runs, mode), lambda r: r["tokens_per_s"] / r["np"], cores)
        ax.set_ylabel("tokens/s per rank")
        ax.set_ylim(bottom=0)
        ax.set_title(subtitle(mode, runs), fontsize=9)
        ax.legend(title=legend_title(runs), fontsize=8, title_fontsize=8)
    fig.suptitle("Throughput per rank (flat = perfect scaling)")
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


def grouped_bars(ax, series, y_of, ylabel):
    """Bars grouped by world size, one colour per scheme; oversubscribed bars hatched."""
    nps = sorted({r["np"] for rs in series.values() for r in rs})
    width = 0.8 / max(1, len(series))
    for i, (scheme, rs) in enumerate(series.items()):
        for r in rs:
            x = nps.index(r["np"]) + (i - (len(series) - 1) / 2) * width
            over = r.get("oversubscribed", False)
            ax.bar(x, y_of(r), width, color=f"C{i}", edgecolor="black", linewidth=0.5,
                   hatch="//" if over else None)
    ax.set_xticks(range(len(nps)))
    ax.set_xticklabels([f"{n}" for n in nps])
    ax.set_xlabel("ranks (p)")
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    handles = [Patch(facecolor=f"C{i}", edgecolor="black", linewidth=0.5, label=scheme)
               for i, scheme in enumerate(series)]
    if any(r.get("oversubscribed") for rs in series.values() for r in rs):
        handles.append(Patch(facecolor="white", edgecolor="black", linewidth=0.5, hatch="//",
                             label=OVERSUBSCRIBED))
    ax.legend(handles=handles, title="scheme", fontsize=8, title_fontsize=8)


def comm_share_plot(runs, out):
    modes = modes_in(runs)
    fig, axes = plt.subplots(1, len(modes), figsize=(6.5 * len(modes), 4.6), squeeze=False)
    for ax, mode in zip(axes[0], modes):
        series = {s: [r for r in rs if r["np"] > 1] for s, rs in by_scheme(runs, mode).items()}
        series = {s: rs for s, rs in series.items() if rs}
        if not series:
            ax.text(0.5, 0.5, "no run on more than one rank", ha="center", transform=ax.transAxes)
            continue
        grouped_bars(ax, series, lambda r: 100 * r["comm_share"], "time in collectives (% of step)")
        ax.set_ylim(0, 100)
        ax.set_title(subtitle(mode, runs), fontsize=9)
    fig.suptitle("Communication share: time inside collectives / step time (slowest rank)")
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


def bytes_plot(runs, out):
    """Measured bytes per rank per step; against the model's where the runs carry it."""
    modeled = [r for r in runs if r.get("model_bytes_per_rank") is not None and r["np"] > 1]
    if modeled:
        fig, ax = plt.subplots(figsize=(6.5, 5))
        for i, scheme in enumerate(sorted({r["scheme"] for r in modeled}, key=scheme_key)):
            rs = [r for r in modeled if r["scheme"] == scheme]
            for r in rs:
                over = r.get("oversubscribed", False)
                ax.plot(r["model_bytes_per_rank"] / 2**20, r["bytes_per_rank"] / 2**20, "o",
                        color=f"C{i}", markerfacecolor="white" if over else f"C{i}",
                        label=scheme if r is rs[0] else None)
        lim = max(max(r["model_bytes_per_rank"], r["bytes_per_rank"]) for r in modeled) / 2**20
        ax.plot([0, lim * 1.05], [0, lim * 1.05], ":", color="0.4", label="measured = model")
        ax.set_xlabel("model: MiB per rank and step")
        ax.set_ylabel("measured (counters): MiB per rank and step")
        ax.set_title("Bytes per rank: measured against the cost model")
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    else:
        modes = modes_in(runs)
        fig, axes = plt.subplots(1, len(modes), figsize=(6.5 * len(modes), 4.6), squeeze=False)
        for ax, mode in zip(axes[0], modes):
            series = {s: [r for r in rs if r["np"] > 1] for s, rs in by_scheme(runs, mode).items()}
            series = {s: rs for s, rs in series.items() if rs}
            if not series:
                continue
            grouped_bars(ax, series, lambda r: r["bytes_per_rank"] / 2**20, "MiB per rank and step")
            ax.set_title(subtitle(mode, runs), fontsize=9)
        fig.suptitle("Bytes each rank's collectives move per step (measured by the counters; "
                     "no model values in the input)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


MEMORY_KINDS = ("parameters", "gradients", "optimizer", "activations")


def bench_label(r):
    return f"{r['scheme']}\n{r.get('mode', '')} p={r['np']}"


def memory_plot(runs, out, label=bench_label, peak="allocator peak in a step"):
    """Each run's memory per rank by kind, measured on the device (stacked), the cost model's
    total of the same kinds beside it (a dark bar), and the allocator's peak (`peak` says over
    what); runs in the order given, each named by `label`."""
    measured = [r for r in runs if r.get("memory")]
    fig, ax = plt.subplots(figsize=(max(6.5, 0.55 * len(measured) + 2) + 2.2, 4.8))
    for x, r in enumerate(measured):
        memory, bottom = r["memory"], 0.0
        for k, kind in enumerate(MEMORY_KINDS):
            mib = memory[kind]["measured"] / 2**20
            ax.bar(x - 0.18, mib, 0.36, bottom=bottom, color=f"C{k}", edgecolor="black",
                   linewidth=0.4, label=kind if x == 0 else None)
            bottom += mib
        models = [memory[kind]["model"] for kind in MEMORY_KINDS]
        if all(m is not None for m in models):
            ax.bar(x + 0.18, sum(models) / 2**20, 0.36, color="0.25",
                   label="model (same kinds)" if x == 0 else None)
        ax.plot(x, memory["peak_allocated"] / 2**20, "v", color="black",
                label=peak if x == 0 else None)
    ax.set_xticks(range(len(measured)))
    ax.set_xticklabels([label(r) for r in measured], fontsize=7)
    ax.set_ylabel("MiB per rank (the largest)")
    ax.set_title("Memory per rank by kind: measured on the device, the model beside it",
                 fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


def size_label(b):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b} B"


def collectives_in(rows):
    return sorted({r["collective"] for r in rows},
                  key=lambda c: COLLECTIVE_ORDER.index(c) if c in COLLECTIVE_ORDER else 99)


def size_axis(ax, rows):
    ax.set_xscale("log", base=2)
    sizes = sorted({r["bytes"] for r in rows})
    ticks = [s for s in sizes if math.log2(s) % 4 == 0] or sizes
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(s) for s in ticks], fontsize=8)
    ax.set_xlabel("message size (logical N, bytes)")


def busbw_plot(rows, out):
    ranks = sorted({r["ranks"] for r in rows if r["ranks"] > 1}) or sorted({r["ranks"] for r in rows})
    fig, axes = plt.subplots(1, len(ranks), figsize=(max(9, 6.5 * len(ranks)), 5), squeeze=False)
    for ax, n in zip(axes[0], ranks):
        rs = [r for r in rows if r["ranks"] == n]
        over = any(r.get("oversubscribed", False) for r in rs)
        for i, c in enumerate(collectives_in(rs)):
            pts = sorted((r for r in rs if r["collective"] == c), key=lambda r: r["bytes"])
            ax.plot([r["bytes"] for r in pts], [r["busbw"] for r in pts], "o-", color=f"C{i}",
                    markersize=3.5, label=c, markerfacecolor="white" if over else f"C{i}")
        size_axis(ax, rs)
        ax.set_ylabel("busbw (GB/s, 1 GB = 1e9 bytes)")
        ax.set_title(f"{n} ranks" + (f" ({OVERSUBSCRIBED}: hollow)" if over else ""), fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Bus bandwidth of tplab's MpiComm\nbusbw = algbw x bus factor: 2(n-1)/n all_reduce, "
                 "(n-1)/n all_gather and reduce_scatter, 1 broadcast and reduce", fontsize=10)
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


def overhead_plot(rows, out):
    ranks = sorted({r["ranks"] for r in rows})
    fig, axes = plt.subplots(1, len(ranks), figsize=(max(9, 6.5 * len(ranks)), 5), squeeze=False)
    for ax, n in zip(axes[0], ranks):
        rs = [r for r in rows if r["ranks"] == n]
        over = any(r.get("oversubscribed", False) for r in rs)
        for i, c in enumerate(collectives_in(rs)):
            pts = sorted((r for r in rs if r["collective"] == c), key=lambda r: r["bytes"])
            ax.plot([r["bytes"] for r in pts], [100 * r["overhead"] for r in pts],
                    "o-", color=f"C{i}", markersize=3.5, label=c,
                    markerfacecolor="white" if over else f"C{i}")
        values = [100 * r["overhead"] for r in rs]
        top = max(30.0, min(300.0, max(values) * 1.1))
        ax.axhspan(-5, 5, color="0.9", zorder=0)
        ax.axvline(2**20, color="0.5", linestyle=":", linewidth=1)
        ax.text(2**20, 0.98, " 1 MiB", transform=ax.get_xaxis_transform(), fontsize=8,
                va="top", color="0.35")
        ax.axhline(0, color="0.4", linewidth=0.8)
        size_axis(ax, rs)
        ax.set_ylim(max(-25.0, min(values) * 1.2), top)
        ax.set_ylabel("median of paired tplab/raw ratios - 1 (%)")
        ax.set_title(f"{n} ranks" + (f" ({OVERSUBSCRIBED}: hollow)" if over else "")
                     + "; band: within 5%", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Overhead of tplab's Comm (checks, timing, counters) over the same MPI call\n"
                 "median of the ratios of interleaved samples, in the same run", fontsize=10)
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


STEP_PARTS = [("computation", "0.75"), ("TP collectives (the scheme's)", "C0"),
              ("DP all-reduce of the gradients", "C1")]


def step_parts(r):
    """A run's step in ms as STEP_PARTS: what the collectives leave of it, the scheme's, the DP
    all-reduce. With --overlap on a started collective counts from its start to its completion,
    the computation it overlapped included, so the collectives can add up to more than the
    step: then nothing is left for computation, and the bar reaches above the step's mark."""
    tp, dp = r["comm_ms_tp"], r["comm_ms_dp"]
    return [max(0.0, r["step_ms"] - tp - dp), tp, dp]


def dp_efficiency_bound(r, cores):
    """The most DP efficiency `cores` cores allow by their sharing alone: the baseline's p/D
    ranks get min(p/D, c) cores for one replica's work, the run's p ranks min(p, c) for D
    times it, so baseline / run <= min(p, c) / (D min(p/D, c)); 1 while p <= c."""
    return min(r["np"], cores) / (dp_of(r) * min(r["dp_baseline_np"], cores))


def by_baseline(pairs):
    """[(baseline, [its runs with D > 1])], in the order the pairs first name each baseline."""
    groups = {}
    for r, b in pairs:
        groups.setdefault(id(b), (b, []))[1].append(r)
    return list(groups.values())


def stacked_step_bars(ax, groups, cores):
    """Each baseline's bar, then its runs' bars, split into STEP_PARTS with a mark at the step
    time; DP efficiency above each run, a dotted line at its baseline's time (where ideal data
    parallelism would stay)."""
    x, ticks, labels = 0.0, [], []
    for baseline, rs in groups:
        start = x
        for r in [baseline] + rs:
            bottom = 0.0
            for value, (_, color) in zip(step_parts(r), STEP_PARTS):
                ax.bar(x, value, 0.7, bottom=bottom, color=color, edgecolor="black",
                       linewidth=0.5, hatch="//" if r.get("oversubscribed") else None)
                bottom += value
            ax.hlines(r["step_ms"], x - 0.35, x + 0.35, colors="black", linewidth=2, zorder=4)
            if r is baseline:
                labels.append(f"baseline\np={r['np']} b={r['shape']['b']}")
            else:
                bound = dp_efficiency_bound(r, cores)
                ax.annotate(f"{r['dp_efficiency']:.2f}" +
                            (f"\n(bound {bound:.2f})" if bound < 1 else ""), (x, bottom),
                            xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                            fontsize=8)
                labels.append(f"D={dp_of(r)} p={r['np']}\nb={r['shape']['b']} {r['dp_buckets']}")
            ticks.append(x)
            x += 1
        ax.hlines(baseline["step_ms"], start - 0.45, x - 0.55, colors="0.25", linestyles=":",
                  linewidth=1.2, zorder=3)
        x += 0.5
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=7.5)
    ax.set_xlim(-0.6, x - 0.9)
    ax.set_ylim(0, 1.25 * max(sum(step_parts(r)) for b, rs in groups for r in [b] + rs))
    ax.set_ylabel("step ms (slowest rank, median)")
    ax.grid(True, axis="y", alpha=0.3)


def data_parallel_plot(pairs, out, cores):
    """One panel per scheme and mode: its runs with D > 1 beside the baselines they are
    measured against."""
    panels = {}
    for r, b in pairs:
        panels.setdefault(f"{r['scheme']} {r['mode']}", []).append((r, b))
    groups = {title: by_baseline(ps) for title, ps in panels.items()}
    bars = [sum(1 + len(rs) for _, rs in g) for g in groups.values()]
    fig, axes = plt.subplots(1, len(groups), squeeze=False, gridspec_kw={"width_ratios": bars},
                             figsize=(max(7.5, 1.1 * sum(bars) + 1.2 * len(bars)), 5.4))
    for ax, (title, g) in zip(axes[0], groups.items()):
        stacked_step_bars(ax, g, cores)
        ax.set_title(title, fontsize=10)
    handles = [Patch(facecolor=color, edgecolor="black", linewidth=0.5, label=label)
               for label, color in STEP_PARTS]
    handles += [Line2D([], [], color="black", linewidth=2,
                       label="step (collectives that overlapped\ncomputation reach above it)"),
                Line2D([], [], color="0.25", linestyle=":", linewidth=1.2,
                       label="baseline's step: ideal")]
    if any(r.get("oversubscribed") for r, _ in pairs):  # then also any baseline that is
        handles.append(Patch(facecolor="white", edgecolor="black", linewidth=0.5, hatch="//",
                             label=OVERSUBSCRIBED))
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("Data parallelism around tensor parallelism: D replicas on D times the batch "
                 "against one replica's work\nnumber above a bar: DP efficiency = baseline step "
                 "/ step (1 = ideal)", fontsize=10)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    save_figure(fig, out)
    plt.close(fig)


def pipeline_label(r):
    """A pipelined run's group in the bubble plot: scheme, ranks (and whether it is the DP
    baseline of another run), D and S; M and the schedule; the formula and, where it has a
    baseline, PP efficiency."""
    efficiency = r.get("pp_efficiency")
    role = ", DP baseline" if r.get("dp_baseline") else ""
    return (f"{r['scheme']} {r['mode']} p={r['np']}{role}\nD={dp_of(r)} S={r['pp']} "
            f"M={r['micro_batches']} {r['schedule']}\nformula {100 * r['bubble_formula']:.0f}%" +
            (f", PP eff. {efficiency:.2f}" if efficiency is not None else ""))


def pipeline_bubble_plot(runs, out):
    """One group of bars per pipelined run, a bar per stage: the share of the step its ranks
    idled, measured; over the group a dashed line at the bubble's formula (S - 1)/(M + S - 1),
    what an ideal pipeline of S stages and M micro-batches idles on every stage."""
    stages = max(r["pp"] for r in runs)
    width = max(6.5, 0.55 * sum(r["pp"] for r in runs) + 1.6 * len(runs) + 1.5)
    fig, ax = plt.subplots(figsize=(width, 5.2))
    x, ticks, top = 0.0, [], 0.0
    for r in runs:
        start = x
        for s, stage in enumerate(r["stages"]):
            idle = 100 * stage["idle_share"]
            ax.bar(x, idle, 0.8, color=f"C{s % 10}", edgecolor="black", linewidth=0.5,
                   hatch="//" if r.get("oversubscribed") else None)
            ax.annotate(f"{idle:.0f}%", (x, idle), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7.5, zorder=5,  # over the formula
                        bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6})
            top = max(top, idle)
            x += 1
        formula = 100 * r["bubble_formula"]
        ax.hlines(formula, start - 0.5, x - 0.5, colors="black", linestyles="--", linewidth=1.8,
                  zorder=4)
        top = max(top, formula)
        ticks.append((start + x - 1) / 2)
        x += 0.8
    ax.set_xticks(ticks)
    ax.set_xticklabels([pipeline_label(r) for r in runs], fontsize=7.5)
    ax.set_xlim(-0.8, x - 1.0)
    ax.set_ylim(0, min(100.0, 1.2 * top + 5))
    ax.set_ylabel("idle share of the step (%), the stage's ranks' mean")
    ax.grid(True, axis="y", alpha=0.3)
    handles = [Patch(facecolor=f"C{s % 10}", edgecolor="black", linewidth=0.5,
                     label=f"stage {s}: measured") for s in range(stages)]
    handles.append(Line2D([], [], color="black", linestyle="--", linewidth=1.8,
                          label="formula (S - 1)/(M + S - 1)"))
    if any(r.get("oversubscribed") for r in runs):
        handles.append(Patch(facecolor="white", edgecolor="black", linewidth=0.5, hatch="//",
                             label=OVERSUBSCRIBED))
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Pipeline bubble: each stage's share of the step not computing, measured, "
                 "against the formula\n(waiting for the neighbouring stages' transfers adds to "
                 "the bubble's share)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


# ---- tables --------------------------------------------------------------------------------------

SUMMARY_COLUMNS = ["scheme", "mode", "p", "grid", "shape b,s,h,n", "step ms", "comm %",
                   "efficiency", "tokens/s", "MiB/rank", "peak MiB", "cpu", ""]


def hosts_note(records):
    """"N hosts" when the records' ranks ran on several hosts, else ""."""
    n = max((len(r.get("hosts", [])) for r in records), default=0)
    return f"{n} hosts" if n > 1 else ""


def note_of(r):
    """Why a run's times are not the scheme's alone, if they are not, and where it ran when
    that was on several hosts."""
    timing = OVERSUBSCRIBED if r.get("oversubscribed") else CONTENDED if r.get("contended") else ""
    return ", ".join(n for n in (hosts_note([r]), timing) if n)


def summary_rows(runs):
    out = []
    for r in sorted(runs, key=lambda r: (scheme_key(r["scheme"]), r["mode"], r["np"])):
        out.append([r["scheme"], r["mode"], str(r["np"]), r.get("grid", ""), shape_text(r["shape"]),
                    f"{r['step_ms']:.1f}", f"{100 * r['comm_share']:.0f}",
                    f"{r['efficiency']:.2f}", f"{r['tokens_per_s']:.0f}",
                    f"{r['bytes_per_rank'] / 2**20:.2f}", f"{r['peak_mem_bytes'] / 2**20:.0f}",
                    f"{r['cpu_share']:.2f}" if "cpu_share" in r else "", note_of(r)])
    return out


DATA_PARALLEL_COLUMNS = ["scheme", "mode", "p", "D", "buckets", "grid", "step ms", "baseline p/D",
                         "baseline ms", "DP efficiency", "TP comm %", "DP comm %", "TP MiB/rank",
                         "DP MiB/rank", ""]


def pair_note(r, baseline):
    """note_of for a run with D > 1 and, where its times are not the scheme's alone either, for
    the baseline its DP efficiency divides by."""
    return ", ".join(n for n in (note_of(r), note_of(baseline) and f"baseline {note_of(baseline)}")
                     if n)


def data_parallel_rows(pairs):
    out = []
    for r, baseline in pairs:
        out.append([r["scheme"], r["mode"], str(r["np"]), str(dp_of(r)), r["dp_buckets"],
                    r.get("grid", ""), f"{r['step_ms']:.1f}", str(r["dp_baseline_np"]),
                    f"{r['dp_baseline_step_ms']:.1f}", f"{r['dp_efficiency']:.2f}",
                    f"{100 * r['comm_share_tp']:.1f}", f"{100 * r['comm_share_dp']:.1f}",
                    f"{r['bytes_per_rank_tp'] / 2**20:.2f}",
                    f"{r['bytes_per_rank_dp'] / 2**20:.2f}", pair_note(r, baseline)])
    return out


PIPELINE_COLUMNS = ["scheme", "mode", "p", "D", "S", "grid", "shape", "M", "schedule", "step ms",
                    "idle % per stage", "formula %", "baseline p/S", "baseline ms",
                    "PP efficiency", "1 - formula", "kept MiB per stage", "as modelled", ""]


def mib_list(values):
    """Byte counts as MiB, one per stage, stage 0 first."""
    return ", ".join(f"{v / 2**20:.3f}" for v in values)


def pipeline_note(r, baseline):
    """note_of for a pipelined run, its baseline's as pair_note has it, and whether the run was
    measured as the one-replica baseline of a run with D > 1 (its batch then b/D)."""
    notes = [pair_note(r, baseline) if baseline else note_of(r)]
    if r.get("dp_baseline"):
        notes.append("DP baseline")
    return ", ".join(n for n in notes if n)


def pipeline_rows(runs, records):
    """A row per pipelined run: its stages' idle shares beside the formula, PP efficiency beside
    1 - the formula where it found its one-stage baseline, and each stage's kept bytes (the
    model's as well where they differ)."""
    out = []
    for r in runs:
        efficiency = r.get("pp_efficiency")
        kept = [stage["kept_bytes"] for stage in r["stages"]]
        model = [stage["model_kept_bytes"] for stage in r["stages"]]
        out.append([r["scheme"], r["mode"], str(r["np"]), str(dp_of(r)), str(r["pp"]),
                    r.get("grid", ""), f"{shape_text(r['shape'])} V={r['vocab']} L={r['layers']}",
                    str(r["micro_batches"]), r["schedule"], f"{r['step_ms']:.1f}",
                    ", ".join(f"{100 * stage['idle_share']:.1f}" for stage in r["stages"]),
                    f"{100 * r['bubble_formula']:.1f}",
                    str(r["pp_baseline_np"]) if efficiency is not None else "",
                    f"{r['pp_baseline_step_ms']:.1f}" if efficiency is not None else "",
                    f"{efficiency:.2f}" if efficiency is not None else "",
                    f"{r['pp_efficiency_formula']:.2f}" if efficiency is not None else "",
                    mib_list(kept),
                    "yes" if r["kept_as_modelled"] else f"NO: model {mib_list(model)}",
                    pipeline_note(r, pipeline_baseline(r, records))])
    return out


def column_widths(labels, cells):
    """Each column's share of the page: its longest text and a margin of two characters, at
    least 8 in all, so that no text overflows its cell and the short ones stay readable."""
    chars = [2 + max(6, len(label), *(len(row[j]) for row in cells))
             for j, label in enumerate(labels)]
    return [c / sum(chars) for c in chars]


def summary_figure(runs, pairs, rows, out, cores):
    """One landscape page: the scaling table, the data-parallel runs', and the collectives'
    large-message figures."""
    row_in = 0.24  # inches per table row
    blocks = [(t, cols, title) for t, cols, title in (
        (summary_rows(runs), SUMMARY_COLUMNS, "Scaling (bench scaling)"),
        (data_parallel_rows(pairs), DATA_PARALLEL_COLUMNS,
         "Data parallelism around tensor parallelism (bench scaling --dp): D replicas against "
         "the scheme alone on one replica's work"),
        (comm_summary(rows), COMM_COLUMNS,
         "Collectives (bench comm): overhead on messages of 1 MiB and more"))
        if t]
    height = 1.1 + sum(0.45 + row_in * (len(t) + 1) for t, _, _ in blocks)
    fig = plt.figure(figsize=(11.7, height))
    fig.text(0.02, 1 - 0.3 / height, "tplab: tensor parallelism of one Transformer block, measured",
             fontsize=14, weight="bold", va="top")
    fig.text(0.02, 1 - 0.6 / height, "Step = forward + backward (median of repeats after "
             "warm-up, slowest rank). Efficiency: strong T(1)/(p T(p)), weak T(1)/T(p), weak "
             "scaling multiplies the batch by p.\nGrey rows ran more ranks than the "
             f"{cores} cores ({OVERSUBSCRIBED}) or shared them with another process "
             f"({CONTENDED}: cpu, a rank's share of a core, below 0.9).", fontsize=8.5, va="top",
             linespacing=1.5)
    top = height - 1.1
    for cells, columns, title in blocks:
        h = row_in * (len(cells) + 1)
        ax = fig.add_axes([0.02, (top - 0.3 - h) / height, 0.96, h / height])
        ax.axis("off")
        fig.text(0.02, (top - 0.05) / height, title, fontsize=9.5, weight="bold", va="top")
        labels = [c or "note" for c in columns]
        t = ax.table(cellText=cells, colLabels=labels, loc="upper center", cellLoc="center",
                     colWidths=column_widths(labels, cells), bbox=[0, 0, 1, 1])
        t.auto_set_font_size(False)
        t.set_fontsize(8)
        for i, row in enumerate(cells, start=1):
            if row[-1]:
                for j in range(len(columns)):
                    t[i, j].set_facecolor("0.88")
        top -= 0.45 + h
    save_figure(fig, out)
    plt.close(fig)


COMM_COLUMNS = ["collective", "ranks", "sizes", "peak busbw GB/s", "at size",
                "median overhead", "worst overhead", "#wrong", ""]


def comm_summary(rows):
    out = []
    keys = sorted({(r["ranks"], r["collective"]) for r in rows},
                  key=lambda k: (k[0], COLLECTIVE_ORDER.index(k[1])
                                 if k[1] in COLLECTIVE_ORDER else 99))
    for n, c in keys:
        rs = [r for r in rows if r["ranks"] == n and r["collective"] == c]
        large = [r for r in rs if r["bytes"] >= 2**20]
        best = max(rs, key=lambda r: r["busbw"])
        over = [100 * r["overhead"] for r in large]
        over_sorted = sorted(over)
        median = (over_sorted[len(over) // 2] if len(over) % 2 else
                  0.5 * (over_sorted[len(over) // 2 - 1] + over_sorted[len(over) // 2])) if over else None
        out.append([c, str(n), str(len(large)), f"{best['busbw']:.2f}", size_label(best["bytes"]),
                    f"{median:+.1f}%" if over else "-", f"{max(over):+.1f}%" if over else "-",
                    str(sum(r["wrong"] for r in rs)),
                    ", ".join(n for n in (hosts_note(rs), OVERSUBSCRIBED if any(
                        r.get("oversubscribed") for r in rs) else "") if n)])
    return out


# ---- training runs (`tplab train --json`) --------------------------------------------------------

def training_label(r):
    """scheme, ranks (and replicas), grid, dtype, and what else the run turned on."""
    extras = [r["optimizer"]["kind"]] if isinstance(r.get("optimizer"), dict) else []
    if r.get("regather"):
        extras.append("regather")
    if r.get("recompute", "none") != "none":
        extras.append(f"recompute {r['recompute']}")
    dropout = r.get("dropout") or {}
    if dropout.get("p", 0):
        extras.append(f"dropout {dropout['p']}")
    dp = f" dp={r['dp']}" if r.get("dp", 1) > 1 else ""
    grid = f" ({r['grid']})" if r.get("grid") else ""
    return f"{r['scheme']}{grid} p={r['np']}{dp} {r['dtype']}\n{', '.join(extras)}"


FLOOR = 1e-18  # where a relative difference of exactly 0 is drawn on the log scale


def training_loss_plot(trainings, out):
    """Above, each run's loss per step (solid) and its single-device reference's (dashed, same
    colour); below, their relative difference per step on a log scale beside the run's
    tolerance (dotted), a difference of exactly 0 drawn at FLOOR."""
    fig, (loss_ax, diff_ax) = plt.subplots(2, 1, figsize=(8, 7), sharex=True,
                                           gridspec_kw={"height_ratios": [3, 2]})
    for k, r in enumerate(trainings):
        colour = f"C{k % 10}"
        steps = [s["step"] for s in r["steps"]]
        label = training_label(r).replace("\n", ", ").rstrip(", ")
        loss_ax.plot(steps, [s["loss"] for s in r["steps"]], "-", color=colour, label=label)
        loss_ax.plot(steps, [s["reference_loss"] for s in r["steps"]], "--", color=colour,
                     linewidth=0.9)
        diff_ax.plot(steps, [max(s["relative_difference"], FLOOR) for s in r["steps"]], "o-",
                     color=colour, markersize=3)
        diff_ax.axhline(r["tolerance"], color=colour, linestyle=":", linewidth=1)
    loss_ax.plot([], [], "--", color="0.4", label="the reference (dashed)")
    loss_ax.set_ylabel("mean cross-entropy")
    loss_ax.set_title("Loss: the tensor-parallel GPT beside the single-device reference",
                      fontsize=10)
    loss_ax.legend(fontsize=7)
    diff_ax.set_yscale("log")
    diff_ax.set_ylabel(f"|loss - reference| / reference\n(0 drawn at {FLOOR:g})", fontsize=8)
    diff_ax.set_xlabel("step")
    diff_ax.set_title("Relative difference per step; dotted: each run's tolerance", fontsize=9)
    for ax in (loss_ax, diff_ax):
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_figure(fig, out)
    plt.close(fig)


TRAINING_COLUMNS = ["run", "file", "shape", "steps", "loss first -> last", "max rel. diff",
                    "verdict", "kept MiB/rank", "as modelled"]


def training_rows(trainings):
    out = []
    for r in trainings:
        memory = r.get("memory", {})
        kept = memory.get("activations", {}).get("measured")
        s = r["shape"]
        out.append([training_label(r).replace("\n", ", ").rstrip(", "), r["_file"],
                    f"{shape_text(s)} V={s['vocab']} L={s['layers']}", str(len(r["steps"])),
                    f"{r['steps'][0]['loss']:.4f} -> {r['steps'][-1]['loss']:.4f}",
                    f"{r['max_relative_difference']:.1e}", "PASS" if r["pass"] else "FAIL",
                    f"{kept / 2**20:.3f}" if kept is not None else "",
                    {True: "yes", False: "NO: " + memory.get("first_difference", "")}.get(
                        memory.get("as_modelled"),
                        "no model" if memory else "not measured (cut short)")])
    return out


def training_section(trainings, out_dir):
    """The training runs' Markdown and the plots it links."""
    training_loss_plot(trainings, os.path.join(out_dir, "training_loss.png"))
    made = ["training_loss.png"]
    md = ["## Training", "",
          "`tplab train`: the GPT (embedding, L blocks, final LayerNorm, LM head, cross-entropy) "
          "on each scheme, every step beside the single-device reference trained on the same "
          "batches. A run passes when every step's loss is within its dtype's tolerance of the "
          "reference's, the replicas agree bit for bit and every rank holds the memory the cost "
          "model says.", "", "![loss curves](training_loss.png)", ""]
    if any(r.get("memory") for r in trainings):
        memory_plot(trainings, os.path.join(out_dir, "training_memory.png"), training_label,
                    "allocator peak over the run")
        made.append("training_memory.png")
        md += ["Memory per rank (the largest rank's of each kind), measured on the device after "
               "the last step: the parameter shards, their gradients, the optimizer's state "
               "(AdamW's two moments, bf16's f32 masters) and what a step kept for backward at "
               "the end of forward (L blocks under the run's `--recompute`, and the final "
               "LayerNorm's, the LM head's, the logits and the loss's), stacked; the cost model's "
               "total of the same kinds beside it; the allocator's peak over the run.", "",
               "![training memory per rank](training_memory.png)", ""]
    md += [markdown_table(TRAINING_COLUMNS, training_rows(trainings)), ""]
    return md, made


def markdown_table(header, rows):
    lines = ["| " + " | ".join(h or "note" for h in header) + " |",
             "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(cell for cell in row) + " |" for row in rows]
    return "\n".join(lines)


# ---- the report ------------------------------------------------------------------------------------

def save_figure(fig, path):
    """The figure as a PNG at `path`, written whole into a folder of the user's own."""
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=120)
    write_file(path, png.getvalue(), f"-o {os.path.dirname(path)}")


BENCH_EXPOSED = {"step": ("comm_exposed_ms",), "overlap off": ("overlap_comparison", "exposed_ms_off"),
                 "overlap on": ("overlap_comparison", "exposed_ms_on")}


def bench_exposed(run, series):
    """Bench's own exposed-communication figure of `series` in `run`, or None."""
    value = run
    for key in BENCH_EXPOSED.get(series, ()):
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, (int, float)) and series in BENCH_EXPOSED else None


def timeline_section(traces, runs, out_dir):
    """One timeline picture per trace, and the exposed communication read from it beside the
    figure bench measured in the same run (where the run is among the inputs)."""
    md = ["## Timelines", "",
          "Each `--trace` file drawn as the last timed step of each series, ranks by time: "
          "the host track (Device operations in blue, time blocked in collectives in orange) and "
          "under it the collectives in flight from start to completion, hatched green where the "
          "rank computed while one travelled (what overlap hid). Exposed communication from the "
          "trace: the slowest rank's time in its comm-blocked slices per timed step, median over "
          "the steps; bench's figure is its counters' for the same steps, measured in the same "
          "run. Open the file itself in Perfetto (ui.perfetto.dev) or chrome://tracing for every "
          "step, every operation's shapes and every collective's group, ranks and bytes.", ""]
    made, table = [], []
    by_trace = {os.path.realpath(trace_of(r)): r for r in runs if trace_of(r)}
    for path, document in traces:
        stem = os.path.splitext(os.path.basename(path))[0]
        name = f"timeline-{stem}.png"
        fig = timeline.draw(document, plt, f"{os.path.basename(path)}")
        if fig is not None:
            save_figure(fig, os.path.join(out_dir, name))
            plt.close(fig)
            made.append(name)
            md += [f"![timeline of {stem}]({name})", ""]
        run = by_trace.get(os.path.realpath(path))
        for series, figures in timeline.exposed_by_series(document).items():
            bench = bench_exposed(run, series) if run else None
            difference = "" if bench is None else (
                f"{(figures['exposed_ms'] - bench) / bench * 100:+.1f}%" if bench > 0 else
                f"{figures['exposed_ms'] - bench:+.3f} ms")
            table.append([os.path.basename(path), series, str(figures["steps"]),
                          f"{figures['step_ms']:.2f}", f"{figures['exposed_ms']:.3f}",
                          "" if bench is None else f"{bench:.3f}", difference])
    md += [markdown_table(["trace", "series", "timed steps", "step ms (trace)",
                           "exposed ms (trace)", "exposed ms (bench)", "trace - bench"], table),
           ""]
    return md, made


def write_report(records, rows, out_dir, inputs, traces=(), trainings=()):
    cores = cores_of(records + rows)
    blocks = block_runs(records)
    runs, pairs = tensor_parallel_runs(blocks), with_baselines(blocks)
    pipelined = pipelined_runs(records)
    measured = records or rows or traces
    md = [f"# tplab {'scaling' if measured else 'training'} report", "",
          f"Made by `tplab report` from {', '.join('`' + os.path.basename(p) + '`' for p in inputs)}."]
    if measured:
        md[-1] += (
            f" Runs with more ranks than this machine's {cores} cores are marked "
            f"**{OVERSUBSCRIBED}**: their ranks take turns on the cores, so their times say more "
            "about the machine than about the scheme (hollow markers, hatched bars, shaded bands "
            "in the plots). Runs whose ranks got less than 0.9 of a core without that are marked "
            f"**{CONTENDED}** (x in the plots): another process was running; rerun them on a "
            "quiet machine. Runs whose ranks ran on several hosts (`--hosts`) are marked "
            "**N hosts**.")
    md.append("")
    made = []
    if runs:
        efficiency_plot(runs, os.path.join(out_dir, "efficiency.png"), cores)
        throughput_plot(runs, os.path.join(out_dir, "throughput.png"), cores)
        comm_share_plot(runs, os.path.join(out_dir, "comm_share.png"))
        bytes_plot(runs, os.path.join(out_dir, "bytes.png"))
        made += ["efficiency.png", "throughput.png", "comm_share.png", "bytes.png"]
        with_memory = any(r.get("memory") for r in runs)
        if with_memory:
            memory_plot(sorted(runs, key=lambda r: (r.get("mode", ""), scheme_key(r["scheme"]),
                                                    r["np"])),
                        os.path.join(out_dir, "memory.png"))
            made.append("memory.png")
        has_model = any(r.get("model_bytes_per_rank") is not None for r in runs)
        md += ["## Scaling", "",
               "Step: the block's forward + backward, median of the repeats after warm-up, the "
               "slowest rank's. Efficiency against the same scheme's run with the fewest ranks: "
               "strong scaling T(1)/(p T(p)) on a fixed global shape, weak scaling T(1)/T(p) with "
               "the batch multiplied by p, so that every rank does the same work.", "",
               "![efficiency](efficiency.png)", "", "![throughput](throughput.png)", "",
               "Communication share: the slowest rank's time inside collectives over the step "
               "time. On one machine the collectives are memory copies between processes; a "
               "network is slower still. In oversubscribed runs it also holds the time a rank "
               "waits in a collective for a peer that is off its core.", "",
               "![communication share](comm_share.png)", "",
               "Bytes: what each rank's collectives moved per step (the counters' logical N in "
               "bytes). " + ("The cost model's prediction is plotted against it." if has_model else
                             "The inputs carry no cost-model values (`model_bytes_per_rank` is "
                             "null), so the measured bytes stand alone."), "",
               "![bytes per rank](bytes.png)", ""]
        if with_memory:
            md += ["Memory: what each rank holds, by kind, measured on the device in one more "
                   "step after the timed ones (the tensors' own bytes: parameters, their "
                   "gradients, what forward keeps for backward; no optimizer runs in a bench "
                   "step), the cost model's total of the same kinds beside it, and the "
                   "allocator's high-water mark in that step, which adds what the step "
                   "allocates for a while. `--recompute` changes the kept part.", "",
                   "![memory per rank](memory.png)", ""]
        md += [markdown_table(SUMMARY_COLUMNS, summary_rows(runs)), ""]
    if pairs:
        data_parallel_plot(pairs, os.path.join(out_dir, "data_parallel.png"), cores)
        made.append("data_parallel.png")
        md += ["## Data parallelism around tensor parallelism", "",
               "`bench scaling --dp D` runs each scheme as D data-parallel replicas: p ranks, p/D "
               "in each replica, each replica on b/D of the global batch's sequences, and after "
               "backward one all-reduce of every gradient shard over the replicas (`--dp-buckets`: "
               "`flat`, every shard in one buffer and one call; `per-tensor`, one call per "
               "parameter). Its baseline is the scheme alone on one replica's work, p/D ranks and "
               "batch b/D, measured in the same sweep (the scaling section leaves it out). DP "
               "efficiency = baseline step / step: 1 when D replicas do D times the work in the "
               "baseline's time. The communication share and the bytes are split into the "
               "scheme's own collectives (TP) and the gradient all-reduce (DP), each the slowest "
               "rank's time over the step time and each rank's logical bytes per step. With "
               "`--overlap on` a started collective counts until it completes, the computation "
               "it overlapped included, so the parts of a bar can reach above its step's mark.",
               ""]
        if any(r.get("oversubscribed") for r, _ in pairs):
            md += [f"D replicas of p/D ranks need p cores: on this machine's {cores} cores, the "
                   f"runs marked **{OVERSUBSCRIBED}** (hatched bars) measure how their ranks share "
                   "the cores more than the scheme or the all-reduce. Sharing alone caps DP "
                   f"efficiency at min(p, c) / (D min(p/D, c)) with c = {cores}, printed as the "
                   "bound under those runs' efficiency in the plot.", ""]
        md += ["![data parallelism](data_parallel.png)", "",
               markdown_table(DATA_PARALLEL_COLUMNS, data_parallel_rows(pairs)), ""]
    if pipelined:
        pipeline_bubble_plot(pipelined, os.path.join(out_dir, "pipeline_bubble.png"))
        made.append("pipeline_bubble.png")
        md += ["## Pipeline parallelism", "",
               "`bench step --pp S` and `bench scaling --pp S` time the whole GPT (embedding, L "
               "blocks, final LayerNorm, LM head, cross-entropy; V its vocabulary) cut by depth "
               "into S stages of L/S blocks, each stage on p/(D S) ranks of the scheme: the step "
               "is every one of the M micro-batches' forward and backward through every stage in "
               "the schedule's order (`gpipe`: every forward, then every backward; `1f1b`: after "
               "a warm-up, one forward and one backward in turn), and the gradients' all-reduce "
               "over the D replicas. A stage's idle share is the share of the step its ranks "
               "spent not computing (the bubble, and waiting for its neighbours' transfers), the "
               "mean of its ranks, median of the repeats; the formula (S - 1)/(M + S - 1) is the "
               "bubble's share for both schedules, the share every stage of an ideal pipeline "
               "idles. PP efficiency = T(the GPT on one stage of p/S ranks) / (S x T(S stages on "
               "p ranks)), its baseline measured in the same sweep with the same M: 1 - the "
               "formula when the stages cost nothing but the bubble. Kept: the most bytes a "
               "stage's ranks held for backward at once, beside the cost model's (the "
               "micro-batches in flight, M under GPipe and min(S - s, M) on stage s under 1F1B, "
               "x one micro-batch's). These runs count another model's FLOPs than the block's: "
               "the sections on the block leave them out.", "",
               "![pipeline bubble](pipeline_bubble.png)", "",
               markdown_table(PIPELINE_COLUMNS, pipeline_rows(pipelined, records)), ""]
    if rows:
        busbw_plot(rows, os.path.join(out_dir, "busbw.png"))
        overhead_plot(rows, os.path.join(out_dir, "overhead.png"))
        made += ["busbw.png", "overhead.png"]
        md += ["## Collectives", "",
               "`tplab bench comm`: each collective at each message size through tplab's MpiComm, "
               "and the same MPI call on the same buffers in the same run. algbw = bytes / time "
               "(1 GB = 1e9 bytes); busbw = algbw x bus factor, comparable across collectives "
               "and rank counts. #wrong counts elements that differ from the exact sums of "
               "integer inputs.", "", "![bus bandwidth](busbw.png)", "",
               "![overhead](overhead.png)", "",
               markdown_table(COMM_COLUMNS, comm_summary(rows)), ""]
    if trainings:
        section, pictures = training_section(trainings, out_dir)
        md += section
        made += pictures
    if traces:
        section, pictures = timeline_section(traces, records, out_dir)
        md += section
        made += pictures
    if runs or rows:
        summary_figure(runs, pairs, rows, os.path.join(out_dir, "summary.png"), cores)
        made.append("summary.png")
        md += ["## Handout", "", "`summary.png` is the one-page table above as a picture.", "",
               "![summary](summary.png)", ""]
    write_file(os.path.join(out_dir, "report.md"), "\n".join(md).encode(), f"-o {out_dir}")
    return made


def main(argv):
    parser = argparse.ArgumentParser(
        prog="tplab report",
        description="Markdown report and plots from the JSON of `tplab bench scaling`, "
                    "`tplab bench comm` and `tplab train`, and timelines from `--trace` files.")
    parser.add_argument("results", nargs="+", metavar="RESULT.json")
    parser.add_argument("-o", "--out", required=True, metavar="DIR", help="where to write")
    args = parser.parse_args(argv)
    try:
        make_folder(args.out, f"-o {args.out}")  # before anything is read or drawn
        runs, rows, trainings, traces = load(args.results)
        made = write_report(runs, rows, args.out, args.results, traces, trainings)
    except (BadInput, UnsafeTarget) as e:
        print(f"tplab: error: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError) as e:
        print(f"tplab: error: a record lacks a field the report needs ({e}); give the JSON "
              "that `tplab bench scaling`, `tplab bench comm` or `tplab train` wrote",
              file=sys.stderr)
        return 2
    print(f"wrote {os.path.join(args.out, 'report.md')} and {len(made)} plots: {', '.join(made)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
