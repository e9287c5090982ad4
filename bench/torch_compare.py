#!/usr/bin/env python3
"""gpuact against PyTorch, side by side in one process (docs/PERFORMANCE.md).

    make shared                                  # build/libgpuact.so
    python3 bench/torch_compare.py --out results.md      # or results.csv

Loads build/libgpuact.so with ctypes and creates a gpuact CUDA context on the
device's primary context, so PyTorch tensors' data_ptr() are gpuact buffer
handles (offset 0) and torch.cuda.current_stream().cuda_stream is the stream.

(a) Numerics: inputs full of specials (NaN with payloads, +-Inf, +-0,
    subnormals, values at and next to the clip ceiling) in f32, f16 and bf16,
    compared bit for bit (.view(int32/int16)) with torch.relu, F.leaky_relu,
    F.hardtanh(x, 0, c) / F.relu6, aten threshold_backward,
    leaky_relu_backward and hardtanh_backward; the epilogue relu(x + b) * s
    (and leaky, clipped) and its backward against torch computing the same in
    f32 with one final rounding, as docs/NUMERICS.md specifies; dbias against an f64
    sum (relative 1e-5 of the column's sum of magnitudes) and run to run.
    NaN == NaN (any payload) where torch does arithmetic on the value (the
    leaky slope product, x + b, scale); bit-exact everywhere else.
(b) Timing with torch.cuda.Event (warm-up, median of --reps >= 20) on the
    PERFORMANCE.md workloads, with fresh random data (never zeros) at sizes
    many times the H200's 60 MB L2, and the device-to-device copy bandwidth
    measured in the same run.

Exit status 1 if any comparison fails. Without torch, --selftest-ctypes
checks the ctypes layer (descriptor layouts and every entry point) on any
backend, e.g. OpenCL on PoCL.
"""
import argparse
import ctypes
import datetime
import math
import os
import statistics
import struct
import sys
import time
import traceback
from ctypes import POINTER, Structure, byref, c_char_p, c_float, c_int, c_size_t, c_void_p

# ---------------------------------------------------------------------------------------------
# ctypes binding of gpuact.h

F32, F16, BF16 = 0, 1, 2
RELU, LEAKY, CLIPPED, HARDTANH, GELU, GELU_TANH, SILU, SQRELU = range(8)
BACKENDS = {"auto": 0, "cuda": 1, "hip": 2, "opencl": 3}


class Buffer(Structure):
    _fields_ = [("handle", c_void_p), ("offset", c_size_t)]


class Activation(Structure):
    _fields_ = [("kind", c_int), ("negative_slope", c_float), ("ceiling", c_float), ("lower", c_float),
                ("flags", ctypes.c_uint)]


class ContextDesc(Structure):
    _fields_ = [("backend", c_int), ("device", c_int), ("native_context", c_void_p),
                ("native_device", c_void_p), ("stream", c_void_p), ("cache_dir", c_char_p)]


class ForwardDesc(Structure):
    _fields_ = [("act", Activation), ("dtype", c_int), ("n", c_size_t), ("x", Buffer), ("y", Buffer),
                ("mask", Buffer), ("codes", Buffer), ("code_bits", c_int)]


class BackwardDesc(Structure):
    _fields_ = [("act", Activation), ("dtype", c_int), ("n", c_size_t), ("dy", Buffer), ("dx", Buffer),
                ("x", Buffer), ("mask", Buffer), ("codes", Buffer), ("code_bits", c_int)]


class EpilogueDesc(Structure):
    _fields_ = [("act", Activation), ("rows", c_size_t), ("cols", c_size_t), ("x_dtype", c_int),
                ("y_dtype", c_int), ("bias_dtype", c_int), ("ld_x", c_size_t), ("ld_y", c_size_t),
                ("scale", c_float), ("x", Buffer), ("bias", Buffer), ("y", Buffer), ("mask", Buffer),
                ("mask_ld", c_size_t), ("codes", Buffer), ("code_bits", c_int), ("codes_ld", c_size_t)]


class EpilogueBackwardDesc(Structure):
    _fields_ = [("act", Activation), ("rows", c_size_t), ("cols", c_size_t), ("dy_dtype", c_int),
                ("dx_dtype", c_int), ("y_dtype", c_int), ("dbias_dtype", c_int), ("ld_dy", c_size_t),
                ("ld_dx", c_size_t), ("ld_y", c_size_t), ("scale", c_float), ("dy", Buffer), ("dx", Buffer),
                ("y", Buffer), ("mask", Buffer), ("mask_ld", c_size_t), ("dbias", Buffer), ("x", Buffer),
                ("bias", Buffer), ("x_dtype", c_int), ("ld_x", c_size_t), ("codes", Buffer), ("code_bits", c_int),
                ("codes_ld", c_size_t)]


class GluDesc(Structure):
    _fields_ = [("act", Activation), ("rows", c_size_t), ("cols", c_size_t), ("x_dtype", c_int), ("y_dtype", c_int),
                ("ld_a", c_size_t), ("ld_b", c_size_t), ("ld_y", c_size_t), ("a", Buffer), ("b", Buffer),
                ("y", Buffer), ("bias_a", Buffer), ("bias_b", Buffer)]


class GluBackwardDesc(Structure):
    _fields_ = [("act", Activation), ("rows", c_size_t), ("cols", c_size_t), ("dy_dtype", c_int),
                ("x_dtype", c_int), ("dbias_dtype", c_int), ("ld_dy", c_size_t), ("ld_a", c_size_t),
                ("ld_b", c_size_t), ("ld_da", c_size_t), ("ld_db", c_size_t), ("dy", Buffer), ("a", Buffer),
                ("b", Buffer), ("bias_a", Buffer), ("bias_b", Buffer), ("da", Buffer), ("db", Buffer),
                ("dbias_a", Buffer), ("dbias_b", Buffer)]


STRUCTS = {
    "gpuact_buffer": Buffer,
    "gpuact_activation": Activation,
    "gpuact_context_desc": ContextDesc,
    "gpuact_forward_desc": ForwardDesc,
    "gpuact_backward_desc": BackwardDesc,
    "gpuact_epilogue_desc": EpilogueDesc,
    "gpuact_epilogue_backward_desc": EpilogueBackwardDesc,
    "gpuact_glu_desc": GluDesc,
    "gpuact_glu_backward_desc": GluBackwardDesc,
}


def _before_codes(cls, name):
    """A descriptor's fields before the few-bit codes'."""
    names = [f for f, _ in cls._fields_]
    return type(name, (Structure,), {"_fields_": cls._fields_[:names.index("codes")] if "codes" in names
                                     else cls._fields_})


def _v0(cls, name):
    """The 0.1.0 layout of a descriptor (gpuact_activation without lower, the epilogue backward without x and
    bias), so one process can time a build from before the new kinds against the current one."""
    fields = [(f, ActivationV0 if t is Activation else t) for f, t in _before_codes(cls, name)._fields_]
    if cls is EpilogueBackwardDesc:
        fields = fields[:fields.index(("dbias", Buffer)) + 1]
    return type(name, (Structure,), {"_fields_": fields})


ActivationV0 = type("ActivationV0", (Structure,), {"_fields_": Activation._fields_[:3]})
STRUCTS_V0 = dict({k: v for k, v in STRUCTS.items() if "glu" not in k}, gpuact_activation=ActivationV0,
                  gpuact_forward_desc=_v0(ForwardDesc, "ForwardDescV0"),
                  gpuact_backward_desc=_v0(BackwardDesc, "BackwardDescV0"),
                  gpuact_epilogue_desc=_v0(EpilogueDesc, "EpilogueDescV0"),
                  gpuact_epilogue_backward_desc=_v0(EpilogueBackwardDesc, "EpilogueBackwardDescV0"))
# The layout before gpuact_activation's flags (GPUACT_ACT_PRECISE), for A/B against such a build.
ActivationV1 = type("ActivationV1", (Structure,), {"_fields_": Activation._fields_[:4]})
STRUCTS_V1 = {k: (ActivationV1 if v is Activation else
                  type(v.__name__ + "V1", (Structure,),
                       {"_fields_": [(f, ActivationV1 if t is Activation else t)
                                     for f, t in _before_codes(v, v.__name__)._fields_]}))
              for k, v in STRUCTS.items()}
# The layout before the few-bit codes.
STRUCTS_V2 = {k: _before_codes(v, v.__name__ + "V2") for k, v in STRUCTS.items()}


class GpuactError(RuntimeError):
    pass


def act(kind=RELU, slope=0.0, ceiling=0.0, lower=0.0, flags=0):
    return Activation(kind, slope, ceiling, lower, flags)


def buf(x):
    """A gpuact_buffer from a torch tensor (data_ptr, offset 0), a Buffer, an int pointer or None."""
    if x is None:
        return Buffer(None, 0)
    if isinstance(x, Buffer):
        return x
    if isinstance(x, int):
        return Buffer(x, 0)
    return Buffer(x.data_ptr(), 0)


def mask_ld_default(cols):
    return (cols + 127) // 128 * 128


class Gpuact:
    """One gpuact context. Ops are built as zero-argument callables (the
    descriptor is prepared once, so a timed call costs one ctypes call)."""

    def __init__(self, libpath, backend="cuda", device=0, stream=None):
        self.lib = lib = ctypes.CDLL(libpath)
        lib.gpuact_result_string.argtypes = [c_int]
        lib.gpuact_result_string.restype = c_char_p
        lib.gpuact_last_error.argtypes = []
        lib.gpuact_last_error.restype = c_char_p
        lib.gpuact_context_create.argtypes = [POINTER(ContextDesc), POINTER(c_void_p)]
        lib.gpuact_context_destroy.argtypes = [c_void_p]
        lib.gpuact_context_destroy.restype = None
        lib.gpuact_context_backend.argtypes = [c_void_p]
        lib.gpuact_backend_name.argtypes = [c_int]
        lib.gpuact_backend_name.restype = c_char_p
        lib.gpuact_context_device_name.argtypes = [c_void_p]
        lib.gpuact_context_device_name.restype = c_char_p
        lib.gpuact_buffer_alloc.argtypes = [c_void_p, c_size_t, POINTER(Buffer)]
        lib.gpuact_buffer_free.argtypes = [c_void_p, Buffer]
        lib.gpuact_buffer_free.restype = None
        lib.gpuact_buffer_write.argtypes = [c_void_p, Buffer, c_void_p, c_size_t]
        lib.gpuact_buffer_read.argtypes = [c_void_p, c_void_p, Buffer, c_size_t]
        lib.gpuact_synchronize.argtypes = [c_void_p, c_void_p]
        lib.gpuact_relu_forward.argtypes = [c_void_p, c_int, c_size_t, Buffer, Buffer, c_void_p]
        lib.gpuact_relu_backward.argtypes = [c_void_p, c_int, c_size_t, Buffer, Buffer, Buffer, c_void_p]
        lib.gpuact_shared_layout.argtypes = [c_char_p, c_char_p]
        lib.gpuact_shared_layout.restype = c_size_t
        act_size = lib.gpuact_shared_layout(b"gpuact_activation", b"")
        self.structs = {ctypes.sizeof(ActivationV0): STRUCTS_V0, ctypes.sizeof(ActivationV1): STRUCTS_V1}.get(
            act_size, STRUCTS if lib.gpuact_shared_layout(b"gpuact_forward_desc", b"") == ctypes.sizeof(ForwardDesc)
            else STRUCTS_V2)
        self.S = {k.replace("gpuact_", ""): v for k, v in self.structs.items()}
        lib.gpuact_forward.argtypes = [c_void_p, POINTER(self.S["forward_desc"]), c_void_p]
        lib.gpuact_backward.argtypes = [c_void_p, POINTER(self.S["backward_desc"]), c_void_p]
        lib.gpuact_epilogue_forward.argtypes = [c_void_p, POINTER(self.S["epilogue_desc"]), c_void_p]
        lib.gpuact_epilogue_backward.argtypes = [c_void_p, POINTER(self.S["epilogue_backward_desc"]), c_void_p]
        if self.structs is not STRUCTS_V0:
            lib.gpuact_glu_forward.argtypes = [c_void_p, POINTER(self.S["glu_desc"]), c_void_p]
            lib.gpuact_glu_backward.argtypes = [c_void_p, POINTER(self.S["glu_backward_desc"]), c_void_p]
            lib.gpuact_glu_forward.restype = lib.gpuact_glu_backward.restype = c_int
        lib.gpuact_shared_context_stream.argtypes = [c_void_p]
        lib.gpuact_shared_context_stream.restype = c_void_p
        # the copy benchmarks measure against (builds before 2026-11-23 named it gpuact_shared_copy)
        self.copy_fn = getattr(lib, "gpuact_testing_copy", None) or lib.gpuact_shared_copy
        self.copy_fn.argtypes = [c_void_p, c_void_p, Buffer, Buffer, c_size_t]
        self.copy_fn.restype = c_int
        lib.gpuact_shared_layout.argtypes = [c_char_p, c_char_p]
        lib.gpuact_shared_layout.restype = c_size_t
        for f in ("gpuact_context_create", "gpuact_buffer_alloc", "gpuact_buffer_write", "gpuact_buffer_read",
                  "gpuact_synchronize", "gpuact_relu_forward", "gpuact_relu_backward", "gpuact_forward",
                  "gpuact_backward", "gpuact_epilogue_forward", "gpuact_epilogue_backward",
                  "gpuact_context_backend"):
            getattr(lib, f).restype = c_int
        self.check_layouts()
        desc = ContextDesc()
        desc.backend = BACKENDS[backend]
        desc.device = device
        desc.stream = stream or None
        ctx = c_void_p()
        self.check(lib.gpuact_context_create(byref(desc), byref(ctx)), "gpuact_context_create")
        self.ctx = ctx
        self.stream = c_void_p(stream) if stream else None
        self.backend = lib.gpuact_backend_name(lib.gpuact_context_backend(ctx)).decode()
        self.device_name = lib.gpuact_context_device_name(ctx).decode(errors="replace")

    def check_layouts(self):
        """Every ctypes mirror against sizeof/offsetof from the C side."""
        bad = []
        for cname, cls in self.structs.items():
            want = self.lib.gpuact_shared_layout(cname.encode(), b"")
            if want != ctypes.sizeof(cls):
                bad.append(f"sizeof({cname}) = {want}, ctypes has {ctypes.sizeof(cls)}")
            for fname, _ in cls._fields_:
                want = self.lib.gpuact_shared_layout(cname.encode(), fname.encode())
                if want != getattr(cls, fname).offset:
                    bad.append(f"offsetof({cname}, {fname}) = {want}, ctypes has {getattr(cls, fname).offset}")
        if bad:
            raise GpuactError("the ctypes mirrors of gpuact.h's structs are out of date:\n  " + "\n  ".join(bad))

    def check(self, r, what):
        if r != 0:
            raise GpuactError(f"{what} failed: {self.lib.gpuact_result_string(r).decode()}\n"
                              f"{self.lib.gpuact_last_error().decode(errors='replace')}")

    def close(self):
        if self.ctx:
            self.lib.gpuact_context_destroy(self.ctx)
            self.ctx = None

    def synchronize(self):
        self.check(self.lib.gpuact_synchronize(self.ctx, self.stream), "gpuact_synchronize")

    def _act(self, a):
        a = a or act()
        if self.structs is STRUCTS or self.structs is STRUCTS_V2:
            return a
        if self.structs is STRUCTS_V1:  # a build from before GPUACT_ACT_PRECISE: the default evaluation only
            if a.flags:
                raise GpuactError("this build predates act.flags")
            return ActivationV1(a.kind, a.negative_slope, a.ceiling, a.lower)
        if a.kind > CLIPPED:
            raise GpuactError("this build predates activation kind %d" % a.kind)
        return ActivationV0(a.kind, a.negative_slope, a.ceiling)

    def _op(self, fn, name, *args):
        check = self.check

        def run():
            r = fn(*args)
            if r:
                check(r, name)
        run.keep = args  # descriptors and buffers live as long as the op
        return run

    # -- op builders --------------------------------------------------------------------------
    def relu_forward_op(self, dtype, n, x, y):
        return self._op(self.lib.gpuact_relu_forward, "gpuact_relu_forward", self.ctx, dtype, n, buf(x), buf(y),
                        self.stream)

    def relu_backward_op(self, dtype, n, dy, x, dx):
        return self._op(self.lib.gpuact_relu_backward, "gpuact_relu_backward", self.ctx, dtype, n, buf(dy),
                        buf(x), buf(dx), self.stream)

    def forward_op(self, dtype, n, x, y, a=None, mask=None):
        d = self.S["forward_desc"]()
        d.act = self._act(a)
        d.dtype, d.n, d.x, d.y, d.mask = dtype, n, buf(x), buf(y), buf(mask)
        return self._op(self.lib.gpuact_forward, "gpuact_forward", self.ctx, byref(d), self.stream)

    def backward_op(self, dtype, n, dy, dx, x=None, mask=None, a=None):
        d = self.S["backward_desc"]()
        d.act = self._act(a)
        d.dtype, d.n, d.dy, d.dx, d.x, d.mask = dtype, n, buf(dy), buf(dx), buf(x), buf(mask)
        return self._op(self.lib.gpuact_backward, "gpuact_backward", self.ctx, byref(d), self.stream)

    def epilogue_op(self, rows, cols, x, y, x_dtype, y_dtype, bias=None, bias_dtype=None, a=None, scale=1.0,
                    mask=None, mask_ld=0, ld_x=0, ld_y=0):
        d = self.S["epilogue_desc"]()
        d.act = self._act(a)
        d.rows, d.cols, d.x_dtype, d.y_dtype = rows, cols, x_dtype, y_dtype
        d.bias_dtype = x_dtype if bias_dtype is None else bias_dtype
        d.ld_x, d.ld_y, d.scale = ld_x, ld_y, scale
        d.x, d.bias, d.y, d.mask, d.mask_ld = buf(x), buf(bias), buf(y), buf(mask), mask_ld
        return self._op(self.lib.gpuact_epilogue_forward, "gpuact_epilogue_forward", self.ctx, byref(d),
                        self.stream)

    def epilogue_backward_op(self, rows, cols, dy, dx, dy_dtype, dx_dtype, y=None, y_dtype=None, mask=None,
                             mask_ld=0, dbias=None, dbias_dtype=F32, a=None, scale=1.0, ld_dy=0, ld_dx=0, ld_y=0,
                             x=None, x_dtype=None, bias=None, ld_x=0):
        d = self.S["epilogue_backward_desc"]()
        d.act = self._act(a)
        d.rows, d.cols, d.dy_dtype, d.dx_dtype = rows, cols, dy_dtype, dx_dtype
        d.y_dtype = dy_dtype if y_dtype is None else y_dtype
        d.dbias_dtype = dbias_dtype
        d.ld_dy, d.ld_dx, d.ld_y, d.scale = ld_dy, ld_dx, ld_y, scale
        d.dy, d.dx, d.y, d.mask, d.mask_ld, d.dbias = buf(dy), buf(dx), buf(y), buf(mask), mask_ld, buf(dbias)
        if x is not None or bias is not None:
            d.x, d.bias, d.ld_x = buf(x), buf(bias), ld_x
            d.x_dtype = dy_dtype if x_dtype is None else x_dtype
        return self._op(self.lib.gpuact_epilogue_backward, "gpuact_epilogue_backward", self.ctx, byref(d),
                        self.stream)

    def glu_op(self, rows, cols, a, b, y, x_dtype, y_dtype, act_=None, bias_a=None, bias_b=None, ld_a=0, ld_b=0,
               ld_y=0):
        """y = act(a + bias_a) * (b + bias_b); a, b may be Buffers into one tensor (the halves)."""
        d = self.S["glu_desc"]()
        d.act = self._act(act_ or act(SILU))
        d.rows, d.cols, d.x_dtype, d.y_dtype, d.ld_a, d.ld_b, d.ld_y = rows, cols, x_dtype, y_dtype, ld_a, ld_b, ld_y
        d.a, d.b, d.y, d.bias_a, d.bias_b = buf(a), buf(b), buf(y), buf(bias_a), buf(bias_b)
        return self._op(self.lib.gpuact_glu_forward, "gpuact_glu_forward", self.ctx, byref(d), self.stream)

    def glu_backward_op(self, rows, cols, dy, a, b, da, db, dy_dtype, x_dtype, act_=None, bias_a=None, bias_b=None,
                        dbias_a=None, dbias_b=None, dbias_dtype=F32, ld_dy=0, ld_a=0, ld_b=0, ld_da=0, ld_db=0):
        d = self.S["glu_backward_desc"]()
        d.act = self._act(act_ or act(SILU))
        d.rows, d.cols, d.dy_dtype, d.x_dtype, d.dbias_dtype = rows, cols, dy_dtype, x_dtype, dbias_dtype
        d.ld_dy, d.ld_a, d.ld_b, d.ld_da, d.ld_db = ld_dy, ld_a, ld_b, ld_da, ld_db
        d.dy, d.a, d.b, d.bias_a, d.bias_b = buf(dy), buf(a), buf(b), buf(bias_a), buf(bias_b)
        d.da, d.db, d.dbias_a, d.dbias_b = buf(da), buf(db), buf(dbias_a), buf(dbias_b)
        return self._op(self.lib.gpuact_glu_backward, "gpuact_glu_backward", self.ctx, byref(d), self.stream)

    def copy_op(self, dst, src, nbytes):
        return self._op(self.copy_fn, "gpuact_testing_copy", self.ctx, self.stream, buf(dst),
                        buf(src), nbytes)

    # -- blocking memory helpers (for the selftest without torch) -----------------------------
    def alloc(self, nbytes):
        b = Buffer()
        self.check(self.lib.gpuact_buffer_alloc(self.ctx, nbytes, byref(b)), "gpuact_buffer_alloc")
        return b

    def free(self, b):
        self.lib.gpuact_buffer_free(self.ctx, b)

    def write(self, b, data):
        data = bytes(data)
        self.check(self.lib.gpuact_buffer_write(self.ctx, b, data, len(data)), "gpuact_buffer_write")

    def read(self, b, nbytes):
        out = ctypes.create_string_buffer(nbytes)
        self.check(self.lib.gpuact_buffer_read(self.ctx, out, b, nbytes), "gpuact_buffer_read")
        return out.raw


def same_bits(a, b):
    """Whether two tensors of one 4- or 2-byte dtype hold the same bits (NaN payloads and signed zeros
    included): how every benchmark here compares gpuact's outputs with torch's and builds with each other."""
    import torch
    iv = {4: torch.int32, 2: torch.int16}[a.element_size()]
    return bool(torch.equal(a.contiguous().view(iv), b.contiguous().view(iv)))


def default_lib():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), "build", "libgpuact.so")


# ---------------------------------------------------------------------------------------------
# --selftest-ctypes: the binding on any backend, without torch (plain Python arithmetic in f32)

def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def selftest_ctypes(args):
    import random
    g = Gpuact(args.lib, backend=args.backend if args.backend != "cuda" else "auto")
    print(f"selftest-ctypes: layouts ok; backend {g.backend}, device {g.device_name}")
    rnd = random.Random(1234)
    fails = 0

    def pack(vals):
        return struct.pack(f"<{len(vals)}f", *vals)

    def unpack(raw):
        return list(struct.unpack(f"<{len(raw) // 4}f", raw))

    def bits(v):
        return struct.unpack("<I", struct.pack("<f", v))[0]

    def expect(name, got, want):
        nonlocal fails
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if bits(a) != bits(b)]
        if bad:
            fails += 1
            i = bad[0]
            print(f"  FAIL {name}: {len(bad)} mismatches; first at {i}: got {bits(got[i]):#010x} "
                  f"want {bits(want[i]):#010x}")
        else:
            print(f"  ok   {name}")

    n = 1003
    xs = [f32(rnd.uniform(-8, 8)) for _ in range(n)]
    dys = [f32(rnd.uniform(-2, 2)) for _ in range(n)]
    bx, by, bdy, bdx = g.alloc(4 * n), g.alloc(4 * n), g.alloc(4 * n), g.alloc(4 * n)
    bm = g.alloc((n + 7) // 8)
    g.write(bx, pack(xs))
    g.write(bdy, pack(dys))
    relu = [x if x > 0 else 0.0 for x in xs]
    g.relu_forward_op(F32, n, bx, by)()
    g.synchronize()
    expect("relu_forward", unpack(g.read(by, 4 * n)), relu)
    g.forward_op(F32, n, bx, by, act(LEAKY, 0.01), bm)()
    g.synchronize()
    expect("forward leaky + mask", unpack(g.read(by, 4 * n)), [x if x > 0 else f32(x * f32(0.01)) for x in xs])
    m = g.read(bm, (n + 7) // 8)
    got_bits = [(m[i // 8] >> (i % 8)) & 1 for i in range(n)]
    if got_bits != [int(x > 0) for x in xs]:
        fails += 1
        print("  FAIL forward mask bits")
    else:
        print("  ok   forward mask bits")
    g.backward_op(F32, n, bdy, bdx, mask=bm, a=act(LEAKY, 0.01))()
    g.synchronize()
    expect("backward leaky from mask", unpack(g.read(bdx, 4 * n)),
           [dy if x > 0 else f32(dy * f32(0.01)) for x, dy in zip(xs, dys)])
    g.relu_backward_op(F32, n, bdy, bx, bdx)()
    g.synchronize()
    expect("relu_backward", unpack(g.read(bdx, 4 * n)), [dy if x > 0 else 0.0 for x, dy in zip(xs, dys)])
    g.forward_op(F32, n, bx, by, act(CLIPPED, 0.0, 6.0))()
    g.synchronize()
    expect("forward clipped", unpack(g.read(by, 4 * n)), [0.0 if x <= 0 else (6.0 if x >= 6 else x) for x in xs])
    for b in (bx, by, bdy, bdx, bm):
        g.free(b)

    rows, cols = 7, 100
    mld = mask_ld_default(cols)
    x2 = [f32(rnd.uniform(-4, 4)) for _ in range(rows * cols)]
    b2 = [f32(rnd.uniform(-1, 1)) for _ in range(cols)]
    dy2 = [f32(rnd.uniform(-1, 1)) for _ in range(rows * cols)]
    bx, bb, by, bm = g.alloc(4 * rows * cols), g.alloc(4 * cols), g.alloc(4 * rows * cols), g.alloc(rows * mld // 8)
    bdy, bdx, bdb = g.alloc(4 * rows * cols), g.alloc(4 * rows * cols), g.alloc(4 * cols)
    g.write(bx, pack(x2))
    g.write(bb, pack(b2))
    g.write(bdy, pack(dy2))
    scale = f32(0.37)
    z = [f32(x2[i] + b2[i % cols]) for i in range(rows * cols)]
    g.epilogue_op(rows, cols, bx, by, F32, F32, bias=bb, bias_dtype=F32, scale=scale, mask=bm)()
    g.synchronize()
    expect("epilogue_forward bias relu scale", unpack(g.read(by, 4 * rows * cols)),
           [f32(v * scale) if v > 0 else 0.0 for v in z])
    m = g.read(bm, rows * mld // 8)
    ok = all(((m[r * mld // 8 + c // 8] >> (c % 8)) & 1) == int(z[r * cols + c] > 0)
             for r in range(rows) for c in range(cols))
    print(f"  {'ok  ' if ok else 'FAIL'} epilogue mask bits")
    fails += not ok
    g.epilogue_backward_op(rows, cols, bdy, bdx, F32, F32, mask=bm, dbias=bdb, scale=scale)()
    g.synchronize()
    dx = [f32(dy2[i] * scale) if z[i] > 0 else 0.0 for i in range(rows * cols)]
    expect("epilogue_backward from mask", unpack(g.read(bdx, 4 * rows * cols)), dx)
    db = unpack(g.read(bdb, 4 * cols))
    want = [sum(dx[r * cols + c] for r in range(rows)) for c in range(cols)]
    err = max(abs(a - b) / (sum(abs(dx[r * cols + c]) for r in range(rows)) + 1e-30)
              for c, (a, b) in enumerate(zip(db, want)))
    print(f"  {'ok  ' if err <= 1e-5 else 'FAIL'} dbias (max error / sum|dx| = {err:.2e})")
    fails += err > 1e-5
    g.copy_op(bdx, bdy, 4 * rows * cols)()
    g.synchronize()
    expect("gpuact_testing_copy", unpack(g.read(bdx, 4 * rows * cols)), dy2)
    for b in (bx, bb, by, bm, bdy, bdx, bdb):
        g.free(b)
    stream = g.lib.gpuact_shared_context_stream(g.ctx)
    print(f"  ok   gpuact_shared_context_stream = {stream:#x}" if stream else "  ok   context stream is NULL")
    g.close()
    print(f"selftest-ctypes: {'all ok' if not fails else f'{fails} FAILED'}")
    return 1 if fails else 0


# ---------------------------------------------------------------------------------------------
# (a) numerics against torch

CEILINGS = (6.0, 6.2, 0.7)  # 6.2 rounds down in f16 and bf16, 0.7 rounds up in f16
SLOPES = (0.01, 0.0, 1.5)

SPECIAL_BITS = {
    "float32": [0x7fc00000, 0x7fc00001, 0x7f800001, 0x7fa5a5a5, 0x7fffffff, 0xffc00000, 0xff800123, 0xffffffff,
                0x7f800000, 0xff800000, 0x00000000, 0x80000000, 0x00000001, 0x00000123, 0x007fffff, 0x80000001,
                0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x33800000,
                0xb3800000],
    "float16": [0x7e00, 0x7e01, 0x7c01, 0x7d55, 0x7fff, 0xfe00, 0xfc01, 0xffff, 0x7c00, 0xfc00, 0x0000, 0x8000,
                0x0001, 0x0123, 0x03ff, 0x8001, 0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x3c00, 0xbc00],
    "bfloat16": [0x7fc0, 0x7fc1, 0x7f81, 0x7fd5, 0x7fff, 0xffc0, 0xff81, 0xffff, 0x7f80, 0xff80, 0x0000, 0x8000,
                 0x0001, 0x0023, 0x007f, 0x8001, 0x807f, 0x0080, 0x8080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80],
}


class Numerics:
    def __init__(self, g, torch, F, dev, seed):
        self.g, self.torch, self.F, self.dev = g, torch, F, dev
        self.gen = torch.Generator(device=dev)
        self.gen.manual_seed(seed)
        self.results = []  # (name, mismatches, total)
        t = torch
        self.code = {t.float32: F32, t.float16: F16, t.bfloat16: BF16}
        self.ivt = {t.float32: t.int32, t.float16: t.int16, t.bfloat16: t.int16}
        self.width = {t.float32: 32, t.float16: 16, t.bfloat16: 16}

    # -- helpers -------------------------------------------------------------------------------
    def name(self, dt):
        return str(dt).replace("torch.", "")

    def bits(self, t):
        return t.contiguous().view(self.ivt[t.dtype])

    def hexbits(self, v, dt):
        w = self.width[dt]
        return f"{int(v) & ((1 << w) - 1):0{w // 4}x}"

    def rounded(self, c, dt):
        """c rounded to dt, as a Python float (exact in f32)."""
        return float(self.torch.tensor([c], dtype=dt).float().item())

    def special_tensor(self, dt, n, scale=4.0, cols_limit=None, rows=None):
        """n values: randn * scale in dt, with the specials (and each ceiling's
        neighbours in dt) at both ends and at n/16 random positions. With
        cols_limit (and rows), specials only in the first cols_limit columns."""
        t = self.torch
        w = self.width[dt]
        sb = list(SPECIAL_BITS[self.name(dt)])
        for c in CEILINGS:
            cb = int(t.tensor([c], dtype=dt).view(self.ivt[dt]).item()) & ((1 << w) - 1)
            sb += [cb + d for d in (-2, -1, 0, 1, 2)]
        signed = [b - (1 << w) if b >= 1 << (w - 1) else b for b in sb]
        sp = t.tensor(signed, dtype=self.ivt[dt]).to(self.dev).view(dt)
        x = (t.randn(n, device=self.dev, generator=self.gen) * scale).to(dt)
        k = sp.numel()
        if cols_limit is None:
            x[:k] = sp
            x[-k:] = sp.flip(0)
            pos = t.randint(k, n - k, (max(n // 16, 1),), device=self.dev, generator=self.gen)
        else:
            cols = n // rows
            r = t.randint(0, rows, (max(n // 64, k),), device=self.dev, generator=self.gen)
            c = t.randint(0, cols_limit, (r.numel(),), device=self.dev, generator=self.gen)
            pos = r * cols + c
        x[pos] = sp[t.randint(0, k, (pos.numel(),), device=self.dev, generator=self.gen)]
        return x

    def pack_rows(self, passes, mask_ld):
        """bool [rows, cols] -> uint8 [rows, mask_ld/8], element c is bit c%8 of byte c/8."""
        t = self.torch
        rows, cols = passes.shape
        p = t.zeros(rows, mask_ld, dtype=t.int64, device=self.dev)
        p[:, :cols] = passes.to(t.int64)
        w = (2 ** t.arange(8, device=self.dev, dtype=t.int64))
        return (p.view(rows, mask_ld // 8, 8) * w).sum(-1).to(t.uint8)

    def record(self, name, nbad, total):
        self.results.append((name, nbad, total))
        print(f"  {'ok  ' if nbad == 0 else 'FAIL'} {name}" + (f": {nbad} of {total} differ" if nbad else ""))

    def compare(self, name, got, ref, nan_equal, inputs=(), keeps_payload_of=None):
        """keeps_payload_of: for ops where torch rounds a passed-through NaN
        gradient to its canonical NaN but gpuact selects dy's bits (docs/NUMERICS.md:
        'by selection'); there gpuact must equal that tensor's bits exactly and
        torch must be a NaN. Everything else is compared bit for bit."""
        t = self.torch
        gf, rf = got.reshape(-1), ref.reshape(-1)
        bad = self.bits(gf) != self.bits(rf)
        if nan_equal:
            bad &= ~(t.isnan(gf) & t.isnan(rf))
        kept = 0
        if keeps_payload_of is not None:
            src = keeps_payload_of.reshape(-1)
            ok = t.isnan(src) & (self.bits(gf) == self.bits(src)) & t.isnan(rf)
            kept = int((bad & ok).sum().item())
            bad &= ~ok
        nbad = int(bad.sum().item())
        suffix = " (NaN==NaN)" if nan_equal else " (bits)"
        if kept:
            suffix += f"; {kept} NaN dy kept with their payload, torch gives its canonical NaN (docs/NUMERICS.md)"
        self.record(name + suffix, nbad, gf.numel())
        if nbad:
            for i in t.nonzero(bad).reshape(-1)[:8].tolist():
                ins = " ".join(f"{lbl}={self.hexbits(self.bits(v.reshape(-1))[i].item(), v.dtype)}"
                               for lbl, v in inputs)
                print(f"      [{i}] {ins} gpuact={self.hexbits(self.bits(gf)[i].item(), gf.dtype)} "
                      f"torch={self.hexbits(self.bits(rf)[i].item(), rf.dtype)}")
        return nbad == 0

    def compare_mask(self, name, got_bytes, passes, mask_ld):
        """got_bytes: uint8 [rows, mask_ld/8] from gpuact (poisoned with 0xab
        before); checks the used bytes and that bytes past a row's
        ceil(cols/8) were not written."""
        t = self.torch
        rows, cols = passes.shape
        used = (cols + 7) // 8
        want = self.pack_rows(passes, mask_ld)[:, :used]
        got = got_bytes.view(rows, mask_ld // 8)
        bad = got[:, :used] != want
        nbad = int(bad.sum().item())
        untouched = bool((got[:, used:] == 0xab).all().item()) if used < mask_ld // 8 else True
        self.record(f"{name} mask bits", nbad + (0 if untouched else 1), rows * used)
        if nbad:
            for rc in t.nonzero(bad)[:6].tolist():
                r, c = rc
                print(f"      row {r} byte {c}: gpuact={int(got[r, c]):#04x} expected={int(want[r, c]):#04x}")
        if not untouched:
            print("      bytes past a row's ceil(cols/8) were written")

    def empty_like_poisoned(self, x, dt=None, shape=None):
        t = self.torch
        dt = dt or x.dtype
        y = t.empty(shape if shape is not None else x.shape, dtype=dt, device=self.dev)
        y.view(self.ivt[dt]).fill_(-1)  # all ones: a NaN
        return y

    def mask_buffer(self, rows, mask_ld):
        t = self.torch
        return t.full((rows * (mask_ld // 8),), 0xab, dtype=t.uint8, device=self.dev)

    # -- elementwise ---------------------------------------------------------------------------
    def elementwise(self, dt, n):
        t, F, g = self.torch, self.F, self.g
        code = self.code[dt]
        dn = self.name(dt)
        x = self.special_tensor(dt, n)
        dy = self.special_tensor(dt, n, scale=2.0)
        mld = (n + 7) // 8 * 8
        xin = [("x", x)]
        bin_ = [("dy", dy), ("x", x)]

        # relu
        y = self.empty_like_poisoned(x)
        g.relu_forward_op(code, n, x, y)()
        ref = t.relu(x)
        self.compare(f"{dn} relu forward vs torch.relu", y, ref, False, xin)
        y1 = self.empty_like_poisoned(x)
        g.relu_forward_op(code, n - 1, x[1:], y1[1:])()
        self.compare(f"{dn} relu forward, one element off 16-byte alignment", y1[1:], t.relu(x[1:]), False,
                     [("x", x[1:])])
        xc = x.clone()
        g.relu_forward_op(code, n, xc, xc)()
        self.compare(f"{dn} relu forward in place", xc, ref, False, xin)
        ym = self.empty_like_poisoned(x)
        m = self.mask_buffer(1, mld)
        g.forward_op(code, n, x, ym, act(RELU), m)()
        self.compare(f"{dn} relu forward + mask: y", ym, ref, False, xin)
        self.compare_mask(f"{dn} relu forward", m, (~(x <= 0)).view(1, n), mld)
        dx = self.empty_like_poisoned(x)
        g.relu_backward_op(code, n, dy, x, dx)()
        tb = t.ops.aten.threshold_backward(dy, x, 0)
        self.compare(f"{dn} relu backward from x vs threshold_backward", dx, tb, False, bin_)
        g.relu_backward_op(code, n, dy, ref, dx)()
        self.compare(f"{dn} relu backward from y vs threshold_backward(dy, y)", dx,
                     t.ops.aten.threshold_backward(dy, ref, 0), False, [("dy", dy), ("y", ref)])
        dx.view(self.ivt[dt]).fill_(-1)
        g.backward_op(code, n, dy, dx, mask=m, a=act(RELU))()
        self.compare(f"{dn} relu backward from mask vs threshold_backward", dx, tb, False, bin_)

        # leaky
        for s in SLOPES:
            s32 = f32(s)
            a = act(LEAKY, s32)
            y = self.empty_like_poisoned(x)
            m = self.mask_buffer(1, mld)
            g.forward_op(code, n, x, y, a, m)()
            ref = F.leaky_relu(x, s32)
            self.compare(f"{dn} leaky({s}) forward vs F.leaky_relu", y, ref, True, xin)
            self.compare_mask(f"{dn} leaky({s}) forward", m, (x > 0).view(1, n), mld)
            tb = t.ops.aten.leaky_relu_backward(dy, x, s32, False)
            g.backward_op(code, n, dy, dx, x=x, a=a)()
            self.compare(f"{dn} leaky({s}) backward from x vs leaky_relu_backward", dx, tb, True, bin_)
            g.backward_op(code, n, dy, dx, mask=m, a=a)()
            self.compare(f"{dn} leaky({s}) backward from mask vs leaky_relu_backward", dx, tb, True, bin_)
            if s > 0:
                g.backward_op(code, n, dy, dx, x=ref, a=a)()
                self.compare(f"{dn} leaky({s}) backward from y vs leaky_relu_backward(self_is_result)", dx,
                             t.ops.aten.leaky_relu_backward(dy, ref, s32, True), True, [("dy", dy), ("y", ref)])

        # clipped
        for c in CEILINGS:
            c32 = f32(c)
            cr = self.rounded(c32, dt)
            a = act(CLIPPED, 0.0, c32)
            y = self.empty_like_poisoned(x)
            m = self.mask_buffer(1, mld)
            g.forward_op(code, n, x, y, a, m)()
            ref = F.hardtanh(x, 0.0, c32)
            self.compare(f"{dn} clipped({c}) forward vs F.hardtanh(x, 0, {c})", y, ref, False, xin)
            if c == 6.0:
                self.compare(f"{dn} clipped(6) forward vs F.relu6", y, F.relu6(x), False, xin)
            xf = x.float()
            self.compare_mask(f"{dn} clipped({c}) forward (ceiling rounded to {cr!r})", m,
                              (~((xf <= 0) | (xf >= cr))).view(1, n), mld)
            # docs/NUMERICS.md: the elementwise ops clip and test at the ceiling rounded
            # to the dtype (so the backward from y equals the one from x); torch
            # tests at the unrounded value. Compare with torch at the rounded
            # ceiling, and say how many elements the rounding itself moves.
            tb = t.ops.aten.hardtanh_backward(dy, x, 0.0, cr)
            if cr != c32:
                moved = int((self.bits(t.ops.aten.hardtanh_backward(dy, x, 0.0, c32)) != self.bits(tb)).sum().item())
                print(f"      note: at ceiling {c} (rounds to {cr!r} in {dn}) torch's unrounded test differs "
                      f"from the rounded one at {moved} elements (docs/NUMERICS.md)")
            g.backward_op(code, n, dy, dx, x=x, a=a)()
            self.compare(f"{dn} clipped({c}) backward from x vs hardtanh_backward", dx, tb, False, bin_,
                         keeps_payload_of=dy)
            g.backward_op(code, n, dy, dx, mask=m, a=a)()
            self.compare(f"{dn} clipped({c}) backward from mask vs hardtanh_backward(dy, x)", dx, tb, False, bin_,
                         keeps_payload_of=dy)
            g.backward_op(code, n, dy, dx, x=ref, a=a)()
            self.compare(f"{dn} clipped({c}) backward from y vs hardtanh_backward(dy, x)", dx, tb, False,
                         [("dy", dy), ("x", x), ("y", ref)], keeps_payload_of=dy)
            if cr != c32:
                same = bool(t.equal(self.bits(t.ops.aten.hardtanh_backward(dy, ref, 0.0, c32)), self.bits(tb)))
                print(f"      note: torch's hardtanh_backward from y {'agrees' if same else 'DIFFERS'} with "
                      f"its backward from x at ceiling {c} (rounds to {cr!r} in {dn})")
        t.cuda.synchronize()

    # -- epilogue ------------------------------------------------------------------------------
    def epilogue(self, xdt, ydt, bdt, rows, cols, kind, param, scale, ld_x=0, ld_y=0):
        t, F, g = self.torch, self.F, self.g
        slope = f32(param) if kind == LEAKY else 0.0
        ceil = f32(param) if kind == CLIPPED else 0.0
        a = act(kind, slope, ceil)
        kname = {RELU: "relu", LEAKY: f"leaky({param})", CLIPPED: f"clipped({param})"}[kind]
        label = (f"epilogue {kname} x={self.name(xdt)} y={self.name(ydt)} b={self.name(bdt) if bdt else '-'} "
                 f"{rows}x{cols} scale={scale}" + (f" ld_x={ld_x} ld_y={ld_y}" if ld_x or ld_y else ""))
        lx, ly = ld_x or cols, ld_y or cols
        xs = self.special_tensor(xdt, rows * lx).view(rows, lx)
        x = xs[:, :cols]
        b = self.special_tensor(bdt, cols, scale=1.0) if bdt is not None else None
        ys = self.empty_like_poisoned(None, ydt, (rows, ly))
        y = ys[:, :cols]
        mld = mask_ld_default(cols)
        m = self.mask_buffer(rows, mld)
        s32 = f32(scale)
        g.epilogue_op(rows, cols, xs, ys, self.code[xdt], self.code[ydt], bias=b,
                      bias_dtype=self.code[bdt] if bdt is not None else None, a=a, scale=s32, mask=m,
                      mask_ld=mld, ld_x=ld_x, ld_y=ld_y)()
        # torch in f32, one rounding at the end (docs/NUMERICS.md "Epilogue")
        z = x.float() + b.float() if b is not None else x.float()
        if kind == RELU:
            av = t.relu(z)
        elif kind == LEAKY:
            av = F.leaky_relu(z, slope)
        else:
            av = F.hardtanh(z, 0.0, ceil)
        if s32 != 1.0:
            av = av * t.tensor(s32, dtype=t.float32, device=self.dev)
        ref = av.to(ydt)
        inputs = [("x", x)] + ([("b", b.expand(rows, cols))] if b is not None else [])
        self.compare(f"{label}: y vs torch", y, ref, True, inputs)
        if ly > cols:
            pad_ok = bool((self.bits(ys[:, cols:]) == -1).all().item())
            self.record(f"{label}: y row padding untouched", 0 if pad_ok else 1, rows * (ly - cols))
        if xdt == t.float32 and ydt == t.float32 and b is not None and kind == RELU and s32 == 1.0:
            self.compare(f"{label}: y vs torch eager relu(x + b)", y, t.relu(x + b), True, inputs)
        if kind == RELU:
            passes = ~(z <= 0)
        elif kind == LEAKY:
            passes = z > 0
        else:
            passes = ~((z <= 0) | (z >= ceil))
        self.compare_mask(label, m, passes, mld)

        # backward: dy has y's dtype, dx x's; dbias f32
        dys = self.special_tensor(ydt, rows * ly, scale=1.0, cols_limit=min(96, cols), rows=rows).view(rows, ly)
        dy = dys[:, :cols]
        dxs = self.empty_like_poisoned(None, xdt, (rows, lx))
        dx = dxs[:, :cols]
        db = t.empty(cols, dtype=t.float32, device=self.dev)
        sources = [("mask", passes)]
        if kind != CLIPPED and s32 > 0:
            yf = y.float()
            sources.append(("y", ~(yf <= 0) if kind == RELU else yf > 0))
        for src, ps in sources:
            op = g.epilogue_backward_op(rows, cols, dys, dxs, self.code[ydt], self.code[xdt],
                                        y=ys if src == "y" else None, y_dtype=self.code[ydt],
                                        mask=m if src == "mask" else None, mask_ld=mld, dbias=db, a=a, scale=s32,
                                        ld_dy=ld_y, ld_dx=ld_x, ld_y=ld_y)
            op()
            gg = dy.float()
            if s32 != 1.0:
                gg = gg * t.tensor(s32, dtype=t.float32, device=self.dev)
            other = gg * t.tensor(slope, dtype=t.float32, device=self.dev) if kind == LEAKY else t.zeros_like(gg)
            dref = t.where(ps, gg, other).to(xdt)
            self.compare(f"{label}: backward from {src}: dx", dx, dref, True, [("dy", dy)] + inputs[:1])
            want = dref.double().sum(0)
            sumabs = dref.double().abs().sum(0)
            tol = 1e-5 * sumabs + 1e-30
            got = db.double()
            # Finite columns: within 1e-5 of the sum of magnitudes. Columns
            # with Inf/NaN in dx: the same Inf, or a NaN for a NaN. Columns
            # whose magnitudes pass f32's range (f32 partial sums may
            # overflow where f64 does not) are not judged.
            finite_mag = t.where(t.isfinite(dref), dref.double().abs(), t.zeros_like(sumabs[None, :])).sum(0)
            judged = finite_mag < 1e38
            same = (t.isnan(got) & t.isnan(want)) | (got == want)
            bad = judged & t.where(t.isfinite(want), (got - want).abs() > tol, ~same)
            nbad = int(bad.sum().item())
            self.record(f"{label}: backward from {src}: dbias within 1e-5 of sum|dx| (f64 reference)", nbad,
                        int(judged.sum().item()))
            for c in t.nonzero(bad).reshape(-1)[:5].tolist():
                print(f"      dbias[{c}] gpuact={got[c].item()!r} reference={want[c].item()!r}")
            first = db.clone()
            op()
            again = bool(t.equal(self.bits(first), self.bits(db)))
            self.record(f"{label}: backward from {src}: dbias identical run to run", 0 if again else 1, cols)
        t.cuda.synchronize()

    def run(self, quick):
        t = self.torch
        n = 4099 * 16 + 5 if quick else 65536 * 3 + 13
        print("(a) numerics: gpuact vs torch, inputs full of specials")
        for dt in (t.float32, t.float16, t.bfloat16):
            self.elementwise(dt, n)
        f32t, f16t, bf16t = t.float32, t.float16, t.bfloat16
        cases = [
            (f32t, f32t, f32t, 37, 1001, RELU, 0, 1.0, 0, 0),
            (f32t, f32t, f32t, 64, 1024, RELU, 0, 1.0, 0, 0),
            (f32t, f32t, f32t, 64, 1024, RELU, 0, 0.37, 0, 0),
            (f32t, f32t, f32t, 64, 1024, RELU, 0, -1.5, 0, 0),
            (f32t, f32t, f32t, 64, 1024, LEAKY, 0.01, 1.0, 0, 0),
            (f32t, f32t, f32t, 64, 1024, LEAKY, 0.01, 0.37, 0, 0),
            (f32t, f32t, f32t, 64, 1024, CLIPPED, 6.0, 1.0, 0, 0),
            (f32t, f32t, f32t, 64, 1024, CLIPPED, 6.2, 0.5, 0, 0),
            (f32t, f32t, f32t, 33, 1000, RELU, 0, 1.0, 1000 + 8, 1000 + 12),
            (f32t, f32t, None, 64, 1024, RELU, 0, 1.0, 0, 0),
            (f16t, f16t, f16t, 64, 1024, RELU, 0, 1.0, 0, 0),
            (f16t, f16t, f16t, 64, 1024, RELU, 0, 0.37, 0, 0),
            (f16t, f16t, f16t, 40, 1030, CLIPPED, 6.2, 1.0, 0, 0),
            (bf16t, bf16t, bf16t, 64, 1024, RELU, 0, 1.0, 0, 0),
            (bf16t, bf16t, bf16t, 64, 1024, LEAKY, 0.01, 0.37, 0, 0),
            (bf16t, bf16t, bf16t, 64, 8192, RELU, 0, 1.0, 0, 0),
            (bf16t, f32t, f32t, 64, 1024, RELU, 0, 1.0, 0, 0),
            (f32t, bf16t, f32t, 64, 1024, RELU, 0, 1.0, 0, 0),
            (f16t, f32t, bf16t, 17, 999, LEAKY, 0.01, 1.0, 0, 0),
        ]
        for c in cases:
            self.epilogue(*c)
        bad = [r for r in self.results if r[1]]
        print(f"(a) numerics: {len(self.results) - len(bad)} passed, {len(bad)} failed")
        return bad


# ---------------------------------------------------------------------------------------------
# (b) timing against torch

class Timing:
    def __init__(self, g, torch, F, dev, reps, warmup, quick, compile_ok):
        self.g, self.torch, self.F, self.dev = g, torch, F, dev
        self.reps, self.warmup, self.quick, self.compile_ok = reps, warmup, quick, compile_ok
        self.rows = []   # dicts: workload impl median_ms min_ms bytes check host_us note
        self.pairs = []  # (workload, impl, other impl, target, sense) sense: 'speedup' or 'ratio'
        self.copy_gbps = None
        self.gen = torch.Generator(device=dev)
        self.gen.manual_seed(int(time.time() * 1e6) & 0xffffffff)  # fresh data every run
        self.e0 = torch.cuda.Event(enable_timing=True)
        self.e1 = torch.cuda.Event(enable_timing=True)

    def randn(self, *shape, dtype=None):
        return self.torch.randn(*shape, device=self.dev, dtype=dtype or self.torch.float32, generator=self.gen)

    def time(self, fn):
        t = self.torch
        for _ in range(self.warmup):
            fn()
        t.cuda.synchronize()
        ts = []
        for _ in range(self.reps):
            self.e0.record()
            fn()
            self.e1.record()
            self.e1.synchronize()
            ts.append(self.e0.elapsed_time(self.e1))
        return statistics.median(ts), min(ts)

    def host_us(self, fn, calls, batches=5):
        t = self.torch
        res = []
        for b in range(batches + 1):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            t1 = time.perf_counter()
            t.cuda.synchronize()
            if b:
                res.append((t1 - t0) / calls * 1e6)
        return statistics.median(res)

    def add(self, workload, impl, fn, nbytes=None, check=None, note=""):
        med, mn = self.time(fn)
        ok = "-"
        if check is not None:
            try:
                ok = "ok" if check() else "FAIL"
            except Exception as e:  # a failing check must not hide the timing
                ok = "FAIL"
                print(f"      check of {workload} / {impl} raised {e!r}")
        row = dict(workload=workload, impl=impl, median_ms=med, min_ms=mn, bytes=nbytes, check=ok, host_us=None,
                   note=note)
        self.rows.append(row)
        gb = f"  {nbytes / (med * 1e6):8.1f} GB/s" if nbytes else ""
        print(f"  {workload:34s} {impl:40s} {med:9.4f} ms (min {mn:.4f}){gb}  {ok}")
        return row

    def pair(self, workload, impl, other, target, sense="speedup"):
        self.pairs.append((workload, impl, other, target, sense))

    def find(self, workload, impl):
        for r in self.rows:
            if r["workload"] == workload and r["impl"] == impl:
                return r
        return None

    def free(self):
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()

    def run(self):
        t, F, g = self.torch, self.F, self.g
        print("(b) timing: torch.cuda.Event, median of", self.reps, "after", self.warmup, "warm-up")
        n = (1 << 22) if self.quick else 4096 * 393216
        shape = f"n={n}"
        code = {t.float32: F32, t.float16: F16, t.bfloat16: BF16}

        # the limit: device-to-device copy of the seed f32 tensor (cudaMemcpy D2D via copy_)
        x = self.randn(n)
        y = t.empty_like(x)
        r = self.add(f"copy f32 {shape}", "torch copy_ (cudaMemcpy D2D)", lambda: y.copy_(x), 8 * n,
                     lambda: same_bits(y, x))
        self.copy_gbps = r["bytes"] / (r["median_ms"] * 1e6)
        y.zero_()
        self.add(f"copy f32 {shape}", "gpuact_testing_copy (cuMemcpyDtoDAsync)", g.copy_op(y, x, 4 * n), 8 * n,
                 lambda: same_bits(y, x))
        del y

        # relu forward f32 / bf16 / f16
        for dt in (t.float32, t.bfloat16, t.float16):
            es = t.tensor([], dtype=dt).element_size()
            xd = x if dt == t.float32 else self.randn(n, dtype=dt)
            yd = t.empty_like(xd)
            w = f"relu fwd {str(dt)[6:]} {shape}"
            self.add(w, "gpuact", g.relu_forward_op(code[dt], n, xd, yd), 2 * es * n,
                     lambda: same_bits(yd, t.relu(xd)))
            self.add(w, "torch.relu", lambda: t.relu(xd), 2 * es * n)
            self.pair(w, "gpuact", "torch.relu", ">= 1.00x, >= 98% of copy")
            if dt == t.float32:
                mask = t.empty((n + 7) // 8, dtype=t.uint8, device=self.dev)
                w2 = f"relu fwd + mask f32 {shape}"
                self.add(w2, "gpuact", g.forward_op(F32, n, x, yd, act(RELU), mask), 8 * n + n // 8,
                         lambda: same_bits(yd, t.relu(x)))
                self.pair(w2, "gpuact", None, "<= 1.04x the plain forward's time", "vs-plain")
                self.plain_fwd = self.find(w, "gpuact")
                self.add(f"leaky(0.01) fwd f32 {shape}", "gpuact", g.forward_op(F32, n, x, yd, act(LEAKY, 0.01)),
                         8 * n)
                self.add(f"leaky(0.01) fwd f32 {shape}", "F.leaky_relu", lambda: F.leaky_relu(x, 0.01), 8 * n)
                self.pair(f"leaky(0.01) fwd f32 {shape}", "gpuact", "F.leaky_relu", "(no target)")
                self.add(f"clipped(6) fwd f32 {shape}", "gpuact", g.forward_op(F32, n, x, yd, act(CLIPPED, 0, 6.0)),
                         8 * n)
                self.add(f"clipped(6) fwd f32 {shape}", "F.hardtanh(x, 0, 6)", lambda: F.hardtanh(x, 0.0, 6.0), 8 * n)
                self.pair(f"clipped(6) fwd f32 {shape}", "gpuact", "F.hardtanh(x, 0, 6)", "(no target)")

                # backward from x and from the mask (made by the forward above)
                dy = self.randn(n)
                dx = t.empty_like(x)
                wb = f"relu bwd f32 {shape}"
                ref = lambda: t.ops.aten.threshold_backward(dy, x, 0)
                self.add(wb, "gpuact from x (12 B/elem)", g.relu_backward_op(F32, n, dy, x, dx), 12 * n,
                         lambda: same_bits(dx, ref()))
                self.add(wb, "gpuact from mask (8.125 B/elem)", g.backward_op(F32, n, dy, dx, mask=mask),
                         8 * n + n // 8, lambda: same_bits(dx, ref()))
                self.add(wb, "torch threshold_backward", ref, 12 * n)
                self.pair(wb, "gpuact from x (12 B/elem)", "torch threshold_backward", ">= 1.00x")
                self.pair(wb, "gpuact from mask (8.125 B/elem)", "torch threshold_backward", ">= 1.40x")
                del dy, dx, mask
            del xd, yd
            self.free()
        del x
        self.free()

        # epilogue forward bias + relu, 65536x8192 and 1024x8192 f32
        def epi_eager(xx, bb):
            return t.relu(xx + bb)
        compiled = {}
        for rows, target in (((512, ">= 2.2x, >= 97% of copy"), (64, "<= 25 us")) if self.quick else
                             ((65536, ">= 2.2x, >= 97% of copy"), (1024, "<= 25 us"))):
            cols = 8192
            w = f"epilogue relu(x+b) f32 {rows}x{cols}"
            xx = self.randn(rows, cols)
            bb = self.randn(cols)
            yy = t.empty_like(xx)
            nb = 8 * rows * cols + 4 * cols
            self.add(w, "gpuact", g.epilogue_op(rows, cols, xx, yy, F32, F32, bias=bb), nb,
                     lambda: same_bits(yy, epi_eager(xx, bb)))
            mld = mask_ld_default(cols)
            mm = t.empty(rows * mld // 8, dtype=t.uint8, device=self.dev)
            self.add(w, "gpuact + mask", g.epilogue_op(rows, cols, xx, yy, F32, F32, bias=bb, mask=mm), nb +
                     rows * cols // 8, lambda: same_bits(yy, epi_eager(xx, bb)))
            self.add(w, "torch eager relu(x + b)", lambda: epi_eager(xx, bb), nb)
            self.pair(w, "gpuact", "torch eager relu(x + b)", target)
            if self.compile_ok:
                try:
                    t0 = time.time()
                    cf = compiled.get(rows) or t.compile(epi_eager, dynamic=False)
                    compiled[rows] = cf
                    cf(xx, bb)
                    t.cuda.synchronize()
                    print(f"      torch.compile took {time.time() - t0:.1f} s")
                    self.add(w, "torch.compile relu(x + b)", lambda: cf(xx, bb), nb,
                             lambda: same_bits(cf(xx, bb), epi_eager(xx, bb)))
                    self.pair(w, "gpuact", "torch.compile relu(x + b)", "> 1.00x")
                except Exception as e:
                    print(f"      torch.compile failed, continuing without it: {type(e).__name__}: {e}")
                    self.compile_ok = False
            del xx, bb, yy, mm
            self.free()

        # epilogue backward with dbias, 65536x8192 f32
        rows, cols = (512, 8192) if self.quick else (65536, 8192)
        w = f"epilogue bwd + dbias f32 {rows}x{cols}"
        xx = self.randn(rows, cols)
        bb = self.randn(cols)
        yy = t.empty_like(xx)
        mld = mask_ld_default(cols)
        mm = t.empty(rows * mld // 8, dtype=t.uint8, device=self.dev)
        g.epilogue_op(rows, cols, xx, yy, F32, F32, bias=bb, mask=mm)()
        del xx
        dy = self.randn(rows, cols)
        dx = t.empty_like(dy)
        db = t.empty(cols, device=self.dev)

        def eager_bwd():
            d = t.ops.aten.threshold_backward(dy, yy, 0)
            return d, d.sum(0)

        def check_bwd():
            d, s = eager_bwd()
            return same_bits(dx, d) and bool(t.allclose(db, s, rtol=1e-5, atol=1e-5 * float(d.abs().sum(0).max())))
        self.add(w, "gpuact from mask", g.epilogue_backward_op(rows, cols, dy, dx, F32, F32, mask=mm, dbias=db),
                 8 * rows * cols + rows * cols // 8 + 4 * cols, check_bwd)
        self.add(w, "gpuact from y", g.epilogue_backward_op(rows, cols, dy, dx, F32, F32, y=yy, dbias=db),
                 12 * rows * cols + 4 * cols, check_bwd)
        self.add(w, "torch eager threshold_backward + sum(0)", eager_bwd, 12 * rows * cols + 4 * cols)
        self.pair(w, "gpuact from mask", "torch eager threshold_backward + sum(0)", ">= 1.8x")
        self.pair(w, "gpuact from y", "torch eager threshold_backward + sum(0)", ">= 1.8x")
        del yy, mm, dy, dx, db
        self.free()

        # Linear 8192 -> 8192, batch 1024, bf16, + bias + relu
        bt = t.bfloat16
        batch, k, nout = (256, 2048, 2048) if self.quick else (1024, 8192, 8192)
        w = f"linear {k}->{nout} batch {batch} bf16 + bias + relu"
        xx = self.randn(batch, k, dtype=bt)
        ww = (self.randn(nout, k) / math.sqrt(k)).to(bt)
        bb = self.randn(nout, dtype=bt)
        out = t.empty(batch, nout, dtype=bt, device=self.dev)
        out2 = t.empty_like(out)
        wt = ww.t()
        gemm = lambda: t.mm(xx, wt, out=out)
        epi_inplace = g.epilogue_op(batch, nout, out, out, BF16, BF16, bias=bb)
        epi_oop = g.epilogue_op(batch, nout, out, out2, BF16, BF16, bias=bb)

        def gemm_epi():
            gemm()
            epi_inplace()
        self.add(w, "torch.mm alone", gemm)
        self.add(w, "gpuact epilogue alone (out of place)", epi_oop, 4 * batch * nout + 2 * nout)
        def check_linear():  # the epilogue against torch on the same GEMM output
            gemm()
            epi_oop()
            return same_bits(out2, t.relu(out + bb))
        self.add(w, "torch.mm + gpuact epilogue (in place)", gemm_epi, None, check_linear)
        self.add(w, "torch._addmm_activation (cuBLASLt RELU_BIAS)",
                 lambda: t._addmm_activation(bb, xx, wt, use_gelu=False))
        self.add(w, "torch eager relu(linear)", lambda: F.relu(F.linear(xx, ww, bb)))
        self.pair(w, "torch.mm + gpuact epilogue (in place)", "torch._addmm_activation (cuBLASLt RELU_BIAS)",
                  "(PERFORMANCE.md: 205 / 214 / 239 us)")
        self.pair(w, "torch.mm + gpuact epilogue (in place)", "torch eager relu(linear)", "> 1.00x")
        del xx, ww, bb, out, out2, wt
        self.free()

        # n = 1024: device time and host time per call
        w = "relu fwd f32 n=1024"
        xs = self.randn(1024)
        ys = t.empty_like(xs)
        op = g.relu_forward_op(F32, 1024, xs, ys)
        r = self.add(w, "gpuact (ctypes)", op, None, lambda: same_bits(ys, t.relu(xs)))
        r["host_us"] = self.host_us(op, 1000 if self.quick else 10000)
        r["note"] = "host time includes the ctypes call (C: build/gpuact-bench)"
        r2 = self.add(w, "torch.relu", lambda: t.relu(xs))
        r2["host_us"] = self.host_us(lambda: t.relu(xs), 1000 if self.quick else 10000)
        print(f"      host us per call: gpuact via ctypes {r['host_us']:.2f}, torch.relu {r2['host_us']:.2f}")
        self.pair(w, "gpuact (ctypes)", "torch.relu", "host <= 3 us (C), device at the launch floor")

    # -- report --------------------------------------------------------------------------------
    def tables(self):
        res = []
        for r in self.rows:
            gbps = r["bytes"] / (r["median_ms"] * 1e6) if r["bytes"] else None
            pct = 100 * gbps / self.copy_gbps if gbps and self.copy_gbps else None
            res.append(dict(r, gbps=gbps, pct_copy=pct))
        cmp = []
        for workload, impl, other, target, sense in self.pairs:
            a = self.find(workload, impl)
            if sense == "vs-plain":
                b = getattr(self, "plain_fwd", None)
                other = "gpuact plain forward"
                if a and b:
                    cmp.append(dict(workload=workload, impl=impl, other=other, impl_ms=a["median_ms"],
                                    other_ms=b["median_ms"], value=a["median_ms"] / b["median_ms"],
                                    measure="time ratio", target=target))
                continue
            b = self.find(workload, other)
            if a and b:
                cmp.append(dict(workload=workload, impl=impl, other=other, impl_ms=a["median_ms"],
                                other_ms=b["median_ms"], value=b["median_ms"] / a["median_ms"],
                                measure="speedup", target=target))
        return res, cmp


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def report(timing, numerics_bad, meta, out):
    res, cmp = timing.tables() if timing else ([], [])
    md = [f"# gpuact vs PyTorch", "", *[f"- {k}: {v}" for k, v in meta.items()], ""]
    if res:
        md += ["| workload | implementation | median ms | min ms | GB/s | % of copy | host us/call | check |",
               "|---|---|---|---|---|---|---|---|"]
        for r in res:
            md.append(f"| {r['workload']} | {r['impl']} | {r['median_ms']:.4f} | {r['min_ms']:.4f} | "
                      f"{fmt(r['gbps'], '.1f')} | {fmt(r['pct_copy'], '.1f')} | {fmt(r['host_us'], '.2f')} | "
                      f"{r['check']} |")
        md += ["", "| workload | gpuact | against | gpuact ms | other ms | result | target |",
               "|---|---|---|---|---|---|---|"]
        for c in cmp:
            val = f"{c['value']:.3f}x {'faster' if c['measure'] == 'speedup' else 'the time'}"
            md.append(f"| {c['workload']} | {c['impl']} | {c['other']} | {c['impl_ms']:.4f} | {c['other_ms']:.4f} | "
                      f"{val} | {c['target']} |")
    md += ["", f"Numerics: {'all comparisons passed' if not numerics_bad else f'{len(numerics_bad)} FAILED'}"]
    for name, nbad, total in numerics_bad or []:
        md.append(f"- FAIL {name}: {nbad} of {total}")
    text = "\n".join(md) + "\n"
    print()
    print(text)
    if out:
        if out.endswith(".md"):
            with open(out, "w") as f:
                f.write(text)
        else:
            import csv
            with open(out, "w", newline="") as f:
                wr = csv.writer(f)
                wr.writerow(["kind", "workload", "impl", "other", "median_ms", "min_ms", "other_ms", "value",
                             "gbps", "pct_copy", "host_us", "check", "target"])
                for r in res:
                    wr.writerow(["result", r["workload"], r["impl"], "", f"{r['median_ms']:.6f}",
                                 f"{r['min_ms']:.6f}", "", "", fmt(r["gbps"], ".1f"), fmt(r["pct_copy"], ".1f"),
                                 fmt(r["host_us"], ".2f"), r["check"], r["note"]])
                for c in cmp:
                    wr.writerow(["compare", c["workload"], c["impl"], c["other"], f"{c['impl_ms']:.6f}", "",
                                 f"{c['other_ms']:.6f}", f"{c['value']:.4f}", "", "", "", c["measure"],
                                 c["target"]])
                for name, nbad, total in numerics_bad or []:
                    wr.writerow(["numerics-fail", name, "", "", "", "", "", f"{nbad}/{total}", "", "", "", "FAIL",
                                 ""])
        print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default=os.environ.get("GPUACT_LIB", default_lib()), help="path of libgpuact.so")
    ap.add_argument("--out", help="write the results: markdown if it ends in .md, else CSV")
    ap.add_argument("--reps", type=int, default=30, help="timed repetitions (median), >= 20 for a claim")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke test of this script")
    ap.add_argument("--skip-numerics", action="store_true")
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--no-compile", action="store_true", help="do not try torch.compile")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--backend", default="cuda", help="for --selftest-ctypes only (default there: auto)")
    ap.add_argument("--selftest-ctypes", action="store_true",
                    help="check the ctypes binding without torch (any backend, e.g. OpenCL on PoCL)")
    args = ap.parse_args()

    if args.selftest_ctypes:
        return selftest_ctypes(args)

    import torch
    import torch.nn.functional as F
    if not torch.cuda.is_available():
        print("torch_compare: torch sees no CUDA device", file=sys.stderr)
        return 2
    if args.reps < 20 and not args.quick:
        print("torch_compare: note: fewer than 20 repetitions is not enough for a claim (PERFORMANCE.md)")
    torch.cuda.set_device(args.device)
    dev = torch.device("cuda", args.device)
    torch.empty(1, device=dev)  # the runtime's primary context exists before gpuact retains it
    stream = torch.cuda.current_stream().cuda_stream
    g = Gpuact(args.lib, backend="cuda", device=args.device, stream=stream)
    meta = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(dev),
        "gpuact device": g.device_name,
        "torch": torch.__version__,
        "cuda (torch)": torch.version.cuda,
        "reps / warm-up": f"{args.reps} / {args.warmup}",
        "stream": hex(stream),
        "command": " ".join(sys.argv),
    }
    print("torch_compare:", ", ".join(f"{k} {v}" for k, v in meta.items()))
    bad = []
    timing = None
    status = 0
    if not args.skip_numerics:
        try:
            bad = Numerics(g, torch, F, dev, seed=int(time.time())).run(args.quick)
        except Exception:
            traceback.print_exc()
            bad = [("numerics raised an exception", 1, 1)]
    if not args.skip_timing:
        timing = Timing(g, torch, F, dev, args.reps, args.warmup, args.quick, not args.no_compile)
        try:
            timing.run()
        except Exception:
            traceback.print_exc()
            status = 1
        if any(r["check"] == "FAIL" for r in timing.rows):
            status = 1
    report(timing, bad, meta, args.out)
    torch.cuda.synchronize()
    g.close()
    return 1 if bad or status else 0


if __name__ == "__main__":
    sys.exit(main())
