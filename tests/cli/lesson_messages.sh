#!/usr/bin/env bash
# lesson_messages.sh TPLAB SOURCE_DIR OUT_DIR
# What `lesson check` tells a learner whose exercise is wrong:
#   1. an exercise that does not compile (lesson 01 with a name never declared): the compiler's
#      error, its line of source and its caret, the file named from the checkout, first; never
#      the build tool's command lines (a compiler's alone is some 1,800 characters);
#   2. one that calls the finished library (lesson 06 calling tp2d::summa_forward, declared by
#      hand): the link fence's refusal, first and in its own words, without CMake's wrapping;
#   3. one wrong on some ranks only (lesson 06's SUMMA doubling the blocks of grid column 1):
#      which ranks and blocks are wrong and which are right, under the table at each grid;
#   4. after that failure, lesson hint gives the hints about Y (none) as such: the general
#      ones, in the file's order.
# The exercises are put back as they were, whatever happens.
set -uo pipefail
tplab=$1 source_dir=$2 out=$3
: "${TPLAB_LESSON_PROGRESS:?set it to a progress file for the test alone}"
mkdir -p "$out"
saved=$(mktemp -d)
for n in 01-column-split 06-summa; do cp -p "$source_dir/lessons/$n/exercise.cpp" "$saved/$n.cpp"; done
put_back() {
  for n in 01-column-split 06-summa; do cp -p "$saved/$n.cpp" "$source_dir/lessons/$n/exercise.cpp"; done
  rm -f "$TPLAB_LESSON_PROGRESS"
  rm -rf "$saved"
}
trap put_back EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
run() {  # run NAME CODE ARGS...: tplab ARGS into NAME.out, which must exit CODE
  local name=$1 code=$2
  shift 2
  "$tplab" "$@" >"$out/$name.out" 2>&1
  local got=$?
  [[ $got -eq $code ]] || { tail -n 30 "$out/$name.out"; fail "$name: exited $got, not $code"; }
}
has() {  # has NAME REGEX: a line of NAME.out matches REGEX
  grep -Eq -- "$2" "$out/$1.out" || { cat "$out/$1.out"; fail "$1: no line matches /$2/"; }
}
lacks() {  # lacks NAME REGEX: no line of NAME.out matches REGEX
  ! grep -Eq -- "$2" "$out/$1.out" || { grep -E -- "$2" "$out/$1.out" | cut -c1-300; fail "$1: /$2/ unexpected"; }
}
# messages NAME: the compiler's messages as the check printed them
messages() { sed -n '/the compiler says:$/,/^lesson [0-9]*: WRONG/p' "$out/$1.out" | sed '1,2d;$d'; }
short() {  # short NAME LINES FIRST: at most LINES lines, none past 300 characters, FIRST first
  local text
  text=$(messages "$1")
  [[ $(wc -l <<<"$text") -le $2 ]] || fail "$1: more than $2 lines of messages"
  ! grep -q '.\{301\}' <<<"$text" || fail "$1: a line of messages past 300 characters"
  grep -Eq -- "$3" <<<"$(head -n 1 <<<"$text")" || { echo "$text"; fail "$1: the first line is not /$3/"; }
}

echo "== 1. an exercise that does not compile"
sed 's|^  return y;|  return y + undefined_name;  // never declared|' \
  "$source_dir/lessons/01-column-split/solution.cpp" >"$source_dir/lessons/01-column-split/exercise.cpp"
run compile_error 1 lesson check 1
has compile_error "^lesson 01: WRONG \(does not compile\)"
has compile_error "^  lessons/01-column-split/exercise.cpp:[0-9]+:[0-9]+: error: .undefined_name. was not declared"
has compile_error "^ +[0-9]+ \|   return y \+ undefined_name;"
lacks compile_error "c\+\+ .*-o |^FAILED|^ninja"
short compile_error 14 "^  lessons/01-column-split/exercise.cpp: In function"

echo "== 2. an exercise that calls the finished library"
python3 - "$source_dir/lessons/06-summa" <<'MAKE' || fail "could not make the exercise that calls the library"
import sys
lesson = sys.argv[1]
text = open(f"{lesson}/solution.cpp").read()
head, _, _ = text.partition("Tensor summa_forward(")
head = head.replace("namespace tplab::lessons::summa {", "namespace tplab::tp2d {\n"
                    "Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w);\n"
                    "}  // namespace tplab::tp2d\n\nnamespace tplab::lessons::summa {", 1)
open(f"{lesson}/exercise.cpp", "w").write(
    head + "Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {\n"
    "  return tp2d::summa_forward(device, grid, x, w);\n}\n\n}  // namespace tplab::lessons::summa\n")
MAKE
run library_call 1 lesson check 6
has library_call "^lesson 06: WRONG \(does not compile\)"
has library_call "^    tplab::tp2d::summa_forward\(.*\)  \(defined in summa.cpp.o\)$"
has library_call "^  Write the step with the Device operations \(device/device.hpp\) and the Comm collectives \(comm/comm.hpp\) instead.$"
lacks library_call "CMake Error|/usr/bin/cmake|/ar qc"
short library_call 4 "^  lesson_06_code calls the finished library, which an exercise may not use:$"

echo "== 3. an exercise wrong on some ranks"
sed 's|^  return y;|  if (grid.row->rank() == 1) device.scale(y, 2.0);  // wrong on grid column 1\n  return y;|' \
  "$source_dir/lessons/06-summa/solution.cpp" >"$source_dir/lessons/06-summa/exercise.cpp"
run some_ranks 1 lesson check 6
has some_ranks "^  Y: wrong on ranks 1, 3 \(blocks \(0, 1\), \(1, 1\)\); right on ranks 0, 2$"
has some_ranks "^  Y: wrong on ranks 1, 4, 7 \(blocks \(0, 1\), \(1, 1\), \(2, 1\)\); right on ranks 0, 2, 3, 5, 6, 8$"
has some_ranks "^forward: WRONG at 4, 9 ranks \(passed at 1 rank\)"

echo "== 4. the hints after it: none is about Y, the general ones first"
run hints 0 lesson hint 6
has hints "^\(your last check failed first at Y: no hint is about it; the general ones come first\)$"
has hints "^hint 1/5: Start with"
exit "$failed"
