/* first_call: wall time of the first ReLU forward in a fresh process, once
   the context exists (the driver's own start-up is not counted): kernel
   build or disk-cache load, module load, launch and completion. Run it
   twice with the same GPUACT_CACHE_DIR: cold, then with the cache warm.

     first_call [cuda|hip|opencl]                                          */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + 1e-6 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    gpuact_context_desc desc;
    gpuact_context *ctx;
    gpuact_buffer x, y;
    float h[1024];
    double t0, t_ctx, t_first, t_second;
    int i;
    memset(&desc, 0, sizeof desc);
    for (i = 1; i <= 3; i++)
        if (argc > 1 && !strcmp(argv[1], gpuact_backend_name((gpuact_backend)i))) desc.backend = (gpuact_backend)i;
    t0 = now_ms();
    if (gpuact_context_create(&desc, &ctx) != GPUACT_SUCCESS) {
        fprintf(stderr, "%s\n", gpuact_last_error());
        return 1;
    }
    t_ctx = now_ms() - t0;
    for (i = 0; i < 1024; i++) h[i] = (float)(i - 512);
    if (gpuact_buffer_alloc(ctx, sizeof h, &x) || gpuact_buffer_alloc(ctx, sizeof h, &y) ||
        gpuact_buffer_write(ctx, x, h, sizeof h) || gpuact_synchronize(ctx, NULL)) {
        fprintf(stderr, "%s\n", gpuact_last_error());
        return 1;
    }
    t0 = now_ms();
    if (gpuact_relu_forward(ctx, GPUACT_F32, 1024, x, y, NULL) || gpuact_synchronize(ctx, NULL)) {
        fprintf(stderr, "%s\n", gpuact_last_error());
        return 1;
    }
    t_first = now_ms() - t0;
    t0 = now_ms();
    if (gpuact_relu_forward(ctx, GPUACT_F32, 1024, x, y, NULL) || gpuact_synchronize(ctx, NULL)) return 1;
    t_second = now_ms() - t0;
    printf("%s: context %.1f ms (not counted); first relu call %.2f ms; second %.3f ms; cache dir \"%s\"\n",
           gpuact_backend_name(gpuact_context_backend(ctx)), t_ctx, t_first, t_second,
           gpuact_context_query_desc(ctx).cache_dir);
    gpuact_context_destroy(ctx);
    return 0;
}
