/* Bias gradient, second pass: dbias[c] = sum over r < rows of part[r][c]
   (in = part, f32, rows ld_in floats apart) in the fixed order of ../contract.h (GPUACT_DBIAS_COLS),
   so every run gives the same bits. T1 = dbias's dtype. */
#include "common.cuh"

template <class A, class D, class C, int KIND, int MASK, int DBIAS, int SELECT, int FROMX, int PRECISE>
__device__ __forceinline__ void dbias(GPUACT_PARAMS) {
    enum { SL = GPUACT_BLOCK / GPUACT_DBIAS_COLS };
    __shared__ float red[SL][GPUACT_DBIAS_COLS];
    const int lane = threadIdx.x % GPUACT_DBIAS_COLS, slice = threadIdx.x / GPUACT_DBIAS_COLS;
    const gpuact_u64 c = (gpuact_u64)blockIdx.x * GPUACT_DBIAS_COLS + lane;
    const gpuact_u64 per = (rows + SL - 1) / SL, r0 = slice * per, r1 = r0 + per < rows ? r0 + per : rows;
    const float *p = reinterpret_cast<const float *>(in);
    float sum = 0.0f;
    (void)aux; (void)bias; (void)mask; (void)part; (void)ld_out; (void)ld_aux; (void)mask_ld;
    (void)scale; (void)slope; (void)ceiling; (void)lower; (void)flags; (void)aux2; (void)out2; (void)bias2;
    (void)ld_aux2; (void)ld_out2;
    if (c < cols)
        for (gpuact_u64 r = r0; r < r1; r++) sum += p[r * ld_in + c];
    red[slice][lane] = sum;
    __syncthreads();
    if (slice || c >= cols) return;
#pragma unroll
    for (int k = 1; k < SL; k++) sum += red[k][lane];
    if (D::size == 4) reinterpret_cast<gpuact_u32 *>(out)[c] = gpuact_fromf<D>(sum);
    else reinterpret_cast<unsigned short *>(out)[c] = (unsigned short)gpuact_fromf<D>(sum);
}

GPUACT_INSTANTIATE(dbias)
