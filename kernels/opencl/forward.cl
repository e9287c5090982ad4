/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask byte
   of the work-item's 8 columns when GPUACT_MASK. T0 = x, T1 = y, T2 = bias.
   GPUACT_SELECT (no bias, scale 1, T0 = T1): the result is a selection of
   x's own bits, nothing is converted back. */
#include "common.cl"

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    const ulong c0 = get_global_id(0) * GPUACT_CL_VEC;
    int select = GPUACT_SELECT, has_mask = GPUACT_MASK, kind = GPUACT_KIND, is16 = SZ(GPUACT_T0) == 2;
    /* ^ not const: clang warns on `constant && x` */
    const int has_bias = !select && (flags & GPUACT_F_BIAS);
    const int aligned = gpuact_rows_aligned(in_off, ld_in, SZ(GPUACT_T0), rows) &&
                        gpuact_rows_aligned(out_off, ld_out, SZ(GPUACT_T1), rows) &&
                        (!has_bias || bias_off % 16 == 0);
    const int vec_ok = aligned && c0 + GPUACT_CL_VEC <= cols;
    const uint cbits = FROMF(GPUACT_T1)(ceiling), lbits = FROMF(GPUACT_T1)(lower);
    uint b[GPUACT_CL_VEC], x[GPUACT_CL_VEC], y[GPUACT_CL_VEC];
    if (c0 >= cols) return;
    if (select && is16 && vec_ok && !gpuact_kind_slope(kind) && kind != GPUACT_KIND_hardtanh) {
        /* 16-bit selection without slope: two values per word (../act.h), one 16-byte vector, the mask
           byte from the lanes. (With slope, measured on NVIDIA's driver, the word path was 4-8% slower
           than the element loop below: leaky keeps that.) */
        const uint c2 = cbits * 0x00010001u, inf = GPUACT_CAT(INF16_, GPUACT_T0);
        for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
            const uint4 q = *(const __global uint4 *)(in + in_off + (r * ld_in + c0) * 2);
            uint w[4], yw[4], top[4];
            w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;
            for (int j = 0; j < 4; j++) {
                yw[j] = gpuact_select_pair(kind, w[j], inf, c2);
                top[j] = gpuact_select_tops(kind, yw[j], c2);
            }
            *(__global uint4 *)(out + out_off + (r * ld_out + c0) * 2) = (uint4)(yw[0], yw[1], yw[2], yw[3]);
            if (has_mask) mask[mask_off + r * (mask_ld / 8) + c0 / 8] = (uchar)gpuact_tops_bits(top[0], top[1], top[2], top[3]);
        }
        return;
    }
    if (has_bias) GPUACT_LOAD8(GPUACT_T2, bias + bias_off, c0, cols, vec_ok, b);
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        const __global uchar *xr = in + in_off + r * ld_in * SZ(GPUACT_T0);
        __global uchar *yr = out + out_off + r * ld_out * SZ(GPUACT_T1);
        uint bits = 0;
        GPUACT_LOAD8(GPUACT_T0, xr, c0, cols, vec_ok, x);
        for (int k = 0; k < GPUACT_CL_VEC; k++) {
#if GPUACT_SELECT /* y is x's bits, +0, a bound, or (leaky) x * slope */
            const int pass = GPUACT_PASSES_BITS(GPUACT_T0, x[k], cbits, lbits);
            if (GPUACT_KIND == GPUACT_KIND_hardtanh)
                y[k] = gpuact_hardtanh_bits(x[k], ORD(GPUACT_T0, x[k]), ISNAN(GPUACT_T0)(x[k]), lbits,
                                            ORD(GPUACT_T0, lbits), cbits, ORD(GPUACT_T0, cbits));
            else if (gpuact_kind_slope(GPUACT_KIND)) y[k] = pass ? x[k] : FROMF(GPUACT_T1)(TOF(GPUACT_T0)(x[k]) * slope);
            else y[k] = pass ? x[k] : gpuact_blocked_bits(GPUACT_KIND, SBITS(GPUACT_T0)(x[k]), cbits);
#else
            float z = TOF(GPUACT_T0)(x[k]), v;
            int pass = 0;
            if (has_bias) z += TOF(GPUACT_T2)(b[k]);
            v = gpuact_act(GPUACT_KIND, z, slope, ceiling, lower, gpuact_lean(SZ(GPUACT_T1)));
            if (flags & GPUACT_F_SCALE) v *= scale;
            /* no bias, scale 1, T0 = T1, not the selection path: a NaN x keeps its bits */
            y[k] = (flags & GPUACT_F_RAW) && ISNAN(GPUACT_T0)(x[k]) ? x[k] : FROMF(GPUACT_T1)(v);
            if (gpuact_kind_select(GPUACT_KIND)) pass = gpuact_passes(GPUACT_KIND, z, ceiling, lower);
#endif
            if (has_mask) bits |= (uint)(pass && c0 + k < cols) << k;
        }
        GPUACT_STORE8(GPUACT_T1, yr, c0, cols, vec_ok, y);
        if (has_mask) mask[mask_off + r * (mask_ld / 8) + c0 / 8] = (uchar)bits;
    }
}
