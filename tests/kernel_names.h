/* Shared by rtc_check.c and hip_rtc_check.c.

   The first target of a check compiles the full product of every op (every
   dtype triple x every spec: about a thousand kernels); the others compile
   every dtype triple at two specs per op, the most involved ones (leaky with
   mask and bias/scale paths; clipped, plain, from the mask with dbias), so
   the check stays within minutes. Then every kernel that should be there is
   looked up by its name. */
static const int quick_specs[3][2] = {{4, 11}, {10, 23}, {0, 0}};

/* The options that select a job: job 0 of a full target is the product;
   jobs 0 and 1 of a quick target are the two specs. defs holds 40 chars. */
static int job_options(int op, int full, int job, const char **opts, char *spec_def) {
    if (full) {
        opts[0] = "-DGPUACT_ALL_VARIANTS";
        return 1;
    }
    snprintf(spec_def, 40, "-DGPUACT_SPEC=%d", quick_specs[op][job]);
    opts[0] = "-DGPUACT_ALL_DTYPES";
    opts[1] = spec_def;
    return 2;
}
static int jobs_of(int op, int full) { return full || op == 2 ? 1 : 2; }
static int kernel_present(const char *code, size_t size, const char *name) {
    size_t n = strlen(name), i;
    for (i = 0; i + n <= size; i++)
        if (!memcmp(code + i, name, n) && (i + n == size || code[i + n] == '\0')) return 1;
    return 0;
}

/* Prints each missing kernel of the job; returns how many are missing, and
   in *total how many were looked for. */
static int missing_kernels(int op, int full, int job, const char *code, size_t size, const char *target,
                           int *total) {
    int t0, t1, t2, spec, missing = 0;
    *total = 0;
    for (t0 = 0; t0 < 3; t0++)
        for (t1 = 0; t1 < 3; t1++)
            for (t2 = 0; t2 < 3; t2++)
                for (spec = 0; spec < gpuact__op_specs[op]; spec++) {
                    gpuact__launch L;
                    if (!full && spec != quick_specs[op][job]) continue;
                    char name[96];
                    memset(&L, 0, sizeof L);
                    L.op = op;
                    L.t[0] = (gpuact_dtype)t0; L.t[1] = (gpuact_dtype)t1; L.t[2] = (gpuact_dtype)t2;
                    L.spec = spec;
                    gpuact__kernel_name(&L, name, sizeof name);
                    ++*total;
                    if (!kernel_present(code, size, name)) {
                        printf("FAIL %s: %s missing from the compiled code\n", target, name);
                        missing++;
                    }
                }
    return missing;
}
