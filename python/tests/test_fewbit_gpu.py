"""The few-bit backward (gpuact.torch.fewbit) on a CUDA device: the forward's y is the plain
forward's bit for bit and its codes are the number of kernels/fewbit.h's boundaries <= x (+ bias)
(NaN and -inf: 0, +inf: 2^b - 1, -0 as +0); the backward is (dy * scale) * level[code] rounded once,
against a torch reference built from the header's tables, and the bias gradient its column sums;
autograd keeps only the codes; torch.compile(fullgraph=True) and autocast give the same."""
import re

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to torch", allow_module_level=True)

import gpuact  # noqa: E402
import gpuact.torch as ga  # noqa: E402
from gpuact.torch import fewbit  # noqa: E402

from conftest import SPECIALS, repo_file, torch_tables  # noqa: E402

DEV = "cuda"
DTYPES, IVIEW = torch_tables(torch)
TABLE = {"gelu": 0, "gelu_tanh": 1, "silu": 2}  # fewbit.h's table order
P = [0.0] * len(gpuact.ACT_PARAMS)


def _header_table(name):
    """GPUACT_FEWBIT_<name> of kernels/fewbit.h as f32, [table][bits - 1][16]."""
    text = repo_file("kernels", "fewbit.h")
    m = re.search(r"#define GPUACT_FEWBIT_%s \{(.*?)\}" % name, text, re.S)
    assert m, f"GPUACT_FEWBIT_{name} not found in kernels/fewbit.h"
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S).replace("\\", "")
    vals = [float(v.strip().rstrip("f")) for v in body.split(",") if v.strip()]
    return torch.tensor(vals, dtype=torch.float32, device=DEV).view(3, 4, 16)


@pytest.fixture(scope="module")
def tables():
    return _header_table("BOUNDS"), _header_table("LEVELS")


def special(dt, n, seed, scale=2.0):
    """n values of randn * scale in dt with every special value of the dtype (NaN payloads, +-inf,
    +-0, subnormals) at the start and at random places, and the boundaries' neighbourhood densely."""
    g = torch.Generator(device=DEV).manual_seed(seed)
    w = 32 if dt == torch.float32 else 16
    sp = [b - (1 << w) if b >= 1 << (w - 1) else b for b in SPECIALS[{v: k for k, v in DTYPES.items()}[dt]]]
    spt = torch.tensor(sp, dtype=IVIEW[dt]).view(dt).to(DEV)
    x = (torch.randn(n, device=DEV, generator=g) * scale).to(dt)
    k = min(spt.numel(), n)
    x[:k] = spt[:k]
    if n > 4 * k:
        pos = torch.randint(k, n, (n // 16,), device=DEV, generator=g)
        x[pos] = spt[torch.randint(0, spt.numel(), (pos.numel(),), device=DEV, generator=g)]
    return x


def assert_same(what, got, want):
    """Bit for bit, any NaN matching any NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype} {got.shape} vs " \
                                                                f"{want.dtype} {want.shape}"
    gb, wb = got.contiguous().view(IVIEW[got.dtype]), want.contiguous().view(IVIEW[want.dtype])
    bad = (gb != wb) & ~(torch.isnan(got) & torch.isnan(want))
    n = int(bad.sum())
    if n:
        i = bad.reshape(-1).nonzero()[:5].flatten().tolist()
        raise AssertionError(f"{what}: {n} of {got.numel()} differ, first at {i}: got "
                             f"{got.reshape(-1)[i].tolist()}, want {want.reshape(-1)[i].tolist()}")


def unpack(codes, rows, cols, bits):
    """rows x cols int64 codes from the packed uint8 rows (codes_ld(cols) codes a row)."""
    ld = fewbit.codes_ld(cols)
    b = codes[: rows * ld * bits // 8].view(rows, ld * bits // 8).to(torch.int64)
    bit = (b[:, :, None] >> torch.arange(8, device=codes.device)) & 1  # the rows' bits, least significant first
    bit = bit.reshape(rows, ld, bits)
    return (bit << torch.arange(bits, device=codes.device)).sum(-1)[:, :cols]


def ref_codes(z, bnd, kind, bits):
    """How many of the table's boundaries are <= z (NaN compares false: 0)."""
    b = bnd[TABLE[kind], bits - 1, : (1 << bits) - 1]
    return (z.float()[..., None] >= b).sum(-1)


def ref_dx(dy, code, lv, kind, bits, scale, dxdt):
    g = dy.float() * scale if scale != 1.0 else dy.float()
    return (g * lv[TABLE[kind], bits - 1][code]).to(dxdt)


def _op(kind, approximate=None):
    return {"gelu": lambda t, **k: ga.gelu(t, **k), "gelu_tanh": lambda t, **k: ga.gelu(t, approximate="tanh", **k),
            "silu": lambda t, **k: ga.silu(t, **k)}[kind]


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("kind", list(TABLE))
@pytest.mark.parametrize("bits", fewbit.BITS)
def test_elementwise(tables, dt, kind, bits):
    """y equals the exact op's (precise too), the codes the table's count, dx = dy * level[code]."""
    bnd, lv = tables
    X = DTYPES[dt]
    rows, cols = 3, 1031  # a ragged row: the codes' tail
    x = special(X, rows * cols, 100 + bits).view(rows, cols)
    op = _op(kind)
    for precise in (False, True):
        assert_same(f"{kind} {dt} {bits} bits y precise={precise}", op(x, precise=precise, backward_bits=bits),
                    op(x, precise=precise))
    kv = gpuact.KINDS[kind].value
    y, codes = torch.ops.gpuact.fewbit_fwd(x, None, kv, P, 1.0, None, bits, False)
    assert codes.dtype == torch.uint8 and codes.numel() == fewbit.codes_numel(rows, cols, bits)
    got = unpack(codes, rows, cols, bits)
    want = ref_codes(x, bnd, kind, bits)
    bad = got != want
    assert not bool(bad.any()), f"{kind} {dt} {bits}-bit codes: {int(bad.sum())} differ, first x " \
                                f"{x[bad][:5].tolist()}: got {got[bad][:5].tolist()}, want {want[bad][:5].tolist()}"
    # the backward through autograd, from the codes alone
    g = torch.Generator(device=DEV).manual_seed(7)
    dy = torch.randn(rows, cols, device=DEV, generator=g).to(X)
    xg = x.clone().requires_grad_()
    op(xg, backward_bits=bits).backward(dy)
    assert_same(f"{kind} {dt} {bits} bits dx", xg.grad, ref_dx(dy, want, lv, kind, bits, 1.0, X))


@pytest.mark.parametrize("xdt,bdt", [("f32", "f32"), ("bf16", "f32"), ("f16", "f16"), ("bf16", "bf16")])
@pytest.mark.parametrize("kind,bits,scale", [("gelu", 2, 1.0), ("gelu_tanh", 3, -0.75), ("silu", 4, 3.0),
                                             ("gelu", 1, 0.5)])
def test_bias_act(tables, xdt, bdt, kind, bits, scale):
    """The epilogue: y as the exact bias_act's with the bias in x's dtype, the codes of x + bias (one
    f32 addition), dx = (dy * scale) * level[code] and the bias gradient its column sums."""
    bnd, lv = tables
    X, B = DTYPES[xdt], DTYPES[bdt]
    rows, cols = 67, 1001
    x = special(X, rows * cols, 21).view(rows, cols)
    b = (torch.randn(cols, device=DEV, generator=torch.Generator(device=DEV).manual_seed(22))).to(B)
    xb = b.to(X)  # the forward writing codes takes its bias in x's dtype
    y = ga.bias_act(x, b, kind, scale, backward_bits=bits)
    assert_same(f"bias_act {kind} {bits} bits y", y, ga.bias_act(x, xb, kind, scale))
    z = x.float() + xb.float()
    code = ref_codes(z, bnd, kind, bits)
    dy = torch.randn(rows, cols, device=DEV, generator=torch.Generator(device=DEV).manual_seed(23)).to(X)
    xg, bg = x.clone().requires_grad_(), b.clone().requires_grad_()
    ga.bias_act(xg, bg, kind, scale, backward_bits=bits).backward(dy)
    dx = ref_dx(dy, code, lv, kind, bits, scale, X)
    assert_same(f"bias_act {kind} {bits} bits dx", xg.grad, dx)
    assert bg.grad.dtype == B
    d = dx.double()
    fin = torch.isfinite(d).all(0)
    want, mag = d.sum(0), d.abs().sum(0)
    tol = 1e-5 * mag + (want.abs() * 2.0 ** -8 if B != torch.float32 else 0.0) + 1e-30
    ok = ~fin | ((bg.grad.double() - want).abs() <= tol)
    assert bool(ok.all()), f"dbias: {int((~ok).sum())} columns off, first {int((~ok).nonzero()[0])}"


def test_keeps_only_codes():
    """Autograd saves the uint8 codes, b bits an element, not x."""
    saved = []

    def pack(t):
        saved.append((t.dtype, t.numel()))
        return t

    x = torch.randn(64, 256, device=DEV, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = ga.gelu(x, backward_bits=2)
    assert saved == [(torch.uint8, 64 * 256 * 2 // 8)], saved
    y.sum().backward()


def test_compile_fullgraph(tables):
    """torch.compile(fullgraph=True): forward and backward as in eager mode."""
    torch.compiler.reset()
    x = special(torch.bfloat16, 33 * 130, 31).view(33, 130)
    b = torch.randn(130, device=DEV)
    dy = torch.randn(33, 130, device=DEV).to(torch.bfloat16)

    def fn(t, bias):
        return ga.bias_act(t, bias, "gelu_tanh", 0.5, backward_bits=3) + ga.silu(t, backward_bits=2)

    def run(f):
        xg, bg = x.clone().requires_grad_(), b.clone().requires_grad_()
        y = f(xg, bg)
        y.backward(dy)
        return y, xg.grad, bg.grad

    eager = run(fn)
    compiled = run(torch.compile(fn, fullgraph=True))
    for what, g, e in zip(("y", "dx", "dbias"), compiled, eager):
        assert_same(f"compiled {what}", g, e)
    m = ga.nn.Linear(130, 64, activation="silu", backward_bits=4).cuda()
    xm = torch.randn(5, 130, device=DEV)
    assert_same("compiled Linear", torch.compile(m, fullgraph=True)(xm), m(xm))
    torch.compiler.reset()


def test_autocast(tables):
    """Under autocast: the module's y is the exact module's bit for bit (both in bf16, the bias used
    in bf16), and the bias gradient the column sums of dy * level[code of the bf16 product + bias]."""
    bnd, lv = tables
    torch.manual_seed(41)
    m = ga.nn.Linear(96, 200, activation="gelu", backward_bits=2).cuda()
    ref = ga.nn.Linear(96, 200, activation="gelu").cuda()
    ref.load_state_dict(m.state_dict())
    x = torch.randn(48, 96, device=DEV)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = m(x)
        yr = ref(x)
        zb = torch.nn.functional.linear(x, m.weight)
    assert y.dtype == torch.bfloat16
    assert_same("autocast Linear y", y, yr)
    dy = torch.randn(48, 200, device=DEV).to(torch.bfloat16)
    y.backward(dy)
    assert m.bias.grad.dtype == torch.float32 and m.weight.grad.dtype == torch.float32
    code = ref_codes(zb.float() + m.bias.detach().to(torch.bfloat16).float(), bnd, "gelu", 2)
    dz = ref_dx(dy, code, lv, "gelu", 2, 1.0, torch.bfloat16)
    torch.testing.assert_close(m.bias.grad, dz.float().sum(0), rtol=1e-4, atol=1e-4)
    with torch.autocast("cuda", dtype=torch.bfloat16):  # elementwise: the input's dtype, as torch's gelu
        xa = torch.randn(8, 40, device=DEV).to(torch.float16)
        assert ga.silu(xa, backward_bits=3).dtype == torch.float16
