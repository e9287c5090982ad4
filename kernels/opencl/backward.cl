/* Backward: dx = select(passes, dy (* scale), +0), leaky: (dy (* scale)) *
   slope where it does not pass; the region from the mask or from aux (the
   forward's x or y; GPUACT_MASK: from the mask; GPUACT_FROMX: from
   z = aux (+ bias) in f32). A smooth kind (always GPUACT_FROMX):
   dx = (dy (* scale)) * act'(z). GPUACT_SELECT (scale 1,
   T0 = T1): a passing element is dy's own bits. With GPUACT_DBIAS
   every row group (get_group_id(1)) also writes its column sums of the
   stored dx to part[group][c], adding its rows in order.
   T0 = dy, T1 = dx, T2 = the region's source. */
#include "common.cl"
#include "../fewbit.h"

/* Once per program (a program holds several variants, this file again for
   each, see common.cl): the table and the helpers, which read no variant macro. */
#ifndef GPUACT_CL_BACKWARD_ONCE
#define GPUACT_CL_BACKWARD_ONCE
/* Few-bit codes (a smooth kind's GPUACT_MASK, ../contract.h): the levels
   [table][bits - 1][16]; a group's 8 codes are its nb bytes of the row,
   the row's last group only its ceil(n * nb / 8). */
__constant float gpuact_fewbit_levels[] = GPUACT_FEWBIT_LEVELS;
/* The bias gradient's partial row of this row group: the work-item's column sums. */
void gpuact_cl_part_write(__global uchar *part, ulong cols, ulong c0, uint n, const float *acc) {
    __global float *p = (__global float *)part + get_group_id(1) * cols;
    for (int k = 0; k < GPUACT_CL_VEC; k++)
        if (k < (int)n) p[c0 + k] = acc[k];
}
uint gpuact_cl_codes_read(const __global uchar *row, ulong c0, uint n, int nb) {
    const __global uchar *p = row + c0 / 8 * nb;
    uint w = 0;
    for (int i = 0; i < (int)((n * nb + 7) / 8); i++) w |= (uint)p[i] << (8 * i);
    return w;
}
#endif

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    GPUACT_CL_TABLES(GPUACT_FROMX && GPUACT_GRAD_TABLE(GPUACT_KIND, GPUACT_PRECISE, SZ(GPUACT_T1)));
    const ulong c0 = get_global_id(0) * GPUACT_CL_VEC;
    int from_mask = GPUACT_MASK, select = GPUACT_SELECT, dbias = GPUACT_DBIAS, fromx = GPUACT_FROMX;
    /* ^ not const: clang warns on `constant && x` */
    const int has_bias = fromx && (flags & GPUACT_F_BIAS);
    const int aligned = layout & GPUACT_LAYOUT_ALIGNED; /* ../contract.h; OpenCL gets no shift */
    const uint n = gpuact_cl_count(c0, cols);
    const int vec_ok = aligned && n == GPUACT_CL_VEC;
    const int do_scale = !select && (flags & GPUACT_F_SCALE);
    /* the bounds as T2: exact where used (see gpuact_passes_bits_dt, ../act.h) */
    const uint cbits = gpuact_fromf_dt(DT(GPUACT_T2), ceiling), lbits = gpuact_fromf_dt(DT(GPUACT_T2), lower);
    uint dy[GPUACT_CL_VEC], s[GPUACT_CL_VEC], dx[GPUACT_CL_VEC], b[GPUACT_CL_VEC];
    float acc[GPUACT_CL_VEC];
    if (c0 >= cols) return;
    for (int k = 0; k < GPUACT_CL_VEC; k++) acc[k] = 0.0f;
    if (from_mask && !gpuact_kind_select(GPUACT_KIND)) { /* from few-bit codes: (dy (* scale)) * level[code] */
        const int nb = flags / GPUACT_F_CODE_BITS % 8;
        __constant const float *lv =
            gpuact_fewbit_levels + (flags / GPUACT_F_CODE_TABLE * GPUACT_FEWBIT_MAX_BITS + nb - 1) * GPUACT_FEWBIT_STRIDE;
        for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
            const __global uchar *dyr = in + in_off + r * ld_in * SZ(GPUACT_T0);
            __global uchar *dxr = out + out_off + r * ld_out * SZ(GPUACT_T1);
            const uint w = gpuact_cl_codes_read(mask + mask_off + r * (mask_ld / 8), c0, n, nb);
            GPUACT_LOAD8(GPUACT_T0, dyr, c0, n, vec_ok, dy);
            for (int k = 0; k < GPUACT_CL_VEC; k++) {
                const float g = gpuact_tof_dt(DT(GPUACT_T0), dy[k]), gs = do_scale ? g * scale : g;
                dx[k] = gpuact_fromf_dt(DT(GPUACT_T1), gs * lv[(w >> (k * nb)) & ((1u << nb) - 1u)]);
                if (dbias && k < (int)n) acc[k] += gpuact_tof_dt(DT(GPUACT_T1), dx[k]);
            }
            GPUACT_STORE8(GPUACT_T1, dxr, c0, n, vec_ok, dx);
        }
        if (dbias) gpuact_cl_part_write(part + part_off, cols, c0, n, acc);
        return;
    }
    if (has_bias) GPUACT_LOAD8(GPUACT_T2, bias + bias_off, c0, n, vec_ok, b);
    /* Every array 16-bit (the mask or a 16-bit region): words of two, through gpuact_bwd_words_vec
       (../act.h, which the CUDA/HIP word path runs too), with the bias as floats */
    int w16 = SZ(GPUACT_T0) + SZ(GPUACT_T1) == 4, s16 = SZ(GPUACT_T2) == 2; /* not const: see above */
    const int words = w16 && (from_mask || s16) && vec_ok;
    float bf[GPUACT_CL_VEC];
    for (int k = 0; k < GPUACT_CL_VEC; k++) bf[k] = words && has_bias ? gpuact_tof_dt(DT(GPUACT_T2), b[k]) : 0.0f;
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        const __global uchar *dyr = in + in_off + r * ld_in * SZ(GPUACT_T0);
        __global uchar *dxr = out + out_off + r * ld_out * SZ(GPUACT_T1);
        uint bits = 0;
        if (words) {
            const uint4 qd = *(const __global uint4 *)(dyr + c0 * 2);
            uint4 qs = (uint4)(0u, 0u, 0u, 0u);
            uint wd[4], ws[4], wx[4];
            if (from_mask) bits = mask[mask_off + r * (mask_ld / 8) + c0 / 8];
            else qs = *(const __global uint4 *)(aux + aux_off + (r * ld_aux + c0) * 2);
            wd[0] = qd.x; wd[1] = qd.y; wd[2] = qd.z; wd[3] = qd.w;
            ws[0] = qs.x; ws[1] = qs.y; ws[2] = qs.z; ws[3] = qs.w;
            gpuact_bwd_words_vec(GPUACT_KIND, GPUACT_PRECISE, DT(GPUACT_T0), DT(GPUACT_T1), DT(GPUACT_T2), GPUACT_MASK, GPUACT_SELECT,
                                 GPUACT_FROMX, wd, ws, bits, bf, has_bias, do_scale, scale, slope, ceiling, lower,
                                 cbits, lbits, wx GPUACT_TAB_A);
            if (dbias)
                for (int j = 0; j < 4; j++) {
                    float lo, hi;
                    gpuact_unpack2_dt(DT(GPUACT_T1), wx[j], &lo, &hi);
                    acc[2 * j] += lo;
                    acc[2 * j + 1] += hi;
                }
            *(__global uint4 *)(dxr + c0 * 2) = (uint4)(wx[0], wx[1], wx[2], wx[3]);
            continue;
        }
        GPUACT_LOAD8(GPUACT_T0, dyr, c0, n, vec_ok, dy);
        if (from_mask)
            bits = mask[mask_off + r * (mask_ld / 8) + c0 / 8];
        else
            GPUACT_LOAD8(GPUACT_T2, aux + aux_off + r * ld_aux * SZ(GPUACT_T2), c0, n, vec_ok, s);
        for (int k = 0; k < GPUACT_CL_VEC; k++) {
            const float g = gpuact_tof_dt(DT(GPUACT_T0), dy[k]), gs = do_scale ? g * scale : g;
            float z = 0.0f;
            int pass;
            if (fromx) {
                z = gpuact_tof_dt(DT(GPUACT_T2), s[k]);
                if (has_bias) z += gpuact_tof_dt(DT(GPUACT_T2), b[k]);
            }
            if (!gpuact_kind_select(GPUACT_KIND)) { /* smooth */
                dx[k] = gpuact_grad_zero(GPUACT_KIND, z) ? 0u : gpuact_fromf_dt(DT(GPUACT_T1), gs * gpuact_grad(GPUACT_KIND, z, gpuact_eval(SZ(GPUACT_T1), GPUACT_PRECISE) GPUACT_TAB_A));
                if (dbias && k < (int)n) acc[k] += gpuact_tof_dt(DT(GPUACT_T1), dx[k]);
                continue;
            }
            pass = from_mask ? (int)((bits >> k) & 1u)
                   : fromx   ? gpuact_passes(GPUACT_KIND, z, ceiling, lower)
                             : gpuact_passes_bits_dt(GPUACT_KIND, DT(GPUACT_T2), s[k], cbits, lbits);
            if (pass) dx[k] = select ? dy[k] : gpuact_fromf_dt(DT(GPUACT_T1), gs);
            else dx[k] = gpuact_kind_slope(GPUACT_KIND) ? gpuact_fromf_dt(DT(GPUACT_T1), gpuact_blocked_grad(GPUACT_KIND, gs, slope)) : 0u;
            if (dbias && k < (int)n) acc[k] += gpuact_tof_dt(DT(GPUACT_T1), dx[k]);
        }
        GPUACT_STORE8(GPUACT_T1, dxr, c0, n, vec_ok, dx);
    }
    if (dbias) gpuact_cl_part_write(part + part_off, cols, c0, n, acc);
}
