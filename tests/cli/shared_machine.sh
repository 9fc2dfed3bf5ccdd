#!/usr/bin/env bash
# shared_machine.sh TPLAB SOURCE_DIR
# Another user on the same machine ("nobody", through setpriv) plants, in the temporary folder
# tplab will use, what once redirected its results: folders named as the old job folders were
# (tplab-jobs-<pid>, for the next few thousand process ids, mode 777) holding a link job-0.json
# to the victim's file, or a forged result that says every run passed; a link where the
# victim's --json will go; a folder of their own, and a TMPDIR every user may write into.
# The victim (root, as in CI) then runs verify. The test checks that the victim's file is
# unchanged, that no planted result was read, that tplab refuses each planted target with a
# reason (exit 2), and that its own job folder is gone afterwards. The Python tools (report's
# folder, gpu-check's results folder) refuse the other user's folder too.
# Exits 77 (skipped) where it cannot act as two users.
set -uo pipefail
tplab=$1 source_dir=$2
if [[ $(id -u) -ne 0 ]] || ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
  echo "skipped: needs root, setpriv (util-linux) and the user nobody to act as two users"
  exit 77
fi
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

shared=$(mktemp -d)  # the shared temporary folder: sticky and open to all, as /tmp
chmod 1777 "$shared"
victim=$(mktemp -d)  # the victim's own folder, and a file of theirs that must not change
chmod 755 "$victim"
echo "the victim's own data" >"$victim/precious.txt"
expected=$(sha256sum <"$victim/precious.txt")
trap 'rm -rf "$shared" "$victim"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
unchanged() {
  [[ $(sha256sum <"$victim/precious.txt") == "$expected" ]] || fail "$1: the victim's file changed"
}

# What the other user plants: the old job folders' names for the next 3000 process ids (from
# the last one the kernel handed out; Perl makes them all without starting a process), each
# with either a link to the victim's file or a forged result.
as_nobody perl -e '
  my ($shared, $victim) = @ARGV;
  my $forged = q({"runs": [{"scheme": "forged", "pass": true}], "pass": true, "job_token": "x"});
  open(my $last, "<", "/proc/sys/kernel/ns_last_pid") or die; my $first = <$last>; chomp $first;
  for my $pid ($first .. $first + 2999) {
    my $folder = "$shared/tplab-jobs-$pid";
    mkdir $folder or die "$folder: $!"; chmod 0777, $folder;
    if ($pid % 2) { symlink("$victim/precious.txt", "$folder/job-0.json") or die; }
    else { open(my $f, ">", "$folder/job-0.json") or die; print $f "$forged\n"; close $f; }
  }
  symlink("$victim/precious.txt", "$shared/result.json") or die;
  for my $name ("theirs", "open-tmp") { mkdir "$shared/$name" or die; chmod 0777, "$shared/$name"; }
' "$shared" "$victim" || fail "nobody could not plant the folders"

echo "== verify with TMPDIR at the shared folder, --json into the victim's own folder"
output=$(TMPDIR=$shared timeout 120 "$tplab" verify --scheme 1d --np 1 --dtype f64 --overlap off \
  --json "$victim/out.json" 2>&1)
code=$?
printf '%s\n' "$output" | tail -n 3
[[ $code -eq 0 ]] || fail "verify exited $code"
grep -q "^ALL PASS: 4 runs" <<<"$output" || fail "no ALL PASS line"
unchanged "verify"
if grep -q forged "$victim/out.json" 2>/dev/null; then fail "a planted result was read"; fi
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["pass"] and len(d["runs"]) == 4 and not d["failures"], d' "$victim/out.json" ||
  fail "the victim's --json is not verify's own result"
leftover=$(find "$shared" -maxdepth 1 -name 'tplab-job-*' | wc -l)
[[ $leftover -eq 0 ]] || fail "$leftover job folder(s) of tplab left in the shared folder"

expect_refusal() {  # expect_refusal WHAT PATTERN COMMAND...: exit 2, the reason, nothing changed
  local what=$1 pattern=$2
  shift 2
  echo "== $what"
  local said
  said=$("$@" 2>&1)
  local status=$?
  printf '%s\n' "$said" | tail -n 1
  [[ $status -eq 2 ]] || fail "$what: exit $status, expected 2"
  grep -Eq -- "$pattern" <<<"$said" || fail "$what: no line matches /$pattern/"
  unchanged "$what"
}
expect_refusal "--json at a link planted by another user" "symbolic link, and tplab writes through no link" \
  env TMPDIR="$shared" "$tplab" verify --scheme 1d --np 1 --json "$shared/result.json"
[[ -L $shared/result.json ]] || fail "the planted link was touched"
expect_refusal "--json into another user's folder" "belongs to user nobody" \
  env TMPDIR="$shared" "$tplab" verify --scheme 1d --np 1 --json "$shared/theirs/r.json"
expect_refusal "a TMPDIR every user may write into, without the sticky bit" \
  "TMPDIR=.*open-tmp: tplab keeps no job files there: (it belongs to user nobody|every user may write)" \
  env TMPDIR="$shared/open-tmp" "$tplab" verify --scheme 1d --np 1
expect_refusal "dump --out into another user's folder" "belongs to user nobody" \
  "$tplab" dump --shape 2,4,8,2 --out "$shared/theirs/ref"
expect_refusal "report -o into another user's folder" "belongs to user nobody" \
  python3 "$source_dir/bench/report/report.py" "$victim/out.json" -o "$shared/theirs/report"
expect_refusal "gpu-check's results folder inside another user's folder" "belongs to user nobody" \
  python3 "$source_dir/bench/report/safe_output.py" new-folder "$shared/theirs/gpu-check/run"

if ((failed)); then exit 1; fi
echo "ok: the victim's file is unchanged, no planted result was read, each planted target refused"
