/* hip_rtc_check: compiles the embedded HIP kernels the way the HIP backend
   does at run time: every variant to LLVM bitcode for the first target
   (hiprtc's first step, below), and the settings a target changes to a code
   object with hiprtc for each (see kernel_names.h), and checks every kernel
   name is in the result.
   Needs only ROCm's hiprtc (no GPU): `make rtc-check` runs it.

     hip_rtc_check gfx90a gfx1030 ...

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

/* ---- the first target's every-variant jobs: LLVM bitcode through comgr ----------
   hiprtc compiles in comgr, the code object manager: the source to LLVM
   bitcode (the front end and the optimizer), then that to a code object
   (the code generation); ROCm 5's hiprtc returns only the code object.
   These jobs run the first step as ROCm 5.2's hiprtc does, with its header
   (libhiprtc-builtins' hiprtc_runtime.h) and the options it adds (seen with
   AMD_COMGR_EMIT_VERBOSE_LOGS=1), and stop there. Where comgr or the
   header is missing, they compile code objects. */
typedef struct { unsigned long long handle; } comgr_obj; /* amd_comgr_data_t and the other handles */
enum { COMGR_SOURCE = 1, COMGR_INCLUDE = 2, COMGR_LOG = 5, COMGR_BC = 6, COMGR_HIP = 4, COMGR_SOURCE_TO_BC = 2 };
static void *comgr_lib;
static struct {
    int (*create_data)(int kind, comgr_obj *data);
    int (*set_data)(comgr_obj data, size_t size, const char *bytes);
    int (*set_data_name)(comgr_obj data, const char *name);
    int (*get_data)(comgr_obj data, size_t *size, char *bytes);
    int (*create_data_set)(comgr_obj *set);
    int (*data_set_add)(comgr_obj set, comgr_obj data);
    int (*data_count)(comgr_obj set, int kind, size_t *count);
    int (*get_from_set)(comgr_obj set, int kind, size_t index, comgr_obj *data);
    int (*create_info)(comgr_obj *info);
    int (*set_language)(comgr_obj info, int language);
    int (*set_isa)(comgr_obj info, const char *isa);
    int (*set_options)(comgr_obj info, const char **options, size_t count);
    int (*set_logging)(comgr_obj info, int on);
    int (*do_action)(int action, comgr_obj info, comgr_obj in, comgr_obj out);
} cg;
static const char *rtc_header;
static size_t rtc_header_size;
static char hip_version[2][48];

typedef struct bc_program {
    const char *src;
    char *out[2]; /* the log, the bitcode */
    size_t size[2];
} bc_program;

/* comgr's data of the kind in set (malloc'd) into *out, *size. */
static void comgr_fetch(comgr_obj set, int kind, char **out, size_t *size) {
    comgr_obj d;
    size_t n = 0;
    *out = NULL;
    *size = 0;
    if (cg.data_count(set, kind, &n) || n == 0 || cg.get_from_set(set, kind, 0, &d) || cg.get_data(d, &n, NULL) ||
        !(*out = (char *)malloc(n + 1)))
        return;
    if (cg.get_data(d, &n, *out)) n = 0;
    (*out)[n] = '\0';
    *size = n;
}

static int bc_create(void **prog, const char *src, const char *name, int nheaders, const char *const *headers,
                     const char *const *include_names) {
    bc_program *p = (bc_program *)calloc(1, sizeof *p);
    (void)name, (void)nheaders, (void)headers, (void)include_names;
    if (!p) return 1;
    p->src = src;
    *prog = p;
    return 0;
}
/* hiprtc's options to comgr, then the check's (but the architecture, which
   is comgr's ISA name); the bitcode in p->out[1]. */
static int bc_compile(void *prog, int nopts, const char *const *opts) {
    bc_program *p = (bc_program *)prog;
    const char *o[32] = {"-O3", "-mllvm", "-amdgpu-prelink", "-mcumode", hip_version[0], hip_version[1],
                         "-D__HIPCC_RTC__", "-include", "hiprtc_runtime.h", "-std=c++14", "-nogpuinc"};
    char isa[96], arch[96];
    comgr_obj src, inc, in, out, info;
    int i, n = 11, e;
    for (i = 0; i < nopts && n < 31; i++) {
        if (!strncmp(opts[i], "--gpu-architecture=", 19)) {
            snprintf(isa, sizeof isa, "amdgcn-amd-amdhsa--%s", opts[i] + 19);
            snprintf(arch, sizeof arch, "--offload-arch=%s", opts[i] + 19);
            o[n++] = arch;
        } else
            o[n++] = opts[i];
    }
    e = cg.create_data(COMGR_SOURCE, &src) || cg.set_data(src, strlen(p->src), p->src) ||
        cg.set_data_name(src, "CompileSource") || cg.create_data(COMGR_INCLUDE, &inc) ||
        cg.set_data(inc, rtc_header_size, rtc_header) || cg.set_data_name(inc, "hiprtc_runtime.h") ||
        cg.create_data_set(&in) || cg.data_set_add(in, src) || cg.data_set_add(in, inc) ||
        cg.create_data_set(&out) || cg.create_info(&info) || cg.set_language(info, COMGR_HIP) ||
        cg.set_isa(info, isa) || cg.set_options(info, o, (size_t)n) || cg.set_logging(info, 1);
    if (!e) {
        e = cg.do_action(COMGR_SOURCE_TO_BC, info, in, out);
        comgr_fetch(out, COMGR_LOG, &p->out[0], &p->size[0]);
        comgr_fetch(out, COMGR_BC, &p->out[1], &p->size[1]);
    }
    return e || !p->out[1] ? 6 : 0; /* HIPRTC_ERROR_COMPILATION */
}
static int bc_log_size(void *prog, size_t *size) {
    *size = ((bc_program *)prog)->size[0] + 1;
    return 0;
}
static int bc_log(void *prog, char *log) {
    bc_program *p = (bc_program *)prog;
    memcpy(log, p->out[0] ? p->out[0] : "", p->size[0] + 1);
    return 0;
}
static int bc_size(void *prog, size_t *size) {
    *size = ((bc_program *)prog)->size[1];
    return 0;
}
static int bc_code(void *prog, char *code) {
    bc_program *p = (bc_program *)prog;
    memcpy(code, p->out[1], p->size[1]);
    return 0;
}
static int bc_destroy(void **prog) {
    bc_program *p = (bc_program *)*prog;
    if (p) free(p->out[0]), free(p->out[1]), free(p);
    *prog = NULL;
    return 0;
}
static void use_bc(gpuact__gpu *g, const char *target) {
    (void)target;
    g->api.rtc_name = "comgr (hiprtc's first step)";
    g->api.rtc_create = bc_create;
    g->api.rtc_compile = bc_compile;
    g->api.rtc_log_size = bc_log_size;
    g->api.rtc_log = bc_log;
    g->api.rtc_code_size = bc_size;
    g->api.rtc_code = bc_code;
    g->api.rtc_destroy = bc_destroy;
}
/* LLVM bitcode keeps the symbol names side by side in one string table,
   with no separator: a kernel's name must occur in it (a variant name,
   "gpuact_" to its dtypes, is never part of another symbol's). */
static int bc_has(const char *code, size_t size, const char *name) {
    size_t n = strlen(name), i;
    for (i = 0; i + n <= size; i++)
        if (!memcmp(code + i, name, n)) return 1;
    return 0;
}

/* Whether comgr and hiprtc's header are there (then the bitcode jobs run). */
static int bc_ready(const gpuact__hip_setup *s) {
    static const char *const names[] = {"libhiprtc-builtins.so.6", "libhiprtc-builtins.so.5", "libhiprtc-builtins.so",
                                        NULL};
    char tried[1024];
    const unsigned *header_size = NULL;
    int major = 0, minor = 0;
    void *builtins = gpuact__dlopen_first(NULL, names, tried, sizeof tried);
    gpuact__symbol h[] = {{"__hipRTC_header", (void *)&rtc_header}, {"__hipRTC_header_size", (void *)&header_size}};
    gpuact__symbol q[] = {{"amd_comgr_create_data", (void *)&cg.create_data},
                          {"amd_comgr_set_data", (void *)&cg.set_data},
                          {"amd_comgr_set_data_name", (void *)&cg.set_data_name},
                          {"amd_comgr_get_data", (void *)&cg.get_data},
                          {"amd_comgr_create_data_set", (void *)&cg.create_data_set},
                          {"amd_comgr_data_set_add", (void *)&cg.data_set_add},
                          {"amd_comgr_action_data_count", (void *)&cg.data_count},
                          {"amd_comgr_action_data_get_data", (void *)&cg.get_from_set},
                          {"amd_comgr_create_action_info", (void *)&cg.create_info},
                          {"amd_comgr_action_info_set_language", (void *)&cg.set_language},
                          {"amd_comgr_action_info_set_isa_name", (void *)&cg.set_isa},
                          {"amd_comgr_action_info_set_option_list", (void *)&cg.set_options},
                          {"amd_comgr_action_info_set_logging", (void *)&cg.set_logging},
                          {"amd_comgr_do_action", (void *)&cg.do_action}};
    if (!comgr_lib || !builtins || gpuact__resolve(builtins, h, 2) || gpuact__resolve(comgr_lib, q, 14) ||
        !s->hiprtcVersion || s->hiprtcVersion(&major, &minor))
        return 0;
    rtc_header_size = *header_size;
    snprintf(hip_version[0], sizeof hip_version[0], "-DHIP_VERSION_MAJOR=%d", major);
    snprintf(hip_version[1], sizeof hip_version[1], "-DHIP_VERSION_MINOR=%d", minor);
    return 1;
}

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
    void *lib = comgr_lib = gpuact__dlopen_first(NULL, names, tried, sizeof tried);
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
    {
        static const rtc_ir bitcode = {"LLVM bitcode", use_bc, bc_has};
        int ir = !strncmp(argv[1], "gfx", 3) && bc_ready(&s);
        if (!ir)
            printf("note: %s: every variant to code objects (no comgr or hiprtc header to stop at LLVM bitcode)\n",
                   argv[1]);
        failed = run_jobs(&g, ir ? &bitcode : NULL, targets, argv + 1, skip);
    }
    free(known);
    return failed;
}
