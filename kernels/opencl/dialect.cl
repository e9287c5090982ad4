/* The OpenCL dialect of the gpuact kernels: what ../act.h needs, and no
   contraction of a * b + c into an fma (the CUDA/HIP builds pass
   --fmad=false for the same reason). */
#pragma OPENCL FP_CONTRACT OFF
typedef uint gpuact_u32;
#define GPUACT_FN
