#!/usr/bin/env python3
"""The cell tables of the default f32 evaluations in kernels/smooth.h
(gpuact_sm_dtabs): the derivatives of erf-GELU, tanh-GELU and SiLU
(GPUACT_SM_GED, _GTD, _SID; gpuact_*_d_fast through gpuact_sm_dtab) and the
forwards of erf-GELU and tanh-GELU (GPUACT_SM_GEF, _GTF; gpuact_gelu_erf_fast
and gpuact_gelu_tanh_fast through gpuact_sm_ftab), read for |x| <= 4.875.

    python3 tools/smooth_tables.py            # print each cell's fit and sampled error
    python3 tools/smooth_tables.py --check    # exit 1 if smooth.h's tables differ
    python3 tools/smooth_tables.py --write    # write the tables into smooth.h (then `make embed`)

Each derivative at x = -y (y >= 0) is U(y), and at x = y it is 1 - U(y) (the
functions are x F(x) with F(x) + F(-x) = 1). A forward's table holds U = F(-y)
instead, which has no root, with c0h on the grid of 2^-24 so that 1 - c0h is
exact: x U at -y, y (1 - c0h) - y (U - c0h) at +y. U has one root y0 (0.7518... and
0.7524...) and decays like e^-y^2/2 or e^-z beyond it. Cell k (k = 0..39) holds the inputs whose 8y rounds to k (to even
at ties), so its y lie in [(k - 1/2)/8, (k + 1/2)/8], and t = y - k/8 is
exact (k/8 is within a factor 2 of y, or 0). A cell evaluates

    p  = q1 + t (q2 + ... + t q5)                (Horner, f32)
    U  = c0h + fma(tm, q0h, fma(tm, fma(t, p, q0l), c0l)),  tm = t - r

  - in most cells (r = 0, tm = t): c0h + c0l = U(k/8) as a double-float and
    q0 + t p fits (U(y) - U(k/8)) / t, so only the small product carries the
    polynomial's rounding;
  - in the three root cells around round(8 y0): r = y0h - k/8 (exact; y0h is
    y0's float), so tm = y - y0h, exact too; q0 + t p fits U(y) / (y - y0),
    c0h = 0 and c0l = -y0l U'(y0) stands for the root's low part y0l
    (y - y0 = tm - y0l), so no subtraction cancels.

The fits are weighted least squares iterated towards minimax (Lawson) on the
relative error of U over each cell, at 200 Chebyshev points evaluated with
mpmath; every coefficient is then rounded to the nearest float. A table is
stored by coefficient: row j holds coefficient j of the 40 cells side by side,
so a warp whose lanes read different cells of [0, 4) reads different
shared-memory banks (a cell's coefficients side by side would put cells 8
apart on the same banks). The range reaches 4.875 so that the epilogue's
x + bias, wider than N(0, 1), seldom leaves it: at 3.875 an N(0, 2) input
left it once in 170 (at 4.875 once in 1800), and the exponential's
evaluation then ran for its whole warp. Further out the forwards' fits
lose accuracy at x < 0 (sampled: erf-GELU's 1.78 ulps in cell 43,
tanh-GELU's 3.10 in cell 42), where these quintics no longer follow e^-y^2/2.

Needs mpmath and numpy. The bound that counts is the exhaustive one:
`build/accuracy --all --only gelu_tanh_d_fast` (docs/NUMERICS_SMOOTH.md).
"""
import argparse
import os
import re
import struct
import sys

import mpmath as mp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smooth_coefficients import C1_TANH, C3_TANH, TABLES_BEGIN as BEGIN, TABLES_END as END, f32, fmt, split  # noqa: E402

mp.mp.prec = 120
CELLS, PER_UNIT, DEG = 40, 8, 5
ROWS = 5 + DEG  # r, c0h, c0l, q0h, q0l, q1..q5


def u_gelu(y):
    """erf-GELU's derivative at x = -y: Q(y) - y phi(y)."""
    y = mp.mpf(y)
    return mp.erfc(y / mp.sqrt(2)) / 2 - y * mp.npdf(y)


def u_gelu_tanh(y):
    """tanh-GELU's derivative at x = -y: sigma(-z) (1 - y z' sigma(z))."""
    y = mp.mpf(y)
    z = y * (C1_TANH + C3_TANH * y * y)
    zp = C1_TANH + 3 * C3_TANH * y * y
    s = 1 / (1 + mp.exp(z))  # sigma(-z)
    return s * (1 - y * zp * (1 - s))


def u_silu(y):
    """SiLU's derivative at x = -y: sigma(-y) (1 - y sigma(y))."""
    y = mp.mpf(y)
    s = 1 / (1 + mp.exp(y))
    return s * (1 - y * (1 - s))


def v_gelu(y):
    """erf-GELU's F(-y) = Q(y), the forward at -y over -y."""
    return mp.erfc(mp.mpf(y) / mp.sqrt(2)) / 2


def v_gelu_tanh(y):
    """tanh-GELU's F(-y) = sigma(-z)."""
    y = mp.mpf(y)
    return 1 / (1 + mp.exp(y * (C1_TANH + C3_TANH * y * y)))


# (name, U, where its root is, or None: a forward's F(-y), which has none)
TABLES = (("GPUACT_SM_GED", u_gelu, 0.75), ("GPUACT_SM_GTD", u_gelu_tanh, 0.75), ("GPUACT_SM_SID", u_silu, 1.28),
          ("GPUACT_SM_GEF", v_gelu, None), ("GPUACT_SM_GTF", v_gelu_tanh, None))


def lawson(ts, vals, w, deg, rounds=60):
    a = np.vander(ts, deg + 1, increasing=True)
    ww = np.ones_like(ts)
    for _ in range(rounds):
        sw = np.sqrt(ww) * w
        c = np.linalg.lstsq(a * sw[:, None], vals * sw, rcond=None)[0]
        e = np.abs((a @ c - vals) * w)
        ww = np.maximum(ww * (e + 1e-300) / np.sum(ww * (e + 1e-300)), 1e-12)
    return c, float(e.max())


def fma32(a, b, c):
    """f32 fma through double (a double rounding at most: for the sampled estimate only)."""
    return np.float32(np.float64(a) * np.float64(b) + np.float64(c))


def table(U, guess):
    y0 = mp.findroot(U, guess) if guess is not None else None
    y0h, y0l = split(y0) if y0 is not None else (None, None)
    k0 = int(mp.nint(PER_UNIT * y0)) if y0 is not None else -9
    rows, report = [], []
    for k in range(CELLS):
        lo, hi = max(mp.mpf(k) - mp.mpf(0.5), 0) / PER_UNIT, (mp.mpf(k) + mp.mpf(0.5)) / PER_UNIT
        root = abs(k - k0) <= 1
        c = k / PER_UNIT
        n = 200
        ys = [lo + (hi - lo) * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / n)) / 2 for i in range(n)] + [lo, hi]
        us = [U(y) for y in ys]
        ts = np.array([float(y - c) for y in ys])
        if root:
            vals = np.array([float(u / (y - y0)) for u, y in zip(us, ys)])
            w = 1 / np.abs(vals)
            r, c0h, c0l = f32(mp.mpf(y0h) - c), 0.0, f32(-mp.mpf(y0l) * mp.diff(U, y0))
        else:
            uc = U(c)
            vals = np.array([float((u - uc) / (y - c)) if y != c else float(mp.diff(U, c)) for u, y in zip(us, ys)])
            w = np.abs(ts) / np.array([float(abs(u)) for u in us])
            w[w == 0] = 1e-30
            if y0 is None:  # a forward's F(-y) <= 1/2: c0h on the grid of 2^-24, so that 1 - c0h is exact
                c0h = float(mp.nint(uc * 2**24) / 2**24)
                r, c0l = 0.0, f32(uc - mp.mpf(c0h))
            else:
                r, (c0h, c0l) = 0.0, split(uc)
        q, fit_err = lawson(ts, vals, w, DEG)
        q0h, q0l = split(mp.mpf(float(q[0])))
        rest = [f32(v) for v in q[1:]]
        row = [r, c0h, c0l, q0h, q0l] + rest
        rows.append(row)
        report.append((k, float(lo), float(hi), root, fit_err, sampled_error(U, row, float(lo), float(hi), y0 is None)))
    return rows, report


def sampled_error(U, row, lo, hi, forward, n=2001):
    """The largest error in ulps over n floats of the cell: of U (x < 0) and 1 - U (x > 0) for a
    derivative; of the forward -y U (x < 0) and y - y U (x > 0, one fma) for a forward's F(-y)."""
    r, c0h, c0l, q0h, q0l, *q = [np.float32(v) for v in row]
    c = np.float32((lo + hi) / 2 if lo > 0 else 0)
    yy = np.unique(np.linspace(lo, hi, n).astype(np.float32))
    yy = yy[(yy >= lo) & (yy <= hi)]
    t = yy - c
    p = np.full_like(t, q[DEG - 1])
    for j in range(DEG - 2, -1, -1):
        p = fma32(p, t, q[j])
    tm = t - r
    u = c0h + fma32(tm, q0h, fma32(tm, fma32(t, p, q0l), c0l))
    worst = [0.0, 0.0]
    for y, v in zip(yy[::4], u[::4]):
        ref = U(mp.mpf(float(y)))
        pairs = ((float(v), ref), (float(np.float32(1) - v), 1 - ref)) if not forward else \
            ((float(-y * v), -mp.mpf(float(y)) * ref), (float(fma32(y, 1 - c0h, -(y * (v - c0h)))), mp.mpf(float(y)) * (1 - ref)))
        for side, (got, want) in enumerate(pairs):
            e = int(mp.floor(mp.log(abs(want), 2))) if want != 0 else -149
            worst[side] = max(worst[side], float(abs(got - want) / mp.mpf(2) ** (max(e, -126) - 23)))
    return worst


def render(tables):
    n = ROWS * CELLS
    end = (CELLS - 1) / PER_UNIT
    out = [BEGIN, f"#define GPUACT_SM_TAB_END {end}f /* the last cell's centre: the tables' range is [0, this] */",
           f"#define GPUACT_SM_TAB_END_BITS 0x{struct.unpack('<I', struct.pack('<f', end))[0]:08x}u /* its bits */",
           f"enum {{ GPUACT_SM_CELLS = {CELLS}, "
           + ", ".join(f"{name} = {i * n}" for i, (name, _) in enumerate(tables))
           + f", GPUACT_SM_DTABS_N = {len(tables) * n} }};",
           "GPUACT_CONST_DEF float gpuact_sm_dtabs[GPUACT_SM_DTABS_N] = {"]
    names = ["r", "c0h", "c0l", "q0h", "q0l"] + [f"q{j}" for j in range(1, DEG + 1)]
    for t, (name, rows) in enumerate(tables):
        for j, coef in enumerate(names):
            vals = [fmt(row[j]) for row in rows]
            out.append(f"    /* {name}: {coef} */")
            for i in range(0, CELLS, 6):
                last = t + 1 == len(tables) and j + 1 == len(names) and i + 6 >= CELLS
                out.append("    " + ", ".join(vals[i:i + 6]) + ("" if last else ","))
    out += ["};", END]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if smooth.h's tables differ")
    ap.add_argument("--write", action="store_true", help="write the tables into smooth.h")
    ap.add_argument("--smooth", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "smooth.h"))
    args = ap.parse_args()
    tables = []
    for name, U, guess in TABLES:
        rows, report = table(U, guess)
        tables.append((name, rows))
        for k, lo, hi, root, fit_err, (en, ep) in report:
            print(f"{name} cell {k:2d} [{lo:.4f}, {hi:.4f}]{' root' if root else '     '}  fit {fit_err:.1e}  "
                  f"sampled ulps: x < 0 {en:.3f}, x > 0 {ep:.3f}")
    text = open(args.smooth, encoding="utf-8").read()
    m = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, re.S)
    new = render(tables)
    same = m is not None and m.group(0) == new
    print("smooth.h's tables: " + ("the same, bit for bit" if same else "differs" if m else "not found"))
    if args.write and not same:
        if m is None:
            sys.exit("no tables block in " + args.smooth)
        open(args.smooth, "w", encoding="utf-8").write(text[:m.start()] + new + text[m.end():])
        print("wrote it; run `make embed`")
        return 0
    return 1 if args.check and not same else 0


if __name__ == "__main__":
    sys.exit(main())
