/* gpuact.torch._ext: gpuact's operations as PyTorch dispatcher operators.

   gpuact.h (GPUACT_IMPLEMENTATION) is compiled into this library, which
   defines the operators of namespace gpuact (TORCH_LIBRARY) and their
   kernels: CUDA (argument checks, output allocation and the gpuact launch
   on torch's current stream of the tensor's device, all in C++) and
   Autograd (torch::autograd::Function: the forward keeps the 1-bit mask of
   the ReLU family or the smooth kinds' input, never y). The fake (meta)
   implementations that torch.compile traces with are Python's
   (gpuact/torch/_ops.py): they must handle symbolic shapes.

   One autograd definition per operator, here; the Python layer calls the
   operators (torch.ops.gpuact.*), eager and traced alike.

   Errors: an argument refused here, or a gpuact call that failed, is raised
   through the operator gpuact::_raise, whose kernel gpuact/torch/_ops.py
   registers in Python: the caller gets gpuact's own exception classes
   (gpuact.InvalidArgument, ...), from a forward and from a backward run by
   the autograd engine alike.

   Testing without a GPU: gpuact::_testing_mock(true) makes CPU tensors stand
   for CUDA ones and records each launch instead of running it
   (tests/test_eager_path_nogpu.py; the host-time measurement of the
   dispatcher and autograd path on a machine without a GPU). */
#include <Python.h>

#define GPUACT_IMPLEMENTATION
#define GPUACT_DEF static
#include "gpuact.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/library.h>

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace {

using at::Tensor;
using c10::ArrayRef;

/* ---- >>kinds ------------------------------------------------------------------ */

/* The rows of GPUACT_ACTIVATIONS (kernels/contract.h): the name and whether
   the kind has the 1-bit mask (its select column). */
#define GPUACT_TORCH_KIND_(name, slope, ceiling, lower, from_y, select, glu) {#name, select != 0},
struct KindRow {
    const char *name;
    bool has_mask;
};
const KindRow kinds[] = {GPUACT_ACTIVATIONS(GPUACT_TORCH_KIND_)};
constexpr int64_t nkinds = sizeof kinds / sizeof kinds[0];

const char *kind_name(int64_t kind, const char *otherwise = "activation") {
    return kind >= 0 && kind < nkinds ? kinds[kind].name : otherwise;
}
bool has_mask(int64_t kind) { return kind >= 0 && kind < nkinds && kinds[kind].has_mask; }

/* kind and the float fields of gpuact_activation after it, in declaration order (gpuact.ACT_PARAMS). */
gpuact_activation activation(int64_t kind, ArrayRef<double> p) {
    gpuact_activation a;
    memset(&a, 0, sizeof a);
    a.kind = (gpuact_activation_kind)kind;
    float *fields[] = {&a.negative_slope, &a.ceiling, &a.lower};
    size_t i = 0;
    for (; i < p.size() && i < 3; i++) *fields[i] = (float)p[i];
    if (i < p.size()) a.flags = (unsigned)p[i];
    return a;
}

/* ---- >>errors ------------------------------------------------------------------- */

/* Raises gpuact's exception for result (gpuact_result; what: the call that failed, or with detail empty
   the whole text of an argument refused here; detail: gpuact_last_error()'s text) through gpuact::_raise,
   whose Python kernel raises it. */
[[noreturn]] void fail(int result, const std::string &what, const std::string &detail = "") {
    static auto op = c10::Dispatcher::singleton()
                         .findSchemaOrThrow("gpuact::_raise", "")
                         .typed<void(int64_t, c10::string_view, c10::string_view)>();
    op.call(result, what, detail);
    TORCH_CHECK_VALUE(false, what, detail.empty() ? "" : ": ", detail);  // no Python kernel registered
}

[[noreturn]] void refuse(const std::string &fn, const std::string &text) {
    fail(GPUACT_ERROR_INVALID_ARGUMENT, "gpuact.torch." + fn + ": " + text);
}

std::string shape_str(c10::IntArrayRef shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); i++) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}
std::string shape_str(const Tensor &t) { return shape_str(t.sizes()); }

std::string dtype_str(c10::ScalarType t) {
    switch (t) {
    case at::kFloat: return "torch.float32";
    case at::kHalf: return "torch.float16";
    case at::kBFloat16: return "torch.bfloat16";
    case at::kDouble: return "torch.float64";
    case at::kLong: return "torch.int64";
    case at::kInt: return "torch.int32";
    case at::kShort: return "torch.int16";
    case at::kChar: return "torch.int8";
    case at::kByte: return "torch.uint8";
    case at::kBool: return "torch.bool";
    default: return std::string("torch.") + c10::toString(t);
    }
}

/* ---- >>launch ------------------------------------------------------------------- */

std::atomic<bool> mock{false};
std::mutex mock_lock;
std::vector<int64_t> mock_calls;

gpuact_backend backend = GPUACT_BACKEND_CUDA;  /* HIP on ROCm builds of torch: gpuact::_set_backend */
constexpr int max_devices = 64;
std::atomic<gpuact_context *> contexts[max_devices];
std::mutex context_lock;

gpuact_context *context(int dev) {
    if (dev < 0 || dev >= max_devices)
        fail(GPUACT_ERROR_INVALID_ARGUMENT, "gpuact.torch: device " + std::to_string(dev) +
                                                "; gpuact handles device ordinals 0 to " +
                                                std::to_string(max_devices - 1));
    gpuact_context *ctx = contexts[dev].load(std::memory_order_acquire);
    if (ctx) return ctx;
    gpuact_result r = GPUACT_SUCCESS;
    {
        std::lock_guard<std::mutex> hold(context_lock);
        ctx = contexts[dev].load(std::memory_order_relaxed);
        if (!ctx) {
            gpuact_context_desc d;
            memset(&d, 0, sizeof d);
            d.backend = backend;
            d.device = dev;
            r = gpuact_context_create(&d, &ctx);
            if (r == GPUACT_SUCCESS) contexts[dev].store(ctx, std::memory_order_release);
        }
    }
    if (r != GPUACT_SUCCESS)  /* raised outside the lock: the Python kernel of gpuact::_raise takes the GIL */
        fail(r, std::string("gpuact: creating the ") + gpuact_backend_name(backend) + " context of device " +
                    std::to_string(dev),
             gpuact_last_error());
    return ctx;
}

/* Where a call runs: the tensor's device, torch's current stream there, gpuact's context of it. */
struct Target {
    int dev;
    void *stream;
    gpuact_context *ctx;
};

Target target(const Tensor &t) {
    if (t.is_cpu()) return {-1, nullptr, nullptr};  /* mock */
    int dev = t.get_device();
    const c10::impl::DeviceGuardImplInterface *impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
    c10::Device d(c10::DeviceType::CUDA, (c10::DeviceIndex)dev);
    return {dev, impl->getStreamNativeHandle(impl->getStream(d)), context(dev)};
}

void *ptr(const Tensor &t) { return t.defined() ? t.data_ptr() : nullptr; }
gpuact_buffer buf(const Tensor &t) { return {ptr(t), 0}; }
gpuact_buffer buf(void *p) { return {p, 0}; }
int64_t addr(gpuact_buffer b) { return (int64_t)(intptr_t)b.handle + (int64_t)b.offset; }

/* The records of mock launches, 10 numbers each: op (0 forward, 1 backward, 2 epilogue forward,
   3 epilogue backward, 4 glu forward, 5 glu backward), rows (n for 0 and 1), cols (1 for 0 and 1), ld (of
   in), then the addresses in, out, mask, x, bias, dbias (0: absent): in = x (forward), dy (backward) or a
   (glu); out = y, dx or da; x = a backward's x or the glu's b. */
void record(int op, size_t rows, size_t cols, size_t ld, gpuact_buffer in, gpuact_buffer out, gpuact_buffer mask,
            gpuact_buffer x, gpuact_buffer bias, gpuact_buffer dbias) {
    std::lock_guard<std::mutex> hold(mock_lock);
    for (int64_t v : {(int64_t)op, (int64_t)rows, (int64_t)cols, (int64_t)ld, addr(in), addr(out), addr(mask),
                      addr(x), addr(bias), addr(dbias)})
        mock_calls.push_back(v);
}

/* what: the call; gpuact.GpuactError adds " failed: <result name>" and the C text. */
void done(gpuact_result r, const char *call) {
    if (r != GPUACT_SUCCESS) fail(r, call, gpuact_last_error());
}

/* ---- >>checks ---------------------------------------------------------------------- */

gpuact_dtype dtype_of(const Tensor &t) {
    switch (t.scalar_type()) {
    case at::kFloat: return GPUACT_F32;
    case at::kHalf: return GPUACT_F16;
    default: return GPUACT_BF16;  /* check() refused the others */
    }
}

bool supported(c10::ScalarType t) { return t == at::kFloat || t == at::kHalf || t == at::kBFloat16; }

/* t is on a CUDA device (a CPU tensor stands for one under gpuact::_testing_mock) with a dtype gpuact has. */
void check(const Tensor &t, const char *name, const char *fn) {
    if (!(t.is_cuda() || (t.is_cpu() && mock.load(std::memory_order_relaxed))))
        refuse(fn, std::string(name) + " is on " + t.device().str() +
                       "; gpuact runs on CUDA (and ROCm) devices only: move it there (.cuda()) or use torch's own "
                       "op on the CPU");
    if (!supported(t.scalar_type()))
        refuse(fn, std::string(name) + " has dtype " + dtype_str(t.scalar_type()) +
                       "; gpuact supports torch.float32, torch.float16 and torch.bfloat16 (cast first: float64 and "
                       "integer tensors are not supported)");
}

void same_device(const Tensor &a, const Tensor &b, const char *an, const char *bn, const std::string &fn) {
    if (a.device() != b.device())
        refuse(fn, std::string(an) + " is on " + a.device().str() + " and " + bn + " on " + b.device().str() +
                       "; they must be on the same device");
}

/* Whether t's elements fill its memory without gaps or overlap in a layout torch makes (contiguous,
   channels_last, channels_last_3d): an elementwise op then runs on its memory as it is. */
bool dense(const Tensor &t) {
    if (t.is_contiguous()) return true;
    if (t.dim() == 4) return t.is_contiguous(at::MemoryFormat::ChannelsLast);
    if (t.dim() == 5) return t.is_contiguous(at::MemoryFormat::ChannelsLast3d);
    return false;
}

/* A tensor the kernels read: the argument itself, borrowed, or a tensor made from it. Borrowed, not
   copied: a C++ reference to a tensor that Python owns takes the GIL (torch's PyObject preservation), and
   the kernels run with the GIL released. */
using Ref = c10::MaybeOwned<Tensor>;
Ref borrow(const Tensor &t) { return Ref::borrowed(t); }
Ref own(Tensor t) { return Ref::owned(std::move(t)); }

/* x itself when dense, else a contiguous copy. */
Ref dense_ref(const Tensor &x) { return dense(x) ? borrow(x) : own(x.contiguous()); }

/* t (absent or not) in dtype dt and contiguous: t itself when it is. */
Ref contiguous_in(const Tensor &t, c10::ScalarType dt) {
    if (!t.defined() || (t.scalar_type() == dt && t.is_contiguous())) return borrow(t);
    return own(t.to(dt).contiguous());
}

/* t with exactly these (dense) strides: t itself, or a copy. Symbolic shapes allowed (tracing). */
Tensor with_strides(const Tensor &t, c10::SymIntArrayRef stride) {
    if (t.sym_strides().equals(stride)) return t;
    Tensor out = at::empty_strided_symint(t.sym_sizes(), stride, t.options());
    out.copy_(t);
    return out;
}


bool overlap(const Tensor &a, const Tensor &b) {
    if (!a.numel() || !b.numel()) return false;
    auto span = [](const Tensor &t) {
        int64_t last = 0;
        for (int64_t i = 0; i < t.dim(); i++) last += (t.size(i) - 1) * t.stride(i);
        intptr_t lo = (intptr_t)t.data_ptr();
        return std::make_pair(lo, lo + (intptr_t)((last + 1) * t.element_size()));
    };
    auto sa = span(a), sb = span(b);
    return sa.first < sb.second && sb.first < sa.second;
}

/* ---- >>allocation ------------------------------------------------------------------- */

/* A new uninitialised tensor on like's device, with these strides (absent: contiguous): the device's
   allocator called directly, as torch's own kernels make their outputs (at::empty and at::empty_like go
   through the dispatcher, a hop or two more per output). The allocator is the one that made like's
   memory (torch's current CUDA allocator, a pluggable one included), else the device type's. */
Tensor empty_on(const Tensor &like, c10::IntArrayRef sizes, c10::ScalarType dt,
                c10::OptionalIntArrayRef strides = c10::nullopt) {
    const c10::Device dev = like.device();
    const bool cpu = dev.is_cpu();  /* the mock's */
    c10::OptionalDeviceGuard on;  /* only where another device is current: a guard's restore asks the driver */
    if (!cpu && c10::impl::getDeviceGuardImpl(dev.type())->getDevice() != dev) on.reset_device(dev);
    c10::Allocator *alloc = !cpu && like.has_storage() ? like.storage().allocator() : nullptr;
    if (!alloc) alloc = c10::GetAllocator(dev.type());
    const c10::DispatchKeySet ks(cpu ? c10::DispatchKey::CPU : c10::DispatchKey::CUDA);
    if (strides.has_value()) return at::detail::empty_strided_generic(sizes, *strides, alloc, ks, dt);
    return at::detail::empty_generic(sizes, alloc, ks, dt, c10::nullopt);
}

/* A new tensor like t: its shape and strides (t is dense), dtype dt. */
Tensor empty_as(const Tensor &t, c10::ScalarType dt) { return empty_on(t, t.sizes(), dt, t.strides()); }

/* ---- >>elementwise -------------------------------------------------------------------- */

void launch_forward(const Tensor &src, const Tensor &y, const Tensor &mask, int64_t kind, ArrayRef<double> params) {
    size_t n = (size_t)src.numel();
    if (!n) return;
    gpuact_forward_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, params);
    d.dtype = dtype_of(src);
    d.n = n;
    d.x = buf(src);
    d.y = buf(y);
    d.mask = buf(mask);
    Target t = target(src);
    if (!t.ctx) return record(0, n, 1, n, d.x, d.y, d.mask, {}, {}, {});
    done(gpuact_forward(t.ctx, &d, t.stream), "gpuact_forward");
}

/* y = act(x) and, with_mask, the 1-bit mask (ceil(n / 8) bytes) in the memory order of y: x's when x is
   dense, else that of the contiguous copy computed on. */
std::tuple<Tensor, Tensor> act_fwd(const Tensor &x, int64_t kind, ArrayRef<double> params, bool with_mask) {
    check(x, "x", kind_name(kind));
    Ref src = dense_ref(x);
    Tensor y = empty_as(*src, x.scalar_type());
    Tensor mask = empty_on(x, {with_mask ? (x.numel() + 7) / 8 : 0}, at::kByte);
    launch_forward(*src, y, mask, kind, params);
    return {y, mask};
}

/* act_fwd without the mask output. */
Tensor act(const Tensor &x, int64_t kind, ArrayRef<double> params) {
    check(x, "x", kind_name(kind));
    Ref src = dense_ref(x);
    Tensor y = empty_as(*src, x.scalar_type());
    launch_forward(*src, y, Tensor(), kind, params);
    return y;
}

/* y = act(x) written into out (x itself: in place); computed apart and copied when out's layout is not
   the one computed in. */
void act_out(const Tensor &x, const Tensor &out, int64_t kind, ArrayRef<double> params) {
    std::string fn = kind_name(kind);
    check(x, "x", fn.c_str());
    check(out, "out", fn.c_str());
    same_device(x, out, "x", "out", fn);
    if (out.sizes() != x.sizes() || out.scalar_type() != x.scalar_type())
        refuse(fn, "out has shape " + shape_str(out) + " and dtype " + dtype_str(out.scalar_type()) + "; x has " +
                       shape_str(x) + " and " + dtype_str(x.scalar_type()));
    Ref src = dense_ref(x);
    bool same = out.data_ptr() == src->data_ptr() && out.strides() == src->strides();
    if (!same && overlap(out, *src))
        refuse(fn, "out overlaps x without being x itself (in place needs out to be exactly x)");
    bool direct = same || (out.strides() == src->strides() && dense(out));
    Ref y = direct ? borrow(out) : own(empty_as(*src, x.scalar_type()));
    launch_forward(*src, *y, Tensor(), kind, params);
    if (!direct) out.copy_(*y);
}

void act_inplace(const Tensor &x, int64_t kind, ArrayRef<double> params) { act_out(x, x, kind, params); }
void act_into(const Tensor &x, const Tensor &y, int64_t kind, ArrayRef<double> params) { act_out(x, y, kind, params); }

/* dx from dy and exactly one of the forward's x (or y) and its mask; the mask's bits follow dy's memory
   order (autograd passes dy in the forward's layout), x is brought to dy's layout. */
Tensor act_bwd(const Tensor &dy_in, const c10::optional<Tensor> &x_in, const c10::optional<Tensor> &mask_in,
               int64_t kind, ArrayRef<double> params) {
    std::string fn = std::string(kind_name(kind)) + " backward";
    check(dy_in, "dy", fn.c_str());
    bool has_x = x_in.has_value() && x_in->defined(), has_m = mask_in.has_value() && mask_in->defined();
    if (has_x == has_m) refuse(fn, "give exactly one of x (the forward's input or output) and mask");
    Tensor dy = dense(dy_in) ? dy_in : dy_in.contiguous();
    int64_t n = dy.numel();
    Tensor x, mask;
    if (has_x) {
        x = *x_in;
        check(x, "x", fn.c_str());
        same_device(dy, x, "dy", "x", fn);
        if (x.sizes() != dy.sizes() || x.scalar_type() != dy.scalar_type())
            refuse(fn, "x has shape " + shape_str(x) + " and dtype " + dtype_str(x.scalar_type()) + "; dy has " +
                           shape_str(dy) + " and " + dtype_str(dy.scalar_type()));
        if (x.strides() != dy.strides()) {
            Tensor c = empty_as(dy, x.scalar_type());
            c.copy_(x);
            x = c;
        }
    } else {
        mask = *mask_in;
        if (mask.scalar_type() != at::kByte) refuse(fn, "mask must be the uint8 tensor the forward wrote");
        same_device(dy, mask, "dy", "mask", fn);
        if (!mask.is_contiguous() || mask.numel() < (n + 7) / 8)
            refuse(fn, "mask has " + std::to_string(mask.numel()) + " bytes (contiguous: " +
                           (mask.is_contiguous() ? "True" : "False") + "); " + std::to_string(n) + " elements need " +
                           std::to_string((n + 7) / 8) + " contiguous bytes");
    }
    Tensor dx = empty_as(dy, dy.scalar_type());
    if (!n) return dx;
    gpuact_backward_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, params);
    d.dtype = dtype_of(dy);
    d.n = (size_t)n;
    d.dy = buf(dy);
    d.dx = buf(dx);
    d.x = buf(x);
    d.mask = buf(mask);
    Target t = target(dy);
    if (!t.ctx) {
        record(1, (size_t)n, 1, (size_t)n, d.dy, d.dx, d.mask, d.x, {}, {});
        return dx;
    }
    done(gpuact_backward(t.ctx, &d, t.stream), "gpuact_backward");
    return dx;
}

/* ---- >>epilogue: y = act(x + bias) * scale along the last dimension ----------------------------- */

int64_t rows_of(const Tensor &t) {
    int64_t r = 1;
    for (int64_t i = 0; i + 1 < t.dim(); i++) r *= t.size(i);
    return r;
}

/* t as rows x cols with unit column stride: a 2-D view with a row stride >= cols is used as it is (ld),
   anything else that is not contiguous is copied. */
std::pair<Ref, int64_t> as_matrix(const Tensor &t) {
    int64_t rows = rows_of(t), cols = t.size(-1);
    if (t.dim() == 2 && t.stride(1) == 1 && (rows <= 1 || t.stride(0) >= cols))
        return {borrow(t), rows > 1 ? t.stride(0) : cols};
    if (t.is_contiguous()) return {borrow(t), cols};
    return {own(t.contiguous()), cols};
}

/* The epilogue masks' row pitch in bits: cols rounded up to 8, so every byte of a mask tensor is written
   by the forward (a mask tensor must be a deterministic function of the inputs: torch.compile, opcheck). */
int64_t mask_ld_of(int64_t cols) { return (cols + 7) / 8 * 8; }

void check_scale(double scale, const char *fn) {
    if (scale == 0) refuse(fn, "scale = 0 is not supported (the C API reads 0 as 1); multiply the result by 0 instead");
}

void check_out_dtype(c10::ScalarType t, const char *what, const char *fn) {
    if (!supported(t))
        refuse(fn, std::string(what) + " " + dtype_str(t) +
                       " is not one of torch.float32, torch.float16, torch.bfloat16");
}

/* A contiguous output of t's shape. */
Tensor new_like(const Tensor &t, c10::ScalarType dt) {
    return empty_on(t, t.sizes(), dt);
}

/* y = act(x + bias) * scale and, with_mask, the mask (rows x mask_ld_of(cols) bits). bias_in_x_dtype: the
   bias is rounded to x's dtype first (torch's autocast rule for F.linear's bias), so the whole epilogue,
   and its backward from x, run in one dtype. */
std::tuple<Tensor, Tensor> bias_act_fwd(const Tensor &x, const c10::optional<Tensor> &bias_in, int64_t kind,
                                        ArrayRef<double> params, double scale, c10::optional<c10::ScalarType> out_dtype,
                                        bool with_mask, bool bias_in_x_dtype) {
    const char *fn = "bias_act";
    check(x, "x", fn);
    if (x.dim() < 1) refuse(fn, "x must have at least one dimension (the last one is the bias's)");
    check_scale(scale, fn);
    int64_t rows = rows_of(x), cols = x.size(-1);
    c10::ScalarType ydt = out_dtype.value_or(x.scalar_type());
    check_out_dtype(ydt, "out_dtype", fn);
    Ref bias = own(Tensor());
    if (bias_in.has_value() && bias_in->defined()) {
        const Tensor &b = *bias_in;
        check(b, "bias", fn);
        same_device(x, b, "x", "bias", fn);
        if (b.dim() != 1 || b.size(0) != cols)
            refuse(fn, "bias has shape " + shape_str(b) + "; x's last dimension is " + std::to_string(cols) +
                           ", so bias must be (" + std::to_string(cols) + ",)");
        bias = bias_in_x_dtype && b.scalar_type() != x.scalar_type() ? own(b.to(x.scalar_type())) : borrow(b);
        if (bias->stride(0) != 1 && cols > 1) bias = own(bias->contiguous());
    }
    int64_t mask_ld = mask_ld_of(cols);
    Tensor y = new_like(x, ydt);
    Tensor mask = empty_on(x, {with_mask ? rows * mask_ld / 8 : 0}, at::kByte);
    if (!rows || !cols) return {y, mask};
    auto xm = as_matrix(x);
    gpuact_epilogue_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, params);
    d.rows = (size_t)rows;
    d.cols = (size_t)cols;
    d.x_dtype = dtype_of(x);
    d.y_dtype = dtype_of(y);
    d.bias_dtype = bias->defined() ? dtype_of(*bias) : d.x_dtype;
    d.ld_x = (size_t)xm.second;
    d.ld_y = (size_t)cols;
    d.scale = (float)scale;
    d.x = buf(*xm.first);
    d.bias = buf(*bias);
    d.y = buf(y);
    d.mask = buf(mask);
    d.mask_ld = (size_t)mask_ld;
    Target t = target(x);
    if (!t.ctx) {
        record(2, d.rows, d.cols, d.ld_x, d.x, d.y, d.mask, {}, d.bias, {});
        return {y, mask};
    }
    done(gpuact_epilogue_forward(t.ctx, &d, t.stream), "gpuact_epilogue_forward");
    return {y, mask};
}

Tensor bias_act(const Tensor &x, const c10::optional<Tensor> &bias, int64_t kind, ArrayRef<double> params,
                double scale, c10::optional<c10::ScalarType> out_dtype, bool bias_in_x_dtype) {
    return std::get<0>(bias_act_fwd(x, bias, kind, params, scale, out_dtype, false, bias_in_x_dtype));
}

/* Whether the stream is being captured into a CUDA graph (the driver's cuStreamIsCapturing, or HIP's
   hipStreamIsCapturing: the libraries are loaded by then). gpuact's bias-gradient workspace pool records
   and queries events, which a capturing stream does not allow. */
bool capturing(void *stream) {
    typedef int (*is_capturing_fn)(void *, int *);
    static is_capturing_fn f = [] {
        bool hip = backend == GPUACT_BACKEND_HIP;
        void *lib = dlopen(hip ? "libamdhip64.so" : "libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        return lib ? (is_capturing_fn)dlsym(lib, hip ? "hipStreamIsCapturing" : "cuStreamIsCapturing") : nullptr;
    }();
    int status = 0;
    return f && f(stream, &status) == 0 && status != 0;
}

/* The backward kernel a CUDA-graph capture of this call uses (the same without the bias gradient), launched
   once per variant on one element outside any capture, so that its first use (a kernel build and a module
   load) does not fall inside a capture whose warm-up only ran the variant with the bias gradient. */
void build_capture_variant(const Target &t, const Tensor &like, const gpuact_epilogue_backward_desc &full) {
    static std::mutex lock;
    static std::vector<std::vector<int64_t>> seen;
    std::vector<int64_t> key = {t.dev, (int64_t)full.act.kind, (int64_t)full.dy_dtype, (int64_t)full.dx_dtype,
                                full.scale == 1.0f, full.x.handle ? (int64_t)full.x_dtype : -1};
    {
        std::lock_guard<std::mutex> hold(lock);
        for (auto &k : seen)
            if (k == key) return;
        seen.push_back(key);
    }
    Tensor scratch = at::zeros({64}, like.options().dtype(at::kByte));
    char *p = (char *)scratch.data_ptr();
    gpuact_epilogue_backward_desc d = full;
    d.rows = d.cols = 1;
    d.ld_dy = d.ld_dx = d.ld_y = d.ld_x = 1;
    d.dy = buf(p);
    d.dx = buf(p + 16);
    d.dbias = gpuact_buffer{nullptr, 0};
    d.dbias_dtype = GPUACT_F32;
    d.bias = gpuact_buffer{nullptr, 0};
    if (d.x.handle) {
        d.x = buf(p + 32);
    } else {
        d.mask = buf(p + 48);
        d.mask_ld = 128;
    }
    done(gpuact_epilogue_backward(t.ctx, &d, t.stream), "gpuact_epilogue_backward");
}

/* dx (dx_dtype) and, with dbias_dtype, the bias gradient (column sums of dx, f32 accumulation) in the same
   pass, from dy and exactly one source: the forward's mask (the ReLU family, hardtanh) or its input x and
   bias (the smooth kinds: z = x + bias formed again as the forward formed it). A bias whose dtype differs
   from x's is read in x's dtype (bias_in_x_dtype: as the forward rounded it) or z is formed here in
   float32 and passed as x (one extra elementwise pass). Under CUDA-graph capture torch sums the bias
   gradient (capturing()). */
std::tuple<Tensor, Tensor> epilogue_backward(const Tensor &dy, const Tensor &mask, int64_t kind,
                                             ArrayRef<double> params, double scale, c10::ScalarType dx_dtype,
                                             c10::optional<c10::ScalarType> dbias_dtype, const Tensor &x_in,
                                             const Tensor &bias_in, bool bias_in_x_dtype,
                                             const Tensor &dx_into = Tensor()) {
    std::string name = std::string(kind_name(kind)) + " bias_act backward";
    const char *fn = name.c_str();
    check(dy, "dy", fn);
    if (mask.defined() == x_in.defined())
        refuse(fn, "give exactly one of mask (the ReLU family, hardtanh) and x (the smooth kinds)");
    if (mask.defined()) {
        if (mask.scalar_type() != at::kByte) refuse(fn, "mask must be the uint8 tensor the forward wrote");
        same_device(dy, mask, "dy", "mask", fn);
    }
    check_scale(scale, fn);
    if (dy.dim() < 1) refuse(fn, "dy must have at least one dimension");
    int64_t rows = rows_of(dy), cols = dy.size(-1);
    int64_t mask_ld = mask_ld_of(cols);
    if (mask.defined() && (!mask.is_contiguous() || mask.numel() < rows * mask_ld / 8))
        refuse(fn, "mask has " + std::to_string(mask.numel()) + " bytes; " + std::to_string(rows) + " rows of " +
                       std::to_string(cols) + " need " + std::to_string(rows * mask_ld / 8) + " contiguous bytes");
    Tensor x = x_in, bias;
    if (x.defined()) {
        check(x, "x", fn);
        same_device(dy, x, "dy", "x", fn);
        if (x.sizes() != dy.sizes()) refuse(fn, "x has shape " + shape_str(x) + "; dy has " + shape_str(dy));
        if (bias_in.defined()) {
            bias = bias_in;
            check(bias, "bias", fn);
            same_device(x, bias, "x", "bias", fn);
            if (bias.dim() != 1 || bias.size(0) != cols)
                refuse(fn, "bias has shape " + shape_str(bias) + "; it must be (" + std::to_string(cols) + ",)");
            if (bias.scalar_type() != x.scalar_type() && bias_in_x_dtype) {
                bias = bias.to(x.scalar_type()).contiguous();
            } else if (bias.scalar_type() != x.scalar_type()) {
                x = x.to(at::kFloat) + bias.to(at::kFloat);
                bias = Tensor();
            } else if (bias.stride(0) != 1 && cols > 1) {
                bias = bias.contiguous();
            }
        }
    } else if (bias_in.defined()) {
        refuse(fn, "bias is read only with x (the smooth kinds)");
    }
    check_out_dtype(dx_dtype, "dx_dtype", fn);
    if (dbias_dtype) check_out_dtype(*dbias_dtype, "dbias_dtype", fn);
    /* dx_into: dy itself, contiguous and of dx's dtype (the C API computes dx over dy in place) */
    if (dx_into.defined() && (!dx_into.is_same(dy) || !dy.is_contiguous() || dy.scalar_type() != dx_dtype))
        refuse(fn, "dx can be written over dy only where dy is contiguous and of dx's dtype (" +
                       dtype_str(dx_dtype) + "); dy is " + dtype_str(dy.scalar_type()));
    Tensor dx = dx_into.defined() ? dx_into : new_like(dy, dx_dtype);
    Tensor dbias;
    if (dbias_dtype)
        dbias = rows ? empty_on(dy, {cols}, *dbias_dtype)
                     : at::zeros({cols}, dy.options().dtype(*dbias_dtype));
    if (!rows || !cols) return {dx, dbias};
    auto dym = as_matrix(dy);
    gpuact_epilogue_backward_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, params);
    d.rows = (size_t)rows;
    d.cols = (size_t)cols;
    d.dy_dtype = dtype_of(*dym.first);
    d.dx_dtype = dtype_of(dx);
    d.y_dtype = d.dy_dtype;
    d.ld_dy = (size_t)dym.second;
    d.ld_dx = d.ld_y = (size_t)cols;
    d.scale = (float)scale;
    d.dy = buf(*dym.first);
    d.dx = buf(dx);
    d.mask = buf(mask);
    d.mask_ld = (size_t)mask_ld;
    if (x.defined()) {
        auto xm = as_matrix(x);
        x = *xm.first;
        d.x = buf(x);
        d.bias = buf(bias);
        d.x_dtype = dtype_of(x);
        d.ld_x = (size_t)xm.second;
    }
    Target t = target(dy);
    bool by_torch = dbias.defined() && t.ctx && capturing(t.stream);
    if (dbias.defined() && !by_torch) {
        d.dbias = buf(dbias);
        d.dbias_dtype = dtype_of(dbias);
    }
    if (!t.ctx) {
        record(3, d.rows, d.cols, d.ld_dy, d.dy, d.dx, d.mask, d.x, d.bias, d.dbias);
        return {dx, dbias};
    }
    if (dbias.defined() && !by_torch) build_capture_variant(t, dy, d);
    done(gpuact_epilogue_backward(t.ctx, &d, t.stream), "gpuact_epilogue_backward");
    if (by_torch) dbias.copy_(dx.view({rows, cols}).sum(0, false, at::kFloat));
    return {dx, dbias};
}

std::tuple<Tensor, Tensor> no_dbias(std::tuple<Tensor, Tensor> out, const Tensor &dy) {
    if (!std::get<1>(out).defined()) std::get<1>(out) = empty_on(dy, {0}, at::kFloat);
    return out;
}

std::tuple<Tensor, Tensor> bias_act_bwd(const Tensor &dy, const Tensor &mask, int64_t kind, ArrayRef<double> params,
                                        double scale, c10::ScalarType dx_dtype,
                                        c10::optional<c10::ScalarType> dbias_dtype) {
    return no_dbias(
        epilogue_backward(dy, mask, kind, params, scale, dx_dtype, dbias_dtype, Tensor(), Tensor(), false), dy);
}

std::tuple<Tensor, Tensor> bias_act_bwd_x(const Tensor &dy, const Tensor &x, const c10::optional<Tensor> &bias,
                                          int64_t kind, ArrayRef<double> params, double scale,
                                          c10::optional<c10::ScalarType> dbias_dtype, bool bias_in_x_dtype) {
    return no_dbias(epilogue_backward(dy, Tensor(), kind, params, scale, x.scalar_type(), dbias_dtype, x,
                                      bias.has_value() ? *bias : Tensor(), bias_in_x_dtype),
                    dy);
}

/* bias_act_bwd_x with dx written over dy (contiguous, of x's dtype); returns the bias gradient. The backward
   traced by torch.compile calls it where dy is a buffer of the compiled graph's own (gpuact/torch/_ops.py),
   which Inductor then reuses: one activation-sized buffer less at the backward's peak. */
Tensor bias_act_bwd_x_(const Tensor &dy, const Tensor &x, const c10::optional<Tensor> &bias, int64_t kind,
                       ArrayRef<double> params, double scale, c10::optional<c10::ScalarType> dbias_dtype,
                       bool bias_in_x_dtype) {
    return std::get<1>(no_dbias(epilogue_backward(dy, Tensor(), kind, params, scale, x.scalar_type(), dbias_dtype, x,
                                                  bias.has_value() ? *bias : Tensor(), bias_in_x_dtype, dy),
                                dy));
}

/* ---- >>gated forms: y = act(a + bias_a) * (b + bias_b) ------------------------------------------- */

/* (t or a contiguous copy, ld): t as rows x cols (cols: the last dimension) with unit column stride and
   row stride ld >= cols. A t whose leading dimensions collapse into one row stride (a half of a
   contiguous (..., 2 cols) tensor: ld = 2 cols; a column slice of a matrix) is used in place. */
std::pair<Ref, int64_t> rows_view(const Tensor &t) {
    int64_t cols = t.size(-1);
    if (t.is_contiguous()) return {borrow(t), cols};
    if (t.stride(-1) == 1 || cols == 1) {
        std::vector<std::pair<int64_t, int64_t>> lead;
        for (int64_t i = 0; i + 1 < t.dim(); i++)
            if (t.size(i) != 1) lead.push_back({t.size(i), t.stride(i)});
        if (lead.empty()) return {borrow(t), cols};
        int64_t ld = lead.back().second;
        bool ok = ld >= cols;
        int64_t want = ld;
        for (auto it = lead.rbegin(); it != lead.rend(); ++it) {
            ok = ok && it->second == want;
            want = it->second * it->first;
        }
        if (ok) return {borrow(t), ld};
    }
    return {own(t.contiguous()), cols};
}

/* The gated forms' argument rules (shapes, dtypes, devices, biases both or neither); returns cols. b
   absent: a is the fused projection (..., 2 cols) and bias_a its (2 cols,) bias. The fakes apply the
   same rules (gpuact/torch/_impl.py glu_check). */
int64_t glu_check(const Tensor &a, const Tensor &b, const Tensor &bias_a, const Tensor &bias_b, const char *fn) {
    check(a, "a", fn);
    if (a.dim() < 1) refuse(fn, "the input must have at least one dimension (the last one is the gated one)");
    int64_t cols;
    std::vector<std::tuple<const char *, const Tensor *, int64_t>> biases;
    if (!b.defined()) {
        if (a.size(-1) % 2)
            refuse(fn, "the fused input's last dimension is " + std::to_string(a.size(-1)) +
                           "; it must be even (gate || up)");
        cols = a.size(-1) / 2;
        if (bias_b.defined()) refuse(fn, "the fused form takes one bias of 2 * cols elements (bias_a), not bias_b");
        biases.emplace_back("bias", &bias_a, 2 * cols);
    } else {
        check(b, "b", fn);
        same_device(a, b, "a", "b", fn);
        if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type())
            refuse(fn, "a has shape " + shape_str(a) + " and dtype " + dtype_str(a.scalar_type()) + ", b " +
                           shape_str(b) + " and " + dtype_str(b.scalar_type()) + "; they must match");
        if (bias_a.defined() != bias_b.defined()) refuse(fn, "give both of bias_a and bias_b, or neither");
        cols = a.size(-1);
        biases.emplace_back("bias_a", &bias_a, cols);
        biases.emplace_back("bias_b", &bias_b, cols);
    }
    for (auto &nb : biases) {
        const Tensor &bias = *std::get<1>(nb);
        if (!bias.defined()) continue;
        check(bias, std::get<0>(nb), fn);
        same_device(a, bias, "a", std::get<0>(nb), fn);
        if (bias.dim() != 1 || bias.size(0) != std::get<2>(nb))
            refuse(fn, std::string(std::get<0>(nb)) + " has shape " + shape_str(bias) + "; it must be (" +
                           std::to_string(std::get<2>(nb)) + ",)");
    }
    return cols;
}

/* The inputs as the C API takes them: rows, cols, a and b with their row pitches (b absent: the halves of
   the fused a), the biases in a's dtype (a float32 bias of a bfloat16 input is rounded first, as torch's
   autocast does for F.linear's bias), contiguous. */
struct GluInputs {
    int64_t rows, cols, ld_a, ld_b;
    Ref sa, sb, bias_a, bias_b;
    gpuact_buffer a, b;
};

GluInputs glu_inputs(const Tensor &a, const Tensor &b, const Tensor &bias_a, const Tensor &bias_b, const char *fn) {
    GluInputs in;
    in.cols = glu_check(a, b, bias_a, bias_b, fn);
    in.rows = rows_of(a);
    if (!b.defined()) {
        if (bias_a.defined()) {
            Ref full = contiguous_in(bias_a, a.scalar_type());
            in.bias_a = own(full->narrow(0, 0, in.cols));
            in.bias_b = own(full->narrow(0, in.cols, in.cols));
        } else {
            in.bias_a = in.bias_b = borrow(bias_a);
        }
        auto v = rows_view(a);
        in.sa = in.sb = v.first;
        in.ld_a = in.ld_b = v.second;
        in.a = buf(*in.sa);
        in.b = {in.sa->data_ptr(), (size_t)(in.cols * a.element_size())};
        return in;
    }
    in.bias_a = contiguous_in(bias_a, a.scalar_type());
    in.bias_b = contiguous_in(bias_b, a.scalar_type());
    auto va = rows_view(a), vb = rows_view(b);
    in.sa = va.first;
    in.sb = vb.first;
    in.ld_a = va.second;
    in.ld_b = vb.second;
    in.a = buf(*in.sa);
    in.b = buf(*in.sb);
    return in;
}

const Tensor &opt(const c10::optional<Tensor> &t) {
    static const Tensor none;
    return t.has_value() ? *t : none;
}
c10::optional<Tensor> opt(const Tensor &t) { return t.defined() ? c10::optional<Tensor>(t) : c10::nullopt; }

std::string glu_name(int64_t kind, const char *what) { return std::string(kind_name(kind, "glu")) + what; }

/* y = act(a + bias_a) * (b + bias_b), contiguous, a's dtype; a's shape, or (fused) a's with the last
   dimension halved. */
Tensor glu_fwd(const Tensor &a, const c10::optional<Tensor> &b, const c10::optional<Tensor> &bias_a,
               const c10::optional<Tensor> &bias_b, int64_t kind) {
    std::string fn = glu_name(kind, " glu");
    GluInputs in = glu_inputs(a, opt(b), opt(bias_a), opt(bias_b), fn.c_str());
    Tensor y;
    if (opt(b).defined()) {
        y = new_like(a, a.scalar_type());
    } else {
        std::vector<int64_t> shape = a.sizes().vec();
        shape.back() = in.cols;
        y = empty_on(a, shape, a.scalar_type());
    }
    if (!in.rows || !in.cols) return y;
    gpuact_glu_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, {});
    d.rows = (size_t)in.rows;
    d.cols = (size_t)in.cols;
    d.x_dtype = d.y_dtype = dtype_of(a);
    d.ld_a = (size_t)in.ld_a;
    d.ld_b = (size_t)in.ld_b;
    d.ld_y = (size_t)in.cols;
    d.a = in.a;
    d.b = in.b;
    d.y = buf(y);
    d.bias_a = buf(*in.bias_a);
    d.bias_b = buf(*in.bias_b);
    Target t = target(a);
    if (!t.ctx) {
        record(4, d.rows, d.cols, d.ld_a, d.a, d.y, {}, d.b, d.bias_a, {});
        return y;
    }
    done(gpuact_glu_forward(t.ctx, &d, t.stream), "gpuact_glu_forward");
    return y;
}

/* The gated backward without the bias gradients (what a CUDA-graph capture of the call runs), launched
   once per variant on one element outside any capture, as build_capture_variant does for the epilogue. */
void build_glu_capture_variant(const Target &t, const Tensor &like, const gpuact_glu_backward_desc &full) {
    static std::mutex lock;
    static std::vector<std::vector<int64_t>> seen;
    std::vector<int64_t> key = {t.dev, (int64_t)full.act.kind, (int64_t)full.dy_dtype, (int64_t)full.x_dtype};
    {
        std::lock_guard<std::mutex> hold(lock);
        for (auto &k : seen)
            if (k == key) return;
        seen.push_back(key);
    }
    Tensor scratch = at::zeros({128}, like.options().dtype(at::kByte));
    char *p = (char *)scratch.data_ptr();
    gpuact_glu_backward_desc d;
    memset(&d, 0, sizeof d);
    d.act = full.act;
    d.rows = d.cols = 1;
    d.dy_dtype = full.dy_dtype;
    d.x_dtype = full.x_dtype;
    d.ld_dy = d.ld_a = d.ld_b = d.ld_da = d.ld_db = 1;
    d.dy = buf(p);
    d.a = buf(p + 16);
    d.b = buf(p + 32);
    d.da = buf(p + 48);
    d.db = buf(p + 64);
    done(gpuact_glu_backward(t.ctx, &d, t.stream), "gpuact_glu_backward");
}

/* The gated backward in one pass from the forward's inputs: (da, db, dbias_a, dbias_b), or for the fused
   form (dh, empty, dbias (2 cols,), empty); with dbias_dtype the bias gradients are the column sums of da
   and db accumulated in float32 (empty without it). Under CUDA-graph capture torch sums them. */
std::tuple<Tensor, Tensor, Tensor, Tensor> glu_bwd(const Tensor &dy, const Tensor &a, const c10::optional<Tensor> &b_in,
                                                   const c10::optional<Tensor> &bias_a,
                                                   const c10::optional<Tensor> &bias_b, int64_t kind,
                                                   c10::optional<c10::ScalarType> dbias_dtype) {
    std::string name = glu_name(kind, " glu backward");
    const char *fn = name.c_str();
    const Tensor &b = opt(b_in);
    GluInputs in = glu_inputs(a, b, opt(bias_a), opt(bias_b), fn);
    check(dy, "dy", fn);
    same_device(a, dy, "a", "dy", fn);
    std::vector<int64_t> shape = a.sizes().vec();
    if (!b.defined()) shape.back() = in.cols;
    if (dy.sizes() != c10::IntArrayRef(shape))
        refuse(fn, "dy has shape " + shape_str(dy) + "; the forward's output has " + shape_str(shape));
    if (dbias_dtype) check_out_dtype(*dbias_dtype, "dbias_dtype", fn);
    int64_t rows = in.rows, cols = in.cols;
    int64_t es = a.element_size();
    Tensor empty = empty_on(a, {0}, a.scalar_type());
    Tensor first, second = empty, dba = empty, dbb = empty;
    gpuact_buffer pda, pdb, pdba = {}, pdbb = {};
    int64_t ldd;
    auto alloc = [&](int64_t n) {
        return rows ? empty_on(a, {n}, *dbias_dtype) : at::zeros({n}, a.options().dtype(*dbias_dtype));
    };
    if (!b.defined()) {
        first = new_like(a, a.scalar_type());
        pda = buf(first);
        pdb = {first.data_ptr(), (size_t)(cols * es)};
        ldd = 2 * cols;
        if (dbias_dtype) {
            dba = alloc(2 * cols);
            pdba = buf(dba);
            pdbb = {dba.data_ptr(), (size_t)(cols * dba.element_size())};
        }
    } else {
        first = new_like(a, a.scalar_type());
        second = new_like(a, a.scalar_type());
        pda = buf(first);
        pdb = buf(second);
        ldd = cols;
        if (dbias_dtype) {
            dba = alloc(cols);
            dbb = alloc(cols);
            pdba = buf(dba);
            pdbb = buf(dbb);
        }
    }
    if (!rows || !cols) return {first, second, dba, dbb};
    auto vdy = rows_view(dy);
    gpuact_glu_backward_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, {});
    d.rows = (size_t)rows;
    d.cols = (size_t)cols;
    d.dy_dtype = dtype_of(dy);
    d.x_dtype = dtype_of(a);
    d.ld_dy = (size_t)vdy.second;
    d.ld_a = (size_t)in.ld_a;
    d.ld_b = (size_t)in.ld_b;
    d.ld_da = d.ld_db = (size_t)ldd;
    d.dy = buf(*vdy.first);
    d.a = in.a;
    d.b = in.b;
    d.bias_a = buf(*in.bias_a);
    d.bias_b = buf(*in.bias_b);
    d.da = pda;
    d.db = pdb;
    Target t = target(a);
    bool by_torch = dbias_dtype.has_value() && t.ctx && capturing(t.stream);
    if (dbias_dtype && !by_torch) {
        d.dbias_dtype = *dbias_dtype == at::kFloat ? GPUACT_F32 : *dbias_dtype == at::kHalf ? GPUACT_F16 : GPUACT_BF16;
        d.dbias_a = pdba;
        d.dbias_b = pdbb;
    }
    if (!t.ctx) {
        record(5, d.rows, d.cols, d.ld_a, d.a, d.da, {}, d.b, d.bias_a, d.dbias_a);
        return {first, second, dba, dbb};
    }
    if (dbias_dtype && !by_torch) build_glu_capture_variant(t, a, d);
    done(gpuact_glu_backward(t.ctx, &d, t.stream), "gpuact_glu_backward");
    if (by_torch) {
        Tensor da_rows = first.view({rows, b.defined() ? cols : 2 * cols});
        Tensor db_rows = b.defined() ? second.view({rows, cols}) : da_rows.narrow(1, cols, cols);
        if (!b.defined()) da_rows = da_rows.narrow(1, 0, cols);
        if (b.defined()) {
            dba.copy_(da_rows.sum(0, false, at::kFloat));
            dbb.copy_(db_rows.sum(0, false, at::kFloat));
        } else {
            dba.narrow(0, 0, cols).copy_(da_rows.sum(0, false, at::kFloat));
            dba.narrow(0, cols, cols).copy_(db_rows.sum(0, false, at::kFloat));
        }
    }
    return {first, second, dba, dbb};
}

/* ---- >>few-bit codes (GELU, GELU tanh, SiLU): the backward from b bits per element ---------------- */

/* Codes between row starts (cols rounded up to 32: every row starts on 4 bytes) and the bytes of rows of
   them (dense, bits each). gpuact/torch/fewbit.py has the same for the fakes. */
int64_t codes_ld_of(int64_t cols) { return (cols + 31) / 32 * 32; }
int64_t codes_numel(int64_t rows, int64_t cols, int64_t bits) { return rows * codes_ld_of(cols) / 8 * bits; }

/* (y, codes): y = act(x + bias) * scale with x's shape, and the codes of x + bias (the bias in x's dtype:
   the C rule CODES_BIAS_DTYPE). */
std::tuple<Tensor, Tensor> fewbit_fwd(const Tensor &x, const c10::optional<Tensor> &bias_in, int64_t kind,
                                      ArrayRef<double> params, double scale, c10::optional<c10::ScalarType> out_dtype,
                                      int64_t bits, bool bias_in_x_dtype) {
    (void)bias_in_x_dtype;  /* the codes' forward always reads the bias in x's dtype */
    const char *fn = kind_name(kind);
    check(x, "x", fn);
    if (x.dim() < 1) refuse(fn, "x must have at least one dimension");
    check_scale(scale, fn);
    int64_t rows = rows_of(x), cols = x.size(-1);
    c10::ScalarType ydt = out_dtype.value_or(x.scalar_type());
    check_out_dtype(ydt, "out_dtype", fn);
    const Tensor &b = opt(bias_in);
    if (b.defined()) {
        check(b, "bias", fn);
        same_device(x, b, "x", "bias", fn);
        if (b.dim() != 1 || b.size(0) != cols)
            refuse(fn, "bias has shape " + shape_str(b) + "; x's last dimension is " + std::to_string(cols));
    }
    Ref bias = contiguous_in(b, x.scalar_type());
    Tensor y = empty_on(x, x.sizes(), ydt);
    Tensor codes = empty_on(x, {codes_numel(rows, cols, bits)}, at::kByte);
    if (!rows || !cols) return {y, codes};
    auto xm = as_matrix(x);
    gpuact_epilogue_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, params);
    d.rows = (size_t)rows;
    d.cols = (size_t)cols;
    d.x_dtype = d.bias_dtype = dtype_of(x);
    d.y_dtype = dtype_of(y);
    d.ld_x = (size_t)xm.second;
    d.scale = (float)scale;
    d.x = buf(*xm.first);
    d.bias = buf(*bias);
    d.y = buf(y);
    d.codes = buf(codes);
    d.code_bits = (int)bits;
    d.codes_ld = (size_t)codes_ld_of(cols);
    Target t = target(x);
    if (!t.ctx) {
        record(2, d.rows, d.cols, d.ld_x, d.x, d.y, d.codes, {}, d.bias, {});
        return {y, codes};
    }
    done(gpuact_epilogue_forward(t.ctx, &d, t.stream), "gpuact_epilogue_forward");
    return {y, codes};
}

/* (dx, dbias or empty): dx = (dy * scale) * level[code], dx_dtype, dy's shape. */
std::tuple<Tensor, Tensor> fewbit_bwd(const Tensor &dy_in, const Tensor &codes, int64_t kind, ArrayRef<double> params,
                                      int64_t bits, double scale, c10::ScalarType dx_dtype,
                                      c10::optional<c10::ScalarType> dbias_dtype) {
    std::string name = std::string(kind_name(kind)) + " backward";
    const char *fn = name.c_str();
    check(dy_in, "dy", fn);
    int64_t rows = rows_of(dy_in), cols = dy_in.size(-1);
    int64_t need = codes_numel(rows, cols, bits);
    if (codes.scalar_type() != at::kByte || !codes.is_contiguous() || codes.numel() < need)
        refuse(fn, "codes must be the contiguous uint8 tensor the forward wrote (" + std::to_string(need) +
                       " bytes for " + std::to_string(rows) + " x " + std::to_string(cols) + " " +
                       std::to_string(bits) + "-bit codes)");
    same_device(dy_in, codes, "dy", "codes", fn);
    Tensor dy = dy_in.contiguous();
    Tensor dx = empty_on(dy, dy.sizes(), dx_dtype);
    Tensor dbias = dbias_dtype ? empty_on(dy, {cols}, *dbias_dtype) : empty_on(dy, {0}, at::kFloat);
    if (dbias_dtype && !(rows && cols)) dbias.zero_();
    if (!rows || !cols) return {dx, dbias};
    gpuact_epilogue_backward_desc d;
    memset(&d, 0, sizeof d);
    d.act = activation(kind, params);
    d.rows = (size_t)rows;
    d.cols = (size_t)cols;
    d.dy_dtype = dtype_of(dy);
    d.dx_dtype = dtype_of(dx);
    d.scale = (float)scale;
    d.dy = buf(dy);
    d.dx = buf(dx);
    d.codes = buf(codes);
    d.code_bits = (int)bits;
    d.codes_ld = (size_t)codes_ld_of(cols);
    if (dbias_dtype) {
        d.dbias = buf(dbias);
        d.dbias_dtype = dtype_of(dbias);
    }
    Target t = target(dy);
    if (!t.ctx) {
        record(3, d.rows, d.cols, (size_t)cols, d.dy, d.dx, d.codes, {}, {}, d.dbias);
        return {dx, dbias};
    }
    done(gpuact_epilogue_backward(t.ctx, &d, t.stream), "gpuact_epilogue_backward");
    return {dx, dbias};
}

/* ---- >>autograd of the elementwise ops ----------------------------------------------------- */

/* The autograd nodes are torch::autograd::Node subclasses, as torch's own generated ones: a
   torch::autograd::Function costs several microseconds more per call (its context's saved_data map). */
using torch::autograd::Node;
using torch::autograd::SavedVariable;
using torch::autograd::variable_list;

/* A node's copy of the activation's params (inline: no heap allocation per node). */
using Params = c10::SmallVector<double, 4>;

template <class N>
std::shared_ptr<N> new_node() {
    return std::shared_ptr<N>(new N(), torch::autograd::deleteNode);
}

using ActSig = Tensor(const Tensor &, int64_t, ArrayRef<double>);
using ActFwdSig = std::tuple<Tensor, Tensor>(const Tensor &, int64_t, ArrayRef<double>, bool);
using ActBwdSig = Tensor(const Tensor &, const c10::optional<Tensor> &, const c10::optional<Tensor> &, int64_t,
                         ArrayRef<double>);

template <class Sig>
c10::TypedOperatorHandle<Sig> handle(const char *name) {
    return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}
/* fn(): the typed handle of the operator `name`, looked up once */
#define GPUACT_OP_HANDLE(fn, Sig, name)                    \
    const c10::TypedOperatorHandle<Sig> &fn() {            \
        static auto h = handle<Sig>(name);                 \
        return h;                                          \
    }
/* op(args...) run below autograd: the operator's own kernel, no history recorded (what an autograd kernel
   calls before it records its node). */
template <class Sig, class... Args>
auto below_autograd(const c10::TypedOperatorHandle<Sig> &op, Args &&...args) {
    at::AutoDispatchBelowADInplaceOrView below;
    return op.call(std::forward<Args>(args)...);
}

GPUACT_OP_HANDLE(act_op, ActSig, "gpuact::act")
GPUACT_OP_HANDLE(act_fwd_op, ActFwdSig, "gpuact::act_fwd")
GPUACT_OP_HANDLE(act_bwd_op, ActBwdSig, "gpuact::act_bwd")

/* The activation of the elementwise backwards: kind and params as the forward had them. */
struct ActNode : public Node {
    SavedVariable saved;  /* the mask, or x (the smooth kinds) */
    int64_t kind = 0;
    Params params;
    bool from_mask = false;
    c10::SmallVector<c10::SymInt, 5> stride;  /* the forward's output's: the mask's bits are in its memory order */
    void release_variables() override { saved.reset_data(); }
};

/* act / act_fwd's backward: dx from dy and the saved mask or x, through gpuact::act_bwd (recorded, and
   differentiable again, under create_graph). */
struct ActBackward : public ActNode {
    std::string name() const override { return "gpuact::ActBackward"; }
    variable_list apply(variable_list &&grads) override {
        if (!grads[0].defined() || !task_should_compute_output(0)) return {Tensor()};
        Tensor s = saved.unpack(shared_from_this());
        Tensor dy = with_strides(grads[0], stride);
        if (from_mask) return {act_bwd_op().call(dy, c10::nullopt, s, kind, params)};
        return {act_bwd_op().call(dy, with_strides(s, stride), c10::nullopt, kind, params)};
    }
};

/* act_bwd's backward (double backward): dx = select(region, dy, dy * slope or 0) is linear in dy, and its
   derivative in x is zero almost everywhere for the kinds with a mask (piecewise linear); the smooth
   kinds' second derivative is not supported. */
struct ActBwdBackward : public ActNode {
    std::string name() const override { return "gpuact::ActBwdBackward"; }
    variable_list apply(variable_list &&grads) override {
        if (!has_mask(kind))
            fail(GPUACT_ERROR_NOT_SUPPORTED,
                 std::string("gpuact.torch: double backward of ") + kind_name(kind, "?") + " is not supported");
        if (!grads[0].defined() || !task_should_compute_output(0)) return {Tensor(), Tensor()};
        Tensor s = saved.unpack(shared_from_this());
        Tensor g = with_strides(grads[0], stride);
        Tensor gdy = from_mask ? act_bwd_op().call(g, c10::nullopt, s, kind, params)
                               : act_bwd_op().call(g, s, c10::nullopt, kind, params);
        return {gdy, Tensor()};
    }
};

/* (y, mask) with y's history: the node keeps the mask (with_mask) or x, never y. */
std::tuple<Tensor, Tensor> act_fwd_tracked(const Tensor &x, int64_t kind, ArrayRef<double> params, bool with_mask) {
    auto out = below_autograd(act_fwd_op(), x, kind, params, with_mask);
    const Tensor &y = std::get<0>(out);
    auto node = new_node<ActBackward>();
    node->set_next_edges(torch::autograd::collect_next_edges(x));
    node->saved = SavedVariable(with_mask ? std::get<1>(out) : x, false);
    node->kind = kind;
    node->params.assign(params.begin(), params.end());
    node->from_mask = with_mask;
    node->stride.assign(y.sym_strides().begin(), y.sym_strides().end());
    torch::autograd::set_history(y, node);
    return out;
}

bool grad_for(const Tensor &t) { return at::GradMode::is_enabled() && t.requires_grad(); }

/* act: the elementwise forward with autograd; the mask is made only when a backward will read it. */
Tensor act_autograd(const Tensor &x, int64_t kind, ArrayRef<double> params) {
    if (grad_for(x)) return std::get<0>(act_fwd_tracked(x, kind, params, has_mask(kind)));
    return below_autograd(act_op(), x, kind, params);
}

using ActInplaceSig = void(const Tensor &, int64_t, ArrayRef<double>);
GPUACT_OP_HANDLE(act_inplace_op, ActInplaceSig, "gpuact::act_inplace")

/* act_inplace: x's new value gets a node that keeps the mask or a copy of x's old value, as torch's in-place
   activations do, so its gradient is the out-of-place one's bit for bit (a copy_ of an out-of-place result
   added copy_'s zero gradient for the old value, which turned a -0 gradient into +0). */
void act_inplace_autograd(const Tensor &x, int64_t kind, ArrayRef<double> params) {
    if (!grad_for(x)) {
        below_autograd(act_inplace_op(), x, kind, params);
        torch::autograd::increment_version(x);
        return;
    }
    torch::autograd::check_inplace(x, true);
    auto node = new_node<ActBackward>();
    node->set_next_edges(torch::autograd::collect_next_edges(x));
    Tensor keep;
    if (has_mask(kind)) {
        auto out = below_autograd(act_fwd_op(), x, kind, params, true);
        {
            at::AutoDispatchBelowADInplaceOrView below;
            x.copy_(std::get<0>(out));
        }
        keep = std::get<1>(out);
    } else {
        {
            at::AutoDispatchBelowADInplaceOrView below;
            keep = x.clone();
        }
        below_autograd(act_inplace_op(), x, kind, params);
    }
    node->saved = SavedVariable(keep, false);
    node->kind = kind;
    node->params.assign(params.begin(), params.end());
    node->from_mask = has_mask(kind);
    node->stride.assign(x.sym_strides().begin(), x.sym_strides().end());
    torch::autograd::increment_version(x);
    torch::autograd::rebase_history(x, node);
}

std::tuple<Tensor, Tensor> act_fwd_autograd(const Tensor &x, int64_t kind, ArrayRef<double> params, bool with_mask) {
    if (grad_for(x)) return act_fwd_tracked(x, kind, params, with_mask);
    return below_autograd(act_fwd_op(), x, kind, params, with_mask);
}

Tensor act_bwd_autograd(const Tensor &dy, const c10::optional<Tensor> &x, const c10::optional<Tensor> &mask,
                        int64_t kind, ArrayRef<double> params) {
    bool from_mask = mask.has_value() && mask->defined();
    Tensor dx = below_autograd(act_bwd_op(), dy, x, mask, kind, params);
    bool x_grad = x.has_value() && x->defined() && x->requires_grad();
    if (!(at::GradMode::is_enabled() && (dy.requires_grad() || x_grad))) return dx;
    auto node = new_node<ActBwdBackward>();
    node->set_next_edges(torch::autograd::collect_next_edges(dy, x));
    node->saved = SavedVariable(from_mask ? *mask : *x, false);
    node->kind = kind;
    node->params.assign(params.begin(), params.end());
    node->from_mask = from_mask;
    node->stride.assign(dx.sym_strides().begin(), dx.sym_strides().end());
    torch::autograd::set_history(dx, node);
    return dx;
}

/* ---- >>autograd of the epilogue ------------------------------------------------------------------ */

using BiasActSig = Tensor(const Tensor &, const c10::optional<Tensor> &, int64_t, ArrayRef<double>, double,
                          c10::optional<c10::ScalarType>, bool);
using BiasActFwdSig = std::tuple<Tensor, Tensor>(const Tensor &, const c10::optional<Tensor> &, int64_t,
                                                 ArrayRef<double>, double, c10::optional<c10::ScalarType>, bool, bool);
using BiasActBwdSig = std::tuple<Tensor, Tensor>(const Tensor &, const Tensor &, int64_t, ArrayRef<double>, double,
                                                 c10::ScalarType, c10::optional<c10::ScalarType>);
using BiasActBwdXSig = std::tuple<Tensor, Tensor>(const Tensor &, const Tensor &, const c10::optional<Tensor> &,
                                                  int64_t, ArrayRef<double>, double, c10::optional<c10::ScalarType>,
                                                  bool);
GPUACT_OP_HANDLE(bias_act_op, BiasActSig, "gpuact::bias_act")
GPUACT_OP_HANDLE(bias_act_fwd_op, BiasActFwdSig, "gpuact::bias_act_fwd")
GPUACT_OP_HANDLE(bias_act_bwd_op, BiasActBwdSig, "gpuact::bias_act_bwd")
GPUACT_OP_HANDLE(bias_act_bwd_x_op, BiasActBwdXSig, "gpuact::bias_act_bwd_x")
GPUACT_OP_HANDLE(bias_act_bwd_x_traced_op, BiasActBwdXSig, "gpuact::bias_act_bwd_x_traced")

/* What the backward of an epilogue forward on (x, bias) knows of it (bias_act's, the few-bit codes'). */
struct EpilogueNode : public Node {
    int64_t kind = 0;
    Params params;
    double scale = 1.0;
    c10::ScalarType x_dtype = at::kFloat;
    c10::optional<c10::ScalarType> bias_dtype;  /* the bias's, where there is one */
};

/* A node N for an epilogue forward on (x, bias): its edges to both, the activation, scale and dtypes. */
template <class N>
std::shared_ptr<N> epilogue_node(const Tensor &x, const c10::optional<Tensor> &bias, int64_t kind,
                                 ArrayRef<double> params, double scale) {
    auto node = new_node<N>();
    node->set_next_edges(torch::autograd::collect_next_edges(x, bias));
    node->kind = kind;
    node->params.assign(params.begin(), params.end());
    node->scale = scale;
    node->x_dtype = x.scalar_type();
    if (opt(bias).defined()) node->bias_dtype = bias->scalar_type();
    return node;
}

/* bias_act's backward: dx and the bias gradient in one pass, from the mask (the ReLU family, hardtanh) or
   from x and the bias (the smooth kinds); the bias gradient is accumulated in float32 and returned in the
   bias's own dtype. Not differentiable again. */
struct BiasActBackward : public EpilogueNode {
    SavedVariable saved;  /* the mask, or x */
    SavedVariable bias;   /* the smooth kinds' bias */
    bool with_mask = false, from_x = false, bias_in_x_dtype = false;
    std::string name() const override { return "gpuact::BiasActBackward"; }
    void release_variables() override {
        saved.reset_data();
        bias.reset_data();
    }
    variable_list apply(variable_list &&grads) override {
        if (!grads[0].defined()) return {Tensor(), Tensor()};
        bool need_dx = task_should_compute_output(0);
        bool need_dbias = bias_dtype.has_value() && task_should_compute_output(1);
        c10::optional<c10::ScalarType> dbias_dtype = need_dbias ? bias_dtype : c10::nullopt;
        std::tuple<Tensor, Tensor> out;
        if (from_x) {
            Tensor b = bias.unpack(shared_from_this());
            /* a tensor with the Python key (torch.compile's tracing, above all) goes through
               bias_act_bwd_x_traced, whose Python kernel may write dx over dy */
            const auto &op = grads[0].key_set().has(c10::DispatchKey::Python) ? bias_act_bwd_x_traced_op()
                                                                               : bias_act_bwd_x_op();
            out = op.call(grads[0], saved.unpack(shared_from_this()),
                                           b.defined() ? c10::optional<Tensor>(b) : c10::nullopt, kind, params, scale,
                                           dbias_dtype, bias_in_x_dtype);
        } else {
            if (!with_mask)
                refuse("bias_act", std::string(kind_name(kind)) +
                                       "'s backward needs the forward's mask, and the forward was called with "
                                       "with_mask=False");
            out = bias_act_bwd_op().call(grads[0], saved.unpack(shared_from_this()), kind, params, scale, x_dtype,
                                         dbias_dtype);
        }
        return {need_dx ? std::get<0>(out) : Tensor(), need_dbias ? std::get<1>(out) : Tensor()};
    }
};

bool grad_for(const Tensor &x, const c10::optional<Tensor> &b) {
    return at::GradMode::is_enabled() && (x.requires_grad() || (b.has_value() && b->defined() && b->requires_grad()));
}

std::tuple<Tensor, Tensor> bias_act_tracked(const Tensor &x, const c10::optional<Tensor> &bias, int64_t kind,
                                            ArrayRef<double> params, double scale,
                                            c10::optional<c10::ScalarType> out_dtype, bool with_mask,
                                            bool bias_in_x_dtype) {
    auto out = below_autograd(bias_act_fwd_op(), x, bias, kind, params, scale, out_dtype, with_mask, bias_in_x_dtype);
    auto node = epilogue_node<BiasActBackward>(x, bias, kind, params, scale);
    node->with_mask = with_mask;
    node->from_x = !has_mask(kind);
    node->bias_in_x_dtype = bias_in_x_dtype;
    if (node->from_x) {
        node->saved = SavedVariable(x, false);
        node->bias = SavedVariable(bias, false);
    } else {
        node->saved = SavedVariable(std::get<1>(out), false);
    }
    torch::autograd::set_history(std::get<0>(out), node);
    return out;
}

Tensor bias_act_autograd(const Tensor &x, const c10::optional<Tensor> &bias, int64_t kind, ArrayRef<double> params,
                         double scale, c10::optional<c10::ScalarType> out_dtype, bool bias_in_x_dtype) {
    if (grad_for(x, bias))
        return std::get<0>(bias_act_tracked(x, bias, kind, params, scale, out_dtype, has_mask(kind), bias_in_x_dtype));
    return below_autograd(bias_act_op(), x, bias, kind, params, scale, out_dtype, bias_in_x_dtype);
}

std::tuple<Tensor, Tensor> bias_act_fwd_autograd(const Tensor &x, const c10::optional<Tensor> &bias, int64_t kind,
                                                 ArrayRef<double> params, double scale,
                                                 c10::optional<c10::ScalarType> out_dtype, bool with_mask,
                                                 bool bias_in_x_dtype) {
    if (grad_for(x, bias))
        return bias_act_tracked(x, bias, kind, params, scale, out_dtype, with_mask, bias_in_x_dtype);
    return below_autograd(bias_act_fwd_op(), x, bias, kind, params, scale, out_dtype, with_mask, bias_in_x_dtype);
}

/* ---- >>autograd of the gated forms -------------------------------------------------------------- */

using GluFwdSig = Tensor(const Tensor &, const c10::optional<Tensor> &, const c10::optional<Tensor> &,
                         const c10::optional<Tensor> &, int64_t);
using GluBwdSig = std::tuple<Tensor, Tensor, Tensor, Tensor>(const Tensor &, const Tensor &,
                                                             const c10::optional<Tensor> &,
                                                             const c10::optional<Tensor> &,
                                                             const c10::optional<Tensor> &, int64_t,
                                                             c10::optional<c10::ScalarType>);
GPUACT_OP_HANDLE(glu_fwd_op, GluFwdSig, "gpuact::glu_fwd")
GPUACT_OP_HANDLE(glu_bwd_op, GluBwdSig, "gpuact::glu_bwd")

/* The gated forms' backward: keeps the forward's inputs only (a, b, the biases; never y or act(a)); one
   gpuact_glu_backward pass gives da and db (the fused form: dh) and both bias gradients, accumulated in
   float32 and returned in each bias's own dtype. Not differentiable again. */
struct GluBackward : public Node {
    SavedVariable a, b, bias_a, bias_b;
    int64_t kind = 0;
    c10::optional<c10::ScalarType> dtype_a, dtype_b;  /* the biases' */
    std::string name() const override { return "gpuact::GluBackward"; }
    void release_variables() override {
        a.reset_data();
        b.reset_data();
        bias_a.reset_data();
        bias_b.reset_data();
    }
    variable_list apply(variable_list &&grads) override {
        if (!grads[0].defined()) return {Tensor(), Tensor(), Tensor(), Tensor()};
        auto self = shared_from_this();
        Tensor ta = a.unpack(self), tb = b.unpack(self), ba = bias_a.unpack(self), bb = bias_b.unpack(self);
        bool need[4];
        for (size_t i = 0; i < 4; i++) need[i] = task_should_compute_output(i);
        bool want_dbias = (ba.defined() && need[2]) || (bb.defined() && need[3]);
        c10::optional<c10::ScalarType> dbias_dtype;
        if (want_dbias) {
            if (dtype_a && dtype_b && *dtype_a != *dtype_b)
                dbias_dtype = at::kFloat;
            else
                dbias_dtype = dtype_a ? dtype_a : dtype_b;
        }
        auto out = glu_bwd_op().call(grads[0], ta, opt(tb), opt(ba), opt(bb), kind, dbias_dtype);
        Tensor first = std::get<0>(out), second = std::get<1>(out), dba = std::get<2>(out), dbb = std::get<3>(out);
        if (!want_dbias) dba = dbb = Tensor();
        if (!tb.defined()) return {need[0] ? first : Tensor(), Tensor(), dba, Tensor()};  /* fused: dh, dbias */
        if (dba.defined()) {
            if (dba.scalar_type() != *dtype_a) dba = dba.to(*dtype_a);
            if (dbb.scalar_type() != *dtype_b) dbb = dbb.to(*dtype_b);
        }
        return {need[0] ? first : Tensor(), need[1] ? second : Tensor(), need[2] ? dba : Tensor(),
                need[3] ? dbb : Tensor()};
    }
};

bool any_grad(std::initializer_list<const Tensor *> ts) {
    if (!at::GradMode::is_enabled()) return false;
    for (auto t : ts)
        if (t->defined() && t->requires_grad()) return true;
    return false;
}

Tensor glu_fwd_autograd(const Tensor &a, const c10::optional<Tensor> &b, const c10::optional<Tensor> &bias_a,
                        const c10::optional<Tensor> &bias_b, int64_t kind) {
    Tensor y = below_autograd(glu_fwd_op(), a, b, bias_a, bias_b, kind);
    if (!any_grad({&a, &opt(b), &opt(bias_a), &opt(bias_b)})) return y;
    auto node = new_node<GluBackward>();
    node->set_next_edges(torch::autograd::collect_next_edges(a, b, bias_a, bias_b));
    node->a = SavedVariable(a, false);
    node->b = SavedVariable(b, false);
    node->bias_a = SavedVariable(bias_a, false);
    node->bias_b = SavedVariable(bias_b, false);
    node->kind = kind;
    if (opt(bias_a).defined()) node->dtype_a = bias_a->scalar_type();
    if (opt(bias_b).defined()) node->dtype_b = bias_b->scalar_type();
    torch::autograd::set_history(y, node);
    return y;
}

/* ---- >>autograd of the few-bit codes ------------------------------------------------------------ */

using FewbitFwdSig = std::tuple<Tensor, Tensor>(const Tensor &, const c10::optional<Tensor> &, int64_t,
                                                ArrayRef<double>, double, c10::optional<c10::ScalarType>, int64_t,
                                                bool);
using FewbitBwdSig = std::tuple<Tensor, Tensor>(const Tensor &, const Tensor &, int64_t, ArrayRef<double>, int64_t,
                                                double, c10::ScalarType, c10::optional<c10::ScalarType>);
GPUACT_OP_HANDLE(fewbit_fwd_op, FewbitFwdSig, "gpuact::fewbit_fwd")
GPUACT_OP_HANDLE(fewbit_bwd_op, FewbitBwdSig, "gpuact::fewbit_bwd")

/* fewbit_fwd's backward: keeps only the codes; the bias gradient in the bias's dtype. */
struct FewbitBackward : public EpilogueNode {
    SavedVariable codes;
    int64_t bits = 1;
    std::string name() const override { return "gpuact::FewbitBackward"; }
    void release_variables() override { codes.reset_data(); }
    variable_list apply(variable_list &&grads) override {
        if (!grads[0].defined()) return {Tensor(), Tensor()};
        auto out = fewbit_bwd_op().call(grads[0], codes.unpack(shared_from_this()), kind, params, bits, scale, x_dtype,
                                        bias_dtype);
        return {std::get<0>(out), bias_dtype ? std::get<1>(out) : Tensor()};
    }
};

std::tuple<Tensor, Tensor> fewbit_fwd_autograd(const Tensor &x, const c10::optional<Tensor> &bias, int64_t kind,
                                               ArrayRef<double> params, double scale,
                                               c10::optional<c10::ScalarType> out_dtype, int64_t bits,
                                               bool bias_in_x_dtype) {
    auto out = below_autograd(fewbit_fwd_op(), x, bias, kind, params, scale, out_dtype, bits, bias_in_x_dtype);
    if (!grad_for(x, bias)) return out;
    auto node = epilogue_node<FewbitBackward>(x, bias, kind, params, scale);
    node->codes = SavedVariable(std::get<1>(out), false);
    node->bits = bits;
    torch::autograd::set_history(std::get<0>(out), node);
    return out;
}

/* ---- >>configuration -------------------------------------------------------------------- */

void set_backend(int64_t b) { backend = (gpuact_backend)b; }

/* Turns mock launches on or off and returns the records made since the last call (10 numbers each:
   record()), clearing them. */
std::vector<int64_t> testing_mock(bool on) {
    mock.store(on);
    std::lock_guard<std::mutex> hold(mock_lock);
    std::vector<int64_t> out;
    out.swap(mock_calls);
    return out;
}

/* Destroys the contexts (at exit, after torch's queued work is done: gpuact/torch/__init__.py). */
void shutdown() {
    std::lock_guard<std::mutex> hold(context_lock);
    for (auto &slot : contexts) {
        gpuact_context_destroy(slot.load());
        slot.store(nullptr);
    }
}

}  // namespace

TORCH_LIBRARY(gpuact, m) {
    m.def("act(Tensor x, int kind, float[] params) -> Tensor y");
    m.def("act_fwd(Tensor x, int kind, float[] params, bool with_mask) -> (Tensor y, Tensor mask)");
    m.def("act_bwd(Tensor dy, Tensor? x, Tensor? mask, int kind, float[] params) -> Tensor dx");
    m.def("act_inplace(Tensor(a!) x, int kind, float[] params) -> ()");
    m.def("act_into(Tensor x, Tensor(a!) y, int kind, float[] params) -> ()");
    m.def("bias_act(Tensor x, Tensor? bias, int kind, float[] params, float scale, ScalarType? out_dtype, "
          "bool bias_in_x_dtype=False) -> Tensor y");
    m.def("bias_act_fwd(Tensor x, Tensor? bias, int kind, float[] params, float scale, ScalarType? out_dtype, "
          "bool with_mask, bool bias_in_x_dtype=False) -> (Tensor y, Tensor mask)");
    m.def("bias_act_bwd(Tensor dy, Tensor mask, int kind, float[] params, float scale, ScalarType dx_dtype, "
          "ScalarType? dbias_dtype) -> (Tensor dx, Tensor dbias)");
    m.def("bias_act_bwd_x(Tensor dy, Tensor x, Tensor? bias, int kind, float[] params, float scale, "
          "ScalarType? dbias_dtype, bool bias_in_x_dtype=False) -> (Tensor dx, Tensor dbias)");
    m.def("bias_act_bwd_x_(Tensor(a!) dy, Tensor x, Tensor? bias, int kind, float[] params, float scale, "
          "ScalarType? dbias_dtype, bool bias_in_x_dtype=False) -> Tensor dbias");
    m.def("bias_act_bwd_x_traced(Tensor dy, Tensor x, Tensor? bias, int kind, float[] params, float scale, "
          "ScalarType? dbias_dtype, bool bias_in_x_dtype=False) -> (Tensor dx, Tensor dbias)");
    m.def("glu_fwd(Tensor a, Tensor? b, Tensor? bias_a, Tensor? bias_b, int kind) -> Tensor y");
    m.def("glu_bwd(Tensor dy, Tensor a, Tensor? b, Tensor? bias_a, Tensor? bias_b, int kind, "
          "ScalarType? dbias_dtype) -> (Tensor da, Tensor db, Tensor dbias_a, Tensor dbias_b)");
    m.def("fewbit_fwd(Tensor x, Tensor? bias, int kind, float[] params, float scale, ScalarType? out_dtype, "
          "int bits, bool bias_in_x_dtype) -> (Tensor y, Tensor codes)");
    m.def("fewbit_bwd(Tensor dy, Tensor codes, int kind, float[] params, int bits, float scale, "
          "ScalarType dx_dtype, ScalarType? dbias_dtype) -> (Tensor dx, Tensor dbias)");
    m.def("_raise(int result, str what, str detail) -> ()");
    m.def("_set_backend(int backend) -> ()", &set_backend);
    m.def("_testing_mock(bool on) -> int[]", &testing_mock);
    m.def("_shutdown() -> ()", &shutdown);
}

/* CPU: refused by check() (CUDA tensors only), unless gpuact::_testing_mock is on. */
#define GPUACT_TORCH_KERNELS(m)                  \
    m.impl("act", &act);                         \
    m.impl("act_fwd", &act_fwd);                 \
    m.impl("act_bwd", &act_bwd);                 \
    m.impl("act_inplace", &act_inplace);         \
    m.impl("act_into", &act_into);               \
    m.impl("bias_act", &bias_act);               \
    m.impl("bias_act_fwd", &bias_act_fwd);       \
    m.impl("bias_act_bwd", &bias_act_bwd);       \
    m.impl("bias_act_bwd_x", &bias_act_bwd_x);   \
    m.impl("bias_act_bwd_x_", &bias_act_bwd_x_); \
    m.impl("glu_fwd", &glu_fwd);                 \
    m.impl("glu_bwd", &glu_bwd);                 \
    m.impl("fewbit_fwd", &fewbit_fwd);           \
    m.impl("fewbit_bwd", &fewbit_bwd);

TORCH_LIBRARY_IMPL(gpuact, CUDA, m) { GPUACT_TORCH_KERNELS(m) }
TORCH_LIBRARY_IMPL(gpuact, CPU, m) { GPUACT_TORCH_KERNELS(m) }

TORCH_LIBRARY_IMPL(gpuact, Autograd, m) {
    m.impl("act", &act_autograd);
    m.impl("act_fwd", &act_fwd_autograd);
    m.impl("act_bwd", &act_bwd_autograd);
    m.impl("act_inplace", &act_inplace_autograd);
    m.impl("act_into", torch::autograd::autogradNotImplementedFallback());
    m.impl("bias_act", &bias_act_autograd);
    m.impl("bias_act_fwd", &bias_act_fwd_autograd);
    m.impl("bias_act_bwd", torch::autograd::autogradNotImplementedFallback());
    m.impl("bias_act_bwd_x", torch::autograd::autogradNotImplementedFallback());
    m.impl("bias_act_bwd_x_", torch::autograd::autogradNotImplementedFallback());
    m.impl("glu_fwd", &glu_fwd_autograd);
    m.impl("glu_bwd", torch::autograd::autogradNotImplementedFallback());
    m.impl("fewbit_fwd", &fewbit_fwd_autograd);
    m.impl("fewbit_bwd", torch::autograd::autogradNotImplementedFallback());
}

/* The in-place ops bump their outputs' version counters (autograd sees the writes). */
TORCH_LIBRARY_IMPL(gpuact, ADInplaceOrView, m) {
    m.impl("act_inplace", torch::autograd::autogradNotImplementedInplaceOrViewFallback());
    m.impl("act_into", torch::autograd::autogradNotImplementedInplaceOrViewFallback());
    m.impl("bias_act_bwd_x_", torch::autograd::autogradNotImplementedInplaceOrViewFallback());
}

/* ---- >>Python entry ------------------------------------------------------------------------ */

/* kind (an int) and params (a list of at most 8 floats, checked by the caller) into kind, p and np;
   false with the Python error set where a conversion failed. */
static bool kind_params(PyObject *k, PyObject *list, int64_t &kind, double (&p)[8], Py_ssize_t &np) {
    kind = PyLong_AsLongLong(k);
    if (kind == -1 && PyErr_Occurred()) return false;
    np = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < np; i++) {
        p[i] = PyFloat_AsDouble(PyList_GET_ITEM(list, i));
        if (p[i] == -1.0 && PyErr_Occurred()) return false;
    }
    return true;
}

/* A strong reference to t taken here, with the GIL held, when the call will copy t with the GIL released
   (autograd saves its input or makes its AccumulateGrad; torch's own ops copy theirs): in torch 2.11 the
   first C++ reference to a tensor that Python owns takes the GIL (PyObject preservation), and would take
   it back from inside the call. Otherwise nothing: the kernels borrow their arguments. */
static Tensor hold_if(bool copied, const Tensor &t) { return copied ? t : Tensor(); }

/* act(x, kind, params) -> y: gpuact::act called from Python through the dispatcher's unboxed entry,
   without the generic argument handling of torch.ops (what torch's own functions do). Only for a plain
   tensor with no __torch_function__ mode active and params a list of floats; anything else returns
   NotImplemented and the caller takes torch.ops.gpuact.act. */
static PyObject *py_act(PyObject *, PyObject *const *a, Py_ssize_t na) {
    HANDLE_TH_ERRORS
    if (na != 3 || !THPVariable_CheckExact(a[0]) || !PyList_Check(a[2]) || PyList_GET_SIZE(a[2]) > 8 ||
        at::impl::torch_function_mode_enabled())
        Py_RETURN_NOTIMPLEMENTED;
    const Tensor &x = THPVariable_Unpack(a[0]);
    Tensor held = hold_if(grad_for(x), x);
    int64_t kind;
    double p[8];
    Py_ssize_t np;
    if (!kind_params(a[1], a[2], kind, p, np)) return nullptr;
    Tensor y;
    {
        pybind11::gil_scoped_release no_gil;
        y = act_op().call(x, kind, ArrayRef<double>(p, (size_t)np));
    }
    return THPVariable_Wrap(std::move(y));
    END_HANDLE_TH_ERRORS
}

/* None or a tensor; false for anything else. */
static bool optional_tensor(PyObject *o, c10::optional<Tensor> &out) {
    if (o == Py_None) return true;
    if (!THPVariable_CheckExact(o)) return false;
    out = THPVariable_Unpack(o);
    return true;
}

/* bias_act(x, bias, kind, params, scale, out_dtype, bias_in_x_dtype) -> y: gpuact::bias_act, as act(). */
static PyObject *py_bias_act(PyObject *, PyObject *const *a, Py_ssize_t na) {
    HANDLE_TH_ERRORS
    c10::optional<Tensor> bias;
    if (na != 7 || !THPVariable_CheckExact(a[0]) || !optional_tensor(a[1], bias) || !PyList_Check(a[3]) ||
        PyList_GET_SIZE(a[3]) > 8 || !PyFloat_Check(a[4]) || !(a[5] == Py_None || THPDtype_Check(a[5])) ||
        at::impl::torch_function_mode_enabled())
        Py_RETURN_NOTIMPLEMENTED;
    const Tensor &x = THPVariable_Unpack(a[0]);
    Tensor held = hold_if(grad_for(x, bias), x);
    int64_t kind;
    double p[8];
    Py_ssize_t np;
    if (!kind_params(a[2], a[3], kind, p, np)) return nullptr;
    double scale = PyFloat_AS_DOUBLE(a[4]);
    c10::optional<c10::ScalarType> out_dtype;
    if (a[5] != Py_None) out_dtype = ((THPDtype *)a[5])->scalar_type;
    bool bias_in_x_dtype = a[6] == Py_True;
    Tensor y;
    {
        pybind11::gil_scoped_release no_gil;
        y = bias_act_op().call(x, bias, kind, ArrayRef<double>(p, (size_t)np), scale, out_dtype, bias_in_x_dtype);
    }
    return THPVariable_Wrap(std::move(y));
    END_HANDLE_TH_ERRORS
}

/* glu(a, b, bias_a, bias_b, kind) -> y: gpuact::glu_fwd, as act(). */
static PyObject *py_glu(PyObject *, PyObject *const *a, Py_ssize_t na) {
    HANDLE_TH_ERRORS
    c10::optional<Tensor> b, bias_a, bias_b;
    if (na != 5 || !THPVariable_CheckExact(a[0]) || !optional_tensor(a[1], b) || !optional_tensor(a[2], bias_a) ||
        !optional_tensor(a[3], bias_b) || at::impl::torch_function_mode_enabled())
        Py_RETURN_NOTIMPLEMENTED;
    const Tensor &x = THPVariable_Unpack(a[0]);
    Tensor held = hold_if(any_grad({&x, &opt(b), &opt(bias_a), &opt(bias_b)}), x);
    int64_t kind = PyLong_AsLongLong(a[4]);
    if (kind == -1 && PyErr_Occurred()) return nullptr;
    Tensor y;
    {
        pybind11::gil_scoped_release no_gil;
        y = glu_fwd_op().call(x, b, bias_a, bias_b, kind);
    }
    return THPVariable_Wrap(std::move(y));
    END_HANDLE_TH_ERRORS
}

/* linear_act(x, weight, bias, kind, params, scale) -> y = act(x @ weight.T + bias) * scale: nn.Linear's
   forward (torch's linear without the bias, then gpuact::bias_act) in one call from Python. NotImplemented
   as for act(), and under CUDA autocast (the Python layer casts the inputs). */
static PyObject *py_linear_act(PyObject *, PyObject *const *a, Py_ssize_t na) {
    HANDLE_TH_ERRORS
    c10::optional<Tensor> bias;
    if (na != 6 || !THPVariable_CheckExact(a[0]) || !THPVariable_CheckExact(a[1]) || !optional_tensor(a[2], bias) ||
        !PyList_Check(a[4]) || PyList_GET_SIZE(a[4]) > 8 || !PyFloat_Check(a[5]) ||
        at::impl::torch_function_mode_enabled() ||
        !c10::impl::tls_is_dispatch_key_excluded(c10::DispatchKey::AutocastCUDA))
        Py_RETURN_NOTIMPLEMENTED;
    const Tensor &x = THPVariable_Unpack(a[0]), &weight = THPVariable_Unpack(a[1]);
    Tensor held_x = hold_if(true, x), held_weight = hold_if(true, weight);  /* torch's linear copies them */
    int64_t kind;
    double p[8];
    Py_ssize_t np;
    if (!kind_params(a[3], a[4], kind, p, np)) return nullptr;
    double scale = PyFloat_AS_DOUBLE(a[5]);
    Tensor y;
    {
        pybind11::gil_scoped_release no_gil;
        y = bias_act_op().call(at::linear(x, weight), bias, kind, ArrayRef<double>(p, (size_t)np), scale,
                               c10::nullopt, false);
    }
    return THPVariable_Wrap(std::move(y));
    END_HANDLE_TH_ERRORS
}

static PyMethodDef methods[] = {
    {"act", (PyCFunction)(void (*)(void))py_act, METH_FASTCALL, "act(x, kind, params) -> y (gpuact::act)"},
    {"bias_act", (PyCFunction)(void (*)(void))py_bias_act, METH_FASTCALL,
     "bias_act(x, bias, kind, params, scale, out_dtype, bias_in_x_dtype) -> y (gpuact::bias_act)"},
    {"glu", (PyCFunction)(void (*)(void))py_glu, METH_FASTCALL,
     "glu(a, b, bias_a, bias_b, kind) -> y (gpuact::glu_fwd)"},
    {"linear_act", (PyCFunction)(void (*)(void))py_linear_act, METH_FASTCALL,
     "linear_act(x, weight, bias, kind, params, scale) -> y (torch's linear, then gpuact::bias_act)"},
    {nullptr, nullptr, 0, nullptr}};

/* Importing the module registers the operators (the static initialisers above). */
extern "C" PyObject *PyInit__ext(void) {
    static PyModuleDef def = {PyModuleDef_HEAD_INIT, "gpuact.torch._ext",
                              "gpuact's operators for PyTorch (torch.ops.gpuact)", -1, methods, nullptr, nullptr,
                              nullptr, nullptr};
    return PyModule_Create(&def);
}
