"""The gated forms (swiglu, geglu, reglu, gated) and nn.GatedMLP where torch is installed, with or
without a GPU: the custom ops' schemas and fake implementations (meta tensors: shapes, dtypes,
autograd), torch.compile(fullgraph=True), the autocast rule, the argument errors, and GatedMLP's
state_dict mapping onto the three-Linear FFN (CPU tensors: no kernel runs)."""
import pytest

torch = pytest.importorskip("torch")

import gpuact  # noqa: E402
import gpuact.torch as ga  # noqa: E402


def meta(*shape, dtype=torch.float32, grad=True):
    return torch.empty(*shape, device="meta", dtype=dtype, requires_grad=grad)


def test_glu_ops_are_registered():
    fwd = str(torch.ops.gpuact.glu_fwd.default._schema)
    bwd = str(torch.ops.gpuact.glu_bwd.default._schema)
    assert fwd.startswith("gpuact::glu_fwd(Tensor a, Tensor? b, Tensor? bias_a, Tensor? bias_b, int kind)"), fwd
    assert "ScalarType? dbias_dtype" in bwd and bwd.count("Tensor") >= 9, bwd


FORMS = [("swiglu", lambda *a, **k: ga.swiglu(*a, **k)), ("geglu", lambda *a, **k: ga.geglu(*a, **k)),
         ("geglu_tanh", lambda *a, **k: ga.geglu(*a, approximate="tanh", **k)),
         ("reglu", lambda *a, **k: ga.reglu(*a, **k)), ("gated_silu", lambda *a, **k: ga.gated(*a, **k))]


@pytest.mark.parametrize("fn", [f for _, f in FORMS], ids=[n for n, _ in FORMS])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_fused_form_on_meta(fn, dtype):
    h = meta(4, 6, 2 * 24, dtype=dtype)
    bias = meta(2 * 24)  # a float32 bias of a 16-bit input: read in the input's dtype, gradient in float32
    y = fn(h, bias=bias)
    assert y.device.type == "meta" and y.shape == (4, 6, 24) and y.dtype == dtype
    y.sum().backward()
    assert h.grad.shape == h.shape and h.grad.dtype == dtype
    assert bias.grad.shape == bias.shape and bias.grad.dtype == torch.float32


@pytest.mark.parametrize("fn", [f for _, f in FORMS], ids=[n for n, _ in FORMS])
def test_two_input_form_on_meta(fn):
    a, b = meta(3, 5, 40, dtype=torch.bfloat16), meta(3, 5, 40, dtype=torch.bfloat16)
    ba, bb = meta(40), meta(40, dtype=torch.float16)
    y = fn(a, b, ba, bb)
    assert y.shape == a.shape and y.dtype == torch.bfloat16
    y.sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    assert ba.grad.dtype == torch.float32 and bb.grad.dtype == torch.float16  # each bias's own dtype
    # no biases, one input not requiring grad
    a2, b2 = meta(8, 16), meta(8, 16, grad=False)
    fn(a2, b2).sum().backward()
    assert a2.grad.shape == a2.shape and b2.grad is None


def test_fused_form_takes_bias_halves():
    h = meta(5, 2 * 8)
    ba, bb = meta(8), meta(8)
    ga.swiglu(h, bias_a=ba, bias_b=bb).sum().backward()
    assert ba.grad.shape == (8,) and bb.grad.shape == (8,)


def test_glu_fake_backward_shapes():
    a = meta(6, 10, grad=False)
    dy = meta(6, 5, grad=False)
    dh, empty, dbias, empty2 = torch.ops.gpuact.glu_bwd(dy, a, None, None, None, gpuact.KINDS["silu"].value,
                                                       torch.float32)
    assert dh.shape == (6, 10) and empty.numel() == 0 and dbias.shape == (10,) and empty2.numel() == 0
    b = meta(6, 5, grad=False)
    da, db, dba, dbb = torch.ops.gpuact.glu_bwd(dy, a[:, :5], b, None, None, gpuact.KINDS["relu"].value, None)
    assert da.shape == db.shape == (6, 5) and dba.numel() == 0 and dbb.numel() == 0


def test_glu_compiles_fullgraph_on_meta():
    f = torch.compile(lambda h, bias: ga.geglu(h, bias=bias, approximate="tanh") * 2.0, fullgraph=True)
    h, bias = meta(4, 32, dtype=torch.bfloat16), meta(32)
    y = f(h, bias)
    assert y.shape == (4, 16) and y.dtype == torch.bfloat16
    y.sum().backward()
    assert h.grad.shape == h.shape and bias.grad.dtype == torch.float32


def test_autocast_casts_inputs_and_reads_biases_in_its_dtype(monkeypatch):
    """Under autocast (the CUDA autocast state, simulated here: no GPU is needed to check the rule), float32
    inputs are cast to the autocast dtype and so is the output; the biases' gradients stay float32."""
    monkeypatch.setattr(ga.functional, "autocast_dtype", lambda: torch.bfloat16)
    a, b, ba, bb = meta(4, 8), meta(4, 8), meta(8), meta(8)
    y = ga.swiglu(a, b, ba, bb)
    assert y.dtype == torch.bfloat16
    y.float().sum().backward()
    assert a.grad.dtype == torch.float32 and ba.grad.dtype == torch.float32  # through the cast, as torch's
    x, bias = meta(4, 8), meta(8)
    y = ga.bias_act(x, bias, "gelu")
    assert y.dtype == torch.bfloat16
    y.float().sum().backward()
    assert x.grad.dtype == torch.float32 and bias.grad.dtype == torch.float32
    m = ga.nn.GatedMLP(8, 16, bias=True, device="meta")
    assert m(meta(2, 8)).dtype == torch.float32  # down is torch's Linear: autocast applies only on CUDA


def test_argument_errors():
    h = meta(4, 7)
    with pytest.raises(gpuact.InvalidArgument, match="even"):
        ga.swiglu(h)
    with pytest.raises(gpuact.InvalidArgument, match="must match"):
        ga.swiglu(meta(4, 8), meta(4, 6))
    with pytest.raises(gpuact.InvalidArgument, match="both"):
        ga.swiglu(meta(4, 8), meta(4, 8), meta(8), None)
    with pytest.raises(gpuact.InvalidArgument, match="both"):
        ga.swiglu(meta(4, 8), bias_a=meta(4))
    with pytest.raises(gpuact.InvalidArgument, match=r"\(8,\)"):
        ga.swiglu(meta(4, 8), bias=meta(6))
    with pytest.raises(gpuact.InvalidArgument, match="fused"):
        ga.swiglu(meta(4, 8), meta(4, 8), bias=meta(16))
    with pytest.raises(gpuact.InvalidArgument, match="does not gate"):
        ga.gated(meta(4, 8), activation="leaky_relu")
    with pytest.raises(gpuact.InvalidArgument, match="approximate"):
        ga.geglu(meta(4, 8), approximate="erf")
    with pytest.raises(gpuact.InvalidArgument, match="cpu"):
        ga.swiglu(torch.zeros(4, 8))
    with pytest.raises(ValueError):
        ga.nn.GatedMLP(8, 16, activation="hardtanh")


# ---- GatedMLP and the three-Linear FFN ------------------------------------------------------------

@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("keys", gpuact.torch.nn.FFN_KEYS)
def test_gated_mlp_loads_a_three_linear_state_dict(bias, keys):
    torch.manual_seed(0)
    dim, hidden = 6, 10
    gate, up, down = (torch.nn.Linear(dim, hidden, bias=bias), torch.nn.Linear(dim, hidden, bias=bias),
                      torch.nn.Linear(hidden, dim, bias=bias))
    ffn = torch.nn.Module()
    for name, layer in zip(keys, (gate, up, down)):
        setattr(ffn, name, layer)
    block = torch.nn.Module()
    block.mlp = ffn
    target = torch.nn.Module()
    target.mlp = ga.nn.GatedMLP(dim, hidden, bias=bias)
    target.load_state_dict(block.state_dict())  # strict: every key mapped, none left over
    m = target.mlp
    assert torch.equal(m.up.weight[:hidden], gate.weight) and torch.equal(m.up.weight[hidden:], up.weight)
    assert torch.equal(m.down.weight, down.weight)
    if bias:
        assert torch.equal(m.up.bias, torch.cat([gate.bias, up.bias]))
        assert torch.equal(m.down.bias, down.bias)
    assert sorted(m.state_dict()) == sorted(["up.weight", "down.weight"] + (["up.bias", "down.bias"] if bias else []))
    g2, u2, d2 = m.to_linears()
    for x, y in ((g2, gate), (u2, up), (d2, down)):
        assert torch.equal(x.weight, y.weight) and (not bias or torch.equal(x.bias, y.bias))
    m2 = ga.nn.GatedMLP.from_linears(gate, up, down, activation="gelu_tanh")
    assert m2.activation == "gelu_tanh" and torch.equal(m2.up.weight, m.up.weight)
    m3 = ga.nn.GatedMLP(dim, hidden, bias=bias)
    m3.load_state_dict(m.state_dict())  # its own layout loads too
    assert torch.equal(m3.up.weight, m.up.weight)


def test_gated_mlp_shapes_and_init():
    m = ga.nn.GatedMLP(64, 128, activation="gelu", bias=True, dtype=torch.bfloat16)
    assert m.up.weight.shape == (256, 64) and m.down.weight.shape == (64, 128) and m.up.weight.dtype == torch.bfloat16
    assert float(m.up.weight.abs().max()) <= 1 / 64 ** 0.5 + 1e-3  # torch.nn.Linear(64, ...)'s bound, as w1/w3's
    mm = ga.nn.GatedMLP(64, 128, device="meta")
    x = meta(3, 5, 64)
    y = mm(x)
    assert y.shape == (3, 5, 64)
    y.sum().backward()
    assert mm.up.weight.grad.shape == (256, 64) and x.grad.shape == x.shape
    with pytest.raises(ValueError, match="bias"):
        ga.nn.GatedMLP.from_linears(torch.nn.Linear(4, 8), torch.nn.Linear(4, 8, bias=False), torch.nn.Linear(8, 4))
