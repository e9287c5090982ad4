/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask bits.
   X = x, Y = y, B = bias (X when there is none). */
#ifndef GPUACT_DIALECT
#include "dialect.cuh"
#endif
#include "common.cuh"

template <class X, class Y, class B>
__device__ __forceinline__ void forward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<X, Y, B>::value };
    const gpuact_u64 cv = (gpuact_u64)blockIdx.x * GPUACT_BLOCK + threadIdx.x, c0 = cv * VEC;
    const bool has_bias = flags & GPUACT_F_BIAS, in_row = c0 < cols;
    const bool aligned = gpuact_rows_aligned(in, ld_in * X::size, rows) &&
                         gpuact_rows_aligned(out, ld_out * Y::size, rows) &&
                         (!has_bias || (gpuact_u64)aux % 16 == 0);
    const bool vec_ok = aligned && c0 + VEC <= cols;
    gpuact_u32 b[VEC];
    (void)part; (void)ld_aux;
    if (has_bias && in_row) gpuact_load<B, VEC>(aux, c0, cols, vec_ok, b);
    for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
        gpuact_u32 x[VEC], y[VEC], bits = 0;
        if (in_row) {
            gpuact_load<X, VEC>(in + r * ld_in * X::size, c0, cols, vec_ok, x);
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                float z = gpuact_tof<X>(x[k]), v;
                if (has_bias) z += gpuact_tof<B>(b[k]);
                v = gpuact_act(kind, z, slope, ceiling);
                if (flags & GPUACT_F_SCALE) v *= scale;
                y[k] = (flags & GPUACT_F_RAW) && z != z ? x[k] : gpuact_fromf<Y>(v);
                bits |= (gpuact_u32)(gpuact_passes(kind, z, ceiling) && c0 + k < cols) << k;
            }
            gpuact_store<Y, VEC>(out + r * ld_out * Y::size, c0, cols, vec_ok, y);
        }
        if (flags & GPUACT_F_MASK) gpuact_mask_write<VEC>(mask + r * (mask_ld / 8), cv, in_row, bits);
    }
}

GPUACT_INSTANTIATE(forward)
