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
/* A constant table at program scope, which NVIDIA's OpenCL keeps in the
   constant cache: that serves the lanes of a warp reading different cells
   one address at a time (docs/PERFORMANCE.md, "Designs measured and not
   kept"). So a kernel that evaluates a function with a table copies
   the tables into local memory first (GPUACT_CL_TABLES, at its top, before
   any work-item returns: it holds a barrier) and passes them down as the
   parameter gpuact_tab (GPUACT_TAB_P in the signatures, GPUACT_TAB_A in the
   calls). */
#define GPUACT_CONST_DEF __constant
#define GPUACT_CONST_PTR __local const
#define GPUACT_TAB_P , __local const float *gpuact_tab
#define GPUACT_TAB_A , gpuact_tab
#define GPUACT_TABS gpuact_tab
#define GPUACT_CL_TABLES(use)                                                                         \
    __local float gpuact_tab_l[(use) ? GPUACT_SM_DTABS_N : 1];                                        \
    if (use) {                                                                                        \
        for (int i_ = (int)get_local_id(0); i_ < GPUACT_SM_DTABS_N; i_ += (int)get_local_size(0))     \
            gpuact_tab_l[i_] = gpuact_sm_dtabs[i_];                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                 \
    }                                                                                                 \
    __local const float *gpuact_tab = gpuact_tab_l

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
