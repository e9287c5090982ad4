/* Gated forward: y[r][c] = act(a[r][c] (+ bias_a[c])) * (b[r][c] (+ bias_b[c])),
   each sum one f32 addition, one f32 product, y rounded once. X = a, b and
   the biases, Y = y (X2 = X). in = a, aux = b, bias / bias2 = the biases,
   out = y. A thread owns GPUACT_UNROLL vectors of VEC elements a block
   apart, GPUACT_GLU16_UNROLL when every array is 16-bit (the host's grid
   follows the same rule: gpuact__gpu_shape). */
#include "common.cuh"

template <class X, class Y, class X2, int KIND, int MASK_, int DBIAS_, int SELECT_, int FROMX_, int PRECISE>
__device__ __forceinline__ void glu_forward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<X, Y, X2>::value, U = VEC == 8 ? GPUACT_GLU16_UNROLL : GPUACT_UNROLL, BLK = GPUACT_BLOCK };
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (BLK * U) + threadIdx.x;
    const bool has_bias = flags & GPUACT_F_BIAS;
    const bool aligned = layout & GPUACT_LAYOUT_ALIGNED; /* ../contract.h */
    float ba[U][VEC], bb[U][VEC];
    (void)mask; (void)part; (void)aux2; (void)out2; (void)mask_ld; (void)ld_aux2; (void)ld_out2; (void)scale;
    (void)slope; (void)ceiling; (void)lower;
#pragma unroll
    for (int u = 0; u < U; u++) {
        const gpuact_u64 c0 = (v0 + u * BLK) * VEC;
        const bool vec_ok = aligned && c0 + VEC <= cols;
        gpuact_u32 t[VEC], t2[VEC];
        if (has_bias && c0 < cols) {
            gpuact_load<X, VEC>(bias, c0, cols, vec_ok, t);
            gpuact_load<X, VEC>(bias2, c0, cols, vec_ok, t2);
        }
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            ba[u][k] = has_bias && c0 < cols ? gpuact_tof<X>(t[k]) : 0.0f;
            bb[u][k] = has_bias && c0 < cols ? gpuact_tof<X>(t2[k]) : 0.0f;
        }
    }
    if (v0 * VEC >= cols) return;
    for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
        const unsigned char *ar = in + r * ld_in * X::size, *br = aux + r * ld_aux * X::size;
        unsigned char *yr = out + r * ld_out * Y::size;
        gpuact_u32 a[U][VEC], b[U][VEC];
#pragma unroll
        for (int u = 0; u < U; u++) { /* every load first */
            const gpuact_u64 c0 = (v0 + u * BLK) * VEC;
            if (c0 >= cols) continue;
            gpuact_load<X, VEC>(ar, c0, cols, aligned && c0 + VEC <= cols, a[u]);
            gpuact_load<X, VEC>(br, c0, cols, aligned && c0 + VEC <= cols, b[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const gpuact_u64 c0 = (v0 + u * BLK) * VEC;
            gpuact_u32 y[VEC];
            if (c0 >= cols) continue;
#pragma unroll
            for (int k = 0; k < VEC; k += 2) { /* pairs: the two-at-once conversion of 16-bit results */
                float v[2];
#pragma unroll
                for (int i = 0; i < 2; i++) {
                    float za = gpuact_tof<X>(a[u][k + i]), zb = gpuact_tof<X>(b[u][k + i]);
                    if (has_bias) {
                        za += ba[u][k + i];
                        zb += bb[u][k + i];
                    }
                    v[i] = gpuact_act(KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(Y::size, PRECISE)) * zb;
                }
                gpuact_fromf2<Y>(v[0], v[1], y[k], y[k + 1]);
            }
            gpuact_store<Y, VEC>(yr, c0, cols, aligned && c0 + VEC <= cols, y);
        }
    }
}

GPUACT_INSTANTIATE(glu_forward)
