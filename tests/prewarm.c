/* prewarm: builds every reachable kernel variant of the backend that AUTO
   (or GPUACT_BACKEND) picks, split over child processes with a context
   each, so the kernel cache (CUDA/HIP: gpuact's disk cache; OpenCL: the
   driver's, e.g. PoCL's $POCL_CACHE_DIR) holds them all before a test run
   that builds them one after another. The children share the programs
   out (OpenCL: a program holds several variants; elsewhere one each),
   each program to the child with the fewest variants so far, and PoCL
   builds one program at a time per process: N processes keep N cores
   busy. `make test` runs it before the conformance suite, whose parts
   then load the programs instead of building the same ones side by side.
   On OpenCL each variant is also launched on no elements: a driver that
   compiles a kernel for its launch shape at the first launch (PoCL: the
   work-group size, and whether the grid is narrower than 65535
   work-items) does that here, in a plain process, and not in the tests
   under the sanitizers (where compiling is slower, and LeakSanitizer's
   check at exit can crash after it).
   Usage: prewarm [processes] (default: one per CPU). */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GPUACT_NO_OPENCL
/* Whether the tests launch V over more than 65535 work-items in a row,
   which PoCL compiles apart from the narrower launches (its "smallgrid"
   specialization): the elementwise ops on a long row (every array of one
   dtype, the activation alone: a ReLU-family selection, or a smooth kind
   without exp/erf/tanh, which gpuact__dispatch_rows leaves one row), and
   the bias gradient's sum. */
static int launched_wide(const gpuact__variant *V) {
    if (V->op == GPUACT_OP_dbias) return 1;
    if (V->op != GPUACT_OP_forward && V->op != GPUACT_OP_backward) return 0;
    if (V->t[0] != V->t[1] || V->t[1] != V->t[2] || V->dbias || V->precise) return 0;
    return V->select || (!gpuact__kind_select(V->kind) && !gpuact__kind_transcendental(V->kind) && !V->mask);
}
/* The OpenCL kernel of slot i (built), enqueued in work-groups of
   GPUACT_BLOCK with every size argument 0 and no buffers: it touches no
   memory, and the driver has it compiled for that launch shape. One
   work-group, and for the variants of launched_wide 65536 work-items too. */
static int launch_empty(gpuact_context *ctx, int i) {
    gpuact__opencl *o = GPUACT__CL(ctx);
    gpuact__launch L;
    gpuact__variant V;
    size_t local[2] = {GPUACT_BLOCK, 1}, global[2] = {GPUACT_BLOCK, 1};
    int wide;
    memset(&L, 0, sizeof L);
    gpuact__variant_at(i, &V);
    if (gpuact__opencl_set_args(o, o->k[i], &L) != GPUACT_SUCCESS) return 1;
    for (wide = 0; wide <= launched_wide(&V); wide++) {
        global[0] = wide ? 65536 : GPUACT_BLOCK; /* past PoCL's limit, a whole number of work-groups */
        if (o->cl.clEnqueueNDRangeKernel(o->queue, o->k[i], 2, NULL, global, local, 0, NULL, NULL) != 0 ||
            o->cl.clFinish(o->queue) != 0)
            return 1;
    }
    return 0;
}
#endif

/* The program that builds slot i: OpenCL's holds several variants. */
static int program_of(gpuact_context *ctx, int i) {
#ifndef GPUACT_NO_OPENCL
    if (gpuact_context_backend(ctx) == GPUACT_BACKEND_OPENCL) {
        gpuact__variant V;
        gpuact__variant_at(i, &V);
        return gpuact__opencl_program(GPUACT__CL(ctx), &V);
    }
#endif
    (void)ctx;
    return i;
}

/* Child part of nparts: builds its programs' variants; returns the number of failures. */
static int build_part(int part, int nparts) {
    gpuact_context *ctx;
    int i, state, failed = 0, program = -1, owner = 0, p, load[64] = {0};
    if (gpuact_context_create(NULL, &ctx) != GPUACT_SUCCESS) {
        fprintf(stderr, "prewarm: %s\n", gpuact_last_error());
        return 1;
    }
    for (i = 0; (state = gpuact_testing_variant(ctx, i, NULL, 0)) >= 0; i++) {
        if (state == 0) continue;
        if (program_of(ctx, i) != program) { /* a program's slots follow each other */
            program = program_of(ctx, i);
            for (owner = 0, p = 1; p < nparts; p++)
                if (load[p] < load[owner]) owner = p;
        }
        load[owner]++;
        if (owner != part) continue;
        if (gpuact_testing_prepare(ctx, i) != GPUACT_SUCCESS) {
            fprintf(stderr, "prewarm: slot %d: %s\n", i, gpuact_last_error());
            failed++;
        }
#ifndef GPUACT_NO_OPENCL
        else if (gpuact_context_backend(ctx) == GPUACT_BACKEND_OPENCL && launch_empty(ctx, i)) {
            fprintf(stderr, "prewarm: slot %d: its launch on no elements failed\n", i);
            failed++;
        }
#endif
    }
    gpuact_context_destroy(ctx);
    return failed;
}

int main(int argc, char **argv) {
    pid_t pid[64];
    struct timespec t0, t1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = argc > 1 ? atoi(argv[1]) : (int)(cpus > 0 ? cpus : 1), p, failed = 0;
    if (n < 1 || n > 64) {
        fprintf(stderr, "usage: prewarm [processes, 1 to 64]\n");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fflush(stdout);
    for (p = 0; p < n; p++) {
        if ((pid[p] = fork()) < 0) {
            perror("prewarm: fork");
            return 1;
        }
        if (pid[p] == 0) _exit(build_part(p, n) != 0);
    }
    for (p = 0; p < n; p++) {
        int st = 0;
        if (waitpid(pid[p], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("prewarm: every reachable variant built by %d processes in %.1f s, %d of them failed\n", n,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), failed);
    return failed != 0;
}
