/* relu_family: the gradient bitmask. The forward of leaky and clipped ReLU
   also writes one bit per element ("the gradient passes"), and the backward
   reads those bits instead of the forward's input: 1/32 of the bytes of an
   f32 input. The example checks that both backwards give the same bits. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "example_util.h"

static int run(gpuact_context *ctx, gpuact_activation act, const char *name, size_t n) {
    gpuact_buffer x, y, mask, dy, dx_mask, dx_x;
    float *hx = (float *)example_alloc(n * 4), *hy = (float *)example_alloc(n * 4);
    float *h1 = (float *)example_alloc(n * 4), *h2 = (float *)example_alloc(n * 4);
    gpuact_forward_desc f;
    gpuact_backward_desc b;
    size_t i, bad = 0;
    example_fill(hx, n, -8.0f, 8.0f, 1);
    example_fill(hy, n, -1.0f, 1.0f, 2); /* used as dy */
    CHECK(gpuact_buffer_alloc(ctx, n * 4, &x));
    CHECK(gpuact_buffer_alloc(ctx, n * 4, &y));
    CHECK(gpuact_buffer_alloc(ctx, (n + 7) / 8, &mask));
    CHECK(gpuact_buffer_alloc(ctx, n * 4, &dy));
    CHECK(gpuact_buffer_alloc(ctx, n * 4, &dx_mask));
    CHECK(gpuact_buffer_alloc(ctx, n * 4, &dx_x));
    CHECK(gpuact_buffer_write(ctx, x, hx, n * 4));
    CHECK(gpuact_buffer_write(ctx, dy, hy, n * 4));

    memset(&f, 0, sizeof f);
    f.act = act; f.dtype = GPUACT_F32; f.n = n; f.x = x; f.y = y; f.mask = mask;
    CHECK(gpuact_forward(ctx, &f, NULL));

    memset(&b, 0, sizeof b); /* backward from the mask ... */
    b.act = act; b.dtype = GPUACT_F32; b.n = n; b.dy = dy; b.dx = dx_mask; b.mask = mask;
    CHECK(gpuact_backward(ctx, &b, NULL));
    b.mask.handle = NULL; /* ... and from the forward's input */
    b.x = x; b.dx = dx_x;
    CHECK(gpuact_backward(ctx, &b, NULL));

    CHECK(gpuact_buffer_read(ctx, h1, dx_mask, n * 4));
    CHECK(gpuact_buffer_read(ctx, h2, dx_x, n * 4));
    for (i = 0; i < n; i++) bad += memcmp(&h1[i], &h2[i], 4) != 0;
    printf("%-22s n=%zu: backward from mask %s backward from x (%zu differ)\n", name, n,
           bad ? "DIFFERS FROM" : "equals", bad);
    gpuact_buffer_free(ctx, x); gpuact_buffer_free(ctx, y); gpuact_buffer_free(ctx, mask);
    gpuact_buffer_free(ctx, dy); gpuact_buffer_free(ctx, dx_mask); gpuact_buffer_free(ctx, dx_x);
    free(hx); free(hy); free(h1); free(h2);
    return bad != 0;
}

int main(void) {
    gpuact_context *ctx;
    gpuact_activation leaky = {GPUACT_LEAKY_RELU, 0.01f, 0.0f, 0.0f, 0u}, relu6 = {GPUACT_CLIPPED_RELU, 0.0f, 6.0f, 0.0f, 0u};
    int bad;
    CHECK(gpuact_context_create(NULL, &ctx));
    printf("%s on %s\n", gpuact_backend_name(gpuact_context_backend(ctx)), gpuact_context_device_name(ctx));
    bad = run(ctx, leaky, "leaky_relu(0.01)", 1000003) + run(ctx, relu6, "clipped_relu(6) = relu6", 1000003);
    gpuact_context_destroy(ctx);
    return bad != 0;
}
