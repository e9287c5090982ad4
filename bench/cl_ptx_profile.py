#!/usr/bin/env python3
"""NVIDIA OpenCL's build of a gpuact bias-gradient backward, launched through CUDA so that a profiler can
measure it (ncu profiles CUDA launches only). A developer's tool, not part of the library.

    build/cl_program DIR gpuact_bwd_relu_frommask_dbias_plain_f32_f32_f32     # the driver's PTX (NVIDIA OpenCL)
    python3 bench/cl_ptx_profile.py DIR/gpuact_bwd_relu_frommask_dbias_plain_f32_f32_f32.bin \\
        --dy f32 --rows 65536 --cols 8192 --width 1024 --parts 264 --parts 2640
    ncu --clock-control none -k regex:gpuact_bwd python3 bench/cl_ptx_profile.py ... --reps 1

It loads the PTX with CuPy and launches its one kernel as the OpenCL backend does: the backward from the
mask of the ReLU family, scale 1, a dy of --dy and an f32 dx, work-groups of --width work-items, as many
along a row as its columns need (8 a work-item, kernels/opencl/backward.cl), --parts row groups. The
arguments are the OpenCL kernel's (kernels/contract.h, GPUACT_KERNEL_PARAMS: each buffer a pointer and an
offset). It checks dx and the partial column sums against numpy, then prints the median time of --reps
launches for each --parts, to be compared with gpuact-bench --backend opencl on the same cell (the same
code, so about the same time). The environment registers that NVIDIA's OpenCL launch sets are replaced
by what a CUDA launch of the same grid has (below).
"""
import argparse
import os
import re
import sys
import tempfile

import cupy as cp
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("ptx")
p.add_argument("--dy", choices=("f32", "bf16"), default="f32")
p.add_argument("--rows", type=int, default=65536)
p.add_argument("--cols", type=int, default=8192)
p.add_argument("--width", type=int, default=1024)
p.add_argument("--parts", type=int, action="append")
p.add_argument("--reps", type=int, default=20)
p.add_argument("--maxnreg", type=int, default=0, help="cap the registers (PTX .maxnreg), as -cl-nv-maxrregcount would")
a = p.parse_args()
parts_list = a.parts or [264]

src = open(a.ptx, "rb").read().rstrip(b"\0").decode()
entries = re.findall(r"\.entry\s+(\w+)\s*\(([^)]*)\)", src)
if len(entries) != 1:
    sys.exit(f"cl_ptx_profile: want one .entry in {a.ptx}, found {len(entries)}")
name, params = entries[0]
nparams = params.count(".param")
# NVIDIA's OpenCL reads some work-item functions from environment registers its own launch sets: %envreg3
# the global offset along x, %envreg1 the group offset along y (both 0 here), %envreg7 the groups along y
# (get_num_groups(1), the row loop's stride). A CUDA launch sets none, so they become what it means.
ENVREG = {"1": "0", "3": "0", "7": "%nctaid.y"}
for reg in set(re.findall(r"%envreg(\d+)", src)) - set(ENVREG):
    sys.exit(f"cl_ptx_profile: {name} reads %envreg{reg}, which this script does not map")
src = re.sub(r"mov\.b32(\s+%r\d+), %envreg(\d+);", lambda m: f"mov.u32{m[1]}, {ENVREG[m[2]]};", src)
if nparams != 9 * 2 + 8 + 4 + 2:
    sys.exit(f"cl_ptx_profile: {name} has {nparams} parameters, not the 32 of GPUACT_KERNEL_PARAMS")
if a.maxnreg:
    src = re.sub(r"(\.entry\s+\w+\s*\([^)]*\))", lambda m: f"{m[1]}\n.maxnreg {a.maxnreg}", src, count=1)
tmp = os.path.join(tempfile.mkdtemp(), name + ".ptx")  # cl_program writes .bin; CuPy picks the loader by suffix
with open(tmp, "w") as f:
    f.write(src)
mod = cp.RawModule(path=tmp)
fn = mod.get_function(name)

R, C = a.rows, a.cols
rng = cp.random.default_rng(1)
g = rng.standard_normal((R, C), dtype=cp.float32)
if a.dy == "bf16":  # bf16 bits of g, truncated; its f32 value is those bits 16 places up
    dy = (g.view(cp.uint32) >> 16).astype(cp.uint16)
    dyf = (dy.astype(cp.uint32) << 16).view(cp.float32)
else:
    dy, dyf = g, g
mask_ld = (C + 127) // 128 * 128  # bits, as gpuact-bench
mask = rng.integers(0, 256, size=(R, mask_ld // 8), dtype=cp.uint8)
dx = cp.empty((R, C), dtype=cp.float32)
dummy = cp.zeros(16, dtype=cp.uint8)
U64, F32, I32 = np.uint64, np.float32, np.int32
per_item = 8
gx = -(-C // (per_item * a.width))  # work-groups along a row
bits = cp.unpackbits(mask.ravel(), bitorder="little").reshape(R, mask_ld)[:, :C].astype(cp.bool_)
want_dx = cp.where(bits, dyf, cp.float32(0))

for parts in parts_list:
    part = cp.zeros((parts, C), dtype=cp.float32)
    args = (dy, U64(0), dx, U64(0), dy, U64(0), dummy, U64(0), mask, U64(0), part, U64(0), dummy, U64(0),
            dummy, U64(0), dummy, U64(0), U64(R), U64(C), U64(C), U64(C), U64(C), U64(mask_ld), U64(0), U64(0),
            F32(1), F32(0), F32(0), F32(0), I32(0), I32(1))
    launch = lambda: fn((gx, parts), (a.width,), args)
    dx.fill(cp.nan)
    launch()
    cp.cuda.Device().synchronize()
    ok_dx = bool(cp.array_equal(dx.view(cp.uint32), want_dx.view(cp.uint32)))
    # each row group r sums rows r, r + parts, ... in order; compare its sums with numpy's (f64 here, so a tolerance)
    ref = cp.stack([want_dx[i::parts].astype(cp.float64).sum(axis=0) for i in range(min(parts, 4))])
    ok_part = bool(cp.allclose(part[: ref.shape[0]].astype(cp.float64), ref, rtol=1e-4, atol=1e-3))
    ev = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(a.reps)]
    for s, e in ev:
        s.record(); launch(); e.record()
    cp.cuda.Device().synchronize()
    ms = sorted(cp.cuda.get_elapsed_time(s, e) for s, e in ev)[a.reps // 2]
    moved = R * C * (2 if a.dy == "bf16" else 4) + R * mask_ld / 8 + R * C * 4 + parts * C * 4
    print(f"{name} {R}x{C} width {a.width} grid {gx}x{parts} maxnreg {a.maxnreg or '-'}: {ms:.4f} ms, {moved / ms / 1e6:.0f} GB/s; "
          f"dx {'exact' if ok_dx else 'WRONG'}, partial sums {'ok' if ok_part else 'WRONG'}")
