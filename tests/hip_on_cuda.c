/* hip_on_cuda: a test-only HIP runtime for NVIDIA GPUs. It exports the HIP
   and hiprtc entry points that gpuact's HIP backend (backends/gpuact_hip.h)
   looks up, and forwards each to its CUDA driver API or NVRTC counterpart,
   so the backend's host code and the HIP kernel sources (the .hip files in
   kernels/hip, which under NVRTC take the CUDA dialect) run on an NVIDIA
   GPU where no ROCm exists:

     make build/libhip_on_cuda.so build/conformance
     GPUACT_HIP_LIBRARY=build/libhip_on_cuda.so GPUACT_BACKEND=hip build/conformance

   It loads libcuda.so.1 and libnvrtc.so.13 (.12, .so) with dlopen,
   $GPUACT_CUDA_LIBRARY and $GPUACT_NVRTC_LIBRARY first, as gpuact does.

   How HIP maps onto CUDA here:
   - Error codes pass through unchanged: HIP numbered its errors after CUDA's
     (2 = out of memory, 100 = no device, 201 = invalid context ...) and
     hiprtc its results after NVRTC's. hipGetErrorName gives CUDA's name.
   - HIP's per-thread current device is the thread's current CUDA context,
     that device's primary context; with none current, device 0, as in HIP.
   - hipGetDeviceProperties fills what the backend reads of the layout it
     asks for (HIP 4.2 to 5.x, "R0000"): name, multiProcessorCount and
     gcnArchName, which is "sm_XY" here, so the backend asks the compiler
     for --gpu-architecture=sm_XY and NVRTC takes it as it is.
   - hiprtc's options: -ffp-contract=off becomes NVRTC's --fmad=false; the
     code is a CUBIN for the device, which cuModuleLoadData takes.
   Only what the backend calls, only the way it calls it: a mapping for
   tests, not a HIP implementation. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long hoc_devptr; /* CUdeviceptr */

static struct {
    int (*cuInit)(unsigned);
    int (*cuDriverGetVersion)(int *);
    int (*cuDeviceGetCount)(int *);
    int (*cuDeviceGet)(int *, int);
    int (*cuDeviceGetName)(char *, int, int);
    int (*cuDeviceGetAttribute)(int *, int, int);
    int (*cuDevicePrimaryCtxRetain)(void **, int);
    int (*cuCtxGetCurrent)(void **);
    int (*cuCtxSetCurrent)(void *);
    int (*cuCtxGetDevice)(int *);
    int (*cuCtxPushCurrent)(void *);
    int (*cuCtxPopCurrent)(void **);
    int (*cuGetErrorName)(int, const char **);
    int (*cuMemAlloc)(hoc_devptr *, size_t);
    int (*cuMemFree)(hoc_devptr);
    int (*cuMemcpyHtoD)(hoc_devptr, const void *, size_t);
    int (*cuMemcpyDtoH)(void *, hoc_devptr, size_t);
    int (*cuMemcpyDtoDAsync)(hoc_devptr, hoc_devptr, size_t, void *);
    int (*cuStreamSynchronize)(void *);
    int (*cuStreamCreate)(void **, unsigned);
    int (*cuStreamDestroy)(void *);
    int (*cuModuleLoadData)(void **, const void *);
    int (*cuModuleUnload)(void *);
    int (*cuModuleGetFunction)(void **, void *, const char *);
    int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                          void **, void **);
    int (*cuEventCreate)(void **, unsigned);
    int (*cuEventRecord)(void *, void *);
    int (*cuEventSynchronize)(void *);
    int (*cuEventElapsedTime)(float *, void *, void *);
    int (*cuEventDestroy)(void *);
    int (*cuEventQuery)(void *);
    int (*cuStreamWaitEvent)(void *, void *, unsigned);
    int (*cuMemGetAddressRange)(hoc_devptr *, size_t *, hoc_devptr);
    int (*cuFuncSetAttribute)(void *, int, int);
} cu;

static struct {
    int (*nvrtcVersion)(int *, int *);
    int (*nvrtcCreateProgram)(void **, const char *, const char *, int, const char *const *, const char *const *);
    int (*nvrtcCompileProgram)(void *, int, const char *const *);
    int (*nvrtcGetProgramLogSize)(void *, size_t *);
    int (*nvrtcGetProgramLog)(void *, char *);
    int (*nvrtcGetCUBINSize)(void *, size_t *);
    int (*nvrtcGetCUBIN)(void *, char *);
    int (*nvrtcDestroyProgram)(void **);
    const char *(*nvrtcGetErrorString)(int);
} rtc;

typedef struct hoc_symbol { const char *name; void *slot; } hoc_symbol;
#define HOC_SYM(table, field, name) {name, (void *)&table.field}

static const hoc_symbol cu_symbols[] = {
    HOC_SYM(cu, cuInit, "cuInit"), HOC_SYM(cu, cuDriverGetVersion, "cuDriverGetVersion"),
    HOC_SYM(cu, cuDeviceGetCount, "cuDeviceGetCount"), HOC_SYM(cu, cuDeviceGet, "cuDeviceGet"),
    HOC_SYM(cu, cuDeviceGetName, "cuDeviceGetName"), HOC_SYM(cu, cuDeviceGetAttribute, "cuDeviceGetAttribute"),
    HOC_SYM(cu, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    HOC_SYM(cu, cuCtxGetCurrent, "cuCtxGetCurrent"), HOC_SYM(cu, cuCtxSetCurrent, "cuCtxSetCurrent"),
    HOC_SYM(cu, cuCtxGetDevice, "cuCtxGetDevice"), HOC_SYM(cu, cuCtxPushCurrent, "cuCtxPushCurrent_v2"),
    HOC_SYM(cu, cuCtxPopCurrent, "cuCtxPopCurrent_v2"), HOC_SYM(cu, cuGetErrorName, "cuGetErrorName"),
    HOC_SYM(cu, cuMemAlloc, "cuMemAlloc_v2"), HOC_SYM(cu, cuMemFree, "cuMemFree_v2"),
    HOC_SYM(cu, cuMemcpyHtoD, "cuMemcpyHtoD_v2"), HOC_SYM(cu, cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
    HOC_SYM(cu, cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
    HOC_SYM(cu, cuStreamSynchronize, "cuStreamSynchronize"), HOC_SYM(cu, cuModuleLoadData, "cuModuleLoadData"),
    HOC_SYM(cu, cuStreamCreate, "cuStreamCreate"), HOC_SYM(cu, cuStreamDestroy, "cuStreamDestroy_v2"),
    HOC_SYM(cu, cuModuleUnload, "cuModuleUnload"), HOC_SYM(cu, cuModuleGetFunction, "cuModuleGetFunction"),
    HOC_SYM(cu, cuLaunchKernel, "cuLaunchKernel"), HOC_SYM(cu, cuEventCreate, "cuEventCreate"),
    HOC_SYM(cu, cuEventRecord, "cuEventRecord"), HOC_SYM(cu, cuEventSynchronize, "cuEventSynchronize"),
    HOC_SYM(cu, cuEventElapsedTime, "cuEventElapsedTime"), HOC_SYM(cu, cuEventDestroy, "cuEventDestroy_v2"),
    HOC_SYM(cu, cuEventQuery, "cuEventQuery"), HOC_SYM(cu, cuStreamWaitEvent, "cuStreamWaitEvent"),
    HOC_SYM(cu, cuMemGetAddressRange, "cuMemGetAddressRange_v2"), HOC_SYM(cu, cuFuncSetAttribute, "cuFuncSetAttribute"),
};
static const hoc_symbol rtc_symbols[] = {
    HOC_SYM(rtc, nvrtcVersion, "nvrtcVersion"), HOC_SYM(rtc, nvrtcCreateProgram, "nvrtcCreateProgram"),
    HOC_SYM(rtc, nvrtcCompileProgram, "nvrtcCompileProgram"),
    HOC_SYM(rtc, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize"),
    HOC_SYM(rtc, nvrtcGetProgramLog, "nvrtcGetProgramLog"), HOC_SYM(rtc, nvrtcGetCUBINSize, "nvrtcGetCUBINSize"),
    HOC_SYM(rtc, nvrtcGetCUBIN, "nvrtcGetCUBIN"), HOC_SYM(rtc, nvrtcDestroyProgram, "nvrtcDestroyProgram"),
    HOC_SYM(rtc, nvrtcGetErrorString, "nvrtcGetErrorString"),
};

enum {
    HIP_ERROR_NOT_INITIALIZED = 3,
    HIP_ERROR_NO_DEVICE = 100,
    HIP_ERROR_NOT_SUPPORTED = 801,
    HIPRTC_ERROR_OUT_OF_MEMORY = 1,
    HIPRTC_ERROR_INTERNAL_ERROR = 11,
    HIP_ATTR_MULTIPROCESSOR_COUNT = 63, /* hipDeviceAttributeMultiprocessorCount */
    CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    CU_ATTR_CC_MAJOR = 75,
    CU_ATTR_CC_MINOR = 76,
    /* hipDeviceProp_t of HIP 4.2 to 5.x (hipDeviceProp_tR0000 since 6.0), LP64 */
    R0000_NAME = 0,
    R0000_MULTI_PROCESSOR_COUNT = 336,
    R0000_GCN_ARCH_NAME = 396,
    R0000_SIZE = 792
};

static int cu_ok, rtc_ok;
static char load_error[2048];

/* Opens the first of $env_var and names that loads and has every symbol;
   the names that did not load go to load_error when none did. */
static int load_library(const char *env_var, const char *const *names, const hoc_symbol *syms, size_t count) {
    const char *env = getenv(env_var);
    size_t start = strlen(load_error);
    int i;
    for (i = env && env[0] ? -1 : 0; i < 0 || names[i]; i++) {
        const char *name = i < 0 ? env : names[i];
        void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        size_t k, used = strlen(load_error);
        for (k = 0; lib && k < count; k++) {
            void *p = dlsym(lib, syms[k].name);
            if (!p) break;
            memcpy(syms[k].slot, &p, sizeof p);
        }
        if (lib && k == count) {
            load_error[start] = '\0';
            return 1;
        }
        snprintf(load_error + used, sizeof load_error - used, "hip_on_cuda: %s: %s; ", name,
                 lib ? "a symbol is missing" : dlerror());
        if (lib) dlclose(lib);
    }
    return 0;
}

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static void load(void) {
    static const char *const cuda_names[] = {"libcuda.so.1", "libcuda.so", NULL};
    static const char *const nvrtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    cu_ok = load_library("GPUACT_CUDA_LIBRARY", cuda_names, cu_symbols, sizeof cu_symbols / sizeof cu_symbols[0]);
    rtc_ok = load_library("GPUACT_NVRTC_LIBRARY", nvrtc_names, rtc_symbols,
                          sizeof rtc_symbols / sizeof rtc_symbols[0]);
}
#define NEED_CUDA                                                                                   \
    do {                                                                                            \
        pthread_once(&load_once, load);                                                             \
        if (!cu_ok) return HIP_ERROR_NOT_INITIALIZED;                                               \
    } while (0)
#define NEED_NVRTC                                                                                  \
    do {                                                                                            \
        pthread_once(&load_once, load);                                                             \
        if (!rtc_ok) return HIPRTC_ERROR_INTERNAL_ERROR;                                            \
    } while (0)

/* hipSetDevice: the device's primary context, retained once per process. */
static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static void *primary[64];
int hipSetDevice(int device) {
    void *ctx;
    int e = 0, handle = 0;
    NEED_CUDA;
    if (device < 0 || device >= 64) return 101; /* invalid device */
    pthread_mutex_lock(&primary_lock);
    if (!primary[device] && !(e = cu.cuDeviceGet(&handle, device)))
        e = cu.cuDevicePrimaryCtxRetain(&primary[device], handle);
    ctx = primary[device];
    pthread_mutex_unlock(&primary_lock);
    return e ? e : cu.cuCtxSetCurrent(ctx);
}
int hipGetDevice(int *device) {
    void *ctx = NULL;
    int e;
    NEED_CUDA;
    if ((e = cu.cuCtxGetCurrent(&ctx))) return e;
    if (!ctx) {
        *device = 0;
        return 0;
    }
    return cu.cuCtxGetDevice(device);
}
/* HIP calls work on the current device, device 0 when none was chosen. */
static int current(void) {
    void *ctx = NULL;
    int e = cu.cuCtxGetCurrent(&ctx);
    return e ? e : ctx ? 0 : hipSetDevice(0);
}
#define ON_DEVICE(call)                                                                             \
    do {                                                                                            \
        int e_;                                                                                     \
        NEED_CUDA;                                                                                  \
        if ((e_ = current())) return e_;                                                            \
        return call;                                                                                \
    } while (0)

int hipInit(unsigned flags) {
    NEED_CUDA;
    return cu.cuInit(flags);
}
int hipDriverGetVersion(int *v) {
    NEED_CUDA;
    return cu.cuDriverGetVersion(v);
}
int hipGetDeviceCount(int *n) {
    int e;
    NEED_CUDA;
    e = cu.cuDeviceGetCount(n);
    return e ? e : *n ? 0 : HIP_ERROR_NO_DEVICE;
}
int hipDeviceGet(int *device, int ordinal) {
    NEED_CUDA;
    return cu.cuDeviceGet(device, ordinal);
}
int hipDeviceGetName(char *name, int len, int device) {
    NEED_CUDA;
    return cu.cuDeviceGetName(name, len, device);
}
int hipDeviceGetAttribute(int *value, int attr, int device) {
    NEED_CUDA;
    if (attr != HIP_ATTR_MULTIPROCESSOR_COUNT) return HIP_ERROR_NOT_SUPPORTED;
    return cu.cuDeviceGetAttribute(value, CU_ATTR_MULTIPROCESSOR_COUNT, device);
}
int hipGetDevicePropertiesR0000(void *props, int device) {
    char *p = (char *)props;
    int e, units = 0, major = 0, minor = 0;
    NEED_CUDA;
    memset(p, 0, R0000_SIZE);
    if ((e = cu.cuDeviceGetName(p + R0000_NAME, 256, device)) ||
        (e = cu.cuDeviceGetAttribute(&units, CU_ATTR_MULTIPROCESSOR_COUNT, device)) ||
        (e = cu.cuDeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, device)) ||
        (e = cu.cuDeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, device)))
        return e;
    memcpy(p + R0000_MULTI_PROCESSOR_COUNT, &units, sizeof units);
    snprintf(p + R0000_GCN_ARCH_NAME, 256, "sm_%d%d", major, minor);
    return 0;
}
int hipGetDeviceProperties(void *props, int device) { return hipGetDevicePropertiesR0000(props, device); }
const char *hipGetErrorName(int e) {
    const char *s = NULL;
    pthread_once(&load_once, load);
    if (cu_ok && cu.cuGetErrorName(e, &s) == 0 && s) return s;
    return cu_ok ? "hip_on_cuda: an unknown CUDA error" : load_error;
}

int hipCtxPushCurrent(void *ctx) {
    NEED_CUDA;
    return cu.cuCtxPushCurrent(ctx);
}
int hipCtxPopCurrent(void **ctx) {
    NEED_CUDA;
    return cu.cuCtxPopCurrent(ctx);
}
int hipCtxGetDevice(int *device) {
    NEED_CUDA;
    return cu.cuCtxGetDevice(device);
}

int hipMalloc(void **p, size_t bytes) {
    hoc_devptr d = 0;
    int e;
    NEED_CUDA;
    if ((e = current())) return e;
    e = cu.cuMemAlloc(&d, bytes);
    *p = e ? NULL : (void *)(uintptr_t)d;
    return e;
}
int hipFree(void *p) {
    if (!p) return 0; /* as HIP */
    ON_DEVICE(cu.cuMemFree((hoc_devptr)(uintptr_t)p));
}
int hipMemcpyHtoD(void *dst, void *src, size_t bytes) {
    ON_DEVICE(cu.cuMemcpyHtoD((hoc_devptr)(uintptr_t)dst, src, bytes));
}
int hipMemcpyDtoH(void *dst, void *src, size_t bytes) {
    ON_DEVICE(cu.cuMemcpyDtoH(dst, (hoc_devptr)(uintptr_t)src, bytes));
}
int hipMemcpyDtoDAsync(void *dst, void *src, size_t bytes, void *stream) {
    ON_DEVICE(cu.cuMemcpyDtoDAsync((hoc_devptr)(uintptr_t)dst, (hoc_devptr)(uintptr_t)src, bytes, stream));
}
int hipStreamSynchronize(void *stream) { ON_DEVICE(cu.cuStreamSynchronize(stream)); }
/* hipStreamNonBlocking is CU_STREAM_NON_BLOCKING's 1 */
int hipStreamCreateWithFlags(void **stream, unsigned flags) { ON_DEVICE(cu.cuStreamCreate(stream, flags)); }
int hipStreamDestroy(void *stream) { ON_DEVICE(cu.cuStreamDestroy(stream)); }
int hipModuleLoadData(void **module, const void *image) { ON_DEVICE(cu.cuModuleLoadData(module, image)); }
int hipModuleUnload(void *module) { ON_DEVICE(cu.cuModuleUnload(module)); }
int hipModuleGetFunction(void **fn, void *module, const char *name) {
    ON_DEVICE(cu.cuModuleGetFunction(fn, module, name));
}
/* hipFuncAttributeMaxDynamicSharedMemorySize is CUDA's attribute 8 */
int hipFuncSetAttribute(const void *fn, int attr, int value) { ON_DEVICE(cu.cuFuncSetAttribute((void *)fn, attr, value)); }
int hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **params, void **extra) {
    ON_DEVICE(cu.cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra));
}
/* hipEventDefault/BlockingSync/DisableTiming are CUDA's flag bits. */
int hipEventCreateWithFlags(void **ev, unsigned flags) { ON_DEVICE(cu.cuEventCreate(ev, flags)); }
int hipEventRecord(void *ev, void *stream) { ON_DEVICE(cu.cuEventRecord(ev, stream)); }
int hipEventSynchronize(void *ev) { ON_DEVICE(cu.cuEventSynchronize(ev)); }
int hipEventElapsedTime(float *ms, void *start, void *stop) { ON_DEVICE(cu.cuEventElapsedTime(ms, start, stop)); }
int hipEventDestroy(void *ev) { ON_DEVICE(cu.cuEventDestroy(ev)); }
/* hipErrorNotReady is CUDA_ERROR_NOT_READY's 600; the flags are CUDA's. */
int hipEventQuery(void *ev) { ON_DEVICE(cu.cuEventQuery(ev)); }
int hipStreamWaitEvent(void *stream, void *ev, unsigned flags) { ON_DEVICE(cu.cuStreamWaitEvent(stream, ev, flags)); }
int hipMemGetAddressRange(void **base, size_t *size, void *p) {
    hoc_devptr b = 0;
    int e;
    NEED_CUDA;
    if ((e = current())) return e;
    e = cu.cuMemGetAddressRange(&b, size, (hoc_devptr)(uintptr_t)p);
    *base = e ? NULL : (void *)(uintptr_t)b;
    return e;
}

int hiprtcVersion(int *major, int *minor) {
    NEED_NVRTC;
    return rtc.nvrtcVersion(major, minor);
}
int hiprtcCreateProgram(void **prog, const char *src, const char *name, int nheaders, const char **headers,
                        const char **include_names) {
    NEED_NVRTC;
    return rtc.nvrtcCreateProgram(prog, src, name, nheaders, headers, include_names);
}
int hiprtcCompileProgram(void *prog, int nopts, const char **opts) {
    const char **mapped;
    int i, e;
    NEED_NVRTC;
    if (!(mapped = (const char **)malloc(((size_t)nopts + 1) * sizeof *mapped))) return HIPRTC_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < nopts; i++) mapped[i] = strcmp(opts[i], "-ffp-contract=off") ? opts[i] : "--fmad=false";
    e = rtc.nvrtcCompileProgram(prog, nopts, mapped);
    free(mapped);
    return e;
}
int hiprtcGetProgramLogSize(void *prog, size_t *size) {
    NEED_NVRTC;
    return rtc.nvrtcGetProgramLogSize(prog, size);
}
int hiprtcGetProgramLog(void *prog, char *log) {
    NEED_NVRTC;
    return rtc.nvrtcGetProgramLog(prog, log);
}
int hiprtcGetCodeSize(void *prog, size_t *size) {
    NEED_NVRTC;
    return rtc.nvrtcGetCUBINSize(prog, size);
}
int hiprtcGetCode(void *prog, char *code) {
    NEED_NVRTC;
    return rtc.nvrtcGetCUBIN(prog, code);
}
int hiprtcDestroyProgram(void **prog) {
    NEED_NVRTC;
    return rtc.nvrtcDestroyProgram(prog);
}
const char *hiprtcGetErrorString(int e) {
    pthread_once(&load_once, load);
    return rtc_ok ? rtc.nvrtcGetErrorString(e) : load_error;
}
