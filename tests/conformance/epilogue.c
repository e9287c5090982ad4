/* The epilogue, forward and backward (from the mask, from y and from x).
   Part of tests/conformance.c (one translation unit). */

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
    ref_forward(&p);
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
    ref_fill(&rng, c->xt, c->x, c->rows * c->ld_x, 1, near_of(c->act));
    ref_fill(&rng, c->bt, c->b, c->cols, c->bias_specials, 0.0f);
    ref_fill(&rng, c->yt, c->y, c->rows * c->ld_y, 1, 0.0f);  /* row padding stays random */
    ref_fill(&rng, c->dyt, c->dy, c->rows * c->ld_dy, c->dy_specials, 1.0f);
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
    ref_backward(&p);
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
