/* Bias gradient, second pass: dbias[c] = sum over r < rows of part[r][c],
   added in order so the result is the same bits on every run. in = part
   (f32), out = dbias (T1). */
#include "common.cl"

__kernel void GPUACT_NAME(GPUACT_PARAMS) {
    const ulong c = get_global_id(0);
    const __global float *p = (const __global float *)(in + in_off);
    float sum = 0.0f;
    if (c >= cols) return;
    for (ulong r = 0; r < rows; r++) sum += p[r * cols + c];
    ST1(GPUACT_T1)(out + out_off, c, FROMF(GPUACT_T1)(sum));
}
