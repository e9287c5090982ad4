/* gpuact._C: the CPython extension of the gpuact Python package.

   It compiles gpuact.h (GPUACT_IMPLEMENTATION) into the module, so the
   vendor libraries stay dlopen'ed and one build runs on any machine. It is
   written against the limited API (abi3, Python >= 3.10: METH_FASTCALL is
   in the limited API from 3.10 on), so one wheel serves every later CPython.

   What it exports (the Python layers in gpuact/ build on it):
     - the tables of kernels/contract.h and the public enums: DTYPES,
       KINDS (every row of GPUACT_ACTIVATIONS with its columns), ACT_PARAMS
       (the float fields of gpuact_activation after kind), BACKENDS,
       RESULTS, VERSION;
     - the operations, taking raw handles: a buffer is None (absent), an
       int (device pointer or cl_mem, offset 0) or a tuple (handle, byte
       offset); a stream is an int (0: the context's stream); an activation
       is a tuple (kind, negative_slope, ceiling, ...) in the order of
       ACT_PARAMS (missing trailing fields are 0);
     - one gpuact context per (backend, device), created on first use under
       a lock and destroyed by _shutdown() (gpuact/__init__.py registers it
       with atexit);
     - errors: a failed call raises the class registered for its
       gpuact_result (gpuact.InvalidArgument, ...) with gpuact_last_error()'s
       whole text.

   The operations are asynchronous enqueues; by default the GIL is released
   around each gpuact call (set_release_gil(False) keeps it: the benchmark
   measures both), and always around context creation, which loads vendor
   libraries and may take a while. */
#define PY_SSIZE_T_CLEAN
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030A0000
#endif
#include <Python.h>

#define GPUACT_IMPLEMENTATION
#define GPUACT_DEF static
#include "gpuact.h"

#include <time.h>

/* ---- >>tables ------------------------------------------------------------ */

/* The numeric fields of gpuact_activation after `kind`, in declaration order
   (flags: GPUACT_ACT_* bits, passed as a number like the others). When
   gpuact_activation gains a field, add it here (one line); the check below
   stops the build until then. */
#define GPUACT_PY_ACT_FIELDS(X) X(negative_slope) X(ceiling) X(lower) X(flags)

#define GPUACT_PY_FIELD_ONE_(f) +1
#define GPUACT_PY_ACT_NFIELDS (0 GPUACT_PY_ACT_FIELDS(GPUACT_PY_FIELD_ONE_))
#define GPUACT_PY_FIELD_SIZE_(f) +sizeof(((gpuact_activation *)0)->f)
typedef char gpuact_py_act_fields_cover_the_struct
    [sizeof(gpuact_activation) == sizeof(gpuact_activation_kind) GPUACT_PY_ACT_FIELDS(GPUACT_PY_FIELD_SIZE_) ? 1 : -1];

static void gpuact_py_act_set(gpuact_activation *a, int i, float v) {
    int k = 0;
#define GPUACT_PY_FIELD_SET_(f) if (k++ == i) a->f = v; /* flags: a whole number, converted */
    GPUACT_PY_ACT_FIELDS(GPUACT_PY_FIELD_SET_)
}

/* Every row of GPUACT_ACTIVATIONS: its name and its columns as integers,
   whatever their number (the Python side names them: gpuact/_core.py). */
#define GPUACT_PY_KIND_ROW_(name, ...) {#name, {__VA_ARGS__}},
#define GPUACT_PY_KIND_NCOLS_(name, ...) sizeof((int[]){__VA_ARGS__}) / sizeof(int),
typedef struct gpuact_py_kind { const char *name; int cols[16]; } gpuact_py_kind;
static const gpuact_py_kind gpuact_py_kinds[] = {GPUACT_ACTIVATIONS(GPUACT_PY_KIND_ROW_)};
static const size_t gpuact_py_kind_ncols[] = {GPUACT_ACTIVATIONS(GPUACT_PY_KIND_NCOLS_)};

/* ---- >>state -------------------------------------------------------------- */

#define GPUACT_PY_BACKENDS GPUACT_BACKEND_COUNT
#define GPUACT_PY_MAX_DEVICES 64

/* Contexts by [backend][device]. The AUTO row holds aliases of the
   explicit rows' contexts (never destroyed through it). Read without the
   lock (acquire), written under it (release). */
static gpuact_context *gpuact_py_contexts[GPUACT_PY_BACKENDS][GPUACT_PY_MAX_DEVICES];
static pthread_mutex_t gpuact_py_lock = PTHREAD_MUTEX_INITIALIZER;
static int gpuact_py_release_gil = 1;

/* Exception classes by gpuact_result (index 0 unused), set by gpuact/_core.py. */
#define GPUACT_PY_RESULTS GPUACT_RESULT_COUNT
static PyObject *gpuact_py_errors[GPUACT_PY_RESULTS];
static PyObject *gpuact_py_error_base;

/* A str from C text that need not be UTF-8 (dlerror() speaks the locale). */
static PyObject *gpuact_py_str(const char *s) {
    return PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)strlen(s ? s : ""), "replace");
}

static PyObject *gpuact_py_raise(const char *what, gpuact_result r) {
    PyObject *cls = (unsigned)r < GPUACT_PY_RESULTS && gpuact_py_errors[r] ? gpuact_py_errors[r]
                    : gpuact_py_error_base ? gpuact_py_error_base
                                           : PyExc_RuntimeError;
    PyObject *exc = PyObject_CallFunction(cls, "siN", what, (int)r, gpuact_py_str(gpuact_last_error()));
    if (exc) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* A Python-side argument problem, raised as the INVALID_ARGUMENT class. */
static PyObject *gpuact_py_invalid(const char *fmt, ...) {
    char text[512];
    va_list ap;
    PyObject *cls = gpuact_py_errors[GPUACT_ERROR_INVALID_ARGUMENT] ? gpuact_py_errors[GPUACT_ERROR_INVALID_ARGUMENT]
                                                                   : PyExc_ValueError;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    PyErr_SetString(cls, text);
    return NULL;
}

/* ---- >>arguments ------------------------------------------------------------ */

static int gpuact_py_int(PyObject *o, const char *name, int *out) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "gpuact: %s must be an int", name);
        return -1;
    }
    if (v < INT_MIN || v > INT_MAX) {
        gpuact_py_invalid("gpuact: %s = %ld is out of range", name, v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int gpuact_py_size(PyObject *o, const char *name, size_t *out) {
    size_t v = PyLong_AsSize_t(o);
    if (v == (size_t)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "gpuact: %s must be an int >= 0", name);
        return -1;
    }
    *out = v;
    return 0;
}

static int gpuact_py_float(PyObject *o, const char *name, float *out) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "gpuact: %s must be a float", name);
        return -1;
    }
    *out = (float)v;
    return 0;
}

static int gpuact_py_ptr(PyObject *o, const char *name, void **out) {
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    *out = PyLong_AsVoidPtr(o);
    if (!*out && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "gpuact: %s must be an int handle or None", name);
        return -1;
    }
    return 0;
}

/* None, int handle, or (handle, byte offset). */
static int gpuact_py_buffer(PyObject *o, const char *name, gpuact_buffer *b) {
    b->handle = NULL;
    b->offset = 0;
    if (o == Py_None) return 0;
    if (PyLong_Check(o)) return gpuact_py_ptr(o, name, &b->handle);
    if (PyTuple_Check(o) && PyTuple_Size(o) == 2) {
        if (gpuact_py_ptr(PyTuple_GetItem(o, 0), name, &b->handle)) return -1;
        return gpuact_py_size(PyTuple_GetItem(o, 1), name, &b->offset);
    }
    PyErr_Format(PyExc_TypeError, "gpuact: %s must be None, an int handle or a (handle, byte offset) tuple", name);
    return -1;
}

/* (kind, field...) in the order of ACT_PARAMS; missing trailing fields are 0. */
static int gpuact_py_act(PyObject *o, gpuact_activation *a) {
    Py_ssize_t n, i;
    int kind;
    memset(a, 0, sizeof *a);
    if (!PyTuple_Check(o) || (n = PyTuple_Size(o)) < 1) {
        PyErr_SetString(PyExc_TypeError, "gpuact: the activation must be a tuple (kind, negative_slope, ceiling, ...)");
        return -1;
    }
    if (gpuact_py_int(PyTuple_GetItem(o, 0), "activation kind", &kind)) return -1;
    a->kind = (gpuact_activation_kind)kind;
    if (n - 1 > GPUACT_PY_ACT_NFIELDS) {
        gpuact_py_invalid("gpuact: the activation tuple has %d parameters; gpuact_activation has %d",
                          (int)(n - 1), GPUACT_PY_ACT_NFIELDS);
        return -1;
    }
    for (i = 1; i < n; i++) {
        float v;
        if (gpuact_py_float(PyTuple_GetItem(o, i), "an activation parameter", &v)) return -1;
        gpuact_py_act_set(a, (int)i - 1, v);
    }
    return 0;
}

static int gpuact_py_nargs(const char *fn, Py_ssize_t got, Py_ssize_t want) {
    if (got == want) return 0;
    PyErr_Format(PyExc_TypeError, "gpuact._C.%s takes %zd positional arguments (%zd given)", fn, want, got);
    return -1;
}

/* ---- >>contexts ------------------------------------------------------------- */

static gpuact_context *gpuact_py_load(gpuact_context **slot) {
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
#else
    return *slot;
#endif
}
static void gpuact_py_store(gpuact_context **slot, gpuact_context *ctx) {
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(slot, ctx, __ATOMIC_RELEASE);
#else
    *slot = ctx;
#endif
}

/* Creates the context of (backend, device) under the lock; called without
   the GIL. AUTO creates (or finds) the chosen backend's context and aliases it. */
static gpuact_result gpuact_py_create(int backend, int device, gpuact_context **out) {
    gpuact_result r = GPUACT_SUCCESS;
    gpuact_context *ctx;
    pthread_mutex_lock(&gpuact_py_lock);
    ctx = gpuact_py_contexts[backend][device];
    if (!ctx) {
        gpuact_context_desc d;
        memset(&d, 0, sizeof d);
        d.backend = (gpuact_backend)backend;
        d.device = device;
        r = gpuact_context_create(&d, &ctx);
        if (r == GPUACT_SUCCESS && backend == GPUACT_BACKEND_AUTO) {
            int chosen = (int)gpuact_context_backend(ctx);
            if (gpuact_py_contexts[chosen][device]) { /* one context per (backend, device) */
                gpuact_context_destroy(ctx);
                ctx = gpuact_py_contexts[chosen][device];
            } else {
                gpuact_py_store(&gpuact_py_contexts[chosen][device], ctx);
            }
        }
        if (r == GPUACT_SUCCESS) gpuact_py_store(&gpuact_py_contexts[backend][device], ctx);
    }
    pthread_mutex_unlock(&gpuact_py_lock);
    *out = ctx;
    return r;
}

static gpuact_context *gpuact_py_context(PyObject *backend_o, PyObject *device_o) {
    int backend, device;
    gpuact_context *ctx;
    gpuact_result r;
    if (gpuact_py_int(backend_o, "backend", &backend) || gpuact_py_int(device_o, "device", &device)) return NULL;
    if ((unsigned)backend >= GPUACT_PY_BACKENDS) {
        gpuact_py_invalid("gpuact: backend = %d is not one of 0 (auto), 1 (cuda), 2 (hip), 3 (opencl)", backend);
        return NULL;
    }
    if ((unsigned)device >= GPUACT_PY_MAX_DEVICES) {
        gpuact_py_invalid("gpuact: device = %d; the Python package handles device ordinals 0 to %d", device,
                          GPUACT_PY_MAX_DEVICES - 1);
        return NULL;
    }
    ctx = gpuact_py_load(&gpuact_py_contexts[backend][device]);
    if (ctx) return ctx;
    Py_BEGIN_ALLOW_THREADS
    r = gpuact_py_create(backend, device, &ctx);
    Py_END_ALLOW_THREADS
    if (r != GPUACT_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "gpuact: creating the %s context of device %d", gpuact_backend_name((gpuact_backend)backend),
                 device);
        gpuact_py_raise(what, r);
        return NULL;
    }
    return ctx;
}

/* Runs CALL with the GIL released (unless set_release_gil(False)). */
#define GPUACT_PY_CALL(r, call)            \
    do {                                   \
        if (gpuact_py_release_gil) {       \
            Py_BEGIN_ALLOW_THREADS         \
            r = (call);                    \
            Py_END_ALLOW_THREADS           \
        } else {                           \
            r = (call);                    \
        }                                  \
    } while (0)

/* ---- >>operations ------------------------------------------------------------ */

/* forward(backend, device, stream, act, dtype, n, x, y, mask) */
static PyObject *gpuact_py_forward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_forward_desc d;
    gpuact_context *ctx;
    void *s;
    int dt;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("forward", na, 9)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_int(a[4], "dtype", &dt) ||
        gpuact_py_size(a[5], "n", &d.n) || gpuact_py_buffer(a[6], "x", &d.x) || gpuact_py_buffer(a[7], "y", &d.y) ||
        gpuact_py_buffer(a[8], "mask", &d.mask))
        return NULL;
    d.dtype = (gpuact_dtype)dt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_forward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_forward", r);
    Py_RETURN_NONE;
}

/* backward(backend, device, stream, act, dtype, n, dy, dx, x, mask) */
static PyObject *gpuact_py_backward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_backward_desc d;
    gpuact_context *ctx;
    void *s;
    int dt;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("backward", na, 10)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_int(a[4], "dtype", &dt) ||
        gpuact_py_size(a[5], "n", &d.n) || gpuact_py_buffer(a[6], "dy", &d.dy) ||
        gpuact_py_buffer(a[7], "dx", &d.dx) || gpuact_py_buffer(a[8], "x", &d.x) ||
        gpuact_py_buffer(a[9], "mask", &d.mask))
        return NULL;
    d.dtype = (gpuact_dtype)dt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_backward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_backward", r);
    Py_RETURN_NONE;
}

/* epilogue_forward(backend, device, stream, act, rows, cols, x_dtype, y_dtype, bias_dtype,
                    ld_x, ld_y, scale, x, bias, y, mask, mask_ld) */
static PyObject *gpuact_py_epilogue_forward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_epilogue_desc d;
    gpuact_context *ctx;
    void *s;
    int xdt, ydt, bdt;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("epilogue_forward", na, 17)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_size(a[4], "rows", &d.rows) ||
        gpuact_py_size(a[5], "cols", &d.cols) || gpuact_py_int(a[6], "x_dtype", &xdt) ||
        gpuact_py_int(a[7], "y_dtype", &ydt) || gpuact_py_int(a[8], "bias_dtype", &bdt) ||
        gpuact_py_size(a[9], "ld_x", &d.ld_x) || gpuact_py_size(a[10], "ld_y", &d.ld_y) ||
        gpuact_py_float(a[11], "scale", &d.scale) || gpuact_py_buffer(a[12], "x", &d.x) ||
        gpuact_py_buffer(a[13], "bias", &d.bias) || gpuact_py_buffer(a[14], "y", &d.y) ||
        gpuact_py_buffer(a[15], "mask", &d.mask) || gpuact_py_size(a[16], "mask_ld", &d.mask_ld))
        return NULL;
    d.x_dtype = (gpuact_dtype)xdt;
    d.y_dtype = (gpuact_dtype)ydt;
    d.bias_dtype = (gpuact_dtype)bdt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_epilogue_forward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_epilogue_forward", r);
    Py_RETURN_NONE;
}

/* epilogue_backward(backend, device, stream, act, rows, cols, dy_dtype, dx_dtype, y_dtype,
                     dbias_dtype, ld_dy, ld_dx, ld_y, scale, dy, dx, y, mask, mask_ld, dbias
                     [, x, bias, x_dtype, ld_x])
   The last four (the fields appended to gpuact_epilogue_backward_desc) are
   the smooth kinds' source: the forward's input x and its bias (x's dtype);
   20 arguments leave them absent. */
static PyObject *gpuact_py_epilogue_backward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_epilogue_backward_desc d;
    gpuact_context *ctx;
    void *s;
    int dydt, dxdt, ydt, dbdt, xdt = 0;
    gpuact_result r;
    (void)self;
    if (na != 20 && na != 24) {
        PyErr_Format(PyExc_TypeError, "gpuact._C.epilogue_backward takes 20 or 24 positional arguments (%zd given)",
                     na);
        return NULL;
    }
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_size(a[4], "rows", &d.rows) ||
        gpuact_py_size(a[5], "cols", &d.cols) || gpuact_py_int(a[6], "dy_dtype", &dydt) ||
        gpuact_py_int(a[7], "dx_dtype", &dxdt) || gpuact_py_int(a[8], "y_dtype", &ydt) ||
        gpuact_py_int(a[9], "dbias_dtype", &dbdt) || gpuact_py_size(a[10], "ld_dy", &d.ld_dy) ||
        gpuact_py_size(a[11], "ld_dx", &d.ld_dx) || gpuact_py_size(a[12], "ld_y", &d.ld_y) ||
        gpuact_py_float(a[13], "scale", &d.scale) || gpuact_py_buffer(a[14], "dy", &d.dy) ||
        gpuact_py_buffer(a[15], "dx", &d.dx) || gpuact_py_buffer(a[16], "y", &d.y) ||
        gpuact_py_buffer(a[17], "mask", &d.mask) || gpuact_py_size(a[18], "mask_ld", &d.mask_ld) ||
        gpuact_py_buffer(a[19], "dbias", &d.dbias))
        return NULL;
    if (na == 24 && (gpuact_py_buffer(a[20], "x", &d.x) || gpuact_py_buffer(a[21], "bias", &d.bias) ||
                     gpuact_py_int(a[22], "x_dtype", &xdt) || gpuact_py_size(a[23], "ld_x", &d.ld_x)))
        return NULL;
    d.dy_dtype = (gpuact_dtype)dydt;
    d.dx_dtype = (gpuact_dtype)dxdt;
    d.y_dtype = (gpuact_dtype)ydt;
    d.dbias_dtype = (gpuact_dtype)dbdt;
    d.x_dtype = (gpuact_dtype)xdt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_epilogue_backward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_epilogue_backward", r);
    Py_RETURN_NONE;
}

/* ---- >>few-bit codes (GELU, GELU tanh, SiLU; gpuact.h's FEW-BIT CODES) ------ */

/* codes_forward(backend, device, stream, act, rows, cols, x_dtype, y_dtype, ld_x, scale, x, bias, y,
                 codes, code_bits, codes_ld): the epilogue writing y and the codes (bias in x's dtype) */
static PyObject *gpuact_py_codes_forward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_epilogue_desc d;
    gpuact_context *ctx;
    void *s;
    int xdt, ydt;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("codes_forward", na, 16)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_size(a[4], "rows", &d.rows) ||
        gpuact_py_size(a[5], "cols", &d.cols) || gpuact_py_int(a[6], "x_dtype", &xdt) ||
        gpuact_py_int(a[7], "y_dtype", &ydt) || gpuact_py_size(a[8], "ld_x", &d.ld_x) ||
        gpuact_py_float(a[9], "scale", &d.scale) || gpuact_py_buffer(a[10], "x", &d.x) ||
        gpuact_py_buffer(a[11], "bias", &d.bias) || gpuact_py_buffer(a[12], "y", &d.y) ||
        gpuact_py_buffer(a[13], "codes", &d.codes) || gpuact_py_int(a[14], "code_bits", &d.code_bits) ||
        gpuact_py_size(a[15], "codes_ld", &d.codes_ld))
        return NULL;
    d.x_dtype = d.bias_dtype = (gpuact_dtype)xdt;
    d.y_dtype = (gpuact_dtype)ydt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_epilogue_forward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_epilogue_forward", r);
    Py_RETURN_NONE;
}

/* codes_backward(backend, device, stream, act, rows, cols, dy_dtype, dx_dtype, dbias_dtype, scale, dy, dx,
                  codes, code_bits, codes_ld, dbias): dx = (dy * scale) * level[code] (and dbias) */
static PyObject *gpuact_py_codes_backward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_epilogue_backward_desc d;
    gpuact_context *ctx;
    void *s;
    int dydt, dxdt, dbdt;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("codes_backward", na, 16)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_size(a[4], "rows", &d.rows) ||
        gpuact_py_size(a[5], "cols", &d.cols) || gpuact_py_int(a[6], "dy_dtype", &dydt) ||
        gpuact_py_int(a[7], "dx_dtype", &dxdt) || gpuact_py_int(a[8], "dbias_dtype", &dbdt) ||
        gpuact_py_float(a[9], "scale", &d.scale) || gpuact_py_buffer(a[10], "dy", &d.dy) ||
        gpuact_py_buffer(a[11], "dx", &d.dx) || gpuact_py_buffer(a[12], "codes", &d.codes) ||
        gpuact_py_int(a[13], "code_bits", &d.code_bits) || gpuact_py_size(a[14], "codes_ld", &d.codes_ld) ||
        gpuact_py_buffer(a[15], "dbias", &d.dbias))
        return NULL;
    d.dy_dtype = (gpuact_dtype)dydt;
    d.dx_dtype = (gpuact_dtype)dxdt;
    d.dbias_dtype = (gpuact_dtype)dbdt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_epilogue_backward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_epilogue_backward", r);
    Py_RETURN_NONE;
}

/* glu_forward(backend, device, stream, act, rows, cols, x_dtype, y_dtype, ld_a, ld_b, ld_y,
               a, b, y, bias_a, bias_b): y = act(a + bias_a) * (b + bias_b) (gpuact_glu_forward) */
static PyObject *gpuact_py_glu_forward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_glu_desc d;
    gpuact_context *ctx;
    void *s;
    int xdt, ydt;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("glu_forward", na, 16)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_size(a[4], "rows", &d.rows) ||
        gpuact_py_size(a[5], "cols", &d.cols) || gpuact_py_int(a[6], "x_dtype", &xdt) ||
        gpuact_py_int(a[7], "y_dtype", &ydt) || gpuact_py_size(a[8], "ld_a", &d.ld_a) ||
        gpuact_py_size(a[9], "ld_b", &d.ld_b) || gpuact_py_size(a[10], "ld_y", &d.ld_y) ||
        gpuact_py_buffer(a[11], "a", &d.a) || gpuact_py_buffer(a[12], "b", &d.b) ||
        gpuact_py_buffer(a[13], "y", &d.y) || gpuact_py_buffer(a[14], "bias_a", &d.bias_a) ||
        gpuact_py_buffer(a[15], "bias_b", &d.bias_b))
        return NULL;
    d.x_dtype = (gpuact_dtype)xdt;
    d.y_dtype = (gpuact_dtype)ydt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_glu_forward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_glu_forward", r);
    Py_RETURN_NONE;
}

/* glu_backward(backend, device, stream, act, rows, cols, dy_dtype, x_dtype, dbias_dtype,
                ld_dy, ld_a, ld_b, ld_da, ld_db, dy, a, b, bias_a, bias_b, da, db, dbias_a, dbias_b):
   da, db (and both bias gradients) in one pass (gpuact_glu_backward) */
static PyObject *gpuact_py_glu_backward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_glu_backward_desc d;
    gpuact_context *ctx;
    void *s;
    int dydt, xdt, dbdt;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("glu_backward", na, 23)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_size(a[4], "rows", &d.rows) ||
        gpuact_py_size(a[5], "cols", &d.cols) || gpuact_py_int(a[6], "dy_dtype", &dydt) ||
        gpuact_py_int(a[7], "x_dtype", &xdt) || gpuact_py_int(a[8], "dbias_dtype", &dbdt) ||
        gpuact_py_size(a[9], "ld_dy", &d.ld_dy) || gpuact_py_size(a[10], "ld_a", &d.ld_a) ||
        gpuact_py_size(a[11], "ld_b", &d.ld_b) || gpuact_py_size(a[12], "ld_da", &d.ld_da) ||
        gpuact_py_size(a[13], "ld_db", &d.ld_db) || gpuact_py_buffer(a[14], "dy", &d.dy) ||
        gpuact_py_buffer(a[15], "a", &d.a) || gpuact_py_buffer(a[16], "b", &d.b) ||
        gpuact_py_buffer(a[17], "bias_a", &d.bias_a) || gpuact_py_buffer(a[18], "bias_b", &d.bias_b) ||
        gpuact_py_buffer(a[19], "da", &d.da) || gpuact_py_buffer(a[20], "db", &d.db) ||
        gpuact_py_buffer(a[21], "dbias_a", &d.dbias_a) || gpuact_py_buffer(a[22], "dbias_b", &d.dbias_b))
        return NULL;
    d.dy_dtype = (gpuact_dtype)dydt;
    d.x_dtype = (gpuact_dtype)xdt;
    d.dbias_dtype = (gpuact_dtype)dbdt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_glu_backward(ctx, &d, s));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_glu_backward", r);
    Py_RETURN_NONE;
}

/* synchronize(backend, device, stream) */
static PyObject *gpuact_py_synchronize(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context *ctx;
    void *s;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("synchronize", na, 3) || gpuact_py_ptr(a[2], "stream", &s)) return NULL;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    Py_BEGIN_ALLOW_THREADS /* blocking: never hold the GIL here */
    r = gpuact_synchronize(ctx, s);
    Py_END_ALLOW_THREADS
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_synchronize", r);
    Py_RETURN_NONE;
}

/* ---- >>memory (gpuact's blocking helpers: tests, OpenCL, `python -m gpuact --self-test`) ---- */

/* alloc(backend, device, nbytes) -> handle (int; 0 for 0 bytes) */
static PyObject *gpuact_py_alloc(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context *ctx;
    gpuact_buffer b;
    size_t bytes;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("alloc", na, 3) || gpuact_py_size(a[2], "nbytes", &bytes)) return NULL;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    Py_BEGIN_ALLOW_THREADS
    r = gpuact_buffer_alloc(ctx, bytes, &b);
    Py_END_ALLOW_THREADS
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_buffer_alloc", r);
    return PyLong_FromVoidPtr(b.handle);
}

/* free(backend, device, handle) */
static PyObject *gpuact_py_free(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context *ctx;
    gpuact_buffer b;
    (void)self;
    if (gpuact_py_nargs("free", na, 3) || gpuact_py_buffer(a[2], "handle", &b)) return NULL;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    Py_BEGIN_ALLOW_THREADS
    gpuact_buffer_free(ctx, b);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* write(backend, device, buffer, data: bytes) */
static PyObject *gpuact_py_write(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context *ctx;
    gpuact_buffer b;
    char *data;
    Py_ssize_t len;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("write", na, 4) || gpuact_py_buffer(a[2], "buffer", &b)) return NULL;
    if (PyBytes_AsStringAndSize(a[3], &data, &len) < 0) return NULL;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    Py_BEGIN_ALLOW_THREADS /* the bytes object stays alive: the caller holds it */
    r = gpuact_buffer_write(ctx, b, data, (size_t)len);
    Py_END_ALLOW_THREADS
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_buffer_write", r);
    Py_RETURN_NONE;
}

/* read(backend, device, buffer, nbytes) -> bytes */
static PyObject *gpuact_py_read(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context *ctx;
    gpuact_buffer b;
    size_t bytes;
    char *host;
    PyObject *out;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("read", na, 4) || gpuact_py_buffer(a[2], "buffer", &b) ||
        gpuact_py_size(a[3], "nbytes", &bytes))
        return NULL;
    if (bytes > (size_t)PY_SSIZE_T_MAX) return gpuact_py_invalid("gpuact: read of %zu bytes is too large", bytes);
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    host = (char *)malloc(bytes ? bytes : 1);
    if (!host) return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    r = gpuact_buffer_read(ctx, host, b, bytes);
    Py_END_ALLOW_THREADS
    if (r != GPUACT_SUCCESS) {
        free(host);
        return gpuact_py_raise("gpuact_buffer_read", r);
    }
    out = PyBytes_FromStringAndSize(host, (Py_ssize_t)bytes);
    free(host);
    return out;
}

/* testing_copy(backend, device, stream, dst, src, nbytes): the device-to-device copy benchmarks measure against */
static PyObject *gpuact_py_testing_copy(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context *ctx;
    gpuact_buffer dst, src;
    size_t bytes;
    void *s;
    gpuact_result r;
    (void)self;
    if (gpuact_py_nargs("testing_copy", na, 6) || gpuact_py_ptr(a[2], "stream", &s) ||
        gpuact_py_buffer(a[3], "dst", &dst) || gpuact_py_buffer(a[4], "src", &src) ||
        gpuact_py_size(a[5], "nbytes", &bytes))
        return NULL;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    GPUACT_PY_CALL(r, gpuact_testing_copy(ctx, s, dst, src, bytes));
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_testing_copy", r);
    Py_RETURN_NONE;
}

/* ---- >>information --------------------------------------------------------------- */

/* context_info(backend, device) -> (backend id, device name, cache dir, default stream) of the
   cached context (created on first use) */
static PyObject *gpuact_py_context_info(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context *ctx;
    gpuact_context_desc d;
    (void)self;
    if (gpuact_py_nargs("context_info", na, 2)) return NULL;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    d = gpuact_context_query_desc(ctx);
    return Py_BuildValue("(iNNN)", (int)gpuact_context_backend(ctx), gpuact_py_str(gpuact_context_device_name(ctx)),
                         gpuact_py_str(d.cache_dir), PyLong_FromVoidPtr(d.stream));
}

/* probe(backend, device) -> (result, backend id, device name or the error text, cache dir):
   a fresh context, destroyed at once (python -m gpuact lists what each backend sees) */
static PyObject *gpuact_py_probe(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_context_desc d;
    gpuact_context *ctx = NULL;
    gpuact_result r;
    int backend, device;
    PyObject *out;
    (void)self;
    if (gpuact_py_nargs("probe", na, 2) || gpuact_py_int(a[0], "backend", &backend) ||
        gpuact_py_int(a[1], "device", &device))
        return NULL;
    memset(&d, 0, sizeof d);
    d.backend = (gpuact_backend)backend;
    d.device = device;
    Py_BEGIN_ALLOW_THREADS
    r = gpuact_context_create(&d, &ctx);
    Py_END_ALLOW_THREADS
    if (r != GPUACT_SUCCESS) return Py_BuildValue("(iiNs)", (int)r, backend, gpuact_py_str(gpuact_last_error()), "");
    d = gpuact_context_query_desc(ctx);
    out = Py_BuildValue("(iiNN)", 0, (int)gpuact_context_backend(ctx), gpuact_py_str(gpuact_context_device_name(ctx)),
                        gpuact_py_str(d.cache_dir));
    Py_BEGIN_ALLOW_THREADS
    gpuact_context_destroy(ctx);
    Py_END_ALLOW_THREADS
    return out;
}

static PyObject *gpuact_py_last_error(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return gpuact_py_str(gpuact_last_error());
}

static PyObject *gpuact_py_result_string(PyObject *self, PyObject *arg) {
    int r;
    (void)self;
    if (gpuact_py_int(arg, "result", &r)) return NULL;
    return PyUnicode_FromString(gpuact_result_string((gpuact_result)r));
}

/* bench_forward(backend, device, stream, act, dtype, n, x, y, calls) -> microseconds per call of
   gpuact_forward in a C loop (enqueue only): the C figure the Python call is compared with */
static PyObject *gpuact_py_bench_forward(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    gpuact_forward_desc d;
    gpuact_context *ctx;
    void *s;
    int dt;
    size_t calls, i;
    struct timespec t0, t1;
    gpuact_result r = GPUACT_SUCCESS;
    (void)self;
    if (gpuact_py_nargs("bench_forward", na, 9)) return NULL;
    memset(&d, 0, sizeof d);
    if (gpuact_py_ptr(a[2], "stream", &s) || gpuact_py_act(a[3], &d.act) || gpuact_py_int(a[4], "dtype", &dt) ||
        gpuact_py_size(a[5], "n", &d.n) || gpuact_py_buffer(a[6], "x", &d.x) || gpuact_py_buffer(a[7], "y", &d.y) ||
        gpuact_py_size(a[8], "calls", &calls))
        return NULL;
    d.dtype = (gpuact_dtype)dt;
    if (!(ctx = gpuact_py_context(a[0], a[1]))) return NULL;
    Py_BEGIN_ALLOW_THREADS
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < calls && r == GPUACT_SUCCESS; i++) r = gpuact_forward(ctx, &d, s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    Py_END_ALLOW_THREADS
    if (r != GPUACT_SUCCESS) return gpuact_py_raise("gpuact_forward", r);
    return PyFloat_FromDouble(((double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-3) /
                              (double)(calls ? calls : 1));
}

/* ---- >>DLPack: reading a capsule without consuming it ------------------------------ */

/* The DLPack structures (dlpack.h, versions 0.x and 1.x), declared here from
   the specification: the capsule is only read, never renamed, so its
   producer's destructor still frees it. */
typedef struct { int32_t device_type, device_id; } gpuact_py_dldevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } gpuact_py_dldtype;
typedef struct {
    void *data;
    gpuact_py_dldevice device;
    int32_t ndim;
    gpuact_py_dldtype dtype;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} gpuact_py_dltensor;
typedef struct { gpuact_py_dltensor t; void *manager_ctx; void (*deleter)(void *); } gpuact_py_dlmanaged;
typedef struct {
    struct { uint32_t major, minor; } version;
    void *manager_ctx;
    void (*deleter)(void *);
    uint64_t flags;
    gpuact_py_dltensor t;
} gpuact_py_dlversioned;

/* dlpack_describe(capsule) -> (data, byte_offset, device_type, device_id, shape, strides or None,
   type code, bits, lanes, read_only) */
static PyObject *gpuact_py_dlpack_describe(PyObject *self, PyObject *cap) {
    const gpuact_py_dltensor *t;
    int read_only = 0;
    PyObject *shape, *strides;
    int i;
    (void)self;
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        const gpuact_py_dlversioned *v = (const gpuact_py_dlversioned *)PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (!v) return NULL;
        if (v->version.major != 1)
            return gpuact_py_invalid("gpuact: DLPack %u.%u is not supported (1.x is)", v->version.major,
                                     v->version.minor);
        t = &v->t;
        read_only = (int)(v->flags & 1u);
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        const gpuact_py_dlmanaged *m = (const gpuact_py_dlmanaged *)PyCapsule_GetPointer(cap, "dltensor");
        if (!m) return NULL;
        t = &m->t;
    } else {
        PyErr_SetString(PyExc_TypeError, "gpuact: not an unconsumed DLPack capsule");
        return NULL;
    }
    if (t->ndim < 0 || t->ndim > 64) return gpuact_py_invalid("gpuact: DLPack tensor with ndim %d", (int)t->ndim);
    if (!(shape = PyTuple_New(t->ndim))) return NULL;
    for (i = 0; i < t->ndim; i++) PyTuple_SetItem(shape, i, PyLong_FromLongLong(t->shape[i]));
    if (t->strides) {
        if (!(strides = PyTuple_New(t->ndim))) {
            Py_DECREF(shape);
            return NULL;
        }
        for (i = 0; i < t->ndim; i++) PyTuple_SetItem(strides, i, PyLong_FromLongLong(t->strides[i]));
    } else {
        strides = Py_None;
        Py_INCREF(strides);
    }
    return Py_BuildValue("(NKiiNNiiii)", PyLong_FromVoidPtr(t->data), (unsigned long long)t->byte_offset,
                         (int)t->device.device_type, (int)t->device.device_id, shape, strides, (int)t->dtype.code,
                         (int)t->dtype.bits, (int)t->dtype.lanes, read_only);
}

/* ---- >>module ------------------------------------------------------------------------- */

static PyObject *gpuact_py_set_release_gil(PyObject *self, PyObject *arg) {
    int old = gpuact_py_release_gil, v = PyObject_IsTrue(arg);
    (void)self;
    if (v < 0) return NULL;
    gpuact_py_release_gil = v;
    return PyBool_FromLong(old);
}

/* _register_errors(base, classes): classes[r] is raised for gpuact_result r (None for 0). */
static PyObject *gpuact_py_register_errors(PyObject *self, PyObject *const *a, Py_ssize_t na) {
    Py_ssize_t i, n;
    (void)self;
    if (gpuact_py_nargs("_register_errors", na, 2)) return NULL;
    if (!PyTuple_Check(a[1])) {
        PyErr_SetString(PyExc_TypeError, "_register_errors: classes must be a tuple");
        return NULL;
    }
    n = PyTuple_Size(a[1]);
    Py_XDECREF(gpuact_py_error_base);
    Py_INCREF(a[0]);
    gpuact_py_error_base = a[0];
    for (i = 0; i < GPUACT_PY_RESULTS; i++) {
        Py_CLEAR(gpuact_py_errors[i]);
        if (i < n && PyTuple_GetItem(a[1], i) != Py_None) {
            gpuact_py_errors[i] = PyTuple_GetItem(a[1], i);
            Py_INCREF(gpuact_py_errors[i]);
        }
    }
    Py_RETURN_NONE;
}

/* _shutdown(): destroys every context (atexit). Work of the caller's still
   queued is the caller's; gpuact waits for its own workspaces. A later call
   creates a context again. */
static PyObject *gpuact_py_shutdown(PyObject *self, PyObject *unused) {
    int b, d;
    (void)self;
    (void)unused;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&gpuact_py_lock);
    for (d = 0; d < GPUACT_PY_MAX_DEVICES; d++) gpuact_py_store(&gpuact_py_contexts[GPUACT_BACKEND_AUTO][d], NULL);
    for (b = 1; b < GPUACT_PY_BACKENDS; b++)
        for (d = 0; d < GPUACT_PY_MAX_DEVICES; d++) {
            gpuact_context *ctx = gpuact_py_contexts[b][d];
            gpuact_py_store(&gpuact_py_contexts[b][d], NULL);
            if (ctx) gpuact_context_destroy(ctx);
        }
    pthread_mutex_unlock(&gpuact_py_lock);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* _contexts() -> ((backend, device), ...) of the contexts alive now (explicit backends) */
static PyObject *gpuact_py_contexts_alive(PyObject *self, PyObject *unused) {
    PyObject *list = PyList_New(0), *t;
    int b, d;
    (void)self;
    (void)unused;
    if (!list) return NULL;
    for (b = 1; b < GPUACT_PY_BACKENDS; b++)
        for (d = 0; d < GPUACT_PY_MAX_DEVICES; d++)
            if (gpuact_py_load(&gpuact_py_contexts[b][d])) {
                if (!(t = Py_BuildValue("(ii)", b, d)) || PyList_Append(list, t) < 0) {
                    Py_XDECREF(t);
                    Py_DECREF(list);
                    return NULL;
                }
                Py_DECREF(t);
            }
    return list;
}

#define GPUACT_PY_FAST(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL, doc}
static PyMethodDef gpuact_py_methods[] = {
    GPUACT_PY_FAST("forward", gpuact_py_forward, "forward(backend, device, stream, act, dtype, n, x, y, mask)"),
    GPUACT_PY_FAST("backward", gpuact_py_backward, "backward(backend, device, stream, act, dtype, n, dy, dx, x, mask)"),
    GPUACT_PY_FAST("epilogue_forward", gpuact_py_epilogue_forward,
                   "epilogue_forward(backend, device, stream, act, rows, cols, x_dtype, y_dtype, bias_dtype, ld_x, "
                   "ld_y, scale, x, bias, y, mask, mask_ld)"),
    GPUACT_PY_FAST("epilogue_backward", gpuact_py_epilogue_backward,
                   "epilogue_backward(backend, device, stream, act, rows, cols, dy_dtype, dx_dtype, y_dtype, "
                   "dbias_dtype, ld_dy, ld_dx, ld_y, scale, dy, dx, y, mask, mask_ld, dbias[, x, bias, x_dtype, ld_x])"),
    GPUACT_PY_FAST("glu_forward", gpuact_py_glu_forward,
                   "glu_forward(backend, device, stream, act, rows, cols, x_dtype, y_dtype, ld_a, ld_b, ld_y, a, b, "
                   "y, bias_a, bias_b)"),
    GPUACT_PY_FAST("glu_backward", gpuact_py_glu_backward,
                   "glu_backward(backend, device, stream, act, rows, cols, dy_dtype, x_dtype, dbias_dtype, ld_dy, "
                   "ld_a, ld_b, ld_da, ld_db, dy, a, b, bias_a, bias_b, da, db, dbias_a, dbias_b)"),
    GPUACT_PY_FAST("codes_forward", gpuact_py_codes_forward,
                   "codes_forward(backend, device, stream, act, rows, cols, x_dtype, y_dtype, ld_x, scale, x, bias, y, "
                   "codes, code_bits, codes_ld)"),
    GPUACT_PY_FAST("codes_backward", gpuact_py_codes_backward,
                   "codes_backward(backend, device, stream, act, rows, cols, dy_dtype, dx_dtype, dbias_dtype, scale, "
                   "dy, dx, codes, code_bits, codes_ld, dbias)"),
    GPUACT_PY_FAST("synchronize", gpuact_py_synchronize, "synchronize(backend, device, stream)"),
    GPUACT_PY_FAST("alloc", gpuact_py_alloc, "alloc(backend, device, nbytes) -> handle"),
    GPUACT_PY_FAST("free", gpuact_py_free, "free(backend, device, handle)"),
    GPUACT_PY_FAST("write", gpuact_py_write, "write(backend, device, buffer, data: bytes)"),
    GPUACT_PY_FAST("read", gpuact_py_read, "read(backend, device, buffer, nbytes) -> bytes"),
    GPUACT_PY_FAST("testing_copy", gpuact_py_testing_copy, "testing_copy(backend, device, stream, dst, src, nbytes)"),
    GPUACT_PY_FAST("context_info", gpuact_py_context_info,
                   "context_info(backend, device) -> (backend, device name, cache dir, default stream)"),
    GPUACT_PY_FAST("probe", gpuact_py_probe,
                   "probe(backend, device) -> (result, backend, device name or error text, cache dir)"),
    GPUACT_PY_FAST("bench_forward", gpuact_py_bench_forward,
                   "bench_forward(backend, device, stream, act, dtype, n, x, y, calls) -> us per call (C loop)"),
    GPUACT_PY_FAST("_register_errors", gpuact_py_register_errors, "_register_errors(base, classes)"),
    {"last_error", gpuact_py_last_error, METH_NOARGS, "this thread's gpuact_last_error()"},
    {"result_string", gpuact_py_result_string, METH_O, "gpuact_result_string(r)"},
    {"dlpack_describe", gpuact_py_dlpack_describe, METH_O, "fields of an unconsumed DLPack capsule"},
    {"set_release_gil", gpuact_py_set_release_gil, METH_O, "release the GIL around enqueues (default True)"},
    {"_shutdown", gpuact_py_shutdown, METH_NOARGS, "destroy every context"},
    {"_contexts", gpuact_py_contexts_alive, METH_NOARGS, "(backend, device) of the contexts alive"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef gpuact_py_module = {PyModuleDef_HEAD_INIT, "gpuact._C",
                                              "gpuact's C layer: gpuact.h compiled into a CPython extension", -1,
                                              gpuact_py_methods, NULL, NULL, NULL, NULL};

static int gpuact_py_add(PyObject *m, const char *name, PyObject *value) {
    if (!value) return -1;
    if (PyModule_AddObject(m, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__C(void) {
    PyObject *m = PyModule_Create(&gpuact_py_module), *t;
    size_t i, j, nk = sizeof gpuact_py_kinds / sizeof gpuact_py_kinds[0];
    int k;
    if (!m) return NULL;
    if (PyModule_AddStringConstant(m, "VERSION", GPUACT_VERSION_STRING) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_MAJOR", GPUACT_VERSION_MAJOR) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_MINOR", GPUACT_VERSION_MINOR) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_PATCH", GPUACT_VERSION_PATCH) < 0 ||
        PyModule_AddIntConstant(m, "MAX_DEVICES", GPUACT_PY_MAX_DEVICES) < 0 ||
        PyModule_AddIntConstant(m, "ACT_PRECISE", GPUACT_ACT_PRECISE) < 0)
        goto fail;

    /* DTYPES: ((name, bytes), ...) in gpuact_dtype order */
#define GPUACT_PY_DT_(name, bytes) {#name, bytes},
    {
        static const struct { const char *name; int bytes; } dts[] = {GPUACT_DTYPES(GPUACT_PY_DT_)};
        if (!(t = PyTuple_New(GPUACT_DT_COUNT))) goto fail;
        for (k = 0; k < GPUACT_DT_COUNT; k++) PyTuple_SetItem(t, k, Py_BuildValue("(si)", dts[k].name, dts[k].bytes));
        if (gpuact_py_add(m, "DTYPES", t)) goto fail;
    }

    /* KINDS: ((name, (column, ...)), ...) in gpuact_activation_kind order */
    if (!(t = PyTuple_New((Py_ssize_t)nk))) goto fail;
    for (i = 0; i < nk; i++) {
        PyObject *cols = PyTuple_New((Py_ssize_t)gpuact_py_kind_ncols[i]);
        if (!cols) {
            Py_DECREF(t);
            goto fail;
        }
        for (j = 0; j < gpuact_py_kind_ncols[i]; j++) PyTuple_SetItem(cols, (Py_ssize_t)j, PyLong_FromLong(gpuact_py_kinds[i].cols[j]));
        PyTuple_SetItem(t, (Py_ssize_t)i, Py_BuildValue("(sN)", gpuact_py_kinds[i].name, cols));
    }
    if (gpuact_py_add(m, "KINDS", t)) goto fail;

    /* ACT_PARAMS: the numeric fields of gpuact_activation after kind */
#define GPUACT_PY_FIELD_NAME_(f) #f,
    {
        static const char *const names[] = {GPUACT_PY_ACT_FIELDS(GPUACT_PY_FIELD_NAME_) NULL};
        if (!(t = PyTuple_New(GPUACT_PY_ACT_NFIELDS))) goto fail;
        for (k = 0; k < GPUACT_PY_ACT_NFIELDS; k++) PyTuple_SetItem(t, k, PyUnicode_FromString(names[k]));
        if (gpuact_py_add(m, "ACT_PARAMS", t)) goto fail;
    }

    /* BACKENDS: names by gpuact_backend value; RESULTS: names by gpuact_result value */
    if (!(t = PyTuple_New(GPUACT_PY_BACKENDS))) goto fail;
    for (k = 0; k < GPUACT_PY_BACKENDS; k++) PyTuple_SetItem(t, k, PyUnicode_FromString(gpuact_backend_name((gpuact_backend)k)));
    if (gpuact_py_add(m, "BACKENDS", t)) goto fail;
    if (!(t = PyTuple_New(GPUACT_PY_RESULTS))) goto fail;
    for (i = 0; i < GPUACT_PY_RESULTS; i++) PyTuple_SetItem(t, (Py_ssize_t)i, PyUnicode_FromString(gpuact_result_string((gpuact_result)i)));
    if (gpuact_py_add(m, "RESULTS", t)) goto fail;

    /* The public enum's values, by their C names (the kinds' are the table's order). */
    if (PyModule_AddIntConstant(m, "GPUACT_F32", GPUACT_F32) < 0 || PyModule_AddIntConstant(m, "GPUACT_F16", GPUACT_F16) < 0 ||
        PyModule_AddIntConstant(m, "GPUACT_BF16", GPUACT_BF16) < 0 ||
        PyModule_AddIntConstant(m, "GPUACT_BACKEND_AUTO", GPUACT_BACKEND_AUTO) < 0 ||
        PyModule_AddIntConstant(m, "GPUACT_BACKEND_CUDA", GPUACT_BACKEND_CUDA) < 0 ||
        PyModule_AddIntConstant(m, "GPUACT_BACKEND_HIP", GPUACT_BACKEND_HIP) < 0 ||
        PyModule_AddIntConstant(m, "GPUACT_BACKEND_OPENCL", GPUACT_BACKEND_OPENCL) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
