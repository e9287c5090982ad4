"""gpuact: GPU activation kernels (ReLU, leaky ReLU, clipped ReLU, hardtanh,
GELU, SiLU, squared ReLU; the fused bias + activation + scale epilogue),
forward and backward (the ReLU family and hardtanh with a 1-bit gradient
mask, the smooth kinds from the forward's input) from Python.

    import gpuact.torch as ga            # PyTorch: functional, autograd, nn modules, torch.compile
    y = ga.relu(x)                       # x: a CUDA tensor (f32, f16, bf16)

    import gpuact.ops                    # any DLPack array (CuPy, JAX, torch)
    y = gpuact.ops.relu(cupy_array)

    python -m gpuact                     # version, backends (or why not), devices, cache

The C library (gpuact.h) is compiled into gpuact._C; vendor libraries
(libcuda + NVRTC, HIP, OpenCL) are loaded at run time, so one build runs on
any machine. This module holds the framework-free layer: the C tables
(KINDS, DTYPES, BACKENDS, ACT_PARAMS), the exceptions (GpuactError and one
subclass per gpuact_result, e.g. InvalidArgument, also a ValueError) and
the raw operations on device handles (forward, backward, epilogue_forward,
epilogue_backward, Buffer for memory of gpuact's own, e.g. on OpenCL).
"""
import atexit as _atexit

from . import _C, _core
from ._core import (  # noqa: F401
    ACT_PARAMS, ACT_PRECISE, ALIASES, BACKENDS, DTYPES, ERRORS, KIND_COLUMNS, KIND_NAMES, KINDS, VERSION, Activation, Buffer,
    GpuactError, KindInfo, activation, backend_value, backward, cache_dir, context_info, dtype_size, dtype_value,
    epilogue_backward, epilogue_forward, epilogue_mask_ld, error_class, forward, glu_backward, glu_forward, mask_bytes,
    resolve_kind,
    synchronize,
)
from ._core import ERRORS as _ERRORS

globals().update(_ERRORS)  # InvalidArgument, NotSupported, BackendUnavailable, OutOfMemory, KernelBuild, DeviceError

__version__ = VERSION
__all__ = ["VERSION", "KINDS", "KIND_NAMES", "DTYPES", "BACKENDS", "ACT_PARAMS", "ACT_PRECISE", "Activation", "activation",
           "GpuactError", "Buffer", "forward", "backward", "epilogue_forward", "epilogue_backward", "glu_forward",
           "glu_backward", "synchronize",
           "context_info", "error_class", "ops", "torch"] + list(_ERRORS)

# Contexts are created on first use; destroy them before the interpreter
# (and the vendor runtimes' own exit handlers) go away, after the frameworks'
# queued work is done (gpuact.torch and gpuact.ops add those waits: a
# context's kernels are unloaded when it is destroyed).
_atexit.register(_core.shutdown)


def __getattr__(name):
    # gpuact.ops and gpuact.torch load on first use (gpuact.torch imports torch).
    if name in ("ops", "torch"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'gpuact' has no attribute {name!r}")
