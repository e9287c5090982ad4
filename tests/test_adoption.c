/*
test_adoption.c -- gpuact on contexts, devices and queues the caller made.

What the manual promises (gpuact.h, BUFFERS AND STREAMS) and this checks:
  "CUDA works on the device's primary context by default (the one the CUDA
   runtime and PyTorch use); desc.native_context adopts a CUcontext
   instead. OpenCL can adopt the caller's cl_context + cl_device_id (+ queue
   as desc.stream)", and backends/gpuact_cudalike.h: every call makes the
   context current and restores the previous one, so the caller's own CUDA
   code is not disturbed.

(a) CUDA, a context that is not the primary one (cuCtxCreate through the
    driver library, loaded with dlopen as gpuact loads it): adopted through
    desc.native_context; the primary context is not activated by it;
    gpuact's allocations belong to it; forward, backward, epilogue forward
    and epilogue backward with dbias, on gpuact's buffers and on the
    caller's (cuMemAlloc), on the default stream and on a stream of the
    caller's, with the adopted context, no context and the primary context
    current on the calling thread (each left current afterwards); a second
    gpuact context on the same CUcontext, destroyed while the first is in
    use; the CUcontext still usable after gpuact_context_destroy. Then, each
    in a child process (a driver fault may poison a context for good), a
    buffer of the primary context given to the adopted one, the reverse,
    and (two devices) device 1's buffer on device 0: the manual does not
    refuse another context's pointer (RELIABILITY.md, "Not validated"), so
    the child reports what happened; the test fails only on a crash or a
    silently wrong result.
(b) CUDA, devices 0 and 1 from two threads at once, each thread with its own
    gpuact context (the device's primary context, then a cuCtxCreate'd one
    adopted), three rounds of the same operations, checked; every
    allocation on the thread's device. SKIP with fewer than 2 devices.
(c) OpenCL, the caller's cl_context + cl_device_id + cl_command_queue: the
    query returns them; gpuact's allocations belong to that cl_context and
    the caller's own cl_mem work; the operations run in order on the
    caller's queue (the caller reads the results with its own blocking read,
    no gpuact_synchronize), on a second queue of the caller's and on an
    out-of-order queue of the caller's (20 bias gradients in a row, each
    right: the regression test of the missing order between the partial
    sums and their sum); a cl_mem of another cl_context is refused with
    nothing written; native_context without native_device is refused;
    adoption without a queue makes one on that cl_context; destroying the
    gpuact context leaves the reference counts of the caller's context and
    queue as they were before it was created. In a child: desc.backend AUTO
    with a cl_context as native_context and its native_device (the manual:
    that picks OpenCL) must not crash or build a context of another backend
    on it. Runs on PoCL too.

Every operation's buffers sit at an offset inside a larger allocation whose
other bytes are canaries; results are compared with tests/gpuact_ref.h as
the conformance suite does (bit for bit, any NaN where the reference says
so, dbias within 1e-5 of sum |dx| and bit-identical when repeated).

    usage: test_adoption [-v]
    GPUACT_CUDA_LIBRARY / GPUACT_OPENCL_LIBRARY are honoured as by gpuact.

A part without its device prints SKIP; the last line is "N passed, N
failed"; the exit status is 0 when nothing failed (also when all skipped).
*/
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "gpuact_ref.h"
#include "support/harness.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>

/* >>guarded buffers: data at an offset inside an allocation of canaries */

#define GUARD 64
#define CANARY 0x5Cu
#define POISON 0xA5u

typedef int (*alloc_fn)(void *user, size_t bytes, gpuact_buffer *out);
typedef void (*free_fn)(void *user, gpuact_buffer b);

/* Where the operations run: the context, the stream each call gets, who
   allocates, and a check after each call (the CUDA context current on the
   thread must be the one the caller had). */
typedef struct place {
    const char *label;
    gpuact_context *ctx;
    gpuact_stream stream;
    alloc_fn alloc;      /* NULL: gpuact_buffer_alloc */
    free_fn release;
    void *user;
    int (*after)(void *user, char *why, size_t size);   /* 1: fine */
    void (*settle)(void *user);   /* after uploads: see cuda_settle */
    int failed;
    char why[600];
} place;

static void place_fail(place *p, const char *fmt, ...)
{
    va_list ap;
    if (p->failed++)
        return;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof p->why, fmt, ap);
    va_end(ap);
}

typedef struct gbuf {
    gpuact_buffer whole;
    size_t lead, bytes, total;
    unsigned char *image;     /* the whole allocation as it must be */
} gbuf;

static int gbuf_make(place *p, gbuf *g, size_t bytes, size_t misalign)
{
    gpuact_result r;
    memset(g, 0, sizeof *g);
    g->lead = GUARD + misalign;
    g->bytes = bytes;
    g->total = g->lead + bytes + GUARD;
    g->image = (unsigned char *)malloc(g->total);
    if (!g->image) {
        place_fail(p, "out of host memory");
        return 0;
    }
    memset(g->image, CANARY, g->total);
    memset(g->image + g->lead, POISON, bytes);
    if (p->alloc) {
        if (!p->alloc(p->user, g->total, &g->whole)) {
            place_fail(p, "the caller's allocation of %zu bytes failed", g->total);
            return 0;
        }
    } else if ((r = gpuact_buffer_alloc(p->ctx, g->total, &g->whole)) != GPUACT_SUCCESS) {
        place_fail(p, "gpuact_buffer_alloc: %s: %s", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
        return 0;
    }
    return 1;
}

static void gbuf_free(place *p, gbuf *g)
{
    if (g->whole.handle) {
        if (p->alloc)
            p->release(p->user, g->whole);
        else
            gpuact_buffer_free(p->ctx, g->whole);
    }
    free(g->image);
    memset(g, 0, sizeof *g);
}

static gpuact_buffer at(const gbuf *g)
{
    gpuact_buffer b = g->whole;
    b.offset = g->lead;
    return b;
}

static unsigned char *data(gbuf *g) { return g->image + g->lead; }

static int gbuf_upload(place *p, gbuf *g)
{
    gpuact_result r = gpuact_buffer_write(p->ctx, g->whole, g->image, g->total);
    if (r != GPUACT_SUCCESS)
        place_fail(p, "gpuact_buffer_write: %s: %s", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
    else if (p->settle)
        p->settle(p->user);
    return r == GPUACT_SUCCESS;
}

static int gbuf_read(place *p, const gbuf *g, unsigned char *got)
{
    gpuact_result r = gpuact_buffer_read(p->ctx, got, g->whole, g->total);
    if (r != GPUACT_SUCCESS)
        place_fail(p, "gpuact_buffer_read: %s: %s", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
    return r == GPUACT_SUCCESS;
}

/* >>comparison, by the rules of tests/support/harness.h */

/* Compares the allocation (read into got) with g->image: bytes outside the
   elements exactly; elements of dt (rows x cols, ld apart, from the data's
   start) with gpuact_ref_same and nan_any; dbias (sums != NULL) with harness_sum_ok. */
static int gbuf_check(place *p, const char *name, gbuf *g, gpuact_dtype dt, size_t rows, size_t cols, size_t ld,
                      const unsigned char *nan_any, const double *sums, const double *sums_abs)
{
    unsigned char *got = (unsigned char *)malloc(g->total);
    size_t es = gpuact_dtype_size(dt), i, r, c;
    int ok = 1;
    if (!got || !gbuf_read(p, g, got)) {
        free(got);
        return 0;
    }
    for (i = 0; i < g->total && ok; i++) {
        int element = 0;
        if (i >= g->lead && i < g->lead + g->bytes && es) {
            size_t q = (i - g->lead) / es;
            r = q / ld;
            c = q % ld;
            element = r < rows && c < cols;
            if (element && (i - g->lead) % es == 0) {
                uint32_t gb = gpuact_ref_raw(dt, got + i, 0), wb = gpuact_ref_raw(dt, g->image + i, 0);
                if (sums) {
                    float v = gpuact_ref_load(dt, got + i, 0);
                    if (!harness_sum_ok(dt, v, sums[c], sums_abs[c], 0)) {
                        place_fail(p, "%s[%zu] = %.9g, want %.17g (sum |dx| %.9g)", name, c, (double)v, sums[c],
                                   sums_abs[c]);
                        ok = 0;
                    }
                } else if (!gpuact_ref_same(dt, gb, wb, nan_any ? nan_any[r * ld + c] : 0)) {
                    place_fail(p, "%s[%zu][%zu] = 0x%lx, want 0x%lx", name, r, c, (unsigned long)gb,
                               (unsigned long)wb);
                    ok = 0;
                }
            }
        }
        if (!element && got[i] != g->image[i]) {
            place_fail(p, "%s: byte %zu of the allocation (data at %zu..%zu) is 0x%02x, want 0x%02x", name, i,
                       g->lead, g->lead + g->bytes, got[i], g->image[i]);
            ok = 0;
        }
    }
    free(got);
    return ok;
}

/* >>the operations, on one place */

static int call_ok(place *p, const char *what, gpuact_result r)
{
    char why[300];
    if (r != GPUACT_SUCCESS) {
        place_fail(p, "%s: %s: %s", what, gpuact_result_string(r), harness_first_line(gpuact_last_error()));
        return 0;
    }
    if (p->after && !p->after(p->user, why, sizeof why)) {
        place_fail(p, "after %s: %s", what, why);
        return 0;
    }
    return 1;
}

static int sync_ok(place *p)
{
    return call_ok(p, "gpuact_synchronize", gpuact_synchronize(p->ctx, p->stream));
}

#define N 1000
#define ROWS 37
#define COLS 131

/* forward with the mask, backward from the mask and from x (elementwise);
   epilogue forward (f16 x, bf16 y, f32 bias, scale 0.5, mask); epilogue
   backward from its mask with f32 dbias, twice. */
static void run_ops(place *p, unsigned long seed)
{
    gpuact_ref_rng rng;
    gbuf x, y, m, dy, dx, ex, ey, eb, em, edy, edx, edb;
    unsigned char *nan_any = (unsigned char *)calloc(ROWS * 136 + N, 1);
    gpuact_activation leaky, clipped;
    double sums[COLS], sums_abs[COLS];
    const size_t mb = (N + 7) / 8, ld_x = 136, mask_ld = 256;
    memset(&leaky, 0, sizeof leaky);
    leaky.kind = GPUACT_LEAKY_RELU;
    leaky.negative_slope = 0.125f;
    memset(&clipped, 0, sizeof clipped);
    clipped.kind = GPUACT_CLIPPED_RELU;
    clipped.ceiling = 6.0f;
    rng.s = seed;
    memset(&x, 0, sizeof x); y = m = dy = dx = ex = ey = eb = em = edy = edx = edb = x;
    if (!nan_any) {
        place_fail(p, "out of host memory");
        return;
    }
    /* elementwise, f32 (leaky) and f16 (clipped) */
    if (!gbuf_make(p, &x, N * 4, 16) || !gbuf_make(p, &y, N * 4, 4) || !gbuf_make(p, &m, mb, 3) ||
        !gbuf_make(p, &dy, N * 4, 0) || !gbuf_make(p, &dx, N * 4, 8))
        goto done;
    gpuact_ref_fill(&rng, GPUACT_F32, data(&x), N, 1, 0.0f);
    gpuact_ref_fill(&rng, GPUACT_F32, data(&dy), N, 1, 1.0f);
    if (!gbuf_upload(p, &x) || !gbuf_upload(p, &y) || !gbuf_upload(p, &m) || !gbuf_upload(p, &dy) ||
        !gbuf_upload(p, &dx))
        goto done;
    {
        gpuact_forward_desc d;
        memset(&d, 0, sizeof d);
        d.act = leaky;
        d.dtype = GPUACT_F32;
        d.n = N;
        d.x = at(&x);
        d.y = at(&y);
        d.mask = at(&m);
        if (!call_ok(p, "gpuact_forward", gpuact_forward(p->ctx, &d, p->stream)))
            goto done;
        gpuact_ref_elementwise_forward(leaky, GPUACT_F32, N, data(&x), data(&y), data(&m), nan_any);
        if (!sync_ok(p) || !gbuf_check(p, "forward y", &y, GPUACT_F32, 1, N, N, nan_any, NULL, NULL) ||
            !gbuf_check(p, "forward mask", &m, GPUACT_F32, 0, 0, 1, NULL, NULL, NULL) ||
            !gbuf_check(p, "forward x (input)", &x, GPUACT_F32, 0, 0, 1, NULL, NULL, NULL))
            goto done;
    }
    {
        gpuact_backward_desc d;
        memset(&d, 0, sizeof d);
        d.act = leaky;
        d.dtype = GPUACT_F32;
        d.n = N;
        d.dy = at(&dy);
        d.dx = at(&dx);
        d.mask = at(&m);
        if (!call_ok(p, "gpuact_backward from the mask", gpuact_backward(p->ctx, &d, p->stream)))
            goto done;
        gpuact_ref_elementwise_backward(leaky, GPUACT_F32, N, data(&dy), NULL, data(&m), data(&dx), nan_any);
        if (!sync_ok(p) || !gbuf_check(p, "backward dx", &dx, GPUACT_F32, 1, N, N, nan_any, NULL, NULL))
            goto done;
    }
    {   /* f16, clipped, from x, in place (dx = dy) */
        gpuact_backward_desc d;
        gpuact_ref_fill(&rng, GPUACT_F16, data(&x), N, 1, 6.0f);
        gpuact_ref_fill(&rng, GPUACT_F16, data(&dy), N, 1, 1.0f);
        if (!gbuf_upload(p, &x) || !gbuf_upload(p, &dy))
            goto done;
        memset(&d, 0, sizeof d);
        d.act = clipped;
        d.dtype = GPUACT_F16;
        d.n = N;
        d.dy = at(&dy);
        d.dx = at(&dy);
        d.x = at(&x);
        if (!call_ok(p, "gpuact_backward f16 from x, in place", gpuact_backward(p->ctx, &d, p->stream)))
            goto done;
        gpuact_ref_elementwise_backward(clipped, GPUACT_F16, N, data(&dy), data(&x), NULL, data(&dy), nan_any);
        if (!sync_ok(p) || !gbuf_check(p, "backward f16 dx=dy", &dy, GPUACT_F16, 1, N, N, nan_any, NULL, NULL))
            goto done;
    }
    /* epilogue */
    if (!gbuf_make(p, &ex, ((ROWS - 1) * ld_x + COLS) * 2, 2) || !gbuf_make(p, &ey, ROWS * COLS * 2, 0) ||
        !gbuf_make(p, &eb, COLS * 4, 4) || !gbuf_make(p, &em, (ROWS - 1) * mask_ld / 8 + (COLS + 7) / 8, 1) ||
        !gbuf_make(p, &edy, ROWS * COLS * 4, 0) || !gbuf_make(p, &edx, ROWS * COLS * 2, 2) ||
        !gbuf_make(p, &edb, COLS * 4, 8))
        goto done;
    gpuact_ref_fill(&rng, GPUACT_F16, data(&ex), (ROWS - 1) * ld_x + COLS, 1, 0.0f);
    gpuact_ref_fill(&rng, GPUACT_F32, data(&eb), COLS, 0, 0.0f);
    gpuact_ref_fill(&rng, GPUACT_F32, data(&edy), ROWS * COLS, 1, 1.0f);
    if (!gbuf_upload(p, &ex) || !gbuf_upload(p, &ey) || !gbuf_upload(p, &eb) || !gbuf_upload(p, &em) ||
        !gbuf_upload(p, &edy) || !gbuf_upload(p, &edx) || !gbuf_upload(p, &edb))
        goto done;
    {
        gpuact_epilogue_desc d;
        gpuact_ref_fwd f;
        memset(&d, 0, sizeof d);
        d.act = leaky;
        d.rows = ROWS;
        d.cols = COLS;
        d.x_dtype = GPUACT_F16;
        d.y_dtype = GPUACT_BF16;
        d.bias_dtype = GPUACT_F32;
        d.ld_x = ld_x;
        d.scale = 0.5f;
        d.x = at(&ex);
        d.y = at(&ey);
        d.bias = at(&eb);
        d.mask = at(&em);
        if (!call_ok(p, "gpuact_epilogue_forward", gpuact_epilogue_forward(p->ctx, &d, p->stream)))
            goto done;
        memset(&f, 0, sizeof f);
        f.act = leaky;
        f.rows = ROWS;
        f.cols = COLS;
        f.ld_x = ld_x;
        f.ld_y = COLS;
        f.mask_ld = mask_ld;
        f.x_dtype = GPUACT_F16;
        f.y_dtype = GPUACT_BF16;
        f.bias_dtype = GPUACT_F32;
        f.scale = 0.5f;
        f.x = data(&ex);
        f.bias = data(&eb);
        f.y = data(&ey);
        f.mask = data(&em);
        f.nan_any = nan_any;
        gpuact_ref_forward(&f);
        if (!sync_ok(p) ||
            !gbuf_check(p, "epilogue y", &ey, GPUACT_BF16, ROWS, COLS, COLS, nan_any, NULL, NULL) ||
            !gbuf_check(p, "epilogue mask", &em, GPUACT_F32, 0, 0, 1, NULL, NULL, NULL))
            goto done;
    }
    {
        gpuact_epilogue_backward_desc d;
        gpuact_ref_bwd b;
        unsigned char first[COLS * 4];
        int k;
        memset(&d, 0, sizeof d);
        d.act = leaky;
        d.rows = ROWS;
        d.cols = COLS;
        d.dy_dtype = GPUACT_F32;
        d.dx_dtype = GPUACT_F16;
        d.dbias_dtype = GPUACT_F32;
        d.scale = 0.5f;
        d.dy = at(&edy);
        d.dx = at(&edx);
        d.mask = at(&em);
        d.dbias = at(&edb);
        memset(&b, 0, sizeof b);
        b.act = leaky;
        b.rows = ROWS;
        b.cols = COLS;
        b.ld_dy = b.ld_dx = b.ld_src = COLS;
        b.mask_ld = mask_ld;
        b.dy_dtype = GPUACT_F32;
        b.dx_dtype = GPUACT_F16;
        b.src_dtype = GPUACT_F16;
        b.scale = 0.5f;
        b.dy = data(&edy);
        b.mask = data(&em);
        b.dx = data(&edx);
        b.dbias = sums;
        b.dbias_abs = sums_abs;
        b.nan_any = nan_any;
        gpuact_ref_backward(&b);
        for (k = 0; k < 2; k++) {
            if (!call_ok(p, "gpuact_epilogue_backward with dbias",
                         gpuact_epilogue_backward(p->ctx, &d, p->stream)) ||
                !sync_ok(p) || !gbuf_check(p, "epilogue dx", &edx, GPUACT_F16, ROWS, COLS, COLS, nan_any, NULL, NULL) ||
                !gbuf_check(p, "epilogue dbias", &edb, GPUACT_F32, 1, COLS, COLS, NULL, sums, sums_abs))
                goto done;
            if (gpuact_buffer_read(p->ctx, k ? data(&edb) : first, at(&edb), sizeof first) != GPUACT_SUCCESS) {
                place_fail(p, "reading dbias: %s", harness_first_line(gpuact_last_error()));
                goto done;
            }
            if (k && memcmp(first, data(&edb), sizeof first) != 0)
                place_fail(p, "dbias differs between two identical calls");
            memset(data(&edb), POISON, sizeof first);
            if (!gbuf_upload(p, &edb))
                goto done;
        }
    }
done:
    gbuf_free(p, &x); gbuf_free(p, &y); gbuf_free(p, &m); gbuf_free(p, &dy); gbuf_free(p, &dx);
    gbuf_free(p, &ex); gbuf_free(p, &ey); gbuf_free(p, &eb); gbuf_free(p, &em); gbuf_free(p, &edy);
    gbuf_free(p, &edx); gbuf_free(p, &edb);
    free(nan_any);
}

/* Epilogue backwards with dbias in a row, each with other data (dy = k
   everywhere, every mask bit set): dbias must be rows * k, exactly. A bias
   gradient summed before its partial rows are written shows the previous
   call's. */
static void dbias_series(place *p, int calls)
{
    enum { R = 300, C = 257, MLD = 320 };
    float *dy = (float *)malloc(sizeof(float) * R * C), db[C];
    unsigned char *mask = (unsigned char *)malloc(R * MLD / 8);
    gpuact_buffer bdy = {NULL, 0}, bdx = {NULL, 0}, bm = {NULL, 0}, bdb = {NULL, 0};
    int k, i;
    if (!dy || !mask || gpuact_buffer_alloc(p->ctx, sizeof(float) * R * C, &bdy) ||
        gpuact_buffer_alloc(p->ctx, sizeof(float) * R * C, &bdx) || gpuact_buffer_alloc(p->ctx, R * MLD / 8, &bm) ||
        gpuact_buffer_alloc(p->ctx, sizeof db, &bdb)) {
        place_fail(p, "set-up: %s", harness_first_line(gpuact_last_error()));
        goto done;
    }
    memset(mask, 0xFF, R * MLD / 8);
    if (gpuact_buffer_write(p->ctx, bm, mask, R * MLD / 8)) {
        place_fail(p, "writing the mask: %s", harness_first_line(gpuact_last_error()));
        goto done;
    }
    for (k = 1; k <= calls && !p->failed; k++) {
        gpuact_epilogue_backward_desc d;
        for (i = 0; i < R * C; i++)
            dy[i] = (float)k;
        if (gpuact_buffer_write(p->ctx, bdy, dy, sizeof(float) * R * C)) {
            place_fail(p, "writing dy: %s", harness_first_line(gpuact_last_error()));
            break;
        }
        memset(&d, 0, sizeof d);
        d.rows = R;
        d.cols = C;
        d.dy = bdy;
        d.dx = bdx;
        d.mask = bm;
        d.mask_ld = MLD;
        d.dbias = bdb;
        if (!call_ok(p, "gpuact_epilogue_backward", gpuact_epilogue_backward(p->ctx, &d, p->stream)) || !sync_ok(p))
            break;
        if (gpuact_buffer_read(p->ctx, db, bdb, sizeof db)) {
            place_fail(p, "reading dbias: %s", harness_first_line(gpuact_last_error()));
            break;
        }
        for (i = 0; i < C; i++)
            if (db[i] != (float)(R * k)) {
                place_fail(p, "call %d: dbias[%d] = %g, want %g", k, i, (double)db[i], (double)(R * k));
                break;
            }
    }
done:
    gpuact_buffer_free(p->ctx, bdy);
    gpuact_buffer_free(p->ctx, bdx);
    gpuact_buffer_free(p->ctx, bm);
    gpuact_buffer_free(p->ctx, bdb);
    free(dy);
    free(mask);
}

/* The same for the glu backward's two bias gradients (ReGLU, a = b = 1,
   dy = k: da = db = k, both sums rows * k exactly). */
static void glu_series(place *p, int calls)
{
    enum { R = 200, C = 129 };
    float *h = (float *)malloc(sizeof(float) * R * C), db[2][C];
    gpuact_buffer bdy = {NULL, 0}, bab = {NULL, 0}, bd = {NULL, 0}, bdb = {NULL, 0};
    int k, i, j;
    if (!h || gpuact_buffer_alloc(p->ctx, sizeof(float) * R * C, &bdy) ||
        gpuact_buffer_alloc(p->ctx, sizeof(float) * R * 2 * C, &bab) ||
        gpuact_buffer_alloc(p->ctx, sizeof(float) * R * 2 * C, &bd) || gpuact_buffer_alloc(p->ctx, sizeof db, &bdb)) {
        place_fail(p, "set-up: %s", harness_first_line(gpuact_last_error()));
        goto done;
    }
    for (i = 0; i < R * C; i++)
        h[i] = 1.0f;
    for (i = 0; i < 2 * R; i++)   /* a and b: the halves of each row of one R x 2C matrix of ones */
        if (gpuact_buffer_write(p->ctx, (gpuact_buffer){bab.handle, (size_t)i * C * 4}, h, C * 4)) {
            place_fail(p, "writing a and b: %s", harness_first_line(gpuact_last_error()));
            goto done;
        }
    for (k = 1; k <= calls && !p->failed; k++) {
        gpuact_glu_backward_desc d;
        for (i = 0; i < R * C; i++)
            h[i] = (float)k;
        if (gpuact_buffer_write(p->ctx, bdy, h, sizeof(float) * R * C)) {
            place_fail(p, "writing dy: %s", harness_first_line(gpuact_last_error()));
            break;
        }
        memset(&d, 0, sizeof d);
        d.rows = R;
        d.cols = C;
        d.dy_dtype = d.x_dtype = d.dbias_dtype = GPUACT_F32;
        d.ld_a = d.ld_b = d.ld_da = d.ld_db = 2 * C;
        d.dy = bdy;
        d.a = bab;
        d.b = bab;
        d.b.offset = C * 4;
        d.da = bd;
        d.db = bd;
        d.db.offset = C * 4;
        d.dbias_a = bdb;
        d.dbias_b = bdb;
        d.dbias_b.offset = C * 4;
        if (!call_ok(p, "gpuact_glu_backward", gpuact_glu_backward(p->ctx, &d, p->stream)) || !sync_ok(p))
            break;
        if (gpuact_buffer_read(p->ctx, db, bdb, sizeof db)) {
            place_fail(p, "reading the bias gradients: %s", harness_first_line(gpuact_last_error()));
            break;
        }
        for (j = 0; j < 2 && !p->failed; j++)
            for (i = 0; i < C; i++)
                if (db[j][i] != (float)(R * k)) {
                    place_fail(p, "call %d: dbias_%c[%d] = %g, want %g", k, j ? 'b' : 'a', i, (double)db[j][i],
                               (double)(R * k));
                    break;
                }
    }
done:
    gpuact_buffer_free(p->ctx, bdy);
    gpuact_buffer_free(p->ctx, bab);
    gpuact_buffer_free(p->ctx, bd);
    gpuact_buffer_free(p->ctx, bdb);
    free(h);
}

static void check_place(place *p, unsigned long seed)
{
    p->failed = 0;
    p->why[0] = '\0';
    run_ops(p, seed);
    harness_report(!p->failed, p->label, "%s", p->why);
}

/* ========================================================================== */
/* >>CUDA: the driver API, loaded as gpuact loads it                          */
/* ========================================================================== */

typedef int CUresult_;
typedef unsigned long long CUdeviceptr_;
static struct {
    CUresult_ (*cuInit)(unsigned);
    CUresult_ (*cuDeviceGetCount)(int *);
    CUresult_ (*cuDeviceGet)(int *, int);
    CUresult_ (*cuCtxCreate)(void **, unsigned, int);
    CUresult_ (*cuCtxDestroy)(void *);
    CUresult_ (*cuCtxPushCurrent)(void *);
    CUresult_ (*cuCtxPopCurrent)(void **);
    CUresult_ (*cuCtxGetCurrent)(void **);
    CUresult_ (*cuCtxSetCurrent)(void *);
    CUresult_ (*cuCtxGetDevice)(int *);
    CUresult_ (*cuDevicePrimaryCtxRetain)(void **, int);
    CUresult_ (*cuDevicePrimaryCtxRelease)(int);
    CUresult_ (*cuDevicePrimaryCtxGetState)(int, unsigned *, int *);
    CUresult_ (*cuMemAlloc)(CUdeviceptr_ *, size_t);
    CUresult_ (*cuMemFree)(CUdeviceptr_);
    CUresult_ (*cuMemcpyHtoD)(CUdeviceptr_, const void *, size_t);
    CUresult_ (*cuMemcpyDtoH)(void *, CUdeviceptr_, size_t);
    CUresult_ (*cuStreamCreate)(void **, unsigned);
    CUresult_ (*cuStreamDestroy)(void *);
    CUresult_ (*cuPointerGetAttribute)(void *, int, CUdeviceptr_);
    CUresult_ (*cuCtxSynchronize)(void);
} cu;
static int cuda_devices;

#define CU_POINTER_ATTRIBUTE_CONTEXT_ 1
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL_ 9

/* cuCtxCreate_v4(ctx, params, flags, device): NULL params is cuCtxCreate_v2. */
static void *cu_ctx_create_v4;
static CUresult_ ctx_create_through_v4(void **c, unsigned flags, int dev)
{
    CUresult_ (*f)(void **, void *, unsigned, int);
    memcpy(&f, &cu_ctx_create_v4, sizeof f);
    return f(c, NULL, flags, dev);
}

/* 1: the driver is there with n >= 1 devices; 0 (and why): skip. */
static int cuda_load(char *why, size_t size)
{
    /* in the order of the members of cu */
    static const char *const syms[] = {
        "cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxPushCurrent_v2",
        "cuCtxPopCurrent_v2", "cuCtxGetCurrent", "cuCtxSetCurrent", "cuCtxGetDevice", "cuDevicePrimaryCtxRetain",
        "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxGetState", "cuMemAlloc_v2", "cuMemFree_v2",
        "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuStreamCreate", "cuStreamDestroy_v2", "cuPointerGetAttribute",
        "cuCtxSynchronize"};
    void **slots = (void **)&cu;
    const char *name = getenv("GPUACT_CUDA_LIBRARY");
    void *lib;
    size_t i;
    int e;
    if (!name || !*name)
        name = "libcuda.so.1";
    if (!(lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL))) {
        snprintf(why, size, "no CUDA driver (%s)", dlerror());
        return 0;
    }
    for (i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(lib, syms[i]);
        if (!f && strcmp(syms[i], "cuCtxCreate_v2") == 0 && (cu_ctx_create_v4 = dlsym(lib, "cuCtxCreate_v4"))) {
            cu.cuCtxCreate = ctx_create_through_v4; /* a driver without the old entry point */
            continue;
        }
        if (!f) {
            snprintf(why, size, "the CUDA driver lacks %s", syms[i]);
            return 0;
        }
        memcpy(&slots[i], &f, sizeof f);
    }
    if ((e = cu.cuInit(0)) != 0 || (e = cu.cuDeviceGetCount(&cuda_devices)) != 0 || cuda_devices < 1) {
        snprintf(why, size, "no CUDA device (cuInit / cuDeviceGetCount: %d, %d devices)", e, cuda_devices);
        return 0;
    }
    return 1;
}

static void *cu_current(void)
{
    void *c = NULL;
    cu.cuCtxGetCurrent(&c);
    return c;
}

/* The place's user data for CUDA: which context the caller has current
   (checked after every call) and which context the caller allocates in. */
typedef struct cuda_user {
    void *expect_current;
    void *alloc_ctx;     /* the caller's cuMemAlloc runs with this pushed */
} cuda_user;

static int cuda_after(void *user, char *why, size_t size)
{
    cuda_user *u = (cuda_user *)user;
    void *c = cu_current();
    if (c == u->expect_current)
        return 1;
    snprintf(why, size, "the CUDA context current on this thread is %p, the caller had %p", c, u->expect_current);
    return 0;
}

/* gpuact_buffer_write is cuMemcpyHtoD from pageable memory, which may
   return before its DMA has landed; work on the legacy stream (and on
   blocking streams) is ordered after it, work on a non-blocking stream is
   not. The test's non-blocking streams wait for the whole context after
   each upload: what it tests is adoption, not that (see RELIABILITY.md). */
static void cuda_settle(void *user)
{
    cuda_user *u = (cuda_user *)user;
    void *dummy;
    if (!u->alloc_ctx || cu.cuCtxPushCurrent(u->alloc_ctx))
        return;
    cu.cuCtxSynchronize();
    cu.cuCtxPopCurrent(&dummy);
}

static int cuda_alloc(void *user, size_t bytes, gpuact_buffer *out)
{
    cuda_user *u = (cuda_user *)user;
    CUdeviceptr_ d = 0;
    void *dummy;
    int e;
    if (cu.cuCtxPushCurrent(u->alloc_ctx))
        return 0;
    e = cu.cuMemAlloc(&d, bytes);
    cu.cuCtxPopCurrent(&dummy);
    out->handle = (void *)(uintptr_t)d;
    out->offset = 0;
    return e == 0;
}

static void cuda_free(void *user, gpuact_buffer b)
{
    cuda_user *u = (cuda_user *)user;
    void *dummy;
    if (cu.cuCtxPushCurrent(u->alloc_ctx))
        return;
    cu.cuMemFree((CUdeviceptr_)(uintptr_t)b.handle);
    cu.cuCtxPopCurrent(&dummy);
}

/* Leaves the thread with exactly `c` current (NULL: none). */
static void cu_make_current(void *c)
{
    void *prev;
    while (cu_current() && cu.cuCtxPopCurrent(&prev) == 0) {}
    if (c)
        cu.cuCtxSetCurrent(c);
}

static gpuact_context *cuda_gpuact_on(void *native, int device, void *stream, char *why, size_t size)
{
    gpuact_context_desc desc;
    gpuact_context *c = NULL;
    gpuact_result r;
    memset(&desc, 0, sizeof desc);
    desc.backend = GPUACT_BACKEND_CUDA;
    desc.device = device;
    desc.native_context = native;
    desc.stream = stream;
    if ((r = gpuact_context_create(&desc, &c)) != GPUACT_SUCCESS) {
        snprintf(why, size, "gpuact_context_create: %s: %s", gpuact_result_string(r),
                 harness_first_line(gpuact_last_error()));
        return NULL;
    }
    return c;
}

static gpuact_context *cuda_gpuact(void *native, int device, char *why, size_t size)
{
    return cuda_gpuact_on(native, device, NULL, why, size);
}

/* >>probes in a child process: another context's pointer */

/* y = relu(x) with x allocated in `owner` and y by gpuact; the outcome. */
static int probe_foreign_pointer(gpuact_context *g, void *owner, const char *what)
{
    float hx[256], hy[256];
    CUdeviceptr_ px = 0;
    gpuact_buffer x, y = {NULL, 0};
    gpuact_result r, s = GPUACT_SUCCESS;
    void *dummy;
    int i, wrong = 0;
    for (i = 0; i < 256; i++)
        hx[i] = (float)(i - 128) * 0.25f;
    if (cu.cuCtxPushCurrent(owner) || cu.cuMemAlloc(&px, sizeof hx) || cu.cuMemcpyHtoD(px, hx, sizeof hx)) {
        printf("PROBE %s: could not allocate in the owning context\n", what);
        return 2;
    }
    cu.cuCtxPopCurrent(&dummy);
    x.handle = (void *)(uintptr_t)px;
    x.offset = 0;
    if (gpuact_buffer_alloc(g, sizeof hy, &y) != GPUACT_SUCCESS || gpuact_buffer_write(g, y, hx, sizeof hy)) {
        printf("PROBE %s: gpuact_buffer_alloc: %s\n", what, harness_first_line(gpuact_last_error()));
        return 2;
    }
    r = gpuact_relu_forward(g, GPUACT_F32, 256, x, y, NULL);
    if (r == GPUACT_SUCCESS)
        s = gpuact_synchronize(g, NULL);
    if (r == GPUACT_ERROR_INVALID_ARGUMENT) {
        int same = gpuact_buffer_read(g, hy, y, sizeof hy) == GPUACT_SUCCESS && memcmp(hx, hy, sizeof hy) == 0;
        printf("PROBE %s: refused (GPUACT_ERROR_INVALID_ARGUMENT: %s), y %s\n", what,
               harness_first_line(gpuact_last_error()),
               same ? "untouched" : "CHANGED");
        return same ? 0 : 3;
    }
    if (r != GPUACT_SUCCESS || s != GPUACT_SUCCESS) {
        printf("PROBE %s: accepted, then %s from the %s: %s\n", what, gpuact_result_string(r ? r : s),
               r ? "call" : "synchronize", harness_first_line(gpuact_last_error()));
        return 0;
    }
    if ((r = gpuact_buffer_read(g, hy, y, sizeof hy)) != GPUACT_SUCCESS) {
        printf("PROBE %s: accepted, then reading y: %s: %s\n", what, gpuact_result_string(r),
               harness_first_line(gpuact_last_error()));
        return 0;
    }
    for (i = 0; i < 256; i++)
        wrong += hy[i] != (hx[i] > 0 ? hx[i] : 0.0f);
    printf("PROBE %s: accepted and %s\n", what, wrong ? "WRONG: y is not relu(x), with no error" : "correct");
    return wrong ? 3 : 0;
}

static int probe_auto_cl(void);

/* The child: which probe is argv's; exit 0 = a documented outcome. */
static int probe_main(const char *which)
{
    char why[600];
    void *mine = NULL, *primary = NULL;
    gpuact_context *g = NULL;
    int dev0 = 0, dev1 = 0, rc;
    alarm(300);
    if (strcmp(which, "auto-with-cl_context") == 0)
        return probe_auto_cl();
    if (!cuda_load(why, sizeof why)) {
        printf("PROBE %s: %s\n", which, why);
        return 2;
    }
    cu.cuDeviceGet(&dev0, 0);
    if (strcmp(which, "primary-on-adopted") == 0) {
        if (cu.cuCtxCreate(&mine, 0, dev0) || cu.cuDevicePrimaryCtxRetain(&primary, dev0))
            return 2;
        if (!(g = cuda_gpuact(mine, 0, why, sizeof why))) {
            printf("PROBE %s: %s\n", which, why);
            return 2;
        }
        rc = probe_foreign_pointer(g, primary, "a primary-context buffer on a gpuact context adopting another");
    } else if (strcmp(which, "adopted-on-primary") == 0) {
        if (cu.cuCtxCreate(&mine, 0, dev0))
            return 2;
        if (!(g = cuda_gpuact(NULL, 0, why, sizeof why))) {
            printf("PROBE %s: %s\n", which, why);
            return 2;
        }
        rc = probe_foreign_pointer(g, mine, "a cuCtxCreate'd context's buffer on a gpuact context on the primary one");
    } else if (strcmp(which, "device1-on-device0") == 0) {
        if (cuda_devices < 2)
            return 2;
        cu.cuDeviceGet(&dev1, 1);
        if (cu.cuDevicePrimaryCtxRetain(&primary, dev1))
            return 2;
        if (!(g = cuda_gpuact(NULL, 0, why, sizeof why))) {
            printf("PROBE %s: %s\n", which, why);
            return 2;
        }
        rc = probe_foreign_pointer(g, primary, "device 1's buffer on a gpuact context of device 0");
    } else {
        printf("PROBE %s: unknown probe\n", which);
        return 2;
    }
    fflush(stdout);
    return rc;
}

static const char *self_path;

static void run_probe(const char *which)
{
    pid_t pid;
    int status = 0;
    char what[120];
    snprintf(what, sizeof what, "probe %s, in a child: no crash, no silently wrong result", which);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        execl(self_path, self_path, "--probe", which, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        harness_report(0, what, "fork/waitpid failed");
        return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
        printf("SKIP %s: the child could not set it up\n", which);
        return;
    }
    if (WIFSIGNALED(status))
        harness_report(0, what, "the child died of signal %d (a crash or the 300 s alarm)", WTERMSIG(status));
    else
        harness_report(WIFEXITED(status) && WEXITSTATUS(status) == 0, what, "exit status %d (see the PROBE line)",
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* >>(a) a CUcontext that is not the primary one */

static void part_a(void)
{
    char why[600];
    void *mine = NULL, *primary = NULL, *got, *stream = NULL, *dummy;
    gpuact_context *g = NULL, *g2 = NULL;
    cuda_user u;
    place p;
    unsigned flags = 0;
    int dev = 0, active_before = 0, active_after = 0, e;
    gpuact_buffer b = {NULL, 0};

    cu.cuDeviceGet(&dev, 0);
    cu.cuDevicePrimaryCtxGetState(dev, &flags, &active_before);
    if ((e = cu.cuCtxCreate(&mine, 0, dev)) != 0) {
        harness_report(0, "(a) cuCtxCreate", "CUresult %d", e);
        return;
    }
    /* cuCtxCreate left mine current on this thread */
    if (!(g = cuda_gpuact(mine, 0, why, sizeof why))) {
        harness_report(0, "(a) gpuact_context_create with desc.native_context = a cuCtxCreate'd context", "%s", why);
        cu.cuCtxDestroy(mine);
        return;
    }
    harness_report(1, "(a) gpuact_context_create with desc.native_context = a cuCtxCreate'd context", "");
    got = gpuact_context_query_desc(g).native_context;
    harness_report(got == mine, "(a) query_desc().native_context is the adopted context", "%p, want %p", got, mine);
    cu.cuDevicePrimaryCtxGetState(dev, &flags, &active_after);
    harness_report(active_after == active_before, "(a) adopting does not activate the device's primary context",
                   "primary context active: %d before, %d after", active_before, active_after);
    harness_report(cu_current() == mine, "(a) context_create leaves the caller's current context current",
                   "current is %p, want %p", cu_current(), mine);
    if (gpuact_buffer_alloc(g, 4096, &b) == GPUACT_SUCCESS) {
        void *owner = NULL;
        e = cu.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT_, (CUdeviceptr_)(uintptr_t)b.handle);
        harness_report(e == 0 && owner == mine, "(a) gpuact_buffer_alloc allocates in the adopted context",
                       "CU_POINTER_ATTRIBUTE_CONTEXT: %d, %p, want %p", e, owner, mine);
        gpuact_buffer_free(g, b);
    } else {
        harness_report(0, "(a) gpuact_buffer_alloc", "%s", harness_first_line(gpuact_last_error()));
    }

    memset(&p, 0, sizeof p);
    memset(&u, 0, sizeof u);
    p.ctx = g;
    p.user = &u;
    p.after = cuda_after;
    p.settle = cuda_settle;
    u.alloc_ctx = mine;

    /* the adopted context current, gpuact's buffers, the default stream */
    u.expect_current = mine;
    p.label = "(a) adopted context current: gpuact's buffers, default stream: all ops checked";
    check_place(&p, 11);
    /* the caller's buffers and stream */
    if (cu.cuStreamCreate(&stream, 1 /* CU_STREAM_NON_BLOCKING */) == 0) {
        p.stream = stream;
        p.alloc = cuda_alloc;
        p.release = cuda_free;
        p.label = "(a) adopted context current: the caller's cuMemAlloc buffers, the caller's stream: all ops checked";
        check_place(&p, 12);
    } else {
        harness_report(0, "(a) cuStreamCreate in the adopted context", "failed");
    }
    /* no context current */
    cu_make_current(NULL);
    u.expect_current = NULL;
    p.label = "(a) no context current on the thread: all ops checked, still none current after each";
    check_place(&p, 13);
    /* the primary context current */
    if (cu.cuDevicePrimaryCtxRetain(&primary, dev) == 0) {
        cu_make_current(primary);
        u.expect_current = primary;
        p.label = "(a) the primary context current on the thread: all ops checked, still current after each";
        check_place(&p, 14);
    }
    /* a second gpuact context on the same CUcontext, destroyed while the first is in use */
    if ((g2 = cuda_gpuact(mine, 0, why, sizeof why)) != NULL) {
        place p2 = p;
        p2.ctx = g2;
        p2.stream = NULL;
        p2.alloc = NULL;
        p2.label = "(a) a second gpuact context adopting the same CUcontext: all ops checked";
        check_place(&p2, 15);
        gpuact_context_destroy(g2);
        p.label = "(a) the first after the second was destroyed: all ops checked";
        check_place(&p, 16);
    } else {
        harness_report(0, "(a) a second gpuact context on the same CUcontext", "%s", why);
    }
    /* the caller's stream as the context's stream (desc.stream): NULL means it */
    if (stream && (g2 = cuda_gpuact_on(mine, 0, stream, why, sizeof why)) != NULL) {
        place p3 = p;
        got = gpuact_context_query_desc(g2).stream;
        harness_report(got == stream, "(a) desc.stream: query_desc().stream is the caller's stream", "%p, want %p",
                       got, stream);
        p3.ctx = g2;
        p3.stream = NULL;
        p3.label = "(a) desc.stream = the caller's stream, every call with stream NULL: all ops checked";
        check_place(&p3, 17);
        gpuact_context_destroy(g2);
    } else if (stream) {
        harness_report(0, "(a) a gpuact context with desc.stream", "%s", why);
    }
    if (stream) {
        cu.cuCtxPushCurrent(mine);
        cu.cuStreamDestroy(stream);
        cu.cuCtxPopCurrent(&dummy);
    }
    gpuact_context_destroy(g);
    harness_report(cu_current() == u.expect_current, "(a) gpuact_context_destroy leaves the current context alone",
                   "current is %p, want %p", cu_current(), u.expect_current);
    {   /* the caller's context is still the caller's */
        CUdeviceptr_ d = 0;
        int ok = cu.cuCtxPushCurrent(mine) == 0 && cu.cuMemAlloc(&d, 64) == 0 && cu.cuMemFree(d) == 0;
        cu.cuCtxPopCurrent(&dummy);
        harness_report(ok, "(a) the adopted CUcontext still works after gpuact_context_destroy",
                       "cuMemAlloc in it failed");
    }
    if (primary) {
        cu_make_current(NULL);
        cu.cuDevicePrimaryCtxRelease(dev);
    }
    cu.cuCtxDestroy(mine);
    cu_make_current(NULL);

    run_probe("primary-on-adopted");
    run_probe("adopted-on-primary");
    if (cuda_devices >= 2)
        run_probe("device1-on-device0");
}

/* >>(b) two devices from two threads */

typedef struct dev_job {
    int device, adopt, failed;
    pthread_barrier_t *start;
    char why[700];
} dev_job;

static void *dev_worker(void *arg)
{
    dev_job *j = (dev_job *)arg;
    void *mine = NULL, *dummy;
    int dev = 0, round;
    gpuact_context *g;
    cuda_user u;
    place p;
    gpuact_buffer b = {NULL, 0};
    char why[600];
    cu.cuDeviceGet(&dev, j->device);
    if (j->adopt && cu.cuCtxCreate(&mine, 0, dev) != 0) {
        snprintf(j->why, sizeof j->why, "cuCtxCreate on device %d failed", j->device);
        j->failed = 1;
        pthread_barrier_wait(j->start);
        return NULL;
    }
    pthread_barrier_wait(j->start);   /* both threads create their gpuact contexts at once */
    if (!(g = cuda_gpuact(mine, j->device, why, sizeof why))) {
        snprintf(j->why, sizeof j->why, "device %d: %s", j->device, why);
        j->failed = 1;
        return NULL;
    }
    if (gpuact_buffer_alloc(g, 256, &b) == GPUACT_SUCCESS) {
        int ordinal = -1;
        cu.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL_, (CUdeviceptr_)(uintptr_t)b.handle);
        if (ordinal != j->device) {
            snprintf(j->why, sizeof j->why, "device %d: gpuact_buffer_alloc allocated on device %d", j->device, ordinal);
            j->failed = 1;
        }
        gpuact_buffer_free(g, b);
    }
    memset(&p, 0, sizeof p);
    memset(&u, 0, sizeof u);
    p.ctx = g;
    p.user = &u;
    p.after = cuda_after;
    u.expect_current = mine; /* cuCtxCreate left it current here; NULL for the primary case */
    for (round = 0; round < 3 && !j->failed; round++) {
        p.failed = 0;
        run_ops(&p, 100 + (unsigned long)(10 * j->device + round));
        if (p.failed) {
            snprintf(j->why, sizeof j->why, "device %d round %d: %s", j->device, round, p.why);
            j->failed = 1;
        }
    }
    gpuact_context_destroy(g);
    if (mine) {
        cu.cuCtxPopCurrent(&dummy);
        cu.cuCtxDestroy(mine);
    }
    return NULL;
}

static void part_b(void)
{
    int adopt;
    if (cuda_devices < 2) {
        printf("SKIP (b) devices 0 and 1 from two threads: %d CUDA device(s)\n", cuda_devices);
        return;
    }
    for (adopt = 0; adopt < 2; adopt++) {
        pthread_t t[2];
        dev_job jobs[2];
        pthread_barrier_t start;
        char what[160];
        int i;
        pthread_barrier_init(&start, NULL, 2);
        for (i = 0; i < 2; i++) {
            memset(&jobs[i], 0, sizeof jobs[i]);
            jobs[i].device = i;
            jobs[i].adopt = adopt;
            jobs[i].start = &start;
            pthread_create(&t[i], NULL, dev_worker, &jobs[i]);
        }
        for (i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&start);
        for (i = 0; i < 2; i++) {
            snprintf(what, sizeof what, "(b) device %d from its own thread, both at once, %s: 3 rounds of all ops", i,
                     adopt ? "a cuCtxCreate'd context adopted" : "its primary context");
            harness_report(!jobs[i].failed, what, "%s", jobs[i].why);
        }
    }
}

/* ========================================================================== */
/* >>(c) OpenCL: the caller's cl_context, cl_device_id and queue              */
/* ========================================================================== */

typedef int32_t cl_int_;
typedef uint32_t cl_uint_;
static struct {
    cl_int_ (*clGetPlatformIDs)(cl_uint_, void **, cl_uint_ *);
    cl_int_ (*clGetDeviceIDs)(void *, uint64_t, cl_uint_, void **, cl_uint_ *);
    cl_int_ (*clGetDeviceInfo)(void *, cl_uint_, size_t, void *, size_t *);
    void *(*clCreateContext)(const intptr_t *, cl_uint_, void *const *, void *, void *, cl_int_ *);
    cl_int_ (*clReleaseContext)(void *);
    cl_int_ (*clGetContextInfo)(void *, cl_uint_, size_t, void *, size_t *);
    void *(*clCreateCommandQueue)(void *, void *, uint64_t, cl_int_ *);
    cl_int_ (*clReleaseCommandQueue)(void *);
    cl_int_ (*clGetCommandQueueInfo)(void *, cl_uint_, size_t, void *, size_t *);
    void *(*clCreateBuffer)(void *, uint64_t, size_t, void *, cl_int_ *);
    cl_int_ (*clReleaseMemObject)(void *);
    cl_int_ (*clGetMemObjectInfo)(void *, cl_uint_, size_t, void *, size_t *);
    cl_int_ (*clEnqueueReadBuffer)(void *, void *, cl_uint_, size_t, size_t, void *, cl_uint_, const void *, void *);
    cl_int_ (*clEnqueueWriteBuffer)(void *, void *, cl_uint_, size_t, size_t, const void *, cl_uint_, const void *,
                                    void *);
    cl_int_ (*clFinish)(void *);
    cl_int_ (*clRetainContext)(void *);
    cl_int_ (*clRetainCommandQueue)(void *);
} cl;

#define CL_DEVICE_NAME_ 0x102B
#define CL_CONTEXT_REFERENCE_COUNT_ 0x1080
#define CL_QUEUE_CONTEXT_ 0x1090
#define CL_QUEUE_REFERENCE_COUNT_ 0x1092
#define CL_MEM_CONTEXT_ 0x1106

static int cl_load(char *why, size_t size)
{
    static const char *const syms[] = {
        "clGetPlatformIDs", "clGetDeviceIDs", "clGetDeviceInfo", "clCreateContext", "clReleaseContext",
        "clGetContextInfo", "clCreateCommandQueue", "clReleaseCommandQueue", "clGetCommandQueueInfo",
        "clCreateBuffer", "clReleaseMemObject", "clGetMemObjectInfo", "clEnqueueReadBuffer",
        "clEnqueueWriteBuffer", "clFinish", "clRetainContext", "clRetainCommandQueue"};
    void **slots = (void **)&cl;
    const char *name = getenv("GPUACT_OPENCL_LIBRARY");
    void *lib;
    size_t i;
    if (!name || !*name)
        name = "libOpenCL.so.1";
    if (!(lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL))) {
        snprintf(why, size, "no OpenCL library (%s)", dlerror());
        return 0;
    }
    for (i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(lib, syms[i]);
        if (!f) {
            snprintf(why, size, "the OpenCL library lacks %s", syms[i]);
            return 0;
        }
        memcpy(&slots[i], &f, sizeof f);
    }
    return 1;
}

static cl_uint_ cl_refs(void *obj, int queue)
{
    cl_uint_ n = 0;
    if (queue)
        cl.clGetCommandQueueInfo(obj, CL_QUEUE_REFERENCE_COUNT_, sizeof n, &n, NULL);
    else
        cl.clGetContextInfo(obj, CL_CONTEXT_REFERENCE_COUNT_, sizeof n, &n, NULL);
    return n;
}

/* The count once the driver has settled: PoCL drops the references of
   finished commands from its own threads, a little after clFinish. A count
   that stays away from want for two seconds is what it is. */
static cl_uint_ cl_refs_settled(void *obj, int queue, cl_uint_ want)
{
    cl_uint_ n = cl_refs(obj, queue);
    struct timespec ms10 = {0, 10000000};
    int i;
    for (i = 0; i < 200 && n != want; i++) {
        nanosleep(&ms10, NULL);
        n = cl_refs(obj, queue);
    }
    return n;
}

typedef struct cl_user { void *context; } cl_user;

static int cl_alloc(void *user, size_t bytes, gpuact_buffer *out)
{
    cl_int_ e = 0;
    out->handle = cl.clCreateBuffer(((cl_user *)user)->context, 1 /* CL_MEM_READ_WRITE */, bytes, NULL, &e);
    out->offset = 0;
    return out->handle != NULL;
}

static void cl_free(void *user, gpuact_buffer b)
{
    (void)user;
    cl.clReleaseMemObject(b.handle);
}

/* desc.backend AUTO with a cl_context as native_context (and its device):
   the manual says a native_device picks OpenCL. Before it did, AUTO tried
   CUDA first, whose driver crashed on the cl_context (seen on the H200
   machine, 2026-11-23). Reported, in a child: a crash, or a context of
   another backend built on it, fails; OpenCL adopting it or a refusal pass. */
static int probe_auto_cl(void)
{
    char why[600];
    void *plats[16], *devs[16], *mine;
    cl_uint_ np = 0, nd = 0;
    cl_int_ e = 0;
    gpuact_context_desc desc;
    gpuact_context *g = NULL;
    gpuact_result r;
    if (!cl_load(why, sizeof why) || cl.clGetPlatformIDs(16, plats, &np) != 0 || np == 0 ||
        cl.clGetDeviceIDs(plats[0], 0xFFFFFFFFu, 16, devs, &nd) != 0 || nd == 0 ||
        !(mine = cl.clCreateContext(NULL, 1, devs, NULL, NULL, &e)))
        return 2;
    memset(&desc, 0, sizeof desc);
    desc.native_context = mine;
    desc.native_device = devs[0];
    r = gpuact_context_create(&desc, &g);
    if (r != GPUACT_SUCCESS) {
        printf("PROBE auto-with-cl_context: refused: %s: %s\n", gpuact_result_string(r),
               harness_first_line(gpuact_last_error()));
        return 0;
    }
    printf("PROBE auto-with-cl_context: the %s backend took it%s\n", gpuact_backend_name(gpuact_context_backend(g)),
           gpuact_context_backend(g) == GPUACT_BACKEND_OPENCL ? "" : ": WRONG, a cl_context is not its context");
    return gpuact_context_backend(g) == GPUACT_BACKEND_OPENCL ? 0 : 3;
}

static void part_c(void)
{
    char why[600], name[256], gname[256];
    void *plats[16], *devs[16], *mine = NULL, *queue = NULL, *queue2 = NULL, *theirs = NULL, *own_q = NULL, *ooo;
    cl_uint_ np = 0, nd = 0, ctx_refs, q_refs;
    cl_int_ e = 0;
    gpuact_context_desc desc, got;
    gpuact_context *g = NULL;
    gpuact_result r;
    cl_user u;
    place p;
    gpuact_buffer b = {NULL, 0};

    if (!cl_load(why, sizeof why)) {
        printf("SKIP (c) OpenCL adoption: %s\n", why);
        return;
    }
    if (cl.clGetPlatformIDs(16, plats, &np) != 0 || np == 0 ||
        cl.clGetDeviceIDs(plats[0], 0xFFFFFFFFu, 16, devs, &nd) != 0 || nd == 0) {
        printf("SKIP (c) OpenCL adoption: no OpenCL platform or device\n");
        return;
    }
    mine = cl.clCreateContext(NULL, 1, devs, NULL, NULL, &e);
    if (mine)
        queue = cl.clCreateCommandQueue(mine, devs[0], 0, &e);
    if (queue)
        queue2 = cl.clCreateCommandQueue(mine, devs[0], 0, &e);
    if (!queue2) {
        harness_report(0, "(c) the caller's cl_context and queues", "clCreateContext/clCreateCommandQueue: %d", (int)e);
        return;
    }
    /* one reference more of each, held to the end: a release too many by
       gpuact then shows as a smaller count instead of freeing them */
    cl.clRetainContext(mine);
    cl.clRetainCommandQueue(queue);
    ctx_refs = cl_refs(mine, 0);
    q_refs = cl_refs(queue, 1);

    /* native_context without native_device */
    memset(&desc, 0, sizeof desc);
    desc.backend = GPUACT_BACKEND_OPENCL;
    desc.native_context = mine;
    g = (gpuact_context *)&desc;
    r = gpuact_context_create(&desc, &g);
    harness_report(r == GPUACT_ERROR_INVALID_ARGUMENT && gpuact_last_rule() == GPUACT_RULE_NATIVE_DEVICE_MISSING &&
                       g == NULL,
                   "(c) native_context without native_device is refused (NATIVE_DEVICE_MISSING)", "%s, *out %p: %s",
                   gpuact_result_string(r), (void *)g, harness_first_line(gpuact_last_error()));
    if (r == GPUACT_SUCCESS && g)
        gpuact_context_destroy(g);

    /* adopt context, device and queue */
    desc.native_device = devs[0];
    desc.stream = queue;
    if ((r = gpuact_context_create(&desc, &g)) != GPUACT_SUCCESS) {
        harness_report(0, "(c) gpuact_context_create adopting cl_context + cl_device_id + queue", "%s: %s",
                       gpuact_result_string(r), harness_first_line(gpuact_last_error()));
        goto out;
    }
    harness_report(1, "(c) gpuact_context_create adopting cl_context + cl_device_id + queue", "");
    got = gpuact_context_query_desc(g);
    harness_report(got.native_context == mine && got.native_device == devs[0] && got.stream == queue &&
                   got.backend == GPUACT_BACKEND_OPENCL,
                   "(c) query_desc() returns the caller's context, device and queue", "%p %p %p, want %p %p %p",
                   got.native_context, got.native_device, got.stream, mine, devs[0], queue);
    name[0] = '\0';
    cl.clGetDeviceInfo(devs[0], CL_DEVICE_NAME_, sizeof name - 1, name, NULL);
    name[sizeof name - 1] = '\0';
    snprintf(gname, sizeof gname, "%s", gpuact_context_device_name(g));
    harness_report(strcmp(name, gname) == 0, "(c) the device name is the adopted device's", "\"%s\", want \"%s\"",
                   gname,
           name);
    if (gpuact_buffer_alloc(g, 4096, &b) == GPUACT_SUCCESS) {
        void *owner = NULL;
        cl.clGetMemObjectInfo(b.handle, CL_MEM_CONTEXT_, sizeof owner, &owner, NULL);
        harness_report(owner == mine, "(c) gpuact_buffer_alloc allocates in the caller's cl_context",
                       "CL_MEM_CONTEXT %p, want %p",
               owner, mine);
    } else {
        harness_report(0, "(c) gpuact_buffer_alloc", "%s", harness_first_line(gpuact_last_error()));
    }

    memset(&p, 0, sizeof p);
    u.context = mine;
    p.ctx = g;
    p.user = &u;
    p.label = "(c) gpuact's buffers, stream NULL (the caller's queue): all ops checked";
    check_place(&p, 21);
    p.stream = queue2;
    p.alloc = cl_alloc;
    p.release = cl_free;
    p.label = "(c) the caller's clCreateBuffer buffers on a second queue of the caller's: all ops checked";
    check_place(&p, 22);

    /* an out-of-order queue of the caller's */
    ooo = cl.clCreateCommandQueue(mine, devs[0], 1 /* CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE */, &e);
    if (!ooo) {
        printf("SKIP (c) an out-of-order queue: the device has none (clCreateCommandQueue: %d)\n", (int)e);
    } else {
        p.stream = ooo;
        p.label = "(c) an out-of-order queue of the caller's: all ops checked";
        check_place(&p, 24);
        p.failed = 0;
        p.why[0] = '\0';
        p.alloc = NULL;
        dbias_series(&p, 20);
        harness_report(!p.failed, "(c) an out-of-order queue: 20 epilogue backwards with dbias, each sum right",
                       "%s", p.why);
        p.failed = 0;
        p.why[0] = '\0';
        glu_series(&p, 20);
        harness_report(!p.failed,
                       "(c) an out-of-order queue: 20 glu backwards with both bias gradients, each sum right", "%s",
               p.why);
        cl.clReleaseCommandQueue(ooo);
    }

    {   /* the work is queued on the caller's queue: its own in-order blocking read sees it */
        float hx[512], hy[512];
        int i, wrong = 0;
        gpuact_buffer x = {NULL, 0}, y = {NULL, 0};
        for (i = 0; i < 512; i++)
            hx[i] = (float)(i % 37) - 18.0f;
        if (gpuact_buffer_alloc(g, sizeof hx, &x) || gpuact_buffer_alloc(g, sizeof hy, &y) ||
            cl.clEnqueueWriteBuffer(queue, x.handle, 1, 0, sizeof hx, hx, 0, NULL, NULL)) {
            harness_report(0, "(c) set-up for the ordering check", "%s", harness_first_line(gpuact_last_error()));
        } else {
            r = gpuact_relu_forward(g, GPUACT_F32, 512, x, y, NULL);
            e = cl.clEnqueueReadBuffer(queue, y.handle, 1, 0, sizeof hy, hy, 0, NULL, NULL);
            for (i = 0; i < 512; i++)
                wrong += hy[i] != (hx[i] > 0 ? hx[i] : 0.0f);
            harness_report(r == GPUACT_SUCCESS && e == 0 && !wrong,
                           "(c) with stream NULL the work is on the caller's queue: its blocking read sees y, no synchronize",
                           "%s, clEnqueueReadBuffer %d, %d wrong elements", gpuact_result_string(r), (int)e, wrong);
        }
        gpuact_buffer_free(g, x);
        gpuact_buffer_free(g, y);
    }

    /* a cl_mem of another cl_context */
    theirs = cl.clCreateContext(NULL, 1, devs, NULL, NULL, &e);
    if (theirs) {
        void *foreign = cl.clCreateBuffer(theirs, 1, 4096, NULL, &e);
        unsigned char before[4096], after[4096];
        gpuact_forward_desc d;
        gpuact_rule rule;
        memset(before, 0x3C, sizeof before);
        if (foreign && b.handle && gpuact_buffer_write(g, b, before, sizeof before) == GPUACT_SUCCESS) {
            memset(&d, 0, sizeof d);
            d.dtype = GPUACT_F32;
            d.n = 256;
            d.x = b;
            d.y.handle = foreign;
            r = gpuact_forward(g, &d, NULL);
            harness_report(r == GPUACT_ERROR_INVALID_ARGUMENT && gpuact_last_rule() == GPUACT_RULE_BUFFER_FOREIGN,
                           "(c) y is a cl_mem of another cl_context: refused (BUFFER_FOREIGN)", "%s: %s",
                           gpuact_result_string(r), harness_first_line(gpuact_last_error()));
            d.x.handle = foreign;
            d.y = b;
            r = gpuact_forward(g, &d, NULL);
            rule = gpuact_last_rule();
            gpuact_synchronize(g, NULL);
            harness_report(r == GPUACT_ERROR_INVALID_ARGUMENT && rule == GPUACT_RULE_BUFFER_FOREIGN &&
                           gpuact_buffer_read(g, after, b, sizeof after) == GPUACT_SUCCESS &&
                           memcmp(before, after, sizeof after) == 0,
                           "(c) x is a cl_mem of another cl_context: refused (BUFFER_FOREIGN), y untouched", "%s: %s",
                           gpuact_result_string(r), harness_first_line(gpuact_last_error()));
        }
        if (foreign)
            cl.clReleaseMemObject(foreign);
        cl.clReleaseContext(theirs);
    }
    gpuact_buffer_free(g, b);
    gpuact_context_destroy(g);
    g = NULL;
    {
        cl_uint_ c_now = cl_refs_settled(mine, 0, ctx_refs), q_now = cl_refs_settled(queue, 1, q_refs);
        harness_report(c_now == ctx_refs && q_now == q_refs,
                       "(c) after gpuact_context_destroy the caller's context and queue have their reference counts of before",
                       "context %u (before %u), queue %u (before %u)", c_now, ctx_refs, q_now, q_refs);
    }
    {   /* and still work */
        void *m = cl.clCreateBuffer(mine, 1, 64, NULL, &e);
        unsigned char buf[64] = {0};
        int ok = m && cl.clEnqueueWriteBuffer(queue, m, 1, 0, 64, buf, 0, NULL, NULL) == 0 && cl.clFinish(queue) == 0;
        if (m)
            cl.clReleaseMemObject(m);
        harness_report(ok, "(c) the caller's context and queue still work after gpuact_context_destroy", "they do not");
    }

    /* adoption without a queue: gpuact makes one on the caller's context */
    desc.stream = NULL;
    if ((r = gpuact_context_create(&desc, &g)) == GPUACT_SUCCESS) {
        void *qctx = NULL;
        own_q = gpuact_context_query_desc(g).stream;
        if (own_q)
            cl.clGetCommandQueueInfo(own_q, CL_QUEUE_CONTEXT_, sizeof qctx, &qctx, NULL);
        harness_report(own_q && own_q != queue && qctx == mine,
                       "(c) adopted without a queue: gpuact's own queue is on the caller's cl_context",
                       "queue %p, its context %p, want %p", own_q, qctx, mine);
        memset(&p, 0, sizeof p);
        p.ctx = g;
        p.user = &u;
        p.label = "(c) adopted without a queue: all ops checked";
        check_place(&p, 23);
        gpuact_context_destroy(g);
        {
            cl_uint_ c_now = cl_refs_settled(mine, 0, ctx_refs);
            harness_report(c_now == ctx_refs, "(c) ... and destroying it leaves the context's reference count",
                           "%u, before %u", c_now, ctx_refs);
        }
    } else {
        harness_report(0, "(c) adopted without a queue", "%s: %s", gpuact_result_string(r),
                       harness_first_line(gpuact_last_error()));
    }
    run_probe("auto-with-cl_context");
out:
    cl.clReleaseCommandQueue(queue2);
    cl.clReleaseCommandQueue(queue);
    cl.clReleaseCommandQueue(queue);
    cl.clReleaseContext(mine);
    cl.clReleaseContext(mine);
}

int main(int argc, char **argv)
{
    char why[600];
    self_path = "/proc/self/exe";
    if (argc > 2 && strcmp(argv[1], "--probe") == 0) {
        /* a probe may leave a context the driver poisoned: no teardown */
        int rc = probe_main(argv[2]);
        fflush(stdout);
        _exit(rc);
    }
    if (argc > 1 && strcmp(argv[1], "-v") == 0)
        harness_tally_of_process()->verbose = 1;
#ifndef GPUACT_NO_CUDA
    if (cuda_load(why, sizeof why)) {
        printf("CUDA: %d device(s)\n", cuda_devices);
        fflush(stdout);
        part_a();
        part_b();
    } else {
        printf("SKIP (a) a non-primary CUDA context and (b) two devices from two threads: %s\n", why);
    }
#else
    printf("SKIP (a) and (b): built without CUDA\n");
    (void)part_a;
    (void)part_b;
#endif
#ifndef GPUACT_NO_OPENCL
    part_c();
#else
    printf("SKIP (c): built without OpenCL\n");
    (void)part_c;
#endif
    (void)why;
    return harness_summary();
}
