/* Every kernel variant: the epilogue over every dtype triple and kind, and
   the check that the suites together launched every reachable variant.
   Part of tests/conformance.c (one translation unit). */

/* Every kernel variant the API can reach, at least once: every activation
   kind x every x/y/bias dtype triple x {bias and scale 0.5, neither} x
   {forward with the mask and a backward with dbias, neither}, with the
   backward's dy/dx and the forward's y dtypes running through all 27
   triples alongside; small matrices with a ragged last vector. Together
   with the other suites this launches all of them (variants_launched). */
static void variant_suite(void)
{
    /* every kind of the table, then the precise evaluation of each kind
       that has one; a parameter wherever the kind's row uses it */
    gpuact_activation KINDS[2 * GPUACT_KIND_COUNT];
    unsigned long k = 900000;
    unsigned a, n = 0, combo, general, with;
    for (a = 0; a < 2 * GPUACT_KIND_COUNT; a++) {
        gpuact_activation_kind kind = (gpuact_activation_kind)(a % GPUACT_KIND_COUNT);
        if (a >= GPUACT_KIND_COUNT && !((GPUACT_TRANSCENDENTAL_KINDS >> kind) & 1u))
            continue;
        memset(&KINDS[n], 0, sizeof KINDS[n]);
        KINDS[n].kind = kind;
        KINDS[n].negative_slope = gpuact_ref_kind_has(kind, GPUACT_REF_SLOPE) ? 0.125f : 0.0f;
        KINDS[n].ceiling = gpuact_ref_kind_has(kind, GPUACT_REF_CEILING) ? 1.5f : 0.0f;
        KINDS[n].lower = gpuact_ref_kind_has(kind, GPUACT_REF_LOWER) ? -0.75f : 0.0f;
        KINDS[n++].flags = a >= GPUACT_KIND_COUNT ? GPUACT_ACT_PRECISE : 0u;
    }
    for (a = 0; a < n; a++)
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
