/* The CUDA dialect of the gpuact kernels (kernels/hip/dialect.h is HIP's;
   when it came first, GPUACT_DIALECT is set and this file is empty).
   Compiled by NVRTC at run time, or by nvcc for the fatbin and the checks. */
#ifndef GPUACT_DIALECT
#define GPUACT_DIALECT 1
#define GPUACT_DIALECT_CUDA 1
typedef unsigned long long gpuact_u64;
typedef unsigned int gpuact_u32;
#define GPUACT_FN __device__ __forceinline__

/* f16 <-> f32 with the hardware conversions: exact widening; narrowing
   rounds to nearest even, keeps subnormals (no .ftz). */
__device__ __forceinline__ float gpuact_h2f(gpuact_u32 b) {
    float f;
    unsigned short h = (unsigned short)b;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ gpuact_u32 gpuact_f2h(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
/* Registers: a kernel on the selection path must leave room for
   GPUACT_MIN_BLOCKS_SELECT blocks per multiprocessor, the other paths for
   GPUACT_MIN_BLOCKS_GENERAL (the host passes both, see GPUACT__MIN_BLOCKS_*
   in backends/gpuact_cudalike.h): more resident warps keep more loads in
   flight. The bias-gradient kernels keep 8 (f32) or 16 sums per thread and
   are left to the compiler (bounded, they spill), but for the ReLU family's
   backward from the mask into f32 (GPUACT_MIN_BLOCKS_DBIAS32 below). */
#ifndef GPUACT_MIN_BLOCKS_SELECT
#define GPUACT_MIN_BLOCKS_SELECT 8
#endif
#ifndef GPUACT_MIN_BLOCKS_GENERAL
#define GPUACT_MIN_BLOCKS_GENERAL 4
#endif
/* A general-path kernel with every array 16-bit that reads or writes the
   mask (the 16-bit epilogue writing the mask, above all), and the 16-bit
   gated forward: room for 5 blocks (bound16): 48 registers, no spill,
   faster than 56 at 4 (at 6 they spill); the f32 gated forward gains
   nothing and is not bound. Also tanh-GELU's and SiLU's 16-bit forward
   without codes (docs/PERFORMANCE.md, "Tuning knobs"). */
#ifndef GPUACT_MIN_BLOCKS_16
#define GPUACT_MIN_BLOCKS_16 5
#endif
/* hardtanh writing the mask from f16 arrays on the selection path (ht16)
   keeps both bounds, as values and as bits, beside the widened lanes: at
   32 registers nvcc spilled 32 bytes, so it gets room for 6 blocks (40
   registers, no spill). Not for bf16 (no spill at 32; slower at 40) nor
   the general path (4-8 bytes spilled at 48 registers, yet slower at 62).
   From sm_90 that selection compares without widening (GPUACT_CMP2,
   ../act.h); the bound costs nothing there (docs/PERFORMANCE.md, "Tuning
   knobs"). */
#ifndef GPUACT_MIN_BLOCKS_HT16
#define GPUACT_MIN_BLOCKS_HT16 6
#endif
/* The ReLU family's backward from the mask with the bias gradient into a
   4-byte dx (dbias32): room for 6 blocks (40 registers, no spill; 53
   unbounded, 4 blocks), with 24 row groups per multiprocessor, a whole
   number of waves at 6 blocks (see GPUACT__DBIAS_GROUPS_PER_UNIT in
   gpuact.h; with 20 it ran slower). From y the same bound spills 40 bytes,
   so those keep the compiler's choice, and so does the one into a 16-bit
   dx: 4 blocks there (59-61 registers instead of 70, no spill) gained
   nothing, and 5 spills (docs/PERFORMANCE.md, "Tuning knobs"). */
#ifndef GPUACT_MIN_BLOCKS_DBIAS32
#define GPUACT_MIN_BLOCKS_DBIAS32 6
#endif
/* The same from a 16-bit dy, one vector per thread (widen,
   GPUACT_ONE_VECTOR in ../contract.h; docs/PERFORMANCE.md, "Tuning knobs"):
   room for 8 blocks (31 registers). */
#ifndef GPUACT_MIN_BLOCKS_WIDEN
#define GPUACT_MIN_BLOCKS_WIDEN 8
#endif
/* The ReLU family's forward into a 16-bit y from a 4-byte array, on the
   element path (y16): room for 6 blocks (38-41 registers instead of 41-46,
   no spill), faster than 4. Not every general kernel: the f32 ones gain
   nothing from 6, and the smooth kinds' need 48-56 (docs/PERFORMANCE.md,
   "Tuning knobs"). */
#ifndef GPUACT_MIN_BLOCKS_Y16
#define GPUACT_MIN_BLOCKS_Y16 6
#endif
/* A smooth kind's forward writing few-bit codes from a 4-byte x, in blocks of
   GPUACT_BLOCK_SMALL: room for 9 of them, more warps than the general bound leaves (0: that
   bound). From a 16-bit x it spills in the hot path, so those keep the general bound. */
#ifndef GPUACT_MIN_BLOCKS_CODES
#define GPUACT_MIN_BLOCKS_CODES 9
#endif
/* The same without the codes, every array 4-byte (the f32 forward and epilogue): room for 12 (40
   registers, no spill; 45-48 unbounded, 10 resident), so more rows' loads are in flight
   (docs/PERFORMANCE.md). At 14 it spills. */
#ifndef GPUACT_MIN_BLOCKS_SMOOTH32
#define GPUACT_MIN_BLOCKS_SMOOTH32 12
#endif
/* lut_f16: f16's lookup (../contract.h, GPUACT_LUT16_BLOCK_F16), its blocks per multiprocessor (0: not
   such a kernel): three where a kernel fits in 40 registers without a spill on its main path, else two */
#define GPUACT_LAUNCH_BOUNDS(select, dbias, bound16, ht16, dbias_blocks, y16, small_blocks, lut_f16)               \
    __launch_bounds__((lut_f16) ? GPUACT_LUT16_BLOCK_F16 : (small_blocks) ? GPUACT_BLOCK_SMALL : GPUACT_BLOCK,      \
                                    (lut_f16) ? (lut_f16)                                      \
                                    : (small_blocks) ? (small_blocks)                          \
                                    : (dbias)   ? (dbias_blocks)                               \
                                    : (ht16)    ? GPUACT_MIN_BLOCKS_HT16                       \
                                    : (y16)     ? GPUACT_MIN_BLOCKS_Y16                        \
                                    : (select)  ? GPUACT_MIN_BLOCKS_SELECT                     \
                                    : (bound16) ? GPUACT_MIN_BLOCKS_16                         \
                                                : GPUACT_MIN_BLOCKS_GENERAL)

/* Inline PTX (../act.h's GPUACT_PTX_SM80 / GPUACT_PTX_SM90 functions):
   sm_80 and later, and sm_90 and later; the fatbin's older targets take the
   portable paths. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define GPUACT_PTX_SM80 1
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GPUACT_PTX_SM90 1
#endif
/* Value of the neighbour lane (lane + 1) in a warp of 32. */
#define GPUACT_FROM_NEXT_LANE(v) __shfl_down_sync(0xffffffffu, (v), 1)

/* The hooks of ../smooth.h: a fused multiply-add rounded once (to nearest
   even) and the f32 <-> bits casts. */
#define GPUACT_FMA(a, b, c) __fmaf_rn((a), (b), (c))
__device__ __forceinline__ float gpuact_as_f32(gpuact_u32 u) { return __uint_as_float(u); }
__device__ __forceinline__ gpuact_u32 gpuact_as_u32(float f) { return __float_as_uint(f); }
/* the tables in global memory, the source of each kernel's copy below (16-byte loads) */
#define GPUACT_CONST_DEF __device__ const __align__(128)
#define GPUACT_CONST_PTR const
/* The smooth functions read the tables from a copy in shared memory, gpuact_tab_s: the lanes of a
   warp read different cells, and from the L1 each such load also costs its tag stage
   (docs/PERFORMANCE.md). A kernel that reads a table fills its slice first (gpuact_tabs_fill,
   common.cuh); they reach the functions as themselves. */
#define GPUACT_TAB_P
#define GPUACT_TAB_A
#define GPUACT_TABS_COPY __shared__ __align__(16) float gpuact_tab_s[GPUACT_SM_DTABS_N]
#define GPUACT_TABS gpuact_tab_s
/* The hardware's approximate 2^a and 1/d (MUFU.EX2, MUFU.RCP): smooth.h's quick bf16
   forwards, which keep a value only where it rounds as the lean function's does. */
__device__ __forceinline__ float gpuact_ex2_approx(float a) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}
__device__ __forceinline__ float gpuact_rcp_approx(float d) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d));
    return r;
}
#define GPUACT_EX2_APPROX(a) gpuact_ex2_approx(a)
#define GPUACT_RCP_APPROX(d) gpuact_rcp_approx(d)
/* any active lane of the warp (the quick forwards' fallback) */
#define GPUACT_WARP_ANY(p) __any_sync(__activemask(), (p))
#endif
