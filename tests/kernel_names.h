/* Shared by rtc_check.c and hip_rtc_check.c: which kernels a check compiles
   and how it finds them.

   A job is one op's program (as the backend composes it) followed by one
   GPUACT_KERNEL line for each variant of the job, named as the backend
   names it. The first target of a check compiles every reachable variant
   (gpuact__variant_reachable: the ones the API can launch) but the precise
   ones (GPUACT_ACT_PRECISE) with mixed dtypes: the precise field swaps the
   smooth.h functions a kernel calls and nothing else, and those functions
   are compiled in the precise variants of one dtype; the others
   compile every dtype triple at a few settings of the fields per op, the
   most involved ones (leaky writing/reading the mask with dbias and the
   general paths; clipped on the selection path; GELU, the heaviest smooth
   math, with dbias; the glu ops with SiLU and dbias), so the check stays
   within minutes. Then every kernel is looked up by its name in the code,
   and a job that holds no kernel fails. */
static int glu_op(int op) { return op == GPUACT_OP_glu_forward || op == GPUACT_OP_glu_backward; }

static int jobs_of(int op, int full) { return full || op == GPUACT_OP_dbias || glu_op(op) ? 1 : 3; }

static const char *job_label(int op, int full, int job) {
    if (full || op == GPUACT_OP_dbias) return "every variant";
    if (glu_op(op)) return "silu";
    return job == 0 ? "leaky, general" : job == 1 ? "clipped, plain" : "gelu";
}

static int in_job(const gpuact__variant *V, int full, int job) {
    if (!gpuact__variant_reachable(V)) return 0;
    if (V->precise && !(V->t[0] == V->t[1] && V->t[1] == V->t[2])) return 0;
    if (full || V->op == GPUACT_OP_dbias) return 1;
    if (glu_op(V->op)) return V->kind == GPUACT_KIND_silu && V->dbias == (V->op == GPUACT_OP_glu_backward);
    if (job == 2) return V->kind == GPUACT_KIND_gelu && V->dbias == (V->op == GPUACT_OP_backward);
    if (job == 0)
        return V->kind == GPUACT_KIND_leaky && V->mask && !V->select && V->dbias == (V->op == GPUACT_OP_backward);
    return V->kind == GPUACT_KIND_clipped && V->select && V->mask == (V->op == GPUACT_OP_backward) &&
           V->dbias == (V->op == GPUACT_OP_backward);
}

/* The GPUACT_KERNEL line that instantiates V (kernels/cuda/common.cuh). */
static int kernel_line(const gpuact__variant *V, char *buf, size_t size) {
    char name[GPUACT__NAME_MAX];
    int n;
    gpuact__variant_name(V, name, sizeof name);
    n = snprintf(buf, size, "GPUACT_KERNEL(%s, %s, %s, %s, %s", gpuact__op_names[V->op], name,
                 gpuact__dtype_name(V->t[0]), gpuact__dtype_name(V->t[1]), gpuact__dtype_name(V->t[2]));
#define KERNEL_LINE_FIELD_(fname, NAME, count) \
    if (n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - (size_t)n, ", %d", V->fname);
    GPUACT_FIELDS(KERNEL_LINE_FIELD_)
    if (n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - (size_t)n, ")\n");
    return n;
}

/* The job's source (malloc'd) and in *count its number of kernels. */
static char *job_source(const char *const *const *program, int op, int full, int job, int *count) {
    char *base = gpuact__join(program), *src, *p;
    size_t line = 200, n;
    int i;
    *count = 0;
    if (!base) return NULL;
    n = strlen(base);
    src = (char *)malloc(n + (size_t)GPUACT__VARIANTS * line + 1);
    if (!src) {
        free(base);
        return NULL;
    }
    memcpy(src, base, n);
    free(base);
    p = src + n;
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        gpuact__variant_at(i, &V);
        if (V.op != op || !in_job(&V, full, job)) continue;
        p += kernel_line(&V, p, line);
        ++*count;
    }
    *p = '\0';
    return src;
}

static int kernel_present(const char *code, size_t size, const char *name) {
    size_t n = strlen(name), i;
    for (i = 0; i + n <= size; i++)
        if (!memcmp(code + i, name, n) && (i + n == size || code[i + n] == '\0')) return 1;
    return 0;
}

/* Prints each missing kernel of the job; returns how many are missing. */
static int missing_kernels(int op, int full, int job, const char *code, size_t size, const char *target) {
    int i, missing = 0;
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        char name[GPUACT__NAME_MAX];
        gpuact__variant_at(i, &V);
        if (V.op != op || !in_job(&V, full, job)) continue;
        gpuact__variant_name(&V, name, sizeof name);
        if (!kernel_present(code, size, name)) {
            printf("FAIL %s: %s missing from the compiled code\n", target, name);
            missing++;
        }
    }
    return missing;
}

/* Prints a GPUACT_KERNEL line for every reachable variant of every op (the
   list the fatbin build appends to the op sources). */
static GPUACT__UNUSED void print_all_variants(void) {
    int i;
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        char line[200];
        gpuact__variant_at(i, &V);
        if (!gpuact__variant_reachable(&V)) continue;
        kernel_line(&V, line, sizeof line);
        fputs(line, stdout);
    }
}
