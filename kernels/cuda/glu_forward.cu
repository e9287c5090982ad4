/* Gated forward: y[r][c] = act(a[r][c] (+ bias_a[c])) * (b[r][c] (+ bias_b[c])),
   each sum one f32 addition, one f32 product, y rounded once. X = a, b and
   the biases, Y = y (X2 = X). in = a, aux = b, bias / bias2 = the biases,
   out = y. A thread owns GPUACT_UNROLL vectors of VEC elements a block
   apart, GPUACT_GLU16_UNROLL when every array is 16-bit (the host's grid
   follows the same rule: gpuact__gpu_shape). */
#include "common.cuh"

#ifdef GPUACT_QUICK_BF16
/* y's words (two elements each, element 2j in word j's low half) of one bf16 vector of GELU,
   tanh-GELU or SiLU without biases through ../smooth.h's quick act: kept where y rounds to bf16 as
   with the lean act (gpuact_qglu_act_kept); elsewhere, after one uniform branch, the lean value, in
   a loop over the lane's pending elements (as ../act.h's gpuact_qbf16_fix). */
template <int KIND>
__device__ __forceinline__ void gpuact_gluf_qbf16(const gpuact_u32 (&a)[4], const gpuact_u32 (&b)[4], gpuact_u32 (&y)[4]) {
    const int dt = GPUACT_DT_bf16;
    gpuact_u32 pending = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        float v[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float gr;
            int ok;
            const float za = h ? gpuact_hi2f(dt, a[j]) : gpuact_lo2f(dt, a[j]);
            v[h] = gpuact_glu_quick16(KIND, za, &gr, &ok) * (h ? gpuact_hi2f(dt, b[j]) : gpuact_lo2f(dt, b[j]));
            pending |= (gpuact_u32)!(ok && gpuact_qglu_act_kept(v[h], gpuact_qglu_act_ulps(KIND))) << (2 * j + h);
        }
        y[j] = gpuact_pack2_dt(dt, 1, v[0], v[1]);
    }
    if (!GPUACT_WARP_ANY(pending)) return;
    while (pending) {
        const gpuact_u32 k = gpuact_lowest_bit(pending), j = k >> 1,
                         sh = 16 * (k & 1u), keep = sh ? 0xffffu : 0xffff0000u;
        const float za = gpuact_bf16_elem4(a, k), zb = gpuact_bf16_elem4(b, k);
        /* the general path's expression (glu_forward below) */
        const gpuact_u32 p = gpuact_fromf_dt(dt, gpuact_act(KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(2, 0) GPUACT_TAB_A) * zb) << sh;
        gpuact_word4_set(y, j, keep, p);
        pending &= pending - 1u;
    }
}
#endif

template <class X, class Y, class X2, int KIND, int MASK_, int DBIAS_, int SELECT_, int FROMX_, int PRECISE>
__device__ __forceinline__ void glu_forward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<X, Y, X2>::value, U = VEC == 8 ? GPUACT_GLU16_UNROLL : GPUACT_UNROLL, BLK = GPUACT_BLOCK };
    gpuact_tabs_fill<KIND, GPUACT_ACT_TABLE(KIND, PRECISE, Y::size), false>();
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (BLK * U) + threadIdx.x;
    const bool has_bias = flags & GPUACT_F_BIAS;
    /* bf16 without biases, GELU, tanh-GELU and SiLU in the default evaluation: gpuact_gluf_qbf16 */
    enum { QUICK = X::id == GPUACT_DT_bf16 && Y::id == GPUACT_DT_bf16 && !PRECISE &&
                   ((GPUACT_TRANSCENDENTAL_KINDS >> KIND) & 1u) };
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
#ifdef GPUACT_QUICK_BF16
        if (QUICK && !has_bias) {
            gpuact_u32 wa[U][4], wb[U][4];
#pragma unroll
            for (int u = 0; u < U; u++) { /* every load first */
                const gpuact_u64 c0 = (v0 + u * BLK) * VEC;
                if (c0 >= cols) continue;
                gpuact_load_words<X>(ar, c0, cols, aligned && c0 + VEC <= cols, wa[u]);
                gpuact_load_words<X>(br, c0, cols, aligned && c0 + VEC <= cols, wb[u]);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const gpuact_u64 c0 = (v0 + u * BLK) * VEC;
                gpuact_u32 wy[4];
                if (c0 >= cols) continue;
                gpuact_gluf_qbf16<KIND>(wa[u], wb[u], wy);
                gpuact_store_words<Y>(yr, c0, cols, aligned && c0 + VEC <= cols, wy);
            }
            continue;
        }
#endif
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
                    v[i] = gpuact_act(KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(Y::size, PRECISE) GPUACT_TAB_A) * zb;
                }
                gpuact_fromf2<Y>(v[0], v[1], y[k], y[k + 1]);
            }
            gpuact_store<Y, VEC>(yr, c0, cols, aligned && c0 + VEC <= cols, y);
        }
    }
}

GPUACT_INSTANTIATE(glu_forward)
