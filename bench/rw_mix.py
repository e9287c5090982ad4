#!/usr/bin/env python3
"""HBM bandwidth with a read:write mix of 1:2 and 2:1 against a plain copy
(1:1), 16-byte accesses, same run (needs CuPy and a CUDA GPU). Why: the
bias-gradient backward from a bf16 dy into an f32 dx reads 2.1 bytes and
writes 4 per element; this shows what a bare kernel of that mix reaches,
and how it depends on the resident blocks (docs/PERFORMANCE.md, twentieth
session).

    python3 bench/rw_mix.py
"""

import cupy as cp
src = r'''
extern "C" __global__ void copy16(const uint4 *in, uint4 *out, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) out[i] = in[i];
}
extern "C" __global__ void widen(const uint4 *in, uint4 *out, unsigned long long n) {  /* bf16 -> f32 bits */
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 q = in[i];
    out[2 * i] = make_uint4(q.x << 16, q.x & 0xffff0000u, q.y << 16, q.y & 0xffff0000u);
    out[2 * i + 1] = make_uint4(q.z << 16, q.z & 0xffff0000u, q.w << 16, q.w & 0xffff0000u);
  }
}
extern "C" __global__ void narrow(const uint4 *in, uint4 *out, unsigned long long n) {  /* f32 -> bf16 bits (truncating) */
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 a = in[2 * i], b = in[2 * i + 1];
    out[i] = make_uint4((a.x >> 16) | (a.y & 0xffff0000u), (a.z >> 16) | (a.w & 0xffff0000u), (b.x >> 16) | (b.y & 0xffff0000u), (b.z >> 16) | (b.w & 0xffff0000u));
  }
}
'''
cc = cp.cuda.Device().compute_capability  # e.g. "90"
m = cp.RawModule(code=src, options=(f"-arch=sm_{cc}",))
N = 65536 * 8192  # elements
a = cp.random.randint(0, 2**31, size=N, dtype=cp.uint32); b = cp.empty(N, dtype=cp.uint32)
h = cp.random.randint(0, 2**31, size=N // 2, dtype=cp.uint32); w = cp.empty(N, dtype=cp.uint32)
def tm(f, reps=30):
    for _ in range(3): f()
    ev = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
    for s, e in ev: s.record(); f(); e.record()
    cp.cuda.Device().synchronize(); ms = sorted(cp.cuda.get_elapsed_time(s, e) for s, e in ev); return ms[len(ms) // 2]
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
ref = tm(lambda: b.__setitem__(slice(None), a))  # CuPy's own copy: the reference
ref_gbs = 8 * N / ref / 1e6
print(f"CuPy's copy (read 4 B, write 4 B per element): {ref_gbs:.0f} GB/s")
for blocks_per_sm in (4, 8, 16):
    g = sms * blocks_per_sm
    for name, fn, args, by in [("copy16: read 16 B, write 16 B", "copy16", (a, b, cp.uint64(N // 4)), 8 * N),
                               ("widen:  read 16 B, write 32 B", "widen", (h, w, cp.uint64(N // 8)), 6 * N),
                               ("narrow: read 32 B, write 16 B", "narrow", (a, h, cp.uint64(N // 8)), 6 * N)]:
        k = m.get_function(fn)
        ms = tm(lambda: k((g,), (256,), args))
        gbs = by / ms / 1e6
        print(f"{name}  {blocks_per_sm:2d} blocks of 256 per SM: {gbs:7.0f} GB/s  {100 * gbs / ref_gbs:5.1f}% of CuPy's copy")
