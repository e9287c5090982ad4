#!/usr/bin/env bash
# The conformance suite as parts run side by side, one process each (PoCL
# builds one kernel at a time per process, so on a 2-core CI machine two
# processes compile twice as fast), then the check that the parts together
# launched every reachable kernel variant (conformance --launched).
#   usage: tests/conformance_parts.sh BINARY OUTDIR PART...
# PART: suites, comma-separated (GPUACT_CONFORMANCE_SUITES). The parts' output
# follows in order; the exit status is 0 only if every part and the check pass.
set -u
bin=$1 out=$2
shift 2
mkdir -p "$out"
rm -f "$out"/launched.* "$out"/part.*.log
i=0 pids=""
for part in "$@"; do
    i=$((i + 1))
    GPUACT_CONFORMANCE_SUITES=$part GPUACT_CONFORMANCE_LAUNCHED=$out/launched.$i "$bin" >"$out/part.$i.log" 2>&1 &
    pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
i=0
for part in "$@"; do
    i=$((i + 1))
    echo "== conformance, suites $part"
    cat "$out/part.$i.log"
done
"$bin" --launched "$out"/launched.* || rc=1
exit $rc
