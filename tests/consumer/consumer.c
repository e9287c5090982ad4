/* A tiny gpuact consumer, built by tests/consumer/run.sh against an installed
   gpuact (CMake find_package, pkg-config) and a checkout (add_subdirectory),
   as C99 and as C++ (consumer.cpp includes this file). ReLU forward and
   backward on the default backend, checked on the CPU. Exit 0 when right. */
#define GPUACT_IMPLEMENTATION
#include "gpuact.h"

#include <stdio.h>
#include <string.h>

#define N 1000

static int check(gpuact_result r, const char *what) {
    if (r != GPUACT_SUCCESS)
        fprintf(stderr, "consumer: %s: %s\n%s\n", what, gpuact_result_string(r), gpuact_last_error());
    return r == GPUACT_SUCCESS;
}

int main(void) {
    static float x[N], dy[N], y[N], dx[N];
    gpuact_context *ctx = NULL;
    gpuact_buffer bx, by, bdy, bdx;
    int i, bad = 0;
    for (i = 0; i < N; i++) {
        x[i] = (float)(i % 7) - 3.0f; /* -3 .. 3, zero included */
        dy[i] = 0.5f + (float)i;
    }
    if (!check(gpuact_context_create(NULL, &ctx), "gpuact_context_create")) return 1;
    if (!check(gpuact_buffer_alloc(ctx, sizeof x, &bx), "alloc") || !check(gpuact_buffer_alloc(ctx, sizeof x, &by), "alloc") ||
        !check(gpuact_buffer_alloc(ctx, sizeof x, &bdy), "alloc") || !check(gpuact_buffer_alloc(ctx, sizeof x, &bdx), "alloc") ||
        !check(gpuact_buffer_write(ctx, bx, x, sizeof x), "write") || !check(gpuact_buffer_write(ctx, bdy, dy, sizeof dy), "write") ||
        !check(gpuact_relu_forward(ctx, GPUACT_F32, N, bx, by, NULL), "gpuact_relu_forward") ||
        !check(gpuact_relu_backward(ctx, GPUACT_F32, N, bdy, bx, bdx, NULL), "gpuact_relu_backward") ||
        !check(gpuact_synchronize(ctx, NULL), "gpuact_synchronize") ||
        !check(gpuact_buffer_read(ctx, y, by, sizeof y), "read") || !check(gpuact_buffer_read(ctx, dx, bdx, sizeof dx), "read"))
        return 1;
    for (i = 0; i < N; i++)
        if (y[i] != (x[i] > 0 ? x[i] : 0.0f) || dx[i] != (x[i] > 0 ? dy[i] : 0.0f)) bad++;
    printf("consumer (%s, %s, gpuact %s): relu forward + backward, %d of %d elements wrong\n",
#ifdef __cplusplus
           "C++",
#else
           "C",
#endif
           gpuact_backend_name(gpuact_context_backend(ctx)), GPUACT_VERSION_STRING, bad, N);
    gpuact_buffer_free(ctx, bx);
    gpuact_buffer_free(ctx, by);
    gpuact_buffer_free(ctx, bdy);
    gpuact_buffer_free(ctx, bdx);
    gpuact_context_destroy(ctx);
    return bad != 0;
}
