#!/usr/bin/env bash
# lesson_progress.sh TPLAB SOURCE_DIR OUT_DIR
# The learner's way through the lessons, on lesson 01, with the progress in the test's own file
# ($TPLAB_LESSON_PROGRESS):
#   1. nothing checked: lesson list counts 0 of every lesson passed and says to start at 0;
#   2. the untouched exercise: checked at every world size (not only the first), "not started",
#      its part's TODO named;
#   3. the library's answer as the exercise: PASSED, and what comes next (lesson 02);
#   4. then a half-right exercise (Y never gathered): "WRONG now (it passed before; ...)", exit
#      1, lesson list shows "passed before, now wrong" and still counts it passed;
#   5. lesson hint starts with the hints for Y, the tensor that failed first; with no check
#      recorded it keeps the lesson.json order (Y_r's first);
#   6. lesson next and list with lessons 00 and 01 passed: lesson 02;
#   7. lesson show --readme hides every worked answer, --answers prints the README whole.
# The exercise is put back as it was, whatever happens.
set -uo pipefail
tplab=$1 source_dir=$2 out=$3
progress=${TPLAB_LESSON_PROGRESS:?set it to a progress file for the test alone}
lesson=$source_dir/lessons/01-column-split
count=$(cd "$source_dir/lessons" && ls -d [0-9][0-9]-*/lesson.json | wc -l)
mkdir -p "$out"
saved=$(mktemp -d)
cp -p "$lesson/exercise.cpp" "$saved/exercise.cpp"
rm -f "$progress"
put_back() {
  cp -p "$saved/exercise.cpp" "$lesson/exercise.cpp"
  rm -rf "$saved"
}
trap put_back EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
step() {  # step NAME CODE ARGS...: runs tplab ARGS into NAME.out, fails unless it exits CODE
  local name=$1 code=$2
  shift 2
  "$tplab" "$@" >"$out/$name.out" 2>&1
  local got=$?
  [[ $got -eq $code ]] || { tail -n 20 "$out/$name.out"; fail "tplab $* exited $got, not $code"; }
}
has() {  # has NAME REGEX [COUNT]: NAME.out has at least COUNT lines (default 1) matching REGEX
  local n
  n=$(grep -Ec -- "$2" "$out/$1.out")
  [[ $n -ge ${3:-1} ]] || { cat "$out/$1.out"; fail "$1: ${3:-1} line(s) matching /$2/ expected, $n found"; }
}
lacks() {  # lacks NAME REGEX: no line of NAME.out matches REGEX
  ! grep -Eq -- "$2" "$out/$1.out" || { grep -E -- "$2" "$out/$1.out"; fail "$1: /$2/ unexpected"; }
}

echo "== 1. nothing checked yet"
step list_fresh 0 lesson list
has list_fresh "^0 of $count passed; next: \./tplab lesson show 0$"

echo "== 2. the untouched exercise, at every world size"
step untouched 0 lesson check 1
has untouched "^==== lesson 01 on [0-9]+ ranks? ====$" 3
has untouched "^forward: not started \(TODO at exercise\.cpp:[0-9]+\)$"
has untouched "^lesson 01: not started: fill in the TODO blocks of "

echo "== 3. the library's answer"
cp "$lesson/solution.cpp" "$lesson/exercise.cpp"
step passed 0 lesson check 1
has passed "^forward: passed at 1, 2, 4 ranks$"
has passed "^lesson 01: PASSED at every world size$"
has passed "^next: \./tplab lesson show 2$"

echo "== 4. a pass turned wrong"
sed 's|^  device.merge_heads(.*|  device.fill(y, 0.0);  // the gather left out|' \
  "$lesson/solution.cpp" >"$lesson/exercise.cpp"
grep -q "the gather left out" "$lesson/exercise.cpp" || fail "could not make the half-right exercise"
step wrong 1 lesson check 1
has wrong "^forward: WRONG at 1, 2, 4 ranks$"
has wrong "^lesson 01: WRONG now \(it passed before; .*the first to fail: Y "
step list_wrong 0 lesson list
has list_wrong "^  01  .* passed before, now wrong$"
has list_wrong "^1 of $count passed; next: \./tplab lesson show 0$"

echo "== 5. hints for the tensor that failed first"
step hint_after_wrong 0 lesson hint 1 --all
has hint_after_wrong "^hint 1/4 \(for Y\): "
has hint_after_wrong "^hint 4/4 \(for Y_r\): "
mv "$progress" "$saved/progress.json"
step hint_unchecked 0 lesson hint 1 --all
has hint_unchecked "^hint 1/4 \(for Y_r\): "
mv "$saved/progress.json" "$progress"

echo "== 6. lesson next, with 00 and 01 passed"
python3 - "$progress" <<'PASS_00'
import json, sys
progress = json.load(open(sys.argv[1]))
progress["00"] = {"state": "passed", "passed_before": True}
json.dump(progress, open(sys.argv[1], "w"))
PASS_00
step next 0 lesson next
has next "^lesson 02: "
has next "check: +\./tplab lesson check 2 "
step list_two 0 lesson list
has list_two "^2 of $count passed; next: \./tplab lesson show 2$"

echo "== 7. the README, its worked answers hidden"
answers=$(grep -o "<details" "$lesson/README.md" | wc -l)
[[ $answers -gt 0 ]] || fail "lessons/01-column-split/README.md has no worked answer to hide"
step readme 0 lesson show 1 --readme
lacks readme "<details|</details>|<summary>"
[[ $(grep -o "(answer hidden: \./tplab lesson show 1 --answers)" "$out/readme.out" | wc -l) -eq $answers ]] ||
  fail "readme: $answers answers hidden expected"
step answers 0 lesson show 1 --answers
cmp -s "$out/answers.out" "$lesson/README.md" || fail "show --answers differs from the README"

exit "$failed"
