"""gpuact's Python core: the C tables, the exception classes, activations,
and the raw operations on handles (no framework needed; OpenCL included).

Everything about kinds comes from the C side (gpuact._C, which reads
kernels/contract.h's GPUACT_ACTIVATIONS table and gpuact.h's public enums).
What this file adds by hand, for a new kind, is at most one line in
KIND_COLUMNS (a new column of the table), ALIASES (a friendlier name) or
KIND_DEFAULTS (default parameters).
"""
import collections
import os
import warnings

from . import _C

VERSION = _C.VERSION
__version__ = VERSION

# ---------------------------------------------------------------------------------------------
# Tables from the C side

#: backend name -> gpuact_backend value ("auto", "cuda", "hip", "opencl")
BACKENDS = {name: i for i, name in enumerate(_C.BACKENDS)}
#: dtype name -> (gpuact_dtype value, bytes): "f32", "f16", "bf16"
DTYPES = {name: (i, size) for i, (name, size) in enumerate(_C.DTYPES)}
_DTYPE_ALIASES = {"float32": "f32", "float": "f32", "float16": "f16", "half": "f16", "bfloat16": "bf16"}

#: The columns of kernels/contract.h's GPUACT_ACTIVATIONS after the name, in
#: order. When the table gains a column, add its name here (one line);
#: tests/test_package.py fails until then. A column named "mask" or "select"
#: (1: the forward can write the 1-bit mask and the backward read it) decides
#: what autograd saves; without one, every kind has the mask (as today).
KIND_COLUMNS = ("slope", "ceiling", "lower", "from_y", "select", "glu")

#: Friendlier names of the table's kinds (and torch's), for every function
#: that takes a kind: name -> (table name, parameters it implies).
ALIASES = {
    "leaky_relu": ("leaky", {}),
    "clipped_relu": ("clipped", {}),
    "relu6": ("clipped", {"ceiling": 6.0}),
    "squared_relu": ("sqrelu", {}),
    "swish": ("silu", {}),
}

#: Default values of the activation parameters (the names of ACT_PARAMS),
#: and per kind where a kind's default differs.
PARAM_DEFAULTS = {"negative_slope": 0.01, "ceiling": 6.0, "lower": -1.0, "flags": 0}
KIND_DEFAULTS = {"hardtanh": {"ceiling": 1.0, "lower": -1.0}}

#: The numeric fields of gpuact_activation after kind, in order (from C); flags holds
#: GPUACT_ACT_* bits (ACT_PRECISE: GELU, tanh-GELU and SiLU within 1 ulp instead of 2).
ACT_PARAMS = tuple(_C.ACT_PARAMS)
ACT_PRECISE = _C.ACT_PRECISE


class KindInfo(collections.namedtuple("KindInfo", "name value columns")):
    """A row of GPUACT_ACTIVATIONS: its name, its gpuact_activation_kind value
    and its columns by name (KIND_COLUMNS)."""

    @property
    def has_mask(self):
        """Whether the forward can write the 1-bit mask (and the backward read it): a "mask"
        column, or a "select" column (the ReLU family: selection paths and the mask; 0 for a smooth
        kind whose backward needs x), else every kind has it (as the current table's do)."""
        return bool(self.columns.get("mask", self.columns.get("select", 1)))

    @property
    def uses(self):
        """The activation parameters the kind reads (from the table's columns)."""
        col_param = {"slope": "negative_slope", "ceiling": "ceiling", "lower": "lower"}
        return tuple(p for c, p in col_param.items() if self.columns.get(c))


def _kinds():
    kinds = {}
    for value, (name, cols) in enumerate(_C.KINDS):
        if len(cols) != len(KIND_COLUMNS):
            warnings.warn(
                f"gpuact: kernels/contract.h's GPUACT_ACTIVATIONS has {len(cols)} columns after the name, "
                f"gpuact/_core.py's KIND_COLUMNS names {len(KIND_COLUMNS)} ({', '.join(KIND_COLUMNS)}): "
                f"name the new column there", RuntimeWarning, stacklevel=3)
        names = list(KIND_COLUMNS[:len(cols)]) + [f"column{i}" for i in range(len(KIND_COLUMNS), len(cols))]
        kinds[name] = KindInfo(name, value, dict(zip(names, cols)))
    return kinds


#: table name -> KindInfo, in gpuact_activation_kind order
KINDS = _kinds()
KIND_NAMES = tuple(KINDS)

# ---------------------------------------------------------------------------------------------
# Exceptions: one class per gpuact_result, named from gpuact_result_string


class GpuactError(RuntimeError):
    """A gpuact call failed. str(e) holds the call, the result's name and
    gpuact_last_error()'s whole text (what was asked, what failed, what to
    do); e.result is the gpuact_result value (None for an argument the
    Python layer refused), e.result_name its name, e.detail the C text, and
    e.rule the name of the C library's validation rule that refused the
    call (gpuact_rule_name: "BUFFER_TOO_SMALL", "OVERLAP", ...; None when no
    rule did: a Python-side refusal or a device failure)."""

    result = None
    result_name = None
    detail = None
    rule = None
    _RULE_PREFIX = "[gpuact rule "

    def __init__(self, what, result=None, detail=None):
        if result is None:
            super().__init__(what)
        else:
            name = _C.RESULTS[result] if 0 <= result < len(_C.RESULTS) else f"gpuact_result {result}"
            super().__init__(f"{what} failed: {name}\n{detail}" if detail else f"{what} failed: {name}")
            self.result, self.result_name, self.detail = result, name, detail
            # the C text starts "[gpuact rule NAME] " when a validation rule refused (gpuact.h, ERRORS)
            if detail and detail.startswith(self._RULE_PREFIX) and "]" in detail:
                self.rule = detail[len(self._RULE_PREFIX):detail.index("]")]


GpuactError.__module__ = "gpuact"


def _camel(result_name):
    return "".join(w.capitalize() for w in result_name.replace("GPUACT_ERROR_", "").split("_"))


# Extra bases, so callers can catch the usual Python categories too.
_EXTRA_BASES = {"InvalidArgument": (ValueError,), "NotSupported": (NotImplementedError,),
                "OutOfMemory": (MemoryError,)}
_RENAME = {"Device": "DeviceError"}  # "gpuact.Device" would read as a device, not an error


def _error_classes():
    classes = {}
    by_code = [None]
    for code, rname in enumerate(_C.RESULTS):
        if code == 0:
            continue
        name = _camel(rname)
        name = _RENAME.get(name, name)
        cls = type(name, (GpuactError,) + _EXTRA_BASES.get(name, ()),
                   {"__doc__": f"{rname}: raised when a gpuact call returns it.", "__module__": "gpuact"})
        classes[name] = cls
        by_code.append(cls)
    return classes, tuple(by_code)


ERRORS, _ERRORS_BY_CODE = _error_classes()
globals().update(ERRORS)
_C._register_errors(GpuactError, _ERRORS_BY_CODE)
InvalidArgument = ERRORS["InvalidArgument"]


def error_class(result):
    """The exception class gpuact raises for a gpuact_result value."""
    return _ERRORS_BY_CODE[result] if 0 < result < len(_ERRORS_BY_CODE) else GpuactError


# ---------------------------------------------------------------------------------------------
# Names to values

def backend_value(backend):
    """'auto' | 'cuda' | 'hip' | 'opencl' (or the int) -> gpuact_backend value."""
    if isinstance(backend, int):
        if 0 <= backend < len(_C.BACKENDS):
            return backend
    elif isinstance(backend, str) and backend.lower() in BACKENDS:
        return BACKENDS[backend.lower()]
    raise InvalidArgument(f"gpuact: backend {backend!r} is not one of {', '.join(BACKENDS)}")


def dtype_value(dtype):
    """'f32' | 'f16' | 'bf16' (or 'float32', ..., or the int) -> gpuact_dtype value."""
    if isinstance(dtype, int):
        if 0 <= dtype < len(DTYPES):
            return dtype
    elif isinstance(dtype, str):
        name = _DTYPE_ALIASES.get(dtype, dtype)
        if name in DTYPES:
            return DTYPES[name][0]
    raise InvalidArgument(f"gpuact: dtype {dtype!r} is not one of {', '.join(DTYPES)} "
                          f"(float64 and integer types are not supported)")


def dtype_size(dtype):
    return _C.DTYPES[dtype_value(dtype)][1]


def resolve_kind(kind):
    """A kind name (table name or alias) or value -> (KindInfo, implied parameters)."""
    if isinstance(kind, KindInfo):
        return kind, {}
    if isinstance(kind, int) and not isinstance(kind, bool):
        for k in KINDS.values():
            if k.value == kind:
                return k, {}
    elif isinstance(kind, str):
        name, implied = ALIASES.get(kind, (kind, {}))
        if name in KINDS:
            return KINDS[name], dict(implied)
    names = list(KINDS) + list(ALIASES)
    raise InvalidArgument(f"gpuact: activation {kind!r} is not one of {', '.join(names)}")


#: An activation as the C layer takes it: (kind, negative_slope, ceiling, ...)
#: in the order of gpuact_activation's fields (ACT_PARAMS).
Activation = collections.namedtuple("Activation", ("kind",) + ACT_PARAMS)


def activation(kind="relu", **params):
    """The Activation tuple for a kind and its parameters (by the C field
    names, e.g. negative_slope=, ceiling=); unset ones take PARAM_DEFAULTS /
    KIND_DEFAULTS. Values are checked by the C library when used."""
    info, implied = resolve_kind(kind)
    unknown = set(params) - set(ACT_PARAMS)
    if unknown:
        raise InvalidArgument(f"gpuact: activation parameter(s) {', '.join(sorted(unknown))} unknown; "
                              f"gpuact_activation has {', '.join(ACT_PARAMS)}")
    for k, v in implied.items():
        if k in params and params[k] != v:
            raise InvalidArgument(f"gpuact: {kind} means {k}={v}; got {k}={params[k]}")
    values = dict(PARAM_DEFAULTS)
    values.update(KIND_DEFAULTS.get(info.name, {}))
    values.update(implied)
    values.update(params)
    try:
        return Activation(info.value, *(float(values.get(p, 0.0)) for p in ACT_PARAMS))
    except (TypeError, ValueError):
        raise InvalidArgument(f"gpuact: activation parameters must be numbers, got {params!r}") from None


#: torch.nn.functional.gelu's approximate= -> the table's kind
GELU_APPROXIMATE = {"none": "gelu", "tanh": "gelu_tanh"}


def gelu_kind(approximate, fn="gelu"):
    """The kind of torch's gelu(x, approximate=...): "none" -> gelu, "tanh" -> gelu_tanh."""
    kind = GELU_APPROXIMATE.get(approximate) if isinstance(approximate, str) else None
    if kind is None:
        raise InvalidArgument(f"{fn}: approximate={approximate!r}; it must be 'none' or 'tanh' (as torch's gelu)")
    return kind


def kind_info(act):
    """The KindInfo of an Activation tuple (or kind name)."""
    if isinstance(act, tuple):
        act = act[0]
    return resolve_kind(act)[0]


# ---------------------------------------------------------------------------------------------
# Raw operations on handles: a buffer is None, an int handle (CUDA/HIP device
# pointer, OpenCL cl_mem) or (handle, byte offset) or a Buffer; stream is an
# int (0: the context's stream). Every call is asynchronous on the stream.

def _buf(b):
    if b is None or isinstance(b, (int, tuple)):
        return b
    if isinstance(b, Buffer):
        return b.handle if not b.offset else (b.handle, b.offset)
    raise TypeError(f"gpuact: a buffer must be None, an int handle, (handle, offset) or gpuact.Buffer, "
                    f"not {type(b).__name__}")


def _act(act):
    if isinstance(act, tuple):
        return act
    return activation(act)


def forward(act, dtype, n, x, y, mask=None, *, backend="auto", device=0, stream=0):
    """gpuact_forward: y = act(x) on n elements, optionally the 1-bit mask (ceil(n/8) bytes)."""
    _C.forward(backend_value(backend), device, stream, _act(act), dtype_value(dtype), n, _buf(x), _buf(y),
               _buf(mask))


def backward(act, dtype, n, dy, dx, x=None, mask=None, *, backend="auto", device=0, stream=0):
    """gpuact_backward: dx from dy and the forward's x (or y) or its mask (exactly one)."""
    _C.backward(backend_value(backend), device, stream, _act(act), dtype_value(dtype), n, _buf(dy), _buf(dx),
                _buf(x), _buf(mask))


def epilogue_forward(act, rows, cols, x, y, bias=None, mask=None, *, x_dtype="f32", y_dtype=None,
                     bias_dtype=None, ld_x=0, ld_y=0, scale=1.0, mask_ld=0, backend="auto", device=0, stream=0):
    """gpuact_epilogue_forward: y = act(x + bias) * scale on rows x cols (ld 0 = cols)."""
    _check_scale(scale)
    xdt = dtype_value(x_dtype)
    _C.epilogue_forward(backend_value(backend), device, stream, _act(act), rows, cols, xdt,
                        xdt if y_dtype is None else dtype_value(y_dtype),
                        xdt if bias_dtype is None else dtype_value(bias_dtype), ld_x, ld_y, scale, _buf(x),
                        _buf(bias), _buf(y), _buf(mask), mask_ld)


def epilogue_backward(act, rows, cols, dy, dx, y=None, mask=None, dbias=None, *, x=None, bias=None, dy_dtype="f32",
                      dx_dtype=None, y_dtype=None, x_dtype=None, dbias_dtype="f32", ld_dy=0, ld_dx=0, ld_y=0, ld_x=0,
                      scale=1.0, mask_ld=0, backend="auto", device=0, stream=0):
    """gpuact_epilogue_backward: dx (and dbias, the column sums of dx) from dy and exactly one source:
    the forward's mask (the ReLU family, hardtanh), its output y (relu and leaky, scale > 0), or its
    input x with its bias (the smooth kinds: GELU, SiLU, squared ReLU; z = x + bias is formed again
    as the forward formed it). bias is read in x_dtype (default: dx's dtype)."""
    _check_scale(scale)
    dydt = dtype_value(dy_dtype)
    dxdt = dydt if dx_dtype is None else dtype_value(dx_dtype)
    args = (backend_value(backend), device, stream, _act(act), rows, cols, dydt, dxdt,
            dydt if y_dtype is None else dtype_value(y_dtype), dtype_value(dbias_dtype), ld_dy, ld_dx, ld_y, scale,
            _buf(dy), _buf(dx), _buf(y), _buf(mask), mask_ld, _buf(dbias))
    if x is not None or bias is not None:
        args += (_buf(x), _buf(bias), dxdt if x_dtype is None else dtype_value(x_dtype), ld_x)
    _C.epilogue_backward(*args)


def glu_forward(act, rows, cols, a, b, y, bias_a=None, bias_b=None, *, x_dtype="f32", y_dtype=None, ld_a=0, ld_b=0,
                ld_y=0, backend="auto", device=0, stream=0):
    """gpuact_glu_forward: y = act(a + bias_a) * (b + bias_b) on rows x cols (act: silu for SwiGLU, gelu or
    gelu_tanh for GeGLU, relu for ReGLU; ld 0 = cols). a and b may be the two halves of each row of one
    rows x 2 cols projection: a = X, b = (X, cols elements on), ld_a = ld_b = 2 cols. The biases (both or
    neither) are in x_dtype."""
    xdt = dtype_value(x_dtype)
    _C.glu_forward(backend_value(backend), device, stream, _act(act), rows, cols, xdt,
                   xdt if y_dtype is None else dtype_value(y_dtype), ld_a, ld_b, ld_y, _buf(a), _buf(b), _buf(y),
                   _buf(bias_a), _buf(bias_b))


def glu_backward(act, rows, cols, dy, a, b, da, db, bias_a=None, bias_b=None, dbias_a=None, dbias_b=None, *,
                 dy_dtype=None, x_dtype="f32", dbias_dtype="f32", ld_dy=0, ld_a=0, ld_b=0, ld_da=0, ld_db=0,
                 backend="auto", device=0, stream=0):
    """gpuact_glu_backward: da = (dy * zb) * act'(za), db = dy * act(za) (za, zb formed again from the
    forward's inputs) and, optionally, both bias gradients (column sums, f32 accumulation, dbias_dtype)
    in one pass. da, db, a, b and the biases are in x_dtype; dy in dy_dtype (default x_dtype)."""
    xdt = dtype_value(x_dtype)
    _C.glu_backward(backend_value(backend), device, stream, _act(act), rows, cols,
                    xdt if dy_dtype is None else dtype_value(dy_dtype), xdt, dtype_value(dbias_dtype), ld_dy, ld_a,
                    ld_b, ld_da, ld_db, _buf(dy), _buf(a), _buf(b), _buf(bias_a), _buf(bias_b), _buf(da), _buf(db),
                    _buf(dbias_a), _buf(dbias_b))


def _check_scale(scale):
    # The C API reads scale 0 as "1" (a zero-initialised field); refuse it here.
    if scale == 0:
        raise InvalidArgument("gpuact: scale = 0 is not supported (the C API reads 0 as 1); "
                              "multiply the result by 0 instead")


def synchronize(*, backend="auto", device=0, stream=0):
    """Waits for the work queued on stream (0: the context's)."""
    _C.synchronize(backend_value(backend), device, stream)


def context_info(backend="auto", device=0):
    """The context gpuact uses for (backend, device), created on first use:
    dict(backend, device, device_name, cache_dir, stream). Raises
    BackendUnavailable (with every library name tried) when there is none."""
    b, name, cache, stream = _C.context_info(backend_value(backend), device)
    return {"backend": _C.BACKENDS[b], "device": device, "device_name": name, "cache_dir": cache, "stream": stream}


def mask_bytes(n):
    """Bytes of the elementwise mask of n elements."""
    return (n + 7) // 8


def epilogue_mask_ld(cols):
    """The default mask_ld (bits between rows) for cols: cols rounded up to 128."""
    return (cols + 127) // 128 * 128


class Buffer:
    """Device memory allocated by gpuact itself (gpuact_buffer_alloc), for
    callers without a framework, e.g. OpenCL: handle is the cl_mem or the
    device pointer. Blocking write/read. Free with free() or a with-block."""

    def __init__(self, nbytes, *, backend="auto", device=0):
        self.backend = backend_value(backend)
        self.device = device
        self.nbytes = nbytes
        self.offset = 0
        self.handle = _C.alloc(self.backend, device, nbytes)

    def write(self, data, offset=0):
        _C.write(self.backend, self.device, (self.handle, offset), bytes(data))

    def read(self, nbytes=None, offset=0):
        return _C.read(self.backend, self.device, (self.handle, offset),
                       self.nbytes - offset if nbytes is None else nbytes)

    def at(self, offset):
        """(handle, byte offset), as the operations take a buffer."""
        return (self.handle, offset)

    def free(self):
        if self.handle:
            _C.free(self.backend, self.device, self.handle)
            self.handle = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __repr__(self):
        return (f"gpuact.Buffer({self.nbytes} bytes, backend={_C.BACKENDS[self.backend]}, device={self.device}, "
                f"handle={self.handle:#x})")


#: Called before the contexts are destroyed at exit (gpuact.torch, gpuact.ops
#: wait there for the work their frameworks queued).
BEFORE_SHUTDOWN = []


def shutdown():
    """Destroys every context gpuact created (registered with atexit); a
    later call creates them again."""
    for fn in BEFORE_SHUTDOWN:
        try:
            fn()
        except Exception:  # exiting: nothing to report to
            pass
    _C._shutdown()


def cache_dir():
    """The kernel cache directory a context would use (GPUACT_CACHE_DIR, then
    $XDG_CACHE_HOME/gpuact, then ~/.cache/gpuact; '' = disabled)."""
    env = os.environ.get("GPUACT_CACHE_DIR")
    if env is not None:
        return env
    xdg, home = os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME")
    if xdg:
        return os.path.join(xdg, "gpuact")
    if home:
        return os.path.join(home, ".cache", "gpuact")
    return ""
