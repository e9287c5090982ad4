/* accuracy: gpuact's smooth activations (kernels/smooth.h, through
   tests/gpuact_smooth_ref.h) against a reference, over every f32 input or a
   sample.

     accuracy --all             every one of the 2^32 inputs (minutes on many cores)
     accuracy --sample N        about N inputs: a fixed stride through the bit
                                patterns (every exponent, both signs) plus the
                                neighbourhoods of the roots and thresholds
     accuracy --range LO HI     every float in [LO, HI] (development)
     accuracy ... --only NAME   one function (gelu_erf, gelu_erf_d, ...)
     accuracy ... --threads T   worker threads (default: every core)
     accuracy ... --16          also the gpuact_*_16 variants: every f16 and
                                every bf16 input, rounded to that format,
                                against the correctly rounded 16-bit value

   Exit status: 1 when a forward function is more than 1 ulp off anywhere,
   a derivative more than 2 ulps, a special value differs from the table,
   or (--16) a 16-bit variant misses the correctly rounded 16-bit value at
   more inputs than documented; 0 otherwise.

   THE REFERENCE. Each function is evaluated in double from glibc's exp,
   erfc (and the long double expl, erfcl where needed), in forms without
   cancellation (x / (1 + e^-z) rather than 1 + tanh, e^-|z| split by
   sign), so its relative error is about 2^-45 or better (the worst: erfc
   at 10 through its argument's rounding, 2 z^2 2^-53). (float)ref is then
   the correctly rounded value unless the double lies within 2^-36 (relative)
   of a midpoint between two floats: those inputs, and every input of a
   derivative near its root (where the double's terms cancel), are
   recomputed in long double (64-bit significand, error about 2^-60). A
   long double result within 2^-52 of a midpoint is a "near tie": both
   neighbours count as correctly rounded (the count is reported; it is 0
   or nearly so). Inputs below 2^-100 in magnitude, whose value is
   x/2 + c x^2 (or 1/2 + c x), use that expansion with the exact direction
   of the tiny term, so ties such as x/2 of an odd subnormal are resolved
   exactly.

   ULP. The error of a result y against the reference r is |y - r| / ulp(r),
   ulp(r) = 2^(max(e, -126) - 23) with 2^e <= |r| < 2^(e+1) (2^-149 for
   r = 0): subnormal-aware, in units of the f32 spacing at the true value. */
#define _POSIX_C_SOURCE 200809L
#include "gpuact_smooth_ref.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- references ------------------------------------------------------------- */

static const double C1_D = 1.5957691216057307117597842397375; /* 2 sqrt(2/pi) */
static const long double C1_L = 1.5957691216057307117597842397375L;
static const double C0_D = 0.39894228040143267793994605993438; /* 1/sqrt(2 pi) */
static const long double C0_L = 0.39894228040143267793994605993438L;
static const double KAPPA_D = 0.044715;
static const long double KAPPA_L = 0.044715L;

static double ref_silu(double d) { return d / (1.0 + exp(-d)); }
static long double refl_silu(long double d) { return d / (1.0L + expl(-d)); }

static double ref_silu_d(double d) {
    const double e = exp(-fabs(d)), D = 1.0 + e;
    const double s = d >= 0 ? 1.0 / D : e / D, sc = d >= 0 ? e / D : 1.0 / D;
    return s * (1.0 + d * sc);
}
static long double refl_silu_d(long double d) {
    const long double e = expl(-fabsl(d)), D = 1.0L + e;
    const long double s = d >= 0 ? 1.0L / D : e / D, sc = d >= 0 ? e / D : 1.0L / D;
    return s * (1.0L + d * sc);
}

static double ref_gelu_erf(double d) { return 0.5 * d * erfc(-d * 0.70710678118654752440); }
static long double refl_gelu_erf(long double d) { return 0.5L * d * erfcl(-d * 0.70710678118654752440L); }

static double ref_gelu_erf_d(double d) {
    return 0.5 * erfc(-d * 0.70710678118654752440) + d * C0_D * exp(-0.5 * d * d);
}
static long double refl_gelu_erf_d(long double d) {
    return 0.5L * erfcl(-d * 0.70710678118654752440L) + d * C0_L * expl(-0.5L * d * d);
}

static double ref_gelu_tanh(double d) { return d / (1.0 + exp(-C1_D * (d + KAPPA_D * d * d * d))); }
static long double refl_gelu_tanh(long double d) { return d / (1.0L + expl(-C1_L * (d + KAPPA_L * d * d * d))); }

/* sigma(z) + x sigma(z) sigma(-z) z', z = c1 (x + kappa x^3) */
static double ref_gelu_tanh_d(double d) {
    const double z = C1_D * (d + KAPPA_D * d * d * d), zp = C1_D * (1.0 + 3.0 * KAPPA_D * d * d);
    const double e = exp(-fabs(z)), D = 1.0 + e;
    const double s = z >= 0 ? 1.0 / D : e / D;
    if (e == 0.0) return s; /* |x| > 1e6 or so: the second term is 0 to far below the result's ulp */
    return s + d * (e / (D * D)) * zp;
}
static long double refl_gelu_tanh_d(long double d) {
    const long double z = C1_L * (d + KAPPA_L * d * d * d), zp = C1_L * (1.0L + 3.0L * KAPPA_L * d * d);
    const long double e = expl(-fabsl(z)), D = 1.0L + e;
    const long double s = z >= 0 ? 1.0L / D : e / D;
    if (e == 0.0L) return s;
    return s + d * (e / (D * D)) * zp;
}

/* ---- the functions -------------------------------------------------------------- */

typedef struct {
    const char *name;
    float (*f)(float);
    float (*f16)(float); /* the gpuact_*_16 variant (NULL: none checked with this entry) */
    double (*ref)(double);
    long double (*refl)(long double);
    /* value near 0: hi(x) + lo(x), lo tiny: c2 is lo/x^2 (forward: x/2 + c2 x^2)
       or lo/x (derivative: 1/2 + c1 x) */
    double tiny_c;
    int deriv;
    /* derivatives: long double reference on [root_lo, root_hi] */
    double root_lo, root_hi;
    /* the bound checked: max ulp error allowed, and (derivatives) a wider
       bound within [near_lo, near_hi] of the root */
    double bound, near_lo, near_hi, near_bound;
    /* f16 (the gpuact_*_16 variant): the documented number of f16 and bf16
       inputs not correctly rounded (docs/NUMERICS_SMOOTH.md); more is a failure */
    long max16[2];
} fn_t;

static fn_t fns[] = {
    {"gelu_erf", gpuact_gelu_erf, gpuact_gelu_erf_16, ref_gelu_erf, refl_gelu_erf, 0.39894228040143267794, 0, 0, 0, 1.0, 0, 0, 0,
     {2, 0}},
    {"gelu_erf_d", gpuact_gelu_erf_d, gpuact_gelu_erf_d_16, ref_gelu_erf_d, refl_gelu_erf_d, 0.79788456080286535588, 1, -2.5, -0.25, 2.0,
     0, 0, 0, {4, 0}},
    {"gelu_tanh", gpuact_gelu_tanh, gpuact_gelu_tanh_16, ref_gelu_tanh, refl_gelu_tanh, 0.39894228040143267794, 0, 0, 0, 1.0, 0, 0, 0,
     {3, 0}},
    {"gelu_tanh_d", gpuact_gelu_tanh_d, gpuact_gelu_tanh_d_16, ref_gelu_tanh_d, refl_gelu_tanh_d, 0.79788456080286535588, 1, -2.5, -0.25,
     2.0, 0, 0, 0, {4, 1}},
    {"silu", gpuact_silu, gpuact_silu_16, ref_silu, refl_silu, 0.25, 0, 0, 0, 1.0, 0, 0, 0, {2, 0}},
    {"silu_d", gpuact_silu_d, gpuact_silu_d_16, ref_silu_d, refl_silu_d, 0.5, 1, -2.5, -0.25, 2.0, 0, 0, 0, {9, 1}},
    {"gelu_erf_fast", gpuact_gelu_erf_fast, NULL, ref_gelu_erf, refl_gelu_erf, 0.39894228040143267794, 0, 0, 0, 2.0, 0, 0, 0, {0, 0}},
    {"gelu_erf_d_fast", gpuact_gelu_erf_d_fast, NULL, ref_gelu_erf_d, refl_gelu_erf_d, 0.79788456080286535588, 1, -2.5, -0.25, 2.0, 0, 0, 0, {0, 0}},
    {"gelu_tanh_fast", gpuact_gelu_tanh_fast, NULL, ref_gelu_tanh, refl_gelu_tanh, 0.39894228040143267794, 0, 0, 0, 2.0, 0, 0, 0, {0, 0}},
    {"gelu_tanh_d_fast", gpuact_gelu_tanh_d_fast, NULL, ref_gelu_tanh_d, refl_gelu_tanh_d, 0.79788456080286535588, 1, -2.5, -0.25, 2.0, 0, 0, 0, {0, 0}},
    {"silu_fast", gpuact_silu_fast, NULL, ref_silu, refl_silu, 0.25, 0, 0, 0, 2.0, 0, 0, 0, {0, 0}},
    {"silu_d_fast", gpuact_silu_d_fast, NULL, ref_silu_d, refl_silu_d, 0.5, 1, -2.5, -0.25, 2.0, 0, 0, 0, {0, 0}},
};
#define NFN ((int)(sizeof fns / sizeof fns[0]))

static float f32_of(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t u32_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ulp of the f32 format at value r (subnormal-aware) */
static double ulp_at(double r) {
    int e;
    if (r == 0.0) return ldexp(1.0, -149);
    e = ilogb(r);
    if (e < -126) e = -126;
    return ldexp(1.0, e - 23);
}

/* Distance of r from the nearest midpoint between floats, relative to |r|
   (0 when r is a midpoint). */
static double tie_distance(double r) {
    const float f = (float)r;
    double other, mid;
    if (r == (double)f || isinf(f)) return 1.0;
    other = (double)nextafterf(f, r > (double)f ? INFINITY : -INFINITY);
    mid = 0.5 * ((double)f + other);
    return fabs(r - mid) / fabs(r);
}

typedef struct {
    double ref;   /* the reference value (rounded to double) */
    float cr;     /* the correctly rounded f32 */
    int near_tie; /* both neighbours of a midpoint accepted */
    float cr2;    /* the other neighbour when near_tie */
} refv_t;

/* The reference for function fn at x (finite, not NaN). */
static refv_t reference(const fn_t *fn, float x) {
    refv_t v;
    const double d = x;
    v.near_tie = 0;
    v.cr2 = 0.0f;
    if (fabs(d) < 0x1p-100) {
        /* hi + lo with lo of known sign, far below hi's ulp */
        const double hi = fn->deriv ? 0.5 : 0.5 * d, lo = fn->deriv ? fn->tiny_c * d : fn->tiny_c * d * d;
        float f = (float)hi;
        if ((double)f != hi && tie_distance(hi) == 0.0) {
            /* hi is a midpoint between two floats: the sign of lo decides */
            const float below = (double)f < hi ? f : nextafterf(f, -INFINITY);
            const float above = (double)f > hi ? f : nextafterf(f, INFINITY);
            f = lo > 0 ? above : below;
        }
        v.ref = hi + lo;
        v.cr = f;
        return v;
    }
    v.ref = fn->ref(d);
    /* Every function here is negative (or 0) at large negative x: a result
       that underflowed to +0 in the formula is a negative value below
       the smallest subnormal, -0 once rounded. */
    if (v.ref == 0.0 && d < 0) v.ref = -0.0;
    if ((fn->deriv && d >= fn->root_lo && d <= fn->root_hi) || tie_distance(v.ref) < 0x1p-36) {
        const long double rl = fn->refl((long double)d);
        const double rd = (double)rl;
        v.ref = rd;
        v.cr = (float)rl; /* one rounding from long double */
        if (tie_distance(rd) < 0x1p-52) {
            const float f = (float)rd;
            v.near_tie = 1;
            v.cr = f;
            v.cr2 = nextafterf(f, rd > (double)f ? INFINITY : -INFINITY);
        }
        return v;
    }
    v.cr = (float)v.ref;
    return v;
}

/* ---- statistics ------------------------------------------------------------------ */

typedef struct {
    double max_ulp;
    float max_x;
    unsigned long long count, not_cr, near_ties, over_bound;
    double max_ulp_far; /* derivatives: outside [near_lo, near_hi] */
    float max_x_far;
    float first_over;
    int has_over;
} stat_t;

static void stat_merge(stat_t *a, const stat_t *b) {
    if (b->max_ulp > a->max_ulp || (b->max_ulp == a->max_ulp && b->count && !a->count)) {
        a->max_ulp = b->max_ulp;
        a->max_x = b->max_x;
    }
    if (b->max_ulp_far > a->max_ulp_far) {
        a->max_ulp_far = b->max_ulp_far;
        a->max_x_far = b->max_x_far;
    }
    if (b->has_over && !a->has_over) {
        a->has_over = 1;
        a->first_over = b->first_over;
    }
    a->count += b->count;
    a->not_cr += b->not_cr;
    a->near_ties += b->near_ties;
    a->over_bound += b->over_bound;
}

/* One input through one function. */
static void check_one(const fn_t *fn, stat_t *st, float x) {
    const float y = fn->f(x);
    refv_t v;
    double err, bound;
    int near;
    if (isnan(x) || isinf(x)) return; /* the special-value table checks these */
    v = reference(fn, x);
    st->count++;
    if (isnan(y)) {
        err = INFINITY;
    } else if (isinf(v.ref) || isinf(y)) {
        err = (v.ref == (double)y) ? 0.0 : INFINITY;
    } else {
        err = fabs((double)y - v.ref) / ulp_at(v.ref);
    }
    if (v.near_tie) st->near_ties++;
    if (!(u32_of(y) == u32_of(v.cr) || (v.near_tie && u32_of(y) == u32_of(v.cr2))) &&
        !(y == 0.0f && v.cr == 0.0f && u32_of(y) == u32_of(v.cr))) {
        /* zero results: the sign must match too (compared as bits above) */
        st->not_cr++;
    }
    near = fn->deriv && fn->near_hi > fn->near_lo && x >= fn->near_lo && x <= fn->near_hi;
    bound = near ? fn->near_bound : fn->bound;
    if (!(err <= bound)) {
        st->over_bound++;
        if (!st->has_over) {
            st->has_over = 1;
            st->first_over = x;
        }
    }
    if (err > st->max_ulp || st->count == 1) {
        if (err > st->max_ulp) {
            st->max_ulp = err;
            st->max_x = x;
        }
    }
    if (!near && err > st->max_ulp_far) {
        st->max_ulp_far = err;
        st->max_x_far = x;
    }
}

/* ---- the input sets and the workers ------------------------------------------------------ */

enum { MODE_ALL, MODE_SAMPLE, MODE_RANGE };
static int mode = MODE_SAMPLE;
static uint64_t sample_n = 1u << 22, stride = 1;
static float range_lo, range_hi;
static int only = -1;

/* hot spots for the sample: neighbourhoods of roots and thresholds */
static const float hot[] = {0.0f,         1.278464542f, 0.7517915f,  0.7530f, 3.5f,  14.5f,  87.0f, 112.0f,
                            16.0f,        10.0f,        10.5f,       13.2f,   5.6f,  2.0f,   1.0f,  0.5f,
                            0.3465736f,   0x1p-126f,    0x1p-100f,   17.0f,   30.0f, 88.72f, 1.75f};
#define NHOT ((int)(sizeof hot / sizeof hot[0]))
#define HOT_HALF 2048

static uint64_t total_inputs(void) {
    if (mode == MODE_ALL) return 1ull << 32;
    if (mode == MODE_SAMPLE) return ((1ull << 32) + stride - 1) / stride + (uint64_t)NHOT * 2 * 2 * HOT_HALF;
    return 0;
}

/* the i-th input of the set */
static float input_at(uint64_t i) {
    if (mode == MODE_ALL) return f32_of((uint32_t)i);
    {
        const uint64_t n_stride = ((1ull << 32) + stride - 1) / stride;
        uint64_t k;
        int h, sgn;
        uint32_t u;
        if (i < n_stride) return f32_of((uint32_t)(i * stride));
        k = i - n_stride;
        h = (int)(k / (4 * HOT_HALF));
        k %= 4 * HOT_HALF;
        sgn = (int)(k / (2 * HOT_HALF));
        k %= 2 * HOT_HALF;
        u = u32_of(hot[h]) + (uint32_t)k - HOT_HALF;
        if (hot[h] == 0.0f) u = (uint32_t)k; /* the smallest subnormals */
        return sgn ? -f32_of(u) : f32_of(u);
    }
}

static stat_t stats[64][NFN];
static uint64_t next_chunk, n_chunks;
static uint64_t range_first, range_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define CHUNK (1u << 16)

static void *worker(void *arg) {
    stat_t *st = stats[(intptr_t)arg];
    for (;;) {
        uint64_t c, i, end;
        pthread_mutex_lock(&lock);
        c = next_chunk++;
        pthread_mutex_unlock(&lock);
        if (c >= n_chunks) break;
        i = c * CHUNK;
        end = i + CHUNK;
        if (mode == MODE_RANGE) {
            if (end > range_count) end = range_count;
            for (; i < end; i++) {
                /* walk the floats of [lo, hi] in order of their bits (by sign) */
                const float x = f32_of((uint32_t)(range_first + i));
                int f;
                for (f = 0; f < NFN; f++)
                    if (only < 0 || only == f) check_one(&fns[f], &st[f], x);
            }
        } else {
            const uint64_t tot = total_inputs();
            if (end > tot) end = tot;
            for (; i < end; i++) {
                const float x = input_at(i);
                int f;
                for (f = 0; f < NFN; f++)
                    if (only < 0 || only == f) check_one(&fns[f], &st[f], x);
            }
        }
    }
    return NULL;
}

/* ---- special values -------------------------------------------------------------------- */

/* Expected bits per input, per function (columns: gelu_erf, gelu_erf_d,
   gelu_tanh, gelu_tanh_d, silu, silu_d); docs/NUMERICS_SMOOTH.md has the
   table with PyTorch's values beside. Every NaN result is 0x7fffffff. The
   subnormal rows are within half an ulp of the exact value but not all
   correctly rounded: x/2 + c x^2 at an odd subnormal is a tie of x/2
   broken by the x^2 term, which gelu_erf does not carry (SiLU and tanh-GELU
   get it right at these two inputs). */
#define QNAN 0x7fffffffu
static const struct {
    uint32_t x;
    uint32_t want[NFN];
} specials[] = {
    {0x7fc00000u, {QNAN, QNAN, QNAN, QNAN, QNAN, QNAN,
                   QNAN, QNAN, QNAN, QNAN, QNAN, QNAN}},                                              /* NaN */
    {0xffc00001u, {QNAN, QNAN, QNAN, QNAN, QNAN, QNAN,
                   QNAN, QNAN, QNAN, QNAN, QNAN, QNAN}},                                              /* -NaN, payload */
    {0x7f800000u, {0x7f800000u, QNAN, 0x7f800000u, QNAN, 0x7f800000u, QNAN,
                   0x7f800000u, QNAN, 0x7f800000u, QNAN, 0x7f800000u, QNAN}},                         /* +Inf */
    {0xff800000u, {QNAN, QNAN, QNAN, QNAN, QNAN, QNAN,
                   QNAN, QNAN, QNAN, QNAN, QNAN, QNAN}},                                              /* -Inf */
    {0x00000000u, {0x00000000u, 0x3f000000u, 0x00000000u, 0x3f000000u, 0x00000000u, 0x3f000000u,
                   0x00000000u, 0x3f000000u, 0x00000000u, 0x3f000000u, 0x00000000u, 0x3f000000u}},   /* +0 */
    {0x80000000u, {0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u,
                   0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u}},   /* -0 */
    {0x00000001u, {0x00000001u, 0x3f000000u, 0x00000001u, 0x3f000000u, 0x00000001u, 0x3f000000u,
                   0x00000001u, 0x3f000000u, 0x00000000u, 0x3f000000u, 0x00000000u, 0x3f000000u}},   /* +min sub */
    {0x80000001u, {0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u,
                   0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u, 0x80000000u, 0x3f000000u}},   /* -min sub */
    {0x007fffffu, {0x003fffffu, 0x3f000000u, 0x00400000u, 0x3f000000u, 0x00400000u, 0x3f000000u,
                   0x003fffffu, 0x3f000000u, 0x00400000u, 0x3f000000u, 0x00400000u, 0x3f000000u}},   /* +max sub */
    {0x807fffffu, {0x80400000u, 0x3f000000u, 0x803fffffu, 0x3f000000u, 0x803fffffu, 0x3f000000u,
                   0x80400000u, 0x3f000000u, 0x80400000u, 0x3f000000u, 0x80400000u, 0x3f000000u}},   /* -max sub */
    {0x7f7fffffu, {0x7f7fffffu, 0x3f800000u, 0x7f7fffffu, 0x3f800000u, 0x7f7fffffu, 0x3f800000u,
                   0x7f7fffffu, 0x3f800000u, 0x7f7fffffu, 0x3f800000u, 0x7f7fffffu, 0x3f800000u}},   /* +FLT_MAX */
    {0xff7fffffu, {0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u,
                   0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u}},   /* -FLT_MAX */
};
#define NSPEC ((int)(sizeof specials / sizeof specials[0]))

static int check_specials(void) {
    int i, f, bad = 0;
    for (i = 0; i < NSPEC; i++)
        for (f = 0; f < NFN; f++) {
            const float y = fns[f].f(f32_of(specials[i].x));
            const uint32_t w = specials[i].want[f];
            const int ok = u32_of(y) == w;
            if (!ok) {
                printf("special: %s(0x%08x) = 0x%08x (%g), want 0x%08x\n", fns[f].name, specials[i].x, u32_of(y),
                       (double)y, w);
                bad++;
            }
            /* the 16-bit variant: the same bits at NaN, infinities, zeros and +-FLT_MAX (the subnormal
               rows' values are below every 16-bit format's resolution) */
            if (fns[f].f16 && (specials[i].x & 0x7f800000u) != 0 && specials[i].x != 0x80000000u) {
                const float y16 = fns[f].f16(f32_of(specials[i].x));
                if (u32_of(y16) != w) {
                    printf("special: %s_16(0x%08x) = 0x%08x (%g), want 0x%08x\n", fns[f].name, specials[i].x,
                           u32_of(y16), (double)y16, w);
                    bad++;
                }
            }
            /* at +-0: a zero of the same sign, or (derivatives) 1/2 to 2^-12, which every 16-bit format rounds
               to 1/2 */
            if (fns[f].f16 && (specials[i].x & 0x7fffffffu) == 0) {
                const float y16 = fns[f].f16(f32_of(specials[i].x));
                if ((w & 0x7fffffffu) == 0 ? u32_of(y16) != w : !(fabsf(y16 - f32_of(w)) <= 0x1p-12f)) {
                    printf("special: %s_16(0x%08x) = 0x%08x, want 0x%08x\n", fns[f].name, specials[i].x, u32_of(y16), w);
                    bad++;
                }
            }
        }
    return bad;
}

/* ---- the 16-bit variants ----------------------------------------------------------------
   For f16 and bf16 each: every one of the 65536 inputs, widened to f32, through
   gpuact_*_16, the f32 result rounded to the format (to nearest even, as the
   kernels store it) against the correctly rounded value of the reference in
   that format. NaN inputs must give a NaN. */

typedef struct {
    const char *name;
    int p, emin;     /* significand bits (with the implicit one), smallest normal exponent */
    double max;      /* largest finite */
} fmt16_t;
static const fmt16_t fmt_f16 = {"f16", 11, -14, 65504.0};
static const fmt16_t fmt_bf16 = {"bf16", 8, -126, 3.3895313892515355e38};

static float widen(const fmt16_t *fm, uint32_t h) {
    if (fm == &fmt_bf16) return f32_of(h << 16);
    {
        const uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
        if (e == 0x1f) return f32_of(sign | 0x7f800000u | (m << 13));
        if (e == 0) {
            const float v = (float)ldexp((double)m, -24);
            return sign ? -v : v;
        }
        return f32_of(sign | ((e - 15 + 127) << 23) | (m << 13));
    }
}

/* v rounded to nearest even in the format (v finite): a double holds it exactly. */
static double round16(const fmt16_t *fm, double v) {
    int e;
    double q, r;
    if (v == 0.0 || isnan(v)) return v;
    e = ilogb(v);
    if (e < fm->emin) e = fm->emin;
    q = ldexp(1.0, e - fm->p + 1);
    r = nearbyint(v / q) * q; /* v / q: exact (a power of two) */
    if (fabs(r) > fm->max) r = v > 0 ? INFINITY : -INFINITY;
    if (r == 0.0) r = v < 0 ? -0.0 : 0.0;
    return r;
}

/* The largest error of the f32 result of a _16 variant, in ulps of the
   reference (as check_one measures it), over the inputs check16 saw: what
   a test of the 16-bit kernels may allow before the final rounding. */
static double max16_f32_ulp;
static float max16_f32_x;

/* Checks one function in one format; returns the number of mismatches. */
static long check16(const fn_t *fn, const fmt16_t *fm, int verbose) {
    uint32_t h;
    long bad = 0;
    for (h = 0; h < 65536; h++) {
        const float x = widen(fm, h);
        const float y = fn->f16(x);
        double got, want;
        if (isnan(x)) {
            if (!isnan(y)) {
                bad++;
                if (verbose) printf("    %s %s(0x%04x = NaN) = %g, want NaN\n", fm->name, fn->name, h, (double)y);
            }
            continue;
        }
        got = isnan(y) ? NAN : round16(fm, (double)y);
        if (isinf(x)) {
            const float w = fn->f(x); /* the specials are the f32 functions' */
            want = isnan(w) ? NAN : round16(fm, (double)w);
        } else {
            const refv_t v = reference(fn, x);
            if (!isnan(y) && !isinf(v.ref) && !isinf(y)) {
                const double e = fabs((double)y - v.ref) / ulp_at(v.ref);
                if (e > max16_f32_ulp) {
                    max16_f32_ulp = e;
                    max16_f32_x = x;
                }
            }
            want = round16(fm, v.ref);
            if (fabs(v.ref) < 0x1p-100 * 0x1p-40 && v.ref != 0.0) want = round16(fm, (double)v.cr);
            if (fabs((double)x) < 0x1p-25 && !fn->deriv) {
                /* the documented rule of the _16 forward functions (kernels/smooth.h,
                   gpuact_sm_tiny16): x/2, the correctly rounded f32 value, rounded to
                   nearest even in the format, as the f32 path and PyTorch give it */
                want = round16(fm, 0.5 * (double)x);
            } else if (fabs((double)x) < 0x1p-100) {
                /* x/2 + c x^2: a tie of x/2 in the format is broken by the c x^2 term */
                const double hi = fn->deriv ? 0.5 : 0.5 * (double)x, lo = fn->deriv ? 0.0 : fn->tiny_c * x * x;
                want = round16(fm, hi);
                if (want != hi && round16(fm, 2.0 * hi - want) != want) {
                    /* hi is a midpoint */
                    const double other = 2.0 * hi - want;
                    if ((lo > 0) != (want > hi)) want = other;
                }
            }
        }
        if (!((isnan(got) && isnan(want)) || (got == want && signbit(got) == signbit(want)))) {
            bad++;
            if (verbose)
                printf("    %s %s(0x%04x = %.9g) = %.9g (f32 %.9g), correctly rounded %.9g\n", fm->name, fn->name, h,
                       (double)x, got, (double)y, want);
        }
    }
    return bad;
}

/* gpuact_sm_silu_x16 (the f16 SiLU forward's path in kernels/act.h) against gpuact_silu_16, rounded to
   f16: the same bits at every f16 x and at x + b (rounded to f32, as the epilogue forms it) for every
   f16 x and every 256th f16 b; NaN where silu_16 gives NaN. Returns the number of differences. */
static long check_silu_x16(int verbose) {
    uint32_t h, g;
    long bad = 0, n = 0;
    for (h = 0; h < 65536; h++) {
        for (g = 0; g < 65536; g += 256) {
            const float x = widen(&fmt_f16, h) + (g == 0 ? 0.0f : widen(&fmt_f16, g));
            const float a = gpuact_sm_canon(gpuact_sm_silu_x16(x)), b = gpuact_silu_16(x);
            const double ra = isnan(a) ? NAN : round16(&fmt_f16, (double)a), rb = isnan(b) ? NAN : round16(&fmt_f16, (double)b);
            n++;
            if (!((isnan(ra) && isnan(rb)) || (ra == rb && signbit(ra) == signbit(rb)))) {
                bad++;
                if (verbose) printf("    silu_x16(%.9g) = %.9g, silu_16 %.9g (f16)\n", (double)x, ra, rb);
            }
        }
    }
    printf("gpuact_sm_silu_x16 against gpuact_silu_16 in f16: %ld of %ld inputs differ%s\n", bad, n, bad ? "  FAIL" : "");
    return bad;
}

static int run16(int verbose) {
    int f, failed = 0;
    printf("16-bit variants: inputs not correctly rounded after rounding the f32 result (of 65536)\n");
    printf("%-14s %8s %8s %14s %16s\n", "function", "f16", "bf16", "f32 max ulp", "at x");
    for (f = 0; f < NFN; f++) {
        long a, b;
        if (!fns[f].f16) continue;
        max16_f32_ulp = 0.0;
        a = check16(&fns[f], &fmt_f16, verbose);
        b = check16(&fns[f], &fmt_bf16, verbose);
        printf("%-14s %8ld %8ld %14.3f %16.9g%s\n", fns[f].name, a, b, max16_f32_ulp, (double)max16_f32_x,
               a > fns[f].max16[0] || b > fns[f].max16[1] ? "  FAIL: more than documented" : "");
        failed |= a > fns[f].max16[0] || b > fns[f].max16[1];
    }
    failed |= check_silu_x16(verbose) != 0;
    return failed;
}

int main(int argc, char **argv) {
    int i, nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN), bad = 0, f, do16 = 0;
    pthread_t th[64];
    stat_t total[NFN];
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--all")) {
            mode = MODE_ALL;
        } else if (!strcmp(argv[i], "--sample") && i + 1 < argc) {
            mode = MODE_SAMPLE;
            sample_n = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--range") && i + 2 < argc) {
            mode = MODE_RANGE;
            range_lo = strtof(argv[i + 1], NULL);
            range_hi = strtof(argv[i + 2], NULL);
            i += 2;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            for (f = 0; f < NFN; f++)
                if (!strcmp(argv[i + 1], fns[f].name)) only = f;
            if (only < 0) {
                fprintf(stderr, "unknown function %s\n", argv[i + 1]);
                return 2;
            }
            i++;
        } else if (!strcmp(argv[i], "--16")) {
            do16 = 1;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: accuracy --all | --sample N | --range LO HI [--only NAME] [--threads T] [--16]\n");
            return 2;
        }
    }
    if (nthreads < 1) nthreads = 1;
    if (nthreads > 64) nthreads = 64;
    if (mode == MODE_SAMPLE) {
        if (sample_n < 1024) sample_n = 1024;
        stride = ((1ull << 32) / sample_n) | 1u;
        n_chunks = (total_inputs() + CHUNK - 1) / CHUNK;
    } else if (mode == MODE_ALL) {
        n_chunks = (1ull << 32) / CHUNK;
    } else {
        /* same sign only: the bit patterns of [lo, hi] are contiguous */
        const uint32_t a = u32_of(range_lo), b = u32_of(range_hi);
        if ((range_lo < 0) != (range_hi < 0) && range_lo != 0 && range_hi != 0) {
            fprintf(stderr, "--range: LO and HI must have the same sign\n");
            return 2;
        }
        range_first = a < b ? a : b;
        range_count = (uint64_t)(a < b ? b - a : a - b) + 1;
        n_chunks = (range_count + CHUNK - 1) / CHUNK;
    }
    memset(stats, 0, sizeof stats);
    for (i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    for (i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    memset(total, 0, sizeof total);
    for (i = 0; i < nthreads; i++)
        for (f = 0; f < NFN; f++) stat_merge(&total[f], &stats[i][f]);
    printf("%-12s %12s %16s %14s %12s %10s\n", "function", "max ulp", "at x", "not CR", "inputs", "near ties");
    for (f = 0; f < NFN; f++) {
        const stat_t *s = &total[f];
        if (only >= 0 && only != f) continue;
        printf("%-12s %12.4f %16.9g %14llu %12llu %10llu", fns[f].name, s->max_ulp, (double)s->max_x, s->not_cr,
               s->count, s->near_ties);
        if (s->over_bound) {
            printf("  FAIL: %llu over %.1f ulp (first at %.9g)", s->over_bound, fns[f].bound, (double)s->first_over);
            bad = 1;
        }
        printf("\n");
    }
    if (mode != MODE_RANGE) {
        const int sb = check_specials();
        printf("special values: %s\n", sb ? "FAIL" : "ok");
        bad |= sb != 0;
    }
    if (do16) bad |= run16(1);
    return bad;
}
