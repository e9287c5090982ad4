/* test_threads: one context used from several threads at once, as the
   manual allows: every thread runs the same sequence of first-use kernel
   builds (forward, backward with dbias, in different dtypes) on its own
   buffers, so builds, the kernel cache and the bias-gradient workspace are
   hit concurrently; each thread checks its results against the reference.
   All threads use the context's stream (ordered, so sharing its workspace
   is defined). Ends with `N passed, N failed`. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "gpuact_ref.h"
#include "support/harness.h"

#define THREADS 4
#define ROWS 37
#define COLS 301

static gpuact_context *ctx;

typedef struct job { int id, failed; char why[256]; } job;

static void *worker(void *arg) {
    job *j = (job *)arg;
    const gpuact_dtype dts[3] = {GPUACT_F32, GPUACT_F16, GPUACT_BF16};
    int round;
    for (round = 0; round < 6 && !j->failed; round++) {
        const gpuact_dtype dt = dts[(round + j->id) % 3];
        const size_t es = gpuact_dtype_size(dt), n = (size_t)ROWS * COLS;
        unsigned char *hx = (unsigned char *)malloc(n * 4), *hy = (unsigned char *)malloc(n * 4),
                      *want = (unsigned char *)malloc(n * 4), *hdb = (unsigned char *)malloc(COLS * 4),
                      *hdx = (unsigned char *)malloc(n * 4);
        double sums[COLS], mags[COLS];
        gpuact_ref_rng rng;
        gpuact_buffer x, y, db;
        gpuact_epilogue_desc f;
        gpuact_epilogue_backward_desc b;
        gpuact_ref_fwd rf;
        size_t i;
        rng.s = 1000u * (unsigned)j->id + (unsigned)round;
        gpuact_ref_fill(&rng, dt, hx, n, 0, 1.0f);
        memset(&f, 0, sizeof f);
        f.rows = ROWS; f.cols = COLS; f.x_dtype = f.y_dtype = dt;
        memset(&b, 0, sizeof b);
        b.rows = ROWS; b.cols = COLS; b.dy_dtype = b.dx_dtype = b.y_dtype = dt; b.dbias_dtype = GPUACT_F32;
        if (gpuact_buffer_alloc(ctx, n * es, &x) || gpuact_buffer_alloc(ctx, n * es, &y) ||
            gpuact_buffer_alloc(ctx, COLS * 4, &db) || gpuact_buffer_write(ctx, x, hx, n * es)) {
            j->failed = 1;
            snprintf(j->why, sizeof j->why, "setup: %.200s", gpuact_last_error());
            break;
        }
        f.x = x; f.y = y;
        b.dy = x; b.y = y; b.dx = x; b.dbias = db; /* dx in place over dy */
        if (gpuact_epilogue_forward(ctx, &f, NULL) || gpuact_epilogue_backward(ctx, &b, NULL) ||
            gpuact_buffer_read(ctx, hy, y, n * es) || gpuact_buffer_read(ctx, hdx, x, n * es) ||
            gpuact_buffer_read(ctx, hdb, db, COLS * 4)) {
            j->failed = 1;
            snprintf(j->why, sizeof j->why, "run: %.200s", gpuact_last_error());
        }
        memset(&rf, 0, sizeof rf);
        rf.rows = ROWS; rf.cols = COLS; rf.ld_x = rf.ld_y = COLS; rf.mask_ld = 8 * ((COLS + 7) / 8);
        rf.x_dtype = rf.y_dtype = rf.bias_dtype = dt; rf.scale = 1.0f; rf.x = hx; rf.y = want;
        gpuact_ref_forward(&rf);
        for (i = 0; i < n && !j->failed; i++)
            if (gpuact_ref_raw(dt, hy, i) != gpuact_ref_raw(dt, want, i)) {
                j->failed = 1;
                snprintf(j->why, sizeof j->why, "thread %d round %d: y[%zu] = %x, want %x", j->id, round, i,
                         (unsigned)gpuact_ref_raw(dt, hy, i), (unsigned)gpuact_ref_raw(dt, want, i));
            }
        { /* dbias of dx = x where y passes (relu from y), against f64 sums */
            gpuact_ref_bwd rb;
            memset(&rb, 0, sizeof rb);
            rb.rows = ROWS; rb.cols = COLS; rb.ld_dy = rb.ld_dx = rb.ld_src = COLS;
            rb.dy_dtype = rb.dx_dtype = rb.src_dtype = dt; rb.scale = 1.0f;
            rb.dy = hx; rb.src = want; rb.dx = hy; rb.dbias = sums; rb.dbias_abs = mags;
            gpuact_ref_backward(&rb);
            for (i = 0; i < n && !j->failed; i++) /* dx (in place over dy) against the reference's, in hy */
                if (gpuact_ref_raw(dt, hdx, i) != gpuact_ref_raw(dt, hy, i)) {
                    j->failed = 1;
                    snprintf(j->why, sizeof j->why, "thread %d round %d: dx[%zu] = %x, want %x", j->id, round, i,
                             (unsigned)gpuact_ref_raw(dt, hdx, i), (unsigned)gpuact_ref_raw(dt, hy, i));
                }
            for (i = 0; i < COLS && !j->failed; i++) {
                float got;
                memcpy(&got, hdb + 4 * i, 4);
                if (!((double)got - sums[i] <= 1e-5 * mags[i] + 1e-30 && sums[i] - (double)got <= 1e-5 * mags[i] + 1e-30)) {
                    j->failed = 1;
                    snprintf(j->why, sizeof j->why, "thread %d round %d: dbias[%zu] = %g, want %g", j->id, round, i,
                             (double)got, sums[i]);
                }
            }
        }
        gpuact_buffer_free(ctx, x); gpuact_buffer_free(ctx, y); gpuact_buffer_free(ctx, db);
        free(hx); free(hy); free(want); free(hdb); free(hdx);
    }
    return NULL;
}

int main(void) {
    job jobs[THREADS];
    int i, failed = 0;
    if (gpuact_context_create(NULL, &ctx) != GPUACT_SUCCESS) {
        printf("SKIP test_threads: %s\n0 passed, 0 failed\n", gpuact_last_error());
        return 0;
    }
    printf("backend %s: %s, %d threads\n", gpuact_backend_name(gpuact_context_backend(ctx)),
           gpuact_context_device_name(ctx), THREADS);
    harness_run_threads(THREADS, worker, jobs, sizeof jobs[0]);
    for (i = 0; i < THREADS; i++) {
        if (jobs[i].failed) printf("FAIL %s\n", jobs[i].why);
        failed += jobs[i].failed;
    }
    gpuact_context_destroy(ctx);
    printf("%d passed, %d failed\n", THREADS - failed, failed);
    return failed != 0;
}
