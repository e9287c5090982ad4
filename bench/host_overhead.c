/* host_overhead: what the reliability checks cost on the host, per call.
   Times (wall clock, host side, on whatever backend AUTO picks):
     - one buffer extent query (the check each buffer argument gets),
     - one workspace take + give back (event record and device-side wait),
     - gpuact_forward on 256 f32 elements, enqueue only, per call,
     - gpuact_epilogue_backward 64 x 64 with and without dbias, per call.
   docs/RELIABILITY.md quotes its output. usage: host_overhead [calls] */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    gpuact_context *ctx;
    gpuact_buffer x, y, db, part;
    gpuact_forward_desc f;
    gpuact_epilogue_backward_desc b;
    long calls = argc > 1 ? atol(argv[1]) : 20000, i;
    double t0, t;
    size_t bytes;
    int slot;
    if (gpuact_context_create(NULL, &ctx)) {
        printf("SKIP: %s\n", gpuact_last_error());
        return 0;
    }
    printf("backend %s: %s, %ld calls each\n", gpuact_backend_name(gpuact_context_backend(ctx)),
           gpuact_context_device_name(ctx), calls);
    if (gpuact_buffer_alloc(ctx, 64 * 64 * 4, &x) || gpuact_buffer_alloc(ctx, 64 * 64 * 4, &y) ||
        gpuact_buffer_alloc(ctx, 64 * 4, &db)) {
        printf("alloc: %s\n", gpuact_last_error());
        return 1;
    }
    gpuact_buffer_write(ctx, x, calloc(64 * 64, 4), 64 * 64 * 4);

    t0 = now();
    for (i = 0; i < calls * 10; i++) ctx->be->buffer_extent(ctx, x, &bytes);
    t = now() - t0;
    printf("buffer extent query:            %8.3f us\n", 1e6 * t / (double)(calls * 10));

    gpuact_synchronize(ctx, NULL);
    t0 = now();
    for (i = 0; i < calls; i++) {
        if (gpuact__workspace(ctx, ctx->desc.stream, 4096, &part, &slot)) return 1;
        gpuact__workspace_release(ctx, ctx->desc.stream, slot, GPUACT_SUCCESS);
    }
    gpuact_synchronize(ctx, NULL);
    t = now() - t0;
    printf("workspace take + give back:     %8.3f us (%d slot(s))\n", 1e6 * t / (double)calls, ctx->ws_count);

    memset(&f, 0, sizeof f);
    f.n = 256; f.x = x; f.y = y;
    gpuact_forward(ctx, &f, NULL);
    gpuact_synchronize(ctx, NULL);
    t0 = now();
    for (i = 0; i < calls; i++) gpuact_forward(ctx, &f, NULL);
    t = now() - t0;
    gpuact_synchronize(ctx, NULL);
    printf("forward, 256 f32 (enqueue):     %8.3f us\n", 1e6 * t / (double)calls);

    memset(&b, 0, sizeof b);
    b.rows = 64; b.cols = 64; b.dy = x; b.dx = x; b.y = y;
    gpuact_epilogue_backward(ctx, &b, NULL);
    gpuact_synchronize(ctx, NULL);
    t0 = now();
    for (i = 0; i < calls; i++) gpuact_epilogue_backward(ctx, &b, NULL);
    gpuact_synchronize(ctx, NULL);
    t = now() - t0;
    printf("epilogue backward 64x64:        %8.3f us (to completion)\n", 1e6 * t / (double)calls);
    b.dbias = db;
    gpuact_epilogue_backward(ctx, &b, NULL);
    gpuact_synchronize(ctx, NULL);
    t0 = now();
    for (i = 0; i < calls; i++) gpuact_epilogue_backward(ctx, &b, NULL);
    gpuact_synchronize(ctx, NULL);
    t = now() - t0;
    printf("  ... with dbias:               %8.3f us (to completion, %d workspace slot(s))\n",
           1e6 * t / (double)calls, ctx->ws_count);
    gpuact_buffer_free(ctx, x);
    gpuact_buffer_free(ctx, y);
    gpuact_buffer_free(ctx, db);
    gpuact_context_destroy(ctx);
    return 0;
}
