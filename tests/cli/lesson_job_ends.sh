#!/usr/bin/env bash
# lesson_job_ends.sh TPLAB SOURCE_DIR OUT_DIR crash|loop|killed
# `lesson check` on an exercise whose job does not end normally says how it ended and stops
# there, on lesson 01 (world sizes 1, 2, 4) with the library's answer broken at 2 ranks and up:
#   crash: raise(SIGSEGV): "crashed with SIGSEGV (Segmentation fault) at 2 ranks", exit 1 (as
#          verify exits for a job that crashed);
#   loop:  a loop that never ends, under --timeout 5: "timed out after 5 s at 2 ranks", exit 124;
#   killed: raise(SIGKILL), which reads as the kernel's out-of-memory killer or a kill from
#          outside: "a process ended on signal 9 (Killed) ... at 2 ranks", exit 5.
# In both, 1 rank passes first, 4 ranks are never run, and the words about tables of tensors
# that disagree (there are none) are not printed. The progress is the test's own file
# ($TPLAB_LESSON_PROGRESS); the exercise is put back as it was, whatever happens.
set -uo pipefail
tplab=$1 source_dir=$2 out=$3 case=$4
: "${TPLAB_LESSON_PROGRESS:?set it to a progress file for the test alone}"
lesson=$source_dir/lessons/01-column-split
mkdir -p "$out"
saved=$(mktemp -d)
cp -p "$lesson/exercise.cpp" "$saved/exercise.cpp"
put_back() {
  cp -p "$saved/exercise.cpp" "$lesson/exercise.cpp"
  rm -rf "$saved"
}
trap put_back EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
# broken NAME STATEMENT: the library's answer with STATEMENT first in gather_columns, which
# only a world of more than one rank reaches with tp.size() > 1.
broken() {
  sed -e 's|^#include "lesson.hpp"$|#include <chrono>\n#include <csignal>\n#include <thread>\n\n&|' \
    -e "s|^Tensor gather_columns(.*{$|&\n  if (tp.size() > 1) $2  // $1, on purpose|" \
    "$lesson/solution.cpp" >"$lesson/exercise.cpp"
  grep -q "// $1, on purpose" "$lesson/exercise.cpp" || fail "could not make the exercise that has $1"
}
check() {  # check NAME CODE ARGS...: lesson check 1 ARGS into NAME.out, which must exit CODE
  local name=$1 code=$2
  shift 2
  "$tplab" lesson check 1 "$@" >"$out/$name.out" 2>&1
  local got=$?
  [[ $got -eq $code ]] || { tail -n 30 "$out/$name.out"; fail "$name: exited $got, not $code"; }
}
has() {  # has NAME REGEX: a line of NAME.out matches REGEX
  grep -Eq -- "$2" "$out/$1.out" || { cat "$out/$1.out"; fail "$1: no line matches /$2/"; }
}
lacks() {  # lacks NAME REGEX: no line of NAME.out matches REGEX
  ! grep -Eq -- "$2" "$out/$1.out" || { grep -E -- "$2" "$out/$1.out"; fail "$1: /$2/ unexpected"; }
}
stopped_at_two() {  # stopped_at_two NAME: 1 rank passed, 2 ranks run, 4 never
  has "$1" "^forward: passed at 1 rank$"
  has "$1" "^==== lesson 01 on 2 ranks ====$"
  lacks "$1" "on 4 ranks ===="
  lacks "$1" "tables above"
}

case $case in
  crash)
    # AddressSanitizer (the asan preset) would catch the SIGSEGV and end the rank with an abort
    # of its own; the signal the exercise raised is the one to be named.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
    broken "a crash" "std::raise(SIGSEGV);"
    check crash 1
    has crash "^lesson 01: WRONG: crashed with SIGSEGV \(Segmentation fault\) at 2 ranks"
    stopped_at_two crash
    ;;
  loop)
    broken "a loop" "while (true) std::this_thread::sleep_for(std::chrono::milliseconds(100));"
    check loop 124 --timeout 5
    has loop "^lesson 01: WRONG: timed out after 5 s at 2 ranks"
    stopped_at_two loop
    ;;
  killed)
    broken "a rank killed" "std::raise(SIGKILL);"
    check killed 5
    has killed "^lesson 01: WRONG: a process ended on signal 9 \(Killed\), which tplab never sends: it was ended from outside .* at 2 ranks"
    stopped_at_two killed
    ;;
  *)
    echo "lesson_job_ends.sh: give crash, loop or killed, not '$case'"
    exit 2
    ;;
esac
exit "$failed"
