/*
gpuact_smooth_ref.h -- kernels/smooth.h (GELU, SiLU and their derivatives)
compiled for the CPU, so the CPU reference gives the kernels' bits.

The CPU "dialect": GPUACT_FN is static, gpuact_u32 is uint32_t, GPUACT_FMA is
C99's fmaf (correctly rounded in glibc, whether the CPU has an FMA unit or
not) and the bit casts are memcpy. A file that already provides these (for
kernels/act.h, say) defines GPUACT_SMOOTH_CPU_HOOKS before including this
one, and its definitions are used.

Requirements for identical bits (checked where the compiler tells):
  - float arithmetic evaluated in float (FLT_EVAL_METHOD 0: x86-64/SSE,
    AArch64; not the x87), as every operation's result must be rounded to
    single precision;
  - no contraction of a * b + c into an fma: build with -ffp-contract=off
    (GCC ignores the STDC pragma below, and contracts by default in its GNU
    modes; -std=c99 alone also turns it off).
*/
#ifndef GPUACT_SMOOTH_REF_H
#define GPUACT_SMOOTH_REF_H

#if !defined(__GNUC__) || defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "gpuact_smooth_ref.h needs float arithmetic evaluated in float (FLT_EVAL_METHOD 0, e.g. SSE2 rather than x87)"
#endif

#ifndef GPUACT_SMOOTH_CPU_HOOKS
#define GPUACT_SMOOTH_CPU_HOOKS 1
#if defined(__GNUC__)
#define GPUACT_FN static __attribute__((unused))
#else
#define GPUACT_FN static
#endif
typedef uint32_t gpuact_u32;
#define GPUACT_CONST_DEF static const
#define GPUACT_CONST_PTR const
#define GPUACT_TAB_P
#define GPUACT_TAB_A
#define GPUACT_TABS gpuact_sm_dtabs
#define GPUACT_FMA(a, b, c) fmaf((a), (b), (c))
GPUACT_FN float gpuact_as_f32(gpuact_u32 u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
GPUACT_FN gpuact_u32 gpuact_as_u32(float f) {
    gpuact_u32 u;
    memcpy(&u, &f, sizeof u);
    return u;
}
#endif

#include "../kernels/smooth.h"

#endif
