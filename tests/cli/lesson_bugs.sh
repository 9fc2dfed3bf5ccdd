#!/usr/bin/env bash
# lesson_bugs.sh TPLAB SOURCE_DIR WORK_DIR
# Lesson 15's check tells its four bugs apart: a class graded with `tplab lesson grade
# --submissions`, each student the library's solution with one bug of the shipped exercise put
# back (the replicated gradients counted before the all-reduce, the padding masked from the
# global V, no all-reduce of the sequence-parallel LayerNorm's gradients, the replicated step
# on rank 0 only), loses the points of that bug's part and no other, at 2 and 4 ranks, with the
# note that names the bug. (cli.lesson_grade grades the solution full marks and the shipped
# exercise, all four bugs in, 0.)
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
lesson=$source_dir/lessons/15-bugs-from-the-field
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }

source "$(dirname "$0")/lesson_class.sh"
submit norm '/squares += device.sum_of_squares(g);  \/\/ once/d' \
  's|^  for (const Tensor& g : sharded) shard_squares += .*|&\n  for (const Tensor\& g : replicated) shard_squares += device.sum_of_squares(g);|'
submit padding 's|std::clamp<std::int64_t>(vocab - first_column,|std::clamp<std::int64_t>(vocab,|'
submit layernorm '/tp.all_reduce(d_gamma);/d' '/tp.all_reduce(d_beta);/d'
submit update 's|^  device.add_inplace(p, step);|  if (tp.rank() == 0) device.add_inplace(p, step);|'

grade_class 15 20

python3 - "$work/grades" <<'CHECK' || fail "the scores of the bugs"
import json, sys
grades = sys.argv[1]
# The part of each tensor, by the tensor's name in the test ("lesson 15, norm: ...").
part_of = {"norm": "norm", "probabilities": "padding", "loss": "padding",
           "d_gamma": "layernorm", "d_beta": "layernorm", "p": "update"}
# What the note of each bug's tensors must say.
note_of = {"norm": "counted them t = ", "padding": "of a token's probability on average",
           "layernorm": "every rank kept the sum over its own tokens only",
           "update": "still hold"}
def tests(student):
    return {t["name"].split(",")[1].split(":")[0].strip(): t
            for t in json.load(open(f"{grades}/{student}/results.json"))["tests"]}
for bug in ("norm", "padding", "layernorm", "update"):
    graded = tests(bug)
    assert sorted(graded) == sorted(part_of), (bug, sorted(graded))
    for name, t in graded.items():
        wrong = part_of[name] == bug
        assert t["score"] == (0 if wrong else 1), (bug, name, t)
        if wrong:
            for np in (2, 4):
                assert f"np={np}: FAIL" in t["output"], (bug, name, t["output"])
            assert note_of[bug] in t["output"], (bug, name, t["output"])
print("each bug loses its own part's points and no other, at 2 and 4 ranks")
CHECK
