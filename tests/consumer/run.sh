#!/bin/sh
# Consumer tests: install gpuact into a temporary prefix (make install), then
# build tests/consumer/consumer.c as C99 and as C++ three ways and run each:
#   1. CMake find_package(gpuact) with CMAKE_PREFIX_PATH=<prefix>
#   2. CMake add_subdirectory of this checkout
#   3. cc $(pkg-config --cflags --libs gpuact) against <prefix>
# and 4. find_package with GPUACT_NO_RUNTIME_LINKING=ON (OpenCL linked; the
# CUDA toolkit is not searched, so the program runs without a GPU). Also
# checks the installed CMake version file's compatibility rule, and that
# `cmake --install` lays out the same files as `make install`. A header the
# install leaves out fails the builds of 1, 3 and 4 (they see only <prefix>).
#
#   tests/consumer/run.sh       (or `make consumer-test`; CC, CXX, MAKE honoured)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
MAKE=${MAKE:-make}
WARN="-Wall -Wextra -Werror -pedantic"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuact-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step() { printf 'consumer-test: %s\n' "$*"; }
# Runs a command quietly; on failure shows its output and stops.
quiet() {
    if ! "$@" >"$tmp/log" 2>&1; then
        cat "$tmp/log"
        step "FAILED: $*"
        exit 1
    fi
}
run_consumer() {
    out=$("$1") || { printf '%s\n' "$out"; step "FAILED: $1"; exit 1; }
    step "  $out"
}

major=$(awk '$2 == "GPUACT_VERSION_MAJOR" { print $3 }' "$root/gpuact.h")
minor=$(awk '$2 == "GPUACT_VERSION_MINOR" { print $3 }' "$root/gpuact.h")
patch=$(awk '$2 == "GPUACT_VERSION_PATCH" { print $3 }' "$root/gpuact.h")

step "make install PREFIX=<tmp>"
quiet "$MAKE" -C "$root" --no-print-directory install PREFIX="$prefix"
quiet "$prefix/bin/gpuact-info"

step "cmake --install <tmp2> installs the same files"
quiet cmake -S "$root" -B "$tmp/build" -DCMAKE_C_COMPILER="$CC"
quiet cmake --build "$tmp/build"
quiet cmake --install "$tmp/build" --prefix "$tmp/prefix2"
(cd "$prefix" && find . -type f | sort) >"$tmp/make.files"
(cd "$tmp/prefix2" && find . -type f | sort) >"$tmp/cmake.files"
if ! diff "$tmp/make.files" "$tmp/cmake.files"; then step "FAILED: make install and cmake --install differ"; exit 1; fi
grep -q "^prefix=$tmp/prefix2\$" "$tmp/prefix2/lib/pkgconfig/gpuact.pc" ||
    { step "FAILED: cmake --install wrote the wrong prefix into gpuact.pc"; exit 1; }

step "version rule of gpuactConfigVersion.cmake ($major.$minor.$patch)"
quiet cmake -DVERSION_FILE="$prefix/lib/cmake/gpuact/gpuactConfigVersion.cmake" \
    -DMAJOR="$major" -DMINOR="$minor" -DPATCH="$patch" -P "$here/version_rule.cmake"

step "1. CMake find_package (C and C++)"
quiet cmake -S "$here" -B "$tmp/find" -DCMAKE_PREFIX_PATH="$prefix" -DGPUACT_WANT_VERSION="$major.$minor" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX"
grep -q "^gpuact_DIR:PATH=$prefix/lib/cmake/gpuact\$" "$tmp/find/CMakeCache.txt" ||
    { grep '^gpuact_DIR' "$tmp/find/CMakeCache.txt"; step "FAILED: find_package found another gpuact"; exit 1; }
quiet cmake --build "$tmp/find"
run_consumer "$tmp/find/consumer_c"
run_consumer "$tmp/find/consumer_cxx"

step "2. CMake add_subdirectory (C and C++)"
quiet cmake -S "$here" -B "$tmp/sub" -DGPUACT_SOURCE_DIR="$root" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX"
quiet cmake --build "$tmp/sub"
run_consumer "$tmp/sub/consumer_c"
run_consumer "$tmp/sub/consumer_cxx"

step "3. pkg-config (C and C++)"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig" pkg-config --cflags --libs gpuact)
case "$flags" in *"$prefix/include/gpuact"*) ;; *) step "FAILED: pkg-config gave '$flags'"; exit 1 ;; esac
# shellcheck disable=SC2086 # the flags are words
quiet "$CC" -std=c99 $WARN "$here/consumer.c" -o "$tmp/pc_c" $flags
# shellcheck disable=SC2086
quiet "$CXX" -std=c++11 $WARN -x c++ "$here/consumer.c" -x none -o "$tmp/pc_cxx" $flags
run_consumer "$tmp/pc_c"
run_consumer "$tmp/pc_cxx"
step "4. CMake find_package with GPUACT_NO_RUNTIME_LINKING=ON (C and C++)"
quiet cmake -S "$here" -B "$tmp/linked" -DCMAKE_PREFIX_PATH="$prefix" -DGPUACT_WANT_VERSION="$major.$minor" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DGPUACT_NO_RUNTIME_LINKING=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX"
quiet cmake --build "$tmp/linked"
run_consumer "$tmp/linked/consumer_c"
run_consumer "$tmp/linked/consumer_cxx"
step "ok"
