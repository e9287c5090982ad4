#!/usr/bin/env python3
"""Several gpuact builds side by side on the epilogue backward with the bias gradient (smooth kinds from
x and the bias, relu and leaky from y) and on the smooth kinds' f32 forwards, in one process.

    LIBS=base=old/libgpuact.so,now=build/libgpuact.so SHAPES=32768x8192,1024x8192 python3 bench/ab_dbias_kinds.py

Ten calls queued per sample, median of REPS (default 9); each build's time and its speed against the
first build's; DIFFERENT where a build's dx or bias gradient is not bit-identical to the first build's.
DTS=float32 (or bfloat16) keeps one dtype; NO_FWD=1 skips the forwards (FWD_N elements, default 2^28).
"""
import os, sys, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_compare import BF16, F32, F16, RELU, LEAKY, GELU, GELU_TANH, SILU, Gpuact, act, same_bits  # noqa
from sweep import timed_batch
import torch
libs = [(l.split("=")[0], Gpuact(l.split("=")[1], backend="cuda", stream=torch.cuda.current_stream().cuda_stream))
        for l in os.environ["LIBS"].split(",")]
shapes = [tuple(map(int, s.split("x"))) for s in os.environ.get("SHAPES", "32768x8192,1024x8192").split(",")]
reps, batch = int(os.environ.get("REPS", 9)), int(os.environ.get("BATCH", 10))
e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def timeit(fns):
    res = [[] for _ in fns]
    for f in fns: f(); f()
    torch.cuda.synchronize()
    for _ in range(reps):
        for i, f in enumerate(fns):
            res[i].append(timed_batch(torch, e0, e1, f, batch, False))
    return [statistics.median(r) for r in res]


for rows, cols in shapes:
    for dt, code in ((torch.bfloat16, BF16), (torch.float32, F32)):
        if os.environ.get("DTS") and str(dt)[6:] not in os.environ["DTS"].split(","): continue
        dy = torch.randn(rows, cols, device="cuda", dtype=dt); dx = torch.empty_like(dy)
        x = torch.randn(rows, cols, device="cuda", dtype=dt); b = torch.randn(cols, device="cuda", dtype=dt)
        db = torch.empty(cols, device="cuda", dtype=torch.float32)
        for name, a, kw in (("gelu", act(GELU), dict(x=x, bias=b)), ("gelu_tanh", act(GELU_TANH), dict(x=x, bias=b)),
                            ("silu", act(SILU), dict(x=x, bias=b)), ("relu from y", act(RELU), dict(y=x)),
                            ("leaky from y", act(LEAKY, 0.01), dict(y=x))):
            fns, outs = [], []
            for lab, g in libs:
                fns.append(g.epilogue_backward_op(rows, cols, dy, dx, code, code, dbias=db, a=a, **kw))
            ref = None
            same = []
            for f in fns:
                dx.fill_(0); db.fill_(float("nan")); f(); torch.cuda.synchronize()
                got = (dx.clone(), db.clone())
                if ref is None: ref = got
                else: same.append(same_bits(ref[0], got[0]) and same_bits(ref[1], got[1]))
            t = timeit(fns)
            line = f"{rows}x{cols} {str(dt)[6:]:8s} {name:13s}"
            for (lab, _), ms in zip(libs, t):
                line += f" {lab} {ms * 1e3:8.1f} us ({t[0] / ms:.3f}x)"
            print(line + ("" if all(same) else "  DIFFERENT"), flush=True)
        del dy, dx, x, b, db
        torch.cuda.empty_cache()

# forwards of the smooth kinds, f32 (elementwise and epilogue), the cells whose registers moved
n = int(os.environ.get("FWD_N", 1 << 28))
if os.environ.get("NO_FWD"): sys.exit(0)
x = torch.randn(n, device="cuda"); y = torch.empty_like(x)
rows, cols = n // 8192, 8192
b = torch.randn(cols, device="cuda")
for name, a in (("gelu", act(GELU)), ("gelu_tanh", act(GELU_TANH)), ("silu", act(SILU))):
    for what in ("elementwise", "epilogue"):
        fns = [g.forward_op(F32, n, x, y, a) if what == "elementwise" else g.epilogue_op(rows, cols, x, y, F32, F32, bias=b, a=a)
               for _, g in libs]
        t = timeit(fns)
        line = f"fwd f32 {n} {name:10s} {what:11s}"
        for (lab, _), ms in zip(libs, t):
            line += f" {lab} {ms * 1e3:8.1f} us ({t[0] / ms:.3f}x)"
        print(line, flush=True)
