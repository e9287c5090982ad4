/* gpuact OpenCL backend (OpenCL 1.2 host API).

   Loads:   libOpenCL.so.1, then libOpenCL.so ($GPUACT_OPENCL_LIBRARY first),
            with dlopen; GPUACT_NO_RUNTIME_LINKING links -lOpenCL instead.
   Device:  desc.device counts the GPU devices of all platforms in platform
            order, then every other device (so ordinal 0 is the first GPU,
            or the CPU device of PoCL on a machine without one). Or adopt the
            caller's cl_context + cl_device_id (+ cl_command_queue as stream).
   Builds:  on a GPU one program per kernel variant; on other devices
            (PoCL, CPU drivers) one per op, dtype triple and
            GPUACT_CL_PROGRAM_KINDS activation kinds (every variant of
            them, as kernels/opencl/common.cl composes it). Built on the
            first use of a variant, kept for the context's life; the build
            log goes to gpuact_last_error(). No disk cache: OpenCL drivers
            keep their own.
   Buffers: cl_mem plus byte offset; the offset is passed to the kernel (no
            sub-buffers, whose alignment rules would refuse most offsets).
   Threads: clSetKernelArg is not thread-safe on one cl_kernel, so argument
            setting and enqueue happen under the context's lock. */


#ifdef GPUACT_NO_RUNTIME_LINKING
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
typedef cl_int gpuact__cl_int;
typedef cl_uint gpuact__cl_uint;
typedef cl_ulong gpuact__cl_ulong;
typedef cl_bitfield gpuact__cl_bitfield;
typedef cl_platform_id gpuact__cl_platform;
typedef cl_device_id gpuact__cl_device;
typedef cl_context gpuact__cl_context;
typedef cl_command_queue gpuact__cl_queue;
typedef cl_mem gpuact__cl_mem;
typedef cl_program gpuact__cl_program;
typedef cl_kernel gpuact__cl_kernel;
typedef cl_event gpuact__cl_event;
typedef cl_context_properties gpuact__cl_context_properties;
#define GPUACT__CLAPI CL_API_CALL
#else
typedef int32_t gpuact__cl_int;
typedef uint32_t gpuact__cl_uint;
typedef uint64_t gpuact__cl_ulong;
typedef uint64_t gpuact__cl_bitfield;
typedef struct gpuact__cl_platform_s *gpuact__cl_platform;
typedef struct gpuact__cl_device_s *gpuact__cl_device;
typedef struct gpuact__cl_context_s *gpuact__cl_context;
typedef struct gpuact__cl_queue_s *gpuact__cl_queue;
typedef struct gpuact__cl_mem_s *gpuact__cl_mem;
typedef struct gpuact__cl_program_s *gpuact__cl_program;
typedef struct gpuact__cl_kernel_s *gpuact__cl_kernel;
typedef struct gpuact__cl_event_s *gpuact__cl_event;
typedef intptr_t gpuact__cl_context_properties;
#define GPUACT__CLAPI
#endif

#define GPUACT__CL_DEVICE_TYPE_GPU (1u << 2)
#define GPUACT__CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define GPUACT__CL_DEVICE_NAME 0x102B
#define GPUACT__CL_DEVICE_MAX_COMPUTE_UNITS 0x1002
#define GPUACT__CL_MEM_READ_WRITE 1u
#define GPUACT__CL_PROGRAM_BUILD_LOG 0x1183
#define GPUACT__CL_QUEUE_PROFILING_ENABLE (1u << 1)
#define GPUACT__CL_PROFILING_COMMAND_END 0x1283

/* The entry points gpuact calls, typed as the OpenCL 1.2 prototypes. */
typedef struct gpuact__cl_api {
    gpuact__cl_int(GPUACT__CLAPI *clGetPlatformIDs)(gpuact__cl_uint, gpuact__cl_platform *, gpuact__cl_uint *);
    gpuact__cl_int(GPUACT__CLAPI *clGetDeviceIDs)(gpuact__cl_platform, gpuact__cl_bitfield, gpuact__cl_uint,
                                                 gpuact__cl_device *, gpuact__cl_uint *);
    gpuact__cl_int(GPUACT__CLAPI *clGetDeviceInfo)(gpuact__cl_device, gpuact__cl_uint, size_t, void *, size_t *);
    gpuact__cl_context(GPUACT__CLAPI *clCreateContext)(const gpuact__cl_context_properties *, gpuact__cl_uint,
                                                      const gpuact__cl_device *,
                                                      void(GPUACT__CLAPI *)(const char *, const void *, size_t, void *),
                                                      void *, gpuact__cl_int *);
    gpuact__cl_int(GPUACT__CLAPI *clRetainContext)(gpuact__cl_context);
    gpuact__cl_int(GPUACT__CLAPI *clReleaseContext)(gpuact__cl_context);
    gpuact__cl_queue(GPUACT__CLAPI *clCreateCommandQueue)(gpuact__cl_context, gpuact__cl_device, gpuact__cl_bitfield,
                                                         gpuact__cl_int *);
    gpuact__cl_int(GPUACT__CLAPI *clRetainCommandQueue)(gpuact__cl_queue);
    gpuact__cl_int(GPUACT__CLAPI *clReleaseCommandQueue)(gpuact__cl_queue);
    gpuact__cl_mem(GPUACT__CLAPI *clCreateBuffer)(gpuact__cl_context, gpuact__cl_bitfield, size_t, void *,
                                                 gpuact__cl_int *);
    gpuact__cl_int(GPUACT__CLAPI *clReleaseMemObject)(gpuact__cl_mem);
    gpuact__cl_int(GPUACT__CLAPI *clEnqueueWriteBuffer)(gpuact__cl_queue, gpuact__cl_mem, gpuact__cl_uint, size_t,
                                                       size_t, const void *, gpuact__cl_uint,
                                                       const gpuact__cl_event *, gpuact__cl_event *);
    gpuact__cl_int(GPUACT__CLAPI *clEnqueueReadBuffer)(gpuact__cl_queue, gpuact__cl_mem, gpuact__cl_uint, size_t,
                                                      size_t, void *, gpuact__cl_uint, const gpuact__cl_event *,
                                                      gpuact__cl_event *);
    gpuact__cl_int(GPUACT__CLAPI *clEnqueueCopyBuffer)(gpuact__cl_queue, gpuact__cl_mem, gpuact__cl_mem, size_t,
                                                      size_t, size_t, gpuact__cl_uint, const gpuact__cl_event *,
                                                      gpuact__cl_event *);
    gpuact__cl_int(GPUACT__CLAPI *clFinish)(gpuact__cl_queue);
    gpuact__cl_program(GPUACT__CLAPI *clCreateProgramWithSource)(gpuact__cl_context, gpuact__cl_uint, const char **,
                                                                const size_t *, gpuact__cl_int *);
    gpuact__cl_int(GPUACT__CLAPI *clBuildProgram)(gpuact__cl_program, gpuact__cl_uint, const gpuact__cl_device *,
                                                 const char *,
                                                 void(GPUACT__CLAPI *)(gpuact__cl_program, void *), void *);
    gpuact__cl_int(GPUACT__CLAPI *clGetProgramBuildInfo)(gpuact__cl_program, gpuact__cl_device, gpuact__cl_uint,
                                                        size_t, void *, size_t *);
    gpuact__cl_int(GPUACT__CLAPI *clReleaseProgram)(gpuact__cl_program);
    gpuact__cl_kernel(GPUACT__CLAPI *clCreateKernel)(gpuact__cl_program, const char *, gpuact__cl_int *);
    gpuact__cl_int(GPUACT__CLAPI *clReleaseKernel)(gpuact__cl_kernel);
    gpuact__cl_int(GPUACT__CLAPI *clSetKernelArg)(gpuact__cl_kernel, gpuact__cl_uint, size_t, const void *);
    gpuact__cl_int(GPUACT__CLAPI *clEnqueueNDRangeKernel)(gpuact__cl_queue, gpuact__cl_kernel, gpuact__cl_uint,
                                                         const size_t *, const size_t *, const size_t *,
                                                         gpuact__cl_uint, const gpuact__cl_event *,
                                                         gpuact__cl_event *);
    gpuact__cl_int(GPUACT__CLAPI *clEnqueueMarkerWithWaitList)(gpuact__cl_queue, gpuact__cl_uint,
                                                              const gpuact__cl_event *, gpuact__cl_event *);
    gpuact__cl_int(GPUACT__CLAPI *clWaitForEvents)(gpuact__cl_uint, const gpuact__cl_event *);
    gpuact__cl_int(GPUACT__CLAPI *clGetEventProfilingInfo)(gpuact__cl_event, gpuact__cl_uint, size_t, void *,
                                                          size_t *);
    gpuact__cl_int(GPUACT__CLAPI *clReleaseEvent)(gpuact__cl_event);
    gpuact__cl_int(GPUACT__CLAPI *clGetEventInfo)(gpuact__cl_event, gpuact__cl_uint, size_t, void *, size_t *);
    gpuact__cl_int(GPUACT__CLAPI *clEnqueueBarrierWithWaitList)(gpuact__cl_queue, gpuact__cl_uint,
                                                               const gpuact__cl_event *, gpuact__cl_event *);
    gpuact__cl_int(GPUACT__CLAPI *clGetMemObjectInfo)(gpuact__cl_mem, gpuact__cl_uint, size_t, void *, size_t *);
} gpuact__cl_api;

/* The unit of build off a GPU: one program holds the variants of an op,
   dtype triple and GPUACT_CL_PROGRAM_KINDS consecutive activation kinds
   (at most 42 kernels with every kind), so a compiler's fixed cost per
   program (PoCL: parsing its OpenCL C header and gpuact's shared sources)
   is paid once for them. A GPU driver builds each variant alone: there a
   whole program made the first call many times slower (docs/ARCHITECTURE.md,
   "Kernel builds"). 1: a program per kind. */
#ifndef GPUACT_CL_PROGRAM_KINDS
#define GPUACT_CL_PROGRAM_KINDS GPUACT_KIND_COUNT
#endif
#define GPUACT__CL_KIND_GROUPS ((GPUACT_KIND_COUNT + GPUACT_CL_PROGRAM_KINDS - 1) / GPUACT_CL_PROGRAM_KINDS)

typedef struct gpuact__opencl {
    void *lib;
    gpuact__cl_api cl;
    gpuact__cl_context context;
    gpuact__cl_device device;
    gpuact__cl_queue queue;
    int nv_sm; /* NVIDIA's driver: the compute capability (e.g. 90), passed as GPUACT_CL_NV_SM; else 0 */
    int wide_groups; /* NVIDIA's driver: work-groups by GPUACT_CL_NV_BLOCK and gpuact__opencl_width */
    int grouped;     /* a device that is not a GPU: programs of many variants (gpuact__opencl_program) */
    gpuact__cl_program programs[GPUACT__VARIANTS]; /* by gpuact__opencl_program */
    gpuact__cl_kernel k[GPUACT__VARIANTS];            /* by gpuact__variant_index */
} gpuact__opencl;

static const char *gpuact__cl_error_name(gpuact__cl_int e) {
    switch (e) {
    case 0: return "CL_SUCCESS";
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -30: return "CL_INVALID_VALUE";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -48: return "CL_INVALID_KERNEL";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -58: return "CL_INVALID_EVENT";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "an OpenCL error";
}

/* Maps an OpenCL error of `what` to a gpuact result and message. */
static gpuact_result gpuact__cl_fail(gpuact__cl_int e, const char *what) {
    gpuact_result r = e == -4 || e == -6 || e == -61 ? GPUACT_ERROR_OUT_OF_MEMORY : GPUACT_ERROR_DEVICE;
    return gpuact__fail(r, "opencl: %s failed with %s (%d)", what, gpuact__cl_error_name(e), (int)e);
}

#define GPUACT__CL(ctx) ((gpuact__opencl *)(ctx)->impl)

/* The process-wide table: filled once, under gpuact__load_lock (the core
   holds it around create), and copied into each context. The library stays
   loaded until the process exits. */
static gpuact__cl_api gpuact__cl_loaded;
static int gpuact__cl_is_loaded;

static gpuact_result gpuact__opencl_load_once(gpuact__opencl *o);
static gpuact_result gpuact__opencl_load(gpuact__opencl *o) {
    gpuact_result r = GPUACT_SUCCESS;
    if (!gpuact__cl_is_loaded) {
        gpuact__opencl tmp;
        memset(&tmp.cl, 0, sizeof tmp.cl);
        tmp.lib = NULL;
        if ((r = gpuact__opencl_load_once(&tmp)) != GPUACT_SUCCESS) {
#ifndef GPUACT_NO_RUNTIME_LINKING
            if (tmp.lib) dlclose(tmp.lib);
#endif
            return r;
        }
        gpuact__cl_loaded = tmp.cl;
        gpuact__cl_is_loaded = 1;
    }
    o->cl = gpuact__cl_loaded;
    o->lib = NULL; /* never closed */
    return r;
}

static gpuact_result gpuact__opencl_load_once(gpuact__opencl *o) {
#ifdef GPUACT_NO_RUNTIME_LINKING
    o->cl.clGetPlatformIDs = clGetPlatformIDs;
    o->cl.clGetDeviceIDs = clGetDeviceIDs;
    o->cl.clGetDeviceInfo = clGetDeviceInfo;
    o->cl.clCreateContext = clCreateContext;
    o->cl.clRetainContext = clRetainContext;
    o->cl.clReleaseContext = clReleaseContext;
    o->cl.clCreateCommandQueue = clCreateCommandQueue;
    o->cl.clRetainCommandQueue = clRetainCommandQueue;
    o->cl.clReleaseCommandQueue = clReleaseCommandQueue;
    o->cl.clCreateBuffer = clCreateBuffer;
    o->cl.clReleaseMemObject = clReleaseMemObject;
    o->cl.clEnqueueWriteBuffer = clEnqueueWriteBuffer;
    o->cl.clEnqueueReadBuffer = clEnqueueReadBuffer;
    o->cl.clEnqueueCopyBuffer = clEnqueueCopyBuffer;
    o->cl.clFinish = clFinish;
    o->cl.clCreateProgramWithSource = clCreateProgramWithSource;
    o->cl.clBuildProgram = clBuildProgram;
    o->cl.clGetProgramBuildInfo = clGetProgramBuildInfo;
    o->cl.clReleaseProgram = clReleaseProgram;
    o->cl.clCreateKernel = clCreateKernel;
    o->cl.clReleaseKernel = clReleaseKernel;
    o->cl.clSetKernelArg = clSetKernelArg;
    o->cl.clEnqueueNDRangeKernel = clEnqueueNDRangeKernel;
    o->cl.clEnqueueMarkerWithWaitList = clEnqueueMarkerWithWaitList;
    o->cl.clWaitForEvents = clWaitForEvents;
    o->cl.clGetEventProfilingInfo = clGetEventProfilingInfo;
    o->cl.clReleaseEvent = clReleaseEvent;
    o->cl.clGetEventInfo = clGetEventInfo;
    o->cl.clEnqueueBarrierWithWaitList = clEnqueueBarrierWithWaitList;
    o->cl.clGetMemObjectInfo = clGetMemObjectInfo;
    return GPUACT_SUCCESS;
#else
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    char tried[2048];
    const char *missing;
    gpuact__symbol syms[] = {
#define GPUACT__CL_SYM(f) GPUACT__SYM(o->cl.f, #f)
        GPUACT__CL_SYM(clGetPlatformIDs), GPUACT__CL_SYM(clGetDeviceIDs), GPUACT__CL_SYM(clGetDeviceInfo),
        GPUACT__CL_SYM(clCreateContext), GPUACT__CL_SYM(clRetainContext), GPUACT__CL_SYM(clReleaseContext),
        GPUACT__CL_SYM(clCreateCommandQueue), GPUACT__CL_SYM(clRetainCommandQueue), GPUACT__CL_SYM(clReleaseCommandQueue),
        GPUACT__CL_SYM(clCreateBuffer), GPUACT__CL_SYM(clReleaseMemObject), GPUACT__CL_SYM(clEnqueueWriteBuffer),
        GPUACT__CL_SYM(clEnqueueReadBuffer), GPUACT__CL_SYM(clEnqueueCopyBuffer), GPUACT__CL_SYM(clFinish),
        GPUACT__CL_SYM(clCreateProgramWithSource), GPUACT__CL_SYM(clBuildProgram), GPUACT__CL_SYM(clGetProgramBuildInfo),
        GPUACT__CL_SYM(clReleaseProgram), GPUACT__CL_SYM(clCreateKernel), GPUACT__CL_SYM(clReleaseKernel),
        GPUACT__CL_SYM(clSetKernelArg), GPUACT__CL_SYM(clEnqueueNDRangeKernel), GPUACT__CL_SYM(clEnqueueMarkerWithWaitList),
        GPUACT__CL_SYM(clWaitForEvents), GPUACT__CL_SYM(clGetEventProfilingInfo), GPUACT__CL_SYM(clReleaseEvent),
        GPUACT__CL_SYM(clGetEventInfo), GPUACT__CL_SYM(clEnqueueBarrierWithWaitList), GPUACT__CL_SYM(clGetMemObjectInfo),
#undef GPUACT__CL_SYM
    };
    o->lib = gpuact__dlopen_first("GPUACT_OPENCL_LIBRARY", names, tried, sizeof tried);
    if (!o->lib)
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "opencl: no OpenCL library could be loaded. Tried:\n%s"
                            "Install an ICD loader and a driver (Debian: ocl-icd-libopencl1 and pocl-opencl-icd "
                            "or a GPU vendor's), or set GPUACT_OPENCL_LIBRARY to the library's path.",
                            tried);
    missing = gpuact__resolve(o->lib, syms, (int)(sizeof syms / sizeof syms[0]));
    if (missing)
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "opencl: the OpenCL library lacks %s (OpenCL 1.2 is required)", missing);
    return GPUACT_SUCCESS;
#endif
}

/* The desc.device-th device: GPUs of every platform first, then the rest. */
static gpuact_result gpuact__opencl_pick_device(gpuact__opencl *o, int ordinal) {
    gpuact__cl_platform plats[16];
    gpuact__cl_uint np = 0, i;
    int pass, seen = 0;
    gpuact__cl_int e = o->cl.clGetPlatformIDs(16, plats, &np);
    if (e != 0 || np == 0)
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "opencl: no OpenCL platform found (clGetPlatformIDs: %s). The ICD loader is there "
                            "but no driver is registered in /etc/OpenCL/vendors; install one (e.g. pocl-opencl-icd)",
                            gpuact__cl_error_name(e));
    if (np > 16) np = 16;
    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < np; i++) {
            gpuact__cl_device devs[64];
            gpuact__cl_uint nd = 0, j;
            if (o->cl.clGetDeviceIDs(plats[i], GPUACT__CL_DEVICE_TYPE_ALL, 64, devs, &nd) != 0) continue;
            if (nd > 64) nd = 64;
            for (j = 0; j < nd; j++) {
                gpuact__cl_bitfield type = 0;
                o->cl.clGetDeviceInfo(devs[j], 0x1000 /* CL_DEVICE_TYPE */, sizeof type, &type, NULL);
                if (((type & GPUACT__CL_DEVICE_TYPE_GPU) != 0) != (pass == 0)) continue;
                if (seen++ == ordinal) {
                    o->device = devs[j];
                    return GPUACT_SUCCESS;
                }
            }
        }
    return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                        "opencl: device %d asked for, but the %u platform(s) have %d device(s) in all", ordinal,
                        (unsigned)np, seen);
}

static void gpuact__opencl_destroy(gpuact_context *ctx) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    int i;
    if (!o) return;
    for (i = 0; i < GPUACT__VARIANTS; i++)
        if (o->k[i]) o->cl.clReleaseKernel(o->k[i]);
    for (i = 0; i < GPUACT__VARIANTS; i++)
        if (o->programs[i]) o->cl.clReleaseProgram(o->programs[i]);
    if (o->queue) o->cl.clReleaseCommandQueue(o->queue);
    if (o->context) o->cl.clReleaseContext(o->context);
#ifndef GPUACT_NO_RUNTIME_LINKING
    if (o->lib) dlclose(o->lib);
#endif
    GPUACT_FREE(o);
    ctx->impl = NULL;
}

static gpuact_result gpuact__opencl_create(gpuact_context *ctx) {
    gpuact__opencl *o = (gpuact__opencl *)GPUACT_MALLOC(sizeof *o);
    gpuact__cl_uint units = 1;
    gpuact__cl_int e = 0;
    gpuact_result r;
    if (!o) return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    memset(o, 0, sizeof *o);
    ctx->impl = o;
    if ((r = gpuact__opencl_load(o))) goto fail;
    if (ctx->desc.stream && !ctx->desc.native_context) {
        r = gpuact__refuse(GPUACT_RULE_NATIVE_CONTEXT_MISSING,
                           "opencl: desc.stream (a cl_command_queue) is set but desc.native_context is NULL; a "
                           "queue works only with buffers and kernels of its own cl_context: give that context "
                           "and its cl_device_id too");
        goto fail;
    }
    if (ctx->desc.native_context) {
        if (!ctx->desc.native_device) {
            r = gpuact__refuse(GPUACT_RULE_NATIVE_DEVICE_MISSING,
                               "opencl: desc.native_context is set but desc.native_device is NULL; give the "
                               "cl_device_id that goes with the cl_context");
            goto fail;
        }
        o->context = (gpuact__cl_context)ctx->desc.native_context;
        o->device = (gpuact__cl_device)ctx->desc.native_device;
        o->cl.clRetainContext(o->context);
    } else {
        if ((r = gpuact__opencl_pick_device(o, ctx->desc.device))) goto fail;
        o->context = o->cl.clCreateContext(NULL, 1, &o->device, NULL, NULL, &e);
        if (!o->context) {
            r = gpuact__cl_fail(e, "clCreateContext");
            goto fail;
        }
    }
    if (ctx->desc.stream) {
        o->queue = (gpuact__cl_queue)ctx->desc.stream;
        o->cl.clRetainCommandQueue(o->queue);
    } else {
        /* Profiling on: the benchmarks time with queue profiling. */
        o->queue = o->cl.clCreateCommandQueue(o->context, o->device, GPUACT__CL_QUEUE_PROFILING_ENABLE, &e);
        if (!o->queue) {
            r = gpuact__cl_fail(e, "clCreateCommandQueue");
            goto fail;
        }
        ctx->desc.stream = o->queue;
    }
    o->cl.clGetDeviceInfo(o->device, GPUACT__CL_DEVICE_NAME, sizeof ctx->device_name - 1, ctx->device_name, NULL);
    o->cl.clGetDeviceInfo(o->device, GPUACT__CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    {
        gpuact__cl_bitfield type = 0;
        o->cl.clGetDeviceInfo(o->device, 0x1000 /* CL_DEVICE_TYPE */, sizeof type, &type, NULL);
        o->grouped = (type & GPUACT__CL_DEVICE_TYPE_GPU) == 0;
    }
    ctx->units = units ? units : 1;
    { /* cl_nv_device_attribute_query: CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV / MINOR_NV */
        char ext[8192] = {0};
        gpuact__cl_uint major = 0, minor = 0;
        if (o->cl.clGetDeviceInfo(o->device, 0x1030 /* CL_DEVICE_EXTENSIONS */, sizeof ext - 1, ext, NULL) == 0 &&
            strstr(ext, "cl_nv_device_attribute_query") &&
            o->cl.clGetDeviceInfo(o->device, 0x4000, sizeof major, &major, NULL) == 0 &&
            o->cl.clGetDeviceInfo(o->device, 0x4001, sizeof minor, &minor, NULL) == 0 && major < 100 && minor < 10)
            o->nv_sm = (int)(major * 10 + minor);
        o->wide_groups = o->nv_sm != 0;
    }
    return GPUACT_SUCCESS;
fail:
    gpuact__opencl_destroy(ctx);
    return r;
}

static gpuact_result gpuact__opencl_alloc(gpuact_context *ctx, size_t bytes, gpuact_buffer *out) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_int e = 0;
    gpuact__cl_mem m = o->cl.clCreateBuffer(o->context, GPUACT__CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (!m) return gpuact__cl_fail(e, "clCreateBuffer");
    out->handle = m;
    out->offset = 0;
    return GPUACT_SUCCESS;
}
static void gpuact__opencl_free(gpuact_context *ctx, gpuact_buffer b) {
    GPUACT__CL(ctx)->cl.clReleaseMemObject((gpuact__cl_mem)b.handle);
}
static gpuact_result gpuact__opencl_write(gpuact_context *ctx, gpuact_buffer dst, const void *src, size_t bytes) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_int e = o->cl.clEnqueueWriteBuffer(o->queue, (gpuact__cl_mem)dst.handle, 1, dst.offset, bytes, src,
                                                  0, NULL, NULL);
    return e ? gpuact__cl_fail(e, "clEnqueueWriteBuffer") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__opencl_read(gpuact_context *ctx, void *dst, gpuact_buffer src, size_t bytes) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_int e = o->cl.clEnqueueReadBuffer(o->queue, (gpuact__cl_mem)src.handle, 1, src.offset, bytes, dst, 0,
                                                 NULL, NULL);
    return e ? gpuact__cl_fail(e, "clEnqueueReadBuffer") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__opencl_synchronize(gpuact_context *ctx, gpuact_stream s) {
    gpuact__cl_int e = GPUACT__CL(ctx)->cl.clFinish((gpuact__cl_queue)s);
    return e ? gpuact__cl_fail(e, "clFinish") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__opencl_copy(gpuact_context *ctx, gpuact_stream s, gpuact_buffer dst, gpuact_buffer src,
                                         size_t bytes) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_int e = o->cl.clEnqueueCopyBuffer((gpuact__cl_queue)s, (gpuact__cl_mem)src.handle,
                                                 (gpuact__cl_mem)dst.handle, src.offset, dst.offset, bytes, 0, NULL,
                                                 NULL);
    return e ? gpuact__cl_fail(e, "clEnqueueCopyBuffer") : GPUACT_SUCCESS;
}

/* Events of the bias-gradient workspace: a marker after the work enqueued
   so far (on an in-order or out-of-order queue alike), a barrier that waits
   for it, and the event's status. */
static gpuact_result gpuact__opencl_event_record(gpuact_context *ctx, gpuact_stream s, void **ev) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_event marker = NULL;
    gpuact__cl_int e = o->cl.clEnqueueMarkerWithWaitList((gpuact__cl_queue)s, 0, NULL, &marker);
    if (e) return gpuact__cl_fail(e, "clEnqueueMarkerWithWaitList (the workspace's event)");
    if (*ev) o->cl.clReleaseEvent((gpuact__cl_event)*ev);
    *ev = marker;
    return GPUACT_SUCCESS;
}
static gpuact_result gpuact__opencl_event_after(gpuact_context *ctx, gpuact_stream s, void *ev) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_event w = (gpuact__cl_event)ev;
    gpuact__cl_int e = o->cl.clEnqueueBarrierWithWaitList((gpuact__cl_queue)s, 1, &w, NULL);
    return e ? gpuact__cl_fail(e, "clEnqueueBarrierWithWaitList (waiting for the workspace's last use)")
             : GPUACT_SUCCESS;
}
static int gpuact__opencl_event_done(gpuact_context *ctx, void *ev) {
    gpuact__cl_int status = 1;
    if (GPUACT__CL(ctx)->cl.clGetEventInfo((gpuact__cl_event)ev, 0x11D3 /* CL_EVENT_COMMAND_EXECUTION_STATUS */,
                                           sizeof status, &status, NULL) != 0)
        return 0;
    return status <= 0; /* CL_COMPLETE (0), or the command failed and is over */
}
static gpuact_result gpuact__opencl_event_wait(gpuact_context *ctx, void *ev) {
    gpuact__cl_event w = (gpuact__cl_event)ev;
    gpuact__cl_int e = GPUACT__CL(ctx)->cl.clWaitForEvents(1, &w);
    /* -14: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: over, though failed */
    return e && e != -14 ? gpuact__cl_fail(e, "clWaitForEvents (the workspace's event)") : GPUACT_SUCCESS;
}
static void gpuact__opencl_event_release(gpuact_context *ctx, void *ev) {
    GPUACT__CL(ctx)->cl.clReleaseEvent((gpuact__cl_event)ev);
}

/* The cl_mem's size, and whether it is one of this context's. */
static int gpuact__opencl_buffer_extent(gpuact_context *ctx, gpuact_buffer b, size_t *bytes) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_context owner = NULL;
    size_t size = 0;
    gpuact__cl_int e = o->cl.clGetMemObjectInfo((gpuact__cl_mem)b.handle, 0x1106 /* CL_MEM_CONTEXT */,
                                                sizeof owner, &owner, NULL);
    if (e == -38 /* CL_INVALID_MEM_OBJECT */) return GPUACT__EXTENT_INVALID;
    if (e) return GPUACT__EXTENT_UNKNOWN;
    if (owner != o->context) return GPUACT__EXTENT_FOREIGN;
    if (o->cl.clGetMemObjectInfo((gpuact__cl_mem)b.handle, 0x1102 /* CL_MEM_SIZE */, sizeof size, &size, NULL))
        return GPUACT__EXTENT_UNKNOWN;
    *bytes = size;
    return GPUACT__EXTENT_KNOWN;
}

/* The program that holds V: on a GPU V's own; elsewhere (o->grouped) the
   one of its op, dtypes and GPUACT_CL_PROGRAM_KINDS kinds. */
static int gpuact__opencl_program(const gpuact__opencl *o, const gpuact__variant *V) {
    const int t = ((int)V->t[0] * GPUACT_DT_COUNT + (int)V->t[1]) * GPUACT_DT_COUNT + (int)V->t[2];
    if (!o->grouped) return gpuact__variant_index(V);
    return (V->op * GPUACT_DT_COUNT * GPUACT_DT_COUNT * GPUACT_DT_COUNT + t) * GPUACT__CL_KIND_GROUPS +
           V->kind / GPUACT_CL_PROGRAM_KINDS;
}
/* Appends a file's lines at p (or only counts them where p is NULL); returns the end. */
static size_t gpuact__opencl_put(char *p, size_t at, const char *const *file) {
    size_t i;
    for (i = 0; file[i]; i++) {
        const size_t k = strlen(file[i]);
        if (p) memcpy(p + at, file[i], k);
        at += k;
    }
    return at;
}
/* The source of V's program (kernels/opencl/common.cl): the op's shared
   files once, then for each reachable variant of the program (grouped: every
   one of gpuact__opencl_program's group; else V alone) its #defines, the op's
   file and their #undefs; *count: the variants. malloc'd, or NULL. */
static char *gpuact__opencl_source(const gpuact__variant *V, int grouped, int *count) {
#define GPUACT__CL_PROGRAM_(name, short_name) gpuact__opencl_##name,
    static const char *const *const *const programs[GPUACT_OP_COUNT] = {GPUACT_OPS(GPUACT__CL_PROGRAM_)};
    /* the slots of one kind (of an op and dtypes), which follow each other: kind is GPUACT_FIELDS' first */
    const int per_kind = GPUACT__VARIANTS / (GPUACT_OP_COUNT * GPUACT_DT_COUNT * GPUACT_DT_COUNT * GPUACT_DT_COUNT) /
                         GPUACT_KIND_COUNT;
    const int k0 = V->kind / GPUACT_CL_PROGRAM_KINDS * GPUACT_CL_PROGRAM_KINDS;
    const int kinds = GPUACT_KIND_COUNT - k0 < GPUACT_CL_PROGRAM_KINDS ? GPUACT_KIND_COUNT - k0 : GPUACT_CL_PROGRAM_KINDS;
    const char *const *const *files = programs[V->op];
    char defs[GPUACT__DEFINES][GPUACT__DEFINE_MAX], *src = NULL;
    size_t at = 0;
    int f, last, pass, d, i, first;
    gpuact__variant W = *V;
    for (last = 0; files[last + 1]; last++) {}
#define GPUACT__FIELD_ZERO_(name, NAME, count) W.name = 0;
    GPUACT_FIELDS(GPUACT__FIELD_ZERO_)
    W.kind = k0;
    first = grouped ? gpuact__variant_index(&W) : gpuact__variant_index(V);
    for (pass = 0; pass < 2; pass++) { /* 0: the size; 1: the text */
        at = 0;
        for (f = 0; f < last; f++) at = gpuact__opencl_put(src, at, files[f]);
        for (i = first, *count = 0; i < first + (grouped ? kinds * per_kind : 1); i++) {
            gpuact__variant_at(i, &W);
            if (!gpuact__variant_reachable(&W)) continue;
            ++*count;
            gpuact__variant_defines(&W, defs);
            for (d = 0; d < GPUACT__DEFINES; d++) { /* -DNAME=VALUE: #define NAME VALUE */
                const int name = (int)strcspn(defs[d] + 2, "=");
                at += src ? (size_t)sprintf(src + at, "#define %.*s %s\n", name, defs[d] + 2, defs[d] + 3 + name)
                          : strlen(defs[d]) + 7;
            }
            at = gpuact__opencl_put(src, at, files[last]);
            for (d = 0; d < GPUACT__DEFINES; d++) {
                const int name = (int)strcspn(defs[d] + 2, "=");
                at += src ? (size_t)sprintf(src + at, "#undef %.*s\n", name, defs[d] + 2) : (size_t)name + 8;
            }
        }
        if (!src && !(src = (char *)GPUACT_MALLOC(at + 1))) return NULL;
    }
    src[at] = '\0';
    return src;
}

/* V's kernel, built with the rest of its program where that is not built
   yet; called with ctx->lock held. */
static gpuact_result gpuact__opencl_build(gpuact_context *ctx, const gpuact__variant *V, gpuact__cl_kernel *kernel) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_program *program = &o->programs[gpuact__opencl_program(o, V)];
    char options[192], name[GPUACT__NAME_MAX];
    char *src;
    gpuact__cl_int e = 0;
    int count = 0;
    gpuact__variant_name(V, name, sizeof name);
    if (!*program) {
        /* IEEE division (kernels/smooth.h divides; OpenCL's default single
           division may be 2.5 ulp off) where the device offers it, as the
           CUDA/HIP kernels and the CPU reference divide. -w: a kernel that
           builds shows no log, and PoCL's compiler would print its warning
           count (an unroll hint it declines) to stderr for every kernel. */
        gpuact__cl_ulong fp = 0; /* cl_device_fp_config: CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT is 1 << 7 */
        size_t used;
        o->cl.clGetDeviceInfo(o->device, 0x101B /* CL_DEVICE_SINGLE_FP_CONFIG */, sizeof fp, &fp, NULL);
        used = (size_t)snprintf(options, sizeof options, "-cl-std=CL1.2 -w -DGPUACT_BLOCK=%d -DGPUACT_CL_GROUPS_PAIR=%d%s",
                                GPUACT_BLOCK, GPUACT_CL_GROUPS_PAIR,
                                (fp & (1u << 7)) ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
        if (o->nv_sm) snprintf(options + used, sizeof options - used, " -DGPUACT_CL_NV_SM=%d", o->nv_sm);
        if (!(src = gpuact__opencl_source(V, o->grouped, &count)))
            return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
        *program = o->cl.clCreateProgramWithSource(o->context, 1, (const char **)&src, NULL, &e);
        GPUACT_FREE(src);
        if (!*program) return gpuact__cl_fail(e, "clCreateProgramWithSource");
        e = o->cl.clBuildProgram(*program, 1, &o->device, options, NULL, NULL);
        if (e != 0) {
            char log[12000];
            size_t len = 0;
            log[0] = '\0';
            o->cl.clGetProgramBuildInfo(*program, o->device, GPUACT__CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &len);
            log[len < sizeof log ? len : sizeof log - 1] = '\0';
            o->cl.clReleaseProgram(*program);
            *program = NULL;
            return gpuact__fail(GPUACT_ERROR_KERNEL_BUILD, "opencl: building the program of %s (%d kernels of its op "
                                "and dtypes; options \"%s\") on %s failed with %s. Build log:\n%s", name, count,
                                options, ctx->device_name, gpuact__cl_error_name(e), log);
        }
    }
    if (!(*kernel = o->cl.clCreateKernel(*program, name, &e))) return gpuact__cl_fail(e, "clCreateKernel");
    return GPUACT_SUCCESS;
}

/* Sets the kernel's arguments in the order of kernels/contract.h (each
   buffer as cl_mem and byte offset); on failure names the argument. */
static gpuact_result gpuact__opencl_set_args(gpuact__opencl *o, gpuact__cl_kernel k, const gpuact__launch *L) {
    gpuact__cl_uint a = 0;
    gpuact__cl_int e = 0;
    const char *failed = NULL;
#define GPUACT__CL_ARG_(name, size, ptr) \
    if (!failed && (e = o->cl.clSetKernelArg(k, a++, size, ptr)) != 0) failed = name;
#define GPUACT__CL_BUF_(name)                                                     \
    {                                                                             \
        gpuact__cl_mem m = (gpuact__cl_mem)L->name.handle;                        \
        gpuact__cl_ulong off = L->name.offset;                                    \
        GPUACT__CL_ARG_(#name, sizeof m, &m)                                      \
        GPUACT__CL_ARG_(#name "'s offset", sizeof off, &off)                      \
    }
#define GPUACT__CL_U64_(name)                                                     \
    {                                                                             \
        gpuact__cl_ulong u = L->name;                                             \
        GPUACT__CL_ARG_(#name, sizeof u, &u)                                      \
    }
#define GPUACT__CL_F32_(name) GPUACT__CL_ARG_(#name, sizeof(float), &L->name)
#define GPUACT__CL_I32_(name)                                                     \
    {                                                                             \
        gpuact__cl_int i = L->name;                                               \
        GPUACT__CL_ARG_(#name, sizeof i, &i)                                      \
    }
    GPUACT_KERNEL_PARAMS(GPUACT__CL_BUF_, GPUACT__CL_U64_, GPUACT__CL_F32_, GPUACT__CL_I32_, )
    if (!failed) return GPUACT_SUCCESS;
    {
        gpuact_result r = gpuact__cl_fail(e, "clSetKernelArg");
        gpuact__append(" (argument %u, %s)", a - 1, failed);
        return r;
    }
}

/* NVIDIA's OpenCL, a variant in work-groups of GPUACT_CL_BLOCK_WIDE: its
   work-group width for this launch (0 elsewhere: the variant's).
     - The backward with the bias gradient: the one of
       GPUACT__CL_DBIAS_WIDTHS (widest first) that leaves the fewest
       work-items of a row's work-groups idle (1024 takes 8192 f32 columns
       in one group, 768 leaves a third of the second idle); narrower
       groups run slower even where they tile the row better
       (docs/PERFORMANCE.md, "Tuning knobs").
     - The forward over rows of fewer work-items than GPUACT_BLOCK:
       GPUACT_BLOCK. Two wide groups are resident on a multiprocessor, so
       short rows kept few of its work-items busy.
   The launch falls back to the variant's width where the kernel cannot
   take the one chosen. A build-time tuning knob. */
#ifndef GPUACT__CL_DBIAS_WIDTHS
#define GPUACT__CL_DBIAS_WIDTHS 1024, 768
#endif
/* Bias-gradient row groups per compute unit of a launch in wide
   work-groups whose row keeps at least half of its work-groups'
   work-items busy: one or two waves (fewer busy, and the wide grid was
   slower; docs/PERFORMANCE.md, "Tuning knobs"). */
#ifndef GPUACT__DBIAS_GROUPS_PER_UNIT_WIDE
#define GPUACT__DBIAS_GROUPS_PER_UNIT_WIDE 2
#endif
static unsigned gpuact__opencl_width(unsigned variant, const gpuact__launch *L, size_t need) {
    static const unsigned widths[] = {GPUACT__CL_DBIAS_WIDTHS};
    size_t idle, least = SIZE_MAX;
    unsigned best = 0, i;
    if (variant != GPUACT_CL_BLOCK_WIDE) return 0;
    if (L->v.op == GPUACT_OP_forward) return need < GPUACT_BLOCK ? GPUACT_BLOCK : 0;
    if (L->v.op != GPUACT_OP_backward || !L->v.dbias) return 0;
    for (i = 0; i < sizeof widths / sizeof widths[0]; i++)
        if ((idle = gpuact__div_up(need, widths[i]) * widths[i] - need) < least) {
            least = idle;
            best = widths[i];
        }
    return best;
}
/* A launch's shape (gpuact__backend's shape): a work-item takes
   GPUACT_CL_GROUPS groups of GPUACT_CL_VEC elements (kernels/contract.h);
   a work-group GPUACT_BLOCK work-items, on NVIDIA's driver
   GPUACT_CL_NV_BLOCK or the width gpuact__opencl_width picks. */
static void gpuact__opencl_shape(const gpuact_context *ctx, const gpuact__launch *L, gpuact__shape *out) {
    const gpuact__opencl *o = GPUACT__CL(ctx);
    const gpuact__variant *V = &L->v;
    const int n4 = gpuact__arrays_4byte(V);
    const unsigned variant = o->wide_groups ? (unsigned)GPUACT_CL_NV_BLOCK(V->op, V->kind, V->select, V->mask, V->dbias,
                                                                          n4 > 0, n4 == 3)
                                            : GPUACT_BLOCK;
    size_t need;
    unsigned wide;
    out->items = V->op == GPUACT_OP_dbias ? 1
                 : !n4 && GPUACT_PAIR_PATH(V->op, V->kind, V->select, 1) ? GPUACT_CL_VEC * GPUACT_CL_GROUPS_PAIR
                                                                        : GPUACT_CL_VEC;
    need = gpuact__div_up((size_t)L->cols, out->items);
    wide = o->wide_groups ? gpuact__opencl_width(variant, L, need) : 0;
    out->block = wide ? wide : variant;
    out->fallback = variant;
    out->dbias_groups = wide && 2 * need >= gpuact__div_up(need, wide) * wide ? GPUACT__DBIAS_GROUPS_PER_UNIT_WIDE
                                                                               : GPUACT__DBIAS_GROUPS_PER_UNIT;
    out->mask_rows = 1;
    out->smooth_rows = out->epi_rows = GPUACT__ROWS_TRANSCENDENTAL;
    out->glu_rows = GPUACT__ROWS_GLU_BWD;
}

static gpuact_result gpuact__opencl_launch(gpuact_context *ctx, gpuact_stream s, const gpuact__launch *L) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_kernel *kernel = &o->k[gpuact__variant_index(&L->v)];
    size_t global[2], local[2] = {L->block, 1};
    gpuact__cl_int e = 0;
    gpuact_result r = GPUACT_SUCCESS;
    global[0] = (size_t)L->grid_x * local[0];
    global[1] = (size_t)L->grid_y;
    pthread_mutex_lock(&ctx->lock);
    if (!*kernel) r = gpuact__opencl_build(ctx, &L->v, kernel);
    if (r == GPUACT_SUCCESS && !L->prepare_only) r = gpuact__opencl_set_args(o, *kernel, L);
    /* The bias gradient sums the partial rows the kernel enqueued just before
       wrote (rows = their number): an out-of-order queue would start it
       without waiting for them. */
    if (r == GPUACT_SUCCESS && !L->prepare_only && L->v.op == GPUACT_OP_dbias && L->rows &&
        (e = o->cl.clEnqueueBarrierWithWaitList((gpuact__cl_queue)s, 0, NULL, NULL)) != 0)
        r = gpuact__cl_fail(e, "clEnqueueBarrierWithWaitList (before the bias gradient's sum)");
    if (r == GPUACT_SUCCESS && !L->prepare_only) {
        e = o->cl.clEnqueueNDRangeKernel((gpuact__cl_queue)s, *kernel, 2, NULL, global, local, 0, NULL, NULL);
        /* A width chosen for the launch (gpuact__opencl_width) that the kernel cannot take: the variant's,
           over as many work-items (at least; the kernels leave out the ones past a row's end). NVIDIA's
           driver cannot be asked first: its CL_KERNEL_WORK_GROUP_SIZE for these kernels is 256 (H200,
           580.159.04), though they run in work-groups of 768 and 1024. */
        if ((e == -54 /* CL_INVALID_WORK_GROUP_SIZE */ || e == -5 /* CL_OUT_OF_RESOURCES */) &&
            local[0] != L->block_fallback) {
            local[0] = L->block_fallback;
            global[0] = gpuact__div_up(global[0], local[0]) * local[0];
            e = o->cl.clEnqueueNDRangeKernel((gpuact__cl_queue)s, *kernel, 2, NULL, global, local, 0, NULL, NULL);
        }
        if (e) r = gpuact__cl_fail(e, "clEnqueueNDRangeKernel");
    }
    pthread_mutex_unlock(&ctx->lock);
    return r;
}

/* Benchmark timing: markers on a profiling queue. */
static gpuact_result gpuact__opencl_timer_begin(gpuact_context *ctx, gpuact_stream s, void **token) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_event ev = NULL;
    gpuact__cl_int e = o->cl.clEnqueueMarkerWithWaitList((gpuact__cl_queue)s, 0, NULL, &ev);
    *token = ev;
    return e ? gpuact__cl_fail(e, "clEnqueueMarkerWithWaitList") : GPUACT_SUCCESS;
}
static gpuact_result gpuact__opencl_timer_end(gpuact_context *ctx, gpuact_stream s, void *token, double *ms) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__cl_event ev[2];
    gpuact__cl_ulong t[2] = {0, 0};
    gpuact__cl_int e;
    ev[0] = (gpuact__cl_event)token;
    ev[1] = NULL;
    e = o->cl.clEnqueueMarkerWithWaitList((gpuact__cl_queue)s, 0, NULL, &ev[1]);
    if (!e) e = o->cl.clWaitForEvents(2, ev);
    if (!e) e = o->cl.clGetEventProfilingInfo(ev[0], GPUACT__CL_PROFILING_COMMAND_END, sizeof t[0], &t[0], NULL);
    if (!e) e = o->cl.clGetEventProfilingInfo(ev[1], GPUACT__CL_PROFILING_COMMAND_END, sizeof t[1], &t[1], NULL);
    if (ev[0]) o->cl.clReleaseEvent(ev[0]);
    if (ev[1]) o->cl.clReleaseEvent(ev[1]);
    *ms = (double)(t[1] - t[0]) * 1e-6;
    return e ? gpuact__cl_fail(e, "timing with queue profiling (is profiling enabled on the queue?)")
             : GPUACT_SUCCESS;
}

static const gpuact__backend gpuact__opencl_backend = {
    GPUACT_BACKEND_OPENCL,   gpuact__opencl_create,      gpuact__opencl_destroy, gpuact__opencl_alloc,
    gpuact__opencl_free,     gpuact__opencl_write,       gpuact__opencl_read,    gpuact__opencl_synchronize,
    gpuact__opencl_shape,    gpuact__opencl_launch,      gpuact__opencl_copy,        gpuact__opencl_timer_begin,
    gpuact__opencl_timer_end, gpuact__opencl_event_record, gpuact__opencl_event_after,
    gpuact__opencl_event_done, gpuact__opencl_event_wait, gpuact__opencl_event_release,
    gpuact__opencl_buffer_extent};
