#!/usr/bin/env python3
"""Few-bit backward tables: writes kernels/fewbit.h.

For GELU (erf), tanh-GELU and SiLU and b in {1, 2, 3, 4}: the piecewise-constant
approximation q of the derivative f' with 2^b levels that minimises

    E(q) = integral over the reals of (f'(x) - q(x))^2 phi(x) dx,

phi the standard normal density (the weight: a pre-activation distributed as a
standard normal), the objective of Novikov et al., "Few-Bit Backward: Quantized
Gradients of Activation Functions for Memory Footprint Reduction" (ICML 2022).
Found by dynamic programming over a fine grid, then refined with the boundaries
free (for fixed boundaries the optimal levels are the weighted means of f' on
each interval). The boundaries are then rounded to f32 and the levels are the
weighted means on the rounded intervals, rounded to f32: the header holds those
f32 values, each printed so that it parses back to exactly that f32.

    python3 tools/fewbit_tables.py [--check]     (numpy, scipy)

--check compares the header with a fresh computation and fails if it differs.
It also prints the weighted RMS and the max error of each table (docs/NUMERICS.md).
"""
import argparse
import math
import os
import sys

import numpy as np
from scipy import integrate, optimize, special

KINDS = ("gelu", "gelu_tanh", "silu")
C_TANH = math.sqrt(2.0 / math.pi)


def dgelu(x):
    return special.ndtr(x) + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def dgelu_tanh(x):
    u = C_TANH * (x + 0.044715 * x**3)
    t = np.tanh(u)
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * C_TANH * (1.0 + 3.0 * 0.044715 * x * x)


def dsilu(x):
    s = special.expit(x)
    return s * (1.0 + x * (1.0 - s))


DERIV = {"gelu": dgelu, "gelu_tanh": dgelu_tanh, "silu": dsilu}
LIM = 12.0  # phi(12) ~ 1e-32: the weight outside is negligible in double


def phi(x):
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def moments(f, a, b):
    """(integral of phi, of f' phi, of f'^2 phi) over [a, b]."""
    a, b = max(a, -LIM), min(b, LIM)
    if b <= a:
        return 0.0, 0.0, 0.0
    w = special.ndtr(b) - special.ndtr(a)
    m1 = integrate.quad(lambda x: f(x) * phi(x), a, b, limit=200, epsabs=1e-15)[0]
    m2 = integrate.quad(lambda x: f(x) ** 2 * phi(x), a, b, limit=200, epsabs=1e-15)[0]
    return w, m1, m2


def levels_for(f, bounds):
    edges = [-math.inf] + list(bounds) + [math.inf]
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        w, m1, _ = moments(f, a, b)
        out.append(m1 / w if w > 0 else float(f(0.5 * (max(a, -LIM) + min(b, LIM)))))
    return out


def error(f, bounds, levels):
    edges = [-math.inf] + list(bounds) + [math.inf]
    e = 0.0
    for (a, b), q in zip(zip(edges[:-1], edges[1:]), levels):
        w, m1, m2 = moments(f, a, b)
        e += m2 - 2.0 * q * m1 + q * q * w
    return max(e, 0.0)


def max_error(f, bounds, levels):
    xs = np.linspace(-LIM, LIM, 400001)
    idx = np.searchsorted(np.asarray(bounds, dtype=np.float64), xs, side="right")
    err = np.abs(f(xs) - np.asarray(levels)[idx])
    # the tails: f' tends to 0 and 1
    return float(max(err.max(), abs(levels[0]), abs(1.0 - levels[-1])))


def dp(f, k, grid):
    """Optimal k-piece partition of the grid cells (weighted L2), by dynamic programming."""
    g = len(grid) - 1
    w = np.diff(special.ndtr(grid))
    mid = 0.5 * (grid[:-1] + grid[1:])
    v = f(mid)
    cw, c1, c2 = (np.concatenate([[0.0], np.cumsum(a)]) for a in (w, w * v, w * v * v))

    def cost(i, j):  # cells [i, j)
        W = cw[j] - cw[i]
        M = c1[j] - c1[i]
        return (c2[j] - c2[i]) - np.where(W > 0, M * M / np.where(W > 0, W, 1.0), 0.0)

    best = cost(0, np.arange(g + 1))
    arg = []
    for _ in range(1, k):
        nb = np.full(g + 1, np.inf)
        na = np.zeros(g + 1, dtype=int)
        for j in range(1, g + 1):
            i = np.arange(0, j)
            c = best[i] + cost(i, j)
            m = int(np.argmin(c))
            nb[j], na[j] = c[m], i[m]
        best = nb
        arg.append(na)
    cuts, j = [], g
    for na in reversed(arg):
        j = na[j]
        cuts.append(grid[j])
    return sorted(cuts)


def cumulative(f):
    """W, M1, M2 as functions of t: the integrals of phi, f' phi, f'^2 phi from -LIM to t (dense grid)."""
    xs = np.linspace(-LIM, LIM, 1200001)
    p, v = phi(xs), f(xs)
    cum = [np.concatenate([[0.0], integrate.cumulative_trapezoid(y, xs)]) for y in (p, v * p, v * v * p)]
    return lambda t: [np.interp(t, xs, c) for c in cum]


def table(kind, bits):
    f = DERIV[kind]
    k = 1 << bits
    b0 = dp(f, k, np.linspace(-8.0, 8.0, 801))
    cum = cumulative(f)

    def obj(t):
        t = np.sort(t)
        e = np.concatenate([[-LIM], t, [LIM]])
        W, M1, M2 = (np.diff(c) for c in cum(e))
        q = M1 / np.maximum(W, 1e-300)
        # dE/dt_i = phi(t_i) ((f'(t_i) - q_i)^2 - (f'(t_i) - q_{i+1})^2)
        d = f(t)
        grad = phi(t) * ((d - q[:-1]) ** 2 - (d - q[1:]) ** 2)
        return float(np.sum(M2 - M1 * q)), grad

    t = np.asarray(b0)
    for _ in range(3):
        t = np.sort(optimize.minimize(obj, t, jac=True, method="L-BFGS-B",
                                      options={"ftol": 1e-20, "gtol": 1e-14, "maxiter": 10000}).x)
    # boundaries on a grid of 2^-12: exact in f32, short, and within the optimum's flat top
    bounds = [float(np.float32(np.round(v * 4096.0) / 4096.0)) for v in t]
    levels = [float(np.float32(q)) for q in levels_for(f, bounds)]
    return bounds, levels


def lit(v):
    s = np.format_float_positional(np.float32(v), unique=True, trim="0")
    assert np.float32(float(s)) == np.float32(v)
    return s + "f"


def render(tables):
    out = []
    out.append("/* Few-bit backward tables (docs/NUMERICS.md), generated by\n"
               "       python3 tools/fewbit_tables.py\n"
               "   do not edit. For each kind with a table (GELU, tanh-GELU, SiLU) and b\n"
               "   in 1..4: the 2^b - 1 sorted boundaries and the 2^b levels of the\n"
               "   piecewise-constant derivative that minimises the weighted L2 error\n"
               "   (weight: the standard normal density). The code of z is the number of\n"
               "   boundaries <= z (NaN: 0, -0 as +0, -inf 0, +inf 2^b - 1); the backward\n"
               "   multiplies by levels[code]. Every value is an f32, written exactly.\n"
               "   Valid C99, C++ (CUDA, HIP) and OpenCL C: the tables are initializer\n"
               "   lists, laid out [table][b - 1][16] (15 boundaries used at most, the rest\n"
               "   0; 16 levels at most, the rest 0); a user defines the array it needs. */")
    out.append("#ifndef GPUACT_FEWBIT_H\n#define GPUACT_FEWBIT_H\n")
    out.append("/* The kinds with a table, in table order: X(kind). */")
    out.append("#define GPUACT_FEWBIT_KINDS(X) " + " ".join("X(%s)" % k for k in KINDS))
    out.append("#define GPUACT_FEWBIT_MAX_BITS 4")
    out.append("#define GPUACT_FEWBIT_STRIDE 16 /* entries of one (table, b) row */\n")
    for name, idx in (("BOUNDS", 0), ("LEVELS", 1)):
        out.append("#define GPUACT_FEWBIT_%s { \\" % name)
        for kind in KINDS:
            for bits in range(1, 5):
                vals = tables[kind][bits][idx]
                row = [lit(v) for v in vals] + ["0.0f"] * (16 - len(vals))
                out.append("    /* %s, %d bit%s */ \\" % (kind, bits, "s" if bits > 1 else ""))
                for i in range(0, 16, 4):
                    out.append("    " + ", ".join(row[i:i + 4]) + ", \\")
        out.append("}\n")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if kernels/fewbit.h differs")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "kernels", "fewbit.h"))
    args = ap.parse_args()
    tables = {}
    print("kind       b  weighted RMS  max |error|")
    for kind in KINDS:
        tables[kind] = {}
        for bits in range(1, 5):
            bnd, lev = table(kind, bits)
            tables[kind][bits] = (bnd, lev)
            f = DERIV[kind]
            print("%-10s %d  %.3e     %.3e" % (kind, bits, math.sqrt(error(f, bnd, lev)), max_error(f, bnd, lev)))
    text = render(tables)
    if args.check:
        with open(args.out) as fh:
            if fh.read() != text:
                sys.exit("%s is stale: run python3 tools/fewbit_tables.py" % args.out)
        return
    with open(args.out, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
