/* What the C tests and gpuact-info share, written once: a failure message's
   first line, the tolerance rules of the comparisons (half an ulp of a
   dtype, the bias-gradient sums), the first element where a result and the
   CPU reference differ, and a tally of passed and failed cases.

   Include it after gpuact.h and gpuact_ref.h. Every function is static
   inline, so a test that uses part of it compiles without warnings. */
#ifndef GPUACT_TEST_HARNESS_H
#define GPUACT_TEST_HARNESS_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The first line of s, in a per-thread buffer: gpuact_last_error()'s
   headline without the compiler log or the list of libraries tried. */
static inline const char *harness_first_line(const char *s)
{
    static GPUACT__TLS char buf[300];
    size_t n = strcspn(s, "\n");
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

/* Half of dt's spacing at |v| (v >= 0), subnormal spacing below the normals. */
static inline double harness_half_ulp(gpuact_dtype dt, double v)
{
    int mant = dt == GPUACT_F32 ? 23 : dt == GPUACT_F16 ? 10 : 7;
    int emin = dt == GPUACT_F16 ? -14 : -126;
    int e;
    frexp(v, &e);
    if (e - 1 < emin)
        e = emin + 1;
    return ldexp(1.0, e - 2 - mant);
}

static inline double harness_max_finite(gpuact_dtype dt)
{
    return dt == GPUACT_F32 ? FLT_MAX : dt == GPUACT_F16 ? 65504.0 : 3.3895313892515355e38;
}

/* A bias gradient got, accumulated in f32 and stored in dt, against the f64
   column sum want: within 1e-5 of sum_abs (sum |dx|; 1e-30 for all-zero
   columns) plus the final rounding to dt; a non-finite want needs the same
   non-finite class, and an Inf is right where want rounds to it. Where the
   finite terms alone (sum_fin) pass FLT_MAX, an f32 partial sum may
   overflow, depending on the order: then any Inf is allowed for a finite
   sum, and NaN as well, since that Inf may meet one of the opposite sign. */
static inline int harness_sum_ok(gpuact_dtype dt, float got, double want, double sum_abs, double sum_fin)
{
    double tol;
    int may_overflow = sum_fin > FLT_MAX;
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return (isinf(got) && (got > 0) == (want > 0)) || (may_overflow && isnan(got));
    if (may_overflow && !isfinite(got))
        return 1;
    tol = 1e-5 * sum_abs + 1e-30;
    if (dt != GPUACT_F32)
        tol += harness_half_ulp(dt, fabs(want) + tol);
    if (isinf(got))
        return (got > 0) == (want > 0) &&
               fabs(want) + tol >= harness_max_finite(dt) + harness_half_ulp(dt, harness_max_finite(dt));
    return !isnan(got) && fabs((double)got - want) <= tol;
}

/* The first of rows x cols elements (ld apart) where got and the
   reference want differ by gpuact_ref_same (nan_any: where any NaN will
   do); 1 and its row and column if there is one, else 0. */
static inline int harness_first_diff(gpuact_dtype dt, const void *got, const void *want, const unsigned char *nan_any,
                                     size_t rows, size_t cols, size_t ld, size_t *row, size_t *col)
{
    size_t r, c;
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++) {
            size_t i = r * ld + c;
            if (!gpuact_ref_same(dt, gpuact_ref_raw(dt, got, i), gpuact_ref_raw(dt, want, i),
                                 nan_any ? nan_any[i] : 0)) {
                *row = r;
                *col = c;
                return 1;
            }
        }
    return 0;
}

/* A context on the first backend that opens, OpenCL first (PoCL where
   there is no GPU), with a SKIP line for each that does not and a line
   naming the one taken; NULL if none opens. "-v" as argv[1]: print the
   passing cases too. before (optional) runs first, when no backend has
   loaded its libraries yet. */
static inline gpuact_context *harness_open(int argc, char **argv, void (*before)(void));

/* The cases a test has passed and failed, counted from any thread. */
typedef struct harness_tally {
    unsigned long passed, failed;
    int verbose; /* print passing cases too */
    pthread_mutex_t lock;
} harness_tally;

static inline harness_tally *harness_tally_of_process(void)
{
    static harness_tally t = {0, 0, 0, PTHREAD_MUTEX_INITIALIZER};
    return &t;
}

/* One case: "ok   what" (when verbose) or "FAIL what: <fmt ...>". */
static inline void harness_report(int ok, const char *what, const char *fmt, ...)
{
    harness_tally *t = harness_tally_of_process();
    va_list ap;
    pthread_mutex_lock(&t->lock);
    if (ok) {
        t->passed++;
        if (t->verbose)
            printf("ok   %s\n", what);
    } else {
        t->failed++;
        printf("FAIL %s: ", what);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
    }
    fflush(stdout);
    pthread_mutex_unlock(&t->lock);
}

static inline gpuact_context *harness_open(int argc, char **argv, void (*before)(void))
{
    static const gpuact_backend order[] = {GPUACT_BACKEND_OPENCL, GPUACT_BACKEND_CUDA, GPUACT_BACKEND_HIP};
    gpuact_context *ctx = NULL;
    gpuact_context_desc desc;
    size_t i;
    if (argc > 1 && strcmp(argv[1], "-v") == 0)
        harness_tally_of_process()->verbose = 1;
    if (before)
        before();
    for (i = 0; i < sizeof order / sizeof order[0] && !ctx; i++) {
        memset(&desc, 0, sizeof desc);
        desc.backend = order[i];
        if (gpuact_context_create(&desc, &ctx) != GPUACT_SUCCESS)
            printf("SKIP %s: %s\n", gpuact_backend_name(order[i]), harness_first_line(gpuact_last_error()));
    }
    if (ctx)
        printf("backend %s: %s\n", gpuact_backend_name(gpuact_context_backend(ctx)), gpuact_context_device_name(ctx));
    return ctx;
}

/* Runs worker in n threads at once (n <= 64), thread i on the job at
   (char *)jobs + i * size, zeroed but for its first member, an int, set to
   i; returns when every thread is done. */
static inline void harness_run_threads(int n, void *(*worker)(void *), void *jobs, size_t size)
{
    pthread_t t[64];
    int i;
    for (i = 0; i < n && i < 64; i++) {
        char *job = (char *)jobs + (size_t)i * size;
        memset(job, 0, size);
        memcpy(job, &i, sizeof i);
        pthread_create(&t[i], NULL, worker, job);
    }
    for (i = 0; i < n && i < 64; i++)
        pthread_join(t[i], NULL);
}

/* The last line of a test: its counts; the exit status, 1 if any failed. */
static inline int harness_summary(void)
{
    harness_tally *t = harness_tally_of_process();
    printf("%lu passed, %lu failed\n", t->passed, t->failed);
    return t->failed ? 1 : 0;
}

#endif
