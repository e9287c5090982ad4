"""gpuact.torch where torch is installed, with or without a GPU: the custom
ops' registration and schemas, their fake (meta) implementations, autograd
and torch.compile(fullgraph=True) on meta tensors (shape inference: no data,
no device), and the refusal of CPU tensors."""
import pytest

torch = pytest.importorskip("torch")

import gpuact  # noqa: E402
import gpuact.torch as ga  # noqa: E402

OPS = ("act", "act_fwd", "act_bwd", "act_inplace", "act_into", "bias_act", "bias_act_fwd", "bias_act_bwd", "bias_act_bwd_x",
       "bias_act_bwd_x_", "bias_act_bwd_x_traced")


def test_custom_ops_are_registered():
    for name in OPS:
        op = getattr(torch.ops.gpuact, name).default
        schema = str(op._schema)
        assert schema.startswith(f"gpuact::{name}("), schema
        assert "float[] params" in schema, schema
    assert "Tensor(a" in str(torch.ops.gpuact.act_inplace.default._schema)
    assert "Tensor(a!) dy" in str(torch.ops.gpuact.bias_act_bwd_x_.default._schema)
    assert "ScalarType? out_dtype" in str(torch.ops.gpuact.bias_act_fwd.default._schema)


def test_meta_tensors_eager():
    x = torch.empty(6, 130, device="meta", dtype=torch.bfloat16)
    b = torch.empty(130, device="meta", dtype=torch.float32)
    for y in (ga.relu(x), ga.leaky_relu(x, 0.2), ga.relu6(x), ga.activation(x, "clipped_relu", ceiling=2.0)):
        assert y.device.type == "meta" and y.shape == x.shape and y.dtype == x.dtype
    y = ga.bias_act(x, b, "relu", 0.5, out_dtype=torch.float32)
    assert y.device.type == "meta" and y.shape == x.shape and y.dtype == torch.float32
    y, m = torch.ops.gpuact.act_fwd(x, 0, [0.0] * len(gpuact.ACT_PARAMS), True)
    assert m.shape == ((6 * 130 + 7) // 8,) and m.dtype == torch.uint8
    y, m = torch.ops.gpuact.bias_act_fwd(x, b, 0, [0.0] * len(gpuact.ACT_PARAMS), 1.0, None, True)
    assert m.shape == (6 * 136 // 8,)  # rows x (cols rounded up to 8) bits: every byte written
    cl = torch.empty(2, 3, 4, 5, device="meta").to(memory_format=torch.channels_last)
    assert ga.relu(cl).is_contiguous(memory_format=torch.channels_last)


def test_meta_tensors_autograd():
    x = torch.empty(6, 130, device="meta", requires_grad=True)
    b = torch.empty(130, device="meta", requires_grad=True)
    ga.bias_act(ga.leaky_relu(x, 0.1), b, "relu6").sum().backward()
    assert x.grad.shape == x.shape and x.grad.device.type == "meta"
    assert b.grad.shape == b.shape


NEW_FUNCTIONS = [
    ("hardtanh", lambda t: ga.hardtanh(t, -2.0, 2.0)),
    ("gelu", lambda t: ga.gelu(t)),
    ("gelu_tanh", lambda t: ga.gelu(t, approximate="tanh")),
    ("silu", lambda t: ga.silu(t)),
    ("squared_relu", lambda t: ga.squared_relu(t)),
    ("Hardtanh", ga.nn.Hardtanh(-0.5, 3.0)),
    ("GELU", ga.nn.GELU(approximate="tanh")),
    ("SiLU", ga.nn.SiLU()),
]


@pytest.mark.parametrize("fn", [f for _, f in NEW_FUNCTIONS], ids=[n for n, _ in NEW_FUNCTIONS])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_new_kinds_on_meta(fn, dtype):
    """hardtanh, GELU, SiLU, squared ReLU: shapes, dtypes and autograd through the custom ops' fake
    implementations."""
    x = torch.empty(6, 130, device="meta", dtype=dtype, requires_grad=True)
    y = fn(x)
    assert y.device.type == "meta" and y.shape == x.shape and y.dtype == dtype
    y.sum().backward()
    assert x.grad.shape == x.shape and x.grad.dtype == dtype


@pytest.mark.parametrize("kind", ["gelu", "gelu_tanh", "silu", "sqrelu", "hardtanh"])
@pytest.mark.parametrize("xdt,bdt", [(torch.float32, torch.float32), (torch.bfloat16, torch.float32),
                                     (torch.float16, torch.float16)])
def test_bias_act_new_kinds_on_meta(kind, xdt, bdt):
    """bias_act with every new kind under autograd: the smooth kinds' backward goes through
    bias_act_bwd_x (x and the bias saved, no mask), hardtanh's through bias_act_bwd (the mask)."""
    x = torch.empty(6, 130, device="meta", dtype=xdt, requires_grad=True)
    b = torch.empty(130, device="meta", dtype=bdt, requires_grad=True)
    y = ga.bias_act(x, b, kind, 0.5)
    assert y.dtype == xdt
    y.sum().backward()
    assert x.grad.shape == x.shape and x.grad.dtype == xdt
    assert b.grad.shape == b.shape and b.grad.dtype == bdt


def test_smooth_kinds_save_x_and_the_bias():
    kp = ga.functional._kp("gelu", {})
    x = torch.empty(4, 16, device="meta", requires_grad=True)
    b = torch.empty(16, device="meta", requires_grad=True)
    y, mask = torch.ops.gpuact.bias_act_fwd(x, b, kp[0], list(kp[1]), 1.0, None, False)
    assert mask.numel() == 0
    y.sum().backward()
    assert x.grad.shape == x.shape and b.grad.shape == b.shape
    dx, db = torch.ops.gpuact.bias_act_bwd_x(torch.empty(4, 16, device="meta"), x.detach(), b.detach(), kp[0],
                                             list(kp[1]), 0.5, torch.float32)
    assert dx.shape == x.shape and db.shape == (16,)
    dx, db = torch.ops.gpuact.bias_act_bwd_x(torch.empty(4, 16, device="meta"), x.detach(), None, kp[0],
                                             list(kp[1]), 0.5, None)
    assert db.numel() == 0
    relu = ga.functional._kp("relu", {})
    y, _ = torch.ops.gpuact.bias_act_fwd(x, b, relu[0], list(relu[1]), 1.0, None, False)
    with pytest.raises(gpuact.InvalidArgument, match="with_mask=False"):
        y.sum().backward()


def test_inplace_smooth_kinds_with_autograd_on_meta():
    """silu(inplace=True) on a non-leaf under autograd: the backward reads a copy of x, as torch's."""
    x = torch.empty(100, device="meta", requires_grad=True)
    h = x * 2.0
    assert ga.silu(h, inplace=True) is h
    h.sum().backward()
    assert x.grad.shape == x.shape
    h = x * 2.0
    assert ga.squared_relu(h, True) is h
    h.sum().backward()


def test_gelu_approximate_is_checked():
    x = torch.empty(4, device="meta")
    with pytest.raises(gpuact.InvalidArgument, match="'none' or 'tanh'"):
        ga.gelu(x, approximate="fast")
    with pytest.raises(gpuact.InvalidArgument, match="'none' or 'tanh'"):
        ga.nn.GELU("erf")
    with pytest.raises(ValueError, match="min_val"):
        ga.nn.Hardtanh(2.0, 1.0)


def _recorder(targets):
    def backend(gm, example_inputs):
        targets.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return gm.forward
    return backend


def _new_kinds_fn(x, b):
    h = ga.bias_act(x, b, "gelu", 0.5) + ga.bias_act(x, b, "hardtanh", lower=-2.0, ceiling=2.0)
    return ga.silu(h) + ga.gelu(h, approximate="tanh") + ga.squared_relu(h) + ga.hardtanh(h)


def test_compile_fullgraph_new_kinds_on_meta():
    torch.compiler.reset()
    x = torch.empty(8, 64, device="meta")
    b = torch.empty(64, device="meta")
    targets = []
    y = torch.compile(_new_kinds_fn, fullgraph=True, backend=_recorder(targets))(x, b)
    assert y.shape == (8, 64)
    assert sum("gpuact.bias_act.default" in t for t in targets) == 2, targets
    assert sum("gpuact.act.default" in t for t in targets) == 4, targets
    torch.compiler.reset()
    xg = torch.empty(8, 64, device="meta", requires_grad=True)
    bg = torch.empty(64, device="meta", requires_grad=True)
    torch.compile(_new_kinds_fn, fullgraph=True, backend="aot_eager")(xg, bg).sum().backward()
    assert xg.grad.shape == xg.shape and bg.grad.shape == bg.shape


def test_compile_fullgraph_on_meta():
    def fn(x, b):
        return ga.relu(ga.bias_act(x, b, "leaky_relu", 0.5, negative_slope=0.1)) * 2

    torch.compiler.reset()
    x = torch.empty(8, 64, device="meta")
    b = torch.empty(64, device="meta")
    targets = []
    y = torch.compile(fn, fullgraph=True, backend=_recorder(targets))(x, b)
    assert y.shape == (8, 64)
    assert any("gpuact.bias_act.default" in t for t in targets) and any("gpuact.act.default" in t for t in targets), targets
    torch.compiler.reset()
    xg = torch.empty(8, 64, device="meta", requires_grad=True)
    bg = torch.empty(64, device="meta", requires_grad=True)
    torch.compile(fn, fullgraph=True, backend="aot_eager")(xg, bg).sum().backward()
    assert xg.grad.shape == xg.shape and bg.grad.shape == bg.shape


def test_cpu_tensors_are_refused():
    x = torch.randn(4, 8)
    with pytest.raises(gpuact.InvalidArgument, match="is on cpu"):
        ga.relu(x)
    with pytest.raises(gpuact.InvalidArgument, match="is on cpu"):
        ga.bias_act(x, torch.randn(8))
    with pytest.raises(gpuact.InvalidArgument, match="is on cpu"):
        torch.ops.gpuact.act_fwd(x, 0, [0.0] * len(gpuact.ACT_PARAMS), False)
    with pytest.raises(gpuact.InvalidArgument, match="is on cpu"):
        ga.nn.Linear(8, 3)(x)


def test_modules_build_without_a_device():
    m = ga.nn.Linear(16, 32, activation="leaky_relu", negative_slope=0.2, scale=0.5, device="meta")
    assert set(m.state_dict()) == {"weight", "bias"} and isinstance(m, torch.nn.Linear)
    assert "negative_slope=0.2" in repr(m) and "scale=0.5" in repr(m)
    assert m(torch.empty(3, 16, device="meta")).shape == (3, 32)
    ref = torch.nn.Linear(16, 32)
    conv = ga.nn.Linear.from_linear(ref, "relu6")
    assert conv.weight is ref.weight and conv.bias is ref.bias
    assert repr(ga.nn.LeakyReLU(0.3, inplace=True)) == "LeakyReLU(negative_slope=0.3, inplace=True)"
    for mod, ref in ((ga.nn.Hardtanh(-2.0, 2.0, True), torch.nn.Hardtanh(-2.0, 2.0, True)),
                     (ga.nn.GELU("tanh"), torch.nn.GELU("tanh")), (ga.nn.SiLU(), torch.nn.SiLU()),
                     (ga.nn.SiLU(inplace=True), torch.nn.SiLU(inplace=True))):
        assert repr(mod) == repr(ref)
    for act in ("gelu", "gelu_tanh", "silu", "squared_relu", "hardtanh"):
        m = ga.nn.Linear(16, 32, activation=act, device="meta")
        assert f"activation={act!r}" in repr(m) and m(torch.empty(3, 16, device="meta")).shape == (3, 32)


def _traced_backward(fn, *args):
    """The backward graph AOTAutograd traces for fn on meta tensors (what torch.compile hands Inductor)."""
    from functorch.compile import make_boxed_func
    from torch._functorch.aot_autograd import aot_function
    graphs = {}

    def keep(name):
        def compiler(gm, example_inputs):
            graphs[name] = gm
            return make_boxed_func(gm.forward)
        return compiler

    out = aot_function(fn, fw_compiler=keep("fw"), bw_compiler=keep("bw"))(*args)
    out.backward(torch.ones_like(out))
    return str(graphs["bw"].code)


def test_traced_epilogue_backward_writes_dx_over_an_owned_gradient():
    """Under tracing the smooth epilogue's backward writes dx over the incoming gradient where the graph made
    that gradient (a product's output: Inductor then reuses its buffer), and not where it is a graph input
    (Inductor would copy it first); eager calls stay out of place."""
    w1 = torch.empty(256, 64, device="meta", requires_grad=True)
    b1 = torch.empty(256, device="meta", requires_grad=True)
    w2 = torch.empty(64, 256, device="meta", requires_grad=True)
    x = torch.empty(128, 64, device="meta", requires_grad=True)
    mlp = _traced_backward(lambda x, w1, b1, w2: ga.bias_act(x @ w1.t(), b1, "gelu") @ w2.t(), x, w1, b1, w2)
    assert "gpuact.bias_act_bwd_x_.default" in mlp and "gpuact.bias_act_bwd_x.default" not in mlp, mlp
    alone = _traced_backward(lambda x, w1, b1: ga.bias_act(x @ w1.t(), b1, "gelu"), x, w1, b1)
    assert "gpuact.bias_act_bwd_x.default" in alone and "bias_act_bwd_x_" not in alone, alone
    y = ga.bias_act(x @ w1.t(), b1, "silu")
    assert y.grad_fn.name() == "gpuact::BiasActBackward"
    y.sum().backward()
    assert x.grad is not None and b1.grad is not None and b1.grad.shape == (256,)


def test_epilogue_backward_in_place_checks_dy():
    p = [0.0] * len(gpuact.ACT_PARAMS)
    x = torch.empty(8, 16, device="meta")
    dy = torch.empty(8, 16, device="meta")
    db = torch.ops.gpuact.bias_act_bwd_x_(dy, x, torch.empty(16, device="meta"), 4, p, 1.0, torch.float32)
    assert db.shape == (16,) and db.dtype == torch.float32
    assert torch.ops.gpuact.bias_act_bwd_x_(dy, x, None, 4, p, 1.0, None).shape == (0,)
