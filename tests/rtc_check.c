/* rtc_check: compiles every embedded CUDA kernel variant with NVRTC for
   each listed architecture, the way the CUDA backend does at run time (plus
   -DGPUACT_ALL_VARIANTS), and checks every kernel name is in the result.
   Needs only libnvrtc (no GPU, no driver): `make test` runs it where the
   CUDA toolkit is installed.

     rtc_check cuda sm_70 sm_75 ...                                        */
#define GPUACT_NO_OPENCL
#define GPUACT_NO_HIP
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

static int contains(const char *code, size_t size, const char *name) {
    size_t n = strlen(name), i;
    for (i = 0; i + n <= size; i++)
        if (!memcmp(code + i, name, n) && (i + n == size || code[i + n] == '\0')) return 1;
    return 0;
}

int main(int argc, char **argv) {
    static const char *const *const sources[GPUACT__OP_COUNT] = {gpuact__cuda_forward, gpuact__cuda_backward,
                                                                 gpuact__cuda_dbias};
    gpuact__gpu g;
    gpuact__cuda_setup s;
    static const char *const nvrtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    char tried[2048];
    int a, op, failed = 0, passed = 0, supported[64], nsupported = 0;
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    if (argc < 3 || strcmp(argv[1], "cuda") != 0) {
        fprintf(stderr, "usage: rtc_check cuda ARCH...\n");
        return 2;
    }
    g.libs[1] = gpuact__dlopen_first("GPUACT_NVRTC_LIBRARY", nvrtc_names, tried, sizeof tried);
    {
        gpuact__symbol rtc[] = {
            {"nvrtcCreateProgram", (void *)&g.api.rtc_create}, {"nvrtcCompileProgram", (void *)&g.api.rtc_compile},
            {"nvrtcGetProgramLogSize", (void *)&g.api.rtc_log_size}, {"nvrtcGetProgramLog", (void *)&g.api.rtc_log},
            {"nvrtcGetCUBINSize", (void *)&g.api.rtc_code_size}, {"nvrtcGetCUBIN", (void *)&g.api.rtc_code},
            {"nvrtcDestroyProgram", (void *)&g.api.rtc_destroy},
            {"nvrtcGetErrorString", (void *)&g.api.rtc_error_string}};
        if (!g.libs[1] || gpuact__resolve(g.libs[1], rtc, 8)) {
            printf("SKIP rtc_check cuda: NVRTC not loadable:\n%s0 passed, 0 failed\n", tried);
            return 0;
        }
    }
    g.api.name = "cuda";
    g.api.rtc_name = "NVRTC";
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
        for (op = 0; op < GPUACT__OP_COUNT; op++) {
            const char *opts[4];
            char *src = gpuact__join(sources[op]), *code = NULL;
            size_t size = 0;
            int t0, t1, t2, missing = 0;
            snprintf(g.arch, sizeof g.arch, "%s", argv[a]);
            snprintf(g.arch_option, sizeof g.arch_option, "--gpu-architecture=%s", argv[a]);
            opts[0] = g.arch_option;
            opts[1] = "-DGPUACT_ALL_VARIANTS";
            opts[2] = "--fmad=false";
            opts[3] = "--ftz=false";
            if (gpuact__gpu_compile(&g, src, opts, 4, gpuact__op_names[op], &code, &size) != GPUACT_SUCCESS) {
                printf("FAIL %s %s:\n%s\n", argv[a], gpuact__op_names[op], gpuact_last_error());
                failed++;
                GPUACT_FREE(src);
                continue;
            }
            for (t0 = 0; t0 < 3; t0++)
                for (t1 = 0; t1 < 3; t1++)
                    for (t2 = 0; t2 < 3; t2++) {
                        gpuact__launch L;
                        char name[96];
                        memset(&L, 0, sizeof L);
                        L.op = op;
                        L.t[0] = (gpuact_dtype)t0; L.t[1] = (gpuact_dtype)t1; L.t[2] = (gpuact_dtype)t2;
                        gpuact__kernel_name(&L, name, sizeof name);
                        if (!contains(code, size, name)) {
                            printf("FAIL %s: %s missing from the compiled code\n", argv[a], name);
                            missing++;
                        }
                    }
            if (missing) failed++;
            else passed++;
            printf("%s %-8s %-8s %zu bytes of SASS, 27 kernels\n", missing ? "FAIL" : "ok  ", argv[a],
                   gpuact__op_names[op], size);
            GPUACT_FREE(code);
            GPUACT_FREE(src);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
