"""The few-bit codes against torch at 2^28 elements, through the package's own calls: the forward
writing b-bit codes against gpuact's plain forward (target <= 1.04x), and the backward from the codes
against torch's gelu_backward / silu_backward from x (targets for 2 bits: >= 1.35x bf16, >= 1.40x f32).
Each figure is the median of 20 calls timed with CUDA events, the calls of a row taken in turn
(round robin). Before each timed call the GPU is kept busy (torch.cuda._sleep) while the host
prepares it, so the events time the kernel and not the host's Python.

    python python/bench/fewbit_speed.py [--n 268435456] [--bits 2] [--dtypes bfloat16,float32]
"""
import argparse

import torch

import gpuact
import gpuact.torch as ga


def timed_round_robin(fns, reps=20):
    """Median ms of each fn, the fns called in turn reps times."""
    for f in fns:
        f()
    torch.cuda.synchronize()
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in fns]
          for _ in range(reps)]
    for r in range(reps):
        for i, f in enumerate(fns):
            torch.cuda._sleep(200_000)  # covers the host's launch of f: the events bracket the kernel alone
            ev[r][i][0].record()
            f()
            ev[r][i][1].record()
    torch.cuda.synchronize()
    return [sorted(ev[r][i][0].elapsed_time(ev[r][i][1]) for r in range(reps))[reps // 2] for i in range(len(fns))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 28)
    ap.add_argument("--bits", default="2", help="comma-separated bit counts (1-4)")
    ap.add_argument("--dtypes", default="bfloat16,float32")
    a = ap.parse_args()
    print(torch.cuda.get_device_name(), "n", a.n)
    kinds = (("gelu", lambda x: ga.gelu(x), lambda g, x: torch.ops.aten.gelu_backward(g, x)),
             ("gelu_tanh", lambda x: ga.gelu(x, approximate="tanh"),
              lambda g, x: torch.ops.aten.gelu_backward(g, x, approximate="tanh")),
             ("silu", lambda x: ga.silu(x), lambda g, x: torch.ops.aten.silu_backward(g, x)))
    for kind, gfn, tb in kinds:
        for dt in (getattr(torch, d) for d in a.dtypes.split(",")):
            x = torch.randn(a.n, device="cuda", dtype=dt)
            dy = torch.randn_like(x)
            k, params = gpuact.KINDS[kind].value, [0.0] * len(gpuact.ACT_PARAMS)
            for bits in (int(b) for b in a.bits.split(",")):
                # the operators behind backward_bits= (gpuact.torch.fewbit), without autograd
                fwd_op = lambda: torch.ops.gpuact.fewbit_fwd(x, None, k, params, 1.0, None, bits, False)
                _, codes = fwd_op()
                plain, fwd, bwd, ref = timed_round_robin([
                    lambda: gfn(x),
                    fwd_op,
                    lambda: torch.ops.gpuact.fewbit_bwd(dy, codes, k, params, bits, 1.0, dt, None),
                    lambda: tb(dy, x)])
                print(f"{kind:9} {str(dt)[6:]:>8} {bits} bits: forward+codes {fwd:.3f} ms = {fwd / plain:.3f}x plain "
                      f"forward ({plain:.3f} ms); backward from codes {bwd:.3f} ms, torch {ref:.3f} ms: "
                      f"{ref / bwd:.2f}x")


if __name__ == "__main__":
    main()
