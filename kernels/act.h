/* The activation formulas, written once for every dialect (the CUDA/HIP
   kernels, the OpenCL kernels; tests/gpuact_ref.h is the CPU's statement of
   the same rules). The dialect defines GPUACT_FN (a device function's
   qualifiers) and gpuact_u32. kind is a GPUACT_KIND_* constant known at
   compile time, so each kernel keeps one straight-line path.

   Comparisons are written so that a NaN takes the pass-through branch by
   selection (never fmax/fmin, which canonicalise NaNs). */
#ifndef GPUACT_ACT_H
#define GPUACT_ACT_H
#include "smooth.h"

/* ---- inline PTX, for the two NVIDIA dialects (CUDA, and NVIDIA's OpenCL,
   which compiles through PTX): GPUACT_PTX_SM80 / GPUACT_PTX_SM90 where the
   dialect's target has them. The hooks the code below looks for:
   GPUACT_PACK2_BF16 / GPUACT_PACK2_F16(lo, hi): two floats rounded to
   nearest even into a word of two 16-bit values (lo in the low half), one
   instruction; GPUACT_MIN_NAN / GPUACT_MAX_NAN(a, b): the smaller / larger
   (-0 below +0), the canonical NaN if either is a NaN; GPUACT_CMP2(op, bf16,
   a, b): both 16-bit lanes of a and b compared as floats of the format (bf16
   or f16), 0xffff in each lane where a op b holds (gtu / ltu: or either is a
   NaN; bf16x2 comparisons need sm_90). */
#ifdef GPUACT_PTX_SM80
/* One PTX instruction of two float operands: d = op(x, y). */
#define GPUACT_PTX2_(type, name, instr, d, x, y)                                      \
    GPUACT_FN type name(float a, float b) {                                           \
        type r;                                                                       \
        asm(instr " %0, %1, %2;" : d(r) : "f"(x), "f"(y));                            \
        return r;                                                                     \
    }
GPUACT_PTX2_(gpuact_u32, gpuact_cvt_bf16x2, "cvt.rn.bf16x2.f32", "=r", b, a) /* (lo, hi): hi goes first */
GPUACT_PTX2_(gpuact_u32, gpuact_cvt_f16x2, "cvt.rn.f16x2.f32", "=r", b, a)
GPUACT_PTX2_(float, gpuact_min_nan, "min.NaN.f32", "=f", a, b)
GPUACT_PTX2_(float, gpuact_max_nan, "max.NaN.f32", "=f", a, b)
#define GPUACT_PACK2_BF16 gpuact_cvt_bf16x2
#define GPUACT_PACK2_F16 gpuact_cvt_f16x2
#define GPUACT_MIN_NAN gpuact_min_nan
#define GPUACT_MAX_NAN gpuact_max_nan
#endif
#ifdef GPUACT_PTX_SM90
#define GPUACT_CMP2_FN_(op)                                                                \
    GPUACT_FN gpuact_u32 gpuact_cmp2_##op(int bf16, gpuact_u32 a, gpuact_u32 b) {          \
        gpuact_u32 r;                                                                      \
        if (bf16)                                                                          \
            asm("set." #op ".u32.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));          \
        else                                                                               \
            asm("set." #op ".u32.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));           \
        return r;                                                                          \
    }
GPUACT_CMP2_FN_(gt) GPUACT_CMP2_FN_(ge) GPUACT_CMP2_FN_(le) GPUACT_CMP2_FN_(gtu) GPUACT_CMP2_FN_(ltu)
#define GPUACT_CMP2(op, bf16, a, b) gpuact_cmp2_##op((bf16), (a), (b))
#endif

/* The table's columns as functions of a kind known at compile time. */
#define GPUACT_KIND_SLOPE_(name, slope, ceiling, lower, from_y, select, glu) (kind == GPUACT_KIND_##name && (slope)) ||
#define GPUACT_KIND_SELECT_(name, slope, ceiling, lower, from_y, select, glu) (kind == GPUACT_KIND_##name && (select)) ||
/* Whether the kind's value where the gradient is blocked is x * slope
   (arithmetic) rather than a constant: the slope column. */
GPUACT_FN int gpuact_kind_slope(int kind) { return GPUACT_ACTIVATIONS(GPUACT_KIND_SLOPE_) 0; }
/* Whether the kind is of the ReLU family (the select column); else smooth:
   dx = g * gpuact_grad(z). */
GPUACT_FN int gpuact_kind_select(int kind) { return GPUACT_ACTIVATIONS(GPUACT_KIND_SELECT_) 0; }

/* The evaluation of GELU, tanh-GELU and SiLU (smooth.h) for a result
   rounded to a dtype of `bytes` bytes: the precise one (within 1 ulp) when
   the variant asks for it, else the lean one (gpuact_*_16: a few f32 ulps)
   for a 16-bit result and the default one (gpuact_*_fast: within 2 ulps)
   for an f32 result. Every dialect and the CPU reference decide with this
   one rule. */
enum { GPUACT_EVAL_PRECISE, GPUACT_EVAL_FAST, GPUACT_EVAL_LEAN };
GPUACT_FN int gpuact_eval(int bytes, int precise) {
    return precise ? GPUACT_EVAL_PRECISE : bytes == 2 ? GPUACT_EVAL_LEAN : GPUACT_EVAL_FAST;
}

/* One of the three evaluations of a smooth function (ev: gpuact_eval). */
#define GPUACT_EVAL_(ev, f, z) \
    ((ev) == GPUACT_EVAL_LEAN ? f##_16(z) : (ev) == GPUACT_EVAL_FAST ? f##_fast(z) : f(z))
/* The same where the default evaluation reads a table (the caller's gpuact_tab, GPUACT_TAB_P) */
#define GPUACT_EVAL_TAB_(ev, f, z) \
    ((ev) == GPUACT_EVAL_LEAN ? f##_16(z) : (ev) == GPUACT_EVAL_FAST ? f##_fast(z GPUACT_TAB_A) : f(z))
/* Whether gpuact_act reads a table (GELU's and tanh-GELU's default evaluation into a 4-byte result,
   gpuact_eval; SiLU's forward by the exponential ran faster) and whether gpuact_grad does (the three
   smooth kinds' default evaluation into a 4-byte result) */
#define GPUACT_ACT_TABLE(kind, precise, bytes) \
    (((kind) == GPUACT_KIND_gelu || (kind) == GPUACT_KIND_gelu_tanh) && !(precise) && (bytes) == 4)
#define GPUACT_GRAD_TABLE(kind, precise, bytes) (((GPUACT_TRANSCENDENTAL_KINDS >> (kind)) & 1u) && !(precise) && (bytes) == 4)
/* Each kind's formulas, named by its row of GPUACT_ACTIVATIONS: act(z) in
   f32 for every kind, GPUACT_ACT_<name>(z, slope, c, lo, ev) (ev:
   gpuact_eval); d act / dz for a smooth kind (select 0),
   GPUACT_GRAD_<name>(z, ev); whether the gradient passes at z (the mask
   bit) for the ReLU family (select 1), GPUACT_PASSES_<name>(z, c, lo).
   gpuact_act, gpuact_grad and gpuact_passes are made from the table, so a
   kind without its formulas does not compile.
   hardtanh is torch.clamp(z, lo, c): a NaN passes, and at a bound of 0 the
   order is that of max/min with -0 < +0 (the host gives +0 for a bound of
   -0): -0 becomes lo = +0, stays -0 below c = +0. Squared ReLU's
   derivative is 2z where z > 0, as torch's pow and threshold backward
   give; a NaN z gives NaN. */
#define GPUACT_ACT_relu(z, slope, c, lo, ev) ((z) <= 0.0f ? 0.0f : (z))
#define GPUACT_ACT_leaky(z, slope, c, lo, ev) ((z) > 0.0f ? (z) : (z) * (slope))
#define GPUACT_ACT_clipped(z, slope, c, lo, ev) ((z) <= 0.0f ? 0.0f : ((z) >= (c) ? (c) : (z)))
#define GPUACT_ACT_hardtanh(z, slope, c, lo, ev) ((z) <= (lo) ? (lo) : ((z) > (c) ? (c) : (z)))
#define GPUACT_ACT_gelu(z, slope, c, lo, ev) GPUACT_EVAL_TAB_(ev, gpuact_gelu_erf, z)
#define GPUACT_ACT_gelu_tanh(z, slope, c, lo, ev) GPUACT_EVAL_TAB_(ev, gpuact_gelu_tanh, z)
#define GPUACT_ACT_silu(z, slope, c, lo, ev) GPUACT_EVAL_(ev, gpuact_silu, z)
#define GPUACT_ACT_sqrelu(z, slope, c, lo, ev) ((z) <= 0.0f ? 0.0f : (z) * (z))
#define GPUACT_GRAD_gelu(z, ev) GPUACT_EVAL_TAB_(ev, gpuact_gelu_erf_d, z)
#define GPUACT_GRAD_gelu_tanh(z, ev) GPUACT_EVAL_TAB_(ev, gpuact_gelu_tanh_d, z)
#define GPUACT_GRAD_silu(z, ev) GPUACT_EVAL_TAB_(ev, gpuact_silu_d, z)
#define GPUACT_GRAD_sqrelu(z, ev) ((z) <= 0.0f ? 0.0f : (z) + (z))
#define GPUACT_PASSES_relu(z, c, lo) (!((z) <= 0.0f))
#define GPUACT_PASSES_leaky(z, c, lo) ((z) > 0.0f)
#define GPUACT_PASSES_clipped(z, c, lo) (!((z) <= 0.0f || (z) >= (c)))
#define GPUACT_PASSES_hardtanh(z, c, lo) (!((z) <= (lo) || (z) >= (c)))
/* One line of gpuact_act, gpuact_grad or gpuact_passes per row of the
   table; the select column (0 or 1) picks the rows that have the formula. */
#define GPUACT_ACT_CASE_(name, slope_, ceiling_, lower_, from_y_, select_, glu_) \
    if (kind == GPUACT_KIND_##name) return GPUACT_ACT_##name(z, slope, c, lo, ev);
#define GPUACT_GRAD_CASE_(name, slope_, ceiling_, lower_, from_y_, select, glu_) GPUACT_GRAD_CASE_##select(name)
#define GPUACT_GRAD_CASE_0(name) \
    if (kind == GPUACT_KIND_##name) return GPUACT_GRAD_##name(z, ev);
#define GPUACT_GRAD_CASE_1(name)
#define GPUACT_PASSES_CASE_(name, slope_, ceiling_, lower_, from_y_, select, glu_) GPUACT_PASSES_CASE_##select(name)
#define GPUACT_PASSES_CASE_0(name)
#define GPUACT_PASSES_CASE_1(name) \
    if (kind == GPUACT_KIND_##name) return GPUACT_PASSES_##name(z, c, lo);
/* The kind is a compile-time constant: each function is the one line of
   its kind (the return after the lines is reached by no kind of the
   table; gpuact_grad and gpuact_passes are compiled, unused, for the kinds
   of the other family). */
GPUACT_FN float gpuact_act(int kind, float z, float slope, float c, float lo, int ev GPUACT_TAB_P) {
    GPUACT_ACTIVATIONS(GPUACT_ACT_CASE_)
    return z;
}
GPUACT_FN float gpuact_grad(int kind, float z, int ev GPUACT_TAB_P) {
    GPUACT_ACTIVATIONS(GPUACT_GRAD_CASE_)
    return 0.0f;
}
/* Whether a smooth kind's gradient is +0 at z by selection, whatever dy is
   (squared ReLU where z <= 0: what torch's threshold_backward gives, so
   neither dy's sign nor a NaN or infinite dy shows there). */
GPUACT_FN int gpuact_grad_zero(int kind, float z) { return kind == GPUACT_KIND_sqrelu && z <= 0.0f; }
GPUACT_FN int gpuact_passes(int kind, float z, float c, float lo) {
    GPUACT_ACTIVATIONS(GPUACT_PASSES_CASE_)
    return 0;
}
/* The order of non-NaN values on raw bits with -0 == +0: ord is the bits
   as a signed integer of the element's width, mag the magnitude mask
   (0x7fffffff or 0x7fff). For a positive value the key is its ord. */
GPUACT_FN int gpuact_order_key(int ord, gpuact_u32 mag) { return ord >= 0 ? ord : -(int)((gpuact_u32)ord & mag); }
/* gpuact_passes on an element's raw bits, for the selection paths: ord is
   the bits as a signed integer of the element's width (the order of
   non-NaN values; hardtanh: gpuact_order_key of it), nan whether they are
   a NaN, cord / lord the bounds' (exact where used: the elementwise ops
   round them to the dtype; the epilogue's backward from y refuses the
   bounded kinds). */
GPUACT_FN int gpuact_passes_ord(int kind, int ord, int nan, int cord, int lord) {
    if (kind == GPUACT_KIND_leaky) return ord > 0 && !nan;
    if (kind == GPUACT_KIND_clipped) return nan || (ord > 0 && ord < cord);
    if (kind == GPUACT_KIND_hardtanh) return nan || (ord > lord && ord < cord);
    return nan || ord > 0;
}
/* relu's output on f32 bits alone (no mask bit): whether y is x's own
   bits. It also keeps +0, which is y either way, so the kept bits, the
   NaNs of both signs and +0 to +inf, are one arc of the unsigned circle:
   an add and a compare in place of the NaN test, the signed compare and
   their combination (the forward at sizes that sit in the L2 is
   instruction-bound, docs/PERFORMANCE.md). */
GPUACT_FN int gpuact_relu_keeps32(gpuact_u32 b) { return b + 0x007fffffu < 0x807fffffu; }
/* On a selection path, the constant written where the gradient is blocked
   for relu and clipped ReLU, from the element's ord: the ceiling above the
   range, else +0. */
GPUACT_FN gpuact_u32 gpuact_blocked_bits(int kind, int ord, gpuact_u32 cbits) {
    return kind == GPUACT_KIND_clipped && ord > 0 ? cbits : 0u;
}
/* dx where the gradient does not pass, from g = dy (* scale): leaky's
   g * slope, else +0. */
GPUACT_FN float gpuact_blocked_grad(int kind, float g, float slope) {
    return gpuact_kind_slope(kind) ? g * slope : 0.0f;
}

/* ---- two 16-bit elements in one 32-bit word (the packed fast paths) ----
   inf: the format's infinity bits (f16 0x7c00, bf16 0x7f80). Lanes never
   carry into each other. */

/* The format's +Inf bits. */
GPUACT_FN gpuact_u32 gpuact_inf16(int dt) { return dt == GPUACT_DT_bf16 ? 0x7f80u : 0x7c00u; }
/* 0xffff in each lane that is a NaN. */
GPUACT_FN gpuact_u32 gpuact_nan_lanes(gpuact_u32 w, gpuact_u32 inf) {
    const gpuact_u32 top = ((w & 0x7fff7fffu) + (0x7fffu - inf) * 0x00010001u) & 0x80008000u;
    return (top >> 15) * 0xffffu;
}
/* 0xffff in each lane whose value is > 0 (not NaN, not +-0, sign clear). */
GPUACT_FN gpuact_u32 gpuact_pos_lanes(gpuact_u32 w, gpuact_u32 inf) {
    const gpuact_u32 nonzero = (((w & 0x7fff7fffu) + 0x7fff7fffu) & 0x80008000u) >> 15;
    const gpuact_u32 neg = (w & 0x80008000u) >> 15;
    return (nonzero & ~neg) * 0xffffu & ~gpuact_nan_lanes(w, inf);
}
/* 0xffff in each lane where a >= c, for lanes below 0x8000 (the subtraction
   borrows from the lane's own 0x8000, never from its neighbour). */
GPUACT_FN gpuact_u32 gpuact_ge_lanes(gpuact_u32 a, gpuact_u32 c) {
    return ((((a | 0x80008000u) - c) & 0x80008000u) >> 15) * 0xffffu;
}
/* One 16-bit lane of hardtanh (b: its bits, inf: the format's infinity,
   lb / cb: the bounds' bits): whether it passes. */
GPUACT_FN int gpuact_lane_key(gpuact_u32 b) { return gpuact_order_key((int)(short)(unsigned short)b, 0x7fffu); }
GPUACT_FN gpuact_u32 gpuact_lane_ht_pass(gpuact_u32 b, gpuact_u32 inf, gpuact_u32 lb, gpuact_u32 cb) {
    return (gpuact_u32)gpuact_passes_ord(GPUACT_KIND_hardtanh, gpuact_lane_key(b), (b & 0x7fffu) > inf,
                                         gpuact_lane_key(cb), gpuact_lane_key(lb));
}
/* hardtanh of one element on a selection path from its exact f32 value z
   (b: its bits; lo / c: the bounds' values, lb / cb: their bits): b where
   it is a NaN or inside, the lower bound's bits at or below it, the upper
   bound's above it; *pass where the gradient passes. Float comparisons
   order -0 and +0 as equal and fail on a NaN, as gpuact_passes_ord's order
   keys do, so this is that rule with a few FP compares in place of the
   integer keys (half-rate on NVIDIA GPUs; docs/PERFORMANCE.md, "Designs
   measured and not kept"). */
GPUACT_FN gpuact_u32 gpuact_hardtanh_sel(gpuact_u32 b, float z, float lo, float c, gpuact_u32 lb, gpuact_u32 cb,
                                         int *pass) {
    *pass = gpuact_passes(GPUACT_KIND_hardtanh, z, c, lo);
    return z <= lo ? lb : (z > c ? cb : b);
}
/* The same on both lanes of w (zl, zh: their values); *top: bits 15 / 31
   where a lane passes. */
GPUACT_FN gpuact_u32 gpuact_hardtanh_pairf(gpuact_u32 w, float zl, float zh, float lo, float c, gpuact_u32 lb,
                                           gpuact_u32 cb, gpuact_u32 *top) {
    int pl, ph;
    const gpuact_u32 l = gpuact_hardtanh_sel(w & 0xffffu, zl, lo, c, lb, cb, &pl);
    const gpuact_u32 h = gpuact_hardtanh_sel(w >> 16, zh, lo, c, lb, cb, &ph);
    *top = (pl ? 0x8000u : 0u) | (ph ? 0x80000000u : 0u);
    return l | (h << 16);
}
/* gpuact_passes_ord of both lanes of a word of format dt, as 0xffff per
   passing lane. c2 / l2: the bounds' bits in both lanes (clipped, hardtanh;
   exact in the format). With the dialect's two-lane float comparisons
   (GPUACT_CMP2) one or two instructions: float order is the order keys'
   (-0 == +0), and a NaN passes exactly where an unordered comparison says
   so; otherwise integer operations on the lanes. */
GPUACT_FN gpuact_u32 gpuact_passes_pair(int kind, int dt, gpuact_u32 w, gpuact_u32 c2, gpuact_u32 l2) {
#ifdef GPUACT_CMP2
    const int bf = dt == GPUACT_DT_bf16;
    if (kind == GPUACT_KIND_leaky) return GPUACT_CMP2(gt, bf, w, 0u);
    if (kind == GPUACT_KIND_clipped) return GPUACT_CMP2(gtu, bf, w, 0u) & GPUACT_CMP2(ltu, bf, w, c2);
    if (kind == GPUACT_KIND_hardtanh) return ~(GPUACT_CMP2(le, bf, w, l2) | GPUACT_CMP2(ge, bf, w, c2));
    return GPUACT_CMP2(gtu, bf, w, 0u);
#else
    const gpuact_u32 inf = gpuact_inf16(dt), pos = gpuact_pos_lanes(w, inf);
    if (kind == GPUACT_KIND_hardtanh)
        return gpuact_lane_ht_pass(w & 0xffffu, inf, l2 & 0xffffu, c2 & 0xffffu) * 0xffffu |
               gpuact_lane_ht_pass(w >> 16, inf, l2 & 0xffffu, c2 & 0xffffu) * 0xffff0000u;
    if (kind == GPUACT_KIND_leaky) return pos;
    if (kind == GPUACT_KIND_clipped) return gpuact_nan_lanes(w, inf) | (pos & ~gpuact_ge_lanes(w & 0x7fff7fffu, c2));
    return gpuact_nan_lanes(w, inf) | pos;
#endif
}
/* Bit 15 / 31 set where the low / high lane is not +0 (any other bits). */
GPUACT_FN gpuact_u32 gpuact_nonzero_tops(gpuact_u32 v) {
    return (((v & 0x7fff7fffu) + 0x7fff7fffu) | v) & 0x80008000u;
}
/* The mask byte of 8 elements from four words' lane tops (bits 15 and 31;
   element 2j is word j's low lane). */
GPUACT_FN gpuact_u32 gpuact_tops_bits(gpuact_u32 t0, gpuact_u32 t1, gpuact_u32 t2, gpuact_u32 t3) {
    const gpuact_u32 x = (t0 >> 15) | (t1 >> 13) | (t2 >> 11) | (t3 >> 9); /* lo lanes: bits 0 2 4 6; hi: 16 18 20 22 */
    return (x & 0x55u) | ((x >> 15) & 0xaau);
}
/* Two mask bits (bit 0: low lane) as a word's lanes, 0xffff where set. */
GPUACT_FN gpuact_u32 gpuact_bits_lanes(gpuact_u32 two_bits) {
    return (two_bits & 1u) * 0xffffu | ((two_bits >> 1) & 1u) * 0xffff0000u;
}
/* ReLU of both lanes: a lane becomes +0 where it is <= 0 and not a NaN. */
GPUACT_FN gpuact_u32 gpuact_relu_pair(gpuact_u32 w, gpuact_u32 inf) {
    const gpuact_u32 nan = gpuact_nan_lanes(w, inf);
    const gpuact_u32 zero = ((w & 0x80008000u) >> 15) * 0xffffu & ~nan;
    return w & ~zero;
}
/* The selection path of a kind without slope on both lanes: ReLU, and for
   clipped ReLU the ceiling where a lane (not a NaN) reaches it. */
GPUACT_FN gpuact_u32 gpuact_select_pair(int kind, gpuact_u32 w, gpuact_u32 inf, gpuact_u32 c2) {
    const gpuact_u32 r = gpuact_relu_pair(w, inf);
    gpuact_u32 top;
    if (kind != GPUACT_KIND_clipped) return r;
    top = gpuact_ge_lanes(r & 0x7fff7fffu, c2) & ~gpuact_nan_lanes(w, inf);
    return (r & ~top) | (c2 & top);
}
/* Where the gradient passed, from the lanes gpuact_select_pair wrote: a
   passing lane keeps x, which is never +0 nor (clipped) the ceiling. */
GPUACT_FN gpuact_u32 gpuact_select_tops(int kind, gpuact_u32 y, gpuact_u32 c2) {
    const gpuact_u32 t = gpuact_nonzero_tops(y);
    return kind == GPUACT_KIND_clipped ? t & gpuact_nonzero_tops(y ^ c2) : t;
}
#ifdef GPUACT_CMP2
/* The selection path of relu, clipped ReLU and hardtanh on both lanes of a
   word of format dt with the dialect's comparisons (gpuact_passes_pair):
   y's word, x's bits where the gradient passes, else +0 or a bound's bits
   (hardtanh: the lower at or below it, the upper above it, as
   gpuact_hardtanh_sel); *top: bits 15 / 31 where it passes. */
GPUACT_FN gpuact_u32 gpuact_select_cmp2(int kind, int dt, gpuact_u32 w, gpuact_u32 c2, gpuact_u32 l2,
                                        gpuact_u32 *top) {
    const int bf = dt == GPUACT_DT_bf16;
    gpuact_u32 pass, y;
    if (kind == GPUACT_KIND_hardtanh) {
        const gpuact_u32 below = GPUACT_CMP2(le, bf, w, l2), above = GPUACT_CMP2(gt, bf, w, c2) & ~below;
        pass = ~(below | GPUACT_CMP2(ge, bf, w, c2));
        y = (l2 & below) | (c2 & above) | (w & ~(below | above));
    } else { /* relu: +0 where blocked; clipped: the ceiling where blocked above 0 (or a NaN: it passes) */
        pass = gpuact_passes_pair(kind, dt, w, c2, l2);
        y = (w & pass) | (kind == GPUACT_KIND_clipped ? c2 & GPUACT_CMP2(gtu, bf, w, 0u) & ~pass : 0u);
    }
    *top = pass & 0x80008000u;
    return y;
}
#endif

/* ---- 16-bit element formats (dt: GPUACT_DT_f16 or GPUACT_DT_bf16, known at
   compile time). The dialect provides gpuact_h2f (f16 bits -> f32, exact)
   and gpuact_f2h (f32 -> f16 bits, round to nearest even, subnormals
   kept); GPUACT_PACK2_*, GPUACT_MIN_NAN and GPUACT_MAX_NAN are the inline
   PTX above, where the dialect has it. */

/* f32 -> bf16 bits, round to nearest even; a NaN stays a quiet NaN with its
   payload's top bits (the carry must not make it Inf). */
GPUACT_FN gpuact_u32 gpuact_f2bf(float v) {
    const gpuact_u32 u = gpuact_as_u32(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
/* A word's low / high lane as f32 (exact). */
GPUACT_FN float gpuact_lo2f(int dt, gpuact_u32 w) {
    return dt == GPUACT_DT_bf16 ? gpuact_as_f32(w << 16) : gpuact_h2f(w & 0xffffu);
}
GPUACT_FN float gpuact_hi2f(int dt, gpuact_u32 w) {
    return dt == GPUACT_DT_bf16 ? gpuact_as_f32(w & 0xffff0000u) : gpuact_h2f(w >> 16);
}
GPUACT_FN void gpuact_unpack2_dt(int dt, gpuact_u32 w, float *lo, float *hi) {
    *lo = gpuact_lo2f(dt, w);
    *hi = gpuact_hi2f(dt, w);
}
/* Two floats rounded to nearest even into a word. hw: the dialect's
   two-at-once conversion where it has one (a NaN result can then only come
   from arithmetic: its payload is the device's canonical one either way);
   otherwise one exact conversion per value, which keeps a NaN's payload. */
GPUACT_FN gpuact_u32 gpuact_pack2_dt(int dt, int hw, float lo, float hi) {
#if defined(GPUACT_PACK2_BF16) && defined(GPUACT_PACK2_F16)
    if (hw) return dt == GPUACT_DT_bf16 ? GPUACT_PACK2_BF16(lo, hi) : GPUACT_PACK2_F16(lo, hi);
#endif
    return dt == GPUACT_DT_bf16 ? gpuact_f2bf(lo) | (gpuact_f2bf(hi) << 16) : gpuact_f2h(lo) | (gpuact_f2h(hi) << 16);
}

#ifdef GPUACT_MIN_NAN
/* Clipped ReLU (ceiling c > 0) and hardtanh on the flags' arithmetic paths
   (bias, scale, or x's NaN put back afterwards), where a NaN result is the
   canonical one (as the two-at-once conversion makes it): the value
   gpuact_act gives for every other z. Clipped ReLU as ReLU of a
   NaN-propagating min with c, the ReLU folding into that conversion (nvcc: 4
   instructions per element -> 1); hardtanh as a NaN-propagating max with lo,
   then min with c (both order -0 below +0, as gpuact_act's comparisons
   do at a bound of +0). */
GPUACT_FN float gpuact_act_minmax(int kind, float z, float c, float lo) {
    if (kind == GPUACT_KIND_hardtanh) return GPUACT_MIN_NAN(GPUACT_MAX_NAN(z, lo), c);
    {
        const float v = GPUACT_MIN_NAN(z, c);
        return v <= 0.0f ? 0.0f : v;
    }
}
#endif
/* gpuact_act where a result is rounded to a 16-bit dtype by the two-at-once
   conversion: fl >= 0, the flags as a constant, with a bias, a scale or
   (RAW) x's NaN put back afterwards, so a NaN result is the canonical one
   either way (clipped ReLU and hardtanh then take gpuact_act_minmax). */
GPUACT_FN float gpuact_act_fl(int kind, int fl, float z, float slope, float c, float lo, int ev GPUACT_TAB_P) {
#ifdef GPUACT_MIN_NAN
    if (fl >= 0 && (fl & (GPUACT_F_BIAS | GPUACT_F_SCALE | GPUACT_F_RAW)) &&
        (kind == GPUACT_KIND_clipped || kind == GPUACT_KIND_hardtanh))
        return gpuact_act_minmax(kind, z, c, lo);
#endif
    (void)fl;
    return gpuact_act(kind, z, slope, c, lo, ev GPUACT_TAB_A);
}
/* The default f32 forward of GELU and tanh-GELU in smooth.h's parts: the table's value, and the
   exponential's evaluation for z off the table (gpuact_sm_ftab_off: tiny, large, inf, NaN). (SiLU's
   forward, by the exponential, ran slower so.) */
GPUACT_FN float gpuact_act_common(int kind, float z GPUACT_TAB_P) {
    return kind == GPUACT_KIND_gelu ? gpuact_sm_gelu_erf_tab(z GPUACT_TAB_A) : gpuact_sm_gelu_tanh_tab(z GPUACT_TAB_A);
}
GPUACT_FN float gpuact_act_offv(int kind, float z) { return kind == GPUACT_KIND_gelu ? gpuact_sm_gelu_erf_exp(z) : gpuact_sm_gelu_tanh_exp(z); }
/* ---- one element of dtype dt (known at compile time) as raw bits: the
   element paths (f32 and mixed dtypes) of every dialect. */
GPUACT_FN float gpuact_tof_dt(int dt, gpuact_u32 b) {
    return dt == GPUACT_DT_f32 ? gpuact_as_f32(b) : dt == GPUACT_DT_bf16 ? gpuact_as_f32(b << 16) : gpuact_h2f(b);
}
GPUACT_FN gpuact_u32 gpuact_fromf_dt(int dt, float v) {
    return dt == GPUACT_DT_f32 ? gpuact_as_u32(v) : dt == GPUACT_DT_bf16 ? gpuact_f2bf(v) : gpuact_f2h(v);
}
/* The bits as a signed integer of the element's width (the order of
   non-NaN values), and whether they are a NaN. */
GPUACT_FN int gpuact_sbits_dt(int dt, gpuact_u32 b) {
    return dt == GPUACT_DT_f32 ? (int)b : (int)(short)(unsigned short)b;
}
GPUACT_FN int gpuact_nan_bits_dt(int dt, gpuact_u32 b) {
    return dt == GPUACT_DT_f32 ? (b & 0x7fffffffu) > 0x7f800000u : (b & 0x7fffu) > gpuact_inf16(dt);
}
/* gpuact_passes_ord on raw bits of dtype dt, for the selection paths: a
   NaN by its exponent and mantissa, order by the signed integer (exact for
   non-NaN values; hardtanh compares order keys, -0 == +0). No compiler can
   rewrite `z <= 0 ? 0 : x` on bits into a NaN-canonicalising max (NVIDIA's
   OpenCL compiler did, on floats; so did ptxas from sm_90 PTX that selected
   f32 bits on a float comparison: 107 conformance failures on the H200,
   2026-11-25), and f16 needs no conversion. cbits / lbits: the bounds as
   dt (exact where used: the elementwise ops round them to the dtype; the
   epilogue's backward from y refuses the bounded kinds). */
GPUACT_FN int gpuact_ord_bits_dt(int kind, int dt, gpuact_u32 b) {
    return kind == GPUACT_KIND_hardtanh ? gpuact_order_key(gpuact_sbits_dt(dt, b), dt == GPUACT_DT_f32 ? 0x7fffffffu : 0x7fffu)
                                        : gpuact_sbits_dt(dt, b);
}
GPUACT_FN int gpuact_passes_bits_dt(int kind, int dt, gpuact_u32 b, gpuact_u32 cbits, gpuact_u32 lbits) {
    return gpuact_passes_ord(kind, gpuact_ord_bits_dt(kind, dt, b), gpuact_nan_bits_dt(dt, b),
                             gpuact_ord_bits_dt(kind, dt, cbits), gpuact_ord_bits_dt(kind, dt, lbits));
}

/* Two results of arithmetic (a NaN among them is the device's canonical
   one, so no payload is to be kept) rounded into two elements of dtype dt:
   for a 16-bit dt the two-at-once conversion (one instruction where the
   dialect has it, against about six for an exact bf16 conversion), else one
   by one. The forward's and the gated kernels' element loops take pairs. */
GPUACT_FN void gpuact_fromf2_dt(int dt, float lo, float hi, gpuact_u32 *a, gpuact_u32 *b) {
    if (dt != GPUACT_DT_f32) {
        const gpuact_u32 w = gpuact_pack2_dt(dt, 1, lo, hi);
        *a = w & 0xffffu;
        *b = w >> 16;
    } else {
        *a = gpuact_as_u32(lo);
        *b = gpuact_as_u32(hi);
    }
}
/* The forward's element path (f32 and mixed dtypes), every dialect: y's
   vec (4 or 8) elements and the mask bits as the result, from x's bits and
   the bias as floats (b, has_bias). xd / yd: the dtypes of x and y; sel:
   the selection path (no bias, scale 1, xd == yd), where y is x's bits,
   +0, a bound, or (leaky) x * slope; fl >= 0: flags is that constant
   (gpuact_act_fl); cbits / lbits: the bounds as x's bits. A 16-bit y is
   rounded two elements at a time where a NaN result came from arithmetic
   (as in gpuact_fwd_words below): one instruction for two elements instead
   of about six for each (docs/PERFORMANCE.md, "Designs measured and not
   kept"). */
GPUACT_FN gpuact_u32 gpuact_fwd_elems(int kind, int precise, int xd, int yd, int sel, int fl, int vec, const gpuact_u32 *x,
                                      const float *b, gpuact_u32 *y, int has_bias, int flags, float scale,
                                      float slope, float ceiling, float lower, gpuact_u32 cbits, gpuact_u32 lbits GPUACT_TAB_P) {
    const int y16 = yd != GPUACT_DT_f32;
    gpuact_u32 bits = 0;
    float v[8]; /* a 16-bit y's results before rounding (not the selection path) */
    if (!sel && !y16 && GPUACT_ACT_TABLE(kind, precise, 4)) {
        /* the default f32 forward of GELU and tanh-GELU: one branch for the vector's elements off the
           common range, which is where a NaN x (kept as its bits without bias or scale) lies too */
        float z[8];
        int off = 0;
#pragma unroll
        for (int k = 0; k < vec; k++) {
            z[k] = gpuact_tof_dt(xd, x[k]);
            if (has_bias) z[k] += b[k];
            v[k] = gpuact_act_common(kind, z[k] GPUACT_TAB_A);
            off |= gpuact_sm_ftab_off(z[k]);
            y[k] = gpuact_as_u32(flags & GPUACT_F_SCALE ? v[k] * scale : v[k]);
        }
        if (off)
#pragma unroll
            for (int k = 0; k < vec; k++)
                if (gpuact_sm_ftab_off(z[k])) {
                    const float vk = gpuact_act_offv(kind, z[k]);
                    y[k] = (flags & GPUACT_F_RAW) && gpuact_nan_bits_dt(xd, x[k]) ? x[k]
                                                                             : gpuact_as_u32(flags & GPUACT_F_SCALE ? vk * scale : vk);
                }
        return 0u;
    }
#pragma unroll
    for (int k = 0; k < vec; k++) {
        int pass = 0;
        if (sel) {
            if (kind == GPUACT_KIND_hardtanh) {
                y[k] = gpuact_hardtanh_sel(x[k], gpuact_tof_dt(xd, x[k]), gpuact_tof_dt(xd, lbits),
                                           gpuact_tof_dt(xd, cbits), lbits, cbits, &pass);
            } else {
                pass = gpuact_passes_bits_dt(kind, xd, x[k], cbits, lbits);
                if (gpuact_kind_slope(kind))
                    y[k] = pass ? x[k] : gpuact_fromf_dt(yd, gpuact_tof_dt(xd, x[k]) * slope);
                else if (kind == GPUACT_KIND_relu && xd == GPUACT_DT_f32) /* pass is for the mask bit only */
                    y[k] = gpuact_relu_keeps32(x[k]) ? x[k] : 0u;
                else
                    y[k] = pass ? x[k] : gpuact_blocked_bits(kind, gpuact_sbits_dt(xd, x[k]), cbits);
            }
        } else {
            float z = gpuact_tof_dt(xd, x[k]), vk;
            if (has_bias) z += b[k];
            vk = gpuact_act_fl(kind, y16 ? fl : -1, z, slope, ceiling, lower, gpuact_eval(y16 ? 2 : 4, precise) GPUACT_TAB_A);
            if (flags & GPUACT_F_SCALE) vk *= scale;
            if (y16) v[k] = vk; /* rounded below */
            /* no bias, scale 1, xd == yd, not the selection path: a NaN x keeps its bits */
            else y[k] = (flags & GPUACT_F_RAW) && gpuact_nan_bits_dt(xd, x[k]) ? x[k] : gpuact_fromf_dt(yd, vk);
            if (gpuact_kind_select(kind)) pass = gpuact_passes(kind, z, ceiling, lower);
        }
        bits |= (gpuact_u32)pass << k;
    }
    if (!sel && y16) {
        const int pairs = (flags & (GPUACT_F_BIAS | GPUACT_F_SCALE | GPUACT_F_RAW)) != 0;
#pragma unroll
        for (int k = 0; k < vec; k += 2) {
            if (pairs) {
                gpuact_fromf2_dt(yd, v[k], v[k + 1], &y[k], &y[k + 1]);
            } else {
                y[k] = gpuact_fromf_dt(yd, v[k]);
                y[k + 1] = gpuact_fromf_dt(yd, v[k + 1]);
            }
        }
        if (flags & GPUACT_F_RAW) /* as above: a NaN x keeps its bits */
#pragma unroll
            for (int k = 0; k < vec; k++) y[k] = gpuact_nan_bits_dt(xd, x[k]) ? x[k] : y[k];
    }
    return bits;
}
/* The kinds whose default 16-bit forward takes the quick values in two steps below, and with
   them cuda/common.cuh's 16-bit bound (GELU's keeps one step, which measured faster) */
#define GPUACT_QUICK2_KINDS ((1u << GPUACT_KIND_gelu_tanh) | (1u << GPUACT_KIND_silu))
#ifdef GPUACT_QUICK_BF16
/* smooth.h's quick value of a transcendental kind, and in *ok whether it is kept */
GPUACT_FN float gpuact_quick16(int kind, float z, int *ok) {
    return kind == GPUACT_KIND_gelu        ? gpuact_gelu_erf_qbf16(z, ok)
           : kind == GPUACT_KIND_gelu_tanh ? gpuact_gelu_tanh_qbf16(z, ok)
                                           : gpuact_silu_qbf16(z, ok);
}
/* the gated forms' quick act (and act' in *grad) of a transcendental kind, as gpuact_quick16 */
GPUACT_FN float gpuact_glu_quick16(int kind, float z, float *grad, int *ok) {
    return kind == GPUACT_KIND_silu        ? gpuact_silu_glu_qbf16(z, grad, ok)
           : kind == GPUACT_KIND_gelu_tanh ? gpuact_gelu_tanh_glu_qbf16(z, grad, ok)
                                           : gpuact_gelu_erf_glu_qbf16(z, grad, ok);
}
/* the kind's bounds of the quick act and act' (smooth.h's GPUACT_QGLU_*) */
GPUACT_FN int gpuact_qglu_act_ulps(int kind) {
    return kind == GPUACT_KIND_silu        ? GPUACT_QGLU_ACT_ULPS_SILU
           : kind == GPUACT_KIND_gelu_tanh ? GPUACT_QGLU_ACT_ULPS_TANH
                                           : GPUACT_QGLU_ACT_ULPS_ERF;
}
GPUACT_FN float gpuact_qglu_grad_abs(int kind) {
    return kind == GPUACT_KIND_gelu ? (float)GPUACT_QGLU_GRAD_ABS_ERF : (float)GPUACT_QGLU_GRAD_ABS_SIG;
}
/* The elementwise 16-bit forward (no bias, scale 1; xd: bf16, or f16 in the default evaluation)
   of GELU, tanh-GELU and SiLU through smooth.h's quick functions; tanh-GELU's and SiLU's in the
   default evaluation (and the bf16 codes forward's) in two steps, few registers, so the kernel
   keeps its bound without a spill: gpuact_qbf16_words, y's words from the quick values, and as
   the result the elements where one was not kept (bit k: element k; a NaN x keeps its bits and
   is never one); then, after a uniform branch on the warps that have any, gpuact_qbf16_fix: the
   lean (or precise) function's values into y there, in a loop over a lane's pending elements,
   which runs the function as many times as the lanes' largest count (a branch per element slot
   runs it once per slot that has one). In bf16 the bits are those of the general path below; in
   f16 GELU's and tanh-GELU's differ at a counted few inputs (smooth.h, docs/NUMERICS_SMOOTH.md). */
GPUACT_FN gpuact_u32 gpuact_qbf16_words(int kind, int xd, const gpuact_u32 *x, gpuact_u32 *y) {
    gpuact_u32 pending = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const gpuact_u32 nan = gpuact_nan_lanes(x[j], gpuact_inf16(xd));
        float z[2], v[2];
        int ok[2];
        gpuact_unpack2_dt(xd, x[j], &z[0], &z[1]);
#pragma unroll
        for (int h = 0; h < 2; h++)
            v[h] = gpuact_quick16(kind, z[h], &ok[h]);
        y[j] = (gpuact_pack2_dt(xd, 1, v[0], v[1]) & ~nan) | (x[j] & nan);
        pending |= ((gpuact_u32)!ok[0] & ~nan) << (2 * j) | ((gpuact_u32)!ok[1] & ~(nan >> 16)) << (2 * j + 1);
    }
    return pending;
}
/* The quick paths' fallbacks, one pending element at a time, its index known at run time only:
   the index of m's lowest set bit (m != 0) from its float exponent (exact), and word j of four by
   selection (indexing would put the words in local memory). */
GPUACT_FN gpuact_u32 gpuact_lowest_bit(gpuact_u32 m) { return (gpuact_as_u32((float)(m & (0u - m))) >> 23) - 127u; }
GPUACT_FN gpuact_u32 gpuact_word4(const gpuact_u32 *w, gpuact_u32 j) { return j == 0 ? w[0] : j == 1 ? w[1] : j == 2 ? w[2] : w[3]; }
/* bf16 element k of four words (element 2j in word j's low lane), as f32 */
GPUACT_FN float gpuact_bf16_elem4(const gpuact_u32 *w, gpuact_u32 k) {
    return gpuact_as_f32((gpuact_word4(w, k >> 1) >> (16 * (k & 1u))) << 16);
}
/* word j of four: its bits outside keep replaced by b (a lane's new value), the same way */
GPUACT_FN void gpuact_word4_set(gpuact_u32 *w, gpuact_u32 j, gpuact_u32 keep, gpuact_u32 b) {
#pragma unroll
    for (int i = 0; i < 4; i++) w[i] = (gpuact_u32)i == j ? (w[i] & keep) | b : w[i];
}
GPUACT_FN void gpuact_qbf16_fix(int kind, int precise, int xd, const gpuact_u32 *x, gpuact_u32 *y, gpuact_u32 pending GPUACT_TAB_P) {
    while (pending) {
        const gpuact_u32 k = gpuact_lowest_bit(pending), j = k >> 1, w = gpuact_word4(x, j);
        const float v = gpuact_act_fl(kind, GPUACT_F_RAW, (k & 1u) ? gpuact_hi2f(xd, w) : gpuact_lo2f(xd, w), 0.0f, 0.0f,
                                      0.0f, gpuact_eval(2, precise) GPUACT_TAB_A);
        const gpuact_u32 b = gpuact_fromf_dt(xd, v) << (16 * (k & 1u)), keep = (k & 1u) ? 0xffffu : 0xffff0000u;
        gpuact_word4_set(y, j, keep, b);
        pending &= pending - 1u;
    }
}
/* both steps: the quick words, then the fix where a warp has a pending element */
GPUACT_FN void gpuact_qbf16_fwd2(int kind, int precise, int xd, const gpuact_u32 *x, gpuact_u32 *y) {
    const gpuact_u32 pending = gpuact_qbf16_words(kind, xd, x, y);
    if (GPUACT_WARP_ANY(pending)) gpuact_qbf16_fix(kind, precise, xd, x, y, pending GPUACT_TAB_A);
}
/* The bf16 epilogue y = act(x + b) (* scale) of a kind in GPUACT_QEPI_KINDS (fl: the flags as a
   constant, a bias, no precise function): smooth.h's gpuact_sm_*_qepi of z = x + b, kept where
   |z| lies in the quick range and the product lies farther from a bf16 rounding boundary than its
   distance from the lean one can reach over every f32 z of that range (smooth.h's
   GPUACT_QEPI_ULPS_*, doubled with a scale for the product's binade, plus its two roundings, as
   gpuact_qglu_act_kept); then, after one uniform branch, the lean value of each element not kept,
   as the general path below forms it. The range is one comparison of z^2 (NaN fails it; tanh-GELU's
   z^2 is its act's too), the distance an integer multiply-add (bits * 2^16: the part below bf16's
   last bit) and one unsigned comparison. */
#define GPUACT_QEPI_KINDS ((1u << GPUACT_KIND_gelu_tanh) | (1u << GPUACT_KIND_silu))
GPUACT_FN int gpuact_qepi_far(int kind, int sc, float z, float v) {
    const gpuact_u32 u = kind == GPUACT_KIND_silu ? GPUACT_QEPI_ULPS_SILU : GPUACT_QEPI_ULPS_TANH, d = sc ? 2u * u + 2u : u;
    const float hi = kind == GPUACT_KIND_silu ? GPUACT_QEPI_HI_SILU : GPUACT_QEPI_HI_TANH;
    return z * z <= hi * hi && /* |z| <= hi exactly (hi^2 is a float, and the next float's square rounds above it) */
           gpuact_as_u32(v) * 65536u - (0x8000u - d) * 65536u > 2u * d * 65536u;
}
GPUACT_FN void gpuact_qbf16_epi(int kind, int fl, const gpuact_u32 *x, const gpuact_u32 *bw, gpuact_u32 *y,
                                float scale GPUACT_TAB_P) {
    const int dt = GPUACT_DT_bf16, sc = (fl & GPUACT_F_SCALE) != 0;
    float z[8], v[8];
    int near = 0;
#pragma unroll
    for (int k = 0; k < 8; k++) {
        const gpuact_u32 w = x[k / 2], b = bw[k / 2];
        z[k] = (k & 1 ? gpuact_hi2f(dt, w) : gpuact_lo2f(dt, w)) + (k & 1 ? gpuact_hi2f(dt, b) : gpuact_lo2f(dt, b));
        v[k] = kind == GPUACT_KIND_silu ? gpuact_sm_silu_qepi(z[k]) : gpuact_sm_gelu_tanh_qepi(z[k]);
        if (sc) v[k] *= scale;
        near |= !gpuact_qepi_far(kind, sc, z[k], v[k]);
    }
#pragma unroll
    for (int j = 0; j < 4; j++) y[j] = gpuact_pack2_dt(dt, 1, v[2 * j], v[2 * j + 1]);
    if (!GPUACT_WARP_ANY(near)) return;
    {
        gpuact_u32 pending = 0;
#pragma unroll
        for (int k = 0; k < 8; k++) pending |= (gpuact_u32)!gpuact_qepi_far(kind, sc, z[k], v[k]) << k;
        while (pending) {
            const gpuact_u32 k = gpuact_lowest_bit(pending), j = k >> 1, sh = 16 * (k & 1u);
            float l = gpuact_act_fl(kind, fl, gpuact_bf16_elem4(x, k) + gpuact_bf16_elem4(bw, k), 0.0f, 0.0f, 0.0f,
                                    gpuact_eval(2, 0) GPUACT_TAB_A);
            if (sc) l *= scale;
            gpuact_word4_set(y, j, sh ? 0xffffu : 0xffff0000u, (gpuact_pack2_dt(dt, 1, l, l) & 0xffffu) << sh);
            pending &= pending - 1u;
        }
    }
}
/* The precise evaluation's (bf16) and GELU's in one step, their kernels at the general bound:
   every quick value first, in straight-line code so the words interleave, then the lean (or
   precise) function where one was not kept (in two steps GELU's ran slower, and the precise
   function's registers spilled into the bias path). */
GPUACT_FN void gpuact_fwd_words_qbf16(int kind, int precise, int xd, const gpuact_u32 *x, gpuact_u32 *y GPUACT_TAB_P) {
    float z[8], v[8];
    int ok[8], bad = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) gpuact_unpack2_dt(xd, x[j], &z[2 * j], &z[2 * j + 1]);
#pragma unroll
    for (int k = 0; k < 8; k++) {
        v[k] = gpuact_quick16(kind, z[k], &ok[k]);
        bad |= !ok[k];
    }
    if (GPUACT_WARP_ANY(bad)) /* one uniform branch where every value was kept */
#pragma unroll
        for (int k = 0; k < 8; k++)
            if (!ok[k]) v[k] = gpuact_act_fl(kind, GPUACT_F_RAW, z[k], 0.0f, 0.0f, 0.0f, gpuact_eval(2, precise) GPUACT_TAB_A);
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const gpuact_u32 nan = gpuact_nan_lanes(x[j], gpuact_inf16(xd)); /* a NaN x keeps its bits */
        y[j] = (gpuact_pack2_dt(xd, 1, v[2 * j], v[2 * j + 1]) & ~nan) | (x[j] & nan);
    }
}
#endif
/* The forward of four words of two lanes each (8 elements, element 2j in
   word j's low lane), every array 16-bit: y's words, and the mask bits as
   the result. xd, yd, bd: the dtypes of x, y and the bias; sel: the
   selection path (no bias, scale 1, xd == yd); fl >= 0: flags is that
   constant, so choices on it are made at compile time. bw: the bias's
   words (has_bias); c2 / l2: the bounds as y's bits in both lanes. */
GPUACT_FN gpuact_u32 gpuact_fwd_words(int kind, int precise, int xd, int yd, int bd, int sel, int fl, const gpuact_u32 *x,
                                      const gpuact_u32 *bw, gpuact_u32 *y, int has_bias, int flags, float scale,
                                      float slope, float ceiling, float lower, gpuact_u32 c2, gpuact_u32 l2 GPUACT_TAB_P) {
    gpuact_u32 top[4]; /* bits 15 and 31: where each lane's gradient passes */
#ifdef GPUACT_QUICK_BF16
    if (fl == GPUACT_F_RAW && !sel && ((GPUACT_TRANSCENDENTAL_KINDS >> kind) & 1u) &&
        (xd == GPUACT_DT_bf16 || (kind != GPUACT_KIND_silu && !precise))) {
        if (precise || !((GPUACT_QUICK2_KINDS >> kind) & 1u))
            gpuact_fwd_words_qbf16(kind, precise, xd, x, y GPUACT_TAB_A);
        else
            gpuact_qbf16_fwd2(kind, precise, xd, x, y);
        return 0u;
    }
    if (fl >= 0 && (fl & GPUACT_F_BIAS) && !(fl & GPUACT_F_RAW) && !sel && !precise && xd == GPUACT_DT_bf16 &&
        yd == GPUACT_DT_bf16 && bd == GPUACT_DT_bf16 && ((GPUACT_QEPI_KINDS >> kind) & 1u)) {
        gpuact_qbf16_epi(kind, fl, x, bw, y, scale GPUACT_TAB_A);
        return 0u;
    }
#endif
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const gpuact_u32 w = x[j];
#ifdef GPUACT_CMP2
        if (sel && !gpuact_kind_slope(kind)) {
            y[j] = gpuact_select_cmp2(kind, xd, w, c2, l2, &top[j]);
        } else
#endif
        if (sel && gpuact_kind_slope(kind)) { /* x * slope is arithmetic: the two-at-once conversion */
            const gpuact_u32 pass = gpuact_passes_pair(kind, xd, w, c2, l2);
            const float lo = gpuact_lo2f(xd, w), hi = gpuact_hi2f(xd, w);
            y[j] = (w & pass) | (gpuact_pack2_dt(yd, 1, lo * slope, hi * slope) & ~pass);
            top[j] = pass & 0x80008000u;
        } else if (sel && kind == GPUACT_KIND_hardtanh) { /* per lane: a bound may equal a passing value */
            const float zl = gpuact_lo2f(xd, w), zh = gpuact_hi2f(xd, w);
            /* the bounds as the format holds them (the bits rule's; not the f32 parameters, which the
               epilogue does not round) */
            y[j] = gpuact_hardtanh_pairf(w, zl, zh, gpuact_lo2f(xd, l2), gpuact_lo2f(xd, c2), l2 & 0xffffu,
                                         c2 & 0xffffu, &top[j]);
        } else if (sel) { /* y is x where it passes, else +0 or the ceiling (never a passing value) */
            y[j] = gpuact_select_pair(kind, w, gpuact_inf16(xd), c2);
            top[j] = gpuact_select_tops(kind, y[j], c2);
        } else {
            float zl, zh, vl, vh;
            gpuact_unpack2_dt(xd, w, &zl, &zh);
            if (has_bias) { /* the bias stays packed until here: half the registers */
                float bl, bh;
                gpuact_unpack2_dt(bd, bw[j], &bl, &bh);
                zl += bl;
                zh += bh;
            }
            if (fl == GPUACT_F_RAW && kind == GPUACT_KIND_silu && !precise && xd == GPUACT_DT_f16 &&
                yd == GPUACT_DT_f16) { /* smooth.h: the same f16 bits */
#ifdef GPUACT_PACK2_F16 /* the two-at-once conversion below makes a NaN the canonical one */
                vl = gpuact_sm_silu_x16(zl);
                vh = gpuact_sm_silu_x16(zh);
#else
                vl = gpuact_sm_canon(gpuact_sm_silu_x16(zl));
                vh = gpuact_sm_canon(gpuact_sm_silu_x16(zh));
#endif
            } else {
                vl = gpuact_act_fl(kind, fl, zl, slope, ceiling, lower, gpuact_eval(2, precise) GPUACT_TAB_A);
                vh = gpuact_act_fl(kind, fl, zh, slope, ceiling, lower, gpuact_eval(2, precise) GPUACT_TAB_A);
            }
            if (flags & GPUACT_F_SCALE) {
                vl *= scale;
                vh *= scale;
            }
            if (flags & (GPUACT_F_BIAS | GPUACT_F_SCALE | GPUACT_F_RAW)) {
                /* a NaN here came from arithmetic, or (RAW) is replaced by x's own below: the two-at-once
                   conversion rounds every other value as the exact one does */
                y[j] = gpuact_pack2_dt(yd, 1, vl, vh);
                if (flags & GPUACT_F_RAW) {
                    const gpuact_u32 nan = gpuact_nan_lanes(w, gpuact_inf16(xd));
                    y[j] = (y[j] & ~nan) | (w & nan);
                }
            } else { /* a NaN may be x's own: keep its payload as the element path does */
                y[j] = gpuact_pack2_dt(yd, 0, vl, vh);
            }
            top[j] = !gpuact_kind_select(kind) ? 0u
                     : (gpuact_passes(kind, zl, ceiling, lower) ? 0x8000u : 0u) |
                           (gpuact_passes(kind, zh, ceiling, lower) ? 0x80000000u : 0u);
        }
    }
    return gpuact_tops_bits(top[0], top[1], top[2], top[3]);
}

/* The backward of four words of two lanes each, every array 16-bit: dx's
   words from dy's and the lanes where the gradient passes (0xffff each;
   sel: scale 1 and dxd == dyd, a passing lane is dy's own bits). */
GPUACT_FN void gpuact_bwd_words(int kind, int dyd, int dxd, int sel, const gpuact_u32 *dy, const gpuact_u32 *pass,
                                gpuact_u32 *dx, int do_scale, float scale, float slope) {
#pragma unroll
    for (int j = 0; j < 4; j++) {
        if (sel && !gpuact_kind_slope(kind)) {
            dx[j] = dy[j] & pass[j];
        } else {
            float gl, gh;
            gpuact_unpack2_dt(dyd, dy[j], &gl, &gh);
            if (do_scale) {
                gl *= scale;
                gh *= scale;
            }
            if (sel) { /* leaky: dy's bits where it passes, dy * slope (arithmetic) elsewhere */
                dx[j] = (dy[j] & pass[j]) | (gpuact_pack2_dt(dxd, 1, gl * slope, gh * slope) & ~pass[j]);
            } else {
                const float vl = pass[j] & 1u ? gl : gpuact_blocked_grad(kind, gl, slope);
                const float vh = pass[j] >> 31 ? gh : gpuact_blocked_grad(kind, gh, slope);
                /* without scale a passing NaN is dy's own: exact conversions keep its payload */
                dx[j] = do_scale ? gpuact_pack2_dt(dxd, 1, vl, vh) : gpuact_pack2_dt(dxd, 0, vl, vh);
            }
        }
    }
}
/* One vector of 8 elements of the backward, every array 16-bit: dx's four
   words from dy's, and the region from the mask bits (from_mask), from
   z = s (+ b, the bias as floats) in f32 (fromx), or from s's bits; a
   smooth kind (fromx): dx = (dy (* scale)) * act'(z). sd: the region
   source's dtype; cbits / lbits: the bounds as its bits. */
GPUACT_FN void gpuact_bwd_words_vec(int kind, int precise, int dyd, int dxd, int sd, int from_mask, int sel, int fromx,
                                    const gpuact_u32 *dy, const gpuact_u32 *s, gpuact_u32 bits, const float *b,
                                    int has_bias, int do_scale, float scale, float slope, float ceiling, float lower,
                                    gpuact_u32 cbits, gpuact_u32 lbits, gpuact_u32 *dx GPUACT_TAB_P) {
    gpuact_u32 pass[4];
    if (fromx && !gpuact_kind_select(kind)) { /* smooth: dx = (dy * scale) * act'(z), two values at once */
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float zl, zh, gl, gh;
            gpuact_unpack2_dt(sd, s[j], &zl, &zh);
            gpuact_unpack2_dt(dyd, dy[j], &gl, &gh);
            if (has_bias) {
                zl += b[2 * j];
                zh += b[2 * j + 1];
            }
            if (do_scale) {
                gl *= scale;
                gh *= scale;
            }
            dx[j] = gpuact_pack2_dt(dxd, 1, gl * gpuact_grad(kind, zl, gpuact_eval(2, precise) GPUACT_TAB_A),
                                    gh * gpuact_grad(kind, zh, gpuact_eval(2, precise) GPUACT_TAB_A)) &
                    ~((gpuact_grad_zero(kind, zl) ? 0xffffu : 0u) | (gpuact_grad_zero(kind, zh) ? 0xffff0000u : 0u));
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        if (from_mask) {
            pass[j] = gpuact_bits_lanes(bits >> (2 * j));
        } else if (fromx) {
            float zl, zh;
            gpuact_unpack2_dt(sd, s[j], &zl, &zh);
            if (has_bias) {
                zl += b[2 * j];
                zh += b[2 * j + 1];
            }
            pass[j] = (gpuact_passes(kind, zl, ceiling, lower) ? 0xffffu : 0u) |
                      (gpuact_passes(kind, zh, ceiling, lower) ? 0xffff0000u : 0u);
        } else {
            pass[j] = gpuact_passes_pair(kind, sd, s[j], cbits * 0x00010001u, lbits * 0x00010001u);
        }
    }
    gpuact_bwd_words(kind, dyd, dxd, sel, dy, pass, dx, do_scale, scale, slope);
}

#endif
