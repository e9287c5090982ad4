/* gpuact-bench: gpuact's operations against the device-to-device copy
   bandwidth measured in the same run (docs/PERFORMANCE.md, the method).

     build/gpuact-bench [--backend cuda|hip|opencl] [--device N] [--csv]
                        [--reps N] [--warmup N] [--quick] [--large]
                        [--only NAME[,NAME...]] [--list] [--matrix] [--shape RxC]

   For each workload: allocate, fill the inputs with fresh random data on the
   host (about half negative; N(0, 1) for GELU, tanh-GELU and SiLU, whose
   kernels take branches by magnitude) and upload once, poison the output
   slices that are checked, warm up, then time each repetition with device
   events (CUDA/HIP events, OpenCL queue-profiling markers) around one call;
   report the median and the minimum. GB/s counts bytes read plus bytes
   written; "% copy" is that rate over the rate of a device-to-device copy of
   the same number of bytes as the largest selected workload moves, timed
   the same way in the same run. After timing, a few slices of every output
   (the first and last elements, and slices around 2^29, 2^30, 2^31 and 2^32
   elements where the tensor reaches them; whole rows of the epilogues; every
   bias gradient) are read back and compared bit for bit with a CPU
   computation, so a broken kernel cannot post a good time. Exit status 1 if
   any gpuact call fails or any check does not match.

   The data generator is counter based (element i of a buffer is a hash of
   the buffer's key and i), so the CPU check recomputes any input element
   without keeping a host copy of multi-gigabyte tensors. */
#define _POSIX_C_SOURCE 200809L
#define GPUACT_IMPLEMENTATION
#include "gpuact.h"
#include "kernels/fewbit.h" /* the few-bit levels the backward-from-codes check multiplies by */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

/* ---- options and failures ------------------------------------------------------ */

static struct {
    gpuact_backend backend;
    int device, csv, reps, warmup, quick, large, reps_set, warmup_set, matrix, list;
    const char *only;
    size_t shape_rows, shape_cols; /* --shape: 0 = each workload's own */
    size_t n;                      /* --n: the elementwise workloads' elements; 0 = the default */
} opt = {GPUACT_BACKEND_AUTO, 0, 0, 30, 5, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0};

static int g_failed_checks = 0;

static void die_gpuact(gpuact_result r, const char *what, int line) {
    fprintf(stderr, "gpuact-bench: %s failed (line %d): %s\n%s\n", what, line, gpuact_result_string(r),
            gpuact_last_error());
    exit(1);
}
#define CHECK(call)                                          \
    do {                                                     \
        gpuact_result r_ = (call);                           \
        if (r_ != GPUACT_SUCCESS) die_gpuact(r_, #call, __LINE__); \
    } while (0)

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "gpuact-bench: out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- counter-based random data ----------------------------------------------------- */

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* splitmix64 at counter i of the stream `key` */
static uint64_t rnd(uint64_t key, uint64_t i) { return mix64(key + (i + 1) * 0x9E3779B97F4A7C15ull); }

static uint64_t g_run_seed; /* fresh data each run: from the clock and the pid */

static uint64_t new_key(void) {
    static uint64_t counter = 0;
    return mix64(g_run_seed ^ (++counter * 0xD1342543DE82EF95ull));
}

/* buffers of random bytes besides the dtypes: a mask or dense codes of 1-4
   bits (every bit pattern is valid codes) */
enum { DATA_MASK = 100 };

static float bits_f32(uint32_t u);
static uint32_t f32_bits(float f);
static uint32_t bf16_bits(float f);
static uint32_t f16_bits(float f);
/* The workload's data: N(0, 1) (the smooth kinds, set per workload) or the
   log-uniform magnitudes below. Read-only while a fill or a check runs. */
static int g_normal;

/* Element i: random sign, magnitude in [2^-4, 2^4) with random mantissa:
   normal, finite, never zero; some f32 values are >= 6 (the clip ceiling).
   With g_normal, a standard normal value (Box-Muller on the counter's two
   24-bit halves) rounded to the type. */
static uint32_t gen_bits(int type, uint64_t key, uint64_t i) {
    uint64_t h = rnd(key, i);
    uint32_t s = (uint32_t)(h >> 63), e = (uint32_t)(h >> 40) & 7u;
    if (g_normal && type < DATA_MASK) {
        const double u1 = ((double)(h >> 40) + 1.0) / 16777216.0, u2 = (double)(h & 0xffffffu) / 16777216.0;
        const float z = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
        return type == GPUACT_F32 ? f32_bits(z) : type == GPUACT_BF16 ? bf16_bits(z) : f16_bits(z);
    }
    switch (type) {
    case GPUACT_F32: return (s << 31) | ((123u + e) << 23) | (uint32_t)(h & 0x7fffffu);
    case GPUACT_F16: return (s << 15) | ((11u + e) << 10) | (uint32_t)(h & 0x3ffu);
    case GPUACT_BF16: return (s << 15) | ((123u + e) << 7) | (uint32_t)(h & 0x7fu);
    default: return (uint32_t)(h & 0xffu); /* DATA_MASK: one byte */
    }
}
static float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static size_t type_size(int type) { return type >= DATA_MASK ? 1 : gpuact_dtype_size((gpuact_dtype)type); }

/* ---- a small parallel for (host data generation and reference sums) --------------- */

typedef void (*range_fn)(void *arg, size_t lo, size_t hi);
typedef struct { range_fn fn; void *arg; size_t lo, hi; } range_job;
static int g_threads = 1;

static void *range_thread(void *p) {
    range_job *j = (range_job *)p;
    j->fn(j->arg, j->lo, j->hi);
    return NULL;
}
/* Runs fn over [0, n) split across g_threads threads; serially when the
   work (n * cost, in element operations) is small. */
static void parallel_for(size_t n, double cost, range_fn fn, void *arg) {
    pthread_t th[64];
    range_job job[64];
    int t, nt = g_threads;
    if ((double)n * cost < 262144.0 || nt <= 1 || n < (size_t)nt) {
        fn(arg, 0, n);
        return;
    }
    for (t = 0; t < nt; t++) {
        job[t].fn = fn;
        job[t].arg = arg;
        job[t].lo = n / (size_t)nt * (size_t)t;
        job[t].hi = t == nt - 1 ? n : n / (size_t)nt * (size_t)(t + 1);
        if (pthread_create(&th[t], NULL, range_thread, &job[t]) != 0) {
            fn(arg, job[t].lo, n); /* no thread: do the rest here */
            nt = t;
            break;
        }
    }
    for (t = 0; t < nt; t++) pthread_join(th[t], NULL);
}

typedef struct { void *host; int type; uint64_t key, first; } gen_job;
static void gen_range(void *p, size_t lo, size_t hi) {
    gen_job *g = (gen_job *)p;
    size_t i;
    if (g->type == GPUACT_F32) {
        uint32_t *h = (uint32_t *)g->host;
        for (i = lo; i < hi; i++) h[i] = gen_bits(GPUACT_F32, g->key, g->first + i);
    } else if (g->type >= DATA_MASK) {
        unsigned char *h = (unsigned char *)g->host;
        for (i = lo; i < hi; i++) h[i] = (unsigned char)gen_bits(g->type, g->key, g->first + i);
    } else {
        uint16_t *h = (uint16_t *)g->host;
        for (i = lo; i < hi; i++) h[i] = (uint16_t)gen_bits(g->type, g->key, g->first + i);
    }
}

#define CHUNK_BYTES ((size_t)64 << 20)
static void *g_chunk; /* CHUNK_BYTES of host staging */

/* Fills count elements of `type` with the stream `key`, in chunks. */
static void fill(gpuact_context *ctx, gpuact_buffer buf, int type, size_t count, uint64_t key) {
    size_t es = type_size(type), per = CHUNK_BYTES / es, done;
    for (done = 0; done < count; done += per) {
        size_t k = count - done < per ? count - done : per;
        gen_job g;
        gpuact_buffer at = buf;
        g.host = g_chunk;
        g.type = type;
        g.key = key;
        g.first = done;
        parallel_for(k, 1.0, gen_range, &g);
        at.offset += done * es;
        CHECK(gpuact_buffer_write(ctx, at, g_chunk, k * es));
    }
}

static void poison(gpuact_context *ctx, gpuact_buffer buf, size_t byte_off, size_t bytes) {
    gpuact_buffer at = buf;
    unsigned char *p = (unsigned char *)xmalloc(bytes);
    memset(p, 0xff, bytes); /* NaN in every float format, all mask bits set */
    at.offset += byte_off;
    CHECK(gpuact_buffer_write(ctx, at, p, bytes));
    free(p);
}
static void *readback(gpuact_context *ctx, gpuact_buffer buf, size_t byte_off, size_t bytes) {
    gpuact_buffer at = buf;
    void *p = xmalloc(bytes);
    at.offset += byte_off;
    CHECK(gpuact_buffer_read(ctx, p, at, bytes));
    return p;
}

/* ---- workloads ----------------------------------------------------------------- */

typedef enum { K_FWD, K_BWD, K_EPI, K_EPI_BWD, K_SMALL, K_GLU } kind_t;

typedef struct workload {
    const char *name, *op;
    kind_t kind;
    gpuact_dtype dt;
    int act;        /* gpuact_activation_kind */
    int mask;       /* FWD/EPI: also write the mask; BWD/EPI_BWD: region from the mask (else from x / y) */
    size_t rows, cols;
    int optional;   /* only with --large (or named by --only) */
    int nocheck;    /* --matrix cells the CPU check below does not model: timed, not checked */
    /* filled in by the run */
    int selected, ran, check_ok;
    double bytes, med_ms, min_ms, host_us;
    char shape[48];
    int y16;        /* an f32 product's epilogue for a 16-bit layer: K_EPI y in bf16 (x and the bias in dt),
                       K_EPI_BWD dy in bf16 (dx in dt, dbias f32) */
    int code_bits;  /* FWD: also write few-bit codes of this many bits; BWD: dx from them (GELU, GELU tanh, SiLU) */
} workload;

#define SLOPE 0.01f
#define CEILING 6.0f
#define LOWER -1.0f /* hardtanh(-1, 6) */

static size_t wl_n(const workload *w) { return w->rows * w->cols; }
/* The dtypes of in0 (x, dy) and out (y, dx): dt but for y16's bf16 side. */
/* A row of kernels/contract.h's table of kinds: which cells a kind has. */
typedef struct kind_info { const char *name; int from_y, select, glu; } kind_info;
static kind_info kind_row(int k) {
#define KIND_ROW_(name, slope, ceiling, lower, from_y, select, glu) {#name, from_y, select, glu},
    static const kind_info rows[] = {GPUACT_ACTIVATIONS(KIND_ROW_)};
    return rows[k];
}

static gpuact_dtype in_dtype(const workload *w) { return w->y16 && w->kind == K_EPI_BWD ? GPUACT_BF16 : w->dt; }
static gpuact_dtype out_dtype(const workload *w) { return w->y16 && w->kind == K_EPI ? GPUACT_BF16 : w->dt; }
static size_t mask_ld_of(const workload *w) {
    return w->kind == K_EPI || w->kind == K_EPI_BWD ? (w->cols + 127) / 128 * 128 : w->cols;
}
static size_t mask_bytes(const workload *w) {
    size_t ld = mask_ld_of(w);
    if (w->code_bits) /* elementwise: n dense codes of code_bits bits (kernels/contract.h) */
        return (wl_n(w) * (size_t)w->code_bits + 7) / 8;
    return (w->rows - 1) * (ld / 8) + (w->cols + 7) / 8;
}

/* Bytes one call must move (read + written), and device memory it needs. */
static double wl_bytes(const workload *w) {
    double n = (double)wl_n(w), es = (double)gpuact_dtype_size(w->dt), m = (double)mask_bytes(w);
    double ei = (double)gpuact_dtype_size(in_dtype(w)), eo = (double)gpuact_dtype_size(out_dtype(w));
    switch (w->kind) {
    case K_FWD: case K_SMALL: return 2 * n * es + (w->mask || w->code_bits ? m : 0);
    case K_BWD: return 2 * n * es + (w->mask || w->code_bits ? m : n * es);
    case K_EPI: return n * ei + n * eo + (double)w->cols * es + (w->mask ? m : 0);
    case K_EPI_BWD: return n * ei + n * eo + (w->mask ? m : n * es) + (double)w->cols * 4;
    case K_GLU: return 3 * n * es + 2 * (double)w->cols * es;
    }
    return 0;
}
static double wl_memory(const workload *w) {
    double n = (double)wl_n(w), es = (double)gpuact_dtype_size(w->dt), m = (double)mask_bytes(w);
    switch (w->kind) {
    case K_FWD: case K_SMALL: return 2 * n * es + (w->mask || w->code_bits ? m : 0);
    case K_BWD: return 3 * n * es + m;
    case K_EPI: return 2 * n * es + (double)w->cols * es + m;
    case K_EPI_BWD: return 3 * n * es + m + (double)w->cols * 4 * 600;
    case K_GLU: return 3 * n * es + 2 * (double)w->cols * es;
    }
    return 0;
}

/* The buffers of one run and the keys of their random streams. */
typedef struct run_state {
    gpuact_context *ctx;
    workload *w;
    gpuact_buffer in0, in1, out, mask, bias, bias2, dbias; /* see run_op */
    uint64_t k0, k1, kbias;
} run_state;

/* One call of the operation under test. Buffers:
   FWD/SMALL: in0 = x, out = y, mask (written, optional)
   BWD:       in0 = dy, in1 = x (or mask), out = dx
   EPI:       in0 = x, bias, out = y, mask (written, optional)
   EPI_BWD:   in0 = dy, in1 = y (or mask), out = dx, dbias
   GLU:       in0 = a, in1 = b, bias (a's), bias2 (b's), out = y */
static gpuact_result run_op(run_state *s) {
    const workload *w = s->w;
    gpuact_context *ctx = s->ctx;
    gpuact_activation act;
    memset(&act, 0, sizeof act);
    act.kind = (gpuact_activation_kind)w->act;
    act.negative_slope = SLOPE;
    act.ceiling = CEILING;
    act.lower = LOWER;
    switch (w->kind) {
    case K_FWD:
    case K_SMALL:
        if (w->act == GPUACT_RELU && !w->mask) return gpuact_relu_forward(ctx, w->dt, wl_n(w), s->in0, s->out, NULL);
        {
            gpuact_forward_desc d;
            memset(&d, 0, sizeof d);
            d.act = act; d.dtype = w->dt; d.n = wl_n(w);
            d.x = s->in0; d.y = s->out;
            if (w->mask) d.mask = s->mask;
            if (w->code_bits) { d.codes = s->mask; d.code_bits = w->code_bits; }
            return gpuact_forward(ctx, &d, NULL);
        }
    case K_BWD:
        if (!w->mask && w->act == GPUACT_RELU)
            return gpuact_relu_backward(ctx, w->dt, wl_n(w), s->in0, s->in1, s->out, NULL);
        {
            gpuact_backward_desc d;
            memset(&d, 0, sizeof d);
            d.act = act; d.dtype = w->dt; d.n = wl_n(w);
            d.dy = s->in0; d.dx = s->out;
            if (w->mask) d.mask = s->mask;
            else if (w->code_bits) { d.codes = s->mask; d.code_bits = w->code_bits; }
            else d.x = s->in1;
            return gpuact_backward(ctx, &d, NULL);
        }
    case K_EPI: {
        gpuact_epilogue_desc d;
        memset(&d, 0, sizeof d);
        d.act = act; d.rows = w->rows; d.cols = w->cols;
        d.x_dtype = d.bias_dtype = w->dt;
        d.y_dtype = out_dtype(w);
        d.x = s->in0; d.bias = s->bias; d.y = s->out;
        if (w->mask) { d.mask = s->mask; d.mask_ld = mask_ld_of(w); }
        return gpuact_epilogue_forward(ctx, &d, NULL);
    }
    case K_EPI_BWD: {
        gpuact_epilogue_backward_desc d;
        memset(&d, 0, sizeof d);
        d.act = act; d.rows = w->rows; d.cols = w->cols;
        d.dy_dtype = in_dtype(w);
        d.dx_dtype = d.y_dtype = w->dt;
        d.dbias_dtype = GPUACT_F32;
        d.dy = s->in0; d.dx = s->out; d.dbias = s->dbias;
        if (w->mask) { d.mask = s->mask; d.mask_ld = mask_ld_of(w); }
        else if (!kind_row(w->act).select) { d.x = s->in1; d.x_dtype = w->dt; } /* smooth: from the forward's x */
        else d.y = s->in1;
        return gpuact_epilogue_backward(ctx, &d, NULL);
    }
    case K_GLU: {
        gpuact_glu_desc d;
        memset(&d, 0, sizeof d);
        d.act = act; d.rows = w->rows; d.cols = w->cols;
        d.x_dtype = d.y_dtype = w->dt;
        d.a = s->in0; d.b = s->in1; d.y = s->out; d.bias_a = s->bias; d.bias_b = s->bias2;
        return gpuact_glu_forward(ctx, &d, NULL);
    }
    }
    return GPUACT_ERROR_INVALID_ARGUMENT;
}

/* ---- the CPU side of the checks ------------------------------------------------------- */

static int sign_of(gpuact_dtype dt, uint32_t b) { return dt == GPUACT_F32 ? (int)(b >> 31) : (int)(b >> 15) & 1; }

/* Mask bit of element (r, c) of an input mask filled with random bytes. */
static int input_mask_bit(const run_state *s, size_t r, size_t c) {
    size_t bit = r * mask_ld_of(s->w) + c;
    return (int)(gen_bits(DATA_MASK, s->k1, bit / 8) >> (bit % 8)) & 1;
}

/* The few-bit levels (kernels/fewbit.h), [table][bits - 1][16], the tables
   in the order gelu, gelu_tanh, silu. */
static const float fewbit_levels[] = GPUACT_FEWBIT_LEVELS;

/* Code of element (r, c) of input codes filled with random bytes. */
static unsigned input_code(const run_state *s, size_t r, size_t c) {
    const int b = s->w->code_bits;
    const size_t bit = (r * s->w->cols + c) * (size_t)b;
    const uint32_t two = gen_bits(DATA_MASK, s->k1, bit / 8) | gen_bits(DATA_MASK, s->k1, bit / 8 + 1) << 8;
    return (two >> (bit % 8)) & ((1u << b) - 1u); /* a 3-bit code may cross a byte */
}
/* f32 to bf16, rounded to nearest even (finite values) */
static uint32_t bf16_bits(float f) {
    const uint32_t u = f32_bits(f);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
/* f32 to f16, rounded to nearest even (finite values below 65504) */
static uint32_t f16_bits(float f) {
    const uint32_t u = f32_bits(f), s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a >= 0x38800000u) /* 2^-14 and up: normal */
        return s | (((a + 0xfffu + ((a >> 13) & 1u)) >> 13) - (112u << 10));
    {
        const float v = bits_f32(a) * 16777216.0f; /* in units of 2^-24: exact, below 2^10 */
        uint32_t q = (uint32_t)v;
        const float r = v - (float)q;
        if (r > 0.5f || (r == 0.5f && (q & 1u))) q++;
        return s | q;
    }
}

/* Expected output bits and mask bit of element (r, c). The data are normal,
   finite and non-zero, so the sign bit decides x > 0 for relu. */
static void expect(const run_state *s, size_t r, size_t c, uint32_t *out, int *bit) {
    const workload *w = s->w;
    const size_t i = r * w->cols + c;
    switch (w->kind) {
    case K_FWD:
    case K_SMALL: {
        uint32_t xb = gen_bits(w->dt, s->k0, i);
        if (w->act == GPUACT_RELU) {
            *bit = !sign_of(w->dt, xb);
            *out = *bit ? xb : 0u;
        } else { /* leaky and clipped: f32 only */
            float x = bits_f32(xb), y;
            if (w->act == GPUACT_LEAKY_RELU) {
                volatile float p = x * SLOPE; /* one IEEE f32 multiply */
                y = x > 0.0f ? x : p;
                *bit = x > 0.0f;
            } else {
                y = x <= 0.0f ? 0.0f : (x >= CEILING ? CEILING : x);
                *bit = !(x <= 0.0f || x >= CEILING);
            }
            *out = f32_bits(y);
        }
        return;
    }
    case K_BWD: {
        uint32_t dy = gen_bits(w->dt, s->k0, i);
        if (w->code_bits) { /* f32 and bf16: dy * level, rounded once */
            const float lv = fewbit_levels[((w->act - GPUACT_GELU) * GPUACT_FEWBIT_MAX_BITS + w->code_bits - 1) *
                                               GPUACT_FEWBIT_STRIDE + input_code(s, r, c)];
            volatile float p = bits_f32(w->dt == GPUACT_F32 ? dy : dy << 16) * lv; /* one IEEE f32 multiply */
            *out = w->dt == GPUACT_F32 ? f32_bits(p) : bf16_bits(p);
            *bit = 0;
            return;
        }
        int pass = w->mask ? input_mask_bit(s, r, c) : !sign_of(w->dt, gen_bits(w->dt, s->k1, i));
        *out = pass ? dy : 0u;
        *bit = pass;
        return;
    }
    case K_EPI: { /* f32 */
        volatile float z = bits_f32(gen_bits(GPUACT_F32, s->k0, i)) + bits_f32(gen_bits(GPUACT_F32, s->kbias, c));
        float zz = z;
        *bit = zz > 0.0f;
        *out = *bit ? f32_bits(zz) : 0u;
        return;
    }
    case K_EPI_BWD: { /* y16: dy in bf16, widened exactly into an f32 dx (its bits, 16 places up) */
        uint32_t dy = gen_bits(in_dtype(w), s->k0, i) << (w->y16 ? 16 : 0);
        int pass = w->mask ? input_mask_bit(s, r, c) : !sign_of(w->dt, gen_bits(w->dt, s->k1, i));
        *out = pass ? dy : 0u;
        *bit = pass;
        return;
    }
    case K_GLU: /* not modelled here: never checked (the conformance suite checks it) */
        *out = 0u;
        *bit = 0;
        return;
    }
}

/* Output slices that are checked: [lo, hi) element ranges of the flattened
   tensor. Elementwise: the first and last 4096 elements and 4096 around
   2^29, 2^30, 2^31, 2^32 (32-bit byte and element index limits) where the
   tensor reaches them. Epilogues: whole rows 0, 1, rows/2, rows-1. */
typedef struct { size_t lo, hi; } window;
static int windows_of(const workload *w, window *win) {
    size_t n = wl_n(w), k = 0, j;
    if (w->kind == K_EPI || w->kind == K_EPI_BWD || w->kind == K_GLU) {
        size_t rs[4];
        rs[0] = 0; rs[1] = w->rows > 1 ? 1 : 0; rs[2] = w->rows / 2; rs[3] = w->rows - 1;
        for (j = 0; j < 4; j++) {
            win[k].lo = rs[j] * w->cols;
            win[k].hi = win[k].lo + w->cols;
            k++;
        }
        return (int)k;
    }
    {
        const size_t half = 2048;
        size_t centers[6];
        centers[0] = half;
        centers[1] = n > half ? n - half : half;
        centers[2] = (size_t)1 << 29; centers[3] = (size_t)1 << 30;
        centers[4] = (size_t)1 << 31;
        centers[5] = sizeof(size_t) > 4 ? (size_t)((uint64_t)1 << 32) : 0;
        for (j = 0; j < 6; j++) {
            size_t lo, hi;
            if (j >= 2 && (centers[j] == 0 || centers[j] >= n)) continue;
            lo = centers[j] > half ? centers[j] - half : 0;
            hi = lo + 2 * half < n ? lo + 2 * half : n;
            lo &= ~(size_t)7; /* whole mask bytes */
            win[k].lo = lo;
            win[k].hi = hi;
            k++;
        }
    }
    return (int)k;
}

static int output_has_mask(const workload *w) { return (w->kind == K_FWD || w->kind == K_EPI) && w->mask; }

/* Mask byte range of window [lo, hi): row r's bytes (epilogues) or the
   bytes of elements lo..hi-1 (elementwise; lo is a multiple of 8). */
static void mask_span(const workload *w, window win, size_t *off, size_t *len) {
    if (w->kind == K_EPI) {
        *off = win.lo / w->cols * (mask_ld_of(w) / 8);
        *len = (w->cols + 7) / 8;
    } else {
        *off = win.lo / 8;
        *len = (win.hi - win.lo + 7) / 8;
    }
}

static void poison_outputs(run_state *s) {
    const workload *w = s->w;
    size_t es = gpuact_dtype_size(out_dtype(w));
    window win[8];
    int k, nw = windows_of(w, win);
    for (k = 0; k < nw; k++) {
        poison(s->ctx, s->out, win[k].lo * es, (win[k].hi - win[k].lo) * es);
        if (output_has_mask(w)) {
            size_t off, len;
            mask_span(w, win[k], &off, &len);
            poison(s->ctx, s->mask, off, len);
        }
    }
    if (s->dbias.handle) poison(s->ctx, s->dbias, 0, w->cols * 4);
}

typedef struct { const run_state *s; double *sum, *abs; } dbias_job;
static void dbias_range(void *p, size_t lo, size_t hi) { /* columns lo..hi-1 */
    dbias_job *j = (dbias_job *)p;
    const workload *w = j->s->w;
    size_t r, c;
    for (c = lo; c < hi; c++) {
        double sum = 0, abs = 0;
        for (r = 0; r < w->rows; r++) {
            uint32_t b;
            int bit;
            double v;
            expect(j->s, r, c, &b, &bit);
            v = (double)bits_f32(b);
            sum += v;
            abs += fabs(v);
        }
        j->sum[c] = sum;
        j->abs[c] = abs;
    }
}

/* Reads the checked slices back and compares them; prints the first few
   mismatches. Returns 1 when everything matches. */
static int verify(run_state *s) {
    const workload *w = s->w;
    size_t es = gpuact_dtype_size(out_dtype(w));
    window win[8];
    int k, nw = windows_of(w, win), bad = 0;
    for (k = 0; k < nw; k++) {
        size_t i, n = win[k].hi - win[k].lo, moff = 0, mlen = 0;
        unsigned char *y = (unsigned char *)readback(s->ctx, s->out, win[k].lo * es, n * es), *m = NULL;
        if (output_has_mask(w)) {
            mask_span(w, win[k], &moff, &mlen);
            m = (unsigned char *)readback(s->ctx, s->mask, moff, mlen);
        }
        for (i = 0; i < n; i++) {
            size_t e = win[k].lo + i, r = e / w->cols, c = e % w->cols;
            uint32_t want, got;
            int bit;
            expect(s, r, c, &want, &bit);
            if (es == 4) {
                memcpy(&got, y + i * 4, 4);
            } else {
                uint16_t h;
                memcpy(&h, y + i * 2, 2);
                got = h;
            }
            if (got != want && bad++ < 5)
                fprintf(stderr, "  MISMATCH %s: element %zu (row %zu, col %zu): got 0x%08x, expected 0x%08x\n",
                        w->name, e, r, c, (unsigned)got, (unsigned)want);
            if (m) {
                int gb = (m[i / 8] >> (i % 8)) & 1;
                if (gb != bit && bad++ < 5)
                    fprintf(stderr, "  MISMATCH %s: mask bit of element %zu: got %d, expected %d\n", w->name, e, gb,
                            bit);
            }
        }
        if (m) { /* padding bits after the window's last element, when it ends a row */
            size_t used = n % 8;
            if (used && (win[k].hi % w->cols == 0) && (m[mlen - 1] >> used) != 0 && bad++ < 5)
                fprintf(stderr, "  MISMATCH %s: padding bits of mask byte %zu are not 0 (0x%02x)\n", w->name,
                        moff + mlen - 1, m[mlen - 1]);
        }
        free(y);
        free(m);
    }
    if (s->dbias.handle) {
        float *got = (float *)readback(s->ctx, s->dbias, 0, w->cols * 4);
        dbias_job j;
        size_t c;
        j.s = s;
        j.sum = (double *)xmalloc(w->cols * sizeof(double));
        j.abs = (double *)xmalloc(w->cols * sizeof(double));
        parallel_for(w->cols, (double)w->rows, dbias_range, &j);
        for (c = 0; c < w->cols; c++) {
            double err = fabs((double)got[c] - j.sum[c]);
            /* f32 accumulation: relative to the sum of magnitudes (a column
               sum of mixed signs can cancel to near zero) */
            if (!(err <= 1e-5 * j.abs[c] + 1e-30) && bad++ < 5)
                fprintf(stderr, "  MISMATCH %s: dbias[%zu] = %.9g, expected %.9g (sum |dx| %.6g)\n", w->name, c,
                        (double)got[c], j.sum[c], j.abs[c]);
        }
        free(got);
        free(j.sum);
        free(j.abs);
    }
    if (bad) fprintf(stderr, "  %s: %d mismatches (first ones above)\n", w->name, bad);
    return bad == 0;
}

/* ---- timing -------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef gpuact_result (*op_fn)(void *arg);

/* Warm-up, then reps timed one call each with device events. */
static void time_device(gpuact_context *ctx, op_fn fn, void *arg, double *med, double *mn) {
    double *t = (double *)xmalloc((size_t)opt.reps * sizeof(double));
    int i;
    for (i = 0; i < opt.warmup; i++) CHECK(fn(arg));
    CHECK(gpuact_synchronize(ctx, NULL));
    for (i = 0; i < opt.reps; i++) {
        void *token = NULL;
        gpuact_result r;
        CHECK(gpuact_testing_timer_begin(ctx, NULL, &token));
        r = fn(arg);
        if (r != GPUACT_SUCCESS) die_gpuact(r, "the operation under test", __LINE__);
        CHECK(gpuact_testing_timer_end(ctx, NULL, token, &t[i]));
    }
    *mn = t[0];
    for (i = 1; i < opt.reps; i++)
        if (t[i] < *mn) *mn = t[i];
    *med = median(t, opt.reps);
    free(t);
}

static gpuact_result op_thunk(void *arg) { return run_op((run_state *)arg); }

typedef struct { gpuact_context *ctx; gpuact_buffer src, dst; size_t bytes; } copy_state;
static gpuact_result copy_thunk(void *arg) {
    copy_state *c = (copy_state *)arg;
    return gpuact_testing_copy(c->ctx, NULL, c->dst, c->src, c->bytes);
}

/* Host wall-clock time per call of back-to-back calls without a sync:
   one warm-up batch, then the median of `batches` batches. */
static double time_host(gpuact_context *ctx, run_state *s, int calls, int batches) {
    double t[16];
    int b, i;
    if (batches > 16) batches = 16;
    for (b = -1; b < batches; b++) {
        double t0 = now_s(), t1;
        for (i = 0; i < calls; i++) {
            gpuact_result r = run_op(s);
            if (r != GPUACT_SUCCESS) die_gpuact(r, "the operation under test (host timing)", __LINE__);
        }
        t1 = now_s();
        CHECK(gpuact_synchronize(ctx, NULL));
        if (b >= 0) t[b] = (t1 - t0) / calls * 1e6;
    }
    return median(t, batches);
}

/* ---- results ----------------------------------------------------------------- */

typedef struct row {
    char name[32], op[48], dtype[12], shape[48], check[8];
    double bytes, med_ms, min_ms, host_us; /* host_us < 0: not measured */
    int has_bw;
} row;
/* --matrix's modes; its cells are kinds x dtypes x these, where a kind has the mode */
static const struct { kind_t kind; int mask; const char *tag, *op; int y16, bits; } modes[] = {
    {K_FWD, 0, "fwd", "forward", 0, 0}, {K_FWD, 1, "fwd-mask", "forward + mask", 0, 0},
    {K_FWD, 0, "fwd-codes1", "forward + 1-bit codes", 0, 1}, {K_FWD, 0, "fwd-codes2", "forward + 2-bit codes", 0, 2},
    {K_FWD, 0, "fwd-codes3", "forward + 3-bit codes", 0, 3}, {K_FWD, 0, "fwd-codes4", "forward + 4-bit codes", 0, 4},
    {K_BWD, 0, "bwd-x", "backward from x", 0, 0}, {K_BWD, 1, "bwd-mask", "backward from mask", 0, 0},
    {K_BWD, 0, "bwd-codes1", "backward from 1-bit codes", 0, 1},
    {K_BWD, 0, "bwd-codes2", "backward from 2-bit codes", 0, 2},
    {K_BWD, 0, "bwd-codes3", "backward from 3-bit codes", 0, 3},
    {K_BWD, 0, "bwd-codes4", "backward from 4-bit codes", 0, 4},
    {K_EPI, 0, "epi", "epilogue bias+act", 0, 0}, {K_EPI, 1, "epi-mask", "epilogue bias+act + mask", 0, 0},
    {K_EPI, 0, "epi-y16", "epilogue bias+act, y bf16", 1, 0},
    {K_EPI, 1, "epi-mask-y16", "epilogue bias+act + mask, y bf16", 1, 0},
    {K_EPI_BWD, 1, "epibwd-mask", "epilogue bwd+dbias, mask", 0, 0},
    {K_EPI_BWD, 0, "epibwd-y", "epilogue bwd+dbias, y or x", 0, 0},
    {K_EPI_BWD, 1, "epibwd-mask-y16", "epilogue bwd+dbias, mask, dy bf16", 1, 0},
    {K_GLU, 0, "glu", "gated act(a + ba) * (b + bb)", 0, 0}};
enum { MATRIX_CELLS = 3 * GPUACT_KIND_COUNT * (int)(sizeof modes / sizeof modes[0]) }; /* at most (a row each) */
static row g_rows[MATRIX_CELLS];
static int g_nrows = 0;
static double g_copy_gbps = 0;

static row *add_row(const char *name, const char *op, const char *dtype, const char *shape, double bytes,
                    double med, double mn, int has_bw, const char *check) {
    static row spare; /* past the table: measured and printed, not summarised */
    row *r = g_nrows < (int)(sizeof g_rows / sizeof g_rows[0]) ? &g_rows[g_nrows++] : &spare;
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype);
    snprintf(r->shape, sizeof r->shape, "%s", shape);
    snprintf(r->check, sizeof r->check, "%s", check);
    r->bytes = bytes;
    r->med_ms = med;
    r->min_ms = mn;
    r->host_us = -1;
    r->has_bw = has_bw;
    return r;
}

/* With --csv a row is printed as soon as it is measured (the copy comes
   first, so its share is known), and flushed: a run cut off by a time
   limit keeps the rows it finished. */
static void print_csv_row(const row *r) {
    static int header;
    double gbps = r->bytes / (r->med_ms * 1e6);
    if (!header++)
        printf("name,op,dtype,shape,bytes,median_ms,min_ms,median_us,gbps,pct_copy,host_us_per_call,check\n");
    /* the op is quoted: some names hold a comma */
    printf("%s,\"%s\",%s,%s,%.0f,%.6f,%.6f,%.2f,", r->name, r->op, r->dtype, r->shape, r->bytes, r->med_ms, r->min_ms,
           r->med_ms * 1e3);
    if (r->has_bw) printf("%.1f,%.1f,", gbps, 100.0 * gbps / g_copy_gbps);
    else printf(",,");
    if (r->host_us >= 0) printf("%.2f,", r->host_us);
    else printf(",");
    printf("%s\n", r->check);
    fflush(stdout);
}

static void print_results(const char *device, const char *backend, double copy_bytes) {
    int i;
    if (opt.csv) return; /* printed row by row (print_csv_row) */
    printf("\ngpuact-bench: %s on %s; median of %d reps after %d warm-up; copy of %.3f GB: %.1f GB/s (R+W)\n",
           backend, device, opt.reps, opt.warmup, copy_bytes / 1e9, g_copy_gbps);
    printf("%-18s %-28s %-5s %-20s %10s %10s %10s %10s %8s %7s %9s %5s\n", "name", "op", "dtype", "shape", "MB(R+W)",
           "median ms", "min ms", "median us", "GB/s", "% copy", "host us", "check");
    for (i = 0; i < g_nrows; i++) {
        const row *r = &g_rows[i];
        double gbps = r->bytes / (r->med_ms * 1e6);
        char bw[16] = "-", pct[16] = "-", host[16] = "-";
        if (r->has_bw) {
            snprintf(bw, sizeof bw, "%.1f", gbps);
            snprintf(pct, sizeof pct, "%.1f%%", 100.0 * gbps / g_copy_gbps);
        }
        if (r->host_us >= 0) snprintf(host, sizeof host, "%.2f", r->host_us);
        printf("%-18s %-28s %-5s %-20s %10.1f %10.4f %10.4f %10.1f %8s %7s %9s %5s\n", r->name, r->op, r->dtype,
               r->shape, r->bytes / 1e6, r->med_ms, r->min_ms, r->med_ms * 1e3, bw, pct, host, r->check);
    }
}

/* ---- running a workload ----------------------------------------------------------- */

static void alloc_buf(gpuact_context *ctx, size_t bytes, gpuact_buffer *b, const char *what, const workload *w) {
    gpuact_result r = gpuact_buffer_alloc(ctx, bytes, b);
    if (r != GPUACT_SUCCESS) {
        fprintf(stderr, "gpuact-bench: %s: allocating %s (%.2f GB) failed: %s\n%s\n"
                        "(this workload needs about %.2f GB of device memory; try --quick or --only)\n",
                w->name, what, (double)bytes / 1e9, gpuact_result_string(r), gpuact_last_error(),
                wl_memory(w) / 1e9);
        exit(1);
    }
}

static void run_workload(gpuact_context *ctx, workload *w) {
    run_state s;
    size_t n = wl_n(w), es = gpuact_dtype_size(w->dt);
    double t0 = now_s();
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.w = w;
    g_normal = (GPUACT_TRANSCENDENTAL_KINDS >> w->act) & 1u;
    s.k0 = new_key();
    s.k1 = new_key();
    s.kbias = new_key();
    alloc_buf(ctx, n * gpuact_dtype_size(in_dtype(w)), &s.in0, "in0", w);
    fill(ctx, s.in0, in_dtype(w), n, s.k0);
    alloc_buf(ctx, n * gpuact_dtype_size(out_dtype(w)), &s.out, "out", w);
    switch (w->kind) {
    case K_FWD:
    case K_SMALL:
    case K_EPI:
        if (w->mask || w->code_bits) alloc_buf(ctx, mask_bytes(w), &s.mask, w->mask ? "mask" : "codes", w);
        if (w->kind == K_EPI) {
            alloc_buf(ctx, w->cols * es, &s.bias, "bias", w);
            fill(ctx, s.bias, w->dt, w->cols, s.kbias);
        }
        break;
    case K_BWD:
    case K_EPI_BWD:
        if (w->mask || w->code_bits) {
            alloc_buf(ctx, mask_bytes(w), &s.mask, w->mask ? "mask" : "codes", w);
            fill(ctx, s.mask, DATA_MASK, mask_bytes(w), s.k1);
        } else {
            alloc_buf(ctx, n * es, &s.in1, "in1", w);
            fill(ctx, s.in1, w->dt, n, s.k1);
        }
        if (w->kind == K_EPI_BWD) alloc_buf(ctx, w->cols * 4, &s.dbias, "dbias", w);
        break;
    case K_GLU:
        alloc_buf(ctx, n * es, &s.in1, "in1", w);
        fill(ctx, s.in1, w->dt, n, s.k1);
        alloc_buf(ctx, w->cols * es, &s.bias, "bias", w);
        fill(ctx, s.bias, w->dt, w->cols, s.kbias);
        alloc_buf(ctx, w->cols * es, &s.bias2, "bias2", w);
        fill(ctx, s.bias2, w->dt, w->cols, s.kbias ^ 1);
        break;
    }
    poison_outputs(&s);
    CHECK(gpuact_synchronize(ctx, NULL));

    time_device(ctx, op_thunk, &s, &w->med_ms, &w->min_ms);
    if (w->kind == K_SMALL) w->host_us = time_host(ctx, &s, opt.quick ? 1000 : 10000, opt.quick ? 3 : 5);
    CHECK(gpuact_synchronize(ctx, NULL));
    w->check_ok = w->nocheck ? -1 : verify(&s);
    if (!w->check_ok) g_failed_checks++;
    w->ran = 1;
    w->bytes = wl_bytes(w);

    gpuact_buffer_free(ctx, s.in0);
    gpuact_buffer_free(ctx, s.in1);
    gpuact_buffer_free(ctx, s.out);
    gpuact_buffer_free(ctx, s.mask);
    gpuact_buffer_free(ctx, s.bias);
    gpuact_buffer_free(ctx, s.bias2);
    gpuact_buffer_free(ctx, s.dbias);
    fprintf(stderr, "  %-18s median %.4f ms  min %.4f ms  %.1f GB/s  check %s  (%.1f s with set-up)\n", w->name,
            w->med_ms, w->min_ms, w->bytes / (w->med_ms * 1e6),
            w->check_ok < 0 ? "-" : w->check_ok ? "ok" : "FAIL", now_s() - t0);
}

/* D2D copy of `bytes` (moving 2 * bytes), timed like the workloads; the
   destination is checked against the source on a slice. */
static void run_copy(gpuact_context *ctx, const char *name, size_t bytes, int bandwidth_row) {
    copy_state c;
    uint64_t key = new_key();
    double med, mn;
    size_t words = bytes / 4, k = words < 4096 ? words : 4096, i;
    uint32_t *got;
    int ok = 1;
    char shape[48];
    row *r;
    c.ctx = ctx;
    c.bytes = bytes;
    if (gpuact_buffer_alloc(ctx, bytes, &c.src) != GPUACT_SUCCESS ||
        gpuact_buffer_alloc(ctx, bytes, &c.dst) != GPUACT_SUCCESS) {
        fprintf(stderr, "gpuact-bench: allocating 2 x %.2f GB for the copy failed: %s\n", (double)bytes / 1e9,
                gpuact_last_error());
        exit(1);
    }
    fill(ctx, c.src, GPUACT_F32, words, key);
    poison(ctx, c.dst, (words - k) * 4, k * 4);
    time_device(ctx, copy_thunk, &c, &med, &mn);
    CHECK(gpuact_synchronize(ctx, NULL));
    got = (uint32_t *)readback(ctx, c.dst, (words - k) * 4, k * 4);
    for (i = 0; i < k; i++) ok &= got[i] == gen_bits(GPUACT_F32, key, words - k + i);
    free(got);
    if (!ok) {
        fprintf(stderr, "  MISMATCH %s: the copy's destination differs from its source\n", name);
        g_failed_checks++;
    }
    gpuact_buffer_free(ctx, c.src);
    gpuact_buffer_free(ctx, c.dst);
    snprintf(shape, sizeof shape, "%zu B", bytes);
    r = add_row(name, "device-to-device copy", "-", shape, 2.0 * (double)bytes, med, mn, bytes >= ((size_t)1 << 20),
                ok ? "ok" : "FAIL");
    if (bandwidth_row) g_copy_gbps = r->bytes / (med * 1e6);
    if (opt.csv) print_csv_row(r);
    fprintf(stderr, "  %-18s median %.4f ms  min %.4f ms  %.1f GB/s\n", name, med, mn, r->bytes / (med * 1e6));
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpuact-bench [--backend cuda|hip|opencl] [--device N] [--csv] [--reps N] [--warmup N]\n"
            "                    [--quick] [--large] [--only NAME[,NAME...]] [--list] [--matrix]\n"
            "                    [--shape ROWSxCOLS] [--n N]\n"
            "  --backend   backend to use (default: AUTO; GPUACT_BACKEND overrides AUTO)\n"
            "  --csv       print the results as CSV (progress and header go to stderr)\n"
            "  --reps N    timed repetitions per workload (default 30); the median is reported\n"
            "  --warmup N  untimed calls before timing (default 5)\n"
            "  --quick     small sizes (a smoke test on a CPU OpenCL device); reps 10, warm-up 2 unless given\n"
            "  --large     add relu forward f32 over 2^31 + 17 elements (17.2 GB of device memory)\n"
            "  --only      run only the named workloads (see --list); the copy is always measured\n"
            "  --shape RxC rows and columns of the epilogue and gated workloads (default 65536x8192, 32768x8192\n"
            "              gated, 1024x8192 epi-small; with --quick 512 or 64 rows); with\n"
            "              --quick too, RxC stays\n"
            "  --n N       elements of the elementwise workloads (default 4096 x 393216; with --quick 2^20);\n"
            "              with --quick too, N stays\n"
            "  --matrix    every cell instead: relu, leaky, clipped, hardtanh, gelu, gelu_tanh, silu, sqrelu x\n"
            "              f32, f16, bf16 x forward (with and without the mask), backward (from x, from the\n"
            "              mask), epilogue forward (with and without the mask; the selection kinds' f32 one\n"
            "              also writing y in bf16: *-y16-*), backward + dbias (from the mask, from y or x; from\n"
            "              the mask also with dy in bf16 into an f32 dx: epibwd-mask-y16-*) and\n"
            "              the gated forward; GELU, GELU tanh and SiLU also forward writing 1-4-bit codes\n"
            "              and backward from them (fwd-codes2-*, bwd-codes2-*); outputs the CPU check below\n"
            "              does not model are timed and marked '-' (the conformance suite checks them)\n");
}

/* The comma-separated list's item at *p: its length; *p moves past it and its comma. */
static size_t list_next(const char **p) {
    const char *end = strchr(*p, ',');
    size_t k = end ? (size_t)(end - *p) : strlen(*p);
    *p += k + (end != NULL);
    return k;
}
static int item_is(const char *item, size_t k, const char *name) { return strlen(name) == k && !strncmp(item, name, k); }
static int name_listed(const char *list, const char *name) {
    const char *p = list;
    while (*p) {
        const char *item = p;
        if (item_is(item, list_next(&p), name)) return 1;
    }
    return 0;
}

static int parse_int(const char *s, const char *what) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0 || v > 1000000) {
        fprintf(stderr, "gpuact-bench: %s expects a number, got \"%s\"\n", what, s);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv) {
    /* seed shape 4096 x 393216 (PERFORMANCE.md); --quick's elementwise size still spans more than
       65535 work-items and two rows of the long-row view (gpuact__dispatch_rows), as big does */
    const size_t big = (size_t)4096 * 393216, quick_n = (size_t)1 << 20;
    workload wl[] = {
        {"relu-f32", "relu forward", K_FWD, GPUACT_F32, GPUACT_RELU, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0},
        {"relu-bf16", "relu forward", K_FWD, GPUACT_BF16, GPUACT_RELU, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0},
        {"relu-f16", "relu forward", K_FWD, GPUACT_F16, GPUACT_RELU, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0},
        {"relu-mask-f32", "relu forward + mask", K_FWD, GPUACT_F32, GPUACT_RELU, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0},
        {"relu-bwd-f32", "relu backward from x", K_BWD, GPUACT_F32, GPUACT_RELU, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0},
        {"relu-bwd-mask-f32", "relu backward from mask", K_BWD, GPUACT_F32, GPUACT_RELU, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0,
         0, 0, "", 0, 0},
        {"leaky-f32", "leaky forward (0.01)", K_FWD, GPUACT_F32, GPUACT_LEAKY_RELU, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
         "", 0, 0},
        {"clipped-f32", "clipped forward (6)", K_FWD, GPUACT_F32, GPUACT_CLIPPED_RELU, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
         0, "", 0, 0},
        {"epi-f32", "epilogue bias+relu", K_EPI, GPUACT_F32, GPUACT_RELU, 0, 65536, 8192, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0},
        {"epi-mask-f32", "epilogue bias+relu + mask", K_EPI, GPUACT_F32, GPUACT_RELU, 1, 65536, 8192, 0, 0, 0, 0, 0, 0,
         0, 0, 0, "", 0, 0},
        {"epi-small-f32", "epilogue bias+relu", K_EPI, GPUACT_F32, GPUACT_RELU, 0, 1024, 8192, 0, 0, 0, 0, 0, 0, 0, 0, 0,
         "", 0, 0},
        {"epi-bwd-mask-f32", "epilogue bwd+dbias from mask", K_EPI_BWD, GPUACT_F32, GPUACT_RELU, 1, 65536, 8192, 0, 0, 0,
         0, 0, 0, 0, 0, 0, "", 0, 0},
        {"epi-bwd-y-f32", "epilogue bwd+dbias from y", K_EPI_BWD, GPUACT_F32, GPUACT_RELU, 0, 65536, 8192, 0, 0, 0, 0, 0,
         0, 0, 0, 0, "", 0, 0},
        {"relu-1024-f32", "relu forward (launch bound)", K_SMALL, GPUACT_F32, GPUACT_RELU, 0, 1, 1024, 0, 0, 0, 0, 0, 0,
         0, 0, 0, "", 0, 0},
        {"relu-large-f32", "relu forward, > 2^31 elems", K_FWD, GPUACT_F32, GPUACT_RELU, 0, 1,
         (size_t)((((uint64_t)1 << 31) + 17) & (uint64_t)SIZE_MAX), 1, 0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0},
    };
    int nwl = (int)(sizeof wl / sizeof wl[0]);
    workload *all = wl;
    gpuact_context_desc desc;
    gpuact_context *ctx = NULL;
    double peak = 0, max_bytes = 0, t_start = now_s();
    size_t copy_bytes;
    long ncpu;
    int i, any = 0, want_small = 0;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv")) opt.csv = 1;
        else if (!strcmp(a, "--quick")) opt.quick = 1;
        else if (!strcmp(a, "--large")) opt.large = 1;
        else if (!strcmp(a, "--matrix")) opt.matrix = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--list")) opt.list = 1;
        else if (v && !strcmp(a, "--backend")) {
            if (!strcmp(v, "cuda")) opt.backend = GPUACT_BACKEND_CUDA;
            else if (!strcmp(v, "hip")) opt.backend = GPUACT_BACKEND_HIP;
            else if (!strcmp(v, "opencl")) opt.backend = GPUACT_BACKEND_OPENCL;
            else if (!strcmp(v, "auto")) opt.backend = GPUACT_BACKEND_AUTO;
            else { fprintf(stderr, "gpuact-bench: --backend expects cuda, hip or opencl\n"); return 2; }
            i++;
        } else if (v && !strcmp(a, "--device")) { opt.device = parse_int(v, a); i++; }
        else if (v && !strcmp(a, "--reps")) { opt.reps = parse_int(v, a); opt.reps_set = 1; i++; }
        else if (v && !strcmp(a, "--warmup")) { opt.warmup = parse_int(v, a); opt.warmup_set = 1; i++; }
        else if (v && !strcmp(a, "--only")) { opt.only = v; i++; }
        else if (v && !strcmp(a, "--shape")) {
            char *e1 = NULL, *e2 = NULL;
            const unsigned long long r_ = strtoull(v, &e1, 10), c_ = *e1 == 'x' ? strtoull(e1 + 1, &e2, 10) : 0;
            if (!r_ || !c_ || !e2 || *e2 || r_ > ((size_t)1 << 31) || c_ > ((size_t)1 << 31)) {
                fprintf(stderr, "gpuact-bench: --shape expects ROWSxCOLS, both from 1 to 2^31 (got %s)\n", v);
                return 2;
            }
            opt.shape_rows = (size_t)r_;
            opt.shape_cols = (size_t)c_;
            i++;
        } else if (v && !strcmp(a, "--n")) {
            char *e = NULL;
            const unsigned long long n_ = strtoull(v, &e, 10);
            if (!n_ || !e || *e || *v == '-' || n_ > ((size_t)1 << 34)) {
                fprintf(stderr, "gpuact-bench: --n expects a count of elements from 1 to 2^34 (got %s)\n", v);
                return 2;
            }
            opt.n = (size_t)n_;
            i++;
        } else { fprintf(stderr, "gpuact-bench: unknown or incomplete option %s\n", a); usage(stderr); return 2; }
    }
    if (opt.quick && !opt.reps_set) opt.reps = 10;
    if (opt.quick && !opt.warmup_set) opt.warmup = 2;
    if (opt.reps < 1) { fprintf(stderr, "gpuact-bench: --reps must be >= 1\n"); return 2; }

    if (opt.matrix) { /* every cell: kinds x dtypes x modes */
        static const char *const dn[3] = {"f32", "f16", "bf16"};
        static char names[MATRIX_CELLS][32];
        int k, d, m, n = 0;
        all = (workload *)xmalloc(MATRIX_CELLS * sizeof *all);
        for (d = 0; d < 3; d++)
            for (k = 0; k < GPUACT_KIND_COUNT; k++)
                for (m = 0; m < (int)(sizeof modes / sizeof modes[0]); m++) {
                    const kind_info kr = kind_row(k);
                    workload *w = &all[n];
                    /* the CPU check models the ReLU family's three first kinds and the f32 and bf16
                       backward from codes (the conformance suite checks all) */
                    const int checked = (k <= GPUACT_CLIPPED_RELU && (!modes[m].y16 || modes[m].kind == K_EPI_BWD) &&
                                         ((modes[m].kind == K_FWD && (k == GPUACT_RELU || d == GPUACT_F32)) ||
                                          (modes[m].kind == K_BWD && (k == GPUACT_RELU ||
                                                                      (modes[m].mask && k == GPUACT_CLIPPED_RELU))) ||
                                          (modes[m].kind == K_EPI && k == GPUACT_RELU && d == GPUACT_F32) ||
                                          (modes[m].kind == K_EPI_BWD && k == GPUACT_RELU && d == GPUACT_F32))) ||
                                        (modes[m].bits && modes[m].kind == K_BWD && d != GPUACT_F16);
                    if (modes[m].kind == K_EPI_BWD && !modes[m].mask && kr.select && !kr.from_y)
                        continue; /* the bounded kinds' epilogue backward needs the mask */
                    if (modes[m].mask && !kr.select)
                        continue; /* the smooth kinds have no mask; their backward reads x */
                    if (modes[m].bits && !((GPUACT_CODES_KINDS >> k) & 1u))
                        continue; /* few-bit codes: the kinds with a table (kernels/fewbit.h) */
                    if (modes[m].y16 && (d != GPUACT_F32 || !kr.select))
                        continue; /* mixed dtypes: the f32 epilogue writing bf16 and its backward, the selection kinds */
                    if (modes[m].kind == K_GLU && !kr.glu)
                        continue; /* the gating kinds (ReGLU, GeGLU, SwiGLU) */
                    memset(w, 0, sizeof *w);
                    snprintf(names[n], sizeof names[n], "%s-%s-%s", modes[m].tag, kr.name, dn[d]);
                    w->name = names[n];
                    w->op = modes[m].op;
                    w->kind = modes[m].kind;
                    w->dt = (gpuact_dtype)d;
                    w->act = k;
                    w->mask = modes[m].mask;
                    w->y16 = modes[m].y16;
                    w->code_bits = modes[m].bits;
                    w->rows = w->kind == K_EPI || w->kind == K_EPI_BWD ? 65536 : w->kind == K_GLU ? 32768 : 1;
                    w->cols = w->kind == K_EPI || w->kind == K_EPI_BWD || w->kind == K_GLU ? 8192 : 0;
                    w->nocheck = !checked;
                    n++;
                }
        nwl = n;
    }
    if (opt.list) { /* the workloads of this invocation: the matrix's cells with --matrix */
        for (i = 0; i < nwl; i++) printf("%-22s %s%s\n", all[i].name, all[i].op, all[i].optional ? " (--large)" : "");
        return 0;
    }
    if (opt.only) { /* every name must be one: a typo would silently drop a cell from a comparison */
        const char *p = opt.only;
        while (*p) {
            const char *item = p;
            const size_t k = list_next(&p);
            int found = 0;
            for (i = 0; i < nwl && !found; i++) found = item_is(item, k, all[i].name);
            if (!found) {
                fprintf(stderr, "gpuact-bench: --only: no workload named %.*s%s; --list%s shows them\n", (int)k, item,
                        opt.matrix ? " in the matrix" : "", opt.matrix ? " --matrix" : "");
                return 2;
            }
        }
    }

    /* sizes and the selection */
    for (i = 0; i < nwl; i++) {
        workload *w = &all[i];
        if (w->kind == K_FWD || w->kind == K_BWD) {
            if (!w->optional) w->cols = opt.n ? opt.n : opt.quick ? quick_n : big;
        } else if (opt.shape_rows && (w->kind == K_EPI || w->kind == K_EPI_BWD || w->kind == K_GLU)) {
            w->rows = opt.shape_rows;
            w->cols = opt.shape_cols;
        } else if (opt.quick && (w->kind == K_EPI || w->kind == K_EPI_BWD || w->kind == K_GLU)) {
            w->rows = w->rows >= 65536 ? 512 : 64; /* cols stay 8192 */
        }
        if (w->kind == K_FWD || w->kind == K_BWD || w->kind == K_SMALL)
            snprintf(w->shape, sizeof w->shape, "n=%zu", wl_n(w));
        else snprintf(w->shape, sizeof w->shape, "%zux%zu", w->rows, w->cols);
        if (opt.only) w->selected = name_listed(opt.only, w->name);
        else w->selected = !w->optional || opt.large;
        if (w->optional && opt.quick && w->selected) {
            fprintf(stderr, "gpuact-bench: %s ignores --quick (it exists to pass 2^31 elements)\n", w->name);
        }
        if (w->selected) {
            any = 1;
            if (wl_memory(w) > peak) peak = wl_memory(w);
            if (wl_bytes(w) > max_bytes) max_bytes = wl_bytes(w);
            if (w->kind == K_SMALL) want_small = 1;
        }
    }
    if (!any) {
        fprintf(stderr, "gpuact-bench: --only %s names no workload; --list shows them\n", opt.only);
        return 2;
    }
    /* The copy moves as many bytes as the largest selected workload. */
    copy_bytes = (size_t)(max_bytes / 2);
    copy_bytes = (copy_bytes + 255) / 256 * 256;
    /* never less than several times a large L2 (60 MB on the H200) */
    if (copy_bytes < (opt.quick ? (size_t)8 << 20 : (size_t)1 << 30)) copy_bytes = opt.quick ? (size_t)8 << 20 : (size_t)1 << 30;
    if (2.0 * (double)copy_bytes > peak) peak = 2.0 * (double)copy_bytes;

    ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    g_threads = ncpu < 1 ? 1 : ncpu > 32 ? 32 : (int)ncpu;
    g_run_seed = mix64((uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() ^
                       (uint64_t)(now_s() * 1e9));
    g_chunk = xmalloc(CHUNK_BYTES);

    memset(&desc, 0, sizeof desc);
    desc.backend = opt.backend;
    desc.device = opt.device;
    CHECK(gpuact_context_create(&desc, &ctx));
    fprintf(stderr, "gpuact-bench: backend %s, device \"%s\"; peak device memory needed %.2f GB; %d host threads\n",
            gpuact_backend_name(gpuact_context_backend(ctx)), gpuact_context_device_name(ctx), peak / 1e9,
            g_threads);

    run_copy(ctx, "copy", copy_bytes, 1);
    if (want_small) run_copy(ctx, "copy-4k", 4096, 0);
    for (i = 0; i < nwl; i++) {
        workload *w = &all[i];
        row *r;
        if (!w->selected) continue;
        run_workload(ctx, w);
        r = add_row(w->name, w->op,
                    w->y16 ? (w->kind == K_EPI ? "f32:bf16" : "bf16:f32") : w->dt == GPUACT_F32 ? "f32" : w->dt == GPUACT_F16 ? "f16" : "bf16", w->shape,
                    w->bytes, w->med_ms, w->min_ms, w->kind != K_SMALL,
                    w->check_ok < 0 ? "-" : w->check_ok ? "ok" : "FAIL");
        r->host_us = w->kind == K_SMALL ? w->host_us : -1;
        if (opt.csv) print_csv_row(r);
    }
    /* the copy again: the clocks did not drift if it matches the first */
    run_copy(ctx, "copy-end", copy_bytes, 0);

    print_results(gpuact_context_device_name(ctx), gpuact_backend_name(gpuact_context_backend(ctx)),
                  (double)copy_bytes);
    fprintf(stderr, "gpuact-bench: %d workload(s) in %.1f s; %s\n", g_nrows, now_s() - t_start,
            g_failed_checks ? "SOME CHECKS FAILED" : "all checks passed");
    gpuact_context_destroy(ctx);
    if (all != wl) free(all);
    free(g_chunk);
    return g_failed_checks ? 1 : 0;
}
