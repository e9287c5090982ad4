#!/usr/bin/env python3
"""kernels/smooth.h's constants from their definitions, printed in the file's
format (%.9e with an f suffix) and compared with the file, constant by
constant.

    python3 tools/smooth_coefficients.py            # every constant: derived, generated, reported
    python3 tools/smooth_coefficients.py --check    # exit status 1 if a derived or generated one differs
    python3 tools/smooth_coefficients.py --write    # write the generated polynomials into smooth.h

Three kinds of constant:

  derived    a closed form (1/ln2, 2 sqrt(2/pi), 1/sqrt(2 pi), ...), a root of
             a derivative, a Taylor coefficient at that root, or a value of
             one of the near-range functions: the float nearest the exact
             value, or a double-float (hi = the nearest float, lo = the float
             nearest the rest; ln2's hi keeps 21 bits so that k * hi is exact).
             These must match the file bit for bit (--check): the same float,
             whether the file prints the float or the exact value (the
             compiler rounds either to the same float).
  generated  a minimax polynomial of the 16-bit functions (gpuact_*_16), and the
             f32 erf-GELU exponent's C1, C2 and lambda (gpuact_sm_gelu_a): the
             Remez exchange below on the error the comment beside it names,
             each coefficient rounded to the nearest float (the erf-GELU
             derivative's P in turn: the highest power's rounded and held, the
             rest refitted, and so on down, which keeps one more f16 input
             correctly rounded than plain rounding). smooth.h holds exactly
             these (--check); --write puts them there, then `make embed`
             regenerates the kernel header and `build/accuracy --16` must
             still count no more misses than docs/NUMERICS_SMOOTH.md lists.
  reported   a minimax polynomial of the f32 functions (precise and _fast; the
             reciprocal gpuact_sm_rcp12q, which the _fast functions share with
             the 16-bit ones, too). Their coefficients came from fits whose
             interval, weighting and rounding are not recorded; no procedure
             tried here (plain rounding of a Remez fit on the named error, or
             rounding each coefficient in turn and refitting the rest)
             reproduces them bit for bit: the far-range fits come
             within an ulp or two, the others not. Replacing them needs the 1-
             and 2-ulp bounds proven again over all 2^32 inputs (`accuracy
             --all`), so they stay and are refitted here only to report the
             distance in ulps and both fits' largest error. So does the quick
             bf16 GELU's p (gpuact_sm_gelu_q2, a Chebyshev fit): its error
             adds to the float rounding of its argument, and the minimax refit
             lies farther from the lean value than the file's, whose values
             round to the lean function's bf16 value on every bf16 input of
             the range (tools/qbf16_distance.cu checks it). And so is the low part of
             the slope P'(1.75) of the erf-GELU derivative's near range: its
             high part is the exact slope's, its low part was fitted with the
             polynomial after it.

Needs mpmath and numpy; the fits take a minute or two (--no-fits: the generated ones only).
"""
import argparse
import re
import struct
import sys

import mpmath as mp

mp.mp.prec = 200


def f32(x):
    """The float nearest x (round to nearest even), as a Python float."""
    return struct.unpack("<f", struct.pack("<f", float(mp.mpf(x))))[0] if abs(x) > mp.mpf(2) ** -126 else \
        _f32_small(x)


def _f32_small(x):
    # subnormal and tiny values: float() first is exact enough at double precision for these constants
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def split(x, hi_bits=24):
    """(hi, lo): hi = x rounded to hi_bits significant bits, lo = the float nearest x - hi."""
    x = mp.mpf(x)
    if hi_bits == 24:
        hi = f32(x)
    else:
        e = int(mp.floor(mp.log(abs(x), 2)))
        q = mp.mpf(2) ** (e - hi_bits + 1)
        hi = f32(mp.nint(x / q) * q)
    return hi, f32(x - mp.mpf(hi))


def fmt(v):
    return f"{v:.9e}f"


def bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def ulps(a, b):
    """Distance in float ulps (order of the bit patterns)."""
    def key(v):
        u = bits(v)
        return -(u & 0x7fffffff) if u >> 31 else u
    return abs(key(a) - key(b))


# ---- the functions whose roots, Taylor coefficients and values smooth.h stores ----------------

C0 = 1 / mp.sqrt(2 * mp.pi)               # 1/sqrt(2 pi)
C1_TANH = 2 * mp.sqrt(2 / mp.pi)          # z = y (c1 + c3 y^2) = 2u
C3_TANH = mp.mpf("0.044715") * C1_TANH


def Q(y):
    """erfc(y / sqrt2) / 2: the upper tail of the normal distribution."""
    return mp.erfc(y / mp.sqrt(2)) / 2


def gelu_d(x):
    return mp.ncdf(x) + x * mp.npdf(x)


def silu_W(y):
    """D - Y of the SiLU derivative at x = -y: 1 + e^-y - y."""
    return 1 + mp.exp(-y) - y


def tanh_W(y):
    z = y * (C1_TANH + C3_TANH * y * y)
    return 1 + mp.exp(-z) - y * (C1_TANH + 3 * C3_TANH * y * y)


def taylor_at_root(W, guess, n):
    y0 = mp.findroot(W, guess)
    return y0, [c for c in mp.taylor(W, y0, n)]


def derived():
    """[(name, exact value or (hi, lo) pair)] of the constants with a closed form."""
    out = []
    ln2_hi, ln2_lo = split(mp.log(2), hi_bits=21)
    out += [("1/ln2", f32(1 / mp.log(2))), ("ln2 hi (21 bits)", ln2_hi), ("ln2 lo", ln2_lo)]
    h, l = split(1 / mp.log(2))
    out += [("-1/ln2 hi", -h), ("-1/ln2 lo", -l), ("-1/(2 ln2)", f32(-1 / (2 * mp.log(2))))]
    out += [("24/17 (1/d on [1,2], linear minimax)", f32(mp.mpf(24) / 17)), ("-8/17", f32(-mp.mpf(8) / 17))]
    # 1/d on [1, 2], the cubic minimax of the relative error: d p(d) = 1 - T4(2d - 3) / T4(-3), T4(-3) = 577
    t4 = [mp.mpf(v) for v in (1, 0, -8, 0, 8)]           # T4(u), lowest power first
    u = [mp.mpf(-3), mp.mpf(2)]                          # u = 2d - 3
    dp = [mp.mpf(0)] * 5
    for k, ck in enumerate(t4):                          # dp = sum ck u^k, expanded in d
        uk = [mp.mpf(1)]
        for _ in range(k):
            uk = [sum(uk[i] * u[j - i] for i in range(len(uk)) if 0 <= j - i < 2) for j in range(len(uk) + 1)]
        for j, v in enumerate(uk):
            dp[j] -= ck * v / 577
    dp[0] += 1                                           # 0: d p(d) vanishes at d = 0
    out += [(f"1/d cubic minimax, d^{j - 1}", f32(dp[j])) for j in range(4, 0, -1)]
    out += [("2^64", f32(mp.mpf(2) ** 64)), ("2^-64", f32(mp.mpf(2) ** -64)), ("2^-149", float(mp.mpf(2) ** -149)),
            ("2^-25", f32(mp.mpf(2) ** -25))]
    h, l = split(C1_TANH)
    out += [("c1 = 2 sqrt(2/pi) hi", h), ("c1 lo", l)]
    h, l = split(C3_TANH)
    out += [("c3 = 0.044715 c1 hi", h), ("c3 lo", l)]
    h, l = split(3 * C3_TANH)
    out += [("3 c3 hi", h), ("3 c3 lo", l)]
    h, l = split(C0)
    out += [("c0 = 1/sqrt(2 pi) hi", h), ("c0 lo", l)]
    h, l = split(-mp.log(mp.sqrt(2 * mp.pi)))
    out += [("ln c0 hi", h), ("ln c0 lo", l)]
    # SiLU derivative: the root of W = 1 + e^-y - y and W's Taylor coefficients there
    y0, c = taylor_at_root(silu_W, 1.28, 6)
    h, l = split(y0)
    out += [("silu_d y0 hi", h), ("silu_d y0 lo", l), ("silu_d -y0 hi", -h), ("silu_d -y0 lo", -l)]
    h, l = split(c[1])
    out += [("silu_d w1 hi", h), ("silu_d w1 lo", l)]
    out += [(f"silu_d w{k}", f32(c[k])) for k in range(2, 7)]
    # tanh-GELU derivative: the same for W = 1 + e^-z - y z'
    y0, c = taylor_at_root(tanh_W, 0.75, 6)
    h, l = split(y0)
    out += [("gelu_tanh_d y0 hi", h), ("gelu_tanh_d y0 lo", l)]
    h, l = split(c[1])
    out += [("gelu_tanh_d w1 hi", h), ("gelu_tanh_d w1 lo", l)]
    out += [(f"gelu_tanh_d w{k}", f32(c[k])) for k in range(2, 7)]
    # erf-GELU derivative: its root (GELU's minimum at -y0), and P(y) = (e^(y^2/2) Q(y) - c0 y) / (y - y0)
    # at 1.75 with its slope there, as double-floats
    y0 = mp.findroot(lambda y: gelu_d(-y), 0.75)
    h, l = split(y0)
    out += [("gelu_erf_d y0 hi", h), ("gelu_erf_d -y0 lo (y - y0 adds it)", -l)]

    def P(y):
        return (mp.exp(y * y / 2) * Q(y) - C0 * y) / (y - y0)
    h, l = split(P(mp.mpf("1.75")))
    out += [("gelu_erf_d P(1.75) hi", h), ("gelu_erf_d P(1.75) lo", l)]
    h, l = split(mp.diff(P, mp.mpf("1.75")))
    out += [("gelu_erf_d P'(1.75) hi", h)]
    return out


# the block of smooth.h that tools/smooth_tables.py writes
TABLES_BEGIN = "/* the derivatives' tables: written by tools/smooth_tables.py --write */"
TABLES_END = "/* end of the derivatives' tables */"
LITERAL = re.compile(r"(?<![\w.])(-?[0-9]\.[0-9]{9}e[-+][0-9]{2})f")


def file_constants(text):
    """Every %.9e float literal of smooth.h's code, in order, with its line, but the derivatives'
    cell tables (tools/smooth_tables.py writes and checks those)."""
    out, in_tables = [], False
    for i, line in enumerate(text.splitlines(), 1):
        in_tables = (in_tables or TABLES_BEGIN in line) and TABLES_END not in line
        for m in LITERAL.finditer(line) if not in_tables else ():
            out.append((i, float(m.group(1))))
    return out


# ---- minimax fits ----------------------------------------------------------------------------

def remez(f, w, lo, hi, deg, fixed=None, n_grid=2000):
    """The coefficients c[0..deg] (lowest first, mpf) of the polynomial p minimising
    max |w(t) (p(t) - f(t))| on [lo, hi], with the coefficients in fixed ({power: value}) held,
    and the grid (t, f, w as numpy arrays) the extrema were searched on."""
    import numpy as np
    fixed = fixed or {}
    free = [j for j in range(deg + 1) if j not in fixed]
    n = len(free) + 1
    lo, hi = mp.mpf(lo), mp.mpf(hi)

    def cheb(m):
        return [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * k / (m - 1)) for k in range(m)]
    grid = cheb(n_grid)
    tg = np.array([float(t) for t in grid])
    fg = np.array([float(f(t)) for t in grid])
    wg = np.array([float(w(t)) for t in grid])
    # the first reference: Chebyshev extrema, moved off a zero of the weight
    wmax = max(abs(w(lo)), abs(w(hi)))
    xs = [x if abs(w(x)) > wmax * mp.mpf(10) ** -12 else x + (hi - lo) / (7 * n) for x in cheb(n)]
    c = None

    def err(t):
        return w(t) * (mp.polyval(c[::-1], t) - f(t))
    for _ in range(40):
        A = mp.matrix(n, n)
        b = mp.matrix(n, 1)
        for i, x in enumerate(xs):
            for k, j in enumerate(free):
                A[i, k] = x ** j
            A[i, n - 1] = (-1) ** i / w(x)
            b[i] = f(x) - sum(v * x ** j for j, v in fixed.items())
        sol = mp.lu_solve(A, b)
        c = [mp.mpf(fixed.get(j, 0)) for j in range(deg + 1)]
        for k, j in enumerate(free):
            c[j] = sol[k]
        eg = wg * (np.polynomial.polynomial.polyval(tg, np.array([float(v) for v in c])) - fg)
        # the alternating extrema of the error on the grid, then each interior one refined
        # (an end point only where the error is not held at 0 there, as by a fixed constant term)
        big = 1e-6 * np.max(np.abs(eg))
        ext = [k for k in (0,) if abs(eg[k]) > big] \
            + [k for k in range(1, n_grid - 1) if abs(eg[k]) >= abs(eg[k - 1]) and abs(eg[k]) >= abs(eg[k + 1])
               and (eg[k] - eg[k - 1]) * (eg[k + 1] - eg[k]) <= 0] + [k for k in (n_grid - 1,) if abs(eg[k]) > big]
        alt = []
        for k in ext:
            if alt and (eg[alt[-1]] > 0) == (eg[k] > 0):
                if abs(eg[k]) > abs(eg[alt[-1]]):
                    alt[-1] = k
            else:
                alt.append(k)
        while len(alt) > n:
            alt.pop(0 if abs(eg[alt[0]]) < abs(eg[alt[-1]]) else -1)
        if len(alt) < n:
            raise ValueError("the error lost its alternation")
        new = []
        for k in alt:
            if k in (0, n_grid - 1):
                new.append(grid[k])
                continue
            a, b_, s = grid[k - 1], grid[k + 1], 1 if eg[k] > 0 else -1
            for _ in range(30):  # golden section on the error's extremum
                m1, m2 = a + (b_ - a) * mp.mpf(0.381966), a + (b_ - a) * mp.mpf(0.618034)
                if s * err(m1) > s * err(m2):
                    b_ = m2
                else:
                    a = m1
            new.append((a + b_) / 2)
        xs = new
        e = [abs(err(t)) for t in xs]
        if max(e) / min(e) - 1 < mp.mpf(10) ** -9:
            break
    return c, (tg, fg, wg)


C0 = 1 / mp.sqrt(2 * mp.pi)


def mills(y):
    """R(y) = Q(y) / phi(y), the Mills ratio."""
    return Q(y) * mp.exp(y * y / 2) / C0


Y0 = mp.findroot(lambda y: mills(y) - y, 0.75)  # the erf-GELU derivative's root


def P_erf(y):
    """P(y) = (e^(y^2/2) Q(y) - c0 y) / (y - y0), the erf-GELU derivative's near-range factor."""
    if abs(y - Y0) < mp.mpf(10) ** -20:
        return C0 * (mp.diff(mills, Y0) - 1)
    return C0 * (mills(y) - y) / (y - Y0)


def by_sigma(g):
    """g as a function of sigma = 1/y^2."""
    return lambda s: g(1 / mp.sqrt(s))


def ln_g_over_sigma(y):
    return mp.log(y * mills(y)) * y * y   # ln g(y) / sigma, g(y) = y Q(y) / phi(y) = y R(y)


def G_erf(y):
    return y * mills(y)                   # the derivative's far range: 1 - sigma G(sigma) = 1 - R(y) / y


def guarded(f, near, coeffs):
    """f, or within near of 0 (where its formula cancels) the series sum coeffs[k] t^k."""
    return lambda t: mp.polyval(coeffs[::-1], t) if abs(t) < near else f(t)


class Fit:
    """A polynomial of smooth.h: its coefficients are literals in the body of function fn, highest
    power first (Horner order), after `skip` other not-derived literals there (or at those indices
    among them, a list)."""

    def __init__(self, fn, skip, what, f, w, lo, hi, deg, generated, fixed=None, in_turn=False):
        self.fn, self.skip, self.what, self.f, self.w, self.in_turn = fn, skip, what, f, w, in_turn
        self.lo, self.hi, self.deg, self.generated, self.fixed = lo, hi, deg, generated, fixed or {}

    def coefficients(self):
        """The fit rounded to floats, highest power first (the fixed powers left out). in_turn:
        the highest power's coefficient is rounded and held, the rest refitted, and so on down;
        otherwise each is rounded to nearest."""
        fixed = dict(self.fixed)
        for j in range(self.deg, -1, -1) if self.in_turn else [None]:
            c, self.grid = remez(self.f, self.w, self.lo, self.hi, self.deg, fixed)
            if j is not None and j not in fixed:
                fixed[j] = f32(c[j])
        return [f32(c[j]) for j in range(self.deg, -1, -1) if j not in self.fixed]

    def max_error(self, coeffs):
        """max |w (p - f)| over the fit's grid for these coefficients (highest first, free powers)."""
        import numpy as np
        it = iter(coeffs)
        c = [self.fixed[j] if j in self.fixed else next(it) for j in range(self.deg, -1, -1)]
        tg, fg, wg = self.grid
        return float(np.max(np.abs(wg * (np.polyval(np.array(c, dtype=float), tg) - fg))))


def fits():
    r0 = mp.log(2) / 2
    # (e^r - 1 - r) / r^2 and (e^r - 1 - r - r^2/2) / r^3, with their series near 0
    em = guarded(lambda r: (mp.exp(r) - 1 - r) / r ** 2, 1e-6, [1 / mp.factorial(k + 2) for k in range(6)])
    emq = guarded(lambda r: (mp.exp(r) - 1 - r - r * r / 2) / r ** 3, 1e-6, [1 / mp.factorial(k + 3) for k in range(6)])
    s35, s5, s145, s146 = (1 / mp.mpf(v) ** 2 for v in ("3.5", "5", "14.5", "14.6"))
    Pc = mp.taylor(P_erf, mp.mpf("1.75"), 8)
    lnq2 = lambda y: mp.log(2 * Q(y))                 # noqa: E731
    return [
        # generated: the 16-bit functions
        Fit("gpuact_sm_exp16m", 0, "q: e^r = 1 + r + r^2 q(r), |r| <= ln2/2, relative error of e^r",
            em, lambda r: r * r / mp.exp(r), -r0, r0, 3, True),
        Fit("gpuact_sm_gelu_far16", 0, "p: ln g = sigma p(sigma), y in [5, 14.5], absolute error of ln g",
            by_sigma(ln_g_over_sigma), lambda s: s, s145, s5, 4, True),
        Fit("gpuact_gelu_erf_16", 0, "L(t) = ln Q(y) + y^2/2, t = y - 2.5, y in [0, 5], absolute error",
            lambda t: mp.log(Q(t + mp.mpf("2.5"))) + (t + mp.mpf("2.5")) ** 2 / 2, lambda t: 1, -2.5, 2.5, 10, True),
        Fit("gpuact_gelu_erf_d_16", 0, "P(y), t = y - 2.5, y in [0, 5], relative error",
            lambda t: P_erf(t + mp.mpf("2.5")), lambda t: 1 / abs(P_erf(t + mp.mpf("2.5"))), -2.5, 2.5, 12, True, in_turn=True),
        Fit("gpuact_gelu_erf_d_16", 13, "G(sigma) = y R(y), y in [5, 14.6], relative error of 1 - sigma G",
            by_sigma(G_erf), lambda s: s / (1 - s * by_sigma(G_erf)(s)), s146, s5, 4, True),
        # generated: the f32 erf-GELU exponent's quadratic part and lambda
        Fit("gpuact_sm_gelu_a", [0, 2], "C2 y^2 + C1 y: ln(2 Q(y)), y in [0, 4.5], absolute error",
            guarded(lambda y: lnq2(y) / y, 1e-30, [-2 * C0]), lambda y: y, 0, 4.5, 1, True),
        Fit("gpuact_sm_gelu_a", 4, "lambda(t) = ln(2 Q(y)) - C2 y^2 - C1 y (the file's C1, C2), t = y - 2.25, "
            "y in [0, 4.5], absolute error",
            lambda t: lnq2(t + mp.mpf("2.25")) - mp.mpf(f32(-4.347876012e-01)) * (t + mp.mpf("2.25")) ** 2
            - mp.mpf(f32(-6.794799566e-01)) * (t + mp.mpf("2.25")), lambda t: 1, -2.25, 2.25, 12, True),
        # reported: the f32 functions, and the quick bf16 GELU (see the note at the top)
        Fit("gpuact_sm_gelu_q2", 0, "p(t) = log2 Q(y) + c y^2, c the float nearest 1/(2 ln2) as the code "
            "has it, t = y - 2, y in [0, 4], absolute error",
            lambda t: mp.log(Q(t + 2), 2) + (t + 2) ** 2 * mp.mpf(f32(1 / (2 * mp.log(2)))), lambda t: 1, -2, 2, 8, False),
        Fit("gpuact_sm_exp", 0, "q: e^r = 1 + r + r^2/2 + r^3 q(r), |r| <= ln2/2, absolute error of e^r",
            emq, lambda r: abs(r) ** 3, -r0, r0, 4, False),
        Fit("gpuact_sm_expm1r", 0, "S: e^r - 1 = r + r^2 (1/2 + r S(r)), |r| <= 0.375, relative error of e^r - 1",
            emq, lambda r: abs(r) ** 3 / abs(mp.expm1(r)), mp.mpf(-0.375), mp.mpf(0.375), 4, False),
        Fit("gpuact_sm_rcp12q", 0, "1/d on [1, 2], relative error", lambda d: 1 / d, lambda d: d, 1, 2, 2, False),
        Fit("gpuact_sm_gelu_far_a", 0, "P: ln g = sigma P(sigma), y in [3.5, 14.5], absolute error of ln g",
            by_sigma(ln_g_over_sigma), lambda s: s, s145, s35, 7, False),
        Fit("gpuact_sm_gelud_p", 0, "p: P = P(1.75) + P'(1.75) t + t^2 p(t), t = y - 1.75, y in [0, 3.5], "
            "relative error of P",
            guarded(lambda t: (P_erf(t + mp.mpf("1.75")) - Pc[0] - Pc[1] * t) / t ** 2, 1e-4, Pc[2:]),
            lambda t: t * t / abs(P_erf(t + mp.mpf("1.75"))), -1.75, 1.75, 11, False),
        Fit("gpuact_sm_gelud_far_b", 0, "G(sigma) = y R(y), y in [3.5, 14.6], absolute error of 1 - sigma G",
            by_sigma(G_erf), lambda s: s, s146, s35, 7, False),
    ]


def body_literals(text, fn, derived_bits):
    """(start, end, value) of the not-derived float literals in the body of fn."""
    m = re.search(r"GPUACT_FN [^\n(]*\b" + fn + r"\(", text)
    end = text.index("\n}\n", m.start())
    out = []
    for lit in LITERAL.finditer(text, m.start(), end):
        v = f32(float(lit.group(1)))
        if bits(v) not in derived_bits:
            out.append((lit.start(1), lit.end(1), v))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if a derived or generated constant is not in the "
                    "file bit for bit")
    ap.add_argument("--write", action="store_true", help="write the generated polynomials into the file")
    ap.add_argument("--smooth", default="kernels/smooth.h")
    ap.add_argument("--no-fits", action="store_true", help="skip the reported refits of the f32 functions' polynomials")
    args = ap.parse_args()
    text = open(args.smooth, encoding="utf-8").read()
    in_file = file_constants(text)
    values = {bits(v) for _, v in in_file}
    used = set()
    bad = 0
    derived_values = derived()
    derived_bits = {bits(v) for _, v in derived_values}
    print("derived constants (must be in kernels/smooth.h bit for bit):")
    for name, v in derived_values:
        lines = [i for i, fv in in_file if bits(fv) == bits(v)]
        if bits(v) in values:
            used.add(bits(v))
            print(f"  {fmt(v):>18}  {name}  (line {', '.join(map(str, sorted(set(lines))))})")
        else:
            near = min(in_file, key=lambda t: ulps(t[1], v) if (t[1] < 0) == (v < 0) else 1 << 40)
            print(f"  {fmt(v):>18}  {name}  NOT IN THE FILE (nearest {fmt(near[1])} at line {near[0]}, "
                  f"{ulps(near[1], v)} ulps away)")
            bad += 1
    edits = []
    for fit in fits():
        if not fit.generated and args.no_fits:
            continue
        coeffs = fit.coefficients()
        lits = body_literals(text, fit.fn, derived_bits)
        theirs = [lits[k] for k in fit.skip] if isinstance(fit.skip, list) else lits[fit.skip:fit.skip + len(coeffs)]
        kind = "generated" if fit.generated else "reported"
        same = all(bits(v) == bits(fv) for v, (_, _, fv) in zip(coeffs, theirs))
        print(f"{kind} {fit.fn}, {fit.what}: "
              + ("the file's, bit for bit" if same else "NOT the file's" if fit.generated else "not the file's")
              + f"; largest error {fit.max_error(coeffs):.3e} (the file's {fit.max_error([t[2] for t in theirs]):.3e})")
        for v, (start, _, fv) in zip(coeffs, theirs):
            used.add(bits(fv))
            d = ulps(fv, v) if (fv < 0) == (v < 0) else None
            print(f"    {fmt(v):>18}  file {fmt(fv)} (line {text.count(chr(10), 0, start) + 1}): "
                  + ("same bits" if d == 0 else f"{d} ulps apart" if d is not None else "opposite sign"))
        if fit.generated and not same:
            bad += 1
            edits += [(start, end, fmt(v)[:-1]) for v, (start, end, _) in zip(coeffs, theirs)]
    if not args.no_fits:
        p1 = mp.diff(P_erf, mp.mpf("1.75"))
        print(f"reported gpuact_sm_gelud_near's P'(1.75) low part: the exact slope's is {fmt(split(p1)[1])}, "
              "the file's was fitted with p")
    rest = sorted({(i, fv) for i, fv in in_file if bits(fv) not in used})
    print(f"{len(in_file)} literals in {args.smooth}, {len({bits(v) for _, v in in_file})} distinct; not derived, "
          f"generated or refitted here: {', '.join(f'{fmt(v)} (line {i})' for i, v in rest) or 'none'}")
    if args.write and edits:
        for start, end, s in sorted(edits, reverse=True):
            text = text[:start] + s + text[end:]
        open(args.smooth, "w", encoding="utf-8").write(text)
        print(f"wrote {len(edits)} coefficients into {args.smooth}; run `make embed`")
        return 0
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
