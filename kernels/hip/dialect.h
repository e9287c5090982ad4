/* The HIP dialect of the gpuact kernels (kernels/cuda/dialect.cuh is CUDA's).
   The kernels themselves are the CUDA sources in kernels/cuda: the .hip files
   here include this file first, then the CUDA source.

   hiprtc (ROCm 5.2 checked) defines __HIPCC_RTC__ and __HIP__ but not
   __HIP_PLATFORM_AMD__, and declares uint2/uint4, make_uint4,
   __uint_as_float, __shfl_down and friends as builtins: no header is
   included. Anything else compiling these sources (NVRTC, through the
   test-only HIP-on-CUDA mapping in tests/hip_on_cuda.c) gets the CUDA
   dialect: ../cuda/dialect.cuh, which follows this file in every HIP
   program and is empty when this one defined GPUACT_DIALECT. */
#if !defined(GPUACT_DIALECT) && (defined(__HIPCC_RTC__) || defined(__HIP__))
#define GPUACT_DIALECT 1
#define GPUACT_DIALECT_HIP 1
typedef unsigned long long gpuact_u64;
typedef unsigned int gpuact_u32;
#define GPUACT_FN __device__ __forceinline__
/* HIP's second __launch_bounds__ argument means waves per execution unit,
   not blocks per multiprocessor: none is given. */
#define GPUACT_LAUNCH_BOUNDS(select, dbias, bound16, ht16, dbias_blocks, y16, small_blocks, lut_f16) \
    __launch_bounds__((lut_f16) ? GPUACT_LUT16_BLOCK_F16 : GPUACT_BLOCK)

/* f16 <-> f32 through _Float16, which AMD GPUs convert in hardware
   (v_cvt_f32_f16 / v_cvt_f16_f32): widening is exact; narrowing rounds to
   nearest even. hiprtc's default float mode keeps f16 and f32 subnormals
   (denormal mode "preserve" in the kernel descriptor), so none is flushed. */
__device__ __forceinline__ float gpuact_h2f(gpuact_u32 b) {
    return (float)__builtin_bit_cast(_Float16, (unsigned short)b);
}
__device__ __forceinline__ gpuact_u32 gpuact_f2h(float f) {
    return __builtin_bit_cast(unsigned short, (_Float16)f);
}

/* Value of lane + 1 of the wavefront (64 lanes on CDNA, 32 on RDNA; every
   lane calls it, as common.cuh's mask and f32 3-bit codes require). Only
   even lanes use the result, and a block (256 threads) starts on a
   wavefront boundary, so an even lane's lane + 1 is in the same wavefront
   and is the thread with the next vector: right for both widths. */
#define GPUACT_FROM_NEXT_LANE(v) __shfl_down((v), 1)

/* The hooks of ../smooth.h, from clang builtins (hiprtc includes no
   header): fma is the single-rounding llvm.fma (v_fma_f32); the casts are
   bit casts. */
#define GPUACT_FMA(a, b, c) __builtin_fmaf((a), (b), (c))
__device__ __forceinline__ float gpuact_as_f32(gpuact_u32 u) { return __builtin_bit_cast(float, u); }
__device__ __forceinline__ gpuact_u32 gpuact_as_u32(float f) { return __builtin_bit_cast(gpuact_u32, f); }
#define GPUACT_CONST_DEF __device__ const __attribute__((aligned(128)))
#define GPUACT_CONST_PTR const
/* the tables' copy in shared memory, as in ../cuda/dialect.cuh */
#define GPUACT_TAB_P
#define GPUACT_TAB_A
#define GPUACT_TABS_COPY __shared__ __attribute__((aligned(16))) float gpuact_tab_s[GPUACT_SM_DTABS_N]
#define GPUACT_TABS gpuact_tab_s
#endif
