"""The operations on torch tensors that are not compiled operators yet (the epilogue, the gated forms):
argument checks, layouts, output allocation and the call into gpuact._C on the tensor's device and
torch's current stream. Used by the eager fast path, the autograd functions and the torch.library
custom ops alike (one implementation); the argument checks serve the compiled operators' fake
implementations too."""
import math

import torch

from .. import _C
from .._core import BACKENDS, InvalidArgument

#: torch dtype -> gpuact_dtype value (names from the C table)
_TORCH_OF = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
DTYPE = {_TORCH_OF[name]: i for i, (name, _) in enumerate(_C.DTYPES)}

# ROCm builds of torch call their devices "cuda" too; their streams are HIP streams.
BACKEND = BACKENDS["hip"] if getattr(torch.version, "hip", None) else BACKENDS["cuda"]

try:  # the raw cudaStream_t of the current stream without a Stream object (what inductor uses)
    from torch._C import _cuda_getCurrentRawStream as raw_stream
except ImportError:  # pragma: no cover - other torch builds
    def raw_stream(device):
        return torch.cuda.current_stream(device).cuda_stream


_Tensor = torch.Tensor
_empty_like = torch.empty_like
_contiguous_format = torch.contiguous_format
_uint8 = torch.uint8
_is_compiling = torch.compiler.is_compiling
try:
    _dispatch_modes = torch._C._len_torch_dispatch_stack
    _functorch_active = torch._C._are_functorch_transforms_active
except AttributeError:  # pragma: no cover - other torch builds: always take the custom-op path
    def _dispatch_modes():
        return 1

    def _functorch_active():
        return True


def eager(x):
    """Whether x takes the direct path (straight into gpuact._C, no dispatcher): a plain CUDA tensor, not
    traced, no dispatch mode and no functorch transform (vmap, grad) active. Otherwise (torch.compile,
    export, subclasses, modes, transforms, meta tensors) the torch.library custom ops run."""
    return (type(x) is _Tensor and x.is_cuda and not _is_compiling() and not _dispatch_modes() and
            not _functorch_active())


def new_like(t, dtype=None):
    """An uninitialised contiguous tensor of t's shape, device and dtype (or dtype). empty_like, whose
    argument parsing costs a fraction of torch.empty(shape, dtype=, device=)'s per call."""
    if t.is_contiguous():
        return _empty_like(t) if dtype is None or dtype == t.dtype else _empty_like(t, dtype=dtype)
    return _empty_like(t, dtype=dtype, memory_format=_contiguous_format)


def _fail(fn, text):
    raise InvalidArgument(f"gpuact.torch.{fn}: {text}")


def check(t, name, fn, devices=("cuda",)):
    """t is a tensor on a CUDA device (or meta, for shape inference) with a
    dtype gpuact has (float32, float16, bfloat16)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"gpuact.torch.{fn}: {name} must be a torch.Tensor, not {type(t).__name__}")
    if not t.is_cuda and t.device.type not in devices:  # is_cuda first: no device object on the fast path
        _fail(fn, f"{name} is on {t.device}; gpuact runs on CUDA (and ROCm) devices only: "
                  f"move it there (.cuda()) or use torch's own op on the CPU")
    if t.dtype not in DTYPE:
        _fail(fn, f"{name} has dtype {t.dtype}; gpuact supports torch.float32, torch.float16 and torch.bfloat16 "
                  f"(cast first: float64 and integer tensors are not supported)")


def same_device(a, b, an, bn, fn):
    if a.device != b.device:
        _fail(fn, f"{an} is on {a.device} and {bn} on {b.device}; they must be on the same device")


def dense(t):
    """Whether t's elements fill its memory without gaps or overlap in one
    of the layouts torch makes (contiguous, channels_last, channels_last_3d):
    then an elementwise op runs on its memory as it is."""
    if t.is_contiguous():
        return True
    if t.dim() == 4:
        return t.is_contiguous(memory_format=torch.channels_last)
    if t.dim() == 5:
        return t.is_contiguous(memory_format=torch.channels_last_3d)
    return False


def _ptr(t):
    return t.data_ptr() if t is not None else None


# ---------------------------------------------------------------------------------------------
# Epilogue: y = act(x + bias) * scale on the last dimension

def rows_cols(t):
    cols = t.shape[-1]
    return math.prod(t.shape[:-1]), cols


def as_matrix(t):
    """(tensor, ld): t as rows x cols with unit column stride; a 2-D view
    with a row stride >= cols is used as it is (ld), anything that is not
    contiguous otherwise is copied."""
    rows, cols = rows_cols(t)
    if t.dim() == 2 and t.stride(1) == 1 and (rows <= 1 or t.stride(0) >= cols):
        return t, (t.stride(0) if rows > 1 else cols)
    if t.is_contiguous():
        return t, cols
    return t.contiguous(), cols


def _check_scale(scale, fn):
    if scale == 0:
        _fail(fn, "scale = 0 is not supported (the C API reads 0 as 1); multiply the result by 0 instead")


def torch_mask_ld(cols):
    """The epilogue masks' row pitch in bits here: cols rounded up to 8, so every byte of a mask tensor is
    written by the forward (gpuact never writes past a row's ceil(cols / 8) bytes; with the C default of
    128 the bytes in between would stay as torch.empty left them, and a mask tensor must be a
    deterministic function of its inputs for torch.compile and opcheck)."""
    return (cols + 7) // 8 * 8


# ---------------------------------------------------------------------------------------------
# Gated forms: y = act(a + bias_a) * (b + bias_b)

def glu_check(a, b, bias_a, bias_b, fn, devices=("cuda",)):
    """The gated forms' argument rules (shapes, dtypes, devices, biases both or neither); returns cols.
    The custom ops' fake implementations apply them too (devices: "meta" as well), so a traced call is
    refused as an eager one is."""
    check(a, "a", fn, devices)
    if a.dim() < 1:
        _fail(fn, "the input must have at least one dimension (the last one is the gated one)")
    if b is None:
        if a.shape[-1] % 2:
            _fail(fn, f"the fused input's last dimension is {a.shape[-1]}; it must be even (gate || up)")
        cols = a.shape[-1] // 2
        if bias_b is not None:
            _fail(fn, "the fused form takes one bias of 2 * cols elements (bias_a), not bias_b")
        biases = (("bias", bias_a, 2 * cols),)
    else:
        check(b, "b", fn, devices)
        same_device(a, b, "a", "b", fn)
        if a.shape != b.shape or a.dtype != b.dtype:
            _fail(fn, f"a has shape {tuple(a.shape)} and dtype {a.dtype}, b {tuple(b.shape)} and {b.dtype}; "
                      f"they must match")
        if (bias_a is None) != (bias_b is None):
            _fail(fn, "give both of bias_a and bias_b, or neither")
        cols = a.shape[-1]
        biases = (("bias_a", bias_a, cols), ("bias_b", bias_b, cols))
    for name, bias, n in biases:
        if bias is not None:
            check(bias, name, fn, devices)
            same_device(a, bias, "a", name, fn)
            if bias.dim() != 1 or bias.shape[0] != n:
                _fail(fn, f"{name} has shape {tuple(bias.shape)}; it must be ({n},)")
    return cols
