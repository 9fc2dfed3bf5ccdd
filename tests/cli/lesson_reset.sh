#!/usr/bin/env bash
# lesson_reset.sh TPLAB SOURCE_DIR BINARY_DIR
# Checks that `tplab lesson reset 1` restores the shipped exercise: it edits the exercise,
# resets it, and compares the file with git's copy and the message with the expected one.
# Whatever happens, the exercise as it was before (a learner's work included, with its time
# stamp) and the progress file are put back. Exits 77 (skipped) outside a git checkout.
set -uo pipefail
tplab=$1 source_dir=$2 binary_dir=$3
exercise=lessons/01-column-split/exercise.cpp
if ! git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skipped: $source_dir is not a git checkout, and reset restores from git"
  exit 77
fi
saved=$(mktemp -d)
progress=$binary_dir/lessons-progress.json
cp -p "$source_dir/$exercise" "$saved/exercise.cpp"
[[ -f $progress ]] && cp -p "$progress" "$saved/progress.json"
put_back() {
  cp -p "$saved/exercise.cpp" "$source_dir/$exercise"
  if [[ -f $saved/progress.json ]]; then cp -p "$saved/progress.json" "$progress"; else rm -f "$progress"; fi
  rm -rf "$saved"
}
trap put_back EXIT

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
