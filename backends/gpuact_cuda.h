/* gpuact CUDA backend: the CUDA driver API plus NVRTC, on gpuact_cudalike.h.

   Loads:   libcuda.so.1 ($GPUACT_CUDA_LIBRARY first) and NVRTC:
            libnvrtc.so.13, .12, then libnvrtc.so ($GPUACT_NVRTC_LIBRARY
            first), with dlopen. GPUACT_NO_RUNTIME_LINKING resolves the same
            symbols from the program itself (link -lcuda -lnvrtc).
            GPUACT_CUDA_PRECOMPILED takes every kernel from the fatbin that
            `make cuda-fatbin` writes, and NVRTC is not loaded at all.
   Context: the device's primary context (the CUDA runtime's and PyTorch's),
            so cudaMalloc pointers and cudaStream_t streams work as they are;
            desc.native_context adopts a CUcontext instead.
   Builds:  NVRTC to SASS for the device's exact architecture
            (--gpu-architecture=sm_XY), no FMA contraction, no FTZ; cached in
            memory and on disk (gpuact_cudalike.h). */

#ifdef GPUACT_CUDA_PRECOMPILED
#include "../kernels/cuda/gpuact_cuda_fatbin.h"
#endif

/* Entry points used only here, during set-up. */
typedef struct gpuact__cuda_setup {
    int (*cuInit)(unsigned);
    int (*cuDriverGetVersion)(int *);
    int (*cuDeviceGetCount)(int *);
    int (*cuDeviceGet)(int *, int);
    int (*cuDeviceGetName)(char *, int, int);
    int (*cuDeviceGetAttribute)(int *, int, int);
    int (*cuDevicePrimaryCtxRetain)(void **, int);
    int (*cuCtxGetDevice)(int *);
    int (*nvrtcVersion)(int *, int *);
} gpuact__cuda_setup;

/* NVRTC options every build gets (tests/rtc_check.c compiles with the same):
   the IEEE behaviour docs/NUMERICS.md promises, no contraction, no flush of
   subnormals. */
static const char *const gpuact__cuda_rtc_options[2] = {"--fmad=false", "--ftz=false"};

/* Process-wide: the same libcuda for every context. */
static int (*gpuact__cuGetErrorName)(int, const char **);
static int (*gpuact__cuDevicePrimaryCtxRelease)(int);

/* The CUresult codes a user is likely to meet, named without the driver
   (which may be the thing that failed to load or to start). */
static const char *gpuact__cuda_known_error(int e) {
    switch (e) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY: this is the stub libcuda from the toolkit, not the driver; install "
                    "the NVIDIA driver, or take the toolkit's stubs directory out of the library path "
                    "(LD_LIBRARY_PATH, GPUACT_CUDA_LIBRARY)";
    case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE (the GPU is busy in exclusive-process mode or unavailable)";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 200: return "CUDA_ERROR_INVALID_IMAGE";
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 218: return "CUDA_ERROR_INVALID_PTX";
    case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION (the driver is older than NVRTC)";
    case 304: return "CUDA_ERROR_OPERATING_SYSTEM";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 600: return "CUDA_ERROR_NOT_READY";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    case 702: return "CUDA_ERROR_LAUNCH_TIMEOUT";
    case 719: return "CUDA_ERROR_LAUNCH_FAILED";
    case 802: return "CUDA_ERROR_SYSTEM_NOT_READY";
    case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (the kernel module and libcuda are of different versions)";
    case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case 999: return "CUDA_ERROR_UNKNOWN";
    }
    return NULL;
}

static const char *gpuact__cuda_error_name(int e) {
    const char *s = gpuact__cuda_known_error(e);
    if (!s && gpuact__cuGetErrorName) gpuact__cuGetErrorName(e, &s);
    return s ? s : "an unknown CUDA error";
}

/* ctx_push/ctx_pop of the table: push only when the context is not already
   current (the common case for callers on the primary context), which saves
   two driver calls on every operation. One bit per nesting level records
   whether that level pushed. */
static int (*gpuact__cuCtxGetCurrent)(void **);
static int (*gpuact__cuCtxPushCurrent)(void *);
static int (*gpuact__cuCtxPopCurrent)(void **);
static GPUACT__TLS unsigned gpuact__cuda_pushed, gpuact__cuda_depth;

static int gpuact__cuda_ctx_push(void *ctx) {
    void *current = NULL;
    int e = gpuact__cuCtxGetCurrent(&current), push = e || current != ctx;
    if (gpuact__cuda_depth >= 32) return 201; /* CUDA_ERROR_INVALID_CONTEXT */
    if (push && (e = gpuact__cuCtxPushCurrent(ctx))) return e;
    gpuact__cuda_pushed = (gpuact__cuda_pushed & ~(1u << gpuact__cuda_depth)) | ((unsigned)push << gpuact__cuda_depth);
    gpuact__cuda_depth++;
    return 0;
}
static int gpuact__cuda_ctx_pop(void **ctx) {
    *ctx = NULL;
    if (!gpuact__cuda_depth) return 201;
    gpuact__cuda_depth--;
    return (gpuact__cuda_pushed >> gpuact__cuda_depth) & 1u ? gpuact__cuCtxPopCurrent(ctx) : 0;
}

static void gpuact__cuda_release(gpuact__gpu *g) {
    if (g->context && gpuact__cuDevicePrimaryCtxRelease) gpuact__cuDevicePrimaryCtxRelease(g->device);
}

/* NVRTC into g->api (and its version query into s): the one list of its
   names and entry points, used by the backend and by tests/rtc_check.c. */
static GPUACT__UNUSED gpuact_result gpuact__nvrtc_load(gpuact__gpu *g, gpuact__cuda_setup *s) {
    static const char *const nvrtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    char tried[2048];
    const char *missing;
    gpuact__symbol rtc[] = {GPUACT__GPU_RTC_SYMBOLS(GPUACT__CUDA_SYM_) GPUACT__SYM(s->nvrtcVersion, "nvrtcVersion")};
    g->libs[1] = gpuact__dlopen_first("GPUACT_NVRTC_LIBRARY", nvrtc_names, tried, sizeof tried);
    if (!g->libs[1])
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "cuda: NVRTC, which compiles gpuact's kernels, could not be loaded. Tried:\n%s"
                            "Install the CUDA toolkit's NVRTC (e.g. Debian's libnvrtc), set "
                            "GPUACT_NVRTC_LIBRARY to its path, or build with GPUACT_CUDA_PRECOMPILED.", tried);
    if ((missing = gpuact__resolve(g->libs[1], rtc, (int)(sizeof rtc / sizeof rtc[0]))))
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "cuda: the NVRTC library lacks %s; NVRTC 11.1 or newer is needed", missing);
    g->api.rtc_name = "NVRTC";
    return GPUACT_SUCCESS;
}

static gpuact_result gpuact__cuda_load(gpuact__gpu *g, gpuact__cuda_setup *s) {
    static const char *const cuda_names[] = {"libcuda.so.1", "libcuda.so", NULL};
    char tried[2048];
    const char *missing;
    gpuact__symbol driver[] = {
        GPUACT__SYM(s->cuInit, "cuInit"), GPUACT__SYM(s->cuDriverGetVersion, "cuDriverGetVersion"),
        GPUACT__SYM(s->cuDeviceGetCount, "cuDeviceGetCount"), GPUACT__SYM(s->cuDeviceGet, "cuDeviceGet"),
        GPUACT__SYM(s->cuDeviceGetName, "cuDeviceGetName"),
        GPUACT__SYM(s->cuDeviceGetAttribute, "cuDeviceGetAttribute"),
        GPUACT__SYM(s->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
        GPUACT__SYM(s->cuCtxGetDevice, "cuCtxGetDevice"),
        GPUACT__SYM(gpuact__cuGetErrorName, "cuGetErrorName"),
        GPUACT__SYM(gpuact__cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
        GPUACT__SYM(gpuact__cuCtxGetCurrent, "cuCtxGetCurrent"),
        GPUACT__SYM(gpuact__cuCtxPushCurrent, "cuCtxPushCurrent_v2"),
        GPUACT__SYM(gpuact__cuCtxPopCurrent, "cuCtxPopCurrent_v2"), GPUACT__GPU_DRIVER_SYMBOLS(GPUACT__CUDA_SYM_)
    };
    g->api.name = "cuda";
    g->api.rtc_name = "NVRTC";
    g->api.error_name = gpuact__cuda_error_name;
    g->api.ctx_push = gpuact__cuda_ctx_push;
    g->api.ctx_pop = gpuact__cuda_ctx_pop;
    g->libs[0] = gpuact__dlopen_first("GPUACT_CUDA_LIBRARY", cuda_names, tried, sizeof tried);
    if (!g->libs[0])
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "cuda: the CUDA driver library could not be loaded. Tried:\n%s"
                            "Install the NVIDIA driver, or set GPUACT_CUDA_LIBRARY to libcuda's path.", tried);
    if ((missing = gpuact__resolve(g->libs[0], driver, (int)(sizeof driver / sizeof driver[0]))))
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "cuda: the CUDA driver library lacks %s; the driver is too old (CUDA 11 or newer "
                            "is needed)", missing);
#ifndef GPUACT_CUDA_PRECOMPILED
    return gpuact__nvrtc_load(g, s);
#else
    return GPUACT_SUCCESS; /* NVRTC is not loaded at all */
#endif
}

/* Loaded once per process under gpuact__load_lock (the core holds it around
   create) and copied into each context; the libraries are never closed. */
static gpuact__gpu gpuact__cuda_proto;
static gpuact__cuda_setup gpuact__cuda_proto_setup;
static int gpuact__cuda_loaded, gpuact__cuda_served;

static gpuact_result gpuact__cuda_load_once(gpuact__gpu *g, gpuact__cuda_setup *s) {
    if (!gpuact__cuda_loaded) {
        gpuact_result r;
        memset(&gpuact__cuda_proto.api, 0, sizeof gpuact__cuda_proto.api);
        memset(&gpuact__cuda_proto_setup, 0, sizeof gpuact__cuda_proto_setup);
        if ((r = gpuact__cuda_load(&gpuact__cuda_proto, &gpuact__cuda_proto_setup)) != GPUACT_SUCCESS) return r;
        gpuact__cuda_loaded = 1;
    }
    g->api = gpuact__cuda_proto.api;
    *s = gpuact__cuda_proto_setup;
    return GPUACT_SUCCESS;
}

static gpuact_result gpuact__cuda_create(gpuact_context *ctx) {
    gpuact__cuda_setup s;
    gpuact__gpu *g = (gpuact__gpu *)GPUACT_MALLOC(sizeof *g);
    int e, count = 0, major = 0, minor = 0, units = 0;
    gpuact_result r;
    if (!g) return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "cuda: out of host memory");
    memset(g, 0, sizeof *g);
    memset(&s, 0, sizeof s);
    ctx->impl = g;
    if ((r = gpuact__cuda_load_once(g, &s))) goto fail;
    if ((e = s.cuInit(0))) {
        r = gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE, "cuda: cuInit failed with %s (%d): no usable NVIDIA "
                         "GPU or driver", gpuact__cuda_error_name(e), e);
        /* A library that cannot start (the toolkit's stub, a driver without
           a GPU) is not kept: a later create loads afresh, e.g. after the
           environment was fixed. Never once a context used the table. */
        if (!gpuact__cuda_served) gpuact__cuda_loaded = 0;
        goto fail;
    }
    s.cuDriverGetVersion(&g->driver_version);
    if (ctx->desc.native_context) {
        g->context = ctx->desc.native_context;
        if ((e = g->api.ctx_push(g->context)) == 0) {
            e = s.cuCtxGetDevice(&g->device);
            gpuact__gpu_leave(g);
        }
        if (e) {
            g->context = NULL;
            r = gpuact__gpu_fail(g, e, "adopting desc.native_context");
            goto fail;
        }
    } else {
        if ((e = s.cuDeviceGetCount(&count)) || ctx->desc.device >= count) {
            r = gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE, "cuda: device %d asked for, but %d CUDA device(s) "
                             "found%s%s", ctx->desc.device, count, e ? ": " : "", e ? gpuact__cuda_error_name(e) : "");
            goto fail;
        }
        if ((e = s.cuDeviceGet(&g->device, ctx->desc.device)) ||
            (e = s.cuDevicePrimaryCtxRetain(&g->context, g->device))) {
            r = gpuact__gpu_fail(g, e, "retaining the device's primary context");
            goto fail;
        }
        g->release = gpuact__cuda_release;
    }
    s.cuDeviceGetName(ctx->device_name, (int)sizeof ctx->device_name - 1, g->device);
    s.cuDeviceGetAttribute(&major, 75 /* COMPUTE_CAPABILITY_MAJOR */, g->device);
    s.cuDeviceGetAttribute(&minor, 76 /* COMPUTE_CAPABILITY_MINOR */, g->device);
    s.cuDeviceGetAttribute(&units, 16 /* MULTIPROCESSOR_COUNT */, g->device);
    snprintf(g->arch, sizeof g->arch, "sm_%d%d", major, minor);
    snprintf(g->arch_option, sizeof g->arch_option, "--gpu-architecture=%s", g->arch);
    if (s.nvrtcVersion && s.nvrtcVersion(&major, &minor) == 0) g->rtc_version = major * 1000 + minor * 10;
    g->rtc_options[0] = gpuact__cuda_rtc_options[0];
    g->rtc_options[1] = gpuact__cuda_rtc_options[1];
#define GPUACT__CUDA_PROGRAM_(name, short_name) g->sources[GPUACT_OP_##name] = gpuact__cuda_##name;
    GPUACT_OPS(GPUACT__CUDA_PROGRAM_)
#ifdef GPUACT_CUDA_PRECOMPILED
    g->fatbin = gpuact__cuda_fatbin;
#endif
    gpuact__gpu_set_shape(ctx, g, units);
    gpuact__cuda_served = 1;
    return GPUACT_SUCCESS;
fail:
    gpuact__gpu_destroy(ctx);
    return r;
}

static const gpuact__backend gpuact__cuda_backend = GPUACT__GPU_VTABLE(GPUACT_BACKEND_CUDA, gpuact__cuda_create);
