"""The raw layer (gpuact.forward & co on handles, gpuact.Buffer) on every
backend with a device here: OpenCL through PoCL on a machine without a GPU,
CUDA (and OpenCL where its loader is installed) on a GPU machine. Results
against a Python reference of docs/NUMERICS.md, bit for bit."""
import math
import os
import random
import subprocess
import sys
import threading

import pytest

import gpuact
from gpuact import _C

from conftest import REPO, SIZES, SPECIALS, bits_f32, f32_bits, is_nan_bits, pack, raw_backends, round_bits, unpack, \
    widen_bits
from gpuact.__main__ import smooth_reference

BACKENDS = raw_backends()
pytestmark = pytest.mark.skipif(not BACKENDS, reason="no gpuact backend has a device here (no GPU, no OpenCL "
                                                     "runtime: install PoCL, e.g. `make deps`)")
DTYPES = ("f32", "f16", "bf16")


@pytest.fixture(params=BACKENDS or ["none"])
def backend(request):
    return request.param


def f32(v):
    """v rounded to f32 (beyond the range: +-Inf, as an f32 operation gives)."""
    try:
        return bits_f32(f32_bits(v))
    except OverflowError:
        return math.copysign(math.inf, v)


def widen(b, dtype):
    return bits_f32(widen_bits(b, dtype))


def to_dtype(v, dtype):
    """An f32 value's bits in dtype, rounded once."""
    return round_bits(f32_bits(f32(v)), dtype)


def inputs(dtype, n, seed, scale=4.0):
    rnd = random.Random(seed)
    sp = SPECIALS[dtype]
    vals = [round_bits(f32_bits(rnd.gauss(0, scale)), dtype) for _ in range(n)]
    vals[:len(sp)] = sp
    for i in rnd.sample(range(len(sp), n), min(n // 16, n - len(sp))):
        vals[i] = rnd.choice(sp)
    return vals


def pow2_dy(dtype, n, seed):
    """Signed powers of two up to 1 in dtype: dx = dy * act'(x) is then the derivative scaled exactly (or
    rounded once more, where it becomes subnormal), so a smooth kind's backward can be held to its
    derivative's accuracy. (A factor above 1 would magnify a subnormal derivative's error.)"""
    rnd = random.Random(seed)
    return [to_dtype(rnd.choice((-1.0, 1.0)) * 2.0 ** rnd.randint(-3, 0), dtype) for _ in range(n)]


def bounds(kind, dtype, act):
    """(ceiling, lower) as the elementwise ops use them: rounded to the dtype (docs/NUMERICS.md); a
    bound of -0 is +0."""
    c = widen(round_bits(f32_bits(f32(act.ceiling)), dtype), dtype)
    lo = widen(round_bits(f32_bits(f32(act.lower)), dtype), dtype)
    return c + 0.0, lo + 0.0


def ref_forward(kind, xb, dtype, slope, ceiling, lower=0.0):
    """(bits, nan_any) of act(x) in dtype (docs/NUMERICS.md): computed in f32, rounded once. ceiling
    and lower: as bounds() gives them (the elementwise ops)."""
    x = widen(xb, dtype)
    if kind == "relu":
        return (xb if not (x <= 0) else 0), False
    if kind == "leaky":
        if x > 0:
            return xb, False
        r = round_bits(f32_bits(f32(x * slope)), dtype)
        return r, is_nan_bits(r, dtype)
    if kind == "sqrelu":
        r = 0 if x <= 0 else to_dtype(x * x, dtype)
        return r, is_nan_bits(r, dtype)
    if x != x:
        return xb, False
    if kind == "hardtanh":  # torch.clamp(x, lower, ceiling)
        if x <= lower:
            return to_dtype(lower, dtype), False
        return (to_dtype(ceiling, dtype) if x > ceiling else xb), False
    if x <= 0:
        return 0, False
    return (round_bits(f32_bits(ceiling), dtype) if x >= ceiling else xb), False


def passes(kind, xb, dtype, ceiling, lower=0.0):
    x = widen(xb, dtype)
    if kind == "relu":
        return not (x <= 0)
    if kind == "leaky":
        return x > 0
    if kind == "hardtanh":
        return not (x <= lower or x >= ceiling)
    return not (x <= 0 or x >= ceiling)


def ref_backward(kind, dyb, p, dtype, slope):
    if p:
        return dyb, False
    if kind == "leaky":
        r = round_bits(f32_bits(f32(widen(dyb, dtype) * slope)), dtype)
        return r, is_nan_bits(r, dtype)
    return 0, False


def sqrelu_grad(z):
    """Squared ReLU's dx / dy at z in f32: 2z where z > 0 (z + z, an f32 sum), else 0 (where z <= 0
    the backward selects +0 whatever dy is, as torch's threshold_backward does)."""
    return 0.0 if z <= 0 else f32(z + z)


def ulp_key(b, dtype):
    """An integer order of the dtype's bits: adjacent values differ by 1; -0 and +0 are both 0."""
    top = 0x80000000 if dtype == "f32" else 0x8000
    return b if b < top else -(b & (top - 1))


def compare_ulps(what, got, want, dtype, ulps):
    """got within ulps (in the dtype) of want; a NaN matches any NaN (payloads not compared)."""
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        gn, wn = is_nan_bits(g, dtype), is_nan_bits(w, dtype)
        if (gn or wn) and not (gn and wn) or not (gn or wn) and abs(ulp_key(g, dtype) - ulp_key(w, dtype)) > ulps:
            bad.append(i)
    assert not bad, (f"{what}: {len(bad)} of {len(want)} elements more than {ulps} ulp from the float64 reference; "
                     f"first {bad[:4]}: gpuact {[hex(got[i]) for i in bad[:4]]}, reference "
                     f"{[hex(want[i]) for i in bad[:4]]}")


def smooth_ref(kind, v, dtype):
    """(act(v), act'(v)) in float64 (gpuact.__main__'s reference), each rounded to f32."""
    a, d = smooth_reference(kind, v)
    return f32(a), f32(d)


def placeholder_math():
    """Whether this tree's kernels/smooth.h is still the placeholder of GELU and SiLU (its first line
    says so), not gpuact's accurate math: their accuracy tests are expected to fail until it lands."""
    path = os.path.join(REPO, "kernels", "smooth.h")
    return os.path.isfile(path) and "PLACEHOLDER" in open(path, encoding="utf-8").read(400)


SMOOTH = ("gelu", "gelu_tanh", "silu")
#: where each smooth kind's derivative crosses zero (float64 bisection of smooth_reference's): near it the
#: derivative is a difference of nearly equal terms, the hard case of its relative accuracy
DERIVATIVE_ZEROS = {"gelu": -0.7517915246935645, "gelu_tanh": -0.7524614220710163, "silu": -1.278464542761074}
#: the smooth kinds' accuracy, in steps of the dtype from float64 rounded to it: gpuact's default f32 math
#: is within 2 ulps of the exact value, its precise one (ACT_PRECISE) within 1; a 16-bit result is within 1
SMOOTH_ULPS = {"f32": 2, "f16": 1, "bf16": 1}
smooth_accuracy = pytest.mark.xfail(placeholder_math(), strict=False,
                                    reason="kernels/smooth.h is the placeholder math here, not gpuact's own "
                                           "accurate GELU and SiLU")


def compare(what, got, want, dtype):
    bad = [i for i, (g, (w, nan_any)) in enumerate(zip(got, want))
           if g != w and not (nan_any and is_nan_bits(g, dtype))]
    assert not bad, (f"{what}: {len(bad)} of {len(want)} elements differ; first {bad[:4]}: gpuact "
                     f"{[hex(got[i]) for i in bad[:4]]}, reference {[hex(want[i][0]) for i in bad[:4]]}")


PARAMS = {"relu": {}, "leaky": {"negative_slope": 0.01}, "clipped": {"ceiling": 6.0},
          "hardtanh": {"lower": -1.0, "ceiling": 1.0}}
PARAMS_EXTRA = [("leaky", {"negative_slope": 0.0}), ("leaky", {"negative_slope": 1.5}),
                ("clipped", {"ceiling": 6.2}), ("clipped", {"ceiling": 0.7}),
                ("hardtanh", {"lower": -2.5, "ceiling": 0.5}), ("hardtanh", {"lower": -0.7, "ceiling": 6.2}),
                ("hardtanh", {"lower": 0.0, "ceiling": 6.0}), ("hardtanh", {"lower": -0.0, "ceiling": 1.0}),
                ("hardtanh", {"lower": -6.0, "ceiling": -0.0}), ("hardtanh", {"lower": -3.0, "ceiling": -1.0}),
                ("hardtanh", {"lower": 2.0, "ceiling": 2.0})]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind,params", list(PARAMS.items()) + PARAMS_EXTRA)
def test_elementwise(backend, dtype, kind, params):
    n = 1037
    kw = {"backend": backend}
    act = gpuact.activation(kind, **params)
    xb, dyb = inputs(dtype, n, 1), inputs(dtype, n, 2, 2.0)
    size = SIZES[dtype] * n
    with gpuact.Buffer(size, **kw) as x, gpuact.Buffer(size, **kw) as y, gpuact.Buffer(size, **kw) as dy, \
            gpuact.Buffer(size, **kw) as dx, gpuact.Buffer((n + 7) // 8, **kw) as m:
        x.write(pack(xb, dtype))
        dy.write(pack(dyb, dtype))
        gpuact.forward(act, dtype, n, x, y, m, **kw)
        gpuact.synchronize(**kw)
        slope = f32(act.negative_slope)  # the C struct holds floats
        ceiling, lower = bounds(kind, dtype, act)
        want = [ref_forward(kind, b, dtype, slope, ceiling, lower) for b in xb]
        compare(f"{kind}{params} forward {dtype}", unpack(y.read(), dtype), want, dtype)
        mask = m.read()
        p = [passes(kind, b, dtype, ceiling, lower) for b in xb]
        got = [bool(mask[i // 8] >> (i % 8) & 1) for i in range(n)]
        assert got == p, f"mask: {sum(a != b for a, b in zip(got, p))} bits differ"
        assert mask[-1] >> (n % 8) == 0, "padding bits of the mask's last byte must be 0"
        dwant = [ref_backward(kind, d, q, dtype, slope) for d, q in zip(dyb, p)]
        for src in ("x", "mask", "y"):
            dx.write(b"\xff" * size)
            gpuact.backward(act, dtype, n, dy, dx, **({"mask": m} if src == "mask" else {"x": x if src == "x" else y}),
                            **kw)
            gpuact.synchronize(**kw)
            compare(f"{kind}{params} backward from {src} {dtype}", unpack(dx.read(), dtype), dwant, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_squared_relu(backend, dtype):
    """relu(x) ** 2 bit for bit: x * x in f32 rounded once; the backward dy * 2x (dy * 0 where x <= 0)."""
    n = 1037
    kw = {"backend": backend}
    xb, dyb = inputs(dtype, n, 11), inputs(dtype, n, 12, 2.0)
    size = SIZES[dtype] * n
    with gpuact.Buffer(size, **kw) as x, gpuact.Buffer(size, **kw) as y, gpuact.Buffer(size, **kw) as dy, \
            gpuact.Buffer(size, **kw) as dx, gpuact.Buffer((n + 7) // 8, **kw) as m:
        x.write(pack(xb, dtype))
        dy.write(pack(dyb, dtype))
        gpuact.forward("squared_relu", dtype, n, x, y, **kw)
        gpuact.backward("squared_relu", dtype, n, dy, dx, x=x, **kw)
        gpuact.synchronize(**kw)
        compare(f"sqrelu forward {dtype}", unpack(y.read(), dtype), [ref_forward("sqrelu", b, dtype, 0, 0) for b in xb],
                dtype)
        dwant = []
        for d, b in zip(dyb, xb):
            z = widen(b, dtype)
            r = to_dtype(0.0 if z <= 0 else widen(d, dtype) * sqrelu_grad(z), dtype)  # +0 by selection
            dwant.append((r, is_nan_bits(r, dtype)))
        compare(f"sqrelu backward from x {dtype}", unpack(dx.read(), dtype), dwant, dtype)
        with pytest.raises(gpuact.InvalidArgument, match="no 1-bit mask"):
            gpuact.forward("sqrelu", dtype, n, x, y, m, **kw)
        with pytest.raises(gpuact.InvalidArgument, match="no 1-bit mask"):
            gpuact.backward("sqrelu", dtype, n, dy, dx, mask=m, **kw)


@pytest.mark.parametrize("precise", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", SMOOTH)
@smooth_accuracy
def test_smooth_kinds(backend, dtype, kind, precise):
    """GELU (erf and tanh forms) and SiLU, forward and backward from x, within 1 ulp of a float64
    evaluation (NaN: any NaN; +-Inf: what the formulas give, e.g. NaN for gelu(-Inf) = -Inf * 0), on
    special values, random ones and those around the derivative's zero."""
    n = 1037
    kw = {"backend": backend}
    xb, dyb = inputs(dtype, n, 13), pow2_dy(dtype, n, 14)
    # the last 48 inputs: the dtype's consecutive values around the derivative's zero
    z0 = to_dtype(DERIVATIVE_ZEROS[kind], dtype)
    xb[-48:] = [z0 + d for d in range(-24, 24)]  # negative values: larger bits, larger magnitudes
    size = SIZES[dtype] * n
    with gpuact.Buffer(size, **kw) as x, gpuact.Buffer(size, **kw) as y, gpuact.Buffer(size, **kw) as dy, \
            gpuact.Buffer(size, **kw) as dx:
        x.write(pack(xb, dtype))
        dy.write(pack(dyb, dtype))
        act = gpuact.activation(kind, flags=gpuact.ACT_PRECISE if precise else 0)
        gpuact.forward(act, dtype, n, x, y, **kw)
        gpuact.backward(act, dtype, n, dy, dx, x=x, **kw)
        gpuact.synchronize(**kw)
        ref = [smooth_ref(kind, widen(b, dtype), dtype) for b in xb]
        ulps = 1 if precise else SMOOTH_ULPS[dtype]
        what = f"{kind}{' precise' if precise else ''}"
        compare_ulps(f"{what} forward {dtype}", unpack(y.read(), dtype), [to_dtype(a, dtype) for a, _ in ref], dtype,
                     ulps)
        compare_ulps(f"{what} backward from x {dtype}", unpack(dx.read(), dtype),
                     [to_dtype(widen(d, dtype) * g, dtype) for d, (_, g) in zip(dyb, ref)], dtype, ulps)


@pytest.mark.parametrize("kind", list(gpuact.KINDS))
def test_every_kind_of_the_table_runs(backend, kind):
    """Each row of GPUACT_ACTIVATIONS (new ones included, with their default parameters) through the
    binding: forward (with the mask where the kind has one), backward from x and from the mask, the
    epilogue; finite inputs give finite outputs. Numerics of the kinds with a reference: above."""
    kw = {"backend": backend}
    act = gpuact.activation(kind)
    info = gpuact.KINDS[kind]
    n = 257
    xb = [f32_bits(v / 16.0) for v in range(-128, 129)]
    with gpuact.Buffer(4 * n, **kw) as x, gpuact.Buffer(4 * n, **kw) as y, gpuact.Buffer(4 * n, **kw) as dx, \
            gpuact.Buffer((n + 7) // 8, **kw) as m:
        x.write(pack(xb, "f32"))
        gpuact.forward(act, "f32", n, x, y, m if info.has_mask else None, **kw)
        gpuact.backward(act, "f32", n, x, dx, x=x, **kw)
        if info.has_mask:
            gpuact.backward(act, "f32", n, x, dx, mask=m, **kw)
            gpuact.epilogue_forward(act, 1, n, x, y, mask=m, scale=0.5, **kw)
            gpuact.epilogue_backward(act, 1, n, x, dx, mask=m, scale=0.5, **kw)
        else:  # the smooth kinds: the epilogue's backward from x (and the bias)
            gpuact.epilogue_forward(act, 1, n, x, y, bias=x, scale=0.5, **kw)
            gpuact.epilogue_backward(act, 1, n, x, dx, x=x, bias=x, scale=0.5, **kw)
        gpuact.synchronize(**kw)
        for buf in (y, dx):
            vals = [bits_f32(b) for b in unpack(buf.read(), "f32")]
            assert all(math.isfinite(v) for v in vals), f"{kind}: a non-finite result from finite inputs"


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_and_offsets(backend, dtype):
    n, es = 517, SIZES[dtype]
    kw = {"backend": backend}
    xb = inputs(dtype, n + 1, 3)
    want = [ref_forward("relu", b, dtype, 0, 0) for b in xb[1:]]
    with gpuact.Buffer(es * (n + 1), **kw) as x, gpuact.Buffer(es * (n + 1), **kw) as y:
        x.write(pack(xb, dtype))
        gpuact.forward("relu", dtype, n, x.at(es), y.at(es), **kw)  # one element off 16-byte alignment
        gpuact.synchronize(**kw)
        compare("relu at an element offset", unpack(y.read(es * n, es), dtype), want, dtype)
        gpuact.forward("relu", dtype, n, x.at(es), x.at(es), **kw)  # in place
        gpuact.synchronize(**kw)
        compare("relu in place", unpack(x.read(es * n, es), dtype), want, dtype)


EPILOGUE_KINDS = list(PARAMS) + ["sqrelu"] + [pytest.param(k, marks=smooth_accuracy) for k in SMOOTH]


@pytest.mark.parametrize("kind", EPILOGUE_KINDS)
@pytest.mark.parametrize("xdt,ydt,bdt", [("f32", "f32", "f32"), ("bf16", "bf16", "f32"), ("f16", "f32", "f16")])
def test_epilogue(backend, kind, xdt, ydt, bdt):
    """The epilogue on a 7 x 45 matrix (x with a leading dimension of 48), with bias and scale, forward
    and backward with the bias gradient: from the mask (the ReLU family, hardtanh; bit for bit) or
    from x and the bias (squared ReLU bit for bit; GELU, SiLU within 1 ulp of float64)."""
    rows, cols, ld_x = 7, 45, 48
    scale = 0.5
    kw = {"backend": backend}
    act = gpuact.activation(kind, **PARAMS.get(kind, {}))
    has_mask = gpuact.KINDS[kind].has_mask
    slope = f32(act.negative_slope)
    ceiling, lower = f32(act.ceiling) + 0.0, f32(act.lower) + 0.0  # the epilogue keeps the bounds in f32
    rnd = random.Random(4)
    xb = [round_bits(f32_bits(rnd.uniform(-8, 8)), xdt) for _ in range(rows * ld_x)]
    # the backward from x reads the bias in x's dtype: values exact in both dtypes give it the forward's z
    bv = [widen(round_bits(f32_bits(widen(round_bits(f32_bits(rnd.uniform(-1, 1)), bdt), bdt)), xdt), xdt)
          for _ in range(cols)]
    bb, bbx = [to_dtype(v, bdt) for v in bv], [to_dtype(v, xdt) for v in bv]
    assert [widen(b, bdt) for b in bb] == bv
    if kind in SMOOTH:
        dyb = pow2_dy(ydt, rows * cols, 5)
    else:
        dyb = [round_bits(f32_bits(rnd.uniform(-2, 2)), ydt) for _ in range(rows * cols)]
    mld = gpuact.epilogue_mask_ld(cols)
    xs, ys = SIZES[xdt], SIZES[ydt]
    with gpuact.Buffer(xs * rows * ld_x, **kw) as x, gpuact.Buffer(SIZES[bdt] * cols, **kw) as b, \
            gpuact.Buffer(xs * cols, **kw) as bx, \
            gpuact.Buffer(ys * rows * cols, **kw) as y, gpuact.Buffer(rows * mld // 8, **kw) as m, \
            gpuact.Buffer(ys * rows * cols, **kw) as dy, gpuact.Buffer(xs * rows * cols, **kw) as dx, \
            gpuact.Buffer(4 * cols, **kw) as db:
        x.write(pack(xb, xdt))
        b.write(pack(bb, bdt))
        bx.write(pack(bbx, xdt))
        dy.write(pack(dyb, ydt))
        gpuact.epilogue_forward(act, rows, cols, x, y, bias=b, mask=m if has_mask else None, x_dtype=xdt,
                                y_dtype=ydt, bias_dtype=bdt, ld_x=ld_x, scale=scale, **kw)
        if has_mask:
            gpuact.epilogue_backward(act, rows, cols, dy, dx, mask=m, dbias=db, dy_dtype=ydt, dx_dtype=xdt,
                                     scale=scale, **kw)
        else:
            gpuact.epilogue_backward(act, rows, cols, dy, dx, x=x, bias=bx, dbias=db, dy_dtype=ydt, dx_dtype=xdt,
                                     ld_x=ld_x, scale=scale, **kw)
        gpuact.synchronize(**kw)
        z = [f32(widen(xb[r * ld_x + c], xdt) + bv[c]) for r in range(rows) for c in range(cols)]
        gs = [f32(widen(d, ydt) * scale) for d in dyb]
        got_y, got_dx = unpack(y.read(), ydt), unpack(dx.read(), xdt)
        if kind in SMOOTH:
            ref = [smooth_ref(kind, v, "f32") for v in z]
            compare_ulps(f"epilogue {kind} forward", got_y, [to_dtype(a * scale, ydt) for a, _ in ref], ydt,
                         SMOOTH_ULPS[ydt])
            compare_ulps(f"epilogue {kind} backward dx", got_dx, [to_dtype(g * d, xdt) for g, (_, d) in zip(gs, ref)],
                         xdt, SMOOTH_ULPS[xdt])
        else:
            yw = []
            for v in z:
                if kind == "sqrelu":
                    a = 0.0 if v <= 0 else f32(v * v)
                elif kind == "hardtanh":
                    a = lower if v <= lower else (ceiling if v > ceiling else v)
                else:
                    a = v if v > 0 else (f32(v * slope) if kind == "leaky" else 0.0)
                    if kind == "clipped" and v >= ceiling:
                        a = ceiling
                yw.append((to_dtype(a * scale, ydt), False))
            compare(f"epilogue {kind} forward", got_y, yw, ydt)
            if kind == "sqrelu":
                dxf = [0.0 if v <= 0 else f32(g * sqrelu_grad(v)) for g, v in zip(gs, z)]  # +0 by selection
            else:
                p = [passes(kind, f32_bits(v), "f32", ceiling, lower) for v in z]
                mask = m.read()
                got = [bool(mask[r * mld // 8 + c // 8] >> (c % 8) & 1) for r in range(rows) for c in range(cols)]
                assert got == p, "epilogue mask bits differ"
                dxf = [g if q else (f32(g * slope) if kind == "leaky" else 0.0) for g, q in zip(gs, p)]
            compare(f"epilogue {kind} backward dx", got_dx, [(to_dtype(v, xdt), False) for v in dxf], xdt)
        stored = [widen(v, xdt) for v in got_dx]  # dbias: the column sums of the dx written
        dbias = [bits_f32(v) for v in unpack(db.read(), "f32")]
        for c in range(cols):
            col = [stored[r * cols + c] for r in range(rows)]
            assert abs(dbias[c] - math.fsum(col)) <= 1e-5 * math.fsum(abs(v) for v in col) + 1e-30, \
                f"dbias[{c}] = {dbias[c]!r}, f64 sum {math.fsum(col)!r}"


@pytest.mark.parametrize("kind", ["sqrelu"] + list(SMOOTH))
@pytest.mark.parametrize("dtype", DTYPES)
def test_epilogue_from_x_is_the_elementwise_op_at_z(backend, kind, dtype):
    """Bit for bit, whatever the kind's accuracy: the epilogue forms z = x + bias in f32 and applies
    the elementwise formulas to it: y = act(z) * scale and dx = (dy * scale) * act'(z), each rounded
    once. So the f32 elementwise ops on z (formed here, one f32 addition) give the same bits: the
    forward with scale 1 and an f32 output, the backward with dy * scale (f32) as its dy."""
    rows, cols, ld_x = 5, 41, 44
    kw = {"backend": backend}
    rnd = random.Random(21)
    xb = inputs(dtype, rows * ld_x, 22)
    bv = [widen(to_dtype(rnd.uniform(-2, 2), dtype), dtype) for _ in range(cols)]
    dyb = inputs(dtype, rows * cols, 23, 2.0)
    es = SIZES[dtype]
    z = [f32(widen(xb[r * ld_x + c], dtype) + bv[c]) for r in range(rows) for c in range(cols)]
    zb = [f32_bits(v) for v in z]
    g = [f32(widen(d, dtype) * 0.5) for d in dyb]
    with gpuact.Buffer(es * rows * ld_x, **kw) as x, gpuact.Buffer(es * cols, **kw) as b, \
            gpuact.Buffer(4 * rows * cols, **kw) as y, gpuact.Buffer(es * rows * cols, **kw) as dy, \
            gpuact.Buffer(4 * rows * cols, **kw) as dx, gpuact.Buffer(4 * rows * cols, **kw) as zz, \
            gpuact.Buffer(4 * rows * cols, **kw) as gg, gpuact.Buffer(4 * rows * cols, **kw) as out:
        x.write(pack(xb, dtype))
        b.write(pack([to_dtype(v, dtype) for v in bv], dtype))
        dy.write(pack(dyb, dtype))
        zz.write(pack(zb, "f32"))
        gg.write(pack([f32_bits(v) for v in g], "f32"))
        gpuact.epilogue_forward(kind, rows, cols, x, y, bias=b, x_dtype=dtype, y_dtype="f32", bias_dtype=dtype,
                                ld_x=ld_x, **kw)
        gpuact.forward(kind, "f32", rows * cols, zz, out, **kw)
        gpuact.synchronize(**kw)
        compare(f"{kind} epilogue forward against the elementwise op at z", unpack(y.read(), "f32"),
                [(v, is_nan_bits(v, "f32")) for v in unpack(out.read(), "f32")], "f32")
        gpuact.epilogue_backward(kind, rows, cols, dy, dx, x=x, bias=b, dy_dtype=dtype, dx_dtype="f32",
                                 x_dtype=dtype, ld_x=ld_x, scale=0.5, **kw)
        gpuact.backward(kind, "f32", rows * cols, gg, out, x=zz, **kw)
        gpuact.synchronize(**kw)
        compare(f"{kind} epilogue backward from x against the elementwise backward at z", unpack(dx.read(), "f32"),
                [(v, is_nan_bits(v, "f32")) for v in unpack(out.read(), "f32")], "f32")


def test_epilogue_sources_by_kind(backend):
    """The C library's rules, through the binding: a smooth kind's backward takes x (and its bias),
    never a mask or y; the ReLU family's takes the mask (or y), never x."""
    kw = {"backend": backend}
    with gpuact.Buffer(4 * 64, **kw) as x, gpuact.Buffer(4 * 64, **kw) as y, gpuact.Buffer(64, **kw) as m:
        with pytest.raises(gpuact.InvalidArgument, match="no 1-bit mask"):
            gpuact.epilogue_forward("gelu", 4, 16, x, y, mask=m, **kw)
        with pytest.raises(gpuact.InvalidArgument, match="input x"):
            gpuact.epilogue_backward("silu", 4, 16, x, y, y=x, **kw)
        with pytest.raises(gpuact.InvalidArgument, match="x is the source of the smooth kinds"):
            gpuact.epilogue_backward("relu", 4, 16, x, y, x=x, **kw)
        with pytest.raises(gpuact.InvalidArgument, match="exactly one"):
            gpuact.epilogue_backward("gelu", 4, 16, x, y, x=x, mask=m, **kw)
        with pytest.raises(gpuact.InvalidArgument, match="bias is only read with x"):
            gpuact.epilogue_backward("hardtanh", 4, 16, x, y, mask=m, bias=x, **kw)
        with pytest.raises(gpuact.InvalidArgument, match="lower <= ceiling"):
            gpuact.forward(gpuact.activation("hardtanh", lower=1.0, ceiling=-1.0), "f32", 16, x, y, **kw)
        gpuact.epilogue_backward("sqrelu", 4, 16, x, y, x=x, **kw)  # x without a bias: z = x
        gpuact.synchronize(**kw)


def test_errors_carry_the_c_text(backend):
    kw = {"backend": backend}
    with gpuact.Buffer(64, **kw) as x, gpuact.Buffer(64, **kw) as y:
        with pytest.raises(gpuact.InvalidArgument) as e:
            gpuact.forward("relu", "f32", 1000, x, y, **kw)  # 4000 bytes of a 64-byte allocation
        assert e.value.result == 1 and isinstance(e.value, ValueError)
        assert e.value.rule == "BUFFER_TOO_SMALL", (e.value.rule, str(e.value))
        assert "gpuact_forward failed: GPUACT_ERROR_INVALID_ARGUMENT" in str(e.value)
        assert "too small" in str(e.value) and "x" in str(e.value), str(e.value)
        if backend == "opencl":
            assert "holds 64 bytes" in str(e.value), str(e.value)
        assert e.value.detail == _C.last_error()
        with pytest.raises(gpuact.InvalidArgument, match="exactly one") as e:
            gpuact.backward("relu", "f32", 16, x, y, x=x, mask=y, **kw)
        assert e.value.rule == "SOURCE_NOT_EXACTLY_ONE", (e.value.rule, str(e.value))
        with pytest.raises(gpuact.InvalidArgument, match="ceiling"):
            gpuact.forward(gpuact.activation("clipped", ceiling=-1.0), "f32", 16, x, y, **kw)
        with pytest.raises(gpuact.InvalidArgument, match="act.kind"):
            _C.forward(gpuact.backend_value(backend), 0, 0, (99,), 0, 16, x.handle, y.handle, None)


def test_gil_release_setting_gives_the_same_result(backend):
    kw = {"backend": backend}
    n = 300
    xb = inputs("f32", n, 5)
    outs = []
    old = _C.set_release_gil(True)
    try:
        for release in (True, False):
            _C.set_release_gil(release)
            with gpuact.Buffer(4 * n, **kw) as x, gpuact.Buffer(4 * n, **kw) as y:
                x.write(pack(xb, "f32"))
                gpuact.forward("leaky_relu", "f32", n, x, y, **kw)
                gpuact.synchronize(**kw)
                outs.append(y.read())
    finally:
        _C.set_release_gil(old)
    assert outs[0] == outs[1]


def test_threads_share_one_context(backend):
    kw = {"backend": backend}
    n = 2000
    xb = inputs("f32", n, 6)
    want = pack([ref_forward("relu", b, "f32", 0, 0)[0] for b in xb], "f32")
    errors = []

    def work():
        try:
            with gpuact.Buffer(4 * n, **kw) as x, gpuact.Buffer(4 * n, **kw) as y:
                x.write(pack(xb, "f32"))
                for _ in range(5):
                    gpuact.forward("relu", "f32", n, x, y, **kw)
                gpuact.synchronize(**kw)
                if y.read() != want:
                    errors.append("wrong result")
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert (gpuact.backend_value(backend), 0) in [tuple(c) for c in _C._contexts()]


def test_shutdown_and_recreate(backend):
    code = f"""
import gpuact, gpuact._C as C
b = gpuact.backend_value({backend!r})
with gpuact.Buffer(16, backend=b) as x:
    pass
assert (b, 0) in [tuple(c) for c in C._contexts()], C._contexts()
C._shutdown()
assert C._contexts() == [], C._contexts()
with gpuact.Buffer(16, backend=b) as x:
    gpuact.forward("relu", "f32", 4, x, x, backend=b)
    gpuact.synchronize(backend=b)
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


@pytest.mark.parametrize("kinds", ["relu leaky clipped hardtanh sqrelu",
                                   pytest.param("gelu gelu_tanh silu", marks=smooth_accuracy)])
def test_self_test_of_python_m_gpuact(backend, kinds):
    from gpuact.__main__ import self_test
    lines = []
    assert self_test(backend, 0, lines.append, kinds=kinds.split()) == 0, "\n".join(lines)
