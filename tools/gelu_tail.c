/* Answers where PyTorch's f32 GELU formula and an accurate GELU part ways,
   on the CPU: torch computes 0.5f * x * (1 + erff(x / sqrt 2)) in f32, which cancels
   for x below about -3 and is exactly -0 once erff rounds to -1 (x below
   about -5.5); the accurate value there is about -1e-7 .. -1e-300. The
   distance in ulps (order keys of the float bits, -0 == +0) between -0 and
   such a value is the ~8.7e8 that the comparison against torch reports for
   erf-GELU and GeGLU in f32 (docs/NUMERICS.md). glibc's erff stands in for
   CUDA's; both are accurate to a few ulps.

       cc -O1 tools/gelu_tail.c -o gelu_tail -lm && ./gelu_tail */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t order_key(float f) {
    int32_t b;
    memcpy(&b, &f, sizeof b);
    return b < 0 ? -(int64_t)(b & 0x7fffffff) : b;
}

int main(void) {
    int64_t worst = 0;
    float worst_x = 0.0f, worst_t = 0.0f, worst_a = 0.0f, first_zero = 0.0f;
    for (float x = -3.0f; x > -9.0f; x = nextafterf(x, -10.0f)) {
        const float t = 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); /* torch's formula, f32 */
        const float a = (float)(0.5 * (double)x * erfc(-(double)x / sqrt(2.0))); /* x * Phi(x), no cancellation */
        const int64_t d = llabs(order_key(t) - order_key(a));
        if (t == 0.0f && first_zero == 0.0f) first_zero = x;
        if (d > worst) worst = d, worst_x = x, worst_t = t, worst_a = a;
    }
    printf("torch's f32 formula is first 0 at x = %.9g\n", first_zero);
    printf("largest distance %lld ulps at x = %.9g: formula %.9g, accurate %.9g (absolute %.3g)\n", (long long)worst,
           worst_x, worst_t, worst_a, fabs((double)worst_t - worst_a));
    return 0;
}
