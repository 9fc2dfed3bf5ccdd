#!/usr/bin/env bash
# lesson_grade.sh TPLAB SOURCE_DIR OUT_DIR
# `tplab lesson grade` scores what the checks find, never the progress file:
#   1. with a progress file ($TPLAB_LESSON_PROGRESS) that claims every lesson passed (a link to
#      a learner's edit), the untouched exercises of every lesson grade 0, "not started", each
#      with the SHA-256 of the exercise and checker it checked;
#   2. lesson 01's exercise made half right (the library's answer with the gather left out)
#      grades 0.5: Y_r earns its half, Y fails, and the digest is that of the edited file;
#   3. every lesson's solution grades full marks, one point a lesson: each check's tensors are
#      scored consistently with its verdict (lesson 10, for one, compares some only at 8 ranks).
# The exercise is put back as it was, whatever happens.
set -uo pipefail
tplab=$1 source_dir=$2 out=$3
check=(python3 "$source_dir/tests/cli/check_grade_json.py")
exercise=$source_dir/lessons/01-column-split/exercise.cpp
progress=${TPLAB_LESSON_PROGRESS:?set it to a progress file for the test alone}
numbers=$(cd "$source_dir/lessons" && for spec in [0-9][0-9]-*/lesson.json; do echo "${spec:0:2}"; done)
count=$(wc -w <<<"$numbers")
mkdir -p "$out"
saved=$(mktemp -d)
cp -p "$exercise" "$saved/exercise.cpp"
rm -f "$progress"
put_back() {
  cp -p "$saved/exercise.cpp" "$exercise"
  rm -f "$progress"
  rm -rf "$saved"
}
trap put_back EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
grade() {  # grade NAME ARGS...: runs lesson grade, prints its table, fails on a non-zero exit
  local name=$1
  shift
  "$tplab" lesson grade "$@" --json "$out/$name.json" >"$out/$name.out" 2>&1
  local code=$?
  sed -n '/^tplab lesson grade/,$p' "$out/$name.out"
  [[ $code -eq 0 ]] || { tail -n 20 "$out/$name.out"; fail "lesson grade $* exited $code"; }
}

echo "== 1. every untouched exercise, beside a progress file that says all passed"
claims='{}'
for n in $numbers; do
  claims=$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); d[sys.argv[2]] = {"state": "passed", "passed_before": True}; print(json.dumps(d))' "$claims" "$n")
done
printf '%s\n' "$claims" >"$saved/claims.json"
ln -s "$saved/claims.json" "$progress"
grade untouched
"${check[@]}" "$out/untouched.json" "$source_dir" 0 00="not started:0" 01="not started:0" \
  12="not started:0" || fail "the untouched exercises' grades"
[[ $(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["extra_data"]["lessons"]))' \
  "$out/untouched.json") == "$count" ]] || fail "not every one of the $count lessons was graded"

echo "== 2. lesson 01 half right: Y_r computed, Y never gathered"
sed 's|^  device.merge_heads(.*|  device.fill(y, 0.0);  // the gather left out|' \
  "$source_dir/lessons/01-column-split/solution.cpp" >"$exercise"
grep -q "the gather left out" "$exercise" || fail "could not make the half-right exercise"
grade half 1
"${check[@]}" "$out/half.json" "$source_dir" 0.5 01=wrong:0.5 || fail "the half-right grade"
python3 - "$out/half.json" <<'CHECK' || fail "the half-right exercise's tests"
import json, sys
tests = {t["name"].split(":")[0]: t for t in json.load(open(sys.argv[1]))["tests"]}
assert tests["lesson 01, Y_r"]["score"] == 0.5, tests
assert tests["lesson 01, Y"]["score"] == 0 and "FAIL" in tests["lesson 01, Y"]["output"], tests
CHECK

echo "== 3. every lesson's solution"
grade solution --solution
"${check[@]}" "$out/solution.json" "$source_dir" "$count" 01=passed:1 10=passed:1 ||
  fail "the solutions' grades"

[[ -L $progress && $(cat "$progress") == "$claims" ]] || fail "lesson grade changed the progress file"
exit "$failed"
