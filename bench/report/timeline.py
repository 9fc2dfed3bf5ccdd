"""Reads a trace that `--trace FILE` wrote: the exposed communication of its steps, and a picture
of one step per series, ranks by time, for `tplab report`.

A step is a host slice of category "step" (bench step and bench scaling mark theirs with a
series, "step", "overlap off" or "overlap on"; train "train"; lesson 13 "yours", "library"
and "library, blocking") whose args say it is timed. A rank's exposed communication in a step is
the time its host slices of category "comm-blocked" take inside it: the whole of a blocking
collective, starting and waiting for a started one, as tplab's counters count it. Like bench,
the figure of a step is the slowest rank's, and of a series the median over its timed steps.
"""
import bisect
from collections import defaultdict
from statistics import median

HOST = 1
COLLECTIVE_LANE0 = 10
COMPUTE_COLOUR = "#4477aa"
COMM_COLOUR = "#ee7733"
IN_FLIGHT_COLOUR = "#f6c49b"
OVERLAP_COLOUR = "#228833"


def slices_of(document):
    return [e for e in document["traceEvents"] if e["ph"] == "X"]


def timed_steps(slices):
    """{series: {index: [step slice of each rank]}} for the timed steps."""
    steps = defaultdict(lambda: defaultdict(list))
    for e in slices:
        args = e.get("args", {})
        if e["cat"] == "step" and e["tid"] == HOST and args.get("timed"):
            steps[args.get("series", "step")][args.get("index", 0)].append(e)
    return steps


def host_slices(slices, category):
    """{rank: [(begin, end)]} of the host slices of `category`, sorted."""
    out = defaultdict(list)
    for e in slices:
        if e["tid"] == HOST and e["cat"] == category:
            out[e["pid"]].append((e["ts"], e["ts"] + e["dur"]))
    for spans in out.values():
        spans.sort()
    return out


def time_inside(spans, ends, begin, end):
    """Microseconds of sorted, disjoint `spans` (their ends in `ends`) inside [begin, end]."""
    total = 0.0
    for b, e in spans[bisect.bisect_right(ends, begin):]:
        if b >= end:
            break
        total += min(e, end) - max(b, begin)
    return total


def exposed_by_series(document):
    """{series: {"exposed_ms", "step_ms", "steps"}}: medians over the timed steps of the slowest
    rank's exposed communication and step time."""
    slices = slices_of(document)
    blocked = host_slices(slices, "comm-blocked")
    ends = {pid: [e for _, e in spans] for pid, spans in blocked.items()}
    out = {}
    for series, by_index in timed_steps(slices).items():
        exposed, steps = [], []
        for ranks in by_index.values():
            exposed.append(max(time_inside(blocked[s["pid"]], ends.get(s["pid"], []), s["ts"],
                                           s["ts"] + s["dur"]) for s in ranks))
            steps.append(max(s["dur"] for s in ranks))
        out[series] = {"exposed_ms": median(exposed) / 1e3, "step_ms": median(steps) / 1e3,
                       "steps": len(by_index)}
    return out


def merged(spans):
    """Sorted spans with the overlapping ones joined."""
    out = []
    for b, e in sorted(spans):
        if out and b <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((b, e))
    return out


def intersection(a, b):
    """The spans where two sorted, disjoint span lists both hold."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


# Computation on the host track: an operation the host ran (CPU) or issued (GPU).
COMPUTE = ("op", "launch")


def overlapped_spans(rank_slices, begin, end):
    """Where a rank computed (an operation on its host track) while a collective it had started
    was in flight: what overlap hid, within [begin, end]. `rank_slices`: that rank's slices."""
    def clipped(spans):
        return [(max(b, begin), min(e, end)) for b, e in spans if b < end and e > begin]
    compute = merged(clipped([(e["ts"], e["ts"] + e["dur"]) for e in rank_slices
                              if e["tid"] == HOST and e["cat"] in COMPUTE]))
    in_flight = merged(clipped([(e["ts"], e["ts"] + e["dur"]) for e in rank_slices
                                if e["cat"] == "collective"]))
    return intersection(compute, in_flight)


def series_order(names):
    known = ["step", "overlap off", "overlap on", "train", "yours", "library", "library, blocking"]
    return sorted(names, key=lambda n: (known.index(n) if n in known else len(known), n))


def draw(document, plt, title):
    """A figure: for each series, its last timed step on every rank (host track: operations and
    time blocked in collectives; below it the collectives in flight, the overlapped stretch
    marked). Returns the figure, or None when the trace has no timed step."""
    slices = slices_of(document)
    steps = timed_steps(slices)
    if not steps:
        return None
    names = series_order(steps)
    by_rank = defaultdict(list)
    for e in slices:
        by_rank[e["pid"]].append(e)
    ranks = sorted(by_rank)
    fig, axes = plt.subplots(len(names), 1, figsize=(11, 0.5 + (0.9 * len(ranks) + 0.8) * len(names)),
                             squeeze=False)
    for ax, series in zip(axes[:, 0], names):
        last = steps[series][max(steps[series])]
        begin = min(s["ts"] for s in last)
        end = max(s["ts"] + s["dur"] for s in last)
        hidden_total = 0.0
        for row, pid in enumerate(ranks):
            y = -row * 1.0
            window = [e for e in by_rank[pid] if e["ts"] < end and e["ts"] + e["dur"] > begin]

            def bars(categories, tid_test):
                return [((max(e["ts"], begin) - begin) / 1e3,
                         (min(e["ts"] + e["dur"], end) - max(e["ts"], begin)) / 1e3)
                        for e in window if e["cat"] in categories and tid_test(e["tid"])]
            ax.broken_barh(bars(COMPUTE, lambda t: t == HOST), (y + 0.45, 0.4),
                           facecolors=COMPUTE_COLOUR)
            ax.broken_barh(bars(("comm-blocked",), lambda t: t == HOST), (y + 0.45, 0.4),
                           facecolors=COMM_COLOUR)
            ax.broken_barh(bars(("collective",), lambda t: t >= COLLECTIVE_LANE0),
                           (y + 0.05, 0.3), facecolors=IN_FLIGHT_COLOUR, edgecolors=COMM_COLOUR,
                           linewidth=0.3)
            hidden = overlapped_spans(window, begin, end)
            hidden_total = max(hidden_total, sum(e - b for b, e in hidden))
            ax.broken_barh([((b - begin) / 1e3, (e - b) / 1e3) for b, e in hidden],
                           (y + 0.05, 0.3), facecolors="none", edgecolors=OVERLAP_COLOUR,
                           hatch="////", linewidth=0.8)
        ax.set_yticks([-r * 1.0 + 0.45 for r in range(len(ranks))])
        ax.set_yticklabels([f"rank {p - 1}" for p in ranks])  # pid is rank + 1
        ax.set_xlim(0, (end - begin) / 1e3)
        ax.set_xlabel("ms from the step's start")
        ax.set_title(f"{series}: step {max(steps[series])} (the last of {len(steps[series])} timed), "
                     f"{(end - begin) / 1e3:.2f} ms; computation hid {hidden_total / 1e3:.2f} ms "
                     "of communication on the rank that hid most", fontsize=9)
    from matplotlib.patches import Patch
    handles = [Patch(color=COMPUTE_COLOUR, label="Device operation (host track)"),
               Patch(color=COMM_COLOUR, label="blocked in a collective (exposed)"),
               Patch(facecolor=IN_FLIGHT_COLOUR, edgecolor=COMM_COLOUR,
                     label="collective in flight (start to completion)"),
               Patch(facecolor="none", edgecolor=OVERLAP_COLOUR, hatch="////",
                     label="overlapped: computing while it travels")]
    top = 1 - 0.55 / fig.get_figheight()  # room for the title and the legend, in inches
    fig.suptitle(title, y=0.995, fontsize=10)
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.25 / fig.get_figheight()),
               ncol=4, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, top))
    return fig
