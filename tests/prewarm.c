/* prewarm: builds every reachable kernel variant of the backend that AUTO
   (or GPUACT_BACKEND) picks, from several threads with a context each, so
   the CUDA/HIP disk cache is full before a test run (the conformance suite
   builds them one after another). Usage: prewarm [threads]. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int nthreads = 8, failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg) {
    const int t = (int)(size_t)arg;
    gpuact_context *ctx;
    int i, state;
    if (gpuact_context_create(NULL, &ctx) != GPUACT_SUCCESS) {
        fprintf(stderr, "prewarm: %s\n", gpuact_last_error());
        pthread_mutex_lock(&lock);
        failed++;
        pthread_mutex_unlock(&lock);
        return NULL;
    }
    for (i = t; (state = gpuact_testing_variant(ctx, i, NULL, 0)) >= 0; i += nthreads) {
        gpuact_result r;
        if (state == 0) continue;
        if ((r = gpuact_testing_prepare(ctx, i)) != GPUACT_SUCCESS) {
            pthread_mutex_lock(&lock);
            failed++;
            fprintf(stderr, "prewarm: slot %d: %s\n", i, gpuact_last_error());
            pthread_mutex_unlock(&lock);
        }
    }
    gpuact_context_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv) {
    pthread_t th[64];
    struct timespec t0, t1;
    int t;
    if (argc > 1) nthreads = atoi(argv[1]);
    if (nthreads < 1 || nthreads > 64) nthreads = 8;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, work, (void *)(size_t)t);
    for (t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("prewarm: %d threads, %.1f s, %d failures\n", nthreads,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), failed);
    return failed != 0;
}
