"""gpuact on any GPU array: CuPy, JAX, PyTorch (any DLPack producer), and
Numba-style __cuda_array_interface__ objects.

    import cupy, gpuact.ops as go
    x = cupy.random.randn(1 << 20, dtype=cupy.float32)
    y = go.relu(x)                          # a CuPy array
    y, m = go.activation(x, "leaky_relu", negative_slope=0.1, mask=True)
    dx = go.activation_backward(dy, "leaky_relu", negative_slope=0.1, mask=m)
    y = go.gelu(x); dx = go.activation_backward(dy, "gelu", x=x)   # smooth kinds: no mask, from x

Arrays are read through DLPack (__dlpack__ / __dlpack_device__; no copy:
the capsule is only read) or, for objects without it, through
__cuda_array_interface__. Their device (CUDA, ROCm) and index pick gpuact's
context; float32, float16 and bfloat16 are supported, masks are uint8.

Outputs (out=, mask=, dbias=): give an array to write into, or leave them to
be allocated by the input's own framework and returned in it:
  - CuPy: cupy.empty (CuPy has no bfloat16: pass out= for those);
  - PyTorch: torch.empty on the tensor's device;
  - Numba: numba.cuda.device_array;
  - JAX (arrays are immutable): the buffer is allocated through PyTorch or
    CuPy (whichever is installed), filled, waited for, and handed to JAX
    with jax.dlpack.from_dlpack (no copy). JAX inputs are waited for
    (block_until_ready) before use. out= must be a writable array of another
    framework.
A mask=True / dbias=True asks for that output too: the call then returns a
tuple.

Streams: stream= takes an int handle or a stream object (CuPy's .ptr,
torch's .cuda_stream); by default the input framework's current stream
(CuPy, torch), else the legacy default stream. DLPack inputs are made ready
for that stream by their producer (the stream argument of __dlpack__); a
__cuda_array_interface__ array that names another stream is waited for on
the host.

Layouts: the elementwise ops need C-contiguous arrays; bias_act takes a 2-D
array with unit column stride and any row stride >= cols (a leading
dimension). Anything else: make it contiguous first.
"""
import importlib
import importlib.util

from . import _C, _core
from ._core import BACKENDS, InvalidArgument, activation as _activation, epilogue_mask_ld

_KDL_CUDA, _KDL_CPU, _KDL_ROCM, _KDL_CUDA_MANAGED = 2, 1, 10, 13
_GPU_DEVICES = {_KDL_CUDA: "cuda", _KDL_CUDA_MANAGED: "cuda", _KDL_ROCM: "hip"}
# (DLPack type code, bits) -> dtype name; gpuact's dtype values from the C table
_DL_DTYPES = {(2, 32): "f32", (2, 16): "f16", (4, 16): "bf16", (1, 8): "u8"}
_CAI_DTYPES = {"f4": "f32", "f2": "f16", "u1": "u8"}
_GPUACT_DT = {name: i for i, (name, _) in enumerate(_C.DTYPES)}
_ITEMSIZE = {"f32": 4, "f16": 2, "bf16": 2, "u8": 1}


class _Array:
    """What gpuact needs of an array: address, shape, strides (elements),
    dtype name, backend, device; holds the array (and its DLPack capsule)."""

    __slots__ = ("obj", "keep", "ptr", "shape", "strides", "dtype", "backend", "device", "read_only", "framework",
                 "cai_stream")

    def __init__(self, obj, name, stream):
        self.obj, self.keep, self.cai_stream = obj, None, None
        self.framework = _framework(obj)
        if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            self._from_dlpack(obj, name, stream)
        elif hasattr(obj, "__cuda_array_interface__"):
            self._from_cai(obj, name)
        else:
            raise TypeError(f"gpuact.ops: {name} ({type(obj).__name__}) is neither a DLPack array (__dlpack__) "
                            f"nor a __cuda_array_interface__ array")
        if self.numel() and self.dtype is None:
            raise InvalidArgument(f"gpuact.ops: {name} has a dtype gpuact does not support; "
                                  f"float32, float16 and bfloat16 are (masks: uint8)")

    def _from_dlpack(self, obj, name, stream):
        dev_type, dev_id = obj.__dlpack_device__()
        dev_type, dev_id = int(dev_type), int(dev_id)
        if dev_type not in _GPU_DEVICES:
            raise InvalidArgument(f"gpuact.ops: {name} is not on a CUDA or ROCm device (DLPack device type "
                                  f"{dev_type}); gpuact runs on GPUs")
        if self.framework in ("jax", "jaxlib"):
            # JAX has no stream of the caller's to order on: wait for the array on the host.
            obj.block_until_ready()
            cap = obj.__dlpack__()
        else:
            # The DLPack stream convention: CUDA 1 = legacy default stream; ROCm 0 = default stream.
            s = stream if stream else (1 if dev_type != _KDL_ROCM else 0)
            try:
                cap = obj.__dlpack__(stream=s, max_version=(1, 0))
            except TypeError:  # a producer from before DLPack 1.0's keyword
                cap = obj.__dlpack__(stream=s)
        data, offset, _, _, shape, strides, code, bits, lanes, ro = _C.dlpack_describe(cap)
        self.keep = cap
        self.ptr = data + offset
        self.shape, self.strides = tuple(shape), (tuple(strides) if strides is not None else None)
        self.dtype = _DL_DTYPES.get((code, bits)) if lanes == 1 else None
        self.backend = BACKENDS[_GPU_DEVICES[dev_type]]
        self.device = dev_id
        self.read_only = bool(ro)

    def _from_cai(self, obj, name):
        cai = obj.__cuda_array_interface__
        self.ptr, self.read_only = cai["data"][0] or 0, bool(cai["data"][1])
        self.shape = tuple(cai["shape"])
        self.dtype = _CAI_DTYPES.get(cai["typestr"][1:])
        size = _ITEMSIZE.get(self.dtype, 1)
        st = cai.get("strides")
        self.strides = tuple(s // size for s in st) if st else None
        self.backend = BACKENDS["cuda"]
        self.device = _cai_device(obj)
        self.cai_stream = cai.get("stream")

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def contiguous(self):
        if self.strides is None:
            return True
        expect = 1
        for size, st in zip(reversed(self.shape), reversed(self.strides)):
            if size != 1 and st != expect:
                return False
            expect *= size
        return True

    def matrix(self, name, fn):
        """(rows, cols, ld) of a 2-D array with unit column stride (1-D: one row)."""
        if len(self.shape) == 1:
            return 1, self.shape[0], self.shape[0]
        if len(self.shape) != 2:
            raise InvalidArgument(f"gpuact.ops.{fn}: {name} must be 2-D (rows, cols), not {len(self.shape)}-D")
        rows, cols = self.shape
        if self.strides is None:
            return rows, cols, cols
        rs, cs = self.strides
        if (cs != 1 and cols > 1) or (rows > 1 and rs < cols):
            raise InvalidArgument(f"gpuact.ops.{fn}: {name} has strides {self.strides} (elements); it needs a unit "
                                  f"column stride and a row stride >= cols: make it contiguous first")
        return rows, cols, (rs if rows > 1 else cols)


def _cai_device(obj):
    try:  # Numba's arrays know their context's device
        return int(obj.gpu_data.device.id) if hasattr(obj, "gpu_data") else 0
    except Exception:
        return 0


def _framework(obj):
    return type(obj).__module__.split(".")[0]


def _alloc_framework(fw):
    """The framework whose arrays hold outputs for inputs of fw (JAX: torch or CuPy)."""
    if fw in ("jax", "jaxlib"):
        for other in ("torch", "cupy"):
            if importlib.util.find_spec(other):
                return other
        return None
    return fw


def _stream_handle(stream, like):
    """An int stream handle: stream as given (int, .ptr, .cuda_stream), else
    the current stream of the framework that owns the outputs (CuPy, torch),
    else 0 (the legacy default stream)."""
    if stream is not None:
        if isinstance(stream, int):
            return stream
        for attr in ("ptr", "cuda_stream", "handle"):
            if hasattr(stream, attr):
                return int(getattr(stream, attr))
        raise TypeError(f"gpuact.ops: stream must be an int handle or a stream object, not {type(stream).__name__}")
    fw = _alloc_framework(_framework(like))
    if fw == "cupy":
        import cupy
        return int(cupy.cuda.get_current_stream().ptr)
    if fw == "torch":
        import torch
        dev = like.device if _framework(like) == "torch" else torch.cuda.current_device()
        return int(torch.cuda.current_stream(dev).cuda_stream)
    return 0


def _alloc(like, shape, dtype, fn, what):
    """A new array of like's framework (JAX: of torch or CuPy) on like's device."""
    fw = _alloc_framework(like.framework)
    if like.framework in ("jax", "jaxlib"):
        if fw is None:
            raise InvalidArgument(f"gpuact.ops.{fn}: JAX arrays are immutable; the {what} is allocated through "
                                  f"PyTorch or CuPy, and neither is installed: pass {what}= a writable array")
    if fw == "torch":
        import torch
        tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "u8": torch.uint8}[dtype]
        return torch.empty(shape, dtype=tdt, device=torch.device("cuda", like.device))
    if fw == "cupy":
        import cupy
        if dtype == "bf16":
            raise InvalidArgument(f"gpuact.ops.{fn}: CuPy has no bfloat16; pass {what}= a bfloat16 array")
        with cupy.cuda.Device(like.device):
            return cupy.empty(shape, dtype={"f32": cupy.float32, "f16": cupy.float16, "u8": cupy.uint8}[dtype])
    if fw == "numba":
        from numba import cuda
        import numpy
        if dtype == "bf16":
            raise InvalidArgument(f"gpuact.ops.{fn}: Numba has no bfloat16; pass {what}= a bfloat16 array")
        return cuda.device_array(shape, dtype={"f32": numpy.float32, "f16": numpy.float16, "u8": numpy.uint8}[dtype])
    raise InvalidArgument(f"gpuact.ops.{fn}: cannot allocate the {what} for a {type(like.obj).__name__} "
                          f"({like.framework}); pass {what}= an array to write into")


def _to_input_framework(like, arr):
    """JAX: hand a filled buffer over as a JAX array; others: as it is."""
    if like.framework in ("jax", "jaxlib"):
        import jax.dlpack
        return jax.dlpack.from_dlpack(arr)
    return arr


def _wait_for_cupy():
    import sys
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        for d in range(cupy.cuda.runtime.getDeviceCount()):
            cupy.cuda.Device(d).synchronize()


_core.BEFORE_SHUTDOWN.append(_wait_for_cupy)


class _Call:
    """The arrays of one call: checks device agreement and dtypes, allocates outputs."""

    def __init__(self, fn, stream, first):
        self.fn = fn
        self.stream = _stream_handle(stream, first)
        self.main = self.arg(first, "x")
        self.made = []  # outputs this call allocated, to wait for / convert (JAX)

    def arg(self, obj, name, dtype=None):
        a = _Array(obj, name, self.stream)
        if hasattr(self, "main"):
            if (a.backend, a.device) != (self.main.backend, self.main.device):
                raise InvalidArgument(f"gpuact.ops.{self.fn}: {name} is on {_C.BACKENDS[a.backend]}:{a.device}, x on "
                                      f"{_C.BACKENDS[self.main.backend]}:{self.main.device}; use one device")
        if dtype is not None and a.numel() and a.dtype != dtype:
            raise InvalidArgument(f"gpuact.ops.{self.fn}: {name} must be {dtype}, not {a.dtype}")
        if a.cai_stream not in (None, self.stream) and a.numel():
            _C.synchronize(a.backend, a.device, a.cai_stream)  # no device-side wait without the runtime
        return a

    def output(self, given, name, shape, dtype):
        """(array to write, its _Array): given (checked) or newly allocated."""
        if given is None or given is True:
            obj = _alloc(self.main, shape, dtype, self.fn, name)
            self.made.append(obj)
        else:
            obj = given
        a = self.arg(obj, name, dtype)
        if a.read_only:
            raise InvalidArgument(f"gpuact.ops.{self.fn}: {name} is read-only")
        return obj, a

    def finish(self, results):
        """Converts allocated outputs for JAX callers (after waiting for the kernels)."""
        if self.main.framework in ("jax", "jaxlib") and self.made:
            _C.synchronize(self.main.backend, self.main.device, self.stream)
            conv = {id(o): _to_input_framework(self.main, o) for o in self.made}
            results = tuple(conv.get(id(r), r) for r in results)
        return results[0] if len(results) == 1 else results

    @property
    def ctx(self):
        return self.main.backend, self.main.device, self.stream


def _elementwise_check(call, a, name):
    if not a.contiguous():
        raise InvalidArgument(f"gpuact.ops.{call.fn}: {name} is not C-contiguous (strides {a.strides}); "
                              f"make it contiguous first")


def activation(x, kind="relu", *, out=None, mask=None, stream=None, **params):
    """y = act(x) (gpuact_forward). mask=True also returns the 1-bit mask
    (uint8, ceil(n/8) bytes), or mask= an array to write it into."""
    act = _activation(kind, **params)
    call = _Call("activation", stream, x)
    xa = call.main
    _elementwise_check(call, xa, "x")
    if xa.dtype not in _GPUACT_DT:
        raise InvalidArgument(f"gpuact.ops.activation: x has dtype {xa.dtype}; float32, float16 or bfloat16")
    n = xa.numel()
    y, ya = call.output(out, "out", xa.shape, xa.dtype)
    _elementwise_check(call, ya, "out")
    if ya.numel() != n:
        raise InvalidArgument(f"gpuact.ops.activation: out has shape {ya.shape}, x {xa.shape}")
    results = [y]
    ma = None
    if mask is not None and mask is not False:
        m, ma = call.output(mask, "mask", ((n + 7) // 8,), "u8")
        if ma.numel() < (n + 7) // 8 or not ma.contiguous():
            raise InvalidArgument(f"gpuact.ops.activation: mask needs {(n + 7) // 8} contiguous bytes, "
                                  f"has {ma.numel()}")
        results.append(m)
    if n:
        _C.forward(*call.ctx, act, _GPUACT_DT[xa.dtype], n, xa.ptr, ya.ptr, ma.ptr if ma else None)
    return call.finish(tuple(results))


def activation_backward(dy, kind="relu", *, x=None, mask=None, out=None, stream=None, **params):
    """dx from dy and the forward's x (or its output) or its mask (exactly one)."""
    act = _activation(kind, **params)
    call = _Call("activation_backward", stream, dy)
    da = call.main
    _elementwise_check(call, da, "dy")
    n = da.numel()
    if (x is None) == (mask is None):
        raise InvalidArgument("gpuact.ops.activation_backward: give exactly one of x= and mask=")
    src = call.arg(x, "x", da.dtype) if x is not None else call.arg(mask, "mask", "u8")
    if x is not None:
        _elementwise_check(call, src, "x")
        if src.numel() != n:
            raise InvalidArgument(f"gpuact.ops.activation_backward: x has {src.numel()} elements, dy {n}")
    elif src.numel() < (n + 7) // 8 or not src.contiguous():
        raise InvalidArgument(f"gpuact.ops.activation_backward: mask needs {(n + 7) // 8} contiguous bytes")
    dx, dxa = call.output(out, "out", da.shape, da.dtype)
    _elementwise_check(call, dxa, "out")
    if n:
        _C.backward(*call.ctx, act, _GPUACT_DT[da.dtype], n, da.ptr, dxa.ptr, src.ptr if x is not None else None,
                    src.ptr if mask is not None else None)
    return call.finish((dx,))


def relu(x, *, out=None, stream=None):
    return activation(x, "relu", out=out, stream=stream)


def leaky_relu(x, negative_slope=0.01, *, out=None, stream=None):
    return activation(x, "leaky", out=out, stream=stream, negative_slope=negative_slope)


def clipped_relu(x, ceiling=6.0, *, out=None, stream=None):
    return activation(x, "clipped", out=out, stream=stream, ceiling=ceiling)


def relu6(x, *, out=None, stream=None):
    return activation(x, "relu6", out=out, stream=stream)


def hardtanh(x, min_val=-1.0, max_val=1.0, *, out=None, stream=None):
    """torch.nn.functional.hardtanh: min(max(x, min_val), max_val)."""
    return activation(x, "hardtanh", out=out, stream=stream, lower=min_val, ceiling=max_val)


def gelu(x, approximate="none", *, out=None, stream=None):
    """torch.nn.functional.gelu: x * Phi(x) ("none"), or its tanh approximation ("tanh")."""
    return activation(x, _core.gelu_kind(approximate, "gpuact.ops.gelu"), out=out, stream=stream)


def silu(x, *, out=None, stream=None):
    """torch.nn.functional.silu: x * sigmoid(x)."""
    return activation(x, "silu", out=out, stream=stream)


def squared_relu(x, *, out=None, stream=None):
    """relu(x) ** 2."""
    return activation(x, "sqrelu", out=out, stream=stream)


def bias_act(x, bias=None, activation="relu", scale=1.0, *, out=None, mask=None, out_dtype=None, stream=None,
             **params):
    """y = act(x + bias) * scale on a 2-D x (rows, cols), bias (cols,)
    (gpuact_epilogue_forward). mask=True also returns the mask (uint8, rows x
    mask_ld bits, mask_ld = cols rounded up to 128: gpuact.epilogue_mask_ld)."""
    if scale == 0:
        raise InvalidArgument("gpuact.ops.bias_act: scale = 0 is not supported (the C API reads 0 as 1)")
    act = _activation(activation, **params)
    call = _Call("bias_act", stream, x)
    xa = call.main
    rows, cols, ld = xa.matrix("x", "bias_act")
    ydt = out_dtype or xa.dtype
    ba = call.arg(bias, "bias") if bias is not None else None
    if ba is not None and (ba.numel() != cols or not ba.contiguous()):
        raise InvalidArgument(f"gpuact.ops.bias_act: bias must be contiguous with {cols} elements, has {ba.numel()}")
    y, ya = call.output(out, "out", xa.shape, ydt)
    yr, yc, yld = ya.matrix("out", "bias_act")
    if (yr, yc) != (rows, cols):
        raise InvalidArgument(f"gpuact.ops.bias_act: out has shape {ya.shape}, x {xa.shape}")
    results = [y]
    mld = epilogue_mask_ld(cols)
    ma = None
    if mask is not None and mask is not False:
        m, ma = call.output(mask, "mask", (rows * mld // 8,), "u8")
        if ma.numel() < rows * mld // 8 or not ma.contiguous():
            raise InvalidArgument(f"gpuact.ops.bias_act: mask needs {rows * mld // 8} contiguous bytes")
        results.append(m)
    if rows and cols:
        _C.epilogue_forward(*call.ctx, act, rows, cols, _GPUACT_DT[xa.dtype], _GPUACT_DT[ydt],
                            _GPUACT_DT[ba.dtype] if ba else _GPUACT_DT[xa.dtype], ld, yld, float(scale), xa.ptr,
                            ba.ptr if ba else None, ya.ptr, ma.ptr if ma else None, mld)
    return call.finish(tuple(results))


def bias_act_backward(dy, mask=None, activation="relu", scale=1.0, *, x=None, bias=None, out=None, dbias=None,
                      dx_dtype=None, dbias_dtype="f32", stream=None, **params):
    """dx (gpuact_epilogue_backward) from dy and the forward's mask (the ReLU
    family and hardtanh: dx = select(mask, dy * scale, +0)) or, for the
    smooth kinds (GELU, SiLU, squared ReLU), its input x (2-D, any row
    stride) and bias (x's dtype; z = x + bias is formed again as the forward
    formed it): dx = (dy * scale) * act'(z). Give exactly one of mask and x.
    dbias=True (or an array) also returns the bias gradient, the column sums
    of dx accumulated in f32 (bit-identical run to run). dx_dtype defaults
    to x's dtype (from x) or dy's (from the mask)."""
    if scale == 0:
        raise InvalidArgument("gpuact.ops.bias_act_backward: scale = 0 is not supported (the C API reads 0 as 1)")
    if (mask is None) == (x is None):
        raise InvalidArgument("gpuact.ops.bias_act_backward: give exactly one of mask (the ReLU family, hardtanh) "
                              "and x (with bias: the smooth kinds)")
    if bias is not None and x is None:
        raise InvalidArgument("gpuact.ops.bias_act_backward: bias is read only with x (the smooth kinds)")
    act = _activation(activation, **params)
    call = _Call("bias_act_backward", stream, dy)
    da = call.main
    rows, cols, ld = da.matrix("dy", "bias_act_backward")
    mld = epilogue_mask_ld(cols)
    ma = xa = ba = None
    if mask is not None:
        ma = call.arg(mask, "mask", "u8")
        if ma.numel() < rows * mld // 8 or not ma.contiguous():
            raise InvalidArgument(f"gpuact.ops.bias_act_backward: mask needs {rows * mld // 8} contiguous bytes")
    else:
        xa = call.arg(x, "x")
        if xa.dtype not in _GPUACT_DT:
            raise InvalidArgument(f"gpuact.ops.bias_act_backward: x has dtype {xa.dtype}; float32, float16 or "
                                  f"bfloat16")
        xr, xc, xld = xa.matrix("x", "bias_act_backward")
        if (xr, xc) != (rows, cols):
            raise InvalidArgument(f"gpuact.ops.bias_act_backward: x has shape {xa.shape}, dy {da.shape}")
        if bias is not None:
            ba = call.arg(bias, "bias", xa.dtype)
            if ba.numel() != cols or not ba.contiguous():
                raise InvalidArgument(f"gpuact.ops.bias_act_backward: bias must be contiguous with {cols} elements, "
                                      f"has {ba.numel()}")
    dx, dxa = call.output(out, "out", da.shape, dx_dtype or (xa.dtype if xa is not None else da.dtype))
    dr, dc, dxld = dxa.matrix("out", "bias_act_backward")
    if (dr, dc) != (rows, cols):
        raise InvalidArgument(f"gpuact.ops.bias_act_backward: out has shape {dxa.shape}, dy {da.shape}")
    results = [dx]
    dba = None
    if dbias is not None and dbias is not False:
        db, dba = call.output(dbias, "dbias", (cols,), dbias_dtype)
        if dba.numel() != cols:
            raise InvalidArgument(f"gpuact.ops.bias_act_backward: dbias must have {cols} elements")
        results.append(db)
    if cols and (rows or dba):
        args = (*call.ctx, act, rows, cols, _GPUACT_DT.get(da.dtype, 0), _GPUACT_DT.get(dxa.dtype, 0),
                _GPUACT_DT.get(da.dtype, 0), _GPUACT_DT[dba.dtype] if dba else 0, ld, dxld, cols, float(scale),
                da.ptr if rows else None, dxa.ptr if rows else None, None, ma.ptr if ma is not None and rows else None, mld,
                dba.ptr if dba else None)
        if xa is not None:
            args += (xa.ptr if rows else None, ba.ptr if ba is not None and rows else None, _GPUACT_DT[xa.dtype], xld)
        _C.epilogue_backward(*args)
    return call.finish(tuple(results))
