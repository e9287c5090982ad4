#!/usr/bin/env bash
# Answers "does this kernel change alter the machine code?" without a GPU:
# compares what nvcc makes from two kernel trees, kernel by kernel, for
# every reachable variant (byte-identical code needs no new measurement).
#   tools/sass_compare.sh OLD NEW [op...]
# OLD, NEW: folders holding kernels/ (e.g. a `git archive <rev> kernels`
# unpacked, and .); ops: default all of kernels/contract.h's GPUACT_OPS.
# Every variant of an op in one translation unit, with the host's options;
# ARCH (default sm_90). Needs nvcc, readelf and build/rtc_check (make
# build/rtc_check: its `list` gives the variants).
set -eu
old=$1 new=$2; shift 2
arch=${ARCH:-sm_90}
ops=${*:-$(sed -n 's/^#define GPUACT_OPS(X) //p' kernels/contract.h | grep -o 'X.[a-z_]*' | cut -c3-)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for op in $ops; do
  { echo "#include \"$op.cu\""; build/rtc_check list | grep "^GPUACT_KERNEL($op,"; } >"$tmp/all_$op.cu"
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    nvcc -cubin -arch="$arch" -I"$dir/kernels/cuda" --fmad=false --ftz=false -DGPUACT_UNROLL=2 \
      -DGPUACT_BLOCK=256 -diag-suppress 128 "$tmp/all_$op.cu" -o "$tmp/$op.$side.cubin" 2>"$tmp/$op.$side.log" ||
      { cat "$tmp/$op.$side.log"; exit 1; }
  done
  total=0 differ=0
  for sec in $(readelf -SW "$tmp/$op.new.cubin" 2>/dev/null | grep -o '\.text\.[A-Za-z0-9_]*' | sort -u); do
    total=$((total + 1))
    if ! cmp -s <(readelf -x "$sec" "$tmp/$op.old.cubin" 2>/dev/null) <(readelf -x "$sec" "$tmp/$op.new.cubin" 2>/dev/null); then
      differ=$((differ + 1)); status=1; echo "  differs: ${sec#.text.}"
    fi
  done
  echo "$op: $total kernels, $differ differ"
done
exit $status
