/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask bits
   when MASK (the ReLU family). X = x, Y = y, B = bias (X when there is none). SELECT_ (no
   bias, scale 1, X = Y): the result is a selection of x's own bits (NaN
   payloads kept) and nothing is converted back.

   When every array is 16-bit (PAIRS) a thread works on words of two
   elements: the selection paths decide both lanes with a few integer
   operations (../act.h), the general path converts two values at once, so
   the 16-bit kernels issue about as many instructions per byte as the f32
   ones and stay memory-bound. */
#include "common.cuh"

/* The element path (f32 and mixed dtypes): y[k] and the mask bits of one
   vector from x's bits and the bias. */
template <class X, class Y, class B, int KIND, int SELECT, int VEC>
__device__ __forceinline__ gpuact_u32 gpuact_fwd_elems(const gpuact_u32 (&x)[VEC], const float (&b)[VEC],
                                                       gpuact_u32 (&y)[VEC], bool has_bias, int flags, float scale,
                                                       float slope, float ceiling, float lower, gpuact_u32 cbits,
                                                       gpuact_u32 lbits) {
    gpuact_u32 bits = 0;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        bool pass = false;
        if (SELECT) { /* y is x's bits, +0, a bound, or (leaky) x * slope */
            pass = gpuact_passes_bits<X, KIND>(x[k], cbits, lbits);
            if (KIND == GPUACT_KIND_hardtanh)
                y[k] = gpuact_hardtanh_bits(x[k], gpuact_ord_bits<X, KIND>(x[k]), gpuact_nan_bits<X>(x[k]), lbits,
                                            gpuact_ord_bits<X, KIND>(lbits), cbits, gpuact_ord_bits<X, KIND>(cbits));
            else if (gpuact_kind_slope(KIND))
                y[k] = pass ? x[k] : gpuact_fromf<Y>(gpuact_tof<X>(x[k]) * slope);
            else
                y[k] = pass ? x[k] : gpuact_blocked_bits(KIND, gpuact_sbits<X>(x[k]), cbits);
        } else {
            float z = gpuact_tof<X>(x[k]);
            if (has_bias) z += b[k];
            float v = gpuact_act(KIND, z, slope, ceiling, lower, gpuact_lean(Y::size));
            if (flags & GPUACT_F_SCALE) v *= scale;
            /* no bias, scale 1, X = Y, not the selection path: a NaN x keeps its bits */
            y[k] = (flags & GPUACT_F_RAW) && gpuact_nan_bits<X>(x[k]) ? x[k] : gpuact_fromf<Y>(v);
            if (gpuact_kind_select(KIND)) pass = gpuact_passes(KIND, z, ceiling, lower);
        }
        bits |= (gpuact_u32)pass << k;
    }
    return bits;
}

/* The word path (every array 16-bit): y's words and the mask bits of one
   vector of 8 elements from x's words and the bias's words. FL >= 0: flags
   is that constant (gpuact_fwd_rows), so choices on it can be made at
   compile time. The same formula as gpuact_fwd_word (../act.h, which the
   OpenCL forward runs), stated here with template arguments: calling that
   function from here made nvcc emit other code for 52 of the 348 forward
   kernels (the bf16 epilogue: 60 registers instead of 55) and measured 4%
   slower there on the H200 (docs/PERFORMANCE.md). The conformance suite
   holds both to the same CPU reference. */
template <class X, class Y, class B, int KIND, int SELECT, int FL>
__device__ __forceinline__ gpuact_u32 gpuact_fwd_words(const gpuact_u32 (&x)[4], const gpuact_u32 (&bw)[4],
                                                       gpuact_u32 (&y)[4], bool has_bias, int flags, float scale,
                                                       float slope, float ceiling, float lower, gpuact_u32 c2,
                                                       gpuact_u32 l2) {
    const gpuact_u32 inf = gpuact_inf<X>::value;
    gpuact_u32 top[4]; /* bits 15 and 31: where each lane's gradient passes */
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const gpuact_u32 w = x[j];
        if (SELECT && gpuact_kind_slope(KIND)) { /* x * slope is arithmetic: the two-at-once conversion */
            const gpuact_u32 pass = gpuact_passes_pair(KIND, w, inf, c2, l2);
            float lo, hi;
            gpuact_unpack2<X>(w, lo, hi);
            y[j] = (w & pass) | (gpuact_pack2<Y, true>(lo * slope, hi * slope) & ~pass);
            top[j] = pass & 0x80008000u;
        } else if (SELECT && KIND == GPUACT_KIND_hardtanh) { /* per lane: a bound may equal a passing value */
            float zl, zh;
            gpuact_unpack2<X>(w, zl, zh);
            /* the bounds as the format holds them (the bits rule's; not the f32 parameters, which the
               epilogue does not round) */
            y[j] = gpuact_hardtanh_pairf(w, zl, zh, gpuact_tof<X>(l2 & 0xffffu), gpuact_tof<X>(c2 & 0xffffu),
                                         l2 & 0xffffu, c2 & 0xffffu, &top[j]);
        } else if (SELECT) { /* y is x where it passes, else +0 or the ceiling (never a passing value) */
            y[j] = gpuact_select_pair(KIND, w, inf, c2);
            top[j] = gpuact_select_tops(KIND, y[j], c2);
        } else {
            float zl, zh, vl, vh;
            gpuact_unpack2<X>(w, zl, zh);
            if (has_bias) { /* the bias stays packed until here: half the registers */
                float bl, bh;
                gpuact_unpack2<B>(bw[j], bl, bh);
                zl += bl;
                zh += bh;
            }
#ifdef GPUACT_MIN_NAN
            if (FL >= 0 && (FL & (GPUACT_F_BIAS | GPUACT_F_SCALE | GPUACT_F_RAW)) && KIND == GPUACT_KIND_clipped) {
                vl = gpuact_clipped_min_nan(zl, ceiling);
                vh = gpuact_clipped_min_nan(zh, ceiling);
            } else
#endif
            {
                vl = gpuact_act(KIND, zl, slope, ceiling, lower, gpuact_lean(Y::size));
                vh = gpuact_act(KIND, zh, slope, ceiling, lower, gpuact_lean(Y::size));
            }
            if (flags & GPUACT_F_SCALE) {
                vl *= scale;
                vh *= scale;
            }
            if (flags & (GPUACT_F_BIAS | GPUACT_F_SCALE | GPUACT_F_RAW)) {
                /* a NaN here came from arithmetic, or (RAW) is replaced by x's own below: the two-at-once
                   conversion rounds every other value as the exact one does */
                y[j] = gpuact_pack2<Y, true>(vl, vh);
                if (flags & GPUACT_F_RAW) {
                    const gpuact_u32 nan = gpuact_nan_lanes(w, inf);
                    y[j] = (y[j] & ~nan) | (w & nan);
                }
            } else { /* a NaN may be x's own: keep its payload as the element path does */
                y[j] = gpuact_pack2<Y, false>(vl, vh);
            }
            top[j] = !gpuact_kind_select(KIND) ? 0u
                     : (gpuact_passes(KIND, zl, ceiling, lower) ? 0x8000u : 0u) |
                           (gpuact_passes(KIND, zh, ceiling, lower) ? 0x80000000u : 0u);
        }
    }
    return gpuact_tops_bits(top[0], top[1], top[2], top[3]);
}

/* The rows of one thread's columns (the main loop of forward). FL >= 0: the
   run-time flags as a constant, so the 16-bit general path (bias, scale, the
   NaN rule: per-word choices) has no branch inside the loop; forward picks
   the instance (FL = -1: the flags read at run time). */
template <class X, class Y, class B, int KIND, int MASK, int SELECT, int FL, int VEC>
__device__ __forceinline__ void gpuact_fwd_rows(const unsigned char *in, unsigned char *out, unsigned char *mask,
                                                gpuact_u64 rows, gpuact_u64 cols, gpuact_u64 ld_in,
                                                gpuact_u64 ld_out, gpuact_u64 mask_ld, int flags_, float scale,
                                                float slope, float ceiling, float lower, gpuact_u32 cbits,
                                                gpuact_u32 lbits, const unsigned char *bias, bool has_bias_,
                                                gpuact_u64 v0, gpuact_u64 shift, bool aligned) {
    enum { U = GPUACT_UNROLL, PAIRS = VEC == 8, BLK = GPUACT_VARIANT_BLOCK(GPUACT_OP_forward, MASK, 0) };
    const int flags = FL >= 0 ? FL : flags_;
    const bool has_bias = FL >= 0 ? (FL & GPUACT_F_BIAS) != 0 : has_bias_;
    float b[U][VEC];      /* the bias: floats (element path) */
    gpuact_u32 bw[U][4];  /* or words of two 16-bit values (word path) */
#pragma unroll
    for (int u = 0; u < U; u++) {
        const gpuact_u64 c0 = shift + (v0 + u * BLK) * VEC;
        const bool load = has_bias && c0 < cols, vec_ok = aligned && c0 + VEC <= cols;
        gpuact_u32 bb[VEC];
        if (PAIRS) {
            if (load) gpuact_load_words<B>(bias, c0, cols, vec_ok, bw[u]);
#pragma unroll
            for (int j = 0; j < 4; j++) bw[u][j] = load ? bw[u][j] : 0u;
        } else {
            if (load) gpuact_load<B, VEC>(bias, c0, cols, vec_ok, bb);
#pragma unroll
            for (int k = 0; k < VEC; k++) b[u][k] = load ? gpuact_tof<B>(bb[k]) : 0.0f;
        }
    }
    for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
        const unsigned char *xr = in + r * ld_in * X::size;
        unsigned char *yr = out + r * ld_out * Y::size;
        gpuact_u32 x[U][VEC], y[U][VEC], bits[U];
#pragma unroll
        for (int u = 0; u < U; u++) { /* every load first: two vectors in flight */
            const gpuact_u64 c0 = shift + (v0 + u * BLK) * VEC;
            const bool vec_ok = aligned && c0 + VEC <= cols;
            if (c0 >= cols) continue;
            if (PAIRS) gpuact_load_words<X>(xr, c0, cols, vec_ok, reinterpret_cast<gpuact_u32(&)[4]>(x[u]));
            else gpuact_load<X, VEC>(xr, c0, cols, vec_ok, x[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const gpuact_u64 cv = v0 + u * BLK, c0 = shift + cv * VEC;
            const bool vec_ok = aligned && c0 + VEC <= cols;
            bits[u] = 0;
            if (c0 < cols) {
                if (PAIRS) {
                    bits[u] = gpuact_fwd_words<X, Y, B, KIND, SELECT, FL>(
                        reinterpret_cast<const gpuact_u32(&)[4]>(x[u]), bw[u],
                        reinterpret_cast<gpuact_u32(&)[4]>(y[u]), has_bias, flags, scale, slope, ceiling, lower,
                        cbits * 0x00010001u, lbits * 0x00010001u);
                    gpuact_store_words<Y>(yr, c0, cols, vec_ok, reinterpret_cast<const gpuact_u32(&)[4]>(y[u]));
                } else {
                    bits[u] = gpuact_fwd_elems<X, Y, B, KIND, SELECT, VEC>(x[u], b[u], y[u], has_bias, flags, scale,
                                                                         slope, ceiling, lower, cbits, lbits);
                    gpuact_store<Y, VEC>(yr, c0, cols, vec_ok, y[u]);
                }
                if (c0 + VEC > cols) bits[u] &= (1u << (cols - c0)) - 1u; /* padding bits are 0 */
            }
            if (MASK) gpuact_mask_write<VEC>(mask + r * (mask_ld / 8), cv, c0 < cols, bits[u]);
        }
    }
}

template <class X, class Y, class B, int KIND, int MASK, int DBIAS_, int SELECT_, int FROMX_>
__device__ __forceinline__ void forward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<X, Y, B>::value, U = GPUACT_UNROLL, PAIRS = VEC == 8 };
    enum { SELECT = SELECT_ && gpuact_same<X, Y>::value, BLK = GPUACT_VARIANT_BLOCK(GPUACT_OP_forward, MASK, 0) };
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (BLK * U) + threadIdx.x;
    const bool has_bias = !SELECT && (flags & GPUACT_F_BIAS);
    const gpuact_u64 phase = (gpuact_u64)in % 16;
    /* Every array off the 16-byte grid by the same amount (a view offset by
       a few elements, in place or not): the vectors start at the first
       aligned element and thread 0 of each row's first block takes the
       head. Not when writing the mask, whose bytes follow the row's own
       element numbering. */
    const bool shifted = !MASK && X::size == Y::size && X::size == B::size && phase % X::size == 0 &&
                         (gpuact_u64)out % 16 == phase && (!has_bias || (gpuact_u64)bias % 16 == phase) &&
                         (rows == 1 || ((ld_in * X::size) % 16 == 0 && (ld_out * Y::size) % 16 == 0));
    const gpuact_u64 shift = shifted ? (16 - phase) % 16 / X::size : 0;
    const bool aligned = shifted || (gpuact_rows_aligned(in, ld_in * X::size, rows) &&
                                     gpuact_rows_aligned(out, ld_out * Y::size, rows) &&
                                     (!has_bias || (gpuact_u64)bias % 16 == 0));
    const gpuact_u32 cbits = gpuact_fromf<Y>(ceiling), lbits = gpuact_fromf<Y>(lower); /* the bounds as Y */
    (void)aux; (void)part; (void)ld_aux; (void)cbits; (void)lbits; (void)DBIAS_; (void)FROMX_;
    /* The head of a shifted row, columns [0, shift), before the main loop so
       its registers are free again there. */
    if (shift && blockIdx.x == 0 && threadIdx.x == 0)
        for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
            const unsigned char *xr = in + r * ld_in * X::size;
            unsigned char *yr = out + r * ld_out * Y::size;
            const gpuact_u64 hn = shift < cols ? shift : cols;
            gpuact_u32 hx[VEC], hy[VEC], hb[VEC] = {0};
            float hf[VEC];
            if (PAIRS) {
                if (has_bias) gpuact_load_words<B>(bias, 0, hn, false, reinterpret_cast<gpuact_u32(&)[4]>(hb));
                gpuact_load_words<X>(xr, 0, hn, false, reinterpret_cast<gpuact_u32(&)[4]>(hx));
                gpuact_fwd_words<X, Y, B, KIND, SELECT, -1>(reinterpret_cast<const gpuact_u32(&)[4]>(hx),
                                                        reinterpret_cast<const gpuact_u32(&)[4]>(hb),
                                                        reinterpret_cast<gpuact_u32(&)[4]>(hy), has_bias, flags, scale,
                                                        slope, ceiling, lower, cbits * 0x00010001u,
                                                        lbits * 0x00010001u);
                gpuact_store_words<Y>(yr, 0, hn, false, reinterpret_cast<const gpuact_u32(&)[4]>(hy));
            } else {
                if (has_bias) gpuact_load<B, VEC>(bias, 0, hn, false, hb);
#pragma unroll
                for (int k = 0; k < VEC; k++) hf[k] = has_bias ? gpuact_tof<B>(hb[k]) : 0.0f;
                gpuact_load<X, VEC>(xr, 0, hn, false, hx);
                gpuact_fwd_elems<X, Y, B, KIND, SELECT, VEC>(hx, hf, hy, has_bias, flags, scale, slope, ceiling, lower,
                                                             cbits, lbits);
                gpuact_store<Y, VEC>(yr, 0, hn, false, hy);
            }
        }
#define GPUACT_FWD_ROWS_(fl)                                                                                    \
    gpuact_fwd_rows<X, Y, B, KIND, MASK, SELECT, fl, VEC>(in, out, mask, rows, cols, ld_in, ld_out, mask_ld, flags, \
                                                          scale, slope, ceiling, lower, cbits, lbits, bias, has_bias, \
                                                          v0, shift, aligned)
    /* The 16-bit general path gets a second loop with the flags as constants
       (no branch on them per word; ReLU folds into the conversion) where
       that was measured faster on the H200: the epilogue without scale of
       the ReLU family (3-14%), and erf-GELU's epilogue and elementwise
       forward (7-10%). An instance per combination of flags made nvcc
       allocate for all of them at once and spill. For tanh-GELU, SiLU and
       squared ReLU the second loop took the kernel from 55 to 64 registers
       and their elementwise forwards (one kernel with the epilogue) 2-6%
       slower: not for them. */
    if (PAIRS && !SELECT && (gpuact_kind_select(KIND) || KIND == GPUACT_KIND_gelu) && flags == GPUACT_F_BIAS) {
        GPUACT_FWD_ROWS_(GPUACT_F_BIAS);
        return;
    }
    if (PAIRS && !SELECT && KIND == GPUACT_KIND_gelu && flags == GPUACT_F_RAW) {
        GPUACT_FWD_ROWS_(GPUACT_F_RAW);
        return;
    }
    GPUACT_FWD_ROWS_(-1);
#undef GPUACT_FWD_ROWS_
}

GPUACT_INSTANTIATE(forward)
