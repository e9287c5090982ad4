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

The codes tensor is uint8, rows x codes_ld(cols) dense codes of bits bits
(rows: the product of x's leading dimensions; 8 codes of 3 bits fill 3 bytes); fewbit_fwd's autograd saves
only it. Both ops are compiled (gpuact.torch._ext) and have fake
implementations here (torch.compile(fullgraph=True), meta tensors). The
few-bit path of the Python package is in this module; gpuact.torch.functional
and .nn call apply()."""
import math

import torch

from .._core import InvalidArgument, KINDS
from . import _impl
from . import _ops  # noqa: F401  (loads the compiled operators)

BITS = (1, 2, 3, 4)
#: the kinds with a table
KINDS_WITH_TABLE = tuple(KINDS[k].value for k in ("gelu", "gelu_tanh", "silu"))
_NAMES = {k.value: k.name for k in KINDS.values()}


def codes_ld(cols):
    """Codes between row starts: cols rounded up to 32 (every row starts on 4 bytes)."""
    return (cols + 31) // 32 * 32


def codes_numel(rows, cols, bits):
    """Bytes of the codes of rows x cols elements: codes_ld(cols) dense codes a row."""
    return rows * codes_ld(cols) // 8 * bits


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


# ---------------------------------------------------------------------------------------------
# The operators are compiled (gpuact.torch._ext, with their autograd: the forward keeps only the codes);
# here: their fakes

@torch.library.register_fake("gpuact::fewbit_fwd")
def _fewbit_fwd_fake(x, bias, kind, params, scale, out_dtype, bits, bias_in_x_dtype):
    _impl.check(x, "x", _NAMES.get(kind, "activation"), devices=("cuda", "meta"))
    rows = math.prod(x.shape[:-1]) if x.dim() else 1
    cols = x.shape[-1] if x.dim() else 1
    y = x.new_empty(x.shape, dtype=x.dtype if out_dtype is None else out_dtype)
    return y, x.new_empty((codes_numel(rows, cols, bits),), dtype=torch.uint8)


@torch.library.register_fake("gpuact::fewbit_bwd")
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
    y, _ = torch.ops.gpuact.fewbit_fwd(x, bias, kind, list(params), float(scale), out_dtype, int(bits),
                                       bool(bias_in_x_dtype))
    return y
