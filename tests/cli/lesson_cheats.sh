#!/usr/bin/env bash
# lesson_cheats.sh TPLAB SOURCE_DIR WORK_DIR
# Grades a class of cheats at lesson 06 (SUMMA) with `tplab lesson grade --submissions`, and
# checks that every cheat scores 0 while an honest student (the solution's code, typed in)
# scores full marks: a verdict file and a transcript forged by the exercise's process, an exit
# with success before the check has anything, the lesson's solution.cpp included beside the
# exercise, by an absolute path and from a copy elsewhere, an answer computed from the shipped
# inputs without communicating (it passes `lesson check`, whose inputs are the shipped ones),
# and the right block on rank 0 alone; counters written by hand, MPI called behind the Comm, a
# process left behind, the environment and /proc/self/exe read, a system call in inline
# assembly. Then the gradebook's rows and the refusal messages.
# Lesson 06 has two tests: Y, and the broadcasts SUMMA makes (q on the row, q on the column).
set -uo pipefail
tplab=$1 source_dir=$2 work=$3
cheats=$source_dir/tests/cli/cheats
rm -rf "$work" && mkdir -p "$work/class" "$work/elsewhere"
fail() { echo "FAILED: $*"; exit 1; }

submit() {  # submit STUDENT FILE
  mkdir -p "$work/class/$1/06-summa" && cp "$2" "$work/class/$1/06-summa/exercise.cpp"
}
submit honest "$source_dir/lessons/06-summa/solution.cpp"
submit verdict_writer "$cheats/verdict_writer.cpp"
submit early_exit "$cheats/early_exit.cpp"
mkdir -p "$work/class/include_beside/06-summa"
sed "s|SOLUTION|solution.cpp|" "$cheats/include_by_path.cpp" \
  >"$work/class/include_beside/06-summa/exercise.cpp"
cp "$source_dir/lessons/06-summa/solution.cpp" "$work/class/include_beside/06-summa/solution.cpp"
mkdir -p "$work/class/include_absolute/06-summa"
sed "s|SOLUTION|$source_dir/lessons/06-summa/solution.cpp|" "$cheats/include_by_path.cpp" \
  >"$work/class/include_absolute/06-summa/exercise.cpp"
cp "$source_dir/lessons/06-summa/solution.cpp" "$work/elsewhere/copy.cpp"
mkdir -p "$work/class/include_copy/06-summa"
sed "s|SOLUTION|$work/elsewhere/copy.cpp|" "$cheats/include_by_path.cpp" \
  >"$work/class/include_copy/06-summa/exercise.cpp"
submit known_inputs "$cheats/known_inputs.cpp"
submit rank0_only "$cheats/rank0_only.cpp"
# What the link fence and the compiler launcher refuse, each with its words.
declare -A refusal=(
  [counters_forged]="tplab::CommCounters::record"
  [mpi_behind_the_comm]="MPI_Allgather"
  [leaves_a_process]="fork"
  [reads_files]="getenv"
  [assembly]="inline assembly, which an exercise may not use"
)
for cheat in "${!refusal[@]}"; do submit "$cheat" "$cheats/$cheat.cpp"; done
mkdir -p "$work/class/nothing"

# The shipped inputs are known: the answer computed from them agrees with them (--seed 0), and
# only the count of its broadcasts (none) gives it away...
mkdir -p "$work/shipped/known_inputs" && cp -r "$work/class/known_inputs/06-summa" "$work/shipped/known_inputs/"
output=$("$tplab" lesson grade 6 --submissions "$work/shipped" --out "$work/shipped-grades" --seed 0 2>&1)
grep -q '^known_inputs,06,1,2$' "$work/shipped-grades/gradebook.csv" ||
  fail "with the shipped inputs (--seed 0) the known-inputs cheat should get Y right and its
broadcasts wrong; gradebook:
$(cat "$work/shipped-grades/gradebook.csv")"

# ... and a grade (a fresh seed) fails it, with every other cheat.
output=$("$tplab" lesson grade 6 --submissions "$work/class" --out "$work/grades" 2>&1)
code=$?
printf '%s\n' "$output" | tail -n 40
[[ $code == 0 ]] || fail "lesson grade --submissions exited $code"
book=$work/grades/gradebook.csv
cat "$book"
[[ $(head -n 1 "$book") == "student,lesson,score,max_score" ]] || fail "the gradebook's header"
grep -q '^honest,06,2,2$' "$book" || fail "the honest student should have full marks"
for cheat in verdict_writer early_exit include_beside include_absolute include_copy known_inputs \
  rank0_only nothing "${!refusal[@]}"; do
  grep -Eq "^$cheat,06,0(\.0)?," "$book" || fail "$cheat should score 0"
  [[ -s $work/grades/$cheat/results.json ]] || fail "no results.json for $cheat"
done
grep -q '"score": 0' "$work/grades/include_absolute/results.json" || fail "include_absolute's results.json"
# Beside the exercise nothing is reachable (it is compiled through a link in the build tree);
# by any other path the compiler's reading is refused.
grep -q "solution.cpp: No such file or directory" "$work/grades/include_beside/results.json" ||
  fail "include_beside: solution.cpp should not be found"
for student in include_absolute include_copy; do
  grep -q "which an exercise may not use" "$work/grades/$student/results.json" ||
    fail "$student: the refusal should say what was included"
done
for cheat in "${!refusal[@]}"; do
  grep -qF "${refusal[$cheat]}" "$work/grades/$cheat/results.json" ||
    fail "$cheat: the refusal should name ${refusal[$cheat]}"
done
grep -q "np=1: no findings: it exited" "$work/grades/early_exit/results.json" ||
  fail "early_exit: the grade should say how the job ended"
grep -q "MPI_Finalize" "$work/grades/verdict_writer/results.json" ||
  fail "verdict_writer: the link fence should refuse its MPI_Finalize"
echo "every cheat scored 0, the honest student full marks"
