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
