"""python -m gpuact [--self-test]: what gpuact sees here, for bug reports
(the Python counterpart of gpuact-info, through the same C API).

Prints the version, the gpuact environment variables that are set, each
backend (its devices, or gpuact_last_error()'s account of why it is not
usable: every library name tried and what dlopen or the driver said), the
kernel cache directory, and the Python side (the extension's file, torch,
CuPy, JAX). --self-test also runs every kind forward (with the mask where
the kind has one), backward from x (and from the mask), and the epilogue
forward and backward with the bias gradient (from the mask, or from x and
the bias for the smooth kinds) on every device, float32, on values with
NaN, +-Inf, +-0 and subnormals, against a Python reference: bit for bit for
the ReLU family, hardtanh and squared ReLU, within 1 ulp of a float64
evaluation for GELU (both forms) and SiLU; exit status 1 on any difference
or failure.
"""
import importlib.util
import math
import os
import random
import struct
import sys

from . import _C, _core

ENV_VARS = ("GPUACT_BACKEND", "GPUACT_CACHE_DIR", "GPUACT_CUDA_LIBRARY", "GPUACT_NVRTC_LIBRARY", "GPUACT_HIP_LIBRARY",
            "GPUACT_HIPRTC_LIBRARY", "GPUACT_OPENCL_LIBRARY", "XDG_CACHE_HOME")


def _indent(text, by="    "):
    return "\n".join(by + line for line in text.rstrip("\n").split("\n"))


def _cache_line(path):
    if not path:
        return "kernel cache (CUDA and HIP): disabled (GPUACT_CACHE_DIR is empty)"
    if os.path.isdir(path):
        state = "exists, " + ("writable" if os.access(path, os.W_OK)
                              else "NOT writable (kernels are rebuilt in every process)")
    elif os.path.exists(path):
        state = "exists but is not a directory"
    else:
        parent = path
        while parent and not os.path.exists(parent):
            parent = os.path.dirname(parent.rstrip("/")) or ("/" if path.startswith("/") else ".")
        state = ("does not exist yet; it will be created on first use" if os.access(parent or ".", os.W_OK)
                 else "does not exist yet; it cannot be created (parent not writable)")
    return f"kernel cache (CUDA and HIP): {path}: {state}"


def devices():
    """[(backend name, device, device name or None, text)]: each usable device,
    or one entry per backend saying why it is not usable."""
    out = []
    for b in ("cuda", "hip", "opencl"):
        for d in range(_C.MAX_DEVICES):
            r, _, name, cache = _C.probe(_core.BACKENDS[b], d)
            if r != 0:
                if d == 0:
                    out.append((b, None, None, f"{_C.RESULTS[r]}\n{name}"))
                break
            out.append((b, d, name, cache))
    return out


def _python_side():
    lines = [f"python {sys.version.split()[0]}; gpuact._C: {_C.__file__}"]
    for mod in ("torch", "cupy", "jax"):
        if importlib.util.find_spec(mod) is None:
            lines.append(f"{mod}: not installed")
            continue
        try:
            m = __import__(mod)
            extra = ""
            if mod == "torch":
                extra = f", CUDA {m.version.cuda}, {m.cuda.device_count()} device(s) visible"
            lines.append(f"{mod} {getattr(m, '__version__', '?')}{extra}")
        except Exception as e:  # a broken install is worth reporting, not a crash
            lines.append(f"{mod}: import failed: {e!r}")
    return lines


# ---------------------------------------------------------------------------------------------
# --self-test: float32 against a Python reference, on gpuact's own buffers

_SPECIALS = [0x7fc00000, 0x7fa5a5a5, 0xffc00001, 0x7f800000, 0xff800000, 0x00000000, 0x80000000, 0x00000001,
             0x807fffff, 0x00800000, 0x3f800000, 0xbf800000, 0x40c00000, 0x40bfffff, 0x40c00001]


def _f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def _bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def _from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def _round32(v):
    """v rounded to f32 once (to nearest even; beyond the range: +-Inf)."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _passes(kind, x, ceiling, lower=0.0):
    if kind == "relu":
        return not (x <= 0)
    if kind == "leaky":
        return x > 0
    if kind == "hardtanh":
        return not (x <= lower or x >= ceiling)
    return not (x <= 0 or x >= ceiling)


def _ref_forward(kind, xb, slope, ceiling, lower=0.0):
    """(result bits, nan_any) for input bits xb, the kinds with a mask and
    squared ReLU: nan_any where any NaN will do. Works on bits: a NaN that
    passes keeps its payload (a float round trip would quiet a signaling NaN)."""
    x = _from_bits(xb)
    if kind == "relu":
        return (xb if not (x <= 0) else 0), False
    if kind == "leaky":
        if x > 0:
            return xb, False
        v = _f32(x * slope)
        return _bits(v), math.isnan(v)
    if kind == "sqrelu":
        v = 0.0 if x <= 0 else _round32(x * x)
        return _bits(v), math.isnan(v)
    if x != x:
        return xb, False
    if kind == "hardtanh":  # torch.clamp(x, lower, ceiling)
        return (_bits(lower) if x <= lower else _bits(ceiling) if x > ceiling else xb), False
    return (0 if x <= 0 else _bits(ceiling) if x >= ceiling else xb), False


# ---- the smooth kinds in float64 (the reference gpuact's f32 math is held to: within 1 ulp) ----

_SQRT1_2 = math.sqrt(0.5)
_C0 = 1.0 / math.sqrt(2.0 * math.pi)  # the normal density's factor
_C1 = 2.0 * math.sqrt(2.0 / math.pi)  # the tanh form's 2u = x (c1 + c3 x^2)
_C3 = 0.044715 * _C1


def _sigmoid(t):
    """1 / (1 + e^-t) without overflow; with s(-t) = 1 - s(t) exactly where it matters."""
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def _sig_sig(t):
    """s(t) s(-t) = e / (1 + e)^2, e = e^-|t|."""
    e = math.exp(-abs(t))
    return e / ((1.0 + e) * (1.0 + e))


def smooth_reference(kind, x):
    """(act(x), act'(x)) in float64 for gelu, gelu_tanh, silu: the textbook formulas (torch's), written
    to keep their relative accuracy in the tails; at +-Inf they give what the formulas give (x * 0 ->
    NaN where a factor vanishes, as torch's)."""
    if x != x:
        return x, x
    if kind == "gelu":
        cdf = 0.5 * math.erfc(-x * _SQRT1_2)
        return x * cdf, cdf + x * (_C0 * math.exp(-0.5 * x * x))
    if kind == "silu":
        s = _sigmoid(x)
        return x * s, s + x * _sig_sig(x)
    if kind == "gelu_tanh":
        z = x * (_C1 + _C3 * x * x) if not math.isinf(x) else x
        s = _sigmoid(z)
        return x * s, s + x * (_sig_sig(z) * (_C1 + 3.0 * _C3 * x * x))
    raise ValueError(kind)


def ulp_key(b):
    """An integer order of f32 bits (adjacent floats differ by 1; -0 and +0 are both 0)."""
    return b if b < 0x80000000 else -(b & 0x7fffffff)


def within_ulps(got, want, ulps):
    """f32 bits got within ulps of want; a NaN matches any NaN (payloads are not compared)."""
    gn, wn = math.isnan(_from_bits(got)), math.isnan(_from_bits(want))
    if gn or wn:
        return gn and wn
    return abs(ulp_key(got) - ulp_key(want)) <= ulps


def _same(got, want, nan_any):
    """Bits got and want: equal, or both NaN where nan_any."""
    if nan_any:
        return got == want or (math.isnan(_from_bits(got)) and math.isnan(_from_bits(want)))
    return got == want


#: The kinds the self-test has a Python reference for, with the parameters it uses. The ReLU family,
#: hardtanh and squared ReLU are checked bit for bit; the smooth kinds within SMOOTH_ULPS of float64.
_REFERENCE = {"relu": {}, "leaky": {"negative_slope": 0.01}, "clipped": {"ceiling": 6.0},
              "hardtanh": {"lower": -1.0, "ceiling": 1.0}, "gelu": {}, "gelu_tanh": {}, "silu": {}, "sqrelu": {}}
_SMOOTH = ("gelu", "gelu_tanh", "silu")
SMOOTH_ULPS = 1


def self_test(backend, device, out=print, kinds=None):
    """Every kind on one device (or those named in kinds), float32; returns the number of failures."""
    rnd = random.Random(0x6770)
    fails = 0
    n = 1003
    xb = _SPECIALS + [_bits(rnd.uniform(-8, 8)) for _ in range(n - len(_SPECIALS))]
    xs = [_from_bits(b) for b in xb]
    dys = [_f32(rnd.uniform(-2, 2)) for _ in range(n)]
    # The smooth kinds' dy: signed powers of two up to 1, so dx = dy * act'(x) is the derivative scaled
    # exactly (or rounded once more where it is subnormal; a factor above 1 would magnify that error).
    dys2 = [rnd.choice((-1.0, 1.0)) * 2.0 ** rnd.randint(-3, 0) for _ in range(n)]
    pack = lambda bits: struct.pack(f"<{len(bits)}I", *bits)  # noqa: E731
    unpack = lambda raw: list(struct.unpack(f"<{len(raw) // 4}I", raw))  # noqa: E731
    kw = {"backend": backend, "device": device}
    params = {k: v for k, v in _REFERENCE.items() if kinds is None or k in kinds}

    def report(what, bad, got, want, tol):
        nonlocal fails
        if bad:
            fails += 1
            i = bad[0]
            out(f"      FAIL {what}: {len(bad)} of {len(want)} differ{tol}; [{i}] got {got[i]:#010x}, "
                f"reference {want[i]:#010x}")
        return not bad

    def check(what, got, want, nan_any):
        bad = [i for i in range(len(want)) if not _same(got[i], want[i], nan_any[i])]
        return report(what, bad, got, want, "")

    def check_ulps(what, got, want):
        bad = [i for i in range(len(want)) if not within_ulps(got[i], want[i], SMOOTH_ULPS)]
        return report(what, bad, got, want, f" by more than {SMOOTH_ULPS} ulp")

    with _core.Buffer(4 * n, **kw) as bx, _core.Buffer(4 * n, **kw) as by, _core.Buffer(4 * n, **kw) as bdy, \
            _core.Buffer(4 * n, **kw) as bdy2, _core.Buffer(4 * n, **kw) as bdx, \
            _core.Buffer((n + 7) // 8, **kw) as bm:
        bx.write(pack(xb))
        bdy.write(pack([_bits(v) for v in dys]))
        bdy2.write(pack([_bits(v) for v in dys2]))
        for kind in _core.KINDS:
            if kind not in params:
                if kinds is None:
                    out(f"      skip {kind}: the self-test has no reference for it")
                continue
            act = _core.activation(kind, **params[kind])
            slope, ceiling, lower = _f32(act.negative_slope), _f32(act.ceiling), _f32(act.lower)
            has_mask = _core.KINDS[kind].has_mask
            try:
                _core.forward(act, "f32", n, bx, by, bm if has_mask else None, **kw)
                _core.synchronize(**kw)
                if kind in _SMOOTH:
                    ref = [smooth_reference(kind, x) for x in xs]
                    check_ulps(f"{kind} forward", unpack(by.read()), [_bits(_round32(r[0])) for r in ref])
                    _core.backward(act, "f32", n, bdy2, bdx, x=bx, **kw)
                    _core.synchronize(**kw)
                    check_ulps(f"{kind} backward from x", unpack(bdx.read()),
                               [_bits(_round32(dy * _round32(r[1]))) for dy, r in zip(dys2, ref)])
                    continue
                ref = [_ref_forward(kind, b, slope, ceiling, lower) for b in xb]
                check(f"{kind} forward", unpack(by.read()), [r[0] for r in ref], [r[1] for r in ref])
                if kind == "sqrelu":  # dx = dy * 2x where x > 0, +0 elsewhere by selection (as torch)
                    _core.backward(act, "f32", n, bdy, bdx, x=bx, **kw)
                    _core.synchronize(**kw)
                    want = [0.0 if x <= 0 else _round32(dy * _round32(x + x)) for dy, x in zip(dys, xs)]
                    check(f"{kind} backward from x", unpack(bdx.read()), [_bits(v) for v in want],
                          [math.isnan(v) for v in want])
                    continue
                mask = bm.read()
                want = [_passes(kind, x, ceiling, lower) for x in xs]
                got = [bool(mask[i // 8] >> (i % 8) & 1) for i in range(n)]
                if got != want:
                    fails += 1
                    out(f"      FAIL {kind} forward mask: {sum(g != w for g, w in zip(got, want))} bits differ")
                dref = [_bits(dy if p else (_f32(dy * slope) if kind == "leaky" else 0.0)) for dy, p in zip(dys, want)]
                for src in ("x", "mask"):
                    _core.backward(act, "f32", n, bdy, bdx, **({"x": bx} if src == "x" else {"mask": bm}), **kw)
                    _core.synchronize(**kw)
                    check(f"{kind} backward from {src}", unpack(bdx.read()), dref, [False] * n)
            except _core.GpuactError as e:
                fails += 1
                out(_indent(f"FAIL {kind}: {e}", "      "))
        # the epilogue: 5 x 37 with bias, scale 0.5, backward with dbias from the mask (the kinds with
        # one) or from x and the bias (the smooth kinds)
        rows, cols = 5, 37
        m = rows * cols
        mld = _core.epilogue_mask_ld(cols)
        x2 = [_f32(rnd.uniform(-4, 4)) for _ in range(m)]
        b2 = [_f32(rnd.uniform(-1, 1)) for _ in range(cols)]
        with _core.Buffer(4 * cols, **kw) as bb, _core.Buffer(4 * cols, **kw) as bdb, \
                _core.Buffer(rows * mld // 8, **kw) as bm2:
            bx.write(pack([_bits(v) for v in x2]))
            bb.write(pack([_bits(v) for v in b2]))
            z = [_f32(x2[i] + b2[i % cols]) for i in range(m)]
            for kind in _core.KINDS:
                if kind not in params:
                    continue
                act = _core.activation(kind, **params[kind])
                slope, ceiling, lower = _f32(act.negative_slope), _f32(act.ceiling), _f32(act.lower)
                has_mask = _core.KINDS[kind].has_mask
                smooth = kind in _SMOOTH
                dsrc = bdy2 if smooth else bdy
                dyv = dys2 if smooth else dys
                try:
                    _core.epilogue_forward(act, rows, cols, bx, by, bias=bb, mask=bm2 if has_mask else None,
                                           scale=0.5, **kw)
                    if has_mask:
                        _core.epilogue_backward(act, rows, cols, dsrc, bdx, mask=bm2, dbias=bdb, scale=0.5, **kw)
                    else:
                        _core.epilogue_backward(act, rows, cols, dsrc, bdx, x=bx, bias=bb, dbias=bdb, scale=0.5, **kw)
                    _core.synchronize(**kw)
                    y = unpack(by.read(4 * m))
                    if smooth:
                        ref = [smooth_reference(kind, v) for v in z]
                        check_ulps(f"{kind} epilogue forward", y, [_bits(_round32(_round32(r[0]) * 0.5)) for r in ref])
                        dx = [_round32(_f32(dyv[i] * 0.5) * _round32(ref[i][1])) for i in range(m)]
                        ok = check_ulps(f"{kind} epilogue backward dx", unpack(bdx.read(4 * m)), [_bits(v) for v in dx])
                    else:
                        ref = [_from_bits(_ref_forward(kind, _bits(v), slope, ceiling, lower)[0]) for v in z]
                        check(f"{kind} epilogue forward", y, [_bits(_round32(v * 0.5)) for v in ref], [False] * m)
                        if kind == "sqrelu":
                            dx = [0.0 if z[i] <= 0 else _round32(_f32(dyv[i] * 0.5) * _round32(z[i] + z[i]))
                                  for i in range(m)]  # +0 by selection where z <= 0
                        else:
                            dx = [_f32(dyv[i] * 0.5) if _passes(kind, z[i], ceiling, lower)
                                  else (_f32(_f32(dyv[i] * 0.5) * slope) if kind == "leaky" else 0.0)
                                  for i in range(m)]
                        ok = check(f"{kind} epilogue backward dx", unpack(bdx.read(4 * m)), [_bits(v) for v in dx],
                                   [False] * m)
                    if not ok:
                        continue
                    # dbias: the column sums of the stored dx (its own bits), against a float64 sum
                    stored = [_from_bits(b) for b in unpack(bdx.read(4 * m))]
                    db = [_from_bits(b) for b in unpack(bdb.read())]
                    for c in range(cols):
                        col = [stored[r * cols + c] for r in range(rows)]
                        if abs(db[c] - math.fsum(col)) > 1e-5 * (sum(abs(v) for v in col) + 1e-30):
                            fails += 1
                            out(f"      FAIL {kind} epilogue dbias[{c}] = {db[c]!r}, reference {math.fsum(col)!r}")
                            break
                except _core.GpuactError as e:
                    fails += 1
                    out(_indent(f"FAIL {kind} epilogue: {e}", "      "))
    return fails


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in argv) or any(a != "--self-test" for a in argv):
        print(__doc__)
        return 0 if any(a in ("-h", "--help") for a in argv) else 2
    run = "--self-test" in argv
    print(f"gpuact {_core.VERSION} (python -m gpuact)")
    for v in ENV_VARS:
        if v in os.environ:
            print(f"{v}={os.environ[v]}")
    cache = None
    fails, tested = 0, 0
    seen = set()
    for b, d, name, text in devices():
        if d is None:
            print(f"backend {b}: not usable ({text.splitlines()[0]})")
            print(_indent("\n".join(text.splitlines()[1:])))
            continue
        if b not in seen:
            print(f"backend {b}: loaded")
            seen.add(b)
        print(f"  device {d}: {name}")
        cache = text if cache is None else cache
        if run:
            f = self_test(b, d, print)
            tested += 1
            fails += f
            print(f"    self-test: {'pass' if not f else 'FAIL'} ({', '.join(k for k in _core.KINDS if k in _REFERENCE)}; "
                  f"f32; forward (+ mask), backward from x (and from the mask), epilogue forward and backward with "
                  f"dbias; smooth kinds within {SMOOTH_ULPS} ulp of float64, the others bit for bit)")
    print(_cache_line(cache if cache is not None else _core.cache_dir()))
    for line in _python_side():
        print(line)
    if run:
        if not tested:
            print("self-test: FAIL: no backend has a device")
            return 1
        print(f"self-test: {'pass' if not fails else 'FAIL'}")
        return 1 if fails else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
