/* The conformance suite's machinery, shared by its parts: cases (one
   line per failure), regions (guarded device allocations and what they
   must hold afterwards), the comparison with the CPU reference, and the
   activations every part runs (ACTS). Included once, by tests/conformance.c. */

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
        snprintf(b, sizeof buf[0], "%s", gpuact__kind_names[(unsigned)a.kind < GPUACT_KIND_COUNT ? (int)a.kind
                                                                                                 : GPUACT_KIND_COUNT]);
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
        i = ref_first_wrong(g->dt, got, want, g->nan_any + r * g->ld + c0, count);
        if (i < count) {
            size_t idx = r * g->ld + c0 + i;
            report_elem(g, r, c0 + i, gpuact_ref_raw(g->dt, got, i), gpuact_ref_raw(g->dt, want, i),
                        g->nan_any[idx] & GPUACT_REF_ANY_NAN ? " (any NaN)" : g->nan_any[idx] ? " (or a neighbour)" : "");
            return 0;
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

/* ACTS holds every kind of the table, and the precise evaluation of each
   kind that has one: a kind added to the table and not here fails. */
static void acts_cover_the_table(void)
{
    unsigned k, precise, i;
    for (k = 0; k < GPUACT_KIND_COUNT; k++)
        for (precise = 0; precise <= ((GPUACT_TRANSCENDENTAL_KINDS >> k) & 1u); precise++) {
            for (i = 0; i < N_ACTS && !((unsigned)ACTS[i].kind == k && !!ACTS[i].flags == !!precise); i++) {}
            if (i == N_ACTS) {
                printf("FAIL conformance.c's ACTS has no %s%s: add its cases\n", gpuact__kind_names[k],
                       precise ? " with GPUACT_ACT_PRECISE" : "");
                n_failed++;
            }
        }
}
