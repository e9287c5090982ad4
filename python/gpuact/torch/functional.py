"""gpuact.torch's functions: the ReLU family (relu, leaky_relu, relu6,
clipped_relu, hardtanh), the smooth kinds (gelu, silu, squared_relu) and
the bias + activation + scale epilogue on CUDA tensors (float32, float16,
bfloat16), on the tensor's device and torch.cuda.current_stream().

Autograd saves, for the ReLU family, the 1-bit mask (ceil(n/8) bytes; the
epilogue: rows x mask_ld bits) instead of the input or output: 32x less
memory than a float32 tensor kept for the backward. The smooth kinds'
derivative is not 0 or 1, so their autograd keeps the input x (the
epilogue: x and the bias), as torch's does. The epilogue's backward writes
dx and the bias gradient in one pass.

Every function calls a compiled operator (gpuact::act, bias_act, glu_fwd, fewbit_fwd of
gpuact.torch._ext: checks, allocation, launch and autograd in C++, as torch's own operators).
Eager calls on plain tensors enter it through the dispatcher's unboxed call (_ext.act, ...);
torch.compile, tensor subclasses and __torch_function__ modes through torch.ops.gpuact.*;
dispatch modes, functorch transforms and meta tensors are the dispatcher's, as for any operator.

Layouts: elementwise ops run on contiguous, channels_last and
channels_last_3d tensors as they are (the output has the input's layout);
any other strided input is copied first (a documented extra read and
write). bias_act takes the last dimension as columns: a 2-D input with unit
column stride and any row stride (a column slice of a wider matrix) is used
in place through the leading dimension; other non-contiguous inputs are
copied; its output is contiguous.
"""
import torch

from .._core import (ACT_PARAMS, ACT_PRECISE, ALIASES, GELU_APPROXIMATE, KIND_DEFAULTS, KINDS, PARAM_DEFAULTS, InvalidArgument,
                     gelu_kind)
from . import _ops  # noqa: F401  (_ops loads the compiled operators torch.ops.gpuact.*)
from . import fewbit as _fewbit

# True while torch.compile traces (a constant in its graph), False in eager: one frame, not two
_is_compiling = getattr(torch.compiler, "is_dynamo_compiling", torch.compiler.is_compiling)
_grad_enabled = torch.is_grad_enabled


def _templates():
    """kind name or alias -> (kind value, default params in ACT_PARAMS order, has_mask, table name,
    implied params): everything about kinds that the functions need, computed once from the C tables."""
    out = {}
    for name, (target, implied) in list({n: (n, {}) for n in KINDS}.items()) + list(ALIASES.items()):
        info = KINDS[target]
        values = dict(PARAM_DEFAULTS)
        values.update(KIND_DEFAULTS.get(target, {}))
        values.update(implied)
        out[name] = (info.value, tuple(float(values.get(p, 0.0)) for p in ACT_PARAMS), info.has_mask, target,
                     dict(implied))
    return out


_TEMPLATES = _templates()
_PARAM_INDEX = {p: i for i, p in enumerate(ACT_PARAMS)}


def _resolve(kind, params):
    """(kind value, params tuple in ACT_PARAMS order, has_mask, table name, act = (kind value,) + params:
    the activation tuple gpuact._C takes, params as a list: what gpuact::act takes) from a kind name (or alias) and a dict of parameters by the C
    field names (None: the default). Plain Python that torch.compile traces to constants."""
    t = _TEMPLATES.get(kind)
    if t is None:
        raise InvalidArgument(f"gpuact.torch: activation {kind!r} is not one of {', '.join(_TEMPLATES)}")
    value, defaults, has_mask, name, implied = t
    p = list(defaults)
    for k, v in params.items():
        i = _PARAM_INDEX.get(k)
        if i is None:
            raise InvalidArgument(f"gpuact.torch: activation parameter {k!r} unknown; "
                                  f"gpuact_activation has {', '.join(ACT_PARAMS)}")
        if v is None:
            continue
        if k in implied and float(v) != implied[k]:
            raise InvalidArgument(f"gpuact.torch: {kind} means {k}={implied[k]}; got {k}={v}")
        p[i] = float(v)
    return value, tuple(p), has_mask, name, (value,) + tuple(p), list(p)


_CACHE = {}


def _kp(kind, params):
    """_resolve, cached in eager mode (one dictionary lookup per call)."""
    if _is_compiling():
        return _resolve(kind, params)
    key = (kind, tuple(params.items())) if params else kind
    kp = _CACHE.get(key)
    if kp is None:
        kp = _CACHE[key] = _resolve(kind, params)
    return kp


# ---------------------------------------------------------------------------------------------
# Elementwise: the compiled operator gpuact::act (its kernel and autograd in C++: gpuact.torch._ext)

_ACT = torch.ops.gpuact.act.default
_ACT_INPLACE = torch.ops.gpuact.act_inplace.default
_ACT_INTO = torch.ops.gpuact.act_into.default
# gpuact::act through the dispatcher's unboxed entry (eager; NotImplemented for what it does not take)
from ._ext import act as _act_entry  # noqa: E402

_NAME_OF = {info.value: name for name, info in KINDS.items()}
_HAS_MASK = {info.value: info.has_mask for info in KINDS.values()}


def _activation(x, kind, params, inplace, out):
    """y = act(x): kind the kind's value, params its parameters in ACT_PARAMS order (a list, as the
    operators take them). The functions below try the operator's eager entry themselves first (one
    Python call less per eager call) and come here for out=, inplace=True, traced calls and subclasses."""
    if out is None and not inplace:
        if not _is_compiling():  # torch.compile traces the OpOverload
            y = _act_entry(x, kind, params)
            if y is not NotImplemented:
                return y
        return _ACT(x, kind, params)
    name = _NAME_OF[kind]
    if out is not None and inplace:
        raise InvalidArgument(f"gpuact.torch.{name}: give inplace=True or out=, not both")
    grad = _grad_enabled() and x.requires_grad
    if out is not None:
        if grad:
            raise InvalidArgument(f"gpuact.torch.{name}: out= does not support autograd (x requires grad); "
                                  f"call it under torch.no_grad() or without out=")
        _ACT_INTO(x, out, kind, params)
        return out
    if not grad or not _is_compiling():
        # with autograd the operator's node keeps the mask or a copy of x (a smooth kind), as torch's silu_ does
        _ACT_INPLACE(x, kind, params)
        return x
    # traced in place with autograd: computed apart, then written back (one extra copy)
    x.copy_(_ACT(x if _HAS_MASK[kind] else x.clone(), kind, params))
    return x


def activation(x, kind="relu", *, inplace=False, out=None, **params):
    """y = act(x) for any kind of gpuact's table (gpuact.KIND_NAMES: relu,
    leaky, clipped, hardtanh, gelu, gelu_tanh, silu, sqrelu; or an alias:
    leaky_relu, clipped_relu, relu6, squared_relu, swish), parameters by the C
    field names (negative_slope=, ceiling=, lower=). inplace=True overwrites
    x; out= writes into a given tensor (no autograd, as torch's out=)."""
    kp = _kp(kind, params)
    return _activation(x, kp[0], kp[5], inplace, out)


# The parameters of the functions below, in ACT_PARAMS order: the table's defaults (_resolve's) but for the
# function's own arguments, which the C library checks when it uses them.
_SLOPE, _CEILING, _LOWER, _FLAGS = _TEMPLATES["relu"][1]


def relu(x, inplace=False, *, out=None):
    """torch.nn.functional.relu: max(x, 0); NaN passes, -0 becomes +0 (bit-exact with torch)."""
    if out is None and not inplace and not _is_compiling() and (y := _act_entry(x, _RELU_K, _RELU_P)) is not _NI:
        return y
    return _activation(x, _RELU_K, _RELU_P, inplace, out)


def leaky_relu(x, negative_slope=0.01, inplace=False, *, out=None):
    """torch.nn.functional.leaky_relu (negative_slope >= 0)."""
    p = [negative_slope, _CEILING, _LOWER, _FLAGS]
    if out is None and not inplace and not _is_compiling() and (y := _act_entry(x, _LEAKY, p)) is not _NI:
        return y
    return _activation(x, _LEAKY, p, inplace, out)


def clipped_relu(x, ceiling=6.0, inplace=False, *, out=None):
    """min(max(x, 0), ceiling) = torch.nn.functional.hardtanh(x, 0, ceiling) (ceiling > 0)."""
    p = [_SLOPE, ceiling, _LOWER, _FLAGS]
    if out is None and not inplace and not _is_compiling() and (y := _act_entry(x, _CLIPPED, p)) is not _NI:
        return y
    return _activation(x, _CLIPPED, p, inplace, out)


def relu6(x, inplace=False, *, out=None):
    """torch.nn.functional.relu6."""
    if out is None and not inplace and not _is_compiling() and (y := _act_entry(x, _CLIPPED, _RELU6_P)) is not _NI:
        return y
    return _activation(x, _CLIPPED, _RELU6_P, inplace, out)


def hardtanh(x, min_val=-1.0, max_val=1.0, inplace=False, *, out=None):
    """torch.nn.functional.hardtanh: min(max(x, min_val), max_val) (min_val <= max_val); bit-exact with
    torch (the bounds rounded to x's dtype, as torch's forward does); autograd keeps the 1-bit mask."""
    p = [_SLOPE, max_val, min_val, _FLAGS]
    if out is None and not inplace and not _is_compiling() and (y := _act_entry(x, _HARDTANH, p)) is not _NI:
        return y
    return _activation(x, _HARDTANH, p, inplace, out)


def gelu(x, approximate="none", *, out=None, precise=False, backward_bits=None):
    """torch.nn.functional.gelu: x * Phi(x) (approximate="none") or 0.5 x (1 + tanh(sqrt(2/pi) (x +
    0.044715 x^3))) ("tanh"), computed by gpuact's own f32 math: within 2 ulps of the correctly
    rounded value in f32 (precise=True: within 1 ulp, slower), the 16-bit results correctly rounded
    but for a documented few; not bit-identical with torch's. Autograd keeps x; with backward_bits=b
    (1-4) it keeps b bits per element instead and the gradient is the few-bit approximation
    (gpuact.torch.fewbit)."""
    kp = (_GELU_PRECISE if precise else _GELU).get(approximate) if isinstance(approximate, str) else None
    if kp is None:
        gelu_kind(approximate, "gpuact.torch.gelu")  # raises: not "none" or "tanh"
    if backward_bits is not None:
        return _fewbit_activation(x, kp, backward_bits, out, False, "gelu")
    if out is None and not _is_compiling() and (y := _act_entry(x, kp[0], kp[5])) is not _NI:
        return y
    return _activation(x, kp[0], kp[5], False, out)


# ---- few-bit backward (gpuact.torch.fewbit) ----
def _fewbit_activation(x, kp, bits, out, inplace, fn):
    kind, prm = kp[0], kp[1]
    _fewbit.check_bits(bits, kind, fn)
    if out is not None or inplace:
        raise InvalidArgument(f"gpuact.torch.{fn}: backward_bits does not combine with out= or inplace=True")
    return _fewbit.apply(x, None, kind, prm, 1.0, None, bits, fn)
# ---- end few-bit backward ----


def silu(x, inplace=False, *, out=None, precise=False, backward_bits=None):
    """torch.nn.functional.silu: x * sigmoid(x) (gpuact's own f32 math, as gelu, precise= too).
    Autograd keeps x (in place: a copy of x, as torch's); backward_bits= as gelu's."""
    kp = _SILU_PRECISE if precise else _SILU
    if backward_bits is not None:
        return _fewbit_activation(x, kp, backward_bits, out, inplace, "silu")
    if out is None and not inplace and not _is_compiling() and (y := _act_entry(x, kp[0], kp[5])) is not _NI:
        return y
    return _activation(x, kp[0], kp[5], inplace, out)


def squared_relu(x, inplace=False, *, out=None):
    """relu(x) ** 2: bit-exact with torch.relu(x) ** 2. Autograd keeps x."""
    if out is None and not inplace and not _is_compiling() and (y := _act_entry(x, _SQRELU_K, _SQRELU_P)) is not _NI:
        return y
    return _activation(x, _SQRELU_K, _SQRELU_P, inplace, out)


_NI = NotImplemented
_RELU = _resolve("relu", {})
_RELU_K, _RELU_P = _RELU[0], _RELU[5]
_RELU6_P = _resolve("relu6", {})[5]
_LEAKY, _CLIPPED, _HARDTANH = (KINDS[k].value for k in ("leaky", "clipped", "hardtanh"))
_GELU = {a: _resolve(k, {}) for a, k in GELU_APPROXIMATE.items()}
_SILU = _resolve("silu", {})
_GELU_PRECISE = {a: _resolve(k, {"flags": ACT_PRECISE}) for a, k in GELU_APPROXIMATE.items()}
_SILU_PRECISE = _resolve("silu", {"flags": ACT_PRECISE})
_SQRELU = _resolve("sqrelu", {})
_SQRELU_K, _SQRELU_P = _SQRELU[0], _SQRELU[5]


# ---------------------------------------------------------------------------------------------
# Epilogue

_BIAS_ACT = torch.ops.gpuact.bias_act.default
from ._ext import bias_act as _bias_act_entry  # noqa: E402  (as _act_entry)


def bias_act(x, bias=None, activation="relu", scale=1.0, *, out_dtype=None, backward_bits=None, **params):
    """y = act(x + bias) * scale, bias (cols,) along x's last dimension, in
    f32 with one rounding to out_dtype (default x's dtype); the fused
    epilogue after a matrix product. activation: a kind or alias as in
    activation(); parameters by the C field names (negative_slope=, ...).
    scale must be finite and non-zero (it is rounded to float32). Autograd:
    saves the 1-bit mask (the ReLU family, hardtanh) or, for the smooth kinds
    (gelu, gelu_tanh, silu, sqrelu), x and the bias (as torch keeps GELU's
    input); the backward writes dx and the bias gradient (f32 accumulation,
    deterministic) in one pass, the smooth kinds' from x + bias formed again
    as the forward formed it. Mixed dtypes work (a bfloat16 x with a float32
    bias: the bias gradient is float32; a smooth kind's backward then forms
    x + bias in float32 first, one extra elementwise pass).

    Under torch.autocast it follows torch's rule for F.linear: x is cast
    to the autocast dtype (a product from a matmul already is) and the bias
    is used in that dtype too, so the epilogue and its backward run in one
    dtype and no float32 tensor of x's size is made; the bias gradient is
    still accumulated in float32, and returned in the bias's own dtype.

    backward_bits=b (1-4; gelu, gelu_tanh, silu): autograd keeps b bits per element instead of x,
    the bias is used in x's dtype, and the gradient is the few-bit approximation
    (gpuact.torch.fewbit)."""
    kp = _kp(activation, params)
    if backward_bits is not None:  # few-bit backward (gpuact.torch.fewbit)
        _fewbit.check_bits(backward_bits, kp[0], "bias_act")
        dt = autocast_dtype()
        return _fewbit.apply(x if dt is None else _cast(x, dt), bias, kp[0], kp[1], float(scale), out_dtype,
                             backward_bits, "bias_act", True)
    return _bias_act(x, bias, kp, float(scale), out_dtype)


def _bias_act(x, bias, kp, scale, out_dtype):
    cast_bias = False
    dt = autocast_dtype()
    if dt is not None:
        x = _cast(x, dt)
        cast_bias = bias is not None and bias.dtype != x.dtype
    if not _is_compiling():
        y = _bias_act_entry(x, bias, kp[0], kp[5], scale, out_dtype, cast_bias)
        if y is not NotImplemented:
            return y
    return _BIAS_ACT(x, bias, kp[0], kp[5], scale, out_dtype, cast_bias)


# ---------------------------------------------------------------------------------------------
# Autocast

try:
    _autocast_enabled = torch.is_autocast_enabled
    _autocast_enabled("cuda")
    _autocast_get_dtype = torch.get_autocast_dtype
except (AttributeError, TypeError):  # pragma: no cover - torch < 2.4
    def _autocast_enabled(device_type):
        return torch.is_autocast_enabled()

    def _autocast_get_dtype(device_type):
        return torch.get_autocast_gpu_dtype()


def autocast_dtype():
    """The dtype torch.autocast("cuda", ...) computes in now, or None outside autocast. gpuact's tensors
    are CUDA tensors (ROCm's too), so the CUDA autocast state is the one that applies."""
    return _autocast_get_dtype("cuda") if _autocast_enabled("cuda") else None


def _cast(t, dt):
    return t.to(dt) if t is not None and t.dtype != dt and t.is_floating_point() else t


# ---------------------------------------------------------------------------------------------
# Gated forms

_GLU = torch.ops.gpuact.glu_fwd.default
from ._ext import glu as _glu_entry  # noqa: E402  (as _act_entry)
_GATING = {name: info.value for name, info in KINDS.items() if info.columns.get("glu")}


def _glu(a, b, bias_a, bias_b, bias, kind, fn):
    if bias is not None:
        if b is not None or bias_a is not None or bias_b is not None:
            raise InvalidArgument(f"gpuact.torch.{fn}: bias= is the fused form's (2 * cols,) bias; with b, or "
                                  f"for two halves, give bias_a= and bias_b=")
        bias_a = bias
    elif b is None and (bias_a is not None or bias_b is not None):
        if bias_a is None or bias_b is None:
            raise InvalidArgument(f"gpuact.torch.{fn}: give both of bias_a and bias_b, or neither")
        bias_a, bias_b = torch.cat([bias_a, bias_b.to(bias_a.dtype)]), None
    dt = autocast_dtype()
    if dt is not None:  # torch's rule for F.linear: inputs in the autocast dtype; the biases are read in it too
        a, b = _cast(a, dt), _cast(b, dt)
    if not _is_compiling():
        y = _glu_entry(a, b, bias_a, bias_b, kind)
        if y is not NotImplemented:
            return y
    return _GLU(a, b, bias_a, bias_b, kind)


def gated(a, b=None, bias_a=None, bias_b=None, *, activation="silu", bias=None):
    """y = act(a + bias_a) * (b + bias_b), one kernel (gpuact_glu_forward), for a gating kind: "silu"
    (SwiGLU), "gelu" / "gelu_tanh" (GeGLU), "relu" (ReGLU).

    Two forms:
      - gated(a, b): a and b of one shape (..., cols), biases (cols,) each (both or neither);
      - gated(h): the fused projection, h (..., 2 * cols) = gate || up along the last dimension (the
        LLaMA FFN's w1 and w3 stacked, one matmul), a = h[..., :cols], b = h[..., cols:], read in place
        (no split copy); its bias is bias= (2 * cols,) (or bias_a= and bias_b=, concatenated).

    Autograd keeps only the inputs (a, b, the biases; never y or act(a)); the backward is one pass
    giving da and db (the fused form: dh, one tensor) and both bias gradients, accumulated in float32
    and returned in the biases' own dtype. The biases are read in the inputs' dtype (a float32 bias of a
    bfloat16 input is rounded to bfloat16 first, as torch's autocast does for F.linear's bias). Under
    torch.autocast the inputs are cast to the autocast dtype first (torch's rule for F.linear). Numerics:
    a + bias_a and b + bias_b are one float32 addition each, act is gpuact's f32 formula (GELU and SiLU
    within 2 ulps of the correctly rounded value), the product one float32 multiplication, y rounded once.
    """
    kind = _GATING.get(ALIASES.get(activation, (activation, None))[0]) if isinstance(activation, str) else None
    if kind is None:
        raise InvalidArgument(f"gpuact.torch.gated: activation {activation!r} does not gate; the gated forms "
                              f"take {', '.join(_GATING)} (and swish for silu)")
    return _glu(a, b, bias_a, bias_b, bias, kind, "gated")


def swiglu(a, b=None, bias_a=None, bias_b=None, *, bias=None):
    """SwiGLU: silu(a + bias_a) * (b + bias_b) (LLaMA's FFN: silu(x @ w1.T) * (x @ w3.T)). swiglu(h) takes
    the fused projection h = gate || up along the last dimension. See gated() for the forms, autograd,
    autocast and numerics."""
    return _glu(a, b, bias_a, bias_b, bias, _GATING["silu"], "swiglu")


def geglu(a, b=None, bias_a=None, bias_b=None, approximate="none", *, bias=None):
    """GeGLU: gelu(a + bias_a, approximate) * (b + bias_b), approximate "none" (erf) or "tanh", as
    torch.nn.functional.gelu. geglu(h) takes the fused projection. See gated()."""
    kind = gelu_kind(approximate, "gpuact.torch.geglu")
    return _glu(a, b, bias_a, bias_b, bias, _GATING[kind], "geglu")


def reglu(a, b=None, bias_a=None, bias_b=None, *, bias=None):
    """ReGLU: relu(a + bias_a) * (b + bias_b); the derivative is selected (dy * zb where a + bias_a > 0,
    else +0). reglu(h) takes the fused projection. See gated()."""
    return _glu(a, b, bias_a, bias_b, bias, _GATING["relu"], "reglu")
