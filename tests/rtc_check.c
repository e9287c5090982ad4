/* rtc_check: compiles the embedded CUDA kernels with NVRTC, the way the
   CUDA backend does at run time: every variant to PTX for the first
   architecture, and the settings an architecture changes to SASS for each
   (see kernel_names.h; the jobs run in child processes, one per CPU), and
   checks every kernel name is in the result. Needs
   only libnvrtc (no GPU, no driver): `make test` runs it where the CUDA
   toolkit is installed.

     rtc_check cuda sm_90 sm_75 sm_80 ...
     rtc_check list      the instantiation lines of every variant (make cuda-fatbin) */
#define GPUACT_NO_OPENCL
#define GPUACT_NO_HIP
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

#include "kernel_names.h"

/* NVRTC's PTX: the first architecture's every-variant jobs target the
   virtual architecture (sm_90: compute_90, the same __CUDA_ARCH__), which
   runs the front end and NVVM but not ptxas; at NVRTC's least fast-compile
   level (--Ofast-compile=min), as these jobs look for failures, not speed. */
static int (*ptx_size)(void *, size_t *), (*ptx_code)(void *, char *);
static void use_ptx(gpuact__gpu *g, const char *target) {
    snprintf(g->arch_option, sizeof g->arch_option, "--gpu-architecture=compute_%s", target + 3);
    g->rtc_options[2] = "--Ofast-compile=min";
    g->api.rtc_code_size = ptx_size;
    g->api.rtc_code = ptx_code;
}
/* A kernel's entry in PTX: ".entry NAME(". */
static int ptx_has(const char *code, size_t size, const char *name) {
    size_t n = strlen(name);
    const char *p = code, *end = code + size;
    while (p < end && (p = strstr(p, ".entry ")) != NULL) {
        p += 7;
        if ((size_t)(end - p) > n && !memcmp(p, name, n) && p[n] == '(') return 1;
    }
    return 0;
}

/* The 16-bit lookup's variants (kernels/contract.h, GPUACT_LUT16_VARIANT), each built alone as the
   backend builds it where a device's row asks for the lookup (the variant's defines and
   -DGPUACT_LUT16=1; the jobs above build without it), to PTX for target: the kernel and its table's
   fill kernel must be in the code. Returns how many failed. */
static int lookup_check(gpuact__gpu *g, const char *target) {
    int i, k, built = 0, failed = 0;
    use_ptx(g, target);
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        char name[GPUACT__NAME_MAX], defs[GPUACT__DEFINES][GPUACT__DEFINE_MAX], *src, *code = NULL;
        const char *opts[1 + GPUACT__DEFINES + 4];
        size_t size = 0;
        int nopts = 0;
        gpuact__variant_at(i, &V);
        if (!GPUACT_LUT16_VARIANT(V.op, V.kind, V.mask, V.dbias, V.fromx, V.precise, (int)V.t[0], (int)V.t[1], (int)V.t[2]))
            continue;
        gpuact__variant_name(&V, name, sizeof name);
        gpuact__variant_defines(&V, defs);
        opts[nopts++] = g->arch_option;
        for (k = 0; k < GPUACT__DEFINES; k++) opts[nopts++] = defs[k];
        for (k = 0; k < 3; k++) opts[nopts++] = g->rtc_options[k];
        opts[nopts++] = "-DGPUACT_LUT16=1";
        src = gpuact__join(g->sources[V.op]);
        if (!src || gpuact__gpu_compile(g, src, opts, nopts, name, &code, &size) != GPUACT_SUCCESS ||
            !ptx_has(code, size, name) || !ptx_has(code, size, "gpuact_lut16_fill")) {
            printf("FAIL %s %s with the lookup: %s\n", target, name, code ? "a kernel is missing" : gpuact_last_error());
            failed++;
        } else
            built++;
        GPUACT_FREE(src);
        GPUACT_FREE(code);
    }
    printf("%s %-8s the 16-bit lookup: %d variants built alone with it, %d failed\n", failed || !built ? "FAIL" : "ok  ",
           target, built, failed);
    return failed || !built;
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
    {
        gpuact__symbol q[] = {{"nvrtcGetPTXSize", (void *)&ptx_size}, {"nvrtcGetPTX", (void *)&ptx_code}};
        if (gpuact__resolve(g.libs[1], q, 2)) {
            printf("FAIL rtc_check cuda: NVRTC lacks nvrtcGetPTX\n0 passed, 1 failed\n");
            return 1;
        }
    }
    g.api.name = "cuda";
    g.rtc_options[0] = gpuact__cuda_rtc_options[0]; /* the backend's own options and sources */
    g.rtc_options[1] = gpuact__cuda_rtc_options[1];
#define RTC_PROGRAM_(name, short_name) g.sources[GPUACT_OP_##name] = gpuact__cuda_##name;
    GPUACT_OPS(RTC_PROGRAM_)
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
    {
        static const rtc_ir ptx = {"PTX", use_ptx, ptx_has};
        const int r = run_jobs(&g, &ptx, argc - 2, argv + 2, skip);
        return (argc > 2 && !skip[0] && lookup_check(&g, argv[2])) ? 1 : r;
    }
}
