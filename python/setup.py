"""Builds gpuact._C: gpuact.h compiled into a CPython extension (limited API,
one abi3 wheel for CPython >= 3.10). No torch headers, no nvcc: the vendor
libraries are loaded at run time.

When torch is importable at build time (`pip install --no-build-isolation
./python` into a Python that has torch), it also builds gpuact.torch._ext:
gpuact.h compiled into a C++ library of torch dispatcher operators
(src/torch_ops.cpp, torch's headers and libraries, no CUDA toolkit), which
gpuact.torch needs. It is tied to the torch and the CPython it was built
against (its file name says the CPython; the wheel keeps gpuact._C's abi3
tag): rebuild after upgrading torch.
GPUACT_NO_TORCH=1 leaves it out.

The C sources (gpuact.h, backends/, kernels/) are found, in order, in
$GPUACT_SOURCE_DIR, in csrc/ beside this file (an sdist carries them there)
and in the repository root, the parent of this directory (pip builds a
local directory in place: `pip install ./python` from a clone).
"""
import os
import re
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.sdist import sdist as _sdist

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIRED = ("gpuact.h", "backends/gpuact_cudalike.h", "kernels/contract.h", "kernels/gpuact_kernels_src.h")


def c_root():
    candidates = []
    if os.environ.get("GPUACT_SOURCE_DIR"):
        candidates.append(os.path.abspath(os.environ["GPUACT_SOURCE_DIR"]))
    candidates += [os.path.join(HERE, "csrc"), os.path.dirname(HERE)]
    for root in candidates:
        if all(os.path.isfile(os.path.join(root, f)) for f in REQUIRED):
            return root
    sys.exit(
        "gpuact: cannot find the C library (gpuact.h with backends/ and kernels/ beside it). Looked in:\n  "
        + "\n  ".join(candidates)
        + "\nBuild from the repository: `pip install ./python` in a clone (pip >= 21.3 builds the directory in "
        "place), or set GPUACT_SOURCE_DIR to the directory holding gpuact.h.")


ROOT = c_root()


def version():
    text = open(os.path.join(ROOT, "gpuact.h"), encoding="utf-8").read()
    m = re.search(r'#define GPUACT_VERSION_STRING "([^"]+)"', text)
    if not m:
        sys.exit(f"gpuact: no GPUACT_VERSION_STRING in {os.path.join(ROOT, 'gpuact.h')}")
    return m.group(1)


def c_headers(root):
    out = [os.path.join(root, "gpuact.h")]
    for sub in ("backends", "kernels"):
        for dirpath, _, files in os.walk(os.path.join(root, sub)):
            out += [os.path.join(dirpath, f) for f in sorted(files) if f.endswith(".h")]
    return out


class sdist(_sdist):
    """An sdist carries the C headers in csrc/, so it builds without the repository."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        for path in c_headers(ROOT):
            dest = os.path.join(base_dir, "csrc", os.path.relpath(path, ROOT))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(path, dest)


def torch_extension():
    """gpuact.torch._ext, when torch is importable here (None otherwise)."""
    if os.environ.get("GPUACT_NO_TORCH"):
        return None
    try:
        import torch
        from torch.utils import cpp_extension
    except ImportError as e:
        print(f"gpuact: torch is not importable here ({e}): gpuact.torch._ext is not built (gpuact.torch needs it; "
              f"install with torch present: pip install --no-build-isolation ./python)", file=sys.stderr)
        return None
    abi = int(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", 1))
    return Extension(
        "gpuact.torch._ext",
        sources=["src/torch_ops.cpp"],
        include_dirs=[ROOT] + cpp_extension.include_paths(),
        library_dirs=cpp_extension.library_paths(),
        libraries=["c10", "torch", "torch_cpu", "torch_python", "dl", "pthread"],
        depends=c_headers(ROOT),
        define_macros=[("_GLIBCXX_USE_CXX11_ABI", str(abi))],
        language="c++",
        extra_compile_args=["-std=c++17", "-O2", "-Wno-unused-function", "-Wno-missing-field-initializers"],
    )


TORCH_EXTENSION = torch_extension()

setup(
    version=version(),
    ext_modules=[e for e in (
        Extension(
            "gpuact._C",
            sources=["src/_C.c"],
            include_dirs=[ROOT],
            depends=c_headers(ROOT),
            define_macros=[("Py_LIMITED_API", "0x030A0000")],
            py_limited_api=True,
            libraries=["dl", "pthread"],
            extra_compile_args=["-Wno-unused-function"],
        ),
        TORCH_EXTENSION,
    ) if e is not None],
    cmdclass={"sdist": sdist},
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
)
