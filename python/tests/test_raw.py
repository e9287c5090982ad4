"""The raw layer (gpuact.forward & co on handles, gpuact.Buffer) on every
backend with a device here: OpenCL through PoCL on a machine without a GPU,
CUDA (and OpenCL where its loader is installed) on a GPU machine. Results
against a Python reference of docs/NUMERICS.md, bit for bit."""
import math
import random
import subprocess
import sys
import threading

import pytest

import gpuact
from gpuact import _C

from conftest import SIZES, SPECIALS, bits_f32, f32_bits, is_nan_bits, pack, raw_backends, round_bits, unpack, \
    widen_bits

BACKENDS = raw_backends()
pytestmark = pytest.mark.skipif(not BACKENDS, reason="no gpuact backend has a device here (no GPU, no OpenCL "
                                                     "runtime: install PoCL, e.g. `make deps`)")
DTYPES = ("f32", "f16", "bf16")


@pytest.fixture(params=BACKENDS or ["none"])
def backend(request):
    return request.param


def f32(v):
    return bits_f32(f32_bits(v))


def inputs(dtype, n, seed, scale=4.0):
    rnd = random.Random(seed)
    sp = SPECIALS[dtype]
    vals = [round_bits(f32_bits(rnd.gauss(0, scale)), dtype) for _ in range(n)]
    vals[:len(sp)] = sp
    for i in rnd.sample(range(len(sp), n), min(n // 16, n - len(sp))):
        vals[i] = rnd.choice(sp)
    return vals


def ref_forward(kind, xb, dtype, slope, ceiling):
    """(bits, nan_any) of act(x) in dtype (docs/NUMERICS.md): computed in f32, rounded once."""
    x = bits_f32(widen_bits(xb, dtype))
    if kind == "relu":
        return (xb if not (x <= 0) else 0), False
    if kind == "leaky":
        if x > 0:
            return xb, False
        r = round_bits(f32_bits(f32(x * slope)), dtype)
        return r, is_nan_bits(r, dtype)
    c = bits_f32(widen_bits(round_bits(f32_bits(ceiling), dtype), dtype))  # the ceiling rounded to the dtype
    if x != x:
        return xb, False
    if x <= 0:
        return 0, False
    return (round_bits(f32_bits(c), dtype) if x >= c else xb), False


def passes(kind, xb, dtype, ceiling):
    x = bits_f32(widen_bits(xb, dtype))
    if kind == "relu":
        return not (x <= 0)
    if kind == "leaky":
        return x > 0
    c = bits_f32(widen_bits(round_bits(f32_bits(ceiling), dtype), dtype))
    return not (x <= 0 or x >= c)


def ref_backward(kind, dyb, p, dtype, slope):
    if p:
        return dyb, False
    if kind == "leaky":
        r = round_bits(f32_bits(f32(bits_f32(widen_bits(dyb, dtype)) * slope)), dtype)
        return r, is_nan_bits(r, dtype)
    return 0, False


def compare(what, got, want, dtype):
    bad = [i for i, (g, (w, nan_any)) in enumerate(zip(got, want))
           if g != w and not (nan_any and is_nan_bits(g, dtype))]
    assert not bad, (f"{what}: {len(bad)} of {len(want)} elements differ; first {bad[:4]}: gpuact "
                     f"{[hex(got[i]) for i in bad[:4]]}, reference {[hex(want[i][0]) for i in bad[:4]]}")


PARAMS = {"relu": {}, "leaky": {"negative_slope": 0.01}, "clipped": {"ceiling": 6.0}}
PARAMS_EXTRA = [("leaky", {"negative_slope": 0.0}), ("leaky", {"negative_slope": 1.5}),
                ("clipped", {"ceiling": 6.2}), ("clipped", {"ceiling": 0.7})]


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
        slope, ceiling = f32(act.negative_slope), f32(act.ceiling)  # the C struct holds floats
        want = [ref_forward(kind, b, dtype, slope, ceiling) for b in xb]
        compare(f"{kind}{params} forward {dtype}", unpack(y.read(), dtype), want, dtype)
        mask = m.read()
        p = [passes(kind, b, dtype, ceiling) for b in xb]
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


@pytest.mark.parametrize("kind", list(PARAMS))
@pytest.mark.parametrize("xdt,ydt,bdt", [("f32", "f32", "f32"), ("bf16", "bf16", "f32"), ("f16", "f32", "f16")])
def test_epilogue(backend, kind, xdt, ydt, bdt):
    rows, cols, ld_x = 7, 45, 48
    scale = 0.5
    kw = {"backend": backend}
    act = gpuact.activation(kind, **PARAMS[kind])
    slope, ceiling = f32(act.negative_slope), f32(act.ceiling)
    rnd = random.Random(4)
    xb = [round_bits(f32_bits(rnd.uniform(-8, 8)), xdt) for _ in range(rows * ld_x)]
    bb = [round_bits(f32_bits(rnd.uniform(-1, 1)), bdt) for _ in range(cols)]
    dyb = [round_bits(f32_bits(rnd.uniform(-2, 2)), ydt) for _ in range(rows * cols)]
    mld = gpuact.epilogue_mask_ld(cols)
    xs, ys = SIZES[xdt], SIZES[ydt]
    with gpuact.Buffer(xs * rows * ld_x, **kw) as x, gpuact.Buffer(SIZES[bdt] * cols, **kw) as b, \
            gpuact.Buffer(ys * rows * cols, **kw) as y, gpuact.Buffer(rows * mld // 8, **kw) as m, \
            gpuact.Buffer(ys * rows * cols, **kw) as dy, gpuact.Buffer(xs * rows * cols, **kw) as dx, \
            gpuact.Buffer(4 * cols, **kw) as db:
        x.write(pack(xb, xdt))
        b.write(pack(bb, bdt))
        dy.write(pack(dyb, ydt))
        gpuact.epilogue_forward(act, rows, cols, x, y, bias=b, mask=m, x_dtype=xdt, y_dtype=ydt, bias_dtype=bdt,
                                ld_x=ld_x, scale=scale, **kw)
        gpuact.epilogue_backward(act, rows, cols, dy, dx, mask=m, dbias=db, dy_dtype=ydt, dx_dtype=xdt,
                                 scale=scale, **kw)
        gpuact.synchronize(**kw)
        z = [f32(bits_f32(widen_bits(xb[r * ld_x + c], xdt)) + bits_f32(widen_bits(bb[c], bdt)))
             for r in range(rows) for c in range(cols)]
        yw = []
        for v in z:  # the epilogue keeps the ceiling in f32 (docs/NUMERICS.md)
            a = v if v > 0 else (f32(v * slope) if kind == "leaky" else 0.0)
            if kind == "clipped" and v >= ceiling:
                a = ceiling
            yw.append((round_bits(f32_bits(f32(a * scale)), ydt), False))
        compare(f"epilogue {kind} forward", unpack(y.read(), ydt), yw, ydt)
        p = [(v > 0) if kind == "leaky" else not (v <= 0 or (kind == "clipped" and v >= ceiling)) for v in z]
        mask = m.read()
        got = [bool(mask[r * mld // 8 + c // 8] >> (c % 8) & 1) for r in range(rows) for c in range(cols)]
        assert got == p, "epilogue mask bits differ"
        dxf = []
        for d, q in zip(dyb, p):
            g = f32(bits_f32(widen_bits(d, ydt)) * scale)
            dxf.append(g if q else (f32(g * slope) if kind == "leaky" else 0.0))
        compare(f"epilogue {kind} backward dx", unpack(dx.read(), xdt),
                [(round_bits(f32_bits(v), xdt), False) for v in dxf], xdt)
        stored = [bits_f32(widen_bits(round_bits(f32_bits(v), xdt), xdt)) for v in dxf]
        dbias = [bits_f32(v) for v in unpack(db.read(), "f32")]
        for c in range(cols):
            col = [stored[r * cols + c] for r in range(rows)]
            assert abs(dbias[c] - math.fsum(col)) <= 1e-5 * math.fsum(abs(v) for v in col) + 1e-30, \
                f"dbias[{c}] = {dbias[c]!r}, f64 sum {math.fsum(col)!r}"


def test_errors_carry_the_c_text(backend):
    kw = {"backend": backend}
    with gpuact.Buffer(64, **kw) as x, gpuact.Buffer(64, **kw) as y:
        with pytest.raises(gpuact.InvalidArgument) as e:
            gpuact.forward("relu", "f32", 1000, x, y, **kw)  # 4000 bytes of a 64-byte allocation
        assert e.value.result == 1 and isinstance(e.value, ValueError)
        assert "gpuact_forward failed: GPUACT_ERROR_INVALID_ARGUMENT" in str(e.value)
        assert "too small" in str(e.value) and "x" in str(e.value), str(e.value)
        if backend == "opencl":
            assert "holds 64 bytes" in str(e.value), str(e.value)
        assert e.value.detail == _C.last_error()
        with pytest.raises(gpuact.InvalidArgument, match="exactly one"):
            gpuact.backward("relu", "f32", 16, x, y, x=x, mask=y, **kw)
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


def test_self_test_of_python_m_gpuact(backend):
    from gpuact.__main__ import self_test
    lines = []
    assert self_test(backend, 0, lines.append) == 0, "\n".join(lines)
