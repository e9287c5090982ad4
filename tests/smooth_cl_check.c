/* smooth_cl_check: kernels/smooth.h compiled as OpenCL C (with the hooks of
   kernels/opencl/dialect.cl, both read at run time) on every OpenCL device
   here (PoCL on the CPU in CI), evaluated over a few million inputs, and
   compared bit for bit with the same header compiled for the CPU
   (tests/gpuact_smooth_ref.h); the six functions, their _fast and their _16 variants. The inputs: a fixed stride through all
   2^32 bit patterns (every exponent, both signs), the neighbourhoods of the
   thresholds and roots the functions branch on, and the special values.

     smooth_cl_check [REPO_ROOT]     (default: the current directory)

   Exit status 1 on any differing bit or a build/run error, 0 when every
   device agrees; 0 with a SKIP line when there is no OpenCL library or
   platform. libOpenCL is opened at run time, so the test builds without
   the OpenCL development files. */
#define _POSIX_C_SOURCE 200809L
#include "gpuact_smooth_ref.h"

#include "support/read_file.h"
#include "support/smooth_functions.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
#define CL_SUCCESS 0
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_DEVICE_NAME 0x102B
#define CL_PLATFORM_NAME 0x0902
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_MEM_READ_ONLY (1 << 2)
#define CL_MEM_WRITE_ONLY (1 << 1)
#define CL_MEM_COPY_HOST_PTR (1 << 5)

static struct {
    cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*GetPlatformInfo)(cl_platform_id, cl_uint, size_t, void *, size_t *);
    cl_int (*GetDeviceIDs)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id *, cl_uint *);
    cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_context (*CreateContext)(const intptr_t *, cl_uint, const cl_device_id *, void *, void *, cl_int *);
    cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_bitfield, cl_int *);
    cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
    cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *, void *, void *);
    cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
    cl_mem (*CreateBuffer)(cl_context, cl_bitfield, size_t, void *, cl_int *);
    cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,
                                   cl_uint, const void *, void *);
    cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint, const void *,
                                void *);
    cl_int (*Finish)(cl_command_queue);
    cl_int (*ReleaseMemObject)(cl_mem);
    cl_int (*ReleaseKernel)(cl_kernel);
    cl_int (*ReleaseProgram)(cl_program);
    cl_int (*ReleaseCommandQueue)(cl_command_queue);
    cl_int (*ReleaseContext)(cl_context);
} cl;

static int load_opencl(void) {
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    static const char *const syms[] = {
        "clGetPlatformIDs", "clGetPlatformInfo", "clGetDeviceIDs",       "clGetDeviceInfo",
        "clCreateContext",  "clCreateCommandQueue", "clCreateProgramWithSource", "clBuildProgram",
        "clGetProgramBuildInfo", "clCreateKernel", "clCreateBuffer", "clSetKernelArg",
        "clEnqueueNDRangeKernel", "clEnqueueReadBuffer", "clFinish", "clReleaseMemObject",
        "clReleaseKernel", "clReleaseProgram", "clReleaseCommandQueue", "clReleaseContext"};
    void *lib = NULL, **slot = (void **)&cl;
    size_t i;
    for (i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    for (i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(lib, syms[i]);
        if (!f) return 0;
        memcpy(&slot[i], &f, sizeof f);
    }
    return 1;
}

#define NF SUPPORT_SMOOTH_N
#define SMOOTH_FN_(f) gpuact_##f,
static float (*const fns[])(float) = {GPUACT_SMOOTH_FUNCTIONS(SMOOTH_FN_)};

/* The inputs: stride, hot spots, specials. */
static uint32_t *make_inputs(cl_uint *count) {
    static const float hot[] = {0.0f,   0.3465736f, 0.5f,  0.7517915f, 0.7524614f, 1.0f,  1.2784645f, 1.75f,
                                3.5f,   5.6f,       6.0f,  6.5f,       10.0f,      10.5f, 13.2f,      14.5f,
                                14.6f,  16.0f,      17.0f, 30.0f,      87.0f,      88.72f, 91.5f,     112.0f,
                                0x1p-126f, 0x1p-100f, 0x1p-26f};
    static const uint32_t special[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f800000u, 0xff800000u,
                                       0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu,
                                       0x807fffffu, 0x00800000u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu};
    const uint32_t stride = 1021; /* odd: every exponent, varied mantissas */
    const cl_uint n_stride = (cl_uint)(0xffffffffu / stride) + 1;
    const cl_uint half = 2048, n_hot = (cl_uint)(sizeof hot / sizeof hot[0]);
    const cl_uint n = n_stride + n_hot * 2 * 2 * half + (cl_uint)(sizeof special / sizeof special[0]);
    uint32_t *x = (uint32_t *)malloc((size_t)n * sizeof *x);
    cl_uint i, k = 0, h, j;
    if (!x) return NULL;
    for (i = 0; i < n_stride; i++) x[k++] = i * stride;
    for (h = 0; h < n_hot; h++) {
        uint32_t c;
        memcpy(&c, &hot[h], 4);
        for (j = 0; j < 2 * half; j++) {
            const uint32_t u = hot[h] == 0.0f ? j : c + j - half;
            x[k++] = u;
            x[k++] = u | 0x80000000u;
        }
    }
    for (i = 0; i < sizeof special / sizeof special[0]; i++) x[k++] = special[i];
    *count = k;
    return x;
}

/* Runs the program on one device; returns the number of mismatches, or -1. */
static long run_device(cl_platform_id pf, cl_device_id dev, const char *src, const uint32_t *x, cl_uint n) {
    cl_int err = 0;
    cl_context ctx = cl.CreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = NULL;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem bx = NULL, by = NULL;
    uint32_t *y = NULL;
    long bad = -1;
    size_t gsz;
    char dname[256] = "?", pname[256] = "?";
    (void)pf;
    cl.GetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    cl.GetPlatformInfo(pf, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    if (!ctx || err != CL_SUCCESS) goto done;
    q = cl.CreateCommandQueue(ctx, dev, 0, &err);
    if (!q || err != CL_SUCCESS) goto done;
    prog = cl.CreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (!prog || err != CL_SUCCESS) goto done;
    err = cl.BuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[16384] = "";
        cl.GetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        printf("FAIL smooth_cl_check [%s / %s]: build error %d:\n%s\n", pname, dname, (int)err, log);
        goto done;
    }
    k = cl.CreateKernel(prog, "smooth_all", &err);
    if (!k || err != CL_SUCCESS) goto done;
    bx = cl.CreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)n * 4, (void *)x, &err);
    if (!bx || err != CL_SUCCESS) goto done;
    by = cl.CreateBuffer(ctx, CL_MEM_WRITE_ONLY, (size_t)n * 4 * NF, NULL, &err);
    if (!by || err != CL_SUCCESS) goto done;
    if (cl.SetKernelArg(k, 0, sizeof bx, &bx) || cl.SetKernelArg(k, 1, sizeof by, &by) ||
        cl.SetKernelArg(k, 2, sizeof n, &n))
        goto done;
    gsz = ((size_t)n + 255) / 256 * 256;
    if (cl.EnqueueNDRangeKernel(q, k, 1, NULL, &gsz, NULL, 0, NULL, NULL) != CL_SUCCESS) goto done;
    y = (uint32_t *)malloc((size_t)n * 4 * NF);
    if (!y || cl.EnqueueReadBuffer(q, by, 1, 0, (size_t)n * 4 * NF, y, 0, NULL, NULL) != CL_SUCCESS) goto done;
    {
        long per[NF] = {0};
        cl_uint i;
        int f;
        bad = 0;
        for (i = 0; i < n; i++) {
            float v;
            memcpy(&v, &x[i], 4);
            for (f = 0; f < NF; f++) {
                const float c = fns[f](v);
                uint32_t cb;
                memcpy(&cb, &c, 4);
                if (cb != y[NF * (size_t)i + (size_t)f]) {
                    if (per[f] < 5)
                        printf("  %s(0x%08x = %.9g): device 0x%08x, CPU 0x%08x\n", support_smooth_names[f], x[i], (double)v,
                               y[NF * (size_t)i + (size_t)f], cb);
                    per[f]++;
                    bad++;
                }
            }
        }
        printf("%s smooth_cl_check [%s / %s]: %u inputs x %d functions, %ld differing bits", bad ? "FAIL" : "ok  ",
               pname, dname, n, NF, bad);
        if (bad)
            for (f = 0; f < NF; f++) printf(" %s:%ld", support_smooth_names[f], per[f]);
        printf("\n");
    }
done:
    if (bad < 0) printf("FAIL smooth_cl_check [%s / %s]: OpenCL error %d\n", pname, dname, (int)err);
    free(y);
    if (by) cl.ReleaseMemObject(by);
    if (bx) cl.ReleaseMemObject(bx);
    if (k) cl.ReleaseKernel(k);
    if (prog) cl.ReleaseProgram(prog);
    if (q) cl.ReleaseCommandQueue(q);
    if (ctx) cl.ReleaseContext(ctx);
    return bad;
}

int main(int argc, char **argv) {
    const char *root = argc > 1 ? argv[1] : ".";
    char *dialect, *smooth, *kernel, *src, unlisted[64];
    cl_platform_id pfs[16];
    cl_uint npf = 0, p, n = 0;
    uint32_t *x;
    int failed = 0, devices = 0;
    size_t len;
    if (!load_opencl()) {
        printf("SKIP smooth_cl_check: no OpenCL library (libOpenCL.so.1)\n");
        return 0;
    }
    if (cl.GetPlatformIDs(16, pfs, &npf) != CL_SUCCESS || npf == 0) {
        printf("SKIP smooth_cl_check: no OpenCL platform\n");
        return 0;
    }
    dialect = support_read_file(root, "kernels/opencl/dialect.cl");
    smooth = support_read_file(root, "kernels/smooth.h");
    x = make_inputs(&n);
    if (!dialect || !smooth || !x) return 1;
    kernel = support_smooth_kernel("\n__kernel void smooth_all(__global const uint *x, __global uint *y, uint n) {\n"
                                   "    GPUACT_CL_TABLES(1);\n"
                                   "    const uint i = (uint)get_global_id(0);\n"
                                   "    float v;\n"
                                   "    if (i >= n) return;\n"
                                   "    v = as_float(x[i]);\n",
                                   "as_uint", smooth);
    if (!kernel) return 1;
    if (support_smooth_unlisted(smooth, unlisted, sizeof unlisted)) {
        printf("FAIL smooth_cl_check: kernels/smooth.h defines %s, which tests/support/smooth_functions.h does not "
               "list\n", unlisted);
        return 1;
    }
    len = strlen(dialect) + strlen(smooth) + strlen(kernel) + 8;
    src = (char *)malloc(len);
    if (!src) return 1;
    snprintf(src, len, "%s\n%s\n%s", dialect, smooth, kernel);
    for (p = 0; p < npf && p < 16; p++) {
        cl_device_id devs[16];
        cl_uint nd = 0, d;
        if (cl.GetDeviceIDs(pfs[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS) continue;
        for (d = 0; d < nd && d < 16; d++) {
            devices++;
            failed |= run_device(pfs[p], devs[d], src, x, n) != 0;
        }
    }
    if (!devices) printf("SKIP smooth_cl_check: no OpenCL device\n");
    free(src);
    free(x);
    free(dialect);
    free(smooth);
    free(kernel);
    return failed;
}
