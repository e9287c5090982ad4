/* smooth_rtc_check: kernels/smooth.h compiled at run time the way the
   backends compile kernels: NVRTC with the CUDA dialect (--fmad=false
   --ftz=false, for each architecture given as sm_XY) and hiprtc with the HIP
   dialect (-ffp-contract=off, for each target given as gfxNNN). A compile
   check only (no GPU needed): a program with a kernel calling all six
   functions must build. A compiler that cannot be loaded is a SKIP.

     smooth_rtc_check [REPO_ROOT] sm_90 gfx90a ...

   The libraries are opened at run time: libnvrtc (GPUACT_NVRTC_LIBRARY, or
   libnvrtc.so.13 / .12 / libnvrtc.so) and libamdhip64 (GPUACT_HIP_LIBRARY,
   or libamdhip64.so.6 / .5 / libamdhip64.so), as the backends do. Only
   targets the installed hiprtc knows should be given: ROCm 5.2's hiprtc
   aborts on an unknown one (see tests/hip_rtc_check.c). */
#define _POSIX_C_SOURCE 200809L
#include "support/read_file.h"
#include "support/smooth_functions.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int (*create)(void **, const char *, const char *, int, const char *const *, const char *const *);
    int (*compile)(void *, int, const char *const *);
    int (*log_size)(void *, size_t *);
    int (*log)(void *, char *);
    int (*code_size)(void *, size_t *);
    int (*destroy)(void **);
} rtc_t;

static void *open_first(const char *env, const char *const *names) {
    void *lib = NULL;
    const char *e = getenv(env);
    int i;
    if (e && *e) lib = dlopen(e, RTLD_NOW | RTLD_LOCAL);
    for (i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return lib;
}

static int load_rtc(rtc_t *r, void *lib, const char *prefix, const char *code_size) {
    const char *names[6] = {"CreateProgram", "CompileProgram", "GetProgramLogSize", "GetProgramLog", NULL,
                            "DestroyProgram"};
    void **slot = (void **)r;
    int i;
    names[4] = code_size;
    for (i = 0; i < 6; i++) {
        char sym[128];
        void *f;
        snprintf(sym, sizeof sym, "%s%s", prefix, names[i]);
        f = dlsym(lib, sym);
        if (!f) return 0;
        memcpy(&slot[i], &f, sizeof f);
    }
    return 1;
}

/* Compiles src for one target; prints the verdict; returns 1 on failure. */
static int compile(const rtc_t *r, const char *what, const char *src, const char *const *opts, int nopts,
                   const char *target) {
    void *prog = NULL;
    size_t size = 0, lsize = 0;
    int rc;
    if (r->create(&prog, src, "smooth.cu", 0, NULL, NULL) != 0) {
        printf("FAIL smooth_rtc_check %s %s: cannot create the program\n", what, target);
        return 1;
    }
    rc = r->compile(prog, nopts, opts);
    if (rc == 0) rc = r->code_size(prog, &size);
    if (rc != 0 || size == 0) {
        char *log = NULL;
        r->log_size(prog, &lsize);
        if (lsize && (log = (char *)malloc(lsize + 1)) != NULL) {
            r->log(prog, log);
            log[lsize] = '\0';
        }
        printf("FAIL smooth_rtc_check %s %s:\n%s\n", what, target, log ? log : "(no log)");
        free(log);
        r->destroy(&prog);
        return 1;
    }
    printf("ok   smooth_rtc_check %-6s %-8s %8zu bytes of code\n", what, target, size);
    r->destroy(&prog);
    return 0;
}

int main(int argc, char **argv) {
    static const char *const nvrtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    static const char *const hip_names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
    const char *root = ".";
    char *cuda, *hip, *smooth, *kernel_src, *src_cuda, *src_hip;
    rtc_t nv, hr;
    void *nvlib = NULL, *hiplib = NULL;
    int a = 1, failed = 0, have_nv, have_hip;
    size_t len;
    if (argc > 1 && strncmp(argv[1], "sm_", 3) != 0 && strncmp(argv[1], "gfx", 3) != 0) root = argv[a++];
    cuda = support_read_file(root, "kernels/cuda/dialect.cuh");
    hip = support_read_file(root, "kernels/hip/dialect.h");
    smooth = support_read_file(root, "kernels/smooth.h");
    if (!cuda || !hip || !smooth) return 1;
    kernel_src = support_smooth_kernel("\nextern \"C\" __global__ void smooth_all(const gpuact_u32 *x, gpuact_u32 *y, "
                                       "gpuact_u32 n) {\n"
                                       "    const gpuact_u32 i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                       "    float v;\n"
                                       "    if (i >= n) return;\n"
                                       "    v = gpuact_as_f32(x[i]);\n",
                                       "gpuact_as_u32", smooth);
    if (!kernel_src) return 1;
    len = strlen(cuda) + strlen(hip) + strlen(smooth) + strlen(kernel_src) + 16;
    src_cuda = (char *)malloc(len);
    src_hip = (char *)malloc(len);
    if (!src_cuda || !src_hip) return 1;
    snprintf(src_cuda, len, "%s\n%s\n%s", cuda, smooth, kernel_src);
    snprintf(src_hip, len, "%s\n%s\n%s\n%s", hip, cuda, smooth, kernel_src);
    have_nv = (nvlib = open_first("GPUACT_NVRTC_LIBRARY", nvrtc_names)) && load_rtc(&nv, nvlib, "nvrtc", "GetPTXSize");
    have_hip = (hiplib = open_first("GPUACT_HIP_LIBRARY", hip_names)) && load_rtc(&hr, hiplib, "hiprtc", "GetCodeSize");
    for (; a < argc; a++) {
        char arch[64];
        if (!strncmp(argv[a], "sm_", 3)) {
            const char *opts[3];
            if (!have_nv) {
                printf("SKIP smooth_rtc_check nvrtc  %s: NVRTC not loadable\n", argv[a]);
                continue;
            }
            snprintf(arch, sizeof arch, "--gpu-architecture=compute_%s", argv[a] + 3);
            opts[0] = arch;
            opts[1] = "--fmad=false";
            opts[2] = "--ftz=false";
            failed |= compile(&nv, "nvrtc", src_cuda, opts, 3, argv[a]);
        } else {
            const char *opts[2];
            if (!have_hip) {
                printf("SKIP smooth_rtc_check hiprtc %s: hiprtc not loadable\n", argv[a]);
                continue;
            }
            snprintf(arch, sizeof arch, "--gpu-architecture=%s", argv[a]);
            opts[0] = arch;
            opts[1] = "-ffp-contract=off";
            failed |= compile(&hr, "hiprtc", src_hip, opts, 2, argv[a]);
        }
    }
    free(kernel_src);
    free(src_cuda);
    free(src_hip);
    free(cuda);
    free(hip);
    free(smooth);
    return failed;
}
