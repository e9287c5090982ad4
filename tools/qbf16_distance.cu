/* How far the quick 16-bit forwards (kernels/smooth.h, gpuact_*_qbf16) lie from the lean
   functions (gpuact_*_16) over every bf16 input, and whether any kept value rounds to bf16
   differently from the lean or the precise function's value: what lets GELU and tanh-GELU keep
   every quick value of their range, and SiLU's margin d; then the f16 inputs at which GELU's and
   tanh-GELU's quick values round differently from the lean ones (docs/NUMERICS_SMOOTH.md: the
   counted list; exit status 1 past the bound given there); and how far the gated backward's quick
   act and act' (gpuact_*_glu_qbf16) lie from the lean ones (exit status 1 past smooth.h's
   GPUACT_QGLU_* bounds); and the bf16 epilogue's quick act over every f32 z of its range (exit
   status 1 past GPUACT_QEPI_ULPS_* or at a kept product rounding differently). Needs an NVIDIA GPU:
       nvcc -O2 -arch=sm_90 --fmad=false -Ikernels tools/qbf16_distance.cu -o build/qbf16_distance
       build/qbf16_distance */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "cuda/dialect.cuh"
#include "smooth.h"
#include "contract.h"
#include "act.h"

__global__ void distance(int kind, float hi, int *dist, unsigned long long *kept, unsigned long long *differ) {
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= 65536) return;
    const float x = __uint_as_float(b << 16), y = fabsf(x);
    int ok;
    const float q = kind == 0 ? gpuact_gelu_erf_qbf16(x, &ok) : kind == 1 ? gpuact_gelu_tanh_qbf16(x, &ok)
                                                                          : gpuact_silu_qbf16(x, &ok);
    const float l = kind == 0 ? gpuact_gelu_erf_16(x) : kind == 1 ? gpuact_gelu_tanh_16(x) : gpuact_silu_16(x);
    const float p = kind == 0 ? gpuact_gelu_erf(x) : kind == 1 ? gpuact_gelu_tanh(x) : gpuact_silu(x);
    if (y >= 2.44140625e-04f && y <= hi) /* the quick range: same sign, so the bit distance is in ulps */
        atomicMax(dist, abs((int)(__float_as_uint(q) & 0x7fffffffu) - (int)(__float_as_uint(l) & 0x7fffffffu)));
    if (ok) {
        atomicAdd(kept, 1ull);
        const unsigned short b = __bfloat16_as_ushort(__float2bfloat16_rn(q));
        if (b != __bfloat16_as_ushort(__float2bfloat16_rn(l)) || b != __bfloat16_as_ushort(__float2bfloat16_rn(p)))
            atomicAdd(differ, 1ull);
    }
}

/* every f16 input of GELU's (kind 0) or tanh-GELU's (1) quick range */
__global__ void differ16(int kind, unsigned long long *count, unsigned *first) {
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= 65536) return;
    const float x = __half2float(__ushort_as_half((unsigned short)b));
    int ok;
    const float q = kind == 0 ? gpuact_gelu_erf_qbf16(x, &ok) : gpuact_gelu_tanh_qbf16(x, &ok);
    const float l = kind == 0 ? gpuact_gelu_erf_16(x) : gpuact_gelu_tanh_16(x);
    if (ok && __half_as_ushort(__float2half_rn(q)) != __half_as_ushort(__float2half_rn(l))) {
        const unsigned long long i = atomicAdd(count, 1ull);
        if (i < 32) first[i] = b;
    }
}

/* The gated backward's quick act and act' (gpuact_*_glu_qbf16) against the lean functions over
   every bf16 input of their quick range: act's distance in f32 ulps, act''s absolute distance in
   units of 2^-23 (kind 0 GELU, 1 tanh-GELU, 2 SiLU) */
__global__ void glu_distance(int kind, unsigned *act, float *grad) {
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= 65536) return;
    const float x = __uint_as_float(b << 16);
    float g;
    int ok;
    const float q = kind == 0   ? gpuact_gelu_erf_glu_qbf16(x, &g, &ok)
                    : kind == 1 ? gpuact_gelu_tanh_glu_qbf16(x, &g, &ok)
                                : gpuact_silu_glu_qbf16(x, &g, &ok);
    const float l = kind == 0 ? gpuact_gelu_erf_16(x) : kind == 1 ? gpuact_gelu_tanh_16(x) : gpuact_silu_16(x);
    const float lg = kind == 0 ? gpuact_gelu_erf_d_16(x) : kind == 1 ? gpuact_gelu_tanh_d_16(x) : gpuact_silu_d_16(x);
    if (!ok) return;
    atomicMax(act, (unsigned)abs((int)(__float_as_uint(q) & 0x7fffffffu) - (int)(__float_as_uint(l) & 0x7fffffffu)));
    atomicMax((int *)grad, __float_as_int(fabsf(g - lg) * 8388608.0f)); /* non-negative floats order as ints */
}

/* The bf16 epilogue's quick act (gpuact_sm_*_qepi, kernels/act.h's gpuact_qbf16_epi) against the
   lean function over every f32 z with |z| <= hi (GPUACT_QEPI_HI_*), both signs (z = x + b need not
   be a bf16 value; kind 1 tanh-GELU, 2 SiLU): the largest distance in f32 ulps, and how many kept
   products with a few scales round to bf16 differently from the lean one's (none may) */
__global__ void epi_distance(int kind, float hi, unsigned *dist, unsigned long long *differ) {
    const unsigned n = __float_as_uint(hi) + 1u; /* the bit patterns of [0, hi] */
    const int k2 = kind == 1 ? GPUACT_KIND_gelu_tanh : GPUACT_KIND_silu;
    static const float scales[5] = {1.0f, 0.5f, 1.2999999523f, -2.7000000477f, 1e-39f};
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < 2u * n; i += gridDim.x * blockDim.x) {
        const float z = __uint_as_float(i % n | (i >= n ? 0x80000000u : 0u));
        const float q = kind == 1 ? gpuact_sm_gelu_tanh_qepi(z) : gpuact_sm_silu_qepi(z);
        const float l = kind == 1 ? gpuact_gelu_tanh_16(z) : gpuact_silu_16(z);
        atomicMax(dist, (unsigned)abs((int)(__float_as_uint(q) & 0x7fffffffu) - (int)(__float_as_uint(l) & 0x7fffffffu)));
        for (int k = 0; k < 5; k++) {
            const float v = k ? q * scales[k] : q;
            if (gpuact_qepi_far(k2, k != 0, z, v) &&
                __bfloat16_as_ushort(__float2bfloat16_rn(v)) !=
                    __bfloat16_as_ushort(__float2bfloat16_rn(k ? l * scales[k] : l)))
                atomicAdd(differ, 1ull);
        }
    }
}

int main() {
    static const char *names[3] = {"gelu", "gelu_tanh", "silu"};
    static const float hi[3] = {4.0f, 8.0f, 16.0f}; /* the functions' quick ranges */
    int *d, hd, status = 0;
    unsigned long long *c, hc[2];
    cudaMalloc(&d, sizeof *d);
    cudaMalloc(&c, 2 * sizeof *c);
    for (int k = 0; k < 3; k++) {
        cudaMemset(d, 0, sizeof *d);
        cudaMemset(c, 0, 2 * sizeof *c);
        distance<<<256, 256>>>(k, hi[k], d, c, c + 1);
        cudaMemcpy(&hd, d, sizeof hd, cudaMemcpyDeviceToHost);
        cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
        printf("%-9s largest distance %d f32 ulps, %llu of 65536 inputs kept, %llu of them rounding differently (lean or precise)\n",
               names[k], hd, hc[0], hc[1]);
        status |= hc[1] != 0;
    }
    for (int k = 0; k < 2; k++) {
        static const unsigned long long bound[2] = {32, 8}; /* docs/NUMERICS_SMOOTH.md */
        unsigned *f, hf[32];
        cudaMalloc(&f, sizeof hf);
        cudaMemset(c, 0, sizeof *c);
        differ16<<<256, 256>>>(k, c, f);
        cudaMemcpy(hc, c, sizeof *c, cudaMemcpyDeviceToHost);
        cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
        printf("%-9s f16: %llu inputs whose quick value rounds differently from the lean one (bound %llu):", names[k], hc[0],
               bound[k]);
        for (unsigned long long i = 0; i < hc[0] && i < 32; i++) printf(" 0x%04x", hf[i]);
        printf("\n");
        status |= hc[0] > bound[k];
        cudaFree(f);
    }
    for (int k = 0; k < 3; k++) {
        const float bound = k == 0 ? GPUACT_QGLU_GRAD_ABS_ERF : GPUACT_QGLU_GRAD_ABS_SIG;
        const unsigned ulps = k == 0   ? GPUACT_QGLU_ACT_ULPS_ERF
                              : k == 1 ? GPUACT_QGLU_ACT_ULPS_TANH
                                       : GPUACT_QGLU_ACT_ULPS_SILU;
        unsigned *m, hm[2];
        float hg;
        cudaMalloc(&m, sizeof hm);
        cudaMemset(m, 0, sizeof hm);
        glu_distance<<<256, 256>>>(k, m, reinterpret_cast<float *>(m + 1));
        cudaMemcpy(hm, m, sizeof hm, cudaMemcpyDeviceToHost);
        memcpy(&hg, &hm[1], sizeof hg);
        printf("%-9s gated backward: act within %u f32 ulps (bound %d), act' within %.2f x 2^-23 (bound %.0f)\n",
               names[k], hm[0], ulps, hg, bound);
        status |= hm[0] > ulps || hg > bound;
        cudaFree(m);
    }
    for (int k = 1; k < 3; k++) {
        const unsigned ulps = k == 1 ? GPUACT_QEPI_ULPS_TANH : GPUACT_QEPI_ULPS_SILU;
        unsigned *m, hm;
        cudaMalloc(&m, sizeof hm);
        cudaMemset(m, 0, sizeof hm);
        cudaMemset(c, 0, sizeof *c);
        epi_distance<<<4096, 256>>>(k, k == 1 ? GPUACT_QEPI_HI_TANH : GPUACT_QEPI_HI_SILU, m, c);
        cudaMemcpy(&hm, m, sizeof hm, cudaMemcpyDeviceToHost);
        cudaMemcpy(hc, c, sizeof *c, cudaMemcpyDeviceToHost);
        printf("%-9s bf16 epilogue: act within %u f32 ulps over every f32 z of the range (bound %u), %llu kept products "
               "rounding differently\n", names[k], hm, ulps, hc[0]);
        status |= hm > ulps || hc[0] != 0;
        cudaFree(m);
    }
    return status;
}
