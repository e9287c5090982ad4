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
   vector from x's bits and the bias. FL >= 0: the flags as a constant
   (gpuact_fwd_rows). A 16-bit y is rounded two elements at a time where a
   NaN result came from arithmetic (as in gpuact_fwd_words, ../act.h): one
   instruction for two elements instead of about six for each. With
   GPUACT_Y16's launch bound (dialect.cuh) the ReLU family's f32-to-bf16
   epilogues ran 1.15-1.33x faster on the H200, 97-103% of copy at 65536 x
   8192 (docs/PERFORMANCE.md). */
template <class X, class Y, class B, int KIND, int SELECT, int VEC, int FL>
__device__ __forceinline__ gpuact_u32 gpuact_fwd_elems(const gpuact_u32 (&x)[VEC], const float (&b)[VEC],
                                                       gpuact_u32 (&y)[VEC], bool has_bias, int flags, float scale,
                                                       float slope, float ceiling, float lower, gpuact_u32 cbits,
                                                       gpuact_u32 lbits) {
    gpuact_u32 bits = 0;
    float v[VEC]; /* a 16-bit y's results before rounding (not the selection path) */
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        bool pass = false;
        if (SELECT) { /* y is x's bits, +0, a bound, or (leaky) x * slope */
            int hp;
            pass = KIND == GPUACT_KIND_hardtanh ? false : gpuact_passes_bits<X, KIND>(x[k], cbits, lbits);
            if (KIND == GPUACT_KIND_hardtanh) {
                y[k] = gpuact_hardtanh_sel(x[k], gpuact_tof<X>(x[k]), gpuact_tof<X>(lbits), gpuact_tof<X>(cbits), lbits,
                                           cbits, &hp);
                pass = hp;
            } else if (gpuact_kind_slope(KIND))
                y[k] = pass ? x[k] : gpuact_fromf<Y>(gpuact_tof<X>(x[k]) * slope);
            else if (KIND == GPUACT_KIND_relu && X::size == 4) /* pass is for the mask bit only */
                y[k] = gpuact_relu_keeps32(x[k]) ? x[k] : 0u;
            else
                y[k] = pass ? x[k] : gpuact_blocked_bits(KIND, gpuact_sbits<X>(x[k]), cbits);
        } else {
            float z = gpuact_tof<X>(x[k]);
            if (has_bias) z += b[k];
            float vk = gpuact_act_fl(KIND, Y::size == 2 ? FL : -1, z, slope, ceiling, lower, gpuact_lean(Y::size));
            if (flags & GPUACT_F_SCALE) vk *= scale;
            if (Y::size == 2) v[k] = vk; /* rounded below */
            /* no bias, scale 1, X = Y, not the selection path: a NaN x keeps its bits */
            else y[k] = (flags & GPUACT_F_RAW) && gpuact_nan_bits<X>(x[k]) ? x[k] : gpuact_fromf<Y>(vk);
            if (gpuact_kind_select(KIND)) pass = gpuact_passes(KIND, z, ceiling, lower);
        }
        bits |= (gpuact_u32)pass << k;
    }
    if (!SELECT && Y::size == 2) {
        const bool pairs = (flags & (GPUACT_F_BIAS | GPUACT_F_SCALE | GPUACT_F_RAW)) != 0;
#pragma unroll
        for (int k = 0; k < VEC; k += 2) {
            if (pairs) {
                gpuact_fromf2<Y>(v[k], v[k + 1], y[k], y[k + 1]);
            } else {
                y[k] = gpuact_fromf<Y>(v[k]);
                y[k + 1] = gpuact_fromf<Y>(v[k + 1]);
            }
        }
        if (flags & GPUACT_F_RAW) /* as above: a NaN x keeps its bits */
#pragma unroll
            for (int k = 0; k < VEC; k++) y[k] = gpuact_nan_bits<X>(x[k]) ? x[k] : y[k];
    }
    return bits;
}

/* The rows of one thread's columns (the main loop of forward). FL >= 0: the
   run-time flags as a constant, so the 16-bit general path (bias, scale, the
   NaN rule: per-word choices) has no branch inside the loop; forward picks
   the instance (FL = -1: the flags read at run time). FULL: every vector of
   the block is inside the row and 16-byte aligned (gpuact_block_full), so
   no access tests its bounds. */
template <class X, class Y, class B, int KIND, int MASK, int SELECT, int FL, int VEC, int FULL>
__device__ __forceinline__ void gpuact_fwd_rows(const unsigned char *in, unsigned char *out, unsigned char *mask,
                                                gpuact_u64 rows, gpuact_u64 cols, gpuact_u64 ld_in,
                                                gpuact_u64 ld_out, gpuact_u64 mask_ld, int flags_, float scale,
                                                float slope, float ceiling, float lower, gpuact_u32 cbits,
                                                gpuact_u32 lbits, const unsigned char *bias, bool has_bias_,
                                                gpuact_u64 v0, gpuact_u64 shift, bool aligned) {
    enum { U = GPUACT_UNROLL, PAIRS = VEC == 8, BLK = GPUACT_VARIANT_BLOCK(GPUACT_OP_forward, MASK, 0, VEC == 4) };
    const int flags = FL >= 0 ? FL : flags_;
    const bool has_bias = FL >= 0 ? (FL & GPUACT_F_BIAS) != 0 : has_bias_;
    float b[U][VEC];      /* the bias: floats (element path) */
    gpuact_u32 bw[U][4];  /* or words of two 16-bit values (word path) */
#pragma unroll
    for (int u = 0; u < U; u++) {
        const gpuact_u64 c0 = shift + (v0 + u * BLK) * VEC;
        const bool load = has_bias && (FULL || c0 < cols), vec_ok = FULL || (aligned && c0 + VEC <= cols);
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
            const bool vec_ok = FULL || (aligned && c0 + VEC <= cols);
            if (!FULL && c0 >= cols) continue;
            if (PAIRS) gpuact_load_words<X>(xr, c0, cols, vec_ok, reinterpret_cast<gpuact_u32(&)[4]>(x[u]));
            else gpuact_load<X, VEC>(xr, c0, cols, vec_ok, x[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const gpuact_u64 cv = v0 + u * BLK, c0 = shift + cv * VEC;
            const bool vec_ok = FULL || (aligned && c0 + VEC <= cols), in_row = FULL || c0 < cols;
            bits[u] = 0;
            if (in_row) {
                if (PAIRS) {
                    bits[u] = gpuact_fwd_words(KIND, X::id, Y::id, B::id, SELECT, FL, x[u], bw[u], y[u], has_bias, flags,
                                               scale, slope, ceiling, lower, cbits * 0x00010001u, lbits * 0x00010001u);
                    gpuact_store_words<Y>(yr, c0, cols, vec_ok, reinterpret_cast<const gpuact_u32(&)[4]>(y[u]));
                } else {
                    bits[u] = gpuact_fwd_elems<X, Y, B, KIND, SELECT, VEC, FL>(x[u], b[u], y[u], has_bias, flags, scale,
                                                                         slope, ceiling, lower, cbits, lbits);
                    gpuact_store<Y, VEC>(yr, c0, cols, vec_ok, y[u]);
                }
                if (!FULL && c0 + VEC > cols) bits[u] &= (1u << (cols - c0)) - 1u; /* padding bits are 0 */
            }
            if (MASK) gpuact_mask_write<VEC>(mask + r * (mask_ld / 8), cv, in_row, bits[u]);
        }
    }
}

template <class X, class Y, class B, int KIND, int MASK, int DBIAS_, int SELECT_, int FROMX_>
__device__ __forceinline__ void forward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<X, Y, B>::value, U = GPUACT_UNROLL, PAIRS = VEC == 8 };
    enum { SELECT = SELECT_ && gpuact_same<X, Y>::value, BLK = GPUACT_VARIANT_BLOCK(GPUACT_OP_forward, MASK, 0, VEC == 4) };
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (BLK * U) + threadIdx.x;
    const bool has_bias = !SELECT && (flags & GPUACT_F_BIAS);
    /* the rows' layout (../contract.h): a view offset by a few elements
       has its vectors from the first aligned element, and thread 0 of each
       row's first block takes the head */
    const gpuact_u64 shift = GPUACT_HEAD_PATH(GPUACT_OP_forward, MASK, 0, X::size == Y::size && X::size == B::size)
                                 ? (unsigned)layout / GPUACT_LAYOUT_SHIFT
                                 : 0;
    const bool aligned = layout & GPUACT_LAYOUT_ALIGNED;
    const gpuact_u32 cbits = gpuact_fromf<Y>(ceiling), lbits = gpuact_fromf<Y>(lower); /* the bounds as Y */
    (void)aux; (void)part; (void)ld_aux; (void)cbits; (void)lbits; (void)DBIAS_; (void)FROMX_;
    const bool full = SELECT && gpuact_block_full(aligned, shift, BLK * U * VEC, cols);
#define GPUACT_FWD_ROWS_FULL_(fl, f)                                                                                \
    gpuact_fwd_rows<X, Y, B, KIND, MASK, SELECT, fl, VEC, f>(in, out, mask, rows, cols, ld_in, ld_out, mask_ld, flags, \
                                                             scale, slope, ceiling, lower, cbits, lbits, bias, has_bias, \
                                                             v0, shift, aligned)
#define GPUACT_FWD_ROWS_(fl)                      \
    if (full) GPUACT_FWD_ROWS_FULL_(fl, 1);       \
    else GPUACT_FWD_ROWS_FULL_(fl, 0)
    /* The 16-bit general path gets a second loop with the flags as constants
       (no branch on them per word; ReLU folds into the conversion) where
       that was measured faster on the H200: the epilogue without scale of
       the ReLU family (3-14%), and erf-GELU's epilogue and elementwise
       forward (7-10%). An instance per combination of flags made nvcc
       allocate for all of them at once and spill. For tanh-GELU, SiLU and
       squared ReLU the second loop took the kernel from 55 to 64 registers
       and their elementwise forwards (one kernel with the epilogue) 2-6%
       slower: not for them. The f32 epilogue writing the mask gets it too:
       hardtanh's 1.5% faster, the others' within 0.5%. So does the ReLU
       family's epilogue into a 16-bit y from a 4-byte array (its pairs
       conversion and gpuact_act_minmax are chosen at compile time there). */
    if (!SELECT && flags == GPUACT_F_BIAS &&
        ((PAIRS || MASK) && (gpuact_kind_select(KIND) || KIND == GPUACT_KIND_gelu) ||
         (Y::size == 2 && gpuact_kind_select(KIND)))) {
        GPUACT_FWD_ROWS_(GPUACT_F_BIAS);
    } else if (PAIRS && !SELECT && KIND == GPUACT_KIND_gelu && flags == GPUACT_F_RAW) {
        GPUACT_FWD_ROWS_(GPUACT_F_RAW);
    } else {
        GPUACT_FWD_ROWS_(-1);
    }
#undef GPUACT_FWD_ROWS_
#undef GPUACT_FWD_ROWS_FULL_
    /* The head of a shifted row, columns [0, shift), after the main loop,
       so the kernel's first instructions are the path every block takes:
       with the head first, its code sat between the prologue and the loop,
       and the relu forwards at 2^18-2^20 elements ran 3-5% slower than
       without a head path (H200, docs/PERFORMANCE.md). */
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
                gpuact_fwd_words(KIND, X::id, Y::id, B::id, SELECT, -1, hx, hb, hy, has_bias, flags, scale, slope, ceiling,
                                 lower, cbits * 0x00010001u, lbits * 0x00010001u);
                gpuact_store_words<Y>(yr, 0, hn, false, reinterpret_cast<const gpuact_u32(&)[4]>(hy));
            } else {
                if (has_bias) gpuact_load<B, VEC>(bias, 0, hn, false, hb);
#pragma unroll
                for (int k = 0; k < VEC; k++) hf[k] = has_bias ? gpuact_tof<B>(hb[k]) : 0.0f;
                gpuact_load<X, VEC>(xr, 0, hn, false, hx);
                gpuact_fwd_elems<X, Y, B, KIND, SELECT, VEC, -1>(hx, hf, hy, has_bias, flags, scale, slope, ceiling, lower,
                                                             cbits, lbits);
                gpuact_store<Y, VEC>(yr, 0, hn, false, hy);
            }
        }
}

GPUACT_INSTANTIATE(forward)
