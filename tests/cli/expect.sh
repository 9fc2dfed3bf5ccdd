#!/usr/bin/env bash
# expect.sh CODE PATTERN [--count N] -- COMMAND...
# Runs COMMAND (under a 120 s deadline), then checks that it exited with CODE ("nonzero" for
# any failure other than the deadline) and that its output (stdout and stderr together)
# matches the extended regular expression PATTERN on at least N lines (default 1). Prints the
# output on failure.
set -uo pipefail
expected_code=$1 pattern=$2
shift 2
count=1
if [[ ${1:-} == --count ]]; then count=$2; shift 2; fi
[[ ${1:-} == -- ]] && shift
output=$(timeout 120 "$@" 2>&1)
code=$?
matches=$(grep -Ec -- "$pattern" <<<"$output")
if [[ $expected_code == nonzero ]]; then
  code_ok=$(( code != 0 && code != 124 ))
else
  code_ok=$(( code == expected_code ))
fi
if [[ $code_ok -ne 1 || $matches -lt $count ]]; then
  printf '%s\n' "$output"
  printf '\nexpected exit %s and %s line(s) matching /%s/; got exit %s and %s line(s)\n' \
    "$expected_code" "$count" "$pattern" "$code" "$matches"
  exit 1
fi
echo "ok: exit $code, $matches line(s) match /$pattern/"
