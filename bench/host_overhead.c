/* host_overhead: what a call costs on the host, and what its checks add.
   Public API and the documented TESTING entry points only. Times (host wall
   clock, per call) on whatever backend AUTO picks (GPUACT_BACKEND=cuda|hip|
   opencl to choose):
     - one buffer extent query (the check each buffer argument of an
       operation gets; gpuact_testing_buffer_extent),
     - a bare driver enqueue for scale: a 4 KiB device-to-device copy
       (gpuact_testing_copy),
     - gpuact_forward of n = 1024 f32 (two buffers), enqueue only,
     - gpuact_epilogue_backward 64 x 64 from y, without and with dbias, the
       difference being the bias-gradient workspace and its second kernel.
   Enqueue times are taken in batches of BATCH calls with a synchronization
   in between (not timed), so the driver's launch queue never fills: a full
   queue makes a back-to-back loop measure the device's rate of small
   kernels instead of the host's cost. The median of the batches is shown.
   docs/PERFORMANCE.md and docs/RELIABILITY.md quote its output.
   usage: host_overhead [batches] */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include <time.h>

#define BATCH 256
#define MAX_BATCHES 400

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef gpuact_result (*op_fn)(gpuact_context *ctx, void *arg);

/* Median over `batches` batches of BATCH calls of the host time per call (us). */
static double per_call(gpuact_context *ctx, op_fn op, void *arg, int batches) {
    static double t[MAX_BATCHES];
    int b, i;
    for (b = -2; b < batches; b++) { /* two warm-up batches */
        double t0 = now();
        for (i = 0; i < BATCH; i++) {
            gpuact_result r = op(ctx, arg);
            if (r != GPUACT_SUCCESS) {
                printf("failed: %s\n", gpuact_last_error());
                exit(1);
            }
        }
        if (b >= 0) t[b] = (now() - t0) / BATCH * 1e6;
        if (gpuact_synchronize(ctx, NULL) != GPUACT_SUCCESS) {
            printf("synchronize: %s\n", gpuact_last_error());
            exit(1);
        }
    }
    qsort(t, (size_t)batches, sizeof t[0], cmp_double);
    return t[batches / 2];
}

static gpuact_buffer g_x, g_y, g_dbias;

static gpuact_result op_extent(gpuact_context *ctx, void *arg) {
    size_t bytes;
    gpuact_result r = gpuact_testing_buffer_extent(ctx, g_x, &bytes);
    (void)arg;
    return r == GPUACT_ERROR_NOT_SUPPORTED ? GPUACT_SUCCESS : r;
}
static gpuact_result op_copy(gpuact_context *ctx, void *arg) {
    (void)arg;
    return gpuact_testing_copy(ctx, NULL, g_y, g_x, 4096);
}
static gpuact_result op_forward(gpuact_context *ctx, void *arg) {
    return gpuact_forward(ctx, (const gpuact_forward_desc *)arg, NULL);
}
static gpuact_result op_epi_backward(gpuact_context *ctx, void *arg) {
    return gpuact_epilogue_backward(ctx, (const gpuact_epilogue_backward_desc *)arg, NULL);
}

int main(int argc, char **argv) {
    gpuact_context *ctx;
    gpuact_forward_desc f;
    gpuact_epilogue_backward_desc b;
    int batches = argc > 1 ? atoi(argv[1]) : 100;
    size_t bytes;
    void *zeros;
    if (batches < 1) batches = 1;
    if (batches > MAX_BATCHES) batches = MAX_BATCHES;
    if (gpuact_context_create(NULL, &ctx)) {
        printf("SKIP: %s\n", gpuact_last_error());
        return 0;
    }
    printf("backend %s: %s; median of %d batches of %d calls\n", gpuact_backend_name(gpuact_context_backend(ctx)),
           gpuact_context_device_name(ctx), batches, BATCH);
    zeros = calloc(64 * 64, 4);
    if (!zeros || gpuact_buffer_alloc(ctx, 64 * 64 * 4, &g_x) || gpuact_buffer_alloc(ctx, 64 * 64 * 4, &g_y) ||
        gpuact_buffer_alloc(ctx, 64 * 4, &g_dbias) || gpuact_buffer_write(ctx, g_x, zeros, 64 * 64 * 4) ||
        gpuact_buffer_write(ctx, g_y, zeros, 64 * 64 * 4)) {
        printf("setup: %s\n", gpuact_last_error());
        return 1;
    }
    printf("buffer extent query (%s):  %8.3f us\n",
           gpuact_testing_buffer_extent(ctx, g_x, &bytes) == GPUACT_SUCCESS ? "known" : "driver cannot tell",
           per_call(ctx, op_extent, NULL, batches));
    printf("device copy of 4 KiB (enqueue):     %8.3f us\n", per_call(ctx, op_copy, NULL, batches));
    memset(&f, 0, sizeof f);
    f.n = 1024; f.x = g_x; f.y = g_y;
    printf("forward, 1024 f32 (enqueue):        %8.3f us\n", per_call(ctx, op_forward, &f, batches));
    memset(&b, 0, sizeof b);
    b.rows = 64; b.cols = 64; b.dy = g_x; b.dx = g_x; b.y = g_y;
    printf("epilogue backward 64x64 (enqueue):  %8.3f us\n", per_call(ctx, op_epi_backward, &b, batches));
    b.dbias = g_dbias;
    printf("  ... with dbias:                   %8.3f us\n", per_call(ctx, op_epi_backward, &b, batches));
    gpuact_buffer_free(ctx, g_x);
    gpuact_buffer_free(ctx, g_y);
    gpuact_buffer_free(ctx, g_dbias);
    gpuact_context_destroy(ctx);
    free(zeros);
    return 0;
}
