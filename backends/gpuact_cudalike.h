/* gpuact host logic shared by the CUDA and HIP backends.

   The CUDA driver API and HIP's module API agree call for call (context,
   memory, module, launch, events) and so do NVRTC and hiprtc, so one copy
   of the backend runs on either: gpuact_cuda.h and gpuact_hip.h only load
   their libraries into a gpuact__gpu_api and describe the device.

   Builds:  a kernel variant is compiled at run time on first use (NVRTC to
            SASS for the device's exact architecture / hiprtc to the device's
            gfx target), loaded as a module and kept for the context's life.
   Cache:   compiled code is also kept on disk, in ctx->cache_dir, one file a
            variant, under a SHA-256 key of everything that went into it; the
            file repeats those inputs and carries the code's SHA-256.
            Anything that does not match in full, or that the driver refuses
            to load, is rebuilt and rewritten (through a temporary file
            renamed into place), never used. A directory that others could
            write to is not used at all (see >>disk cache).
   Context: every call makes the context current on the calling thread and
            restores the previous one, so callers' own CUDA/HIP code is not
            disturbed. */

/* Driver and compiler entry points, in the shape both APIs share. Device
   pointers travel as void*, streams, modules, functions, events and
   programs as opaque pointers; every call returns the API's error code. */
typedef struct gpuact__gpu_api {
    const char *name;       /* "cuda" or "hip": messages, cache file names */
    const char *rtc_name;   /* "NVRTC" or "hiprtc" */
    int (*ctx_push)(void *ctx);
    int (*ctx_pop)(void **ctx);
    int (*mem_alloc)(void **p, size_t bytes);
    int (*mem_free)(void *p);
    int (*memcpy_htod)(void *dst, const void *src, size_t bytes);
    int (*memcpy_dtoh)(void *dst, const void *src, size_t bytes);
    int (*memcpy_dtod_async)(void *dst, const void *src, size_t bytes, void *stream);
    int (*stream_sync)(void *stream);
    int (*stream_create)(void **stream, unsigned flags); /* flags: 1, non-blocking (both APIs) */
    int (*stream_destroy)(void *stream);
    int (*module_load_data)(void **module, const void *image);
    int (*module_unload)(void *module);
    int (*module_get_function)(void **fn, void *module, const char *name);
    int (*launch)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  unsigned shared, void *stream, void **params, void **extra);
    int (*event_create)(void **ev, unsigned flags);
    int (*event_record)(void *ev, void *stream);
    int (*event_sync)(void *ev);
    int (*event_elapsed)(float *ms, void *start, void *end);
    int (*event_destroy)(void *ev);
    int (*event_query)(void *ev);                           /* 0: done; 600: not yet (both APIs) */
    int (*stream_wait_event)(void *stream, void *ev, unsigned flags);
    int (*mem_range)(void **base, size_t *size, void *ptr); /* the allocation holding ptr */
    int (*func_set_attribute)(void *fn, int attr, int value); /* attr: GPUACT__GPU_MAX_DYNAMIC_SHARED */
    const char *(*error_name)(int err); /* never NULL */
    /* run-time compiler */
    int (*rtc_create)(void **prog, const char *src, const char *name, int nheaders, const char *const *headers,
                      const char *const *include_names);
    int (*rtc_compile)(void *prog, int nopts, const char *const *opts);
    int (*rtc_log_size)(void *prog, size_t *size);
    int (*rtc_log)(void *prog, char *log);
    int (*rtc_code_size)(void *prog, size_t *size);
    int (*rtc_code)(void *prog, char *code);
    int (*rtc_destroy)(void **prog);
    const char *(*rtc_error_string)(int err);
} gpuact__gpu_api;

/* the function attribute of the most dynamic shared memory a launch may ask for (8 in both APIs) */
#define GPUACT__GPU_MAX_DYNAMIC_SHARED 8

/* The entry points both vendor APIs have, in one list: X(slot in
   gpuact__gpu_api, CUDA's name, HIP's name). Each backend's loader takes
   its column (gpuact__cuda_load, gpuact__hip_load). */
#define GPUACT__GPU_DRIVER_SYMBOLS(X)                                                  \
    X(mem_alloc, "cuMemAlloc_v2", "hipMalloc")                                         \
    X(mem_free, "cuMemFree_v2", "hipFree")                                             \
    X(memcpy_htod, "cuMemcpyHtoD_v2", "hipMemcpyHtoD")                                 \
    X(memcpy_dtoh, "cuMemcpyDtoH_v2", "hipMemcpyDtoH")                                 \
    X(memcpy_dtod_async, "cuMemcpyDtoDAsync_v2", "hipMemcpyDtoDAsync")                 \
    X(stream_sync, "cuStreamSynchronize", "hipStreamSynchronize")                      \
    X(stream_create, "cuStreamCreate", "hipStreamCreateWithFlags")                     \
    X(stream_destroy, "cuStreamDestroy_v2", "hipStreamDestroy")                        \
    X(module_load_data, "cuModuleLoadData", "hipModuleLoadData")                       \
    X(module_unload, "cuModuleUnload", "hipModuleUnload")                              \
    X(module_get_function, "cuModuleGetFunction", "hipModuleGetFunction")              \
    X(launch, "cuLaunchKernel", "hipModuleLaunchKernel")                               \
    X(event_create, "cuEventCreate", "hipEventCreateWithFlags")                        \
    X(event_record, "cuEventRecord", "hipEventRecord")                                 \
    X(event_sync, "cuEventSynchronize", "hipEventSynchronize")                         \
    X(event_elapsed, "cuEventElapsedTime", "hipEventElapsedTime")                      \
    X(event_destroy, "cuEventDestroy_v2", "hipEventDestroy")                           \
    X(event_query, "cuEventQuery", "hipEventQuery")                                    \
    X(stream_wait_event, "cuStreamWaitEvent", "hipStreamWaitEvent")                    \
    X(mem_range, "cuMemGetAddressRange_v2", "hipMemGetAddressRange")                   \
    X(func_set_attribute, "cuFuncSetAttribute", "hipFuncSetAttribute")
#define GPUACT__GPU_RTC_SYMBOLS(X)                                                     \
    X(rtc_create, "nvrtcCreateProgram", "hiprtcCreateProgram")                         \
    X(rtc_compile, "nvrtcCompileProgram", "hiprtcCompileProgram")                      \
    X(rtc_log_size, "nvrtcGetProgramLogSize", "hiprtcGetProgramLogSize")               \
    X(rtc_log, "nvrtcGetProgramLog", "hiprtcGetProgramLog")                            \
    X(rtc_code_size, "nvrtcGetCUBINSize", "hiprtcGetCodeSize")                         \
    X(rtc_code, "nvrtcGetCUBIN", "hiprtcGetCode")                                      \
    X(rtc_destroy, "nvrtcDestroyProgram", "hiprtcDestroyProgram")                      \
    X(rtc_error_string, "nvrtcGetErrorString", "hiprtcGetErrorString")
#define GPUACT__CUDA_SYM_(slot, cuda, hip) GPUACT__SYM(g->api.slot, cuda),
#define GPUACT__HIP_SYM_(slot, cuda, hip) GPUACT__SYM(g->api.slot, hip),

/* The smooth kinds' row walks on a device (gpuact__gpu_rows_for) */
typedef struct gpuact__gpu_rows {
    const char *name; /* a part of the device's name */
    unsigned char fwd32, fwd16, bwd32, tanh_bwd32, bwd16;
    unsigned char epi, glu_bwd; /* gpuact__shape's epi_rows and glu_rows */
    unsigned char lut16;        /* the 16-bit lookup (kernels/contract.h, GPUACT_LUT16_VARIANT) */
} gpuact__gpu_rows;

/* What a cudalike backend knows of its device and libraries. */
#define GPUACT__RTC_OPTIONS 8
typedef struct gpuact__gpu {
    gpuact__gpu_api api;
    void *libs[2];                     /* driver, compiler (dlclose on destroy; NULL: loaded once per process) */
    void *context;                     /* CUcontext / hipCtx_t (or NULL where HIP has none) */
    void (*release)(struct gpuact__gpu *g); /* releases context (primary retain etc.) */
    int device;                        /* ordinal */
    char arch[64];                     /* "sm_90" / "gfx90a" */
    char arch_option[96];              /* the compiler's architecture option */
    const char *rtc_options[GPUACT__RTC_OPTIONS]; /* further compiler options (NULL: none); [2..6]: the launch shape, [7]: the lookup */
    const gpuact__gpu_rows *rows;      /* the smooth kinds' row walks on this device */
    void *fill_stream;                 /* gpuact's own, for the lookup tables' fills (none: not yet needed) */
    int driver_version, rtc_version;   /* both go into the cache key */
    const char *const *const *sources[GPUACT_OP_COUNT]; /* each op's program (gpuact__join) */
    const void *fatbin;                /* precompiled module with every variant, or NULL */
    void *fatbin_module;
    void *modules[GPUACT__VARIANTS];
    void *functions[GPUACT__VARIANTS];
} gpuact__gpu;

#define GPUACT__GPU(ctx) ((gpuact__gpu *)(ctx)->impl)

/* The launch shape both dialects share (kernels/contract.h): a thread
   has GPUACT__UNROLL vectors of 16 bytes of the widest array; the kernels
   get the same number as -DGPUACT_UNROLL. (A build-time knob for tuning
   experiments; 2 is what docs/PERFORMANCE.md measured.) */
#ifndef GPUACT__UNROLL
#define GPUACT__UNROLL 2
#endif
/* Blocks per multiprocessor the kernels' register use must allow, on the
   selection path and the general one (CUDA's __launch_bounds__; tuning
   knobs, measured in docs/PERFORMANCE.md). */
#ifndef GPUACT__MIN_BLOCKS_SELECT
#define GPUACT__MIN_BLOCKS_SELECT 8
#endif
#ifndef GPUACT__MIN_BLOCKS_GENERAL
#define GPUACT__MIN_BLOCKS_GENERAL 4
#endif
/* Evict-first stores in the 16-bit backward from the mask (the f32 one
   always uses them, see kernels/cuda/common.cuh): 0, as they do not pay
   there, with evict-first loads even less (docs/PERFORMANCE.md, "Tuning knobs"). */
#ifndef GPUACT__EVICT_FIRST16
#define GPUACT__EVICT_FIRST16 0
#endif
#define GPUACT__STR_(x) #x
#define GPUACT__STR(x) GPUACT__STR_(x)
/* Bias-gradient row groups per multiprocessor: whole waves at 3, 4, 6 and
   8 resident blocks (docs/PERFORMANCE.md, "Tuning knobs"). */
#ifndef GPUACT__DBIAS_GROUPS_PER_UNIT_CUDA
#define GPUACT__DBIAS_GROUPS_PER_UNIT_CUDA 24
#endif
/* Matrix rows a block row of a forward writing the mask with a 4-byte
   array walks (gpuact__rows_per_block; docs/PERFORMANCE.md). */
#ifndef GPUACT__ROWS_MASK32
#define GPUACT__ROWS_MASK32 2
#endif
/* Matrix rows a block row of GELU's, tanh-GELU's and SiLU's forward (no
   bias, scale or codes) and backward from x walks (gpuact__shape's
   smooth_rows): the forward 4; the backward with a 4-byte array 1, as a
   copy, but tanh-GELU's, issue-bound, 8; the 16-bit backward 2
   (docs/PERFORMANCE.md, "Tuning knobs"). These are the H100's; a device
   named in gpuact__gpu_rows_tuned takes its own row instead (unless
   GPUACT__ROWS_BY_DEVICE is 0). */
#ifndef GPUACT__ROWS_SMOOTH_FWD
#define GPUACT__ROWS_SMOOTH_FWD 4
#endif
#ifndef GPUACT__ROWS_SMOOTH_BWD32
#define GPUACT__ROWS_SMOOTH_BWD32 1
#endif
#ifndef GPUACT__ROWS_TANH_BWD32
#define GPUACT__ROWS_TANH_BWD32 8
#endif
#ifndef GPUACT__ROWS_SMOOTH_BWD16
#define GPUACT__ROWS_SMOOTH_BWD16 2
#endif
/* f16's lookup (kernels/contract.h, GPUACT_LUT16_BLOCK_F16): its blocks load a 64 KiB table
   once for the rows they walk */
#ifndef GPUACT__ROWS_LUT_F16
#define GPUACT__ROWS_LUT_F16 12
#endif
#ifndef GPUACT__ROWS_BY_DEVICE
#define GPUACT__ROWS_BY_DEVICE 1
#endif
/* The H200 moves more bytes per issue slot than the H100, so a block's
   setup weighs more there and longer walks pay (measured in
   docs/PERFORMANCE.md, "Tuning knobs"). */
static const gpuact__gpu_rows gpuact__gpu_rows_tuned[] = {
    {"H200", 4, 4, 4, 4, 8, 16, 4, 1},
};
static const gpuact__gpu_rows gpuact__gpu_rows_default = {
    "", GPUACT__ROWS_SMOOTH_FWD, GPUACT__ROWS_SMOOTH_FWD, GPUACT__ROWS_SMOOTH_BWD32, GPUACT__ROWS_TANH_BWD32,
    GPUACT__ROWS_SMOOTH_BWD16, GPUACT__ROWS_TRANSCENDENTAL, GPUACT__ROWS_GLU_BWD, 0};
static const gpuact__gpu_rows *gpuact__gpu_rows_for(const char *device_name) {
    size_t i;
    for (i = 0; GPUACT__ROWS_BY_DEVICE && i < sizeof gpuact__gpu_rows_tuned / sizeof gpuact__gpu_rows_tuned[0]; i++)
        if (strstr(device_name, gpuact__gpu_rows_tuned[i].name)) return &gpuact__gpu_rows_tuned[i];
    return &gpuact__gpu_rows_default;
}
static unsigned gpuact__gpu_smooth_rows(const gpuact__gpu_rows *t, const gpuact__variant *V) {
    const int n4 = gpuact__arrays_4byte(V);
    if (V->op != GPUACT_OP_backward) return n4 ? t->fwd32 : t->fwd16;
    if (!n4) return t->bwd16;
    return V->kind == GPUACT_KIND_gelu_tanh ? t->tanh_bwd32 : t->bwd32;
}

/* Whether a variant looks its results up on this device (kernels/contract.h, GPUACT_LUT16_VARIANT): the
   device's row asks for it, and the variant has a module of its own (the precompiled one has no table). */
static int gpuact__gpu_lut16(const gpuact__gpu *g, const gpuact__variant *V) {
    return g->rows->lut16 && !g->fatbin &&
           GPUACT_LUT16_VARIANT(V->op, V->kind, V->mask, V->dbias, V->fromx, V->precise, (int)V->t[0], (int)V->t[1],
                                (int)V->t[2]);
}

/* A launch's shape (gpuact__backend's shape): a thread takes GPUACT__UNROLL
   16-byte vectors of GPUACT_VEC elements, one where GPUACT_ONE_VECTOR says,
   GPUACT_GLU16_UNROLL in the gated forward with every array 16-bit; a
   block has GPUACT_VARIANT_BLOCK threads (kernels/contract.h: the kernels
   apply the same rules to their types and launch bounds). */
static void gpuact__gpu_shape(const gpuact_context *ctx, const gpuact__launch *L, gpuact__shape *out) {
    const gpuact__variant *V = &L->v;
    const int n4 = gpuact__arrays_4byte(V);
    if (V->op == GPUACT_OP_dbias)
        out->items = 1;
    else if (GPUACT_ONE_VECTOR(V->op, V->kind, V->mask, V->dbias, !n4,
                               GPUACT_WIDENS(gpuact_dtype_size(V->t[0]), gpuact_dtype_size(V->t[1]))))
        out->items = GPUACT_VEC(!n4);
    else if (!n4 && V->op == GPUACT_OP_glu_forward)
        out->items = GPUACT_VEC(1) * GPUACT_GLU16_UNROLL;
    else
        out->items = GPUACT_VEC(!n4) * GPUACT__UNROLL;
    out->block = out->fallback = (unsigned)GPUACT_VARIANT_BLOCK(V->op, V->mask, V->dbias, n4 > 0);
    if (gpuact__gpu_lut16(GPUACT__GPU(ctx), V)) out->block = out->fallback = GPUACT_LUT16_BLOCK((int)V->t[0], out->block);
    out->dbias_groups = GPUACT__DBIAS_GROUPS_PER_UNIT_CUDA;
    out->mask_rows = GPUACT__ROWS_MASK32;
    out->smooth_rows = gpuact__gpu_smooth_rows(GPUACT__GPU(ctx)->rows, V);
    out->epi_rows = GPUACT__GPU(ctx)->rows->epi;
    out->glu_rows = GPUACT__GPU(ctx)->rows->glu_bwd;
    if (gpuact__gpu_lut16(GPUACT__GPU(ctx), V) && V->t[0] == GPUACT_F16) out->smooth_rows = GPUACT__ROWS_LUT_F16;
}

static void gpuact__gpu_set_shape(gpuact_context *ctx, gpuact__gpu *g, int units) {
    ctx->units = units > 0 ? (unsigned)units : 1;
    g->rows = gpuact__gpu_rows_for(ctx->device_name);
    ctx->dbias_slices = GPUACT_DBIAS_SLICES;
    ctx->address_handles = ctx->shifted_rows = 1;
    g->rtc_options[2] = "-DGPUACT_UNROLL=" GPUACT__STR(GPUACT__UNROLL);
    g->rtc_options[3] = "-DGPUACT_MIN_BLOCKS_SELECT=" GPUACT__STR(GPUACT__MIN_BLOCKS_SELECT);
    g->rtc_options[4] = "-DGPUACT_MIN_BLOCKS_GENERAL=" GPUACT__STR(GPUACT__MIN_BLOCKS_GENERAL);
    g->rtc_options[5] = "-DGPUACT_BLOCK=" GPUACT__STR(GPUACT_BLOCK);
    g->rtc_options[6] = "-DGPUACT_EVICT_FIRST16=" GPUACT__STR(GPUACT__EVICT_FIRST16);
    g->rtc_options[7] = g->rows->lut16 ? "-DGPUACT_LUT16=1" : NULL;
}

static gpuact_result gpuact__gpu_fail(const gpuact__gpu *g, int err, const char *what) {
    gpuact_result r = err == 2 /* cuda/hip: out of memory */ ? GPUACT_ERROR_OUT_OF_MEMORY : GPUACT_ERROR_DEVICE;
    return gpuact__fail(r, "%s: %s failed with %s (%d)", g->api.name, what, g->api.error_name(err), err);
}

/* Every entry point runs inside push/pop of the context. */
static gpuact_result gpuact__gpu_enter(const gpuact__gpu *g) {
    int e = g->context ? g->api.ctx_push(g->context) : 0;
    return e ? gpuact__gpu_fail(g, e, "making the context current") : GPUACT_SUCCESS;
}
static void gpuact__gpu_leave(const gpuact__gpu *g) {
    void *dummy;
    if (g->context) g->api.ctx_pop(&dummy);
}

/* ---- >>disk cache ----------------------------------------------------------- */

/* Threat model (docs/RELIABILITY.md): the cache directory holds code the
   GPU runs, so only its owner may be able to write there. A directory not
   owned by this (effective) user, not a directory, or writable by group or
   others is refused and the disk cache is not used at all (builds still
   work, from memory). An entry is found by a SHA-256 key over everything
   that went into the code (source, options, library, backend, device
   architecture, driver and compiler versions); the file repeats those and
   carries the code's SHA-256, and anything that does not match in full is
   rebuilt and replaced, never loaded. Entries are written to a temporary
   file (0600) and renamed into place, so a reader never sees half of one.
   Code the driver then refuses to load is rebuilt and replaced too. */

/* SHA-256 (FIPS 180-4), written for this cache. */
typedef struct gpuact__sha256 {
    uint32_t h[8];
    uint64_t length;          /* bytes hashed so far */
    unsigned char block[64];
    size_t used;
} gpuact__sha256;

static const uint32_t gpuact__sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

#define GPUACT__ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
static void gpuact__sha256_block(gpuact__sha256 *c, const unsigned char *p) {
    uint32_t w[64], v[8], t1, t2;
    int i;
    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (i = 16; i < 64; i++)
        w[i] = w[i - 16] + (GPUACT__ROR(w[i - 15], 7) ^ GPUACT__ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
               (GPUACT__ROR(w[i - 2], 17) ^ GPUACT__ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
    memcpy(v, c->h, sizeof v);
    for (i = 0; i < 64; i++) {
        t1 = v[7] + (GPUACT__ROR(v[4], 6) ^ GPUACT__ROR(v[4], 11) ^ GPUACT__ROR(v[4], 25)) +
             ((v[4] & v[5]) ^ (~v[4] & v[6])) + gpuact__sha256_k[i] + w[i];
        t2 = (GPUACT__ROR(v[0], 2) ^ GPUACT__ROR(v[0], 13) ^ GPUACT__ROR(v[0], 22)) +
             ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof v[0]);
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (i = 0; i < 8; i++) c->h[i] += v[i];
}
#undef GPUACT__ROR

static void gpuact__sha256_init(gpuact__sha256 *c) {
    static const uint32_t h0[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                   0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    memcpy(c->h, h0, sizeof h0);
    c->length = 0;
    c->used = 0;
}
static void gpuact__sha256_add(gpuact__sha256 *c, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    c->length += n;
    while (n) {
        size_t k = 64 - c->used < n ? 64 - c->used : n;
        memcpy(c->block + c->used, p, k);
        c->used += k;
        p += k;
        n -= k;
        if (c->used == 64) {
            gpuact__sha256_block(c, c->block);
            c->used = 0;
        }
    }
}
static void gpuact__sha256_end(gpuact__sha256 *c, unsigned char out[32]) {
    uint64_t bits = c->length * 8;
    unsigned char pad[72];
    size_t n = (c->used < 56 ? 56 : 120) - c->used;
    int i;
    memset(pad, 0, sizeof pad);
    pad[0] = 0x80;
    for (i = 0; i < 8; i++) pad[n + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    gpuact__sha256_add(c, pad, n + 8);
    for (i = 0; i < 32; i++) out[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}
static void gpuact__sha256_of(const void *data, size_t n, unsigned char out[32]) {
    gpuact__sha256 c;
    gpuact__sha256_init(&c);
    gpuact__sha256_add(&c, data, n);
    gpuact__sha256_end(&c, out);
}

#define GPUACT__CACHE_FORMAT 2u

typedef struct gpuact__cache_header {
    char magic[8];            /* "GPUACTK\0" */
    uint32_t format;          /* GPUACT__CACHE_FORMAT */
    uint32_t header_size;     /* sizeof this struct */
    char library[16];         /* GPUACT_VERSION_STRING */
    char backend[8];          /* "cuda" / "hip" */
    char arch[64];
    int32_t driver_version, rtc_version;
    unsigned char key[32];    /* SHA-256 of everything that went into the code */
    uint64_t size;            /* of the code that follows */
    unsigned char code_sha256[32];
} gpuact__cache_header;

/* The key of a variant: every input of the build, each length-prefixed. */
static void gpuact__cache_key(const gpuact__gpu *g, const char *src, const char *const *opts, int nopts,
                              unsigned char key[32]) {
    gpuact__sha256 c;
    int32_t versions[2];
    const char *parts[4];
    int i;
    parts[0] = "gpuact kernel cache 2";
    parts[1] = GPUACT_VERSION_STRING;
    parts[2] = g->api.name;
    parts[3] = g->arch;
    gpuact__sha256_init(&c);
    for (i = 0; i < 4 + 1 + nopts; i++) {
        const char *t = i < 4 ? parts[i] : i == 4 ? src : opts[i - 5];
        uint64_t n = strlen(t);
        gpuact__sha256_add(&c, &n, sizeof n);
        gpuact__sha256_add(&c, t, (size_t)n);
    }
    versions[0] = g->driver_version;
    versions[1] = g->rtc_version;
    gpuact__sha256_add(&c, versions, sizeof versions);
    gpuact__sha256_end(&c, key);
}

static void gpuact__cache_fill(const gpuact__gpu *g, const unsigned char key[32], gpuact__cache_header *h) {
    memset(h, 0, sizeof *h);
    memcpy(h->magic, "GPUACTK", 8);
    h->format = GPUACT__CACHE_FORMAT;
    h->header_size = (uint32_t)sizeof *h;
    snprintf(h->library, sizeof h->library, "%s", GPUACT_VERSION_STRING);
    snprintf(h->backend, sizeof h->backend, "%s", g->api.name);
    snprintf(h->arch, sizeof h->arch, "%s", g->arch);
    h->driver_version = g->driver_version;
    h->rtc_version = g->rtc_version;
    memcpy(h->key, key, 32);
}

/* The entry's path, or 0 when it would not fit (then nothing is cached). */
static int gpuact__cache_path(const char *dir, const gpuact__gpu *g, const unsigned char key[32], char *path,
                              size_t n) {
    char hex[33], arch[64];
    int i, k;
    for (i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", key[i]);
    /* gfx targets carry ':' and '+' ("gfx90a:sramecc+:xnack-"): keep names plain */
    for (i = 0; g->arch[i] && i < 63; i++)
        arch[i] = (g->arch[i] >= 'a' && g->arch[i] <= 'z') || (g->arch[i] >= '0' && g->arch[i] <= '9') ||
                  g->arch[i] == '_' ? g->arch[i] : '-';
    arch[i] = '\0';
    k = snprintf(path, n, "%s/%s-%s-%s.bin", dir, g->api.name, arch, hex);
    return k > 0 && (size_t)k < n;
}

/* Whether dir may hold the cache: it exists (made, 0700, when missing), is
   a directory, is owned by this user, and neither group nor others may
   write to it. why (may be NULL) says what is wrong. */
static int gpuact__cache_dir_ok(const char *dir, int create, char *why, size_t why_size) {
    struct stat st;
    char tmp[GPUACT__CACHE_DIR_MAX + 1], *p;
    if (why && why_size) why[0] = '\0';
    if (!dir[0] || strlen(dir) > GPUACT__CACHE_DIR_MAX) {
        if (why) snprintf(why, why_size, "no directory, or its path is longer than %d bytes", GPUACT__CACHE_DIR_MAX);
        return 0;
    }
    if (create && stat(dir, &st) != 0) {
        snprintf(tmp, sizeof tmp, "%s", dir);
        for (p = tmp + 1; *p; p++)
            if (*p == '/') {
                *p = '\0';
                mkdir(tmp, 0700);
                *p = '/';
            }
        mkdir(tmp, 0700);
    }
    if (stat(dir, &st) != 0) {
        if (why) snprintf(why, why_size, "%s", strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (why) snprintf(why, why_size, "not a directory");
        return 0;
    }
    if (st.st_uid != geteuid()) {
        if (why) snprintf(why, why_size, "owned by uid %ld, not by this user (uid %ld)", (long)st.st_uid,
                          (long)geteuid());
        return 0;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        if (why) snprintf(why, why_size, "writable by %s (mode %03o)", st.st_mode & S_IWOTH ? "others" : "its group",
                          (unsigned)(st.st_mode & 0777));
        return 0;
    }
    return 1;
}

/* The cached code for key, or NULL (missing, foreign, stale or corrupt). */
static char *gpuact__cache_load(const char *dir, const gpuact__gpu *g, const unsigned char key[32], size_t *size) {
    gpuact__cache_header want, got;
    unsigned char sum[32];
    char path[GPUACT__CACHE_DIR_MAX + 200], *code = NULL;
    FILE *f;
    if (!gpuact__cache_dir_ok(dir, 0, NULL, 0) || !gpuact__cache_path(dir, g, key, path, sizeof path)) return NULL;
    if (!(f = fopen(path, "rb"))) return NULL;
    gpuact__cache_fill(g, key, &want);
    if (fread(&got, sizeof got, 1, f) == 1 && got.size > 0 && got.size < ((uint64_t)1 << 31) &&
        memcmp(&got, &want, offsetof(gpuact__cache_header, size)) == 0 &&
        (code = (char *)GPUACT_MALLOC((size_t)got.size + 1)) != NULL) {
        if (fread(code, 1, (size_t)got.size, f) != got.size || fgetc(f) != EOF ||
            (gpuact__sha256_of(code, (size_t)got.size, sum), memcmp(sum, got.code_sha256, 32) != 0)) {
            GPUACT_FREE(code);
            code = NULL;
        } else {
            code[got.size] = '\0';
            *size = (size_t)got.size;
        }
    }
    fclose(f);
    return code;
}

/* Best effort: a cache that cannot be written only costs the next build.
   Written to a temporary file (mkstemp: 0600) and renamed into place. */
static void gpuact__cache_store(const char *dir, const gpuact__gpu *g, const unsigned char key[32], const char *code,
                                size_t size) {
    gpuact__cache_header h;
    char path[GPUACT__CACHE_DIR_MAX + 200], tmp[GPUACT__CACHE_DIR_MAX + 220];
    FILE *f;
    int fd, ok;
    if (!gpuact__cache_dir_ok(dir, 1, NULL, 0) || !gpuact__cache_path(dir, g, key, path, sizeof path)) return;
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) return;
    if (!(f = fdopen(fd, "wb"))) {
        close(fd);
        unlink(tmp);
        return;
    }
    gpuact__cache_fill(g, key, &h);
    h.size = size;
    gpuact__sha256_of(code, size, h.code_sha256);
    ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(code, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

static gpuact_result gpuact__gpu_compile(const gpuact__gpu *g, const char *src, const char *const *opts, int nopts,
                                         const char *what, char **code, size_t *size);

/* The module of one variant: from the disk cache when an entry matches in
   full and the driver loads it, else compiled (and the entry written or
   replaced). */
static gpuact_result gpuact__cached_module(const char *dir, const gpuact__gpu *g, const char *src,
                                           const char *const *opts, int nopts, const char *name, void **module) {
    unsigned char key[32];
    size_t size = 0;
    char *code = NULL;
    gpuact_result r;
    int e;
    gpuact__cache_key(g, src, opts, nopts, key);
    if (dir[0] && (code = gpuact__cache_load(dir, g, key, &size)) != NULL) {
        e = g->api.module_load_data(module, code);
        GPUACT_FREE(code);
        if (!e) return GPUACT_SUCCESS;
        *module = NULL; /* an entry the driver refuses: rebuilt and replaced below */
    }
    if ((r = gpuact__gpu_compile(g, src, opts, nopts, name, &code, &size)) != GPUACT_SUCCESS) return r;
    e = g->api.module_load_data(module, code);
    if (!e && dir[0]) gpuact__cache_store(dir, g, key, code, size);
    GPUACT_FREE(code);
    return e ? gpuact__gpu_fail(g, e, "loading a compiled kernel module") : GPUACT_SUCCESS;
}

/* ---- >>kernel builds --------------------------------------------------------- */

/* Compiles one variant with the run-time compiler; *code is malloc'd. */
static gpuact_result gpuact__gpu_compile(const gpuact__gpu *g, const char *src, const char *const *opts, int nopts,
                                         const char *what, char **code, size_t *size) {
    void *prog = NULL;
    size_t log_size = 0;
    int e = g->api.rtc_create(&prog, src, what, 0, NULL, NULL);
    if (e) return gpuact__fail(GPUACT_ERROR_KERNEL_BUILD, "%s: %s could not create a program for %s: %s",
                               g->api.name, g->api.rtc_name, what, g->api.rtc_error_string(e));
    e = g->api.rtc_compile(prog, nopts, opts);
    if (e) {
        char *log = NULL;
        int i;
        g->api.rtc_log_size(prog, &log_size);
        if (log_size && (log = (char *)GPUACT_MALLOC(log_size + 1)) != NULL) {
            g->api.rtc_log(prog, log);
            log[log_size] = '\0';
        }
        gpuact__fail(GPUACT_ERROR_KERNEL_BUILD, "%s: %s failed to compile %s for %s (%s). Options:", g->api.name,
                     g->api.rtc_name, what, g->arch, g->api.rtc_error_string(e));
        for (i = 0; i < nopts; i++) gpuact__append(" %s", opts[i]);
        gpuact__append("\nCompiler log:\n%s", log ? log : "(empty)");
        if (log) GPUACT_FREE(log);
        g->api.rtc_destroy(&prog);
        return GPUACT_ERROR_KERNEL_BUILD;
    }
    e = g->api.rtc_code_size(prog, size);
    if (!e && (*code = (char *)GPUACT_MALLOC(*size + 1)) == NULL) {
        g->api.rtc_destroy(&prog);
        return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "%s: out of host memory for compiled code", g->api.name);
    }
    if (!e) e = g->api.rtc_code(prog, *code);
    g->api.rtc_destroy(&prog);
    if (e) return gpuact__fail(GPUACT_ERROR_KERNEL_BUILD, "%s: %s produced no code for %s: %s", g->api.name,
                               g->api.rtc_name, what, g->api.rtc_error_string(e));
    return GPUACT_SUCCESS;
}

/* The function of variant L: from the precompiled module, the disk cache or
   a fresh build. Called with ctx->lock held and the context current. */
static gpuact_result gpuact__gpu_build(gpuact_context *ctx, gpuact__gpu *g, const gpuact__launch *L, void **fn) {
    char name[GPUACT__NAME_MAX], defs[GPUACT__DEFINES][GPUACT__DEFINE_MAX];
    const char *opts[1 + GPUACT__DEFINES + GPUACT__RTC_OPTIONS]; /* the architecture, the variant's, the backend's */
    char *src = NULL;
    int e, i, nopts = 0, v = gpuact__variant_index(&L->v);
    gpuact_result r = GPUACT_SUCCESS;
    gpuact__variant_name(&L->v, name, sizeof name);
    if (g->fatbin) {
        if (!g->fatbin_module && (e = g->api.module_load_data(&g->fatbin_module, g->fatbin)))
            return gpuact__gpu_fail(g, e, "loading the precompiled kernels (GPUACT_CUDA_PRECOMPILED)");
        e = g->api.module_get_function(fn, g->fatbin_module, name);
        return e ? gpuact__gpu_fail(g, e, name) : GPUACT_SUCCESS;
    }
    gpuact__variant_defines(&L->v, defs);
    opts[nopts++] = g->arch_option;
    for (i = 0; i < GPUACT__DEFINES; i++) opts[nopts++] = defs[i];
    for (i = 0; i < (int)(sizeof g->rtc_options / sizeof g->rtc_options[0]); i++)
        if (g->rtc_options[i]) opts[nopts++] = g->rtc_options[i];
    if (!(src = gpuact__join(g->sources[L->v.op])))
        return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", g->api.name);
    r = gpuact__cached_module(ctx->cache_dir, g, src, opts, nopts, name, &g->modules[v]);
    GPUACT_FREE(src);
    if (r != GPUACT_SUCCESS) return r;
    e = g->api.module_get_function(fn, g->modules[v], name);
    return e ? gpuact__gpu_fail(g, e, name) : GPUACT_SUCCESS;
}

/* A variant that looks its results up (gpuact__gpu_lut16): its module's table, filled by the module's
   gpuact_lut16_fill and waited for, and its kernel allowed the table's shared memory, before any launch
   can read it. The fill runs on gpuact's own non-blocking stream, so the caller's stream is never
   waited for (inside a capture in CUDA's global mode that first use still fails: docs/RELIABILITY.md). */
static gpuact_result gpuact__gpu_lut16_fill(gpuact__gpu *g, const gpuact__launch *L, void *fn) {
    const int dt = (int)L->v.t[0];
    void *fill = NULL;
    int e;
    if (!gpuact__gpu_lut16(g, &L->v)) return GPUACT_SUCCESS;
    if ((!g->fill_stream && (e = g->api.stream_create(&g->fill_stream, 1))) ||
        (e = g->api.module_get_function(&fill, g->modules[gpuact__variant_index(&L->v)], "gpuact_lut16_fill")) ||
        (e = g->api.func_set_attribute(fn, GPUACT__GPU_MAX_DYNAMIC_SHARED, (int)GPUACT_LUT16_SHARED(L->v.op, dt))) ||
        (e = g->api.launch(fill, GPUACT_LUT16_ENTRIES(GPUACT_LUT16_TABLE(L->v.op, dt)) / 8 / 128, 1, 1, 128, 1, 1, 0, g->fill_stream,
                           NULL, NULL)) ||
        (e = g->api.stream_sync(g->fill_stream)))
        return gpuact__gpu_fail(g, e, "filling the 16-bit lookup's table");
    return GPUACT_SUCCESS;
}

/* ---- >>vtable entries ----------------------------------------------------------- */

static void gpuact__gpu_destroy(gpuact_context *ctx) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    int i;
    if (!g) return;
    if (g->api.module_unload && gpuact__gpu_enter(g) == GPUACT_SUCCESS) {
        for (i = 0; i < GPUACT__VARIANTS; i++)
            if (g->modules[i]) g->api.module_unload(g->modules[i]);
        if (g->fatbin_module) g->api.module_unload(g->fatbin_module);
        if (g->fill_stream) g->api.stream_destroy(g->fill_stream);
        gpuact__gpu_leave(g);
    }
    if (g->release) g->release(g);
#ifndef GPUACT_NO_RUNTIME_LINKING
    for (i = 0; i < 2; i++)
        if (g->libs[i]) dlclose(g->libs[i]);
#endif
    GPUACT_FREE(g);
    ctx->impl = NULL;
}

static gpuact_result gpuact__gpu_alloc(gpuact_context *ctx, size_t bytes, gpuact_buffer *out) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.mem_alloc(&out->handle, bytes);
    gpuact__gpu_leave(g);
    out->offset = 0;
    return e ? gpuact__gpu_fail(g, e, "allocating device memory") : GPUACT_SUCCESS;
}
static void gpuact__gpu_free(gpuact_context *ctx, gpuact_buffer b) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    if (gpuact__gpu_enter(g)) return;
    g->api.mem_free(b.handle);
    gpuact__gpu_leave(g);
}
static gpuact_result gpuact__gpu_write(gpuact_context *ctx, gpuact_buffer dst, const void *src, size_t bytes) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.memcpy_htod((char *)dst.handle + dst.offset, src, bytes);
    gpuact__gpu_leave(g);
    return e ? gpuact__gpu_fail(g, e, "copying to the device") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__gpu_read(gpuact_context *ctx, void *dst, gpuact_buffer src, size_t bytes) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.memcpy_dtoh(dst, (const char *)src.handle + src.offset, bytes);
    gpuact__gpu_leave(g);
    return e ? gpuact__gpu_fail(g, e, "copying from the device") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__gpu_synchronize(gpuact_context *ctx, gpuact_stream s) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.stream_sync(s);
    gpuact__gpu_leave(g);
    return e ? gpuact__gpu_fail(g, e, "synchronizing the stream") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__gpu_copy(gpuact_context *ctx, gpuact_stream s, gpuact_buffer dst, gpuact_buffer src,
                                      size_t bytes) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.memcpy_dtod_async((char *)dst.handle + dst.offset, (const char *)src.handle + src.offset, bytes, s);
    gpuact__gpu_leave(g);
    return e ? gpuact__gpu_fail(g, e, "copying on the device") : GPUACT_SUCCESS;
}

#define GPUACT__GPU_NONE_(name)
static gpuact_result gpuact__gpu_launch(gpuact_context *ctx, gpuact_stream s, const gpuact__launch *L) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    const int v = gpuact__variant_index(&L->v);
#define GPUACT__GPU_ONE_(name) +1
    /* one pointer per buffer parameter, one slot per parameter (kernels/contract.h) */
    void *fn, *ptr[GPUACT_KERNEL_PARAMS(GPUACT__GPU_ONE_, GPUACT__GPU_NONE_, GPUACT__GPU_NONE_, GPUACT__GPU_NONE_, )],
        *params[GPUACT_KERNEL_PARAMS(GPUACT__GPU_ONE_, GPUACT__GPU_ONE_, GPUACT__GPU_ONE_, GPUACT__GPU_ONE_, )];
    gpuact_result r;
    int np = 0, nb = 0, e;
    /* the kernel's parameters in the order of kernels/contract.h */
#define GPUACT__GPU_BUF_(name)                                                                  \
    ptr[nb] = L->name.handle ? (char *)L->name.handle + L->name.offset : NULL;                 \
    params[np++] = &ptr[nb++];
#define GPUACT__GPU_SCALAR_(name) params[np++] = (void *)&L->name;
    GPUACT_KERNEL_PARAMS(GPUACT__GPU_BUF_, GPUACT__GPU_SCALAR_, GPUACT__GPU_SCALAR_, GPUACT__GPU_SCALAR_, )
    if ((r = gpuact__gpu_enter(g))) return r;
    fn = GPUACT__LOAD_ACQUIRE(&g->functions[v]);
    if (!fn) { /* first use: build under the lock, publish once done */
        pthread_mutex_lock(&ctx->lock);
        if (!(fn = g->functions[v]) && (r = gpuact__gpu_build(ctx, g, L, &fn)) == GPUACT_SUCCESS &&
            (r = gpuact__gpu_lut16_fill(g, L, fn)) == GPUACT_SUCCESS)
            GPUACT__STORE_RELEASE(&g->functions[v], fn);
        pthread_mutex_unlock(&ctx->lock);
    }
    if (r == GPUACT_SUCCESS && !L->prepare_only) {
        e = g->api.launch(fn, (unsigned)L->grid_x, (unsigned)L->grid_y, 1, L->block, 1, 1,
                          gpuact__gpu_lut16(g, &L->v) ? GPUACT_LUT16_SHARED(L->v.op, (int)L->v.t[0]) : 0u, s, params, NULL);
        if (e) r = gpuact__gpu_fail(g, e, "launching a kernel");
    }
    gpuact__gpu_leave(g);
    return r;
}

static gpuact_result gpuact__gpu_timer_begin(gpuact_context *ctx, gpuact_stream s, void **token) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    void **ev = (void **)GPUACT_MALLOC(2 * sizeof(void *));
    gpuact_result r;
    int e;
    *token = NULL;
    if (!ev) return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "timer: out of host memory");
    if ((r = gpuact__gpu_enter(g))) {
        GPUACT_FREE(ev);
        return r;
    }
    ev[0] = ev[1] = NULL;
    e = g->api.event_create(&ev[0], 0);
    if (!e) e = g->api.event_create(&ev[1], 0);
    if (!e) e = g->api.event_record(ev[0], s);
    if (e) {
        if (ev[0]) g->api.event_destroy(ev[0]);
        if (ev[1]) g->api.event_destroy(ev[1]);
        GPUACT_FREE(ev);
        ev = NULL;
    }
    gpuact__gpu_leave(g);
    *token = ev;
    return e ? gpuact__gpu_fail(g, e, "recording an event") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__gpu_timer_end(gpuact_context *ctx, gpuact_stream s, void *token, double *ms) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    void **ev = (void **)token;
    float t = 0;
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.event_record(ev[1], s);
    if (!e) e = g->api.event_sync(ev[1]);
    if (!e) e = g->api.event_elapsed(&t, ev[0], ev[1]);
    g->api.event_destroy(ev[0]);
    g->api.event_destroy(ev[1]);
    gpuact__gpu_leave(g);
    GPUACT_FREE(ev);
    *ms = t;
    return e ? gpuact__gpu_fail(g, e, "timing with events") : GPUACT_SUCCESS;
}

/* Events of the bias-gradient workspace: one event a slot, made once
   (timing off: cheaper) and re-recorded by each use. */
static gpuact_result gpuact__gpu_event_record(gpuact_context *ctx, gpuact_stream s, void **ev) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e = 0;
    if (r) return r;
    if (!*ev) e = g->api.event_create(ev, 2 /* CU_EVENT_DISABLE_TIMING = hipEventDisableTiming */);
    if (!e) e = g->api.event_record(*ev, s);
    gpuact__gpu_leave(g);
    return e ? gpuact__gpu_fail(g, e, "recording the workspace's event") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__gpu_event_after(gpuact_context *ctx, gpuact_stream s, void *ev) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.stream_wait_event(s, ev, 0);
    gpuact__gpu_leave(g);
    return e ? gpuact__gpu_fail(g, e, "waiting on the device for the workspace's last use") : GPUACT_SUCCESS;
}
static int gpuact__gpu_event_done(gpuact_context *ctx, void *ev) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    int e;
    if (gpuact__gpu_enter(g)) return 0;
    e = g->api.event_query(ev);
    gpuact__gpu_leave(g);
    return e == 0;
}
static gpuact_result gpuact__gpu_event_wait(gpuact_context *ctx, void *ev) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    gpuact_result r = gpuact__gpu_enter(g);
    int e;
    if (r) return r;
    e = g->api.event_sync(ev);
    gpuact__gpu_leave(g);
    return e ? gpuact__gpu_fail(g, e, "waiting for the workspace's event") : GPUACT_SUCCESS;
}
static void gpuact__gpu_event_release(gpuact_context *ctx, void *ev) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    if (gpuact__gpu_enter(g)) return;
    g->api.event_destroy(ev);
    gpuact__gpu_leave(g);
}

/* The allocation holding b.handle, as the driver knows it
   (cuMemGetAddressRange / hipMemGetAddressRange). Memory the driver cannot
   place (host-registered or system memory, some managed and imported
   allocations) is accepted unchecked: see RELIABILITY.md. The owning
   context is not checked: with unified addressing a pointer of another
   context can be valid here (peer access). */
static int gpuact__gpu_buffer_extent(gpuact_context *ctx, gpuact_buffer b, size_t *bytes) {
    gpuact__gpu *g = GPUACT__GPU(ctx);
    void *base = NULL;
    size_t size = 0;
    int e;
    if (gpuact__gpu_enter(g)) return GPUACT__EXTENT_UNKNOWN;
    e = g->api.mem_range(&base, &size, b.handle);
    gpuact__gpu_leave(g);
    if (e || (char *)b.handle < (char *)base || (size_t)((char *)b.handle - (char *)base) > size)
        return GPUACT__EXTENT_UNKNOWN;
    *bytes = size - (size_t)((char *)b.handle - (char *)base);
    return GPUACT__EXTENT_KNOWN;
}

#define GPUACT__GPU_VTABLE(id, create)                                                                 \
    {id, create, gpuact__gpu_destroy, gpuact__gpu_alloc, gpuact__gpu_free, gpuact__gpu_write,        \
     gpuact__gpu_read, gpuact__gpu_synchronize, gpuact__gpu_shape, gpuact__gpu_launch, gpuact__gpu_copy, \
     gpuact__gpu_timer_begin, gpuact__gpu_timer_end, gpuact__gpu_event_record, gpuact__gpu_event_after, \
     gpuact__gpu_event_done, gpuact__gpu_event_wait, gpuact__gpu_event_release, gpuact__gpu_buffer_extent}
