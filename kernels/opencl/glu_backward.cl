/* Gated backward, one pass: with za = a (+ bias_a), zb = b (+ bias_b) and
   g = dy in f32, da = (g * zb) * act'(za) (ReLU: g * zb where za passes,
   else +0), db = g * act(za), each rounded once. T0 = dy, T1 = a, b, the
   biases, da and db. in = dy, aux = a, aux2 = b, bias / bias2, out = da,
   out2 = db. With GPUACT_DBIAS each row group writes its column sums of da
   to part[group][c] and of db to part[group][cols + c], rows in order. */
#include "common.cl"

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    GPUACT_CL_TABLES(GPUACT_ACT_TABLE(GPUACT_KIND, GPUACT_PRECISE, SZ(GPUACT_T1)) ||
                     GPUACT_GRAD_TABLE(GPUACT_KIND, GPUACT_PRECISE, SZ(GPUACT_T1)));
    const ulong c0 = get_global_id(0) * GPUACT_CL_VEC;
    const int has_bias = flags & GPUACT_F_BIAS;
    int dbias = GPUACT_DBIAS; /* not const: clang warns on `constant && x` */
    const int aligned = layout & GPUACT_LAYOUT_ALIGNED; /* ../contract.h; OpenCL gets no shift */
    const uint n = gpuact_cl_count(c0, cols);
    const int vec_ok = aligned && n == GPUACT_CL_VEC;
    uint ba[GPUACT_CL_VEC], bb[GPUACT_CL_VEC], dy[GPUACT_CL_VEC], a[GPUACT_CL_VEC], b[GPUACT_CL_VEC];
    uint da[GPUACT_CL_VEC], db[GPUACT_CL_VEC];
    float acc_a[GPUACT_CL_VEC], acc_b[GPUACT_CL_VEC];
    if (c0 >= cols) return;
    for (int k = 0; k < GPUACT_CL_VEC; k++) acc_a[k] = acc_b[k] = 0.0f;
    if (has_bias) {
        GPUACT_LOAD8(GPUACT_T1, bias + bias_off, c0, n, vec_ok, ba);
        GPUACT_LOAD8(GPUACT_T1, bias2 + bias2_off, c0, n, vec_ok, bb);
    }
    for (ulong r = get_group_id(1); r < rows; r += get_num_groups(1)) {
        GPUACT_LOAD8(GPUACT_T0, in + in_off + r * ld_in * SZ(GPUACT_T0), c0, n, vec_ok, dy);
        GPUACT_LOAD8(GPUACT_T1, aux + aux_off + r * ld_aux * SZ(GPUACT_T1), c0, n, vec_ok, a);
        GPUACT_LOAD8(GPUACT_T1, aux2 + aux2_off + r * ld_aux2 * SZ(GPUACT_T1), c0, n, vec_ok, b);
        for (int k = 0; k < GPUACT_CL_VEC; k++) {
            float za = gpuact_tof_dt(DT(GPUACT_T1), a[k]), zb = gpuact_tof_dt(DT(GPUACT_T1), b[k]);
            const float g = gpuact_tof_dt(DT(GPUACT_T0), dy[k]);
            if (has_bias) {
                za += gpuact_tof_dt(DT(GPUACT_T1), ba[k]);
                zb += gpuact_tof_dt(DT(GPUACT_T1), bb[k]);
            }
            if (gpuact_kind_select(GPUACT_KIND))
                da[k] = gpuact_passes(GPUACT_KIND, za, 0.0f, 0.0f) ? gpuact_fromf_dt(DT(GPUACT_T1), g * zb) : 0u;
            else
                da[k] = gpuact_fromf_dt(DT(GPUACT_T1), (g * zb) * gpuact_grad(GPUACT_KIND, za, gpuact_eval(SZ(GPUACT_T1), GPUACT_PRECISE) GPUACT_TAB_A));
            db[k] = gpuact_fromf_dt(DT(GPUACT_T1), g * gpuact_act(GPUACT_KIND, za, 0.0f, 0.0f, 0.0f, gpuact_eval(SZ(GPUACT_T1), GPUACT_PRECISE) GPUACT_TAB_A));
            if (dbias && k < (int)n) {
                acc_a[k] += gpuact_tof_dt(DT(GPUACT_T1), da[k]);
                acc_b[k] += gpuact_tof_dt(DT(GPUACT_T1), db[k]);
            }
        }
        GPUACT_STORE8(GPUACT_T1, out + out_off + r * ld_out * SZ(GPUACT_T1), c0, n, vec_ok, da);
        GPUACT_STORE8(GPUACT_T1, out2 + out2_off + r * ld_out2 * SZ(GPUACT_T1), c0, n, vec_ok, db);
    }
    if (dbias) {
        __global float *p = (__global float *)(part + part_off) + get_group_id(1) * 2 * cols;
        for (int k = 0; k < GPUACT_CL_VEC; k++)
            if (k < (int)n) {
                p[c0 + k] = acc_a[k];
                p[cols + c0 + k] = acc_b[k];
            }
    }
}
