/* rtc_check: compiles the embedded CUDA kernels with NVRTC, the way the
   CUDA backend does at run time: every variant for the first architecture,
   every dtype combination at the most involved field settings for the
   others (see
   kernel_names.h), and checks every kernel name is in the result. Needs
   only libnvrtc (no GPU, no driver): `make test` runs it where the CUDA
   toolkit is installed.

     rtc_check cuda sm_90 sm_75 sm_80 ...
     rtc_check list      the instantiation lines of every variant (make cuda-fatbin) */
#define GPUACT_NO_OPENCL
#define GPUACT_NO_HIP
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

#include "kernel_names.h"

int main(int argc, char **argv) {
#define RTC_PROGRAM_(name, short_name) gpuact__cuda_##name,
    static const char *const *const *const sources[GPUACT_OP_COUNT] = {GPUACT_OPS(RTC_PROGRAM_)};
    gpuact__gpu g;
    gpuact__cuda_setup s;
    int a, op, failed = 0, passed = 0, supported[64], nsupported = 0;
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    if (argc == 2 && !strcmp(argv[1], "list")) {
        print_all_variants();
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "cuda") != 0) {
        fprintf(stderr, "usage: rtc_check cuda FULL_ARCH [ARCH...]\n");
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
        if (!known) {
            /* CUDA 13's NVRTC dropped sm_70 and older: say so, compile the rest. */
            printf("SKIP %s: this NVRTC does not support it (it supports sm_%d to sm_%d)\n", argv[a], supported[0],
                   supported[nsupported - 1]);
            continue;
        }
        for (op = 0; op < GPUACT_OP_COUNT; op++) {
            const int full = a == 2; /* the first target: every variant; the others: kernel_names.h */
            int job;
            for (job = 0; job < jobs_of(op, full); job++) {
                const char *opts[6];
                char *code = NULL;
                size_t size = 0;
                int missing, total = 0, nopts = 1;
                char *src = job_source(sources[op], op, full, job, &total);
                snprintf(g.arch, sizeof g.arch, "%s", argv[a]);
                snprintf(g.arch_option, sizeof g.arch_option, "--gpu-architecture=%s", argv[a]);
                opts[0] = g.arch_option;
                opts[nopts++] = gpuact__cuda_rtc_options[0]; /* the backend's own options */
                opts[nopts++] = gpuact__cuda_rtc_options[1];
                if (!src || gpuact__gpu_compile(&g, src, opts, nopts, gpuact__op_names[op], &code, &size) != GPUACT_SUCCESS) {
                    printf("FAIL %s %s:\n%s\n", argv[a], gpuact__op_names[op], gpuact_last_error());
                    failed++;
                    GPUACT_FREE(src);
                    continue;
                }
                missing = missing_kernels(op, full, job, code, size, argv[a]) + (total == 0); /* an empty job proves nothing */
                if (missing) failed++;
                else passed++;
                printf("%s %-8s %-8s %-14s %8zu bytes of SASS, %d kernels\n", missing ? "FAIL" : "ok  ", argv[a],
                       gpuact__op_names[op], job_label(op, full, job), size, total);
                fflush(stdout);
                GPUACT_FREE(code);
                GPUACT_FREE(src);
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
