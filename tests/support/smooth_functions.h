/* kernels/smooth.h's public functions, in one list: smooth_cl_check runs
   each on every OpenCL device against the CPU build bit for bit,
   smooth_rtc_check compiles each with NVRTC and hiprtc. A function that
   smooth.h defines and this list lacks fails smooth_cl_check
   (support_smooth_unlisted). */
#ifndef GPUACT_TEST_SMOOTH_FUNCTIONS_H
#define GPUACT_TEST_SMOOTH_FUNCTIONS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUACT_SMOOTH_FUNCTIONS(X)                                                                      \
    X(gelu_erf) X(gelu_erf_d) X(gelu_tanh) X(gelu_tanh_d) X(silu) X(silu_d)                             \
    X(gelu_erf_16) X(gelu_erf_d_16) X(gelu_tanh_16) X(gelu_tanh_d_16) X(silu_16) X(silu_d_16)            \
    X(gelu_erf_fast) X(gelu_erf_d_fast) X(gelu_tanh_fast) X(gelu_tanh_d_fast) X(silu_fast) X(silu_d_fast)
#define SUPPORT_SMOOTH_NAME_(f) #f,
static const char *const support_smooth_names[] = {GPUACT_SMOOTH_FUNCTIONS(SUPPORT_SMOOTH_NAME_)};
#define SUPPORT_SMOOTH_N ((int)(sizeof support_smooth_names / sizeof support_smooth_names[0]))

/* Whether smooth.h's text defines gpuact_NAME with the table parameter,
   `float gpuact_NAME(float x GPUACT_TAB_P)`, rather than `(float x)`. */
static inline int support_smooth_takes_tab(const char *smooth, const char *name)
{
    char key[96];
    snprintf(key, sizeof key, "float gpuact_%s(float x GPUACT_TAB_P)", name);
    return strstr(smooth, key) != NULL;
}

/* A kernel smooth_all(x, y, n) for the device compilers: y[N * i + f] is
   function f of x[i], its bits as head's as_bits() gives them (malloc'd).
   head: the kernel's signature and the line that loads v from x[i] (and,
   for OpenCL, the tables, GPUACT_CL_TABLES); smooth: smooth.h's text. */
static inline char *support_smooth_kernel(const char *head, const char *as_bits, const char *smooth)
{
    size_t len = strlen(head) + 16, n = 0;
    char *src;
    int f;
    for (f = 0; f < SUPPORT_SMOOTH_N; f++)
        len += strlen(support_smooth_names[f]) + strlen(as_bits) + 64;
    if (!(src = (char *)malloc(len)))
        return NULL;
    n += (size_t)snprintf(src + n, len - n, "%s", head);
    for (f = 0; f < SUPPORT_SMOOTH_N; f++)
        n += (size_t)snprintf(src + n, len - n, "    y[%d * i + %d] = %s(gpuact_%s(v%s));\n", SUPPORT_SMOOTH_N, f, as_bits,
                              support_smooth_names[f],
                              support_smooth_takes_tab(smooth, support_smooth_names[f]) ? " GPUACT_TAB_A" : "");
    snprintf(src + n, len - n, "}\n");
    return src;
}

/* The first function smooth.h's text defines as `float gpuact_NAME(float x)`
   or `(float x GPUACT_TAB_P)` (not a gpuact_sm_ helper) that the list
   lacks, in buf; NULL if none. */
static inline const char *support_smooth_unlisted(const char *smooth, char *buf, size_t size)
{
    static const char key[] = "float gpuact_";
    const char *p = smooth;
    while ((p = strstr(p, key)) != NULL) {
        const char *name = p + sizeof key - 1;
        size_t k = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_");
        int f, listed = 0;
        p = name + k;
        if ((strncmp(p, "(float x)", 9) != 0 && strncmp(p, "(float x GPUACT_TAB_P)", 22) != 0) ||
            strncmp(name, "sm_", 3) == 0)
            continue;
        for (f = 0; f < SUPPORT_SMOOTH_N && !listed; f++)
            listed = strlen(support_smooth_names[f]) == k && strncmp(support_smooth_names[f], name, k) == 0;
        if (!listed) {
            snprintf(buf, size, "gpuact_%.*s", (int)k, name);
            return buf;
        }
    }
    return NULL;
}

#endif
