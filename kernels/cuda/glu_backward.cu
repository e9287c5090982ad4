/* Gated backward, one pass: with za = a (+ bias_a), zb = b (+ bias_b) as the
   forward formed them and g = dy in f32,
       da = (g * zb) * act'(za)   (ReLU: g * zb where za passes, else +0, by selection)
       db = g * act(za)
   each rounded once to X. DY = dy, X = a, b, the biases, da and db (X2 = X).
   in = dy, aux = a, aux2 = b, bias / bias2, out = da, out2 = db. With DBIAS
   each row group (blockIdx.y) writes its column sums of the stored da to
   part[group][c] and of db to part[group][cols + c], adding its rows in
   order. */
#include "common.cuh"

template <class DY, class X, class X2, int KIND, int MASK_, int DBIAS, int SELECT_, int FROMX_, int PRECISE>
__device__ __forceinline__ void glu_backward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<DY, X, X2>::value, BLK = GPUACT_BLOCK };
    enum { U = GPUACT_ONE_VECTOR(GPUACT_OP_glu_backward, KIND, 0, DBIAS, VEC == 8, GPUACT_WIDENS(DY::size, X::size)) ? 1 : GPUACT_UNROLL };
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (BLK * U) + threadIdx.x;
    const bool has_bias = flags & GPUACT_F_BIAS;
    const bool aligned = layout & GPUACT_LAYOUT_ALIGNED; /* ../contract.h */
    float ba[U][VEC], bb[U][VEC], acc_a[U][VEC], acc_b[U][VEC];
    (void)mask; (void)mask_ld; (void)scale; (void)slope; (void)ceiling; (void)lower;
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
            acc_a[u][k] = acc_b[u][k] = 0.0f;
        }
    }
    for (gpuact_u64 r = blockIdx.y; r < rows && v0 * VEC < cols; r += gridDim.y) {
        const unsigned char *dyr = in + r * ld_in * DY::size, *ar = aux + r * ld_aux * X::size,
                            *br = aux2 + r * ld_aux2 * X::size;
        unsigned char *dar = out + r * ld_out * X::size, *dbr = out2 + r * ld_out2 * X::size;
#pragma unroll
        for (int u = 0; u < U; u++) {
            const gpuact_u64 c0 = (v0 + u * BLK) * VEC;
            const bool vec_ok = aligned && c0 + VEC <= cols;
            gpuact_u32 dy[VEC], a[VEC], b[VEC], da[VEC], db[VEC];
            if (c0 >= cols) continue;
            gpuact_load<DY, VEC>(dyr, c0, cols, vec_ok, dy);
            gpuact_load<X, VEC>(ar, c0, cols, vec_ok, a);
            gpuact_load<X, VEC>(br, c0, cols, vec_ok, b);
#pragma unroll
            for (int k = 0; k < VEC; k += 2) { /* pairs: the two-at-once conversion of 16-bit results */
                float va[2], vb[2];
#pragma unroll
                for (int i = 0; i < 2; i++) {
                    float za = gpuact_tof<X>(a[k + i]), zb = gpuact_tof<X>(b[k + i]);
                    const float g = gpuact_tof<DY>(dy[k + i]);
                    if (has_bias) {
                        za += ba[u][k + i];
                        zb += bb[u][k + i];
                    }
                    /* ReLU: +0 where za does not pass, by selection (its bits are 0 in every dtype) */
                    va[i] = gpuact_kind_select(KIND) ? (gpuact_passes(KIND, za, 0.0f, 0.0f) ? g * zb : 0.0f)
                                                     : (g * zb) * gpuact_grad(KIND, za, gpuact_eval(X::size, PRECISE));
                    vb[i] = g * gpuact_act(KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(X::size, PRECISE));
                }
                gpuact_fromf2<X>(va[0], va[1], da[k], da[k + 1]);
                gpuact_fromf2<X>(vb[0], vb[1], db[k], db[k + 1]);
            }
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                if (DBIAS) {
                    acc_a[u][k] += gpuact_tof<X>(da[k]);
                    acc_b[u][k] += gpuact_tof<X>(db[k]);
                }
            }
            gpuact_store<X, VEC>(dar, c0, cols, vec_ok, da);
            gpuact_store<X, VEC>(dbr, c0, cols, vec_ok, db);
        }
    }
    if (DBIAS) {
        float *p = reinterpret_cast<float *>(part) + (gpuact_u64)blockIdx.y * 2 * cols;
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const gpuact_u64 c = (v0 + u * BLK) * VEC + k;
                if (c < cols) {
                    p[c] = acc_a[u][k];
                    p[cols + c] = acc_b[u][k];
                }
            }
    }
}

GPUACT_INSTANTIATE(glu_backward)
