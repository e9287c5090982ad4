"""The few-bit codes against torch at 2^28 elements (CUDA events, median of 20):
the forward writing 2-bit codes against gpuact's plain forward (target <= 1.04x),
and the backward from 2-bit codes against torch's gelu_backward / silu_backward
from x (targets >= 1.35x bf16, >= 1.40x f32).

    python python/bench/fewbit_speed.py [--n 268435456] [--bits 2]
"""
import argparse

import torch

import gpuact.torch as ga
from gpuact.torch import fewbit


def timed(fn, reps=20):
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return sorted(ts)[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 28)
    ap.add_argument("--bits", type=int, default=2)
    a = ap.parse_args()
    print(torch.cuda.get_device_name(), "n", a.n, "bits", a.bits)
    for kind, tfn, gfn, tb in (("gelu", "gelu", ga.gelu, torch.ops.aten.gelu_backward),
                               ("silu", "silu", ga.silu, torch.ops.aten.silu_backward)):
        for dt in (torch.bfloat16, torch.float32):
            x = torch.randn(a.n, device="cuda", dtype=dt)
            dy = torch.randn_like(x)
            import gpuact
            k = gpuact.KINDS[kind].value
            act = (k,) + (0.0,) * len(gpuact.ACT_PARAMS)
            plain = timed(lambda: gfn(x))
            fwd = timed(lambda: fewbit.forward(x, None, act, 1.0, None, a.bits, kind))
            _, codes = fewbit.forward(x, None, act, 1.0, None, a.bits, kind)
            bwd = timed(lambda: fewbit.backward(dy, codes, act, a.bits, 1.0, dt, None, kind))
            ref = timed(lambda: tb(dy, x))
            print(f"{kind} {str(dt)[6:]:>8}: forward+codes {fwd:.3f} ms = {fwd / plain:.3f}x plain forward "
                  f"({plain:.3f} ms); backward from codes {bwd:.3f} ms, torch {tfn}_backward {ref:.3f} ms: "
                  f"{ref / bwd:.2f}x")


if __name__ == "__main__":
    main()
