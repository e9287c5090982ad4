/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask byte
   of each group of 8 columns when GPUACT_MASK. T0 = x, T1 = y, T2 = bias.
   GPUACT_SELECT (no bias, scale 1, T0 = T1): the result is a selection of
   x's own bits, nothing is converted back. */
#include "common.cl"

/* The groups of a work-item (../contract.h, GPUACT_CL_GROUPS; the host sizes
   the grid by the same rule): group u starts at column gpuact_cl_c0(u), a
   block of groups after group u - 1, so neighbouring work-items stay
   neighbours in every group. */
#define GPUACT_CL_G                                                \
    GPUACT_CL_GROUPS(GPUACT_OP_forward, GPUACT_KIND, GPUACT_SELECT, \
                     SZ(GPUACT_T0) == 2 && SZ(GPUACT_T1) == 2 && SZ(GPUACT_T2) == 2)
ulong gpuact_cl_c0(int u) {
    return ((get_group_id(0) * GPUACT_CL_G + u) * get_local_size(0) + get_local_id(0)) * GPUACT_CL_VEC;
}
/* The mask bits of group c0 that lie inside the row (c0 < cols). */
uint gpuact_cl_tail(ulong c0, ulong cols) {
    return c0 + GPUACT_CL_VEC <= cols ? 0xffu : (1u << (uint)(cols - c0)) - 1u;
}

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    int select = GPUACT_SELECT, has_mask = GPUACT_MASK, kind = GPUACT_KIND, is16 = SZ(GPUACT_T0) == 2;
    /* ^ not const: clang warns on `constant && x` */
    const int has_bias = !select && (flags & GPUACT_F_BIAS);
    const int aligned = gpuact_rows_aligned(in_off, ld_in, SZ(GPUACT_T0), rows) &&
                        gpuact_rows_aligned(out_off, ld_out, SZ(GPUACT_T1), rows) &&
                        (!has_bias || bias_off % 16 == 0);
    const uint cbits = FROMF(GPUACT_T1)(ceiling), lbits = FROMF(GPUACT_T1)(lower);
    ulong c0[GPUACT_CL_G];
    int vec_ok[GPUACT_CL_G];
    uint b[GPUACT_CL_G][GPUACT_CL_VEC], x[GPUACT_CL_G][GPUACT_CL_VEC], y[GPUACT_CL_G][GPUACT_CL_VEC];
#pragma unroll
    for (int u = 0; u < GPUACT_CL_G; u++) {
        c0[u] = gpuact_cl_c0(u);
        vec_ok[u] = aligned && c0[u] + GPUACT_CL_VEC <= cols;
    }
    if (c0[0] >= cols) return;
    /* Each row: every group's loads, then the results and stores, so the loads of all groups are in flight
       together (a store may alias a later load: the compiler keeps their order). */
    if (select && is16 && vec_ok[GPUACT_CL_G - 1] && ((GPUACT_PAIR_KINDS >> kind) & 1u)) {
        /* 16-bit selection of a kind in GPUACT_PAIR_KINDS (no slope, no lower bound): two values per word
           (../act.h), one 16-byte vector per group, the mask byte from the lanes. (With slope, measured on NVIDIA's driver, the word path was 4-8% slower
           than the element loop below: leaky keeps that.) */
        const uint c2 = cbits * 0x00010001u, inf = GPUACT_CAT(INF16_, GPUACT_T0);
        for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
            uint4 q[GPUACT_CL_G];
#pragma unroll
            for (int u = 0; u < GPUACT_CL_G; u++) q[u] = *(const __global uint4 *)(in + in_off + (r * ld_in + c0[u]) * 2);
#pragma unroll
            for (int u = 0; u < GPUACT_CL_G; u++) {
                uint w[4], yw[4], top[4];
                w[0] = q[u].x; w[1] = q[u].y; w[2] = q[u].z; w[3] = q[u].w;
                for (int j = 0; j < 4; j++) {
                    yw[j] = gpuact_select_pair(kind, w[j], inf, c2);
                    top[j] = gpuact_select_tops(kind, yw[j], c2);
                }
                *(__global uint4 *)(out + out_off + (r * ld_out + c0[u]) * 2) = (uint4)(yw[0], yw[1], yw[2], yw[3]);
                if (has_mask)
                    mask[mask_off + r * (mask_ld / 8) + c0[u] / 8] = (uchar)gpuact_tops_bits(top[0], top[1], top[2], top[3]);
            }
        }
        return;
    }
    if (has_bias)
#pragma unroll
        for (int u = 0; u < GPUACT_CL_G; u++) GPUACT_LOAD8(GPUACT_T2, bias + bias_off, c0[u], cols, vec_ok[u], b[u]);
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        const __global uchar *xr = in + in_off + r * ld_in * SZ(GPUACT_T0);
        __global uchar *yr = out + out_off + r * ld_out * SZ(GPUACT_T1);
#pragma unroll
        for (int u = 0; u < GPUACT_CL_G; u++) GPUACT_LOAD8(GPUACT_T0, xr, c0[u], cols, vec_ok[u], x[u]);
#pragma unroll
        for (int u = 0; u < GPUACT_CL_G; u++) {
            uint bits = 0;
            if (c0[u] >= cols) continue; /* the row's last work-items: groups past its end */
            for (int k = 0; k < GPUACT_CL_VEC; k++) {
#if GPUACT_SELECT /* y is x's bits, +0, a bound, or (leaky) x * slope */
                const uint xk = x[u][k];
                const int pass = GPUACT_PASSES_BITS(GPUACT_T0, xk, cbits, lbits);
                if (GPUACT_KIND == GPUACT_KIND_hardtanh)
                    y[u][k] = gpuact_hardtanh_bits(xk, ORD(GPUACT_T0, xk), ISNAN(GPUACT_T0)(xk), lbits,
                                                   ORD(GPUACT_T0, lbits), cbits, ORD(GPUACT_T0, cbits));
                else if (gpuact_kind_slope(GPUACT_KIND)) y[u][k] = pass ? xk : FROMF(GPUACT_T1)(TOF(GPUACT_T0)(xk) * slope);
                else y[u][k] = pass ? xk : gpuact_blocked_bits(GPUACT_KIND, SBITS(GPUACT_T0)(xk), cbits);
#else
                float z = TOF(GPUACT_T0)(x[u][k]), v;
                int pass = 0;
                if (has_bias) z += TOF(GPUACT_T2)(b[u][k]);
                v = gpuact_act(GPUACT_KIND, z, slope, ceiling, lower, gpuact_lean(SZ(GPUACT_T1)));
                if (flags & GPUACT_F_SCALE) v *= scale;
                /* no bias, scale 1, T0 = T1, not the selection path: a NaN x keeps its bits */
                y[u][k] = (flags & GPUACT_F_RAW) && ISNAN(GPUACT_T0)(x[u][k]) ? x[u][k] : FROMF(GPUACT_T1)(v);
                if (gpuact_kind_select(GPUACT_KIND)) pass = gpuact_passes(GPUACT_KIND, z, ceiling, lower);
#endif
                bits |= (uint)pass << k;
            }
            GPUACT_STORE8(GPUACT_T1, yr, c0[u], cols, vec_ok[u], y[u]);
            if (has_mask) mask[mask_off + r * (mask_ld / 8) + c0[u] / 8] = (uchar)(bits & gpuact_cl_tail(c0[u], cols));
        }
    }
}
