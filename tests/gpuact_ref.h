/*
gpuact_ref.h -- the scalar CPU reference of gpuact's numerics.

Every op of docs/NUMERICS.md (forward, backward, epilogue, mask format), element by
element in plain C99, so the conformance suite can compare a backend's output
bit for bit. Header-only and all-static: include it in each test that needs
it. It includes only the declarations of "../gpuact.h".

WHY IT IS WRITTEN THIS WAY
    The reference must give the same bits on every compiler and flag set.
    - Conversions to f16 and bf16 work on the f32 bit pattern with integer
      arithmetic: one rounding (to nearest even), never through double, and
      NaN payloads handled explicitly.
    - Float arithmetic appears only as single IEEE operations (one add, one
      multiply) whose result is assigned to a float, so it is rounded to f32
      even where the compiler evaluates in wider precision (C99 6.3.1.8:
      assignment and casts remove excess range and precision; and for one
      add or multiply of two floats, a double or x87 intermediate rounds to
      the same f32 as a direct f32 operation would).
    - No multiply ever feeds an add, so FMA contraction has nothing to fuse,
      whether or not the compiler honours FP_CONTRACT (GCC ignores the pragma
      and warns about it, hence the guard below).
    - NaN tests and pass-through copies use raw bits: moving a signalling NaN
      through an x87 register would quiet it.

CONVENTIONS
    Raw element bits are returned in a uint32_t (16 significant bits for f16
    and bf16). An unknown dtype reads as 0 and writes nothing.
*/
#ifndef GPUACT_REF_H
#define GPUACT_REF_H

#if !defined(__GNUC__) || defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "../gpuact.h"
#include "../kernels/contract.h" /* the kinds' table: which are smooth */
#include <stdint.h>
#include <string.h>
#include <math.h>
#include "gpuact_smooth_ref.h" /* GELU, SiLU: the kernels' own math (kernels/smooth.h) */
#include "../kernels/fewbit.h"  /* the few-bit tables */

#if defined(__GNUC__)
#define GPUACT_REF_FN static __attribute__((unused))
#else
#define GPUACT_REF_FN static
#endif

/* >>bit casts */

GPUACT_REF_FN uint32_t gpuact_ref_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

GPUACT_REF_FN float gpuact_ref_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* NaN test on the bits, so it holds under -ffast-math and on x87 as well. */
GPUACT_REF_FN int gpuact_ref__isnan(float f)
{
    return (gpuact_ref_f32_bits(f) & 0x7fffffffu) > 0x7f800000u;
}

/* >>conversions */

/* Rounds q + r/2^s (r < 2^s, the discarded bits) to nearest even. */
GPUACT_REF_FN uint32_t gpuact_ref__round_shift(uint32_t m, unsigned s)
{
    uint32_t q = m >> s;
    uint32_t r = m & ((1u << s) - 1u);
    uint32_t half = 1u << (s - 1u);
    if (r > half || (r == half && (q & 1u)))
        q += 1u;
    return q;
}

GPUACT_REF_FN uint16_t gpuact_ref_f32_to_f16(float f)
{
    uint32_t u = gpuact_ref_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu;
    uint32_t mant = u & 0x7fffffu;
    int e = (int)exp - 127;

    if (exp == 0xffu) {
        if (mant == 0)
            return (uint16_t)(sign | 0x7c00u);
        /* Quiet it, keep the sign and the top 10 payload bits. */
        return (uint16_t)(sign | 0x7c00u | 0x200u | (mant >> 13));
    }
    if (exp == 0)   /* f32 zero or subnormal: below 2^-126, far under half of f16's 2^-24 */
        return sign;
    if (e > 15)
        return (uint16_t)(sign | 0x7c00u);
    if (e >= -14) {
        /* Normal f16. A rounding carry out of the mantissa steps the
           exponent, and from the largest finite value on to Inf: both are
           the right encodings, so the carry needs no special case. */
        uint32_t h = ((uint32_t)(e + 15) << 10) | (mant >> 13);
        uint32_t r = mant & 0x1fffu;
        if (r > 0x1000u || (r == 0x1000u && (h & 1u)))
            h += 1u;
        return (uint16_t)(sign | h);
    }
    /* Subnormal f16: units of 2^-24. The value is (mant | 2^23) * 2^(e-23),
       so the count of units is that significand shifted right by -(e+1).
       A shift of 24 leaves only the rounding (2^-25 is the tie with 0);
       beyond it the value is under half a unit. Rounding up to 0x400 gives
       the smallest normal, again the right encoding. */
    if (e < -25)
        return sign;
    return (uint16_t)(sign | gpuact_ref__round_shift(mant | 0x800000u, (unsigned)(-(e + 1))));
}

GPUACT_REF_FN float gpuact_ref_f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)h >> 10) & 0x1fu;
    uint32_t mant = (uint32_t)h & 0x3ffu;

    if (exp == 0x1fu) {
        if (mant == 0)
            return gpuact_ref_bits_f32(sign | 0x7f800000u);
        return gpuact_ref_bits_f32(sign | 0x7f800000u | 0x400000u | (mant << 13));
    }
    if (exp == 0) {
        int e = -14;
        if (mant == 0)
            return gpuact_ref_bits_f32(sign);
        /* Subnormal: mant * 2^-24; normalise until the implicit bit (0x400) is set. */
        while (!(mant & 0x400u)) {
            mant <<= 1;
            e -= 1;
        }
        return gpuact_ref_bits_f32(sign | ((uint32_t)(e + 127) << 23) | ((mant & 0x3ffu) << 13));
    }
    return gpuact_ref_bits_f32(sign | ((exp - 15u + 127u) << 23) | (mant << 13));
}

GPUACT_REF_FN uint16_t gpuact_ref_f32_to_bf16(float f)
{
    uint32_t u = gpuact_ref_f32_bits(f);
    /* A NaN with payload only in the low 16 bits would truncate to Inf, and
       rounding up could carry into the sign: quiet it explicitly instead. */
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u);
    /* Adding 0x7fff plus the kept LSB rounds to nearest even; the carry
       reaches the exponent (and Inf from the largest values) as it should. */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

GPUACT_REF_FN float gpuact_ref_bf16_to_f32(uint16_t h)
{
    return gpuact_ref_bits_f32((uint32_t)h << 16);
}

/* >>element access */

GPUACT_REF_FN size_t gpuact_ref__size(gpuact_dtype dt)
{
    switch (dt) {
    case GPUACT_F32: return 4;
    case GPUACT_F16:
    case GPUACT_BF16: return 2;
    }
    return 0;
}

GPUACT_REF_FN uint32_t gpuact_ref_raw(gpuact_dtype dt, const void *base, size_t i)
{
    const unsigned char *p = (const unsigned char *)base + i * gpuact_ref__size(dt);
    uint32_t u32;
    uint16_t u16;
    switch (dt) {
    case GPUACT_F32:
        memcpy(&u32, p, 4);
        return u32;
    case GPUACT_F16:
    case GPUACT_BF16:
        memcpy(&u16, p, 2);
        return u16;
    }
    return 0;
}

GPUACT_REF_FN void gpuact_ref_store_raw(gpuact_dtype dt, void *base, size_t i, uint32_t bits)
{
    unsigned char *p = (unsigned char *)base + i * gpuact_ref__size(dt);
    uint16_t u16 = (uint16_t)bits;
    switch (dt) {
    case GPUACT_F32:
        memcpy(p, &bits, 4);
        break;
    case GPUACT_F16:
    case GPUACT_BF16:
        memcpy(p, &u16, 2);
        break;
    }
}

GPUACT_REF_FN float gpuact_ref_load(gpuact_dtype dt, const void *base, size_t i)
{
    uint32_t bits = gpuact_ref_raw(dt, base, i);
    switch (dt) {
    case GPUACT_F32: return gpuact_ref_bits_f32(bits);
    case GPUACT_F16: return gpuact_ref_f16_to_f32((uint16_t)bits);
    case GPUACT_BF16: return gpuact_ref_bf16_to_f32((uint16_t)bits);
    }
    return 0.0f;
}

GPUACT_REF_FN void gpuact_ref_store(gpuact_dtype dt, void *base, size_t i, float v)
{
    switch (dt) {
    case GPUACT_F32: gpuact_ref_store_raw(dt, base, i, gpuact_ref_f32_bits(v)); break;
    case GPUACT_F16: gpuact_ref_store_raw(dt, base, i, gpuact_ref_f32_to_f16(v)); break;
    case GPUACT_BF16: gpuact_ref_store_raw(dt, base, i, gpuact_ref_f32_to_bf16(v)); break;
    }
}

GPUACT_REF_FN int gpuact_ref_raw_isnan(gpuact_dtype dt, uint32_t bits)
{
    switch (dt) {
    case GPUACT_F32: return (bits & 0x7fffffffu) > 0x7f800000u;
    case GPUACT_F16: return (bits & 0x7fffu) > 0x7c00u;
    case GPUACT_BF16: return (bits & 0x7fffu) > 0x7f80u;
    }
    return 0;
}

/* >>activations */

/* A bound of -0 acts as +0 (as gpuact's argument checks make it). */
GPUACT_REF_FN float gpuact_ref__bound(float b) { return b == 0.0f ? 0.0f : b; }

/* The smooth kinds' evaluation for a result stored as `out`, as the
   kernels choose it (kernels/act.h's gpuact_eval): GPUACT_ACT_PRECISE the
   precise one (kernels/smooth.h's gpuact_gelu_erf, ...), else a 16-bit
   result the lean one (gpuact_*_16) and an f32 result the default one
   (gpuact_*_fast). */
enum { GPUACT_REF_PRECISE, GPUACT_REF_FAST, GPUACT_REF_LEAN };
GPUACT_REF_FN int gpuact_ref__eval(gpuact_activation a, gpuact_dtype out)
{
    return (a.flags & GPUACT_ACT_PRECISE) ? GPUACT_REF_PRECISE
           : gpuact_ref__size(out) == 2   ? GPUACT_REF_LEAN
                                          : GPUACT_REF_FAST;
}
#define GPUACT_REF_EVAL_(ev, f, z) \
    ((ev) == GPUACT_REF_LEAN ? f##_16(z) : (ev) == GPUACT_REF_FAST ? f##_fast(z) : f(z))

/* act(z) for a result stored as `out` (gpuact_ref__eval). */
GPUACT_REF_FN float gpuact_ref_act(gpuact_activation a, float z, gpuact_dtype out)
{
    const int ev = gpuact_ref__eval(a, out);
    switch (a.kind) {
    case GPUACT_LEAKY_RELU:
        return (z > 0) ? z : z * a.negative_slope;
    case GPUACT_CLIPPED_RELU:
        return (z <= 0) ? 0.0f : (z >= a.ceiling ? a.ceiling : z);
    case GPUACT_HARDTANH: {
        /* torch.clamp: max then min, with -0 < +0 at a bound of 0 */
        float lo = gpuact_ref__bound(a.lower), hi = gpuact_ref__bound(a.ceiling);
        return (z <= lo) ? lo : (z > hi ? hi : z);
    }
    case GPUACT_GELU: return GPUACT_REF_EVAL_(ev, gpuact_gelu_erf, z);
    case GPUACT_GELU_TANH: return GPUACT_REF_EVAL_(ev, gpuact_gelu_tanh, z);
    case GPUACT_SILU: return GPUACT_REF_EVAL_(ev, gpuact_silu, z);
    case GPUACT_SQUARED_RELU: return (z <= 0) ? 0.0f : z * z;
    case GPUACT_RELU:
        break;
    }
    /* NaN fails the comparison and comes back itself; -0 <= 0 gives +0. */
    return (z <= 0) ? 0.0f : z;
}

/* A column of the kind's row of kernels/contract.h's GPUACT_ACTIVATIONS
   (0 for a kind not in the table). */
enum { GPUACT_REF_SLOPE, GPUACT_REF_CEILING, GPUACT_REF_LOWER, GPUACT_REF_FROM_Y, GPUACT_REF_SELECT, GPUACT_REF_GLU };
GPUACT_REF_FN int gpuact_ref_kind_has(gpuact_activation_kind kind, int column)
{
#define GPUACT_REF_KIND_ROW_(name, slope, ceiling, lower, from_y, select, glu) {slope, ceiling, lower, from_y, select, glu},
    static const unsigned char rows[][6] = {GPUACT_ACTIVATIONS(GPUACT_REF_KIND_ROW_)};
#undef GPUACT_REF_KIND_ROW_
    return (unsigned)kind < GPUACT_KIND_COUNT && rows[kind][column];
}

/* Whether a kind is smooth (select 0): no mask, dx = dy * act'(z). */
GPUACT_REF_FN int gpuact_ref_smooth(gpuact_activation a)
{
    return (unsigned)a.kind < GPUACT_KIND_COUNT && !gpuact_ref_kind_has(a.kind, GPUACT_REF_SELECT);
}

/* d act / dz of a smooth kind, for a result stored as `out` (as gpuact_ref_act). */
GPUACT_REF_FN float gpuact_ref_grad(gpuact_activation a, float z, gpuact_dtype out)
{
    const int ev = gpuact_ref__eval(a, out);
    switch (a.kind) {
    case GPUACT_GELU: return GPUACT_REF_EVAL_(ev, gpuact_gelu_erf_d, z);
    case GPUACT_GELU_TANH: return GPUACT_REF_EVAL_(ev, gpuact_gelu_tanh_d, z);
    case GPUACT_SILU: return GPUACT_REF_EVAL_(ev, gpuact_silu_d, z);
    case GPUACT_SQUARED_RELU: return (z <= 0) ? 0.0f : z + z;   /* NaN gives NaN */
    case GPUACT_RELU:
    case GPUACT_LEAKY_RELU:
    case GPUACT_CLIPPED_RELU:
    case GPUACT_HARDTANH:
        break;   /* the ReLU family's backward selects (gpuact_ref_passes) */
    }
    return 0.0f;
}

GPUACT_REF_FN int gpuact_ref_passes(gpuact_activation a, float v)
{
    switch (a.kind) {
    case GPUACT_LEAKY_RELU:
        return v > 0;
    case GPUACT_CLIPPED_RELU:
        return !(v <= 0 || v >= a.ceiling);
    case GPUACT_HARDTANH:
        return !(v <= a.lower || v >= a.ceiling);
    case GPUACT_RELU:
        return !(v <= 0);
    case GPUACT_GELU:
    case GPUACT_GELU_TANH:
    case GPUACT_SILU:
    case GPUACT_SQUARED_RELU:
        break;   /* smooth: no selection, dx = dy * gpuact_ref_grad */
    }
    return 0;
}

GPUACT_REF_FN gpuact_activation gpuact_ref_elementwise_act(gpuact_activation a, gpuact_dtype dt)
{
    /* The elementwise ops clip f16/bf16 at the bounds as the dtype holds
       them (as torch converts them to the tensor's type), so that a
       backward from the output y sees the same region as one from x. */
    if ((a.kind == GPUACT_CLIPPED_RELU || a.kind == GPUACT_HARDTANH) && (dt == GPUACT_F16 || dt == GPUACT_BF16)) {
        uint16_t tmp;
        gpuact_ref_store(dt, &tmp, 0, a.ceiling);
        a.ceiling = gpuact_ref_load(dt, &tmp, 0);
        gpuact_ref_store(dt, &tmp, 0, a.lower);
        a.lower = gpuact_ref_load(dt, &tmp, 0);
    }
    return a;
}

/* >>mask */

GPUACT_REF_FN int gpuact_ref__mask_bit(const unsigned char *mask, size_t bit)
{
    return (mask[bit / 8] >> (bit % 8)) & 1;
}

GPUACT_REF_FN void gpuact_ref__mask_set(unsigned char *mask, size_t bit)
{
    mask[bit / 8] = (unsigned char)(mask[bit / 8] | (1u << (bit % 8)));
}

/* >>few-bit codes (gpuact.h's FEW-BIT CODES) */

/* The table of a kind with one (GELU, GELU tanh, SiLU: 0, 1, 2), else -1. */
GPUACT_REF_FN int gpuact_ref_code_table(gpuact_activation a)
{
    return a.kind == GPUACT_GELU ? 0 : a.kind == GPUACT_GELU_TANH ? 1 : a.kind == GPUACT_SILU ? 2 : -1;
}

/* The code of z: how many of the table's 2^bits - 1 boundaries are <= z
   (counted one by one; NaN compares false: 0). */
GPUACT_REF_FN unsigned gpuact_ref_code(gpuact_activation a, int bits, float z)
{
    static const float bounds[] = GPUACT_FEWBIT_BOUNDS;
    const float *t = bounds + (gpuact_ref_code_table(a) * GPUACT_FEWBIT_MAX_BITS + bits - 1) * GPUACT_FEWBIT_STRIDE;
    unsigned c = 0, i;
    for (i = 0; i + 1 < (1u << bits); i++)
        c += z >= t[i];
    return c;
}

GPUACT_REF_FN float gpuact_ref_code_level(gpuact_activation a, int bits, unsigned code)
{
    static const float levels[] = GPUACT_FEWBIT_LEVELS;
    return levels[(gpuact_ref_code_table(a) * GPUACT_FEWBIT_MAX_BITS + bits - 1) * GPUACT_FEWBIT_STRIDE + code];
}

/* Bytes of one row of cols codes (dense: bits per code, 8 to a byte). */
GPUACT_REF_FN size_t gpuact_ref_codes_row_bytes(size_t cols, int bits)
{
    return (cols * (size_t)bits + 7) / 8;
}

/* Code i of a row: bits [i * bits, + bits) of the row, bit j of the row
   being bit j % 8 of byte j / 8 (a 3-bit code may span two bytes). */
GPUACT_REF_FN unsigned gpuact_ref_code_get(const unsigned char *row, size_t i, int bits)
{
    unsigned code = 0;
    int k;
    for (k = 0; k < bits; k++) {
        const size_t j = i * (size_t)bits + (size_t)k;
        code |= (unsigned)((row[j / 8] >> (j % 8)) & 1u) << k;
    }
    return code;
}

GPUACT_REF_FN void gpuact_ref_code_set(unsigned char *row, size_t i, int bits, unsigned code)
{
    int k;
    for (k = 0; k < bits; k++) {
        const size_t j = i * (size_t)bits + (size_t)k;
        row[j / 8] = (unsigned char)((row[j / 8] & ~(1u << (j % 8))) | (((code >> k) & 1u) << (j % 8)));
    }
}

/* >>forward */

typedef struct gpuact_ref_fwd {
    gpuact_activation act;
    size_t rows, cols, ld_x, ld_y, mask_ld;  /* resolved (non-zero); mask_ld in bits, multiple of 8 */
    gpuact_dtype x_dtype, y_dtype, bias_dtype;
    float scale;                 /* 1.0f: no multiply at all */
    const void *x, *bias;        /* bias NULL: no addition at all (z = x exactly) */
    void *y;
    unsigned char *mask;         /* NULL: none; else row r starts at byte r * mask_ld / 8 */
    unsigned char *nan_any;      /* optional, indexed like y: GPUACT_REF_ANY_NAN, _UP, _DOWN or 0 (exact bits) */
    unsigned char *codes;        /* optional (code_bits 1-4): row r starts at byte r * codes_ld * code_bits / 8 */
    int code_bits;
    size_t codes_ld;             /* codes between row starts, a multiple of 32 */
} gpuact_ref_fwd;

/* What a result may be besides the reference's bits (gpuact_ref_same): any NaN where the
   reference is one; its neighbour of the next larger (UP) or smaller (DOWN) magnitude where the
   reference's f32 value lies within 2^-18 of a rounding midpoint of the f16 result, in the one
   place the kernels may round so (smooth.h's quick f16 forwards: GELU and tanh-GELU, default
   evaluation, no bias, scale 1), whose values lie within 25 f32 ulps of the lean function's. */
enum { GPUACT_REF_ANY_NAN = 1, GPUACT_REF_UP = 2, GPUACT_REF_DOWN = 4 };

GPUACT_REF_FN unsigned char gpuact_ref_near_midpoint(float v)
{
    const uint16_t w = gpuact_ref_f32_to_f16(v);
    return (unsigned char)((gpuact_ref_f32_to_f16(v * (1.0f + 0x1p-18f)) != w ? GPUACT_REF_UP : 0) |
                           (gpuact_ref_f32_to_f16(v * (1.0f - 0x1p-18f)) != w ? GPUACT_REF_DOWN : 0));
}

GPUACT_REF_FN void gpuact_ref_forward(const gpuact_ref_fwd *p)
{
    size_t r, c;
    /* Without bias and scale, every kind but leaky ReLU returns a NaN input
       itself (the selection paths by selection, the others by the rule that
       a NaN x keeps its bits), exactly (quiet or not). */
    int selects = !p->bias && p->scale == 1.0f && p->x_dtype == p->y_dtype &&
                  p->act.kind != GPUACT_LEAKY_RELU;
    int quick16 = !p->bias && p->scale == 1.0f && p->x_dtype == GPUACT_F16 && p->y_dtype == GPUACT_F16 &&
                  (p->act.kind == GPUACT_GELU || p->act.kind == GPUACT_GELU_TANH) && !(p->act.flags & GPUACT_ACT_PRECISE);

    for (r = 0; r < p->rows; r++) {
        unsigned char *mrow = p->mask ? p->mask + r * (p->mask_ld / 8) : NULL;
        unsigned char *crow = p->codes ? p->codes + r * p->codes_ld / 8 * (size_t)p->code_bits : NULL;
        if (mrow)
            memset(mrow, 0, (p->cols + 7) / 8);   /* padding bits of the last byte are 0 */
        if (crow)
            memset(crow, 0, gpuact_ref_codes_row_bytes(p->cols, p->code_bits));
        for (c = 0; c < p->cols; c++) {
            size_t xi = r * p->ld_x + c, yi = r * p->ld_y + c;
            uint32_t xbits = gpuact_ref_raw(p->x_dtype, p->x, xi);
            float z = gpuact_ref_load(p->x_dtype, p->x, xi);
            float out;
            int raw_nan = 0;

            if (p->bias) {
                float b = gpuact_ref_load(p->bias_dtype, p->bias, c);
                z = z + b;
            }
            out = gpuact_ref_act(p->act, z, p->y_dtype);
            if (p->scale != 1.0f)
                out = out * p->scale;

            if (mrow && !gpuact_ref_smooth(p->act) && gpuact_ref_passes(p->act, z))
                gpuact_ref__mask_set(mrow, c);
            if (crow)
                gpuact_ref_code_set(crow, c, p->code_bits, gpuact_ref_code(p->act, p->code_bits, z));
            if (selects && gpuact_ref_raw_isnan(p->x_dtype, xbits)) {
                gpuact_ref_store_raw(p->y_dtype, p->y, yi, xbits);
                raw_nan = 1;
            } else {
                gpuact_ref_store(p->y_dtype, p->y, yi, out);
            }
            if (p->nan_any)
                p->nan_any[yi] = (unsigned char)((!raw_nan && gpuact_ref__isnan(out) ? GPUACT_REF_ANY_NAN : 0) |
                                                 (quick16 && !raw_nan ? gpuact_ref_near_midpoint(out) : 0));
        }
    }
}

/* gpuact_forward's reference: n elements as one row, the kind's bounds as
   the dtype holds them (gpuact_ref_elementwise_act); mask and nan_any
   optional. */
GPUACT_REF_FN void gpuact_ref_elementwise_forward(gpuact_activation a, gpuact_dtype dt, size_t n, const void *x, void *y,
                                                  unsigned char *mask, unsigned char *nan_any)
{
    gpuact_ref_fwd f;
    memset(&f, 0, sizeof f);
    f.act = gpuact_ref_elementwise_act(a, dt);
    f.rows = 1;
    f.cols = f.ld_x = f.ld_y = n;
    f.mask_ld = 8 * ((n + 7) / 8);
    f.x_dtype = f.y_dtype = f.bias_dtype = dt;
    f.scale = 1.0f;
    f.x = x;
    f.y = y;
    f.mask = mask;
    f.nan_any = nan_any;
    gpuact_ref_forward(&f);
}

/* >>backward */

typedef struct gpuact_ref_bwd {
    gpuact_activation act;
    size_t rows, cols, ld_dy, ld_dx, ld_src, mask_ld;
    gpuact_dtype dy_dtype, dx_dtype, src_dtype;
    float scale;                 /* 1.0f: no multiply */
    const void *dy;
    const void *src;             /* the forward's x or y, or NULL ... */
    const unsigned char *mask;   /* ... the mask (bit set = passes). Exactly one of src/mask. */
    const void *bias;            /* optional with src = x: z = x + bias[c] (src_dtype) */
    void *dx;                    /* may be dy itself (same dtype and ld) */
    double *dbias;               /* optional, cols entries: f64 sum over rows of the stored dx */
    double *dbias_abs;           /* optional, cols entries: f64 sum of |stored dx| */
    unsigned char *nan_any;      /* optional, indexed like dx */
    const unsigned char *codes;  /* instead of src and mask: few-bit codes (code_bits 1-4), */
    int code_bits;               /* dx = (dy * scale) * level[code] */
    size_t codes_ld;
} gpuact_ref_bwd;

GPUACT_REF_FN void gpuact_ref_backward(const gpuact_ref_bwd *p)
{
    size_t r, c;
    int same_dtype = p->dy_dtype == p->dx_dtype;

    for (c = 0; c < p->cols; c++) {
        if (p->dbias)
            p->dbias[c] = 0.0;
        if (p->dbias_abs)
            p->dbias_abs[c] = 0.0;
    }
    for (r = 0; r < p->rows; r++) {
        for (c = 0; c < p->cols; c++) {
            size_t dyi = r * p->ld_dy + c, dxi = r * p->ld_dx + c;
            /* Everything is read before dx is written: dx may alias dy. */
            uint32_t gbits = gpuact_ref_raw(p->dy_dtype, p->dy, dyi);
            float g = gpuact_ref_load(p->dy_dtype, p->dy, dyi);
            float z = p->mask || p->codes ? 0.0f : gpuact_ref_load(p->src_dtype, p->src, r * p->ld_src + c);
            int smooth = gpuact_ref_smooth(p->act), passes;
            float v;
            int raw_nan = 0;

            if (p->bias)
                z = z + gpuact_ref_load(p->src_dtype, p->bias, c);
            passes = p->mask ? gpuact_ref__mask_bit(p->mask, r * p->mask_ld + c) : gpuact_ref_passes(p->act, z);
            if (p->codes) {
                const unsigned char *crow =
                    p->codes + r * p->codes_ld / 8 * (size_t)p->code_bits;
                v = (p->scale != 1.0f) ? g * p->scale : g;
                v = v * gpuact_ref_code_level(p->act, p->code_bits, gpuact_ref_code_get(crow, c, p->code_bits));
                passes = 0;
            } else if (smooth) {
                v = (p->scale != 1.0f) ? g * p->scale : g;
                v = v * gpuact_ref_grad(p->act, z, p->dx_dtype);
                if (p->act.kind == GPUACT_SQUARED_RELU && z <= 0)
                    v = 0.0f;   /* by selection, as torch's threshold_backward */
                passes = 0;
            } else if (passes || p->act.kind == GPUACT_LEAKY_RELU) {
                v = (p->scale != 1.0f) ? g * p->scale : g;
                if (!passes)
                    v = v * p->act.negative_slope;
            } else {
                v = 0.0f;   /* by selection: a NaN in dy does not leak */
            }

            if (passes && p->scale == 1.0f && same_dtype && gpuact_ref_raw_isnan(p->dy_dtype, gbits)) {
                gpuact_ref_store_raw(p->dx_dtype, p->dx, dxi, gbits);
                raw_nan = 1;
            } else {
                gpuact_ref_store(p->dx_dtype, p->dx, dxi, v);
            }
            if (p->nan_any)
                p->nan_any[dxi] = (unsigned char)(!raw_nan && gpuact_ref__isnan(v));
            if (p->dbias || p->dbias_abs) {
                double stored = (double)gpuact_ref_load(p->dx_dtype, p->dx, dxi);
                if (p->dbias)
                    p->dbias[c] += stored;
                if (p->dbias_abs)
                    p->dbias_abs[c] += fabs(stored);
            }
        }
    }
}

/* gpuact_backward's reference: n elements as one row, from src (the
   forward's x or y) or the mask, the bounds as in the forward. */
GPUACT_REF_FN void gpuact_ref_elementwise_backward(gpuact_activation a, gpuact_dtype dt, size_t n, const void *dy,
                                                   const void *src, const unsigned char *mask, void *dx,
                                                   unsigned char *nan_any)
{
    gpuact_ref_bwd b;
    memset(&b, 0, sizeof b);
    b.act = gpuact_ref_elementwise_act(a, dt);
    b.rows = 1;
    b.cols = b.ld_dy = b.ld_dx = b.ld_src = n;
    b.mask_ld = 8 * ((n + 7) / 8);
    b.dy_dtype = b.dx_dtype = b.src_dtype = dt;
    b.scale = 1.0f;
    b.dy = dy;
    b.src = src;
    b.mask = mask;
    b.dx = dx;
    b.nan_any = nan_any;
    gpuact_ref_backward(&b);
}

/* >>glu: the gated forms */

/* y = act(a + bias_a) * (b + bias_b) on rows x cols; a, b, the biases in
   x_dtype (biases NULL: no additions). */
typedef struct gpuact_ref_glu {
    gpuact_activation act;
    size_t rows, cols, ld_a, ld_b, ld_y;
    gpuact_dtype x_dtype, y_dtype;
    const void *a, *b, *bias_a, *bias_b;
    void *y;
    unsigned char *nan_any;      /* optional, indexed like y */
} gpuact_ref_glu;

GPUACT_REF_FN void gpuact_ref__glu_z(const void *m, size_t i, const void *bias, size_t c, gpuact_dtype dt, float *z)
{
    *z = gpuact_ref_load(dt, m, i);
    if (bias)
        *z = *z + gpuact_ref_load(dt, bias, c);
}

GPUACT_REF_FN void gpuact_ref_glu_forward(const gpuact_ref_glu *p)
{
    size_t r, c;
    for (r = 0; r < p->rows; r++)
        for (c = 0; c < p->cols; c++) {
            float za, zb, v;
            gpuact_ref__glu_z(p->a, r * p->ld_a + c, p->bias_a, c, p->x_dtype, &za);
            gpuact_ref__glu_z(p->b, r * p->ld_b + c, p->bias_b, c, p->x_dtype, &zb);
            v = gpuact_ref_act(p->act, za, p->y_dtype);
            v = v * zb;
            gpuact_ref_store(p->y_dtype, p->y, r * p->ld_y + c, v);
            if (p->nan_any)
                p->nan_any[r * p->ld_y + c] = (unsigned char)gpuact_ref__isnan(v);
        }
}

/* da = (dy * zb) * act'(za) (ReLU: dy * zb where za passes, else +0),
   db = dy * act(za), in x_dtype with rows ld_da / ld_db apart. */
typedef struct gpuact_ref_glu_bwd {
    gpuact_activation act;
    size_t rows, cols, ld_dy, ld_a, ld_b, ld_da, ld_db;
    gpuact_dtype dy_dtype, x_dtype;
    const void *dy, *a, *b, *bias_a, *bias_b;
    void *da, *db;
    unsigned char *da_nan, *db_nan;  /* optional, indexed like da, db */
} gpuact_ref_glu_bwd;

GPUACT_REF_FN void gpuact_ref_glu_backward(const gpuact_ref_glu_bwd *p)
{
    size_t r, c;
    for (r = 0; r < p->rows; r++)
        for (c = 0; c < p->cols; c++) {
            float za, zb, g = gpuact_ref_load(p->dy_dtype, p->dy, r * p->ld_dy + c), da, db;
            gpuact_ref__glu_z(p->a, r * p->ld_a + c, p->bias_a, c, p->x_dtype, &za);
            gpuact_ref__glu_z(p->b, r * p->ld_b + c, p->bias_b, c, p->x_dtype, &zb);
            if (gpuact_ref_smooth(p->act)) {
                da = g * zb;
                da = da * gpuact_ref_grad(p->act, za, p->x_dtype);
            } else {
                da = gpuact_ref_passes(p->act, za) ? g * zb : 0.0f;  /* by selection */
            }
            db = gpuact_ref_act(p->act, za, p->x_dtype);
            db = g * db;
            gpuact_ref_store(p->x_dtype, p->da, r * p->ld_da + c, da);
            gpuact_ref_store(p->x_dtype, p->db, r * p->ld_db + c, db);
            if (p->da_nan)
                p->da_nan[r * p->ld_da + c] = (unsigned char)gpuact_ref__isnan(da);
            if (p->db_nan)
                p->db_nan[r * p->ld_db + c] = (unsigned char)gpuact_ref__isnan(db);
        }
}

/* >>test helpers */

/* got is right for want: the same bits, or what flags (a nan_any entry: GPUACT_REF_ANY_NAN, _UP,
   _DOWN) allows besides */
GPUACT_REF_FN int gpuact_ref_same(gpuact_dtype dt, uint32_t got_bits, uint32_t want_bits, int flags)
{
    if (dt != GPUACT_F32) {
        got_bits &= 0xffffu;
        want_bits &= 0xffffu;
    }
    if (got_bits == want_bits)
        return 1;
    if ((flags & GPUACT_REF_UP) && got_bits == want_bits + 1u) /* within the sign: the next magnitude */
        return 1;
    if ((flags & GPUACT_REF_DOWN) && (want_bits & 0x7fffu) && got_bits == want_bits - 1u)
        return 1;
    return (flags & GPUACT_REF_ANY_NAN) && gpuact_ref_raw_isnan(dt, got_bits) && gpuact_ref_raw_isnan(dt, want_bits);
}

/* splitmix64: tiny, full-period, good enough for test data, and the same
   sequence on every platform. */
typedef struct gpuact_ref_rng { uint64_t s; } gpuact_ref_rng;

GPUACT_REF_FN uint64_t gpuact_ref_next(gpuact_ref_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Exponent and mantissa widths of a dtype, to build special values for all
   three formats from one description. */
GPUACT_REF_FN void gpuact_ref__format(gpuact_dtype dt, unsigned *ebits, unsigned *mbits)
{
    *ebits = (dt == GPUACT_F16) ? 5u : 8u;
    *mbits = (dt == GPUACT_F32) ? 23u : (dt == GPUACT_F16) ? 10u : 7u;
}

/* The neighbour of `bits` toward +Inf (up) or -Inf (!up) in dt's own
   precision; NaN and the infinity in that direction stay put. */
GPUACT_REF_FN uint32_t gpuact_ref__step(gpuact_dtype dt, uint32_t bits, int up)
{
    unsigned eb, mb;
    uint32_t sign, inf, mag;
    gpuact_ref__format(dt, &eb, &mb);
    sign = 1u << (eb + mb);
    inf = ((1u << eb) - 1u) << mb;
    mag = bits & (sign - 1u);
    if (mag > inf)
        return bits;
    if (!(bits & sign) == !!up)     /* away from zero */
        return mag == inf ? bits : bits + 1u;
    if (mag == 0)                   /* through zero to the smallest subnormal of the other sign */
        return up ? 1u : (sign | 1u);
    return bits - 1u;
}

#define GPUACT_REF__NSPECIAL 22

/* Special value k (0 .. GPUACT_REF__NSPECIAL-1) as dt's raw bits. near_bits
   is the value that the clip tests care about, already in dt. */
GPUACT_REF_FN uint32_t gpuact_ref__special(gpuact_dtype dt, unsigned k, uint32_t near_bits)
{
    unsigned eb, mb;
    uint32_t sign, inf, quiet, maxsub;
    gpuact_ref__format(dt, &eb, &mb);
    sign = 1u << (eb + mb);
    inf = ((1u << eb) - 1u) << mb;
    quiet = 1u << (mb - 1u);
    maxsub = (1u << mb) - 1u;
    switch (k) {
    case 0: return inf | quiet;                         /* the canonical quiet NaN */
    case 1: return sign | inf | quiet | 1u;             /* negative, lowest payload bit */
    case 2: return inf | quiet | (quiet - 1u);          /* every payload bit */
    case 3: return sign | inf | quiet | (quiet >> 1);   /* negative, top payload bit */
    case 4: return inf | 1u;                            /* signalling pattern (0x7f800001) */
    case 5: return sign | inf | (quiet >> 1) | 1u;      /* negative signalling, wider payload */
    case 6: return inf;
    case 7: return sign | inf;
    case 8: return 0u;
    case 9: return sign;
    case 10: return 1u;                                 /* smallest subnormals */
    case 11: return sign | 1u;
    case 12: return maxsub;                             /* largest subnormals */
    case 13: return sign | maxsub;
    case 14: return inf - 1u;                           /* largest finite */
    case 15: return sign | (inf - 1u);
    case 16: return near_bits;
    case 17: return gpuact_ref__step(dt, near_bits, 0);
    case 18: return gpuact_ref__step(dt, near_bits, 1);
    case 19: return sign ^ near_bits;
    case 20: return sign ^ gpuact_ref__step(dt, near_bits, 0);
    default: return sign ^ gpuact_ref__step(dt, near_bits, 1);
    }
}

GPUACT_REF_FN void gpuact_ref_fill(gpuact_ref_rng *r, gpuact_dtype dt, void *base, size_t n,
                                   int specials, float near)
{
    size_t i;
    uint32_t near_bits;
    unsigned k;
    uint32_t tmp;

    if (gpuact_ref__size(dt) == 0)
        return;
    gpuact_ref_store(dt, &tmp, 0, near);
    near_bits = gpuact_ref_raw(dt, &tmp, 0);
    /* Start the cycle at a random special so short fills see different ones. */
    k = (unsigned)(gpuact_ref_next(r) % GPUACT_REF__NSPECIAL);

    for (i = 0; i < n; i++) {
        if (specials && (gpuact_ref_next(r) & 7u) == 0) {
            gpuact_ref_store_raw(dt, base, i, gpuact_ref__special(dt, k, near_bits));
            k = (k + 1u) % GPUACT_REF__NSPECIAL;
            continue;
        }
        /* Sum of four uniform 24-bit integers in [-2^24, 2^24): bell-shaped,
           and in integers so no float rounding depends on the compiler;
           one conversion, then an exact power-of-two scale to [-4, 4).
           A value that stores as zero is drawn again, so random elements are
           never zero. */
        for (;;) {
            int64_t sum = 0;
            int j;
            float v;
            for (j = 0; j < 4; j++)
                sum += (int64_t)(gpuact_ref_next(r) >> 39) - (INT64_C(1) << 24);
            v = (float)sum * (1.0f / 16777216.0f);
            gpuact_ref_store(dt, base, i, v);
            if (gpuact_ref_raw(dt, base, i) & (dt == GPUACT_F32 ? 0x7fffffffu : 0x7fffu))
                break;
        }
    }
}

#endif /* GPUACT_REF_H */
