/* relu_demo: the main job. ReLU forward and backward on a large random
   tensor, on the best available backend (CUDA, then HIP, then OpenCL; or
   $GPUACT_BACKEND), every element checked on the CPU, with the bandwidth.

     relu_demo [-n ELEMENTS] [-dtype f32|f16|bf16]                          */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "example_util.h"

/* Element i's raw bits, and whether it is <= 0 (the ReLU test, NaN excluded). */
static uint32_t bits_at(const unsigned char *p, size_t esize, size_t i) {
    uint32_t v = 0;
    if (esize == 4) memcpy(&v, p + 4 * i, 4);
    else { uint16_t h; memcpy(&h, p + 2 * i, 2); v = h; }
    return v;
}
static int at_most_zero(uint32_t b, gpuact_dtype dt) {
    uint32_t sign = dt == GPUACT_F32 ? 0x80000000u : 0x8000u, mag = b & (sign - 1);
    uint32_t inf = dt == GPUACT_F32 ? 0x7f800000u : dt == GPUACT_F16 ? 0x7c00u : 0x7f80u;
    if (mag > inf) return 0; /* NaN: the gradient passes, the value passes through */
    return (b & sign) || mag == 0;
}

int main(int argc, char **argv) {
    size_t n = (size_t)1 << 24, i, esize, bad = 0;
    gpuact_dtype dt = GPUACT_F32;
    gpuact_context *ctx;
    gpuact_buffer x, y, dy, dx;
    unsigned char *hx, *hy, *hdy, *hdx;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    double t0, t_fwd, t_bwd;
    int a;
    for (a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "-n")) n = (size_t)strtoull(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "-dtype")) dt = !strcmp(argv[a + 1], "f16") ? GPUACT_F16
                                                  : !strcmp(argv[a + 1], "bf16") ? GPUACT_BF16 : GPUACT_F32;
    }
    esize = gpuact_dtype_size(dt);
    CHECK(gpuact_context_create(NULL, &ctx));
    printf("backend: %s\ndevice:  %s\ntensor:  %zu elements of %s (%.1f MB)\n",
           gpuact_backend_name(gpuact_context_backend(ctx)), gpuact_context_device_name(ctx), n,
           dt == GPUACT_F32 ? "f32" : dt == GPUACT_F16 ? "f16" : "bf16", (double)(n * esize) / 1e6);

    hx = (unsigned char *)malloc(n * esize);
    hy = (unsigned char *)malloc(n * esize);
    hdy = (unsigned char *)malloc(n * esize);
    hdx = (unsigned char *)malloc(n * esize);
    if (!hx || !hy || !hdy || !hdx) { fprintf(stderr, "out of host memory\n"); return 1; }
    for (i = 0; i < n; i++) { /* random bit patterns of normal numbers of both signs, NaN and -0 now and then */
        uint32_t r, ry;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        r = (uint32_t)s; ry = (uint32_t)(s >> 32);
        if (esize == 4) {
            r = (r & 0x807fffffu) | ((120u + (r >> 23) % 16) << 23);
            if (i % 1000 == 7) r = 0x7fc00123u; /* a NaN with payload */
            if (i % 1000 == 9) r = 0x80000000u; /* -0 */
            ry = (ry & 0x807fffffu) | ((120u + (ry >> 23) % 16) << 23);
            memcpy(hx + 4 * i, &r, 4); memcpy(hdy + 4 * i, &ry, 4);
        } else {
            uint16_t h = (uint16_t)r, hd = (uint16_t)ry;
            h = dt == GPUACT_F16 ? (uint16_t)((h & 0x83ffu) | ((12u + (h >> 10) % 6) << 10))
                                 : (uint16_t)((h & 0x807fu) | ((120u + (h >> 7) % 16) << 7));
            hd = dt == GPUACT_F16 ? (uint16_t)((hd & 0x83ffu) | ((12u + (hd >> 10) % 6) << 10))
                                  : (uint16_t)((hd & 0x807fu) | ((120u + (hd >> 7) % 16) << 7));
            memcpy(hx + 2 * i, &h, 2); memcpy(hdy + 2 * i, &hd, 2);
        }
    }
    CHECK(gpuact_buffer_alloc(ctx, n * esize, &x));
    CHECK(gpuact_buffer_alloc(ctx, n * esize, &y));
    CHECK(gpuact_buffer_alloc(ctx, n * esize, &dy));
    CHECK(gpuact_buffer_alloc(ctx, n * esize, &dx));
    CHECK(gpuact_buffer_write(ctx, x, hx, n * esize));
    CHECK(gpuact_buffer_write(ctx, dy, hdy, n * esize));

    /* First calls build the kernels; time the second. */
    CHECK(gpuact_relu_forward(ctx, dt, n, x, y, NULL));
    CHECK(gpuact_relu_backward(ctx, dt, n, dy, x, dx, NULL));
    CHECK(gpuact_synchronize(ctx, NULL));
    t0 = example_now();
    CHECK(gpuact_relu_forward(ctx, dt, n, x, y, NULL));
    CHECK(gpuact_synchronize(ctx, NULL));
    t_fwd = example_now() - t0;
    t0 = example_now();
    CHECK(gpuact_relu_backward(ctx, dt, n, dy, x, dx, NULL));
    CHECK(gpuact_synchronize(ctx, NULL));
    t_bwd = example_now() - t0;
    CHECK(gpuact_buffer_read(ctx, hy, y, n * esize));
    CHECK(gpuact_buffer_read(ctx, hdx, dx, n * esize));

    /* y = +0 where x <= 0, else x's bits (NaN included); dx = dy where !(x <= 0), else +0. */
    for (i = 0; i < n; i++) {
        uint32_t xb = bits_at(hx, esize, i), neg = (uint32_t)at_most_zero(xb, dt);
        uint32_t want_y = neg ? 0u : xb, want_dx = neg ? 0u : bits_at(hdy, esize, i);
        if (bits_at(hy, esize, i) != want_y || bits_at(hdx, esize, i) != want_dx) {
            if (bad++ < 5)
                printf("MISMATCH at %zu: x=%08x y=%08x (want %08x) dx=%08x (want %08x)\n", i, (unsigned)xb,
                       (unsigned)bits_at(hy, esize, i), (unsigned)want_y, (unsigned)bits_at(hdx, esize, i),
                       (unsigned)want_dx);
        }
    }
    printf("forward:  %8.3f ms  %7.1f GB/s (read + write, wall clock incl. launch)\n", t_fwd * 1e3,
           (double)(2 * n * esize) / t_fwd / 1e9);
    printf("backward: %8.3f ms  %7.1f GB/s\n", t_bwd * 1e3, (double)(3 * n * esize) / t_bwd / 1e9);
    printf("result:   %s (%zu of %zu elements checked against the CPU, bit for bit)\n", bad ? "FAIL" : "PASS", n - bad, n);
    gpuact_buffer_free(ctx, x); gpuact_buffer_free(ctx, y); gpuact_buffer_free(ctx, dy); gpuact_buffer_free(ctx, dx);
    gpuact_context_destroy(ctx);
    free(hx); free(hy); free(hdy); free(hdx);
    return bad != 0;
}
