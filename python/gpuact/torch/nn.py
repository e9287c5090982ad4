"""Modules: drop-ins for torch.nn.ReLU, LeakyReLU, ReLU6, Hardtanh (the
backward keeps a 1-bit mask instead of the input or output), GELU and SiLU
(they keep the input, as torch's), a generic Activation,
and Linear: torch.nn.Linear's matmul (cuBLAS, through torch) followed by
gpuact's fused bias + activation + scale epilogue, whose backward gives the
input gradient and the bias gradient in one pass.

Linear subclasses torch.nn.Linear: the same parameters (weight, bias), the
same initialisation and the same state_dict keys, so
`gpuact.torch.nn.Linear(i, o).load_state_dict(torch.nn.Linear(i, o).state_dict())`
works, and Linear.from_linear(m) converts a trained module (for
nn.Sequential(nn.Linear, nn.ReLU): Linear.from_linear(seq[0], "relu")).
"""
import torch

from .._core import gelu_kind
from . import functional as F


class Activation(torch.nn.Module):
    """Any kind of gpuact's table: Activation("leaky_relu", negative_slope=0.2)."""

    def __init__(self, kind="relu", inplace=False, **params):
        super().__init__()
        self.kind, self.inplace, self.params = kind, inplace, dict(params)
        F._kp(kind, self.params)  # refuse an unknown kind or parameter now, not at the first call

    def forward(self, x):
        return F.activation(x, self.kind, inplace=self.inplace, **self.params)

    def extra_repr(self):
        args = [repr(self.kind)] + [f"{k}={v}" for k, v in self.params.items()]
        return ", ".join(args + (["inplace=True"] if self.inplace else []))


class ReLU(torch.nn.Module):
    """torch.nn.ReLU."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return F.relu(x, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(torch.nn.Module):
    """torch.nn.LeakyReLU (negative_slope >= 0)."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, x):
        return F.leaky_relu(x, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ReLU6(torch.nn.Module):
    """torch.nn.ReLU6."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return F.relu6(x, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Hardtanh(torch.nn.Module):
    """torch.nn.Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"gpuact.torch.nn.Hardtanh: min_val = {min_val} > max_val = {max_val}")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, x):
        return F.hardtanh(x, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class GELU(torch.nn.Module):
    """torch.nn.GELU(approximate="none" | "tanh") (gpuact's own f32 math: within 1 ulp of the correctly
    rounded value, not bit-identical with torch's)."""

    def __init__(self, approximate="none"):
        super().__init__()
        gelu_kind(approximate, "gpuact.torch.nn.GELU")  # refuse anything but "none" and "tanh" now
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(torch.nn.Module):
    """torch.nn.SiLU(inplace=False) (gpuact's own f32 math, as GELU)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return F.silu(x, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Linear(torch.nn.Linear):
    """y = act(x @ weight.T + bias) * scale: torch.nn.Linear(in_features,
    out_features, bias) followed by the activation, in two kernels (cuBLAS's
    matmul, then gpuact's epilogue) instead of three, trainable (the bias
    gradient comes with the input gradient in one pass), with a 1-bit mask
    saved for the backward instead of a tensor (the ReLU family, hardtanh;
    the smooth kinds keep the matmul's output, as torch's GELU keeps its
    input). scale=1/c replaces a following division by c. activation: a kind
    or alias of gpuact's table (relu, leaky_relu, clipped_relu, relu6,
    hardtanh, gelu, gelu_tanh, silu, squared_relu), parameters by the C field
    names (negative_slope=, ceiling=, lower=)."""

    def __init__(self, in_features, out_features, bias=True, activation="relu", scale=1.0, device=None,
                 dtype=None, **act_params):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.activation, self.scale, self.act_params = activation, float(scale), dict(act_params)
        F._kp(activation, self.act_params)  # refuse an unknown kind or parameter now

    def forward(self, x):
        z = torch.nn.functional.linear(x, self.weight)
        return F.bias_act(z, self.bias, self.activation, self.scale, **self.act_params)

    def extra_repr(self):
        extra = f", activation={self.activation!r}"
        extra += "".join(f", {k}={v}" for k, v in self.act_params.items())
        return super().extra_repr() + extra + (f", scale={self.scale}" if self.scale != 1.0 else "")

    @classmethod
    def from_linear(cls, linear, activation="relu", scale=1.0, **act_params):
        """A Linear with linear's parameters (shared, not copied) followed by the activation."""
        m = cls(linear.in_features, linear.out_features, bias=linear.bias is not None, activation=activation,
                scale=scale, device="meta", **act_params)
        m.weight = linear.weight
        if linear.bias is not None:
            m.bias = linear.bias
        return m
