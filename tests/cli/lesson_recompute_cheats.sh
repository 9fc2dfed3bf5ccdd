#!/usr/bin/env bash
# lesson_recompute_cheats.sh TPLAB SOURCE_DIR WORK_DIR
# Lesson 16's selective core may keep P nowhere: a class graded with `tplab lesson grade
# --submissions`, each student the library's solution with P kept somewhere else, loses the
# points of that hiding place and no other. keeps_p keeps P on the device (the kept bytes of
# the selective core); host_copy copies P into a static vector on the host in forward and reads
# it back in backward, where the device's byte count does not look; for_show does the same but
# still runs the recomputation in backward, for show. Both are caught by "recomputed": backward
# runs causal_softmax_forward again, and a core whose P another core's forward came between
# keeps its own bits. An honest student (the solution) scores full marks, and so does a second
# one with the same file graded after a submission that does not build (the build must not
# keep the broken one's objects for a file it compiled before).
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
lesson=$source_dir/lessons/16-activation-memory
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }

source "$(dirname "$0")/lesson_class.sh"
stash='s|^Tensor AttentionCore::probabilities() {|std::vector<double>\& stash() {\n  static std::vector<double> p;\n  return p;\n}\n\n&|'
copy='s|^  Tensor probs = probabilities();$|&\n  if (recompute_ == Recompute::selective) {\n    stash().resize(static_cast<std::size_t>(probs.numel()));\n    device_.download(probs, stash());\n  }|'
read_back() {  # the backward's P from the stash, after $1 (a statement, or nothing)
  echo "s|^  const Tensor probs = recompute_ == Recompute::none ? probs_ : probabilities();|  Tensor probs = probs_;\n  if (recompute_ == Recompute::selective) {\n    $1\n    probs = device_.empty({bh, s, s}, dctx.dtype());\n    device_.upload(stash(), probs);\n  }|"
}
submit a_honest
mkdir -p "$work/class/b_broken/16-activation-memory"
: >"$work/class/b_broken/16-activation-memory/exercise.cpp"  # compiles, links nothing
submit c_honest_again
submit keeps_p 's|^  if (recompute_ == Recompute::none) probs_ = std::move(probs);.*|  probs_ = probs;|'
submit host_copy "$stash" "$copy" "$(read_back "")"
submit for_show "$stash" "$copy" "$(read_back "(void)probabilities();  // for show")"

grade_class 16 8

python3 - "$work/grades" <<'CHECK' || fail "the scores of the cheats"
import json, sys
grades = sys.argv[1]
def lost(student):
    """The tests a student lost points on, by the tensor's name and its title's start."""
    return sorted(t["name"].split(",")[1].split(":")[0].strip() + " / " +
                  t["name"].split(":")[1].strip()[:18]
                  for t in json.load(open(f"{grades}/{student}/results.json"))["tests"]
                  if t["score"] != 1)
want = {"a_honest": [], "c_honest_again": [],
        "keeps_p": ["kept / the core recomputi"],
        "host_copy": ["recomputed / selective computes"],
        "for_show": ["recomputed / selective computes"]}
broken = json.load(open(f"{grades}/b_broken/results.json"))
assert broken["score"] == 0 and "does not compile" in json.dumps(broken), broken["score"]
for student, tests in want.items():
    assert lost(student) == tests, (student, lost(student))
    print(f"ok: {student} lost {tests or 'nothing'}")
CHECK
