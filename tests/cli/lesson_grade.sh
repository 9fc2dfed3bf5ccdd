#!/usr/bin/env bash
# lesson_grade.sh TPLAB SOURCE_DIR OUT_DIR
# `tplab lesson grade` scores what the checks find, never the progress file, one whole point
# per tensor a check compares:
#   1. every lesson's solution grades full marks: each check's tensors are scored consistently
#      with its verdict (lesson 10, for one, compares some only at 8 ranks);
#   2. with a progress file ($TPLAB_LESSON_PROGRESS) that claims every lesson passed (a link to
#      a learner's edit), the untouched exercises of every lesson grade 0, "not started" (a bug
#      hunt's, which runs with its bugs in, "wrong"), each
#      with the SHA-256 of the exercise and checker it checked, and with the very tests of the
#      solutions (names free of world sizes, numbers, points), each scored 0;
#   3. lesson 01's exercise made half right (the library's answer with the gather left out)
#      grades 1 of 2: Y_r earns its point, Y fails, and the digest is that of the edited file;
#   4. lesson 01's exercise that does not compile has the solution's tests, each 0, the first
#      with the compiler's error and none with the build tool's command line;
#   5. lesson 06's exercise wrong on grid column 1 names its worst element and the ranks that
#      are wrong and right in its test, whose name holds no grid size.
# The exercises are put back as they were, whatever happens.
set -uo pipefail
tplab=$1 source_dir=$2 out=$3
check=(python3 "$source_dir/tests/cli/check_grade_json.py")
exercise=$source_dir/lessons/01-column-split/exercise.cpp
summa=$source_dir/lessons/06-summa/exercise.cpp
progress=${TPLAB_LESSON_PROGRESS:?set it to a progress file for the test alone}
numbers=$(cd "$source_dir/lessons" && for spec in [0-9][0-9]-*/lesson.json; do echo "${spec:0:2}"; done)
count=$(wc -w <<<"$numbers")
mkdir -p "$out"
saved=$(mktemp -d)
cp -p "$exercise" "$saved/exercise.cpp"
cp -p "$summa" "$saved/summa.cpp"
rm -f "$progress"
put_back() {
  cp -p "$saved/exercise.cpp" "$exercise"
  cp -p "$saved/summa.cpp" "$summa"
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

echo "== 1. every lesson's solution"
grade solution --solution
"${check[@]}" "$out/solution.json" "$source_dir" full 01=passed:3 || fail "the solutions' grades"

echo "== 2. every untouched exercise, beside a progress file that says all passed"
claims='{}'
for n in $numbers; do
  claims=$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); d[sys.argv[2]] = {"state": "passed", "passed_before": True}; print(json.dumps(d))' "$claims" "$n")
done
printf '%s\n' "$claims" >"$saved/claims.json"
ln -s "$saved/claims.json" "$progress"
grade untouched
# Every lesson not started, each with all its tests at 0 (this is the walk through every
# untouched exercise: no test of its own checks each one again); a lesson whose lesson.json says
# "kind": "bug hunt" ships an exercise that runs with its bugs in, so untouched it is wrong.
untouched=()
for n in $numbers; do
  kind=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("kind", ""))' \
    "$source_dir"/lessons/"$n"-*/lesson.json)
  verdict="not started"
  [[ $kind == "bug hunt" ]] && verdict=wrong
  untouched+=("$(printf '%02d' "$((10#$n))")=$verdict:0")
done
"${check[@]}" "$out/untouched.json" "$source_dir" 0 "${untouched[@]}" \
  "tests=$out/solution.json" || fail "the untouched exercises' grades"
[[ $(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["extra_data"]["lessons"]))' \
  "$out/untouched.json") == "$count" ]] || fail "not every one of the $count lessons was graded"

echo "== 3. lesson 01 half right: Y_r computed, Y never gathered"
sed 's|^  device.merge_heads(.*|  device.fill(y, 0.0);  // the gather left out|' \
  "$source_dir/lessons/01-column-split/solution.cpp" >"$exercise"
grep -q "the gather left out" "$exercise" || fail "could not make the half-right exercise"
grade half 1
# Its all-gather was made (one point), its Y_r is right (one), its Y is not.
"${check[@]}" "$out/half.json" "$source_dir" 2 01=wrong:2 "tests=$out/solution.json" ||
  fail "the half-right grade"
python3 - "$out/half.json" <<'CHECK' || fail "the half-right exercise's tests"
import json, sys
tests = {t["name"].split(":")[0]: t for t in json.load(open(sys.argv[1]))["tests"]}
assert tests["lesson 01, Y_r"]["score"] == 1, tests
assert tests["lesson 01, all-gather"]["score"] == 1, tests
assert tests["lesson 01, Y"]["score"] == 0 and "FAIL" in tests["lesson 01, Y"]["output"], tests
assert "np=2: FAIL, max_abs" in tests["lesson 01, Y"]["output"], tests
CHECK

echo "== 4. lesson 01 does not compile"
sed 's|^  return y;|  return y + undefined_name;  // never declared|' \
  "$source_dir/lessons/01-column-split/solution.cpp" >"$exercise"
grade no_compile 1
"${check[@]}" "$out/no_compile.json" "$source_dir" 0 "01=does not compile:0" \
  "tests=$out/solution.json" || fail "the grade of an exercise that does not compile"
python3 - "$out/no_compile.json" <<'CHECK' || fail "the tests of an exercise that does not compile"
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
assert "undefined_name" in tests[0]["output"] and "error:" in tests[0]["output"], tests[0]
for t in tests:
    assert t["output"].startswith("does not compile"), t
    assert " -o " not in t["output"] and "FAILED:" not in t["output"], t
CHECK

echo "== 5. lesson 06 wrong on the ranks of grid column 1"
sed 's|^  return y;|  if (grid.row->rank() == 1) device.scale(y, 2.0);  // wrong on grid column 1\n  return y;|' \
  "$source_dir/lessons/06-summa/solution.cpp" >"$summa"
grade some_ranks 6
# Its broadcasts are SUMMA's (one point); Y is wrong (none).
"${check[@]}" "$out/some_ranks.json" "$source_dir" 1 06=wrong:1 "tests=$out/solution.json" ||
  fail "the grade of an exercise wrong on some ranks"
python3 - "$out/some_ranks.json" <<'CHECK' || fail "the test of an exercise wrong on some ranks"
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
[test] = [t for t in tests if t["name"].startswith("lesson 06, Y:")]
[pattern] = [t for t in tests if t["name"].startswith("lesson 06, broadcasts:")]
assert pattern["score"] == 1, pattern
assert test["name"] == "lesson 06, Y: SUMMA on a q x q grid, exact (integer inputs)", test
lines = test["output"].splitlines()
assert lines[0] == "np=1: ok, max_abs 0, 0% of the tolerance used", lines
# The values depend on the grade's seed, drawn afresh each time; their form does not.
import re
assert re.match(r"np=4: FAIL, max_abs \d+, >1000% of the tolerance used; worst at Y\[", lines[1]), lines
assert lines[1].endswith("; wrong on ranks 1, 3; right on ranks 0, 2"), lines
assert lines[2].endswith("; wrong on ranks 1, 4, 7; right on ranks 0, 2, 3, 5, 6, 8"), lines
CHECK

[[ -L $progress && $(cat "$progress") == "$claims" ]] || fail "lesson grade changed the progress file"
exit "$failed"
