/* The gated ops (glu_forward, glu_backward). Part of tests/conformance.c
   (one translation unit). */

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
    ref_fill(&rng, c->xt, x, rows * ld, 1, 0.0f);
    ref_fill(&rng, c->xt, x2, rows * ld, 1, 0.0f);
    ref_fill(&rng, c->xt, bias, 2 * cols, (int)(c->rows % 2), 0.0f);
    ref_fill(&rng, c->dyt, dy, rows * ldo, 1, 1.0f);

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
    ref_glu_forward(&rf);
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
    ref_glu_backward(&rb_);
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
