"""The gated forms through the raw layer (gpuact.glu_forward / glu_backward, gpuact._C's entries) on
every backend with a device here (OpenCL through PoCL without a GPU): a and b as the two halves of one
fused projection (ld = 2 cols) with biases, against a Python reference; ReGLU bit for bit (its
arithmetic is two f32 additions, a selection and one f32 multiplication), SwiGLU and GeGLU within a
few f32 ulps of a float64 evaluation; the refusals of the C library as exceptions."""
import math
import random
import struct

import pytest

import gpuact

from conftest import bits_f32, f32_bits, raw_backends

BACKENDS = raw_backends()
pytestmark = pytest.mark.skipif(not BACKENDS, reason="no gpuact backend has a device here (no GPU, no OpenCL "
                                                     "runtime: install PoCL, e.g. `make deps`)")


@pytest.fixture(params=BACKENDS or ["none"])
def backend(request):
    return request.param


def f32(v):
    return bits_f32(f32_bits(v))


def buf(vals, backend):
    b = gpuact.Buffer(4 * max(len(vals), 1), backend=backend)
    if vals:
        b.write(struct.pack(f"<{len(vals)}f", *vals))
    return b


def read(b, n):
    return list(struct.unpack(f"<{n}f", b.read(4 * n)))


ACTS = {
    "relu": lambda z: max(z, 0.0),
    "silu": lambda z: z / (1.0 + math.exp(-z)),
    "gelu": lambda z: 0.5 * z * math.erfc(-z / math.sqrt(2.0)),
    "gelu_tanh": lambda z: 0.5 * z * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3))),
}
DERIV = {
    "relu": lambda z: 1.0 if z > 0 else 0.0,
    "silu": lambda z: (1.0 / (1.0 + math.exp(-z))) * (1.0 + z * (1.0 - 1.0 / (1.0 + math.exp(-z)))),
    "gelu": lambda z: 0.5 * math.erfc(-z / math.sqrt(2.0)) + z * math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi),
}


def close(got, want, rel=4e-7, abs_=1e-30):
    return abs(got - want) <= rel * abs(want) * 8 + abs_ or got == want


@pytest.mark.parametrize("kind", ["relu", "silu", "gelu", "gelu_tanh"])
def test_glu_fused_halves_with_biases(backend, kind):
    rows, cols = 7, 37
    rnd = random.Random(44)
    X = [f32(rnd.gauss(0, 2)) for _ in range(rows * 2 * cols)]
    bias = [f32(rnd.gauss(0, 1)) for _ in range(2 * cols)]
    bx, bb = buf(X, backend), buf(bias, backend)
    y = gpuact.Buffer(4 * rows * cols, backend=backend)
    gpuact.glu_forward(kind, rows, cols, bx, bx.at(4 * cols), y, bb, bb.at(4 * cols), ld_a=2 * cols,
                       ld_b=2 * cols, backend=backend)
    got = read(y, rows * cols)
    za = [[f32(X[r * 2 * cols + c] + bias[c]) for c in range(cols)] for r in range(rows)]
    zb = [[f32(X[r * 2 * cols + cols + c] + bias[cols + c]) for c in range(cols)] for r in range(rows)]
    for r in range(rows):
        for c in range(cols):
            if kind == "relu":
                want = f32((za[r][c] if za[r][c] > 0 else 0.0) * zb[r][c])  # relu(-0) is +0; +0 * -b is -0
                assert f32_bits(got[r * cols + c]) == f32_bits(want), (r, c, got[r * cols + c], want)
            else:
                want = ACTS[kind](za[r][c]) * zb[r][c]
                assert close(got[r * cols + c], want), (kind, r, c, got[r * cols + c], want)
    # the backward: da, db into the halves of one dX, both bias gradients into the halves of one vector
    dyv = [f32(rnd.choice([1.0, -0.5, 2.0, 0.25])) for _ in range(rows * cols)]
    dy = buf(dyv, backend)
    dX = gpuact.Buffer(4 * rows * 2 * cols, backend=backend)
    db = gpuact.Buffer(4 * 2 * cols, backend=backend)
    gpuact.glu_backward(kind, rows, cols, dy, bx, bx.at(4 * cols), dX, dX.at(4 * cols), bb, bb.at(4 * cols), db,
                        db.at(4 * cols), ld_a=2 * cols, ld_b=2 * cols, ld_da=2 * cols, ld_db=2 * cols,
                        backend=backend)
    g = read(dX, rows * 2 * cols)
    gb = read(db, 2 * cols)
    sums = [0.0] * (2 * cols)
    for r in range(rows):
        for c in range(cols):
            d = dyv[r * cols + c]
            da, dbv = g[r * 2 * cols + c], g[r * 2 * cols + cols + c]
            sums[c] += da
            sums[cols + c] += dbv
            if kind == "relu":
                want_da = f32(d * zb[r][c]) if za[r][c] > 0 else 0.0
                want_db = f32(d * (za[r][c] if za[r][c] > 0 else 0.0))
                assert f32_bits(da) == f32_bits(want_da), (r, c, da, want_da)
                assert f32_bits(dbv) == f32_bits(want_db), (r, c, dbv, want_db)
            else:
                assert close(dbv, d * ACTS[kind](za[r][c])), (kind, "db", r, c, dbv)
                if kind in DERIV:
                    assert close(da, d * zb[r][c] * DERIV[kind](za[r][c]), rel=2e-6, abs_=1e-6), (kind, "da", r, c)
    for c in range(2 * cols):  # column sums of what was written, f32 accumulation
        assert abs(gb[c] - sums[c]) <= 1e-5 * max(1.0, sum(abs(g[r * 2 * cols + c]) for r in range(rows))), c
    for b in (bx, bb, y, dy, dX, db):
        b.free()


def test_glu_separate_inputs_match_the_fused_form(backend):
    rows, cols = 5, 9
    rnd = random.Random(7)
    X = [f32(rnd.gauss(0, 2)) for _ in range(rows * 2 * cols)]
    A = [X[r * 2 * cols + c] for r in range(rows) for c in range(cols)]
    B = [X[r * 2 * cols + cols + c] for r in range(rows) for c in range(cols)]
    bx, ba, bb = buf(X, backend), buf(A, backend), buf(B, backend)
    y1 = gpuact.Buffer(4 * rows * cols, backend=backend)
    y2 = gpuact.Buffer(4 * rows * cols, backend=backend)
    gpuact.glu_forward("silu", rows, cols, bx, bx.at(4 * cols), y1, ld_a=2 * cols, ld_b=2 * cols, backend=backend)
    gpuact.glu_forward("silu", rows, cols, ba, bb, y2, backend=backend)
    assert y1.read() == y2.read()
    for b in (bx, ba, bb, y1, y2):
        b.free()


def test_glu_refusals_are_exceptions(backend):
    x = buf([1.0] * 8, backend)
    y = gpuact.Buffer(16, backend=backend)
    with pytest.raises(gpuact.InvalidArgument) as e:  # leaky ReLU does not gate
        gpuact.glu_forward("leaky", 1, 4, x, x.at(16), y, backend=backend)
    assert e.value.rule == "KIND_NOT_GATED"
    with pytest.raises(gpuact.InvalidArgument) as e:  # one bias without the other
        gpuact.glu_forward("silu", 1, 4, x, x.at(16), y, x, None, backend=backend)
    assert e.value.rule == "BOTH_OR_NEITHER"
    with pytest.raises(TypeError):
        gpuact._C.glu_forward(0, 0, 0)
    x.free()
    y.free()
