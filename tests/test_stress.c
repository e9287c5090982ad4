/* test_stress: what real programs do to a library, all at once.

   THREADS threads wait at a barrier and then each, ROUNDS times: create a
   context (AUTO, or $GPUACT_BACKEND: every backend's loader and device
   discovery runs from all threads at the same moment), run the epilogue
   forward, then QUEUES epilogue backwards with dbias, each on a queue of its
   own made for that one call and released right after it (OpenCL; other
   backends use the context's stream). Every other queue is released
   without waiting for its work: the library must never touch a queue after
   the caller let it go (the bias-gradient workspace outlives it). The
   waited-for results are checked against the CPU reference; then the
   context is destroyed with work of released queues possibly in flight.
   Then the same backwards from all threads at once on ONE shared context,
   whose workspace pool is cut to 4 slots here so that calls find every
   slot taken and wait for one. Meant to run under ThreadSanitizer and
   AddressSanitizer too (make sanitize). Ends with `N passed, N failed`. */
#define GPUACT__MAX_WORKSPACES 4
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "gpuact_ref.h"
#include "support/harness.h"

#ifndef THREADS
#define THREADS 16
#endif
#define ROUNDS 3
#define QUEUES 8
#define ROWS 45
#define COLS 131

static pthread_barrier_t start;

typedef struct job { int id, failed, skipped, checked; char why[800]; } job;

/* A short-lived queue of ctx's own cl_context, or NULL (the context's stream). */
static gpuact_stream make_queue(gpuact_context *ctx) {
#ifndef GPUACT_NO_OPENCL
    if (gpuact_context_backend(ctx) == GPUACT_BACKEND_OPENCL) {
        gpuact__opencl *o = GPUACT__CL(ctx);
        gpuact__cl_int e = 0;
        return o->cl.clCreateCommandQueue(o->context, o->device, 0, &e);
    }
#endif
    (void)ctx;
    return NULL;
}
static void release_queue(gpuact_context *ctx, gpuact_stream q) {
#ifndef GPUACT_NO_OPENCL
    if (q) GPUACT__CL(ctx)->cl.clReleaseCommandQueue((gpuact__cl_queue)q);
#endif
    (void)ctx;
    (void)q;
}

static void fail(job *j, const char *what) {
    if (!j->failed)
        snprintf(j->why, sizeof j->why, "thread %d: %.160s: %.300s", j->id, what, gpuact_last_error());
    j->failed = 1;
}

static gpuact_context *shared; /* the second phase's one context */

static void run_round(job *j, int round) {
    const gpuact_dtype dt = round % 2 ? GPUACT_F16 : GPUACT_F32;
    const size_t es = gpuact_dtype_size(dt), n = (size_t)ROWS * COLS;
    unsigned char *hx = (unsigned char *)malloc(n * 4), *hy = (unsigned char *)malloc(n * 4),
                  *hdx = (unsigned char *)malloc(n * 4), *hdb = (unsigned char *)malloc(COLS * 4);
    double sums[COLS], mags[COLS];
    gpuact_context *ctx = NULL;
    gpuact_context_desc desc;
    gpuact_buffer x = {NULL, 0}, y = {NULL, 0}, dx[2] = {{NULL, 0}, {NULL, 0}}, db[2] = {{NULL, 0}, {NULL, 0}};
    gpuact_epilogue_desc f;
    gpuact_epilogue_backward_desc b;
    gpuact_ref_rng rng;
    gpuact_ref_fwd rf;
    gpuact_ref_bwd rb;
    gpuact_result r;
    size_t i;
    int q, k;

    memset(&desc, 0, sizeof desc);
    if (shared) {
        ctx = shared;
        r = GPUACT_SUCCESS;
    } else {
        r = gpuact_context_create(&desc, &ctx);
    }
    if (r == GPUACT_ERROR_BACKEND_UNAVAILABLE) {
        j->skipped = 1;
        snprintf(j->why, sizeof j->why, "%.300s", gpuact_last_error());
        goto done;
    }
    if (r) {
        fail(j, "gpuact_context_create");
        goto done;
    }
    rng.s = 7919u * (unsigned)j->id + (unsigned)round;
    gpuact_ref_fill(&rng, dt, hx, n, 0, 1.0f);
    if (gpuact_buffer_alloc(ctx, n * es, &x) || gpuact_buffer_alloc(ctx, n * es, &y) ||
        gpuact_buffer_alloc(ctx, n * es, &dx[0]) || gpuact_buffer_alloc(ctx, n * es, &dx[1]) ||
        gpuact_buffer_alloc(ctx, COLS * 4, &db[0]) || gpuact_buffer_alloc(ctx, COLS * 4, &db[1]) ||
        gpuact_buffer_write(ctx, x, hx, n * es)) {
        fail(j, "setup");
        goto done;
    }
    memset(&f, 0, sizeof f);
    f.rows = ROWS; f.cols = COLS; f.x_dtype = f.y_dtype = dt; f.x = x; f.y = y;
    if (gpuact_epilogue_forward(ctx, &f, NULL) || gpuact_synchronize(ctx, NULL)) { /* shared: waits for others' work too */
        fail(j, "forward");
        goto done;
    }
    /* reference: y = relu(x); dx = x where y passes; dbias = column sums */
    memset(&rf, 0, sizeof rf);
    rf.rows = ROWS; rf.cols = COLS; rf.ld_x = rf.ld_y = COLS; rf.mask_ld = 8 * ((COLS + 7) / 8);
    rf.x_dtype = rf.y_dtype = rf.bias_dtype = dt; rf.scale = 1.0f; rf.x = hx; rf.y = hy;
    gpuact_ref_forward(&rf);
    memset(&rb, 0, sizeof rb);
    rb.rows = ROWS; rb.cols = COLS; rb.ld_dy = rb.ld_dx = rb.ld_src = COLS;
    rb.dy_dtype = rb.dx_dtype = rb.src_dtype = dt; rb.scale = 1.0f;
    rb.dy = hx; rb.src = hy; rb.dx = hdx; rb.dbias = sums; rb.dbias_abs = mags;
    gpuact_ref_backward(&rb);

    for (q = 0; q < QUEUES && !j->failed; q++) {
        const int waited = q % 2 == 0;
        gpuact_stream s = make_queue(ctx);
        memset(&b, 0, sizeof b);
        b.rows = ROWS; b.cols = COLS; b.dy_dtype = b.dx_dtype = b.y_dtype = dt; b.dbias_dtype = GPUACT_F32;
        b.dy = x; b.y = y; b.dx = dx[!waited]; b.dbias = db[!waited];
        /* a different row count now and then: the workspace grows */
        if (q == 5) b.rows = ROWS - 3;
        if (gpuact_epilogue_backward(ctx, &b, s)) {
            fail(j, "backward with dbias");
        } else if (waited) {
            if (gpuact_synchronize(ctx, s) || gpuact_buffer_read(ctx, hdb, db[0], COLS * 4)) {
                fail(j, "read back");
            } else {
                for (k = 0; k < COLS && !j->failed; k++) {
                    float got;
                    memcpy(&got, hdb + 4 * k, 4);
                    if (!((double)got - sums[k] <= 1e-5 * mags[k] + 1e-30 &&
                          sums[k] - (double)got <= 1e-5 * mags[k] + 1e-30)) {
                        char what[160];
                        snprintf(what, sizeof what, "round %d queue %d: dbias[%d] = %g, want %g", round, q, k,
                                 (double)got, sums[k]);
                        fail(j, what);
                    }
                }
                j->checked++;
            }
        }
        release_queue(ctx, s); /* odd queues: released with their work in flight */
    }
    (void)i;
done:
    if (ctx) {
        gpuact_buffer_free(ctx, x); gpuact_buffer_free(ctx, y);
        for (k = 0; k < 2; k++) { gpuact_buffer_free(ctx, dx[k]); gpuact_buffer_free(ctx, db[k]); }
        if (ctx != shared) gpuact_context_destroy(ctx);
    }
    free(hx); free(hy); free(hdx); free(hdb);
}

static void *worker(void *arg) {
    job *j = (job *)arg;
    int round;
    pthread_barrier_wait(&start);
    for (round = 0; round < ROUNDS && !j->failed && !j->skipped; round++) run_round(j, round);
    return NULL;
}

/* One phase: every thread runs its rounds; returns the failures. */
static int phase(const char *name, int *passed) {
    job jobs[THREADS];
    int i, failed = 0, skipped = 0, checked = 0;
    pthread_barrier_init(&start, NULL, THREADS);
    harness_run_threads(THREADS, worker, jobs, sizeof jobs[0]);
    for (i = 0; i < THREADS; i++) {
        if (jobs[i].failed) printf("FAIL %s: %s\n", name, jobs[i].why);
        failed += jobs[i].failed;
        skipped += jobs[i].skipped;
        checked += jobs[i].checked;
    }
    pthread_barrier_destroy(&start);
    if (skipped == THREADS) {
        printf("SKIP test_stress: %s\n0 passed, 0 failed\n", jobs[0].why);
        exit(0);
    }
    printf("%s: %d threads x %d rounds x %d queues: %d dbias results checked\n", name, THREADS, ROUNDS, QUEUES,
           checked);
    *passed += THREADS - failed - skipped;
    return failed + skipped;
}

int main(void) {
    int passed = 0, failed;
    failed = phase("a context per thread", &passed);
    if (gpuact_context_create(NULL, &shared) != GPUACT_SUCCESS) {
        printf("FAIL shared context: %s\n", gpuact_last_error());
        failed++;
    } else {
        failed += phase("one shared context, 4 workspace slots", &passed);
        gpuact_context_destroy(shared);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
