/* kernels/smooth.h compiled for the CPU: the dialect hooks it needs, then
   the same source the kernels use, so the CPU reference gives the kernels'
   bits (the accuracy of that math is checked against libm separately). */
#ifndef GPUACT_SMOOTH_REF_H
#define GPUACT_SMOOTH_REF_H
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef GPUACT_FN
#if defined(__GNUC__)
#define GPUACT_FN static __attribute__((unused))
#else
#define GPUACT_FN static
#endif
typedef uint32_t gpuact_u32;
#endif
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
#include "../kernels/smooth.h"
#endif
