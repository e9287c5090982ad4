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

#ifdef GPUACT_QUICK_BF16
/* The bf16 gated backward of one vector of GELU, tanh-GELU or SiLU without biases (words of two
   elements, element 2j in word j's low half) through ../smooth.h's quick act and act': each product
   kept where it rounds to bf16 as the lean one does (gpuact_qglu_grad_kept, gpuact_qglu_act_kept);
   elsewhere, after one uniform branch, the lean value of that product alone, in a loop over the
   lane's pending elements as ../act.h's gpuact_qbf16_fix (GELU's lean act and act' are each about
   100 instructions, and most pending elements need one of them). */
template <int KIND>
__device__ __forceinline__ void gpuact_glub_qbf16(const gpuact_u32 (&dy)[4], const gpuact_u32 (&a)[4],
                                                  const gpuact_u32 (&b)[4], gpuact_u32 (&da)[4], gpuact_u32 (&db)[4]) {
    const int dt = GPUACT_DT_bf16;
    gpuact_u32 pa = 0, pb = 0; /* bit k: element k's da, db not kept */
#pragma unroll
    for (int j = 0; j < 4; j++) {
        float va[2], vb[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const float za = h ? gpuact_hi2f(dt, a[j]) : gpuact_lo2f(dt, a[j]);
            const float g = h ? gpuact_hi2f(dt, dy[j]) : gpuact_lo2f(dt, dy[j]);
            const float zb = h ? gpuact_hi2f(dt, b[j]) : gpuact_lo2f(dt, b[j]);
            float gr;
            int ok;
            const float q = gpuact_glu_quick16(KIND, za, &gr, &ok);
            va[h] = (g * zb) * gr;
            vb[h] = g * q;
            pa |= (gpuact_u32)!(ok && gpuact_qglu_grad_kept(va[h], gr, gpuact_qglu_grad_abs(KIND))) << (2 * j + h);
            pb |= (gpuact_u32)!(ok && gpuact_qglu_act_kept(vb[h], gpuact_qglu_act_ulps(KIND))) << (2 * j + h);
        }
        da[j] = gpuact_pack2_dt(dt, 1, va[0], va[1]);
        db[j] = gpuact_pack2_dt(dt, 1, vb[0], vb[1]);
    }
    if (!GPUACT_WARP_ANY(pa | pb)) return;
    for (gpuact_u32 pending = pa | pb; pending; pending &= pending - 1u) {
        const gpuact_u32 k = gpuact_lowest_bit(pending), j = k >> 1,
                         sh = 16 * (k & 1u), keep = sh ? 0xffffu : 0xffff0000u;
        const float za = gpuact_bf16_elem4(a, k), g = gpuact_bf16_elem4(dy, k);
        /* the general path's expressions (glu_backward below) */
        if ((pa >> k) & 1u) {
            const float zb = gpuact_bf16_elem4(b, k);
            gpuact_word4_set(da, j, keep,
                             gpuact_fromf_dt(dt, (g * zb) * gpuact_grad(KIND, za, gpuact_eval(2, 0) GPUACT_TAB_A)) << sh);
        }
        if ((pb >> k) & 1u)
            gpuact_word4_set(db, j, keep,
                             gpuact_fromf_dt(dt, g * gpuact_act(KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(2, 0) GPUACT_TAB_A)) << sh);
    }
}
#endif

/* The bf16 lookup (../contract.h, GPUACT_LUT16_VARIANT): the module's table of (act(x), act'(x)) as the
   general path below evaluates them (one entry in a module without the lookup), and its fill kernel (the
   host launches it once) */
#if GPUACT_LUT16_ON
__device__ __align__(16) float gpuact_lut16_glu[GPUACT_LUT16_VARIANT(GPUACT_OP_glu_backward, GPUACT_KIND, GPUACT_MASK,
                                                                     GPUACT_DBIAS, GPUACT_FROMX, GPUACT_PRECISE,
                                                                     GPUACT_T0::id, GPUACT_T1::id, GPUACT_T2::id)
                                                    ? 2 * GPUACT_LUT16_ENTRIES(GPUACT_LUT16_TABLE(GPUACT_OP_glu_backward,
                                                                                                  GPUACT_T1::id))
                                                    : 1];
__device__ __forceinline__ const uint4 *gpuact_lut16_src() { return reinterpret_cast<const uint4 *>(gpuact_lut16_glu); }
template <class X, int KIND, int DBIAS, int PRECISE>
__device__ __forceinline__ void gpuact_lut16_fill_() {
    enum { TB = GPUACT_LUT16_TABLE(GPUACT_OP_glu_backward, X::id) };
    const gpuact_u32 e = blockIdx.x * blockDim.x + threadIdx.x; /* entries 8e to 8e + 7 */
    if (!GPUACT_LUT16_VARIANT(GPUACT_OP_glu_backward, KIND, 0, DBIAS, 0, PRECISE, X::id, X::id, X::id) ||
        e >= GPUACT_LUT16_ENTRIES(TB) / 8)
        return;
#pragma unroll
    for (gpuact_u32 k = 0; k < 8; k++) {
        const float za = gpuact_lo2f(X::id, GPUACT_LUT16_BITS(8u * e + k, TB));
        gpuact_lut16_glu[2u * (8u * e + k)] = gpuact_act(KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(X::size, PRECISE) GPUACT_TAB_A);
        gpuact_lut16_glu[2u * (8u * e + k) + 1u] = gpuact_grad(KIND, za, gpuact_eval(X::size, PRECISE) GPUACT_TAB_A);
    }
}
extern "C" __global__ void gpuact_lut16_fill() { gpuact_lut16_fill_<GPUACT_T1, GPUACT_KIND, GPUACT_DBIAS, GPUACT_PRECISE>(); }
#else
__device__ __forceinline__ const uint4 *gpuact_lut16_src() { return 0; }
#endif
/* One vector's da and db, words of two bf16, act and act' of a looked up in t (table TB in shared
   memory) and multiplied as the general path below does; whether an a lies outside the table's range */
template <int TB>
__device__ __forceinline__ bool gpuact_glub_lut(const gpuact_u32 (&dy)[4], const gpuact_u32 (&a)[4],
                                                const gpuact_u32 (&b)[4], gpuact_u32 (&da)[4], gpuact_u32 (&db)[4],
                                                const float2 *t) {
    gpuact_u32 out = 0u;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const gpuact_u32 lo = a[j] & 0xffffu, hi = a[j] >> 16;
        const float2 tl = t[GPUACT_LUT16_ENTRY(lo, TB)], th = t[GPUACT_LUT16_ENTRY(hi, TB)];
        float gl, gh, bl, bh;
        out |= !GPUACT_LUT16_IN(lo, TB) | !GPUACT_LUT16_IN(hi, TB);
        gpuact_unpack2_dt(GPUACT_DT_bf16, dy[j], &gl, &gh);
        gpuact_unpack2_dt(GPUACT_DT_bf16, b[j], &bl, &bh);
        da[j] = gpuact_pack2_dt(GPUACT_DT_bf16, 1, (gl * bl) * tl.y, (gh * bh) * th.y);
        db[j] = gpuact_pack2_dt(GPUACT_DT_bf16, 1, gl * tl.x, gh * th.x);
    }
    return out != 0u;
}

/* One vector's da and db (the general path): the sums with the biases where given, then
   gpuact_grad and gpuact_act, pairs at a time (the two-at-once conversion of 16-bit results). */
template <class DY, class X, int KIND, int PRECISE, int VEC>
__device__ __forceinline__ void gpuact_glub_vec(const gpuact_u32 (&dy)[VEC], const gpuact_u32 (&a)[VEC],
                                                const gpuact_u32 (&b)[VEC], const float (&ba)[VEC],
                                                const float (&bb)[VEC], bool has_bias, gpuact_u32 (&da)[VEC],
                                                gpuact_u32 (&db)[VEC]) {
#pragma unroll
    for (int k = 0; k < VEC; k += 2) {
        float va[2], vb[2];
#pragma unroll
        for (int i = 0; i < 2; i++) {
            float za = gpuact_tof<X>(a[k + i]), zb = gpuact_tof<X>(b[k + i]);
            const float g = gpuact_tof<DY>(dy[k + i]);
            if (has_bias) {
                za += ba[k + i];
                zb += bb[k + i];
            }
            /* ReLU: +0 where za does not pass, by selection (its bits are 0 in every dtype) */
            va[i] = gpuact_kind_select(KIND) ? (gpuact_passes(KIND, za, 0.0f, 0.0f) ? g * zb : 0.0f)
                                             : (g * zb) * gpuact_grad(KIND, za, gpuact_eval(X::size, PRECISE) GPUACT_TAB_A);
            vb[i] = g * gpuact_act(KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(X::size, PRECISE) GPUACT_TAB_A);
        }
        gpuact_fromf2<X>(va[0], va[1], da[k], da[k + 1]);
        gpuact_fromf2<X>(vb[0], vb[1], db[k], db[k + 1]);
    }
}

template <class DY, class X, class X2, int KIND, int MASK_, int DBIAS, int SELECT_, int FROMX_, int PRECISE>
__device__ __forceinline__ void glu_backward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<DY, X, X2>::value, BLK = GPUACT_BLOCK };
    gpuact_tabs_fill<KIND, GPUACT_ACT_TABLE(KIND, PRECISE, X::size), GPUACT_GRAD_TABLE(KIND, PRECISE, X::size)>();
    enum { U = GPUACT_ONE_VECTOR(GPUACT_OP_glu_backward, KIND, 0, DBIAS, VEC == 8, GPUACT_WIDENS(DY::size, X::size)) ? 1 : GPUACT_UNROLL };
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (BLK * U) + threadIdx.x;
    const bool has_bias = flags & GPUACT_F_BIAS;
    /* bf16 without biases or their gradients, GELU, tanh-GELU and SiLU in the default evaluation */
    enum { QUICK = X::id == GPUACT_DT_bf16 && DY::id == GPUACT_DT_bf16 && !PRECISE && !DBIAS &&
                   ((GPUACT_TRANSCENDENTAL_KINDS >> KIND) & 1u) };
    const bool aligned = layout & GPUACT_LAYOUT_ALIGNED; /* ../contract.h */
    /* the bf16 lookup: the module's table of (act, act') to shared memory (GPUACT_LUT16_SHARED bytes) */
    enum { LUT = GPUACT_LUT16_ON && QUICK &&
                 GPUACT_LUT16_VARIANT(GPUACT_OP_glu_backward, KIND, 0, DBIAS, 0, PRECISE, DY::id, X::id, X2::id) };
    const float2 *lut = 0;
    if (LUT && !has_bias) {
        extern __shared__ uint4 lg[];
        gpuact_lut16_load<GPUACT_LUT16_SHARED(GPUACT_OP_glu_backward, X::id) / 16, BLK>(lg, gpuact_lut16_src());
        lut = reinterpret_cast<const float2 *>(lg);
    }
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
    /* Without the bias gradients, a 4-byte array: the next row's vectors are loaded before this
       row's math, so the loads of a thread overlap its own arithmetic (one vector per thread,
       GPUACT_ONE_VECTOR; ../contract.h has the measurements) */
    if (VEC == 4 && !DBIAS && U == 1) {
        const gpuact_u64 c0 = v0 * VEC;
        const bool vec_ok = aligned && c0 + VEC <= cols;
        gpuact_u32 dy[VEC], a[VEC], b[VEC];
        gpuact_u64 r = blockIdx.y;
        if (c0 >= cols || r >= rows) return;
        gpuact_load<DY, VEC>(in + r * ld_in * DY::size, c0, cols, vec_ok, dy);
        gpuact_load<X, VEC>(aux + r * ld_aux * X::size, c0, cols, vec_ok, a);
        gpuact_load<X, VEC>(aux2 + r * ld_aux2 * X::size, c0, cols, vec_ok, b);
        for (;;) {
            const gpuact_u64 rn = r + gridDim.y;
            gpuact_u32 ndy[VEC], na[VEC], nb[VEC], da[VEC], db[VEC];
            if (rn < rows) {
                gpuact_load<DY, VEC>(in + rn * ld_in * DY::size, c0, cols, vec_ok, ndy);
                gpuact_load<X, VEC>(aux + rn * ld_aux * X::size, c0, cols, vec_ok, na);
                gpuact_load<X, VEC>(aux2 + rn * ld_aux2 * X::size, c0, cols, vec_ok, nb);
            }
            gpuact_glub_vec<DY, X, KIND, PRECISE, VEC>(dy, a, b, ba[0], bb[0], has_bias, da, db);
            gpuact_store<X, VEC>(out + r * ld_out * X::size, c0, cols, vec_ok, da);
            gpuact_store<X, VEC>(out2 + r * ld_out2 * X::size, c0, cols, vec_ok, db);
            if (rn >= rows) return;
            r = rn;
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                dy[k] = ndy[k];
                a[k] = na[k];
                b[k] = nb[k];
            }
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
#ifdef GPUACT_QUICK_BF16
            if (QUICK && !has_bias) {
                gpuact_u32 wdy[4], wa[4], wb[4], wda[4], wdb[4];
                gpuact_load_words<DY>(dyr, c0, cols, vec_ok, wdy);
                gpuact_load_words<X>(ar, c0, cols, vec_ok, wa);
                gpuact_load_words<X>(br, c0, cols, vec_ok, wb);
                /* the quick path where an a lies outside the table's range (or there is no table) */
                if (!LUT || !lut || gpuact_glub_lut<GPUACT_LUT16_TABLE(GPUACT_OP_glu_backward, X::id)>(wdy, wa, wb, wda, wdb, lut))
                    gpuact_glub_qbf16<KIND>(wdy, wa, wb, wda, wdb);
                gpuact_store_words<X>(dar, c0, cols, vec_ok, wda);
                gpuact_store_words<X>(dbr, c0, cols, vec_ok, wdb);
                continue;
            }
#endif
            gpuact_load<DY, VEC>(dyr, c0, cols, vec_ok, dy);
            gpuact_load<X, VEC>(ar, c0, cols, vec_ok, a);
            gpuact_load<X, VEC>(br, c0, cols, vec_ok, b);
            gpuact_glub_vec<DY, X, KIND, PRECISE, VEC>(dy, a, b, ba[u], bb[u], has_bias, da, db);
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
