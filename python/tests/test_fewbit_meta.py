"""The few-bit backward's Python layer without a GPU: the custom ops' fakes
(shapes of y, the codes and the gradients), autograd and torch.compile on
meta tensors, and the argument errors."""
import pytest

torch = pytest.importorskip("torch")

import gpuact  # noqa: E402
import gpuact.torch as ga  # noqa: E402
from gpuact.torch import fewbit  # noqa: E402

P = [0.0] * len(gpuact.ACT_PARAMS)
GELU = gpuact.KINDS["gelu"].value


def test_ops_registered():
    s = str(torch.ops.gpuact.fewbit_fwd.default._schema)
    assert s.startswith("gpuact::fewbit_fwd(") and "int bits" in s, s
    assert str(torch.ops.gpuact.fewbit_bwd.default._schema).startswith("gpuact::fewbit_bwd(")


@pytest.mark.parametrize("bits,nbytes", [(1, 6 * 160 // 8), (2, 6 * 160 // 4), (3, 6 * 160 // 2), (4, 6 * 160 // 2)])
def test_fake_shapes(bits, nbytes):
    x = torch.empty(2, 3, 130, device="meta", dtype=torch.bfloat16)
    b = torch.empty(130, device="meta", dtype=torch.float32)
    y, codes = torch.ops.gpuact.fewbit_fwd(x, b, GELU, P, 1.0, torch.float32, bits, True)
    assert y.shape == x.shape and y.dtype == torch.float32
    assert codes.shape == (nbytes,) and codes.dtype == torch.uint8  # rows x (cols rounded up to 32) codes
    dx, db = torch.ops.gpuact.fewbit_bwd(y, codes, GELU, P, bits, 1.0, torch.bfloat16, torch.float32)
    assert dx.shape == x.shape and dx.dtype == torch.bfloat16 and db.shape == (130,)


def test_autograd_and_compile_on_meta():
    x = torch.empty(4, 64, device="meta", requires_grad=True)
    y = ga.gelu(x, backward_bits=2)
    y.sum().backward()
    assert x.grad.shape == x.shape
    lin = ga.nn.Linear(64, 32, activation="silu", backward_bits=3, device="meta")
    lin(torch.empty(5, 64, device="meta")).sum().backward()
    assert lin.bias.grad.shape == (32,)
    f = torch.compile(lambda t: ga.silu(t, backward_bits=4) * 2, fullgraph=True, backend="eager")
    assert f(torch.empty(3, 33, device="meta")).shape == (3, 33)


def test_argument_errors():
    x = torch.empty(4, 8, device="meta")
    for bad in (0, 5, 2.0, True, "2"):
        with pytest.raises(gpuact.InvalidArgument, match="backward_bits"):
            ga.gelu(x, backward_bits=bad)
    with pytest.raises(gpuact.InvalidArgument, match="not relu"):
        ga.bias_act(x, None, "relu", backward_bits=2)
    with pytest.raises(gpuact.InvalidArgument, match="squared_relu|sqrelu"):
        ga.nn.Linear(8, 8, activation="squared_relu", backward_bits=2)
    with pytest.raises(gpuact.InvalidArgument, match="inplace"):
        ga.silu(x, inplace=True, backward_bits=2)
    assert "backward_bits=3" in repr(ga.nn.GELU("tanh", backward_bits=3))
    assert fewbit.codes_ld(33) == 64 and fewbit.codes_numel(2, 33, 3) == 2 * 64 * 3 // 8
