"""Checks a trace that `--trace FILE` wrote against the Chrome trace-event format and tplab's
own promises about it; `tplab report` refuses a trace that fails, and the tests run it.

usage: python3 bench/report/trace_schema.py TRACE.json...

What is checked, per file:
  - the document: {"traceEvents": [...], "otherData": {"producer": "tplab", ...}};
  - every event: a known phase (X complete slice, M metadata, s/f flow), the fields that phase
    needs, finite times in microseconds, durations >= 0;
  - every process (rank) and every thread (track) it uses is named by metadata;
  - slices nest on every track: each either holds or is disjoint from every other;
  - every Device operation slice (cat "op" or "launch") says its operands and dtype;
  - every collective slice (cat "collective") says its kind, group, the group's world ranks
    (its own rank, pid - 1, among them, as many as group_size), bytes and elements;
  - flows: one per collective, each id with one start "s" inside that collective's slice and
    one finish "f" (binding "e") at the begin of a host slice of category comm-blocked.
Exit 0 when every file passes, 1 when one does not (each problem printed), 2 when a file
cannot be read.
"""
import bisect
import json
import math
import sys
from collections import defaultdict

PHASES = {"X", "M", "s", "f"}
HOST = 1
COLLECTIVE_LANE0 = 10
# Times are microseconds with fractions; a child may end where its parent ends.
SLACK_US = 1e-3
SLICE_FIELDS = ("name", "cat", "pid", "tid", "ts", "dur", "args")
FLOW_FIELDS = ("name", "cat", "pid", "tid", "ts", "id")
COLLECTIVE_ARGS = ("collective", "group", "group_size", "ranks", "bytes", "elements", "dtype")


def finite_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def field_problems(i, e):
    """What event i lacks for its phase."""
    if not isinstance(e, dict):
        return [f"event {i}: not an object"]
    ph = e.get("ph")
    if ph not in PHASES:
        return [f"event {i}: phase {ph!r} is none of {sorted(PHASES)}"]
    if ph == "M":
        missing = [k for k in ("name", "pid", "args") if k not in e]
        return [f"event {i} (metadata): lacks {', '.join(missing)}"] if missing else []
    fields = SLICE_FIELDS if ph == "X" else FLOW_FIELDS
    missing = [k for k in fields if k not in e]
    if missing:
        return [f"event {i} ({ph} {e.get('name')!r}): lacks {', '.join(missing)}"]
    out = []
    if not finite_number(e["ts"]):
        out.append(f"event {i} ({e['name']}): ts {e['ts']!r} is not a finite number")
    if ph == "X" and not (finite_number(e["dur"]) and e["dur"] >= 0):
        out.append(f"event {i} ({e['name']}): dur {e['dur']!r} is not a number >= 0")
    if ph == "f" and e.get("bp") != "e":
        out.append(f"event {i} (flow finish {e['id']}): binds {e.get('bp')!r}, not 'e'")
    return out


def naming_problems(events):
    """Processes and threads used without a name."""
    named_pids = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    named_tids = {(e["pid"], e.get("tid")) for e in events
                  if e["ph"] == "M" and e["name"] == "thread_name"}
    out = []
    for pid in sorted({e["pid"] for e in events if e["ph"] != "M"} - named_pids):
        out.append(f"process {pid}: no process_name")
    for pid, tid in sorted({(e["pid"], e["tid"]) for e in events if e["ph"] != "M"} - named_tids):
        out.append(f"process {pid} thread {tid}: no thread_name")
    return out


def nesting_problems(slices):
    """Slices of one track that overlap without one holding the other."""
    out = []
    by_track = defaultdict(list)
    for e in slices:
        by_track[(e["pid"], e["tid"])].append(e)
    for (pid, tid), track in sorted(by_track.items()):
        track.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_ends = []  # the slices that hold the current one, outermost first
        for e in track:
            begin, end = e["ts"], e["ts"] + e["dur"]
            while open_ends and open_ends[-1][0] <= begin + SLACK_US:
                open_ends.pop()
            if open_ends and end > open_ends[-1][0] + SLACK_US:
                out.append(f"process {pid} thread {tid}: {e['name']!r} at {begin:.3f} us ends "
                           f"at {end:.3f}, past {open_ends[-1][1]!r} that holds its start "
                           f"(ends {open_ends[-1][0]:.3f})")
                if len(out) > 20:
                    return out
            open_ends.append((end, e["name"]))
    return out


def argument_problems(slices):
    """Operation and collective slices that do not say what they did."""
    out = []
    for e in slices:
        args = e["args"] if isinstance(e["args"], dict) else {}
        if e["cat"] in ("op", "launch"):
            if not isinstance(args.get("operands"), list) or "dtype" not in args:
                out.append(f"process {e['pid']}: operation {e['name']!r} lacks operands or dtype")
        if e["cat"] == "collective":
            missing = [k for k in COLLECTIVE_ARGS if k not in args]
            if missing:
                out.append(f"process {e['pid']}: collective {e['name']!r} lacks "
                           f"{', '.join(missing)}")
                continue
            ranks = args["ranks"]
            if (not isinstance(ranks, list) or len(ranks) != args["group_size"]
                    or e["pid"] - 1 not in ranks):
                out.append(f"process {e['pid']}: collective {e['name']!r} of group "
                           f"{args['group']!r} lists ranks {ranks} for a group of "
                           f"{args['group_size']} holding rank {e['pid'] - 1}")
            if not (isinstance(args["bytes"], int) and args["bytes"] >= 0):
                out.append(f"process {e['pid']}: collective {e['name']!r}: bytes "
                           f"{args['bytes']!r}")
    return out[:20]


class Index:
    """The slices of one category per track, sorted, to find the one that holds a time."""

    def __init__(self, slices, category):
        self.begins, self.ends = defaultdict(list), defaultdict(list)
        for e in sorted((e for e in slices if e["cat"] == category), key=lambda e: e["ts"]):
            self.begins[(e["pid"], e["tid"])].append(e["ts"])
            self.ends[(e["pid"], e["tid"])].append(e["ts"] + e["dur"])

    def holds(self, pid, tid, ts):
        """Whether a slice of the track holds ts."""
        begins = self.begins.get((pid, tid), [])
        i = bisect.bisect_right(begins, ts + SLACK_US) - 1
        return i >= 0 and self.ends[(pid, tid)][i] >= ts - SLACK_US

    def begins_at(self, pid, tid, ts):
        """Whether a slice of the track begins at ts."""
        begins = self.begins.get((pid, tid), [])
        i = bisect.bisect_left(begins, ts - SLACK_US)
        return i < len(begins) and begins[i] <= ts + SLACK_US


def flow_problems(events, slices):
    """Every collective has one flow, from its slice to the host slice that waited for it."""
    out = []
    starts, finishes = defaultdict(list), defaultdict(list)
    for e in events:
        if e["ph"] == "s":
            starts[e["id"]].append(e)
        elif e["ph"] == "f":
            finishes[e["id"]].append(e)
    collective, blocked = Index(slices, "collective"), Index(slices, "comm-blocked")
    collectives = defaultdict(int)
    for e in slices:
        if e["cat"] == "collective":
            collectives[e["pid"]] += 1
    flows = defaultdict(int)
    for fid in sorted(set(starts) | set(finishes), key=str):
        if len(out) > 20:
            return out
        s, f = starts.get(fid, []), finishes.get(fid, [])
        if len(s) != 1 or len(f) != 1:
            out.append(f"flow {fid}: {len(s)} starts and {len(f)} finishes (one of each)")
            continue
        s, f = s[0], f[0]
        flows[s["pid"]] += 1
        if not collective.holds(s["pid"], s["tid"], s["ts"]):
            out.append(f"flow {fid} ({s['name']}): its start at {s['ts']:.3f} us on process "
                       f"{s['pid']} thread {s['tid']} is in no collective's slice")
        if f["tid"] != HOST or not blocked.begins_at(f["pid"], HOST, f["ts"]):
            out.append(f"flow {fid} ({f['name']}): its finish at {f['ts']:.3f} us on process "
                       f"{f['pid']} thread {f['tid']} begins no host slice of comm-blocked")
    for pid in sorted(set(collectives) | set(flows)):
        if collectives[pid] != flows[pid]:
            out.append(f"process {pid}: {collectives[pid]} collectives but {flows[pid]} flows "
                       "(one per collective)")
    return out


def problems(document):
    """Everything wrong with one trace document, as sentences; empty when it passes."""
    if not isinstance(document, dict) or not isinstance(document.get("traceEvents"), list):
        return ["not a Chrome trace: no traceEvents list"]
    other = document.get("otherData")
    if not isinstance(other, dict) or other.get("producer") != "tplab":
        return ["otherData.producer is not tplab: not a trace of tplab's --trace"]
    events = document["traceEvents"]
    out = []
    for i, e in enumerate(events):
        out += field_problems(i, e)
        if len(out) > 20:
            return out
    if out:
        return out
    slices = [e for e in events if e["ph"] == "X"]
    if not slices:
        return ["no slices: the trace recorded nothing"]
    return (naming_problems(events) + nesting_problems(slices) + argument_problems(slices)
            + flow_problems(events, slices))


def read(path):
    with open(path) as f:
        return json.load(f)


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    failed = False
    for path in argv:
        try:
            document = read(path)
        except OSError as e:
            print(f"{path}: cannot read it ({e.strerror})", file=sys.stderr)
            return 2
        except json.JSONDecodeError as e:
            print(f"{path}: not JSON ({e})", file=sys.stderr)
            return 2
        found = problems(document)
        if found:
            failed = True
            print(f"{path}: FAILS the trace schema:")
            for p in found:
                print(f"  {p}")
        else:
            events = document["traceEvents"]
            ranks = len({e["pid"] for e in events})
            dropped = sum(document["otherData"].get("dropped_per_rank", []))
            print(f"{path}: passes the trace schema ({len(events)} events, {ranks} "
                  f"rank{'' if ranks == 1 else 's'}"
                  + (f"; {dropped} events dropped past the cap" if dropped else "") + ")")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
