"""Builds gpuact._C: gpuact.h compiled into a CPython extension (limited API,
one abi3 wheel for CPython >= 3.10). No torch headers, no nvcc: the vendor
libraries are loaded at run time.

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


setup(
    version=version(),
    ext_modules=[
        Extension(
            "gpuact._C",
            sources=["src/_C.c"],
            include_dirs=[ROOT],
            depends=c_headers(ROOT),
            define_macros=[("Py_LIMITED_API", "0x030A0000")],
            py_limited_api=True,
            libraries=["dl", "pthread"],
            extra_compile_args=["-Wno-unused-function"],
        )
    ],
    cmdclass={"sdist": sdist},
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
)
