#!/usr/bin/env bash
# lesson_overlap.sh TPLAB SOURCE_DIR WORK_DIR
# Lesson 13 is graded on what it teaches: an exercise whose gradients are right but whose dX
# all-reduce blocks (tp.all_reduce), or is started and waited for at once, loses the "overlap"
# test at 2 and 4 ranks and keeps every gradient's; the library's solution keeps all six.
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
solution=$source_dir/lessons/13-overlap/solution.cpp
rm -rf "$work" && mkdir -p "$work/class"/{overlapped,blocking,waits_at_once}/13-overlap
cp "$solution" "$work/class/overlapped/13-overlap/exercise.cpp"
sed 's|CommRequest dx_sum = tp.start_all_reduce(g.dx);|tp.all_reduce(g.dx);|; /dx_sum.wait();/d' \
  "$solution" >"$work/class/blocking/13-overlap/exercise.cpp"
sed 's|CommRequest dx_sum = tp.start_all_reduce(g.dx);.*|CommRequest dx_sum = tp.start_all_reduce(g.dx); dx_sum.wait();|; /^  dx_sum.wait();/d' \
  "$solution" >"$work/class/waits_at_once/13-overlap/exercise.cpp"
for variant in blocking waits_at_once; do
  cmp -s "$solution" "$work/class/$variant/13-overlap/exercise.cpp" &&
    { echo "FAILED: the $variant variant is the solution itself (solution.cpp changed?)"; exit 1; }
done
"$tplab" lesson grade 13 --submissions "$work/class" --out "$work/grades" >"$work/log" 2>&1 ||
  { tail -n 40 "$work/log"; echo "FAILED: lesson grade exited $?"; exit 1; }
cat "$work/grades/gradebook.csv"
python3 - "$work/grades" <<'CHECK'
import json, sys
def tests(student):
    return {t["name"].split(":")[0]: t for t in json.load(open(f"{sys.argv[1]}/{student}/results.json"))["tests"]}
full = tests("overlapped")
assert len(full) == 6 and all(t["score"] == 1 for t in full.values()), full
for student in ("blocking", "waits_at_once"):
    got = tests(student)
    assert got.keys() == full.keys(), (student, got.keys())
    overlap = got["lesson 13, overlap"]
    assert overlap["score"] == 0, (student, overlap)
    assert "no matrix product of yours ran while an all-reduce you started was in flight" in overlap["output"], overlap
    assert all(t["score"] == 1 for name, t in got.items() if name != "lesson 13, overlap"), (student, got)
print("overlap graded: the solution 6/6, blocking and waiting at once 5/6 each")
CHECK
