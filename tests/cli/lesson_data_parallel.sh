#!/usr/bin/env bash
# lesson_data_parallel.sh TPLAB SOURCE_DIR WORK_DIR
# Lesson 14 names the classic mistakes of data parallelism around tensor parallelism. Three
# students, each the library's solution with mistakes planted in it, graded together with
# `lesson grade 14 --submissions`, at 4 ranks (2 x 2) and 8 ranks (4 x 2):
#   colours: groups split with the colours swapped (the TP group strided, rank % t) and a
#            gradient sum over the TP group instead of the DP group; its bucket is right;
#   unscaled: the per-gradient sum never divided by D, and a bucket never reduced at all;
#   divisors: the sum divided by the world size p, and a bucket divided by t (right by
#            accident at 2 x 2, where t = D; wrong at 4 x 2).
# Every planted mistake must lose its tests, each with the check's note naming the mistake and
# the ranks, and every test the student got right must keep its point.
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
solution=$source_dir/lessons/14-data-parallel/solution.cpp
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }

# plant STUDENT OLD NEW [OLD NEW ...]: the solution with each OLD replaced by NEW (each must
# occur exactly once), as STUDENT's exercise.
plant() {
  local student=$1
  shift
  python3 "$(dirname "$0")/plant_mistakes.py" "$solution" \
    "$work/class/$student/14-data-parallel/exercise.cpp" "$@" || fail "could not plant the mistakes of $student"
}
plant colours \
  'mesh.tp = world.split(mesh.dp_index, mesh.tp_rank, "tp");' \
  'mesh.tp = world.split(mesh.tp_rank, mesh.dp_index, "tp");' \
  'mesh.dp = world.split(mesh.tp_rank, mesh.dp_index, "dp");' \
  'mesh.dp = world.split(mesh.dp_index, mesh.tp_rank, "dp");' \
  'mesh.dp->all_reduce(grad);' 'mesh.tp->all_reduce(grad);'
plant unscaled \
  'device.scale(grad, 1.0 / replicas);' '(void)device;' \
  'const double replicas = mesh.dp->size();' '' \
  'mesh.dp->all_reduce(bucket);  // one call for every shard: one latency, not one per gradient' '' \
  'device.scale(bucket, 1.0 / mesh.dp->size());' '(void)mesh;'
plant divisors \
  'device.scale(grad, 1.0 / replicas);' 'device.scale(grad, 1.0 / (replicas * mesh.tp->size()));' \
  'device.scale(bucket, 1.0 / mesh.dp->size());' 'device.scale(bucket, 1.0 / mesh.tp->size());'

"$tplab" lesson grade 14 --submissions "$work/class" --out "$work/grades" >"$work/log" 2>&1 ||
  { tail -n 40 "$work/log"; fail "lesson grade exited $?"; }
cat "$work/grades/gradebook.csv"
python3 - "$work/grades" <<'CHECK'
import json, sys

def tests(student):
    results = json.load(open(f"{sys.argv[1]}/{student}/results.json"))["tests"]
    found = {}
    for t in results:
        tensor, title = t["name"].removeprefix("lesson 14, ").split(": ", 1)
        part = ("groups" if title.startswith("the mesh")
                else "bucket" if "bucket" in title else "average")
        found[(part, tensor)] = t
    return found

def lines(test):
    return dict(line.split(": ", 1) for line in test["output"].splitlines()
                if line.startswith("np="))

failures = []
def expect(student, part, tensor, at, *words):
    """The test (part, tensor) of student lost its point, and its line at np=`at` holds every
    one of `words`; at a world size not named, it passed or failed, as the mistake makes it."""
    test = tests(student)[(part, tensor)]
    output = lines(test).get(f"np={at}", "")
    if test["score"] != 0:
        failures.append(f"{student}: {part} {tensor} kept its point: {test['output']}")
    for w in words:
        if w not in output:
            failures.append(f"{student}: {part} {tensor} at np={at} does not say '{w}': {output}")

def keeps(student, part):
    for (p, tensor), t in tests(student).items():
        if p == part and t["score"] != 1:
            failures.append(f"{student}: {part} {tensor} lost its point: {t['output']}")

gradients = ("d_w1", "d_b1", "d_w2", "d_b2")
dp_groups = {4: "rank 1's: ranks 1, 3)", 8: "rank 1's: ranks 1, 3, 5, 7)"}
for at, d in ((4, 2), (8, 4)):
    expect("colours", "groups", "tp group", at, "your TP groups are the DP groups",
           "colour rank % t (tp_rank)", "strided t apart", dp_groups[at],
           "A TP group is the t = 2 consecutive ranks of one replica", "rank 1's is ranks 0, 1")
    expect("colours", "groups", "dp group", at, "your DP groups are the TP groups",
           "colour rank / t (dp_index)", "A DP group is the D = %d ranks with one tp_rank" % d)
    expect("colours", "groups", "y", at, "FAIL")
    for g in gradients:
        expect("colours", "average", g, at,
               "this is the sum over the TP group (rank 1's: ranks 0, 1)",
               f", divided by D = {d}; the gradient needs the sum over the DP group "
               f"({dp_groups[at]}")
        expect("unscaled", "average", g, at, "this is the sum over the DP group without the "
               f"division: D = {d} times the gradient")
        expect("unscaled", "bucket", g, at, "each replica kept its own gradient",
               "nothing was summed over the DP group", dp_groups[at])
        expect("divisors", "average", g, at, f"divided by the world size p = {2 * d}")
    expect("colours", "average", "dp comm", at, 'yours: 4 all_reduce over "tp" (2 ranks)')
    expect("unscaled", "bucket", "dp comm", at, "yours: no collective")
for g in gradients:
    expect("divisors", "bucket", g, 8, "divided by the TP group's size t = 2, 2 times the gradient")
    test = tests("divisors")[("bucket", g)]
    if not lines(test).get("np=4", "").startswith("ok"):
        failures.append(f"divisors: bucket {g} at np=4 (t = D, right by accident) is not ok: "
                        f"{test['output']}")
keeps("colours", "bucket")
for student in ("unscaled", "divisors"):
    keeps(student, "groups")
for student, part in (("unscaled", "average"), ("divisors", "average"), ("divisors", "bucket")):
    t = tests(student)[(part, "dp comm")]
    if t["score"] != 1:
        failures.append(f"{student}: {part}'s all-reduces over dp were right, yet lost: "
                        f"{t['output']}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("lesson 14 names every planted mistake: the TP group's sum, the swapped colours, no "
      "division, no reduction, a division by p and by t")
CHECK
