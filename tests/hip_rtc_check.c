/* hip_rtc_check: compiles the embedded HIP kernels with hiprtc, the way the
   HIP backend does at run time: every variant for the first target, every
   dtype combination at the most involved field settings for the
   others (see
   kernel_names.h), and checks every kernel name is in the code object.
   Needs only ROCm's hiprtc (no GPU): `make rtc-check` runs it.

     hip_rtc_check gfx90a gfx908 gfx1030 ...

   A target the installed ROCm does not know is a SKIP: ROCm 5.2's hiprtc
   aborts the process on one (its code object manager, comgr, frees an
   invalid pointer) instead of reporting it, so the check asks comgr for the
   targets it knows first. The jobs compile in child processes, one per CPU
   (a crash is then that job's FAIL), and print in the given order.
   With GPUACT_HIP_LIBRARY=build/libhip_on_cuda.so, sm_XY targets check the
   same sources through the test mapping onto NVRTC. */
#define GPUACT_NO_OPENCL
#define GPUACT_NO_CUDA
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

#include "kernel_names.h"

/* comgr's targets ("amdgcn-amd-amdhsa--gfx90a" ...), in a malloc'd string of
   lines, or NULL when comgr cannot be asked (then every target is tried). */
static char *known_targets(char *version, size_t vsize) {
    static const char *const names[] = {"libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so", NULL};
    int (*count_fn)(size_t *) = NULL, (*name_fn)(size_t, const char **) = NULL;
    void (*version_fn)(size_t *, size_t *) = NULL;
    gpuact__symbol syms[] = {{"amd_comgr_get_isa_count", (void *)&count_fn},
                             {"amd_comgr_get_isa_name", (void *)&name_fn},
                             {"amd_comgr_get_version", (void *)&version_fn}};
    char tried[1024], *list;
    size_t n = 0, i, major = 0, minor = 0, used = 0;
    void *lib = gpuact__dlopen_first(NULL, names, tried, sizeof tried);
    if (!lib || gpuact__resolve(lib, syms, 3) || count_fn(&n) != 0 || !(list = (char *)malloc(n * 64 + 1)))
        return NULL;
    version_fn(&major, &minor);
    snprintf(version, vsize, "comgr %zu.%zu", major, minor);
    list[0] = '\0';
    for (i = 0; i < n; i++) {
        const char *isa = NULL;
        if (name_fn(i, &isa) == 0 && isa && strlen(isa) < 63) used += (size_t)sprintf(list + used, "%s\n", isa);
    }
    return list;
}

static int is_known(const char *list, const char *target) {
    char want[96];
    size_t len = strcspn(target, ":"); /* "gfx90a:xnack-" is gfx90a with a feature */
    snprintf(want, sizeof want, "--%.*s\n", (int)(len < 64 ? len : 64), target);
    return strstr(list, want) != NULL;
}

int main(int argc, char **argv) {
    static char skip_line[64][256];
    const char *skip[64];
    gpuact__gpu g;
    gpuact__hip_setup s;
    char comgr[64] = "", *known;
    int a, targets = argc - 1, failed;
    if (argc < 2 || targets > 64) {
        fprintf(stderr, "usage: hip_rtc_check TARGET... (at most 64, e.g. gfx90a)\n");
        return 2;
    }
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    if (gpuact__hip_load(&g, &s) != GPUACT_SUCCESS) {
        printf("SKIP hip_rtc_check: hiprtc not loadable:\n%s\n0 passed, 0 failed\n", gpuact_last_error());
        return 0;
    }
    known = known_targets(comgr, sizeof comgr);
    for (a = 0; a < targets; a++) {
        const char *target = argv[a + 1];
        skip[a] = NULL;
        if (known && !strncmp(target, "gfx", 3) && !is_known(known, target)) {
            snprintf(skip_line[a], sizeof skip_line[0], "SKIP %s: unknown to this ROCm: %s, which hiprtc compiles "
                     "through, does not list amdgcn-amd-amdhsa--%.*s", target, comgr, (int)strcspn(target, ":"), target);
            skip[a] = skip_line[a];
        }
    }
    failed = run_jobs(&g, targets, argv + 1, skip);
    free(known);
    return failed;
}
