#!/usr/bin/env bash
# gpu_check_installs_nothing.sh LAUNCHER: ./tplab gpu-check on a machine where the launcher would
# find every Debian package missing (a dpkg-query that knows none) and no GPU (an nvidia-smi
# that sees none). gpu-check must neither install anything (apt-get and pip record any call)
# nor ask for it, and must end with its own verdict: no CUDA device, exit 4.
set -uo pipefail
launcher=$1
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\nexit 1\n' >"$fake/dpkg-query"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$fake/nvidia-smi"
for tool in apt-get apt pip pip3 sudo; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 0\n' "$tool" "$fake" >"$fake/$tool"
done
chmod +x "$fake"/*

output=$(PATH="$fake:$PATH" timeout 60 "$launcher" gpu-check 2>&1)
code=$?
problems=()
((code == 4)) || problems+=("exit $code, not 4")
grep -q 'gpu-check: no CUDA device found' <<<"$output" || problems+=("no 'no CUDA device found' verdict")
grep -qE 'installing|missing Debian packages|apt-get install' <<<"$output" &&
  problems+=("it installed, or asked to install, packages")
[[ -f $fake/called ]] && problems+=("it called: $(tr '\n' ';' <"$fake/called")")
if ((${#problems[@]})); then
  printf '%s\n' "$output"
  printf 'FAIL: %s\n' "${problems[@]}"
  exit 1
fi
echo "ok: gpu-check installed nothing and said: $(grep -m 1 'no CUDA device found' <<<"$output")"
