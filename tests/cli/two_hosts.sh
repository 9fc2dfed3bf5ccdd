#!/usr/bin/env bash
# two_hosts.sh TPLAB PYTHON CHECK_VERIFY_JSON
# verify at 4 ranks (overlap off and on) through a hostfile that names this machine twice, as 127.0.0.2 and
# 127.0.0.3 with 2 slots each (loopback_rsh.sh stands in for ssh, so each name gets a daemon
# and a host name of its own). Checks that every run passes, that the ranks report two hosts
# with two ranks each, and that the JSON records both hosts in every run.
set -uo pipefail
tplab=$1 python=$2 check_json=$3
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '# this machine under two loopback names\n127.0.0.2 slots=2\n127.0.0.3 slots=2\n' >"$scratch/hosts"
# All traffic over TCP on the loopback, as between real hosts (two daemons of one machine must
# not share memory segments).
export OMPI_MCA_plm_rsh_agent="$here/loopback_rsh.sh" OMPI_MCA_btl=tcp,self
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
output=$(timeout 120 "$tplab" verify --scheme 1d --np 4 --hosts "$scratch/hosts" \
  --json "$scratch/verify.json" 2>&1)
code=$?
fail() { printf '%s\n\nFAIL: %s\n' "$output" "$1"; exit 1; }
((code == 0)) || fail "verify exited $code"
grep -q '^ALL PASS: 14 runs' <<<"$output" ||
  fail "no 'ALL PASS: 14 runs' (4 configurations, overlap off and on, 2 with scores past exp's overflow point, and the GPT in f64 and f32, overlap off and on)"
grep -Eq '^ranks on 2 hosts: 127\.0\.0\.2 \(ranks [0-3],[0-3]\), 127\.0\.0\.3 \(ranks [0-3],[0-3]\)$' \
  <<<"$output" || fail "the ranks did not report two hosts of two ranks each"
"$python" - "$scratch/verify.json" <<'PY' || fail "the JSON does not record two hosts in every run"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 14, len(runs)
for run in runs:
    hosts = {h["name"]: sorted(h["ranks"]) for h in run["hosts"]}
    assert set(hosts) == {"127.0.0.2", "127.0.0.3"}, hosts
    assert sorted(r for ranks in hosts.values() for r in ranks) == [0, 1, 2, 3], hosts
    assert all(len(r) == 2 for r in hosts.values()), hosts
PY
"$python" "$check_json" "$scratch/verify.json" >/dev/null || fail "check_verify_json.py refused the JSON"
grep -E '^ranks on|^hosts from' <<<"$output"

# bench comm records the hosts in every row, and the report marks such rows.
output=$(timeout 120 "$tplab" bench comm --np 4 --collective all_reduce --min-bytes 1K --max-bytes 4K \
  --hosts "$scratch/hosts" --json "$scratch/comm.json" 2>&1) || fail "bench comm failed"
"$python" "$here/../../bench/report/report.py" "$scratch/comm.json" -o "$scratch/report" \
  >/dev/null || fail "the report failed"
grep -q '| 2 hosts' "$scratch/report/report.md" || fail "the report does not mark the 2 hosts"
echo "ok: 10 runs passed on 2 hosts; bench comm and its report record them"
