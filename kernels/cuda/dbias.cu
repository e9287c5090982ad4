/* Bias gradient, second pass: dbias[c] = sum over r < rows of part[r][c]
   (in = part, f32), added in order so every run gives the same bits.
   T1 = dbias's dtype; one thread per column. */
#include "common.cuh"

template <class A, class D, class C, int KIND, int MASK, int DBIAS, int SELECT>
__device__ __forceinline__ void dbias(GPUACT_PARAMS) {
    const gpuact_u64 c = (gpuact_u64)blockIdx.x * GPUACT_BLOCK + threadIdx.x;
    const float *p = reinterpret_cast<const float *>(in);
    float sum = 0.0f;
    (void)aux; (void)mask; (void)part; (void)ld_in; (void)ld_out; (void)ld_aux; (void)mask_ld;
    (void)scale; (void)slope; (void)ceiling; (void)flags;
    if (c >= cols) return;
    for (gpuact_u64 r = 0; r < rows; r++) sum += p[r * cols + c];
    if (D::size == 4) reinterpret_cast<gpuact_u32 *>(out)[c] = gpuact_fromf<D>(sum);
    else reinterpret_cast<unsigned short *>(out)[c] = (unsigned short)gpuact_fromf<D>(sum);
}

GPUACT_INSTANTIATE(dbias)
