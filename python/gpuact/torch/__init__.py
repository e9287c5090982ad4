"""gpuact for PyTorch: the ReLU family, hardtanh, GELU, SiLU, squared ReLU
and the fused bias + activation + scale epilogue on CUDA tensors, with
autograd that keeps a 1-bit mask (the ReLU family, hardtanh) or the input
(the smooth kinds), torch.library custom ops (torch.compile fullgraph,
export, CUDA graphs) and nn modules.

    import gpuact.torch as ga
    y = ga.relu(x)                                    # torch.nn.functional.relu, bit-exact
    y = ga.bias_act(x @ w.T, b, "relu", scale=0.5)    # relu(x @ w.T + b) * 0.5, one kernel
    model = torch.nn.Sequential(ga.nn.Linear(1024, 4096), ga.nn.Linear(4096, 10, activation="relu"))

Functions: relu, leaky_relu, relu6, clipped_relu, hardtanh, gelu, silu,
squared_relu, activation (any kind of the C table: gpuact.KIND_NAMES),
bias_act; the gated forms swiglu, geglu, reglu, gated (a and b, or the
fused projection h = gate || up). Modules: gpuact.torch.nn.ReLU, LeakyReLU,
ReLU6, Hardtanh, GELU, SiLU, Activation, Linear, GatedMLP (the LLaMA FFN).
Custom ops: torch.ops.gpuact.* (gpuact/torch/_ops.py); the elementwise ones are
compiled C++ operators (gpuact.torch._ext, built with the package when torch is
importable at build time: pip install --no-build-isolation ./python).

Numerics: the ReLU family, hardtanh and squared ReLU are torch's results bit
for bit (the exceptions: docs/NUMERICS.md, python/README.md); GELU and SiLU
are gpuact's own f32 math, within 2 ulps of the correctly rounded value (1 with precise=True), so
they differ from torch's in the last bit or two of a float32 where torch's
own formulas are that accurate (16-bit results: at most 1 ulp), and by more
where they are not (python/README.md).

CUDA graphs: capture after a warm-up run of the same calls outside the
capture (torch's rule too: the first call of each op builds its kernel and
creates gpuact's context, which a capture does not allow). Under capture
the bias gradient is summed by torch (gpuact's own bias-gradient pass keeps
a workspace pool ordered by events, which capture does not allow).
"""
try:
    import torch  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("gpuact.torch needs PyTorch (import torch failed: "
                      f"{e}); the framework-free layers are gpuact and gpuact.ops") from e

from . import _ops  # noqa: F401  registers torch.ops.gpuact.*
from . import nn  # noqa: F401
from .functional import (activation, autocast_dtype, bias_act, clipped_relu, gated, geglu, gelu, hardtanh, leaky_relu,
                         reglu, relu, relu6, silu, squared_relu, swiglu)

from .._core import BEFORE_SHUTDOWN as _BEFORE_SHUTDOWN


def _wait_for_queued_work():
    if torch.cuda.is_initialized():
        for d in range(torch.cuda.device_count()):
            torch.cuda.synchronize(d)


_BEFORE_SHUTDOWN.append(_wait_for_queued_work)
_BEFORE_SHUTDOWN.append(torch.ops.gpuact._shutdown)  # the compiled operators' contexts, after that wait

__all__ = ["activation", "bias_act", "clipped_relu", "gated", "geglu", "gelu", "hardtanh", "leaky_relu", "reglu",
           "relu", "relu6", "silu", "squared_relu", "swiglu", "nn", "ops"]
ops = torch.ops.gpuact
