#!/usr/bin/env python3
"""Several gpuact builds against torch and a copy at the sizes that sit in the L2, in one process.

    LIBS=base=old/libgpuact.so,now=build/libgpuact.so LO=17 HI=22 python3 bench/ab_small.py

For each n = 2^LO ... 2^HI and each workload of WL (default "fwd f32,fwd bf16,bwd bf16,bwd f32": relu
forward, relu backward from the mask), the time per call in device time (a spin kernel ahead of each
batch, so launch latency hides, as bench/sweep.py's "device" mode), median of NB (default 11) batches,
the implementations taking turns batch by batch. Prints each build's time and its speed against torch's
counterpart (torch.relu, aten.threshold_backward), and DIFF where an output is not bit-identical to
torch's. bench/sweep.py measures one build over every size; this compares builds side by side, where
separate processes differ by about 3% at these sizes.
"""
import os, sys, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_compare import F32, BF16, RELU, Gpuact, act, same_bits
from sweep import timed_batch
import torch as t

libs = [s.split("=", 1) for s in os.environ["LIBS"].split(",")]
st = t.cuda.current_stream().cuda_stream
gs = [(tag, Gpuact(p, backend="cuda", stream=st)) for tag, p in libs]
e0, e1 = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
NB = int(os.environ.get("NB", "11"))


def batch(fn, calls):
    """us per call, device time"""
    return timed_batch(t, e0, e1, fn, calls, True) * 1e3


wls = os.environ.get("WL", "fwd f32,fwd bf16,bwd bf16,bwd f32").split(",")
for lg in range(int(os.environ.get("LO", 17)), int(os.environ.get("HI", 22)) + 1):
    n = 1 << lg
    for wl in wls:
        dt = t.bfloat16 if "bf16" in wl else t.float32
        code = BF16 if dt == t.bfloat16 else F32
        es = 2 if dt == t.bfloat16 else 4
        x = t.randn(n, device="cuda", dtype=dt)
        fns, outs = {}, {}
        if wl.startswith("fwd"):
            for tag, g in gs:
                outs[tag] = t.empty_like(x)
                fns[tag] = g.forward_op(code, n, x, outs[tag], act(RELU))
            ref = t.relu(x)
            fns["torch"] = lambda: t.relu(x)
            nbytes = 2 * es * n
        else:
            dy = t.randn(n, device="cuda", dtype=dt)
            mask = t.empty((n + 7) // 8, dtype=t.uint8, device="cuda")
            gs[0][1].forward_op(code, n, x, t.empty_like(x), act(RELU), mask)()
            for tag, g in gs:
                outs[tag] = t.empty_like(x)
                fns[tag] = g.backward_op(code, n, dy, outs[tag], mask=mask, a=act(RELU))
            ref = t.ops.aten.threshold_backward(dy, x, 0)
            fns["torch"] = lambda: t.ops.aten.threshold_backward(dy, x, 0)
            nbytes = 2 * es * n + n // 8
        src = t.empty(nbytes // 2, dtype=t.uint8, device="cuda")
        dst = t.empty_like(src)
        fns["copy"] = lambda: dst.copy_(src)
        for tag, _ in gs:
            fns[tag]()
        t.cuda.synchronize()
        bad = [tag for tag, _ in gs if not same_bits(outs[tag], ref)]
        calls = max(20, min(2000, (1 << 28) // n))
        res = {k: [] for k in fns}
        for _ in range(NB + 1):
            for k, f in fns.items():
                res[k].append(batch(f, calls))
        med = {k: statistics.median(v[1:]) for k, v in res.items()}
        line = f"{wl:9s} 2^{lg:<2d} torch {med['torch']:6.3f} copy {med['copy']:6.3f} |"
        for tag, _ in gs:
            line += f" {tag} {med[tag]:6.3f} ({med['torch'] / med[tag]:.3f}x)"
        print(line + (f"  DIFF {bad}" if bad else ""), flush=True)
        del x, fns, outs, src, dst
        t.cuda.empty_cache()
