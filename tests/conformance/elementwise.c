/* The elementwise ops (gpuact_relu_forward/backward, gpuact_forward/backward)
   and the large case. Part of tests/conformance.c (one translation unit). */

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
#define EVERY16 ((size_t)1 << 16) /* a 16-bit case of this size runs every input */

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
    ref_fill(&rng, dt, e->x, period, 1, near_of(f.act));
    ref_fill(&rng, dt, e->dy, period, 1, 1.0f);
    if (es == 2 && n == EVERY16) { /* x takes every 16-bit pattern once */
        size_t i;
        for (i = 0; i < n; i++) {
            e->x[2 * i] = (unsigned char)(i & 0xFFu);
            e->x[2 * i + 1] = (unsigned char)(i >> 8);
        }
    }
    f.rows = 1;
    f.cols = f.ld_x = f.ld_y = period;
    f.mask_ld = 8 * mb;
    f.x_dtype = f.y_dtype = f.bias_dtype = dt;
    f.scale = 1.0f;
    f.x = e->x;
    f.y = e->y;
    f.mask = e->mask;
    f.nan_any = e->y_nan;
    ref_forward(&f);

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
    ref_backward(&b);

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
    static const size_t ALL_SIZES[] = {0, 1, 7, 8, 31, 33, 127, 4097, 7001, EVERY16, ((size_t)1 << 20) + 3};
    static const size_t SOME_SIZES[] = {0, 1, 7, 33, 4097, 7001, EVERY16, ((size_t)1 << 20) + 3};
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
