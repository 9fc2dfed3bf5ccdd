#!/usr/bin/env bash
# function_length.sh SOURCE_DIR [LIMIT]
# Every function of the library (parallel/: .cpp, .hpp, .cu, .cuh) and of the program above it
# (app/) is at most LIMIT lines
# (60 by default), as lizard counts them: a reader follows a scheme's forward or backward
# without scrolling through one long function. Names each longer function; exits 1 if any.
set -euo pipefail
root=$1 limit=${2:-60}
python3 -c "import lizard" 2>/dev/null || {
  echo "lizard is not installed: python3 -m pip install -r $root/requirements.txt"; exit 1; }
mapfile -t files < <(find "$root/parallel" "$root/app" -type f \( -name '*.cpp' -o -name '*.hpp' \
  -o -name '*.cu' -o -name '*.cuh' \) | sort)
# -C and -a high: only the length is judged here.
if ! python3 -m lizard -L "$limit" -C 1000 -a 100 -w "${files[@]}"; then
  echo "the functions above are longer than $limit lines: split them into named steps"
  exit 1
fi
echo "every function in parallel/ and app/ is at most $limit lines (${#files[@]} files)"
