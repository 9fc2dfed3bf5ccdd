#!/usr/bin/env bash
# rehearse.sh BUNDLE: a GPU bundle on this machine's CPU, as it will meet a GPU machine where
# nothing is installed (./tplab gpu-bundle --rehearse runs it after making the bundle).
#
# usage: bench/gpu_bundle/rehearse.sh [BUNDLE]   (default build-bundle/gpu-bundle)
#
# 1. Copies BUNDLE to a new folder elsewhere.
# 2. In a mount namespace of its own (unshare), hides this machine's Open MPI: an empty folder
#    over each of its folders, /dev/null over each of its files (every file of the Debian
#    packages openmpi-*, libopenmpi*, *pmix*), and an empty folder over build-bundle/, where the
#    bundle was made, so that nothing can reach back to it.
# 3. There, with the loader recording every library it loads (LD_DEBUG=libs):
#      run.sh cpu-rehearsal   must pass: verify on the CPU at 1, 2 and 4 ranks, through the
#                             bundled mpiexec;
#      run.sh gpu-check       must end every GPU step with "no CUDA device" and exit 4, in
#                             seconds (this machine has no GPU).
# 4. Checks the loader's record: every library the bundle's programs (tplab, the test programs,
#    Open MPI's launcher) loaded came from the copy, except glibc's, the GCC runtime's and
#    cuBLAS, cuBLASLt and NCCL; it lists each that came from outside, and fails on any other.
# Exit 0 when all of it holds, 1 otherwise. Needs root or unprivileged user namespaces.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle=${1:-$root/build-bundle/gpu-bundle}
say() { printf 'rehearse: %s\n' "$*"; }
[[ -x $bundle/run.sh && -f $bundle/bundle.env ]] ||
  { say "'$bundle' is not a bundle (make one with ./tplab gpu-bundle)"; exit 2; }
bundle="$(cd "$bundle" && pwd)"

# ---- inside the namespace --------------------------------------------------------------------------

if [[ ${REHEARSE_INSIDE:-} == 1 ]]; then
  set -e
  empty=$(mktemp -d)
  hide() {
    local path
    for path in "$@"; do
      path=$(readlink -f "$path") || continue
      if [[ -d $path ]]; then mount --bind "$empty" "$path"
      elif [[ -e $path ]]; then mount --bind /dev/null "$path"; fi
    done
  }
  mapfile -t packages < <(dpkg-query -W -f='${Package}\n' 2>/dev/null | grep -E '^(openmpi-|libopenmpi|libpmix|pmix)' || true)
  # their files (not the folders they share with other packages), and their own folders
  mapfile -t files < <( ((${#packages[@]})) && dpkg -L "${packages[@]}" 2>/dev/null |
    while read -r path; do [[ -d $path ]] || echo "$path"; done || true)
  hidden=0
  for path in /usr/lib/x86_64-linux-gnu/openmpi /etc/openmpi /usr/share/openmpi \
              /usr/lib/x86_64-linux-gnu/pmix2 "${files[@]}"; do
    [[ -e $path ]] || continue
    hide "$path"
    hidden=$((hidden + 1))
  done
  hide "$root/build-bundle"
  say "hidden: $hidden paths of this machine's Open MPI (${packages[*]:-no Debian packages found}), and $root/build-bundle"
  if command -v mpiexec >/dev/null && mpiexec --version >/dev/null 2>&1; then
    say "this machine's mpiexec still runs: the hiding failed"
    exit 1
  fi
  set +e
  cd "$REHEARSE_COPY"
  mkdir -p "$REHEARSE_TMP/loader"
  export LD_DEBUG=libs LD_DEBUG_OUTPUT="$REHEARSE_TMP/loader/ld"
  say "run.sh cpu-rehearsal"
  start=$SECONDS
  ./run.sh cpu-rehearsal >"$REHEARSE_TMP/cpu-rehearsal.log" 2>&1
  echo "cpu-rehearsal $? $((SECONDS - start))" >"$REHEARSE_TMP/codes"
  say "run.sh gpu-check"
  start=$SECONDS
  OUT="$REHEARSE_TMP/results" ./run.sh gpu-check --budget 120 >"$REHEARSE_TMP/gpu-check.log" 2>&1
  echo "gpu-check $? $((SECONDS - start))" >>"$REHEARSE_TMP/codes"
  exit 0
fi

# ---- outside: the copy, the namespace, the verdicts ------------------------------------------------

tmp=$(mktemp -d /tmp/tplab-rehearsal.XXXXXX)
copy="$tmp/elsewhere/$(basename "$bundle")"
mkdir -p "$(dirname "$copy")"
cp -a "$bundle" "$copy"
say "copied $bundle to $copy ($(du -sh "$copy" | cut -f1))"
unshare_args=(--mount --propagation private)
[[ $(id -u) -eq 0 ]] || unshare_args+=(--map-root-user)
REHEARSE_INSIDE=1 REHEARSE_COPY="$copy" REHEARSE_TMP="$tmp" \
  unshare "${unshare_args[@]}" "${BASH_SOURCE[0]}" "$bundle" ||
  { say "could not rehearse in a mount namespace of its own (root or user namespaces needed)"; exit 1; }

failures=0
verdict() {  # verdict OK|FAIL TEXT
  printf '  %-4s %s\n' "$1" "$2"
  [[ $1 == ok ]] || failures=$((failures + 1))
}
read -r _ cpu_code cpu_seconds < <(grep '^cpu-rehearsal' "$tmp/codes")
read -r _ gpu_code gpu_seconds < <(grep '^gpu-check' "$tmp/codes")

echo
echo "== run.sh cpu-rehearsal (exit $cpu_code, $cpu_seconds s), its last lines:"
tail -n 12 "$tmp/cpu-rehearsal.log" | sed 's/^/  /'
echo "== run.sh gpu-check (exit $gpu_code, $gpu_seconds s), its verdicts:"
sed -n '/one verdict per step/,$p' "$tmp/gpu-check.log" | sed 's/^/  /'

# The loader's record of the bundle's own programs: LD_DEBUG wrote one file per process; those
# of the shell, python3 and the tools run.sh uses are this machine's business.
echo "== libraries the bundle's programs loaded from outside the bundle"
# A process that exec()s starts a new image in the same file: each image begins with the
# loader's own "calling init" and names its program before handing it control.
loaded=$(awk -v copy="$copy/" '
  /calling init: .*\/ld-linux-x86-64\.so\.2$/ { flush(); n = 0; program = "" }
  /calling init:/ { libs[++n] = $NF }
  /initialize program:/ { program = $NF }
  END { flush() }
  function flush(   i) {
    if (index(program, copy) != 1) return
    print "program", program
    for (i = 1; i <= n; i++) print "lib", libs[i]
  }' "$tmp"/loader/ld.* 2>/dev/null)
records=$(grep -c '^program ' <<<"$loaded")
programs=$(grep '^program ' <<<"$loaded" | awk '{print $2}' | xargs -r -n 1 basename | sort | uniq -c |
  awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')
outside=$(grep '^lib ' <<<"$loaded" | awk '{print $2}' | grep -v "^$copy/" | sort -u)
allowed='/(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libutil\.so\.1|libresolv\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libcublas\.so\.13|libcublasLt\.so\.13|libnccl\.so\.2)$'
printf '  %s\n' ${outside:-"(none)"}
stray=$(grep -vE "$allowed" <<<"$outside" | grep -v '^$' || true)
echo "== verdicts"
((records > 0)) && verdict ok "the loader recorded $records programs of the bundle: $programs" ||
  verdict FAIL "the loader recorded none of the bundle's programs"
[[ -z $stray ]] && verdict ok "nothing but glibc, the GCC runtime, cuBLAS, cuBLASLt and NCCL came from outside the bundle" ||
  verdict FAIL "from outside the bundle: $(tr '\n' ' ' <<<"$stray")"
((cpu_code == 0)) && verdict ok "cpu-rehearsal passed in $cpu_seconds s" ||
  verdict FAIL "cpu-rehearsal ended with $cpu_code (log: $tmp/cpu-rehearsal.log)"
steps=$(grep -cE '^  [A-Z]' <(sed -n '/one verdict per step/,$p' "$tmp/gpu-check.log"))
no_device=$(grep -cE '^  NO CUDA DEVICE' <(sed -n '/one verdict per step/,$p' "$tmp/gpu-check.log"))
((gpu_code == 4 && no_device == 4 && gpu_seconds < 60)) &&
  verdict ok "gpu-check ended every GPU step (4 of $steps) with \"no CUDA device\", exit 4, in $gpu_seconds s" ||
  verdict FAIL "gpu-check: exit $gpu_code, $no_device of 4 GPU steps said \"no CUDA device\", $gpu_seconds s (log: $tmp/gpu-check.log)"
((failures == 0)) && say "PASS: the bundle runs from $copy alone (logs in $tmp)" ||
  say "FAILED: $failures of the checks above (logs in $tmp)"
((failures == 0))
