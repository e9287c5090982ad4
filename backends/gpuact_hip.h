/* gpuact HIP backend: the HIP runtime's module API plus hiprtc, on gpuact_cudalike.h.

   Loads:   libamdhip64.so.6, .5, then libamdhip64.so ($GPUACT_HIP_LIBRARY
            first), with dlopen. hiprtc: $GPUACT_HIPRTC_LIBRARY if set, else
            the runtime library itself where it carries hiprtc (ROCm 5), else
            libhiprtc.so.6, .5, then libhiprtc.so (ROCm 6 ships it apart).
            GPUACT_NO_RUNTIME_LINKING resolves the same symbols from the
            program itself (link -lamdhip64, and -lhiprtc on ROCm 6).
            Neither is ever closed: unloading ROCm's runtime tears its HSA
            runtime down, which has crashed in some releases, and a later
            context would start it again.
   Device:  desc.device is a HIP ordinal; its gcnArchName (e.g.
            "gfx90a:sramecc+:xnack-") is the compile target, read from
            hipGetDeviceProperties in the layout every ROCm since HIP 4.2
            exports under that name (see gpuact__hip_props_r0000).
   Context: HIP's context stack does not give the caller's device back when
            popped, so the backend switches the thread's current device
            instead: hipGetDevice, hipSetDevice(ours) when it differs, and
            back afterwards. hipMalloc pointers and hipStream_t streams of the
            device work as they are; desc.native_context (a hipCtx_t) selects
            that context's device.
   Builds:  hiprtc to a code object for the device's exact target
            (--gpu-architecture=<gcnArchName>), without FMA contraction
            (-ffp-contract=off: hiprtc contracts by default); subnormals are
            kept by hiprtc's default float mode. Cached in memory and on disk
            (gpuact_cudalike.h). The kernel sources are CUDA's, in the HIP
            dialect of kernels/hip/dialect.h. */


/* The leading fields of hipDeviceProp_t as HIP 4.2 to 5.x declare it. ROCm
   6 and later keep this layout as hipDeviceProp_tR0000 behind the exported
   names hipGetDevicePropertiesR0000 and hipGetDeviceProperties (their
   headers rename the call to hipGetDevicePropertiesR0600, another layout,
   but a program that looks the symbol up by name gets the old one). Only
   gcn_arch_name is read: the one place the target's name is published. */
typedef struct gpuact__hip_props_r0000 {
    char name[256];
    size_t total_global_mem, shared_mem_per_block;
    int regs_per_block, warp_size, max_threads_per_block, max_threads_dim[3], max_grid_size[3];
    int clock_rate, memory_clock_rate, memory_bus_width;
    size_t total_const_mem;
    int major, minor, multi_processor_count, l2_cache_size, max_threads_per_multi_processor;
    int compute_mode, clock_instruction_rate;
    unsigned arch_flags; /* hipDeviceArch_t: 17 one-bit fields */
    int concurrent_kernels, pci_domain_id, pci_bus_id, pci_device_id;
    size_t max_shared_memory_per_multi_processor;
    int is_multi_gpu_board, can_map_host_memory, gcn_arch;
    char gcn_arch_name[256];
} gpuact__hip_props_r0000;
/* The whole struct is 792 bytes on LP64; the runtime writes all of it. */
typedef union gpuact__hip_props {
    gpuact__hip_props_r0000 p;
    char room[4096];
} gpuact__hip_props;
#if defined(__LP64__)
typedef char gpuact__hip_props_layout_check[offsetof(gpuact__hip_props_r0000, gcn_arch_name) == 396 ? 1 : -1];
#endif

#define GPUACT__HIP_ATTR_MULTIPROCESSOR_COUNT 63 /* hipDeviceAttributeMultiprocessorCount, 5.x to 7.x */
#define GPUACT__HIP_ERROR_INVALID_CONTEXT 201

/* Entry points used only here, during set-up, and the runtime library. */
typedef struct gpuact__hip_setup {
    void *runtime;
    int (*hipInit)(unsigned);
    int (*hipDriverGetVersion)(int *);
    int (*hipGetDeviceCount)(int *);
    int (*hipDeviceGet)(int *, int);
    int (*hipDeviceGetName)(char *, int, int);
    int (*hipDeviceGetAttribute)(int *, int, int);
    int (*hipGetDeviceProperties)(void *, int);
    int (*hiprtcVersion)(int *, int *);
} gpuact__hip_setup;

/* Process-wide: the same runtime for every context. */
static const char *(*gpuact__hipGetErrorName)(int);
static int (*gpuact__hipGetDevice)(int *);
static int (*gpuact__hipSetDevice)(int);

static const char *gpuact__hip_error_name(int e) {
    const char *s = gpuact__hipGetErrorName ? gpuact__hipGetErrorName(e) : NULL;
    return s ? s : "an unknown HIP error";
}

/* The device each gpuact entry point replaced on this thread (-1: it was
   already ours), innermost last. gpuact__gpu_enter/leave pair up. */
#define GPUACT__HIP_MAX_NESTING 16
static GPUACT__TLS int gpuact__hip_saved[GPUACT__HIP_MAX_NESTING];
static GPUACT__TLS int gpuact__hip_nesting;

/* ctx_push/ctx_pop of the table: ctx is the gpuact__gpu itself. */
static int gpuact__hip_ctx_push(void *ctx) {
    const gpuact__gpu *g = (const gpuact__gpu *)ctx;
    int current = -1, e;
    if (gpuact__hip_nesting == GPUACT__HIP_MAX_NESTING) return GPUACT__HIP_ERROR_INVALID_CONTEXT;
    if ((e = gpuact__hipGetDevice(&current))) return e;
    if (current != g->device && (e = gpuact__hipSetDevice(g->device))) return e;
    gpuact__hip_saved[gpuact__hip_nesting++] = current != g->device ? current : -1;
    return 0;
}
static int gpuact__hip_ctx_pop(void **ctx) {
    int previous;
    *ctx = NULL;
    if (!gpuact__hip_nesting) return GPUACT__HIP_ERROR_INVALID_CONTEXT;
    previous = gpuact__hip_saved[--gpuact__hip_nesting];
    return previous >= 0 ? gpuact__hipSetDevice(previous) : 0;
}

/* hiprtc's entry points from lib into g (and the version query into s). */
static const char *gpuact__hip_resolve_rtc(gpuact__gpu *g, gpuact__hip_setup *s, void *lib) {
    gpuact__symbol rtc[] = {GPUACT__GPU_RTC_SYMBOLS(GPUACT__HIP_SYM_) GPUACT__SYM(s->hiprtcVersion, "hiprtcVersion")};
    return gpuact__resolve(lib, rtc, (int)(sizeof rtc / sizeof rtc[0]));
}

/* What the backend's builds have in common, also used by tests/hip_rtc_check.c. */
static void gpuact__hip_describe(gpuact__gpu *g) {
    g->api.name = "hip";
    g->api.rtc_name = "hiprtc";
    g->api.error_name = gpuact__hip_error_name;
    g->rtc_options[0] = "-ffp-contract=off"; /* hiprtc fuses a * b + c into an FMA by default */
#define GPUACT__HIP_PROGRAM_(name, short_name) g->sources[GPUACT_OP_##name] = gpuact__hip_##name;
    GPUACT_OPS(GPUACT__HIP_PROGRAM_)
}

/* Opens the HIP runtime (s->runtime) and hiprtc and resolves every entry
   point. g->libs stays empty: see "Loads" above. */
static gpuact_result gpuact__hip_load(gpuact__gpu *g, gpuact__hip_setup *s) {
    static const char *const hip_names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
    static const char *const rtc_names[] = {"libhiprtc.so.6", "libhiprtc.so.5", "libhiprtc.so", NULL};
    static const char *const none[] = {NULL};
    const char *rtc_env = getenv("GPUACT_HIPRTC_LIBRARY");
    char tried[2048], rtc_tried[2048];
    const char *missing;
    void *rtc_lib = NULL;
    gpuact__symbol runtime[] = {
        GPUACT__SYM(s->hipInit, "hipInit"), GPUACT__SYM(s->hipDriverGetVersion, "hipDriverGetVersion"),
        GPUACT__SYM(s->hipGetDeviceCount, "hipGetDeviceCount"), GPUACT__SYM(s->hipDeviceGet, "hipDeviceGet"),
        GPUACT__SYM(s->hipDeviceGetName, "hipDeviceGetName"),
        GPUACT__SYM(s->hipDeviceGetAttribute, "hipDeviceGetAttribute"),
        GPUACT__SYM(gpuact__hipGetErrorName, "hipGetErrorName"),
        GPUACT__SYM(gpuact__hipGetDevice, "hipGetDevice"), GPUACT__SYM(gpuact__hipSetDevice, "hipSetDevice"),
        GPUACT__GPU_DRIVER_SYMBOLS(GPUACT__HIP_SYM_)
    };
    gpuact__symbol props[] = {
        GPUACT__SYM(s->hipGetDeviceProperties, "hipGetDevicePropertiesR0000"),
        GPUACT__SYM(s->hipGetDeviceProperties, "hipGetDeviceProperties"),
    };
    gpuact__hip_describe(g);
    g->api.ctx_push = gpuact__hip_ctx_push;
    g->api.ctx_pop = gpuact__hip_ctx_pop;
#ifdef GPUACT_NO_RUNTIME_LINKING
    (void)hip_names;
    (void)rtc_names;
    (void)none;
    (void)rtc_env;
    s->runtime = dlopen(NULL, RTLD_NOW); /* symbols linked into the program */
    snprintf(tried, sizeof tried, "    (the program itself: link with -lamdhip64)\n");
#else
    s->runtime = gpuact__dlopen_first("GPUACT_HIP_LIBRARY", hip_names, tried, sizeof tried);
#endif
    if (!s->runtime)
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "hip: the HIP runtime library could not be loaded. Tried:\n%s"
                            "Install ROCm's HIP runtime (e.g. Debian's libamdhip64-5), or set "
                            "GPUACT_HIP_LIBRARY to libamdhip64's path.", tried);
    if ((missing = gpuact__resolve(s->runtime, runtime, (int)(sizeof runtime / sizeof runtime[0]))))
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "hip: the HIP runtime library lacks %s; ROCm 5 or newer is needed", missing);
    /* The device properties call in the layout gpuact__hip_props_r0000 reads,
       by its ROCm 6 name first, then by the name ROCm 5 gives it. */
    if (gpuact__resolve(s->runtime, props, 1) && (missing = gpuact__resolve(s->runtime, props + 1, 1)))
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "hip: the HIP runtime library lacks hipGetDevicePropertiesR0000 and %s, which "
                            "gpuact reads the device's gfx target from", missing);
    rtc_tried[0] = '\0';
#ifdef GPUACT_NO_RUNTIME_LINKING
    rtc_lib = s->runtime;
    snprintf(rtc_tried, sizeof rtc_tried, "    (the program itself: link with -lhiprtc on ROCm 6)\n");
#else
    if (rtc_env && rtc_env[0]) {
        rtc_lib = gpuact__dlopen_first("GPUACT_HIPRTC_LIBRARY", none, rtc_tried, sizeof rtc_tried);
        if (!rtc_lib)
            return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                                "hip: GPUACT_HIPRTC_LIBRARY=%s could not be loaded:\n%s", rtc_env, rtc_tried);
    }
    if (!rtc_lib && dlsym(s->runtime, "hiprtcCompileProgram")) {
        rtc_lib = s->runtime;
    } else if (!rtc_lib) {
        size_t used = strlen(rtc_tried);
        rtc_lib = gpuact__dlopen_first(NULL, rtc_names, rtc_tried + used, sizeof rtc_tried - used);
    }
#endif
    if (!rtc_lib)
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "hip: hiprtc, which compiles gpuact's kernels, could not be loaded; the HIP "
                            "runtime library does not carry it either. Tried:\n%s"
                            "Install ROCm's hiprtc (Debian: libamdhip64-dev / libhiprtc) or set "
                            "GPUACT_HIPRTC_LIBRARY to its path.", rtc_tried);
    if ((missing = gpuact__hip_resolve_rtc(g, s, rtc_lib)))
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "hip: the hiprtc library lacks %s; ROCm 5 or newer is needed", missing);
    return GPUACT_SUCCESS;
}

/* The device of a hipCtx_t: push it, ask, pop it, and give the thread its
   device back (HIP's pop does not). */
static gpuact_result gpuact__hip_adopt(gpuact__gpu *g, const gpuact__hip_setup *s, void *native) {
    int (*push)(void *) = NULL, (*pop)(void **) = NULL, (*get_device)(int *) = NULL;
    gpuact__symbol ctx_api[] = {{"hipCtxPushCurrent", (void *)&push}, {"hipCtxPopCurrent", (void *)&pop},
                                {"hipCtxGetDevice", (void *)&get_device}};
    int e, e2, before = 0;
    void *dummy;
    const char *missing = gpuact__resolve(s->runtime, ctx_api, 3);
    if (missing)
        return gpuact__fail(GPUACT_ERROR_NOT_SUPPORTED,
                            "hip: desc.native_context needs %s, which this HIP runtime lacks; pass the "
                            "device's ordinal as desc.device instead", missing);
    if ((e = gpuact__hipGetDevice(&before))) return gpuact__gpu_fail(g, e, "hipGetDevice");
    if ((e = push(native))) return gpuact__gpu_fail(g, e, "adopting desc.native_context (hipCtxPushCurrent)");
    e = get_device(&g->device);
    e2 = pop(&dummy);
    if (!e) e = e2;
    e2 = gpuact__hipSetDevice(before);
    if (!e) e = e2;
    return e ? gpuact__gpu_fail(g, e, "adopting desc.native_context") : GPUACT_SUCCESS;
}

/* Loaded once per process under gpuact__load_lock (the core holds it around
   create) and copied into each context. */
static gpuact__gpu gpuact__hip_proto;
static gpuact__hip_setup gpuact__hip_proto_setup;
static int gpuact__hip_loaded;

static gpuact_result gpuact__hip_load_once(gpuact__gpu *g, gpuact__hip_setup *s) {
    if (!gpuact__hip_loaded) {
        gpuact_result r;
        memset(&gpuact__hip_proto.api, 0, sizeof gpuact__hip_proto.api);
        memset(&gpuact__hip_proto_setup, 0, sizeof gpuact__hip_proto_setup);
        if ((r = gpuact__hip_load(&gpuact__hip_proto, &gpuact__hip_proto_setup)) != GPUACT_SUCCESS) return r;
        gpuact__hip_loaded = 1;
    }
    g->api = gpuact__hip_proto.api;
    memcpy(g->rtc_options, gpuact__hip_proto.rtc_options, sizeof g->rtc_options);
    memcpy(g->sources, gpuact__hip_proto.sources, sizeof g->sources);
    *s = gpuact__hip_proto_setup;
    return GPUACT_SUCCESS;
}

static gpuact_result gpuact__hip_create(gpuact_context *ctx) {
    gpuact__hip_setup s;
    gpuact__hip_props props;
    gpuact__gpu *g = (gpuact__gpu *)GPUACT_MALLOC(sizeof *g);
    int e, count = 0, units = 0, major = 0, minor = 0;
    gpuact_result r;
    if (!g) return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "hip: out of host memory");
    memset(g, 0, sizeof *g);
    memset(&s, 0, sizeof s);
    ctx->impl = g;
    if ((r = gpuact__hip_load_once(g, &s))) goto fail;
    s.hipDriverGetVersion(&g->driver_version);
    /* No GPU, no driver or no /dev/kfd access all end here (ROCm 5.2 says
       hipErrorInvalidDevice or hipErrorNoDevice), so AUTO moves on. */
    if ((e = s.hipInit(0)) || (e = s.hipGetDeviceCount(&count)) || count == 0) {
        r = gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                         "hip: no usable AMD GPU (HIP runtime %d%s%s). Check that the amdgpu driver is loaded "
                         "and that this user may open /dev/kfd and /dev/dri (groups video, render).",
                         g->driver_version, e ? ": hipInit/hipGetDeviceCount said " : " found 0 devices",
                         e ? gpuact__hip_error_name(e) : "");
        goto fail;
    }
    if (ctx->desc.native_context) {
        if ((r = gpuact__hip_adopt(g, &s, ctx->desc.native_context))) goto fail;
    } else if (ctx->desc.device >= count) {
        r = gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE, "hip: device %d asked for, but %d HIP device(s) found",
                         ctx->desc.device, count);
        goto fail;
    } else if ((e = s.hipDeviceGet(&g->device, ctx->desc.device))) {
        r = gpuact__gpu_fail(g, e, "hipDeviceGet");
        goto fail;
    }
    memset(&props, 0, sizeof props);
    if ((e = s.hipGetDeviceProperties(&props, g->device))) {
        r = gpuact__gpu_fail(g, e, "hipGetDeviceProperties");
        goto fail;
    }
    props.p.gcn_arch_name[sizeof props.p.gcn_arch_name - 1] = '\0';
    if (!props.p.gcn_arch_name[0] || strlen(props.p.gcn_arch_name) >= sizeof g->arch) {
        r = gpuact__fail(GPUACT_ERROR_NOT_SUPPORTED, "hip: the runtime reports gcnArchName \"%.255s\" for device "
                         "%d, which gpuact cannot pass to hiprtc as a target", props.p.gcn_arch_name, g->device);
        goto fail;
    }
    g->context = g; /* non-NULL: every entry point switches to g->device */
    snprintf(g->arch, sizeof g->arch, "%.63s", props.p.gcn_arch_name);
    snprintf(g->arch_option, sizeof g->arch_option, "--gpu-architecture=%s", g->arch);
    /* ROCm 5.2 leaves the marketing name empty on some boards: say the target then. */
    if (s.hipDeviceGetName(ctx->device_name, (int)sizeof ctx->device_name - 1, g->device) || !ctx->device_name[0])
        snprintf(ctx->device_name, sizeof ctx->device_name, "AMD GPU %s", g->arch);
    s.hipDeviceGetAttribute(&units, GPUACT__HIP_ATTR_MULTIPROCESSOR_COUNT, g->device);
    if (s.hiprtcVersion(&major, &minor) == 0) g->rtc_version = major * 1000 + minor * 10;
    gpuact__gpu_set_shape(ctx, g, units);
    return GPUACT_SUCCESS;
fail:
    gpuact__gpu_destroy(ctx);
    return r;
}

static const gpuact__backend gpuact__hip_backend = GPUACT__GPU_VTABLE(GPUACT_BACKEND_HIP, gpuact__hip_create);
