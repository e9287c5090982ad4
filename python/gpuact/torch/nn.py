"""Modules: drop-ins for torch.nn.ReLU, LeakyReLU, ReLU6, Hardtanh (the
backward keeps a 1-bit mask instead of the input or output), GELU and SiLU
(they keep the input, as torch's), made from the table SIMPLE_MODULES with
torch.nn's constructors, defaults and repr; a generic Activation; and Linear: torch.nn.Linear's matmul (cuBLAS, through torch) followed by
gpuact's fused bias + activation + scale epilogue, whose backward gives the
input gradient and the bias gradient in one pass.

Linear subclasses torch.nn.Linear: the same parameters (weight, bias), the
same initialisation and the same state_dict keys, so
`gpuact.torch.nn.Linear(i, o).load_state_dict(torch.nn.Linear(i, o).state_dict())`
works, and Linear.from_linear(m) converts a trained module (for
nn.Sequential(nn.Linear, nn.ReLU): Linear.from_linear(seq[0], "relu")).

GatedMLP is the LLaMA-style FFN, down(act(gate(x)) * up(x)), with gate and
up stacked into one Linear (one matmul) and the gated activation in one
kernel; it loads the three-Linear state_dicts (w1/w3/w2, gate_proj/up_proj/
down_proj) as they are.
"""
import inspect
import operator

import torch

from .._core import KINDS, gelu_kind
from . import fewbit as _fewbit
from . import functional as F
from ._ext import linear_act as _linear_act


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


def _hardtanh_bounds(min_val, max_val):
    if min_val > max_val:
        raise ValueError(f"gpuact.torch.nn.Hardtanh: min_val = {min_val} > max_val = {max_val}")


# ---- few-bit backward (gpuact.torch.fewbit) ----
def _fewbit_bits(bits, kind, module):
    return _fewbit.check_bits(bits, KINDS[kind].value, f"nn.{module}")


def _fewbit_repr(bits, sep=""):
    return "" if bits is None else f"{sep}backward_bits={bits}"
# ---- end few-bit backward ----


def _gelu_check(approximate, backward_bits):
    gelu_kind(approximate, "gpuact.torch.nn.GELU")  # refuse anything but "none" and "tanh" now
    _fewbit_bits(backward_bits, "gelu_tanh" if approximate == "tanh" else "gelu", "GELU")


def _silu_check(backward_bits):
    _fewbit_bits(backward_bits, "silu", "SiLU")


#: The modules that stand for torch.nn's activation modules, one row each: (class name, gpuact kind, the
#: function of gpuact.torch.functional it calls, its constructor parameters after x with torch's defaults
#: (inplace last where torch has it; then gpuact's own keyword-only option, marked "kw", passed on by
#: keyword when it is not None), a check of those parameters at construction (by name, inplace left
#: out), docstring). The classes
#: are made from these rows; a new kind with a torch.nn counterpart is one row.
SIMPLE_MODULES = (
    ("ReLU", "relu", F.relu, (("inplace", False),), None, "torch.nn.ReLU."),
    ("LeakyReLU", "leaky", F.leaky_relu, (("negative_slope", 0.01), ("inplace", False)), None,
     "torch.nn.LeakyReLU (negative_slope >= 0)."),
    ("ReLU6", "clipped", F.relu6, (("inplace", False),), None, "torch.nn.ReLU6."),
    ("Hardtanh", "hardtanh", F.hardtanh, (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)), _hardtanh_bounds,
     "torch.nn.Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)."),
    ("GELU", "gelu", F.gelu, (("approximate", "none"), ("backward_bits", None, "kw")), _gelu_check,
     "torch.nn.GELU(approximate=\"none\" | \"tanh\") (gpuact's own f32 math: within 2 ulps of the correctly "
     "rounded value, not bit-identical with torch's). backward_bits=b (1-4): the few-bit backward "
     "(gpuact.torch.fewbit)."),
    ("SiLU", "silu", F.silu, (("inplace", False), ("backward_bits", None, "kw")), _silu_check,
     "torch.nn.SiLU(inplace=False) (gpuact's own f32 math, as GELU; backward_bits= too)."),
)


def _simple_module(name, kind, fn, params, check, doc):
    names = tuple(p[0] for p in params)
    pos = tuple(p[0] for p in params if len(p) == 2)
    kw = tuple(p[0] for p in params if len(p) == 3)
    assert len(kw) <= 1 and (not kw or len(pos) == 1), name
    sig = inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] +
                            [inspect.Parameter(p[0], inspect.Parameter.KEYWORD_ONLY if len(p) == 3 else
                                               inspect.Parameter.POSITIONAL_OR_KEYWORD, default=p[1])
                             for p in params])

    def __init__(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = tuple(bound.arguments[p] for p in names)
        if check is not None:
            check(**{p: v for p, v in zip(names, values) if p != "inplace"})
        torch.nn.Module.__init__(self)
        for p, v in zip(names, values):
            setattr(self, p, v)

    # forward reads its attributes by name, positionally into fn: the call a torch.nn module makes
    get = operator.attrgetter(*pos)
    if len(pos) == 1 and not kw:
        def forward(self, x, _get=get):
            return fn(x, _get(self))
    elif len(pos) == 1:
        def forward(self, x, _get=get, _k=kw[0]):
            v = getattr(self, _k)
            return fn(x, _get(self)) if v is None else fn(x, _get(self), **{_k: v})
    else:
        def forward(self, x, _get=get):
            return fn(x, *_get(self))

    def extra_repr(self):
        out = [f"{p}={getattr(self, p)!r}" for p in pos if p != "inplace"]
        out += [f"{p}={getattr(self, p)!r}" for p in kw if getattr(self, p) is not None]
        return ", ".join(out + (["inplace=True"] if getattr(self, "inplace", False) else []))

    __init__.__signature__ = sig
    return type(name, (torch.nn.Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                           "kind": kind, "__doc__": doc, "__module__": __name__,
                                           "__qualname__": name})


for _row in SIMPLE_MODULES:
    globals()[_row[0]] = _simple_module(*_row)
del _row


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
    names (negative_slope=, ceiling=, lower=). backward_bits=b (1-4; gelu,
    gelu_tanh, silu): the few-bit backward (gpuact.torch.fewbit)."""

    def __init__(self, in_features, out_features, bias=True, activation="relu", scale=1.0, device=None,
                 dtype=None, backward_bits=None, **act_params):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.activation, self.scale, self.act_params = activation, float(scale), dict(act_params)
        kp = F._kp(activation, self.act_params)  # refuse an unknown kind or parameter now
        self.backward_bits = _fewbit.check_bits(backward_bits, kp[0], "nn.Linear")

    def forward(self, x):
        if self.backward_bits is None and not F._is_compiling():  # eager: one call into C++
            kp = F._kp(self.activation, self.act_params)
            y = _linear_act(x, self.weight, self.bias, kp[0], kp[5], self.scale)
            if y is not NotImplemented:
                return y
        z = torch.nn.functional.linear(x, self.weight)
        if self.backward_bits is not None:
            return F.bias_act(z, self.bias, self.activation, self.scale, backward_bits=self.backward_bits,
                              **self.act_params)
        return F._bias_act(z, self.bias, F._kp(self.activation, self.act_params), self.scale, None)

    def extra_repr(self):
        extra = f", activation={self.activation!r}"
        extra += "".join(f", {k}={v}" for k, v in self.act_params.items())
        return (super().extra_repr() + extra + (f", scale={self.scale}" if self.scale != 1.0 else "") +
                _fewbit_repr(self.backward_bits, ", "))

    @classmethod
    def from_linear(cls, linear, activation="relu", scale=1.0, **act_params):
        """A Linear with linear's parameters (shared, not copied) followed by the activation."""
        m = cls(linear.in_features, linear.out_features, bias=linear.bias is not None, activation=activation,
                scale=scale, device="meta", **act_params)
        m.weight = linear.weight
        if linear.bias is not None:
            m.bias = linear.bias
        return m


_GATED_ACTIVATIONS = ("silu", "swish", "gelu", "gelu_tanh", "relu")

#: Names of the usual three-Linear FFN's layers -> (gate, up, down): LLaMA's reference code, Hugging Face's.
FFN_KEYS = (("w1", "w3", "w2"), ("gate_proj", "up_proj", "down_proj"))


class GatedMLP(torch.nn.Module):
    """The LLaMA-style gated FFN: y = down(act(gate(x)) * up(x)), act = silu (SwiGLU), gelu / gelu_tanh
    (GeGLU) or relu (ReGLU), as two Linear layers and one gpuact kernel:

        self.up:   torch.nn.Linear(dim, 2 * hidden, bias)   weight rows [0, hidden) = gate (w1),
                                                             rows [hidden, 2 hidden) = up (w3)
        self.down: torch.nn.Linear(hidden, dim, bias)       = w2

    forward: h = x @ up.weight.T (one matmul for gate and up), then gpuact.torch.gated(h, bias=up.bias)
    reads the two halves of h in place (act(h[..., :hidden] + b1) * (h[..., hidden:] + b3), one kernel;
    autograd keeps h only, and the backward writes dh in one pass), then down. Under torch.autocast the
    matmuls and the gated kernel run in the autocast dtype, the biases too (torch's rule for F.linear),
    and their gradients come back in the parameters' dtype.

    state_dict: "up.weight" (2 hidden x dim), "up.bias", "down.weight", "down.bias". It also loads the
    state_dict of the usual three-Linear FFN as it is: keys w1/w3/w2 (LLaMA's FeedForward) or gate_proj/
    up_proj/down_proj (Hugging Face's LlamaMLP), ".weight" and ".bias": gate and up are stacked into
    up.weight on load. from_linears(gate, up, down) builds one from three torch.nn.Linear, and
    to_linears() gives them back (copies), e.g. for saving in the three-Linear layout.

    The initialisation is torch.nn.Linear's: up is Linear(dim, 2 hidden), whose bounds depend on dim alone,
    as the two Linear(dim, hidden) it replaces."""

    def __init__(self, dim, hidden, activation="silu", bias=False, device=None, dtype=None):
        super().__init__()
        if activation not in _GATED_ACTIVATIONS:
            raise ValueError(f"gpuact.torch.nn.GatedMLP: activation {activation!r} is not one of "
                             f"{', '.join(_GATED_ACTIVATIONS)}")
        self.dim, self.hidden, self.activation = dim, hidden, activation
        self.up = torch.nn.Linear(dim, 2 * hidden, bias=bias, device=device, dtype=dtype)
        self.down = torch.nn.Linear(hidden, dim, bias=bias, device=device, dtype=dtype)

    def forward(self, x):
        h = torch.nn.functional.linear(x, self.up.weight)
        return self.down(F.gated(h, activation=self.activation, bias=self.up.bias))

    def extra_repr(self):
        return f"dim={self.dim}, hidden={self.hidden}, activation={self.activation!r}"

    # -- the three-Linear layout ------------------------------------------------------------------
    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for gate, up, down in FFN_KEYS:
            for suffix in ("weight", "bias"):
                g, u, d = (f"{prefix}{k}.{suffix}" for k in (gate, up, down))
                if g in state_dict and u in state_dict:
                    state_dict[f"{prefix}up.{suffix}"] = torch.cat([state_dict.pop(g), state_dict.pop(u)], 0)
                if d in state_dict:
                    state_dict[f"{prefix}down.{suffix}"] = state_dict.pop(d)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    @classmethod
    def from_linears(cls, gate, up, down, activation="silu"):
        """A GatedMLP with the weights of three torch.nn.Linear (LLaMA's w1, w3, w2), copied."""
        bias = gate.bias is not None
        if (up.bias is not None) != bias or (down.bias is not None) != bias:
            raise ValueError("gpuact.torch.nn.GatedMLP.from_linears: gate, up and down must all have a bias or none")
        if gate.weight.shape != up.weight.shape or down.weight.shape[::-1] != gate.weight.shape:
            raise ValueError(f"gpuact.torch.nn.GatedMLP.from_linears: gate {tuple(gate.weight.shape)}, up "
                             f"{tuple(up.weight.shape)} and down {tuple(down.weight.shape)} are not "
                             f"(hidden, dim), (hidden, dim), (dim, hidden)")
        hidden, dim = gate.weight.shape
        m = cls(dim, hidden, activation, bias=bias, device=gate.weight.device, dtype=gate.weight.dtype)
        with torch.no_grad():
            m.up.weight.copy_(torch.cat([gate.weight, up.weight], 0))
            m.down.weight.copy_(down.weight)
            if bias:
                m.up.bias.copy_(torch.cat([gate.bias, up.bias], 0))
                m.down.bias.copy_(down.bias)
        return m

    def to_linears(self):
        """(gate, up, down): three torch.nn.Linear with copies of this module's weights."""
        h, bias = self.hidden, self.up.bias is not None
        kw = {"device": self.up.weight.device, "dtype": self.up.weight.dtype}
        gate = torch.nn.Linear(self.dim, h, bias=bias, **kw)
        up = torch.nn.Linear(self.dim, h, bias=bias, **kw)
        down = torch.nn.Linear(h, self.dim, bias=bias, **kw)
        with torch.no_grad():
            gate.weight.copy_(self.up.weight[:h])
            up.weight.copy_(self.up.weight[h:])
            down.weight.copy_(self.down.weight)
            if bias:
                gate.bias.copy_(self.up.bias[:h])
                up.bias.copy_(self.up.bias[h:])
                down.bias.copy_(self.down.bias)
        return gate, up, down
