"""Shared test helpers.

Every test is independent: it makes its own inputs and needs no order.
Tests that need a GPU, torch, CuPy or JAX skip with the reason when those
are missing; the package tests and the raw-layer tests (OpenCL through PoCL
on a machine without a GPU, CUDA on one) run everywhere.
"""
import os
import struct
import sys

import pytest

# The tests exercise the installed package: drop the source tree python/ from the path, where its
# gpuact/ (without the built extension) would shadow it when pytest runs from python/.
_PYDIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _PYDIR]

# JAX must not take 75% of the GPU's memory on import (torch tests share the device).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADER = os.path.join(REPO, "gpuact.h")


def repo_file(*parts):
    path = os.path.join(REPO, *parts)
    if not os.path.isfile(path):
        pytest.skip(f"{path} is not here (the tests run from a clone of the repository)")
    return open(path, encoding="utf-8").read()


def torch_tables(torch):
    """The dtype codes' torch dtypes, and each dtype's integer view of the same width (for bit comparisons)."""
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    iview = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}
    return dtypes, iview


def raw_backends():
    """The backends with a usable device 0 here, by name (context created once)."""
    import gpuact
    out = []
    for b in ("cuda", "opencl", "hip"):
        try:
            gpuact.context_info(b, 0)
            out.append(b)
        except gpuact.GpuactError:
            pass
    return out


# ---- float formats, bit for bit ---------------------------------------------------------------

def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xffffffff))[0]


def round_bits(b32, dtype):
    """f32 bits -> the dtype's bits, rounded to nearest even (NaN: quiet, payload kept where it fits)."""
    if dtype == "f32":
        return b32
    if dtype == "bf16":
        if (b32 & 0x7fffffff) > 0x7f800000:
            return (b32 >> 16) | 0x40
        return ((b32 + 0x7fff + ((b32 >> 16) & 1)) >> 16) & 0xffff
    v = bits_f32(b32)
    if v != v:
        return 0x7e00 | ((b32 >> 16) & 0x8000)
    try:
        return struct.unpack("<H", struct.pack("<e", v))[0]
    except OverflowError:
        return 0x7c00 | ((b32 >> 16) & 0x8000)


def widen_bits(b, dtype):
    """The dtype's bits -> f32 bits (exact)."""
    if dtype == "f32":
        return b
    if dtype == "bf16":
        return (b & 0xffff) << 16
    return f32_bits(struct.unpack("<e", struct.pack("<H", b & 0xffff))[0])


def is_nan_bits(b, dtype):
    return bits_f32(widen_bits(b, dtype)) != bits_f32(widen_bits(b, dtype))


SIZES = {"f32": 4, "f16": 2, "bf16": 2}
FMT = {"f32": "I", "f16": "H", "bf16": "H"}


def pack(bits, dtype):
    return struct.pack(f"<{len(bits)}{FMT[dtype]}", *bits)


def unpack(raw, dtype):
    return list(struct.unpack(f"<{len(raw) // SIZES[dtype]}{FMT[dtype]}", raw))


# Special values per dtype, as bits: NaNs with payloads (quiet and signaling, both signs), +-Inf,
# +-0, subnormals, +-1, 6 and its neighbours (the clip ceiling), 0.5 and 2.
SPECIALS = {
    "f32": [0x7fc00000, 0x7fc00001, 0x7fa5a5a5, 0xffc00000, 0xff800123, 0x7f800000, 0xff800000, 0x00000000,
            0x80000000, 0x00000001, 0x007fffff, 0x80000001, 0x807fffff, 0x00800000, 0x3f800000, 0xbf800000,
            0x40c00000, 0x40bfffff, 0x40c00001, 0x3f000000, 0x40000000],
    "f16": [0x7e00, 0x7e01, 0x7d55, 0xfe00, 0xfc01, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x03ff, 0x8001, 0x83ff,
            0x0400, 0x3c00, 0xbc00, 0x4600, 0x45ff, 0x4601, 0x3800, 0x4000],
    "bf16": [0x7fc0, 0x7fc1, 0x7f81, 0xffc0, 0xff81, 0x7f80, 0xff80, 0x0000, 0x8000, 0x0001, 0x007f, 0x8001, 0x807f,
             0x0080, 0x3f80, 0xbf80, 0x40c0, 0x40bf, 0x40c1, 0x3f00, 0x4000],
}
