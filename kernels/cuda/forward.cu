/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask bits
   when MASK (the ReLU family). X = x, Y = y, B = bias (X when there is none). SELECT_ (no
   bias, scale 1, X = Y): the result is a selection of x's own bits (NaN
   payloads kept) and nothing is converted back.

   When every array is 16-bit (PAIRS) a thread works on words of two
   elements: the selection paths decide both lanes with a few integer
   operations (../act.h), the general path converts two values at once, so
   the 16-bit kernels issue about as many instructions per byte as the f32
   ones and stay memory-bound. Otherwise (f32, mixed dtypes) the element
   path, gpuact_fwd_elems (../act.h, which the OpenCL kernels run too). */
#include "common.cuh"
#include "../fewbit.h"

/* the few-bit boundaries, [table][bits - 1][16] */
__constant__ float gpuact_fewbit_bounds[] = GPUACT_FEWBIT_BOUNDS;

/* The 16-bit lookup (../contract.h, GPUACT_LUT16_VARIANT): the module's
   table, two results to a word (one word in a module without the lookup),
   and its fill kernel (the host launches it once). */
#if GPUACT_LUT16_ON
__device__ __align__(16) gpuact_u32 gpuact_lut16_tab[GPUACT_LUT16_VARIANT(GPUACT_OP_forward, GPUACT_KIND, GPUACT_MASK, 0, 0, GPUACT_PRECISE,
                                                            GPUACT_T0::id, GPUACT_T1::id, GPUACT_T2::id)
                                           ? GPUACT_LUT16_ENTRIES(GPUACT_LUT16_TABLE(GPUACT_OP_forward, GPUACT_T0::id)) / 2
                                           : 1];
__device__ __forceinline__ const uint4 *gpuact_lut16_src() { return reinterpret_cast<const uint4 *>(gpuact_lut16_tab); }
template <class X, int KIND, int MASK, int PRECISE>
__device__ __forceinline__ void gpuact_lut16_fill_() {
    const gpuact_u32 i = blockIdx.x * blockDim.x + threadIdx.x; /* entries 8i to 8i + 7 */
    gpuact_u32 x[4], y[4], bw[4] = {0u, 0u, 0u, 0u};
    if (!GPUACT_LUT16_VARIANT(GPUACT_OP_forward, KIND, MASK, 0, 0, PRECISE, X::id, X::id, X::id) ||
        i >= GPUACT_LUT16_ENTRIES(GPUACT_LUT16_TABLE(GPUACT_OP_forward, X::id)) / 8)
        return;
#pragma unroll
    for (int j = 0; j < 4; j++)
        x[j] = GPUACT_LUT16_BITS(8u * i + 2u * j, GPUACT_LUT16_TABLE(GPUACT_OP_forward, X::id)) | GPUACT_LUT16_BITS(8u * i + 2u * j + 1u, GPUACT_LUT16_TABLE(GPUACT_OP_forward, X::id)) << 16;
    gpuact_fwd_words(KIND, PRECISE, X::id, X::id, X::id, 0, GPUACT_F_RAW, x, bw, y, 0, GPUACT_F_RAW, 1.0f, 0.0f, 0.0f, 0.0f,
                     0u, 0u);
#pragma unroll
    for (int j = 0; j < 4; j++) gpuact_lut16_tab[4u * i + j] = y[j];
}
extern "C" __global__ void gpuact_lut16_fill() { gpuact_lut16_fill_<GPUACT_T0, GPUACT_KIND, GPUACT_MASK, GPUACT_PRECISE>(); }
#else
__device__ __forceinline__ const uint4 *gpuact_lut16_src() { return 0; }
#endif
/* A forward variant's threads per block (the lookup's, ../contract.h, where it has one) */
#define GPUACT_FWD_BLOCK(X, Y, B, KIND, MASK, PRECISE, VEC)                                                     \
    (GPUACT_LUT16_ON && GPUACT_LUT16_VARIANT(GPUACT_OP_forward, KIND, MASK, 0, 0, PRECISE, X::id, Y::id, B::id) \
         ? GPUACT_LUT16_BLOCK(X::id, GPUACT_VARIANT_BLOCK(GPUACT_OP_forward, MASK, 0, VEC == 4))                \
         : GPUACT_VARIANT_BLOCK(GPUACT_OP_forward, MASK, 0, VEC == 4))
/* x's 4 words looked up in t (table TB in shared memory); whether an x lies outside its range */
template <int TB>
__device__ __forceinline__ bool gpuact_lut16_words(const gpuact_u32 (&x)[4], gpuact_u32 (&y)[4], const unsigned short *t) {
    gpuact_u32 out = 0u;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const gpuact_u32 lo = x[j] & 0xffffu, hi = x[j] >> 16;
        out |= !GPUACT_LUT16_IN(lo, TB) | !GPUACT_LUT16_IN(hi, TB);
        y[j] = (gpuact_u32)t[GPUACT_LUT16_ENTRY(lo, TB)] | (gpuact_u32)t[GPUACT_LUT16_ENTRY(hi, TB)] << 16;
    }
    return out != 0u;
}

/* The rows of one thread's columns (the main loop of forward). FL >= 0: the
   run-time flags as a constant, so the 16-bit general path (bias, scale, the
   NaN rule: per-word choices) has no branch inside the loop; forward picks
   the instance (FL = -1: the flags read at run time). FULL: every vector of
   the block is inside the row and 16-byte aligned (gpuact_block_full), so
   no access tests its bounds. NB > 0: the few-bit codes' bits as a constant
   (the run-time nb otherwise), so their packing and stores are chosen at
   compile time. */
template <class X, class Y, class B, int KIND, int PRECISE, int MASK, int SELECT, int FL, int VEC, int FULL, int NB = 0>
__device__ __forceinline__ void gpuact_fwd_rows(const unsigned char *in, unsigned char *out, unsigned char *mask,
                                                gpuact_u64 rows, gpuact_u64 cols, gpuact_u64 ld_in,
                                                gpuact_u64 ld_out, gpuact_u64 mask_ld, int flags_, float scale,
                                                float slope, float ceiling, float lower, gpuact_u32 cbits,
                                                gpuact_u32 lbits, const unsigned char *bias, bool has_bias_,
                                                gpuact_u64 v0, gpuact_u64 shift, bool aligned, const float *bnd,
                                                int nb_, const unsigned short *lut) {
    enum { U = GPUACT_UNROLL, PAIRS = VEC == 8, BLK = GPUACT_FWD_BLOCK(X, Y, B, KIND, MASK, PRECISE, VEC) };
    enum { CODES = MASK && !((GPUACT_SELECT_KINDS >> KIND) & 1u) }; /* ../contract.h: a smooth kind's mask */
    enum { LUT = GPUACT_LUT16_ON && FL == GPUACT_F_RAW &&
                 GPUACT_LUT16_VARIANT(GPUACT_OP_forward, KIND, MASK, 0, 0, PRECISE, X::id, Y::id, B::id) };
    const int nb = NB ? NB : nb_;
    /* b <= 2: the three boundaries (NaN past the 2^b - 1) and the Horner base in registers, read once */
    const float b3[3] = {CODES ? bnd[0] : 0.0f, CODES ? bnd[1] : 0.0f, CODES ? bnd[2] : 0.0f};
    const float m3 = nb == 1 ? 2.0f : 4.0f;
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
    /* PF: the elementwise forward of GELU and SiLU (no bias, scale 1; f32: tanh-GELU's too, not
       the codes' nor the precise one's) loads the block's next row before working on this one, so
       its loads are in flight while it computes (not tanh-GELU's 16-bit one: its longer chain at
       the register limit ran slower, docs/PERFORMANCE.md) */
    enum { PF = FL == GPUACT_F_RAW && !LUT &&
                (PAIRS ? KIND != GPUACT_KIND_gelu_tanh : !CODES && !PRECISE && ((GPUACT_TRANSCENDENTAL_KINDS >> KIND) & 1u)) };
    gpuact_u32 xn[U][VEC];
    const auto prefetch = [&](gpuact_u64 r) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const gpuact_u64 c0 = shift + (v0 + u * BLK) * VEC;
            const bool vec_ok = FULL || (aligned && c0 + VEC <= cols);
            if (!FULL && c0 >= cols) continue;
            if (PAIRS) gpuact_load_words<X>(in + r * ld_in * X::size, c0, cols, vec_ok, reinterpret_cast<gpuact_u32(&)[4]>(xn[u]));
            else gpuact_load<X, VEC>(in + r * ld_in * X::size, c0, cols, vec_ok, xn[u]);
        }
    };
    if (PF && blockIdx.y < rows) prefetch(blockIdx.y);
    for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
        const unsigned char *xr = in + r * ld_in * X::size;
        unsigned char *yr = out + r * ld_out * Y::size;
        gpuact_u32 x[U][VEC], y[U][VEC], bits[U];
        if (PF) {
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int k = 0; k < VEC; k++) x[u][k] = xn[u][k];
            if (r + gridDim.y < rows) prefetch(r + gridDim.y);
        } else
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
                /* the codes' z as the element path forms it: one f32 addition */
                const auto z_of = [&](int k) {
                    float z;
                    if (PAIRS) {
                        z = (k & 1) ? gpuact_hi2f(X::id, x[u][k / 2]) : gpuact_lo2f(X::id, x[u][k / 2]);
                        if (has_bias) z += (k & 1) ? gpuact_hi2f(B::id, bw[u][k / 2]) : gpuact_lo2f(B::id, bw[u][k / 2]);
                    } else {
                        z = gpuact_tof<X>(x[u][k]);
                        if (has_bias) z += b[u][k];
                    }
                    return z;
                };
                gpuact_u32 w = 0;
                if (CODES) { /* b <= 2 first, so x's words die in the forward */
                    if (nb <= 2) /* the boundaries counted, no dependent shared-memory loads */
                        w = gpuact_codes_pack<3>(z_of, 0, VEC, b3, m3);
                }
#ifdef GPUACT_QUICK_BF16
                if (CODES && PAIRS && !LUT && X::id == GPUACT_DT_bf16 && FL == GPUACT_F_RAW) { /* ../act.h: the quick bf16 forward in two steps, precise too */
                    gpuact_qbf16_fwd2(KIND, PRECISE, X::id, reinterpret_cast<const gpuact_u32(&)[4]>(x[u]), y[u]);
                    gpuact_store_words<Y>(yr, c0, cols, vec_ok, reinterpret_cast<const gpuact_u32(&)[4]>(y[u]));
                } else
#endif
                if (PAIRS) {
                    /* the word path where an x lies outside the table's range (or there is no table) */
                    if (!LUT || gpuact_lut16_words<GPUACT_LUT16_TABLE(GPUACT_OP_forward, X::id)>(reinterpret_cast<const gpuact_u32(&)[4]>(x[u]),
                                                   reinterpret_cast<gpuact_u32(&)[4]>(y[u]), lut))
                        bits[u] = gpuact_fwd_words(KIND, PRECISE, X::id, Y::id, B::id, SELECT, FL, x[u], bw[u], y[u], has_bias,
                                                   flags, scale, slope, ceiling, lower, cbits * 0x00010001u, lbits * 0x00010001u GPUACT_TAB_A);
                    gpuact_store_words<Y>(yr, c0, cols, vec_ok, reinterpret_cast<const gpuact_u32(&)[4]>(y[u]));
                } else {
                    bits[u] = gpuact_fwd_elems(KIND, PRECISE, X::id, Y::id, SELECT, FL, VEC, x[u], b[u], y[u], has_bias, flags,
                                               scale, slope, ceiling, lower, cbits, lbits GPUACT_TAB_A);
                    gpuact_store<Y, VEC>(yr, c0, cols, vec_ok, y[u]);
                }
                if (CODES) {
                    /* after the forward, as x's words stay live through it: 3 bits in f32 vectors
                       counted (two halves of 6 bits), else searched in four steps into nibbles (for 3 bits
                       the first compares with the NaN past the seven boundaries: one loop, fewer registers) */
                    if (nb == 3 && !PAIRS)
                        w = gpuact_codes_pack<7>(z_of, 0, VEC / 2, bnd, 8.0f) |
                            gpuact_codes_pack<7>(z_of, VEC / 2, VEC / 2, bnd, 8.0f) << (VEC / 2 * 3);
                    else if (nb >= 3) {
#pragma unroll
                        for (int k = 0; k < VEC; k++) w |= gpuact_code_search(z_of(k), bnd) << (k * 4);
                        if (nb == 3) w = gpuact_codes3_dense(w);
                    }
                    if (!FULL && c0 + VEC > cols) w &= (1u << ((gpuact_u32)(cols - c0) * nb)) - 1u; /* < VEC * nb <= 32 bits */
                    bits[u] = w;
                } else if (!FULL && c0 + VEC > cols) {
                    bits[u] &= (1u << (cols - c0)) - 1u; /* padding bits are 0 */
                }
            }
            if (CODES) gpuact_codes_write<VEC>(mask + r * (mask_ld / 8), cv, in_row, bits[u], nb, FULL || c0 + VEC <= cols, cols - c0);
            else if (MASK) gpuact_mask_write<VEC>(mask + r * (mask_ld / 8), cv, in_row, bits[u]);
        }
    }
}

template <class X, class Y, class B, int KIND, int MASK, int DBIAS_, int SELECT_, int FROMX_, int PRECISE>
__device__ __forceinline__ void forward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<X, Y, B>::value, U = GPUACT_UNROLL, PAIRS = VEC == 8 };
    gpuact_tabs_fill<KIND, GPUACT_ACT_TABLE(KIND, PRECISE, Y::size), false>();
    enum { SELECT = SELECT_ && gpuact_same<X, Y>::value, BLK = GPUACT_FWD_BLOCK(X, Y, B, KIND, MASK, PRECISE, VEC) };
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (BLK * U) + threadIdx.x;
    /* the few-bit codes (../contract.h): the bits come in the flags, the
       kind's boundaries go to shared memory */
    enum { CODES = MASK && !((GPUACT_SELECT_KINDS >> KIND) & 1u) };
    const float *bnd = 0;
    int nb = 0;
    if (CODES) {
        /* the boundaries, NaN past the 2^nb - 1 of them (gpuact_codef reads three or seven) */
        __shared__ float sb[GPUACT_FEWBIT_STRIDE];
        nb = flags / GPUACT_F_CODE_BITS % 8;
        flags %= GPUACT_F_CODE_BITS;
        if (threadIdx.x < GPUACT_FEWBIT_STRIDE)
            sb[threadIdx.x] = threadIdx.x >= (1u << nb) - 1u
                                  ? gpuact_as_f32(0x7fffffffu)
                                  : gpuact_fewbit_bounds[((CODES ? KIND - GPUACT_KIND_gelu : 0) * GPUACT_FEWBIT_MAX_BITS + nb - 1) *
                                                             GPUACT_FEWBIT_STRIDE + threadIdx.x];
        __syncthreads();
        bnd = sb;
    }
    const bool has_bias = !SELECT && (flags & GPUACT_F_BIAS);
    /* the 16-bit lookup: the module's table to shared memory (GPUACT_LUT16_SHARED bytes) */
    enum { LUT = GPUACT_LUT16_ON && GPUACT_LUT16_VARIANT(GPUACT_OP_forward, KIND, MASK, 0, 0, PRECISE, X::id, Y::id, B::id) };
    const unsigned short *lut = 0;
    if (LUT && flags == GPUACT_F_RAW) {
        extern __shared__ uint4 lw[];
        gpuact_lut16_load<GPUACT_LUT16_SHARED(GPUACT_OP_forward, X::id) / 16, BLK>(lw, gpuact_lut16_src());
        lut = reinterpret_cast<const unsigned short *>(lw);
    }
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
#define GPUACT_FWD_ROWS_FULL_(fl, f, nbk)                                                                           \
    gpuact_fwd_rows<X, Y, B, KIND, PRECISE, MASK, SELECT, fl, VEC, f, nbk>(in, out, mask, rows, cols, ld_in, ld_out, mask_ld, flags, \
                                                             scale, slope, ceiling, lower, cbits, lbits, bias, has_bias, \
                                                             v0, shift, aligned, bnd, nb, lut)
#define GPUACT_FWD_ROWS_(fl)                      \
    if (full) GPUACT_FWD_ROWS_FULL_(fl, 1, 0);    \
    else GPUACT_FWD_ROWS_FULL_(fl, 0, 0)
    /* The 16-bit general path gets a second loop with the flags as constants
       (no branch on them per word; ReLU folds into the conversion) where
       that runs faster: the epilogue without scale of the ReLU family, and
       erf-GELU's epilogue and elementwise forward. An instance per
       combination of flags made nvcc allocate for all of them at once and
       spill. For tanh-GELU, SiLU and squared ReLU the second loop took the
       kernel from 55 to 64 registers and their elementwise forwards (one
       kernel with the epilogue) slower: not for them. The f32 epilogue
       writing the mask gets it too, and so does the ReLU family's epilogue
       into a 16-bit y from a 4-byte array (its pairs conversion and
       gpuact_act_minmax are chosen at compile time there). The bf16 epilogue of
       tanh-GELU and SiLU (QFL) gets the loops with a bias, with and without scale, at the
       same 48 registers (its elementwise forward looks its results up there;
       docs/PERFORMANCE.md, "Designs measured and not kept"); erf-GELU's (GFL)
       the bounds-free ones for whole blocks alone. */
    enum { QFL = !SELECT && PAIRS && !MASK && X::id == GPUACT_DT_bf16 && Y::id == GPUACT_DT_bf16 &&
                 (KIND == GPUACT_KIND_gelu_tanh || KIND == GPUACT_KIND_silu) };
    enum { GFL = !SELECT && PAIRS && !MASK && X::id == GPUACT_DT_bf16 && Y::id == GPUACT_DT_bf16 && KIND == GPUACT_KIND_gelu };
    if (GFL && (flags & GPUACT_F_BIAS) && !PRECISE && gpuact_block_full(aligned, shift, BLK * U * VEC, cols) &&
        (flags == GPUACT_F_BIAS || flags == (GPUACT_F_BIAS | GPUACT_F_SCALE))) {
        /* GELU's bf16 epilogue, issue-bound in the lean function: bounds-free loops for whole blocks
           (the other blocks keep the loops below: constant flags for them too spilled) */
        if (flags & GPUACT_F_SCALE) GPUACT_FWD_ROWS_FULL_(GPUACT_F_BIAS | GPUACT_F_SCALE, 1, 0);
        else GPUACT_FWD_ROWS_FULL_(GPUACT_F_BIAS, 1, 0);
    } else if (!SELECT && flags == GPUACT_F_BIAS &&
        ((PAIRS || MASK) && (gpuact_kind_select(KIND) || KIND == GPUACT_KIND_gelu) ||
         (Y::size == 2 && gpuact_kind_select(KIND)))) {
        GPUACT_FWD_ROWS_(GPUACT_F_BIAS);
    } else if (QFL && (flags == (GPUACT_F_BIAS | GPUACT_F_SCALE) || flags == GPUACT_F_BIAS)) {
        /* a block inside the row and aligned skips the bounds tests, a third of the quick loop's ALU work */
        const bool qfull = !PRECISE && gpuact_block_full(aligned, shift, BLK * U * VEC, cols);
        if (flags & GPUACT_F_SCALE) {
            if (qfull) GPUACT_FWD_ROWS_FULL_(GPUACT_F_BIAS | GPUACT_F_SCALE, 1, 0);
            else GPUACT_FWD_ROWS_FULL_(GPUACT_F_BIAS | GPUACT_F_SCALE, 0, 0);
        } else if (qfull) GPUACT_FWD_ROWS_FULL_(GPUACT_F_BIAS, 1, 0);
        else GPUACT_FWD_ROWS_FULL_(GPUACT_F_BIAS, 0, 0);
    } else if (!SELECT && ((GPUACT_TRANSCENDENTAL_KINDS >> KIND) & 1u) && flags == GPUACT_F_RAW) {
        /* the elementwise f32 forward writing codes: their bits at compile time (full is false there;
           not the 16-bit kernels, whose quick path shares the loop: slower so, docs/PERFORMANCE.md) */
        if (CODES && !PAIRS && nb == 1) GPUACT_FWD_ROWS_FULL_(GPUACT_F_RAW, 0, 1);
        else if (CODES && !PAIRS && nb == 2) GPUACT_FWD_ROWS_FULL_(GPUACT_F_RAW, 0, 2);
        else if (CODES && !PAIRS && nb == 3) GPUACT_FWD_ROWS_FULL_(GPUACT_F_RAW, 0, 3);
        else if (CODES && !PAIRS) GPUACT_FWD_ROWS_FULL_(GPUACT_F_RAW, 0, 4);
        /* a block inside the row and aligned skips every bounds test: these forwards are issue-bound */
        else if (!CODES && gpuact_block_full(aligned, shift, BLK * U * VEC, cols)) GPUACT_FWD_ROWS_FULL_(GPUACT_F_RAW, 1, 0);
        else GPUACT_FWD_ROWS_FULL_(GPUACT_F_RAW, 0, 0);
    } else {
        GPUACT_FWD_ROWS_(-1);
    }
#undef GPUACT_FWD_ROWS_
#undef GPUACT_FWD_ROWS_FULL_
    /* The head of a shifted row, columns [0, shift), after the main loop,
       so the kernel's first instructions are the path every block takes
       (a head first would sit between the prologue and the loop, which
       slows the relu forwards at 2^18-2^20 elements; docs/PERFORMANCE.md,
       "Designs measured and not kept"). */
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
                gpuact_fwd_words(KIND, PRECISE, X::id, Y::id, B::id, SELECT, -1, hx, hb, hy, has_bias, flags, scale, slope, ceiling,
                                 lower, cbits * 0x00010001u, lbits * 0x00010001u GPUACT_TAB_A);
                gpuact_store_words<Y>(yr, 0, hn, false, reinterpret_cast<const gpuact_u32(&)[4]>(hy));
            } else {
                if (has_bias) gpuact_load<B, VEC>(bias, 0, hn, false, hb);
#pragma unroll
                for (int k = 0; k < VEC; k++) hf[k] = has_bias ? gpuact_tof<B>(hb[k]) : 0.0f;
                gpuact_load<X, VEC>(xr, 0, hn, false, hx);
                gpuact_fwd_elems(KIND, PRECISE, X::id, Y::id, SELECT, -1, VEC, hx, hf, hy, has_bias, flags, scale, slope, ceiling,
                                 lower, cbits, lbits GPUACT_TAB_A);
                gpuact_store<Y, VEC>(yr, 0, hn, false, hy);
            }
        }
}

GPUACT_INSTANTIATE(forward)
