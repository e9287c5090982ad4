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
   flight. The bias-gradient kernels keep 16 sums per thread and are left
   to the compiler (bounded, they spill). */
#ifndef GPUACT_MIN_BLOCKS_SELECT
#define GPUACT_MIN_BLOCKS_SELECT 8
#endif
#ifndef GPUACT_MIN_BLOCKS_GENERAL
#define GPUACT_MIN_BLOCKS_GENERAL 4
#endif
/* A general-path kernel that reads or writes the mask with every array
   16-bit (the 16-bit epilogue writing the mask, above all): room for 5
   blocks. Measured on the H200 at 4 (56 registers, 50% of warps) against 5
   (48 registers, no spill): the bf16 epilogue forward with the mask 1.08x
   faster; 6 spilled. */
#ifndef GPUACT_MIN_BLOCKS_MASK16
#define GPUACT_MIN_BLOCKS_MASK16 5
#endif
/* hardtanh writing the mask from f16 arrays on the selection path (ht16)
   keeps both bounds, as values and as bits, beside the widened lanes: at
   32 registers nvcc spilled 32 bytes and the kernel ran at 80% of copy, so
   it gets room for 6 blocks (40 registers, no spill): 1.18x on the H200.
   Not for bf16 (no spill at 32; 0.96x at 40) nor the general path (4-8
   bytes spilled at 48 registers, yet 0.95x at 62). docs/PERFORMANCE.md.
   From sm_90 that selection compares without widening (GPUACT_CMP2 below);
   the bound still measured 1.005x there (2026-11-24, seventh session). */
#ifndef GPUACT_MIN_BLOCKS_HT16
#define GPUACT_MIN_BLOCKS_HT16 6
#endif
#define GPUACT_LAUNCH_BOUNDS(select, dbias, mask16, ht16)                                       \
    __launch_bounds__(GPUACT_BLOCK, (dbias)    ? 1                                             \
                                    : (ht16)   ? GPUACT_MIN_BLOCKS_HT16                        \
                                    : (select) ? GPUACT_MIN_BLOCKS_SELECT                      \
                                    : (mask16) ? GPUACT_MIN_BLOCKS_MASK16                      \
                                               : GPUACT_MIN_BLOCKS_GENERAL)

/* Two floats to a word of two 16-bit values (lo in the low half), rounded to
   nearest even, in one instruction (sm_80 and later; the fatbin's older
   targets take the exact per-value conversion). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ __forceinline__ gpuact_u32 gpuact_cvt_bf16x2(float lo, float hi) {
    gpuact_u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ gpuact_u32 gpuact_cvt_f16x2(float lo, float hi) {
    gpuact_u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
#define GPUACT_PACK2_BF16 gpuact_cvt_bf16x2
#define GPUACT_PACK2_F16 gpuact_cvt_f16x2
/* The smaller / larger of a and b, NaN if either is (the canonical NaN),
   in one instruction (sm_80 and later). */
__device__ __forceinline__ float gpuact_min_nan(float a, float b) {
    float r;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
#define GPUACT_MIN_NAN gpuact_min_nan
__device__ __forceinline__ float gpuact_max_nan(float a, float b) {
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
#define GPUACT_MAX_NAN gpuact_max_nan
#endif
/* Both 16-bit lanes of a and b compared as floats of the format (bf16 or
   f16) in one instruction: 0xffff in each lane where a op b holds (gtu /
   ltu: or either is a NaN). bf16x2 comparisons need sm_90. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GPUACT_CMP2_FN_(op)                                                                     \
    __device__ __forceinline__ gpuact_u32 gpuact_cmp2_##op(int bf16, gpuact_u32 a, gpuact_u32 b) { \
        gpuact_u32 r;                                                                           \
        if (bf16)                                                                               \
            asm("set." #op ".u32.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));               \
        else                                                                                    \
            asm("set." #op ".u32.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                \
        return r;                                                                               \
    }
GPUACT_CMP2_FN_(gt) GPUACT_CMP2_FN_(ge) GPUACT_CMP2_FN_(le) GPUACT_CMP2_FN_(gtu) GPUACT_CMP2_FN_(ltu)
#define GPUACT_CMP2(op, bf16, a, b) gpuact_cmp2_##op((bf16), (a), (b))
#endif
/* Value of the neighbour lane (lane + 1) in a warp of 32. */
#define GPUACT_FROM_NEXT_LANE(v) __shfl_down_sync(0xffffffffu, (v), 1)

/* The hooks of ../smooth.h: a fused multiply-add rounded once (to nearest
   even) and the f32 <-> bits casts. */
#define GPUACT_FMA(a, b, c) __fmaf_rn((a), (b), (c))
__device__ __forceinline__ float gpuact_as_f32(gpuact_u32 u) { return __uint_as_float(u); }
__device__ __forceinline__ gpuact_u32 gpuact_as_u32(float f) { return __float_as_uint(f); }
#endif
