#!/usr/bin/env bash
# lesson_reset.sh TPLAB SOURCE_DIR
# Checks that `tplab lesson reset 1` restores the shipped exercise and forgets the lesson's
# progress (a pass included): it edits the exercise, resets it, and compares the file with
# git's copy, the message with the expected one, and lesson list's line with "not started".
# Whatever happens, the exercise as it was before (a learner's work included, with its time
# stamp) is put back. The progress is the test's own file, $TPLAB_LESSON_PROGRESS. Exits 77
# (skipped) outside a git checkout.
set -uo pipefail
tplab=$1 source_dir=$2
progress=${TPLAB_LESSON_PROGRESS:?set it to a progress file for the test alone}
exercise=lessons/01-column-split/exercise.cpp
if ! git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skipped: $source_dir is not a git checkout, and reset restores from git"
  exit 77
fi
saved=$(mktemp -d)
cp -p "$source_dir/$exercise" "$saved/exercise.cpp"
put_back() {
  cp -p "$saved/exercise.cpp" "$source_dir/$exercise"
  rm -rf "$saved"
}
trap put_back EXIT

echo '{"01": {"state": "passed", "passed_before": true, "hints_shown": 2}}' >"$progress"
echo "int a_learners_edit = 1;" >>"$source_dir/$exercise"
output=$("$tplab" lesson reset 1 2>&1)
code=$?
printf '%s\n' "$output"
expected="lesson 01: $exercise restored as shipped; progress cleared"
if [[ $code -ne 0 || $output != *"$expected"* ]]; then
  echo "expected exit 0 and '$expected'; got exit $code"
  exit 1
fi
if ! git -C "$source_dir" show ":$exercise" | cmp -s - "$source_dir/$exercise"; then
  echo "$exercise differs from git's copy after reset"
  exit 1
fi
echo "ok: $exercise restored, equal to git's copy"
list=$("$tplab" lesson list 2>&1)
if ! grep -Eq '^  01  .* not started$' <<<"$list" || ! grep -Eq '^0 of [0-9]+ passed' <<<"$list"; then
  printf '%s\n' "$list"
  echo "lesson list still shows lesson 01's progress after reset"
  exit 1
fi
echo "ok: lesson 01's progress forgotten"
