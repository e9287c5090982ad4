/* Forward: y[r][c] = act(x[r][c] (+ bias[c])) (* scale), and the mask byte
   of the work-item's 8 columns. T0 = x, T1 = y, T2 = bias. */
#include "common.cl"

__kernel void GPUACT_NAME(gpuact_forward_)(GPUACT_PARAMS) {
    const ulong c0 = get_global_id(0) * GPUACT_VEC;
    const int has_bias = flags & GPUACT_F_BIAS, has_mask = flags & GPUACT_F_MASK;
    const int aligned = gpuact_rows_aligned(in_off, ld_in, SZ(GPUACT_T0), rows) &&
                        gpuact_rows_aligned(out_off, ld_out, SZ(GPUACT_T1), rows) &&
                        (!has_bias || aux_off % 16 == 0);
    const int vec_ok = aligned && c0 + GPUACT_VEC <= cols;
    uint b[GPUACT_VEC], x[GPUACT_VEC], y[GPUACT_VEC];
    if (c0 >= cols) return;
    if (has_bias) GPUACT_LOAD8(GPUACT_T2, aux + aux_off, c0, cols, vec_ok, b);
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        const __global uchar *xr = in + in_off + r * ld_in * SZ(GPUACT_T0);
        __global uchar *yr = out + out_off + r * ld_out * SZ(GPUACT_T1);
        uint bits = 0;
        GPUACT_LOAD8(GPUACT_T0, xr, c0, cols, vec_ok, x);
        for (int k = 0; k < GPUACT_VEC; k++) {
            float z = TOF(GPUACT_T0)(x[k]), v;
            if (has_bias) z += TOF(GPUACT_T2)(b[k]);
            v = gpuact_act(kind, z, slope, ceiling);
            if (flags & GPUACT_F_SCALE) v *= scale;
            y[k] = (flags & GPUACT_F_RAW) && z != z ? x[k] : FROMF(GPUACT_T1)(v);
            bits |= (uint)(gpuact_passes(kind, z, ceiling) && c0 + k < cols) << k;
        }
        GPUACT_STORE8(GPUACT_T1, yr, c0, cols, vec_ok, y);
        if (has_mask) mask[mask_off + r * (mask_ld / 8) + c0 / 8] = (uchar)bits;
    }
}
