/* Smooth activations (GELU, SiLU): PLACEHOLDER formulas with the final
   interface, replaced by gpuact's own accurate math. Valid C99, CUDA/HIP
   C++ and OpenCL C; the dialect defines GPUACT_FN, gpuact_u32,
   GPUACT_FMA(a, b, c), gpuact_as_f32(u) and gpuact_as_u32(f). */
#ifndef GPUACT_SMOOTH_H
#define GPUACT_SMOOTH_H

/* e^x for finite or infinite x (placeholder accuracy). */
GPUACT_FN float gpuact_exp_(float x) {
    float k, r, p;
    int ki;
    if (!(x < 88.7f)) return x != x ? x : gpuact_as_f32(0x7f800000u);
    if (x < -103.9f) return 0.0f;
    k = (float)(int)(x * 1.44269504f + (x < 0.0f ? -0.5f : 0.5f));
    r = GPUACT_FMA(k, -0.693145752f, x);
    r = GPUACT_FMA(k, -1.42860677e-6f, r);
    p = GPUACT_FMA(r, 1.0f / 720.0f, 1.0f / 120.0f);
    p = GPUACT_FMA(p, r, 1.0f / 24.0f);
    p = GPUACT_FMA(p, r, 1.0f / 6.0f);
    p = GPUACT_FMA(p, r, 0.5f);
    p = GPUACT_FMA(p, r, 1.0f);
    p = GPUACT_FMA(p, r, 1.0f);
    ki = (int)k;
    if (ki < -100) return p * gpuact_as_f32((gpuact_u32)(ki + 100 + 127) << 23) * gpuact_as_f32(0x0d800000u);
    if (ki > 127) return p * gpuact_as_f32((gpuact_u32)(ki - 1 + 127) << 23) * 2.0f;
    return p * gpuact_as_f32((gpuact_u32)(ki + 127) << 23);
}
GPUACT_FN float gpuact_sigmoid_(float t) { return 1.0f / (1.0f + gpuact_exp_(-t)); }

GPUACT_FN float gpuact_silu(float x) { return x * gpuact_sigmoid_(x); }
GPUACT_FN float gpuact_silu_d(float x) {
    const float s = gpuact_sigmoid_(x);
    return s * (1.0f + x * (1.0f - s));
}
GPUACT_FN float gpuact_gelu_erf(float x) { return x * gpuact_sigmoid_(1.702f * x); }
GPUACT_FN float gpuact_gelu_erf_d(float x) {
    const float s = gpuact_sigmoid_(1.702f * x);
    return s * (1.0f + 1.702f * x * (1.0f - s));
}
GPUACT_FN float gpuact_gelu_tanh(float x) {
    return x * gpuact_sigmoid_(1.59576912f * (x + 0.044715f * x * x * x));
}
GPUACT_FN float gpuact_gelu_tanh_d(float x) {
    const float u = 1.59576912f * (x + 0.044715f * x * x * x), s = gpuact_sigmoid_(u);
    return s * (1.0f + x * (1.0f - s) * 1.59576912f * (1.0f + 0.134145f * x * x));
}
#endif
