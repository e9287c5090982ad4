"""gpuact.torch on a CUDA device, against PyTorch, bit for bit where
docs/NUMERICS.md says so: every op and dtype, forward and backward, on
inputs full of special values (NaN payloads, +-Inf, +-0, subnormals, values
at the clip ceiling); autograd keeps the mask; the epilogue and its bias
gradient; the modules; torch.compile(fullgraph=True); CUDA-graph capture;
the custom ops through torch.library.opcheck; the error cases.

GELU (erf and tanh forms) and SiLU are gpuact's own f32 math, not torch's
formulas: they are held to a float64 reference (the f32 activation or
derivative within 2 ulps of it, the default evaluation's bound, then dy or scale applied in f32 and rounded
once, as gpuact computes; for a float16/bfloat16 result, the lean
evaluation's bounds instead, LEAN_REL and LEAN_ABS below) and to torch (within 2 ulp in float32, 1 ulp in
float16/bfloat16; the epilogue one more, for its product's rounding)
wherever torch itself is within 1 ulp of the float64 reference. Where it is
not (torch's 1 + tanh cancels for negative x, its derivatives cancel near
their zeros), torch's value is no yardstick, and gpuact is held to the
float64 one alone.

Every test builds its own inputs (seeded) and says what differs: the count,
the first indices, and the input and output bits there."""
import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to torch", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import gpuact  # noqa: E402
import gpuact.torch as ga  # noqa: E402

from conftest import SPECIALS, torch_tables  # noqa: E402

DEV = "cuda"
DTYPES, IVIEW = torch_tables(torch)
WIDTH = {torch.float32: 32, torch.float16: 16, torch.bfloat16: 16}
NAME = {v: k for k, v in DTYPES.items()}


def saved_by(fn):
    """(fn's result, the tensors autograd saved while fn ran): what its backward keeps, for torch's and
    gpuact's nodes alike (torch.autograd.graph.saved_tensors_hooks sees every saved tensor)."""
    saved = []

    def pack(t):
        saved.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return out, saved


def f32(v):
    return torch.tensor(v, dtype=torch.float32).item()


def rounded(v, dt):
    return torch.tensor(v, dtype=torch.float32).to(dt).float().item()


def special(dt, n, seed, scale=4.0):
    """n values of randn * scale in dt, with every special value of the dtype at both ends and at n/16
    random places."""
    g = torch.Generator(device=DEV).manual_seed(seed)
    w = WIDTH[dt]
    sp = [b - (1 << w) if b >= 1 << (w - 1) else b for b in SPECIALS[NAME[dt]]]
    for c in (6.0, 1.0, 6.2, 0.7, -1.0, -2.5, 0.5, -0.7):  # each bound in dt and its neighbours
        cb = int(torch.tensor([c], dtype=dt).view(IVIEW[dt]).item())
        sp += [cb - 1, cb, cb + 1]
    spt = torch.tensor(sp, dtype=IVIEW[dt]).view(dt).to(DEV)
    x = (torch.randn(n, device=DEV, generator=g) * scale).to(dt)
    k = spt.numel()
    x[:k] = spt
    x[-k:] = spt.flip(0)
    pos = torch.randint(k, n - k, (n // 16,), device=DEV, generator=g)
    x[pos] = spt[torch.randint(0, k, (pos.numel(),), device=DEV, generator=g)]
    return x


def bits(t):
    return t.contiguous().view(IVIEW[t.dtype])


def hexs(t, i):
    w = WIDTH[t.dtype]
    return f"{int(bits(t.reshape(-1))[i].item()) & ((1 << w) - 1):0{w // 4}x}"


def assert_same(what, got, want, nan_equal=False, keeps_payload_of=None, inputs=()):
    """Bit for bit; nan_equal: any NaN matches any NaN (where torch does arithmetic on a NaN);
    keeps_payload_of: where torch gives its canonical NaN for a NaN dy that passes, gpuact must
    give dy's own bits (docs/NUMERICS.md)."""
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)}, torch {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, torch {want.dtype}"
    g, w = got.reshape(-1), want.reshape(-1)
    bad = bits(g) != bits(w)
    if nan_equal:
        bad &= ~(g.isnan() & w.isnan())
    if keeps_payload_of is not None:
        src = keeps_payload_of.reshape(-1)
        bad &= ~(src.isnan() & (bits(g) == bits(src)) & w.isnan())
    nbad = int(bad.sum().item())
    if nbad:
        idx = bad.nonzero().reshape(-1)[:6].tolist()
        detail = "; ".join(
            f"[{i}] " + " ".join(f"{name}={hexs(v, i)}" for name, v in inputs) + f" gpuact={hexs(g, i)} "
            f"torch={hexs(w, i)}" for i in idx)
        pytest.fail(f"{what}: {nbad} of {g.numel()} elements differ: {detail}")


def ulps(a, b):
    """|a - b| in ulps of their dtype, elementwise (int64): adjacent values are 1 apart, -0 and +0 0; two
    NaNs are 0 apart whatever their payloads, a NaN and a number 2^40."""
    def key(t):
        v = bits(t.reshape(-1)).to(torch.int64)
        mag = 0x7fffffff if t.dtype == torch.float32 else 0x7fff
        return torch.where(v < 0, -(v & mag), v)
    na, nb = a.reshape(-1).isnan(), b.reshape(-1).isnan()
    d = (key(a) - key(b)).abs()
    d = torch.where(na & nb, torch.zeros_like(d), d)
    return torch.where(na ^ nb, torch.full_like(d, 1 << 40), d)


def assert_ulps(what, got, want, n, where=None, inputs=()):
    """got within n ulps of want (NaN: any NaN), at every element or where `where` is set."""
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype, want.dtype)
    d = ulps(got, want)
    bad = d > n
    if where is not None:
        bad &= where.reshape(-1)
    nbad = int(bad.sum().item())
    if nbad:
        g, w = got.reshape(-1), want.reshape(-1)
        idx = bad.nonzero().reshape(-1)[:6].tolist()
        detail = "; ".join(
            f"[{i}] " + " ".join(f"{name}={hexs(v, i)}" for name, v in inputs) + f" gpuact={hexs(g, i)} "
            f"reference={hexs(w, i)} ({int(d[i])} ulp)" for i in idx)
        pytest.fail(f"{what}: {nbad} of {g.numel()} elements more than {n} ulp apart: {detail}")


_C0 = 1.0 / math.sqrt(2.0 * math.pi)
_C1 = 2.0 * math.sqrt(2.0 / math.pi)  # the tanh form: 2u = x (c1 + c3 x^2)
_C3 = 0.044715 * _C1


def _sig_sig(t):
    e = torch.exp(-t.abs())
    return e / ((1 + e) * (1 + e))


def smooth_ref64(kind, x):
    """(act(x), act'(x)) in float64 on the device, in forms that keep their relative accuracy in the
    tails (gpuact.__main__.smooth_reference's, on tensors): the yardstick of gpuact's f32 math."""
    x = x.double()
    if kind == "gelu":
        cdf = 0.5 * torch.special.erfc(-x * math.sqrt(0.5))
        return x * cdf, cdf + x * (_C0 * torch.exp(-0.5 * x * x))
    if kind == "silu":
        s = torch.sigmoid(x)
        return x * s, s + x * _sig_sig(x)
    z = x * (_C1 + _C3 * x * x)
    s = torch.sigmoid(z)
    return x * s, s + x * (_sig_sig(z) * (_C1 + 3.0 * _C3 * x * x))


SMOOTH = ("gelu", "gelu_tanh", "silu")
#: gpuact against torch, where torch is within 1 ulp of float64: 2 ulp in float32, 1 in float16/bfloat16
TORCH_ULPS = {torch.float32: 2, torch.float16: 1, torch.bfloat16: 1}


def _key(t):
    v = bits(t.reshape(-1)).to(torch.int64)
    mag = 0x7fffffff if t.dtype == torch.float32 else 0x7fff
    return torch.where(v < 0, -(v & mag), v)


#: A float16/bfloat16 result takes the lean evaluation (docs/NUMERICS.md, "Which path each dtype
#: takes"): its f32 value is within LEAN_REL of the true value relatively (`accuracy --16` measures at
#: most 132 f32 ulps, in the far tails), and a derivative's also within LEAN_ABS absolutely (near its
#: zero the relative error grows; measured at most 1.24e-7 = 2.09 * 2^-24 over [-8, 8]).
LEAN_REL = 2.0 ** -15
LEAN_ABS = 2.0 ** -22


def admissible(got, v64, dt, factor=None, deriv=False):
    """Where got is what gpuact's documented arithmetic gives from an f32 value within 2 ulps of v64
    rounded to f32 (its activation or derivative, default evaluation; for a 16-bit dt, within the lean bounds above, deriv:
    whether v64 is a derivative): that value, times factor (an f32 product: dy, scale) where given,
    rounded once to dt. Checked as got lying between the results of the extreme f32 values (monotone in
    them); a NaN where one of them gives NaN."""
    cr = v64.float()
    down, up = torch.full_like(cr, -math.inf), torch.full_like(cr, math.inf)
    if dt in (torch.float16, torch.bfloat16):
        tol = v64.abs() * LEAN_REL + (LEAN_ABS if deriv else 0.0)
        tol = torch.where(torch.isfinite(v64), tol, torch.zeros_like(tol))
        cands = [torch.nextafter((v64 - tol).float(), down), cr, torch.nextafter((v64 + tol).float(), up)]
    else:
        cands = [torch.nextafter(torch.nextafter(cr, down), down), cr, torch.nextafter(torch.nextafter(cr, up), up)]
    if factor is not None:
        cands = [c * factor for c in cands]
    cands = [c.to(dt) for c in cands]
    big = 1 << 40
    lo = torch.stack([torch.where(c.reshape(-1).isnan(), big, _key(c)) for c in cands]).min(0).values
    hi = torch.stack([torch.where(c.reshape(-1).isnan(), -big, _key(c)) for c in cands]).max(0).values
    any_nan = torch.stack([c.reshape(-1).isnan() for c in cands]).any(0)
    g, kg = got.reshape(-1), _key(got)
    return (g.isnan() & any_nan) | (~g.isnan() & (kg >= lo) & (kg <= hi))


def check_smooth(what, got, torch_got, v64, dt, factor=None, torch_ulps=None, inputs=(), deriv=False):
    """GELU and SiLU: gpuact's result admissible (above) against the float64 value v64 of the activation
    or derivative (times factor), and within torch_ulps (default TORCH_ULPS) of torch's result wherever
    torch's is within 1 ulp of that float64 reference."""
    ok = admissible(got, v64, dt, factor, deriv)
    bad = ~ok
    ref = (v64.float() * factor if factor is not None else v64.float()).to(dt)
    if int(bad.sum()):
        g, r = got.reshape(-1), ref.reshape(-1)
        idx = bad.nonzero().reshape(-1)[:6].tolist()
        detail = "; ".join(f"[{i}] " + " ".join(f"{name}={hexs(v, i)}" for name, v in inputs) +
                           f" gpuact={hexs(g, i)} float64={hexs(r, i)}" for i in idx)
        pytest.fail(f"{what}: {int(bad.sum())} of {g.numel()} elements are not gpuact's f32 value within 1 ulp "
                    f"of float64 (times the factor, rounded once): {detail}")
    torch_ok = ulps(torch_got, ref) <= 1
    assert_ulps(f"{what}: gpuact against torch (where torch is within 1 ulp of float64: "
                f"{int(torch_ok.sum())} of {torch_ok.numel()})", got, torch_got,
                TORCH_ULPS[dt] if torch_ulps is None else torch_ulps, torch_ok, inputs)


# ---- the elementwise ops -------------------------------------------------------------------------

class Op:
    """name; gpuact's function; torch's forward; whether the forward compares NaN==NaN (torch does
    arithmetic on a NaN: the leaky slope product, the square); the kind and parameters as gpuact's table
    has them. The smooth kinds (gelu, gelu_tanh, silu) are compared as check_smooth says."""

    def __init__(self, name, gf, tf, nan_equal, kind, **params):
        self.name, self.gf, self.tf, self.nan_equal, self.kind, self.params = name, gf, tf, nan_equal, kind, params
        self.smooth = kind in SMOOTH

    def __repr__(self):
        return self.name


OPS = [
    Op("relu", lambda x: ga.relu(x), torch.relu, False, "relu"),
    Op("leaky_relu(0.01)", lambda x: ga.leaky_relu(x, 0.01), lambda x: F.leaky_relu(x, 0.01), True, "leaky",
       negative_slope=0.01),
    Op("leaky_relu(0)", lambda x: ga.leaky_relu(x, 0.0), lambda x: F.leaky_relu(x, 0.0), True, "leaky",
       negative_slope=0.0),
    Op("leaky_relu(1.5)", lambda x: ga.leaky_relu(x, 1.5), lambda x: F.leaky_relu(x, 1.5), True, "leaky",
       negative_slope=1.5),
    Op("relu6", lambda x: ga.relu6(x), F.relu6, False, "clipped", ceiling=6.0),
    Op("clipped_relu(1)", lambda x: ga.clipped_relu(x, 1.0), lambda x: F.hardtanh(x, 0.0, 1.0), False, "clipped",
       ceiling=1.0),
    Op("clipped_relu(6.2)", lambda x: ga.clipped_relu(x, 6.2), lambda x: F.hardtanh(x, 0.0, 6.2), False, "clipped",
       ceiling=6.2),
    Op("activation(leaky_relu, 0.2)", lambda x: ga.activation(x, "leaky_relu", negative_slope=0.2),
       lambda x: F.leaky_relu(x, 0.2), True, "leaky", negative_slope=0.2),
    Op("hardtanh", lambda x: ga.hardtanh(x), F.hardtanh, False, "hardtanh", lower=-1.0, ceiling=1.0),
    Op("hardtanh(-2.5, 0.5)", lambda x: ga.hardtanh(x, -2.5, 0.5), lambda x: F.hardtanh(x, -2.5, 0.5), False,
       "hardtanh", lower=-2.5, ceiling=0.5),
    Op("hardtanh(-0.7, 6.2)", lambda x: ga.hardtanh(x, -0.7, 6.2), lambda x: F.hardtanh(x, -0.7, 6.2), False,
       "hardtanh", lower=-0.7, ceiling=6.2),
    Op("squared_relu", lambda x: ga.squared_relu(x), lambda x: torch.relu(x) ** 2, True, "sqrelu"),
    Op("gelu", lambda x: ga.gelu(x), F.gelu, True, "gelu"),
    Op("gelu(tanh)", lambda x: ga.gelu(x, approximate="tanh"), lambda x: F.gelu(x, approximate="tanh"), True,
       "gelu_tanh"),
    Op("silu", lambda x: ga.silu(x), F.silu, True, "silu"),
]
OP_IDS = [o.name for o in OPS]


def torch_backward(op, x, dy):
    """What PyTorch's autograd gives for op (clipped, hardtanh: hardtanh_backward with the bounds rounded
    to the dtype, which is also torch's autograd whenever they are exact in it; docs/NUMERICS.md)."""
    if op.kind in ("clipped", "hardtanh"):
        return torch.ops.aten.hardtanh_backward(dy, x, rounded(op.params.get("lower", 0.0), x.dtype),
                                                rounded(op.params["ceiling"], x.dtype))
    xr = x.detach().clone().requires_grad_()
    op.tf(xr).backward(dy)
    return xr.grad


def sqrelu_documented(x, dy, got, want):
    """Squared ReLU's backward in f16 where 2x overflows f16 (x > 32752): autograd rounds 2 * relu(x) to
    f16 (inf) before multiplying by dy, gpuact multiplies in f32 and rounds once. Everywhere else,
    +0 where x <= 0 included, the two agree bit for bit."""
    xf = x.reshape(-1).float()
    return (x.dtype == torch.float16) & (xf > 32752)


N = 4099 * 3 + 5  # not a multiple of 8 or of any vector width


@pytest.mark.parametrize("dt", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_forward_matches_torch(op, dt):
    x = special(DTYPES[dt], N, 1)
    if op.smooth:
        check_smooth(f"{op.name} {dt} forward", op.gf(x), op.tf(x), smooth_ref64(op.kind, x)[0], DTYPES[dt],
                     inputs=[("x", x)])
        return
    assert_same(f"{op.name} {dt} forward", op.gf(x), op.tf(x), op.nan_equal, inputs=[("x", x)])


def check_backward(op, what, got, x, dy):
    """gpuact's dx against torch's autograd: bit for bit (the documented exceptions aside), or for the
    smooth kinds as check_smooth says: dx = dy * act'(x) in f32, rounded once, from gpuact's f32
    derivative within 1 ulp of float64's."""
    want = torch_backward(op, x, dy)
    if op.smooth:
        # one ulp more than the forward: each side's derivative is within 1 ulp of float64 and is then
        # multiplied by dy and rounded, so the two products can straddle one more rounding (as the epilogue)
        check_smooth(what, got, want, smooth_ref64(op.kind, x)[1], x.dtype, dy.float(), TORCH_ULPS[x.dtype] + 1,
                     inputs=[("x", x), ("dy", dy)], deriv=True)
        return
    if op.kind == "sqrelu":
        ok = sqrelu_documented(x, dy, got, want)
        assert_ulps(what + " (bit for bit but where x <= 0, see sqrelu_documented)", got, want, 0, ~ok,
                    inputs=[("x", x), ("dy", dy)])
        return
    keep = dy if op.kind in ("clipped", "hardtanh") and x.dtype != torch.float32 else None  # canonical NaN
    assert_same(what, got, want, op.kind == "leaky", keep, inputs=[("x", x), ("dy", dy)])


@pytest.mark.parametrize("dt", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_backward_matches_torch(op, dt):
    x = special(DTYPES[dt], N, 2)
    dy = special(DTYPES[dt], N, 3, 2.0)
    xg = x.detach().clone().requires_grad_()
    y = op.gf(xg)
    assert y.grad_fn is not None
    y.backward(dy)
    check_backward(op, f"{op.name} {dt} backward (eager autograd)", xg.grad, x, dy)
    if op.smooth:  # the derivative itself (dy = 1): within 1 ulp of float64
        xg.grad = None
        op.gf(xg).backward(torch.ones_like(dy))
        assert bool(admissible(xg.grad, smooth_ref64(op.kind, x)[1], x.dtype, deriv=True).all()), \
            f"{op.name} {dt}: the derivative is not within 1 ulp of float64's"


DERIVATIVE_ZEROS = {"gelu": -0.7517915246935645, "gelu_tanh": -0.7524614220710163, "silu": -1.278464542761074}


@pytest.mark.parametrize("dt", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("kind", SMOOTH)
def test_smooth_derivative_near_its_zero(kind, dt):
    """The derivative (dy = 1) at the 4096 values of the dtype around its zero, where it is a difference
    of nearly equal terms: within 1 ulp of float64 there too."""
    w = WIDTH[DTYPES[dt]]
    z0 = int(torch.tensor([DERIVATIVE_ZEROS[kind]], dtype=DTYPES[dt]).view(IVIEW[DTYPES[dt]]).item()) & ((1 << w) - 1)
    b = torch.arange(z0 - 2048, z0 + 2048, device=DEV, dtype=torch.int64)
    b = torch.where(b >= 1 << (w - 1), b - (1 << w), b).to(IVIEW[DTYPES[dt]])
    x = b.view(DTYPES[dt]).requires_grad_()
    getattr(ga, "gelu" if kind.startswith("gelu") else kind)(
        x, **({"approximate": "tanh"} if kind == "gelu_tanh" else {})).backward(torch.ones_like(x))
    ok = admissible(x.grad, smooth_ref64(kind, x.detach())[1], DTYPES[dt], deriv=True)
    assert bool(ok.all()), (f"{kind} {dt}: {int((~ok).sum())} of {ok.numel()} derivatives near the zero are not "
                            f"within 1 ulp of float64; first at x = {x[~ok][0].item()!r}")


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_custom_op_autograd_matches_torch(op):
    """torch.ops.gpuact.act_fwd / act_bwd and their registered autograd, called directly (the path
    torch.compile takes)."""
    x = special(torch.bfloat16, N, 4)
    dy = special(torch.bfloat16, N, 5, 2.0)
    a = gpuact.activation(op.kind, **op.params)
    kind, params = a[0], list(a[1:])
    for with_mask in ((True, False) if gpuact.KINDS[op.kind].has_mask else (False,)):  # no mask: x is kept
        xg = x.detach().clone().requires_grad_()
        y, mask = torch.ops.gpuact.act_fwd(xg, kind, params, with_mask)
        assert mask.dtype == torch.uint8 and mask.numel() == ((N + 7) // 8 if with_mask else 0)
        if op.smooth:
            check_smooth(f"{op.name} act_fwd", y, op.tf(x), smooth_ref64(op.kind, x)[0], x.dtype, inputs=[("x", x)])
        else:
            assert_same(f"{op.name} act_fwd", y, op.tf(x), op.nan_equal, inputs=[("x", x)])
        y.backward(dy)
        check_backward(op, f"{op.name} act_fwd backward (with_mask={with_mask})", xg.grad, x, dy)
    if not gpuact.KINDS[op.kind].has_mask:
        with pytest.raises(gpuact.InvalidArgument, match="no 1-bit mask"):
            torch.ops.gpuact.act_fwd(x, kind, params, True)


@pytest.mark.parametrize("kind", list(gpuact.KINDS))
def test_every_kind_of_the_table_with_autograd(kind):
    """Each row of GPUACT_ACTIVATIONS (new ones included, default parameters) through gpuact.torch:
    forward, autograd (what it saves: the mask, or x for a kind without one), the module, and bias_act
    where the kind has the mask; finite inputs give finite results."""
    info = gpuact.KINDS[kind]
    x = (torch.arange(-512, 512, device=DEV, dtype=torch.float32) / 64).requires_grad_()
    y, saved = saved_by(lambda: ga.activation(x, kind))
    assert len(saved) == 1, (kind, [t.dtype for t in saved])
    assert saved[0].dtype == (torch.uint8 if info.has_mask else torch.float32), (kind, saved[0].dtype)
    y.backward(torch.ones_like(y))
    assert bool(torch.isfinite(y).all()) and bool(torch.isfinite(x.grad).all()), kind
    assert bool(torch.isfinite(ga.nn.Activation(kind)(x.detach())).all())
    xb = x.detach().view(16, 64).clone().requires_grad_()
    bb = torch.zeros(64, device=DEV, requires_grad=True)
    # the mask, or x and the bias (the smooth kinds)
    y, saved = saved_by(lambda: ga.bias_act(xb, bb, kind, 0.5))
    assert [t.dtype for t in saved] == ([torch.uint8] if info.has_mask else [torch.float32, torch.float32]), kind
    y.sum().backward()
    assert bool(torch.isfinite(xb.grad).all()) and bool(torch.isfinite(bb.grad).all())


def test_autograd_saves_the_mask_not_the_input():
    n = 1 << 20
    x = torch.randn(n, device=DEV, requires_grad=True)

    def held(fn):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        loss = fn()
        torch.cuda.synchronize()
        kept = torch.cuda.memory_allocated() - before
        loss.backward()
        return kept

    kept_torch = held(lambda: torch.relu(x * 2).sum())      # torch keeps relu's output: 4 bytes an element
    kept_gpuact = held(lambda: ga.relu(x * 2).sum())        # gpuact keeps the mask: 1 bit an element
    assert kept_gpuact <= kept_torch - 3 * n, (kept_gpuact, kept_torch)
    h = x * 2  # saves nothing (a multiplication by a constant)
    y, saved = saved_by(lambda: ga.relu(h))
    assert len(saved) == 1 and saved[0].dtype == torch.uint8 and saved[0].numel() == n // 8, \
        [(t.dtype, t.numel()) for t in saved]


def test_double_backward_of_relu():
    x = torch.randn(999, device=DEV, dtype=torch.float32)
    dy = torch.randn(999, device=DEV)
    xg, xr = x.clone().requires_grad_(), x.clone().requires_grad_()
    dyg, dyr = dy.clone().requires_grad_(), dy.clone().requires_grad_()
    (gg,) = torch.autograd.grad(ga.relu(xg), xg, dyg, create_graph=True)
    (gr,) = torch.autograd.grad(torch.relu(xr), xr, dyr, create_graph=True)
    assert_same("relu grad (create_graph)", gg, gr)
    v = torch.randn(999, device=DEV)
    (ggg,) = torch.autograd.grad(gg, dyg, v)
    (ggr,) = torch.autograd.grad(gr, dyr, v)
    assert_same("relu double backward d(dx)/d(dy)", ggg, ggr)


def test_gradcheck_float32():
    """Analytic against numeric gradients (float32: gpuact has no float64), at points at least 0.15
    away from every kink (0 and the ceiling 3), so that eps = 1e-2 never crosses one."""
    g = torch.Generator(device=DEV).manual_seed(6)
    grid = torch.tensor([0.5, 1.25, 2.0, 2.75, 3.5, 4.25, -0.5, -1.25, -2.0, -2.75, -3.5, -4.25], device=DEV)
    x = grid[torch.randint(0, grid.numel(), (64,), device=DEV, generator=g)]
    x = (x + (torch.rand(64, device=DEV, generator=g) - 0.5) * 0.2).requires_grad_()
    b = (torch.randn(8, device=DEV, generator=g) * 0.01).requires_grad_()
    kw = dict(eps=1e-2, atol=1e-2, rtol=1e-2)
    assert torch.autograd.gradcheck(lambda t: ga.leaky_relu(t, 0.1), (x,), **kw)
    assert torch.autograd.gradcheck(lambda t: ga.clipped_relu(t, 3.0), (x,), **kw)
    assert torch.autograd.gradcheck(lambda t, c: ga.bias_act(t.view(8, 8), c, "leaky_relu", 0.5,
                                                             negative_slope=0.1), (x, b), **kw)
    assert torch.autograd.gradcheck(lambda t: ga.hardtanh(t, -2.0, 3.0), (x,), **kw)
    # the smooth kinds (no kinks but squared ReLU's at 0, which the grid avoids)
    for fn in (ga.gelu, lambda t: ga.gelu(t, approximate="tanh"), ga.silu, ga.squared_relu):
        assert torch.autograd.gradcheck(fn, (x,), **kw)
    for kind in ("gelu", "silu", "squared_relu"):
        assert torch.autograd.gradcheck(lambda t, c: ga.bias_act(t.view(8, 8), c, kind, -0.5), (x, b), **kw)


def test_inplace_and_out():
    x = special(torch.float32, N, 7)
    want = torch.relu(x)
    xi = x.clone()
    assert ga.relu(xi, inplace=True) is xi
    assert_same("relu inplace (no grad)", xi, want)
    out = torch.empty_like(x)
    assert ga.relu(x, out=out) is out
    assert_same("relu out=", out, want)
    # in place under autograd, on a non-leaf
    dy = torch.randn(N, device=DEV)
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    ha, hb = xa * 1.0, xb * 1.0
    ya = ga.leaky_relu(ha, 0.1, inplace=True)
    yb = F.leaky_relu(hb, 0.1, inplace=True)
    assert ya is ha
    assert_same("leaky inplace forward", ya, yb, True)
    ya.backward(dy)
    yb.backward(dy)
    assert_same("leaky inplace backward", xa.grad, xb.grad, True)
    # in place under autograd for a kind without the mask (silu): the backward reads a copy of x; the same
    # bits as out of place
    for fn in (lambda t, ip: ga.silu(t, ip), lambda t, ip: ga.squared_relu(t, ip)):
        xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
        ha = xa * 1.0
        ya, yb = fn(ha, True), fn(xb * 1.0, False)
        assert ya is ha
        assert_same("in place (no mask) forward", ya, yb)
        ya.backward(dy)
        yb.backward(dy)
        assert_same("in place (no mask) backward", xa.grad, xb.grad)
    with pytest.raises(gpuact.InvalidArgument, match="out= does not support autograd"):
        ga.relu(x.clone().requires_grad_(), out=torch.empty_like(x))
    with pytest.raises(gpuact.InvalidArgument, match="overlaps"):
        ga.relu(x[1:], out=x[:-1])


def test_layouts():
    """channels_last stays channels_last (no copy); other strided inputs are copied; results equal torch's."""
    x = special(torch.float16, 2 * 8 * 15 * 17, 8).view(2, 8, 15, 17).to(memory_format=torch.channels_last)
    y = ga.relu6(x)
    assert y.is_contiguous(memory_format=torch.channels_last)
    assert_same("relu6 channels_last", y, F.relu6(x))
    xt = special(torch.float32, 64 * 33, 9).view(64, 33).t()
    assert_same("relu on a transposed input", ga.relu(xt), torch.relu(xt))
    dy = torch.randn(2, 8, 15, 17, device=DEV, dtype=torch.float16)  # contiguous dy, channels_last x
    xg, xr = x.clone().requires_grad_(), x.clone().requires_grad_()
    ga.relu6(xg).backward(dy)
    F.relu6(xr).backward(dy)
    assert_same("relu6 channels_last backward", xg.grad, xr.grad, keeps_payload_of=dy)
    xs = special(torch.float32, 4 * 100, 10).view(4, 100)[:, ::2]  # strided: copied
    assert_same("leaky on a strided view", ga.leaky_relu(xs, 0.3), F.leaky_relu(xs, 0.3), True)
    assert ga.relu(torch.empty(0, 5, device=DEV)).shape == (0, 5)


# ---- the epilogue -------------------------------------------------------------------------

def epilogue_ref(x, b, kind, param, scale, ydt):
    """torch in f32 with one rounding at the end (docs/NUMERICS.md "Epilogue"); returns (y, passes)
    (passes: None for squared ReLU, which has no mask)."""
    z = x.float() + b.float() if b is not None else x.float()
    p = None
    if kind == "relu":
        a, p = torch.relu(z), ~(z <= 0)
    elif kind == "leaky":
        a, p = F.leaky_relu(z, f32(param)), z > 0
    elif kind == "hardtanh":  # the epilogue keeps the bounds in f32
        lo, c = f32(param[0]), f32(param[1])
        a, p = F.hardtanh(z, lo, c), ~((z <= lo) | (z >= c))
    elif kind == "sqrelu":
        a = torch.relu(z) ** 2
    else:
        a, p = F.hardtanh(z, 0.0, f32(param)), ~((z <= 0) | (z >= f32(param)))
    if f32(scale) != 1.0:
        a = a * torch.tensor(f32(scale), device=DEV)
    return a.to(ydt), p


EPI = [  # (x dtype, bias dtype, out dtype)
    ("f32", "f32", None), ("bf16", "bf16", None), ("f16", "f16", None), ("bf16", "f32", None), ("f16", "f16", "f32"),
]
KINDS = [("relu", None), ("leaky_relu", 0.01), ("clipped_relu", 6.0), ("hardtanh", (-2.0, 2.0)), ("squared_relu", None),
         ("gelu", None), ("gelu_tanh", None), ("silu", None)]
SHORT = {"relu": "relu", "leaky_relu": "leaky", "clipped_relu": "clipped", "hardtanh": "hardtanh",
         "squared_relu": "sqrelu", "gelu": "gelu", "gelu_tanh": "gelu_tanh", "silu": "silu"}
TORCH_SMOOTH = {"gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "silu": F.silu}


def _params(short, param):
    if short == "leaky":
        return {"negative_slope": param}
    if short == "clipped":
        return {"ceiling": param}
    if short == "hardtanh":
        return {"lower": param[0], "ceiling": param[1]}
    return {}


@pytest.mark.parametrize("xdt,bdt,ydt", EPI, ids=["-".join(str(v) for v in e) for e in EPI])
@pytest.mark.parametrize("kind,param", KINDS, ids=[k for k, _ in KINDS])
@pytest.mark.parametrize("scale", [1.0, 0.37, -1.5])
def test_bias_act_forward_and_backward(xdt, bdt, ydt, kind, param, scale):
    """y = act(x + bias) * scale and its backward with the bias gradient: the ReLU family, hardtanh and
    squared ReLU bit for bit against torch in f32 with one rounding; GELU and SiLU as check_smooth says
    (gpuact's f32 activation or derivative within 1 ulp of float64's, times scale or dy * scale, rounded
    once; torch's within one more ulp than elementwise, for that product's rounding)."""
    rows, cols = 67, 1001
    X, B = DTYPES[xdt], DTYPES[bdt]
    Y = DTYPES[ydt] if ydt else X
    x = special(X, rows * cols, 11).view(rows, cols)
    b = special(B, cols, 12, 1.0)
    short = SHORT[kind]
    kw = _params(short, param)
    sc = torch.tensor(f32(scale), device=DEV)
    z = x.float() + b.float()
    what = f"bias_act {kind} scale={scale} x={xdt} b={bdt} y={ydt or xdt}"
    y = ga.bias_act(x, b, kind, scale, out_dtype=Y if ydt else None, **kw)
    if short in SMOOTH:  # against torch: one more ulp than elementwise for the product with scale
        check_smooth(what, y, (TORCH_SMOOTH[short](z) * sc).to(Y), smooth_ref64(short, z)[0], Y, sc,
                     TORCH_ULPS[Y] + 1, inputs=[("x", x), ("b", b.expand(rows, cols))])
    else:
        yref, p = epilogue_ref(x, b, short, param, scale, Y)
        assert_same(what, y, yref, True, inputs=[("x", x), ("b", b.expand(rows, cols))])
    # backward: dy has y's dtype, dx x's, dbias the bias's
    g = torch.Generator(device=DEV).manual_seed(13)
    dy = torch.randn(rows, cols, device=DEV, generator=g).to(Y)
    xg, bg = x.clone().requires_grad_(), b.clone().requires_grad_()
    ga.bias_act(xg, bg, kind, scale, out_dtype=Y if ydt else None, **kw).backward(dy)
    gs = dy.float() * sc if f32(scale) != 1.0 else dy.float()
    if short in SMOOTH:
        zt = z.clone().requires_grad_()
        TORCH_SMOOTH[short](zt).backward(gs)
        check_smooth(f"{what} backward dx", xg.grad, zt.grad.to(X), smooth_ref64(short, z)[1], X, gs,
                     TORCH_ULPS[X] + 1, inputs=[("dy", dy), ("x", x)], deriv=True)
    else:
        if short == "sqrelu":  # dx = (dy * scale) * 2z, +0 where z <= 0 by selection (threshold_backward)
            dref = torch.where(z <= 0, torch.zeros_like(z), gs * (z + z)).to(X)
        else:
            other = gs * torch.tensor(f32(param), device=DEV) if short == "leaky" else torch.zeros_like(gs)
            dref = torch.where(p, gs, other).to(X)
        assert_same(f"{what} backward dx", xg.grad, dref, True, inputs=[("dy", dy), ("x", x)])
    assert bg.grad.dtype == B
    want = xg.grad.double().sum(0)  # the column sums of the dx written (checked above)
    tol = 1e-5 * xg.grad.double().abs().sum(0) + (1e-30 if bdt == "f32" else 0)
    if bdt != "f32":  # the bias gradient is rounded once to the bias's dtype
        tol = tol + want.abs() * (2.0 ** -8 if bdt == "bf16" else 2.0 ** -11)
    err = (bg.grad.double() - want).abs()
    ok = (err <= tol) | (want.isnan() & bg.grad.isnan()) | (want.isinf() & (bg.grad.double() == want))
    assert bool(ok.all()), f"dbias: worst column {int((~ok).nonzero()[0])}: {bg.grad[(~ok).nonzero()[0]].item()!r} " \
                           f"against the f64 sum {want[(~ok).nonzero()[0]].item()!r}"
    first = bg.grad.clone()
    bg.grad = None
    ga.bias_act(xg, bg, kind, scale, out_dtype=Y if ydt else None, **kw).backward(dy)
    assert_same("dbias run to run", bg.grad, first)


def test_bias_act_row_stride_and_shapes():
    base = special(torch.float32, 40 * 96, 14).view(40, 96)
    x = base[:, :80]  # a column slice: unit column stride, row stride 96 (used through ld, no copy)
    b = torch.randn(80, device=DEV)
    assert_same("bias_act on a column slice", ga.bias_act(x, b), torch.relu(x + b), True)
    x3 = special(torch.float32, 2 * 5 * 80, 15).view(2, 5, 80)
    assert_same("bias_act 3-D", ga.bias_act(x3, b, scale=2.0), (torch.relu(x3 + b) * 2.0), True)
    xt = special(torch.float32, 80 * 40, 16).view(80, 40).t()  # not row-major: copied
    assert_same("bias_act transposed", ga.bias_act(xt, b), torch.relu(xt + b), True)
    assert_same("bias_act without bias", ga.bias_act(x3, None, "relu6"), F.relu6(x3))
    xg = torch.randn(0, 80, device=DEV, requires_grad=True)
    bg = torch.randn(80, device=DEV, requires_grad=True)
    ga.bias_act(xg, bg).sum().backward()
    assert bg.grad.abs().sum().item() == 0.0  # the sum over no rows


def test_linear_module():
    torch.manual_seed(17)
    ref = torch.nn.Linear(300, 200).cuda()
    m = ga.nn.Linear(300, 200).cuda()
    m.load_state_dict(ref.state_dict())
    assert set(m.state_dict()) == {"weight", "bias"}
    torch.manual_seed(18)
    fresh_ref = torch.nn.Linear(30, 20)
    torch.manual_seed(18)
    fresh = ga.nn.Linear(30, 20)  # the same initialisation as torch.nn.Linear
    assert torch.equal(fresh.weight, fresh_ref.weight) and torch.equal(fresh.bias, fresh_ref.bias)
    x = torch.randn(64, 300, device=DEV)
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    ya = m(xa)
    yb = torch.relu(ref(xb))
    torch.testing.assert_close(ya, yb, rtol=1e-5, atol=1e-5)
    dy = torch.randn_like(ya)
    ya.backward(dy)
    yb.backward(dy)
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(m.weight.grad, ref.weight.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(m.bias.grad, ref.bias.grad, rtol=1e-4, atol=1e-5)
    conv = ga.nn.Linear.from_linear(ref, "relu", scale=0.25)
    assert conv.weight is ref.weight and conv.bias is ref.bias
    torch.testing.assert_close(conv(x), torch.relu(ref(x)) / 4, rtol=1e-5, atol=1e-5)
    seq = torch.nn.Sequential(ga.nn.Linear(300, 200), ga.nn.ReLU(), ga.nn.LeakyReLU(0.2), ga.nn.ReLU6(),
                              ga.nn.Activation("clipped_relu", ceiling=2.0)).cuda()
    out = seq(x)
    assert out.shape == (64, 200) and float(out.max()) <= 2.0
    assert "activation='relu'" in repr(seq[0])
    # the smooth kinds: Linear + GELU / SiLU against torch's modules (torch's own math: close, not equal)
    for act, tmod in (("gelu", torch.nn.GELU()), ("gelu_tanh", torch.nn.GELU("tanh")), ("silu", torch.nn.SiLU()),
                      ("hardtanh", torch.nn.Hardtanh())):
        m = ga.nn.Linear(300, 200, activation=act).cuda()
        m.load_state_dict(ref.state_dict())
        xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
        ya, yb = m(xa), tmod(ref(xb))
        torch.testing.assert_close(ya, yb, rtol=1e-5, atol=1e-5)
        ya.backward(dy)
        ref.zero_grad()
        yb.backward(dy)
        torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(m.bias.grad, ref.bias.grad, rtol=1e-4, atol=1e-5)
    xs = special(torch.float32, 4096, 23)
    for mine, theirs in ((ga.nn.Hardtanh(-0.5, 2.0), torch.nn.Hardtanh(-0.5, 2.0)),):
        assert_same(repr(mine), mine(xs), theirs(xs))
    for mine, kind in ((ga.nn.GELU(), "gelu"), (ga.nn.GELU("tanh"), "gelu_tanh"), (ga.nn.SiLU(), "silu")):
        assert bool(admissible(mine(xs), smooth_ref64(kind, xs)[0], torch.float32).all()), repr(mine)


# ---- torch.compile, CUDA graphs, opcheck ---------------------------------------------------------------

def _recorder(targets):
    def backend(gm, example_inputs):
        targets.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return gm.forward
    return backend


COMPILED = [  # (name, function, the op its graph must hold, bit-exact against eager gpuact)
    ("relu", lambda x, b: ga.relu(x), "act", True),
    ("leaky", lambda x, b: ga.leaky_relu(x, 0.2), "act", True),
    ("relu6", lambda x, b: ga.relu6(x), "act", True),
    ("activation", lambda x, b: ga.activation(x, "clipped_relu", ceiling=3.0), "act", True),
    ("bias_act", lambda x, b: ga.bias_act(x, b, "leaky_relu", 0.5, negative_slope=0.1), "bias_act", True),
    ("chain", lambda x, b: ga.relu(ga.bias_act(x * 2, b) - 1.0) / 3, "bias_act", False),
    ("hardtanh", lambda x, b: ga.hardtanh(x, -0.5, 1.5), "act", True),
    ("gelu", lambda x, b: ga.gelu(x), "act", True),
    ("gelu_tanh", lambda x, b: ga.gelu(x, approximate="tanh"), "act", True),
    ("silu", lambda x, b: ga.silu(x), "act", True),
    ("squared_relu", lambda x, b: ga.squared_relu(x), "act", True),
    ("bias_act_gelu", lambda x, b: ga.bias_act(x, b, "gelu", 0.5), "bias_act", True),
    ("bias_act_silu", lambda x, b: ga.bias_act(x, b, "silu", -2.0), "bias_act", True),
    ("bias_act_hardtanh", lambda x, b: ga.bias_act(x, b, "hardtanh", lower=-1.0, ceiling=0.5), "bias_act",
     True),
]


@pytest.mark.parametrize("case", COMPILED, ids=[c[0] for c in COMPILED])
def test_compile_fullgraph(case):
    name, fn, op, exact = case
    torch.compiler.reset()
    x = torch.randn(33, 130, device=DEV)
    b = torch.randn(130, device=DEV)
    targets = []
    with torch.no_grad():
        eager = fn(x, b)
        traced = torch.compile(fn, fullgraph=True, backend=_recorder(targets))(x, b)
    assert any(t.startswith(f"gpuact.{op}.") for t in targets), f"{name}: no gpuact.{op} node in the graph: {targets}"
    assert_same(f"{name} compiled (recording backend)", traced, eager)
    for dynamic in (False, True):
        torch.compiler.reset()
        xa, ba = x.clone().requires_grad_(), b.clone().requires_grad_()
        xe, be = x.clone().requires_grad_(), b.clone().requires_grad_()
        yc = torch.compile(fn, fullgraph=True, dynamic=dynamic)(xa, ba)
        ye = fn(xe, be)
        dy = torch.randn_like(ye)
        yc.backward(dy)
        ye.backward(dy)
        if exact:  # the same kernels on the same data
            assert_same(f"{name} inductor dynamic={dynamic} forward", yc, ye)
            assert_same(f"{name} inductor dynamic={dynamic} dx", xa.grad, xe.grad)
        else:  # inductor fuses torch's own arithmetic around them its way
            torch.testing.assert_close(yc, ye, rtol=1e-6, atol=1e-6)
            torch.testing.assert_close(xa.grad, xe.grad, rtol=1e-6, atol=1e-6)
        if be.grad is not None:
            torch.testing.assert_close(ba.grad, be.grad, rtol=1e-5, atol=1e-6)


def test_compile_inplace_out_and_modules():
    torch.compiler.reset()
    x = torch.randn(1000, device=DEV)

    def inplace(t):
        t = t * 1.0
        ga.relu(t, inplace=True)
        return t + 1

    def with_out(t):
        o = torch.empty_like(t)
        ga.leaky_relu(t, 0.1, out=o)
        return o * 2

    with torch.no_grad():
        assert_same("compiled inplace", torch.compile(inplace, fullgraph=True)(x), torch.relu(x) + 1)
        assert_same("compiled out=", torch.compile(with_out, fullgraph=True)(x), F.leaky_relu(x, 0.1) * 2, True)
    xg, xr = x.clone().requires_grad_(), x.clone().requires_grad_()
    y = torch.compile(inplace, fullgraph=True)(xg)
    y.sum().backward()
    (torch.relu(xr) + 1).sum().backward()
    assert_same("compiled inplace backward", xg.grad, xr.grad)
    torch.manual_seed(19)
    model = torch.nn.Sequential(ga.nn.Linear(64, 128), ga.nn.Linear(128, 32, activation="leaky_relu",
                                                                     negative_slope=0.1)).cuda()
    xm = torch.randn(16, 64, device=DEV)
    ye = model(xm)
    yc = torch.compile(model, fullgraph=True)(xm)
    torch.testing.assert_close(yc, ye, rtol=1e-5, atol=1e-5)


def _warm_graph_capture(step, warmups=3):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmups):
            step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = step()
    return g, out


def test_cuda_graph_capture_and_replay():
    """A training step (Linear epilogue with the bias gradient, an elementwise op, their backwards)
    captured after a warm-up and replayed on new data, against the same step in eager mode."""
    torch.manual_seed(20)
    model = ga.nn.Linear(256, 384).cuda()
    static_x = torch.randn(48, 256, device=DEV)

    def step():
        for p in model.parameters():
            p.grad = None
        h = ga.leaky_relu(model(static_x) - 0.5, 0.1)
        loss = (h * h).sum()
        loss.backward()
        return h

    g, static_h = _warm_graph_capture(step)
    new_x = torch.randn(48, 256, device=DEV)
    static_x.copy_(new_x)
    g.replay()
    torch.cuda.synchronize()
    graph_h = static_h.clone()
    graph_grads = [p.grad.clone() for p in model.parameters()]
    eager_h = step()  # eager, same data (static_x holds new_x)
    torch.testing.assert_close(graph_h, eager_h, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(graph_grads[0], model.weight.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(graph_grads[1], model.bias.grad, rtol=1e-5, atol=1e-5)
    # the bias gradient in eager mode still runs gpuact's own pass afterwards (its workspace pool untouched)
    xg = torch.randn(64, 384, device=DEV, requires_grad=True)
    bg = torch.randn(384, device=DEV, requires_grad=True)
    ga.bias_act(xg, bg).sum().backward()
    torch.cuda.synchronize()
    torch.testing.assert_close(bg.grad, (xg + bg > 0).float().sum(0), rtol=0, atol=0)


def test_cuda_graph_capture_smooth_epilogue():
    """The smooth kinds' epilogue backward from x under capture (the bias gradient summed by torch
    there, the backward kernel without it built before the capture by the warm-up)."""
    torch.manual_seed(24)
    model = torch.nn.Sequential(ga.nn.Linear(128, 256, activation="gelu"),
                                ga.nn.Linear(256, 64, activation="silu")).cuda()
    static_x = torch.randn(32, 128, device=DEV)

    def step():
        for p in model.parameters():
            p.grad = None
        h = model(static_x)
        h.square().sum().backward()
        return h

    g, static_h = _warm_graph_capture(step)
    static_x.copy_(torch.randn(32, 128, device=DEV))
    g.replay()
    torch.cuda.synchronize()
    graph_h = static_h.clone()
    graph_grads = [p.grad.clone() for p in model.parameters()]
    eager_h = step()
    torch.testing.assert_close(graph_h, eager_h, rtol=1e-6, atol=1e-6)
    for gg, p in zip(graph_grads, model.parameters()):
        torch.testing.assert_close(gg, p.grad, rtol=1e-5, atol=1e-5)


def test_compile_reduce_overhead_training():
    torch.compiler.reset()
    torch.manual_seed(21)
    model = torch.nn.Sequential(ga.nn.Linear(128, 256), ga.nn.Linear(256, 64, activation="relu6")).cuda()
    ref = torch.nn.Sequential(ga.nn.Linear(128, 256), ga.nn.Linear(256, 64, activation="relu6")).cuda()
    ref.load_state_dict(model.state_dict())
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True)
    for i in range(4):
        x = torch.randn(32, 128, device=DEV)
        for p in list(model.parameters()) + list(ref.parameters()):
            p.grad = None
        compiled(x).square().sum().backward()
        ref(x).square().sum().backward()
        for (n, p), q in zip(model.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg=f"step {i}: {n}.grad")


def test_opcheck():
    kp = ga.functional._kp("leaky", {"negative_slope": 0.1})
    kind, params = kp[0], list(kp[1])
    x = torch.randn(3, 100, device=DEV, requires_grad=True)
    b = torch.randn(100, device=DEV, requires_grad=True)
    for with_mask in (True, False):
        torch.library.opcheck(torch.ops.gpuact.act_fwd.default, (x, kind, params, with_mask))
        torch.library.opcheck(torch.ops.gpuact.bias_act_fwd.default, (x, b, kind, params, 0.5, None, True))
    xd = x.detach()
    _, mask = torch.ops.gpuact.act_fwd(xd, kind, params, True)
    dy = torch.randn(3, 100, device=DEV, requires_grad=True)
    torch.library.opcheck(torch.ops.gpuact.act_bwd.default, (dy, None, mask, kind, params))
    torch.library.opcheck(torch.ops.gpuact.act_bwd.default, (dy, xd, None, kind, params))
    torch.library.opcheck(torch.ops.gpuact.act_inplace.default, (xd.clone(), kind, params))
    torch.library.opcheck(torch.ops.gpuact.act_into.default, (xd, torch.empty_like(xd), kind, params))
    _, emask = torch.ops.gpuact.bias_act_fwd(xd, b.detach(), kind, params, 0.5, None, True)
    torch.library.opcheck(torch.ops.gpuact.bias_act_bwd.default,
                          (dy.detach(), emask, kind, params, 0.5, torch.float32, torch.float32))
    cl = torch.randn(2, 4, 5, 6, device=DEV).to(memory_format=torch.channels_last)
    torch.library.opcheck(torch.ops.gpuact.act_fwd.default, (cl, kind, params, True))
    # a smooth kind: no mask; the epilogue's backward from x and the bias
    gk = ga.functional._kp("gelu", {})
    gkind, gparams = gk[0], list(gk[1])
    torch.library.opcheck(torch.ops.gpuact.act_fwd.default, (x, gkind, gparams, False))
    torch.library.opcheck(torch.ops.gpuact.bias_act_fwd.default, (x, b, gkind, gparams, 0.5, None, False))
    # a smooth kind's backward has no backward of its own (gpuact.torch raises NotSupported for a double
    # backward of GELU/SiLU), so the AOT-dispatch test, which differentiates it, is left out
    torch.library.opcheck(torch.ops.gpuact.act_bwd.default, (dy, xd, None, gkind, gparams),
                          test_utils=("test_schema", "test_autograd_registration", "test_faketensor"))
    no_aot = ("test_schema", "test_autograd_registration", "test_faketensor")  # as above: no double backward
    torch.library.opcheck(torch.ops.gpuact.bias_act_bwd_x.default,
                          (dy.detach(), xd, b.detach(), gkind, gparams, 0.5, torch.float32), test_utils=no_aot)
    torch.library.opcheck(torch.ops.gpuact.bias_act_bwd_x.default,
                          (dy.detach(), xd, None, gkind, gparams, 0.5, None), test_utils=no_aot)


# ---- errors ---------------------------------------------------------------------------------------------

def test_errors():
    x = torch.randn(4, 8, device=DEV)
    with pytest.raises(gpuact.InvalidArgument, match="is on cpu"):
        ga.relu(torch.randn(4))
    with pytest.raises(gpuact.InvalidArgument, match="float64"):
        ga.relu(torch.randn(4, device=DEV, dtype=torch.float64))
    with pytest.raises(gpuact.InvalidArgument, match="must be \\(8,\\)"):
        ga.bias_act(x, torch.randn(7, device=DEV))
    with pytest.raises(gpuact.InvalidArgument, match="same device|is on cpu"):
        ga.bias_act(x, torch.randn(8))
    if torch.cuda.device_count() > 1:
        with pytest.raises(gpuact.InvalidArgument, match="same device"):
            ga.bias_act(x, torch.randn(8, device="cuda:1"))
    with pytest.raises(gpuact.InvalidArgument, match="out has shape"):
        ga.relu(x, out=torch.empty(5, device=DEV))
    with pytest.raises(gpuact.InvalidArgument, match="scale = 0"):
        ga.bias_act(x, None, "relu", 0.0)
    with pytest.raises(gpuact.InvalidArgument, match="not one of"):
        ga.activation(x, "gelu-ish")
    with pytest.raises(gpuact.InvalidArgument, match="unknown"):
        ga.activation(x, "relu", slope=1.0)
    with pytest.raises(gpuact.InvalidArgument, match="negative_slope"):  # from the C library, with its text
        ga.leaky_relu(x, -1.0)
    with pytest.raises(gpuact.InvalidArgument, match="inplace=True or out="):
        ga.relu(x, True, out=torch.empty_like(x))
    with pytest.raises(gpuact.InvalidArgument):
        ga.nn.Linear(4, 4, activation="nope")
    with pytest.raises(gpuact.InvalidArgument, match="'none' or 'tanh'"):
        ga.gelu(x, approximate="erf")
    with pytest.raises(gpuact.InvalidArgument, match="lower <= ceiling"):  # the C library's check
        ga.hardtanh(x, 2.0, 1.0)
    e = None
    try:
        ga.clipped_relu(x, -2.0)
    except gpuact.GpuactError as err:
        e = err
    assert e is not None and e.result == 1 and "gpuact_forward failed: GPUACT_ERROR_INVALID_ARGUMENT" in str(e)


def test_streams_and_devices():
    s = torch.cuda.Stream()
    x = special(torch.float32, N, 22)
    with torch.cuda.stream(s):
        y = ga.relu(x)
    s.synchronize()
    assert_same("relu on a side stream", y, torch.relu(x))
    if torch.cuda.device_count() > 1:
        x1 = x.to("cuda:1")
        assert_same("relu on cuda:1", ga.relu(x1).cpu(), torch.relu(x).cpu())
    info = gpuact.context_info("cuda", 0)
    assert info["device_name"]
    assert info["stream"] == 0  # the context's default stream is the legacy default stream, as torch's


def test_host_time_is_reasonable():
    """Not a benchmark (bench/bench_torch.py is): catches a slow path, e.g. the dispatcher on every call."""
    import time
    x = torch.randn(1024, device=DEV)
    for _ in range(100):
        ga.relu(x)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(2000):
        ga.relu(x)
    per_call = (time.perf_counter() - t) / 2000
    torch.cuda.synchronize()
    assert per_call < 100e-6, f"gpuact.torch.relu took {per_call * 1e6:.1f} us per call on the host"



def test_readme_example():
    """The example of the README's "Python" section runs as written."""
    import re
    from conftest import repo_file
    text = repo_file("README.md")
    section = text[text.index("## Python"):text.index("## Integrate")]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md (Python example)", "exec"), {})
