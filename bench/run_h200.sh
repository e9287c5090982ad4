#!/usr/bin/env bash
# The GPU machine's run: build there, then correctness (conformance on CUDA,
# OpenCL and HIP-through-the-mapping, > 2^31 elements, compute-sanitizer),
# then measurements (gpuact-bench, first call, torch comparison). Results go
# to $OUT (default build/h200). Needs .device/ (see ../shared/DEVICE.md) for
# OpenCL. Usage: bench/run_h200.sh check|sanitize|measure|all (each fits a
# 10-minute device call)
set -u
OUT=${OUT:-build/h200}
mkdir -p "$OUT"
what=${1:-all}
log() { echo; echo "=== $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
make -s -j16 all shared build/libhip_on_cuda.so >"$OUT/build.txt" 2>&1 || { tail -30 "$OUT/build.txt"; exit 1; }
export GPUACT_CACHE_DIR=/tmp/gpuact-cache

if [ "$what" = check ] || [ "$what" = all ]; then
  log "conformance, CUDA"
  GPUACT_BACKEND=cuda build/conformance 2>&1 | tee "$OUT/conformance_cuda.txt" | tail -4
  log "conformance, HIP backend through tests/hip_on_cuda.c"
  GPUACT_HIP_LIBRARY=$PWD/build/libhip_on_cuda.so GPUACT_BACKEND=hip build/conformance 2>&1 |
    tee "$OUT/conformance_hip.txt" | tail -4
  log "relu forward + backward over 2^31 + 17 f32 elements, every element checked"
  GPUACT_BACKEND=cuda build/examples/relu_demo -n 2147483665 | tail -4
  log "examples on CUDA"
  build/examples/linear_relu | tail -5
  build/examples/epilogue | tail -1
  build/examples/relu_family | tail -2
  [ -x build/examples/cuda_runtime_interop ] && build/examples/cuda_runtime_interop
  log "conformance, OpenCL on NVIDIA's driver"
  ( . .device/opencl-env.sh && GPUACT_BACKEND=opencl build/conformance 2>&1 | tee "$OUT/conformance_opencl.txt" | tail -3 )
fi

if [ "$what" = sanitize ] || [ "$what" = all ]; then
  log "compute-sanitizer memcheck and racecheck (conformance on CUDA without its large case)"
  for tool in memcheck racecheck; do
    GPUACT_CONFORMANCE_LARGE=0 GPUACT_BACKEND=cuda timeout 280 compute-sanitizer --tool $tool \
      --error-exitcode 9 build/conformance >"$OUT/sanitizer_$tool.txt" 2>&1
    echo "$tool: exit $? ; $(grep -E 'ERROR SUMMARY|passed,' "$OUT/sanitizer_$tool.txt" | tr '\n' ' ')"
  done
fi

if [ "$what" = measure ] || [ "$what" = all ]; then
  log "first call in a fresh process: cold cache, then warm"
  rm -rf /tmp/gpuact-fc && for i in 1 2 3; do GPUACT_CACHE_DIR=/tmp/gpuact-fc build/first_call cuda; done | tee "$OUT/first_call.txt"
  log "gpuact-bench, CUDA"
  build/gpuact-bench --backend cuda --large 2>"$OUT/bench_cuda.err" | tee "$OUT/bench_cuda.txt"
  log "gpuact-bench, OpenCL"
  ( . .device/opencl-env.sh && build/gpuact-bench --backend opencl --only relu-f32,relu-bf16,relu-bwd-f32,epi-f32 \
      2>"$OUT/bench_opencl.err" | tee "$OUT/bench_opencl.txt" )
  log "torch comparison"
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/torch_compare.py --out "$OUT/torch_compare.md" 2>&1 |
    tee "$OUT/torch_compare.txt" | tail -60
fi

# The new kinds (issue 14): every backend's conformance in one call, then the
# A/B matrix against a build from before them (.device/base: the sources of
# that commit) and the PyTorch comparison of the new kinds.
if [ "$what" = kinds-check ]; then
  # fill the CUDA and HIP disk caches from 16 threads each, then the three backends' conformance side by
  # side (each spends most of its time compiling on a core of its own), the Python package's GPU tests
  # and the C tests on CUDA alongside
  make -s build/prewarm >/dev/null
  log "prewarm"
  GPUACT_BACKEND=cuda build/prewarm 16 & GPUACT_BACKEND=hip GPUACT_HIP_LIBRARY=$PWD/build/libhip_on_cuda.so \
    build/prewarm 16 & wait
  for b in cuda hip opencl; do
    ( [ $b = opencl ] && . .device/opencl-env.sh; [ $b = hip ] && export GPUACT_HIP_LIBRARY=$PWD/build/libhip_on_cuda.so
      GPUACT_BACKEND=$b timeout ${CONF_TIMEOUT:-400} build/conformance >"$OUT/conformance_$b.txt" 2>&1
      echo "exit $?" >>"$OUT/conformance_$b.txt" ) &
  done
  ( for t in test_validation test_threads test_stress; do GPUACT_BACKEND=cuda timeout 120 build/$t 2>&1 | tail -1; done
    build/examples/gelu_epilogue 2>&1 | tail -1 ) >"$OUT/c_tests_cuda.txt" 2>&1 &
  if [ -x python/run_gpu_checks.sh ] && [ -z "${NO_PYTHON:-}" ]; then
    ( PY_TESTS_ONLY=1 timeout ${PY_TIMEOUT:-400} python/run_gpu_checks.sh "$OUT/python" >"$OUT/python_checks.txt" 2>&1
      echo "exit $?" >>"$OUT/python_checks.txt" ) &
  fi
  wait
  for b in cuda hip opencl; do
    log "conformance, $b"
    grep -E "^FAIL|variants:|passed,|^exit" "$OUT/conformance_$b.txt" | cut -c1-300 | tail -6
  done
  log "C tests on CUDA"; cat "$OUT/c_tests_cuda.txt"
  [ -f "$OUT/python_checks.txt" ] && { log "python"; tail -25 "$OUT/python_checks.txt"; }
fi
if [ "$what" = kinds-numerics ]; then
  if [ -x python/run_gpu_checks.sh ] && [ -z "${NO_PYTHON:-}" ]; then
    log "Python package checks"
    PY_TESTS_ONLY=1 timeout ${PY_TIMEOUT:-200} python/run_gpu_checks.sh "$OUT/python" >"$OUT/python_checks.txt" 2>&1
    echo "exit $?"; grep -E "^(FAILED|ERROR)|^E  .*(Failed|Error)|passed|failed" "$OUT/python_checks.txt" | cut -c1-400 | tail -25
  fi
  log "new kinds vs PyTorch"
  PYTHONUNBUFFERED=1 timeout ${NK_TIMEOUT:-300} python3 bench/new_kinds.py --out "$OUT" ${NK_ARGS:-} >"$OUT/new_kinds.txt" 2>&1
  echo "new_kinds exit $?"; grep -E "FAIL|Error|Traceback" "$OUT/new_kinds.txt" | head; tail -5 "$OUT/new_kinds.txt"
fi
if [ "$what" = kinds-measure ]; then
  cc -std=c99 -O2 -fPIC -shared -I.device/base .device/base/tools/gpuact_shared.c -o build/libgpuact_base.so \
    -ldl -lpthread -lm || exit 1
  log "adoption cases (non-primary CUDA context, caller's OpenCL context and queue)"
  make -s build/test_adoption >/dev/null && ( . .device/opencl-env.sh; timeout 120 build/test_adoption 2>&1 | tail -12 )
  if [ -x python/run_gpu_checks.sh ] && [ -z "${NO_PYTHON:-}" ]; then
    log "Python package checks"
    PY_TESTS_ONLY=1 timeout ${PY_TIMEOUT:-200} python/run_gpu_checks.sh "$OUT/python" >"$OUT/python_checks.txt" 2>&1
    echo "exit $?"; grep -E "^____|passed|failed" "$OUT/python_checks.txt" | cut -c1-300 | tail -12
  fi
  log "matrix A/B: before the new kinds vs now"
  PYTHONUNBUFFERED=1 timeout ${AB_TIMEOUT:-300} python3 bench/matrix.py --reps ${AB_REPS:-10} --warmup 3 --n $((1 << 28)) \
    --lib before=build/libgpuact_base.so --lib now=build/libgpuact.so ${AB_MATRIX_ONLY:+--only "$AB_MATRIX_ONLY"} --out "$OUT/matrix_ab.md" >"$OUT/matrix_ab.txt" 2>&1
  echo "matrix exit $?"; tail -70 "$OUT/matrix_ab.md" 2>/dev/null || tail -30 "$OUT/matrix_ab.txt"
  if [ -f python/bench/bench_torch.py ] && [ -z "${NO_PYTHON:-}" ]; then
    log "Python package benchmark"
    PYTHONUNBUFFERED=1 timeout ${PYB_TIMEOUT:-200} python3 python/bench/bench_torch.py --out "$OUT/python" ${PYB_ARGS:-} \
      >"$OUT/python_bench.txt" 2>&1
    echo "python bench exit $?"; tail -30 "$OUT/python_bench.txt"
  fi
fi
# The 16-bit lean evaluation of the smooth kinds (issue 14): the exhaustive
# f32 accuracy run on the CPU cores (background), the PyTorch agreement of
# every 16-bit input, the special values and the speed of the new kinds and
# the gated forms, and CUDA's conformance of the smooth suites.
if [ "$what" = lean ]; then
  make -s build/accuracy >/dev/null
  [ -n "${NO_ACC:-}" ] || ( build/accuracy --sample 1000 --16 >"$OUT/accuracy_all.txt" 2>&1; echo "exit $?" >>"$OUT/accuracy_all.txt"
    for f in ${ACC_ONLY:-gelu_erf gelu_erf_d gelu_tanh gelu_tanh_d silu silu_d}; do
      timeout ${ACC_TIMEOUT:-540} build/accuracy --all --only $f --threads ${ACC_THREADS:-12} >>"$OUT/accuracy_all.txt" 2>/dev/null
      echo "$f: exit $?" >>"$OUT/accuracy_all.txt"; done ) &
  log "new kinds vs PyTorch (specials, every 16-bit input, speed, gated forms)"
  PYTHONUNBUFFERED=1 timeout ${NK_TIMEOUT:-400} python3 bench/new_kinds.py --only ${NK_ONLY:-specials,all16,speed,glu} \
    --out "$OUT" >"$OUT/new_kinds.txt" 2>&1
  echo "new_kinds exit $?"; grep -E "FAIL|Error|Traceback" "$OUT/new_kinds.txt" | head; tail -5 "$OUT/new_kinds.txt"
  wait
  log "exhaustive f32 accuracy (2^32 inputs per function) and the 16-bit variants"; tail -30 "$OUT/accuracy_all.txt"
fi
# After kinds-check: the measurements of the final tree. The adoption cases
# (issue 13), the new kinds against PyTorch (specials, every 16-bit input,
# speed, gated forms) and the Python package's host time and training steps.
if [ "$what" = final-measure ]; then
  log "adoption cases (non-primary CUDA context, caller's OpenCL context and queue)"
  make -s build/test_adoption >/dev/null && ( . .device/opencl-env.sh; timeout 120 build/test_adoption -v 2>&1 |
    tee "$OUT/adoption.txt" | tail -14 )
  log "new kinds vs PyTorch"
  PYTHONUNBUFFERED=1 timeout ${NK_TIMEOUT:-300} python3 bench/new_kinds.py --only specials,all16,speed,glu \
    --out "$OUT" >"$OUT/new_kinds.txt" 2>&1
  echo "new_kinds exit $?"; grep -E "FAIL|Error|Traceback" "$OUT/new_kinds.txt" | head
  if [ -f python/bench/bench_torch.py ] && [ -z "${NO_PYTHON:-}" ]; then
    log "Python package benchmark (host time, device time, training steps)"
    ( python3 -m pip install --no-build-isolation --no-deps --force-reinstall -q ./python >"$OUT/pip.txt" 2>&1 || true
      PYTHONUNBUFFERED=1 timeout ${PYB_TIMEOUT:-240} python3 python/bench/bench_torch.py --out "$OUT/python" \
        ${PYB_ARGS:-} >"$OUT/python_bench.txt" 2>&1; echo "python bench exit $?" ) | tail -2
    tail -40 "$OUT/python_bench.txt"
  fi
fi

# A/B of a kernel change (AB_MATRIX_ONLY: a regex of the matrix.py cells to time): conformance of the changed tree on CUDA (and the
# HIP mapping), then gpuact-bench --matrix and bench/matrix.py, each for the
# build of .device/base (the sources before the change: git archive <rev>
# gpuact.h backends kernels tools | tar -x -C .device/base) and the tree,
# alternating, in one call. AB_BASE: another folder for the base sources;
# AB_BACKEND=opencl: the matrix on NVIDIA's OpenCL driver (and its
# conformance instead of CUDA's and the HIP mapping's).
if [ "$what" = ab ]; then
  base=${AB_BASE:-.device/base} backend=${AB_BACKEND:-cuda}
  [ "$backend" = opencl ] && . .device/opencl-env.sh
  cc -std=c99 -O2 -fPIC -shared -I$base $base/tools/gpuact_shared.c -o build/libgpuact_base.so \
    -ldl -lpthread -lm || exit 1
  cc -std=c99 -O2 -I$base -I. bench/gpuact_bench.c -o build/gpuact-bench-base -ldl -lpthread -lm || exit 1
  builds="base now"
  # experiments beside them: AB_EXPS="tag:opt,opt tag2:..." (options comma-separated), each built from
  # the sources of .device/exp_<tag> when that folder exists, else the tree's. The older forms are one
  # such experiment, "exp": AB_EXP_CFLAGS (the tree with those options) or the folder .device/exp
  # (also as build/libgpuact_exp.so, for matrix.py's AB_EXP_LIB).
  exps=${AB_EXPS:-}
  [ -n "${AB_EXP_CFLAGS:-}" ] && exps="exp:$(echo $AB_EXP_CFLAGS | tr ' ' ,) $exps"
  [ -z "${AB_EXP_CFLAGS:-}" ] && [ -d .device/exp ] && exps="exp: $exps"
  for e in $exps; do
    tag=${e%%:*} opts=$(echo "${e#*:}" | tr , ' ') src=.
    [ -d .device/exp_$tag ] && src=.device/exp_$tag
    [ "$tag" = exp ] && [ -z "${AB_EXP_CFLAGS:-}" ] && src=.device/exp
    cc -std=c99 -O2 $opts -I$src -I. bench/gpuact_bench.c -o build/gpuact-bench-$tag -ldl -lpthread -lm || exit 1
    [ "$src" = .device/exp ] && { cc -std=c99 -O2 -fPIC -shared -I$src $src/tools/gpuact_shared.c \
      -o build/libgpuact_exp.so -ldl -lpthread -lm || exit 1; }
    builds="$builds $tag"
  done
  [ -n "${AB_NO_CONF:-}" ] || [ "$backend" != opencl ] || {
    log "conformance, OpenCL on NVIDIA's driver"
    GPUACT_BACKEND=opencl timeout ${CONF_TIMEOUT:-400} build/conformance >"$OUT/conformance_opencl.txt" 2>&1
    echo "exit $?" >>"$OUT/conformance_opencl.txt"; grep -E "^FAIL|variants:|passed,|^exit" "$OUT/conformance_opencl.txt" | cut -c1-300 | tail -6
  }
  [ -n "${AB_NO_CONF:-}" ] || [ "$backend" = opencl ] || {
  make -s build/prewarm >/dev/null
  log "prewarm (16 threads) and conformance, CUDA and the HIP mapping side by side"
  ( GPUACT_BACKEND=cuda build/prewarm 16 >/dev/null 2>&1
    GPUACT_BACKEND=cuda timeout 300 build/conformance >"$OUT/conformance_cuda.txt" 2>&1 ) &
  [ -z "${AB_NO_HIP:-}" ] && ( export GPUACT_HIP_LIBRARY=$PWD/build/libhip_on_cuda.so
    GPUACT_BACKEND=hip build/prewarm 16 >/dev/null 2>&1
    GPUACT_BACKEND=hip timeout 300 build/conformance >"$OUT/conformance_hip.txt" 2>&1 ) &
  wait
  for f in "$OUT"/conformance_*.txt; do echo "$f: $(tail -2 "$f" | tr '\n' ' ')"; done
  }
  for round in $(seq ${AB_ROUNDS:-2}); do
    for b in $builds; do
      bin=build/gpuact-bench; [ $b != now ] && bin=build/gpuact-bench-$b
      log "gpuact-bench --matrix ${AB_ONLY:+--only $AB_ONLY }($b, round $round)"
      $bin --backend $backend --matrix ${AB_ONLY:+--only $AB_ONLY} --csv 2>"$OUT/matrix_${b}_$round.err" >"$OUT/matrix_${b}_$round.csv"
      echo "exit $?"
    done
  done
  python3 - "$OUT" <<'PY'
import csv, os, sys, statistics
out = sys.argv[1]
def load(tag):
    rows = {}
    for r in (1, 2, 3, 4):
        if not os.path.exists(f"{out}/matrix_{tag}_{r}.csv"):
            continue
        with open(f"{out}/matrix_{tag}_{r}.csv") as f:
            for row in csv.DictReader(f):
                try:
                    rows.setdefault(row["name"], []).append(float(row["median_ms"]))
                except ValueError:
                    pass
    return rows
tags = ["base", "now"] + sorted(f[7:-6] for f in os.listdir(out)
                                if f.startswith("matrix_") and f.endswith("_1.csv") and f[7:-6] not in ("base", "now"))
data = {t: load(t) for t in tags}
base = data["base"]
print(f"{'cell':32s} " + " ".join(f"{t + ' ms':>10s}" for t in tags) + "  speed vs base (min over the rounds)")
ratios = {t: [] for t in tags[1:]}
for name in data["now"]:
    if name not in base: continue
    ms = [min(data[t][name]) for t in tags]
    for t, m in zip(tags[1:], ms[1:]):
        ratios[t].append(ms[0] / m)
    print(f"{name:32s} " + " ".join(f"{m:10.4f}" for m in ms) + "  " +
          " ".join(f"{t} {ms[0] / m:.3f}x" for t, m in zip(tags[1:], ms[1:])))
for t, r in ratios.items():
    print(f"{t}: median speed ratio {statistics.median(r):.3f}, min {min(r):.3f}, max {max(r):.3f} over {len(r)} cells")
PY
  if [ -z "${AB_NO_TORCH:-}" ] && [ "$backend" = cuda ]; then
    log "matrix.py A/B (torch beside)"
    PYTHONUNBUFFERED=1 timeout ${AB_TIMEOUT:-240} python3 bench/matrix.py --reps ${AB_REPS:-20} --warmup 3 \
      --lib before=build/libgpuact_base.so ${AB_EXP_LIB:+--lib exp=build/libgpuact_exp.so} \
      --lib now=build/libgpuact.so ${AB_MATRIX_ONLY:+--only "$AB_MATRIX_ONLY"} --out "$OUT/matrix_ab.md" >"$OUT/matrix_ab.txt" 2>&1
    echo "matrix exit $?"; grep -E "${AB_MATRIX_GREP:-epi|fwd\+mask}" "$OUT/matrix_ab.md" | head -40
  fi
fi
