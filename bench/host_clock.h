/* The host clock of bench/host_overhead.c and bench/launch_floor.c: both
   time calls the same way, so their figures compare. An operation runs in
   batches of HOST_BATCH calls with a synchronization in between (not timed),
   so the driver's launch queue never fills (a full queue makes a
   back-to-back loop measure the device's rate of small kernels instead of
   the host's cost); the result is the median over the batches of the host
   wall-clock time per call, in microseconds. */
#ifndef GPUACT_BENCH_HOST_CLOCK_H
#define GPUACT_BENCH_HOST_CLOCK_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define HOST_BATCH 256
#define HOST_MAX_BATCHES 400

static double host_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int host_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* op(arg) and sync(sync_arg) return 0 on success; a failure ends the
   program (after the caller's op has printed why). batches is clamped to
   1..HOST_MAX_BATCHES; two more batches run first as a warm-up. */
static double host_per_call(int (*op)(void *), void *arg, int (*sync)(void *), void *sync_arg, int batches) {
    static double t[HOST_MAX_BATCHES];
    int b, i;
    if (batches < 1) batches = 1;
    if (batches > HOST_MAX_BATCHES) batches = HOST_MAX_BATCHES;
    for (b = -2; b < batches; b++) {
        double t0 = host_now();
        for (i = 0; i < HOST_BATCH; i++)
            if (op(arg)) exit(1);
        if (b >= 0) t[b] = (host_now() - t0) / HOST_BATCH * 1e6;
        if (sync(sync_arg)) exit(1);
    }
    qsort(t, (size_t)batches, sizeof t[0], host_cmp_double);
    return t[batches / 2];
}
#endif
