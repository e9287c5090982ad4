"""The package itself: what it reads from the C side, its exceptions, its
argument checks that need no device, and python -m gpuact. Runs anywhere."""
import importlib.util
import re
import subprocess
import sys

import pytest

import gpuact
from gpuact import _C

from conftest import repo_file


def _table_rows():
    """Rows of GPUACT_ACTIVATIONS in kernels/contract.h: [(name, [columns])]."""
    text = repo_file("kernels", "contract.h")
    m = re.search(r"#define GPUACT_ACTIVATIONS\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
    assert m, "GPUACT_ACTIVATIONS not found in kernels/contract.h"
    rows = re.findall(r"X\(([^)]*)\)", m.group(1))
    return [(r.split(",")[0].strip(), [c.strip() for c in r.split(",")[1:]]) for r in rows]


def test_version_is_the_headers():
    text = repo_file("gpuact.h")
    want = re.search(r'#define GPUACT_VERSION_STRING "([^"]+)"', text).group(1)
    assert gpuact.VERSION == want == gpuact.__version__
    major, minor, patch = (int(v) for v in want.split("."))
    assert (_C.VERSION_MAJOR, _C.VERSION_MINOR, _C.VERSION_PATCH) == (major, minor, patch)


def test_installed_metadata_version():
    from importlib import metadata
    try:
        assert metadata.version("gpuact") == gpuact.VERSION
    except metadata.PackageNotFoundError:
        pytest.skip("gpuact is imported from a source tree, not installed")


def test_extension_is_abi3():
    assert _C.__file__.endswith(".abi3.so"), f"{_C.__file__}: not a limited-API (abi3) build"


def test_kinds_come_from_the_contract_table():
    rows = _table_rows()
    assert list(gpuact.KIND_NAMES) == [name for name, _ in rows]
    for value, (name, cols) in enumerate(rows):
        info = gpuact.KINDS[name]
        assert info.value == value
        assert list(info.columns.values()) == [int(c) for c in cols], name


def test_every_table_column_is_named():
    """A new column of GPUACT_ACTIVATIONS needs its name in gpuact/_core.py's KIND_COLUMNS."""
    for name, cols in _table_rows():
        assert len(cols) == len(gpuact.KIND_COLUMNS), (
            f"kernels/contract.h's GPUACT_ACTIVATIONS row {name} has {len(cols)} columns after the name; "
            f"gpuact/_core.py's KIND_COLUMNS names {len(gpuact.KIND_COLUMNS)}: {gpuact.KIND_COLUMNS}")


def test_public_enum_matches_the_table():
    text = repo_file("gpuact.h")
    body = re.search(r"typedef enum gpuact_activation_kind \{(.*?)\}", text, re.S).group(1)
    names = re.findall(r"GPUACT_([A-Z0-9_]+)", body)
    assert len(names) == len(gpuact.KIND_NAMES), (names, gpuact.KIND_NAMES)


def test_act_params_are_the_struct_fields():
    text = repo_file("gpuact.h")
    body = re.search(r"typedef struct gpuact_activation \{(.*?)\} gpuact_activation;", text, re.S).group(1)
    fields = re.findall(r"(?:float|unsigned)\s+([a-z_]+)\s*;", body)
    assert list(gpuact.ACT_PARAMS) == fields
    assert gpuact.ACT_PRECISE == int(re.search(r"GPUACT_ACT_PRECISE = (\d+)u", text).group(1))


def test_dtypes_backends_results():
    assert list(gpuact.DTYPES) == ["f32", "f16", "bf16"]
    assert gpuact.DTYPES["f16"] == (1, 2)
    assert list(gpuact.BACKENDS) == ["auto", "cuda", "hip", "opencl"]
    assert _C.RESULTS[0] == "GPUACT_SUCCESS" and _C.RESULTS[1] == "GPUACT_ERROR_INVALID_ARGUMENT"
    assert gpuact.dtype_value("bfloat16") == 2 and gpuact.dtype_size("f16") == 2
    with pytest.raises(gpuact.InvalidArgument, match="float64"):
        gpuact.dtype_value("float64")


def test_error_classes():
    assert issubclass(gpuact.InvalidArgument, gpuact.GpuactError)
    assert issubclass(gpuact.InvalidArgument, ValueError)
    assert issubclass(gpuact.OutOfMemory, MemoryError)
    assert issubclass(gpuact.NotSupported, NotImplementedError)
    assert issubclass(gpuact.GpuactError, RuntimeError)
    for code in range(1, len(_C.RESULTS)):
        cls = gpuact.error_class(code)
        assert issubclass(cls, gpuact.GpuactError)
    e = gpuact.InvalidArgument("gpuact_forward", 1, "the whole story")
    assert e.result == 1 and e.result_name == "GPUACT_ERROR_INVALID_ARGUMENT" and e.detail == "the whole story"
    assert str(e) == "gpuact_forward failed: GPUACT_ERROR_INVALID_ARGUMENT\nthe whole story"
    assert e.rule is None  # no rule named in the text
    e = gpuact.InvalidArgument("gpuact_forward", 1, "[gpuact rule OVERLAP] gpuact_forward: y overlaps x")
    assert e.rule == "OVERLAP"
    assert gpuact.GpuactError("a Python-side refusal").rule is None


def test_activation_tuples():
    a = gpuact.activation("relu6")
    assert a.kind == gpuact.KINDS["clipped"].value and a.ceiling == 6.0
    a = gpuact.activation("leaky_relu", negative_slope=0.25)
    assert a.kind == gpuact.KINDS["leaky"].value and a.negative_slope == 0.25
    assert gpuact.activation("relu") == (0,) + (gpuact.activation("relu")[1:])
    assert len(gpuact.activation("relu")) == 1 + len(gpuact.ACT_PARAMS)
    with pytest.raises(gpuact.InvalidArgument, match="not one of"):
        gpuact.activation("swish-ish")
    with pytest.raises(gpuact.InvalidArgument, match="unknown"):
        gpuact.activation("relu", slope=0.1)
    with pytest.raises(gpuact.InvalidArgument, match="relu6 means ceiling=6.0"):
        gpuact.activation("relu6", ceiling=5.0)
    # the new kinds: torch's names, hardtanh's defaults (torch's -1, 1)
    assert gpuact.activation("squared_relu").kind == gpuact.KINDS["sqrelu"].value
    assert gpuact.activation("swish").kind == gpuact.KINDS["silu"].value
    a = gpuact.activation("hardtanh")
    assert (a.kind, a.lower, a.ceiling) == (gpuact.KINDS["hardtanh"].value, -1.0, 1.0)
    a = gpuact.activation("hardtanh", lower=-0.5, ceiling=2.0)
    assert (a.lower, a.ceiling) == (-0.5, 2.0)
    from gpuact import _core
    assert _core.gelu_kind("none") == "gelu" and _core.gelu_kind("tanh") == "gelu_tanh"
    with pytest.raises(gpuact.InvalidArgument, match="'none' or 'tanh'"):
        _core.gelu_kind("erf")


def test_kinds_with_and_without_the_mask():
    """The select column decides what a backward keeps: the mask (the ReLU family, hardtanh) or x
    (the smooth kinds); the lower column names hardtanh's parameter."""
    for name, cols in _table_rows():
        select = int(cols[gpuact.KIND_COLUMNS.index("select")])
        assert gpuact.KINDS[name].has_mask == bool(select), name
    assert gpuact.KINDS["relu"].has_mask and not gpuact.KINDS["gelu"].has_mask
    assert gpuact.KINDS["hardtanh"].uses == ("ceiling", "lower")
    assert gpuact.KINDS["gelu"].uses == ()


def test_cuda_without_a_device_is_a_clear_error():
    """On a machine without the CUDA driver or a GPU: BackendUnavailable naming what was tried."""
    try:
        info = gpuact.context_info("cuda")
    except gpuact.BackendUnavailable as e:
        text = str(e)
        assert "GPUACT_ERROR_BACKEND_UNAVAILABLE" in text and e.result == 3
        assert "libcuda" in text or "device" in text, text
        return
    assert info["backend"] == "cuda" and info["device_name"]


def test_argument_checks_without_a_device():
    # the C layer's own checks of what it is given, before any context exists
    with pytest.raises(gpuact.InvalidArgument, match="backend = 7"):
        _C.forward(7, 0, 0, (0,), 0, 1, 1, 1, None)
    with pytest.raises(gpuact.InvalidArgument, match="device = 64"):
        _C.forward(1, 64, 0, (0,), 0, 1, 1, 1, None)
    with pytest.raises(TypeError, match="9 positional"):
        _C.forward(1, 0)
    with pytest.raises(TypeError, match="activation must be a tuple"):
        _C.forward(1, 0, 0, "relu", 0, 1, 1, 1, None)
    with pytest.raises(gpuact.InvalidArgument, match="parameters"):
        _C.forward(1, 0, 0, (0,) + (1.0,) * (len(gpuact.ACT_PARAMS) + 1), 0, 1, 1, 1, None)
    with pytest.raises(TypeError, match="n must be an int"):
        _C.forward(1, 0, 0, (0,), 0, -1, 1, 1, None)
    with pytest.raises(TypeError, match="x must be None, an int handle"):
        _C.forward(1, 0, 0, (0,), 0, 1, "x", 1, None)
    with pytest.raises(gpuact.InvalidArgument, match="backend"):
        gpuact.forward("relu", "f32", 4, 1, 1, backend="vulkan")
    with pytest.raises(gpuact.InvalidArgument, match="scale = 0"):
        gpuact.epilogue_forward("relu", 1, 1, 1, 1, scale=0)
    # epilogue_backward: 20 arguments, or 24 with the smooth kinds' x, bias, x_dtype, ld_x
    with pytest.raises(TypeError, match="20 or 24 positional"):
        _C.epilogue_backward(*([0] * 21))
    with pytest.raises(TypeError, match="x_dtype must be an int"):
        _C.epilogue_backward(1, 0, 0, (4,), 1, 1, 0, 0, 0, 0, 0, 0, 0, 1.0, 1, 1, None, None, 0, None, 1, None, "f32",
                             0)


def test_import_gpuact_does_not_import_torch():
    code = "import sys, gpuact, gpuact.ops; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_gpuact_torch_without_torch_says_so():
    with pytest.raises(ImportError, match="gpuact.torch needs PyTorch"):
        import gpuact.torch  # noqa: F401


def test_python_m_gpuact():
    r = subprocess.run([sys.executable, "-m", "gpuact"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"gpuact {gpuact.VERSION} (python -m gpuact)"
    for b in ("cuda", "hip", "opencl"):
        assert any(line.startswith(f"backend {b}: ") for line in lines), r.stdout
    assert any(line.startswith("kernel cache (CUDA and HIP): ") for line in lines), r.stdout
    bad = subprocess.run([sys.executable, "-m", "gpuact", "--bogus"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
