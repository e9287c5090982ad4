"""gpuact's torch operators (namespace gpuact), compiled in gpuact.torch._ext
(src/torch_ops.cpp: schemas, CUDA kernels, autograd), with their fake (meta)
implementations here, so torch.compile(fullgraph=True) traces code that uses
them without graph breaks, torch.export keeps them as single nodes, and meta
tensors work.

    gpuact::act(Tensor x, int kind, float[] params) -> Tensor y                   with autograd (the mask or x)
    gpuact::act_fwd(Tensor x, int kind, float[] params, bool with_mask) -> (Tensor y, Tensor mask)
    gpuact::act_bwd(Tensor dy, Tensor? x, Tensor? mask, int kind, float[] params) -> Tensor dx
    gpuact::act_inplace(Tensor(a!) x, int kind, float[] params) -> ()                 in place, no autograd
    gpuact::act_into(Tensor x, Tensor(a!) y, int kind, float[] params) -> ()          out=, no autograd
    gpuact::bias_act(Tensor x, Tensor? bias, int kind, float[] params, float scale, ScalarType? out_dtype,
                     bool bias_in_x_dtype=False) -> Tensor y                         with autograd
    gpuact::bias_act_fwd(Tensor x, Tensor? bias, int kind, float[] params, float scale,
                         ScalarType? out_dtype, bool with_mask, bool bias_in_x_dtype=False)
                         -> (Tensor y, Tensor mask)
    gpuact::bias_act_bwd(Tensor dy, Tensor mask, int kind, float[] params, float scale,
                         ScalarType dx_dtype, ScalarType? dbias_dtype) -> (Tensor dx, Tensor dbias)
    gpuact::bias_act_bwd_x(Tensor dy, Tensor x, Tensor? bias, int kind, float[] params, float scale,
                           ScalarType? dbias_dtype, bool bias_in_x_dtype=False) -> (Tensor dx, Tensor dbias)
    gpuact::bias_act_bwd_x_(Tensor(a!) dy, ...the same) -> Tensor dbias         dx written over dy
    gpuact::bias_act_bwd_x_traced(...the same as bias_act_bwd_x)                 the backward under tracing
    gpuact::glu_fwd, gpuact::glu_bwd: the gated forms (below)
    gpuact::fewbit_fwd, gpuact::fewbit_bwd: the few-bit backward (gpuact/torch/fewbit.py)

bias_in_x_dtype: the bias is rounded to x's dtype before use (autocast: torch's
rule for F.linear's bias); its gradient is still accumulated in float32 and
returned in the bias's own dtype.

kind is the gpuact_activation_kind value and params the float fields of
gpuact_activation after kind, in order (gpuact.ACT_PARAMS): a new field
needs no new schema. Without with_mask the mask output is empty; without
dbias_dtype the dbias output is empty.

Autograd (C++ nodes, one definition per op): act and bias_act save the 1-bit
mask (the ReLU family, hardtanh) or x (and the bias: the smooth kinds),
making the mask only when autograd records the call; act_fwd and
bias_act_fwd save the mask (with_mask) or x, never y. The epilogue's backward
computes dx and the bias gradient in one pass (bias_act_bwd from the mask,
bias_act_bwd_x from x: z = x + bias formed again as the forward formed it).
act_bwd is differentiable again in dy for the kinds with a mask (double
backward of the ReLU family: its second derivative in x is zero);
bias_act_bwd, bias_act_bwd_x, glu_bwd and fewbit_bwd are not.
"""
import torch

from .._core import KINDS, error_class
from . import _impl

_KIND_NAMES = {k.value: k.name for k in KINDS.values()}

# ---------------------------------------------------------------------------------------------
# Loading the compiled operators; the Python kernel of gpuact::_raise, through which the C++ kernels raise
# gpuact's exception classes; the fakes (shapes for torch.compile and meta tensors, symbolic shapes
# included). Elementwise first.

try:
    from . import _ext  # noqa: F401  registers the operators above
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError(
        f"gpuact.torch needs its compiled torch operators, gpuact.torch._ext, which this install lacks or cannot "
        f"load ({e}). They are built when torch is importable at build time, against that torch: install "
        f"with `pip install --no-build-isolation ./python` (from a clone) into the Python that has torch, and "
        f"again after upgrading torch.") from e

_LIB = torch.library.Library("gpuact", "IMPL")


def _raise(result, what, detail):
    cls = error_class(result)
    raise cls(what, result, detail) if detail else cls(what)


_LIB.impl("_raise", _raise, "CompositeExplicitAutograd")
torch.ops.gpuact._set_backend(_impl.BACKEND)


@torch.library.register_fake("gpuact::act")
def _act_fake(x, kind, params):
    _impl.check(x, "x", _KIND_NAMES.get(kind, "activation"), devices=("cuda", "meta"))
    return torch.empty_like(x) if _impl.dense(x) else x.new_empty(x.shape)


@torch.library.register_fake("gpuact::act_fwd")
def _act_fwd_fake(x, kind, params, with_mask):
    y = _act_fake(x, kind, params)
    n = x.numel()
    return y, x.new_empty(((n + 7) // 8 if with_mask else 0,), dtype=torch.uint8)


@torch.library.register_fake("gpuact::act_bwd")
def _act_bwd_fake(dy, x, mask, kind, params):
    return torch.empty_like(dy) if _impl.dense(dy) else dy.new_empty(dy.shape)


@torch.library.register_fake("gpuact::act_inplace")
def _act_inplace_fake(x, kind, params):
    return None


@torch.library.register_fake("gpuact::act_into")
def _act_into_fake(x, y, kind, params):
    return None


# ---------------------------------------------------------------------------------------------
# Epilogue (compiled: gpuact::bias_act, bias_act_fwd, bias_act_bwd, bias_act_bwd_x): the fakes

def _bias_act_y(x, bias, kind, out_dtype):
    _impl.check(x, "x", "bias_act", devices=("cuda", "meta"))
    if bias is not None:
        _impl.check(bias, "bias", "bias_act", devices=("cuda", "meta"))
    return x.new_empty(x.shape, dtype=x.dtype if out_dtype is None else out_dtype)


@torch.library.register_fake("gpuact::bias_act")
def _bias_act_fake(x, bias, kind, params, scale, out_dtype, bias_in_x_dtype=False):
    return _bias_act_y(x, bias, kind, out_dtype)


@torch.library.register_fake("gpuact::bias_act_fwd")
def _bias_act_fwd_fake(x, bias, kind, params, scale, out_dtype, with_mask, bias_in_x_dtype=False):
    rows, cols = _impl.rows_cols(x)
    nmask = rows * _impl.torch_mask_ld(cols) // 8 if with_mask else 0
    return _bias_act_y(x, bias, kind, out_dtype), x.new_empty((nmask,), dtype=torch.uint8)


def _no_dbias(dy):
    return dy.new_empty((0,), dtype=torch.float32)


def _bwd_fake(dy, dx_dtype, dbias_dtype):
    dx = dy.new_empty(dy.shape, dtype=dx_dtype)
    if dbias_dtype is None:
        return dx, _no_dbias(dy)
    return dx, dy.new_empty((dy.shape[-1],), dtype=dbias_dtype)


@torch.library.register_fake("gpuact::bias_act_bwd")
def _bias_act_bwd_fake(dy, mask, kind, params, scale, dx_dtype, dbias_dtype):
    return _bwd_fake(dy, dx_dtype, dbias_dtype)


@torch.library.register_fake("gpuact::bias_act_bwd_x")
def _bias_act_bwd_x_fake(dy, x, bias, kind, params, scale, dbias_dtype, bias_in_x_dtype=False):
    return _bwd_fake(dy, x.dtype, dbias_dtype)


@torch.library.register_fake("gpuact::bias_act_bwd_x_")
def _bias_act_bwd_x_inplace_fake(dy, x, bias, kind, params, scale, dbias_dtype, bias_in_x_dtype=False):
    return _bwd_fake(dy, x.dtype, dbias_dtype)[1]


def _graph_owned(t):
    """Whether t, while torch.compile traces a backward, is a buffer the traced graph computes (not one of its
    inputs, which Inductor would copy before a write): only there does writing dx over the incoming gradient
    save its buffer. torch's tracing internals, so any surprise means no."""
    try:
        from torch._subclasses.functional_tensor import FunctionalTensor
        from torch.fx.experimental.proxy_tensor import get_proxy_mode, get_proxy_slot
        mode = get_proxy_mode()
        if mode is None or not isinstance(t, FunctionalTensor):
            return False
        slot = get_proxy_slot(torch._from_functional_tensor(t.elem), mode.tracer, None)
        return slot is not None and slot.proxy.node.op == "call_function"
    except Exception:  # noqa: BLE001 - a torch without these internals: the out-of-place backward
        return False


def _bias_act_bwd_x_traced(dy, x, bias, kind, params, scale, dbias_dtype, bias_in_x_dtype=False):
    # the epilogue's backward from x under tracing (the C++ node calls this for tensors with the Python key)
    if dy.is_contiguous() and dy.dtype == x.dtype and dy.shape == x.shape and _graph_owned(dy):
        return dy, torch.ops.gpuact.bias_act_bwd_x_(dy, x, bias, kind, params, scale, dbias_dtype, bias_in_x_dtype)
    return torch.ops.gpuact.bias_act_bwd_x(dy, x, bias, kind, params, scale, dbias_dtype, bias_in_x_dtype)


_LIB.impl("bias_act_bwd_x_traced", _bias_act_bwd_x_traced, "CompositeImplicitAutograd")


# ---------------------------------------------------------------------------------------------
# Gated forms (compiled: gpuact::glu_fwd, glu_bwd): y = act(a + bias_a) * (b + bias_b); b None: a is the
# fused projection (gate || up), whose glu_bwd gives (dh, empty, dbias (2 cols,), empty). The fakes apply
# the argument rules of the real kernels (_impl.glu_check), so a traced call is refused as an eager one is.

def _glu_out_shape(a, b):
    return tuple(a.shape) if b is not None else tuple(a.shape[:-1]) + (a.shape[-1] // 2,)


@torch.library.register_fake("gpuact::glu_fwd")
def _glu_fwd_fake(a, b, bias_a, bias_b, kind):
    _impl.glu_check(a, b, bias_a, bias_b, _KIND_NAMES.get(kind, "glu") + " glu", devices=("cuda", "meta"))
    return a.new_empty(_glu_out_shape(a, b))


def _absent(t):
    return t.new_empty((0,))


@torch.library.register_fake("gpuact::glu_bwd")
def _glu_bwd_fake(dy, a, b, bias_a, bias_b, kind, dbias_dtype):
    _impl.glu_check(a, b, bias_a, bias_b, _KIND_NAMES.get(kind, "glu") + " glu backward", devices=("cuda", "meta"))
    cols = a.shape[-1] if b is not None else a.shape[-1] // 2
    first = a.new_empty(a.shape)
    second = a.new_empty(a.shape) if b is not None else _absent(a)
    if dbias_dtype is None:
        return first, second, _absent(a), _absent(a)
    if b is None:
        return first, second, a.new_empty((2 * cols,), dtype=dbias_dtype), _absent(a)
    return first, second, a.new_empty((cols,), dtype=dbias_dtype), a.new_empty((cols,), dtype=dbias_dtype)
