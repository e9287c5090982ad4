#!/usr/bin/env python3
"""The smooth kinds' 16-bit forward and backward cells, each run twice, for a
profiler (ncu) to capture beside torch's own kernels:
    ncu --clock-control none -k regex:'gpuact_|silu|gelu' --section ... python3 bench/profile_smooth.py
N (environment) elements, default 2^28."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_compare import BF16, GELU, SILU, GELU_TANH, Gpuact, act, default_lib  # noqa
import torch
import torch.nn.functional as F

n = int(os.environ.get("N", 1 << 28))
g = Gpuact(os.environ.get("GPUACT_LIB", default_lib()), backend="cuda", stream=torch.cuda.current_stream().cuda_stream)
x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
y = torch.empty_like(x)
dy = torch.randn(n, device="cuda", dtype=torch.bfloat16)
dx = torch.empty_like(x)
ops = []
for kind, tf in ((SILU, F.silu), (GELU, F.gelu), (GELU_TANH, lambda t: F.gelu(t, approximate="tanh"))):
    ops += [g.forward_op(BF16, n, x, y, act(kind)), g.backward_op(BF16, n, dy, dx, x=x, a=act(kind)),
            (lambda tf=tf: tf(x))]
for _ in range(2):
    for op in ops:
        op()
torch.cuda.synchronize()
print("done")
