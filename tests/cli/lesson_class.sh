# lesson_class.sh: sourced by the scripts that grade a class of edited solutions (lesson_bugs.sh,
# lesson_recompute_cheats.sh). Before sourcing: tplab, work, lesson (the lesson's folder) and
# fail() set.

# submit STUDENT [SED_SCRIPT...]: the lesson's solution, edited by the sed scripts, as STUDENT's
# exercise; with no script, the solution as it is.
submit() {
  local student=$1
  shift
  local file=$work/class/$student/$(basename "$lesson")/exercise.cpp
  mkdir -p "$(dirname "$file")"
  if [[ $# == 0 ]]; then
    cp "$lesson/solution.cpp" "$file"
    return
  fi
  local args=()
  for script in "$@"; do args+=(-e "$script"); done
  sed "${args[@]}" "$lesson/solution.cpp" >"$file"
  # A sed script that matched nothing would leave the solution: the student must differ from it.
  if cmp -s "$lesson/solution.cpp" "$file"; then
    fail "$student: the edit could not be made in the solution"
  fi
}

# grade_class NUMBER LINES: grades the class at lesson NUMBER into $work/grades, shows the last
# LINES of its output and the gradebook; fails unless the grading itself succeeded.
grade_class() {
  local output code
  output=$("$tplab" lesson grade "$1" --submissions "$work/class" --out "$work/grades" 2>&1)
  code=$?
  printf '%s\n' "$output" | tail -n "$2"
  [[ $code == 0 ]] || fail "lesson grade --submissions exited $code"
  cat "$work/grades/gradebook.csv"
}
