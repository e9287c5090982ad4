/* rtc_check: compiles the embedded CUDA kernels with NVRTC, the way the
   CUDA backend does at run time: every variant for the first architecture,
   every dtype combination at the most involved field settings for the
   others (see kernel_names.h; the jobs run in child processes, one per
   CPU), and checks every kernel name is in the result. Needs
   only libnvrtc (no GPU, no driver): `make test` runs it where the CUDA
   toolkit is installed.

     rtc_check cuda sm_90 sm_75 sm_80 ...
     rtc_check list      the instantiation lines of every variant (make cuda-fatbin) */
#define GPUACT_NO_OPENCL
#define GPUACT_NO_HIP
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

#include "kernel_names.h"

#define RTC_PROGRAM_(name, short_name) gpuact__cuda_##name,
static const char *const *const *const sources[GPUACT_OP_COUNT] = {GPUACT_OPS(RTC_PROGRAM_)};

/* One job through NVRTC, with the backend's own options (run_jobs). */
static int nvrtc_job(void *check, const char *target, int full, int op, int job) {
    gpuact__gpu *g = (gpuact__gpu *)check;
    const clock_t t0 = clock();
    const char *opts[3];
    char *code = NULL;
    size_t size = 0;
    int missing, total = 0;
    char *src = job_source(sources[op], op, full, job, &total);
    snprintf(g->arch, sizeof g->arch, "%s", target);
    snprintf(g->arch_option, sizeof g->arch_option, "--gpu-architecture=%s", target);
    opts[0] = g->arch_option;
    opts[1] = gpuact__cuda_rtc_options[0];
    opts[2] = gpuact__cuda_rtc_options[1];
    if (!src || gpuact__gpu_compile(g, src, opts, 3, gpuact__op_names[op], &code, &size) != GPUACT_SUCCESS) {
        printf("FAIL %s %s %s:\n%s\n", target, gpuact__op_names[op], job_label(op, full, job), gpuact_last_error());
        GPUACT_FREE(src);
        return 1;
    }
    missing = missing_kernels(op, full, job, code, size, target) + (total == 0); /* an empty job proves nothing */
    job_line(missing, target, op, full, job, size, "SASS", total, t0);
    GPUACT_FREE(code);
    GPUACT_FREE(src);
    return missing != 0;
}

int main(int argc, char **argv) {
    static char skip_line[64][160];
    const char *skip[64];
    gpuact__gpu g;
    gpuact__cuda_setup s;
    int a, supported[64], nsupported = 0;
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    if (argc == 2 && !strcmp(argv[1], "list")) {
        print_all_variants();
        return 0;
    }
    if (argc < 3 || argc > 66 || strcmp(argv[1], "cuda") != 0) {
        fprintf(stderr, "usage: rtc_check cuda FULL_ARCH [ARCH...] (at most 64)\n");
        return 2;
    }
    if (gpuact__nvrtc_load(&g, &s) != GPUACT_SUCCESS) { /* the backend's own list of NVRTC entry points */
        printf("SKIP rtc_check cuda: NVRTC not loadable:\n%s\n0 passed, 0 failed\n", gpuact_last_error());
        return 0;
    }
    g.api.name = "cuda";
    {
        int (*num_archs)(int *) = NULL, (*get_archs)(int *) = NULL;
        gpuact__symbol q[] = {{"nvrtcGetNumSupportedArchs", (void *)&num_archs},
                              {"nvrtcGetSupportedArchs", (void *)&get_archs}};
        if (!gpuact__resolve(g.libs[1], q, 2) && num_archs(&nsupported) == 0 && nsupported <= 64)
            get_archs(supported);
        else
            nsupported = 0;
    }
    for (a = 2; a < argc; a++) {
        int known = nsupported == 0, i, sm = atoi(argv[a] + 3);
        for (i = 0; i < nsupported; i++) known |= supported[i] == sm;
        skip[a - 2] = NULL;
        if (!known) {
            /* CUDA 13's NVRTC dropped sm_70 and older: say so, compile the rest. */
            snprintf(skip_line[a - 2], sizeof skip_line[0], "SKIP %s: this NVRTC does not support it (it supports sm_%d to sm_%d)",
                     argv[a], supported[0], supported[nsupported - 1]);
            skip[a - 2] = skip_line[a - 2];
        }
    }
    return run_jobs(nvrtc_job, &g, argc - 2, argv + 2, skip);
}
