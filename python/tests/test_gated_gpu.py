"""The gated forms (swiglu, geglu, reglu) and nn.GatedMLP on a CUDA device: forward and backward
against a float64 evaluation of the same inputs, the fused form against the two-input form bit for bit,
the module against the three-Linear FFN it replaces, torch.compile(fullgraph=True) against eager bit for
bit, and autocast: dtypes, gradients, and peak memory no higher than torch's for the same block (no
float32 tokens x hidden tensor). Also bias_act / nn.Linear under autocast: the bias in the autocast
dtype, its gradient accumulated in float32 and returned in float32, peak memory <= torch's."""
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to torch", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import gpuact.torch as ga  # noqa: E402

DEV = "cuda"
KINDS = {
    "silu": (lambda a, b, **k: ga.swiglu(a, b, **k), F.silu),
    "gelu": (lambda a, b, **k: ga.geglu(a, b, **k), F.gelu),
    "gelu_tanh": (lambda a, b, **k: ga.geglu(a, b, approximate="tanh", **k), lambda z: F.gelu(z, approximate="tanh")),
    "relu": (lambda a, b, **k: ga.reglu(a, b, **k), F.relu),
}
# a value computed in f32 and rounded once: within 1 ulp of the dtype (f32: a few ulps of f32 math)
RTOL = {torch.float32: 2e-5, torch.bfloat16: 2 ** -7, torch.float16: 2 ** -10}


def rand(*shape, dtype=torch.float32, seed=0, scale=2.0):
    g = torch.Generator(device=DEV).manual_seed(seed)
    return (torch.randn(*shape, device=DEV, generator=g) * scale).to(dtype)


def reference(kind, a, b, ba, bb, dy):
    """y and the gradients of (a, b, ba, bb) in float64, from the inputs as gpuact reads them (the biases
    rounded to the inputs' dtype)."""
    act = KINDS[kind][1]
    a64, b64 = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
    ins = [a64, b64]
    za, zb = a64, b64
    if ba is not None:
        ba64 = ba.detach().to(a.dtype).double().requires_grad_()
        bb64 = bb.detach().to(a.dtype).double().requires_grad_()
        ins += [ba64, bb64]
        za, zb = a64 + ba64, b64 + bb64
    y = act(za) * zb
    grads = torch.autograd.grad(y, ins, dy.double())
    return y, grads


def assert_near(what, got, want, dtype, scale=None):
    want = want.to(torch.float64)
    tol = RTOL[dtype] * (want.abs() if scale is None else scale) + 1e-6
    err = (got.double() - want).abs()
    bad = err > tol
    assert not bad.any(), (f"{what}: {int(bad.sum())} of {bad.numel()} off; worst {float((err - tol).max())} "
                           f"at {int((err - tol).argmax())}")


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("with_bias", [False, True])
def test_gated_forward_backward(kind, dtype, with_bias):
    rows, cols = 300, 257
    h = rand(rows, 2 * cols, dtype=dtype, seed=1).requires_grad_()
    bias = rand(2 * cols, seed=2, scale=0.5).requires_grad_() if with_bias else None  # float32, as a parameter
    dy = rand(rows, cols, dtype=dtype, seed=3, scale=1.0)
    fn = KINDS[kind][0]
    y = fn(h, None, bias=bias)
    assert y.shape == (rows, cols) and y.dtype == dtype
    y.backward(dy)
    a, b = h.detach()[:, :cols], h.detach()[:, cols:]
    ba, bb = (bias.detach()[:cols], bias.detach()[cols:]) if with_bias else (None, None)
    yr, grads = reference(kind, a, b, ba, bb, dy)
    assert_near("y", y, yr, dtype)
    assert_near("da", h.grad[:, :cols], grads[0], dtype)
    assert_near("db", h.grad[:, cols:], grads[1], dtype)
    if with_bias:
        assert bias.grad.dtype == torch.float32
        for half, g, d in ((slice(0, cols), grads[2], grads[0]), (slice(cols, 2 * cols), grads[3], grads[1])):
            # column sums of the rounded da / db, accumulated in f32: within their rounding, summed
            assert_near("dbias", bias.grad[half], g, dtype, scale=d.abs().sum(0) + 1e-3)
    # the two-input form gives the same bits
    a2, b2 = a.clone().requires_grad_(), b.clone().requires_grad_()
    ba2 = ba.clone().requires_grad_() if with_bias else None
    bb2 = bb.clone().requires_grad_() if with_bias else None
    y2 = fn(a2, b2, bias_a=ba2, bias_b=bb2)
    y2.backward(dy)
    assert torch.equal(y2, y)
    assert torch.equal(a2.grad, h.grad[:, :cols]) and torch.equal(b2.grad, h.grad[:, cols:])
    if with_bias:
        assert torch.equal(torch.cat([ba2.grad, bb2.grad]), bias.grad)


def test_gated_views_and_batches():
    """A 3-D fused input, a column slice of a wider matrix (used in place through ld) and a transposed
    (copied) input give the contiguous input's results."""
    h = rand(4, 33, 2 * 40, seed=5)
    want = ga.swiglu(h.contiguous())
    assert torch.equal(ga.swiglu(h), want)
    wide = rand(132, 2 * 40 + 16, seed=6)
    assert torch.equal(ga.swiglu(wide[:, 8:8 + 80]), ga.swiglu(wide[:, 8:8 + 80].contiguous()))
    a, b = rand(40, 50, seed=7).t(), rand(40, 50, seed=8).t()
    assert torch.equal(ga.geglu(a, b), ga.geglu(a.contiguous(), b.contiguous()))
    empty = torch.empty(0, 16, device=DEV, requires_grad=True)
    bias = torch.zeros(16, device=DEV, requires_grad=True)
    ga.swiglu(empty, bias=bias).sum().backward()
    assert empty.grad.shape == (0, 16) and torch.equal(bias.grad, torch.zeros(16, device=DEV))


@pytest.mark.parametrize("kind", ["silu", "gelu_tanh"])
def test_gated_compiled_is_eager_bit_for_bit(kind):
    fn = KINDS[kind][0]
    h = rand(64, 2 * 96, dtype=torch.bfloat16, seed=9).requires_grad_()
    bias = rand(2 * 96, seed=10, scale=0.3).requires_grad_()
    f = torch.compile(lambda h, bias: fn(h, None, bias=bias), fullgraph=True)
    y = f(h, bias)
    y.float().square().sum().backward()
    gh, gb = h.grad.clone(), bias.grad.clone()
    h.grad = bias.grad = None
    y2 = fn(h, None, bias=bias)
    y2.float().square().sum().backward()
    assert torch.equal(y, y2) and torch.equal(h.grad, gh) and torch.equal(bias.grad, gb)


class ThreeLinearFFN(torch.nn.Module):
    """The plain-torch LLaMA FFN: w2(act(w1(x)) * w3(x))."""

    def __init__(self, dim, hidden, act, bias=False):
        super().__init__()
        self.w1 = torch.nn.Linear(dim, hidden, bias=bias)
        self.w3 = torch.nn.Linear(dim, hidden, bias=bias)
        self.w2 = torch.nn.Linear(hidden, dim, bias=bias)
        self.act = act

    def forward(self, x):
        return self.w2(self.act(self.w1(x)) * self.w3(x))


@pytest.mark.parametrize("activation", ["silu", "gelu", "gelu_tanh"])
@pytest.mark.parametrize("bias", [False, True])
def test_gated_mlp_matches_the_three_linear_ffn(activation, bias):
    torch.manual_seed(0)
    ref = ThreeLinearFFN(256, 688, KINDS[activation][1], bias=bias).to(DEV)
    m = ga.nn.GatedMLP(256, 688, activation, bias=bias).to(DEV)
    m.load_state_dict(ref.state_dict())
    x = rand(2, 50, 256, seed=11, scale=1.0).requires_grad_()
    x2 = x.detach().clone().requires_grad_()
    y, yr = m(x), ref(x2)
    torch.testing.assert_close(y, yr, rtol=1e-4, atol=1e-5)
    dy = rand(2, 50, 256, seed=12, scale=1.0)
    y.backward(dy)
    yr.backward(dy)
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(m.up.weight.grad[:688], ref.w1.weight.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(m.up.weight.grad[688:], ref.w3.weight.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(m.down.weight.grad, ref.w2.weight.grad, rtol=1e-4, atol=1e-4)
    if bias:
        torch.testing.assert_close(m.up.bias.grad, torch.cat([ref.w1.bias.grad, ref.w3.bias.grad]), rtol=1e-4,
                                   atol=1e-4)


def _peak(step):
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    step()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


@pytest.mark.parametrize("activation", ["silu", "gelu"])
def test_gated_mlp_under_autocast(activation):
    """bf16 autocast, float32 parameters: bf16 output, float32 gradients close to torch's, and a peak
    no higher than the three-Linear FFN's under the same autocast."""
    torch.manual_seed(1)
    tokens, dim, hidden = 4096, 1024, 2816
    ref = ThreeLinearFFN(dim, hidden, KINDS[activation][1], bias=True).to(DEV)
    m = ga.nn.GatedMLP(dim, hidden, activation, bias=True).to(DEV)
    m.load_state_dict(ref.state_dict())
    x = rand(tokens, dim, seed=13, scale=1.0)

    def step(model):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            y = model(x)
        assert y.dtype == torch.bfloat16
        y.float().square().mean().backward()

    step(m), step(ref)  # warm-up (kernel builds, cuBLAS workspaces)
    for p in list(m.parameters()) + list(ref.parameters()):
        p.grad = None
    peak_ga = _peak(lambda: step(m))
    grads_ga = [p.grad for p in m.parameters()]
    for p in m.parameters():
        p.grad = None
    peak_ref = _peak(lambda: step(ref))
    assert all(g.dtype == torch.float32 for g in grads_ga)
    assert peak_ga <= peak_ref, f"gpuact's block peaks at {peak_ga / 2**20:.1f} MiB, torch's {peak_ref / 2**20:.1f}"
    up_w, up_b, down_w, down_b = grads_ga
    scale = lambda g: float(g.abs().max())  # noqa: E731
    for got, want in ((up_w[:hidden], ref.w1.weight.grad), (up_w[hidden:], ref.w3.weight.grad),
                      (down_w, ref.w2.weight.grad), (up_b, torch.cat([ref.w1.bias.grad, ref.w3.bias.grad]))):
        assert float((got - want).abs().max()) <= 0.05 * scale(want)  # bf16 math on both sides


@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh", "silu"])
def test_linear_under_autocast_uses_the_bias_in_its_dtype(activation):
    """ga.nn.Linear under bf16 autocast: the epilogue runs in bf16 with the bias rounded to bf16 (torch's
    F.linear rule), the bias gradient comes back float32, results close to torch's Linear + activation,
    and the step's peak is no higher than torch's (no float32 tokens x out tensor)."""
    torch.manual_seed(2)
    tokens, fin, fout = 8192, 1024, 4096
    act = {"relu": F.relu, "gelu": F.gelu, "gelu_tanh": lambda z: F.gelu(z, approximate="tanh"),
           "silu": F.silu}[activation]
    lin = ga.nn.Linear(fin, fout, activation=activation).to(DEV)
    ref = torch.nn.Linear(fin, fout).to(DEV)
    ref.load_state_dict(lin.state_dict())
    x = rand(tokens, fin, seed=14, scale=1.0)

    def step(fn, model):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            y = fn(model, x)
        assert y.dtype == torch.bfloat16
        y.float().sum().backward()
        return y

    ours = lambda: step(lambda m, x: m(x), lin)  # noqa: E731
    theirs = lambda: step(lambda m, x: act(m(x)), ref)  # noqa: E731
    ours(), theirs()
    for p in list(lin.parameters()) + list(ref.parameters()):
        p.grad = None
    peak_ga = _peak(ours)
    peak_ref = _peak(theirs)
    assert peak_ga <= peak_ref, f"gpuact's step peaks at {peak_ga / 2**20:.1f} MiB, torch's {peak_ref / 2**20:.1f}"
    assert lin.bias.grad.dtype == torch.float32
    gb, gr = lin.bias.grad, ref.bias.grad
    assert float((gb - gr).abs().max()) <= 0.02 * float(gr.abs().max()) + 1e-3
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = lin(x)
        z = torch.nn.functional.linear(x, lin.weight)
    want = act(z.float() + lin.bias.to(torch.bfloat16).float())  # the bias rounded to bf16, as torch's autocast
    torch.testing.assert_close(y.float(), want, rtol=2 ** -7, atol=1e-5)
