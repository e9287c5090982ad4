#!/usr/bin/env bash
# The Python package's GPU run in one command, on a machine with torch installed (no network needed):
#   python/bench/run_all.sh [OUT]        (OUT: where the logs and tables go; default $OUT or /tmp/gpuact-python)
# 1. python/run_gpu_checks.sh without its long benchmark: pip install --no-build-isolation ./python,
#    python -m gpuact --self-test, pytest python/tests, bench/host_time.py (f32), tests/ddp_check.py under
#    torchrun when two GPUs are visible ("skipped" otherwise);
# 2. bench/host_time.py in bf16;
# 3. bench/train_step.py, every case, eager and compiled;
# 4. bench/host_time.py --compile (the torch.compile rows), cut off after HOST_COMPILE_S seconds (default 120).
# About five minutes on one H100; ends with the summary lines of each step.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-${OUT:-/tmp/gpuact-python}}
mkdir -p "$out"
py=${PYTHON:-python3}
export PYTHONUNBUFFERED=1

PY_TESTS_ONLY=1 PYTHON="$py" bash python/run_gpu_checks.sh "$out" > "$out/checks.txt" 2>&1
checks=$?
"$py" python/bench/host_time.py --dtype bf16 --json "$out/host_time_bf16.json" > "$out/host_time_bf16.txt" 2>&1
host_bf16=$?
"$py" python/bench/train_step.py --json "$out/train_step.json" > "$out/train_step.txt" 2>&1
train=$?
timeout "${HOST_COMPILE_S:-120}" "$py" python/bench/host_time.py --compile --json "$out/host_time_compile.json" \
  > "$out/host_time_compile.txt" 2>&1
host_compile=$?

echo "== run_gpu_checks.sh (exit $checks): $out/checks.txt"
tail -9 "$out/checks.txt"
echo "== host_time.py bf16 (exit $host_bf16): $out/host_time_bf16.txt"
grep "rows at" "$out/host_time_bf16.txt"
echo "== train_step.py (exit $train): $out/train_step.txt"
grep "^|" "$out/train_step.txt"
tail -1 "$out/train_step.txt"
echo "== host_time.py --compile (exit $host_compile; 124: cut off): $out/host_time_compile.txt"
grep "compiled" "$out/host_time_compile.txt"
[ "$checks$host_bf16$train" = "000" ]
