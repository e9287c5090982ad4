/* linear_relu: the workload gpuact grew from. Linear 8192 -> 8192 on a batch
   of 1024 (z = x W^T), then the fused epilogue relu(z + bias), and also
   relu(z) / 2 (scale 0.5). On CUDA the matrix product is cuBLAS, loaded at
   run time by this example only; elsewhere a simple CPU product on a smaller
   default shape. Checked against the CPU on a slice; each stage timed.

     linear_relu [-batch B] [-in K] [-out N]                                 */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "example_util.h"
#include <math.h>

typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const void *, int, const void *, int,
                        const float *, void *, int);

/* cuBLAS via dlopen: NULL when unavailable (then the CPU product is used). */
static void *load_cublas(sgemm_fn *sgemm) {
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
    int (*create)(void **) = NULL;
    void *lib = NULL, *handle = NULL, *p;
    int i;
    for (i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW);
    if (!lib) return NULL;
    p = dlsym(lib, "cublasCreate_v2");
    memcpy(&create, &p, sizeof p);
    p = dlsym(lib, "cublasSgemm_v2");
    memcpy(sgemm, &p, sizeof p);
    if (!create || !*sgemm || create(&handle) != 0) return NULL;
    return handle;
}

static void epilogue(gpuact_context *ctx, size_t rows, size_t cols, gpuact_buffer z, gpuact_buffer bias,
                     float scale, gpuact_buffer y) {
    gpuact_epilogue_desc d;
    memset(&d, 0, sizeof d);
    d.rows = rows; d.cols = cols; d.scale = scale;
    d.x_dtype = d.y_dtype = d.bias_dtype = GPUACT_F32;
    d.x = z; d.bias = bias; d.y = y;
    CHECK(gpuact_epilogue_forward(ctx, &d, NULL));
}

/* out = mean milliseconds of `reps` runs of stmt, synchronizing around them. */
#define TIME_MS(out, reps, stmt)                                \
    do {                                                        \
        int k_;                                                 \
        CHECK(gpuact_synchronize(ctx, NULL));                   \
        t0 = example_now();                                     \
        for (k_ = 0; k_ < (reps); k_++) { stmt; }               \
        CHECK(gpuact_synchronize(ctx, NULL));                   \
        out = (example_now() - t0) * 1e3 / (reps);              \
    } while (0)

int main(int argc, char **argv) {
    size_t B = 1024, K = 8192, N = 8192, r, c, k, bad = 0;
    gpuact_context *ctx;
    gpuact_buffer x, w, z, bias, y1, y2, none = {NULL, 0};
    sgemm_fn sgemm = NULL;
    void *cublas = NULL;
    float *hx, *hw, *hb, *hz, *hy1, *hy2, one = 1.0f, zero = 0.0f;
    double t0, t_gemm, t_bias, t_half, err = 0, ref = 0;
    int a, on_cuda;
    CHECK(gpuact_context_create(NULL, &ctx));
    on_cuda = gpuact_context_backend(ctx) == GPUACT_BACKEND_CUDA;
    if (on_cuda) cublas = load_cublas(&sgemm);
    if (!cublas) B = 64, K = 512, N = 512; /* a CPU product of the full shape would take minutes */
    for (a = 1; a + 1 < argc; a += 2) {
        size_t v = (size_t)strtoull(argv[a + 1], NULL, 10);
        if (!strcmp(argv[a], "-batch")) B = v;
        else if (!strcmp(argv[a], "-in")) K = v;
        else if (!strcmp(argv[a], "-out")) N = v;
    }
    printf("%s on %s: Linear %zu -> %zu, batch %zu, product by %s\n", gpuact_backend_name(gpuact_context_backend(ctx)),
           gpuact_context_device_name(ctx), K, N, B, cublas ? "cuBLAS" : "the CPU");
    hx = (float *)example_alloc(B * K * 4); hw = (float *)example_alloc(N * K * 4);
    hb = (float *)example_alloc(N * 4); hz = (float *)example_alloc(B * N * 4);
    hy1 = (float *)example_alloc(B * N * 4); hy2 = (float *)example_alloc(B * N * 4);
    example_fill(hx, B * K, -1.0f, 1.0f, 7);
    example_fill(hw, N * K, -0.02f, 0.02f, 8);
    example_fill(hb, N, -0.05f, 0.05f, 9);
    CHECK(gpuact_buffer_alloc(ctx, B * K * 4, &x));
    CHECK(gpuact_buffer_alloc(ctx, N * K * 4, &w));
    CHECK(gpuact_buffer_alloc(ctx, B * N * 4, &z));
    CHECK(gpuact_buffer_alloc(ctx, N * 4, &bias));
    CHECK(gpuact_buffer_alloc(ctx, B * N * 4, &y1));
    CHECK(gpuact_buffer_alloc(ctx, B * N * 4, &y2));
    CHECK(gpuact_buffer_write(ctx, x, hx, B * K * 4));
    CHECK(gpuact_buffer_write(ctx, w, hw, N * K * 4));
    CHECK(gpuact_buffer_write(ctx, bias, hb, N * 4));

    if (cublas) { /* row-major z = x W^T is column-major z^T = W^T(op T) x^T */
#define GEMM() sgemm(cublas, 1, 0, (int)N, (int)B, (int)K, &one, w.handle, (int)K, x.handle, (int)K, &zero, \
                     z.handle, (int)N)
        if (GEMM() != 0) { fprintf(stderr, "cublasSgemm failed\n"); return 1; }
        TIME_MS(t_gemm, 10, GEMM());
    } else {
        t0 = example_now();
        for (r = 0; r < B; r++)
            for (c = 0; c < N; c++) {
                float s = 0;
                for (k = 0; k < K; k++) s += hx[r * K + k] * hw[c * K + k];
                hz[r * N + c] = s;
            }
        CHECK(gpuact_buffer_write(ctx, z, hz, B * N * 4));
        t_gemm = (example_now() - t0) * 1e3;
    }
    epilogue(ctx, B, N, z, bias, 1.0f, y1); /* builds the kernels */
    TIME_MS(t_bias, 20, epilogue(ctx, B, N, z, bias, 1.0f, y1));
    TIME_MS(t_half, 20, epilogue(ctx, B, N, z, none, 0.5f, y2));
    CHECK(gpuact_buffer_read(ctx, hz, z, B * N * 4));
    CHECK(gpuact_buffer_read(ctx, hy1, y1, B * N * 4));
    CHECK(gpuact_buffer_read(ctx, hy2, y2, B * N * 4));

    /* The product on a slice of rows, in double; the epilogues everywhere, exactly. */
    for (r = 0; r < B; r += B / 4 ? B / 4 : 1)
        for (c = 0; c < N; c++) {
            double s = 0;
            for (k = 0; k < K; k++) s += (double)hx[r * K + k] * hw[c * K + k];
            err += (s - hz[r * N + c]) * (s - hz[r * N + c]);
            ref += s * s;
        }
    for (r = 0; r < B * N; r++) {
        float zb = hz[r] + hb[r % N], w1 = zb <= 0 ? 0.0f : zb, w2 = hz[r] <= 0 ? 0.0f : hz[r] * 0.5f;
        bad += memcmp(&w1, &hy1[r], 4) != 0 || memcmp(&w2, &hy2[r], 4) != 0;
    }
    printf("matrix product      %9.3f ms%s\n", t_gemm, cublas ? "" : " (CPU, with the upload)");
    printf("relu(z + bias)      %9.3f ms (gpuact epilogue, wall clock incl. launch)\n", t_bias);
    printf("relu(z) / 2         %9.3f ms\n", t_half);
    printf("product rel. error  %.2e on a slice; epilogues: %zu of %zu elements differ from the CPU\n",
           ref > 0 ? sqrt(err / ref) : 0.0, bad, 2 * B * N);
    gpuact_context_destroy(ctx);
    return bad != 0 || !(ref > 0 && sqrt(err / ref) < 1e-4);
}
