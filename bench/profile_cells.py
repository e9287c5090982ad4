#!/usr/bin/env python3
"""A few matrix cells, each run twice, for a profiler (ncu) to capture:
    ncu --clock-control none -k regex:gpuact_ ... python3 bench/profile_cells.py
gpuact through build/libgpuact.so on torch's tensors and stream, with torch's
own kernel for the same cell run beside it. CELLS=elementwise or CELLS=epilogue
runs one group only (default: both)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_compare import BF16, F32, RELU, Gpuact, act, default_lib, mask_ld_default  # noqa
import torch

n = int(os.environ.get("N", 4096 * 393216))
cells = os.environ.get("CELLS", "elementwise,epilogue").split(",")
g = Gpuact(os.environ.get("GPUACT_LIB", default_lib()), backend="cuda", stream=torch.cuda.current_stream().cuda_stream)
for dt, code in ((torch.float32, F32), (torch.bfloat16, BF16)) if "elementwise" in cells else ():
    x = torch.randn(n, device="cuda", dtype=dt)
    y = torch.empty_like(x)
    dy = torch.randn(n, device="cuda", dtype=dt)
    dx = torch.empty_like(x)
    mask = torch.empty((n + 7) // 8, dtype=torch.uint8, device="cuda")
    ops = [g.forward_op(code, n, x, y, act(RELU)), g.forward_op(code, n, x, y, act(RELU), mask),
           g.backward_op(code, n, dy, dx, mask=mask, a=act(RELU)), lambda: torch.relu(x),
           lambda: torch.ops.aten.threshold_backward(dy, x, 0)]
    for _ in range(2):
        for op in ops:
            op()
    torch.cuda.synchronize()
    del x, y, dy, dx, mask
rows, cols = 65536, 8192
for dt, code in ((torch.float32, F32), (torch.bfloat16, BF16)) if "epilogue" in cells else ():
    xx = torch.randn(rows, cols, device="cuda", dtype=dt)
    bb = torch.randn(cols, device="cuda", dtype=dt)
    yy = torch.empty_like(xx)
    mm = torch.empty(rows * mask_ld_default(cols) // 8, dtype=torch.uint8, device="cuda")
    dbias = torch.empty(cols, device="cuda", dtype=torch.float32)
    for _ in range(2):
        g.epilogue_op(rows, cols, xx, yy, code, code, bias=bb)()
        g.epilogue_op(rows, cols, xx, yy, code, code, bias=bb, mask=mm)()
        g.epilogue_backward_op(rows, cols, yy, xx, code, code, mask=mm, dbias=dbias)()
    torch.cuda.synchronize()
print("done")
