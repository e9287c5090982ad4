"""Few-bit backward for GELU, tanh-GELU and SiLU (gpuact.h's FEW-BIT CODES,
docs/NUMERICS.md): the forward keeps b = backward_bits (1-4) bits per element
instead of x, and the backward multiplies dy by the level of each element's
code, the optimal piecewise-constant derivative with 2^b levels (Novikov et
al., ICML 2022). An approximation of the gradient, opt-in: backward_bits=None
(the default everywhere) keeps the exact backward from x.

    gpuact::fewbit_fwd(Tensor x, Tensor? bias, int kind, float[] params, float scale,
                       ScalarType? out_dtype, int bits, bool bias_in_x_dtype) -> (Tensor y, Tensor codes)
    gpuact::fewbit_bwd(Tensor dy, Tensor codes, int kind, float[] params, int bits, float scale,
                       ScalarType dx_dtype, ScalarType? dbias_dtype) -> (Tensor dx, Tensor dbias)

The codes tensor is uint8, rows x codes_ld(cols) codes of slot(bits) bits
(rows: the product of x's leading dimensions); fewbit_fwd's autograd saves
only it. Both ops have fake implementations (torch.compile(fullgraph=True),
meta tensors). Everything of the few-bit path in the Python package is in
this module; gpuact.torch.functional and .nn call apply()."""
import math
import typing

import torch
from torch import Tensor

from .. import _C
from .._core import InvalidArgument, KINDS
from . import _impl

BITS = (1, 2, 3, 4)
#: the kinds with a table
KINDS_WITH_TABLE = tuple(KINDS[k].value for k in ("gelu", "gelu_tanh", "silu"))
_NAMES = {k.value: k.name for k in KINDS.values()}


def slot(bits):
    """Bits a code takes in the packed rows (3 in 4: no code crosses a byte)."""
    return 4 if bits == 3 else bits


def codes_ld(cols):
    """Codes between row starts: cols rounded up to 32 (every row starts on 4 bytes)."""
    return (cols + 31) // 32 * 32


def codes_numel(rows, cols, bits):
    return rows * codes_ld(cols) // 8 * slot(bits)


def check_bits(bits, kind, fn):
    """None or 1-4, and a kind with a table."""
    if bits is None:
        return None
    if isinstance(bits, bool) or not isinstance(bits, int) or bits not in BITS:
        raise InvalidArgument(f"gpuact.torch.{fn}: backward_bits must be None (exact) or 1, 2, 3, 4; got {bits!r}")
    if kind not in KINDS_WITH_TABLE:
        raise InvalidArgument(f"gpuact.torch.{fn}: backward_bits is for gelu, gelu_tanh and silu, not "
                              f"{_NAMES.get(kind, kind)}")
    return bits


def forward(x, bias, act, scale, out_dtype, bits, fn, bias_in_x_dtype=False):
    """(y, codes): y = act(x + bias) * scale with x's shape, and the codes of x + bias."""
    _impl.check(x, "x", fn)
    if x.dim() < 1:
        _impl._fail(fn, "x must have at least one dimension")
    _impl._check_scale(scale, fn)
    rows, cols = _impl.rows_cols(x)
    ydt = x.dtype if out_dtype is None else out_dtype
    if ydt not in _impl.DTYPE:
        _impl._fail(fn, f"out_dtype {ydt} is not one of torch.float32, torch.float16, torch.bfloat16")
    if bias is not None:
        _impl.check(bias, "bias", fn)
        _impl.same_device(x, bias, "x", "bias", fn)
        if bias.dim() != 1 or bias.shape[0] != cols:
            _impl._fail(fn, f"bias has shape {tuple(bias.shape)}; x's last dimension is {cols}")
        # the forward writing codes takes its bias in x's dtype (the C rule CODES_BIAS_DTYPE)
        bias = bias.to(x.dtype).contiguous()
    y = torch.empty(x.shape, dtype=ydt, device=x.device)
    codes = torch.empty((codes_numel(rows, cols, bits),), dtype=torch.uint8, device=x.device)
    if rows and cols:
        xm, ld = _impl.as_matrix(x)
        dev = x.get_device()
        _C.codes_forward(_impl.BACKEND, dev, _impl.raw_stream(dev), act, rows, cols, _impl.DTYPE[x.dtype],
                         _impl.DTYPE[ydt], ld, scale, xm.data_ptr(), _impl._ptr(bias), y.data_ptr(),
                         codes.data_ptr(), bits, codes_ld(cols))
    return y, codes


def backward(dy, codes, act, bits, scale, dx_dtype, dbias_dtype, fn):
    """(dx, dbias or None): dx = (dy * scale) * level[code], dx_dtype, dy's shape."""
    _impl.check(dy, "dy", fn)
    rows, cols = _impl.rows_cols(dy)
    if not isinstance(codes, torch.Tensor) or codes.dtype != torch.uint8 or not codes.is_contiguous() or \
            codes.numel() < codes_numel(rows, cols, bits):
        _impl._fail(fn, f"codes must be the contiguous uint8 tensor the forward wrote ({codes_numel(rows, cols, bits)}"
                        f" bytes for {rows} x {cols} {bits}-bit codes)")
    _impl.same_device(dy, codes, "dy", "codes", fn)
    dy = dy.contiguous()
    dx = torch.empty(dy.shape, dtype=dx_dtype, device=dy.device)
    dbias = torch.empty((cols,), dtype=dbias_dtype, device=dy.device) if dbias_dtype is not None else None
    if dbias is not None and not (rows and cols):
        dbias.zero_()
    if rows and cols:
        dev = dy.get_device()
        _C.codes_backward(_impl.BACKEND, dev, _impl.raw_stream(dev), act, rows, cols, _impl.DTYPE[dy.dtype],
                          _impl.DTYPE[dx_dtype], _impl.DTYPE[dbias_dtype] if dbias is not None else 0, scale,
                          dy.data_ptr(), dx.data_ptr(), codes.data_ptr(), bits, codes_ld(cols), _impl._ptr(dbias))
    return dx, dbias


# ---------------------------------------------------------------------------------------------
# The custom ops

def _act(kind, params):
    return (kind,) + tuple(params)


@torch.library.custom_op("gpuact::fewbit_fwd", mutates_args=())
def fewbit_fwd(x: Tensor, bias: typing.Optional[Tensor], kind: int, params: typing.List[float], scale: float,
               out_dtype: typing.Optional[torch.dtype], bits: int,
               bias_in_x_dtype: bool) -> typing.Tuple[Tensor, Tensor]:
    return forward(x, bias, _act(kind, params), scale, out_dtype, bits, _NAMES.get(kind, "activation"),
                   bias_in_x_dtype)


@fewbit_fwd.register_fake
def _fewbit_fwd_fake(x, bias, kind, params, scale, out_dtype, bits, bias_in_x_dtype):
    rows = math.prod(x.shape[:-1]) if x.dim() else 1
    cols = x.shape[-1] if x.dim() else 1
    y = x.new_empty(x.shape, dtype=x.dtype if out_dtype is None else out_dtype)
    return y, x.new_empty((codes_numel(rows, cols, bits),), dtype=torch.uint8)


def _fewbit_fwd_setup(ctx, inputs, output):
    x, bias, kind, params, scale, out_dtype, bits, bias_in_x_dtype = inputs
    ctx.kind, ctx.params, ctx.scale, ctx.bits = kind, list(params), scale, bits
    ctx.x_dtype = x.dtype
    ctx.bias_dtype = bias.dtype if bias is not None else None
    ctx.save_for_backward(output[1])


def _fewbit_fwd_backward(ctx, dy, dcodes):
    (codes,) = ctx.saved_tensors
    dx, dbias = torch.ops.gpuact.fewbit_bwd(dy, codes, ctx.kind, ctx.params, ctx.bits, ctx.scale, ctx.x_dtype,
                                            ctx.bias_dtype)
    return dx, (dbias if ctx.bias_dtype is not None else None), None, None, None, None, None, None


fewbit_fwd.register_autograd(_fewbit_fwd_backward, setup_context=_fewbit_fwd_setup)


@torch.library.custom_op("gpuact::fewbit_bwd", mutates_args=())
def fewbit_bwd(dy: Tensor, codes: Tensor, kind: int, params: typing.List[float], bits: int, scale: float,
               dx_dtype: torch.dtype, dbias_dtype: typing.Optional[torch.dtype]) -> typing.Tuple[Tensor, Tensor]:
    dx, dbias = backward(dy, codes, _act(kind, params), bits, scale, dx_dtype, dbias_dtype,
                         f"{_NAMES.get(kind, 'activation')} backward")
    return dx, (dbias if dbias is not None else dy.new_empty((0,), dtype=torch.float32))


@fewbit_bwd.register_fake
def _fewbit_bwd_fake(dy, codes, kind, params, bits, scale, dx_dtype, dbias_dtype):
    cols = dy.shape[-1] if dy.dim() else 1
    dbias = dy.new_empty((cols,) if dbias_dtype is not None else (0,),
                         dtype=dbias_dtype if dbias_dtype is not None else torch.float32)
    return dy.new_empty(dy.shape, dtype=dx_dtype), dbias


# ---------------------------------------------------------------------------------------------
# The entry of gpuact.torch.functional (gelu, silu, bias_act) and .nn

def apply(x, bias, kind, params, scale, out_dtype, bits, fn, bias_in_x_dtype=False):
    """y = act(x + bias) * scale whose backward comes from bits-bit codes (the caller checked bits)."""
    if not isinstance(x, torch.Tensor):
        raise InvalidArgument(f"gpuact.torch.{fn}: x must be a torch.Tensor")
    _impl.check(x, "x", fn, devices=("cuda", "meta"))
    y, _ = torch.ops.gpuact.fewbit_fwd(x, bias, kind, list(params), float(scale), out_dtype, int(bits),
                                       bool(bias_in_x_dtype))
    return y
