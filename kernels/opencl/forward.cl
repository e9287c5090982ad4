/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask byte
   of each group of 8 columns when GPUACT_MASK. T0 = x, T1 = y, T2 = bias.
   GPUACT_SELECT (no bias, scale 1, T0 = T1): the result is a selection of
   x's own bits, nothing is converted back. Every array 16-bit: a group is
   four words of two elements, through gpuact_fwd_words (../act.h, which the
   CUDA/HIP word path runs too); otherwise element by element. */
#include "common.cl"
#include "../fewbit.h"

/* Once per program (a program holds several variants, this file again for
   each, see common.cl): the tables and the helpers that read no variant
   macro; the functions after the guard read them and are named per variant. */
#ifndef GPUACT_CL_FORWARD_ONCE
#define GPUACT_CL_FORWARD_ONCE
/* Few-bit codes (a smooth kind's GPUACT_MASK, ../contract.h): the
   boundaries [table][bits - 1][16]; the code of z is how many of the nb-bit
   table's sorted boundaries are <= z (binary search, NaN: 0); a group's 8
   codes are its nb bytes of the row, the row's last group only its
   ceil(n * nb / 8). */
__constant float gpuact_fewbit_bounds[] = GPUACT_FEWBIT_BOUNDS;
#define GPUACT_CL_CODES (GPUACT_MASK && !gpuact_kind_select(GPUACT_KIND))
void gpuact_cl_codes_write(__global uchar *row, ulong c0, uint n, uint w, int nb) {
    __global uchar *p = row + c0 / 8 * nb;
    for (int i = 0; i < (int)((n * nb + 7) / 8); i++) p[i] = (uchar)(w >> (8 * i));
}
/* The groups of a work-item (../contract.h, GPUACT_CL_GROUPS; the host sizes
   the grid by the same rule): group u starts at column gpuact_cl_c0(u), a
   block of groups after group u - 1, so neighbouring work-items stay
   neighbours in every group. */
#define GPUACT_CL_G                                                \
    GPUACT_CL_GROUPS(GPUACT_OP_forward, GPUACT_KIND, GPUACT_SELECT, \
                     SZ(GPUACT_T0) == 2 && SZ(GPUACT_T1) == 2 && SZ(GPUACT_T2) == 2)
/* The mask bits of a group of n (gpuact_cl_count) elements. */
uint gpuact_cl_tail(uint n) { return (1u << n) - 1u; }
/* Every array 16-bit: the four words of group c0 of a row, n elements in it (0 past its end). */
uint4 gpuact_cl_ldw(const __global uchar *row, ulong c0, uint n, int vec_ok) {
    uint e[GPUACT_CL_VEC];
    if (vec_ok) return *(const __global uint4 *)(row + c0 * 2);
    for (uint k = 0; k < GPUACT_CL_VEC; k++) e[k] = k < n ? ((const __global ushort *)row)[c0 + k] : 0u;
    return (uint4)(e[0] | e[1] << 16, e[2] | e[3] << 16, e[4] | e[5] << 16, e[6] | e[7] << 16);
}
void gpuact_cl_stw(__global uchar *row, ulong c0, uint n, int vec_ok, uint4 w) {
    const uint e[4] = {w.x, w.y, w.z, w.w};
    if (vec_ok) {
        *(__global uint4 *)(row + c0 * 2) = w;
        return;
    }
    for (uint k = 0; k < GPUACT_CL_VEC; k++)
        if (k < n) ((__global ushort *)row)[c0 + k] = (ushort)(e[k / 2] >> (16 * (k & 1)));
}
#define gpuact_cl_code GPUACT_OWN(gpuact_cl_code)
#define gpuact_cl_c0 GPUACT_OWN(gpuact_cl_c0)
#define gpuact_cl_fwd_words GPUACT_OWN(gpuact_cl_fwd_words)
#define gpuact_cl_fwd_elems GPUACT_OWN(gpuact_cl_fwd_elems)
#endif

/* The code of z in the variant's table (GPUACT_CL_CODES; nb bits). */
uint gpuact_cl_code(float z, int nb) {
    __constant const float *bnd =
        gpuact_fewbit_bounds + ((GPUACT_CL_CODES ? GPUACT_KIND - GPUACT_KIND_gelu : 0) * GPUACT_FEWBIT_MAX_BITS + nb - 1) * GPUACT_FEWBIT_STRIDE;
    uint c = 0;
    for (int s = 1 << (nb - 1); s; s >>= 1) c += z >= bnd[c + s - 1] ? (uint)s : 0u;
    return c;
}
ulong gpuact_cl_c0(int u) {
    return ((get_group_id(0) * GPUACT_CL_G + u) * get_local_size(0) + get_local_id(0)) * GPUACT_CL_VEC;
}

#if SZ(GPUACT_T0) == 2 && SZ(GPUACT_T1) == 2 && SZ(GPUACT_T2) == 2
/* The rows of a work-item's groups. fl >= 0: flags is that constant (the
   epilogue's common case gets its own copy of the loop, without a choice on
   the flags per word). */
void gpuact_cl_fwd_words(const __global uchar *in, __global uchar *out, __global uchar *mask,
                         const __global uchar *bias, ulong rows, ulong cols, ulong ld_in, ulong ld_out, ulong mask_ld,
                         int flags, int fl, float scale, float slope, float ceiling, float lower, uint c2, uint l2,
                         int has_bias, int aligned, int nb GPUACT_TAB_P) {
    const int f = fl >= 0 ? fl : flags, hb = fl >= 0 ? (fl & GPUACT_F_BIAS) != 0 : has_bias;
    ulong c0[GPUACT_CL_G];
    uint n[GPUACT_CL_G];
    int vec_ok[GPUACT_CL_G];
    uint4 bw[GPUACT_CL_G];
#pragma unroll
    for (int u = 0; u < GPUACT_CL_G; u++) {
        c0[u] = gpuact_cl_c0(u);
        n[u] = gpuact_cl_count(c0[u], cols);
        vec_ok[u] = aligned && n[u] == GPUACT_CL_VEC;
        bw[u] = hb && n[u] ? gpuact_cl_ldw(bias, c0[u], n[u], vec_ok[u]) : (uint4)(0u, 0u, 0u, 0u);
    }
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        const __global uchar *xr = in + r * ld_in * 2;
        __global uchar *yr = out + r * ld_out * 2;
        uint4 q[GPUACT_CL_G];
#pragma unroll
        for (int u = 0; u < GPUACT_CL_G; u++)
            q[u] = n[u] ? gpuact_cl_ldw(xr, c0[u], n[u], vec_ok[u]) : (uint4)(0u, 0u, 0u, 0u);
#pragma unroll
        for (int u = 0; u < GPUACT_CL_G; u++) {
            const uint w[4] = {q[u].x, q[u].y, q[u].z, q[u].w}, b[4] = {bw[u].x, bw[u].y, bw[u].z, bw[u].w};
            uint y[4], bits;
            if (!n[u]) continue; /* the row's last work-items: groups past its end */
            bits = gpuact_fwd_words(GPUACT_KIND, GPUACT_PRECISE, DT(GPUACT_T0), DT(GPUACT_T1), DT(GPUACT_T2), GPUACT_SELECT, fl, w, b,
                                    y, hb, f, scale, slope, ceiling, lower, c2, l2 GPUACT_TAB_A);
            gpuact_cl_stw(yr, c0[u], n[u], vec_ok[u], (uint4)(y[0], y[1], y[2], y[3]));
            if (GPUACT_CL_CODES) {
                uint cw = 0;
                for (uint k = 0; k < n[u]; k++) {
                    float z = (k & 1) ? gpuact_hi2f(DT(GPUACT_T0), w[k / 2]) : gpuact_lo2f(DT(GPUACT_T0), w[k / 2]);
                    if (hb) z += (k & 1) ? gpuact_hi2f(DT(GPUACT_T2), b[k / 2]) : gpuact_lo2f(DT(GPUACT_T2), b[k / 2]);
                    cw |= gpuact_cl_code(z, nb) << (k * nb);
                }
                gpuact_cl_codes_write(mask + r * (mask_ld / 8), c0[u], n[u], cw, nb);
            } else if (GPUACT_MASK) {
                mask[r * (mask_ld / 8) + c0[u] / 8] = (uchar)(bits & gpuact_cl_tail(n[u]));
            }
        }
    }
}
#else
/* The element path (f32 and mixed dtypes): the rows of a work-item's
   groups through gpuact_fwd_elems (../act.h, which the CUDA/HIP element
   path runs too). fl >= 0: flags is that constant, as in the word path. */
void gpuact_cl_fwd_elems(const __global uchar *in, __global uchar *out, __global uchar *mask,
                         const __global uchar *bias, ulong rows, ulong cols, ulong ld_in, ulong ld_out, ulong mask_ld,
                         int flags, int fl, float scale, float slope, float ceiling, float lower, uint cbits,
                         uint lbits, int has_bias, int aligned, int nb GPUACT_TAB_P) {
    const int f = fl >= 0 ? fl : flags, hb = fl >= 0 ? (fl & GPUACT_F_BIAS) != 0 : has_bias;
    uint x[GPUACT_CL_G][GPUACT_CL_VEC], y[GPUACT_CL_G][GPUACT_CL_VEC];
    float b[GPUACT_CL_G][GPUACT_CL_VEC];
    ulong c0[GPUACT_CL_G];
    uint n[GPUACT_CL_G];
    int vec_ok[GPUACT_CL_G];
#pragma unroll
    for (int u = 0; u < GPUACT_CL_G; u++) {
        uint bb[GPUACT_CL_VEC];
        c0[u] = gpuact_cl_c0(u);
        n[u] = gpuact_cl_count(c0[u], cols);
        vec_ok[u] = aligned && n[u] == GPUACT_CL_VEC;
        if (hb) GPUACT_LOAD8(GPUACT_T2, bias, c0[u], n[u], vec_ok[u], bb);
        for (int k = 0; k < GPUACT_CL_VEC; k++) b[u][k] = hb ? gpuact_tof_dt(DT(GPUACT_T2), bb[k]) : 0.0f;
    }
    /* Each row: every group's loads, then the results and stores, so the loads of all groups are in flight
       together (a store may alias a later load: the compiler keeps their order). */
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        const __global uchar *xr = in + r * ld_in * SZ(GPUACT_T0);
        __global uchar *yr = out + r * ld_out * SZ(GPUACT_T1);
#pragma unroll
        for (int u = 0; u < GPUACT_CL_G; u++) GPUACT_LOAD8(GPUACT_T0, xr, c0[u], n[u], vec_ok[u], x[u]);
#pragma unroll
        for (int u = 0; u < GPUACT_CL_G; u++) {
            uint bits;
            if (!n[u]) continue; /* the row's last work-items: groups past its end */
            bits = gpuact_fwd_elems(GPUACT_KIND, GPUACT_PRECISE, DT(GPUACT_T0), DT(GPUACT_T1), GPUACT_SELECT, fl, GPUACT_CL_VEC, x[u],
                                    b[u], y[u], hb, f, scale, slope, ceiling, lower, cbits, lbits GPUACT_TAB_A);
            GPUACT_STORE8(GPUACT_T1, yr, c0[u], n[u], vec_ok[u], y[u]);
            if (GPUACT_CL_CODES) {
                uint cw = 0;
                for (uint k = 0; k < n[u]; k++) {
                    float z = gpuact_tof_dt(DT(GPUACT_T0), x[u][k]);
                    if (hb) z += b[u][k];
                    cw |= gpuact_cl_code(z, nb) << (k * nb);
                }
                gpuact_cl_codes_write(mask + r * (mask_ld / 8), c0[u], n[u], cw, nb);
            } else if (GPUACT_MASK) {
                mask[r * (mask_ld / 8) + c0[u] / 8] = (uchar)(bits & gpuact_cl_tail(n[u]));
            }
        }
    }
}
#endif

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    GPUACT_CL_TABLES(GPUACT_ACT_TABLE(GPUACT_KIND, GPUACT_PRECISE, SZ(GPUACT_T1)));
    int select = GPUACT_SELECT, has_mask = GPUACT_MASK, kind = GPUACT_KIND;
    /* ^ not const: clang warns on `constant && x` */
    const int has_bias = !select && (flags & GPUACT_F_BIAS);
    const int aligned = layout & GPUACT_LAYOUT_ALIGNED; /* ../contract.h; OpenCL gets no shift */
    const uint cbits = gpuact_fromf_dt(DT(GPUACT_T1), ceiling), lbits = gpuact_fromf_dt(DT(GPUACT_T1), lower);
    /* the codes' bits come in the flags (../contract.h) */
    const int nb = GPUACT_CL_CODES ? flags / GPUACT_F_CODE_BITS % 8 : 0;
    if (GPUACT_CL_CODES) flags %= GPUACT_F_CODE_BITS;
    if (gpuact_cl_c0(0) >= cols) return;
#if SZ(GPUACT_T0) == 2 && SZ(GPUACT_T1) == 2 && SZ(GPUACT_T2) == 2
    (void)has_mask;
    /* constant-flags copies of the loop: the epilogue without scale, and a smooth kind's elementwise
       forward (no bias, scale 1, one dtype: the NaN rule) */
#define GPUACT_CL_WORDS_(fl)                                                                                    \
    gpuact_cl_fwd_words(in + in_off, out + out_off, mask + mask_off, bias + bias_off, rows, cols, ld_in, ld_out, \
                        mask_ld, flags, fl, scale, slope, ceiling, lower, cbits * 0x00010001u,                  \
                        lbits * 0x00010001u, has_bias, aligned, nb GPUACT_TAB_A)
    if (!select && flags == GPUACT_F_BIAS && (gpuact_kind_select(kind) || kind == GPUACT_KIND_gelu))
        GPUACT_CL_WORDS_(GPUACT_F_BIAS);
    else if (flags == GPUACT_F_RAW && !gpuact_kind_select(kind))
        GPUACT_CL_WORDS_(GPUACT_F_RAW);
    else
        GPUACT_CL_WORDS_(-1);
#undef GPUACT_CL_WORDS_
#else
    (void)has_mask;
    /* the ReLU family's epilogue into a 16-bit y gets a constant-flags copy (its pairs conversion and
       gpuact_act_minmax chosen at compile time), as on CUDA */
#define GPUACT_CL_ELEMS_(fl)                                                                                    \
    gpuact_cl_fwd_elems(in + in_off, out + out_off, mask + mask_off, bias + bias_off, rows, cols, ld_in, ld_out, \
                        mask_ld, flags, fl, scale, slope, ceiling, lower, cbits, lbits, has_bias, aligned, nb GPUACT_TAB_A)
    if (SZ(GPUACT_T1) == 2 && !select && flags == GPUACT_F_BIAS && gpuact_kind_select(kind))
        GPUACT_CL_ELEMS_(GPUACT_F_BIAS);
    else
        GPUACT_CL_ELEMS_(-1);
#undef GPUACT_CL_ELEMS_
#endif
}
