/*
test_fuzz_regressions.c -- the library bugs `make fuzz` found, each as a
small deterministic case against the CPU reference (tests/gpuact_ref.h).
Runs on OpenCL when available, else the first backend that is; with none it
prints SKIP and "0 passed, 0 failed". (The out-of-order queue's bias
gradient, found by the adoption work, is tests/test_adoption.c's.)

1. hardtanh, elementwise, f16 and bf16: a bound that rounds to zero in the
   dtype acted as -0 where it came from a negative bound (lower = -1e-45,
   or ceiling = -1e-45 above lower = -1), so x below the lower bound (above
   the ceiling) gave -0. docs/NUMERICS.md: the elementwise ops round both
   bounds to the dtype first, and a bound of -0 acts as +0; the reference
   gives +0. Found by the fuzzer (seed 21 of its random driver).

    usage: test_fuzz_regressions [-v]
*/
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "gpuact_ref.h"
#include "support/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gpuact_context *ctx;

static void report(int ok, const char *what, const char *why) { harness_report(ok, what, "%s", why); }

static const char *dt_name(gpuact_dtype dt) { return dt == GPUACT_F32 ? "f32" : dt == GPUACT_F16 ? "f16" : "bf16"; }

/* hardtanh forward over x = -4 .. 4 in steps of 1/8 (and +-0), checked
   element by element against the reference. */
static void hardtanh_bound(gpuact_dtype dt, float lower, float ceiling)
{
    enum { N = 67 };
    unsigned char hx[N * 4], hy[N * 4], want[N * 4], nan_any[N];
    gpuact_activation act;
    gpuact_forward_desc d;
    gpuact_buffer x = {NULL, 0}, y = {NULL, 0};
    gpuact_result r;
    char what[160], why[300] = "";
    size_t es = gpuact_dtype_size(dt), i;
    memset(&act, 0, sizeof act);
    act.kind = GPUACT_HARDTANH;
    act.lower = lower;
    act.ceiling = ceiling;
    for (i = 0; i < N - 2; i++)
        gpuact_ref_store(dt, hx, i, -4.0f + 0.125f * (float)i);
    gpuact_ref_store(dt, hx, N - 2, 0.0f);
    gpuact_ref_store(dt, hx, N - 1, -0.0f);
    snprintf(what, sizeof what, "hardtanh %s forward, lower %g, ceiling %g: bounds that round to zero act as +0",
             dt_name(dt), (double)lower, (double)ceiling);
    gpuact_ref_elementwise_forward(act, dt, N, hx, want, NULL, nan_any);
    memset(&d, 0, sizeof d);
    d.act = act;
    d.dtype = dt;
    d.n = N;
    if ((r = gpuact_buffer_alloc(ctx, N * es, &x)) || (r = gpuact_buffer_alloc(ctx, N * es, &y)) ||
        (r = gpuact_buffer_write(ctx, x, hx, N * es))) {
        snprintf(why, sizeof why, "set-up: %.200s", gpuact_last_error());
    } else {
        d.x = x;
        d.y = y;
        if ((r = gpuact_forward(ctx, &d, NULL)) || (r = gpuact_buffer_read(ctx, hy, y, N * es)))
            snprintf(why, sizeof why, "%s: %.200s", gpuact_result_string(r), gpuact_last_error());
        for (i = 0; i < N && !*why; i++) {
            uint32_t g = gpuact_ref_raw(dt, hy, i), w = gpuact_ref_raw(dt, want, i);
            if (!gpuact_ref_same(dt, g, w, nan_any[i]))
                snprintf(why, sizeof why, "x = %g gives 0x%04lx, want 0x%04lx", (double)gpuact_ref_load(dt, hx, i),
                         (unsigned long)g, (unsigned long)w);
        }
    }
    report(!*why, what, why);
    gpuact_buffer_free(ctx, x);
    gpuact_buffer_free(ctx, y);
}

int main(int argc, char **argv)
{
    int k;

    if (!(ctx = harness_open(argc, argv, NULL))) {
        printf("0 passed, 0 failed\n");
        return 0;
    }
    for (k = 0; k < 3; k++) {
        gpuact_dtype dt = (gpuact_dtype)k;
        hardtanh_bound(dt, -1e-45f, 3.0f);       /* lower rounds to -0 in f16 and bf16 */
        hardtanh_bound(dt, -1.0f, -1e-45f);      /* so does the ceiling */
        hardtanh_bound(dt, -2.9e-8f, 0.5f);      /* f16: just under half of its smallest subnormal */
        hardtanh_bound(dt, -0.0f, 0.0f);         /* given as -0 */
    }
    gpuact_context_destroy(ctx);
    return harness_summary();
}
