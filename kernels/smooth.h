/* gpuact's own transcendental math for the smooth activations: GELU (erf
   and tanh forms), SiLU and their derivatives, in f32, with the same bits
   on every backend (docs/NUMERICS_SMOOTH.md: algorithms, accuracy, special
   values).

   Valid C99, C++ (CUDA/NVRTC/HIP) and OpenCL C 1.2. The including dialect
   defines, before this file:
     GPUACT_FN            a device function's qualifiers (CUDA/HIP:
                          __device__ __forceinline__; OpenCL: empty; the CPU
                          reference: static)
     gpuact_u32           a 32-bit unsigned integer type
     GPUACT_FMA(a, b, c)  a * b + c with one rounding (fmaf, __fmaf_rn, fma)
     gpuact_as_f32(u)     the float whose bits are the gpuact_u32 u
     gpuact_as_u32(f)     the bits of the float f as a gpuact_u32
     GPUACT_CONST_DEF     the qualifiers defining a constant table (a float
                          array; 128-byte aligned where kernels read it from
                          global memory)
     GPUACT_CONST_PTR     the qualifiers of a pointer into the tables as the
                          functions read them
     GPUACT_TAB_P, _A     the table parameter in a signature (`, type name`)
                          and in a call (`, name`), or both empty
     GPUACT_TABS          the tables (gpuact_sm_dtabs) as the functions read
                          them (the parameter, the array itself, or its copy)
     GPUACT_TABS_COPY     optional: a declaration after the tables, of the
                          copy that GPUACT_TABS names (CUDA, HIP: shared
                          memory, which each kernel fills first)
   (kernels/cuda/dialect.cuh, kernels/hip/dialect.h via the CUDA one,
   kernels/opencl/dialect.cl and tests/gpuact_smooth_ref.h do.)

   Why the bits agree everywhere: the code uses only IEEE single-precision
   add, subtract, multiply and comparisons, fused multiply-adds written out
   as GPUACT_FMA, bit casts and 32-bit integer arithmetic, each of whose
   results IEEE 754 fixes. No division, no square root, no library or
   vendor math call, no double. Every fused a * b + c is a GPUACT_FMA; no
   other product may be fused into the addition that follows it, so the
   build must not contract (NVRTC --fmad=false, hiprtc -ffp-contract=off,
   OpenCL's FP_CONTRACT OFF pragma, the CPU's -ffp-contract=off): the
   error-free transformations below compute a rounding error from the
   rounded product. Subnormals are used as ordinary numbers (nothing may
   flush them). Every NaN result is returned as 0x7fffffff.

   Conventions: a "double-float" h + l is an unevaluated sum of two floats
   (about 48 bits). Fast2Sum: s = a + b, e = b - (s - a) gives a + b = s + e
   exactly when |a| >= |b| (three operations); TwoSum does without the
   ordering (six); a product is split exactly as p = a * b,
   e = fma(a, b, -p).

   The constants: `python3 tools/smooth_coefficients.py --check` derives
   every closed-form one (ln2, sqrt(2/pi), 1/sqrt(2 pi) and their splits,
   the derivatives' roots and Taylor coefficients there) and generates the
   16-bit functions' minimax polynomials, and checks each against this file
   bit for bit (`--write` puts the polynomials here; then `make embed`); the
   f32 and quick bf16 functions' polynomials are earlier fits, which it
   refits and reports. */
#ifndef GPUACT_SMOOTH_H
#define GPUACT_SMOOTH_H

/* a double-float h + l */
typedef struct {
    float h, l;
} gpuact_sm_ff;

/* e^(ah + al) = 2^k (h + l); kb = k + 127 (the biased exponent of 2^k,
   wrapping: only ever shifted into a float's exponent field). */
typedef struct {
    float h, l;
    gpuact_u32 kb;
} gpuact_sm_exp_t;

GPUACT_FN float gpuact_sm_abs(float x) { return gpuact_as_f32(gpuact_as_u32(x) & 0x7fffffffu); }

/* x with the sign bit of s or-ed in (the smooth activations have the sign
   of their input; this also makes -0 and tiny negative inputs give -0). */
GPUACT_FN float gpuact_sm_sign_of(float r, float s) {
    return gpuact_as_f32(gpuact_as_u32(r) | (gpuact_as_u32(s) & 0x80000000u));
}

/* NaN results as one bit pattern, 0x7fffffff (what NVIDIA GPUs produce
   for any NaN result), so that every backend gives the same bits: the
   payload an x86 CPU or another GPU would propagate differs. */
GPUACT_FN float gpuact_sm_canon(float r) { return r == r ? r : gpuact_as_f32(0x7fffffffu); }

/* 2^k from kb = k + 127, for -126 <= k <= 127. */
GPUACT_FN float gpuact_sm_pow2(gpuact_u32 kb) { return gpuact_as_f32(kb << 23); }

/* e^(ah + al) = 2^k (h + l) with |al| <= 2^-20 or so and |ah| <= 150.
   Relative error of h + l under 2^-31; h is in [0.7, 1.42] and |l| is at
   most half an ulp of h.

   k = round(ah / ln2) (a magic-number add rounds to an integer),
   r = ah - k ln2 exactly (ln2's high part has 21 bits and |r| < 0.5, so
   the fma result is exact) plus a low part; then
   e^r = 1 + r + r^2/2 + r^3 q(r): the two leading sums are done with
   Fast2Sum and r^2 is split exactly, so only the r^3 term (< 0.0075)
   carries the rounding of single precision. q: degree-4 minimax. */
GPUACT_FN gpuact_sm_exp_t gpuact_sm_exp(float ah, float al) {
    gpuact_sm_exp_t e;
    const float j = GPUACT_FMA(ah, 1.442695022e+00f, 12582912.0f);
    const float kf = j - 12582912.0f;
    const float rh = GPUACT_FMA(-kf, 6.931471825e-01f, ah);
    const float rl = GPUACT_FMA(-kf, -1.904654212e-09f, al);
    const float sh = rh * rh;
    const float sl = GPUACT_FMA(rh, rh, -sh);
    const float hh = 0.5f * sh;
    const float ph = rh + hh;
    const float pl = hh - (ph - rh);
    const float mh = 1.0f + ph;
    const float me = ph - (mh - 1.0f);
    float q = GPUACT_FMA(1.991329482e-04f, rh, 1.393546700e-03f);
    q = GPUACT_FMA(q, rh, 8.333275095e-03f);
    q = GPUACT_FMA(q, rh, 4.166645929e-02f);
    q = GPUACT_FMA(q, rh, 1.666666716e-01f);
    {
        const float r3 = sh * rh;
        float lo = GPUACT_FMA(0.5f, sl, pl);
        lo = GPUACT_FMA(r3, q, lo);
        lo = lo + me;
        lo = GPUACT_FMA(rl, mh + lo, lo); /* e^(r + rl) = e^r (1 + rl) */
        e.h = mh + lo;                     /* Fast2Sum: normalise */
        e.l = lo - (e.h - mh);
    }
    e.kb = gpuact_as_u32(j) - 0x4b3fff81u; /* j = 1.5 2^23 + k: its low bits are k; + 127 */
    return e;
}

/* 1/d for d in [1, 2] to a relative 2^-16 (the linear minimax, error
   1/17, and two Newton steps): enough, as its only use is N/D = q + rem r
   with q = N r and the exact residual rem = N - q D, whose error is the
   square of r's. */
GPUACT_FN float gpuact_sm_rcp12(float d) {
    float r = GPUACT_FMA(d, -4.705882370e-01f, 1.411764741e+00f);
    r = GPUACT_FMA(r, GPUACT_FMA(-d, r, 1.0f), r);
    return GPUACT_FMA(r, GPUACT_FMA(-d, r, 1.0f), r);
}

/* max(x, 0) - y e / (1 + e) with e = e^(ah + al) in (2^-126, 1]: the SiLU
   and tanh-GELU core (x * sigmoid(z) = max(x, 0) - |x| sigmoid(-|z|)).
   D = 1 + e and N = y e as double-floats, N / D by a reciprocal and one
   exact residual, and the last addition rounds once. */
GPUACT_FN float gpuact_sm_xsig(float x, float y, float ah, float al) {
    const gpuact_sm_exp_t e = gpuact_sm_exp(ah, al);
    const float sc = gpuact_sm_pow2(e.kb);
    const float eh = e.h * sc;
    const float dh = 1.0f + eh;
    const float dl = GPUACT_FMA(e.l, sc, eh - (dh - 1.0f));
    /* N = y (h + l) at the scale of h (2^k applied to the quotient: the low
       part of e itself could be subnormal) */
    const float nh = y * e.h;
    const float nl = GPUACT_FMA(y, e.l, GPUACT_FMA(y, e.h, -nh));
    const float r = gpuact_sm_rcp12(dh);
    const float q = nh * r;
    const float rem = GPUACT_FMA(-q, dl, GPUACT_FMA(-q, dh, nh) + nl);
    const float qs = q * sc;
    const float xp = x > 0.0f ? x : 0.0f;
    const float t = xp - qs;
    return t + GPUACT_FMA(-(rem * sc), r, (xp - t) - qs);
}

/* (h + l) 2^k rounded once to f32, for h >= 0 with |l| <= ulp(h)/2 and a
   result below 2^-119 (-149 <= k + 149, h + l < 2^7 or so). Where the result
   is below 2^-125, on the grid of 2^-149, h + l is rounded to a multiple
   of that grid directly: u = h 2^(149+k) and w = l 2^(149+k) are exact,
   n = round(u + w) is found from a magic-number rounding of u and two exact
   comparisons against w, and the result is n 2^-149. Above 2^-125 one fma
   does it (the low part's rounding is then at most a quarter ulp). */
GPUACT_FN float gpuact_sm_scale_tiny(float h, float l, gpuact_u32 kb) {
    const float s = gpuact_sm_pow2(kb + 85u) * 1.844674407e+19f; /* 2^(k+149) as 2^(k+85) 2^64 */
    const float u = h * s, w = l * s;
    const float m = u < 8388608.0f ? (u + 8388608.0f) - 8388608.0f : u;
    const float f = u - m;
    const float n = (f - 0.5f) > -w ? m + 1.0f : ((f + 0.5f) < -w ? m - 1.0f : m);
    const float s1 = gpuact_sm_pow2(kb + 64u);
    return u < 16777216.0f ? n * 1.401298464e-45f : GPUACT_FMA(h * s1, 5.421010862e-20f, (l * s1) * 5.421010862e-20f);
}

/* -y e^(ah + al) for results below 2^-119 (ah in [-112, -87]): 1 / (1 + e)
   is 1 to 2^-125 there. */
GPUACT_FN float gpuact_sm_tiny(float y, float ah, float al) {
    const gpuact_sm_exp_t e = gpuact_sm_exp(ah, al);
    const float p = y * e.h;
    const float pe = GPUACT_FMA(y, e.l, GPUACT_FMA(y, e.h, -p));
    const float ph = p + pe;
    return -gpuact_sm_scale_tiny(ph, pe - (ph - p), e.kb);
}

/* ---- SiLU ------------------------------------------------------------------ */

/* x * sigmoid(x) = max(x, 0) - |x| e / (1 + e), e = e^-|x|. */
GPUACT_FN float gpuact_silu(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 87.0f ? 87.0f : y; /* NaN stays NaN */
    float r = gpuact_sm_xsig(x, yc, -yc, 0.0f);
    if (x < -87.0f) r = y > 112.0f ? x * 0.0f : gpuact_sm_tiny(y, -y, 0.0f); /* -inf: NaN */
    r = x > 87.0f ? x : r;                                                  /* +inf: +inf */
    return gpuact_sm_canon(gpuact_sm_sign_of(r, x));
}

/* ---- GELU, tanh form ------------------------------------------------------------ */

/* c + k y^2 as a double-float (c = ch + cl, k = kh + kl; y^2 split exactly;
   c and k y^2 summed with TwoSum, as either may be the larger). */
GPUACT_FN gpuact_sm_ff gpuact_sm_quad(float sh, float sl, float ch, float cl, float kh, float kl) {
    gpuact_sm_ff w;
    const float p = kh * sh;
    const float pe = GPUACT_FMA(kh, sh, -p);
    const float h = ch + p;
    const float b = h - ch;
    const float e = (ch - (h - b)) + (p - b);
    w.h = h;
    w.l = GPUACT_FMA(kl, sh, GPUACT_FMA(kh, sl, pe) + cl) + e;
    return w;
}
/* y w as a double-float (y exact). */
GPUACT_FN gpuact_sm_ff gpuact_sm_mul1(float y, gpuact_sm_ff w) {
    gpuact_sm_ff z;
    z.h = y * w.h;
    z.l = GPUACT_FMA(y, w.l, GPUACT_FMA(y, w.h, -z.h));
    return z;
}

/* z = 2u = y (c1 + c3 y^2), c1 = 2 sqrt(2/pi), c3 = 0.044715 c1, as a
   double-float (the tail e^-z needs z to 2^-28 absolute near z = 100). */
GPUACT_FN gpuact_sm_ff gpuact_sm_tanh_z(float y, float sh, float sl) {
    return gpuact_sm_mul1(y, gpuact_sm_quad(sh, sl, 1.595769167e+00f, -4.534068054e-08f, 7.135481387e-02f,
                                            2.398832466e-09f));
}

/* 0.5 x (1 + tanh(u)) = x sigmoid(2u). */
GPUACT_FN float gpuact_gelu_tanh(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 16.0f ? 16.0f : y;
    const float sh = yc * yc;
    const gpuact_sm_ff z = gpuact_sm_tanh_z(yc, sh, GPUACT_FMA(yc, yc, -sh));
    const int big = z.h > 87.0f;
    float r = gpuact_sm_xsig(x, yc, big ? -87.0f : -z.h, big ? 0.0f : -z.l);
    if (x < 0.0f && big) r = z.h > 112.0f ? x * 0.0f : gpuact_sm_tiny(y, -z.h, -z.l);
    r = x > 16.0f ? x : r;
    return gpuact_sm_canon(gpuact_sm_sign_of(r, x));
}

/* ---- GELU, erf form ----------------------------------------------------------------- */

/* gelu(x) = max(x, 0) + G(|x|), G(y) = -y Q(y), Q(y) = erfc(y/sqrt2)/2.
   y <= 4.5: Q(y) = e^A(y), A(y) = ln(1/2) + C1 y + C2 y^2 + lambda(y):
   the quadratic part is formed as a double-float, lambda (|lambda| < 0.038,
   a degree-12 polynomial in y - 2.25) in single precision. The near range
   reaches 4.5 so that an epilogue's x + b (about N(0, 2)) seldom takes
   the far range's branch.
   y > 4.5: Q(y) = c0 e^(-y^2/2) g(y) / y with c0 = 1/sqrt(2 pi) and
   ln g(y) = sigma P(sigma), sigma = 1/y^2 (degree 7). */
/* A(y) - ln(1/2) as vh + lo (vh the quadratic part's TwoSum, lo its error
   terms and lambda; |lo| < 0.04): the exponent of both near-range GELUs. */
GPUACT_FN float gpuact_sm_gelu_a(float y, float *lo) {
    const float sh = y * y;
    const float sl = GPUACT_FMA(y, y, -sh);
    const float p2 = -4.347876012e-01f * sh;
    const float e2 = GPUACT_FMA(-4.347876012e-01f, sh, -p2);
    const float p1 = -6.794799566e-01f * y;
    const float e1 = GPUACT_FMA(-6.794799566e-01f, y, -p1);
    const float vh = p2 + p1; /* TwoSum */
    const float vb = vh - p2;
    const float ve = (p2 - (vh - vb)) + (p1 - vb);
    const float t = y - 2.25f;
    float lam = GPUACT_FMA(-7.206463204e-11f, t, 3.083764355e-09f);
    lam = GPUACT_FMA(lam, t, -2.314726721e-08f);
    lam = GPUACT_FMA(lam, t, 8.026599829e-08f);
    lam = GPUACT_FMA(lam, t, -4.931644426e-08f);
    lam = GPUACT_FMA(lam, t, -2.117237273e-06f);
    lam = GPUACT_FMA(lam, t, 2.512183892e-05f);
    lam = GPUACT_FMA(lam, t, -2.020842658e-04f);
    lam = GPUACT_FMA(lam, t, 1.365271630e-03f);
    lam = GPUACT_FMA(lam, t, -8.392953314e-03f);
    lam = GPUACT_FMA(lam, t, -1.491262298e-02f);
    lam = GPUACT_FMA(lam, t, 3.962162510e-02f);
    lam = GPUACT_FMA(lam, t, 1.877393387e-02f);
    *lo = ((GPUACT_FMA(-4.347876012e-01f, sl, e2) + e1) + ve) + lam;
    return vh;
}

GPUACT_FN float gpuact_sm_gelu_near(float x, float y) {
    float lo;
    const float vh = gpuact_sm_gelu_a(y, &lo);
    {
        const float ah = vh + lo;
        const float al = lo - (ah - vh);
        const gpuact_sm_exp_t e = gpuact_sm_exp(ah, al);
        const float sc = gpuact_sm_pow2(e.kb - 1u);
        const float mh = e.h * sc, ml = e.l * sc;
        const float gh = y * mh;
        const float gl = GPUACT_FMA(y, ml, GPUACT_FMA(y, mh, -gh));
        const float xp = x > 0.0f ? x : 0.0f;
        const float u = xp - gh;
        return u + (((xp - u) - gh) - gl);
    }
}

/* 1/s to about 2^-24 for s = y^2 in the erf forms' far ranges (y above 3.5):
   a bit-trick guess and three Newton steps. */
GPUACT_FN float gpuact_sm_rcp_far(float s) {
    float r = gpuact_as_f32(0x7ef311c3u - gpuact_as_u32(s));
    r = GPUACT_FMA(r, GPUACT_FMA(-s, r, 1.0f), r);
    r = GPUACT_FMA(r, GPUACT_FMA(-s, r, 1.0f), r);
    return GPUACT_FMA(r, GPUACT_FMA(-s, r, 1.0f), r);
}

/* y in [3.5, 14.6]: sigma = 1/y^2 as sg + sgl, and y^2 = sh + sl. */
GPUACT_FN float gpuact_sm_sigma(float y, float *sh, float *sl, float *sgl) {
    const float sg = gpuact_sm_rcp_far(*sh = y * y);
    *sl = GPUACT_FMA(y, y, -*sh);
    *sgl = sg * GPUACT_FMA(-*sl, sg, GPUACT_FMA(-*sh, sg, 1.0f));
    return sg;
}

/* y in [3.5, 14.5]: -y^2/2 + ln c0 + ln g(y) as ah + al (normalised), the
   exponent of both far-range GELUs. */
GPUACT_FN float gpuact_sm_gelu_far_a(float y, float *al) {
    float sh, sl, sgl;
    const float sg = gpuact_sm_sigma(y, &sh, &sl, &sgl);
    float p = GPUACT_FMA(4.401480469e+04f, sg, -2.010390430e+04f);
    p = GPUACT_FMA(p, sg, 4.365603027e+03f);
    p = GPUACT_FMA(p, sg, -6.474584351e+02f);
    p = GPUACT_FMA(p, sg, 8.433944702e+01f);
    p = GPUACT_FMA(p, sg, -1.227883244e+01f);
    p = GPUACT_FMA(p, sg, 2.499605417e+00f);
    p = GPUACT_FMA(p, sg, -9.999989271e-01f);
    {
        const float lam = GPUACT_FMA(p, sgl, sg * p); /* ln g, with the low part of sigma */
        const float a0 = -0.5f * sh;
        const float vh = a0 + -9.189385176e-01f; /* Fast2Sum: |a0| >= 6 */
        const float ve = -9.189385176e-01f - (vh - a0);
        const float lo = ((ve + -1.563417662e-08f) + -0.5f * sl) + lam;
        const float ah = vh + lo;
        *al = lo - (ah - vh);
        return ah;
    }
}

/* y in [3.5, 14.5]: -y Q(y) = -exp(-y^2/2 + ln c0 + ln g(y)). */
GPUACT_FN float gpuact_sm_gelu_far(float x, float y) {
    float al;
    const float ah = gpuact_sm_gelu_far_a(y, &al);
    const gpuact_sm_exp_t e = gpuact_sm_exp(ah, al);
    if (x < 0.0f) return -gpuact_sm_scale_tiny(e.h, e.l, e.kb);
    {
        const float sc = gpuact_sm_pow2(e.kb);
        const float gh = e.h * sc, gl = e.l * sc;
        const float u = x - gh;
        return u + (((x - u) - gh) - gl);
    }
}

/* x * Phi(x) = 0.5 x (1 + erf(x / sqrt2)). */
GPUACT_FN float gpuact_gelu_erf(float x) {
    const float y = gpuact_sm_abs(x);
    float r = gpuact_sm_gelu_near(x, y > 4.5f ? 4.5f : y);
    if (y > 4.5f) r = x > 6.0f ? x : (x < -14.5f ? x * 0.0f : gpuact_sm_gelu_far(x, y));
    return gpuact_sm_canon(gpuact_sm_sign_of(r, x));
}

/* ---- derivatives ----------------------------------------------------------------------
   Each is 1 - U(|x|) for x > 0 and U(|x|) for x <= 0, U(y) = f'(-y): the
   derivative of x * (something odd-symmetric) satisfies f'(x) + f'(-x) = 1. */

/* x > 0 ? 1 - U : U with U = e (D - Y) / D^2, e = e^(ah + al) in
   (2^-126, 1], D = 1 + e, Y = Y.h + Y.l >= 0: the SiLU and tanh-GELU
   derivative (sigmoid(z) (1 + x sigmoid(-z) z') at x = -y, with Y = y z'). */
/* W = D - Y vanishes at the derivative's root y0; within 0.004 of it W is
   taken from its Taylor expansion there instead, W = t (w1 + w2 t + w3 t^2)
   with t = y - y0 and w1 as double-floats, so U keeps its relative
   accuracy through the root (elsewhere D - Y is accurate enough). */
GPUACT_FN float gpuact_sm_dsig(float x, float ah, float al, gpuact_sm_ff Y, float y, float y0h, float y0l, float w1h,
                               float w1l, float w2, float w3) {
    const gpuact_sm_exp_t e = gpuact_sm_exp(ah, al);
    const float sc = gpuact_sm_pow2(e.kb);
    const float eh = e.h * sc;
    const float dh = 1.0f + eh;
    const float dl = GPUACT_FMA(e.l, sc, eh - (dh - 1.0f));
    /* W = D - Y (TwoSum), or near the root its expansion */
    const float wdh = dh - Y.h;
    const float wb = wdh - dh;
    const float wdl = ((dh - (wdh - wb)) - (Y.h + wb)) + (dl - Y.l);
    const float th = y - y0h; /* exact near y0 (Sterbenz); a multiple of ulp(y), so 0 or above |y0l| */
    const float tf = th - y0l;  /* Fast2Sum */
    const float te = (th - tf) - y0l;
    const float c = GPUACT_FMA(th, w3, w2) * th;
    const float wth = tf * w1h;
    const float wtl = GPUACT_FMA(tf, w1h, -wth) + GPUACT_FMA(tf, w1l + c, te * w1h);
    const int at_root = gpuact_sm_abs(th) < 0.004f;
    const float wh = at_root ? wth : wdh;
    const float wl = at_root ? wtl : wdl;
    /* N = e W at the scale of e.h; D^2; N / D^2 with one residual */
    const float nh = e.h * wh;
    const float nl = GPUACT_FMA(e.h, wl, GPUACT_FMA(e.l, wh, GPUACT_FMA(e.h, wh, -nh)));
    const float d2h = dh * dh;
    const float d2l = GPUACT_FMA(dh + dh, dl, GPUACT_FMA(dh, dh, -d2h));
    const float r = gpuact_sm_rcp12(dh);
    const float r2 = r * r;
    const float q = nh * r2;
    const float rem = GPUACT_FMA(-q, d2l, GPUACT_FMA(-q, d2h, nh) + nl);
    const int pos = x > 0.0f;
    const float base = pos ? 1.0f : 0.0f;
    const float qs = pos ? -(q * sc) : q * sc;
    const float rs = pos ? -(rem * sc) : rem * sc;
    const float t = base + qs;
    return t + GPUACT_FMA(rs, r2, (base - t) + qs);
}

/* U for results below 2^-119 (x < 0, ah in [-112, -87]): e (1 - Y), D = 1. */
GPUACT_FN float gpuact_sm_dtiny(float ah, float al, gpuact_sm_ff Y) {
    const gpuact_sm_exp_t e = gpuact_sm_exp(ah, al);
    const float vh = Y.h - 1.0f; /* Fast2Sum: Y >= 87 */
    const float vl = ((Y.h - vh) - 1.0f) + Y.l;
    const float p = e.h * vh;
    const float pe = GPUACT_FMA(e.h, vl, GPUACT_FMA(e.l, vh, GPUACT_FMA(e.h, vh, -p)));
    const float ph = p + pe;
    return -gpuact_sm_scale_tiny(ph, pe - (ph - p), e.kb);
}

/* sigmoid(x) (1 + x (1 - sigmoid(x))). */
GPUACT_FN float gpuact_silu_d(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 87.0f ? 87.0f : y;
    gpuact_sm_ff Y;
    float r;
    Y.h = yc;
    Y.l = 0.0f;
    r = gpuact_sm_dsig(x, -yc, 0.0f, Y, yc, 1.278464556e+00f, -1.297928254e-08f, -1.278464556e+00f, 1.297928254e-08f,
                       1.392322779e-01f, -4.641075805e-02f);
    if (x < -87.0f) {
        Y.h = y;
        r = y > 112.0f ? x * 0.0f : gpuact_sm_dtiny(-y, 0.0f, Y); /* -inf: NaN */
    }
    return gpuact_sm_canon(x > 87.0f ? (x - x) + 1.0f : r); /* +inf: NaN */
}

/* d/dx of 0.5 x (1 + tanh(u)) = sigmoid(z) + x sigmoid(z) sigmoid(-z) z',
   z' = c1 + 3 c3 x^2. */
GPUACT_FN float gpuact_gelu_tanh_d(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 16.0f ? 16.0f : y;
    const float sh = yc * yc;
    const float sl = GPUACT_FMA(yc, yc, -sh);
    const gpuact_sm_ff z = gpuact_sm_tanh_z(yc, sh, sl);
    const gpuact_sm_ff Y =
        gpuact_sm_mul1(yc, gpuact_sm_quad(sh, sl, 1.595769167e+00f, -4.534068054e-08f, 2.140644491e-01f, -2.540834210e-10f));
    const int big = z.h > 87.0f;
    float r = gpuact_sm_dsig(x, big ? -87.0f : -z.h, big ? 0.0f : -z.l, Y, yc, 7.524614334e-01f, -1.133962790e-08f,
                             -2.460656881e+00f, 1.167021608e-07f, -9.991152585e-02f, -4.004476964e-01f);
    if (x < 0.0f && big) r = z.h > 112.0f ? x * 0.0f : gpuact_sm_dtiny(-z.h, -z.l, Y);
    return gpuact_sm_canon(x > 16.0f ? (x - x) + 1.0f : r);
}

/* y - y0 as th + tl (TwoSum; y0 the root of U, 0.75179...): both near-range
   GELU derivatives' factor. */
GPUACT_FN float gpuact_sm_gelud_t(float y, float *tl) {
    const float th = y - 7.517915368e-01f;
    const float tb = th - y;
    *tl = ((y - (th - tb)) - (7.517915368e-01f + tb)) + 1.211444989e-08f;
    return th;
}
/* p(tau), tau = y - 1.75 (degree 11): P = P0 + c1 tau + tau^2 p. */
GPUACT_FN float gpuact_sm_gelud_p(float y, float *tau) {
    const float t = *tau = y - 1.75f;
    float p = GPUACT_FMA(3.940619386e-09f, t, -1.881921463e-08f);
    p = GPUACT_FMA(p, t, 4.901410477e-08f);
    p = GPUACT_FMA(p, t, -2.262724763e-07f);
    p = GPUACT_FMA(p, t, 1.156749818e-06f);
    p = GPUACT_FMA(p, t, -4.956636076e-06f);
    p = GPUACT_FMA(p, t, 2.026084076e-05f);
    p = GPUACT_FMA(p, t, -8.091671043e-05f);
    p = GPUACT_FMA(p, t, 3.103424679e-04f);
    p = GPUACT_FMA(p, t, -1.136581646e-03f);
    p = GPUACT_FMA(p, t, 3.958301153e-03f);
    return GPUACT_FMA(p, t, -1.302672550e-02f);
}

/* gelu'(x) = Phi(x) + x phi(x); U(y) = Q(y) - y phi(y) = phi(y) (R(y) - y)
   with R the Mills ratio, zero at y0 = 0.75179. y <= 3.5:
   U = e^(-y^2/2) (y - y0) P(y), P = (e^(y^2/2) Q(y) - c0 y) / (y - y0) in
   [-0.67, -0.46]: P(1.75) + c1 t + t^2 p(t), t = y - 1.75, with P(1.75)
   and c1 as double-floats and p of degree 11; y - y0 as a double-float, so U keeps its relative
   accuracy through the root. */
GPUACT_FN float gpuact_sm_gelud_near(float x, float y) {
    const float sh = y * y;
    const gpuact_sm_exp_t e = gpuact_sm_exp(-0.5f * sh, -0.5f * GPUACT_FMA(y, y, -sh));
    const float sc = gpuact_sm_pow2(e.kb);
    float tl, tau;
    const float th = gpuact_sm_gelud_t(y, &tl);
    const float p = gpuact_sm_gelud_p(y, &tau);
    {
        /* P = P0 + c1 tau + tau^2 p, P0 and c1 as double-floats, tau p's
           rounding kept */
        const float w2 = tau * p;
        const float v2 = tau * w2;
        const float v1 = 4.018071666e-02f * tau;
        const float p1 = -5.138378739e-01f + v1; /* Fast2Sum: |v1| < 0.08 */
        const float ph = p1 + v2;                /* Fast2Sum: |v2| < 0.1 */
        const float pl = ((((v1 - (p1 - -5.138378739e-01f)) + (v2 - (ph - p1))) + -5.337775999e-09f) +
                          GPUACT_FMA(4.018071666e-02f, tau, -v1)) +
                         GPUACT_FMA(7.620808984e-10f, tau, GPUACT_FMA(tau, GPUACT_FMA(tau, p, -w2), GPUACT_FMA(tau, w2, -v2)));
        const float wh = th * ph;
        const float wl = GPUACT_FMA(th, pl, GPUACT_FMA(tl, ph, GPUACT_FMA(th, ph, -wh)));
        const float uh = e.h * wh;
        const float ul = GPUACT_FMA(e.h, wl, GPUACT_FMA(e.l, wh, GPUACT_FMA(e.h, wh, -uh)));
        const int pos = x > 0.0f;
        const float base = pos ? 1.0f : 0.0f;
        const float qs = pos ? -(uh * sc) : uh * sc;
        const float rs = pos ? -(ul * sc) : ul * sc;
        const float t = base + qs;
        return t + (((base - t) + qs) + rs);
    }
}

/* y in (3.5, 14.6]: U = -c0 y e^(-y^2/2) (1 - sigma G(sigma)), sigma = 1/y^2,
   G(sigma) = y R(y) (degree 7); x > 0 only up to 6.5 (then 1). */
/* y in (3.5, 14.6]: B = c0 y (1 - sigma G(sigma)) as bh + bl, and y^2 as
   sh + sl: U = -B e^(-y^2/2) in both far-range GELU derivatives. */
GPUACT_FN float gpuact_sm_gelud_far_b(float y, float *bl, float *sh, float *sl) {
    float sgl;
    const float sg = gpuact_sm_sigma(y, sh, sl, &sgl);
    float g = GPUACT_FMA(-4.800349121e+03f, sg, 2.284028564e+03f);
    g = GPUACT_FMA(g, sg, -5.329978027e+02f);
    g = GPUACT_FMA(g, sg, 9.001087952e+01f);
    g = GPUACT_FMA(g, sg, -1.464370441e+01f);
    g = GPUACT_FMA(g, sg, 2.994955540e+00f);
    g = GPUACT_FMA(g, sg, -9.999631047e-01f);
    g = GPUACT_FMA(g, sg, 9.999998808e-01f);
    {
        /* V = 1 - sigma G, A = c0 y V */
        const float p = sg * g;
        const float vh = 1.0f - p;
        const float vl = GPUACT_FMA(-sgl, g, (1.0f - vh) - p);
        const float a = y * vh;
        const float ae = GPUACT_FMA(y, vl, GPUACT_FMA(y, vh, -a));
        const float bh = 3.989422917e-01f * a;
        *bl = GPUACT_FMA(3.989422917e-01f, ae, GPUACT_FMA(-1.133517014e-08f, a, GPUACT_FMA(3.989422917e-01f, a, -bh)));
        return bh;
    }
}

GPUACT_FN float gpuact_sm_gelud_far(float x, float y) {
    float bl, sh, sl;
    const float bh = gpuact_sm_gelud_far_b(y, &bl, &sh, &sl);
    const gpuact_sm_exp_t e = gpuact_sm_exp(-0.5f * sh, -0.5f * sl);
    const float mh = e.h * bh;
    const float me = GPUACT_FMA(e.h, bl, GPUACT_FMA(e.l, bh, GPUACT_FMA(e.h, bh, -mh)));
    const float m2 = mh + me;
    if (x < 0.0f) return -gpuact_sm_scale_tiny(m2, me - (m2 - mh), e.kb);
    {
        const float sc = gpuact_sm_pow2(e.kb);
        const float t = 1.0f + mh * sc;
        return t + GPUACT_FMA(me, sc, (1.0f - t) + mh * sc);
    }
}

GPUACT_FN float gpuact_gelu_erf_d(float x) {
    const float y = gpuact_sm_abs(x);
    float r = gpuact_sm_gelud_near(x, y > 3.5f ? 3.5f : y);
    if (y > 3.5f) r = x > 6.5f ? (x - x) + 1.0f : (x < -14.6f ? x * 0.0f : gpuact_sm_gelud_far(x, y));
    return gpuact_sm_canon(r);
}

/* ---- the default f32 evaluation ----------------------------------------------------
   gpuact_*_fast: at most 2 ulps (docs/NUMERICS_SMOOTH.md) in about a third
   of the precise functions' instructions. The difference is the
   exponential: the precise functions carry e^a as a double-float to the
   last rounding, these take it in single precision as 2^k (1 + s) and fold
   the 1 + s into the last fused multiply-add, so the result is still
   rounded once or twice. The common range is straight-line code; the
   rest (tiny and far |x|, NaN) takes one branch, which N(0, 1) data take
   for about one element in 2000. */

/* e^r - 1 = r + r^2 R(r) for |r| <= 0.375 (R: degree-5 minimax, 0.01 ulp
   of e^r). */
GPUACT_FN float gpuact_sm_expm1r(float r) {
    float p = GPUACT_FMA(1.976405183e-04f, r, 1.394845196e-03f);
    p = GPUACT_FMA(p, r, 8.333573118e-03f);
    p = GPUACT_FMA(p, r, 4.166626558e-02f);
    p = GPUACT_FMA(p, r, 1.666666567e-01f);
    p = GPUACT_FMA(p, r, 0.5f);
    return GPUACT_FMA(r * r, p, r);
}

/* k = round(ah / ln2) as a float (a magic-number fma), *kb = k + 127 */
GPUACT_FN float gpuact_sm_expk(float ah, gpuact_u32 *kb) {
    const float j = GPUACT_FMA(ah, 1.442695022e+00f, 12582912.0f);
    *kb = gpuact_as_u32(j) - 0x4b3fff81u;
    return j - 12582912.0f;
}
/* e^(ah + al) = 2^k (1 + s) for ah in [-110, 0], |al| <= 0.03: returns s,
   *kb = k + 127 (modulo 2^32: where k may be below -126 the caller adds 64
   before forming 2^k). k = round(ah / ln2); ah - k ln2hi is exact
   (gpuact_sm_exp). */
GPUACT_FN float gpuact_sm_exps(float ah, float al, gpuact_u32 *kb) {
    const float kf = gpuact_sm_expk(ah, kb);
    return gpuact_sm_expm1r(GPUACT_FMA(-kf, 6.931471825e-01f, ah) + GPUACT_FMA(-kf, -1.904654212e-09f, al));
}

/* the same for al = 0 (one rounding less in the reduced argument) */
GPUACT_FN float gpuact_sm_exps0(float ah, gpuact_u32 *kb) {
    const float kf = gpuact_sm_expk(ah, kb);
    return gpuact_sm_expm1r(GPUACT_FMA(-kf, -1.904654212e-09f, GPUACT_FMA(-kf, 6.931471825e-01f, ah)));
}

/* 1 where |x| (the bits y of it) lies outside [lo, hi] or is NaN: the
   ranges the default functions leave to a branch. */
GPUACT_FN int gpuact_sm_rare(gpuact_u32 y, gpuact_u32 lo, gpuact_u32 hi) { return y - lo > hi - lo; }

/* x Phi(x) for |x| <= 4.5 (y = |x|): Q(y) = e^A(y) / 2 with A as in
   gpuact_sm_gelu_near; y Q = y 2^(k-1) (1 + s) rounded once. */
GPUACT_FN float gpuact_sm_gelu_near_fast(float x, float y) {
    float lo;
    const float vh = gpuact_sm_gelu_a(y, &lo);
    gpuact_u32 kb;
    const float s = gpuact_sm_exps(vh, lo, &kb);
    const float ys = y * gpuact_sm_pow2(kb - 1u);
    const float g = GPUACT_FMA(ys, s, ys); /* y Q(y) >= +0 */
    return x >= 0.0f ? x - g : -g;         /* -0 - (+0) is -0 */
}

/* y in [3.5, 14.5]: -y Q(y) = -e^(-y^2/2 + ln c0 + ln g(y)) as in
   gpuact_sm_gelu_far, with e^a = 2^k (1 + s): rounded at 2^(k+64) and
   scaled down once, so a subnormal result is rounded twice. */
GPUACT_FN float gpuact_sm_gelu_far_fast(float x, float y) {
    float al;
    const float ah = gpuact_sm_gelu_far_a(y, &al);
    gpuact_u32 kb;
    const float s = gpuact_sm_exps(ah, al, &kb);
    const float sc = gpuact_sm_pow2(kb + 64u);
    const float g = GPUACT_FMA(sc, s, sc) * 5.421010862e-20f; /* y Q(y) */
    return x > 0.0f ? x - g : -g;
}

/* gpuact_gelu_erf_fast off the table (|x| < 2^-25 or > GPUACT_SM_TAB_END, inf, NaN) */
GPUACT_FN float gpuact_sm_gelu_erf_exp(float x) {
    const float y = gpuact_sm_abs(x);
    float r = gpuact_sm_gelu_near_fast(x, y);
    if (gpuact_sm_rare(gpuact_as_u32(y), 0u, 0x40900000u)) /* 4.5 */
        r = gpuact_sm_canon(gpuact_sm_sign_of(x > 6.0f ? x : (x < -14.5f ? x * 0.0f : gpuact_sm_gelu_far_fast(x, y)), x));
    return r;
}

/* gelu'(x) for |x| <= 3.5: U = e^(-y^2/2) (y - y0) P(y) as in
   gpuact_sm_gelud_near, with P in single precision (its low parts folded
   into the product's) and e^(-y^2/2) = 2^k (1 + s). */
GPUACT_FN float gpuact_sm_gelud_near_fast(float x, float y) {
    const float sh = y * y;
    gpuact_u32 kb;
    const float s = gpuact_sm_exps(-0.5f * sh, -0.5f * GPUACT_FMA(y, y, -sh), &kb);
    float tl, tau;
    const float th = gpuact_sm_gelud_t(y, &tl);
    float p = gpuact_sm_gelud_p(y, &tau);
    p = GPUACT_FMA(p, tau, 4.018071666e-02f);
    {
        /* P = P0 + tau p as ph + pl: the last step's rounding (P0 - ph is
           exact) and P's low parts (P0l + c1l tau) */
        const float ph = GPUACT_FMA(tau, p, -5.138378739e-01f);
        const float pl = GPUACT_FMA(tau, p, -5.138378739e-01f - ph) + GPUACT_FMA(7.620808984e-10f, tau, -5.337775999e-09f);
        /* W = t P as wh + wl */
        const float wh = th * ph;
        const float wl = GPUACT_FMA(th, pl, GPUACT_FMA(tl, ph, GPUACT_FMA(th, ph, -wh)));
        const float sc = gpuact_sm_pow2(kb);
        const float ws = wh * sc, wls = wl * sc;
        const float u = ws + GPUACT_FMA(ws, s, GPUACT_FMA(wls, s, wls)); /* 2^k (1 + s) W */
        return x > 0.0f ? 1.0f - u : u;
    }
}

/* y in (3.5, 14.6]: U = -c0 y e^(-y^2/2) (1 - sigma G(sigma)) as in
   gpuact_sm_gelud_far, with e^(-y^2/2) = 2^k (1 + s) applied as in
   gpuact_sm_gelu_far_fast. */
GPUACT_FN float gpuact_sm_gelud_far_fast(float x, float y) {
    float bl, sh, sl;
    const float bh = gpuact_sm_gelud_far_b(y, &bl, &sh, &sl);
    gpuact_u32 kb;
    const float s = gpuact_sm_exps(-0.5f * sh, -0.5f * sl, &kb);
    const float sc = gpuact_sm_pow2(kb + 64u);
    const float bs = bh * sc, bls = bl * sc;
    const float m = (bs + GPUACT_FMA(bs, s, GPUACT_FMA(bls, s, bls))) * 5.421010862e-20f; /* -U */
    return x > 0.0f ? 1.0f + m : -m;
}

/* gpuact_gelu_erf_d_fast beyond the table (|x| > GPUACT_SM_TAB_END), and for inf and NaN */
GPUACT_FN float gpuact_sm_gelu_erf_d_exp(float x) {
    const float y = gpuact_sm_abs(x);
    float r = gpuact_sm_gelud_near_fast(x, y);
    if (gpuact_sm_rare(gpuact_as_u32(y), 0u, 0x40600000u)) /* 3.5 */
        r = gpuact_sm_canon(x > 6.5f ? (x - x) + 1.0f : (x < -14.6f ? x * 0.0f : gpuact_sm_gelud_far_fast(x, y)));
    return r;
}


/* 1/d for d in [1, 2] to 2^-26: the minimax quadratic and two Newton steps. */
GPUACT_FN float gpuact_sm_rcp12q(float d) {
    float r = GPUACT_FMA(GPUACT_FMA(3.232316971e-01f, d, -1.454543948e+00f), d, 2.121211529e+00f);
    r = GPUACT_FMA(r, GPUACT_FMA(-d, r, 1.0f), r);
    return GPUACT_FMA(r, GPUACT_FMA(-d, r, 1.0f), r);
}

/* 1/d for d in [1, 2] to 2^-18: the minimax cubic (error 1/577, from
   T4(2d - 3)) and one Newton step; for N/D = q + rem r with the exact
   residual rem = N - q D, whose error is the square of r's. */
GPUACT_FN float gpuact_sm_rcp12c(float d) {
    const float r = GPUACT_FMA(GPUACT_FMA(GPUACT_FMA(-2.218370885e-01f, d, 1.331022501e+00f), d, -2.939341307e+00f), d,
                               2.828422785e+00f);
    return GPUACT_FMA(r, GPUACT_FMA(-d, r, 1.0f), r);
}

/* 1 + e as dh + dl (to 2^-48 or so) for e = 2^k (1 + s) in (0, 1] given
   sc = 2^k. */
GPUACT_FN void gpuact_sm_one_plus(float sc, float s, float *dh, float *dl) {
    *dh = GPUACT_FMA(sc, s, 1.0f + sc);
    *dl = GPUACT_FMA(sc, s, (1.0f - *dh) + sc); /* (1 - dh) + sc is exact: both on the grid of 2^-24 */
}

/* x e^-z / (1 + e^-z) for x <= 0, x / (1 + e^-z) for x > 0, e^-z = 2^k (1 + s)
   (kb = k + 127, k >= -126): D = 1 + e as dh + dl, q = N r with N = a (1 + b)
   rounded, and q + rem r with the residual rem = a + a b - q D formed from
   the exact a and b, so that N's rounding is corrected too. */
GPUACT_FN float gpuact_sm_xsig_fast(float x, float s, gpuact_u32 kb) {
    const float sc = gpuact_sm_pow2(kb);
    float dh, dl;
    gpuact_sm_one_plus(sc, s, &dh, &dl);
    {
        const float a = x > 0.0f ? x : x * sc;
        const float b = x > 0.0f ? 0.0f : s;
        const float r = gpuact_sm_rcp12c(dh);
        {
            const float q = GPUACT_FMA(a, b, a) * r;
            return GPUACT_FMA(GPUACT_FMA(-q, dl, GPUACT_FMA(a, b, GPUACT_FMA(-q, dh, a))), r, q);
        }
    }
}

/* x sigmoid(z) off the common range, e^-z = e^(ah + al): x/2 for |x| < 2^-25,
   x where x > 0, else the tail (-0 beyond z = 112; -inf: NaN). */
GPUACT_FN float gpuact_sm_xsig_rare(float x, float y, float ah, float al) {
    return gpuact_sm_canon(gpuact_sm_sign_of(
        y < 2.980232239e-08f ? 0.5f * x : (x > 0.0f ? x : (ah < -112.0f ? x * 0.0f : gpuact_sm_tiny(y, ah, al))), x));
}

GPUACT_FN float gpuact_silu_fast(float x) {
    const float y = gpuact_sm_abs(x);
    gpuact_u32 kb;
    const float s = gpuact_sm_exps0(-y, &kb);
    float r = gpuact_sm_xsig_fast(x, s, kb);
    if (gpuact_sm_rare(gpuact_as_u32(y), 0x33000000u, 0x42ae0000u)) r = gpuact_sm_xsig_rare(x, y, -y, 0.0f); /* 2^-25, 87 */
    return r;
}

/* gpuact_gelu_tanh_fast off the table (|x| < 2^-25 or > GPUACT_SM_TAB_END, inf, NaN) */
GPUACT_FN float gpuact_sm_gelu_tanh_exp(float x) {
    const float y = gpuact_sm_abs(x);
    const float sh = y * y;
    const gpuact_sm_ff z = gpuact_sm_tanh_z(y, sh, GPUACT_FMA(y, y, -sh));
    gpuact_u32 kb;
    const float s = gpuact_sm_exps(-z.h, -z.l, &kb);
    float r = gpuact_sm_xsig_fast(x, s, kb);
    if (gpuact_sm_rare(gpuact_as_u32(y), 0x33000000u, 0x41200000u)) /* 2^-25, 10: z > 87 above */
        r = gpuact_sm_xsig_rare(x, y, -z.h, -z.l);
    return r;
}

/* x > 0 ? 1 - U : U with U = e (D - Y) / D^2, e = 2^k (1 + s) (kb = k + 127),
   D = 1 + e, Y = Yh + Yl >= 0: the SiLU and tanh-GELU derivatives. W = D - Y
   vanishes at the root y0; within 0.06 of it, where e's rounding would
   show in W, W comes from its Taylor polynomial t (w1 + w2 t + ... + w6
   t^5), t = y - y0 and w1 as double-floats (truncation under 2^-32). */
GPUACT_FN float gpuact_sm_dsig_fast(float x, float s, gpuact_u32 kb, float Yh, float Yl, float y, const float *w) {
    const float sc = gpuact_sm_pow2(kb);
    float dh, dl;
    gpuact_sm_one_plus(sc, s, &dh, &dl);
    {
        /* W = D - Y (TwoSum) or its Taylor polynomial (w: y0h, y0l, w1h, w1l, w2..w6) */
        const float wdh = dh - Yh;
        const float wb = wdh - dh;
        const float wdl = ((dh - (wdh - wb)) - (Yh + wb)) + (dl - Yl);
        const float th = y - w[0];
        const float tf = th - w[1];
        const float te = (th - tf) - w[1];
        const float p =
            GPUACT_FMA(GPUACT_FMA(GPUACT_FMA(GPUACT_FMA(w[8], th, w[7]), th, w[6]), th, w[5]), th, w[4]) * th;
        const float wth = tf * w[2];
        const float wtl = GPUACT_FMA(tf, w[2], -wth) + GPUACT_FMA(tf, w[3] + p, te * w[2]);
        const int at_root = gpuact_sm_abs(th) < 0.06f;
        const float wh = at_root ? wth : wdh;
        const float wl = at_root ? wtl : wdl;
        /* N = (1 + s) W as nh + nl; N / D^2 with one residual; 2^k last */
        const float nb = GPUACT_FMA(wh, s, GPUACT_FMA(wl, s, wl));
        const float nh = wh + nb;
        const float nl = (wh - nh) + nb;
        const float d2h = dh * dh;
        const float d2l = GPUACT_FMA(dh + dh, dl, GPUACT_FMA(dh, dh, -d2h));
        const float r = gpuact_sm_rcp12c(dh);
        const float r2 = r * r;
        const float q = nh * r2;
        const float rem = GPUACT_FMA(-q, d2l, GPUACT_FMA(-q, d2h, nh) + nl);
        const float u = GPUACT_FMA(rem, r2, q) * sc;
        return x > 0.0f ? 1.0f - u : u;
    }
}

/* the SiLU and tanh-GELU derivatives beyond z = 87: 1 for x > 0, else the
   tail (-0 beyond z = 112; +-inf: NaN). */
GPUACT_FN float gpuact_sm_dsig_rare(float x, float ah, float al, gpuact_sm_ff Y) {
    return gpuact_sm_canon(x > 0.0f ? (x - x) + 1.0f : (ah < -112.0f ? x * 0.0f : gpuact_sm_dtiny(ah, al, Y)));
}

/* gpuact_silu_d_fast beyond the table (|x| > GPUACT_SM_TAB_END), and for inf and NaN */
GPUACT_FN float gpuact_sm_silu_d_exp(float x) {
    const float w[9] = {1.278464556e+00f, -1.297928254e-08f, -1.278464556e+00f, 1.297928254e-08f, 1.392322714e-01f,
                        -4.641075713e-02f, 1.160268928e-02f, -2.320537856e-03f, 3.867563094e-04f};
    const float y = gpuact_sm_abs(x);
    gpuact_u32 kb;
    const float s = gpuact_sm_exps0(-y, &kb);
    float r = gpuact_sm_dsig_fast(x, s, kb, y, 0.0f, y, w);
    if (gpuact_sm_rare(gpuact_as_u32(y), 0u, 0x42ae0000u)) { /* 87 */
        gpuact_sm_ff Y;
        Y.h = y;
        Y.l = 0.0f;
        r = gpuact_sm_dsig_rare(x, -y, 0.0f, Y);
    }
    return r;
}

/* gpuact_gelu_tanh_d_fast beyond the table (|x| > GPUACT_SM_TAB_END), and for inf and NaN */
GPUACT_FN float gpuact_sm_gelu_tanh_d_exp(float x) {
    const float w[9] = {7.524614334e-01f, -1.133962790e-08f, -2.460656881e+00f, 1.167021608e-07f, -9.991152323e-02f,
                        -4.004476935e-01f, 7.595899091e-02f, -3.048599057e-02f, 1.129523237e-02f};
    const float y = gpuact_sm_abs(x);
    const float sh = y * y;
    const float sl = GPUACT_FMA(y, y, -sh);
    const gpuact_sm_ff z = gpuact_sm_tanh_z(y, sh, sl);
    const gpuact_sm_ff Y =
        gpuact_sm_mul1(y, gpuact_sm_quad(sh, sl, 1.595769167e+00f, -4.534068054e-08f, 2.140644491e-01f, -2.540834210e-10f));
    gpuact_u32 kb;
    const float s = gpuact_sm_exps(-z.h, -z.l, &kb);
    float r = gpuact_sm_dsig_fast(x, s, kb, Y.h, Y.l, y, w);
    if (gpuact_sm_rare(gpuact_as_u32(y), 0u, 0x41200000u)) /* 10: z > 87 above */
        r = gpuact_sm_dsig_rare(x, -z.h, -z.l, Y);
    return r;
}

/* The default f32 derivatives of the three kinds, and the forwards of GELU and
   tanh-GELU, for |x| <= 4.875 from a table of 40 cells of width 1/8 in
   y = |x| (tools/smooth_tables.py: the fits, the range, and why each step is exact):
   U, the derivative at -y (a forward: F(-y)), from a quintic in t = y - k/8
   around the cell's centre and one double-float step; 1 - U at +y. A table
   holds each coefficient of the 40 cells side by side (row j at 40 j), so
   lanes reading different cells of [0, 4) read different banks. SiLU's forward
   keeps the exponential, which ran faster than its table. */
/* the derivatives' tables: written by tools/smooth_tables.py --write */
#define GPUACT_SM_TAB_END 4.875f /* the last cell's centre: the tables' range is [0, this] */
#define GPUACT_SM_TAB_END_BITS 0x409c0000u /* its bits */
enum { GPUACT_SM_CELLS = 40, GPUACT_SM_GED = 0, GPUACT_SM_GTD = 400, GPUACT_SM_SID = 800, GPUACT_SM_GEF = 1200, GPUACT_SM_GTF = 1600, GPUACT_SM_DTABS_N = 2000 };
GPUACT_CONST_DEF float gpuact_sm_dtabs[GPUACT_SM_DTABS_N] = {
    /* GPUACT_SM_GED: r */
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 1.267915368e-01f,
    1.791536808e-03f, -1.232084632e-01f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    /* GPUACT_SM_GED: c0h */
    5.000000000e-01f, 4.007820785e-01f, 3.046266437e-01f, 2.143845707e-01f, 1.325048804e-01f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, -8.331546932e-02f, -1.080667078e-01f, -1.226615831e-01f, -1.285761446e-01f,
    -1.274691969e-01f, -1.210434064e-01f, -1.109261513e-01f, -9.857790172e-02f, -8.523180336e-02f, -7.186378539e-02f,
    -5.918974429e-02f, -4.768379033e-02f, -3.761108592e-02f, -2.906852774e-02f, -2.202753350e-02f, -1.637445763e-02f,
    -1.194564719e-02f, -8.555531502e-03f, -6.017381325e-03f, -4.157197662e-03f, -2.821760252e-03f, -1.882117242e-03f,
    -1.233816496e-03f, -7.950477302e-04f, -5.036496441e-04f, -3.136926098e-04f, -1.921156800e-04f, -1.157022780e-04f,
    -6.852915976e-05f, -3.992030179e-05f, -2.287307689e-05f, -1.289117790e-05f,
    /* GPUACT_SM_GED: c0l */
    0.000000000e+00f, -1.420276874e-08f, 1.458679622e-09f, 2.408301336e-09f, -5.084476840e-09f, -5.227312361e-09f,
    -5.227312361e-09f, -5.227312361e-09f, -1.263097515e-09f, -1.511350489e-09f, 5.616915613e-11f, 1.922255244e-09f,
    4.685646982e-09f, 1.299254038e-10f, 1.930567095e-10f, -3.688785277e-09f, 2.279404221e-09f, -1.835185226e-09f,
    3.184827402e-10f, 9.508115406e-10f, 1.338074703e-11f, -5.854496332e-10f, -1.429341923e-10f, -7.758493292e-10f,
    -1.665293251e-11f, 4.408823306e-10f, 1.815306377e-10f, -8.205709029e-11f, -1.015065254e-10f, -5.058934521e-11f,
    -2.758056457e-11f, -1.637933192e-11f, -1.713842089e-11f, -2.666087186e-12f, 4.401678945e-13f, 2.139260340e-12f,
    -2.094379357e-12f, -1.935178363e-13f, 5.085081661e-13f, 1.544828854e-14f,
    /* GPUACT_SM_GED: q0h */
    -7.978845835e-01f, -7.854903936e-01f, -7.491694689e-01f, -6.914180517e-01f, -6.161143184e-01f, -4.801971018e-01f,
    -4.321895540e-01f, -3.835870028e-01f, -2.419707179e-01f, -1.555969119e-01f, -7.990897447e-02f, -1.695446670e-02f,
    3.237939999e-02f, 6.825108081e-02f, 9.166964889e-02f, 1.042542011e-01f, 1.079819351e-01f, 1.049543545e-01f,
    9.720268101e-02f, 8.654457331e-02f, 7.449527830e-02f, 6.222920120e-02f, 5.058294162e-02f, 4.008822143e-02f,
    3.102293797e-02f, 2.346972190e-02f, 1.737372391e-02f, 1.259394456e-02f, 8.944997564e-03f, 6.228294689e-03f,
    4.253185354e-03f, 2.849532058e-03f, 1.873623114e-03f, 1.209365204e-03f, 7.664805744e-04f, 4.770927480e-04f,
    2.917032689e-04f, 1.752212120e-04f, 1.034192464e-04f, 5.998481356e-05f,
    /* GPUACT_SM_GED: q0l */
    2.266548726e-08f, -1.633742919e-08f, -7.382537248e-09f, -1.341803024e-08f, -3.459251552e-09f, -7.970618832e-09f,
    -1.412869821e-09f, -7.900483823e-09f, -6.655229701e-09f, 1.222831281e-10f, -4.264842646e-10f, 1.386353254e-10f,
    -1.083849011e-09f, -2.793008047e-09f, 2.373886643e-09f, -1.741160216e-09f, -2.099613594e-09f, -9.111769117e-10f,
    2.758540507e-09f, 3.165526952e-09f, -1.191449606e-09f, -5.698472805e-10f, -2.041484343e-10f, 1.140694206e-09f,
    9.129985656e-10f, 6.530057606e-10f, 7.795347701e-11f, -1.388401477e-10f, 5.756691998e-11f, 7.984179290e-11f,
    6.294024330e-11f, 3.841812632e-11f, 4.615838961e-11f, -3.129855750e-11f, 2.509120689e-11f, -4.941169869e-12f,
    6.501668995e-12f, -2.873747681e-12f, -2.649750211e-12f, -3.185133906e-13f,
    /* GPUACT_SM_GED: q1 */
    1.494473434e-09f, 9.857286513e-02f, 1.903132200e-01f, 2.690865397e-01f, 3.300612569e-01f, 3.780769110e-01f,
    3.882186711e-01f, 3.877097070e-01f, 3.629560769e-01f, 3.258844912e-01f, 2.782544792e-01f, 2.247980535e-01f,
    1.699918509e-01f, 1.176706851e-01f, 7.077436149e-02f, 3.123595566e-02f, 5.026035838e-11f, -2.285690606e-02f,
    -3.793880343e-02f, -4.631341994e-02f, -4.929834604e-02f, -4.827484861e-02f, -4.454424605e-02f, -3.923222423e-02f,
    -3.323886171e-02f, -2.722688578e-02f, -2.163789608e-02f, -1.672600582e-02f, -1.259935647e-02f, -9.262186475e-03f,
    -6.652488839e-03f, -4.672608338e-03f, -3.211925505e-03f, -2.162086312e-03f, -1.425967086e-03f, -9.218664491e-04f,
    -5.844055559e-04f, -3.634057357e-04f, -2.217305446e-04f, -1.327777572e-04f,
    /* GPUACT_SM_GED: q2 */
    2.659613788e-01f, 2.566919923e-01f, 2.298358381e-01f, 1.881214529e-01f, 1.356918216e-01f, 6.257849187e-02f,
    1.881274395e-02f, -2.224889211e-02f, -8.065681905e-02f, -1.150336862e-01f, -1.368678212e-01f, -1.462259144e-01f,
    -1.443581283e-01f, -1.333765686e-01f, -1.158789918e-01f, -9.457835555e-02f, -7.198799402e-02f, -5.019390211e-02f,
    -3.072715923e-02f, -1.453149319e-02f, -2.008471638e-03f, 6.884486880e-03f, 1.250956394e-02f, 1.542073116e-02f,
    1.625011489e-02f, 1.561906468e-02f, 1.407784969e-02f, 1.207275037e-02f, 9.935861453e-03f, 7.891311310e-03f,
    6.071489770e-03f, 4.537710920e-03f, 3.301146673e-03f, 2.341339597e-03f, 1.620973460e-03f, 1.096563879e-03f,
    7.254283410e-04f, 4.696273827e-04f, 2.976868418e-04f, 1.848524989e-04f,
    /* GPUACT_SM_GED: q3 */
    7.270156402e-06f, -3.675608337e-02f, -6.974701583e-02f, -9.571150690e-02f, -1.123124883e-01f, -1.182140410e-01f,
    -1.141133830e-01f, -1.039665937e-01f, -8.065710962e-02f, -5.641159043e-02f, -3.095439263e-02f, -6.905735005e-03f,
    1.366002113e-02f, 2.938769571e-02f, 3.968766704e-02f, 4.466941953e-02f, 4.499242827e-02f, 4.167250916e-02f,
    3.588142619e-02f, 2.877069265e-02f, 2.133977786e-02f, 1.435707323e-02f, 8.331699297e-03f, 3.526651300e-03f,
    1.455031029e-08f, -2.339697909e-03f, -3.676064778e-03f, -4.233838525e-03f, -4.239544272e-03f, -3.895209637e-03f,
    -3.364330158e-03f, -2.767669503e-03f, -2.185892314e-03f, -1.666124910e-03f, -1.230062451e-03f, -8.819318027e-04f,
    -6.153130671e-04f, -4.183905257e-04f, -2.776038309e-04f, -1.799115416e-04f,
    /* GPUACT_SM_GED: q4 */
    -6.001553684e-02f, -5.669980124e-02f, -4.788221046e-02f, -3.449653089e-02f, -1.828267053e-02f, 1.523627550e-03f,
    1.457092352e-02f, 2.553262189e-02f, 3.624753281e-02f, 4.046605155e-02f, 4.020322487e-02f, 3.612560034e-02f,
    2.927711233e-02f, 2.087648399e-02f, 1.212035771e-02f, 4.024251364e-03f, -2.680618083e-03f, -7.587057073e-03f,
    -1.059565786e-02f, -1.185697503e-02f, -1.169090904e-02f, -1.050154120e-02f, -8.701976389e-03f, -6.658278406e-03f,
    -4.655929282e-03f, -2.887524432e-03f, -1.457236824e-03f, -3.961946350e-04f, 3.170544514e-04f, 7.357447175e-04f,
    9.269816219e-04f, 9.583586943e-04f, 8.894384955e-04f, 7.675366360e-04f, 6.267807330e-04f, 4.892993020e-04f,
    3.675141488e-04f, 2.667560766e-04f, 1.876952883e-04f, 1.283219608e-04f,
    /* GPUACT_SM_GED: q5 */
    2.055572113e-03f, 8.143578656e-03f, 1.516874693e-02f, 2.019207366e-02f, 2.262467518e-02f, 2.201472037e-02f,
    1.944484003e-02f, 1.541170012e-02f, 8.773068897e-03f, 2.561241155e-03f, -3.086190205e-03f, -7.544795051e-03f,
    -1.044480782e-02f, -1.169101894e-02f, -1.143118925e-02f, -9.990613908e-03f, -7.789277006e-03f, -5.260133650e-03f,
    -2.782474505e-03f, -6.387208123e-04f, 1.003192854e-03f, 2.084987937e-03f, 2.637248486e-03f, 2.750465414e-03f,
    2.544701099e-03f, 2.144113882e-03f, 1.658063498e-03f, 1.170755248e-03f, 7.379514282e-04f, 3.890671360e-04f,
    1.324670739e-04f, -3.801256389e-05f, -1.367990481e-04f, -1.814730786e-04f, -1.891811844e-04f, -1.745213376e-04f,
    -1.486802648e-04f, -1.193890057e-04f, -9.140569455e-05f, -6.720384408e-05f,
    /* GPUACT_SM_GTD: r */
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 1.274614334e-01f,
    2.461433411e-03f, -1.225385666e-01f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    /* GPUACT_SM_GTD: c0h */
    5.000000000e-01f, 4.007845819e-01f, 3.046458960e-01f, 2.144443095e-01f, 1.326300949e-01f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, -8.296408504e-02f, -1.077717245e-01f, -1.224926338e-01f, -1.285936534e-01f,
    -1.277107894e-01f, -1.215144992e-01f, -1.115969792e-01f, -9.938775748e-02f, -8.609925956e-02f, -7.270047814e-02f,
    -5.991453305e-02f, -4.823446646e-02f, -3.795157745e-02f, -2.919084951e-02f, -2.194892243e-02f, -1.613099687e-02f,
    -1.158416644e-02f, -8.125535212e-03f, -5.564345513e-03f, -3.718034830e-03f, -2.422643825e-03f, -1.538381679e-03f,
    -9.513598634e-04f, -5.725701922e-04f, -3.351231862e-04f, -1.906137477e-04f, -1.052821826e-04f, -5.642602628e-05f,
    -2.932227108e-05f, -1.476305260e-05f, -7.195812032e-06f, -3.392900908e-06f,
    /* GPUACT_SM_GTD: c0l */
    0.000000000e+00f, 1.193756560e-08f, 8.890992831e-09f, -1.521037074e-09f, 1.579531617e-09f, -4.880576832e-09f,
    -4.880576832e-09f, -4.880576832e-09f, 1.196694077e-09f, 7.719712647e-10f, 1.510326753e-09f, 1.366673552e-09f,
    -3.709370811e-09f, -3.439863727e-09f, -2.186362869e-09f, -1.176008069e-09f, 2.931721532e-09f, -6.202604541e-10f,
    -1.468894006e-09f, -3.941696969e-10f, 1.242139169e-09f, 8.325398010e-11f, 8.320102940e-10f, 8.646446892e-10f,
    -1.935822613e-10f, -2.865015170e-10f, -1.316050185e-10f, 3.238068494e-11f, 6.529536634e-11f, 4.188923861e-11f,
    2.471377096e-11f, -8.353959885e-13f, -1.089014903e-11f, 6.917599306e-12f, -1.522134523e-12f, -5.395341834e-13f,
    6.324610432e-13f, -9.853710458e-14f, -4.879482370e-14f, 4.696112612e-14f,
    /* GPUACT_SM_GTD: q0h */
    -7.978845835e-01f, -7.854303718e-01f, -7.489486337e-01f, -6.909893751e-01f, -6.155068874e-01f, -4.792976677e-01f,
    -4.313538373e-01f, -3.828825355e-01f, -2.421481907e-01f, -1.563290805e-01f, -8.118098229e-02f, -1.863485761e-02f,
    3.051819652e-02f, 6.648822874e-02f, 9.027884901e-02f, 1.034487262e-01f, 1.078750789e-01f, 1.055434421e-01f,
    9.837815166e-02f, 8.811933547e-02f, 7.624538988e-02f, 6.393569708e-02f, 5.206602067e-02f, 4.122842848e-02f,
    3.176765889e-02f, 2.382691391e-02f, 1.739691198e-02f, 1.236339565e-02f, 8.549459279e-03f, 5.750430282e-03f,
    3.760210937e-03f, 2.389112022e-03f, 1.474059653e-03f, 8.826212143e-04f, 5.125415628e-04f, 2.884593850e-04f,
    1.572314504e-04f, 8.294414147e-05f, 4.231663479e-05f, 2.086407767e-05f,
    /* GPUACT_SM_GTD: q0l */
    2.266526167e-08f, 9.459668604e-09f, 1.949265105e-08f, -2.719646730e-08f, -7.673099489e-09f, -2.261482335e-09f,
    -2.917325936e-09f, 8.408523655e-09f, -7.293591953e-09f, -3.420492556e-09f, 2.451148173e-09f, -8.140944585e-10f,
    -4.875747722e-11f, 1.943985861e-09f, 2.614517269e-09f, 2.258218890e-10f, 1.050305176e-09f, 1.016817297e-09f,
    2.988017389e-09f, 3.353123779e-09f, 2.202759752e-09f, -2.972633251e-09f, -5.661610070e-10f, -1.068394928e-09f,
    -3.773641122e-12f, -3.556968609e-10f, 4.956688393e-10f, -3.697041978e-11f, -1.203873390e-10f, 8.463425794e-11f,
    1.147922937e-10f, -7.127052420e-11f, 1.039689081e-11f, 4.070702976e-12f, -2.799124821e-11f, -7.012694245e-12f,
    -4.673057080e-12f, -2.705772455e-12f, 6.689517917e-14f, 5.608663219e-14f,
    /* GPUACT_SM_GTD: q1 */
    1.564545382e-09f, 9.904007614e-02f, 1.910958290e-01f, 2.699143887e-01f, 3.306089640e-01f, 3.778307736e-01f,
    3.874386847e-01f, 3.863971829e-01f, 3.608601987e-01f, 3.236166537e-01f, 2.762833536e-01f, 2.235678285e-01f,
    1.698108464e-01f, 1.186347231e-01f, 7.274536043e-02f, 3.387927637e-02f, 2.866589231e-03f, -2.022860385e-02f,
    -3.592850640e-02f, -4.515400901e-02f, -4.905108362e-02f, -4.884405062e-02f, -4.572113231e-02f, -4.075289145e-02f,
    -3.484110907e-02f, -2.869424038e-02f, -2.282478660e-02f, -1.756361872e-02f, -1.308607589e-02f, -9.444733150e-03f,
    -6.604147144e-03f, -4.473612644e-03f, -2.935047029e-03f, -1.864397782e-03f, -1.146158553e-03f, -6.815884262e-04f,
    -3.918675648e-04f, -2.176947164e-04f, -1.167849477e-04f, -6.046229828e-05f,
    /* GPUACT_SM_GTD: q2 */
    2.672777474e-01f, 2.577984333e-01f, 2.303575873e-01f, 1.878153235e-01f, 1.345165223e-01f, 6.054688990e-02f,
    1.662489586e-02f, -2.426451817e-02f, -8.168334514e-02f, -1.148830354e-01f, -1.354469657e-01f, -1.437574029e-01f,
    -1.413278133e-01f, -1.304067224e-01f, -1.135678366e-01f, -9.335552901e-02f, -7.202523202e-02f, -5.138976127e-02f,
    -3.276019916e-02f, -1.695840620e-02f, -4.375264980e-03f, 4.947712645e-03f, 1.122978516e-02f, 1.486563962e-02f,
    1.634890772e-02f, 1.620728895e-02f, 1.495061163e-02f, 1.303251460e-02f, 1.082592923e-02f, 8.611805737e-03f,
    6.579556968e-03f, 4.836735316e-03f, 3.424728522e-03f, 2.337097423e-03f, 1.537528238e-03f, 9.751823382e-04f,
    5.962320138e-04f, 3.513253178e-04f, 1.994466002e-04f, 1.090421501e-04f,
    /* GPUACT_SM_GTD: q3 */
    7.611386536e-06f, -3.758072481e-02f, -7.121677697e-02f, -9.748482704e-02f, -1.139349714e-01f, -1.190261617e-01f,
    -1.141068265e-01f, -1.030541435e-01f, -7.859540731e-02f, -5.385947227e-02f, -2.853406593e-02f, -5.225827452e-03f,
    1.418066677e-02f, 2.863382176e-02f, 3.786488995e-02f, 4.222743586e-02f, 4.248756543e-02f, 3.961777687e-02f,
    3.462849930e-02f, 2.845110558e-02f, 2.187056281e-02f, 1.549725886e-02f, 9.765123948e-03f, 4.944988061e-03f,
    1.165715395e-03f, -1.560958219e-03f, -3.313702997e-03f, -4.233979154e-03f, -4.498707596e-03f, -4.294957034e-03f,
    -3.798698541e-03f, -3.159395652e-03f, -2.491371240e-03f, -1.871765358e-03f, -1.343839103e-03f, -9.237338672e-04f,
    -6.086459034e-04f, -3.846903855e-04f, -2.333222801e-04f, -1.358212176e-04f,
    /* GPUACT_SM_GTD: q4 */
    -6.139171496e-02f, -5.791944265e-02f, -4.867754132e-02f, -3.463752195e-02f, -1.765214093e-02f, 2.969085239e-03f,
    1.634606719e-02f, 2.731252089e-02f, 3.745839000e-02f, 4.077341780e-02f, 3.947827965e-02f, 3.453991190e-02f,
    2.724695578e-02f, 1.892697997e-02f, 1.072417479e-02f, 3.471278353e-03f, -2.342752647e-03f, -6.534521468e-03f,
    -9.150180034e-03f, -1.038145646e-02f, -1.049330086e-02f, -9.771586396e-03f, -8.490649983e-03f, -6.895832717e-03f,
    -5.195036996e-03f, -3.554628696e-03f, -2.097267658e-03f, -9.012936498e-04f, -2.437117246e-06f, 6.013280363e-04f,
    9.417171823e-04f, 1.069777645e-03f, 1.044906094e-03f, 9.250744479e-04f, 7.596852956e-04f, 5.857052165e-04f,
    4.269037163e-04f, 2.954205265e-04f, 1.946233824e-04f, 1.222816354e-04f,
    /* GPUACT_SM_GTD: q5 */
    2.152062720e-03f, 8.530422114e-03f, 1.590637863e-02f, 2.117728069e-02f, 2.365570329e-02f, 2.275235578e-02f,
    1.973149367e-02f, 1.512785070e-02f, 7.781396154e-03f, 1.205204637e-03f, -4.413695075e-03f, -8.456866257e-03f,
    -1.069283299e-02f, -1.123896055e-02f, -1.044861227e-02f, -8.779258467e-03f, -6.676462945e-03f, -4.501908552e-03f,
    -2.504718723e-03f, -8.266033838e-04f, 4.746154009e-04f, 1.396856504e-03f, 1.969928853e-03f, 2.239614027e-03f,
    2.259270521e-03f, 2.086066874e-03f, 1.779194688e-03f, 1.397284563e-03f, 9.946883656e-04f, 6.170072011e-04f,
    2.972076181e-04f, 5.358144699e-05f, -1.098137946e-04f, -2.004295675e-04f, -2.330793795e-04f, -2.255156287e-04f,
    -1.946907287e-04f, -1.543575199e-04f, -1.140394816e-04f, -7.916513277e-05f,
    /* GPUACT_SM_SID: r */
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 1.534645557e-01f, 2.846455574e-02f, -9.653544426e-02f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    /* GPUACT_SM_SID: c0h */
    5.000000000e-01f, 4.376623929e-01f, 3.762899637e-01f, 3.168035746e-01f, 2.600388229e-01f, 2.067128271e-01f,
    1.574000567e-01f, 1.125190184e-01f, 7.232949138e-02f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    -4.129415378e-02f, -5.884107947e-02f, -7.267894596e-02f, -8.319466561e-02f, -9.078425169e-02f, -9.583829343e-02f,
    -9.873090684e-02f, -9.981179982e-02f, -9.940110892e-02f, -9.778666496e-02f, -9.522302449e-02f, -9.193198383e-02f,
    -8.810410649e-02f, -8.390086889e-02f, -7.945728302e-02f, -7.488464564e-02f, -7.027335465e-02f, -6.569559127e-02f,
    -6.120792031e-02f, -5.685357377e-02f, -5.266461521e-02f, -4.866379499e-02f, -4.486620054e-02f, -4.128068313e-02f,
    -3.791109100e-02f, -3.475730121e-02f, -3.181609884e-02f, -2.908191457e-02f,
    /* GPUACT_SM_SID: c0l */
    0.000000000e+00f, -1.310514897e-08f, 1.470757294e-08f, -1.248599979e-08f, -1.019197970e-08f, -7.341203201e-09f,
    -1.216533430e-09f, -3.217398348e-09f, -3.248363578e-09f, -2.827039713e-09f, -2.827039713e-09f, -2.827039713e-09f,
    -5.193978581e-10f, -1.670362626e-09f, -8.634276627e-11f, -2.365961427e-09f, 2.905015339e-09f, 1.271842964e-09f,
    -3.252518033e-09f, 6.597137836e-10f, -2.420952550e-09f, 6.141438486e-12f, 1.888099455e-09f, -2.099213026e-09f,
    4.706740553e-10f, -2.995854675e-10f, 1.818325768e-10f, -1.397282179e-09f, 1.821825579e-09f, -2.949777311e-09f,
    1.290244134e-09f, 7.049336115e-10f, 3.227980938e-10f, 7.462532259e-10f, 1.469790623e-09f, 8.666050733e-13f,
    -1.195786803e-10f, 1.100623592e-09f, 1.503731251e-09f, 7.639501809e-10f,
    /* GPUACT_SM_SID: q0h */
    -5.000000000e-01f, -4.961089492e-01f, -4.846162796e-01f, -4.660476148e-01f, -4.412290156e-01f, -4.112191200e-01f,
    -3.772267699e-01f, -3.405244350e-01f, -3.023661077e-01f, -2.407029569e-01f, -2.220009416e-01f, -2.038439065e-01f,
    -1.561975777e-01f, -1.250360310e-01f, -9.688808024e-02f, -7.189340144e-02f, -5.006216839e-02f, -3.130238876e-02f,
    -1.544643380e-02f, -2.275023377e-03f, 8.462156169e-03f, 1.702964306e-02f, 2.369310707e-02f, 2.870970778e-02f,
    3.232140467e-02f, 3.475074843e-02f, 3.619860858e-02f, 3.684340417e-02f, 3.684138507e-02f, 3.632766753e-02f,
    3.541775420e-02f, 3.420928493e-02f, 3.278393298e-02f, 3.120927140e-02f, 2.954060957e-02f, 2.782265842e-02f,
    2.609109506e-02f, 2.437394299e-02f, 2.269280702e-02f, 2.106395178e-02f,
    /* GPUACT_SM_SID: q0l */
    -8.489875469e-13f, -1.467436750e-08f, -7.858597328e-09f, -3.130075310e-09f, -1.138681593e-08f, 2.975500513e-09f,
    -5.294906291e-09f, 5.551498372e-09f, -1.111364423e-08f, -4.915801100e-09f, 7.427236604e-09f, -7.173788674e-09f,
    -7.251132583e-09f, -3.831952089e-09f, -3.835537998e-10f, -2.408845790e-09f, -3.042456009e-10f, -1.652496029e-09f,
    1.029046501e-10f, -4.330443296e-11f, 3.554281869e-10f, -5.515641832e-10f, 4.628012695e-10f, 1.961352608e-11f,
    -1.442046205e-10f, -1.057621546e-09f, 8.267080354e-10f, 8.486329972e-10f, -4.575772816e-10f, 1.477569733e-09f,
    9.159170089e-10f, 9.176155391e-10f, -1.696942031e-09f, 3.880828714e-10f, -5.260014646e-10f, -2.229746249e-10f,
    -5.377190360e-10f, -2.182886372e-10f, 6.811705644e-10f, -5.883127319e-10f,
    /* GPUACT_SM_SID: q1 */
    2.625083206e-10f, 3.100693598e-02f, 6.058099866e-02f, 8.741303533e-02f, 1.104243845e-01f, 1.288430989e-01f,
    1.422418207e-01f, 1.505362391e-01f, 1.539494097e-01f, 1.512717456e-01f, 1.476857066e-01f, 1.426028311e-01f,
    1.303364635e-01f, 1.187606826e-01f, 1.063315868e-01f, 9.362090379e-02f, 8.109208196e-02f, 6.909950823e-02f,
    5.789570510e-02f, 4.764357582e-02f, 3.843108937e-02f, 3.028655052e-02f, 2.319304645e-02f, 1.710134000e-02f,
    1.194074750e-02f, 7.627958898e-03f, 4.073857795e-03f, 1.188602764e-03f, -1.114787767e-03f, -2.918058541e-03f,
    -4.296283703e-03f, -5.317149684e-03f, -6.040754262e-03f, -6.519766990e-03f, -6.799828261e-03f, -6.920087617e-03f,
    -6.913820282e-03f, -6.809062324e-03f, -6.629239302e-03f, -6.393764634e-03f,
    /* GPUACT_SM_SID: q2 */
    8.333330601e-02f, 8.139453083e-02f, 7.574708015e-02f, 6.687423587e-02f, 5.550817400e-02f, 4.253514856e-02f,
    2.888886631e-02f, 1.544994581e-02f, 2.965923166e-03f, -1.094436273e-02f, -1.754280925e-02f, -2.291384898e-02f,
    -2.915577777e-02f, -3.228366375e-02f, -3.375025094e-02f, -3.383405879e-02f, -3.282914683e-02f, -3.101958707e-02f,
    -2.866230160e-02f, -2.597731911e-02f, -2.314400487e-02f, -2.030163445e-02f, -1.755276136e-02f, -1.496815402e-02f,
    -1.259233337e-02f, -1.044903975e-02f, -8.546254598e-03f, -6.880534813e-03f, -5.440608133e-03f, -4.210232757e-03f,
    -3.170392942e-03f, -2.300927881e-03f, -1.581685967e-03f, -9.933084948e-04f, -5.177229759e-04f, -1.384218776e-04f,
    1.594156347e-04f, 3.889102372e-04f, 5.615420523e-04f, 6.872551749e-04f,
    /* GPUACT_SM_SID: q3 */
    1.284017571e-06f, -7.698040456e-03f, -1.472846139e-02f, -2.051563747e-02f, -2.464956418e-02f, -2.692787722e-02f,
    -2.736098878e-02f, -2.614376321e-02f, -2.360380441e-02f, -1.918723807e-02f, -1.597346924e-02f, -1.267355960e-02f,
    -8.082001470e-03f, -4.507344216e-03f, -1.452980679e-03f, 1.018877956e-03f, 2.905517817e-03f, 4.246762954e-03f,
    5.108917598e-03f, 5.571250338e-03f, 5.715695210e-03f, 5.619771779e-03f, 5.352320615e-03f, 4.971450195e-03f,
    4.524087068e-03f, 4.046569578e-03f, 3.565837862e-03f, 3.100892995e-03f, 2.664299915e-03f, 2.263594419e-03f,
    1.902522636e-03f, 1.582080615e-03f, 1.301356126e-03f, 1.058187103e-03f, 8.496613591e-04f, 6.724837585e-04f,
    5.232378608e-04f, 3.985638032e-04f, 2.952737559e-04f, 2.104203595e-04f,
    /* GPUACT_SM_SID: q4 */
    -1.253082789e-02f, -1.194246020e-02f, -1.038027368e-02f, -8.014622144e-03f, -5.153150298e-03f, -2.141365549e-03f,
    6.955783465e-04f, 3.099676920e-03f, 4.907204304e-03f, 6.200118456e-03f, 6.573825143e-03f, 6.558258086e-03f,
    6.070693955e-03f, 5.327451043e-03f, 4.428269342e-03f, 3.481320571e-03f, 2.568301046e-03f, 1.743933419e-03f,
    1.039014664e-03f, 4.652165808e-04f, 2.037351805e-05f, -3.066229692e-04f, -5.317777977e-04f, -6.729467423e-04f,
    -7.477459149e-04f, -7.722672890e-04f, -7.604143466e-04f, -7.236773381e-04f, -6.711928290e-04f, -6.099683233e-04f,
    -5.451847101e-04f, -4.805205681e-04f, -4.184592981e-04f, -3.605645616e-04f, -3.077129950e-04f, -2.602845780e-04f,
    -2.183130127e-04f, -1.816018339e-04f, -1.498111960e-04f, -1.225214073e-04f,
    /* GPUACT_SM_SID: q5 */
    3.644166572e-04f, 1.442158595e-03f, 2.681707963e-03f, 3.562246915e-03f, 3.993399441e-03f, 3.964869771e-03f,
    3.538859775e-03f, 2.827844582e-03f, 1.965588424e-03f, 9.430127102e-04f, 2.663958585e-04f, -2.970869537e-04f,
    -8.284029318e-04f, -1.120860223e-03f, -1.251875889e-03f, -1.255199546e-03f, -1.167736482e-03f, -1.024120720e-03f,
    -8.533516084e-04f, -6.774140638e-04f, -5.113484804e-04f, -3.641641524e-04f, -2.401324455e-04f, -1.401248883e-04f,
    -6.280330126e-05f, -5.572896498e-06f, 3.471559467e-05f, 6.128956011e-05f, 7.716345863e-05f, 8.498415264e-05f,
    8.697307203e-05f, 8.491920744e-05f, 8.022631664e-05f, 7.395492139e-05f, 6.688405847e-05f, 5.956768291e-05f,
    5.238262384e-05f, 4.557181092e-05f, 3.927941725e-05f, 3.357832247e-05f,
    /* GPUACT_SM_GEF: r */
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    /* GPUACT_SM_GEF: c0h */
    5.000000000e-01f, 4.502617717e-01f, 4.012936950e-01f, 3.538302183e-01f, 3.085375428e-01f, 2.659855485e-01f,
    2.266273499e-01f, 1.907869577e-01f, 1.586552262e-01f, 1.302945018e-01f, 1.056497693e-01f, 8.456569910e-02f,
    6.680721045e-02f, 5.208128691e-02f, 4.005914927e-02f, 3.039634228e-02f, 2.275013924e-02f, 1.679331064e-02f,
    1.222449541e-02f, 8.774459362e-03f, 6.209671497e-03f, 4.332423210e-03f, 2.979755402e-03f, 2.020120621e-03f,
    1.349925995e-03f, 8.890032768e-04f, 5.770325661e-04f, 3.690719604e-04f, 2.326369286e-04f, 1.444816589e-04f,
    8.839368820e-05f, 5.328655243e-05f, 3.165006638e-05f, 1.853704453e-05f, 1.066923141e-05f, 6.079673767e-06f,
    3.397464752e-06f, 1.847743988e-06f, 1.013278961e-06f, 5.364418030e-07f,
    /* GPUACT_SM_GEF: c0l */
    0.000000000e+00f, 3.490962630e-09f, -2.065591609e-08f, 1.501215152e-08f, -4.093990036e-09f, -1.944754580e-08f,
    2.523352638e-09f, -4.888272898e-09f, 2.770083540e-08f, 1.535534544e-08f, 4.360672268e-09f, 2.325084125e-08f,
    -9.176545746e-09f, -7.491976817e-09f, 7.598528029e-09f, 1.948773409e-08f, -7.288270876e-09f, -4.193793757e-09f,
    -2.275587363e-08f, 1.573370767e-08f, -6.171569034e-09f, 2.515286823e-08f, 7.833443227e-09f, 1.686921891e-08f,
    -2.796324239e-08f, 2.202228266e-08f, -7.523679457e-09f, 6.493825921e-09f, -7.849522810e-09f, -9.330543005e-10f,
    2.359699813e-08f, 2.579732161e-08f, 2.117545783e-08f, -3.066789322e-10f, 1.929435989e-08f, -8.049855893e-09f,
    2.083725276e-10f, 2.524801701e-08f, 3.804281334e-09f, 7.600472252e-09f,
    /* GPUACT_SM_GEF: q0h */
    -3.989422917e-01f, -3.958376944e-01f, -3.866681159e-01f, -3.718550801e-01f, -3.520653248e-01f, -3.281609714e-01f,
    -3.011374176e-01f, -2.720550001e-01f, -2.419707179e-01f, -2.118766457e-01f, -1.826490909e-01f, -1.550122648e-01f,
    -1.295175999e-01f, -1.065382659e-01f, -8.627732098e-02f, -6.878627837e-02f, -5.399096757e-02f, -4.172098637e-02f,
    -3.173965216e-02f, -2.377190068e-02f, -1.752830110e-02f, -1.272418164e-02f, -9.093562141e-03f, -6.398120429e-03f,
    -4.431848414e-03f, -3.022257937e-03f, -2.029048046e-03f, -1.341118827e-03f, -8.726827218e-04f, -5.590615328e-04f,
    -3.525956708e-04f, -2.189316438e-04f, -1.338302245e-04f, -8.054044883e-05f, -4.771863678e-05f, -2.783403397e-05f,
    -1.598374183e-05f, -9.036388292e-06f, -5.029507520e-06f, -2.755942660e-06f,
    /* GPUACT_SM_GEF: q0l */
    1.133457506e-08f, 7.468940133e-09f, -9.425704661e-10f, -1.373779845e-08f, -1.978847974e-09f, 2.852646119e-09f,
    -1.460205645e-08f, 1.684491435e-09f, -6.616972303e-09f, -9.668077450e-11f, 5.492015287e-09f, -6.149841747e-10f,
    4.270933829e-09f, -2.189386894e-09f, 2.153342393e-09f, 2.540253341e-09f, 1.059245247e-09f, 1.111206238e-09f,
    3.227519918e-10f, -1.445959463e-10f, 6.129173835e-10f, 4.170300216e-11f, -3.594453901e-10f, 1.194295773e-10f,
    2.811456797e-12f, -9.780985744e-11f, -1.111562231e-11f, -4.700199258e-11f, 2.665119514e-11f, 1.044455841e-11f,
    -1.169488291e-11f, 5.827000341e-12f, -1.398614623e-12f, 1.567172499e-13f, 1.403434389e-13f, -3.317617448e-13f,
    6.704460121e-13f, 3.634881567e-13f, 2.038813725e-13f, 4.384154444e-14f,
    /* GPUACT_SM_GEF: q1 */
    1.842189179e-10f, 2.473985590e-02f, 4.833351448e-02f, 6.972283125e-02f, 8.801633120e-02f, 1.025503054e-01f,
    1.129265353e-01f, 1.190240607e-01f, 1.209853590e-01f, 1.191806123e-01f, 1.141556799e-01f, 1.065709293e-01f,
    9.713819623e-02f, 8.656234294e-02f, 7.549265027e-02f, 6.448713690e-02f, 5.399096757e-02f, 4.432854801e-02f,
    3.570710868e-02f, 2.822913229e-02f, 2.191037498e-02f, 1.670048758e-02f, 1.250364818e-02f, 9.197297506e-03f,
    6.647772621e-03f, 4.722278100e-03f, 3.297202988e-03f, 2.263138071e-03f, 1.527194749e-03f, 1.013298985e-03f,
    6.611169083e-04f, 4.241800343e-04f, 2.676604490e-04f, 1.661146671e-04f, 1.014021036e-04f, 6.088694863e-05f,
    3.596341776e-05f, 2.089664667e-05f, 1.194507968e-05f, 6.717609722e-06f,
    /* GPUACT_SM_GEF: q2 */
    6.649035960e-02f, 6.494210660e-02f, 6.041688100e-02f, 5.326048657e-02f, 4.400816187e-02f, 3.332884982e-02f,
    2.195794135e-02f, 1.062715612e-02f, 1.006725370e-08f, -9.379944764e-03f, -1.712334156e-02f, -2.300962433e-02f,
    -2.698282525e-02f, -2.913155220e-02f, -2.965782583e-02f, -2.884007804e-02f, -2.699548565e-02f, -2.444589324e-02f,
    -2.149039321e-02f, -1.838608272e-02f, -1.533726603e-02f, -1.249223296e-02f, -9.946086444e-03f, -7.747725584e-03f,
    -5.909132306e-03f, -4.415330477e-03f, -3.233795520e-03f, -2.322510350e-03f, -1.636279747e-03f, -1.131225727e-03f,
    -7.676298264e-04f, -5.114102387e-04f, -3.345752484e-04f, -2.149840002e-04f, -1.356996509e-04f, -8.415430057e-05f,
    -5.128104749e-05f, -3.070951061e-05f, -1.807473018e-05f, -1.045675162e-05f,
    /* GPUACT_SM_GEF: q3 */
    9.027992292e-07f, -6.152756978e-03f, -1.183164492e-02f, -1.661364175e-02f, -2.017040551e-02f, -2.229934186e-02f,
    -2.293819189e-02f, -2.216201834e-02f, -2.016421221e-02f, -1.722530834e-02f, -1.367488690e-02f, -9.852251038e-03f,
    -6.071130745e-03f, -2.592358738e-03f, 3.931906540e-04f, 2.770928433e-03f, 4.499241710e-03f, 5.598781165e-03f,
    6.137151737e-03f, 6.211871747e-03f, 5.934053566e-03f, 5.414605606e-03f, 4.753986839e-03f, 4.035790451e-03f,
    3.323884681e-03f, 2.662429586e-03f, 2.077925019e-03f, 1.582429279e-03f, 1.177213620e-03f, 8.562916191e-04f,
    6.094683195e-04f, 4.247334728e-04f, 2.899664687e-04f, 1.940175716e-04f, 1.272814261e-04f, 8.189662913e-05f,
    5.169779615e-05f, 3.202547668e-05f, 1.947316559e-05f, 1.162475019e-05f,
    /* GPUACT_SM_GEF: q4 */
    -9.995247237e-03f, -9.579844773e-03f, -8.464546874e-03f, -6.738538854e-03f, -4.581953399e-03f, -2.212054096e-03f,
    1.447143877e-04f, 2.280213870e-03f, 4.027630202e-03f, 5.276995245e-03f, 5.981689319e-03f, 6.155967247e-03f,
    5.864978302e-03f, 5.209716503e-03f, 4.309793003e-03f, 3.286796622e-03f, 2.250417368e-03f, 1.288828789e-03f,
    4.636186932e-04f, -1.908514823e-04f, -6.646650145e-04f, -9.673017194e-04f, -1.121562906e-03f, -1.157537918e-03f,
    -1.107391552e-03f, -1.001416240e-03f, -8.654866251e-04f, -7.198144449e-04f, -5.787502741e-04f, -4.513167369e-04f,
    -3.421589499e-04f, -2.526497119e-04f, -1.819573517e-04f, -1.279592543e-04f, -8.794779569e-05f, -5.912344932e-05f,
    -3.890030712e-05f, -2.506337478e-05f, -1.582051118e-05f, -9.787459021e-06f,
    /* GPUACT_SM_GEF: q5 */
    2.565125178e-04f, 1.020735246e-03f, 1.930051600e-03f, 2.635097597e-03f, 3.069047350e-03f, 3.200758249e-03f,
    3.036720445e-03f, 2.618448809e-03f, 2.013314515e-03f, 1.303595840e-03f, 5.740410998e-04f, -9.940066229e-05f,
    -6.581241032e-04f, -1.065728371e-03f, -1.308972598e-03f, -1.395387226e-03f, -1.348288613e-03f, -1.200897503e-03f,
    -9.899793658e-04f, -7.506327238e-04f, -5.124314339e-04f, -2.972549701e-04f, -1.186940935e-04f, 1.729455289e-05f,
    1.109188961e-04f, 1.667073229e-04f, 1.916626643e-04f, 1.936757035e-04f, 1.803291088e-04f, 1.581511460e-04f,
    1.322429889e-04f, 1.062223164e-04f, 8.236803114e-05f, 6.187509280e-05f, 4.514372995e-05f, 3.205129542e-05f,
    2.217772999e-05f, 1.497393532e-05f, 9.874803254e-06f, 6.365713034e-06f,
    /* GPUACT_SM_GTF: r */
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f,
    /* GPUACT_SM_GTF: c0h */
    5.000000000e-01f, 4.502624273e-01f, 4.012985826e-01f, 3.538459539e-01f, 3.085719943e-01f, 2.660461664e-01f,
    2.267192602e-01f, 1.909112334e-01f, 1.588079929e-01f, 1.304668784e-01f, 1.058286428e-01f, 8.473557234e-02f,
    6.695228815e-02f, 5.218768120e-02f, 4.011690617e-02f, 3.040051460e-02f, 2.270114422e-02f, 1.669663191e-02f,
    1.208949089e-02f, 8.612811565e-03f, 6.033718586e-03f, 4.153847694e-03f, 2.808392048e-03f, 1.863420010e-03f,
    1.212477684e-03f, 7.730722427e-04f, 4.826784134e-04f, 2.948045731e-04f, 1.760721207e-04f, 1.026988029e-04f,
    5.847215652e-05f, 3.248453140e-05f, 1.758337021e-05f, 9.238719940e-06f, 4.768371582e-06f, 2.384185791e-06f,
    1.132488251e-06f, 5.364418030e-07f, 2.384185791e-07f, 1.192092896e-07f,
    /* GPUACT_SM_GTF: c0l */
    0.000000000e+00f, -1.632380453e-08f, 1.463939636e-08f, 1.014623829e-09f, -1.395494476e-08f, -6.352143700e-09f,
    -4.365863504e-10f, -1.118337511e-08f, 1.645654280e-08f, -2.491408857e-08f, -5.220925470e-09f, 2.560060075e-08f,
    -6.137609088e-09f, 2.858477899e-08f, 1.821035056e-08f, -2.753928474e-10f, 8.737667478e-09f, 2.714234526e-08f,
    -1.093615243e-08f, -8.486772174e-09f, -1.214996814e-08f, 2.342807548e-08f, 2.397888821e-08f, -2.242856034e-08f,
    -1.365676372e-08f, 7.724551665e-09f, -2.390731524e-08f, 1.868769495e-08f, -1.564770180e-08f, -2.631080465e-09f,
    -4.937207088e-09f, -2.306480518e-08f, -2.188316017e-08f, 1.104509462e-08f, -2.906902985e-08f, -2.397896814e-08f,
    9.008951807e-09f, -7.365688615e-10f, 5.328911534e-09f, -1.177212017e-08f,
    /* GPUACT_SM_GTF: q0h */
    -3.989422917e-01f, -3.958225250e-01f, -3.866107762e-01f, -3.717377186e-01f, -3.518837690e-01f, -3.279267251e-01f,
    -3.008766770e-01f, -2.718046904e-01f, -2.417721003e-01f, -2.117676288e-01f, -1.826570183e-01f, -1.551485509e-01f,
    -1.297753900e-01f, -1.068936661e-01f, -8.669365942e-02f, -6.922040880e-02f, -5.440020561e-02f, -4.206924140e-02f,
    -3.200178593e-02f, -2.393569238e-02f, -1.759411395e-02f, -1.270275097e-02f, -9.002667852e-03f, -6.258919369e-03f,
    -4.265543539e-03f, -2.847556956e-03f, -1.860615448e-03f, -1.188994967e-03f, -7.424858049e-04f, -4.527111305e-04f,
    -2.692872076e-04f, -1.561372046e-04f, -8.817116759e-05f, -4.845175863e-05f, -2.588740790e-05f, -1.343685381e-05f,
    -6.769726042e-06f, -3.307839506e-06f, -1.566223091e-06f, -7.180181001e-07f,
    /* GPUACT_SM_GTF: q0l */
    1.133454752e-08f, -1.232009517e-08f, 6.815027653e-09f, -6.757303161e-09f, 1.268785743e-09f, 9.221599484e-09f,
    -1.085501378e-08f, 1.649736125e-09f, 7.086565557e-09f, 4.613896820e-09f, 2.399540344e-09f, 5.400077718e-09f,
    6.582766776e-09f, -3.088794553e-09f, -1.012279593e-09f, -3.460337350e-09f, 8.231890170e-10f, 8.458778816e-11f,
    1.725570575e-09f, -2.184161046e-10f, 8.878132673e-10f, 2.880565508e-10f, -3.728713172e-10f, -1.374756003e-10f,
    -1.315095689e-11f, 7.242120532e-12f, 1.742840941e-11f, -1.282030818e-11f, 2.401757439e-11f, 1.066494983e-11f,
    -7.984077809e-12f, 1.978310961e-12f, -3.603572302e-12f, -4.865043915e-13f, -8.448299569e-13f, 3.175164938e-13f,
    -1.637887417e-13f, -9.118947324e-14f, -5.783848437e-15f, 2.414255319e-14f,
    /* GPUACT_SM_GTF: q1 */
    1.928260329e-10f, 2.485884912e-02f, 4.854584858e-02f, 6.998139620e-02f, 8.826064318e-02f, 1.027175337e-01f,
    1.129639223e-01f, 1.189002320e-01f, 1.206979975e-01f, 1.187582985e-01f, 1.136532202e-01f, 1.060589924e-01f,
    9.668965638e-02f, 8.623863757e-02f, 7.533319294e-02f, 6.450387836e-02f, 5.416887254e-02f, 4.463104159e-02f,
    3.608482704e-02f, 2.862962522e-02f, 2.228672430e-02f, 1.701737009e-02f, 1.274024695e-02f, 9.347177111e-03f,
    6.716457661e-03f, 4.723524209e-03f, 3.248945111e-03f, 2.183909062e-03f, 1.433490077e-03f, 9.180486086e-04f,
    5.731714191e-04f, 3.485659836e-04f, 2.063002466e-04f, 1.187302696e-04f, 6.639015919e-05f, 3.603806545e-05f,
    1.897454422e-05f, 9.682142263e-06f, 4.784113571e-06f, 2.287190910e-06f,
    /* GPUACT_SM_GTF: q2 */
    6.681945920e-02f, 6.523605436e-02f, 6.061103940e-02f, 5.330681801e-02f, 4.388468340e-02f, 3.304575011e-02f,
    2.155822143e-02f, 1.018024702e-02f, -4.112510651e-04f, -9.676499292e-03f, -1.724700257e-02f, -2.293554135e-02f,
    -2.672402002e-02f, -2.873459831e-02f, -2.919127792e-02f, -2.837908827e-02f, -2.660667337e-02f, -2.417596057e-02f,
    -2.136044577e-02f, -1.839198731e-02f, -1.545483712e-02f, -1.268522907e-02f, -1.017477456e-02f, -7.976165973e-03f,
    -6.110054906e-03f, -4.572247621e-03f, -3.340679454e-03f, -2.381762723e-03f, -1.655861503e-03f, -1.121735782e-03f,
    -7.398807211e-04f, -4.747790517e-04f, -2.961619757e-04f, -1.794411946e-04f, -1.055157481e-04f, -6.016762927e-05f,
    -3.324365025e-05f, -1.778304613e-05f, -9.202550245e-06f, -4.603299203e-06f,
    /* GPUACT_SM_GTF: q3 */
    9.451670735e-07f, -6.291459315e-03f, -1.208651997e-02f, -1.694127917e-02f, -2.051109821e-02f, -2.258594520e-02f,
    -2.310903557e-02f, -2.217531390e-02f, -2.000958286e-02f, -1.692822762e-02f, -1.329178456e-02f, -9.457308799e-03f,
    -5.738617387e-03f, -2.379737794e-03f, 4.567558353e-04f, 2.688109409e-03f, 4.300180357e-03f, 5.331064574e-03f,
    5.853504874e-03f, 5.958894268e-03f, 5.744403228e-03f, 5.303674378e-03f, 4.720803350e-03f, 4.066979513e-03f,
    3.399091074e-03f, 2.759700408e-03f, 2.177947434e-03f, 1.671078615e-03f, 1.246384229e-03f, 9.033627575e-04f,
    6.359397667e-04f, 4.345723428e-04f, 2.880872926e-04f, 1.851443521e-04f, 1.152711047e-04f, 6.947814836e-05f,
    4.051213182e-05f, 2.283602225e-05f, 1.243490715e-05f, 6.536398359e-06f,
    /* GPUACT_SM_GTF: q4 */
    -1.022426505e-02f, -9.789275005e-03f, -8.620529436e-03f, -6.810390390e-03f, -4.549533129e-03f, -2.072981326e-03f,
    3.700332891e-04f, 2.549440833e-03f, 4.284754395e-03f, 5.466203671e-03f, 6.062304135e-03f, 6.113237701e-03f,
    5.713123363e-03f, 4.986618645e-03f, 4.065670539e-03f, 3.070869949e-03f, 2.099649981e-03f, 1.221407787e-03f,
    4.781298921e-04f, -1.115233099e-04f, -5.466348375e-04f, -8.384173852e-04f, -1.005409751e-03f, -1.069787657e-03f,
    -1.054732827e-03f, -9.826325113e-04f, -8.738655597e-04f, -7.459906628e-04f, -6.132416893e-04f, -4.863025388e-04f,
    -3.723571135e-04f, -2.754018933e-04f, -1.967712451e-04f, -1.357955916e-04f, -9.049427172e-05f, -5.821164086e-05f,
    -3.612983710e-05f, -2.162635064e-05f, -1.247785349e-05f, -6.935880265e-06f,
    /* GPUACT_SM_GTF: q5 */
    2.685561485e-04f, 1.069107675e-03f, 2.023424953e-03f, 2.763917902e-03f, 3.214391647e-03f, 3.334557405e-03f,
    3.127631266e-03f, 2.641103230e-03f, 1.957954839e-03f, 1.180876628e-03f, 4.128412693e-04f, -2.605153422e-04f,
    -7.823652122e-04f, -1.128211268e-03f, -1.302243443e-03f, -1.329195802e-03f, -1.244641608e-03f, -1.086600358e-03f,
    -8.894230123e-04f, -6.806130987e-04f, -4.799455637e-04f, -3.001295263e-04f, -1.481973595e-04f, -2.701107769e-05f,
    6.345931615e-05f, 1.252006914e-04f, 1.615176589e-04f, 1.765785128e-04f, 1.750365191e-04f, 1.616546942e-04f,
    1.409483521e-04f, 1.168549061e-04f, 9.249915456e-05f, 7.008135435e-05f, 5.089685146e-05f, 3.546445441e-05f,
    2.372089148e-05f, 1.523389528e-05f, 9.394168046e-06f, 5.562090337e-06f
};
/* end of the derivatives' tables */
#ifdef GPUACT_TABS_COPY /* the dialect's copy of them (CUDA, HIP: in shared memory) */
GPUACT_TABS_COPY;
#endif

/* Whether y = |x| lies beyond the tables' range (or is NaN): the caller's
   branch to the exponential's evaluation */
GPUACT_FN int gpuact_sm_dtab_off(float y) { return gpuact_sm_rare(gpuact_as_u32(y), 0u, GPUACT_SM_TAB_END_BITS); }
/* U or F(-y) for y <= GPUACT_SM_TAB_END from its table (NaN: the last
   cell) as c0 + the returned small part */
GPUACT_FN float gpuact_sm_tabs(float y, GPUACT_CONST_PTR float *tab, float *c0) {
    const float j = GPUACT_FMA(y < GPUACT_SM_TAB_END ? y : GPUACT_SM_TAB_END, 8.0f, 12582912.0f); /* 1.5 2^23 + k; off the range: the last */
    GPUACT_CONST_PTR float *w = tab + (gpuact_as_u32(j) & 0xffu);
    const float t = GPUACT_FMA(j - 12582912.0f, -0.125f, y);
    enum { C = GPUACT_SM_CELLS }; /* row j of the table at C j: r, c0h, c0l, q0h, q0l, q1 .. q5 */
    const float p = GPUACT_FMA(GPUACT_FMA(GPUACT_FMA(GPUACT_FMA(w[9 * C], t, w[8 * C]), t, w[7 * C]), t, w[6 * C]), t, w[5 * C]);
    const float tm = t - w[0];
    *c0 = w[C];
    return GPUACT_FMA(tm, w[3 * C], GPUACT_FMA(tm, GPUACT_FMA(t, p, w[4 * C]), w[2 * C]));
}
/* a derivative: U at -y, 1 - U at +y */
GPUACT_FN float gpuact_sm_dtab(float x, float y, GPUACT_CONST_PTR float *tab) {
    float c0;
    const float s = gpuact_sm_tabs(y, tab, &c0);
    const float u = c0 + s;
    return x > 0.0f ? 1.0f - u : u;
}
/* a forward x F(x): x F(-y) = x c0 + x s at -y, y - y F(-y) = y (1 - c0) - y s
   at +y, each rounded once but for the small part's product (a forward's
   table has c0 on the grid of 2^-24, so 1 - c0 is exact) */
GPUACT_FN float gpuact_sm_ftab(float x, float y, GPUACT_CONST_PTR float *tab) {
    float c0;
    const float s = gpuact_sm_tabs(y, tab, &c0);
    return x > 0.0f ? GPUACT_FMA(y, 1.0f - c0, -(y * s)) : GPUACT_FMA(x, c0, x * s);
}

GPUACT_FN float gpuact_gelu_erf_d_fast(float x GPUACT_TAB_P) {
    const float y = gpuact_sm_abs(x);
    float r = gpuact_sm_dtab(x, y, GPUACT_TABS + GPUACT_SM_GED);
    if (gpuact_sm_dtab_off(y)) r = gpuact_sm_gelu_erf_d_exp(x);
    return r;
}
GPUACT_FN float gpuact_gelu_tanh_d_fast(float x GPUACT_TAB_P) {
    const float y = gpuact_sm_abs(x);
    float r = gpuact_sm_dtab(x, y, GPUACT_TABS + GPUACT_SM_GTD);
    if (gpuact_sm_dtab_off(y)) r = gpuact_sm_gelu_tanh_d_exp(x);
    return r;
}
GPUACT_FN float gpuact_silu_d_fast(float x GPUACT_TAB_P) {
    const float y = gpuact_sm_abs(x);
    float r = gpuact_sm_dtab(x, y, GPUACT_TABS + GPUACT_SM_SID);
    if (gpuact_sm_dtab_off(y)) r = gpuact_sm_silu_d_exp(x);
    return r;
}
/* the forwards from F(-y)'s table; tiny |x| (x/2 rounded as the exponential's evaluation does) and
   beyond the table on the branch. In parts, so that a caller branches once for several elements
   (act.h, gpuact_fwd_elems): whether x lies off the table, and the table's value. */
GPUACT_FN int gpuact_sm_ftab_off(float x) { return gpuact_sm_rare(gpuact_as_u32(gpuact_sm_abs(x)), 0x33000000u, GPUACT_SM_TAB_END_BITS); }
GPUACT_FN float gpuact_sm_gelu_erf_tab(float x GPUACT_TAB_P) { return gpuact_sm_ftab(x, gpuact_sm_abs(x), GPUACT_TABS + GPUACT_SM_GEF); }
GPUACT_FN float gpuact_sm_gelu_tanh_tab(float x GPUACT_TAB_P) { return gpuact_sm_ftab(x, gpuact_sm_abs(x), GPUACT_TABS + GPUACT_SM_GTF); }
GPUACT_FN float gpuact_gelu_erf_fast(float x GPUACT_TAB_P) {
    float r = gpuact_sm_gelu_erf_tab(x GPUACT_TAB_A);
    if (gpuact_sm_ftab_off(x)) r = gpuact_sm_gelu_erf_exp(x);
    return r;
}
GPUACT_FN float gpuact_gelu_tanh_fast(float x GPUACT_TAB_P) {
    float r = gpuact_sm_gelu_tanh_tab(x GPUACT_TAB_A);
    if (gpuact_sm_ftab_off(x)) r = gpuact_sm_gelu_tanh_exp(x);
    return r;
}

/* ---- cheaper variants for 16-bit results ---------------------------------------------
   gpuact_*_16: the same functions in plain single precision (a few f32 ulps
   instead of one), for kernels whose output is f16 or bf16: rounded to
   either format they give the correctly rounded 16-bit value for every
   f16 and every bf16 input except the counted few listed in
   docs/NUMERICS_SMOOTH.md (values within an f32 ulp or so of a 16-bit
   rounding boundary). Special values as the f32 functions. */

/* e^a = 2^k m for a in [-104, 0]: m (a few ulps) and kb = k + 127. */
GPUACT_FN float gpuact_sm_exp16m(float a, gpuact_u32 *kb) {
    const float j = GPUACT_FMA(a, 1.442695022e+00f, 12582912.0f);
    const float kf = j - 12582912.0f;
    const float r = GPUACT_FMA(-kf, -1.904654212e-09f, GPUACT_FMA(-kf, 6.931471825e-01f, a));
    /* e^r = 1 + r + r^2 q(r): q minimax for e^r's relative error on |r| <= ln2/2 */
    float q = GPUACT_FMA(8.312525228e-03f, r, 4.189011455e-02f);
    q = GPUACT_FMA(q, r, 1.666711420e-01f);
    q = GPUACT_FMA(q, r, 4.999923110e-01f);
    *kb = gpuact_as_u32(j) - 0x4b3fff81u; /* j = 1.5 2^23 + k */
    return GPUACT_FMA(GPUACT_FMA(q, r, 1.0f), r, 1.0f);
}

/* e^a for a in [-104, 0], a few ulps; 2^k applied as 2^(k+64) 2^-64 so a
   subnormal result is rounded once. */
GPUACT_FN float gpuact_sm_exp16(float a) {
    gpuact_u32 kb;
    const float m = gpuact_sm_exp16m(a, &kb);
    return (m * gpuact_sm_pow2(kb + 64u)) * 5.421010862e-20f;
}


/* x sigmoid(z) from e = e^-|z|: x (x < 0 ? e : 1) / (1 + e) (z has x's sign). */
GPUACT_FN float gpuact_sm_xsig16(float x, float e) {
    return (x * (x < 0.0f ? e : 1.0f)) * gpuact_sm_rcp12q(1.0f + e);
}

/* For |x| < 2^-25 the forward functions are x/2 + c x^2 (c in [1/4, 0.4])
   with c x^2 under half an f32 ulp of x/2: x/2 is the correctly rounded f32
   value (the f32 functions' result, and PyTorch's). Rounded to f16 or bf16
   it may be a tie (a subnormal x with its last bit set: every bf16 one, and
   f16's smallest, 2^-24), which rounding to even decides as the f32 path
   and PyTorch do, where the exact value's c x^2 breaks it upwards: the one
   counted difference from the correctly rounded value at +2^-24 in f16
   (tests/accuracy.c checks this rule exactly). */
GPUACT_FN float gpuact_sm_tiny16(float r, float x) { return gpuact_sm_abs(x) < 2.980232239e-08f ? 0.5f * x : r; }

/* The lean functions are straight-line code (selections, no branch), so
   that a kernel's unrolled elements interleave: a branch around the rare
   far range splits the loop into blocks the compiler schedules one at a
   time, and the latency of each element's long dependent chain shows
   (docs/PERFORMANCE.md, "Designs measured and not kept"). The
   far range is reached by arithmetic instead: e = e^-z is set to 0 by
   selection where z > 104, which gives x * 0 (-0, or NaN for -inf) below
   and x (or 1) above, the values the f32 functions select. */
GPUACT_FN float gpuact_sm_exp16z(float z) {
    const float e = gpuact_sm_exp16(z > 104.0f ? -104.0f : -z);
    return z > 104.0f ? 0.0f : e;
}

GPUACT_FN float gpuact_silu_16(float x) {
    return gpuact_sm_canon(gpuact_sm_tiny16(gpuact_sm_xsig16(x, gpuact_sm_exp16z(gpuact_sm_abs(x))), x));
}
/* SiLU of an f16 x (or of x + b of f16 arrays: a multiple of 2^-24) rounded to f16: the f16 bits of
   gpuact_silu_16 with two steps fewer. Such an x is 0 or at least 2^-24 in magnitude, so the x/2 of
   gpuact_sm_tiny16 is never taken; beyond z = 87 the result rounds to -0 (x < 0) or x (x > 0)
   whether e is e^-z or 0, so e is 0 there and 2^k stays a normal float (no 2^64 rescaling). The NaN
   of x = -inf is left as the arithmetic gives it: the caller makes it canonical (gpuact_sm_canon, or
   a conversion to f16 that does). */
GPUACT_FN float gpuact_sm_silu_x16(float x) {
    const float y = gpuact_sm_abs(x);
    gpuact_u32 kb;
    const float m = gpuact_sm_exp16m(y > 87.0f ? -87.0f : -y, &kb); /* kb is set here, before its use */
    return gpuact_sm_xsig16(x, y > 87.0f ? 0.0f : m * gpuact_sm_pow2(kb));
}

GPUACT_FN float gpuact_gelu_tanh_16(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 12.0f ? 12.0f : y;
    const float z = yc * GPUACT_FMA(7.135481387e-02f, yc * yc, 1.595769167e+00f); /* > 104 at yc = 12 */
    return gpuact_sm_canon(gpuact_sm_tiny16(gpuact_sm_xsig16(x, gpuact_sm_exp16z(z)), x));
}

/* y Q(y) for y in [5, 14.5]: c0 e^(-y^2/2 + ln g(y)) (ln g = sigma p(sigma),
   sigma = 1/y^2, p of degree 4 minimax for ln g's absolute error there), for
   the 16-bit GELU's rare far range. */
GPUACT_FN float gpuact_sm_gelu_far16(float y) {
    const float s = y * y, sg = gpuact_sm_rcp_far(s);
    float p = GPUACT_FMA(-2.827107544e+02f, sg, 7.015579987e+01f);
    p = GPUACT_FMA(p, sg, -1.200743008e+01f);
    p = GPUACT_FMA(p, sg, 2.497209311e+00f);
    p = GPUACT_FMA(p, sg, -9.999915361e-01f);
    return gpuact_sm_exp16(GPUACT_FMA(-0.5f, s, GPUACT_FMA(p, sg, -9.189385176e-01f)));
}

/* x Phi(x) = max(x, 0) - |x| Q(|x|): Q(y) = e^(-y^2/2 + L(y)) for y <= 5
   (L of degree 10 in y - 2.5, minimax for its absolute error; straight-line
   code), and y Q(y) from gpuact_sm_gelu_far16 above on a branch that even an
   epilogue's x + b (about N(0, 2)) takes for one element in 2500 (x above 6
   gives x, below -14.5 -0). */
GPUACT_FN float gpuact_gelu_erf_16(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 5.0f ? 5.0f : y;
    const float t = yc - 2.5f;
    float l = GPUACT_FMA(-1.751594247e-08f, t, 7.995284790e-08f);
    l = GPUACT_FMA(l, t, 9.835952852e-08f);
    l = GPUACT_FMA(l, t, -2.360654435e-06f);
    l = GPUACT_FMA(l, t, 2.132115515e-05f);
    l = GPUACT_FMA(l, t, -1.664257434e-04f);
    l = GPUACT_FMA(l, t, 1.135223894e-03f);
    l = GPUACT_FMA(l, t, -7.147261407e-03f);
    l = GPUACT_FMA(l, t, 4.448678344e-02f);
    l = GPUACT_FMA(l, t, -3.227445483e-01f);
    l = GPUACT_FMA(l, t, -1.956648231e+00f);
    {
        const float q = gpuact_sm_exp16(GPUACT_FMA(-0.5f * yc, yc, l));
        float r = gpuact_sm_tiny16(GPUACT_FMA(-yc, q, x > 0.0f ? x : 0.0f), x);
        if (y > 5.0f) {
            const float q = gpuact_sm_gelu_far16(y);
            r = x > 6.0f ? x : (x < -14.5f ? x * 0.0f : (x > 0.0f ? x - q : -q)); /* -q: -0 where q underflows */
        }
        return gpuact_sm_canon(r);
    }
}

/* x > 0 ? 1 - U : U, U = e (1 - Y r), r = 1/(1 + e): the SiLU and
   tanh-GELU derivatives (Y = y z'). */
GPUACT_FN float gpuact_sm_dsig16(float x, float e, float yz) {
    const float r = gpuact_sm_rcp12q(1.0f + e);
    const float u = (e * r) * GPUACT_FMA(-yz, r, 1.0f);
    return x > 0.0f ? 1.0f - u : u;
}

GPUACT_FN float gpuact_silu_d_16(float x) {
    const float y = gpuact_sm_abs(x);
    return gpuact_sm_canon(gpuact_sm_dsig16(x, gpuact_sm_exp16z(y), y));
}

GPUACT_FN float gpuact_gelu_tanh_d_16(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 12.0f ? 12.0f : y;
    const float s = yc * yc;
    const float z = yc * GPUACT_FMA(7.135481387e-02f, s, 1.595769167e+00f);
    /* yc + (y - y): NaN at +-inf (as the f32 function gives), yc for every finite y */
    const float yz = (yc + (y - y)) * GPUACT_FMA(2.140644491e-01f, s, 1.595769167e+00f);
    return gpuact_sm_canon(gpuact_sm_dsig16(x, gpuact_sm_exp16z(z), yz));
}

/* x > 0 ? 1 - U : U, U = e^(-y^2/2) (y - y0) P(y) for y <= 5 (P of degree
   12 in y - 2.5, minimax for its relative error; straight-line code),
   -c0 y e^(-y^2/2) (1 - G(1/y^2)/y^2) for y in (5, 14.6] on a branch (G:
   degree 4, minimax for the relative error of 1 - G/y^2; x above 6.5 gives 1). */
GPUACT_FN float gpuact_gelu_erf_d_16(float x) {
    const float y = gpuact_sm_abs(x);
    const float yc = y > 5.0f ? 5.0f : y;
    const float t = yc - 2.5f;
    float p = GPUACT_FMA(-3.900221923e-09f, t, 1.964838958e-08f);
    p = GPUACT_FMA(p, t, -2.482260619e-08f);
    p = GPUACT_FMA(p, t, 1.363684135e-07f);
    p = GPUACT_FMA(p, t, -1.210353389e-06f);
    p = GPUACT_FMA(p, t, 5.571672318e-06f);
    p = GPUACT_FMA(p, t, -2.336120087e-05f);
    p = GPUACT_FMA(p, t, 1.028860861e-04f);
    p = GPUACT_FMA(p, t, -4.387894005e-04f);
    p = GPUACT_FMA(p, t, 1.784801716e-03f);
    p = GPUACT_FMA(p, t, -6.950240117e-03f);
    p = GPUACT_FMA(p, t, 2.579875849e-02f);
    p = GPUACT_FMA(p, t, -4.896580577e-01f);
    {
        /* yc + (y - y): NaN at +-inf, as the f32 function gives */
        const float u = (gpuact_sm_exp16(-0.5f * yc * yc) * ((yc + (y - y)) - 7.517915368e-01f)) * p;
        float r = x > 0.0f ? 1.0f - u : u;
        if (y > 5.0f) {
            if (x > 6.5f) {
                r = (x - x) + 1.0f; /* +inf: NaN, as the f32 functions give */
            } else if (x < -14.6f) {
                r = x * 0.0f;
            } else {
                const float s = y * y, sg = gpuact_sm_rcp_far(s);
                float g = GPUACT_FMA(4.418901062e+01f, sg, -1.283522797e+01f);
                g = GPUACT_FMA(g, sg, 2.960027456e+00f);
                g = GPUACT_FMA(g, sg, -9.996528625e-01f);
                g = GPUACT_FMA(g, sg, 9.999989271e-01f);
                {
                    const float w = gpuact_sm_exp16(-0.5f * s) * ((3.989422917e-01f * y) * GPUACT_FMA(-sg, g, 1.0f));
                    r = x > 0.0f ? 1.0f + w : -w;
                }
            }
        }
        return gpuact_sm_canon(r);
    }
}

/* ---- quick 16-bit forwards --------------------------------------------------------------
   Where the dialect has the hardware's approximate 2^a and 1/d (GPUACT_EX2_APPROX and
   GPUACT_RCP_APPROX: CUDA's MUFU), the elementwise bf16 forward first evaluates
   gpuact_*_qbf16 below, and so does the f16 one of GELU and tanh-GELU in the default
   evaluation: about half the instructions of gpuact_*_16. Over its quick range each is
   within a few f32 ulps of the lean function, measured exhaustively (tools/qbf16_distance.cu).
   In bf16, GELU's and tanh-GELU's quick values round as the lean and precise functions'
   on every input of the range, so they are kept throughout it; SiLU's are kept only
   farther than d f32 ulps from every bf16 rounding boundary (d: the largest distance from
   the lean value over every bf16 input of the range, with a margin). Anywhere else (|x|
   outside the quick range, a SiLU value near a boundary) the lean function runs, so the
   bf16 results are the lean function's bits on every input: the conformance suite's
   65536-element cases run every 16-bit input on the device. In f16 the quick GELU and
   tanh-GELU values are kept throughout the range too, and round differently from the lean
   function's at a counted few inputs, each within a few f32 ulps of a rounding midpoint:
   a margin there would send most warps to the lean function (13 bits below f16's rounding
   position leave 8 times as many values near a boundary as bf16's 16), which cost more
   than the quick values save (docs/NUMERICS_SMOOTH.md). SiLU's f16 forward stays lean. */
#if defined(GPUACT_EX2_APPROX) && defined(GPUACT_RCP_APPROX)
#define GPUACT_QUICK_BF16 1

/* x sigmoid(z) from e = e^-|z|, as gpuact_sm_xsig16 */
GPUACT_FN float gpuact_sm_xsig_q(float x, float e) {
    return (x * (x < 0.0f ? e : 1.0f)) * GPUACT_RCP_APPROX(1.0f + e);
}

/* e^-z = 2^p, p = -z log2(e): as rounded (SiLU: |z| <= 16), or (tanh-GELU: z up to 36, where p's
   rounding alone is 20 f32 ulps of e) carried as p + pe from two fused multiply-adds */
GPUACT_FN float gpuact_sm_expm_q(float z, int exact_p) {
    const float p = z * -1.442695022e+00f;
    const float e = GPUACT_EX2_APPROX(p);
    if (!exact_p) return e;
    {
        const float pe = GPUACT_FMA(z, -1.925963034e-08f, GPUACT_FMA(z, -1.442695022e+00f, -p));
        return GPUACT_FMA(e, pe * 6.931471825e-01f, e);
    }
}

/* 1 where |x| is in [2^-12, hi] (0 for NaN) */
GPUACT_FN int gpuact_sm_qbf16_in(float y, float hi) { return y >= 2.44140625e-04f && y <= hi; }

/* and v rounds to bf16 as every value within d f32 ulps of it does */
GPUACT_FN int gpuact_sm_qbf16_ok(float y, float hi, float v, int d) {
    const int r = (int)(gpuact_as_u32(v) & 0xffffu) - 0x8000;
    return gpuact_sm_qbf16_in(y, hi) && (r > d || r < -d);
}

GPUACT_FN float gpuact_silu_qbf16(float x, int *ok) {
    const float y = gpuact_sm_abs(x);
    const float v = gpuact_sm_xsig_q(x, gpuact_sm_expm_q(y, 0));
    *ok = gpuact_sm_qbf16_ok(y, 16.0f, v, 24);
    return v;
}

GPUACT_FN float gpuact_gelu_tanh_qbf16(float x, int *ok) {
    const float y = gpuact_sm_abs(x);
    const float v = gpuact_sm_xsig_q(x, gpuact_sm_expm_q(y * GPUACT_FMA(7.135481387e-02f, y * y, 1.595769167e+00f), 1));
    *ok = gpuact_sm_qbf16_in(y, 8.0f);
    return v;
}

/* x Phi(x) = max(x, 0) - y Q(y) for y = |x| <= 4: Q(y) = 2^(-y^2 / (2 ln 2) + p(y - 2)), p of
   degree 8, a Chebyshev fit of log2 Q(y) + y^2 / (2 ln 2) over [0, 4]. */
GPUACT_FN float gpuact_sm_gelu_q2(float y) { /* log2 Q(y) as above */
    const float t = y - 2.0f;
    float p = GPUACT_FMA(-9.041387443e-07f, t, -3.858811510e-07f);
    p = GPUACT_FMA(p, t, 4.292379890e-05f);
    p = GPUACT_FMA(p, t, -3.566488158e-04f);
    p = GPUACT_FMA(p, t, 2.367363544e-03f);
    p = GPUACT_FMA(p, t, -1.426432841e-02f);
    p = GPUACT_FMA(p, t, 8.243612945e-02f);
    p = GPUACT_FMA(p, t, -5.384386182e-01f);
    p = GPUACT_FMA(p, t, -2.572591305e+00f);
    return GPUACT_FMA(-7.213475108e-01f * y, y, p);
}
GPUACT_FN float gpuact_gelu_erf_qbf16(float x, int *ok) {
    const float y = gpuact_sm_abs(x);
    const float v = GPUACT_FMA(-y, GPUACT_EX2_APPROX(gpuact_sm_gelu_q2(y)), x > 0.0f ? x : 0.0f);
    *ok = gpuact_sm_qbf16_in(y, 4.0f);
    return v;
}
/* The gated backward's GELU and its derivative (as gpuact_sm_glu_q below): the quick
   forward's value, and x > 0 ? 1 - U : U with U = Q(y) - y phi(y), phi(y) = c0 2^(-y^2 / (2 ln 2)),
   within GPUACT_QGLU_GRAD_ABS_ERF * 2^-23 of the lean derivative. */
GPUACT_FN float gpuact_gelu_erf_glu_qbf16(float x, float *grad, int *ok) {
    const float y = gpuact_sm_abs(x), q = GPUACT_EX2_APPROX(gpuact_sm_gelu_q2(y));
    const float u = GPUACT_FMA(-3.989422917e-01f * y, GPUACT_EX2_APPROX(-7.213475108e-01f * y * y), q);
    *grad = x > 0.0f ? 1.0f - u : u;
    *ok = gpuact_sm_qbf16_in(y, 4.0f);
    return GPUACT_FMA(-y, q, x > 0.0f ? x : 0.0f);
}
/* The gated backward's act(x) and act'(x) for SiLU and tanh-GELU from one quick e = e^-z and
   r = 1 / (1 + e) (z as gpuact_*_qbf16 forms it; Y = y z', gpuact_sm_dsig16): act as the quick
   forward, within the kind's gpuact_qglu_act_ulps f32 ulps of the lean function over every bf16
   input of the quick range, and act' within GPUACT_QGLU_GRAD_ABS_SIG * 2^-23 of the lean
   derivative (an absolute bound: near the derivative's root its value cancels); *ok: x in the
   quick range. */
GPUACT_FN float gpuact_sm_glu_q(float x, float y, float z, float yz, int exact_p, float hi, float *grad, int *ok) {
    const float e = gpuact_sm_expm_q(z, exact_p), r = GPUACT_RCP_APPROX(1.0f + e);
    const float u = (e * r) * GPUACT_FMA(-yz, r, 1.0f);
    *grad = x > 0.0f ? 1.0f - u : u;
    *ok = gpuact_sm_qbf16_in(y, hi);
    return (x * (x < 0.0f ? e : 1.0f)) * r;
}
/* The bf16 epilogue's quick SiLU and tanh-GELU of an f32 z (../act.h, gpuact_qbf16_epi):
   z / (1 + e^-u) with u = z (SiLU) or z (c1 + c3 z^2) (tanh-GELU, e^-u carried as gpuact_sm_expm_q
   does), no absolute value and no selection: both signs, 0 and the subnormals in the same few
   multiplications, so the kernel issues nearly no integer or comparison instructions besides (the
   pipe that bound it). For |z| up to GPUACT_QEPI_HI_* (tanh-GELU: 1 + e^-u stays below 2^126;
   SiLU: without the carried exponent, whose instructions cost more than the wider range saved). */
#define GPUACT_QEPI_HI_SILU 16.0f
#define GPUACT_QEPI_HI_TANH 10.0f
GPUACT_FN float gpuact_sm_silu_qepi(float z) { return z * GPUACT_RCP_APPROX(1.0f + gpuact_sm_expm_q(z, 0)); }
GPUACT_FN float gpuact_sm_gelu_tanh_qepi(float z) {
    return z * GPUACT_RCP_APPROX(1.0f + gpuact_sm_expm_q(z * GPUACT_FMA(7.135481387e-02f, z * z, 1.595769167e+00f), 1));
}
/* The bounds, twice the largest distances tools/qbf16_distance.cu measures (docs/NUMERICS_SMOOTH.md):
   act's in f32 ulps per kind (GELU, tanh-GELU, SiLU), act''s absolute in 2^-23 */
#define GPUACT_QGLU_ACT_ULPS_ERF 18
#define GPUACT_QGLU_ACT_ULPS_TANH 10
#define GPUACT_QGLU_ACT_ULPS_SILU 24
#define GPUACT_QGLU_GRAD_ABS_SIG 2 /* SiLU, tanh-GELU */
#define GPUACT_QGLU_GRAD_ABS_ERF 6 /* GELU */
/* The bf16 epilogue's (act of z = x + b, ../act.h's gpuact_qbf16_epi): twice the largest distance of
   the quick act from the lean one over every f32 z of the quick range, in f32 ulps
   (tools/qbf16_distance.cu measures it, docs/NUMERICS_SMOOTH.md) */
#define GPUACT_QEPI_ULPS_TANH 14
#define GPUACT_QEPI_ULPS_SILU 34
/* Whether a product of a quick value rounds to bf16 as the lean one does: farther from a bf16
   rounding boundary than its distance from it can reach. db = g * act (the gated forward's
   y = act * b too): the kind's act bound doubled (the product's binade), and two roundings; a kept
   db has a nonzero act. da = t * act' (qg: the quick act'): act''s bound relative to |qg|, doubled
   for da's binade, and two roundings; a kept da has qg far from 0 (its sign is the lean one's). */
GPUACT_FN int gpuact_qglu_act_kept(float v, int ulps) {
    const int r = (int)(gpuact_as_u32(v) & 0xffffu) - 0x8000, d = 2 * ulps + 2;
    return r > d || r < -d;
}
GPUACT_FN int gpuact_qglu_grad_kept(float da, float qg, float grad_abs) {
    const float ra = gpuact_sm_abs((float)((int)(gpuact_as_u32(da) & 0xffffu) - 0x8000));
    return GPUACT_FMA(ra, gpuact_sm_abs(qg), -2.0f * gpuact_sm_abs(qg)) > 2.0001f * grad_abs;
}
GPUACT_FN float gpuact_silu_glu_qbf16(float x, float *grad, int *ok) {
    const float y = gpuact_sm_abs(x);
    return gpuact_sm_glu_q(x, y, y, y, 0, 16.0f, grad, ok);
}
GPUACT_FN float gpuact_gelu_tanh_glu_qbf16(float x, float *grad, int *ok) {
    const float y = gpuact_sm_abs(x), s = y * y;
    return gpuact_sm_glu_q(x, y, y * GPUACT_FMA(7.135481387e-02f, s, 1.595769167e+00f),
                           y * GPUACT_FMA(2.140644491e-01f, s, 1.595769167e+00f), 1, 8.0f, grad, ok);
}

#endif

#endif
