"""gpuact.ops's plumbing without a GPU: DLPack capsules (made here with
ctypes, legacy and versioned) read by gpuact._C.dlpack_describe, and the
array checks of gpuact.ops on stand-in arrays, up to the point where a GPU
would be needed."""
import ctypes

import pytest

import gpuact
import gpuact.ops as go
from gpuact import _C


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeArray:
    """Stands for a framework's GPU array: its DLPack capsule describes memory that is never touched."""

    def __init__(self, shape, strides=None, code=2, bits=32, device=(2, 0), data=0x7f0000001000, offset=0,
                 versioned=False, read_only=False):
        self.keep = []
        self.device = device
        shp = (ctypes.c_int64 * len(shape))(*shape)
        strd = (ctypes.c_int64 * len(shape))(*strides) if strides is not None else None
        t = DLTensor(data, DLDevice(*device), len(shape), DLDataType(code, bits, 1), shp,
                     ctypes.cast(strd, ctypes.POINTER(ctypes.c_int64)) if strd is not None else None, offset)
        if versioned:
            m = DLManagedTensorVersioned(DLPackVersion(1, 0), None, None, 1 if read_only else 0, t)
            self.name = b"dltensor_versioned"
        else:
            m = DLManagedTensor(t, None, None)
            self.name = b"dltensor"
        self.keep += [shp, strd, m]
        self.struct = m

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None):
        return _new_capsule(ctypes.addressof(self.struct), self.name, None)


def test_dlpack_describe_legacy_and_versioned():
    a = FakeArray((3, 5), (7, 1), code=4, bits=16, offset=64)
    data, offset, dt, did, shape, strides, code, bits, lanes, ro = _C.dlpack_describe(a.__dlpack__())
    assert (data, offset, dt, did) == (0x7f0000001000, 64, 2, 0)
    assert (shape, strides, code, bits, lanes, ro) == ((3, 5), (7, 1), 4, 16, 1, 0)
    b = FakeArray((10,), None, versioned=True, read_only=True, device=(10, 1))
    data, offset, dt, did, shape, strides, code, bits, lanes, ro = _C.dlpack_describe(b.__dlpack__())
    assert (dt, did, shape, strides, ro) == (10, 1, (10,), None, 1)
    with pytest.raises(TypeError, match="DLPack capsule"):
        _C.dlpack_describe(object())


def test_array_checks():
    with pytest.raises(gpuact.InvalidArgument, match="not on a CUDA or ROCm device"):
        go.relu(FakeArray((4,), device=(1, 0)))
    with pytest.raises(gpuact.InvalidArgument, match="dtype gpuact does not support"):
        go.relu(FakeArray((4,), code=2, bits=64))
    with pytest.raises(gpuact.InvalidArgument, match="not C-contiguous"):
        go.relu(FakeArray((4, 6), (1, 4)))
    with pytest.raises(gpuact.InvalidArgument, match="cannot allocate the out"):
        go.relu(FakeArray((4, 6)))  # a framework gpuact does not know: out= is needed
    with pytest.raises(gpuact.InvalidArgument, match="read-only"):
        go.relu(FakeArray((4,)), out=FakeArray((4,), versioned=True, read_only=True))
    with pytest.raises(gpuact.InvalidArgument, match="row stride >= cols"):
        go.bias_act(FakeArray((4, 6), (3, 1)), out=FakeArray((4, 6)))
    with pytest.raises(gpuact.InvalidArgument, match="on cuda:1, x on cuda:0"):
        go.relu(FakeArray((4,)), out=FakeArray((4,), device=(2, 1)))
    with pytest.raises(gpuact.InvalidArgument, match="must be f32"):
        go.relu(FakeArray((4,)), out=FakeArray((4,), bits=16))


def test_bias_act_backward_sources():
    dy = FakeArray((4, 6))
    with pytest.raises(gpuact.InvalidArgument, match="exactly one of mask"):
        go.bias_act_backward(dy, None, "gelu")
    with pytest.raises(gpuact.InvalidArgument, match="exactly one of mask"):
        go.bias_act_backward(dy, FakeArray((64,), code=1, bits=8), "gelu", x=FakeArray((4, 6)))
    with pytest.raises(gpuact.InvalidArgument, match="bias is read only with x"):
        go.bias_act_backward(dy, FakeArray((64,), code=1, bits=8), "relu", bias=FakeArray((6,)))
    with pytest.raises(gpuact.InvalidArgument, match="x has shape"):
        go.bias_act_backward(dy, x=FakeArray((4, 5)), activation="gelu", out=FakeArray((4, 6)))
    with pytest.raises(gpuact.InvalidArgument, match="bias must be f32"):
        go.bias_act_backward(dy, x=FakeArray((4, 6)), bias=FakeArray((6,), bits=16), activation="silu",
                             out=FakeArray((4, 6)))
    with pytest.raises(gpuact.InvalidArgument, match="'none' or 'tanh'"):
        go.gelu(FakeArray((4,)), approximate="erf")


def test_reaches_the_c_call():
    """Everything in order: the call goes to gpuact's CUDA context, which this machine lacks."""
    try:
        gpuact.context_info("cuda")
        pytest.skip("a CUDA device is here: the stand-in arrays' addresses must not reach a kernel")
    except gpuact.GpuactError:
        pass
    with pytest.raises(gpuact.BackendUnavailable, match="creating the cuda context"):
        go.bias_act(FakeArray((4, 6), (8, 1)), FakeArray((6,)), "leaky_relu", 0.5, out=FakeArray((4, 6)),
                    negative_slope=0.1)
    with pytest.raises(gpuact.BackendUnavailable, match="creating the cuda context"):  # the backward from x
        go.bias_act_backward(FakeArray((4, 6)), x=FakeArray((4, 6), (8, 1)), bias=FakeArray((6,)), activation="gelu",
                             scale=0.5, out=FakeArray((4, 6)), dbias=FakeArray((6,)))
    with pytest.raises(gpuact.BackendUnavailable, match="creating the cuda context"):
        go.hardtanh(FakeArray((4,)), -2.0, 2.0, out=FakeArray((4,)))
