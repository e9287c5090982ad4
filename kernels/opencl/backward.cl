/* Backward: dx = select(passes, dy (* scale), +0), leaky: (dy (* scale)) *
   slope where it does not pass; the region from the mask or from aux (the
   forward's x or y). With GPUACT_F_DBIAS every row group (get_group_id(1))
   also writes its column sums of the stored dx to part[group][c].
   T0 = dy, T1 = dx, T2 = the region's source. */
#include "common.cl"

__kernel void GPUACT_NAME(gpuact_backward_)(GPUACT_PARAMS) {
    const ulong c0 = get_global_id(0) * GPUACT_VEC;
    const int from_mask = flags & GPUACT_F_MASK, dbias = flags & GPUACT_F_DBIAS;
    const int aligned = gpuact_rows_aligned(in_off, ld_in, SZ(GPUACT_T0), rows) &&
                        gpuact_rows_aligned(out_off, ld_out, SZ(GPUACT_T1), rows) &&
                        (from_mask || gpuact_rows_aligned(aux_off, ld_aux, SZ(GPUACT_T2), rows));
    const int vec_ok = aligned && c0 + GPUACT_VEC <= cols;
    uint dy[GPUACT_VEC], s[GPUACT_VEC], dx[GPUACT_VEC];
    float acc[GPUACT_VEC];
    if (c0 >= cols) return;
    for (int k = 0; k < GPUACT_VEC; k++) acc[k] = 0.0f;
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        const __global uchar *dyr = in + in_off + r * ld_in * SZ(GPUACT_T0);
        __global uchar *dxr = out + out_off + r * ld_out * SZ(GPUACT_T1);
        uint bits = 0;
        GPUACT_LOAD8(GPUACT_T0, dyr, c0, cols, vec_ok, dy);
        if (from_mask)
            bits = mask[mask_off + r * (mask_ld / 8) + c0 / 8];
        else
            GPUACT_LOAD8(GPUACT_T2, aux + aux_off + r * ld_aux * SZ(GPUACT_T2), c0, cols, vec_ok, s);
        for (int k = 0; k < GPUACT_VEC; k++) {
            const float g = TOF(GPUACT_T0)(dy[k]);
            const float gs = (flags & GPUACT_F_SCALE) ? g * scale : g;
            const int pass = from_mask ? (int)((bits >> k) & 1u)
                                       : gpuact_passes(kind, TOF(GPUACT_T2)(s[k]), ceiling);
            if (pass)
                dx[k] = (flags & GPUACT_F_RAW) && g != g ? dy[k] : FROMF(GPUACT_T1)(gs);
            else
                dx[k] = FROMF(GPUACT_T1)(kind == 1 ? gs * slope : 0.0f);
            if (dbias && c0 + k < cols) acc[k] += TOF(GPUACT_T1)(dx[k]);
        }
        GPUACT_STORE8(GPUACT_T1, dxr, c0, cols, vec_ok, dx);
    }
    if (dbias) {
        __global float *p = (__global float *)(part + part_off) + get_group_id(1) * cols;
        for (int k = 0; k < GPUACT_VEC; k++)
            if (c0 + k < cols) p[c0 + k] = acc[k];
    }
}
