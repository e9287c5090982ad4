"""What the compiled operators' Python side needs: the backend gpuact.torch._ext creates its contexts
with, the argument checks and shape rules of the fake implementations (torch.compile, meta tensors:
the same rules and messages as the C++ kernels in src/torch_ops.cpp), and the dtype codes and raw
stream the host-time benchmark's breakdown uses."""
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


def _fail(fn, text):
    raise InvalidArgument(f"gpuact.torch.{fn}: {text}")


#: CPU tensors stand for CUDA ones (testing_mock(True)): the fakes accept them as the kernels do
MOCK = [False]


def testing_mock(on):
    """gpuact::_testing_mock(on) (the kernels record their launches instead of running them, CPU tensors
    standing for CUDA ones), the fakes following; returns the records made since the last call."""
    MOCK[0] = bool(on)
    return torch.ops.gpuact._testing_mock(bool(on))


def check(t, name, fn, devices=("cuda",)):
    """t is a tensor on a CUDA device (or meta, for shape inference) with a
    dtype gpuact has (float32, float16, bfloat16)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"gpuact.torch.{fn}: {name} must be a torch.Tensor, not {type(t).__name__}")
    if not t.is_cuda and t.device.type not in devices and not (MOCK[0] and t.device.type == "cpu"):
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


def rows_cols(t):
    cols = t.shape[-1]
    return math.prod(t.shape[:-1]), cols


def torch_mask_ld(cols):
    """The epilogue masks' row pitch in bits here: cols rounded up to 8, so every byte of a mask tensor is
    written by the forward (gpuact never writes past a row's ceil(cols / 8) bytes; with the C default of
    128 the bytes in between would stay as torch.empty left them, and a mask tensor must be a
    deterministic function of its inputs for torch.compile and opcheck)."""
    return (cols + 7) // 8 * 8


def glu_check(a, b, bias_a, bias_b, fn, devices=("cuda",)):
    """The gated forms' argument rules (shapes, dtypes, devices, biases both or neither; the C++ kernels'
    glu_check) for the fakes (devices: "meta" as well), so a traced call is refused as an eager one is;
    returns cols."""
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
