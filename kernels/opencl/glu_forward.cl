/* Gated forward: y[r][c] = act(a[r][c] (+ bias_a[c])) * (b[r][c] (+ bias_b[c])),
   each sum one f32 addition, one f32 product, y rounded once. T0 = a, b and
   the biases, T1 = y. in = a, aux = b, bias / bias2, out = y. */
#include "common.cl"

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    GPUACT_CL_TABLES(GPUACT_ACT_TABLE(GPUACT_KIND, GPUACT_PRECISE, SZ(GPUACT_T1)));
    const ulong c0 = get_global_id(0) * GPUACT_CL_VEC;
    const int has_bias = flags & GPUACT_F_BIAS;
    const int aligned = layout & GPUACT_LAYOUT_ALIGNED; /* ../contract.h; OpenCL gets no shift */
    const uint n = gpuact_cl_count(c0, cols);
    const int vec_ok = aligned && n == GPUACT_CL_VEC;
    uint ba[GPUACT_CL_VEC], bb[GPUACT_CL_VEC], a[GPUACT_CL_VEC], b[GPUACT_CL_VEC], y[GPUACT_CL_VEC];
    if (c0 >= cols) return;
    if (has_bias) {
        GPUACT_LOAD8(GPUACT_T0, bias + bias_off, c0, n, vec_ok, ba);
        GPUACT_LOAD8(GPUACT_T0, bias2 + bias2_off, c0, n, vec_ok, bb);
    }
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        GPUACT_LOAD8(GPUACT_T0, in + in_off + r * ld_in * SZ(GPUACT_T0), c0, n, vec_ok, a);
        GPUACT_LOAD8(GPUACT_T0, aux + aux_off + r * ld_aux * SZ(GPUACT_T0), c0, n, vec_ok, b);
        for (int k = 0; k < GPUACT_CL_VEC; k++) {
            float za = gpuact_tof_dt(DT(GPUACT_T0), a[k]), zb = gpuact_tof_dt(DT(GPUACT_T0), b[k]);
            if (has_bias) {
                za += gpuact_tof_dt(DT(GPUACT_T0), ba[k]);
                zb += gpuact_tof_dt(DT(GPUACT_T0), bb[k]);
            }
            y[k] = gpuact_fromf_dt(DT(GPUACT_T1), gpuact_act(GPUACT_KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(SZ(GPUACT_T1), GPUACT_PRECISE) GPUACT_TAB_A) * zb);
        }
        GPUACT_STORE8(GPUACT_T1, out + out_off + r * ld_out * SZ(GPUACT_T1), c0, n, vec_ok, y);
    }
}
