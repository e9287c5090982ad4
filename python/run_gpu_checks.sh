#!/usr/bin/env bash
# The Python package's checks on a GPU machine, in one run:
#   python/run_gpu_checks.sh [OUT]       (OUT: where the logs and tables go; default $OUT or /tmp/gpuact-python)
# Installs ./python into the current Python (--no-build-isolation: the machine
# has no network; it uses the setuptools already there, and builds
# gpuact.torch's compiled operators against the torch installed), prints what gpuact
# sees (python -m gpuact --self-test), runs the tests (torch, CuPy and JAX
# ones included; the gated forms' in tests/test_gated_gpu.py, the few-bit
# backward's in tests/test_fewbit_gpu.py), the per-call host times against
# torch (bench/host_time.py, under a minute), the DistributedDataParallel
# check on two GPUs (tests/ddp_check.py under torchrun; "skipped" with fewer
# than two visible) and the benchmark, and ends with a short summary.
# BENCH_ARGS adds options to the benchmark (e.g. "--quick" or "--only a");
# PY_TESTS_ONLY=1 leaves the benchmark out.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/gpuact-python}}
mkdir -p "$out"
py=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false

"$py" -m pip install --no-build-isolation --no-deps --force-reinstall -q ./python > "$out/install.txt" 2>&1
install=$?
tail -5 "$out/install.txt"
# gpuact.torch's compiled operators, built by that install against this torch
"$py" -c "import gpuact.torch._ext as e, torch; print('gpuact.torch._ext:', e.__file__, 'torch', torch.__version__)" \
  2>&1 | tee -a "$out/install.txt"
[ "${PIPESTATUS[0]}" = 0 ] || install=1
"$py" -m gpuact --self-test 2>&1 | tee "$out/info.txt"
info=${PIPESTATUS[0]}
"$py" -m pytest python/tests -q -rs -p no:cacheprovider 2>&1 | tee "$out/pytest.txt"
tests=${PIPESTATUS[0]}
"$py" python/bench/host_time.py --json "$out/host_time.json" 2>&1 | tee "$out/host_time.txt"
host=${PIPESTATUS[0]}
ngpu=$("$py" -c "import torch; print(torch.cuda.device_count())" 2>/dev/null || echo 0)
if [ "${ngpu:-0}" -ge 2 ]; then
  "$py" -m torch.distributed.run --standalone --nproc_per_node=2 python/tests/ddp_check.py 2>&1 | tee "$out/ddp.txt"
  ddp=${PIPESTATUS[0]}
  ddp_line=$(grep "ddp_check: \(OK\|FAIL\)" "$out/ddp.txt" | tail -1)
else
  ddp=0
  ddp_line="ddp_check: skipped ($ngpu GPU visible, 2 needed)"
  echo "$ddp_line" | tee "$out/ddp.txt"
fi
bench=0
if [ -z "${PY_TESTS_ONLY:-}" ]; then   # PY_TESTS_ONLY=1: the checks without the benchmark
  "$py" python/bench/bench_torch.py --out "$out" ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.txt"
  bench=${PIPESTATUS[0]}
fi

echo
echo "| step | exit status |"
echo "|---|---|"
echo "| pip install --no-build-isolation ./python | $install |"
echo "| python -m gpuact --self-test | $info |"
echo "| pytest python/tests: $(tail -1 "$out/pytest.txt") | $tests |"
echo "| bench/host_time.py: $(grep "rows at" "$out/host_time.txt" | tail -1) | $host |"
echo "| tests/ddp_check.py on 2 GPUs: $ddp_line | $ddp |"
echo "| bench_torch.py (tables in $out/results.md) | $bench |"
[ "$install$info$tests$host$ddp$bench" = "000000" ]
