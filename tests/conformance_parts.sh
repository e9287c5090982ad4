#!/usr/bin/env bash
# The conformance suite as parts run side by side, one process each (PoCL
# builds one kernel at a time per process, so on a 2-core CI machine two
# processes compile twice as fast), then the check that the parts together
# launched every reachable kernel variant (conformance --launched).
#   usage: tests/conformance_parts.sh BINARY OUTDIR PART...
# PART: suites, comma-separated (GPUACT_CONFORMANCE_SUITES). The parts' output
# follows in order, with the exit status or signal of a part that failed; the
# exit status is 0 only if every part and the check pass.
set -u
bin=$1 out=$2
shift 2
# The parts share the CPUs: PoCL's pool of threads in each (one per CPU by default) is its share,
# so the parts' threads do not outnumber the CPUs.
: "${POCL_MAX_PTHREAD_COUNT:=$(( $(nproc) / $# > 1 ? $(nproc) / $# : 1 ))}"
export POCL_MAX_PTHREAD_COUNT
mkdir -p "$out"
rm -f "$out"/launched.* "$out"/part.*.log
i=0 pids="" parts="$*"
for part in "$@"; do
    i=$((i + 1))
    GPUACT_CONFORMANCE_SUITES=$part GPUACT_CONFORMANCE_LAUNCHED=$out/launched.$i "$bin" >"$out/part.$i.log" 2>&1 &
    pids="$pids $!"
done
rc=0 i=0 statuses=""
for p in $pids; do
    st=0
    wait "$p" || st=$?
    statuses="$statuses $st"
done
set -- $statuses
for part in $parts; do
    i=$((i + 1))
    st=$1
    shift
    echo "== conformance, suites $part"
    cat "$out/part.$i.log"
    # a part that dies prints nothing of why: say how it ended
    if [ "$st" -gt 128 ]; then
        echo "== conformance, suites $part: killed by signal $((st - 128)) (SIG$(kill -l $((st - 128)) 2>/dev/null))"
        rc=1
    elif [ "$st" -ne 0 ]; then
        echo "== conformance, suites $part: exit status $st"
        rc=1
    fi
done
"$bin" --launched "$out"/launched.* || rc=1
exit $rc
