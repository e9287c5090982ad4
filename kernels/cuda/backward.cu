/* Backward: dx = select(passes, dy (* scale), +0), leaky: (dy (* scale)) *
   slope where it does not pass; the region from the mask (FROM_MASK), from
   aux (the forward's x or y) on raw bits, or (FROMX) from z = aux (+ bias)
   in f32; a smooth kind (always FROMX): dx = (dy (* scale)) * act'(z). SELECT_: scale 1 and DY = DX, so a
   passing element is dy's own bits. With DBIAS each row group (blockIdx.y)
   writes its column sums of the stored dx to part[blockIdx.y][c]: each of
   its GPUACT_DBIAS_SLICES slices adds its rows in order, then the slices
   are added in order. DY = dy, DX = dx, S = the region's source (DY when
   from the mask). */
#include "common.cuh"
#include "../fewbit.h"

/* the few-bit levels, [table][bits - 1][16] */
__constant__ float gpuact_fewbit_levels[] = GPUACT_FEWBIT_LEVELS;

/* A vector's dx from few-bit codes (w: element k's code in bits [k * nb,
   + nb)): (dy (* scale)) * lv[code], rounded once; no transcendental.
   PAIRS: every array 16-bit, dy and dx as 4 words of two. */
template <class DY, class DX, int VEC>
__device__ __forceinline__ void gpuact_bwd_codes(const gpuact_u32 (&dy)[VEC], gpuact_u32 w, int nb, const float *lv,
                                                 bool do_scale, float scale, gpuact_u32 (&dx)[VEC]) {
    const gpuact_u32 m = (1u << nb) - 1u;
    if (VEC == 8 && DY::size == 2 && DX::size == 2) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float lo, hi;
            gpuact_u32 a, b;
            gpuact_unpack2_dt(DY::id, dy[j], &lo, &hi);
            if (do_scale) {
                lo *= scale;
                hi *= scale;
            }
            gpuact_fromf2<DX>(lo * lv[(w >> (2 * j * nb)) & m], hi * lv[(w >> ((2 * j + 1) * nb)) & m], a, b);
            dx[j] = a | (b << 16);
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        const float g = gpuact_tof<DY>(dy[k]);
        dx[k] = gpuact_fromf<DX>((do_scale ? g * scale : g) * lv[(w >> (k * nb)) & m]);
    }
}

#ifndef GPUACT_EVICT_FIRST16 /* the host passes it (GPUACT__EVICT_FIRST16) */
#define GPUACT_EVICT_FIRST16 0
#endif

/* The element path (f32 and mixed dtypes): one dx from dy and the region. */
template <class DY, class DX, int KIND, int SELECT>
__device__ __forceinline__ gpuact_u32 gpuact_bwd_elem(gpuact_u32 dy, bool pass, bool do_scale, float scale,
                                                      float slope) {
    const float g = gpuact_tof<DY>(dy), gs = do_scale ? g * scale : g;
    if (pass) return SELECT ? dy : gpuact_fromf<DX>(gs);
    return gpuact_kind_slope(KIND) ? gpuact_fromf<DX>(gpuact_blocked_grad(KIND, gs, slope)) : 0u;
}

/* The 16-bit lookup of the derivative (../contract.h, GPUACT_LUT16_VARIANT):
   the module's table of act'(x) (one entry in a module without the lookup)
   and its fill kernel (the host launches it once). */
#if GPUACT_LUT16_ON
__device__ __align__(16) float gpuact_lut16_grad[GPUACT_LUT16_VARIANT(GPUACT_OP_backward, GPUACT_KIND, GPUACT_MASK, GPUACT_DBIAS, GPUACT_FROMX,
                                                        GPUACT_PRECISE, GPUACT_T0::id, GPUACT_T1::id, GPUACT_T2::id)
                                       ? GPUACT_LUT16_ENTRIES(GPUACT_LUT16_TABLE(GPUACT_OP_backward, GPUACT_T2::id))
                                       : 1];
__device__ __forceinline__ const uint4 *gpuact_lut16_src() { return reinterpret_cast<const uint4 *>(gpuact_lut16_grad); }
template <class S, int KIND, int MASK, int DBIAS, int FROMX, int PRECISE>
__device__ __forceinline__ void gpuact_lut16_fill_() {
    const gpuact_u32 e = blockIdx.x * blockDim.x + threadIdx.x; /* entries 8e to 8e + 7 */
    if (!GPUACT_LUT16_VARIANT(GPUACT_OP_backward, KIND, MASK, DBIAS, FROMX, PRECISE, S::id, S::id, S::id) ||
        e >= GPUACT_LUT16_ENTRIES(GPUACT_LUT16_TABLE(GPUACT_OP_backward, S::id)) / 8)
        return;
#pragma unroll
    for (gpuact_u32 k = 0; k < 8; k++) /* as gpuact_bwd_words_vec (../act.h) evaluates it */
        gpuact_lut16_grad[8u * e + k] =
            gpuact_grad(KIND, gpuact_lo2f(S::id, GPUACT_LUT16_BITS(8u * e + k, GPUACT_LUT16_TABLE(GPUACT_OP_backward, S::id))), gpuact_eval(2, PRECISE) GPUACT_TAB_A);
}
extern "C" __global__ void gpuact_lut16_fill() {
    gpuact_lut16_fill_<GPUACT_T2, GPUACT_KIND, GPUACT_MASK, GPUACT_DBIAS, GPUACT_FROMX, GPUACT_PRECISE>();
}
#else
__device__ __forceinline__ const uint4 *gpuact_lut16_src() { return 0; }
#endif
/* dx's 4 words of dtype DT from dy's and x's, act'(x) looked up in t (table TB in shared memory); the
   elements whose x lies outside the table's range (bit 2j + h: word j's low or high half) */
template <int DT, int TB>
__device__ __forceinline__ gpuact_u32 gpuact_lut16_bwd(const gpuact_u32 (&dy)[4], const gpuact_u32 (&x)[4],
                                                       gpuact_u32 (&dx)[4], const float *t) {
    gpuact_u32 out = 0u;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const gpuact_u32 lo = x[j] & 0xffffu, hi = x[j] >> 16;
        float gl, gh;
        out |= (gpuact_u32)!GPUACT_LUT16_IN(lo, TB) << (2 * j) | (gpuact_u32)!GPUACT_LUT16_IN(hi, TB) << (2 * j + 1);
        gpuact_unpack2_dt(DT, dy[j], &gl, &gh);
        float dl = t[GPUACT_LUT16_ENTRY(lo, TB)], dh = t[GPUACT_LUT16_ENTRY(hi, TB)];
        if (GPUACT_LUT16_FOLD(TB)) { /* U at x < 0, 1 - U at x > 0 (0 is outside the table) */
            dl = lo >> 15 ? dl : 1.0f - dl;
            dh = hi >> 15 ? dh : 1.0f - dh;
        }
        dx[j] = gpuact_pack2_dt(DT, 1, gl * dl, gh * dh);
    }
    return out;
}
#ifdef GPUACT_QUICK_BF16 /* its helpers (../act.h) */
/* The elements of pending (gpuact_lut16_bwd) one at a time, as the word path (../act.h,
   gpuact_bwd_words_vec) evaluates each: a warp with one such x pays one evaluation, not a vector's */
template <int KIND, int PRECISE, int DT>
__device__ __forceinline__ void gpuact_lut16_bwd_fix(const gpuact_u32 (&dy)[4], const gpuact_u32 (&x)[4],
                                                     gpuact_u32 (&dx)[4], gpuact_u32 pending GPUACT_TAB_P) {
    for (; pending; pending &= pending - 1u) {
        const gpuact_u32 k = gpuact_lowest_bit(pending), j = k >> 1, h = k & 1u, wx = gpuact_word4(x, j),
                         wd = gpuact_word4(dy, j);
        const float z = h ? gpuact_hi2f(DT, wx) : gpuact_lo2f(DT, wx), g = h ? gpuact_hi2f(DT, wd) : gpuact_lo2f(DT, wd);
        const float v = g * gpuact_grad(KIND, z, gpuact_eval(2, PRECISE) GPUACT_TAB_A);
        const gpuact_u32 b = gpuact_grad_zero(KIND, z) ? 0u : gpuact_pack2_dt(DT, 1, v, v) & 0xffffu;
        gpuact_word4_set(dx, j, h ? 0xffffu : 0xffff0000u, b << (16 * h));
    }
}
#endif

/* One vector's dx from dy, the region's source s (its bits) or the mask
   bits, and the bias (FROMX). PAIRS: every array 16-bit, the first 4
   entries of dy, s and dx are words of two elements. */
template <class DY, class DX, class S, int KIND, int PRECISE, int FROM_MASK, int SELECT, int FROMX, int VEC>
__device__ __forceinline__ void gpuact_bwd_vec(const gpuact_u32 (&dy)[VEC], const gpuact_u32 (&s)[VEC], gpuact_u32 bits,
                                               const float (&b)[VEC], bool has_bias, bool do_scale, float scale,
                                               float slope, float ceiling, float lower, gpuact_u32 cbits,
                                               gpuact_u32 lbits, gpuact_u32 (&dx)[VEC]) {
    if (VEC == 8 && DY::size == 2 && DX::size == 2 && S::size == 2) { /* ../act.h */
        gpuact_bwd_words_vec(KIND, PRECISE, DY::id, DX::id, S::id, FROM_MASK, SELECT, FROMX, dy, s, bits, b, has_bias, do_scale,
                             scale, slope, ceiling, lower, cbits, lbits, dx GPUACT_TAB_A);
        return;
    }
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        if (FROMX) {
            float z = gpuact_tof<S>(s[k]);
            if (has_bias) z += b[k];
            if (!gpuact_kind_select(KIND)) { /* smooth */
                const float g = gpuact_tof<DY>(dy[k]);
                dx[k] = gpuact_grad_zero(KIND, z) ? 0u : gpuact_fromf<DX>((do_scale ? g * scale : g) * gpuact_grad(KIND, z, gpuact_eval(DX::size, PRECISE) GPUACT_TAB_A));
            } else {
                dx[k] = gpuact_bwd_elem<DY, DX, KIND, SELECT>(dy[k], gpuact_passes(KIND, z, ceiling, lower), do_scale,
                                                             scale, slope);
            }
        } else {
            const bool pass = FROM_MASK ? (bits >> k) & 1u : gpuact_passes_bits_dt(KIND, S::id, s[k], cbits, lbits);
            dx[k] = gpuact_bwd_elem<DY, DX, KIND, SELECT>(dy[k], pass, do_scale, scale, slope);
        }
    }
}

/* FULL: every vector of this block is inside the row and 16-byte aligned
   (gpuact_block_full), so no access tests its bounds: the instance with
   FULL = 0 calls the one with FULL = 1 for such blocks, on the selection
   paths without the bias gradient. Not with evict-first stores (CS),
   where it ran slower; nor from x or y with every array 16-bit, where the
   second loop spilled 4-12 bytes at the selection's 32 registers. A
   separate row-loop function taking the layout as arguments changed the
   bias-gradient kernels' register allocation (4-12 bytes spilled), so the
   loop stays here (docs/PERFORMANCE.md, "Designs measured and not kept"). */
template <class DY, class DX, class S, int KIND, int FROM_MASK, int DBIAS, int SELECT_, int FROMX, int PRECISE, int FULL = 0>
__device__ __forceinline__ void backward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<DY, DX, S>::value, PAIRS = VEC == 8 };
    gpuact_tabs_fill<KIND, false, FROMX && GPUACT_GRAD_TABLE(KIND, PRECISE, DX::size)>();
    enum {
        U = GPUACT_ONE_VECTOR(GPUACT_OP_backward, KIND, FROM_MASK, DBIAS, PAIRS, GPUACT_WIDENS(DY::size, DX::size))
                ? 1
                : GPUACT_UNROLL
    };
    enum { SELECT = SELECT_ && gpuact_same<DY, DX>::value };
    enum { CS = FROM_MASK && !DBIAS && (!PAIRS || GPUACT_EVICT_FIRST16) }; /* evict-first dx: gpuact_st16 */
    /* with DBIAS the block is SL row slices of W threads (../contract.h) */
    /* the 16-bit lookup of act' (its blocks: GPUACT_LUT16_BLOCK) */
    enum { LUT = GPUACT_LUT16_ON && GPUACT_LUT16_VARIANT(GPUACT_OP_backward, KIND, FROM_MASK, DBIAS, FROMX, PRECISE, DY::id,
                                                         DX::id, S::id) };
    enum { BLK = GPUACT_VARIANT_BLOCK(GPUACT_OP_backward, FROM_MASK, DBIAS, VEC == 4) };
    enum { SL = DBIAS ? GPUACT_DBIAS_SLICES : 1, W = (LUT ? GPUACT_LUT16_BLOCK(S::id, BLK) : BLK) / SL };
    const int slice = SL > 1 ? threadIdx.x / W : 0; /* without DBIAS: 0, known at compile time */
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (W * U) + (SL > 1 ? threadIdx.x % W : threadIdx.x);
    const bool has_bias = FROMX && (flags & GPUACT_F_BIAS);
    /* the rows' layout (../contract.h; a shifted one only without the mask,
       the bias or the bias gradient) */
    const gpuact_u64 shift =
        GPUACT_HEAD_PATH(GPUACT_OP_backward, FROM_MASK, DBIAS, DY::size == DX::size && DY::size == S::size)
            ? (unsigned)layout / GPUACT_LAYOUT_SHIFT
            : 0;
    /* an int, not a bool: as a bool, ptxas gave the 16-bit bias-gradient
       kernels of the smooth kinds up to 22 more registers (72 -> 94) and a
       resident block less (docs/PERFORMANCE.md) */
    const int aligned = layout & GPUACT_LAYOUT_ALIGNED;
    const bool do_scale = !SELECT && (flags & GPUACT_F_SCALE);
    /* the bounds as S: exact where used (see gpuact_passes_bits_dt, ../act.h) */
    const gpuact_u32 cbits = gpuact_fromf<S>(ceiling), lbits = gpuact_fromf<S>(lower);
    /* the few-bit codes (../contract.h): the bits and the table come in the
       flags, the table's levels go to shared memory */
    enum { CODES = FROM_MASK && !((GPUACT_SELECT_KINDS >> KIND) & 1u) };
    const float *lv = 0;
    int nb = 0;
    if (CODES) {
        __shared__ float sl[GPUACT_FEWBIT_STRIDE];
        nb = flags / GPUACT_F_CODE_BITS % 8;
        if (threadIdx.x < GPUACT_FEWBIT_STRIDE)
            sl[threadIdx.x] = gpuact_fewbit_levels[(flags / GPUACT_F_CODE_TABLE * GPUACT_FEWBIT_MAX_BITS + nb - 1) *
                                                       GPUACT_FEWBIT_STRIDE + threadIdx.x];
        __syncthreads();
        lv = sl;
    }
    /* the lookup: the module's table of act' to shared memory (GPUACT_LUT16_SHARED bytes) */
    const float *lut = 0;
    if (LUT && !has_bias && !do_scale) {
        extern __shared__ uint4 lg[];
        gpuact_lut16_load<GPUACT_LUT16_SHARED(GPUACT_OP_backward, S::id) / 16, W>(lg, gpuact_lut16_src());
        lut = reinterpret_cast<const float *>(lg);
    }
    float acc[U][VEC], b[U][VEC];
#pragma unroll
    for (int u = 0; u < U; u++) {
        const gpuact_u64 c0 = shift + (v0 + u * W) * VEC;
        gpuact_u32 bb[VEC];
        if (has_bias && c0 < cols) gpuact_load<S, VEC>(bias, c0, cols, aligned && c0 + VEC <= cols, bb);
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            acc[u][k] = 0.0f;
            b[u][k] = has_bias && c0 < cols ? gpuact_tof<S>(bb[k]) : 0.0f;
        }
    }
    if (!DBIAS && v0 * VEC >= cols) return; /* no lane exchange in the backward */
    if (!FULL && SELECT && !DBIAS && !CS && (FROM_MASK || !PAIRS) && gpuact_block_full(aligned, shift, W * U * VEC, cols)) {
        backward<DY, DX, S, KIND, FROM_MASK, DBIAS, SELECT_, FROMX, PRECISE, 1>(GPUACT_ARGS);
    } else {
        for (gpuact_u64 r = (gpuact_u64)blockIdx.y * SL + slice; r < rows; r += (gpuact_u64)gridDim.y * SL) {
            const unsigned char *dyr = in + r * ld_in * DY::size, *sr = aux + r * ld_aux * S::size;
            unsigned char *dxr = out + r * ld_out * DX::size;
            gpuact_u32 dy[U][VEC], s[U][VEC], dx[U][VEC], bits[U];
#pragma unroll
            for (int u = 0; u < U; u++) { /* every load first */
                const gpuact_u64 cv = v0 + u * W, c0 = shift + cv * VEC;
                const bool vec_ok = FULL || (aligned && c0 + VEC <= cols);
                if (!FULL && c0 >= cols) continue;
                if (PAIRS) gpuact_load_words<DY>(dyr, c0, cols, vec_ok, reinterpret_cast<gpuact_u32(&)[4]>(dy[u]));
                else gpuact_load<DY, VEC>(dyr, c0, cols, vec_ok, dy[u]);
                if (CODES) bits[u] = gpuact_codes_read<VEC>(mask + r * (mask_ld / 8), cv, nb, FULL || c0 + VEC <= cols, cols - c0);
                else if (FROM_MASK) bits[u] = gpuact_mask_read<VEC>(mask + r * (mask_ld / 8), cv);
                else if (PAIRS) gpuact_load_words<S>(sr, c0, cols, vec_ok, reinterpret_cast<gpuact_u32(&)[4]>(s[u]));
                else gpuact_load<S, VEC>(sr, c0, cols, vec_ok, s[u]);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const gpuact_u64 c0 = shift + (v0 + u * W) * VEC;
                const bool vec_ok = FULL || (aligned && c0 + VEC <= cols);
                if (!FULL && c0 >= cols) continue;
                if (CODES)
                    gpuact_bwd_codes<DY, DX, VEC>(dy[u], bits[u], nb, lv, do_scale, scale, dx[u]);
#ifdef GPUACT_QUICK_BF16
                else if (LUT && lut && S::id == GPUACT_DT_f16) {
                    /* f16: the table, then one at a time the elements whose x lies outside its range (the
                       f16 table leaves more of them; bf16's fix spilled) */
                    const gpuact_u32(&wdy)[4] = reinterpret_cast<const gpuact_u32(&)[4]>(dy[u]);
                    const gpuact_u32(&wx)[4] = reinterpret_cast<const gpuact_u32(&)[4]>(s[u]);
                    gpuact_u32(&wdx)[4] = reinterpret_cast<gpuact_u32(&)[4]>(dx[u]);
                    const gpuact_u32 pending =
                        gpuact_lut16_bwd<S::id, GPUACT_LUT16_TABLE(GPUACT_OP_backward, S::id)>(wdy, wx, wdx, lut);
                    if (GPUACT_WARP_ANY(pending)) gpuact_lut16_bwd_fix<KIND, PRECISE, S::id>(wdy, wx, wdx, pending GPUACT_TAB_A);
                }
#endif
                /* bf16: the word path where an x lies outside the table's range (or there is no table) */
                else if (!LUT || !lut ||
                         gpuact_lut16_bwd<S::id, GPUACT_LUT16_TABLE(GPUACT_OP_backward, S::id)>(
                             reinterpret_cast<const gpuact_u32(&)[4]>(dy[u]), reinterpret_cast<const gpuact_u32(&)[4]>(s[u]),
                             reinterpret_cast<gpuact_u32(&)[4]>(dx[u]), lut))
                    gpuact_bwd_vec<DY, DX, S, KIND, PRECISE, FROM_MASK, SELECT, FROMX, VEC>(dy[u], s[u], FROM_MASK ? bits[u] : 0u, b[u],
                                                                                 has_bias, do_scale, scale, slope, ceiling,
                                                                                 lower, cbits, lbits, dx[u]);
                if (PAIRS) {
                    gpuact_store_words<DX, CS>(dxr, c0, cols, vec_ok, reinterpret_cast<const gpuact_u32(&)[4]>(dx[u]));
                    if (DBIAS)
#pragma unroll
                        for (int j = 0; j < 4; j++) {
                            float lo, hi;
                            gpuact_unpack2_dt(DX::id, dx[u][j], &lo, &hi);
                            acc[u][2 * j] += lo;
                            acc[u][2 * j + 1] += hi;
                        }
                } else {
                    gpuact_store<DX, VEC, CS>(dxr, c0, cols, vec_ok, dx[u]);
                    if (DBIAS)
#pragma unroll
                        for (int k = 0; k < VEC; k++) acc[u][k] += gpuact_tof<DX>(dx[u][k]);
                }
            }
        }
        if (DBIAS) { /* the slices' sums in slice order, then one partial row per block row */
            __shared__ float red[SL > 1 ? SL - 1 : 1][W * U * VEC];
            float *p = reinterpret_cast<float *>(part) + (gpuact_u64)blockIdx.y * cols;
            const int t = threadIdx.x % W;
            if (slice > 0)
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int k = 0; k < VEC; k++) red[slice - 1][(u * VEC + k) * W + t] = acc[u][k];
            __syncthreads();
            if (slice > 0) return;
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    const gpuact_u64 c = (v0 + u * W) * VEC + k;
                    float sum = acc[u][k];
#pragma unroll
                    for (int l = 1; l < SL; l++) sum += red[l - 1][(u * VEC + k) * W + t];
                    if (c < cols) p[c] = sum;
                }
        }
    }
    /* The head of a shifted row, columns [0, shift), after the main loop
       (as in the forward; shift > 0 implies no DBIAS). */
    if (!FULL && shift && blockIdx.x == 0 && threadIdx.x == 0)
        for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
            const unsigned char *dyr = in + r * ld_in * DY::size, *sr = aux + r * ld_aux * S::size;
            unsigned char *dxr = out + r * ld_out * DX::size;
            const gpuact_u64 hn = shift < cols ? shift : cols;
            gpuact_u32 hdy[VEC], hs[VEC], hdx[VEC];
            const float hb[VEC] = {};
            if (PAIRS) {
                gpuact_load_words<DY>(dyr, 0, hn, false, reinterpret_cast<gpuact_u32(&)[4]>(hdy));
                gpuact_load_words<S>(sr, 0, hn, false, reinterpret_cast<gpuact_u32(&)[4]>(hs));
            } else {
                gpuact_load<DY, VEC>(dyr, 0, hn, false, hdy);
                gpuact_load<S, VEC>(sr, 0, hn, false, hs);
            }
            gpuact_bwd_vec<DY, DX, S, KIND, PRECISE, FROM_MASK, SELECT, FROMX, VEC>(hdy, hs, 0u, hb, false, do_scale, scale,
                                                                         slope, ceiling, lower, cbits, lbits, hdx);
            if (PAIRS) gpuact_store_words<DX>(dxr, 0, hn, false, reinterpret_cast<const gpuact_u32(&)[4]>(hdx));
            else gpuact_store<DX, VEC>(dxr, 0, hn, false, hdx);
        }
}

GPUACT_INSTANTIATE(backward)
