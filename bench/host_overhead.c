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
#include "host_clock.h"

static gpuact_context *g_ctx;

static int check(gpuact_result r, const char *what) {
    if (r == GPUACT_SUCCESS) return 0;
    printf("%s failed: %s\n", what, gpuact_last_error());
    return 1;
}
static int sync_ctx(void *arg) {
    (void)arg;
    return check(gpuact_synchronize(g_ctx, NULL), "gpuact_synchronize");
}

static gpuact_buffer g_x, g_y, g_dbias;

static int op_extent(void *arg) {
    size_t bytes;
    gpuact_result r = gpuact_testing_buffer_extent(g_ctx, g_x, &bytes);
    (void)arg;
    return check(r == GPUACT_ERROR_NOT_SUPPORTED ? GPUACT_SUCCESS : r, "gpuact_testing_buffer_extent");
}
static int op_copy(void *arg) {
    (void)arg;
    return check(gpuact_testing_copy(g_ctx, NULL, g_y, g_x, 4096), "gpuact_testing_copy");
}
static int op_forward(void *arg) {
    return check(gpuact_forward(g_ctx, (const gpuact_forward_desc *)arg, NULL), "gpuact_forward");
}
static int op_epi_backward(void *arg) {
    return check(gpuact_epilogue_backward(g_ctx, (const gpuact_epilogue_backward_desc *)arg, NULL),
                 "gpuact_epilogue_backward");
}
static double per_call(int (*op)(void *), void *arg, int batches) {
    return host_per_call(op, arg, sync_ctx, NULL, batches);
}

int main(int argc, char **argv) {
    gpuact_context *ctx;
    gpuact_forward_desc f;
    gpuact_epilogue_backward_desc b;
    int batches = argc > 1 ? atoi(argv[1]) : 100;
    size_t bytes;
    void *zeros;
    if (batches < 1) batches = 1;
    if (batches > HOST_MAX_BATCHES) batches = HOST_MAX_BATCHES;
    if (gpuact_context_create(NULL, &ctx)) {
        printf("SKIP: %s\n", gpuact_last_error());
        return 0;
    }
    g_ctx = ctx;
    printf("backend %s: %s; median of %d batches of %d calls\n", gpuact_backend_name(gpuact_context_backend(ctx)),
           gpuact_context_device_name(ctx), batches, HOST_BATCH);
    zeros = calloc(64 * 64, 4);
    if (!zeros || gpuact_buffer_alloc(ctx, 64 * 64 * 4, &g_x) || gpuact_buffer_alloc(ctx, 64 * 64 * 4, &g_y) ||
        gpuact_buffer_alloc(ctx, 64 * 4, &g_dbias) || gpuact_buffer_write(ctx, g_x, zeros, 64 * 64 * 4) ||
        gpuact_buffer_write(ctx, g_y, zeros, 64 * 64 * 4)) {
        printf("setup: %s\n", gpuact_last_error());
        return 1;
    }
    printf("buffer extent query (%s):  %8.3f us\n",
           gpuact_testing_buffer_extent(ctx, g_x, &bytes) == GPUACT_SUCCESS ? "known" : "driver cannot tell",
           per_call(op_extent, NULL, batches));
    printf("device copy of 4 KiB (enqueue):     %8.3f us\n", per_call(op_copy, NULL, batches));
    memset(&f, 0, sizeof f);
    f.n = 1024; f.x = g_x; f.y = g_y;
    printf("forward, 1024 f32 (enqueue):        %8.3f us\n", per_call(op_forward, &f, batches));
    memset(&b, 0, sizeof b);
    b.rows = 64; b.cols = 64; b.dy = g_x; b.dx = g_x; b.y = g_y;
    printf("epilogue backward 64x64 (enqueue):  %8.3f us\n", per_call(op_epi_backward, &b, batches));
    b.dbias = g_dbias;
    printf("  ... with dbias:                   %8.3f us\n", per_call(op_epi_backward, &b, batches));
    gpuact_buffer_free(ctx, g_x);
    gpuact_buffer_free(ctx, g_y);
    gpuact_buffer_free(ctx, g_dbias);
    gpuact_context_destroy(ctx);
    free(zeros);
    return 0;
}
