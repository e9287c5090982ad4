#!/usr/bin/env python3
"""kernels/smooth.h's constants from their definitions, printed in the file's
format (%.9e with an f suffix) and compared with the file, constant by
constant.

    python3 tools/smooth_coefficients.py            # the table: name, value, file, ulps apart
    python3 tools/smooth_coefficients.py --check    # exit status 1 if a derived constant differs

Two kinds of constant:

  derived  a closed form (1/ln2, 2 sqrt(2/pi), 1/sqrt(2 pi), ...), a root of
           a derivative, a Taylor coefficient at that root, or a value of
           one of the near-range functions: the float nearest the exact
           value, or a double-float (hi = the nearest float, lo = the float
           nearest the rest; ln2's hi keeps 21 bits so that k * hi is exact).
           These must match the file bit for bit (--check): the same float,
           whether the file prints the float or the exact value (the
           compiler rounds either to the same float).
  fitted   a minimax polynomial: refitted here by the Remez exchange on the
           error the comment beside it names, coefficients rounded to
           nearest. The file's came from a fit with its own weighting and
           coefficient rounding, so these are reported with their distance
           in ulps, not checked. So is the low part of the slope P'(1.75) of
           the erf-GELU derivative's near range: its high part is the exact
           slope's, its low part was fitted with the polynomial after it.

Needs mpmath (and numpy for the fits).
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
    out += [("24/17 (1/d on [1,2], linear minimax)", f32(mp.mpf(24) / 17)), ("-8/17", f32(-mp.mpf(8) / 17))]
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


def file_constants(text):
    """Every %.9e float literal of smooth.h's code, in order, with its line."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"(?<![\w.])(-?[0-9]\.[0-9]{9}e[-+][0-9]{2})f", line):
            out.append((i, float(m.group(1))))
    return out


# ---- minimax refits (reported, not checked) --------------------------------------------------

def remez(f, w, lo, hi, deg, iters=30):
    """Coefficients c[0..deg] (lowest first) of the polynomial minimising max |w(x) (p(x) - f(x))| on [lo, hi]."""
    n = deg + 2
    xs = [mp.mpf(lo + hi) / 2 + mp.mpf(hi - lo) / 2 * mp.cos(mp.pi * k / (n - 1)) for k in range(n)][::-1]
    c = None
    for _ in range(iters):
        A = mp.matrix(n, n)
        b = mp.matrix(n, 1)
        for i, x in enumerate(xs):
            for j in range(deg + 1):
                A[i, j] = x ** j
            A[i, deg + 1] = (-1) ** i / w(x)
            b[i] = f(x)
        sol = mp.lu_solve(A, b)
        c = [sol[j] for j in range(deg + 1)]
        err = lambda x: w(x) * (mp.polyval(c[::-1], x) - f(x))  # noqa: E731
        grid = [lo + (hi - lo) * k / 2000 for k in range(2001)]
        vals = [err(mp.mpf(x)) for x in grid]
        ext = []
        for k in range(len(grid)):
            if k in (0, len(grid) - 1) or (vals[k] - vals[k - 1]) * (vals[k + 1] - vals[k]) <= 0:
                ext.append((grid[k], vals[k]))
        alt = []
        for x, v in ext:
            if alt and (alt[-1][1] > 0) == (v > 0):
                if abs(v) > abs(alt[-1][1]):
                    alt[-1] = (x, v)
            else:
                alt.append((x, v))
        while len(alt) > n:
            alt.pop(0 if abs(alt[0][1]) < abs(alt[-1][1]) else -1)
        if len(alt) < n:
            break
        xs = [mp.mpf(x) for x, _ in alt]
    return c


def fits():
    """[(what, the function in the file, [refitted coefficients, highest first])] of the polynomials
    whose fitted error the comments name: refitted on that error, rounded to nearest."""
    out = []
    tiny = mp.mpf(10) ** -40
    r0 = mp.log(2) / 2
    # e^r = 1 + r + r^2/2 + r^3 q(r), |r| <= ln2/2, q of degree 4: relative error of e^r
    q = remez(lambda r: (mp.exp(r) - 1 - r - r * r / 2) / r ** 3 if r else mp.mpf(1) / 6,
              lambda r: abs(r) ** 3 / mp.exp(r) if r else tiny, -r0, r0, 4)
    out.append(("gpuact_sm_exp's q (degree 4, |r| <= ln2/2, relative error of e^r)", "gpuact_sm_exp", [f32(v) for v in q[::-1]]))
    # e^r - 1 = r + r^2 (1/2 + r S(r)), |r| <= 0.375, S of degree 4: relative error of e^r - 1
    S = remez(lambda r: ((mp.expm1(r) - r) / (r * r) - mp.mpf(1) / 2) / r if r else mp.mpf(1) / 6,
              lambda r: abs(r) ** 3 / abs(mp.expm1(r)) if r else tiny, mp.mpf(-0.375), mp.mpf(0.375), 4)
    out.append(("gpuact_sm_expm1r's R = 1/2 + r S (S degree 4, |r| <= 0.375, relative error of e^r - 1)", "gpuact_sm_expm1r",
                [f32(v) for v in S[::-1]]))
    # 1/d on [1, 2]: the minimax quadratic, relative error
    p = remez(lambda d: 1 / d, lambda d: d, mp.mpf(1), mp.mpf(2), 2)
    out.append(("gpuact_sm_rcp12q's quadratic (1/d on [1, 2], relative error)", "gpuact_sm_rcp12q", [f32(v) for v in p[::-1]]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if a derived constant is not in the file bit for bit")
    ap.add_argument("--smooth", default="kernels/smooth.h")
    ap.add_argument("--no-fits", action="store_true", help="skip the minimax refits (they take a minute)")
    args = ap.parse_args()
    text = open(args.smooth, encoding="utf-8").read()
    in_file = file_constants(text)
    values = {bits(v) for _, v in in_file}
    used = set()
    bad = 0
    derived_values = derived()
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
    if not args.no_fits:
        print("minimax refits (reported: the file's weighting and rounding are its own):")
        for what, fn, coeffs in fits():
            line = text[:text.index(f"GPUACT_FN float {fn}(") if f"GPUACT_FN float {fn}(" in text
                        else text.index(f"{fn}(float ah")].count("\n") + 1
            theirs = [t for t in in_file if t[0] >= line and not any(bits(t[1]) == bits(v) for _, v in derived_values)]
            theirs = theirs[:len(coeffs)]
            print(f"  {what}:")
            for v, (i, fv) in zip(coeffs, theirs):
                d = ulps(fv, v) if (fv < 0) == (v < 0) else None
                print(f"    {fmt(v):>18}  file {fmt(fv)} (line {i}): "
                      + ("same bits" if d == 0 else f"{d} ulps apart" if d is not None else "opposite sign"))
    rest = sorted({(i, fv) for i, fv in in_file if bits(fv) not in used})
    print(f"{len(in_file)} literals in {args.smooth}, {len({bits(v) for _, v in in_file})} distinct; "
          f"{len(used)} derived here; not derived: lines {', '.join(str(i) for i, _ in rest)}")
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
