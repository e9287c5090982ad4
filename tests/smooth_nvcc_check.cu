/* kernels/smooth.h through nvcc in the CUDA dialect (`make smooth-nvcc-check`,
   a compile check: no GPU needed): one kernel calling every function, and
   one kernel per function (their PTX sizes are the instruction counts of
   docs/NUMERICS_SMOOTH.md). Built as the backend builds: --fmad=false
   --ftz=false. */
#include "cuda/dialect.cuh"
#include "smooth.h"

extern "C" __global__ void smooth_all(const gpuact_u32 *x, gpuact_u32 *y, gpuact_u32 n) {
    const gpuact_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    float v;
    if (i >= n) return;
    v = gpuact_as_f32(x[i]);
    y[6 * i + 0] = gpuact_as_u32(gpuact_gelu_erf(v));
    y[6 * i + 1] = gpuact_as_u32(gpuact_gelu_erf_d(v));
    y[6 * i + 2] = gpuact_as_u32(gpuact_gelu_tanh(v));
    y[6 * i + 3] = gpuact_as_u32(gpuact_gelu_tanh_d(v));
    y[6 * i + 4] = gpuact_as_u32(gpuact_silu(v));
    y[6 * i + 5] = gpuact_as_u32(gpuact_silu_d(v));
    y[6 * n + 6 * i + 0] = gpuact_as_u32(gpuact_gelu_erf_16(v));
    y[6 * n + 6 * i + 1] = gpuact_as_u32(gpuact_gelu_erf_d_16(v));
    y[6 * n + 6 * i + 2] = gpuact_as_u32(gpuact_gelu_tanh_16(v));
    y[6 * n + 6 * i + 3] = gpuact_as_u32(gpuact_gelu_tanh_d_16(v));
    y[6 * n + 6 * i + 4] = gpuact_as_u32(gpuact_silu_16(v));
    y[6 * n + 6 * i + 5] = gpuact_as_u32(gpuact_silu_d_16(v));
}

#define GPUACT_SMOOTH_ONE(name)                                                                  \
    extern "C" __global__ void smooth_##name(const float *x, float *y, gpuact_u32 n) {            \
        const gpuact_u32 i = blockIdx.x * blockDim.x + threadIdx.x;                               \
        if (i < n) y[i] = gpuact_##name(x[i]);                                                    \
    }
GPUACT_SMOOTH_ONE(gelu_erf)
GPUACT_SMOOTH_ONE(gelu_erf_d)
GPUACT_SMOOTH_ONE(gelu_tanh)
GPUACT_SMOOTH_ONE(gelu_tanh_d)
GPUACT_SMOOTH_ONE(silu)
GPUACT_SMOOTH_ONE(silu_d)
GPUACT_SMOOTH_ONE(gelu_erf_16)
GPUACT_SMOOTH_ONE(gelu_erf_d_16)
GPUACT_SMOOTH_ONE(gelu_tanh_16)
GPUACT_SMOOTH_ONE(gelu_tanh_d_16)
GPUACT_SMOOTH_ONE(silu_16)
GPUACT_SMOOTH_ONE(silu_d_16)
