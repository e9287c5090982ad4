/* The few-bit codes: the forward writing them and the backward from them
   (kernels/fewbit.h). Part of tests/conformance.c (one translation unit). */

/* ---- few-bit codes ------------------------------------------------------------
   The forward writing codes (y and the packed codes, byte for byte) and the
   backward from codes (dx, dbias), epilogue and elementwise, against the
   reference: every kind with a table, every bit count, every dtype pair,
   odd sizes, n = 0, offsets, tails (3-bit: every row end in a word group),
   padded rows, a long row (the kernels' view of it as rows), dx in place
   of dy. */
typedef struct codes_case {
    gpuact_activation act;
    int bits, elementwise, bias, dbias, in_place;
    float scale;
    size_t rows, cols, ld, codes_ld, off;        /* ld: x, y, dy, dx; off: elements before each array */
    gpuact_dtype xt, yt, dyt, dxt, dbt;
} codes_case;

static size_t codes_bytes(const codes_case *c)
{
    return c->rows ? (c->rows - 1) * (c->codes_ld / 8 * (size_t)c->bits) +
                         gpuact_ref_codes_row_bytes(c->cols, c->bits)
                   : 0;
}

static void codes_run(const codes_case *c)
{
    gpuact_ref_rng rng = case_rng();
    const size_t n = c->rows * c->ld, cb = codes_bytes(c) + 1, row_cb = c->codes_ld / 8 * c->bits;
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
    ref_fill(&rng, c->xt, x, n, 1, 0.0f);
    ref_fill(&rng, c->xt, b, c->cols, 0, 0.0f);
    ref_fill(&rng, c->dyt, dyd, n, 1, 1.0f);

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
    ref_forward(&f);
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
        for (i = 0; i < c->rows && (c->cols * c->bits) % 8; i++)
            codes[i * row_cb + used - 1] |= (unsigned char)(0xFFu << (c->cols * c->bits % 8));
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
    ref_backward(&p);
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
    static const gpuact_dtype DTS[] = {GPUACT_F32, GPUACT_F16, GPUACT_BF16};
    static const size_t COLS[] = {1, 7, 8, 33, 130, 1000, 4099};
    static const size_t N[] = {0, 1, 5, 31, 64, 1027, 2 * 8192 + 77};
    gpuact_activation_kind KINDS[GPUACT_KIND_COUNT]; /* the kinds with a table, GPUACT_CODES_KINDS */
    unsigned long k = 0;
    size_t i, j, t, pr, nk = 0;
    codes_case c;
    for (t = 0; t < GPUACT_KIND_COUNT; t++)
        if ((GPUACT_CODES_KINDS >> t) & 1u)
            KINDS[nk++] = (gpuact_activation_kind)t;
    /* the epilogue: every kind, evaluation and (x, y) dtype pair forward; every (dy, dx) pair and
       dbias backward; bits, shapes, bias, scale and offsets rotate */
    for (t = 0; t < nk; t++)
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
    for (t = 0; t < nk; t++)
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
    /* 3-bit codes cross bytes and words: every row end within a warp's 3-word units (f32: 8 lanes
       of 4 elements, 16-bit: 4 of 8), two rows, the second starting on a word */
    for (j = 1; j <= 40; j++, k++) {
        memset(&c, 0, sizeof c);
        c.act.kind = KINDS[k % nk];
        c.bits = 3;
        c.rows = 2;
        c.cols = c.ld = j + (j > 32 ? 1000 : 0);
        c.codes_ld = round_up(c.cols, 32) + (k % 2 ? 32 : 0);
        c.off = k % 4;
        c.xt = c.yt = c.dyt = c.dxt = c.dbt = DTS[k % 3];
        c.bias = k % 2;
        c.dbias = k % 3 == 0;
        c.scale = 1.0f;
        codes_run(&c);
    }
}
