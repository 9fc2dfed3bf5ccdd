#!/usr/bin/env bash
# lesson_pipeline.sh TPLAB SOURCE_DIR WORK_DIR
# Lesson 17 scores the 1F1B loop on what it teaches. Students, each the library's solution with
# a mistake planted in it, graded together with `lesson grade 17 --submissions` at 2 and 4 ranks:
#   right:      the solution itself: 4 of 4;
#   gpipe:      every forward before the first backward: the bits and the transfers pass, the
#               memory ("kept") alone fails, its note naming GPipe;
#   reversed:   1F1B's order, the cool-down's backwards from the newest: the losses pass, the
#               gradients differ in their bits, and transfers and kept are not started (they
#               count only with the bits);
#   stray_send: one more gradient sent after the step, which no stage receives: the transfers
#               alone fail;
#   deadlock:   a warm-up of min(s, M) forwards instead of min(S - s - 1, M): the stages wait for
#               each other, and the check ends the job, naming the receive each rank waits in.
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
solution=$source_dir/lessons/17-pipeline/solution.cpp
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }

# plant STUDENT OLD NEW [OLD NEW ...]: the solution with each OLD replaced by NEW (each must
# occur exactly once), as STUDENT's exercise.
plant() {
  local student=$1
  shift
  python3 "$(dirname "$0")/plant_mistakes.py" "$solution" \
    "$work/class/$student/17-pipeline/exercise.cpp" "$@" || fail "could not plant the mistake of $student"
}
warmup='const int warmup = std::min(stages - s - 1, micro_batches);'
plant right
plant gpipe "$warmup" 'const int warmup = micro_batches; (void)s; (void)stages;'
plant reversed \
  'while (backwards < micro_batches) backward_step(stage, backwards++);' \
  'for (int b = micro_batches - 1; b >= backwards; --b) backward_step(stage, b);'
plant stray_send \
  'namespace {' $'namespace {\nTensor last_dx;' \
  $'  if (!stage.first()) stage.send_gradient(dx);\n}' \
  $'  if (!stage.first()) stage.send_gradient(dx);\n  last_dx = dx;\n}' \
  'while (backwards < micro_batches) backward_step(stage, backwards++);' \
  $'while (backwards < micro_batches) backward_step(stage, backwards++);\n  if (!stage.first()) stage.send_gradient(last_dx);'
plant deadlock "$warmup" 'const int warmup = std::min(s, micro_batches); (void)stages;'

"$tplab" lesson grade 17 --submissions "$work/class" --out "$work/grades" >"$work/log" 2>&1 ||
  { tail -n 40 "$work/log"; fail "lesson grade exited $?"; }
cat "$work/grades/gradebook.csv"
python3 - "$work/grades" <<'CHECK'
import json, sys

def tests(student):
    results = json.load(open(f"{sys.argv[1]}/{student}/results.json"))["tests"]
    return {t["name"].split(":")[0].removeprefix("lesson 17, "): t for t in results}

def scores(student):
    return {name: t["score"] for name, t in tests(student).items()}

names = ["loss", "gradients", "transfers", "kept"]
assert list(scores("right")) == names, scores("right")
assert scores("right") == dict.fromkeys(names, 1), scores("right")
assert scores("gpipe") == {"loss": 1, "gradients": 1, "transfers": 1, "kept": 0}, scores("gpipe")
kept = tests("gpipe")["kept"]["output"]
assert "as GPipe runs them" in kept and "1F1B keeps min(S - s, M)" in kept, kept
assert scores("reversed") == {"loss": 1, "gradients": 0, "transfers": 0, "kept": 0}, scores("reversed")
assert "not started" in tests("reversed")["transfers"]["output"], tests("reversed")["transfers"]
assert scores("stray_send") == {"loss": 1, "gradients": 1, "transfers": 0, "kept": 1}, scores("stray_send")
assert "1F1B [" in tests("stray_send")["transfers"]["output"], tests("stray_send")["transfers"]
assert scores("deadlock") == dict.fromkeys(names, 0), scores("deadlock")
stalled = tests("deadlock")["loss"]["output"]
assert "made no progress" in stalled and "waits in receive_" in stalled, stalled
print("lesson 17 graded: right 4/4, gpipe 3/4 (kept), reversed 1/4 (loss), stray_send 3/4 "
      "(transfers), deadlock 0/4 with the receive each rank waits in")
CHECK
