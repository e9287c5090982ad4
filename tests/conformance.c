/*
conformance.c -- the shared conformance suite: every op x dtype x activation
on every backend compiled in and available, bit for bit against the CPU
reference in gpuact_ref.h (docs/NUMERICS.md).

Every run poisons its outputs and surrounds every buffer with canary bytes
inside the same allocation. Afterwards it reads the whole allocation back:
the canaries, the row padding (ld > cols) and the mask bytes past a row's
ceil(cols / 8) must be untouched, inputs unchanged, and every element must
equal the reference (gpuact_ref_same; dbias within 1e-5 of sum |dx|).

    usage: conformance [-v]        -v also lists the passing cases
           conformance --launched FILE...   whether the runs that wrote FILE...
                                   launched every reachable variant together

    GPUACT_BACKEND=cuda|hip|opencl  test only that backend
    GPUACT_CONFORMANCE_LARGE=N      n of the large case (default 2^27 + 5; 0 skips it)
    GPUACT_CONFORMANCE_SUITES=a,b   only those suites (elementwise, epilogue, variant,
                                   glu, codes, large); no variant count then, unless
    GPUACT_CONFORMANCE_LAUNCHED=F   appends the launched variants to F (for --launched:
                                   `make test` runs two parts side by side)
    GPUACT_CACHE_DIR                as for the library (the context uses the default)

One line per failed case names the op, dtypes, activation, shape, offsets,
placement and the first wrong byte or element with both bit patterns. The
last line is always "N passed, N failed".
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

/* >>cases */

static gpuact_context *ctx;
static int verbose;
static unsigned long n_passed, n_failed;
static char case_name[512];
static int case_failed;
static unsigned long case_seed;     /* deterministic data: the seed follows the case order */


static void case_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_name, sizeof case_name, fmt, ap);
    va_end(ap);
    case_failed = 0;
}

/* Only a case's first failure is printed: one line per failed case. */
static void fail(const char *fmt, ...)
{
    va_list ap;
    if (case_failed++)
        return;
    printf("FAIL %s: ", case_name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static void case_end(void)
{
    if (case_failed) {
        n_failed++;
    } else {
        n_passed++;
        if (verbose) {
            printf("ok   %s\n", case_name);
            fflush(stdout);
        }
    }
}

static int call_ok(gpuact_result r, const char *what)
{
    if (r == GPUACT_SUCCESS)
        return 1;
    fail("%s returned %s: %s", what, gpuact_result_string(r), harness_first_line(gpuact_last_error()));
    return 0;
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        fail("out of host memory (%zu bytes)", bytes);
    return p;
}

/* A well-mixed 64-bit function of k: the reference's generator seeded with k. */
static uint64_t mix64(uint64_t k)
{
    gpuact_ref_rng r;
    r.s = k;
    return gpuact_ref_next(&r);
}

static gpuact_ref_rng case_rng(void)
{
    gpuact_ref_rng r;
    r.s = mix64(++case_seed);
    return r;
}

static const char *dt_name(gpuact_dtype dt)
{
    return dt == GPUACT_F32 ? "f32" : dt == GPUACT_F16 ? "f16" : "bf16";
}

static const char *act_name(gpuact_activation a)
{
    static char buf[4][48];
    static unsigned next;
    char *b = buf[next++ % 4];
    if (a.kind == GPUACT_LEAKY_RELU)
        snprintf(b, sizeof buf[0], "leaky(%g)", a.negative_slope);
    else if (a.kind == GPUACT_CLIPPED_RELU)
        snprintf(b, sizeof buf[0], "clipped(%g)", a.ceiling);
    else if (a.kind == GPUACT_HARDTANH)
        snprintf(b, sizeof buf[0], "hardtanh(%g,%g)", a.lower, a.ceiling);
    else
        snprintf(b, sizeof buf[0], "%s", a.kind == GPUACT_GELU ? "gelu" : a.kind == GPUACT_GELU_TANH ? "gelu_tanh"
                                         : a.kind == GPUACT_SILU ? "silu" : a.kind == GPUACT_SQUARED_RELU ? "sqrelu"
                                                                                                      : "relu");
    return b;
}

/* The value whose neighbourhood the special inputs cover: a bound of the
   kind (its negation is covered too), else 0. */
static float near_of(gpuact_activation a)
{
    return a.kind == GPUACT_CLIPPED_RELU ? a.ceiling : a.kind == GPUACT_HARDTANH ? a.lower : 0.0f;
}

static size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }
static size_t mask_bytes(size_t bits) { return (bits + 7) / 8; }

/* >>regions: a guarded device allocation and what it must hold afterwards */

#define GUARD 256                   /* canary bytes on each side of the data */
#define CANARY 0x5Au
#define POISON 0xA5u                /* outputs before the run: in every dtype a negative number, not a */
                                    /* NaN, so a NaN-tolerant comparison never mistakes it for a result */
#define CHUNK ((size_t)1 << 26)     /* staging size of uploads and read-backs */

static unsigned char canary_bytes[GUARD + 16];
static unsigned char *readback, *staging;

typedef enum view_kind {
    VIEW_BYTES,  /* compared byte for byte */
    VIEW_ELEMS,  /* rows x cols elements of dt in rows of ld; gpuact_ref_same per element */
    VIEW_SUMS    /* cols elements of dt compared with f64 column sums (dbias) */
} view_kind;

typedef struct region {
    const char *name;
    void *handle;                   /* the whole allocation: canary | data | canary */
    size_t lead, bytes, total;      /* the data is bytes [lead, lead + bytes) */
    const unsigned char *init;      /* data uploaded before the run; NULL: poison */
    unsigned char *want;            /* data expected after the run; NULL: init, unchanged */
    view_kind view;
    gpuact_dtype dt;
    size_t es, rows, cols, ld;      /* element size; rows x cols elements, rows ld elements apart */
    unsigned char *nan_any;         /* VIEW_ELEMS outputs: 1 where any NaN is right, indexed like want */
    double *sum, *sum_abs;          /* VIEW_SUMS: reference column sums of dx and of |dx| */
    double *sum_fin;                /* VIEW_SUMS: column sums of the finite |dx| only */
} region;

/* The regions of one operation; a region used in place appears once. */
typedef struct run { region reg[10]; int n; } run;

static void run_begin(run *r, const char *fmt, const char *label, const char *extra)
{
    r->n = 0;
    case_begin(fmt, label, extra);
}

/* init: the data to upload (NULL: poison). output: the run may write it. */
static region *region_add(run *r, const char *name, const void *init, size_t bytes,
                          size_t misalign, int output)
{
    region *g = &r->reg[r->n];
    gpuact_buffer b;
    memset(g, 0, sizeof *g);
    g->name = name;
    g->lead = GUARD + misalign;
    g->bytes = bytes;
    g->total = g->lead + bytes + GUARD;
    g->init = (const unsigned char *)init;
    g->view = VIEW_BYTES;
    g->es = g->rows = 1;
    g->cols = g->ld = bytes;
    if (output) {
        if (!(g->want = (unsigned char *)host_alloc(bytes)))
            return NULL;
        if (init)
            memcpy(g->want, init, bytes);
        else
            memset(g->want, POISON, bytes);
    }
    if (!call_ok(gpuact_buffer_alloc(ctx, g->total, &b), "gpuact_buffer_alloc")) {
        free(g->want);
        return NULL;
    }
    g->handle = b.handle;
    r->n++;
    return g;
}

static region *region_in(run *r, const char *name, const void *data, size_t bytes, size_t misalign)
{
    return region_add(r, name, data, bytes, misalign, 0);
}

static region *region_out(run *r, const char *name, size_t bytes, size_t misalign)
{
    return region_add(r, name, NULL, bytes, misalign, 1);
}

/* In place: uploaded with the input, expected to hold the output. */
static region *region_inout(run *r, const char *name, const void *data, size_t bytes, size_t misalign)
{
    return region_add(r, name, data, bytes, misalign, 1);
}

static gpuact_buffer at(const region *g)
{
    gpuact_buffer b;
    b.handle = g->handle;
    b.offset = g->lead;
    return b;
}

/* An output of rows x cols elements in rows of ld; the reference fills want and nan_any. */
static int view_elems(region *g, gpuact_dtype dt, size_t rows, size_t cols, size_t ld)
{
    g->view = VIEW_ELEMS;
    g->dt = dt;
    g->es = gpuact_dtype_size(dt);
    g->rows = rows;
    g->cols = cols;
    g->ld = ld;
    if (g->bytes != rows * ld * g->es) {
        fail("test bug: %s holds %zu bytes, not %zu x %zu x %zu", g->name, g->bytes, rows, ld, g->es);
        return 0;
    }
    g->nan_any = (unsigned char *)calloc(rows * ld + 1, 1);
    if (!g->nan_any)
        fail("out of host memory for %s's NaN flags", g->name);
    return g->nan_any != NULL;
}

/* A mask output: rows of ceil(cols / 8) bytes, mask_ld bits apart. */
static void view_mask(region *g, size_t rows, size_t cols, size_t mask_ld)
{
    g->rows = rows;
    g->cols = mask_bytes(cols);
    g->ld = mask_ld / 8;
}

/* A dbias output; the reference fills sum and sum_abs. */
static int view_sums(region *g, gpuact_dtype dt, size_t cols)
{
    g->view = VIEW_SUMS;
    g->dt = dt;
    g->es = gpuact_dtype_size(dt);
    g->rows = 1;
    g->cols = g->ld = cols;
    g->sum = (double *)calloc(cols + 1, sizeof(double));
    g->sum_abs = (double *)calloc(cols + 1, sizeof(double));
    g->sum_fin = (double *)calloc(cols + 1, sizeof(double));
    if (!g->sum || !g->sum_abs || !g->sum_fin)
        fail("out of host memory for %s's sums", g->name);
    return g->sum && g->sum_abs && g->sum_fin;
}

/* Per column, the sum of the finite |dx| a VIEW_ELEMS output expects. */
static void sum_finite_abs(const region *dx, double *out)
{
    size_t r, c;
    for (c = 0; c < dx->cols; c++)
        out[c] = 0.0;
    for (r = 0; r < dx->rows; r++) {
        for (c = 0; c < dx->cols; c++) {
            double v = fabs((double)gpuact_ref_load(dx->dt, dx->want, r * dx->ld + c));
            if (isfinite(v))
                out[c] += v;
        }
    }
}

static int write_at(const region *g, size_t offset, const void *src, size_t bytes)
{
    gpuact_buffer b;
    b.handle = g->handle;
    b.offset = offset;
    return bytes == 0 || call_ok(gpuact_buffer_write(ctx, b, src, bytes), "gpuact_buffer_write");
}

static int upload(const region *g)
{
    size_t p;
    if (g->total <= CHUNK) {   /* the usual case: one write of the whole allocation */
        memcpy(staging, canary_bytes, g->lead);
        if (g->init)
            memcpy(staging + g->lead, g->init, g->bytes);
        else
            memset(staging + g->lead, POISON, g->bytes);
        memcpy(staging + g->lead + g->bytes, canary_bytes, GUARD);
        return write_at(g, 0, staging, g->total);
    }
    if (!write_at(g, 0, canary_bytes, g->lead) ||
        !write_at(g, g->lead + g->bytes, canary_bytes, GUARD))
        return 0;
    if (g->init)
        return write_at(g, g->lead, g->init, g->bytes);
    memset(staging, POISON, CHUNK);
    for (p = 0; p < g->bytes; p += CHUNK)
        if (!write_at(g, g->lead + p, staging, g->bytes - p < CHUNK ? g->bytes - p : CHUNK))
            return 0;
    return 1;
}

static int run_upload(const run *r)
{
    int i;
    for (i = 0; i < r->n; i++)
        if (!upload(&r->reg[i]))
            return 0;
    return 1;
}

/* >>comparison */




static void report_elem(const region *g, size_t r, size_t c, uint32_t got, uint32_t want, const char *note)
{
    int w = (int)(2 * g->es);
    if (g->rows == 1)
        fail("%s[%zu]: got 0x%0*lx want 0x%0*lx%s", g->name, c,
             w, (unsigned long)got, w, (unsigned long)want, note);
    else
        fail("%s[%zu][%zu]: got 0x%0*lx want 0x%0*lx%s", g->name, r, c,
             w, (unsigned long)got, w, (unsigned long)want, note);
}

static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t k = 0;
    if (memcmp(a, b, n) == 0)
        return n;
    while (a[k] == b[k])
        k++;
    return k;
}

/* count elements of row r from column c0; got and want point at element c0. */
static int compare_elems(const region *g, const unsigned char *got, const unsigned char *want,
                         size_t r, size_t c0, size_t count)
{
    size_t i, k;
    switch (g->view) {
    case VIEW_BYTES:
        k = first_diff(got, want, count);
        if (k < count) {
            report_elem(g, r, c0 + k, got[k], want[k], g->init && !g->want ? " (input changed)" : "");
            return 0;
        }
        return 1;
    case VIEW_ELEMS:
        for (i = 0; i < count; i++) {
            size_t idx = r * g->ld + c0 + i;
            uint32_t gb = gpuact_ref_raw(g->dt, got, i), wb = gpuact_ref_raw(g->dt, want, i);
            if (!gpuact_ref_same(g->dt, gb, wb, g->nan_any[idx])) {
                report_elem(g, r, c0 + i, gb, wb, g->nan_any[idx] ? " (any NaN)" : "");
                return 0;
            }
        }
        return 1;
    case VIEW_SUMS:
        for (i = 0; i < count; i++) {
            size_t c = c0 + i;
            float v = gpuact_ref_load(g->dt, got, i);
            if (!harness_sum_ok(g->dt, v, g->sum[c], g->sum_abs[c], g->sum_fin[c])) {
                fail("%s[%zu]: got %.9g (0x%0*lx) want %.17g (sum |dx| %.9g)", g->name, c, v,
                     (int)(2 * g->es), (unsigned long)gpuact_ref_raw(g->dt, got, i), g->sum[c], g->sum_abs[c]);
                return 0;
            }
        }
        return 1;
    }
    return 0;
}

/* Compares allocation bytes [p0, p0 + len), read back into got. Elements
   never straddle a chunk: lead and CHUNK are multiples of the element size. */
static int compare_span(const region *g, const unsigned char *got, size_t p0, size_t len)
{
    const unsigned char *want = g->want ? g->want : g->init;
    size_t p = p0, end = p0 + len, data_end = g->lead + g->bytes;
    while (p < end) {
        if (p < g->lead || p >= data_end) {
            if (got[p - p0] != CANARY) {
                if (p < g->lead)
                    fail("%s: canary at data start - %zu overwritten: got 0x%02x want 0x%02x",
                         g->name, g->lead - p, got[p - p0], CANARY);
                else
                    fail("%s: canary at data end + %zu overwritten: got 0x%02x want 0x%02x",
                         g->name, p - data_end, got[p - p0], CANARY);
                return 0;
            }
            p++;
        } else {
            size_t q = p - g->lead, row_bytes = g->ld * g->es;
            size_t r = q / row_bytes, w = q % row_bytes, used = g->cols * g->es;
            size_t stop = g->lead + r * row_bytes + (w < used ? used : row_bytes);
            if (stop > end)
                stop = end;
            if (w < used) {
                if (!compare_elems(g, got + (p - p0), want + q, r, w / g->es, (stop - p) / g->es))
                    return 0;
            } else {
                size_t k = first_diff(got + (p - p0), want + q, stop - p);
                if (k < stop - p) {
                    fail("%s row %zu: padding byte %zu (past the row's %zu bytes) overwritten: got 0x%02x want 0x%02x",
                         g->name, r, w + k, used, got[p - p0 + k], want[q + k]);
                    return 0;
                }
            }
            p = stop;
        }
    }
    return 1;
}

static int check_region(const region *g)
{
    size_t p0;
    for (p0 = 0; p0 < g->total; p0 += CHUNK) {
        size_t len = g->total - p0 < CHUNK ? g->total - p0 : CHUNK;
        gpuact_buffer b;
        b.handle = g->handle;
        b.offset = p0;
        if (!call_ok(gpuact_buffer_read(ctx, readback, b, len), "gpuact_buffer_read") ||
            !compare_span(g, readback, p0, len))
            return 0;
    }
    return 1;
}

/* After the op was queued: its result, then every region, inputs included. */
static int run_check(const run *r, gpuact_result res, const char *what)
{
    int i;
    if (!call_ok(res, what) || !call_ok(gpuact_synchronize(ctx, NULL), "gpuact_synchronize"))
        return 0;
    for (i = 0; i < r->n; i++)
        if (!check_region(&r->reg[i]))
            return 0;
    return 1;
}

static void run_end(run *r)
{
    int i;
    for (i = 0; i < r->n; i++) {
        region *g = &r->reg[i];
        gpuact_buffer b;
        b.handle = g->handle;
        b.offset = 0;
        gpuact_buffer_free(ctx, b);
        free(g->want);
        free(g->nan_any);
        free(g->sum);
        free(g->sum_abs);
        free(g->sum_fin);
    }
    r->n = 0;
    case_end();
}

/* Padding bits of each row's last mask byte set to 1: a backward must ignore them. */
static void set_padding_bits(unsigned char *mask, size_t rows, size_t cols, size_t mask_ld)
{
    size_t r;
    if (cols % 8 == 0)
        return;
    for (r = 0; r < rows; r++)
        mask[r * (mask_ld / 8) + cols / 8] |= (unsigned char)(0xFFu << (cols % 8));
}

static const gpuact_activation ACTS[] = {
    {GPUACT_RELU, 0.0f, 0.0f, 0.0f, 0u},
    {GPUACT_LEAKY_RELU, 0.0f, 0.0f, 0.0f, 0u},
    {GPUACT_LEAKY_RELU, 0.01f, 0.0f, 0.0f, 0u},
    {GPUACT_LEAKY_RELU, 0.2f, 0.0f, 0.0f, 0u},
    {GPUACT_LEAKY_RELU, 1.0f, 0.0f, 0.0f, 0u},
    {GPUACT_CLIPPED_RELU, 0.0f, 6.0f, 0.0f, 0u},
    {GPUACT_CLIPPED_RELU, 0.0f, 0.5f, 0.0f, 0u},
    {GPUACT_CLIPPED_RELU, 0.0f, 1e-3f, 0.0f, 0u},
    {GPUACT_HARDTANH, 0.0f, 1.0f, -1.0f, 0u},      /* F.hardtanh's default */
    {GPUACT_HARDTANH, 0.0f, 0.5f, -2.0f, 0u},
    {GPUACT_HARDTANH, 0.0f, 0.0f, -1.0f, 0u},      /* an upper bound of 0: -0 stays -0 */
    {GPUACT_HARDTANH, 0.0f, 3.1f, -0.0f, 0u},      /* a lower bound of -0 acts as +0 */
    {GPUACT_GELU, 0.0f, 0.0f, 0.0f, 0u},
    {GPUACT_GELU_TANH, 0.0f, 0.0f, 0.0f, 0u},
    {GPUACT_SILU, 0.0f, 0.0f, 0.0f, 0u},
    {GPUACT_SQUARED_RELU, 0.0f, 0.0f, 0.0f, 0u},
    {GPUACT_GELU, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE},
    {GPUACT_GELU_TANH, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE},
    {GPUACT_SILU, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE}
};
#define N_ACTS (sizeof ACTS / sizeof ACTS[0])

/* >>elementwise: relu_forward/backward, forward/backward */

/* Inputs and reference results of one dtype x activation x n, shared by
   every placement and op. The elementwise ops are the epilogue's reference
   with one row, no bias, no scale and (f16/bf16) the ceiling rounded to the
   dtype. The backward's reference is always taken from x: from y and from
   the mask the bits must be the same. */
typedef struct ew_data {
    gpuact_dtype dt;
    gpuact_activation act;
    size_t n;
    unsigned char *x, *dy;          /* inputs */
    unsigned char *y, *y_nan;       /* the forward's output and where any NaN is right */
    unsigned char *mask;            /* the forward's mask */
    unsigned char *mask_in;         /* the same with each padding bit set: a backward must ignore them */
    unsigned char *dx, *dx_nan;     /* the backward's output */
} ew_data;

/* Where the buffers sit: x and dy at x_off elements, y and dx at y_off, the
   mask at mask_off bytes; in place means y = x and dx = dy. */
typedef struct ew_place {
    size_t x_off, y_off, mask_off;
    int in_place;
} ew_place;

typedef enum ew_source { FROM_X, FROM_Y, FROM_MASK } ew_source;

static void ew_free(ew_data *e)
{
    free(e->x);
    free(e->dy);
    free(e->y);
    free(e->y_nan);
    free(e->mask);
    free(e->mask_in);
    free(e->dx);
    free(e->dx_nan);
}

/* Past TILE elements the data repeats with that prime period: the reference
   runs once per period and is copied, which keeps a 2^31-element case
   quick. Every element is still compared, and a kernel index wrapped at
   2^31 or 2^32 reads a different value: no power of two is a multiple of
   the period. */
#define TILE ((size_t)1000003)

static void tile(unsigned char *buf, size_t period, size_t n, size_t es)
{
    size_t have = period;
    while (have < n) {
        size_t k = have < n - have ? have : n - have;
        memcpy(buf + have * es, buf, k * es);
        have += k;
    }
}

/* Mask bit i >= period is bit i % period. */
static void tile_mask(unsigned char *mask, size_t period, size_t n)
{
    size_t i, j = 0;
    for (i = period; i < n; i++) {
        mask[i / 8] = (unsigned char)((mask[i / 8] & ~(1u << (i % 8))) | (((mask[j / 8] >> (j % 8)) & 1u) << (i % 8)));
        if (++j == period)
            j = 0;
    }
}

static int ew_init(ew_data *e, gpuact_dtype dt, gpuact_activation act, size_t n)
{
    size_t es = gpuact_dtype_size(dt), bytes = n * es, mb = mask_bytes(n);
    size_t period = n < TILE ? n : TILE;
    gpuact_ref_rng rng = case_rng();
    gpuact_ref_fwd f;
    gpuact_ref_bwd b;
    memset(e, 0, sizeof *e);
    e->dt = dt;
    e->act = act;
    e->n = n;
    case_begin("setup %s %s n=%zu", dt_name(dt), act_name(act), n);
    e->x = (unsigned char *)host_alloc(bytes);
    e->dy = (unsigned char *)host_alloc(bytes);
    e->y = (unsigned char *)host_alloc(bytes);
    e->y_nan = (unsigned char *)host_alloc(n);
    e->mask = (unsigned char *)host_alloc(mb);
    e->mask_in = (unsigned char *)host_alloc(mb);
    e->dx = (unsigned char *)host_alloc(bytes);
    e->dx_nan = (unsigned char *)host_alloc(n);
    if (!e->x || !e->dy || !e->y || !e->y_nan || !e->mask || !e->mask_in || !e->dx || !e->dx_nan) {
        case_end();
        ew_free(e);
        return 0;
    }
    memset(e->mask, 0, mb);   /* tile_mask leaves the padding bits past n as they are */
    memset(&f, 0, sizeof f);
    f.act = gpuact_ref_elementwise_act(act, dt);
    gpuact_ref_fill(&rng, dt, e->x, period, 1, near_of(f.act));
    gpuact_ref_fill(&rng, dt, e->dy, period, 1, 1.0f);
    f.rows = 1;
    f.cols = f.ld_x = f.ld_y = period;
    f.mask_ld = 8 * mb;
    f.x_dtype = f.y_dtype = f.bias_dtype = dt;
    f.scale = 1.0f;
    f.x = e->x;
    f.y = e->y;
    f.mask = e->mask;
    f.nan_any = e->y_nan;
    gpuact_ref_forward(&f);

    memset(&b, 0, sizeof b);
    b.act = f.act;
    b.rows = 1;
    b.cols = b.ld_dy = b.ld_dx = b.ld_src = period;
    b.mask_ld = 8 * mb;
    b.dy_dtype = b.dx_dtype = b.src_dtype = dt;
    b.scale = 1.0f;
    b.dy = e->dy;
    b.src = e->x;
    b.dx = e->dx;
    b.nan_any = e->dx_nan;
    gpuact_ref_backward(&b);

    tile(e->x, period, n, es);
    tile(e->dy, period, n, es);
    tile(e->y, period, n, es);
    tile(e->dx, period, n, es);
    tile(e->y_nan, period, n, 1);
    tile(e->dx_nan, period, n, 1);
    tile_mask(e->mask, period, n);
    memcpy(e->mask_in, e->mask, mb);
    set_padding_bits(e->mask_in, 1, n, 8 * mb);
    return 1;
}

static const char *ew_label(const ew_data *e, const ew_place *p)
{
    static char buf[160];
    if (p->in_place)
        snprintf(buf, sizeof buf, "%s %s n=%zu off=%zu in-place", dt_name(e->dt), act_name(e->act), e->n, p->x_off);
    else
        snprintf(buf, sizeof buf, "%s %s n=%zu off x+%zu y+%zu out-of-place",
                 dt_name(e->dt), act_name(e->act), e->n, p->x_off, p->y_off);
    return buf;
}

/* The output of an elementwise run: the precomputed reference result. */
static void expect(region *g, const void *want, const unsigned char *nan_any)
{
    memcpy(g->want, want, g->bytes);
    if (nan_any)
        memcpy(g->nan_any, nan_any, g->rows * g->ld);
}

static void ew_forward(const ew_data *e, const ew_place *p, int shortcut, int with_mask)
{
    size_t es = gpuact_dtype_size(e->dt), bytes = e->n * es;
    char note[48] = "";
    run r;
    region *x, *y = NULL, *m = NULL;
    gpuact_result res;

    if (with_mask)
        snprintf(note, sizeof note, " with mask at +%zu bytes", p->mask_off);
    run_begin(&r, shortcut ? "relu_forward %s%s" : "forward %s%s", ew_label(e, p), note);
    if (p->in_place)
        x = y = region_inout(&r, "y=x", e->x, bytes, p->x_off * es);
    else if ((x = region_in(&r, "x", e->x, bytes, p->x_off * es)))
        y = region_out(&r, "y", bytes, p->y_off * es);
    if (!x || !y || (with_mask && !(m = region_out(&r, "mask", mask_bytes(e->n), p->mask_off))) ||
        !view_elems(y, e->dt, 1, e->n, e->n))
        goto done;
    expect(y, e->y, e->y_nan);
    if (m)
        expect(m, e->mask, NULL);
    if (!run_upload(&r))
        goto done;
    if (shortcut) {
        res = gpuact_relu_forward(ctx, e->dt, e->n, at(x), at(y), NULL);
    } else {
        gpuact_forward_desc d;
        memset(&d, 0, sizeof d);
        d.act = e->act;
        d.dtype = e->dt;
        d.n = e->n;
        d.x = at(x);
        d.y = at(y);
        if (m)
            d.mask = at(m);
        res = gpuact_forward(ctx, &d, NULL);
    }
    run_check(&r, res, shortcut ? "gpuact_relu_forward" : "gpuact_forward");
done:
    run_end(&r);
}

static void ew_backward(const ew_data *e, const ew_place *p, int shortcut, ew_source from)
{
    size_t es = gpuact_dtype_size(e->dt), bytes = e->n * es;
    char note[48];
    run r;
    region *dy, *dx = NULL, *src;
    gpuact_result res;

    if (from == FROM_MASK)
        snprintf(note, sizeof note, " from mask at +%zu bytes", p->mask_off);
    else
        snprintf(note, sizeof note, " from %s", from == FROM_X ? "x" : "y");
    run_begin(&r, shortcut ? "relu_backward %s%s" : "backward %s%s", ew_label(e, p), note);
    if (p->in_place)
        dy = dx = region_inout(&r, "dx=dy", e->dy, bytes, p->x_off * es);
    else if ((dy = region_in(&r, "dy", e->dy, bytes, p->x_off * es)))
        dx = region_out(&r, "dx", bytes, p->y_off * es);
    if (!dy || !dx || !view_elems(dx, e->dt, 1, e->n, e->n))
        goto done;
    if (from == FROM_MASK)
        src = region_in(&r, "mask", e->mask_in, mask_bytes(e->n), p->mask_off);
    else
        src = region_in(&r, from == FROM_X ? "x" : "y", from == FROM_X ? e->x : e->y, bytes, p->x_off * es);
    if (!src)
        goto done;
    expect(dx, e->dx, e->dx_nan);
    if (!run_upload(&r))
        goto done;
    if (shortcut) {
        res = gpuact_relu_backward(ctx, e->dt, e->n, at(dy), at(src), at(dx), NULL);
    } else {
        gpuact_backward_desc d;
        memset(&d, 0, sizeof d);
        d.act = e->act;
        d.dtype = e->dt;
        d.n = e->n;
        d.dy = at(dy);
        d.dx = at(dx);
        if (from == FROM_MASK)
            d.mask = at(src);
        else
            d.x = at(src);
        res = gpuact_backward(ctx, &d, NULL);
    }
    run_check(&r, res, shortcut ? "gpuact_relu_backward" : "gpuact_backward");
done:
    run_end(&r);
}

static void elementwise_suite(void)
{
    /* 7001: a work-item's first group or vector whole and its last one cut
       by the end (OpenCL 16-bit: 4096 elements a block, 7001 % 4096 > 2048) */
    static const size_t ALL_SIZES[] = {0, 1, 7, 8, 31, 33, 127, 4097, 7001, ((size_t)1 << 20) + 3};
    static const size_t SOME_SIZES[] = {0, 1, 7, 33, 4097, 7001, ((size_t)1 << 20) + 3};
    /* aligned, both off by one element, each alone off (the vector path
       needs every pointer aligned), in place aligned and off; the mask at
       0, 4, 1 and 3 bytes */
    static const ew_place PLACES[] = {
        {0, 0, 0, 0}, {1, 1, 4, 0}, {0, 1, 1, 0}, {1, 0, 3, 0}, {0, 0, 0, 1}, {1, 1, 4, 1}
    };
    size_t d, a, s, p;

    for (d = 0; d < 3; d++) {
        gpuact_dtype dt = (gpuact_dtype)d;
        for (a = 0; a < N_ACTS; a++) {
            int relu = ACTS[a].kind == GPUACT_RELU;
            const size_t *sizes = relu ? ALL_SIZES : SOME_SIZES;
            size_t n_sizes = relu ? sizeof ALL_SIZES / sizeof ALL_SIZES[0] : sizeof SOME_SIZES / sizeof SOME_SIZES[0];
            for (s = 0; s < n_sizes; s++) {
                ew_data e;
                if (!ew_init(&e, dt, ACTS[a], sizes[s]))
                    continue;
                for (p = 0; p < sizeof PLACES / sizeof PLACES[0]; p++) {
                    if (relu) {
                        ew_forward(&e, &PLACES[p], 1, 0);
                        ew_backward(&e, &PLACES[p], 1, FROM_X);
                        ew_backward(&e, &PLACES[p], 1, FROM_Y);
                    }
                    ew_forward(&e, &PLACES[p], 0, 0);
                    ew_backward(&e, &PLACES[p], 0, FROM_X);
                    if (gpuact_ref_smooth(ACTS[a]))   /* no mask; the backward needs x */
                        continue;
                    ew_forward(&e, &PLACES[p], 0, 1);
                    ew_backward(&e, &PLACES[p], 0, FROM_Y);
                    ew_backward(&e, &PLACES[p], 0, FROM_MASK);
                }
                ew_free(&e);
            }
        }
    }
}

/* One large f32 relu, past 2^31 elements (and mask bits) on the GPU machine:
   64-bit indexing; then a bf16 SiLU of as many elements. */
static void large_suite(size_t n)
{
    static const ew_place ALIGNED = {0, 0, 0, 0};
    gpuact_activation relu = {GPUACT_RELU, 0.0f, 0.0f, 0.0f, 0u}, silu = {GPUACT_SILU, 0.0f, 0.0f, 0.0f, 0u};
    ew_data e;
    if (n == 0 || !ew_init(&e, GPUACT_F32, relu, n))
        return;
    ew_forward(&e, &ALIGNED, 1, 0);
    ew_forward(&e, &ALIGNED, 0, 1);
    ew_backward(&e, &ALIGNED, 1, FROM_X);
    ew_backward(&e, &ALIGNED, 0, FROM_MASK);
    ew_free(&e);
    /* a kind with exp: launched as a matrix of rows and a ragged rest
       (gpuact__dispatch_rows), forward and backward */
    if (!ew_init(&e, GPUACT_BF16, silu, n))
        return;
    ew_forward(&e, &ALIGNED, 0, 0);
    ew_backward(&e, &ALIGNED, 0, FROM_X);
    ew_free(&e);
}

/* >>epilogue: forward and backward (from the mask and from y) */

typedef struct epi_case {
    gpuact_activation act;
    size_t rows, cols;
    float scale;
    gpuact_dtype xt, yt, bt, dyt, dxt, dbt;
    size_t ld_x, ld_y, ld_dy, ld_dx, mask_ld;  /* explicit values */
    size_t off, mask_off;        /* every matrix and vector off by `off` elements; the mask by mask_off bytes */
    int bias, fwd_mask;          /* with bias; forward writes the mask */
    int in_place, bwd_in_place;  /* y = x; dx = dy */
    int dbias, bias_specials, dy_specials;
    int defaults;                /* pass 0 for ld == cols, scale == 1 and mask_ld == cols rounded to 128 */
    char label[256];
    unsigned char *x, *b, *y, *m, *dy;   /* host data: y and m from the reference forward */
} epi_case;

static size_t es_of(gpuact_dtype dt) { return gpuact_dtype_size(dt); }

static size_t desc_ld(const epi_case *c, size_t ld)
{
    return c->defaults && ld == c->cols ? 0 : ld;
}

static void epi_ref_forward(const epi_case *c, void *y, unsigned char *mask, unsigned char *nan_any)
{
    gpuact_ref_fwd p;
    memset(&p, 0, sizeof p);
    p.act = c->act;
    p.rows = c->rows;
    p.cols = c->cols;
    p.ld_x = c->ld_x;
    p.ld_y = c->ld_y;
    p.mask_ld = c->mask_ld;
    p.x_dtype = c->xt;
    p.y_dtype = c->yt;
    p.bias_dtype = c->bt;
    p.scale = c->scale;
    p.x = c->x;
    p.bias = c->bias ? c->b : NULL;
    p.y = y;
    p.mask = mask;
    p.nan_any = nan_any;
    gpuact_ref_forward(&p);
}

static void epi_free(epi_case *c)
{
    free(c->x);
    free(c->b);
    free(c->y);
    free(c->m);
    free(c->dy);
}

static int epi_data(epi_case *c)
{
    gpuact_ref_rng rng = case_rng();
    size_t mbytes = c->rows * c->mask_ld / 8;
    case_begin("setup epilogue %s", c->label);
    c->x = (unsigned char *)host_alloc(c->rows * c->ld_x * es_of(c->xt));
    c->b = (unsigned char *)host_alloc(c->cols * es_of(c->bt));
    c->y = (unsigned char *)host_alloc(c->rows * c->ld_y * es_of(c->yt));
    c->m = (unsigned char *)host_alloc(mbytes);
    c->dy = (unsigned char *)host_alloc(c->rows * c->ld_dy * es_of(c->dyt));
    if (!c->x || !c->b || !c->y || !c->m || !c->dy) {
        case_end();
        epi_free(c);
        return 0;
    }
    gpuact_ref_fill(&rng, c->xt, c->x, c->rows * c->ld_x, 1, near_of(c->act));
    gpuact_ref_fill(&rng, c->bt, c->b, c->cols, c->bias_specials, 0.0f);
    gpuact_ref_fill(&rng, c->yt, c->y, c->rows * c->ld_y, 1, 0.0f);  /* row padding stays random */
    gpuact_ref_fill(&rng, c->dyt, c->dy, c->rows * c->ld_dy, c->dy_specials, 1.0f);
    memset(c->m, POISON, mbytes);                                    /* and so do mask bytes past a row */
    epi_ref_forward(c, c->y, c->m, NULL);
    set_padding_bits(c->m, c->rows, c->cols, c->mask_ld);
    return 1;
}

static void epi_forward(const epi_case *c)
{
    run r;
    region *x, *y = NULL, *b = NULL, *m = NULL;
    gpuact_epilogue_desc d;

    run_begin(&r, "epilogue_forward %s%s", c->label, c->fwd_mask ? "" : " no mask");
    if (c->in_place)
        x = y = region_inout(&r, "y=x", c->x, c->rows * c->ld_x * es_of(c->xt), c->off * es_of(c->xt));
    else if ((x = region_in(&r, "x", c->x, c->rows * c->ld_x * es_of(c->xt), c->off * es_of(c->xt))))
        y = region_out(&r, "y", c->rows * c->ld_y * es_of(c->yt), c->off * es_of(c->yt));
    if (!x || !y || !view_elems(y, c->yt, c->rows, c->cols, c->ld_y) ||
        (c->bias && !(b = region_in(&r, "bias", c->b, c->cols * es_of(c->bt), c->off * es_of(c->bt)))) ||
        (c->fwd_mask && !(m = region_out(&r, "mask", c->rows * c->mask_ld / 8, c->mask_off))))
        goto done;
    if (m)
        view_mask(m, c->rows, c->cols, c->mask_ld);
    epi_ref_forward(c, y->want, m ? m->want : NULL, y->nan_any);
    if (!run_upload(&r))
        goto done;
    memset(&d, 0, sizeof d);
    d.act = c->act;
    d.rows = c->rows;
    d.cols = c->cols;
    d.x_dtype = c->xt;
    d.y_dtype = c->yt;
    d.bias_dtype = c->bt;
    d.ld_x = desc_ld(c, c->ld_x);
    d.ld_y = desc_ld(c, c->ld_y);
    d.scale = c->defaults && c->scale == 1.0f ? 0.0f : c->scale;
    d.x = at(x);
    d.y = at(y);
    if (b)
        d.bias = at(b);
    if (m)
        d.mask = at(m);
    d.mask_ld = c->defaults && c->mask_ld == round_up(c->cols, 128) ? 0 : c->mask_ld;
    run_check(&r, gpuact_epilogue_forward(ctx, &d, NULL), "gpuact_epilogue_forward");
done:
    run_end(&r);
}

typedef enum epi_source { SRC_MASK, SRC_Y, SRC_X } epi_source;

static void epi_backward(const epi_case *c, epi_source from)
{
    run r;
    region *dy, *dx = NULL, *src, *db = NULL, *xb = NULL;
    gpuact_epilogue_backward_desc d;
    gpuact_ref_bwd p;
    unsigned char *first = NULL;
    /* from x, the bias goes along when it has x's dtype (the backward's rule) */
    int with_bias = from == SRC_X && c->bias && c->bt == c->xt;

    run_begin(&r, "epilogue_backward %s%s", c->label,
              from == SRC_Y ? " from y" : from == SRC_MASK ? " from mask" : with_bias ? " from x+bias" : " from x");
    if (c->bwd_in_place)
        dy = dx = region_inout(&r, "dx=dy", c->dy, c->rows * c->ld_dy * es_of(c->dyt), c->off * es_of(c->dyt));
    else if ((dy = region_in(&r, "dy", c->dy, c->rows * c->ld_dy * es_of(c->dyt), c->off * es_of(c->dyt))))
        dx = region_out(&r, "dx", c->rows * c->ld_dx * es_of(c->dxt), c->off * es_of(c->dxt));
    if (!dy || !dx || !view_elems(dx, c->dxt, c->rows, c->cols, c->ld_dx))
        goto done;
    src = from == SRC_Y ? region_in(&r, "y", c->y, c->rows * c->ld_y * es_of(c->yt), c->off * es_of(c->yt))
          : from == SRC_X ? region_in(&r, "x", c->x, c->rows * c->ld_x * es_of(c->xt), c->off * es_of(c->xt))
                          : region_in(&r, "mask", c->m, c->rows * c->mask_ld / 8, c->mask_off);
    if (with_bias && !(xb = region_in(&r, "bias", c->b, c->cols * es_of(c->bt), c->off * es_of(c->bt))))
        goto done;
    if (!src || (c->dbias && (!(db = region_out(&r, "dbias", c->cols * es_of(c->dbt), c->off * es_of(c->dbt))) ||
                              !view_sums(db, c->dbt, c->cols))))
        goto done;

    memset(&p, 0, sizeof p);
    p.act = c->act;
    p.rows = c->rows;
    p.cols = c->cols;
    p.ld_dy = c->ld_dy;
    p.ld_dx = c->ld_dx;
    p.ld_src = from == SRC_X ? c->ld_x : c->ld_y;
    p.mask_ld = c->mask_ld;
    p.dy_dtype = c->dyt;
    p.dx_dtype = c->dxt;
    p.src_dtype = from == SRC_X ? c->xt : c->yt;
    p.scale = c->scale;
    p.dy = c->dy;
    p.src = from == SRC_Y ? c->y : from == SRC_X ? c->x : NULL;
    p.mask = from == SRC_MASK ? c->m : NULL;
    p.bias = with_bias ? c->b : NULL;
    p.dx = dx->want;
    p.dbias = db ? db->sum : NULL;
    p.dbias_abs = db ? db->sum_abs : NULL;
    p.nan_any = dx->nan_any;
    gpuact_ref_backward(&p);
    if (db)
        sum_finite_abs(dx, db->sum_fin);

    memset(&d, 0, sizeof d);
    d.act = c->act;
    d.rows = c->rows;
    d.cols = c->cols;
    d.dy_dtype = c->dyt;
    d.dx_dtype = c->dxt;
    d.y_dtype = c->yt;
    d.dbias_dtype = c->dbt;
    d.ld_dy = desc_ld(c, c->ld_dy);
    d.ld_dx = desc_ld(c, c->ld_dx);
    d.ld_y = desc_ld(c, c->ld_y);
    d.scale = c->defaults && c->scale == 1.0f ? 0.0f : c->scale;
    d.dy = at(dy);
    d.dx = at(dx);
    if (from == SRC_Y) {
        d.y = at(src);
    } else if (from == SRC_X) {
        d.x = at(src);
        d.x_dtype = c->xt;
        d.ld_x = desc_ld(c, c->ld_x);
        if (xb)
            d.bias = at(xb);
    } else {
        d.mask = at(src);
    }
    d.mask_ld = c->defaults && c->mask_ld == round_up(c->cols, 128) ? 0 : c->mask_ld;
    if (db)
        d.dbias = at(db);

    if (!run_upload(&r) || !run_check(&r, gpuact_epilogue_backward(ctx, &d, NULL), "gpuact_epilogue_backward") || !db)
        goto done;
    /* Run it again from fresh poison: dbias must come out bit-identical. */
    if (!(first = (unsigned char *)host_alloc(db->bytes)) ||
        !call_ok(gpuact_buffer_read(ctx, first, at(db), db->bytes), "gpuact_buffer_read") ||
        !run_upload(&r) ||
        !run_check(&r, gpuact_epilogue_backward(ctx, &d, NULL), "gpuact_epilogue_backward (second run)") ||
        !call_ok(gpuact_buffer_read(ctx, readback, at(db), db->bytes), "gpuact_buffer_read"))
        goto done;
    {
        size_t k = first_diff(first, readback, db->bytes) / db->es;
        if (k < c->cols)
            fail("dbias[%zu] differs between two identical runs: 0x%0*lx then 0x%0*lx", k,
                 (int)(2 * db->es), (unsigned long)gpuact_ref_raw(c->dbt, first, k),
                 (int)(2 * db->es), (unsigned long)gpuact_ref_raw(c->dbt, readback, k));
    }
done:
    free(first);
    run_end(&r);
}

static void epi_label(epi_case *c)
{
    char bwd[96];
    snprintf(bwd, sizeof bwd, "dy=%s dx=%s%s%s%s ld_dy=%zu ld_dx=%zu%s", dt_name(c->dyt), dt_name(c->dxt),
             c->dbias ? " dbias=" : "", c->dbias ? dt_name(c->dbt) : "", c->dy_specials ? " dy-specials" : "",
             c->ld_dy, c->ld_dx, c->bwd_in_place ? " dx=dy" : "");
    snprintf(c->label, sizeof c->label,
             "%zux%zu %s x=%s y=%s %s%s scale=%g ld_x=%zu ld_y=%zu mask_ld=%zu mask+%zu off=%zu%s%s | %s",
             c->rows, c->cols, act_name(c->act), dt_name(c->xt), dt_name(c->yt),
             c->bias ? "bias=" : "no-bias", c->bias ? dt_name(c->bt) : "", c->scale, c->ld_x, c->ld_y,
             c->mask_ld, c->mask_off, c->off, c->in_place ? " in-place" : "",
             c->defaults ? " zero-defaults" : "", bwd);
}

/* Option `salt` of case k, one of n: every option comes up, in varied company. */
static unsigned pick(unsigned long k, unsigned salt, unsigned n)
{
    return (unsigned)(mix64((uint64_t)k * 64u + salt) % n);
}

static void epi_setup(epi_case *c, unsigned long k, gpuact_activation act, size_t rows, size_t cols,
                      float scale, int bias)
{
    static const size_t PAD[3] = {0, 3, 16};
    static const size_t MASK_OFF[3] = {0, 1, 3};
    size_t mask_lds[3];
    mask_lds[0] = round_up(cols, 128);
    mask_lds[1] = round_up(cols, 8);
    mask_lds[2] = round_up(cols, 8) + 64;
    memset(c, 0, sizeof *c);
    c->act = act;
    c->rows = rows;
    c->cols = cols;
    c->scale = scale;
    c->bias = bias;
    c->xt = (gpuact_dtype)pick(k, 1, 3);
    c->yt = (gpuact_dtype)pick(k, 2, 3);
    c->bt = (gpuact_dtype)pick(k, 3, 3);
    c->dyt = (gpuact_dtype)pick(k, 4, 3);
    c->dxt = (gpuact_dtype)pick(k, 5, 3);
    c->dbt = (gpuact_dtype)pick(k, 6, 3);
    c->ld_x = cols + PAD[pick(k, 7, 3)];
    c->ld_y = cols + PAD[pick(k, 8, 3)];
    c->ld_dy = cols + PAD[pick(k, 9, 3)];
    c->ld_dx = cols + PAD[pick(k, 10, 3)];
    c->mask_ld = mask_lds[pick(k, 11, 3)];
    c->off = pick(k, 12, 2);
    c->mask_off = MASK_OFF[pick(k, 13, 3)];
    c->fwd_mask = pick(k, 14, 4) != 0;
    c->in_place = pick(k, 15, 4) == 0;
    c->bwd_in_place = pick(k, 16, 4) == 0;
    c->dbias = pick(k, 17, 4) != 0;
    c->bias_specials = pick(k, 18, 4) == 0;
    c->dy_specials = pick(k, 19, 2);
    c->defaults = pick(k, 20, 2);
    if (c->in_place)
        c->yt = c->xt;
    if (c->bwd_in_place)
        c->dxt = c->dyt;
}

/* In place needs one dtype and one ld; the label comes last. */
static void epi_run(epi_case *c)
{
    c->in_place = c->in_place && c->xt == c->yt;
    c->fwd_mask = c->fwd_mask && !gpuact_ref_smooth(c->act);
    c->bwd_in_place = c->bwd_in_place && c->dyt == c->dxt;
    if (c->in_place)
        c->ld_y = c->ld_x;
    if (c->bwd_in_place)
        c->ld_dx = c->ld_dy;
    epi_label(c);
    if (!epi_data(c))
        return;
    epi_forward(c);
    if (gpuact_ref_smooth(c->act)) {          /* the smooth kinds' backward needs x (and the bias) */
        epi_backward(c, SRC_X);
    } else {
        epi_backward(c, SRC_MASK);
        if (c->act.kind == GPUACT_RELU || c->act.kind == GPUACT_LEAKY_RELU) /* the bounded kinds need the mask */
            epi_backward(c, SRC_Y);             /* (all scales here are > 0) */
    }
    epi_free(c);
}

static void epilogue_suite(void)
{
    /* {3, 3001}: rows whose last work-items' second group is cut by the row's end (see elementwise_suite) */
    static const size_t SHAPES[][2] = {{1, 1}, {3, 5}, {7, 33}, {257, 129}, {5, 4099}, {3, 3001}, {1024, 512}, {2048, 1031}};
    static const float SCALES[] = {1.0f, 0.5f, 1.0f / 3.0f};
    unsigned long k = 0;
    size_t s, a, v;
    unsigned combo;

    /* Every shape x activation x {no bias, scale 1; bias, 0.5; bias, 1/3}; the
       largest shape once per activation. Dtypes, lds, offsets, mask_ld and
       placement vary from case to case. */
    for (s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        for (a = 0; a < N_ACTS; a++) {
            size_t variants = SHAPES[s][0] * SHAPES[s][1] > 1000000 ? 1 : 3;
            for (v = 0; v < variants; v++) {
                epi_case c;
                size_t sv = variants == 1 ? a % 3 : v;
                epi_setup(&c, ++k, ACTS[a], SHAPES[s][0], SHAPES[s][1], SCALES[sv], sv != 0);
                epi_run(&c);
            }
        }
    }
    /* Every x/y/bias dtype combination at 257x129 with every activation; the
       backward's dy/dx/dbias dtypes run through all 27 combinations too. */
    for (a = 0; a < N_ACTS; a++) {
        for (combo = 0; combo < 27; combo++) {
            epi_case c;
            epi_setup(&c, ++k, ACTS[a], 257, 129, SCALES[(combo + a) % 3], 1);
            c.xt = (gpuact_dtype)(combo % 3);
            c.yt = (gpuact_dtype)(combo / 3 % 3);
            c.bt = (gpuact_dtype)(combo / 9);
            c.dyt = (gpuact_dtype)((combo + a) % 3);
            c.dxt = (gpuact_dtype)((combo / 3 + a) % 3);
            c.dbt = (gpuact_dtype)((combo / 9 + a) % 3);
            c.dbias = 1;
            epi_run(&c);
        }
    }
    /* Many short rows: enough blocks that a block row of the forward walks
       several rows even on a GPU with many compute units
       (gpuact__rows_per_block), a row count no power of two divides; with
       the bias at scale 1 (the flags' own row loop), at 0.5, and neither. */
    for (a = 0; a < N_ACTS; a++) {
        for (v = 0; v < 3; v++) {
            epi_case c;
            epi_setup(&c, ++k, ACTS[a], 33013, 9, v == 1 ? 0.5f : 1.0f, v != 2);
            epi_run(&c);
        }
    }
}

/* Every kernel variant the API can reach, at least once: every activation
   kind x every x/y/bias dtype triple x {bias and scale 0.5, neither} x
   {forward with the mask and a backward with dbias, neither}, with the
   backward's dy/dx and the forward's y dtypes running through all 27
   triples alongside; small matrices with a ragged last vector. Together
   with the other suites this launches all of them (variants_launched). */
static void variant_suite(void)
{
    static const gpuact_activation KINDS[] = {
        {GPUACT_RELU, 0.0f, 0.0f, 0.0f, 0u},      {GPUACT_LEAKY_RELU, 0.125f, 0.0f, 0.0f, 0u},
        {GPUACT_CLIPPED_RELU, 0.0f, 1.5f, 0.0f, 0u}, {GPUACT_HARDTANH, 0.0f, 1.5f, -0.75f, 0u},
        {GPUACT_GELU, 0.0f, 0.0f, 0.0f, 0u},      {GPUACT_GELU_TANH, 0.0f, 0.0f, 0.0f, 0u},
        {GPUACT_SILU, 0.0f, 0.0f, 0.0f, 0u},      {GPUACT_SQUARED_RELU, 0.0f, 0.0f, 0.0f, 0u},
        {GPUACT_GELU, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE}, {GPUACT_GELU_TANH, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE},
        {GPUACT_SILU, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE}};
    unsigned long k = 900000;
    unsigned a, combo, general, with;
    for (a = 0; a < sizeof KINDS / sizeof KINDS[0]; a++)
        for (combo = 0; combo < 27; combo++)
            for (general = 0; general < 2; general++)
                for (with = 0; with < 2; with++) {
                    epi_case c;
                    epi_setup(&c, ++k, KINDS[a], 3, 37, general ? 0.5f : 1.0f, (int)general);
                    c.xt = (gpuact_dtype)(combo % 3);
                    c.yt = (gpuact_dtype)(combo / 3 % 3);
                    c.bt = (gpuact_dtype)(combo / 9);
                    c.dyt = (gpuact_dtype)(combo % 3);
                    c.dxt = (gpuact_dtype)(combo / 9);
                    c.dbt = (gpuact_dtype)((combo + a) % 3);
                    c.fwd_mask = (int)with;
                    c.dbias = (int)with;
                    c.in_place = c.bwd_in_place = 0;
                    if (gpuact_ref_smooth(KINDS[a])) { /* the backward reads x: its dtype runs apart from dy's */
                        c.dyt = (gpuact_dtype)(combo / 3 % 3);
                    }
                    epi_run(&c);
                }
}

/* >>glu: the gated forward and backward */

typedef struct glu_case {
    gpuact_activation act;
    size_t rows, cols, pad;
    gpuact_dtype xt, yt, dyt, dbt;
    int halves, bias, dbias;      /* a and b the halves of one buffer's rows (and da, db; the biases) */
    char label[200];
} glu_case;

/* One matrix region of rows x cols elements, rows ld apart, whose reference
   output the caller fills (want, nan_any). */
static region *glu_out(run *r, const char *name, gpuact_dtype dt, size_t rows, size_t cols, size_t ld)
{
    region *g = region_out(r, name, rows * ld * gpuact_dtype_size(dt), 0);
    return g && view_elems(g, dt, rows, cols, ld) ? g : NULL;
}

static gpuact_buffer at_plus(const region *g, size_t bytes)
{
    gpuact_buffer b = at(g);
    b.offset += bytes;
    return b;
}

static void glu_run(const glu_case *c)
{
    const size_t es = gpuact_dtype_size(c->xt), cols = c->cols, rows = c->rows;
    const size_t ld = c->halves ? 2 * cols + c->pad : cols + c->pad, ldo = cols + c->pad;
    const size_t half = c->halves ? cols : 0; /* b's (and db's) first element in a row of the shared buffer */
    gpuact_ref_rng rng = case_rng();
    unsigned char *x = NULL, *x2 = NULL, *bias = NULL, *dy = NULL;
    run r;
    region *ra, *rb, *rba = NULL, *rbb = NULL, *ry, *rdy, *rda, *rdb, *rdba = NULL, *rdbb = NULL;
    gpuact_glu_desc f;
    gpuact_glu_backward_desc b;
    gpuact_ref_glu rf;
    gpuact_ref_glu_bwd rb_;
    size_t i, k;

    case_begin("setup glu %s", c->label, "");
    x = (unsigned char *)host_alloc(rows * ld * es);
    x2 = (unsigned char *)host_alloc(rows * ld * es);
    bias = (unsigned char *)host_alloc(2 * cols * es);
    dy = (unsigned char *)host_alloc(rows * ldo * gpuact_dtype_size(c->dyt));
    case_end();
    if (!x || !x2 || !bias || !dy)
        goto out;
    gpuact_ref_fill(&rng, c->xt, x, rows * ld, 1, 0.0f);
    gpuact_ref_fill(&rng, c->xt, x2, rows * ld, 1, 0.0f);
    gpuact_ref_fill(&rng, c->xt, bias, 2 * cols, (int)(c->rows % 2), 0.0f);
    gpuact_ref_fill(&rng, c->dyt, dy, rows * ldo, 1, 1.0f);

    /* forward */
    run_begin(&r, "glu_forward %s%s", c->label, "");
    ra = region_in(&r, "a", x, rows * ld * es, 0);
    rb = c->halves ? ra : region_in(&r, "b", x2, rows * ld * es, 0);
    if (c->bias)
        rba = rbb = region_in(&r, "bias", bias, 2 * cols * es, 0);
    ry = glu_out(&r, "y", c->yt, rows, cols, ldo);
    if (!ra || !rb || (c->bias && !rba) || !ry)
        goto fwd_done;
    memset(&rf, 0, sizeof rf);
    rf.act = c->act;
    rf.rows = rows; rf.cols = cols; rf.ld_a = rf.ld_b = ld; rf.ld_y = ldo;
    rf.x_dtype = c->xt; rf.y_dtype = c->yt;
    rf.a = x;
    rf.b = c->halves ? x + half * es : x2;
    rf.bias_a = c->bias ? bias : NULL;
    rf.bias_b = c->bias ? bias + cols * es : NULL;
    rf.y = ry->want;
    rf.nan_any = ry->nan_any;
    gpuact_ref_glu_forward(&rf);
    if (!run_upload(&r))
        goto fwd_done;
    memset(&f, 0, sizeof f);
    f.act = c->act;
    f.rows = rows; f.cols = cols; f.x_dtype = c->xt; f.y_dtype = c->yt;
    f.ld_a = f.ld_b = ld; f.ld_y = ldo == cols ? 0 : ldo;
    f.a = at(ra);
    f.b = at_plus(rb, half * es);
    if (c->bias) {
        f.bias_a = at(rba);
        f.bias_b = at_plus(rbb, cols * es);
    }
    f.y = at(ry);
    run_check(&r, gpuact_glu_forward(ctx, &f, NULL), "gpuact_glu_forward");
fwd_done:
    run_end(&r);

    /* backward: da and db in one buffer's halves (ld) or two (ldo) */
    run_begin(&r, "glu_backward %s%s", c->label, c->dbias ? " dbias" : "");
    rdy = region_in(&r, "dy", dy, rows * ldo * gpuact_dtype_size(c->dyt), 0);
    ra = region_in(&r, "a", x, rows * ld * es, 0);
    rb = c->halves ? ra : region_in(&r, "b", x2, rows * ld * es, 0);
    if (c->bias)
        rba = rbb = region_in(&r, "bias", bias, 2 * cols * es, 0);
    if (c->halves) {
        rda = rdb = glu_out(&r, "dx", c->xt, rows, 2 * cols, ld);
        if (c->dbias && (rdba = rdbb = region_out(&r, "dbias", 2 * cols * gpuact_dtype_size(c->dbt), 0)))
            view_sums(rdba, c->dbt, 2 * cols);
    } else {
        rda = glu_out(&r, "da", c->xt, rows, cols, ld);
        rdb = glu_out(&r, "db", c->xt, rows, cols, ld);
        if (c->dbias && (rdba = region_out(&r, "dbias_a", cols * gpuact_dtype_size(c->dbt), 0)) &&
            (rdbb = region_out(&r, "dbias_b", cols * gpuact_dtype_size(c->dbt), 0))) {
            view_sums(rdba, c->dbt, cols);
            view_sums(rdbb, c->dbt, cols);
        }
    }
    if (!rdy || !ra || !rb || (c->bias && !rba) || !rda || !rdb || (c->dbias && (!rdba || !rdbb)))
        goto bwd_done;
    memset(&rb_, 0, sizeof rb_);
    rb_.act = c->act;
    rb_.rows = rows; rb_.cols = cols; rb_.ld_dy = ldo; rb_.ld_a = rb_.ld_b = ld; rb_.ld_da = rb_.ld_db = ld;
    rb_.dy_dtype = c->dyt; rb_.x_dtype = c->xt;
    rb_.dy = dy;
    rb_.a = x;
    rb_.b = c->halves ? x + half * es : x2;
    rb_.bias_a = c->bias ? bias : NULL;
    rb_.bias_b = c->bias ? bias + cols * es : NULL;
    rb_.da = rda->want;
    rb_.db = rdb->want + half * es;
    rb_.da_nan = rda->nan_any;
    rb_.db_nan = rdb->nan_any + half;
    gpuact_ref_glu_backward(&rb_);
    if (c->dbias) { /* the column sums of the stored da and db, in f64 */
        for (k = 0; k < 2; k++) {
            const region *src = k ? rdb : rda;
            region *dst = k ? rdbb : rdba;
            const size_t c0 = k ? half : 0, d0 = c->halves && k ? cols : 0;
            for (i = 0; i < rows * cols; i++) {
                const size_t rr = i / cols, cc = i % cols;
                double v = (double)gpuact_ref_load(c->xt, src->want, rr * ld + c0 + cc);
                dst->sum[d0 + cc] += v;
                dst->sum_abs[d0 + cc] += fabs(v);
            }
        }
        if (c->halves) {
            sum_finite_abs(rda, rdba->sum_fin);
        } else {
            sum_finite_abs(rda, rdba->sum_fin);
            sum_finite_abs(rdb, rdbb->sum_fin);
        }
    }
    if (!run_upload(&r))
        goto bwd_done;
    memset(&b, 0, sizeof b);
    b.act = c->act;
    b.rows = rows; b.cols = cols; b.dy_dtype = c->dyt; b.x_dtype = c->xt; b.dbias_dtype = c->dbt;
    b.ld_dy = ldo == cols ? 0 : ldo; b.ld_a = b.ld_b = b.ld_da = b.ld_db = ld;
    b.dy = at(rdy);
    b.a = at(ra);
    b.b = at_plus(rb, half * es);
    if (c->bias) {
        b.bias_a = at(rba);
        b.bias_b = at_plus(rbb, cols * es);
    }
    b.da = at(rda);
    b.db = at_plus(rdb, half * es);
    if (c->dbias) {
        b.dbias_a = at(rdba);
        b.dbias_b = c->halves ? at_plus(rdbb, cols * gpuact_dtype_size(c->dbt)) : at(rdbb);
    }
    run_check(&r, gpuact_glu_backward(ctx, &b, NULL), "gpuact_glu_backward");
bwd_done:
    run_end(&r);
out:
    free(x);
    free(x2);
    free(bias);
    free(dy);
}

/* One gated case: combo picks x's dtype (combo % 3) and y's (combo / 3),
   s the layout (halves of one matrix when odd) and, with combo, whether
   the backward writes the bias gradient; k the case's random choices. */
static void glu_one(unsigned long k, gpuact_activation act, size_t rows, size_t cols, size_t combo, size_t s)
{
    glu_case c;
    memset(&c, 0, sizeof c);
    c.act = act;
    c.rows = rows;
    c.cols = cols;
    c.pad = pick(k, 1, 2) ? 0 : 5;
    c.xt = (gpuact_dtype)(combo % 3);
    c.yt = (gpuact_dtype)(combo / 3);
    c.dyt = (gpuact_dtype)(combo / 3);
    c.dbt = (gpuact_dtype)pick(k, 2, 3);
    c.halves = (int)(s % 2);
    c.bias = pick(k, 3, 3) != 0;
    c.dbias = (int)((s + combo) % 2);
    snprintf(c.label, sizeof c.label, "%zux%zu %s x=%s y/dy=%s%s%s%s pad %zu", c.rows, c.cols, act_name(c.act),
             dt_name(c.xt), dt_name(c.yt), c.halves ? " halves" : " two buffers", c.bias ? " bias" : "",
             c.dbias ? " dbias=" : "", c.pad);
    if (c.dbias)
        strncat(c.label, dt_name(c.dbt), sizeof c.label - strlen(c.label) - 1);
    glu_run(&c);
}

/* ---- few-bit codes ------------------------------------------------------------
   The forward writing codes (y and the packed codes, byte for byte) and the
   backward from codes (dx, dbias), epilogue and elementwise, against the
   reference: every kind with a table, every bit count, every dtype pair,
   odd sizes, n = 0, offsets, tails, padded rows, a long row (the kernels'
   view of it as rows), dx in place of dy. */
typedef struct codes_case {
    gpuact_activation act;
    int bits, elementwise, bias, dbias, in_place;
    float scale;
    size_t rows, cols, ld, codes_ld, off;        /* ld: x, y, dy, dx; off: elements before each array */
    gpuact_dtype xt, yt, dyt, dxt, dbt;
} codes_case;

static size_t codes_bytes(const codes_case *c)
{
    return c->rows ? (c->rows - 1) * (c->codes_ld / 8 * (size_t)gpuact_ref_code_slot(c->bits)) +
                         gpuact_ref_codes_row_bytes(c->cols, c->bits)
                   : 0;
}

static void codes_run(const codes_case *c)
{
    gpuact_ref_rng rng = case_rng();
    const size_t n = c->rows * c->ld, cb = codes_bytes(c) + 1, row_cb = c->codes_ld / 8 * gpuact_ref_code_slot(c->bits);
    unsigned char *x = (unsigned char *)host_alloc(n * 4 + 4), *b = (unsigned char *)host_alloc(c->cols * 4 + 4);
    unsigned char *dyd = (unsigned char *)host_alloc(n * 4 + 4), *codes = (unsigned char *)host_alloc(cb);
    char label[256];
    run r;
    region *gx, *gy, *gb = NULL, *gc, *gdy, *gdx, *gdb = NULL;
    gpuact_ref_fwd f;
    gpuact_ref_bwd p;

    snprintf(label, sizeof label, "%s %d-bit %s %zux%zu ld %zu codes_ld %zu off %zu x %s y %s dy %s dx %s%s%s%s scale %g",
             act_name(c->act), c->bits, c->elementwise ? "elementwise" : "epilogue", c->rows, c->cols, c->ld,
             c->codes_ld, c->off, dt_name(c->xt), dt_name(c->yt), dt_name(c->dyt), dt_name(c->dxt),
             c->bias ? " bias" : "", c->dbias ? " dbias" : "", c->in_place ? " in place" : "", (double)c->scale);
    if (!x || !b || !dyd || !codes)
        goto out;
    gpuact_ref_fill(&rng, c->xt, x, n, 1, 0.0f);
    gpuact_ref_fill(&rng, c->xt, b, c->cols, 0, 0.0f);
    gpuact_ref_fill(&rng, c->dyt, dyd, n, 1, 1.0f);

    /* forward: y and the codes */
    run_begin(&r, "codes forward %s%s", label, "");
    gx = region_in(&r, "x", x, n * es_of(c->xt), c->off * es_of(c->xt));
    gy = region_out(&r, "y", n * es_of(c->yt), c->off * es_of(c->yt));
    gc = region_out(&r, "codes", cb - 1, 4 * c->off);
    if (!gx || !gy || !gc || !view_elems(gy, c->yt, c->rows, c->cols, c->ld) ||
        (c->bias && !(gb = region_in(&r, "bias", b, c->cols * es_of(c->xt), c->off * es_of(c->xt)))))
        goto fwd_done;
    gc->rows = c->rows;
    gc->cols = gpuact_ref_codes_row_bytes(c->cols, c->bits);
    gc->ld = row_cb;
    memset(&f, 0, sizeof f);
    f.act = c->act;
    f.rows = c->rows;
    f.cols = c->cols;
    f.ld_x = f.ld_y = c->ld;
    f.x_dtype = c->xt;
    f.y_dtype = c->yt;
    f.bias_dtype = c->xt;
    f.scale = c->scale;
    f.x = x;
    f.bias = c->bias ? b : NULL;
    f.y = gy->want;
    f.nan_any = gy->nan_any;
    f.codes = gc->want;
    f.code_bits = c->bits;
    f.codes_ld = c->codes_ld;
    gpuact_ref_forward(&f);
    if (!run_upload(&r))
        goto fwd_done;
    if (c->elementwise) {
        gpuact_forward_desc d;
        memset(&d, 0, sizeof d);
        d.act = c->act;
        d.dtype = c->xt;
        d.n = c->cols;
        d.x = at(gx);
        d.y = at(gy);
        d.codes = at(gc);
        d.code_bits = c->bits;
        run_check(&r, gpuact_forward(ctx, &d, NULL), "gpuact_forward");
    } else {
        gpuact_epilogue_desc d;
        memset(&d, 0, sizeof d);
        d.act = c->act;
        d.rows = c->rows;
        d.cols = c->cols;
        d.x_dtype = c->xt;
        d.y_dtype = c->yt;
        d.bias_dtype = c->xt;
        d.ld_x = d.ld_y = c->ld;
        d.scale = c->scale;
        d.x = at(gx);
        d.y = at(gy);
        if (gb)
            d.bias = at(gb);
        d.codes = at(gc);
        d.code_bits = c->bits;
        d.codes_ld = c->codes_ld;
        run_check(&r, gpuact_epilogue_forward(ctx, &d, NULL), "gpuact_epilogue_forward");
    }
    memcpy(codes, gc->want, cb - 1);
fwd_done:
    run_end(&r);

    /* backward from the reference's codes, padding bits of each row set: they must be ignored */
    {
        size_t i, used = gpuact_ref_codes_row_bytes(c->cols, c->bits);
        for (i = 0; i < c->rows && (c->cols * gpuact_ref_code_slot(c->bits)) % 8; i++)
            codes[i * row_cb + used - 1] |= (unsigned char)(0xFFu << (c->cols * gpuact_ref_code_slot(c->bits) % 8));
    }
    run_begin(&r, "codes backward %s%s", label, "");
    if (c->in_place)
        gdy = gdx = region_inout(&r, "dx=dy", dyd, n * es_of(c->dyt), c->off * es_of(c->dyt));
    else if ((gdy = region_in(&r, "dy", dyd, n * es_of(c->dyt), c->off * es_of(c->dyt))))
        gdx = region_out(&r, "dx", n * es_of(c->dxt), c->off * es_of(c->dxt));
    else
        gdx = NULL;
    gc = region_in(&r, "codes", codes, cb - 1, 4 * c->off);
    if (!gdy || !gdx || !gc || !view_elems(gdx, c->dxt, c->rows, c->cols, c->ld) ||
        (c->dbias && (!(gdb = region_out(&r, "dbias", c->cols * es_of(c->dbt), c->off * es_of(c->dbt))) ||
                      !view_sums(gdb, c->dbt, c->cols))))
        goto bwd_done;
    memset(&p, 0, sizeof p);
    p.act = c->act;
    p.rows = c->rows;
    p.cols = c->cols;
    p.ld_dy = p.ld_dx = c->ld;
    p.dy_dtype = c->dyt;
    p.dx_dtype = c->dxt;
    p.src_dtype = c->dyt;
    p.scale = c->scale;
    p.dy = dyd;
    p.dx = gdx->want;
    p.dbias = gdb ? gdb->sum : NULL;
    p.dbias_abs = gdb ? gdb->sum_abs : NULL;
    p.nan_any = gdx->nan_any;
    p.codes = codes;
    p.code_bits = c->bits;
    p.codes_ld = c->codes_ld;
    gpuact_ref_backward(&p);
    if (gdb)
        sum_finite_abs(gdx, gdb->sum_fin);
    if (!run_upload(&r))
        goto bwd_done;
    if (c->elementwise) {
        gpuact_backward_desc d;
        memset(&d, 0, sizeof d);
        d.act = c->act;
        d.dtype = c->dyt;
        d.n = c->cols;
        d.dy = at(gdy);
        d.dx = at(gdx);
        d.codes = at(gc);
        d.code_bits = c->bits;
        run_check(&r, gpuact_backward(ctx, &d, NULL), "gpuact_backward");
    } else {
        gpuact_epilogue_backward_desc d;
        memset(&d, 0, sizeof d);
        d.act = c->act;
        d.rows = c->rows;
        d.cols = c->cols;
        d.dy_dtype = c->dyt;
        d.dx_dtype = c->dxt;
        d.dbias_dtype = c->dbt;
        d.ld_dy = d.ld_dx = c->ld;
        d.scale = c->scale;
        d.dy = at(gdy);
        d.dx = at(gdx);
        if (gdb)
            d.dbias = at(gdb);
        d.codes = at(gc);
        d.code_bits = c->bits;
        d.codes_ld = c->codes_ld;
        run_check(&r, gpuact_epilogue_backward(ctx, &d, NULL), "gpuact_epilogue_backward");
    }
bwd_done:
    run_end(&r);
out:
    free(x);
    free(b);
    free(dyd);
    free(codes);
}

static void codes_suite(void)
{
    static const gpuact_activation_kind KINDS[] = {GPUACT_GELU, GPUACT_GELU_TANH, GPUACT_SILU};
    static const gpuact_dtype DTS[] = {GPUACT_F32, GPUACT_F16, GPUACT_BF16};
    static const size_t COLS[] = {1, 7, 8, 33, 130, 1000, 4099};
    static const size_t N[] = {0, 1, 5, 31, 64, 1027, 2 * 8192 + 77};
    unsigned long k = 0;
    size_t i, j, t, pr;
    codes_case c;
    /* the epilogue: every kind, evaluation and (x, y) dtype pair forward; every (dy, dx) pair and
       dbias backward; bits, shapes, bias, scale and offsets rotate */
    for (t = 0; t < 3; t++)
        for (pr = 0; pr < 2; pr++)
            for (i = 0; i < 3; i++)
                for (j = 0; j < 3; j++, k++) {
                    memset(&c, 0, sizeof c);
                    c.act.kind = KINDS[t];
                    c.act.flags = pr ? GPUACT_ACT_PRECISE : 0;
                    c.bits = (int)(k % 4) + 1;
                    c.rows = 1 + k % 5;
                    c.cols = COLS[k % 7];
                    c.ld = c.cols + (k % 3 == 0 ? 0 : 1 + k % 9);
                    c.codes_ld = round_up(c.cols, 32) + (k % 2 ? 32 : 0);
                    c.off = k % 4;
                    c.xt = DTS[i];
                    c.yt = DTS[j];
                    c.dyt = DTS[i];
                    c.dxt = DTS[j];
                    c.dbt = DTS[(i + j + k) % 3];
                    c.bias = k % 3 != 1;
                    c.dbias = k % 2 == 0;
                    c.in_place = c.dyt == c.dxt && k % 4 == 1;
                    c.scale = k % 5 == 2 ? -0.75f : k % 5 == 4 ? 3.0f : 1.0f;
                    codes_run(&c);
                    c.dbias = !c.dbias;   /* the backward's other variant */
                    c.bits = (int)((k + 2) % 4) + 1;
                    codes_run(&c);
                }
    /* elementwise: one dtype, every kind and bit count, odd sizes, n = 0, a long row */
    for (t = 0; t < 3; t++)
        for (i = 0; i < 4; i++)
            for (j = 0; j < 7; j++, k++) {
                memset(&c, 0, sizeof c);
                c.act.kind = KINDS[t];
                c.elementwise = 1;
                c.bits = (int)i + 1;
                c.rows = 1;
                c.cols = c.ld = N[j];
                c.codes_ld = round_up(c.cols, 32);
                c.off = (k % 3) * 2;
                c.xt = c.yt = c.dyt = c.dxt = DTS[k % 3];
                c.scale = 1.0f;
                c.in_place = k % 2;
                codes_run(&c);
            }
}

/* Every gating kind x the forward's x/y and the backward's dy/x dtypes,
   with and without biases and the bias gradient, a and b as the halves of
   one buffer or two; ragged shapes and padded rows. */
static void glu_suite(void)
{
    static const gpuact_activation KINDS[] = {
        {GPUACT_RELU, 0.0f, 0.0f, 0.0f, 0u}, {GPUACT_GELU, 0.0f, 0.0f, 0.0f, 0u},
        {GPUACT_GELU_TANH, 0.0f, 0.0f, 0.0f, 0u}, {GPUACT_SILU, 0.0f, 0.0f, 0.0f, 0u},
        {GPUACT_GELU, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE}, {GPUACT_GELU_TANH, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE},
        {GPUACT_SILU, 0.0f, 0.0f, 0.0f, GPUACT_ACT_PRECISE}};
    static const size_t SHAPES[][2] = {{1, 1}, {3, 37}, {65, 129}, {7, 1031}, {3, 3001}}; /* 3001: see epilogue_suite */
    unsigned long k = 700000;
    size_t a, combo, s;
    for (a = 0; a < sizeof KINDS / sizeof KINDS[0]; a++)
        for (combo = 0; combo < 9; combo++)
            for (s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
                glu_one(++k, KINDS[a], SHAPES[s][0], SHAPES[s][1], combo, s);
    /* Many short rows, so that a block row of the gated forward walks
       several of them even on a GPU with many compute units
       (gpuact__rows_per_block); x and y of one dtype, each dtype. */
    for (a = 0; a < sizeof KINDS / sizeof KINDS[0]; a++)
        for (combo = 0; combo < 9; combo += 4)
            glu_one(++k, KINDS[a], 33013, 9, combo, a + combo / 4);
}

/* >>main */

static int suite_on(const char *suites, const char *name)
{
    const char *p = suites;
    size_t n = strlen(name);
    if (!suites)
        return 1;
    while ((p = strstr(p, name)) != NULL) {
        if ((p == suites || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
        p += n;
    }
    return 0;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* Every kernel variant the API can reach must have run on this backend:
   lists the ones that did not (each is a FAIL) and counts the rest. */
static void variants_launched(void)
{
    char name[96];
    int i, state, reachable = 0, launched = 0;
    case_begin("every reachable kernel variant launched");
    for (i = 0; (state = gpuact_testing_variant(ctx, i, name, sizeof name)) >= 0; i++) {
        reachable += state > 0;
        launched += state == 2;
        if (state == 1)
            printf("  never launched: %s\n", name);
    }
    printf("variants: %d of %d reachable kernel variants launched\n", launched, reachable);
    if (!reachable || launched != reachable)
        fail("%d of %d reachable variants never launched (listed above)", reachable - launched, reachable);
    case_end();
}

/* GPUACT_CONFORMANCE_LAUNCHED=FILE (with GPUACT_CONFORMANCE_SUITES): the
   variants this run launched, one "backend slot" line each, appended, so
   runs of parts of the suite side by side (make test) can be checked
   together with --launched. */
static void record_launched(const char *path, const char *backend)
{
    FILE *f = fopen(path, "a");
    int i, state;
    if (!f) {
        printf("FAIL GPUACT_CONFORMANCE_LAUNCHED=%s: cannot append\n", path);
        n_failed++;
        return;
    }
    for (i = 0; (state = gpuact_testing_variant(ctx, i, NULL, 0)) >= 0; i++)
        if (state == 2)
            fprintf(f, "%s %d\n", backend, i);
    if (fclose(f) != 0) {
        printf("FAIL GPUACT_CONFORMANCE_LAUNCHED=%s: write error\n", path);
        n_failed++;
    }
}

/* conformance --launched FILE...: for every backend named in the files
   (record_launched), whether each reachable variant was launched by one of
   the runs; fails when a file names no backend or one is missing. */
static int check_launched(int nfiles, char **files)
{
    static const gpuact_backend ALL[] = {GPUACT_BACKEND_CUDA, GPUACT_BACKEND_HIP, GPUACT_BACKEND_OPENCL};
    const char *NAMES[3];
    unsigned char *seen[3];
    int b, f, i, state, slots = 0, failed = 0, backends = 0;
    char name[96];
    for (b = 0; b < 3; b++)
        NAMES[b] = gpuact_backend_name(ALL[b]);
    while (gpuact_testing_variant(NULL, slots, NULL, 0) >= 0)
        slots++;
    seen[0] = (unsigned char *)calloc(3 * (size_t)slots + 1, 1);
    if (!seen[0]) {
        printf("FAIL --launched: out of host memory\n");
        return 1;
    }
    seen[1] = seen[0] + slots;
    seen[2] = seen[1] + slots;
    for (f = 0; f < nfiles; f++) {
        FILE *in = fopen(files[f], "r");
        char backend[16];
        int slot;
        if (!in) {
            printf("FAIL --launched: cannot read %s\n", files[f]);
            free(seen[0]);
            return 1;
        }
        while (fscanf(in, "%15s %d", backend, &slot) == 2)
            for (b = 0; b < 3; b++)
                if (!strcmp(backend, NAMES[b]) && slot >= 0 && slot < slots)
                    seen[b][slot] = 1;
        fclose(in);
    }
    for (b = 0; b < 3; b++) {
        int reachable = 0, launched = 0, any = 0;
        for (i = 0; i < slots; i++) any |= seen[b][i];
        if (!any)
            continue;
        backends++;
        for (i = 0; (state = gpuact_testing_variant(NULL, i, name, sizeof name)) >= 0; i++) {
            reachable += state > 0;
            launched += state > 0 && seen[b][i];
            if (state > 0 && !seen[b][i])
                printf("  never launched on %s: %s\n", NAMES[b], name);
        }
        printf("variants: %d of %d reachable kernel variants launched (%s, %d runs)\n", launched, reachable, NAMES[b],
               nfiles);
        failed |= !reachable || launched != reachable;
    }
    free(seen[0]);
    if (!backends)
        printf("FAIL --launched: the files name no backend\n");
    printf("%s\n", failed || !backends ? "FAIL variants never launched" : "ok every reachable variant launched");
    return failed || !backends;
}

int main(int argc, char **argv)
{
    static const gpuact_backend BACKENDS[] = {
#ifndef GPUACT_NO_CUDA
        GPUACT_BACKEND_CUDA,
#endif
#ifndef GPUACT_NO_HIP
        GPUACT_BACKEND_HIP,
#endif
#ifndef GPUACT_NO_OPENCL
        GPUACT_BACKEND_OPENCL,
#endif
    };
    const char *only = env_or("GPUACT_BACKEND", NULL);
    const char *large_env = env_or("GPUACT_CONFORMANCE_LARGE", NULL);
    /* GPUACT_CONFORMANCE_SUITES=glu,epilogue...: only those (for debugging; no variant count) */
    const char *suites = env_or("GPUACT_CONFORMANCE_SUITES", NULL);
    const char *launched_out = env_or("GPUACT_CONFORMANCE_LAUNCHED", NULL);
    size_t large = ((size_t)1 << 27) + 5;
    size_t i;
    int i_arg, tested = 0;

    if (argc > 1 && strcmp(argv[1], "--launched") == 0)
        return check_launched(argc - 2, argv + 2);
    for (i_arg = 1; i_arg < argc; i_arg++) {
        if (strcmp(argv[i_arg], "-v") == 0) {
            verbose = 1;
        } else {
            fprintf(stderr, "usage: %s [-v] | --launched FILE...\n", argv[0]);
            return 2;
        }
    }
    if (only && strcmp(only, "cuda") != 0 && strcmp(only, "hip") != 0 && strcmp(only, "opencl") != 0) {
        fprintf(stderr, "GPUACT_BACKEND=%s: expected cuda, hip or opencl\n", only);
        return 2;
    }
    if (large_env) {
        char *end;
        unsigned long long v = strtoull(large_env, &end, 0);
        if (*end != '\0' || v > SIZE_MAX / 4) {
            fprintf(stderr, "GPUACT_CONFORMANCE_LARGE=%s: expected an element count\n", large_env);
            return 2;
        }
        large = (size_t)v;
    }
    memset(canary_bytes, CANARY, sizeof canary_bytes);
    readback = (unsigned char *)malloc(CHUNK);
    staging = (unsigned char *)malloc(CHUNK);
    if (!readback || !staging) {
        fprintf(stderr, "out of host memory\n");
        return 2;
    }

    if (only) {
        for (i = 0; i < sizeof BACKENDS / sizeof BACKENDS[0]; i++)
            if (strcmp(gpuact_backend_name(BACKENDS[i]), only) == 0)
                break;
        if (i == sizeof BACKENDS / sizeof BACKENDS[0])
            printf("SKIP %s: compiled out of this build\n", only);
    }
    for (i = 0; i < sizeof BACKENDS / sizeof BACKENDS[0]; i++) {
        gpuact_context_desc desc;
        gpuact_result res;
        if (only && strcmp(gpuact_backend_name(BACKENDS[i]), only) != 0)
            continue;
        memset(&desc, 0, sizeof desc);
        desc.backend = BACKENDS[i];
        desc.cache_dir = NULL;   /* the default: $GPUACT_CACHE_DIR or ~/.cache/gpuact */
        res = gpuact_context_create(&desc, &ctx);
        if (res != GPUACT_SUCCESS) {
            printf("SKIP %s: %s\n", gpuact_backend_name(BACKENDS[i]), harness_first_line(gpuact_last_error()));
            continue;
        }
        printf("backend %s: %s\n", gpuact_backend_name(BACKENDS[i]), gpuact_context_device_name(ctx));
        fflush(stdout);
        tested++;
        if (suite_on(suites, "elementwise")) elementwise_suite();
        if (suite_on(suites, "epilogue")) epilogue_suite();
        if (suite_on(suites, "variant")) variant_suite();
        if (suite_on(suites, "glu")) glu_suite();
        if (suite_on(suites, "codes")) codes_suite();
        if (suite_on(suites, "large")) large_suite(large);
        if (!suites) variants_launched(); /* only a full run launches them all */
        else if (launched_out) record_launched(launched_out, gpuact_backend_name(BACKENDS[i]));
        gpuact_context_destroy(ctx);
        ctx = NULL;
    }
    free(readback);
    free(staging);
    /* GPUACT_CONFORMANCE_REQUIRE=1 (make test sets it: `make deps` installs
       PoCL): a run in which every backend was skipped is a failure, so CI
       cannot pass without having tested anything. */
    if (tested == 0 && getenv("GPUACT_CONFORMANCE_REQUIRE") && atoi(getenv("GPUACT_CONFORMANCE_REQUIRE"))) {
        printf("FAIL no backend could be tested, and GPUACT_CONFORMANCE_REQUIRE is set\n");
        n_failed++;
    }
    printf("%lu passed, %lu failed\n", n_passed, n_failed);
    return n_failed == 0 && (n_passed > 0 || tested == 0) ? 0 : 1;
}
