#!/usr/bin/env bash
# lesson_recompute_cheats.sh TPLAB SOURCE_DIR WORK_DIR
# Lesson 16's selective core may keep P nowhere: a class graded with `tplab lesson grade
# --submissions`, each student the library's solution with P kept somewhere else, loses the
# points of that hiding place and no other. keeps_p keeps P on the device (the kept bytes of
# the selective core); host_copy copies P into one static vector on the host in forward and
# reads it back in backward, where the device's byte count does not look; for_show keeps a copy
# per core (a static map by `this`) and still runs the recomputation in backward, for show.
# "recomputed" catches both: backward's gradients must change when the softmax it runs is
# nudged, and a core whose P another core's forward came between must keep its own bits. An
# honest student (the solution) scores full marks, and so does a second one with the same file
# graded after a submission that does not build (the build must not keep the broken one's
# objects for a file it compiled before).
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
lesson=$source_dir/lessons/16-activation-memory
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }

source "$(dirname "$0")/lesson_class.sh"
stash() {  # a host copy of P in a static: $1 the declaration, $2 the copy of a core
  echo "s|^Tensor AttentionCore::probabilities() {|std::vector<double>\\& stash(const void* core) {\n  (void)core;\n  $1\n  return $2;\n}\n\n&|"
}
copy='s|^  Tensor probs = probabilities();$|&\n  if (recompute_ == Recompute::selective) {\n    stash(this).resize(static_cast<std::size_t>(probs.numel()));\n    device_.download(probs, stash(this));\n  }|'
read_back() {  # the backward's P from the stash, after $1 (a statement, or nothing)
  echo "s|^  const Tensor probs = recompute_ == Recompute::none ? probs_ : probabilities();|  Tensor probs = probs_;\n  if (recompute_ == Recompute::selective) {\n    $1\n    probs = device_.empty({bh, s, s}, dctx.dtype());\n    device_.upload(stash(this), probs);\n  }|"
}
with_map='s|^#include <cmath>$|&\n#include <map>|'
submit a_honest
mkdir -p "$work/class/b_broken/16-activation-memory"
: >"$work/class/b_broken/16-activation-memory/exercise.cpp"  # compiles, links nothing
submit c_honest_again
submit keeps_p 's|^  if (recompute_ == Recompute::none) probs_ = std::move(probs);.*|  probs_ = probs;|'
submit host_copy "$(stash "static std::vector<double> p;" p)" "$copy" "$(read_back "")"
submit for_show "$with_map" "$(stash "static std::map<const void*, std::vector<double>> p;" "p[core]")" \
  "$copy" "$(read_back "(void)probabilities();  // for show")"

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
