#!/usr/bin/env bash
# trace.sh TPLAB SOURCE_DIR WORK_DIR
# --trace as a user runs it: bench step, train and lesson check 13 each write a Chrome trace
# that passes the trace schema (every event's fields, slices nested on every track, every
# collective with its group's ranks and bytes and one flow to its wait); tplab report draws a
# timeline picture of it that is not blank, and the exposed communication it reads from the
# trace agrees with bench's own figure for the same steps (each series within 5% or 20 us);
# a sweep writes one trace per job; past the cap a rank drops events and says so; a trace file
# that cannot be written, or is the --json, is refused before anything runs (exit 2).
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
schema=$source_dir/bench/report/trace_schema.py
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }

"$tplab" bench step --np 2 --shape 2,16,64,4 --repeats 3 --trace "$work/step.json" \
  --json "$work/step-result.json" >"$work/step.log" 2>&1 || { cat "$work/step.log"; fail "bench step --trace exited $?"; }
python3 "$schema" "$work/step.json" || fail "bench step's trace"
python3 "$source_dir/bench/report/report.py" "$work/step-result.json" -o "$work/report" >"$work/report.log" 2>&1 ||
  { cat "$work/report.log"; fail "report of a traced run exited $?"; }
python3 - "$source_dir/bench/report" "$work" <<'CHECK' || fail "the timeline or its exposed communication"
import json, os, sys
sys.path.insert(0, sys.argv[1])
import timeline
work = sys.argv[2]
png = os.path.join(work, "report", "timeline-step.png")
assert os.path.getsize(png) > 20_000, f"{png}: {os.path.getsize(png)} bytes, too small to hold a timeline"
from matplotlib.image import imread
pixels = imread(png)
assert pixels[..., :3].std() > 0.05, "the timeline picture is blank"
run = json.load(open(os.path.join(work, "step-result.json")))["runs"][0]
assert run["trace"] == os.path.join(work, "step.json"), run["trace"]
series = timeline.exposed_by_series(json.load(open(run["trace"])))
bench = {"step": run["comm_exposed_ms"], "overlap off": run["overlap_comparison"]["exposed_ms_off"],
         "overlap on": run["overlap_comparison"]["exposed_ms_on"]}
assert set(series) == set(bench), series.keys()
for name, ms in bench.items():
    got = series[name]["exposed_ms"]
    assert series[name]["steps"] == 3, series[name]
    assert abs(got - ms) <= max(0.05 * ms, 0.02), f"{name}: trace {got:.4f} ms, bench {ms:.4f} ms"
    print(f"{name}: exposed {got:.4f} ms from the trace, {ms:.4f} ms from bench")
report = open(os.path.join(work, "report", "report.md")).read()
assert "## Timelines" in report and "timeline-step.png" in report, "report.md lacks its timeline"
CHECK

"$tplab" train --scheme 2d --np 4 --steps 2 --trace "$work/train.json" >"$work/train.log" 2>&1 ||
  { cat "$work/train.log"; fail "train --trace exited $?"; }
python3 "$schema" "$work/train.json" || fail "train's trace"

"$tplab" lesson check 13 --solution --np 2 --trace "$work/lesson.json" >"$work/lesson.log" 2>&1 ||
  { cat "$work/lesson.log"; fail "lesson check --trace exited $?"; }
grep -q "your trace: $work/lesson.json" "$work/lesson.log" || fail "lesson 13 does not print its trace"
python3 "$schema" "$work/lesson.json" || fail "lesson 13's trace"
grep -q '"series":"yours"' "$work/lesson.json" || fail "lesson 13's trace lacks the exercise's steps"

"$tplab" bench scaling --scheme 1d --np 1,2 --mode strong --shape 2,16,64,4 --repeats 1 \
  --trace "$work/sweep.json" >"$work/sweep.log" 2>&1 || { cat "$work/sweep.log"; fail "bench scaling --trace exited $?"; }
for np in 1 2; do
  python3 "$schema" "$work/sweep.1d-strong-scaling-b-2-s-16-h-64-heads-4-np$np.json" ||
    fail "the sweep's trace of np=$np"
done

TPLAB_TRACE_EVENTS=1000 "$tplab" bench step --np 2 --shape 2,16,64,4 --repeats 3 \
  --trace "$work/capped.json" >"$work/capped.log" 2>&1 || { cat "$work/capped.log"; fail "a capped trace exited $?"; }
# (an event pair, a collective's flow, is kept whole or dropped whole: up to 1000 are kept)
grep -q "rank 1 kept its first [0-9]* events and dropped [0-9]* more (at most 1000 a rank" "$work/capped.log" ||
  { cat "$work/capped.log"; fail "a rank past the cap does not say so"; }
python3 "$schema" "$work/capped.json" | grep -q "events dropped past the cap" || fail "the capped trace"

out=$("$tplab" bench step --np 2 --trace /nonexistent/folder/t.json 2>&1); code=$?
[ "$code" = 2 ] && grep -q -- "--trace /nonexistent/folder/t.json" <<<"$out" || { echo "$out"; fail "an unwritable --trace gave exit $code"; }
out=$("$tplab" train --np 2 --trace "$work/same.json" --json "$work/same.json" 2>&1); code=$?
[ "$code" = 2 ] && grep -q "is also the --json" <<<"$out" || { echo "$out"; fail "--trace equal to --json gave exit $code"; }
echo "traces: bench step, train, lesson check and a sweep pass the schema; the cap and bad paths are refused"
