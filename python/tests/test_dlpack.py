"""gpuact.ops on CuPy and JAX arrays (DLPack), checked against PyTorch's
ops on the same memory (torch.from_dlpack views) where torch is there, else
against NumPy on the host. Skips without a GPU framework."""
import importlib.util
import os

import pytest

import gpuact
import gpuact.ops as go

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def _cupy():
    if importlib.util.find_spec("cupy") is None:
        pytest.skip("CuPy is not installed")
    import cupy
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no CUDA device")
    except Exception as e:
        pytest.skip(f"CuPy cannot reach a CUDA device: {e}")
    return cupy


def _jax():
    if importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed")
    import jax
    try:
        if not jax.devices("gpu"):
            pytest.skip("JAX sees no GPU")
    except Exception as e:
        pytest.skip(f"JAX has no GPU backend here: {e}")
    return jax


def _torch():
    if importlib.util.find_spec("torch") is None:
        return None
    import torch
    return torch if torch.cuda.is_available() else None


def _same_bits(a, b, nan_equal=False):
    import numpy as np
    a, b = np.asarray(a), np.asarray(b)
    iv = {4: np.uint32, 2: np.uint16}[a.dtype.itemsize]
    bad = a.view(iv) != b.view(iv)
    if nan_equal:
        bad &= ~(np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32)))
    return int(bad.sum())


def test_cupy_forward_backward_and_mask():
    cp = _cupy()
    torch = _torch()
    rs = cp.random.RandomState(1)
    x = (rs.standard_normal(10007) * 4).astype(cp.float32)
    x[:6] = cp.asarray([cp.nan, cp.inf, -cp.inf, 0.0, -0.0, 1e-45], dtype=cp.float32)
    y = go.relu(x)
    assert isinstance(y, cp.ndarray) and y.dtype == cp.float32 and y.shape == x.shape
    import numpy as np
    xh = x.get()  # references on the host: CuPy's own kernels flush subnormals (1e-45 here)
    ref = np.where(xh <= 0, np.float32(0), xh)  # relu keeps NaN, makes -0 +0
    assert _same_bits(y.get(), ref) == 0
    yl, m = go.activation(x, "leaky_relu", negative_slope=0.1, mask=True)
    assert m.dtype == cp.uint8 and m.size == (x.size + 7) // 8
    dy = rs.standard_normal(x.size).astype(cp.float32)
    dx = go.activation_backward(dy, "leaky_relu", negative_slope=0.1, mask=m)
    dx2 = go.activation_backward(dy, "leaky_relu", negative_slope=0.1, x=x)
    assert _same_bits(dx.get(), dx2.get()) == 0
    if torch is not None:
        tx = torch.from_dlpack(x)
        assert _same_bits(yl.get(), torch.nn.functional.leaky_relu(tx, 0.1).cpu().numpy(), nan_equal=True) == 0
        tdx = torch.ops.aten.leaky_relu_backward(torch.from_dlpack(dy), tx, 0.1, False)
        assert _same_bits(dx.get(), tdx.cpu().numpy(), nan_equal=True) == 0
    out = cp.empty_like(x)
    assert go.clipped_relu(x, 6.0, out=out) is out
    assert _same_bits(out.get(), np.clip(np.where(xh <= 0, np.float32(0), xh), None, np.float32(6.0))) == 0


def test_cupy_float16_stream_and_bias_act():
    cp = _cupy()
    torch = _torch()
    rs = cp.random.RandomState(2)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = (rs.standard_normal((64, 300)) * 2).astype(cp.float16)
        b = rs.standard_normal(300).astype(cp.float16)
        y, m = go.bias_act(x, b, "relu", 0.5, mask=True)  # on CuPy's current stream: s
        dy = rs.standard_normal((64, 300)).astype(cp.float16)
        dx, db = go.bias_act_backward(dy, m, "relu", 0.5, dbias=True)
    s.synchronize()
    z = x.astype(cp.float32) + b.astype(cp.float32)
    ref = (cp.where(z <= 0, cp.float32(0), z) * cp.float32(0.5)).astype(cp.float16)
    assert _same_bits(y.get(), ref.get()) == 0
    dref = cp.where(z > 0, dy.astype(cp.float32) * cp.float32(0.5), cp.float32(0)).astype(cp.float16)
    assert _same_bits(dx.get(), dref.get()) == 0
    assert db.dtype == cp.float32
    want = dref.astype(cp.float64).sum(0)
    tol = 1e-5 * cp.abs(dref.astype(cp.float64)).sum(0) + 1e-30
    assert bool((cp.abs(db - want) <= tol).all())
    sliced = x[:, :200]  # a column slice: row stride 300, used through the leading dimension
    y2 = go.bias_act(sliced, b[:200])
    assert y2.shape == (64, 200)
    if torch is not None:
        tx = torch.from_dlpack(sliced)
        want2 = torch.relu(tx.float() + torch.from_dlpack(b[:200]).float()).half()
        assert _same_bits(y2.get(), want2.cpu().numpy()) == 0


@pytest.mark.parametrize("kind", ["gelu", "gelu_tanh", "silu", "squared_relu"])
def test_cupy_smooth_kinds_epilogue_from_x(kind):
    """bias_act_backward from x and the bias (the smooth kinds): the elementwise backward at z = x + b
    with dy * scale, bit for bit; the forward likewise; hardtanh's wrappers on CuPy."""
    cp = _cupy()
    rs = cp.random.RandomState(3)
    x = (rs.standard_normal((48, 257)) * 3).astype(cp.float32)
    b = rs.standard_normal(257).astype(cp.float32)
    dy = rs.standard_normal((48, 257)).astype(cp.float32)
    y = go.bias_act(x, b, kind, 0.5)
    dx, db = go.bias_act_backward(dy, None, kind, 0.5, x=x, bias=b, dbias=True)
    import numpy as np
    z = cp.asarray(x.get() + b.get())  # z and the scaling on the host: CuPy's kernels flush subnormals
    yz = go.activation(z, kind)
    assert _same_bits(y.get(), yz.get() * np.float32(0.5), nan_equal=True) == 0
    dxz = go.activation_backward(cp.asarray(dy.get() * np.float32(0.5)), kind, x=z)
    assert _same_bits(dx.get(), dxz.get(), nan_equal=True) == 0
    want = dx.astype(cp.float64).sum(0)
    assert bool((cp.abs(db - want) <= 1e-5 * cp.abs(dx.astype(cp.float64)).sum(0) + 1e-30).all())
    with pytest.raises(gpuact.InvalidArgument, match="no 1-bit mask"):
        go.activation(x, kind, mask=True)
    h = go.hardtanh(x, -1.5, 0.5)
    assert _same_bits(h.get(), cp.clip(x, -1.5, 0.5).get()) == 0


def test_cupy_errors():
    cp = _cupy()
    x = cp.ones((4, 6), dtype=cp.float32)
    with pytest.raises(gpuact.InvalidArgument, match="not C-contiguous"):
        go.relu(x.T)
    with pytest.raises(gpuact.InvalidArgument, match="float32, float16"):
        go.relu(cp.ones(4, dtype=cp.float64))
    with pytest.raises(gpuact.InvalidArgument, match="CuPy has no bfloat16"):
        go.bias_act(x, None, out_dtype="bf16")
    with pytest.raises(gpuact.InvalidArgument, match="exactly one"):
        go.activation_backward(x, "relu")
    with pytest.raises(TypeError, match="neither a DLPack array"):
        go.relu([1.0, 2.0])
    np = pytest.importorskip("numpy")
    if hasattr(np.ones(1), "__dlpack_device__"):
        with pytest.raises(gpuact.InvalidArgument, match="not on a CUDA or ROCm device"):
            go.relu(np.ones(4, dtype=np.float32))


def test_jax_arrays():
    jax = _jax()
    import jax.numpy as jnp
    import numpy as np
    x = jnp.asarray(np.random.default_rng(3).standard_normal(4099).astype(np.float32) * 3)
    y = go.relu(x)
    assert isinstance(y, jax.Array) and y.dtype == jnp.float32
    assert _same_bits(np.asarray(y), np.asarray(jnp.where(x <= 0, 0.0, x))) == 0
    xb = x.astype(jnp.bfloat16)
    if _torch() is not None:  # JAX's outputs are allocated through torch (bfloat16 included) or CuPy
        yb, m = go.activation(xb, "leaky_relu", negative_slope=0.25, mask=True)
        assert yb.dtype == jnp.bfloat16
        want = jnp.where(xb > 0, xb, (xb.astype(jnp.float32) * np.float32(0.25)).astype(jnp.bfloat16))
        assert _same_bits(np.asarray(yb).view(np.uint16), np.asarray(want).view(np.uint16)) == 0
        dx = go.activation_backward(jnp.ones_like(xb), "leaky_relu", negative_slope=0.25, mask=m)
        assert dx.dtype == jnp.bfloat16
        assert float(jnp.sum(dx.astype(jnp.float32))) == float(jnp.sum(jnp.where(xb > 0, 1.0, 0.25)))
