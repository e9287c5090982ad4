/* epilogue: the fused step after a matrix product, y = relu(x + bias) * scale
   on a rows x cols matrix in one pass, with its mask; then the backward
   dx = dy * scale where the mask is set, and the bias gradient
   dbias[c] = sum over rows of dx[r][c], deterministic run to run. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "example_util.h"

int main(void) {
    const size_t rows = 1000, cols = 333, ld = 336; /* ld > cols: padded rows, as GEMMs often leave them */
    gpuact_context *ctx;
    gpuact_buffer x, bias, y, mask, dy, dx, dbias;
    float *hx = (float *)example_alloc(rows * ld * 4), *hb = (float *)example_alloc(cols * 4);
    float *hdy = (float *)example_alloc(rows * ld * 4), *hdx = (float *)example_alloc(rows * ld * 4);
    float *hdb = (float *)example_alloc(cols * 4), *hdb2 = (float *)example_alloc(cols * 4);
    gpuact_epilogue_desc f;
    gpuact_epilogue_backward_desc b;
    double worst = 0;
    size_t r, c;
    int again;
    CHECK(gpuact_context_create(NULL, &ctx));
    printf("%s on %s: %zux%zu, ld %zu\n", gpuact_backend_name(gpuact_context_backend(ctx)),
           gpuact_context_device_name(ctx), rows, cols, ld);
    example_fill(hx, rows * ld, -2.0f, 2.0f, 3);
    example_fill(hb, cols, -0.5f, 0.5f, 4);
    example_fill(hdy, rows * ld, -1.0f, 1.0f, 5);
    CHECK(gpuact_buffer_alloc(ctx, rows * ld * 4, &x));
    CHECK(gpuact_buffer_alloc(ctx, cols * 4, &bias));
    CHECK(gpuact_buffer_alloc(ctx, rows * ld * 4, &y));
    CHECK(gpuact_buffer_alloc(ctx, rows * 48, &mask)); /* default mask_ld: cols rounded up to 128 bits */
    CHECK(gpuact_buffer_alloc(ctx, rows * ld * 4, &dy));
    CHECK(gpuact_buffer_alloc(ctx, rows * ld * 4, &dx));
    CHECK(gpuact_buffer_alloc(ctx, cols * 4, &dbias));
    CHECK(gpuact_buffer_write(ctx, x, hx, rows * ld * 4));
    CHECK(gpuact_buffer_write(ctx, bias, hb, cols * 4));
    CHECK(gpuact_buffer_write(ctx, dy, hdy, rows * ld * 4));

    memset(&f, 0, sizeof f);
    f.rows = rows; f.cols = cols; f.ld_x = f.ld_y = ld; f.scale = 0.5f;
    f.x_dtype = f.y_dtype = f.bias_dtype = GPUACT_F32;
    f.x = x; f.bias = bias; f.y = y; f.mask = mask;
    CHECK(gpuact_epilogue_forward(ctx, &f, NULL));

    memset(&b, 0, sizeof b);
    b.rows = rows; b.cols = cols; b.ld_dy = b.ld_dx = ld; b.scale = 0.5f;
    b.dy_dtype = b.dx_dtype = b.dbias_dtype = GPUACT_F32;
    b.dy = dy; b.dx = dx; b.mask = mask; b.dbias = dbias;
    CHECK(gpuact_epilogue_backward(ctx, &b, NULL));
    CHECK(gpuact_buffer_read(ctx, hdx, dx, rows * ld * 4));
    CHECK(gpuact_buffer_read(ctx, hdb, dbias, cols * 4));
    CHECK(gpuact_epilogue_backward(ctx, &b, NULL)); /* again: the same bits */
    CHECK(gpuact_buffer_read(ctx, hdb2, dbias, cols * 4));
    again = memcmp(hdb, hdb2, cols * 4) == 0;

    for (c = 0; c < cols; c++) { /* dbias against a double sum of the dx the device wrote */
        double s = 0, mag = 0;
        for (r = 0; r < rows; r++) {
            float z = hx[r * ld + c] + hb[c], want = z > 0 ? hdy[r * ld + c] * 0.5f : 0.0f;
            if (memcmp(&want, &hdx[r * ld + c], 4) != 0) {
                printf("dx[%zu][%zu] = %g, want %g\n", r, c, (double)hdx[r * ld + c], (double)want);
                return 1;
            }
            s += want;
            mag += want < 0 ? -want : want;
        }
        if (mag > 0 && (s - hdb[c] < 0 ? hdb[c] - s : s - hdb[c]) / mag > worst)
            worst = (s - hdb[c] < 0 ? hdb[c] - s : s - hdb[c]) / mag;
    }
    printf("dx exact; dbias relative error %.2e (limit 1e-5); repeated run %s\n", worst,
           again ? "bit-identical" : "DIFFERENT");
    gpuact_context_destroy(ctx);
    return !(worst <= 1e-5 && again);
}
