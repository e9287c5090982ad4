/* Bias gradient, second pass: dbias[c] = sum over r < rows of part[r][c]
   (in = part, f32, rows ld_in floats apart) in the fixed order of ../contract.h (GPUACT_DBIAS_COLS),
   so the result is the same bits on every run. out = dbias (T1). */
#include "common.cl"

#define GPUACT_DBIAS_SL (GPUACT_BLOCK / GPUACT_DBIAS_COLS)

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    __local float red[GPUACT_DBIAS_SL][GPUACT_DBIAS_COLS];
    const int lane = get_local_id(0) % GPUACT_DBIAS_COLS, slice = get_local_id(0) / GPUACT_DBIAS_COLS;
    const ulong c = get_group_id(0) * GPUACT_DBIAS_COLS + lane;
    const ulong per = (rows + GPUACT_DBIAS_SL - 1) / GPUACT_DBIAS_SL, r0 = slice * per;
    const ulong r1 = r0 + per < rows ? r0 + per : rows;
    const __global float *p = (const __global float *)(in + in_off);
    float sum = 0.0f;
    if (c < cols)
        for (ulong r = r0; r < r1; r++) sum += p[r * ld_in + c];
    red[slice][lane] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slice || c >= cols) return;
    for (int k = 1; k < GPUACT_DBIAS_SL; k++) sum += red[k][lane];
    ST1(GPUACT_T1)(out + out_off, c, gpuact_fromf_dt(DT(GPUACT_T1), sum));
}
