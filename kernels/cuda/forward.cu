/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask bits
   when MASK. X = x, Y = y, B = bias (X when there is none). SELECT_ (no
   bias, scale 1, X = Y): the result is a selection of x's own bits (NaN
   payloads kept) and nothing is converted back. */
#include "common.cuh"

template <class X, class Y, class B, int KIND, int MASK, int DBIAS_, int SELECT_>
__device__ __forceinline__ void forward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<X, Y, B>::value, U = GPUACT_UNROLL };
    enum { SELECT = SELECT_ && gpuact_same<X, Y>::value };
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (GPUACT_BLOCK * U) + threadIdx.x;
    const bool has_bias = !SELECT && (flags & GPUACT_F_BIAS);
    const bool aligned = gpuact_rows_aligned(in, ld_in * X::size, rows) &&
                         gpuact_rows_aligned(out, ld_out * Y::size, rows) &&
                         (!has_bias || (gpuact_u64)aux % 16 == 0);
    const gpuact_u32 cbits = gpuact_fromf<Y>(ceiling); /* clipped's ceiling as Y */
    gpuact_u32 b[U][VEC];
    (void)part; (void)ld_aux; (void)cbits; (void)DBIAS_;
#pragma unroll
    for (int u = 0; u < U; u++) {
        const gpuact_u64 c0 = (v0 + u * GPUACT_BLOCK) * VEC;
        if (has_bias && c0 < cols) gpuact_load<B, VEC>(aux, c0, cols, aligned && c0 + VEC <= cols, b[u]);
    }
    if (SELECT && KIND == GPUACT_KIND_relu && !MASK && X::size == 2 && aligned) {
        /* 16-bit ReLU, the most common call: two values per word, whole
           16-byte vectors (the general loop below takes a ragged end). */
        for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
            uint4 q[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const gpuact_u64 c0 = (v0 + u * GPUACT_BLOCK) * VEC;
                if (c0 + VEC <= cols) q[u] = gpuact_ld16<false>(in + (r * ld_in + c0) * X::size);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const gpuact_u64 c0 = (v0 + u * GPUACT_BLOCK) * VEC;
                if (c0 + VEC > cols) continue;
                const gpuact_u32 inf = gpuact_inf<X>::value;
                q[u] = make_uint4(gpuact_relu_pair(q[u].x, inf), gpuact_relu_pair(q[u].y, inf),
                                  gpuact_relu_pair(q[u].z, inf), gpuact_relu_pair(q[u].w, inf));
                gpuact_st16<false>(out + (r * ld_out + c0) * Y::size, q[u]);
            }
        }
        /* Done unless a vector of this thread is ragged; then the loop below
           redoes the thread's vectors, which ReLU's idempotence makes safe
           in place too. */
        if ((v0 + (U - 1) * GPUACT_BLOCK + 1) * VEC <= cols || v0 * VEC >= cols) return;
    }
    for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
        gpuact_u32 x[U][VEC], y[U][VEC], bits[U];
#pragma unroll
        for (int u = 0; u < U; u++) { /* every load first: two vectors in flight */
            const gpuact_u64 c0 = (v0 + u * GPUACT_BLOCK) * VEC;
            if (c0 < cols) gpuact_load<X, VEC>(in + r * ld_in * X::size, c0, cols, aligned && c0 + VEC <= cols, x[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const gpuact_u64 cv = v0 + u * GPUACT_BLOCK, c0 = cv * VEC;
            bits[u] = 0;
            if (c0 < cols) {
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    bool pass;
                    if (SELECT) { /* y is x's bits, +0, the ceiling, or (leaky) x * slope */
                        pass = gpuact_passes_bits<X, KIND>(x[u][k], cbits);
                        if (KIND == GPUACT_KIND_leaky)
                            y[u][k] = pass ? x[u][k] : gpuact_fromf<Y>(gpuact_tof<X>(x[u][k]) * slope);
                        else
                            y[u][k] = pass ? x[u][k]
                                      : (KIND == GPUACT_KIND_clipped && gpuact_sbits<X>(x[u][k]) > 0) ? cbits : 0u;
                    } else {
                        float z = gpuact_tof<X>(x[u][k]);
                        if (has_bias) z += gpuact_tof<B>(b[u][k]);
                        float v = gpuact_act(KIND, z, slope, ceiling);
                        if (flags & GPUACT_F_SCALE) v *= scale;
                        /* no bias, scale 1, X = Y but a ceiling inexact in X: NaN keeps its bits */
                        y[u][k] = (flags & GPUACT_F_RAW) && gpuact_nan_bits<X>(x[u][k]) ? x[u][k] : gpuact_fromf<Y>(v);
                        pass = gpuact_passes(KIND, z, ceiling);
                    }
                    if (MASK) bits[u] |= (gpuact_u32)(pass && c0 + k < cols) << k;
                }
                gpuact_store<Y, VEC>(out + r * ld_out * Y::size, c0, cols, aligned && c0 + VEC <= cols, y[u]);
            }
            if (MASK) gpuact_mask_write<VEC>(mask + r * (mask_ld / 8), cv, c0 < cols, bits[u]);
        }
    }
}

GPUACT_INSTANTIATE(forward)
