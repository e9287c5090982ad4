/* launch_floor: what the CUDA driver itself costs per call on the host,
   the floor under gpuact's host time per call (bench/host_overhead.c prints
   gpuact's side in the same units). Straight driver API, no gpuact:
     - cuLaunchKernel of an empty kernel with gpuact's parameter list (22
       parameters: 9 pointers, 8 64-bit integers, 4 floats, 1 int: see
       GPUACT_KERNEL_PARAMS) and of an empty kernel with one parameter,
     - cuMemcpyDtoDAsync of 4 KiB,
     - cuMemGetAddressRange (the extent query of every buffer argument),
     - cuCtxGetCurrent.
   Timed as host_overhead does (host_clock.h).
   build: `make build/launch_floor` (needs the CUDA toolkit: cuda.h and the
   driver stub to link against; the driver is loaded at run time)
   usage: launch_floor [batches] */
#define _POSIX_C_SOURCE 200112L
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_clock.h"

#define NPARAMS 22

static const char *ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry one(.param .u64 p0) { ret; }\n"
    ".visible .entry many(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3, .param .u64 p4, \n"
    ".param .u64 p5, .param .u64 p6, .param .u64 p7, .param .u64 p8, .param .u64 p9, \n"
    ".param .u64 p10, .param .u64 p11, .param .u64 p12, .param .u64 p13, .param .u64 p14, \n"
    ".param .u64 p15, .param .u64 p16, .param .f32 p17, .param .f32 p18, .param .f32 p19, \n"
    ".param .f32 p20, .param .u32 p21) { ret; }\n";

#define CK(call)                                                                 \
    do {                                                                         \
        CUresult e_ = (call);                                                    \
        if (e_ != CUDA_SUCCESS) {                                                \
            const char *s_ = NULL;                                               \
            cuGetErrorName(e_, &s_);                                             \
            printf("%s failed: %s\n", #call, s_ ? s_ : "?");                     \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static CUfunction f_one, f_many;
static CUdeviceptr d_a, d_b;
static void *params[NPARAMS];
static unsigned long long scalars[NPARAMS];

static int op_launch_many(void *a) {
    (void)a;
    CK(cuLaunchKernel(f_many, 1, 1, 1, 128, 1, 1, 0, 0, params, NULL));
    return 0;
}
static int op_launch_one(void *a) {
    (void)a;
    CK(cuLaunchKernel(f_one, 1, 1, 1, 128, 1, 1, 0, 0, params, NULL));
    return 0;
}
static int op_copy(void *a) {
    (void)a;
    CK(cuMemcpyDtoDAsync(d_b, d_a, 4096, 0));
    return 0;
}
static int op_range(void *a) {
    CUdeviceptr base;
    size_t size;
    (void)a;
    CK(cuMemGetAddressRange(&base, &size, d_a));
    return 0;
}
static int op_current(void *a) {
    CUcontext c;
    (void)a;
    CK(cuCtxGetCurrent(&c));
    return 0;
}
static int sync_ctx(void *a) {
    (void)a;
    CK(cuCtxSynchronize());
    return 0;
}
static double per_call(int (*op)(void *), int batches) { return host_per_call(op, NULL, sync_ctx, NULL, batches); }

int main(int argc, char **argv) {
    int batches = argc > 1 ? atoi(argv[1]) : 100, i;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    char name[256];
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuDeviceGetName(name, sizeof name, dev));
    CK(cuModuleLoadData(&mod, ptx));
    CK(cuModuleGetFunction(&f_one, mod, "one"));
    CK(cuModuleGetFunction(&f_many, mod, "many"));
    CK(cuMemAlloc(&d_a, 4096));
    CK(cuMemAlloc(&d_b, 4096));
    for (i = 0; i < NPARAMS; i++) {
        scalars[i] = i < 9 ? (unsigned long long)d_a : (unsigned long long)i;
        params[i] = &scalars[i];
    }
    printf("CUDA driver on %s; median of %d batches of %d calls, host us per call\n", name, batches, HOST_BATCH);
    printf("cuLaunchKernel, 22 parameters:  %8.3f us\n", per_call(op_launch_many, batches));
    printf("cuLaunchKernel, 1 parameter:    %8.3f us\n", per_call(op_launch_one, batches));
    printf("cuMemcpyDtoDAsync 4 KiB:        %8.3f us\n", per_call(op_copy, batches));
    printf("cuMemGetAddressRange:           %8.3f us\n", per_call(op_range, batches));
    printf("cuCtxGetCurrent:                %8.3f us\n", per_call(op_current, batches));
    cuMemFree(d_a);
    cuMemFree(d_b);
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
