"""gpuact.torch's eager path without a GPU: CPU tensors stand for CUDA ones and the launches are recorded
instead of run (the compiled operators: gpuact::_testing_mock; the Python ones: is_cuda reads True, the
stream is 0, gpuact._C is replaced), so what the path hands to C (pointers, sizes, dtype codes, the mask
or the few-bit codes: a record's mask field)
and which autograd rule it takes are checked here; the values are the GPU tests'
(tests/test_torch_gpu.py). Also the nn modules made from nn.SIMPLE_MODULES."""
import inspect
import pytest

torch = pytest.importorskip("torch")

import gpuact  # noqa: E402
import gpuact.torch as ga  # noqa: E402
from gpuact.torch import _impl  # noqa: E402


@pytest.fixture
def launches():
    """The compiled operators' launches (gpuact.torch._ext under gpuact::_testing_mock: CPU tensors stand for
    CUDA ones, each launch is recorded instead of run), as a function returning the records since its last
    call: dicts of op, rows, cols, ld (of in) and the addresses in, out, mask, x, bias, dbias (0: absent)."""
    fields = ("op", "rows", "cols", "ld", "in", "out", "mask", "x", "bias", "dbias")
    ops = ("forward", "backward", "epilogue_forward", "epilogue_backward", "glu_forward", "glu_backward")
    _impl.testing_mock(True)

    def take():
        flat = _impl.testing_mock(True)
        recs = [dict(zip(fields, flat[i:i + len(fields)])) for i in range(0, len(flat), len(fields))]
        for r in recs:
            r["op"] = ops[r["op"]]
        return recs

    yield take
    _impl.testing_mock(False)


def test_without_autograd_one_forward_and_no_mask(launches):
    x = torch.randn(1024)
    y = ga.relu(x)
    assert y.shape == x.shape and y.data_ptr() != x.data_ptr()
    (r,) = launches()
    assert (r["op"], r["rows"], r["in"], r["out"], r["mask"]) == ("forward", 1024, x.data_ptr(), y.data_ptr(), 0)
    with torch.no_grad():  # grad mode off: no mask either, even for an x that requires grad
        ga.leaky_relu(torch.randn(8, requires_grad=True), 0.2)
    assert launches()[-1]["mask"] == 0
    ga.leaky_relu(torch.randn(8), 0.2)  # no input requires grad: no mask
    assert launches()[-1]["mask"] == 0


def test_relu_family_autograd_keeps_the_mask_and_its_backward_reads_it(launches):
    x = torch.randn(100, requires_grad=True)
    y = ga.relu(x)
    assert y.grad_fn is not None and y.grad_fn.name() == "gpuact::ActBackward"
    (fwd,) = launches()
    assert fwd["mask"] != 0
    y.sum().backward()
    (bwd,) = launches()
    assert bwd["op"] == "backward" and bwd["rows"] == 100 and bwd["x"] == 0 and bwd["mask"] == fwd["mask"]
    assert x.grad.shape == x.shape


def test_smooth_kinds_keep_x(launches):
    x = torch.randn(64, requires_grad=True)
    y = ga.gelu(x)
    assert launches()[-1]["mask"] == 0
    y.sum().backward()
    (bwd,) = launches()
    assert bwd["op"] == "backward" and bwd["x"] == x.data_ptr() and bwd["mask"] == 0


def test_double_backward_goes_through_the_custom_op(launches):
    """create_graph=True: the backward is recorded through gpuact::act_bwd, differentiable again (the ReLU
    family); its backward reads the same mask."""
    x, g = torch.randn(32, requires_grad=True), torch.randn(32, requires_grad=True)
    y = ga.leaky_relu(x, 0.1)
    (dx,) = torch.autograd.grad(y, x, g, create_graph=True)
    assert dx.grad_fn is not None and dx.grad_fn.name() == "gpuact::ActBwdBackward", dx.grad_fn.name()
    dx.sum().backward()  # d(dx)/dg: the same selection of the ones, from the mask
    recs = launches()
    assert [r["op"] for r in recs] == ["forward", "backward", "backward"] and recs[2]["mask"] == recs[0]["mask"]
    with pytest.raises(gpuact.NotSupported, match="double backward of gelu"):
        x2 = torch.randn(8, requires_grad=True)
        (d,) = torch.autograd.grad(ga.gelu(x2).sum(), x2, create_graph=True)
        d.sum().backward()


def test_in_place_and_out(launches):
    x = torch.randn(16)
    assert ga.relu(x, inplace=True) is x
    (r,) = launches()
    assert r["in"] == r["out"] == x.data_ptr()
    out = torch.empty(16)
    assert ga.silu(x, out=out) is out and launches()[-1]["out"] == out.data_ptr()
    with pytest.raises(gpuact.InvalidArgument, match="out overlaps x"):
        ga.relu(x[1:], out=x[:-1])
    with pytest.raises(gpuact.InvalidArgument, match="dtype torch.float64"):
        ga.relu(x.double())
    h = torch.randn(16, requires_grad=True) * 1.0
    ga.relu(h, inplace=True).sum().backward()  # in place under autograd: computed apart, written back


def test_bias_act_arguments(launches):
    x, b = torch.randn(6, 40), torch.randn(40)
    y = ga.bias_act(x, b, "relu", 0.5)
    (r,) = launches()
    assert r["op"] == "epilogue_forward" and y.shape == x.shape and y.is_contiguous()
    assert (r["rows"], r["cols"], r["ld"], r["in"], r["bias"], r["out"], r["mask"]) == \
        (6, 40, 40, x.data_ptr(), b.data_ptr(), y.data_ptr(), 0)
    xs = torch.randn(6, 80)[:, :40]  # a column slice: in place through the leading dimension
    ga.bias_act(xs, b, "relu")
    (r,) = launches()
    assert r["ld"] == 80 and r["in"] == xs.data_ptr()
    xg, bg = torch.randn(5, 16, requires_grad=True), torch.randn(16, requires_grad=True)
    y = ga.bias_act(xg, bg, "relu")
    assert y.grad_fn.name() == "gpuact::BiasActBackward"
    y.sum().backward()
    fwd, bwd = launches()
    assert (fwd["op"], bwd["op"]) == ("epilogue_forward", "epilogue_backward")
    assert fwd["mask"] != 0 and bwd["mask"] == fwd["mask"] and bwd["x"] == 0
    assert bwd["dbias"] == bg.grad.data_ptr() and bwd["out"] == xg.grad.data_ptr()  # the bias gradient in one pass
    xg.grad = bg.grad = None
    ga.bias_act(xg, bg, "gelu").sum().backward()  # a smooth kind: the backward reads x and the bias
    fwd, bwd = launches()
    assert fwd["mask"] == 0 and bwd["x"] == xg.data_ptr() and bwd["bias"] == bg.data_ptr()
    ga.bias_act(xg, bg.detach(), "relu").sum().backward()  # no bias gradient wanted: none computed
    assert launches()[-1]["dbias"] == 0
    with pytest.raises(gpuact.InvalidArgument, match="bias must be"):
        ga.bias_act(x, torch.randn(41), "relu")
    with pytest.raises(gpuact.InvalidArgument, match="scale = 0"):
        ga.bias_act(x, b, "relu", 0.0)


def test_linear_is_the_matmul_then_one_epilogue(launches, monkeypatch):
    """nn.Linear's eager forward (one call into C++: torch's linear without the bias, then gpuact::bias_act;
    no Python F.linear): one epilogue launch on the product with the module's bias; autograd reaches x,
    weight and bias."""
    lin = ga.nn.Linear(16, 24, activation="leaky_relu", negative_slope=0.2, scale=0.5)
    x = torch.randn(5, 16, requires_grad=True)
    linear = torch.nn.functional.linear
    monkeypatch.setattr(torch.nn.functional, "linear", None)
    y = lin(x)
    assert y.shape == (5, 24) and y.grad_fn.name() == "gpuact::BiasActBackward"
    (r,) = launches()
    assert (r["op"], r["rows"], r["cols"], r["bias"]) == ("epilogue_forward", 5, 24, lin.bias.data_ptr())
    assert r["mask"] != 0 and r["out"] == y.data_ptr()
    y.sum().backward()
    (r,) = launches()
    assert r["op"] == "epilogue_backward" and r["dbias"] == lin.bias.grad.data_ptr()
    assert x.grad.shape == x.shape and lin.weight.grad.shape == lin.weight.shape
    with torch.no_grad():
        lin(x)
    (r,) = launches()
    assert r["mask"] == 0
    monkeypatch.setattr(torch.nn.functional, "linear", linear)
    lin.scale = 2  # not a float: the Python path, the same launch
    lin(x)
    assert launches()[-1]["op"] == "epilogue_forward"


def test_gated_fused_form_arguments(launches):
    h = torch.randn(4, 2 * 24, requires_grad=True)
    y = ga.swiglu(h)
    assert y.shape == (4, 24) and y.grad_fn.name() == "gpuact::GluBackward"
    (r,) = launches()
    assert (r["op"], r["rows"], r["cols"], r["ld"], r["in"]) == ("glu_forward", 4, 24, 48, h.data_ptr())
    assert r["x"] == h.data_ptr() + 24 * 4  # b: the second half of each row, read in place
    y.sum().backward()
    (r,) = launches()
    assert r["op"] == "glu_backward" and h.grad.shape == h.shape and r["out"] == h.grad.data_ptr()
    a, b = torch.randn(3, 8, requires_grad=True), torch.randn(3, 8)
    ba, bb = torch.randn(8, requires_grad=True), torch.randn(8, dtype=torch.bfloat16, requires_grad=True)
    ga.geglu(a, b, ba, bb).sum().backward()  # the bias gradients in the biases' own dtypes
    assert launches()[-1]["dbias"] != 0 and ba.grad.dtype == torch.float32 and bb.grad.dtype == torch.bfloat16
    assert b.grad is None


def test_fewbit_keeps_only_the_codes(launches):
    x = torch.randn(4, 40, requires_grad=True)
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        y = ga.gelu(x, backward_bits=2)
    assert y.grad_fn.name() == "gpuact::FewbitBackward"
    assert [(t.dtype, t.numel()) for t in saved] == [(torch.uint8, 4 * 64 // 8 * 2)]  # rows x 64 codes of 2 bits
    (fwd,) = launches()
    y.sum().backward()
    (bwd,) = launches()
    assert fwd["mask"] == bwd["mask"] == saved[0].data_ptr() and bwd["out"] == x.grad.data_ptr()


def test_compiled_with_inductor(launches):
    """torch.compile(fullgraph=True) with inductor (its CPU code here) calls the operators in the compiled
    graph, forward and backward: the same launches as eager."""
    def f(x, b, h):
        return ga.relu(x) * 2 + ga.bias_act(x, b, "gelu", 0.5) + ga.swiglu(h).sum() + ga.gelu(x, backward_bits=2)

    torch.compiler.reset()
    x, b = torch.randn(8, 64, requires_grad=True), torch.randn(64, requires_grad=True)
    h = torch.randn(8, 128, requires_grad=True)
    torch.compile(f, fullgraph=True)(x, b, h).sum().backward()
    assert x.grad.shape == x.shape and b.grad.shape == b.shape and h.grad.shape == h.shape
    ops = sorted(r["op"] for r in launches())
    assert ops == sorted(["forward", "epilogue_forward", "glu_forward", "epilogue_forward", "backward",
                          "epilogue_backward", "glu_backward", "epilogue_backward"]), ops
    v = torch.randn(16)
    assert torch.compile(lambda t: ga.leaky_relu(t, 0.2, inplace=True), fullgraph=True)(v) is v  # a mutating op
    (r,) = launches()
    assert r["in"] == r["out"] == v.data_ptr()
    torch.compiler.reset()


def test_simple_modules_match_torch_nn():
    """Every row of nn.SIMPLE_MODULES: a kind of gpuact's table, the constructor, defaults and repr of the
    torch.nn module of the same name."""
    names = ga.functional._TEMPLATES
    for row in ga.nn.SIMPLE_MODULES:
        cls, theirs = getattr(ga.nn, row[0]), getattr(torch.nn, row[0])
        assert row[1] in names and cls.kind == row[1]
        params = inspect.signature(cls).parameters.items()
        ours = [(k, p) for k, p in params if p.kind != p.KEYWORD_ONLY]
        assert {k for k, p in params if p.kind == p.KEYWORD_ONLY} <= {"backward_bits"}, row[0]  # gpuact's own
        ref = list(inspect.signature(theirs).parameters.items())
        assert [(k, p.default) for k, p in ours] == [(k, p.default) for k, p in ref[:len(ours)]], row[0]
        assert repr(cls()) == repr(theirs())
        x = torch.empty(3, 5, device="meta")
        assert cls()(x).shape == x.shape
    assert repr(ga.nn.LeakyReLU(0.3, True)) == repr(torch.nn.LeakyReLU(0.3, True))
    assert repr(ga.nn.Hardtanh(max_val=2.0)) == repr(torch.nn.Hardtanh(max_val=2.0))
    with pytest.raises(ValueError, match="min_val"):
        ga.nn.Hardtanh(2.0, 1.0)
    with pytest.raises(TypeError):
        ga.nn.ReLU(True, True)
