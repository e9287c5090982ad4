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
   there. From sm_80 / sm_90 the dialect has ../act.h's inline PTX
   functions, as the CUDA dialect has. */
#if defined(GPUACT_CL_NV_SM) && GPUACT_CL_NV_SM >= 80
#define GPUACT_PTX_SM80 1
#endif
#if defined(GPUACT_CL_NV_SM) && GPUACT_CL_NV_SM >= 90
#define GPUACT_PTX_SM90 1
#endif
