#!/usr/bin/env bash
# launcher_paths.sh LAUNCHER EXAMPLE.json
# The launcher (./tplab) builds from its checkout but runs a command from the folder it was
# called from: `tplab report` given relative paths reads and writes them there, not in the
# checkout.
set -euo pipefail
launcher=$1 example=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$example" "$work/sweep.json"
cd "$work"
"$launcher" report sweep.json -o report
[[ -f "$work/report/report.md" ]] || { echo "FAIL: report.md is not in the caller's folder"; exit 1; }
echo "ok: relative paths are the caller's"
