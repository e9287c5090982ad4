#!/usr/bin/env python3
"""Builds of gpuact for the Python benchmarks: the installed package's C
layer (gpuact._C), or another build's gpuact._C loaded by its file path,
so that one process can time two builds side by side (an A/B) through the
package's own raw calls.

    --lib LABEL             the installed package (import gpuact)
    --lib LABEL=PATH        the gpuact._C extension at PATH, e.g. the one
                            `pip install ./python` put in another venv, or
                            build/lib*/gpuact/_C*.so of `python3 setup.py
                            build_ext` in another checkout's python/

Each op is prepared once as a zero-argument callable on the C layer's raw
call (functools.partial): a timed call costs one C call. Buffers are torch
tensors (data_ptr(), offset 0), int handles, (handle, byte offset) tuples
or None.

Run alone, without torch, it checks each build on any backend (OpenCL on
PoCL included): every op once against a plain-Python ReLU reference, and
the builds against each other bit for bit:

    python3 bench/builds.py --backend opencl --lib a --lib b=/path/to/_C.abi3.so

--patterns16 compares the builds instead on every bf16 and f16 bit pattern
(eight times over, at element offsets 0, 1 and 3) and on N(0, 1) values:
the forward, the backward from x and the gated backward (the patterns as a)
of GELU, tanh-GELU and SiLU. With the
16-bit lookup (kernels/contract.h, GPUACT_LUT16_VARIANT) on in the first
build and off in the second (a _C built with -DGPUACT__ROWS_BY_DEVICE=0),
on a device whose row asks for it, it shows the lookup gives the word
path's bits:

    python3 bench/builds.py --patterns16 --lib lookup --lib word=/path/to/_C.abi3.so
"""
import argparse
import functools
import importlib.machinery
import importlib.util
import struct
import sys


def load(spec):
    """(label, C module) of "LABEL" (the installed package) or "LABEL=PATH" (an extension file)."""
    label, _, path = spec.partition("=")
    if not path:
        import gpuact
        return label, gpuact._C
    # The extension's init function is PyInit__C: the module name must end in "._C".
    name = f"gpuact_build_{len(sys.modules)}._C"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path, loader=loader))
    loader.exec_module(mod)
    return label, mod


def _ptr(b):
    if b is None or isinstance(b, (int, tuple)):
        return b
    return b.data_ptr()


class Build:
    """One build's C layer on one backend, device and stream."""

    def __init__(self, label, C, backend="cuda", device=0, stream=0):
        self.label, self.C = label, C
        self.where = (list(C.BACKENDS).index(backend), device, stream)
        self.dtypes = {name: i for i, (name, _) in enumerate(C.DTYPES)}
        self.kinds = {name: i for i, (name, _) in enumerate(C.KINDS)}
        self.version = C.VERSION

    def dt(self, name):
        return self.dtypes[name]

    def act(self, kind="relu", **params):
        """The activation tuple of this build: its kind value and its gpuact_activation fields (C.ACT_PARAMS;
        a build without a field refuses a nonzero value for it)."""
        if kind not in self.kinds:
            raise KeyError(f"{self.label} (gpuact {self.version}) has no activation kind {kind!r}")
        extra = {k: v for k, v in params.items() if v and k not in self.C.ACT_PARAMS}
        if extra:
            raise KeyError(f"{self.label} (gpuact {self.version}) has no activation field {', '.join(extra)}")
        return (self.kinds[kind],) + tuple(float(params.get(p, 0.0)) for p in self.C.ACT_PARAMS)

    def _a(self, a):
        """An activation as a tuple of this build, a kind name, or a dict of act()'s arguments."""
        if isinstance(a, tuple):
            return a
        return self.act(**a) if isinstance(a, dict) else self.act(a or "relu")

    def forward_op(self, dtype, n, x, y, a=None, mask=None):
        return functools.partial(self.C.forward, *self.where, self._a(a), self.dt(dtype), n, _ptr(x), _ptr(y),
                                 _ptr(mask))

    def backward_op(self, dtype, n, dy, dx, x=None, mask=None, a=None):
        return functools.partial(self.C.backward, *self.where, self._a(a), self.dt(dtype), n, _ptr(dy), _ptr(dx),
                                 _ptr(x), _ptr(mask))

    def epilogue_op(self, rows, cols, x, y, x_dtype, y_dtype, bias=None, bias_dtype=None, a=None, scale=1.0,
                    mask=None, mask_ld=0, ld_x=0, ld_y=0):
        return functools.partial(self.C.epilogue_forward, *self.where, self._a(a), rows, cols, self.dt(x_dtype),
                                 self.dt(y_dtype), self.dt(bias_dtype or x_dtype), ld_x, ld_y, scale, _ptr(x),
                                 _ptr(bias), _ptr(y), _ptr(mask), mask_ld)

    def epilogue_backward_op(self, rows, cols, dy, dx, dy_dtype, dx_dtype, y=None, y_dtype=None, mask=None,
                             mask_ld=0, dbias=None, dbias_dtype="f32", a=None, scale=1.0, ld_dy=0, ld_dx=0, ld_y=0,
                             x=None, x_dtype=None, bias=None, ld_x=0):
        args = (*self.where, self._a(a), rows, cols, self.dt(dy_dtype), self.dt(dx_dtype),
                self.dt(y_dtype or dy_dtype), self.dt(dbias_dtype), ld_dy, ld_dx, ld_y, scale, _ptr(dy), _ptr(dx),
                _ptr(y), _ptr(mask), mask_ld, _ptr(dbias))
        if x is not None or bias is not None:
            args += (_ptr(x), _ptr(bias), self.dt(x_dtype or dx_dtype), ld_x)
        return functools.partial(self.C.epilogue_backward, *args)

    def codes_forward_op(self, rows, cols, x, y, dtype, codes, bits, a=None, scale=1.0, bias=None, ld_x=0, codes_ld=0):
        """The epilogue (rows = 1: elementwise) writing y and b-bit few-bit codes (bias in x's dtype)."""
        return functools.partial(self.C.codes_forward, *self.where, self._a(a), rows, cols, self.dt(dtype),
                                 self.dt(dtype), ld_x, scale, _ptr(x), _ptr(bias), _ptr(y), _ptr(codes), bits,
                                 codes_ld)

    def codes_backward_op(self, rows, cols, dy, dx, dtype, codes, bits, a=None, scale=1.0, dbias=None,
                          dbias_dtype=None, codes_ld=0):
        """dx = (dy * scale) * level[code] from the codes of codes_forward_op (and the bias gradient)."""
        return functools.partial(self.C.codes_backward, *self.where, self._a(a), rows, cols, self.dt(dtype),
                                 self.dt(dtype), self.dt(dbias_dtype or dtype), scale, _ptr(dy), _ptr(dx),
                                 _ptr(codes), bits, codes_ld, _ptr(dbias))

    def glu_op(self, rows, cols, a, b, y, x_dtype, y_dtype, act_=None, bias_a=None, bias_b=None, ld_a=0, ld_b=0,
               ld_y=0):
        return functools.partial(self.C.glu_forward, *self.where, self._a(act_ or "silu"), rows, cols,
                                 self.dt(x_dtype), self.dt(y_dtype), ld_a, ld_b, ld_y, _ptr(a), _ptr(b), _ptr(y),
                                 _ptr(bias_a), _ptr(bias_b))

    def glu_backward_op(self, rows, cols, dy, a, b, da, db, dy_dtype, x_dtype, act_=None, bias_a=None, bias_b=None,
                        dbias_a=None, dbias_b=None, dbias_dtype="f32", ld_dy=0, ld_a=0, ld_b=0, ld_da=0, ld_db=0):
        return functools.partial(self.C.glu_backward, *self.where, self._a(act_ or "silu"), rows, cols,
                                 self.dt(dy_dtype), self.dt(x_dtype), self.dt(dbias_dtype), ld_dy, ld_a, ld_b, ld_da,
                                 ld_db, _ptr(dy), _ptr(a), _ptr(b), _ptr(bias_a), _ptr(bias_b), _ptr(da), _ptr(db),
                                 _ptr(dbias_a), _ptr(dbias_b))


def add_lib_argument(ap, default):
    ap.add_argument("--lib", action="append", metavar="LABEL[=PATH]",
                    help=f"a build of gpuact: LABEL alone is the installed package, LABEL=PATH the gpuact._C "
                    f"extension at PATH; repeat for an A/B in one process (default: {default})")


def builds(specs, default, backend="cuda", device=0, stream=0):
    """[Build] of the --lib specs (labels must differ)."""
    out = [Build(*load(s), backend=backend, device=device, stream=stream) for s in specs or [default]]
    labels = [b.label for b in out]
    if len(set(labels)) != len(labels):
        sys.exit(f"--lib: labels must differ, got {', '.join(labels)}")
    return out


def same_bits(a, b):
    """Whether two torch tensors of one 4-, 2- or 1-byte dtype hold the same bits (NaN payloads and signed zeros
    included): how the benchmarks compare gpuact's outputs with torch's and builds with each other."""
    import torch
    iv = {4: torch.int32, 2: torch.int16, 1: torch.uint8}[a.element_size()]
    return bool(torch.equal(a.contiguous().view(iv), b.contiguous().view(iv)))


def patterns16(gs, backend):
    """The smooth kinds' 16-bit forward, backward from x and gated backward on every pattern, each build against the first,
    bit for bit; returns the number of differing (dtype, data, offset, kind, op) cases."""
    import random
    rng = random.Random(7)
    pats = list(range(65536)) * 8
    normal = [rng.gauss(0.0, 1.0) for _ in range(1 << 18)]
    bits16 = {"f16": lambda v: struct.unpack("<H", struct.pack("<e", v))[0],
              "bf16": lambda v: struct.unpack("<I", struct.pack("<f", v))[0] >> 16}  # truncated: any pattern will do
    fails = 0
    for dt in ("bf16", "f16"):
        for data, xs in (("patterns", pats), ("N(0,1)", [bits16[dt](v) for v in normal])):
            dys = [rng.randrange(0x3000, 0x4000) | rng.randrange(2) << 15 for _ in xs]  # finite dy of either sign
            for off in (0, 1, 3):
                n = len(xs) - off
                for kind in ("gelu", "gelu_tanh", "silu"):
                    outs = []
                    for g in gs:
                        C, where = g.C, g.where[:2]
                        b = {k: C.alloc(*where, 2 * len(xs)) for k in ("x", "dy", "y", "dx")}
                        C.write(*where, b["x"], struct.pack(f"<{len(xs)}H", *xs))
                        C.write(*where, b["dy"], struct.pack(f"<{len(xs)}H", *dys))
                        g.forward_op(dt, n, (b["x"], 2 * off), (b["y"], 2 * off), a=kind)()
                        g.backward_op(dt, n, (b["dy"], 2 * off), (b["dx"], 2 * off), x=(b["x"], 2 * off), a=kind)()
                        C.synchronize(*g.where)
                        out = [C.read(*where, b["y"], 2 * len(xs))[2 * off:], C.read(*where, b["dx"], 2 * len(xs))[2 * off:]]
                        # the gated backward of one row, a = x, b = dy, with dy as its incoming gradient
                        g.glu_backward_op(1, n, (b["dy"], 2 * off), (b["x"], 2 * off), (b["dy"], 2 * off),
                                          (b["y"], 2 * off), (b["dx"], 2 * off), dt, dt, act_=kind)()
                        C.synchronize(*g.where)
                        out += [C.read(*where, b["y"], 2 * len(xs))[2 * off:], C.read(*where, b["dx"], 2 * len(xs))[2 * off:]]
                        outs.append(out)
                        for h in b.values():
                            C.free(*where, h)
                    for g, out in zip(gs[1:], outs[1:]):
                        for op, got, want in zip(("forward", "backward", "gated da", "gated db"), out, outs[0]):
                            if got != want:
                                fails += 1
                                print(f"{g.label} DIFFERS from {gs[0].label}: {dt} {data} offset {off} {kind} {op}")
            print(f"{dt} {data}: forward, backward from x and gated backward of gelu, gelu_tanh, silu at offsets 0, 1, 3 "
                  f"compared")
    print("patterns16: all the same bits" if not fails else f"patterns16: {fails} cases DIFFER")
    return fails


def selftest(argv=None):
    """Every op of each build once on small f32 data in its own buffers (GELU's 3-bit codes too), the ReLU
    results against plain Python, and each build's outputs against the first build's, bit for bit."""
    ap = argparse.ArgumentParser(description="check the builds' ops on any backend, without torch")
    add_lib_argument(ap, "gpuact")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--patterns16", action="store_true",
                    help="compare the builds on every 16-bit pattern of the smooth kinds instead (see above)")
    args = ap.parse_args(argv)
    if args.patterns16:
        gs = builds(args.lib, "gpuact", backend=args.backend)
        if len(gs) < 2:
            sys.exit("--patterns16 compares builds: give two --lib")
        return 1 if patterns16(gs, args.backend) else 0
    f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
    pack = lambda vs: struct.pack(f"<{len(vs)}f", *vs)
    rows, cols = 5, 67
    n = rows * cols
    xs = [f32(((i * 7919) % 401 - 200) / 37.0) for i in range(n)]
    relu = [x if x > 0 else 0.0 for x in xs]
    first, fails = None, 0
    for g in builds(args.lib, "gpuact", backend=args.backend):
        C, where = g.C, g.where[:2]
        bufs = {k: C.alloc(*where, 4 * n) for k in ("x", "y", "dy", "dx", "y2", "db")}
        bufs["m"] = C.alloc(*where, rows * 128 // 8)
        bufs["c"] = C.alloc(*where, rows * 128 * 4 // 8)  # 3-bit codes, rows of 128 (4-bit slots in older builds)
        C.write(*where, bufs["c"], bytes(rows * 128 * 4 // 8))  # the gaps between the codes' rows stay 0
        C.write(*where, bufs["x"], pack(xs))
        C.write(*where, bufs["dy"], pack(xs[::-1]))
        read = lambda k: C.read(*where, bufs[k], rows * 128 * 4 // 8 if k == "c" else 4 * n)
        outs = {}
        for name, op, out in (
                ("forward", g.forward_op("f32", n, bufs["x"], bufs["y"], mask=bufs["m"]), "y"),
                ("backward", g.backward_op("f32", n, bufs["dy"], bufs["dx"], mask=bufs["m"]), "dx"),
                ("epilogue_forward", g.epilogue_op(rows, cols, bufs["x"], bufs["y"], "f32", "f32", scale=0.5), "y"),
                ("epilogue_backward", g.epilogue_backward_op(rows, cols, bufs["dy"], bufs["dx"], "f32", "f32",
                                                             y=bufs["y"], dbias=bufs["db"]), "dx"),
                ("glu_forward", g.glu_op(rows, cols, bufs["x"], bufs["dy"], bufs["y"], "f32", "f32"), "y"),
                ("glu_backward", g.glu_backward_op(rows, cols, bufs["dy"], bufs["x"], bufs["dy"], bufs["dx"],
                                                   bufs["y2"], "f32", "f32"), "dx"),
                ("codes_forward", g.codes_forward_op(rows, cols, bufs["x"], bufs["y"], "f32", bufs["c"], 3, a="gelu"),
                 "c"),
                ("codes_backward", g.codes_backward_op(rows, cols, bufs["dy"], bufs["dx"], "f32", bufs["c"], 3,
                                                       a="gelu", scale=0.5, dbias=bufs["db"]), "dx")):
            op()
            C.synchronize(*g.where)
            outs[name] = read(out)
        got = list(struct.unpack(f"<{n}f", outs["forward"]))
        ok = [struct.pack("<f", a) for a in got] == [struct.pack("<f", a) for a in relu]
        print(f"{g.label} (gpuact {g.version}): forward {'ok' if ok else 'FAIL'} against plain Python")
        fails += not ok
        if first is None:
            first = (g.label, outs)
        else:
            for name, raw in outs.items():
                same = raw == first[1][name]
                print(f"  {name}: {'same bits as' if same else 'DIFFERS from'} {first[0]}")
                fails += not same
        for b in bufs.values():
            C.free(*where, b)
    print("builds: all ok" if not fails else f"builds: {fails} FAILED")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(selftest())
