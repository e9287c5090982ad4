/* The OpenCL dialect of the gpuact kernels: what ../act.h needs, and no
   contraction of a * b + c into an fma (the CUDA/HIP builds pass
   --fmad=false for the same reason). */
#pragma OPENCL FP_CONTRACT OFF
typedef uint gpuact_u32;
#define GPUACT_FN
/* The hooks of ../smooth.h: fma is correctly rounded in OpenCL C (full
   profile); as_float/as_uint reinterpret the bits. The smooth functions
   also need a device that keeps float subnormals (CL_FP_DENORM, as NVIDIA,
   AMD, Intel and PoCL devices do) and no -cl-denorms-are-zero. */
#define GPUACT_FMA(a, b, c) fma((a), (b), (c))
#define gpuact_as_f32(u) as_float(u)
#define gpuact_as_u32(f) as_uint(f)

/* f16 <-> f32 (../act.h's hooks): exact widening; narrowing rounds to
   nearest even and keeps subnormals. vload_half / vstore_half_rte need no
   cl_khr_fp16. */
float gpuact_h2f(uint b) {
    ushort h = (ushort)b;
    return vload_half(0, (const __private half *)&h);
}
uint gpuact_f2h(float v) {
    ushort h;
    vstore_half_rte(v, 0, (__private half *)&h);
    return h;
}

/* NVIDIA's driver compiles OpenCL C through PTX and accepts inline PTX; the
   host passes GPUACT_CL_NV_SM (the device's compute capability, e.g. 90)
   there. From sm_80 the dialect has what ../act.h can use, as the CUDA
   dialect has: two floats rounded into a word of two 16-bit values in one
   instruction, and a NaN-propagating min. */
#if defined(GPUACT_CL_NV_SM) && GPUACT_CL_NV_SM >= 80
uint gpuact_cvt_bf16x2(float lo, float hi) {
    uint r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
uint gpuact_cvt_f16x2(float lo, float hi) {
    uint r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
float gpuact_min_nan(float a, float b) {
    float r;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
#define GPUACT_PACK2_BF16 gpuact_cvt_bf16x2
#define GPUACT_PACK2_F16 gpuact_cvt_f16x2
#define GPUACT_MIN_NAN gpuact_min_nan
float gpuact_max_nan(float a, float b) {
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
#define GPUACT_MAX_NAN gpuact_max_nan
#endif
/* From sm_90 also the CUDA dialect's two-lane comparisons of 16-bit floats
   (0xffff in each lane where a op b holds; gtu / ltu: or a NaN). */
#if defined(GPUACT_CL_NV_SM) && GPUACT_CL_NV_SM >= 90
#define GPUACT_CMP2_FN_(op)                                                        \
    uint gpuact_cmp2_##op(int bf16, uint a, uint b) {                              \
        uint r;                                                                    \
        if (bf16)                                                                  \
            asm("set." #op ".u32.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); \
        else                                                                       \
            asm("set." #op ".u32.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));  \
        return r;                                                                  \
    }
GPUACT_CMP2_FN_(gt) GPUACT_CMP2_FN_(ge) GPUACT_CMP2_FN_(le) GPUACT_CMP2_FN_(gtu) GPUACT_CMP2_FN_(ltu)
#define GPUACT_CMP2(op, bf16, a, b) gpuact_cmp2_##op((bf16), (a), (b))
#endif
