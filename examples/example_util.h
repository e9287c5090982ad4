/* Shared by the examples: a checked-call macro and a random fill. */
#ifndef GPUACT_EXAMPLE_UTIL_H
#define GPUACT_EXAMPLE_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__GNUC__)
#define EXAMPLE_FN static __attribute__((unused))
#else
#define EXAMPLE_FN static
#endif

#define CHECK(call)                                                                                      \
    do {                                                                                                 \
        gpuact_result r_ = (call);                                                                       \
        if (r_ != GPUACT_SUCCESS) {                                                                      \
            fprintf(stderr, "%s failed: %s\n%s\n", #call, gpuact_result_string(r_), gpuact_last_error()); \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

EXAMPLE_FN double example_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Uniform floats in [lo, hi), never exactly zero. */
EXAMPLE_FN void example_fill(float *p, size_t n, float lo, float hi, unsigned long long seed) {
    size_t i;
    for (i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = lo + (hi - lo) * (float)((seed >> 40) + 1) / 16777218.0f;
    }
}

EXAMPLE_FN void *example_alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}
#endif
