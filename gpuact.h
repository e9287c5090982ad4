/*
gpuact.h -- GPU activation kernels (ReLU, leaky ReLU, clipped ReLU, hardtanh,
GELU, SiLU, squared ReLU and the fused bias+activation+scale epilogue),
forward and backward, on CUDA, HIP and OpenCL, from one C99 header.

DO THIS in exactly one C or C++ file, before including this header:

    #define GPUACT_IMPLEMENTATION
    #include "gpuact.h"

A COMPLETE PROGRAM (make test compiles and runs this text; link -ldl -lpthread)

    #define GPUACT_IMPLEMENTATION
    #include "gpuact.h"
    #include <stdio.h>

    int main(void) {
        float x[8] = {-2, -0.5f, 0, 0.5f, 2, 6, 8, 1}, y[8];
        unsigned char bits;
        gpuact_context *ctx;
        gpuact_forward_desc d = {.act = {GPUACT_CLIPPED_RELU, 0.0f, 6.0f}, .dtype = GPUACT_F32, .n = 8};
        if (gpuact_context_create(NULL, &ctx) != GPUACT_SUCCESS) {   // AUTO: CUDA, HIP, OpenCL
            fprintf(stderr, "%s\n", gpuact_last_error());             // says what each backend tried
            return 1;
        }
        gpuact_buffer_alloc(ctx, sizeof x, &d.x);                     // {device pointer or cl_mem, offset}
        gpuact_buffer_alloc(ctx, sizeof y, &d.y);
        gpuact_buffer_alloc(ctx, 1, &d.mask);                         // 1 bit per element
        gpuact_buffer_write(ctx, d.x, x, sizeof x);
        if (gpuact_forward(ctx, &d, NULL) != GPUACT_SUCCESS) return 1; // y = min(max(x, 0), 6), async
        gpuact_buffer_read(ctx, y, d.y, sizeof y);                    // blocking
        gpuact_buffer_read(ctx, &bits, d.mask, 1);
        printf("%s: y[6] = %g, mask 0x%02x\n", gpuact_backend_name(gpuact_context_backend(ctx)), y[6], bits);
        gpuact_buffer_free(ctx, d.x); gpuact_buffer_free(ctx, d.y); gpuact_buffer_free(ctx, d.mask);
        gpuact_context_destroy(ctx);
        return !(y[6] == 6.0f && bits == 0x98);                       // passes at 0.5, 2, 1
    }

Other files include "gpuact.h" without the define. The implementation pulls
in the backends/ headers and the generated kernel headers in kernels/,
so keep the directory layout of the distribution (or `make install` it).
No vendor header (cuda.h, CL/cl.h, hip/...) is needed to use gpuact, and no
nvcc or hipcc: kernels are compiled at run time from embedded source.

BACKENDS
    GPUACT_NO_CUDA      leave the CUDA backend out of the build
    GPUACT_NO_HIP       leave the HIP backend out of the build
    GPUACT_NO_OPENCL    leave the OpenCL backend out of the build
    (at least one must remain: the build stops with an #error otherwise)

    At run time, gpuact_context_create() with GPUACT_BACKEND_AUTO tries CUDA,
    then HIP, then OpenCL, and takes the first that loads and has a device.
    Every fall-through is recorded: if none works, gpuact_last_error() says
    why each one failed. The environment variable GPUACT_BACKEND=cuda|hip|opencl
    replaces AUTO (an explicit desc.backend is never overridden).

OPTIONS (define before the implementation)
    GPUACT_NO_RUNTIME_LINKING  link the vendor libraries instead of loading
                      them with dlopen. OpenCL: calls -lOpenCL directly and
                      needs CL/cl.h, whose prototypes are checked against the
                      pointers gpuact calls through. CUDA and HIP: the same
                      symbols are taken from the program itself, so link
                      -Wl,--no-as-needed -lcuda -lnvrtc (or -lamdhip64).
    GPUACT_CUDA_PRECOMPILED    load the CUDA kernels from the fatbin header
                      made by `make cuda-fatbin` (kernels/cuda/gpuact_cuda_fatbin.h)
                      instead of compiling them with NVRTC; NVRTC is not loaded.
    GPUACT_DEF        storage of the public functions (default: extern);
                      `#define GPUACT_DEF static` makes the library private
                      to the file that implements it.
    GPUACT_MALLOC / GPUACT_FREE  host allocator (both or neither).

ENVIRONMENT
    GPUACT_BACKEND        cuda | hip | opencl: replaces AUTO.
    GPUACT_CACHE_DIR      directory of the CUDA/HIP kernel disk cache
                          (default $XDG_CACHE_HOME/gpuact or ~/.cache/gpuact;
                          the empty string disables the disk cache). It must
                          be owned by the user and not writable by group or
                          others, else the disk cache is not used; a path
                          over 800 bytes is GPUACT_ERROR_INVALID_ARGUMENT.
    GPUACT_CUDA_LIBRARY, GPUACT_NVRTC_LIBRARY, GPUACT_HIP_LIBRARY,
    GPUACT_HIPRTC_LIBRARY, GPUACT_OPENCL_LIBRARY
                          a path or name loaded instead of the built-in
                          list. One that does not load is an error naming
                          it (GPUACT_ERROR_BACKEND_UNAVAILABLE), never a
                          quiet fall-back, and AUTO stops there. Read when
                          the library is first loaded: libraries are loaded
                          once per process.

BUFFERS AND STREAMS
    A gpuact_buffer is a device allocation plus a byte offset. For CUDA and
    HIP the handle is the device pointer (so cudaMalloc / hipMalloc / PyTorch
    pointers work directly, with offset 0 or not); for OpenCL it is the cl_mem.
    Offsets must be multiples of the element size; 16-byte aligned data takes
    the vector fast path, any other element-aligned offset the scalar path.
    Before anything is launched, each buffer's extent (its offset plus the
    bytes the operation reads or writes there) is checked against its
    allocation, and a buffer that does not fit is GPUACT_ERROR_INVALID_ARGUMENT
    naming the argument, the allocation's size and what was needed; so are
    gpuact_buffer_read / gpuact_buffer_write past the end. OpenCL asks the
    cl_mem's size and context (clGetMemObjectInfo): another context's cl_mem
    is refused. CUDA / HIP ask the driver for the allocation around the
    pointer (cuMemGetAddressRange / hipMemGetAddressRange); memory the
    driver cannot place (host-registered or system memory, some imported
    or managed allocations) is accepted unchecked, as it may well be valid.
    A handle that is not an allocation at all cannot always be told apart
    (a stray pointer may crash the driver's own lookup).
    A gpuact_stream is a CUstream / hipStream_t / cl_command_queue; NULL means
    the context's stream (desc.stream, else the backend's default stream /
    the context's own queue). All operations are asynchronous on that stream;
    the gpuact_buffer_* helpers are blocking.

    Stream lifetime: gpuact uses a stream only during the call it is passed
    to. Once that call returns, the caller may destroy or release the
    stream, even with the work still in flight; gpuact never waits on it,
    enqueues on it or queries it again. What outlives the call (the bias
    gradient's workspace) is ordered by events gpuact records and owns,
    never by the stream. The caller's buffers are the caller's: keep them
    alive until the work that uses them is done.

    CUDA works on the device's primary context by default (the one the CUDA
    runtime and PyTorch use); desc.native_context adopts a CUcontext instead.
    OpenCL can adopt the caller's cl_context + cl_device_id (+ queue as
    desc.stream; a queue alone is refused: it works only with its own
    context); under AUTO a native_device picks OpenCL; otherwise desc.device is an ordinal over all GPU-type
    devices of all platforms, in platform order, then over all other devices.

NUMERICS (bit-exact with PyTorch; see docs/NUMERICS.md)
    f16/bf16 are computed in f32 and rounded to nearest even once on store.
    NaN inputs pass through relu and clipped ReLU with their bits unchanged;
    -0 becomes +0 in relu; subnormals are never flushed. Backward passes dy
    where the gradient passes (relu: !(x <= 0); leaky: x > 0, else dy*slope;
    clipped: !(x <= 0 || x >= ceiling); hardtanh: !(x <= lower || x >= ceiling))
    and writes +0.0 elsewhere, by selection, so a NaN in a masked-out dy does
    not leak. hardtanh is torch.clamp(x, lower, ceiling), bounds rounded to
    f16/bf16 in the elementwise ops as torch does.

SMOOTH KINDS (GPUACT_GELU, GPUACT_GELU_TANH, GPUACT_SILU, GPUACT_SQUARED_RELU)
    y = act(x (+ bias)) (* scale) with gpuact's own exp/erfc/tanh
    (kernels/smooth.h): the same operations on every backend and on the CPU,
    so every backend gives the same bits. They have no mask: the backward is
    dx = dy (* scale) * act'(z) and takes the forward's input x (elementwise:
    gpuact_backward_desc.x; epilogue: gpuact_epilogue_backward_desc.x and
    .bias, from which z = x + bias is formed again exactly):

        gpuact_epilogue_backward_desc b = {0};
        b.act.kind = GPUACT_GELU; b.rows = rows; b.cols = cols;
        b.dy_dtype = b.dx_dtype = b.x_dtype = GPUACT_BF16; b.dbias_dtype = GPUACT_F32;
        b.dy = dy; b.dx = dx; b.dbias = dbias;
        b.x = x; b.bias = bias;            // the forward's x and bias (bias in x's dtype)
        gpuact_epilogue_backward(ctx, &b, stream);

    (examples/gelu_epilogue.c is a complete program.)

GATED FORMS (gpuact_glu_forward / gpuact_glu_backward)
    y = act(a + bias_a) * (b + bias_b) for act = SILU (SwiGLU), GELU or
    GELU_TANH (GeGLU), RELU (ReGLU); the backward gives da, db and both bias
    gradients in one pass from the forward's inputs. a and b may be the two
    halves of each row of one up-projection output X (rows x 2 cols):
    a = X, b = X + cols elements, ld_a = ld_b = 2 * cols; da and db likewise.

MASK FORMAT
    One bit per element, element i is bit (i % 8) of byte (i / 8); set means
    "the gradient passes". Epilogue rows start at bit r * mask_ld. Padding
    bits of a row's last byte are written 0; nothing past a row's
    ceil(cols / 8) bytes is written.

FEW-BIT CODES (GELU, GELU tanh, SiLU; docs/NUMERICS.md)
    Instead of x, the forward can keep code_bits = b (1-4) bits per element
    for the backward: the code of z = x (+ bias) is the number of the b-bit
    table's 2^b - 1 boundaries <= z (kernels/fewbit.h; NaN and -inf: 0,
    +inf: 2^b - 1, -0 as +0), and the backward from the codes is
    dx = (dy * scale) * level[code], rounded once: the optimal
    piecewise-constant derivative with 2^b levels (Novikov et al., ICML
    2022), an approximation, not act'(z). The codes are dense: element i
    of a row is bits i * b to i * b + b - 1 of the row, bit j being bit
    j % 8 of byte j / 8 (a 3-bit code may cross a byte: 8 codes fill 3
    bytes), as the mask's bits for b = 1. Epilogue rows start at element
    r * codes_ld (a multiple of 32: every row starts on 4 bytes); the
    buffer's offset is a multiple of 4. Padding bits of a row's last byte
    are written 0; nothing past a row's ceil(cols * b / 8) bytes is
    written.

THREADS
    gpuact_context_create and gpuact_context_destroy may be called from any
    number of threads at once: each vendor library is loaded and its
    function table filled once per process, and library loading and device
    discovery run under one process-wide lock (libraries stay loaded until
    the process exits). One context may be used from several threads at
    once, each on its own stream (or sharing one). Kernel builds, caches and
    the workspace pool are internally locked; concurrent calls with a bias
    gradient each get a workspace of their own. gpuact_last_error() is per
    thread. Destroying a context while another thread uses it is the
    caller's bug. See docs/RELIABILITY.md.

ERRORS
    Every function returns a gpuact_result. GPUACT_ERROR_INVALID_ARGUMENT
    means nothing was launched and nothing written. gpuact_last_error()
    returns this thread's most recent failure in full: what was asked, what
    went wrong (library names tried and dlerror(), compiler log, driver error
    name and code) and what to do.

    Each GPUACT_ERROR_INVALID_ARGUMENT is one validation rule of the list
    GPUACT_RULES (below gpuact_last_error), each with a stable name:
    gpuact_last_rule() gives it as a gpuact_rule (GPUACT_RULE_BUFFER_TOO_SMALL),
    gpuact_rule_name() as text, and the message starts with it:

        [gpuact rule BUFFER_TOO_SMALL] gpuact_forward: y is too small: its
        cl_mem holds 400 bytes, and this needs 4000 bytes from offset 0 ...

    Match the rule, not the words after it (they may be reworded). Any other
    failure leaves gpuact_last_rule() at GPUACT_RULE_NONE; like the text, the
    rule changes only when a call of this thread fails.

WHAT IT DOES NOT DO
    No device allocation in steady state (the epilogue backward's bias
    gradient keeps a small pool of workspaces, one per call in flight at
    once, grown rarely; each call records one event); no implicit
    synchronization in the operations; no Windows support yet (POSIX dlopen
    and pthreads).

LICENSE: MIT, see the end of this file.
*/
#ifndef GPUACT_H
#define GPUACT_H

#include <stddef.h>

#define GPUACT_VERSION_MAJOR 0
#define GPUACT_VERSION_MINOR 1
#define GPUACT_VERSION_PATCH 0
#define GPUACT_VERSION_STRING "0.1.0"

#ifndef GPUACT_DEF
#define GPUACT_DEF extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Results: X(NAME), gpuact_result's values in order as GPUACT_NAME;
   gpuact_result_string gives "GPUACT_NAME". GPUACT_RESULT_COUNT of them. */
#define GPUACT_RESULTS(X)                                                                      \
    X(SUCCESS)                                                                                 \
    X(ERROR_INVALID_ARGUMENT)    /* caller mistake: nothing launched, nothing written */       \
    X(ERROR_NOT_SUPPORTED)       /* valid, but this backend/device cannot do it */             \
    X(ERROR_BACKEND_UNAVAILABLE) /* vendor library missing, or no device */                    \
    X(ERROR_OUT_OF_MEMORY)                                                                     \
    X(ERROR_KERNEL_BUILD)        /* run-time compile failed: log in gpuact_last_error() */     \
    X(ERROR_DEVICE)              /* driver error: its code and name in gpuact_last_error() */

#define GPUACT__RESULT_ENUM_(name) GPUACT_##name,
#define GPUACT__RESULT_SLOT_(name) GPUACT__RESULT_SLOT_##name,
typedef enum gpuact_result { GPUACT_RESULTS(GPUACT__RESULT_ENUM_) } gpuact_result;
enum { GPUACT_RESULTS(GPUACT__RESULT_SLOT_) GPUACT_RESULT_COUNT };

/* Name of a result code ("GPUACT_ERROR_INVALID_ARGUMENT"). Never NULL. */
GPUACT_DEF const char *gpuact_result_string(gpuact_result r);
/* This thread's most recent failure in detail ("" if none yet). The string
   stays valid until this thread's next failing gpuact call. */
GPUACT_DEF const char *gpuact_last_error(void);

/* Validation rules: every GPUACT_ERROR_INVALID_ARGUMENT comes from exactly
   one of these, X(NAME, what it asks of the caller). The enum, the names and
   the descriptions are generated from this list; a new check is one line
   here and one gpuact__refuse(GPUACT_RULE_NAME, ...) at the refusal site.
   Names are stable: tests and callers may match them. */
#define GPUACT_RULES(X)                                                                                       \
    X(NULL_CONTEXT, "ctx is a context from gpuact_context_create, not NULL")                                 \
    X(NULL_ARGUMENT, "a required pointer (a desc, an out parameter, a host buffer, a timer token) is not NULL") \
    X(BACKEND_UNKNOWN, "desc->backend, and $GPUACT_BACKEND when set, name a backend (auto, cuda, hip, opencl)") \
    X(DEVICE_NEGATIVE, "desc->device is an ordinal >= 0")                                                   \
    X(CACHE_DIR_TOO_LONG, "the cache directory's path (desc->cache_dir or $GPUACT_CACHE_DIR) has <= 800 bytes") \
    X(NATIVE_DEVICE_MISSING, "OpenCL: an adopted cl_context comes with its cl_device_id (desc->native_device)") \
    X(NATIVE_CONTEXT_MISSING, "OpenCL: an adopted queue (desc->stream) comes with its cl_context and device")     \
    X(DTYPE_UNKNOWN, "each dtype field used is a gpuact_dtype (F32, F16, BF16)")                            \
    X(KIND_UNKNOWN, "act.kind is a gpuact_activation_kind")                                                  \
    X(SLOPE_INVALID, "a kind that uses act.negative_slope has one >= 0 (not NaN)")                          \
    X(CEILING_INVALID, "clipped ReLU's act.ceiling is > 0 (not NaN)")                                        \
    X(BOUNDS_INVALID, "hardtanh's act.lower <= act.ceiling (neither NaN)")                                   \
    X(SCALE_NOT_FINITE, "scale is finite (0 means 1)")                                                       \
    X(LD_TOO_SMALL, "each leading dimension is 0 (= cols) or >= cols")                                       \
    X(MASK_LD_TOO_SMALL, "mask_ld is 0 (cols rounded up to 128) or >= cols")                                  \
    X(MASK_LD_NOT_MULTIPLE_OF_8, "mask_ld is a multiple of 8 bits: each mask row starts on a byte")        \
    X(SIZE_OVERFLOW, "every extent in bytes (n, rows x ld, the mask, offset + extent) fits size_t")          \
    X(BUFFER_REQUIRED, "every buffer the call reads or writes has a handle (absent: {NULL, 0})")            \
    X(OFFSET_MISALIGNED, "each buffer's offset is a multiple of its element size")                          \
    X(BUFFER_TOO_SMALL, "each buffer's allocation holds its offset plus the bytes the call uses there")     \
    X(BUFFER_FOREIGN, "OpenCL: each buffer handle is a cl_mem of the context's cl_context")                \
    X(OVERLAP, "an output shares no byte with another argument, except exact in-place aliasing")           \
    X(SOURCE_NOT_EXACTLY_ONE, "a backward gets exactly one source: the forward's x (or y) or its mask")     \
    X(MASK_FOR_SMOOTH_KIND, "a smooth kind (GELU, SiLU, squared ReLU) has no 1-bit mask: none is given")    \
    X(X_SOURCE_NEEDS_SMOOTH_KIND, "the epilogue backward from x (and bias) is the smooth kinds' source")     \
    X(Y_SOURCE_UNSUPPORTED_KIND, "the epilogue backward from y is for relu and leaky ReLU only")             \
    X(Y_SOURCE_NEEDS_POSITIVE_SCALE, "the backward from y has scale > 0")                                    \
    X(BIAS_WITHOUT_X, "the backward reads a bias only with x (the forward's input)")                       \
    X(BOTH_OR_NEITHER, "glu ops: bias_a and bias_b, dbias_a and dbias_b are given in pairs")               \
    X(KIND_NOT_GATED, "glu ops: act.kind gates (relu, GELU, GELU tanh, SiLU)")                            \
    X(ACT_FLAGS_UNKNOWN, "act.flags holds only GPUACT_ACT_* bits")                                         \
    X(CODE_BITS_INVALID, "code_bits is 0 (no codes) or 1, 2, 3, 4; a codes buffer comes with code_bits")      \
    X(CODES_KIND_WITHOUT_TABLE, "few-bit codes are for GELU, GELU tanh and SiLU, the kinds with a table")      \
    X(CODES_LD_INVALID, "codes_ld is 0 (cols rounded up to 128) or a multiple of 32 >= cols")                 \
    X(CODES_BIAS_DTYPE, "the forward writing codes takes its bias in x's dtype")

#define GPUACT__RULE_ENUM_(name, text) GPUACT_RULE_##name,
typedef enum gpuact_rule {
    GPUACT_RULE_NONE = 0,      /* no refusal: success, or a failure that is not INVALID_ARGUMENT */
    GPUACT_RULES(GPUACT__RULE_ENUM_)
    GPUACT_RULE_COUNT          /* the number of values above, NONE included; not a rule */
} gpuact_rule;
#undef GPUACT__RULE_ENUM_

/* The rule this thread's most recent failure broke: GPUACT_RULE_NONE when
   that failure was not GPUACT_ERROR_INVALID_ARGUMENT (or none yet). It
   changes when gpuact_last_error() does, and only then. A refusal's message
   starts with "[gpuact rule NAME] ", NAME being gpuact_rule_name's. */
GPUACT_DEF gpuact_rule gpuact_last_rule(void);
/* "BUFFER_TOO_SMALL" for GPUACT_RULE_BUFFER_TOO_SMALL, "NONE", "UNKNOWN" for
   a value not in the list. Never NULL. */
GPUACT_DEF const char *gpuact_rule_name(gpuact_rule r);
/* The rule's one line from GPUACT_RULES ("" for NONE and unknown values). */
GPUACT_DEF const char *gpuact_rule_description(gpuact_rule r);

/* Backends: X(NAME, name), gpuact_backend's values in order as
   GPUACT_BACKEND_NAME; gpuact_backend_name gives "name", the word
   $GPUACT_BACKEND takes. GPUACT_BACKEND_COUNT of them. */
#define GPUACT_BACKENDS(X) X(AUTO, auto) X(CUDA, cuda) X(HIP, hip) X(OPENCL, opencl)
#define GPUACT__BACKEND_ENUM_(NAME, name) GPUACT_BACKEND_##NAME,
#define GPUACT__BACKEND_SLOT_(NAME, name) GPUACT__BACKEND_SLOT_##NAME,
typedef enum gpuact_backend { GPUACT_BACKENDS(GPUACT__BACKEND_ENUM_) } gpuact_backend;
enum { GPUACT_BACKENDS(GPUACT__BACKEND_SLOT_) GPUACT_BACKEND_COUNT };

typedef enum gpuact_dtype { GPUACT_F32 = 0, GPUACT_F16, GPUACT_BF16 } gpuact_dtype;

/* Bytes per element of a dtype (0 for an unknown value). */
GPUACT_DEF size_t gpuact_dtype_size(gpuact_dtype dt);

/* A device allocation and a byte offset into it. CUDA/HIP: handle is the
   device pointer. OpenCL: handle is the cl_mem. {NULL, 0} means "absent". */
typedef struct gpuact_buffer { void *handle; size_t offset; } gpuact_buffer;
/* CUstream / hipStream_t / cl_command_queue; NULL = the context's. */
typedef void *gpuact_stream;

typedef struct gpuact_context gpuact_context;
typedef struct gpuact_context_desc {
    gpuact_backend backend;    /* AUTO by default (GPUACT_BACKEND can override AUTO); AUTO with
                                  native_device set means OpenCL, the only API with a device handle */
    int device;                /* ordinal within the backend */
    void *native_context;      /* optional: adopt CUcontext / hipCtx_t / cl_context */
    void *native_device;       /* OpenCL: the cl_device_id that goes with native_context */
    gpuact_stream stream;      /* optional default stream or queue */
    const char *cache_dir;     /* NULL: default; "": no disk cache */
} gpuact_context_desc;

/* Creates a context. desc may be NULL (all defaults). On failure *out is
   NULL and gpuact_last_error() says what each backend tried. Thread-safe. */
GPUACT_DEF gpuact_result gpuact_context_create(const gpuact_context_desc *desc, gpuact_context **out);
/* Waits only for the work that uses gpuact's own workspaces (through their
   events, not the streams); synchronize first if the caller's buffers are
   still in use. NULL is ignored. */
GPUACT_DEF void gpuact_context_destroy(gpuact_context *ctx);
GPUACT_DEF gpuact_backend gpuact_context_backend(const gpuact_context *ctx);
/* "auto" "cuda" "hip" "opencl" ("unknown" otherwise). */
GPUACT_DEF const char *gpuact_backend_name(gpuact_backend b);
/* The device's name as the driver reports it. */
GPUACT_DEF const char *gpuact_context_device_name(const gpuact_context *ctx);
/* The effective desc the context was created with (defaults filled in:
   backend is the one chosen, stream the one NULL stands for). */
GPUACT_DEF gpuact_context_desc gpuact_context_query_desc(const gpuact_context *ctx);

/* Convenience memory functions (blocking), used by tests and examples.
   alloc of 0 bytes returns an absent buffer and success. */
GPUACT_DEF gpuact_result gpuact_buffer_alloc(gpuact_context *ctx, size_t bytes, gpuact_buffer *out);
GPUACT_DEF void          gpuact_buffer_free(gpuact_context *ctx, gpuact_buffer buf);
GPUACT_DEF gpuact_result gpuact_buffer_write(gpuact_context *ctx, gpuact_buffer dst, const void *src, size_t bytes);
GPUACT_DEF gpuact_result gpuact_buffer_read(gpuact_context *ctx, void *dst, gpuact_buffer src, size_t bytes);
/* Waits until all work queued on the stream (NULL: the context's) is done. */
GPUACT_DEF gpuact_result gpuact_synchronize(gpuact_context *ctx, gpuact_stream stream);

typedef enum gpuact_activation_kind {
    GPUACT_RELU = 0,
    GPUACT_LEAKY_RELU,
    GPUACT_CLIPPED_RELU,   /* relu6 and friends: hardtanh(x, 0, ceiling) */
    GPUACT_HARDTANH,       /* F.hardtanh(x, lower, ceiling) */
    GPUACT_GELU,           /* F.gelu(x): x * Phi(x), with gpuact's own erfc */
    GPUACT_GELU_TANH,      /* F.gelu(x, approximate="tanh") */
    GPUACT_SILU,           /* F.silu(x) = x * sigmoid(x) (swish) */
    GPUACT_SQUARED_RELU    /* relu(x)**2 */
} gpuact_activation_kind;
typedef struct gpuact_activation {
    gpuact_activation_kind kind;  /* zero-initialized = plain ReLU */
    float negative_slope;         /* LEAKY_RELU: y = x * slope for x <= 0; must be >= 0 */
    float ceiling;                /* CLIPPED_RELU: y = min(max(x, 0), ceiling), > 0; HARDTANH: the upper bound */
    float lower;                  /* HARDTANH: y = min(max(x, lower), ceiling); lower <= ceiling */
    unsigned flags;               /* GPUACT_ACT_* bits; 0 = the defaults */
} gpuact_activation;
/* act.flags. GELU, tanh-GELU and SiLU and their derivatives are evaluated
   in f32 within 2 ulps by default (about a third of the instructions of
   the precise evaluation, so they run at the memory's speed), within 1 ulp
   with GPUACT_ACT_PRECISE; both give the same bits on every backend but
   for the default f16 forwards of GELU and tanh-GELU on CUDA, which differ
   by one f16 ulp at a counted few inputs (docs/NUMERICS_SMOOTH.md). The flag changes nothing for the other kinds,
   which are exact. */
enum { GPUACT_ACT_PRECISE = 1u };

/* ReLU shortcuts: y = max(x, 0); dx = dy where !(x <= 0), else +0.
   x may be the forward's input or output in the backward. y may alias x,
   dx may alias dy (exactly: same handle and offset). */
GPUACT_DEF gpuact_result gpuact_relu_forward(gpuact_context *ctx, gpuact_dtype dt, size_t n,
                                             gpuact_buffer x, gpuact_buffer y, gpuact_stream s);
GPUACT_DEF gpuact_result gpuact_relu_backward(gpuact_context *ctx, gpuact_dtype dt, size_t n,
                                              gpuact_buffer dy, gpuact_buffer x, gpuact_buffer dx,
                                              gpuact_stream s);

typedef struct gpuact_forward_desc {
    gpuact_activation act; gpuact_dtype dtype; size_t n;
    gpuact_buffer x, y;        /* y may alias x exactly (in place) */
    gpuact_buffer mask;        /* optional: ceil(n/8) bytes of gradient bits */
    gpuact_buffer codes;       /* optional (GELU, GELU tanh, SiLU): ceil(n * code_bits / 8) bytes of few-bit codes */
    int code_bits;             /* bits per code with codes, 1-4 (FEW-BIT CODES); 0 without */
} gpuact_forward_desc;
GPUACT_DEF gpuact_result gpuact_forward(gpuact_context *ctx, const gpuact_forward_desc *d, gpuact_stream s);

typedef struct gpuact_backward_desc {
    gpuact_activation act; gpuact_dtype dtype; size_t n;
    gpuact_buffer dy, dx;      /* dx may alias dy exactly */
    gpuact_buffer x;           /* the forward's input or output ... */
    gpuact_buffer mask;        /* ... or its mask ... */
    gpuact_buffer codes;       /* ... or its few-bit codes: exactly one of the three */
    int code_bits;             /* the codes' bits, as in the forward; 0 without codes */
} gpuact_backward_desc;
GPUACT_DEF gpuact_result gpuact_backward(gpuact_context *ctx, const gpuact_backward_desc *d, gpuact_stream s);

/* Fused epilogue on a row-major rows x cols matrix (e.g. a GEMM output):
   y[r][c] = act(x[r][c] + bias[c]) * scale, optional mask of gradient bits.
   z = x + bias is one f32 addition (skipped without bias), the multiply by
   scale is skipped when scale is 1, and y is rounded once. Row padding
   (columns cols..ld-1) is never read or written. */
typedef struct gpuact_epilogue_desc {
    gpuact_activation act;
    size_t rows, cols;
    gpuact_dtype x_dtype, y_dtype, bias_dtype;
    size_t ld_x, ld_y;         /* elements between row starts; 0 = cols */
    float scale;               /* 0.0f (zero-initialized) means 1.0f; must be finite */
    gpuact_buffer x, bias, y;  /* bias optional; y may alias x when dtypes and ld match */
    gpuact_buffer mask;        /* optional */
    size_t mask_ld;            /* bits between row starts; multiple of 8, >= cols; 0 = cols rounded up to 128 */
    gpuact_buffer codes;       /* optional (GELU, GELU tanh, SiLU; bias in x's dtype): few-bit codes of z */
    int code_bits;             /* 1-4 with codes, 0 without */
    size_t codes_ld;           /* codes between row starts; multiple of 32, >= cols; 0 = cols rounded up to 128 */
} gpuact_epilogue_desc;
GPUACT_DEF gpuact_result gpuact_epilogue_forward(gpuact_context *ctx, const gpuact_epilogue_desc *d, gpuact_stream s);

/* Backward of the epilogue: dx = select(passes, dy * scale, +0) (leaky:
   (dy * scale) * slope where it does not pass; a smooth kind (GELU, SiLU,
   squared ReLU): (dy * scale) * act'(z)), rounded once to dx's dtype;
   dbias[c] = sum over rows of dx[r][c] (optional; rows = 0 writes zeros, as
   a sum over an empty dimension), accumulated in f32 in a
   fixed order: bit-identical run to run on one device and backend.
   The region comes from the forward's mask (exact), from its output y
   (relu and leaky only, scale > 0: y's region differs from z's only where
   z * scale underflowed to zero), or from the forward's input x and bias:
   z = x + bias is formed again exactly as the forward formed it (one f32
   addition), so nothing but x has to be kept: the smooth kinds' source
   (and only theirs). */
typedef struct gpuact_epilogue_backward_desc {
    gpuact_activation act;
    size_t rows, cols;
    gpuact_dtype dy_dtype, dx_dtype, y_dtype, dbias_dtype;
    size_t ld_dy, ld_dx, ld_y; /* 0 = cols */
    float scale;               /* 0.0f means 1.0f; must be finite */
    gpuact_buffer dy, dx;      /* dx may alias dy when dtypes and ld match */
    gpuact_buffer y, mask;     /* exactly one */
    size_t mask_ld;            /* as in the forward */
    gpuact_buffer dbias;       /* optional */
    gpuact_buffer x, bias;     /* smooth kinds: the forward's x (instead of y or mask) and its bias (optional) */
    gpuact_dtype x_dtype;      /* x's dtype, and the bias's: the backward takes a bias of x's dtype */
    size_t ld_x;               /* 0 = cols */
    gpuact_buffer codes;       /* instead of y, mask or x: the forward's few-bit codes (dx = (dy * scale) * level) */
    int code_bits;             /* as in the forward; 0 without codes */
    size_t codes_ld;           /* as in the forward */
} gpuact_epilogue_backward_desc;
GPUACT_DEF gpuact_result gpuact_epilogue_backward(gpuact_context *ctx, const gpuact_epilogue_backward_desc *d, gpuact_stream s);

/* Gated activations after an up-projection (SwiGLU with GPUACT_SILU, GeGLU
   with GPUACT_GELU or GPUACT_GELU_TANH, ReGLU with GPUACT_RELU):
       y[r][c] = act(a[r][c] + bias_a[c]) * (b[r][c] + bias_b[c])
   Both sums are one f32 addition each (none without the biases), act is the
   kind's f32 formula, the product is one f32 multiplication, y is rounded
   once. a and b are two rows x cols matrices, or the two halves of each row
   of one fused projection X (rows x 2 cols): a = X, b = X + cols elements,
   ld_a = ld_b = 2 cols; the biases likewise. */
typedef struct gpuact_glu_desc {
    gpuact_activation act;
    size_t rows, cols;              /* of y (and of a, b) */
    gpuact_dtype x_dtype, y_dtype;  /* x_dtype: a, b and the biases */
    size_t ld_a, ld_b, ld_y;        /* 0 = cols */
    gpuact_buffer a, b, y;
    gpuact_buffer bias_a, bias_b;   /* optional, both or neither */
} gpuact_glu_desc;
GPUACT_DEF gpuact_result gpuact_glu_forward(gpuact_context *ctx, const gpuact_glu_desc *d, gpuact_stream s);

/* Its backward in one pass, from the forward's inputs (nothing else is kept):
       da = (dy * zb) * act'(za)   (ReGLU: dy * zb where za > 0, else +0, by selection)
       db = dy * act(za)
   with za, zb formed as the forward formed them, in f32, each rounded once
   to the inputs' dtype; dbias_a / dbias_b (optional, both or neither) are
   the column sums of da / db, accumulated like the epilogue's bias gradient
   (fixed order, bit-identical run to run). da and db may be the two halves
   of one buffer, as a and b may. */
typedef struct gpuact_glu_backward_desc {
    gpuact_activation act;
    size_t rows, cols;
    gpuact_dtype dy_dtype, x_dtype, dbias_dtype; /* x_dtype: a, b, the biases, da and db */
    size_t ld_dy, ld_a, ld_b, ld_da, ld_db;       /* 0 = cols */
    gpuact_buffer dy, a, b, bias_a, bias_b;       /* the forward's inputs (biases optional, both or neither) */
    gpuact_buffer da, db;
    gpuact_buffer dbias_a, dbias_b;               /* optional, both or neither */
} gpuact_glu_backward_desc;
GPUACT_DEF gpuact_result gpuact_glu_backward(gpuact_context *ctx, const gpuact_glu_backward_desc *d,
                                             gpuact_stream s);

/* TESTING: the kernel variants, for test suites that must prove they ran
   each one. i runs from 0; returns -1 past the last slot, 0 for a slot no
   call can reach, 1 for a reachable variant this context never launched,
   2 for one it launched. name (if not NULL) gets the kernel's name, as a
   profiler shows it. */
GPUACT_DEF int gpuact_testing_variant(const gpuact_context *ctx, int i, char *name, size_t name_size);
/* TESTING: builds kernel variant slot i (as gpuact_testing_variant counts
   them) or loads it from the disk cache, without launching it: SUCCESS, or
   NOT_SUPPORTED for a slot no call can reach. Threads with contexts of their
   own build in parallel, so a test run can fill the disk cache first. */
GPUACT_DEF gpuact_result gpuact_testing_prepare(gpuact_context *ctx, int i);
/* TESTING: what benchmarks need beside the operations. An asynchronous
   device-to-device copy on s (NULL: the context's stream), the bandwidth
   limit the kernels are measured against; and device-side timing on s:
   begin returns a token, end waits for the work queued in between and gives
   its milliseconds (CUDA/HIP events, OpenCL profiling markers). */
GPUACT_DEF gpuact_result gpuact_testing_copy(gpuact_context *ctx, gpuact_stream s, gpuact_buffer dst,
                                             gpuact_buffer src, size_t bytes);
GPUACT_DEF gpuact_result gpuact_testing_timer_begin(gpuact_context *ctx, gpuact_stream s, void **token);
GPUACT_DEF gpuact_result gpuact_testing_timer_end(gpuact_context *ctx, gpuact_stream s, void *token, double *ms);
/* TESTING: the query every buffer argument of an operation gets before a
   launch: *bytes = the bytes of b's allocation from b.handle on, as the
   driver tells them (SUCCESS); NOT_SUPPORTED where the driver does not know
   the memory (accepted unchecked by the operations); INVALID_ARGUMENT
   (rule BUFFER_FOREIGN) for another context's allocation or no allocation
   at all. For benchmarks of the host cost of a call (bench/host_overhead.c). */
GPUACT_DEF gpuact_result gpuact_testing_buffer_extent(gpuact_context *ctx, gpuact_buffer b, size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif /* GPUACT_H */

/* ======================================================================== */
/* >>implementation                                                         */
/* ======================================================================== */
#ifdef GPUACT_IMPLEMENTATION
#ifndef GPUACT__IMPLEMENTATION_DONE
#define GPUACT__IMPLEMENTATION_DONE

#if defined(GPUACT_NO_CUDA) && defined(GPUACT_NO_HIP) && defined(GPUACT_NO_OPENCL)
#error "gpuact: every backend is compiled out. Leave at least one of GPUACT_NO_CUDA, GPUACT_NO_HIP, GPUACT_NO_OPENCL undefined."
#endif
#if defined(GPUACT_MALLOC) != defined(GPUACT_FREE)
#error "gpuact: define both GPUACT_MALLOC and GPUACT_FREE, or neither."
#endif
#ifndef GPUACT_MALLOC
#define GPUACT_MALLOC(sz) malloc(sz)
#define GPUACT_FREE(p) free(p)
#endif

#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* dlopen, pthreads, mkstemp under -std=c99 */
#endif
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdint.h>
#include <limits.h>
#include <errno.h>
#include <pthread.h>
#include <dlfcn.h>
#include <unistd.h>
#include <sys/stat.h>

#if defined(__cplusplus) && __cplusplus >= 201103L
#define GPUACT__TLS thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GPUACT__TLS _Thread_local
#else
#define GPUACT__TLS __thread
#endif
#if defined(__GNUC__)
#define GPUACT__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define GPUACT__UNUSED __attribute__((unused))
#else
#define GPUACT__PRINTF(f, a)
#define GPUACT__UNUSED
#endif

#include "kernels/contract.h" /* what the host and the kernels share */

/* ---- >>errors ---------------------------------------------------------- */

static GPUACT__TLS char gpuact__error_text[16384];

static void gpuact__vappend(const char *fmt, va_list ap) {
    size_t used = strlen(gpuact__error_text);
    if (used + 1 < sizeof gpuact__error_text)
        vsnprintf(gpuact__error_text + used, sizeof gpuact__error_text - used, fmt, ap);
}
/* Appends to this thread's error text (for multi-part messages). */
static GPUACT__PRINTF(1, 2) void gpuact__append(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gpuact__vappend(fmt, ap);
    va_end(ap);
}
static GPUACT__TLS gpuact_rule gpuact__error_rule;

/* Replaces this thread's error text and returns r: `return gpuact__fail(...)`.
   For failures that are not the caller's mistake (device, memory, build):
   the rule becomes NONE. Refusals go through gpuact__refuse. */
static GPUACT__PRINTF(2, 3) gpuact_result gpuact__fail(gpuact_result r, const char *fmt, ...) {
    va_list ap;
    gpuact__error_text[0] = '\0';
    gpuact__error_rule = GPUACT_RULE_NONE;
    va_start(ap, fmt);
    gpuact__vappend(fmt, ap);
    va_end(ap);
    return r;
}
/* A caller mistake: records the rule, replaces the error text with
   "[gpuact rule NAME] " and the message, and returns
   GPUACT_ERROR_INVALID_ARGUMENT: `return gpuact__refuse(GPUACT_RULE_X, ...)`. */
static GPUACT__PRINTF(2, 3) gpuact_result gpuact__refuse(gpuact_rule rule, const char *fmt, ...) {
    va_list ap;
    snprintf(gpuact__error_text, sizeof gpuact__error_text, "[gpuact rule %s] ", gpuact_rule_name(rule));
    gpuact__error_rule = rule;
    va_start(ap, fmt);
    gpuact__vappend(fmt, ap);
    va_end(ap);
    return GPUACT_ERROR_INVALID_ARGUMENT;
}

GPUACT_DEF const char *gpuact_last_error(void) { return gpuact__error_text; }
GPUACT_DEF gpuact_rule gpuact_last_rule(void) { return gpuact__error_rule; }

#define GPUACT__RULE_NAME_(name, text) #name,
#define GPUACT__RULE_TEXT_(name, text) text,
static const char *const gpuact__rule_names[] = {"NONE", GPUACT_RULES(GPUACT__RULE_NAME_) "UNKNOWN"};
static const char *const gpuact__rule_texts[] = {"", GPUACT_RULES(GPUACT__RULE_TEXT_) ""};
#undef GPUACT__RULE_NAME_
#undef GPUACT__RULE_TEXT_
GPUACT_DEF const char *gpuact_rule_name(gpuact_rule r) {
    return gpuact__rule_names[(unsigned)r < GPUACT_RULE_COUNT ? (int)r : GPUACT_RULE_COUNT];
}
GPUACT_DEF const char *gpuact_rule_description(gpuact_rule r) {
    return gpuact__rule_texts[(unsigned)r < GPUACT_RULE_COUNT ? (int)r : GPUACT_RULE_COUNT];
}

#define GPUACT__RESULT_NAME_(name) "GPUACT_" #name,
#define GPUACT__BACKEND_NAME_(NAME, name) #name,
static const char *const gpuact__result_names[] = {GPUACT_RESULTS(GPUACT__RESULT_NAME_) "GPUACT_ERROR_(unknown)"};
static const char *const gpuact__backend_names[] = {GPUACT_BACKENDS(GPUACT__BACKEND_NAME_) "unknown"};
GPUACT_DEF const char *gpuact_result_string(gpuact_result r) {
    return gpuact__result_names[(unsigned)r < GPUACT_RESULT_COUNT ? (int)r : GPUACT_RESULT_COUNT];
}
GPUACT_DEF const char *gpuact_backend_name(gpuact_backend b) {
    return gpuact__backend_names[(unsigned)b < GPUACT_BACKEND_COUNT ? (int)b : GPUACT_BACKEND_COUNT];
}

GPUACT_DEF size_t gpuact_dtype_size(gpuact_dtype dt) {
#define GPUACT__DT_SIZE_(name, bytes) bytes,
    static const size_t sizes[] = {GPUACT_DTYPES(GPUACT__DT_SIZE_) 0};
    return sizes[(unsigned)dt < GPUACT_DT_COUNT ? (int)dt : GPUACT_DT_COUNT];
}

/* ---- >>loader: dlopen with every name tried recorded ------------------- */

/* Opens the first library that loads: the path in env_var (if set), then
   names in order. On failure returns NULL and `tried` lists each name with
   dlerror()'s words, for the caller's error message. */
/* Library loading and device discovery of every backend run under this one
   process-wide lock (gpuact__try_backend holds it around a backend's
   create), so each vendor library is loaded and its function table filled
   once per process, and no two threads discover devices at the same time.
   Vendor libraries, once loaded, stay loaded until the process exits. */
static pthread_mutex_t gpuact__load_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set when a library named by a GPUACT_*_LIBRARY variable did not load:
   AUTO then stops instead of quietly taking another backend. */
static GPUACT__TLS int gpuact__named_library_failed;

/* Opens the first library that loads: the path in env_var if it is set
   (and then only that one: a named library that does not load is an error,
   never a quiet fall-back to the built-in names), else names in order. On
   failure returns NULL and `tried` lists each name with dlerror()'s words,
   for the caller's error message. */
static GPUACT__UNUSED void *gpuact__dlopen_first(const char *env_var, const char *const *names,
                                  char *tried, size_t tried_size) {
#ifdef GPUACT_NO_RUNTIME_LINKING
    /* Linked directly: the symbols are the program's own. */
    (void)env_var;
    (void)names;
    snprintf(tried, tried_size, "    (the program itself, built with GPUACT_NO_RUNTIME_LINKING: link the library)\n");
    return dlopen(NULL, RTLD_NOW);
#else
    const char *env = env_var ? getenv(env_var) : NULL;
    size_t used = 0;
    int i = env && env[0] ? -1 : 0;
    tried[0] = '\0';
    for (; i < 0 || names[i]; i++) {
        const char *name = i < 0 ? env : names[i];
        void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        const char *why;
        if (h) return h;
        why = dlerror();
        if (used < tried_size)
            used += (size_t)snprintf(tried + used, tried_size - used, "    %s%s%s%s: %s\n", name,
                                     i < 0 ? " (from $" : "", i < 0 ? env_var : "",
                                     i < 0 ? ")" : "", why ? why : "not found");
        if (i < 0) {
            gpuact__named_library_failed = 1;
            if (used < tried_size)
                snprintf(tried + used, tried_size - used,
                         "    (the built-in names were not tried: $%s names the library to use; fix the "
                         "path or unset the variable)\n", env_var);
            return NULL;
        }
    }
    return NULL;
#endif
}

typedef struct gpuact__symbol { const char *name; void *slot; } gpuact__symbol;
/* A gpuact__symbol of an entry point's name and its typed slot. */
#define GPUACT__SYM(slot, name) {name, (void *)&(slot)}

/* Resolves each symbol into its typed function-pointer slot (memcpy keeps
   ISO C happy about object-to-function pointer conversion). Returns the name
   of the first missing symbol, or NULL. */
static GPUACT__UNUSED const char *gpuact__resolve(void *lib, const gpuact__symbol *syms, int count) {
    int i;
    for (i = 0; i < count; i++) {
        void *p = dlsym(lib, syms[i].name);
        if (!p) return syms[i].name;
        memcpy(syms[i].slot, &p, sizeof p);
    }
    return NULL;
}

/* ---- >>utilities ------------------------------------------------------- */

static size_t gpuact__div_up(size_t a, size_t b) { return a / b + (a % b != 0); }

/* Values shared between threads without a lock. A built kernel is published
   once and then read on every launch: acquire/release make that a defined
   handoff; the launched-variant flags only need relaxed accesses. */
#if defined(__GNUC__) || defined(__clang__)
#define GPUACT__LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GPUACT__STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define GPUACT__STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define GPUACT__LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#else /* other compilers: plain aligned accesses */
#define GPUACT__LOAD_ACQUIRE(p) (*(p))
#define GPUACT__STORE_RELEASE(p, v) (*(p) = (v))
#define GPUACT__STORE_RELAXED(p, v) (*(p) = (v))
#define GPUACT__LOAD_RELAXED(p) (*(p))
#endif

/* ---- >>backend interface ----------------------------------------------- */

/* What the host and the kernels share (dtypes, activation kinds, variant
   fields, flags, block size, the kernel parameter list) is written once, in
   kernels/contract.h. Every kernel of every backend has that parameter
   list, so one launch description serves all of them:

   FORWARD  (t = x, y, bias dtypes): in=x, out=y, bias, mask written.
   BACKWARD (t = dy, dx, src dtypes): in=dy, out=dx, aux=x or y, bias
            (fromx; x's dtype), mask read,
            part = f32 partial column sums [grid_y][cols] with dbias.
   DBIAS    (t[1] = dbias dtype): in=part (rows = number of partial rows),
            out=dbias: out[c] = sum over r of part[r][c], in order.

   A variant (one kernel) is the op, three dtypes and the named fields of
   GPUACT_FIELDS; gpuact__variant_index, gpuact__variant_name and
   gpuact__variant_defines turn it into a slot, a kernel name that a
   profiler trace can be read by, and the compiler options that select it.

   A work-item handles gpuact__shape's items elements of a row (CUDA/HIP:
   GPUACT_UNROLL vectors of GPUACT_VEC elements a block apart; OpenCL:
   GPUACT_CL_GROUPS groups of GPUACT_CL_VEC consecutive elements a block
   apart, see kernels/contract.h), a block has its shape's block work-items,
   and grid_y blocks walk the rows with stride grid_y. Each mask byte is
   written by exactly one work-item (CUDA/HIP pair neighbouring lanes'
   nibbles with a shuffle), so no atomics are needed. */
#define GPUACT__MAX_GRID_Y 65535
/* Matrix rows a block row of a forward or gated forward walks (tuning
   knobs, see gpuact__rows_per_block): a kind with exp/erf/tanh (its
   epilogue: the backend's epi_rows, by default this); every array 16-bit
   (forward, gated forward); writing the mask with a 4-byte array, the
   backend's (gpuact__shape's mask_rows). Halved while the grid would have
   fewer than GPUACT__ROWS_MIN_BLOCKS blocks per compute unit. */
#ifndef GPUACT__ROWS_TRANSCENDENTAL
#define GPUACT__ROWS_TRANSCENDENTAL 8
#endif
#ifndef GPUACT__ROWS_16
#define GPUACT__ROWS_16 2
#endif
#ifndef GPUACT__ROWS_GLU16
#define GPUACT__ROWS_GLU16 8
#endif
/* GeGLU's and SwiGLU's backward without the bias gradients: the backend's glu_rows, by default this */
#ifndef GPUACT__ROWS_GLU_BWD
#define GPUACT__ROWS_GLU_BWD 1
#endif
#ifndef GPUACT__ROWS_MIN_BLOCKS
#define GPUACT__ROWS_MIN_BLOCKS 32
#endif
/* Bias-gradient row groups per compute unit (tuning; the backend's
   gpuact__shape gives a launch's, GPUACT__DBIAS_GROUPS_PER_UNIT where it
   has no count of its own): blocks of a bias-gradient kernel = units *
   this, so that the grid runs whole waves at the kernels' residency.
   Where a group would get fewer than GPUACT__DBIAS_MIN_GROUP_ROWS rows (of
   slices) its partial sums weigh more than a last wave: _SHORT then, each
   group at least GPUACT__DBIAS_MIN_SHORT_ROWS rows (with one or two,
   NVIDIA's OpenCL wrote partial sums as large as dx). The measurements
   behind each number: docs/PERFORMANCE.md, "Tuning knobs". */
#ifndef GPUACT__DBIAS_GROUPS_PER_UNIT
#define GPUACT__DBIAS_GROUPS_PER_UNIT 20
#endif
#ifndef GPUACT__DBIAS_GROUPS_PER_UNIT_SHORT
#define GPUACT__DBIAS_GROUPS_PER_UNIT_SHORT 8
#endif
#ifndef GPUACT__DBIAS_MIN_GROUP_ROWS
#define GPUACT__DBIAS_MIN_GROUP_ROWS 32
#endif
#ifndef GPUACT__DBIAS_MIN_SHORT_ROWS
#define GPUACT__DBIAS_MIN_SHORT_ROWS 8
#endif

#define GPUACT__FIELD_ONE_(name, NAME, count) +1
#define GPUACT__FIELD_COUNT (0 GPUACT_FIELDS(GPUACT__FIELD_ONE_))
#define GPUACT__FIELD_DECL_(name, NAME, count) int name;
typedef struct gpuact__variant {
    int op;                    /* GPUACT_OP_* */
    gpuact_dtype t[3];
    GPUACT_FIELDS(GPUACT__FIELD_DECL_)
} gpuact__variant;

/* A launch: the variant, the kernel's parameters as kernels/contract.h
   lists them (GPUACT_KERNEL_PARAMS), and the grid. */
#define GPUACT__L_BUF_(name) gpuact_buffer name;
#define GPUACT__L_U64_(name) uint64_t name;
#define GPUACT__L_F32_(name) float name;
#define GPUACT__L_I32_(name) int name; /* flags: GPUACT_F_*; layout: GPUACT_LAYOUT_* (gpuact__layout) */
typedef struct gpuact__launch {
    gpuact__variant v;
    GPUACT_KERNEL_PARAMS(GPUACT__L_BUF_, GPUACT__L_U64_, GPUACT__L_F32_, GPUACT__L_I32_, )
    uint64_t grid_x, grid_y;   /* blocks (gpuact__geometry) */
    unsigned block;            /* work-items per block (gpuact__geometry; 0: not yet worked out) */
    unsigned block_fallback;   /* the work-items per block the variant's kernel is built for, where a
                                  driver refuses `block` (gpuact__shape's fallback) */
    int prepare_only;          /* build (or load) the kernel, launch nothing (gpuact_testing_prepare) */
} gpuact__launch;

/* Slots of the mixed-radix variant index: ops x dtypes^3 x every field. */
#define GPUACT__FIELD_MUL_(name, NAME, count) * (count)
#define GPUACT__VARIANTS \
    (GPUACT_OP_COUNT * GPUACT_DT_COUNT * GPUACT_DT_COUNT * GPUACT_DT_COUNT GPUACT_FIELDS(GPUACT__FIELD_MUL_))

/* Whether the epilogue backward may take the kind's region from y (the
   table's from_y column). kind is in range. */
static int gpuact__kind_from_y(int kind) {
#define GPUACT__KIND_FROM_Y_(name, slope, ceiling, lower, from_y, select, glu) from_y,
    static const unsigned char from_y[] = {GPUACT_ACTIVATIONS(GPUACT__KIND_FROM_Y_) 0};
    return from_y[kind];
}
/* Whether the kind evaluates exp, erf or tanh (GPUACT_TRANSCENDENTAL_KINDS). */
static int gpuact__kind_transcendental(int kind) { return (int)((GPUACT_TRANSCENDENTAL_KINDS >> kind) & 1u); }
/* The variant's precise field for a checked activation: the flag, where the
   kind has an evaluation it changes. */
static int gpuact__act_precise(const gpuact_activation *a) {
    return (a->flags & GPUACT_ACT_PRECISE) && gpuact__kind_transcendental((int)a->kind);
}
/* Whether the glu ops take the kind (the table's glu column). */
static int gpuact__kind_glu(int kind) {
#define GPUACT__KIND_GLU_(name, slope, ceiling, lower, from_y, select, glu) glu,
    static const unsigned char g[] = {GPUACT_ACTIVATIONS(GPUACT__KIND_GLU_) 0};
    return g[kind];
}
/* Whether the kind has a few-bit table (GPUACT_CODES_KINDS). */
static int gpuact__kind_codes(int kind) { return (int)((GPUACT_CODES_KINDS >> kind) & 1u); }
/* Whether the kind is of the ReLU family (the table's select column: mask,
   selection paths); else smooth. kind is in range. */
static int gpuact__kind_select(int kind) {
#define GPUACT__KIND_SELECT_(name, slope, ceiling, lower, from_y, select, glu) select,
    static const unsigned char sel[] = {GPUACT_ACTIVATIONS(GPUACT__KIND_SELECT_) 0};
    return sel[kind];
}

/* Whether the API can ask for V; only those are kernels. Forward: from x
   (select: one dtype in and out, no bias; a smooth kind: no mask, no
   select); backward: from the mask, the region's dtype is dy's; select:
   dy's dtype out; fromx: exactly for the smooth kinds (never with the mask
   or select); dbias: f32 parts in. The few-bit codes are a smooth kind's
   mask (kernels/contract.h): the forward's with the bias in x's dtype, the
   backward's of gelu only (the table comes at run time), dy's dtype as the
   region's. */
static int gpuact__variant_reachable(const gpuact__variant *V) {
    int i;
#define GPUACT__FIELD_OK_(name, NAME, count) if (V->name < 0 || V->name >= (count)) return 0;
    GPUACT_FIELDS(GPUACT__FIELD_OK_)
    if (V->op < 0 || V->op >= GPUACT_OP_COUNT) return 0;
    for (i = 0; i < 3; i++)
        if ((int)V->t[i] < 0 || (int)V->t[i] >= GPUACT_DT_COUNT) return 0;
    if (V->precise && (V->op == GPUACT_OP_dbias || !gpuact__kind_transcendental(V->kind))) return 0;
    switch (V->op) {
    case GPUACT_OP_forward:
        if (V->mask && gpuact__kind_codes(V->kind))
            return !V->fromx && !V->select && !V->dbias && V->t[2] == V->t[0];
        if (V->fromx || (!gpuact__kind_select(V->kind) && (V->mask || V->select))) return 0;
        return !V->dbias && (!V->select || (V->t[0] == V->t[1] && V->t[1] == V->t[2]));
    case GPUACT_OP_backward:
        if (V->mask && !gpuact__kind_select(V->kind))
            return V->kind == GPUACT_KIND_gelu && !V->fromx && !V->select && !V->precise && V->t[2] == V->t[0];
        /* fromx: exactly the smooth kinds (the ReLU family has the mask and y) */
        if (V->fromx != !gpuact__kind_select(V->kind)) return 0;
        if (V->fromx) return !V->mask && !V->select;
        /* without the mask and without from_y, only the elementwise op: one dtype, no scale, no dbias */
        if (!V->mask && !gpuact__kind_from_y(V->kind))
            return V->t[0] == V->t[1] && V->t[1] == V->t[2] && V->select && !V->dbias;
        return (!V->mask || V->t[2] == V->t[0]) && (!V->select || V->t[0] == V->t[1]);
    case GPUACT_OP_glu_forward: /* t = a/b/biases, y, a/b/biases */
    case GPUACT_OP_glu_backward: /* t = dy, da/db (the inputs' dtype), a/b/biases */
        if (!gpuact__kind_glu(V->kind) || V->mask || V->select || V->fromx) return 0;
        return V->op == GPUACT_OP_glu_forward ? V->t[2] == V->t[0] && !V->dbias : V->t[1] == V->t[2];
    default:
        return V->t[0] == GPUACT_F32 && V->t[2] == GPUACT_F32 && !V->kind && !V->mask && !V->dbias && !V->select &&
               !V->fromx;
    }
}

/* The slot of a reachable variant, in [0, GPUACT__VARIANTS). */
static int gpuact__variant_index(const gpuact__variant *V) {
    int i = V->op * GPUACT_DT_COUNT * GPUACT_DT_COUNT * GPUACT_DT_COUNT +
            ((int)V->t[0] * GPUACT_DT_COUNT + (int)V->t[1]) * GPUACT_DT_COUNT + (int)V->t[2];
#define GPUACT__FIELD_IDX_(name, NAME, count) i = i * (count) + V->name;
    GPUACT_FIELDS(GPUACT__FIELD_IDX_)
    return i;
}
/* The inverse of gpuact__variant_index (for walking every slot). */
static GPUACT__UNUSED void gpuact__variant_at(int i, gpuact__variant *V) {
    int k;
#define GPUACT__FIELD_COUNT_(name, NAME, count) count,
    static const int counts[] = {GPUACT_FIELDS(GPUACT__FIELD_COUNT_) 0};
    int *fields[GPUACT__FIELD_COUNT], n = 0;
#define GPUACT__FIELD_PTR_(name, NAME, count) fields[n++] = &V->name;
    GPUACT_FIELDS(GPUACT__FIELD_PTR_)
    for (k = n - 1; k >= 0; k--) {
        *fields[k] = i % counts[k];
        i /= counts[k];
    }
    for (k = 2; k >= 0; k--) {
        V->t[k] = (gpuact_dtype)(i % GPUACT_DT_COUNT);
        i /= GPUACT_DT_COUNT;
    }
    V->op = i;
}

#define GPUACT__DT_NAME_(name, bytes) #name,
static const char *const gpuact__dtype_names[] = {GPUACT_DTYPES(GPUACT__DT_NAME_) "unknown"};
#define GPUACT__KIND_NAME_(name, slope, ceiling, lower, from_y, select, glu) #name,
static const char *const gpuact__kind_names[] = {GPUACT_ACTIVATIONS(GPUACT__KIND_NAME_) "unknown"};
#define GPUACT__OP_NAME_(name, short_name) #name,
static GPUACT__UNUSED const char *const gpuact__op_names[] = {GPUACT_OPS(GPUACT__OP_NAME_) "unknown"};
#define GPUACT__OP_SHORT_(name, short_name) #short_name,
static const char *const gpuact__op_short[] = {GPUACT_OPS(GPUACT__OP_SHORT_) "unknown"};
static const char *gpuact__dtype_name(gpuact_dtype dt) {
    return gpuact__dtype_names[(unsigned)dt < GPUACT_DT_COUNT ? (int)dt : GPUACT_DT_COUNT];
}

/* The kernel's name: gpuact_<op>_<kind>[_mask|_frommask|_fromx][_dbias][_plain][_precise]_
   <t0>_<t1>_<t2>, e.g. gpuact_fwd_relu_mask_f32_f32_f32 or
   gpuact_bwd_leaky_frommask_dbias_bf16_bf16_bf16; the dbias pass is
   gpuact_dbias_f32_<dbias dtype>_f32. The few-bit codes: gpuact_fwd_<kind>_codes_..., and
   gpuact_bwd_fromcodes[_dbias]_... (one for the three kinds). */
static void gpuact__variant_name(const gpuact__variant *V, char *buf, size_t size) {
    const int codes = V->mask && !gpuact__kind_select(V->kind);
    if (codes && V->op == GPUACT_OP_backward)
        snprintf(buf, size, "gpuact_bwd_fromcodes%s_%s_%s_%s", V->dbias ? "_dbias" : "", gpuact__dtype_names[V->t[0]],
                 gpuact__dtype_names[V->t[1]], gpuact__dtype_names[V->t[2]]);
    else if (V->op == GPUACT_OP_dbias)
        snprintf(buf, size, "gpuact_dbias_%s_%s_%s", gpuact__dtype_names[V->t[0]], gpuact__dtype_names[V->t[1]],
                 gpuact__dtype_names[V->t[2]]);
    else
        snprintf(buf, size, "gpuact_%s_%s%s%s%s%s_%s_%s_%s", gpuact__op_short[V->op], gpuact__kind_names[V->kind],
                 V->fromx ? "_fromx" : !V->mask ? "" : codes ? "_codes" : V->op == GPUACT_OP_forward ? "_mask" : "_frommask",
                 V->dbias ? "_dbias" : "", V->select ? "_plain" : "", V->precise ? "_precise" : "",
                 gpuact__dtype_names[V->t[0]], gpuact__dtype_names[V->t[1]],
                 gpuact__dtype_names[V->t[2]]);
}
/* The compiler options that select V in the kernel sources: its name, its
   dtypes and each field as GPUACT_<FIELD>=<value>. */
#define GPUACT__DEFINES (4 + GPUACT__FIELD_COUNT) /* name, three dtypes, the fields */
#define GPUACT__NAME_MAX 64
#define GPUACT__DEFINE_MAX (GPUACT__NAME_MAX + 16)
static void gpuact__variant_defines(const gpuact__variant *V, char (*defs)[GPUACT__DEFINE_MAX]) {
    int i, n = 4;
    char name[GPUACT__NAME_MAX];
    gpuact__variant_name(V, name, sizeof name);
    snprintf(defs[0], sizeof defs[0], "-DGPUACT_NAME=%s", name);
    for (i = 0; i < 3; i++)
        snprintf(defs[1 + i], sizeof defs[1 + i], "-DGPUACT_T%d=%s", i, gpuact__dtype_names[V->t[i]]);
#define GPUACT__FIELD_DEF_(name, NAME, count) snprintf(defs[n++], sizeof defs[0], "-DGPUACT_" #NAME "=%d", V->name);
    GPUACT_FIELDS(GPUACT__FIELD_DEF_)
}

/* The backend vtable. A backend fills ctx->impl in create and gets the
   context back in every call; the core has validated every argument before
   any of these run, so a backend only reports driver failures.
     create      open the vendor library, pick or adopt the device, set
                 ctx->device_name, ctx->units (compute units), the
                 elements per work-item (below) and ctx->desc.stream when
                 NULL should mean a stream of its own.
     shape       the geometry its kernels and its vendor's tuning want for
                 L (variant, rows and cols set): gpuact__shape. The core
                 works out the grid from it once (gpuact__geometry) and
                 hands it to launch in L; launch reads it, never
                 recomputes it.
     launch      run L on stream s (NULL already replaced by the context's)
                 with L->grid_x x L->grid_y blocks of L->block work-items;
                 builds and caches the kernel on first use (thread-safe).
     copy        device-to-device copy on s (benchmarks measure the limit).
     timer_*     device-side timing on s for benchmarks: begin returns a token,
                 end waits for it and returns milliseconds.
     event_*     what the bias-gradient workspace keeps instead of a stream
                 (gpuact never touches a stream after the call that got it
                 returns): event_record marks the work enqueued on s so far
                 in *ev (creating it when *ev is NULL, else re-recording or
                 replacing it); event_after makes later work on s wait for
                 ev on the device; event_done is 1 when ev's work is over,
                 0 when not yet (or unknown); event_wait blocks the host.
     buffer_extent  the bytes of b's allocation from b.handle on (before
                 b.offset is added), or why it cannot say: see
                 GPUACT__EXTENT_*. Called by the argument checks. */
/* A launch's shape as its backend's kernels and tuning want it (the
   backend's `shape` hook):
     items         elements a work-item handles along a row (CUDA/HIP:
                   vectors of GPUACT_VEC elements; OpenCL: groups of
                   GPUACT_CL_VEC, kernels/contract.h)
     block         work-items per block for this launch
     fallback      the work-items per block the variant's kernel is built
                   for, for a driver that refuses `block`
     dbias_groups  bias-gradient row groups per compute unit
                   (gpuact__dbias_parts)
     mask_rows     matrix rows a block row of a forward writing the mask
                   with a 4-byte array walks at most (gpuact__rows_per_block)
     smooth_rows   the same for GELU, tanh-GELU and SiLU: their forward
                   without bias, scale or codes, and their backward from x
     epi_rows      the same for their forward with bias or scale (the epilogue)
     glu_rows      the same for a gated backward without the bias gradients */
typedef struct gpuact__shape {
    unsigned items, block, fallback, dbias_groups, mask_rows, smooth_rows, epi_rows, glu_rows;
} gpuact__shape;

typedef struct gpuact__backend {
    gpuact_backend id;
    gpuact_result (*create)(gpuact_context *ctx);
    void (*destroy)(gpuact_context *ctx);
    gpuact_result (*alloc)(gpuact_context *ctx, size_t bytes, gpuact_buffer *out);
    void (*free)(gpuact_context *ctx, gpuact_buffer buf);
    gpuact_result (*write)(gpuact_context *ctx, gpuact_buffer dst, const void *src, size_t bytes);
    gpuact_result (*read)(gpuact_context *ctx, void *dst, gpuact_buffer src, size_t bytes);
    gpuact_result (*synchronize)(gpuact_context *ctx, gpuact_stream s);
    void (*shape)(const gpuact_context *ctx, const gpuact__launch *L, gpuact__shape *out);
    gpuact_result (*launch)(gpuact_context *ctx, gpuact_stream s, const gpuact__launch *L);
    gpuact_result (*copy)(gpuact_context *ctx, gpuact_stream s, gpuact_buffer dst, gpuact_buffer src, size_t bytes);
    gpuact_result (*timer_begin)(gpuact_context *ctx, gpuact_stream s, void **token);
    gpuact_result (*timer_end)(gpuact_context *ctx, gpuact_stream s, void *token, double *ms);
    gpuact_result (*event_record)(gpuact_context *ctx, gpuact_stream s, void **ev);
    gpuact_result (*event_after)(gpuact_context *ctx, gpuact_stream s, void *ev);
    int (*event_done)(gpuact_context *ctx, void *ev);
    gpuact_result (*event_wait)(gpuact_context *ctx, void *ev);
    void (*event_release)(gpuact_context *ctx, void *ev);
    int (*buffer_extent)(gpuact_context *ctx, gpuact_buffer b, size_t *bytes);
} gpuact__backend;

/* buffer_extent's answers. */
enum {
    GPUACT__EXTENT_KNOWN = 0,  /* *bytes is the allocation's size from b.handle */
    GPUACT__EXTENT_UNKNOWN,    /* the driver does not know the memory: not checkable, accepted */
    GPUACT__EXTENT_FOREIGN,    /* an allocation of another context */
    GPUACT__EXTENT_INVALID     /* not an allocation at all (e.g. not a cl_mem) */
};

/* One bias-gradient workspace. Slots are a pool: a call takes any slot no
   other call holds, and orders its work after the slot's last use through
   the slot's event (never through a stream, which its caller may have
   released since). */
typedef struct gpuact__ws_slot {
    void *event;         /* marks the last work that used buf; NULL: none */
    gpuact_stream hint;  /* that work's stream: compared to prefer a slot, never used */
    gpuact_buffer buf;
    size_t bytes;
    int busy;            /* taken by a call between its enqueue and its event record */
} gpuact__ws_slot;
#ifndef GPUACT__MAX_WORKSPACES /* slots of the pool (tests set fewer to reach "all taken") */
#define GPUACT__MAX_WORKSPACES 64
#endif

#define GPUACT__CACHE_DIR_MAX 800 /* bytes of a cache directory's path; a longer one is refused */

struct gpuact_context {
    const gpuact__backend *be;
    gpuact_context_desc desc;      /* effective: backend chosen, stream filled in */
    char device_name[256];
    char cache_dir[GPUACT__CACHE_DIR_MAX + 1]; /* "" = no disk cache */
    unsigned units;                /* multiprocessors / compute units */
    unsigned dbias_slices;         /* row slices of a backward block with dbias (GPUACT_DBIAS_SLICES or 1) */
    int address_handles;           /* a buffer's handle is its device address (CUDA, HIP); else a cl_mem,
                                      whose base is aligned to far more than 16 bytes */
    int shifted_rows;              /* the forward and backward kernels take a shifted layout (GPUACT_LAYOUT_SHIFT) */
    pthread_mutex_t lock;          /* kernel builds (OpenCL: also argument setting and enqueue) */
    pthread_mutex_t ws_lock;       /* the workspace pool's bookkeeping (never held across a launch) */
    pthread_cond_t ws_freed;       /* a slot was given back (waited for only when all 64 are taken) */
    gpuact__ws_slot ws[GPUACT__MAX_WORKSPACES];
    int ws_count;
    unsigned char launched[GPUACT__VARIANTS]; /* gpuact_testing_variant (stored with relaxed atomics) */
    void *impl;                    /* the backend's own state */
};

/* How many arrays of V are 4-byte; with some, its kernels take 4 elements
   per 16-byte vector. */
static int gpuact__arrays_4byte(const gpuact__variant *V) {
    int i, n = 0;
    for (i = 0; i < 3; i++) n += gpuact_dtype_size(V->t[i]) == 4;
    return n;
}
static int gpuact__some_4byte(const gpuact__variant *V) { return gpuact__arrays_4byte(V) > 0; }
/* Directory of the disk cache: desc, else $GPUACT_CACHE_DIR, else
   $XDG_CACHE_HOME/gpuact, else ~/.cache/gpuact, else none. An explicit path
   longer than GPUACT__CACHE_DIR_MAX was refused by gpuact_context_create; a
   derived one that long means no disk cache. */
static void gpuact__resolve_cache_dir(gpuact_context *ctx, const char *asked) {
    const char *env = getenv("GPUACT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = 0;
    if (asked) n = snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", asked);
    else if (env) n = snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", env);
    else if (xdg && xdg[0]) n = snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s/gpuact", xdg);
    else if (home && home[0]) n = snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s/.cache/gpuact", home);
    if (n < 0 || n > GPUACT__CACHE_DIR_MAX) n = 0;
    ctx->cache_dir[n] = '\0';
}

/* ---- >>backends ---------------------------------------------------------- */
#include "kernels/gpuact_kernels_src.h" /* every kernel source file, once; each program as a list of them */

/* Joins a program (a NULL-terminated list of files, each a NULL-terminated
   array of lines, as the generated header keeps them within ISO C's
   string-length limit) into one malloc'd string. */
static GPUACT__UNUSED char *gpuact__join(const char *const *const *files) {
    size_t n = 0, i, f;
    char *s, *p;
    for (f = 0; files[f]; f++)
        for (i = 0; files[f][i]; i++) n += strlen(files[f][i]);
    s = (char *)GPUACT_MALLOC(n + 1);
    if (!s) return NULL;
    p = s;
    for (f = 0; files[f]; f++)
        for (i = 0; files[f][i]; i++) {
            size_t k = strlen(files[f][i]);
            memcpy(p, files[f][i], k);
            p += k;
        }
    *p = '\0';
    return s;
}
#if !defined(GPUACT_NO_CUDA) || !defined(GPUACT_NO_HIP)
#include "backends/gpuact_cudalike.h"
#endif
#ifndef GPUACT_NO_CUDA
#include "backends/gpuact_cuda.h"
#endif
#ifndef GPUACT_NO_HIP
#include "backends/gpuact_hip.h"
#endif
#ifndef GPUACT_NO_OPENCL
#include "backends/gpuact_opencl.h"
#endif

static const gpuact__backend *gpuact__find_backend(gpuact_backend id) {
    switch (id) {
#ifndef GPUACT_NO_CUDA
    case GPUACT_BACKEND_CUDA: return &gpuact__cuda_backend;
#endif
#ifndef GPUACT_NO_HIP
    case GPUACT_BACKEND_HIP: return &gpuact__hip_backend;
#endif
#ifndef GPUACT_NO_OPENCL
    case GPUACT_BACKEND_OPENCL: return &gpuact__opencl_backend;
#endif
    default: return NULL;
    }
}

/* ---- >>context --------------------------------------------------------- */

static gpuact_result gpuact__try_backend(gpuact_backend id, const gpuact_context_desc *desc,
                                         gpuact_context **out) {
    const gpuact__backend *be = gpuact__find_backend(id);
    gpuact_context *ctx;
    gpuact_result r;
    if (!be)
        return gpuact__fail(GPUACT_ERROR_BACKEND_UNAVAILABLE,
                            "the %s backend is not compiled in (built with GPUACT_NO_%s); rebuild "
                            "without that macro to use it",
                            gpuact_backend_name(id), id == GPUACT_BACKEND_CUDA ? "CUDA"
                                                     : id == GPUACT_BACKEND_HIP ? "HIP" : "OPENCL");
    ctx = (gpuact_context *)GPUACT_MALLOC(sizeof *ctx);
    if (!ctx) return gpuact__fail(GPUACT_ERROR_OUT_OF_MEMORY, "gpuact_context_create: out of host memory");
    memset(ctx, 0, sizeof *ctx);
    ctx->be = be;
    ctx->desc = *desc;
    ctx->desc.backend = id;
    ctx->desc.cache_dir = NULL;
    gpuact__resolve_cache_dir(ctx, desc->cache_dir);
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        GPUACT_FREE(ctx);
        return gpuact__fail(GPUACT_ERROR_DEVICE, "gpuact_context_create: pthread_mutex_init failed");
    }
    if (pthread_mutex_init(&ctx->ws_lock, NULL) != 0) {
        pthread_mutex_destroy(&ctx->lock);
        GPUACT_FREE(ctx);
        return gpuact__fail(GPUACT_ERROR_DEVICE, "gpuact_context_create: pthread_mutex_init failed");
    }
    if (pthread_cond_init(&ctx->ws_freed, NULL) != 0) {
        pthread_mutex_destroy(&ctx->ws_lock);
        pthread_mutex_destroy(&ctx->lock);
        GPUACT_FREE(ctx);
        return gpuact__fail(GPUACT_ERROR_DEVICE, "gpuact_context_create: pthread_cond_init failed");
    }
    pthread_mutex_lock(&gpuact__load_lock);
    r = be->create(ctx);
    pthread_mutex_unlock(&gpuact__load_lock);
    if (r != GPUACT_SUCCESS) {
        pthread_cond_destroy(&ctx->ws_freed);
        pthread_mutex_destroy(&ctx->ws_lock);
        pthread_mutex_destroy(&ctx->lock);
        GPUACT_FREE(ctx);
        return r;
    }
    ctx->desc.cache_dir = ctx->cache_dir;
    *out = ctx;
    return GPUACT_SUCCESS;
}

GPUACT_DEF gpuact_result gpuact_context_create(const gpuact_context_desc *desc, gpuact_context **out) {
    static const gpuact_backend order[] = {GPUACT_BACKEND_CUDA, GPUACT_BACKEND_HIP, GPUACT_BACKEND_OPENCL};
    gpuact_context_desc d;
    const char *env = getenv("GPUACT_BACKEND");
    char tried[4096];
    size_t used = 0;
    gpuact_result last = GPUACT_ERROR_BACKEND_UNAVAILABLE;
    gpuact_rule last_rule = GPUACT_RULE_NONE;
    int i;
    if (!out)
        return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_context_create: out is NULL; pass the "
                                                         "address of a gpuact_context pointer");
    *out = NULL;
    gpuact__named_library_failed = 0;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if ((unsigned)d.backend >= GPUACT_BACKEND_COUNT)
        return gpuact__refuse(GPUACT_RULE_BACKEND_UNKNOWN,
                              "gpuact_context_create: desc->backend is %d, not a gpuact_backend value "
                              "(AUTO, CUDA, HIP or OPENCL)", (int)d.backend);
    if (d.device < 0)
        return gpuact__refuse(GPUACT_RULE_DEVICE_NEGATIVE,
                              "gpuact_context_create: desc->device is %d; device ordinals start at 0", d.device);
    {
        const char *cache = d.cache_dir ? d.cache_dir : getenv("GPUACT_CACHE_DIR");
        if (cache && strlen(cache) > GPUACT__CACHE_DIR_MAX)
            return gpuact__refuse(GPUACT_RULE_CACHE_DIR_TOO_LONG,
                                  "gpuact_context_create: %s is %zu bytes long; a cache directory's path may "
                                  "have at most %d. Use a shorter path, or \"\" for no disk cache",
                                  d.cache_dir ? "desc->cache_dir" : "$GPUACT_CACHE_DIR", strlen(cache),
                                  GPUACT__CACHE_DIR_MAX);
    }
    if (d.backend == GPUACT_BACKEND_AUTO && env && env[0]) {
        for (i = 0; i < GPUACT_BACKEND_COUNT && strcmp(env, gpuact_backend_name((gpuact_backend)i)) != 0; i++) {}
        if (i == GPUACT_BACKEND_COUNT)
            return gpuact__refuse(GPUACT_RULE_BACKEND_UNKNOWN,
                                  "gpuact_context_create: GPUACT_BACKEND=\"%s\" is not one of auto, cuda, hip, "
                                  "opencl; fix or unset the variable", env);
        d.backend = (gpuact_backend)i;
    }
    if (d.backend != GPUACT_BACKEND_AUTO) {
        gpuact_result r = gpuact__try_backend(d.backend, &d, out);
        if (r != GPUACT_SUCCESS && env && env[0] && (!desc || desc->backend == GPUACT_BACKEND_AUTO))
            gpuact__append("\n(the backend was chosen by GPUACT_BACKEND=%s)", env);
        return r;
    }
    /* AUTO: first that works; every fall-through is kept for the message.
       A native_device says whose the handles are: only an OpenCL adoption
       has one, so it goes to OpenCL alone (handing its cl_context to the
       CUDA driver crashed it: tests/test_adoption.c's probe, on the H200
       machine). Without one, a native_context or stream is a CUcontext /
       hipCtx_t / stream, and OpenCL, last, refuses a context or queue
       without its device (NATIVE_DEVICE_MISSING, NATIVE_CONTEXT_MISSING). */
    tried[0] = '\0';
    for (i = d.native_device ? 2 : 0; i < 3; i++) {
        gpuact_result r = gpuact__try_backend(order[i], &d, out);
        if (r == GPUACT_SUCCESS) return r;
        if (gpuact__named_library_failed) {
            gpuact__append("\n(AUTO stops here: a library named in the environment did not load, and "
                           "taking another backend instead would hide that)");
            return r;
        }
        last = r;
        last_rule = gpuact__error_rule;
        if (used < sizeof tried)
            used += (size_t)snprintf(tried + used, sizeof tried - used, "- %s\n", gpuact__error_text);
    }
#define GPUACT__AUTO_FAILED                                                              \
    "gpuact_context_create(AUTO): no backend could be used; each one said:\n%s"          \
    "Install a GPU driver (CUDA, ROCm/HIP) or an OpenCL runtime (e.g. PoCL), or set " \
    "GPUACT_BACKEND to pick one."
    /* the last backend refused the desc (an OpenCL native_context alone): its rule */
    if (last == GPUACT_ERROR_INVALID_ARGUMENT) return gpuact__refuse(last_rule, GPUACT__AUTO_FAILED, tried);
    return gpuact__fail(last, GPUACT__AUTO_FAILED, tried);
#undef GPUACT__AUTO_FAILED
}

GPUACT_DEF void gpuact_context_destroy(gpuact_context *ctx) {
    int i;
    if (!ctx) return;
    /* The workspaces may still be in use by work on streams the caller has
       released: wait for their events (never for a stream), then free. */
    for (i = 0; i < ctx->ws_count; i++) {
        if (ctx->ws[i].event) {
            ctx->be->event_wait(ctx, ctx->ws[i].event);
            ctx->be->event_release(ctx, ctx->ws[i].event);
        }
        if (ctx->ws[i].buf.handle) ctx->be->free(ctx, ctx->ws[i].buf);
    }
    ctx->be->destroy(ctx);
    pthread_cond_destroy(&ctx->ws_freed);
    pthread_mutex_destroy(&ctx->ws_lock);
    pthread_mutex_destroy(&ctx->lock);
    GPUACT_FREE(ctx);
}

GPUACT_DEF gpuact_backend gpuact_context_backend(const gpuact_context *ctx) {
    return ctx ? ctx->desc.backend : GPUACT_BACKEND_AUTO;
}
GPUACT_DEF const char *gpuact_context_device_name(const gpuact_context *ctx) {
    return ctx ? ctx->device_name : "";
}
GPUACT_DEF gpuact_context_desc gpuact_context_query_desc(const gpuact_context *ctx) {
    gpuact_context_desc d;
    memset(&d, 0, sizeof d);
    return ctx ? ctx->desc : d;
}

/* ---- >>memory ------------------------------------------------------------ */

static gpuact_result gpuact__check_extent(gpuact_context *ctx, const char *fn, const char *name, gpuact_buffer b,
                                          size_t need);

#define GPUACT__NEED_CTX(fn)                                                                          \
    if (!ctx) return gpuact__refuse(GPUACT_RULE_NULL_CONTEXT, "%s: ctx is NULL; create one with "       \
                                                              "gpuact_context_create", fn)

GPUACT_DEF gpuact_result gpuact_buffer_alloc(gpuact_context *ctx, size_t bytes, gpuact_buffer *out) {
    GPUACT__NEED_CTX("gpuact_buffer_alloc");
    if (!out) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_buffer_alloc: out is NULL");
    out->handle = NULL;
    out->offset = 0;
    return bytes ? ctx->be->alloc(ctx, bytes, out) : GPUACT_SUCCESS;
}
GPUACT_DEF void gpuact_buffer_free(gpuact_context *ctx, gpuact_buffer buf) {
    if (ctx && buf.handle) ctx->be->free(ctx, buf);
}
GPUACT_DEF gpuact_result gpuact_buffer_write(gpuact_context *ctx, gpuact_buffer dst, const void *src, size_t bytes) {
    gpuact_result r;
    GPUACT__NEED_CTX("gpuact_buffer_write");
    if (!bytes) return GPUACT_SUCCESS;
    if (!dst.handle || !src)
        return gpuact__refuse(!dst.handle ? GPUACT_RULE_BUFFER_REQUIRED : GPUACT_RULE_NULL_ARGUMENT,
                              "gpuact_buffer_write: %s is NULL",
                              !dst.handle ? "dst.handle" : "src");
    if ((r = gpuact__check_extent(ctx, "gpuact_buffer_write", "dst", dst, bytes))) return r;
    return ctx->be->write(ctx, dst, src, bytes);
}
GPUACT_DEF gpuact_result gpuact_buffer_read(gpuact_context *ctx, void *dst, gpuact_buffer src, size_t bytes) {
    gpuact_result r;
    GPUACT__NEED_CTX("gpuact_buffer_read");
    if (!bytes) return GPUACT_SUCCESS;
    if (!src.handle || !dst)
        return gpuact__refuse(!src.handle ? GPUACT_RULE_BUFFER_REQUIRED : GPUACT_RULE_NULL_ARGUMENT,
                              "gpuact_buffer_read: %s is NULL",
                              !src.handle ? "src.handle" : "dst");
    if ((r = gpuact__check_extent(ctx, "gpuact_buffer_read", "src", src, bytes))) return r;
    return ctx->be->read(ctx, dst, src, bytes);
}
GPUACT_DEF gpuact_result gpuact_synchronize(gpuact_context *ctx, gpuact_stream stream) {
    GPUACT__NEED_CTX("gpuact_synchronize");
    return ctx->be->synchronize(ctx, stream ? stream : ctx->desc.stream);
}

/* ---- >>workspace ------------------------------------------------------------ */

/* The bias gradient's workspace: a pool of up to GPUACT__MAX_WORKSPACES
   slots, grown rarely, never shrunk. A call takes a slot no other call
   holds: first one last used on the same stream handle (then ordering on
   its event costs the device nothing), else one whose last use is over,
   else a new one, else any, and waits all the same for the slot's last
   use through its event on the device (event_after). Growing a slot waits
   on the host for its event before freeing the old buffer. No stream is
   ever kept or touched after the call that gave it: a released stream's
   handle may come back as another stream, so the hint only picks a slot.
   The caller enqueues its work on *out, then gives the slot back with
   gpuact__workspace_release, which records the slot's new event. */
static gpuact_result gpuact__workspace(gpuact_context *ctx, gpuact_stream s, size_t bytes, gpuact_buffer *out,
                                       int *slot) {
    gpuact_result r = GPUACT_SUCCESS;
    gpuact__ws_slot *w;
    int i, pick = -1;
    pthread_mutex_lock(&ctx->ws_lock);
    for (;;) {
        for (i = 0; i < ctx->ws_count && pick < 0; i++)
            if (!ctx->ws[i].busy && ctx->ws[i].hint == s && ctx->ws[i].bytes >= bytes) pick = i;
        for (i = 0; i < ctx->ws_count && pick < 0; i++)
            if (!ctx->ws[i].busy && (!ctx->ws[i].event || ctx->be->event_done(ctx, ctx->ws[i].event) == 1))
                pick = i;
        if (pick < 0 && ctx->ws_count < GPUACT__MAX_WORKSPACES) {
            pick = ctx->ws_count++;
            memset(&ctx->ws[pick], 0, sizeof ctx->ws[pick]);
        }
        for (i = 0; i < ctx->ws_count && pick < 0; i++)
            if (!ctx->ws[i].busy) pick = i;
        if (pick >= 0) break;
        pthread_cond_wait(&ctx->ws_freed, &ctx->ws_lock); /* every slot taken by calls in progress */
    }
    w = &ctx->ws[pick];
    w->busy = 1;
    pthread_mutex_unlock(&ctx->ws_lock);
    if (w->bytes < bytes) {
        size_t grown = bytes <= SIZE_MAX / 3 * 2 ? bytes + bytes / 2 : bytes;
        if (w->event) r = ctx->be->event_wait(ctx, w->event);
        if (r == GPUACT_SUCCESS) { /* the old buffer is idle: replace it */
            if (w->event) ctx->be->event_release(ctx, w->event);
            w->event = NULL;
            if (w->buf.handle) ctx->be->free(ctx, w->buf);
            w->buf.handle = NULL;
            w->buf.offset = 0;
            w->bytes = 0;
            r = ctx->be->alloc(ctx, grown, &w->buf);
            if (r == GPUACT_SUCCESS) w->bytes = grown;
        }
    } else if (w->event) {
        r = ctx->be->event_after(ctx, s, w->event);
    }
    *out = w->buf;
    *slot = pick;
    if (r != GPUACT_SUCCESS) {
        pthread_mutex_lock(&ctx->ws_lock);
        w->busy = 0;
        pthread_cond_signal(&ctx->ws_freed);
        pthread_mutex_unlock(&ctx->ws_lock);
    }
    return r;
}

/* Gives the slot back after the work on s that uses it was enqueued (r: how
   that went): its event now marks that work. Should recording fail, the
   work is waited for here, while s is still the caller's to use. */
static gpuact_result gpuact__workspace_release(gpuact_context *ctx, gpuact_stream s, int slot, gpuact_result r) {
    gpuact__ws_slot *w = &ctx->ws[slot];
    if (ctx->be->event_record(ctx, s, &w->event) != GPUACT_SUCCESS) {
        gpuact_result sr = ctx->be->synchronize(ctx, s);
        if (w->event) ctx->be->event_release(ctx, w->event);
        w->event = NULL;
        if (r == GPUACT_SUCCESS) r = sr;
    }
    pthread_mutex_lock(&ctx->ws_lock);
    w->hint = s;
    w->busy = 0;
    pthread_cond_signal(&ctx->ws_freed);
    pthread_mutex_unlock(&ctx->ws_lock);
    return r;
}

/* Row groups of the bias gradient for a launch of gx blocks per row:
   about `groups` (gpuact__shape's dbias_groups) blocks per compute unit; for few
   rows at most _SHORT, with at least GPUACT__DBIAS_MIN_SHORT_ROWS rows
   each; at most rows and GPUACT__MAX_GRID_Y, and few enough that the
   workspace's parts * cols * 4 bytes fit size_t (cols * 4 does: the dbias
   extent was checked). */
static size_t gpuact__dbias_parts(const gpuact_context *ctx, size_t groups, size_t gx, size_t rows, size_t cols) {
    size_t want = gpuact__div_up((size_t)ctx->units * groups, gx), parts;
    if (rows / want < GPUACT__DBIAS_MIN_GROUP_ROWS) {
        const size_t few = gpuact__div_up((size_t)ctx->units * GPUACT__DBIAS_GROUPS_PER_UNIT_SHORT, gx);
        if (few < want) want = few;
        if (want > rows / GPUACT__DBIAS_MIN_SHORT_ROWS) want = rows / GPUACT__DBIAS_MIN_SHORT_ROWS;
    }
    parts = want < rows ? want : rows;
    if (parts > GPUACT__MAX_GRID_Y) parts = GPUACT__MAX_GRID_Y;
    if (cols && parts > SIZE_MAX / 4 / cols) parts = SIZE_MAX / 4 / cols;
    return parts ? parts : 1;
}

/* rows == 0 with a bias gradient: the sum over no rows is 0 in every
   column (as PyTorch's sum over an empty dimension), so dbias gets zeros,
   from the dbias pass over zero partial rows. */
static gpuact_result gpuact__dispatch(gpuact_context *ctx, gpuact_stream s, gpuact__launch *L);
static gpuact_result gpuact__dbias_zero(gpuact_context *ctx, gpuact_stream s,
                                        const gpuact_epilogue_backward_desc *d) {
    gpuact__launch F;
    memset(&F, 0, sizeof F);
    F.v.op = GPUACT_OP_dbias;
    F.v.t[0] = GPUACT_F32; F.v.t[1] = d->dbias_dtype; F.v.t[2] = GPUACT_F32;
    F.in = d->dbias; /* never read: no rows */
    F.out = d->dbias; F.rows = 0; F.cols = F.ld_in = d->cols; F.grid_y = 1;
    return gpuact__dispatch(ctx, s, &F);
}

/* ---- >>validation ---------------------------------------------------------- */

/* One buffer argument of an operation, for the checks every operation shares. */
typedef struct gpuact__region {
    const char *name;
    gpuact_buffer buf;
    size_t bytes;   /* extent from buf.offset */
    size_t align;   /* the element size: offsets must be multiples of it */
    int output;
    int alias;      /* index of the region this one may alias exactly, or -1 */
    size_t row_bytes, ld_bytes; /* a strided matrix's row and row pitch (0: one span); see gpuact__interleaved */
} gpuact__region;

/* Whether two strided matrices of one pitch never share a byte although
   their spans overlap: the rows of one fall in the gaps between the other's
   (the two halves of a fused projection's rows). */
static int gpuact__interleaved(const gpuact__region *a, const gpuact__region *b) {
    size_t delta;
    if (!a->ld_bytes || a->ld_bytes != b->ld_bytes) return 0;
    delta = (b->buf.offset - a->buf.offset) % a->ld_bytes; /* b's rows start delta bytes into a's pitch */
    return a->row_bytes <= delta && delta + b->row_bytes <= a->ld_bytes;
}

static int gpuact__finite(float f) { return f == f && f - f == 0.0f; }

/* Bytes spanned by a rows x cols matrix with leading dimension ld; 0 on
   overflow of size_t (the caller treats that as invalid). */
static int gpuact__extent(size_t rows, size_t cols, size_t ld, size_t esize, size_t *bytes) {
    size_t elems;
    *bytes = 0;
    if (!rows || !cols) return 1;
    if (rows - 1 > (SIZE_MAX - cols) / ld) return 0;
    elems = (rows - 1) * ld + cols;
    if (elems > SIZE_MAX / esize) return 0;
    *bytes = elems * esize;
    return 1;
}

/* Whether `need` bytes from b.offset lie inside b's allocation, and the
   allocation is this context's, as far as the driver can tell (see
   GPUACT__EXTENT_*: memory the driver does not know is accepted). */
static gpuact_result gpuact__check_extent(gpuact_context *ctx, const char *fn, const char *name, gpuact_buffer b,
                                          size_t need) {
    size_t size = 0;
    const char *kind = ctx->desc.backend == GPUACT_BACKEND_OPENCL ? "cl_mem" : "device allocation";
    switch (ctx->be->buffer_extent(ctx, b, &size)) {
    case GPUACT__EXTENT_KNOWN:
        if (b.offset <= size && need <= size - b.offset) return GPUACT_SUCCESS;
        return gpuact__refuse(GPUACT_RULE_BUFFER_TOO_SMALL,
                              "%s: %s is too small: its %s holds %zu bytes, and this needs %zu bytes from "
                              "offset %zu (bytes %zu..%zu)", fn, name, kind, size, need, b.offset, b.offset,
                              b.offset + need);
    case GPUACT__EXTENT_FOREIGN:
        return gpuact__refuse(GPUACT_RULE_BUFFER_FOREIGN,
                              "%s: %s is a %s of another context; this context (%s) cannot use it. Allocate it "
                              "in this context, or create the gpuact context on that one (desc.native_context)",
                              fn, name, kind, gpuact_backend_name(ctx->desc.backend));
    case GPUACT__EXTENT_INVALID:
        return gpuact__refuse(GPUACT_RULE_BUFFER_FOREIGN, "%s: %s.handle = %p is not a %s", fn, name, b.handle,
                              kind);
    default: return GPUACT_SUCCESS;
    }
}

static gpuact_result gpuact__check_regions(gpuact_context *ctx, const char *fn, const gpuact__region *r, int n) {
    gpuact_result res;
    int i, j;
    for (i = 0; i < n; i++) {
        if (!r[i].buf.handle) continue; /* the caller decided which ones are required */
        if (r[i].buf.offset % r[i].align)
            return gpuact__refuse(GPUACT_RULE_OFFSET_MISALIGNED,
                                  "%s: %s.offset = %zu is not a multiple of its element size (%zu bytes)",
                                  fn, r[i].name, r[i].buf.offset, r[i].align);
        if (r[i].bytes > SIZE_MAX - r[i].buf.offset)
            return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "%s: %s.offset + its extent overflows size_t",
                                  fn, r[i].name);
        if (r[i].bytes && (res = gpuact__check_extent(ctx, fn, r[i].name, r[i].buf, r[i].bytes))) return res;
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            const gpuact__region *a = &r[i], *b = &r[j];
            if (!a->buf.handle || a->buf.handle != b->buf.handle || !(a->output || b->output)) continue;
            if (!a->bytes || !b->bytes) continue;
            if (a->buf.offset >= b->buf.offset + b->bytes || b->buf.offset >= a->buf.offset + a->bytes) continue;
            if ((a->alias == j || b->alias == i) && a->buf.offset == b->buf.offset && a->bytes == b->bytes)
                continue;
            if (a->buf.offset <= b->buf.offset ? gpuact__interleaved(a, b) : gpuact__interleaved(b, a)) continue;
            return gpuact__refuse(GPUACT_RULE_OVERLAP,
                                  "%s: %s (bytes %zu..%zu) and %s (bytes %zu..%zu) overlap in one allocation. "
                                  "In-place use needs exact aliasing (same handle and offset, same dtype and "
                                  "leading dimension) of an output with its input; anything else must not overlap",
                                  fn, a->name, a->buf.offset, a->buf.offset + a->bytes, b->name,
                                  b->buf.offset, b->buf.offset + b->bytes);
        }
    return GPUACT_SUCCESS;
}

static gpuact_result gpuact__check_dtype(const char *fn, const char *field, gpuact_dtype dt) {
    if (gpuact_dtype_size(dt)) return GPUACT_SUCCESS;
    return gpuact__refuse(GPUACT_RULE_DTYPE_UNKNOWN,
                          "%s: %s = %d is not a gpuact_dtype (GPUACT_F32, GPUACT_F16, GPUACT_BF16)", fn, field,
                          (int)dt);
}

/* The public enums against the contract's tables, value by value: X(public
   name, table name). A kind or dtype in one and not the other fails here. */
#define GPUACT__PUBLIC_KINDS(X)                                                                               \
    X(GPUACT_RELU, relu) X(GPUACT_LEAKY_RELU, leaky) X(GPUACT_CLIPPED_RELU, clipped) X(GPUACT_HARDTANH, hardtanh) \
    X(GPUACT_GELU, gelu) X(GPUACT_GELU_TANH, gelu_tanh) X(GPUACT_SILU, silu) X(GPUACT_SQUARED_RELU, sqrelu)
#define GPUACT__PUBLIC_DTYPES(X) X(GPUACT_F32, f32) X(GPUACT_F16, f16) X(GPUACT_BF16, bf16)
#define GPUACT__SAME_KIND_(pub, name) typedef char gpuact__kind_check_##name[(int)(pub) == GPUACT_KIND_##name ? 1 : -1];
#define GPUACT__SAME_DTYPE_(pub, name) typedef char gpuact__dtype_check_##name[(int)(pub) == GPUACT_DT_##name ? 1 : -1];
#define GPUACT__ONE_(pub, name) +1
GPUACT__PUBLIC_KINDS(GPUACT__SAME_KIND_)
GPUACT__PUBLIC_DTYPES(GPUACT__SAME_DTYPE_)
typedef char gpuact__kind_count_check[(0 GPUACT__PUBLIC_KINDS(GPUACT__ONE_)) == GPUACT_KIND_COUNT ? 1 : -1];
typedef char gpuact__dtype_count_check[(0 GPUACT__PUBLIC_DTYPES(GPUACT__ONE_)) == GPUACT_DT_COUNT ? 1 : -1];
/* the few-bit tables' order (kernels/fewbit.h): gelu, gelu_tanh, silu, consecutive */
typedef char gpuact__fewbit_order_check[GPUACT_KIND_gelu_tanh == GPUACT_KIND_gelu + 1 &&
                                        GPUACT_KIND_silu == GPUACT_KIND_gelu + 2 &&
                                        GPUACT_CODES_KINDS == (7u << GPUACT_KIND_gelu) ? 1 : -1];

/* The kind's parameters, as its row of GPUACT_ACTIVATIONS says it uses
   them. A bound of -0 becomes +0 (torch's clamp with a bound of 0 gives +0
   for -0 below it; see kernels/act.h). */
static gpuact_result gpuact__check_act(const char *fn, gpuact_activation *a) {
#define GPUACT__KIND_USES_(name, slope, ceiling, lower, from_y, select, glu) {slope, ceiling, lower},
    static const unsigned char uses[][3] = {GPUACT_ACTIVATIONS(GPUACT__KIND_USES_) {0, 0, 0}};
    if ((unsigned)a->kind >= GPUACT_KIND_COUNT) {
        int k;
        gpuact__refuse(GPUACT_RULE_KIND_UNKNOWN, "%s: act.kind = %d is not a gpuact_activation_kind (0 to %d:", fn,
                       (int)a->kind, GPUACT_KIND_COUNT - 1);
        for (k = 0; k < GPUACT_KIND_COUNT; k++) gpuact__append(" %d %s", k, gpuact__kind_names[k]);
        gpuact__append(")");
        return GPUACT_ERROR_INVALID_ARGUMENT;
    }
    if (a->flags & ~(unsigned)GPUACT_ACT_PRECISE)
        return gpuact__refuse(GPUACT_RULE_ACT_FLAGS_UNKNOWN, "%s: act.flags = 0x%x has bits other than GPUACT_ACT_PRECISE (0x%x)",
                              fn, a->flags, (unsigned)GPUACT_ACT_PRECISE);
    if (uses[a->kind][0] && !(a->negative_slope >= 0.0f))
        return gpuact__refuse(GPUACT_RULE_SLOPE_INVALID,
                              "%s: act.negative_slope = %g; %s needs a slope >= 0 (not NaN)", fn,
                              (double)a->negative_slope, gpuact__kind_names[a->kind]);
    if (uses[a->kind][2]) {
        if (!(a->lower <= a->ceiling))
            return gpuact__refuse(GPUACT_RULE_BOUNDS_INVALID,
                                  "%s: act.lower = %g, act.ceiling = %g; %s needs lower <= ceiling (neither NaN)", fn,
                                  (double)a->lower, (double)a->ceiling, gpuact__kind_names[a->kind]);
        if (a->lower == 0.0f) a->lower = 0.0f;
        if (a->ceiling == 0.0f) a->ceiling = 0.0f;
    } else if (uses[a->kind][1] && !(a->ceiling > 0.0f)) {
        return gpuact__refuse(GPUACT_RULE_CEILING_INVALID,
                              "%s: act.ceiling = %g; %s needs a ceiling > 0 (not NaN)", fn, (double)a->ceiling,
                              gpuact__kind_names[a->kind]);
    }
    return GPUACT_SUCCESS;
}

/* scale 0 means 1; NaN and infinities are refused. */
static gpuact_result gpuact__resolve_scale(const char *fn, float *scale) {
    if (*scale == 0.0f) *scale = 1.0f;
    if (gpuact__finite(*scale)) return GPUACT_SUCCESS;
    return gpuact__refuse(GPUACT_RULE_SCALE_NOT_FINITE, "%s: scale = %g; it must be finite (0 means 1)", fn,
                          (double)*scale);
}

/* ld 0 means cols; a smaller ld is refused. */
static gpuact_result gpuact__resolve_ld(const char *fn, const char *field, size_t cols, size_t *ld) {
    if (!*ld) *ld = cols;
    if (*ld >= cols) return GPUACT_SUCCESS;
    return gpuact__refuse(GPUACT_RULE_LD_TOO_SMALL, "%s: %s = %zu is smaller than cols = %zu", fn, field,
                          *ld, cols);
}

/* mask_ld 0 means cols rounded up to 128 bits; else a multiple of 8, >= cols. */
static gpuact_result gpuact__resolve_mask_ld(const char *fn, size_t cols, size_t *mask_ld) {
    if (!*mask_ld) {
        if (cols > SIZE_MAX - 127)
            return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "%s: cols = %zu is too large for a mask", fn, cols);
        *mask_ld = (cols + 127) / 128 * 128;
    }
    if (*mask_ld % 8 == 0 && *mask_ld >= cols) return GPUACT_SUCCESS;
    return gpuact__refuse(*mask_ld % 8 ? GPUACT_RULE_MASK_LD_NOT_MULTIPLE_OF_8 : GPUACT_RULE_MASK_LD_TOO_SMALL,
                          "%s: mask_ld = %zu bits; it must be a multiple of 8 and >= cols = %zu", fn, *mask_ld,
                          cols);
}

/* Few-bit codes (FEW-BIT CODES above): code_bits 0 (none, and no buffer) or
   1-4, a kind with a table, codes_ld (0: cols rounded up to 128; else a
   multiple of 32, >= cols), and their bytes: full rows of codes_ld codes,
   then the last row's ceil(cols * bits / 8). kind is in range. */
static gpuact_result gpuact__check_codes(const char *fn, gpuact_buffer codes, int bits, int kind, size_t rows,
                                         size_t cols, size_t *codes_ld, size_t *bytes) {
    const size_t b = (size_t)bits;
    *bytes = 0;
    if (!bits && !codes.handle) return GPUACT_SUCCESS;
    if (bits < 1 || bits > 4)
        return gpuact__refuse(GPUACT_RULE_CODE_BITS_INVALID, "%s: code_bits = %d%s; it is 1, 2, 3 or 4 with codes, 0 "
                              "without", fn, bits, codes.handle ? " with a codes buffer" : "");
    if (!gpuact__kind_codes(kind))
        return gpuact__refuse(GPUACT_RULE_CODES_KIND_WITHOUT_TABLE, "%s: %s has no few-bit table (GELU, GELU tanh "
                              "and SiLU have one): leave codes absent and code_bits 0", fn, gpuact__kind_names[kind]);
    if (!*codes_ld) {
        if (cols > SIZE_MAX - 127)
            return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "%s: cols = %zu is too large for codes", fn, cols);
        *codes_ld = (cols + 127) / 128 * 128;
    } else if (*codes_ld % 32 || *codes_ld < cols) {
        return gpuact__refuse(GPUACT_RULE_CODES_LD_INVALID, "%s: codes_ld = %zu codes; it must be a multiple of 32 "
                              "and >= cols = %zu (or 0)", fn, *codes_ld, cols);
    }
    if (!gpuact__extent(rows, cols / 8 * b + (cols % 8 * b + 7) / 8, *codes_ld / 8 * b, 1, bytes))
        return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "%s: the codes span more bytes than size_t holds", fn);
    return GPUACT_SUCCESS;
}

/* Bytes of a mask: full rows of mask_ld bits, then ceil(cols / 8) bytes. */
static int gpuact__mask_extent(size_t rows, size_t cols, size_t mask_ld, size_t *bytes) {
    return gpuact__extent(rows, gpuact__div_up(cols, 8), mask_ld / 8, 1, bytes);
}

static gpuact_result gpuact__matrix_extent(const char *fn, const char *name, size_t rows, size_t cols,
                                           size_t ld, gpuact_dtype dt, size_t *bytes) {
    if (gpuact__extent(rows, cols, ld, gpuact_dtype_size(dt), bytes)) return GPUACT_SUCCESS;
    return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW,
                          "%s: %s spans more bytes than size_t holds (rows %zu, cols %zu, ld %zu, %s)", fn, name,
                          rows, cols, ld, gpuact__dtype_name(dt));
}

static gpuact_result gpuact__require(const char *fn, const char *name, gpuact_buffer b) {
    if (b.handle) return GPUACT_SUCCESS;
    return gpuact__refuse(GPUACT_RULE_BUFFER_REQUIRED, "%s: %s is absent (NULL handle) but required", fn, name);
}

/* Rounds a bound to dt, as the elementwise ops on f16/bf16 use it (round to
   nearest even; the result is again a float). A bound that rounds to zero is
   +0: a bound of -0 acts as +0 (docs/NUMERICS.md), also when the rounding
   made it (-1e-45 is -0 in f16 and bf16). */
static float gpuact__round_to_dtype(gpuact_dtype dt, float f) {
    uint32_t u, a;
    memcpy(&u, &f, 4);
    a = u & 0x7fffffffu;
    if (dt == GPUACT_F32 || a >= 0x7f800000u) return f;
    if (dt == GPUACT_BF16) {
        u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    } else if (a >= 0x477ff000u) { /* >= 65520 rounds to f16's infinity */
        u = (u & 0x80000000u) | 0x7f800000u;
    } else if (a >= 0x38800000u) { /* f16 normal: keep 10 fraction bits */
        u = (u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu;
    } else { /* f16 subnormal: a multiple of 2^-24, ties to even */
        volatile float q = (f < 0 ? -f : f) * 16777216.0f;
        volatile float r = (q + 8388608.0f) - 8388608.0f;
        float v = r / 16777216.0f;
        return f < 0 && v != 0.0f ? -v : v;
    }
    if ((u & 0x7fffffffu) == 0) u = 0;
    memcpy(&f, &u, 4);
    return f;
}

/* ---- >>operations ------------------------------------------------------------ */

/* Matrix rows a block row walks. Each block row loads its bias and sets
   up its row loop once (alignment, the shifted head, the bounds as the
   dtype), which a block of one row pays for 8-16 elements per thread.
   Longer walks amortise it in the forwards and gated forwards of the kinds
   with exp/erf/tanh and in the 16-bit ones; the other f32 ones walk one
   row (more ran slower), but for CUDA's f32 forwards writing the mask
   (mask_rows; docs/PERFORMANCE.md, "Tuning knobs"). The elementwise
   forward and backward from x of those three kinds walk rows too, on the
   long-row view (gpuact__dispatch_rows), as many as the backend's
   smooth_rows says (gpuact__shape). Their epilogue and their gated backward without the
   bias gradients walk the backend's epi_rows and glu_rows (the H200's
   row: 16 and 4, each block's tables loaded once for more rows). The
   other ops keep one row per block row (the bias-gradient kernels size
   their own grid), the backward from the few-bit codes too: a copy with a
   multiply, like the ReLU family's from the mask. */
static uint64_t gpuact__rows_per_block(const gpuact_context *ctx, const gpuact__launch *L, const gpuact__shape *sh) {
    const gpuact__variant *V = &L->v;
    uint64_t per;
    const int transcendental = gpuact__kind_transcendental(V->kind);
    const int plain = V->op == GPUACT_OP_backward || (V->op == GPUACT_OP_forward && !V->mask &&
                                                      !(L->flags & (GPUACT_F_BIAS | GPUACT_F_SCALE)));
    if (V->op == GPUACT_OP_glu_backward && !V->dbias && transcendental)
        per = sh->glu_rows;
    else if (V->op != GPUACT_OP_forward && V->op != GPUACT_OP_glu_forward &&
             !(V->op == GPUACT_OP_backward && transcendental && !V->mask))
        return 1;
    else
        per = transcendental && plain                                  ? sh->smooth_rows
              : transcendental && V->op == GPUACT_OP_forward && !V->mask ? sh->epi_rows
              : transcendental                                          ? GPUACT__ROWS_TRANSCENDENTAL
              : !gpuact__some_4byte(V) ? (V->op == GPUACT_OP_glu_forward ? GPUACT__ROWS_GLU16 : GPUACT__ROWS_16)
              : V->mask                ? sh->mask_rows
                                       : 1;
    while (per > 1 && L->grid_x * ((L->rows + per - 1) / per) < (uint64_t)ctx->units * GPUACT__ROWS_MIN_BLOCKS)
        per /= 2;
    return per;
}

/* Blocks along a row: the work-items its elements need, in blocks (of a
   backward with the bias gradient, in a row slice of a block: its block is
   ctx->dbias_slices slices of rows, kernels/contract.h). */
static uint64_t gpuact__grid_x(const gpuact_context *ctx, const gpuact__launch *L, const gpuact__shape *sh) {
    const size_t slices = L->v.op == GPUACT_OP_backward && L->v.dbias && ctx->dbias_slices ? ctx->dbias_slices : 1;
    return L->v.op == GPUACT_OP_dbias
               ? gpuact__div_up((size_t)L->cols, GPUACT_DBIAS_COLS)
               : gpuact__div_up(gpuact__div_up((size_t)L->cols, sh->items), sh->block / slices);
}

/* A launch's geometry, worked out once from the backend's shape (L's
   variant, rows and cols set): the block and its fallback, the blocks
   along a row (unless the caller set grid_x) and the block rows (unless it
   set grid_y): a block row per gpuact__rows_per_block matrix rows, up to
   the grid's limit (one wave of blocks walking many rows each ran slower;
   docs/PERFORMANCE.md, "Tuning knobs"). Returns the rows a block row walks. */
static uint64_t gpuact__geometry(const gpuact_context *ctx, gpuact__launch *L, gpuact__shape *sh) {
    uint64_t per;
    ctx->be->shape(ctx, L, sh);
    L->block = sh->block;
    L->block_fallback = sh->fallback;
    if (!L->grid_x) L->grid_x = gpuact__grid_x(ctx, L, sh);
    per = gpuact__rows_per_block(ctx, L, sh);
    if (!L->grid_y) {
        const uint64_t gy = (L->rows + per - 1) / per;
        L->grid_y = gy < GPUACT__MAX_GRID_Y ? gy : GPUACT__MAX_GRID_Y;
    }
    return per;
}
static gpuact_result gpuact__dispatch(gpuact_context *ctx, gpuact_stream s, gpuact__launch *L);

/* A long elementwise row of a kind with exp/erf/tanh (forward, or
   backward without the bias gradient; one dtype, no bias, no mask but
   few-bit codes) is
   launched as the matrix of GPUACT__VIEW_COLS-element rows its contiguous
   elements are, then the rest as one row, when block rows would walk
   several rows of that matrix (gpuact__rows_per_block), so its blocks
   amortise their setup over rows as the epilogues' do (docs/PERFORMANCE.md,
   "Tuning knobs").
   Otherwise, and for every other launch, L as it is. Every buffer was
   validated for the whole row before; the rest is a launch of the same
   kernel. L comes from gpuact__forward or from gpuact__backward without
   the bias gradient, its grid not yet set (a transcendental kind's mask is
   its few-bit codes, whose rows follow the view's). */
#ifndef GPUACT__VIEW_COLS
#define GPUACT__VIEW_COLS 8192
#endif
static gpuact_result gpuact__dispatch_rows(gpuact_context *ctx, gpuact_stream s, gpuact__launch *L) {
    const uint64_t C = GPUACT__VIEW_COLS;
    const size_t es = gpuact_dtype_size(L->v.t[0]);
    gpuact__launch M;
    gpuact__shape sh;
    gpuact_result r;
    if (L->rows != 1 || L->cols < 2 * C || !gpuact__kind_transcendental(L->v.kind) || (L->flags & GPUACT_F_BIAS) ||
        gpuact_dtype_size(L->v.t[1]) != es || gpuact_dtype_size(L->v.t[2]) != es)
        return gpuact__dispatch(ctx, s, L);
    M = *L;
    M.rows = L->cols / C;
    M.cols = M.ld_in = M.ld_out = M.ld_aux = C;
    M.mask_ld = C * (L->flags / GPUACT_F_CODE_BITS % 8); /* the few-bit codes' rows, in bits */
    if (gpuact__geometry(ctx, &M, &sh) == 1) return gpuact__dispatch(ctx, s, L);
    if ((r = gpuact__dispatch(ctx, s, &M)) != GPUACT_SUCCESS || L->cols % C == 0) return r;
    M = *L; /* the rest: one row, each array that many elements on */
    M.cols = L->cols % C;
    M.in.offset += (size_t)(L->cols - M.cols) * es;
    M.out.offset += (size_t)(L->cols - M.cols) * es;
    if (M.aux.handle) M.aux.offset += (size_t)(L->cols - M.cols) * es;
    if (M.mask.handle) M.mask.offset += (size_t)(L->cols - M.cols) / 8 * (L->flags / GPUACT_F_CODE_BITS % 8);
    return gpuact__dispatch(ctx, s, &M);
}

/* The rows' layout a kernel takes (GPUACT_LAYOUT_*, kernels/contract.h),
   from the arrays it accesses in 16-byte vectors: the forward's x, y and
   bias; the backward's dy, dx, the forward's x or y unless the region
   comes from the mask, and the bias; the gated ops' inputs, outputs and
   biases. Aligned when every such array's row starts are 16-byte aligned.
   Else, where the backend's kernel has the head path (GPUACT_HEAD_PATH;
   the backward also without the bias): when all of them are the same number
   of bytes off the 16-byte grid, a whole number of elements (a view offset
   by a few elements, in place or not), and their rows keep that, the
   vectors start at the first aligned element, `shift` columns on. The bias
   gradient's finish takes no vectors. */
static int gpuact__layout(const gpuact_context *ctx, const gpuact__launch *L) {
    const gpuact__variant *V = &L->v;
    const int bias = (L->flags & GPUACT_F_BIAS) != 0;
    const size_t es = gpuact_dtype_size(V->t[0]);
    struct { const gpuact_buffer *b; uint64_t ld; size_t size; } a[7]; /* ld in elements of size bytes */
    int n = 0, i, same_phase = 1, one_size = 1, rows_ok = 1;
    uint64_t phase = 0;
#define GPUACT__LAYOUT_ARRAY_(buf, stride, dt) \
    do {                                       \
        a[n].b = &L->buf;                      \
        a[n].ld = (stride);                    \
        a[n++].size = gpuact_dtype_size(dt);   \
    } while (0)
    if (V->op == GPUACT_OP_dbias) return 0;
    GPUACT__LAYOUT_ARRAY_(in, L->ld_in, V->t[0]);
    GPUACT__LAYOUT_ARRAY_(out, L->ld_out, V->t[1]);
    if (V->op == GPUACT_OP_glu_forward || V->op == GPUACT_OP_glu_backward) {
        const gpuact_dtype x = V->t[V->op == GPUACT_OP_glu_forward ? 0 : 1];
        GPUACT__LAYOUT_ARRAY_(aux, L->ld_aux, x);
        if (V->op == GPUACT_OP_glu_backward) {
            GPUACT__LAYOUT_ARRAY_(aux2, L->ld_aux2, x);
            GPUACT__LAYOUT_ARRAY_(out2, L->ld_out2, x);
        }
        if (bias) GPUACT__LAYOUT_ARRAY_(bias2, 0, x);
    } else if (V->op == GPUACT_OP_backward && !V->mask) {
        GPUACT__LAYOUT_ARRAY_(aux, L->ld_aux, V->t[2]);
    }
    if (bias) GPUACT__LAYOUT_ARRAY_(bias, 0, V->t[2]);
#undef GPUACT__LAYOUT_ARRAY_
    for (i = 0; i < n; i++) {
        const uint64_t addr = (ctx->address_handles ? (uint64_t)(uintptr_t)a[i].b->handle : 0) + a[i].b->offset;
        if (i == 0) phase = addr % 16;
        same_phase = same_phase && addr % 16 == phase;
        one_size = one_size && a[i].size == es;
        rows_ok = rows_ok && (L->rows == 1 || a[i].ld * a[i].size % 16 == 0);
    }
    if (!same_phase || !rows_ok) return 0;
    if (phase == 0) return GPUACT_LAYOUT_ALIGNED;
    /* one_size covers y; the forward's bias dtype counts even without a bias, as the kernel's does */
    if (!ctx->shifted_rows || phase % es != 0 || (V->op == GPUACT_OP_backward && bias) ||
        !GPUACT_HEAD_PATH(V->op, V->mask, V->dbias, one_size && gpuact_dtype_size(V->t[2]) == es))
        return 0;
    return GPUACT_LAYOUT_ALIGNED | (int)((16 - phase) / es) * GPUACT_LAYOUT_SHIFT;
}

/* Geometry (unless worked out already) and layout, then the backend. */
static gpuact_result gpuact__dispatch(gpuact_context *ctx, gpuact_stream s, gpuact__launch *L) {
    gpuact__shape sh;
    if (!L->block) gpuact__geometry(ctx, L, &sh);
    L->layout = gpuact__layout(ctx, L);
    if (!gpuact__variant_reachable(&L->v)) {
        char name[GPUACT__NAME_MAX];
        gpuact__variant_name(&L->v, name, sizeof name);
        return gpuact__fail(GPUACT_ERROR_NOT_SUPPORTED, "gpuact internal error: %s is not a kernel variant", name);
    }
    {
        gpuact_result r = ctx->be->launch(ctx, s, L);
        if (r == GPUACT_SUCCESS) GPUACT__STORE_RELAXED(&ctx->launched[gpuact__variant_index(&L->v)], (unsigned char)1);
        return r;
    }
}

typedef struct gpuact__fwd {
    const char *fn;
    int elementwise;           /* round a clipped ceiling to the dtype */
    gpuact_epilogue_desc d;
} gpuact__fwd;

static gpuact_result gpuact__forward(gpuact_context *ctx, gpuact__fwd *f, gpuact_stream s) {
    gpuact_epilogue_desc *d = &f->d;
    const char *fn = f->fn;
    gpuact__region reg[5];
    gpuact__launch L;
    size_t xb, yb, bb = 0, mb = 0, cb = 0;
    gpuact_result r;
    int has_data;
    GPUACT__NEED_CTX(fn);
    if ((r = gpuact__check_act(fn, &d->act)) || (r = gpuact__check_dtype(fn, "x_dtype", d->x_dtype)) ||
        (r = gpuact__check_dtype(fn, "y_dtype", d->y_dtype)) ||
        (d->bias.handle && (r = gpuact__check_dtype(fn, "bias_dtype", d->bias_dtype))) ||
        (r = gpuact__resolve_scale(fn, &d->scale)) || (r = gpuact__resolve_ld(fn, "ld_x", d->cols, &d->ld_x)) ||
        (r = gpuact__resolve_ld(fn, "ld_y", d->cols, &d->ld_y)) ||
        (d->mask.handle && (r = gpuact__resolve_mask_ld(fn, d->cols, &d->mask_ld))) ||
        (r = gpuact__matrix_extent(fn, "x", d->rows, d->cols, d->ld_x, d->x_dtype, &xb)) ||
        (r = gpuact__matrix_extent(fn, "y", d->rows, d->cols, d->ld_y, d->y_dtype, &yb)) ||
        (d->bias.handle && (r = gpuact__matrix_extent(fn, "bias", 1, d->cols, d->cols, d->bias_dtype, &bb))) ||
        (r = gpuact__check_codes(fn, d->codes, d->code_bits, (int)d->act.kind, d->rows, d->cols, &d->codes_ld, &cb)))
        return r;
    if (d->code_bits && d->bias.handle && d->bias_dtype != d->x_dtype)
        return gpuact__refuse(GPUACT_RULE_CODES_BIAS_DTYPE, "%s: the forward writing codes takes its bias in x's dtype "
                              "(%s), not %s", fn, gpuact__dtype_name(d->x_dtype), gpuact__dtype_name(d->bias_dtype));
    if (d->mask.handle && !gpuact__kind_select(d->act.kind))
        return gpuact__refuse(GPUACT_RULE_MASK_FOR_SMOOTH_KIND,
                              "%s: %s has no 1-bit mask (its gradient is not 0 or 1): leave mask absent and keep x "
                              "for the backward", fn, gpuact__kind_names[d->act.kind]);
    if (d->mask.handle && !gpuact__mask_extent(d->rows, d->cols, d->mask_ld, &mb))
        return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "%s: the mask spans more bytes than size_t holds", fn);
    has_data = d->rows && d->cols;
    if (has_data && ((r = gpuact__require(fn, "x", d->x)) || (r = gpuact__require(fn, "y", d->y)) ||
                     (d->code_bits && (r = gpuact__require(fn, "codes", d->codes)))))
        return r;
    memset(reg, 0, sizeof reg);
    reg[0].name = "x";    reg[0].buf = d->x;    reg[0].bytes = xb; reg[0].align = gpuact_dtype_size(d->x_dtype);
    reg[0].output = 0;    reg[0].alias = -1;
    reg[1].name = "y";    reg[1].buf = d->y;    reg[1].bytes = yb; reg[1].align = gpuact_dtype_size(d->y_dtype);
    reg[1].output = 1;    reg[1].alias = d->x_dtype == d->y_dtype && d->ld_x == d->ld_y ? 0 : -1;
    reg[2].name = "bias"; reg[2].buf = d->bias; reg[2].bytes = bb;
    reg[2].align = d->bias.handle ? gpuact_dtype_size(d->bias_dtype) : 1;
    reg[2].output = 0;    reg[2].alias = -1;
    reg[3].name = "mask"; reg[3].buf = d->mask; reg[3].bytes = mb; reg[3].align = 1;
    reg[3].output = 1;    reg[3].alias = -1;
    reg[4].name = "codes"; reg[4].buf = d->codes; reg[4].bytes = cb; reg[4].align = 4;
    reg[4].output = 1;    reg[4].alias = -1;
    if ((r = gpuact__check_regions(ctx, fn, reg, 5)) || !has_data) return r;

    memset(&L, 0, sizeof L);
    L.v.op = GPUACT_OP_forward;
    L.v.t[0] = d->x_dtype;
    L.v.t[1] = d->y_dtype;
    L.v.t[2] = d->bias.handle ? d->bias_dtype : d->x_dtype;
    L.in = d->x; L.out = d->y; L.bias = d->bias; L.mask = d->mask;
    L.rows = d->rows; L.cols = d->cols; L.ld_in = d->ld_x; L.ld_out = d->ld_y; L.mask_ld = d->mask_ld;
    L.scale = d->scale; L.slope = d->act.negative_slope; L.v.kind = (int)d->act.kind; L.v.precise = gpuact__act_precise(&d->act);
    L.ceiling = f->elementwise ? gpuact__round_to_dtype(d->x_dtype, d->act.ceiling) : d->act.ceiling;
    L.lower = f->elementwise ? gpuact__round_to_dtype(d->x_dtype, d->act.lower) : d->act.lower;
    L.flags = (d->bias.handle ? GPUACT_F_BIAS : 0) | (d->scale != 1.0f ? GPUACT_F_SCALE : 0) |
              (!d->bias.handle && d->scale == 1.0f && d->x_dtype == d->y_dtype ? GPUACT_F_RAW : 0);
    /* plain: y is a selection of x's bits (the clip test runs on bits, so
       the bounds must be exact in x's dtype: the elementwise ops round them). */
    L.v.mask = d->mask.handle != NULL;
    if (d->code_bits) { /* the few-bit codes: the kind's mask variant (kernels/contract.h) */
        L.v.mask = 1;
        L.mask = d->codes;
        L.mask_ld = d->codes_ld * (size_t)d->code_bits;
        L.flags |= d->code_bits * GPUACT_F_CODE_BITS;
    }
    L.v.select = gpuact__kind_select(L.v.kind) && !d->bias.handle && d->scale == 1.0f &&
                 d->x_dtype == d->y_dtype && gpuact__round_to_dtype(d->x_dtype, L.ceiling) == L.ceiling &&
                 gpuact__round_to_dtype(d->x_dtype, L.lower) == L.lower;
    return gpuact__dispatch_rows(ctx, s ? s : ctx->desc.stream, &L);
}

typedef struct gpuact__bwd {
    const char *fn;
    int elementwise;
    const char *src_name;      /* "x" (elementwise) or "y" (epilogue) */
    gpuact_epilogue_backward_desc d;
} gpuact__bwd;

static gpuact_result gpuact__backward(gpuact_context *ctx, gpuact__bwd *b, gpuact_stream s) {
    gpuact_epilogue_backward_desc *d = &b->d;
    const char *fn = b->fn;
    gpuact__region reg[8];
    gpuact__launch L;
    size_t dyb, dxb, yb = 0, mb = 0, db = 0, xb = 0, bb = 0, cb = 0;
    gpuact_result r;
    int has_data, sources, smooth;
    GPUACT__NEED_CTX(fn);
    has_data = d->rows && d->cols;
    sources = (d->y.handle != NULL) + (d->mask.handle != NULL) + (d->x.handle != NULL) + (d->code_bits != 0);
    if (sources > 1 || (!sources && has_data))
        return gpuact__refuse(GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE, "%s: give exactly one of %s, mask and codes; %s", fn,
                              b->elementwise ? "x (the forward's input or output)" : "y (the forward's output), x",
                              sources ? "more than one was given" : "none was given");
    if ((r = gpuact__check_act(fn, &d->act)) || (r = gpuact__check_dtype(fn, "dy_dtype", d->dy_dtype)) ||
        (r = gpuact__check_dtype(fn, "dx_dtype", d->dx_dtype)) ||
        (d->y.handle && (r = gpuact__check_dtype(fn, "y_dtype", d->y_dtype))) ||
        (d->x.handle && (r = gpuact__check_dtype(fn, "x_dtype", d->x_dtype))) ||
        (d->dbias.handle && (r = gpuact__check_dtype(fn, "dbias_dtype", d->dbias_dtype))) ||
        (r = gpuact__resolve_scale(fn, &d->scale)) ||
        (r = gpuact__resolve_ld(fn, "ld_dy", d->cols, &d->ld_dy)) ||
        (r = gpuact__resolve_ld(fn, "ld_dx", d->cols, &d->ld_dx)) ||
        (d->y.handle && (r = gpuact__resolve_ld(fn, "ld_y", d->cols, &d->ld_y))) ||
        (d->x.handle && (r = gpuact__resolve_ld(fn, "ld_x", d->cols, &d->ld_x))) ||
        (d->mask.handle && (r = gpuact__resolve_mask_ld(fn, d->cols, &d->mask_ld))) ||
        (r = gpuact__matrix_extent(fn, "dy", d->rows, d->cols, d->ld_dy, d->dy_dtype, &dyb)) ||
        (r = gpuact__matrix_extent(fn, "dx", d->rows, d->cols, d->ld_dx, d->dx_dtype, &dxb)) ||
        (d->y.handle && (r = gpuact__matrix_extent(fn, b->src_name, d->rows, d->cols, d->ld_y, d->y_dtype, &yb))) ||
        (d->x.handle && (r = gpuact__matrix_extent(fn, "x", d->rows, d->cols, d->ld_x, d->x_dtype, &xb))) ||
        (d->x.handle && d->bias.handle &&
         (r = gpuact__matrix_extent(fn, "bias", 1, d->cols, d->cols, d->x_dtype, &bb))) ||
        (d->dbias.handle && (r = gpuact__matrix_extent(fn, "dbias", 1, d->cols, d->cols, d->dbias_dtype, &db))) ||
        (r = gpuact__check_codes(fn, d->codes, d->code_bits, (int)d->act.kind, d->rows, d->cols, &d->codes_ld, &cb)))
        return r;
    smooth = !gpuact__kind_select(d->act.kind);
    if (d->bias.handle && !d->x.handle)
        return gpuact__refuse(GPUACT_RULE_BIAS_WITHOUT_X,
                              "%s: bias is only read with x (the backward from the forward's input); it was given "
                              "with %s", fn, d->code_bits ? "codes" : d->mask.handle ? "mask" : "y");
    if (d->x.handle && !smooth)
        return gpuact__refuse(GPUACT_RULE_X_SOURCE_NEEDS_SMOOTH_KIND,
                              "%s: x is the source of the smooth kinds' backward; %s takes the forward's mask%s", fn,
                              gpuact__kind_names[d->act.kind], gpuact__kind_from_y(d->act.kind) ? " or y" : "");
    if (smooth && d->mask.handle)
        return gpuact__refuse(GPUACT_RULE_MASK_FOR_SMOOTH_KIND,
                              "%s: %s has no 1-bit mask (its gradient is not 0 or 1): give the forward's input x%s",
                              fn, gpuact__kind_names[d->act.kind], b->elementwise ? "" : " (and its bias)");
    if (d->y.handle && !b->elementwise && !gpuact__kind_from_y(d->act.kind))
        return gpuact__refuse(GPUACT_RULE_Y_SOURCE_UNSUPPORTED_KIND,
                              smooth ? "%s: %s's epilogue backward needs the forward's input x (and its bias): the "
                                       "derivative is taken at x + bias, which y does not determine"
                                     : "%s: %s's epilogue backward needs the forward's mask: its output y cannot "
                                       "tell x + bias >= ceiling from x + bias just below it after scaling (and x "
                                       "is the smooth kinds' source only)", fn, gpuact__kind_names[d->act.kind]);
    if (d->y.handle && !(d->scale > 0.0f) && !(b->elementwise && smooth))
        return gpuact__refuse(GPUACT_RULE_Y_SOURCE_NEEDS_POSITIVE_SCALE,
                              "%s: the backward from y needs scale > 0 (got %g): a negative scale flips the "
                              "sign y carries; use the mask or x", fn, (double)d->scale);
    if (d->mask.handle && !gpuact__mask_extent(d->rows, d->cols, d->mask_ld, &mb))
        return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "%s: the mask spans more bytes than size_t holds", fn);
    if (has_data && ((r = gpuact__require(fn, "dy", d->dy)) || (r = gpuact__require(fn, "dx", d->dx)) ||
                     (d->code_bits && (r = gpuact__require(fn, "codes", d->codes)))))
        return r;
    memset(reg, 0, sizeof reg);
    reg[0].name = "dy";  reg[0].buf = d->dy;  reg[0].bytes = dyb; reg[0].align = gpuact_dtype_size(d->dy_dtype);
    reg[0].output = 0;   reg[0].alias = -1;
    reg[1].name = "dx";  reg[1].buf = d->dx;  reg[1].bytes = dxb; reg[1].align = gpuact_dtype_size(d->dx_dtype);
    reg[1].output = 1;   reg[1].alias = d->dy_dtype == d->dx_dtype && d->ld_dy == d->ld_dx ? 0 : -1;
    reg[2].name = b->src_name; reg[2].buf = d->y; reg[2].bytes = yb;
    reg[2].align = d->y.handle ? gpuact_dtype_size(d->y_dtype) : 1;
    reg[2].output = 0;   reg[2].alias = -1;
    reg[3].name = "mask"; reg[3].buf = d->mask; reg[3].bytes = mb; reg[3].align = 1;
    reg[3].output = 0;   reg[3].alias = -1;
    reg[4].name = "dbias"; reg[4].buf = d->dbias; reg[4].bytes = db;
    reg[4].align = d->dbias.handle ? gpuact_dtype_size(d->dbias_dtype) : 1;
    reg[4].output = 1;   reg[4].alias = -1;
    reg[5].name = "x";   reg[5].buf = d->x;   reg[5].bytes = xb;
    reg[5].align = d->x.handle ? gpuact_dtype_size(d->x_dtype) : 1;
    reg[5].output = 0;   reg[5].alias = -1;
    reg[6].name = "bias"; reg[6].buf = d->bias; reg[6].bytes = bb; reg[6].align = reg[5].align;
    reg[6].output = 0;   reg[6].alias = -1;
    reg[7].name = "codes"; reg[7].buf = d->codes; reg[7].bytes = cb; reg[7].align = 4;
    reg[7].output = 0;   reg[7].alias = -1;
    if ((r = gpuact__check_regions(ctx, fn, reg, 8))) return r;
    if (!s) s = ctx->desc.stream;
    if (!has_data) return d->dbias.handle && d->cols ? gpuact__dbias_zero(ctx, s, d) : GPUACT_SUCCESS;

    memset(&L, 0, sizeof L);
    L.v.op = GPUACT_OP_backward;
    L.v.t[0] = d->dy_dtype;
    L.v.t[1] = d->dx_dtype;
    L.v.t[2] = d->y.handle ? d->y_dtype : d->x.handle ? d->x_dtype : d->dy_dtype;
    L.in = d->dy; L.out = d->dx; L.aux = d->x.handle ? d->x : d->y; L.bias = d->bias; L.mask = d->mask;
    L.rows = d->rows; L.cols = d->cols; L.ld_in = d->ld_dy; L.ld_out = d->ld_dx;
    L.ld_aux = d->x.handle ? d->ld_x : d->ld_y;
    L.mask_ld = d->mask_ld; L.scale = d->scale; L.slope = d->act.negative_slope; L.v.kind = (int)d->act.kind; L.v.precise = gpuact__act_precise(&d->act);
    L.ceiling = b->elementwise ? gpuact__round_to_dtype(d->dy_dtype, d->act.ceiling) : d->act.ceiling;
    L.lower = b->elementwise ? gpuact__round_to_dtype(d->dy_dtype, d->act.lower) : d->act.lower;
    L.flags = (d->scale != 1.0f ? GPUACT_F_SCALE : 0) | (d->bias.handle ? GPUACT_F_BIAS : 0);
    L.v.mask = d->mask.handle != NULL;
    L.v.dbias = d->dbias.handle != NULL;
    /* z in f32 from the forward's input: the smooth kinds */
    L.v.fromx = smooth;
    L.v.select = !smooth && d->scale == 1.0f && d->dy_dtype == d->dx_dtype;
    if (d->code_bits) { /* the few-bit codes: gelu's mask variant, the kind's table in the flags */
        L.v.t[2] = d->dy_dtype;
        L.v.kind = GPUACT_KIND_gelu;
        L.v.mask = 1;
        L.v.fromx = L.v.precise = 0;
        L.mask = d->codes;
        L.mask_ld = d->codes_ld * (size_t)d->code_bits;
        L.flags |= d->code_bits * GPUACT_F_CODE_BITS + ((int)d->act.kind - GPUACT_KIND_gelu) * GPUACT_F_CODE_TABLE;
    }
    if (d->dbias.handle) {
        /* Deterministic bias gradient: each of `parts` row groups writes its
           column sums to the workspace in a fixed order, then one pass adds
           the parts in order. No atomics, so every run gives the same bits. */
        const size_t slices = ctx->dbias_slices ? ctx->dbias_slices : 1;
        size_t parts;
        gpuact__launch F;
        gpuact__shape sh;
        int slot;
        gpuact__geometry(ctx, &L, &sh);
        parts = gpuact__dbias_parts(ctx, sh.dbias_groups, L.grid_x, gpuact__div_up(d->rows, slices), d->cols);
        if ((r = gpuact__workspace(ctx, s, parts * d->cols * 4, &L.part, &slot))) return r;
        L.grid_y = parts;
        memset(&F, 0, sizeof F);
        F.v.op = GPUACT_OP_dbias;
        F.v.t[0] = GPUACT_F32; F.v.t[1] = d->dbias_dtype; F.v.t[2] = GPUACT_F32;
        F.in = L.part; F.out = d->dbias; F.rows = parts; F.cols = F.ld_in = d->cols;
        F.grid_y = 1;
        if ((r = gpuact__dispatch(ctx, s, &L)) == GPUACT_SUCCESS) r = gpuact__dispatch(ctx, s, &F);
        return gpuact__workspace_release(ctx, s, slot, r);
    }
    return gpuact__dispatch_rows(ctx, s, &L);
}

/* The elementwise operations are the epilogue on one row, without bias or
   scale: one code path, one set of kernels. */
GPUACT_DEF gpuact_result gpuact_forward(gpuact_context *ctx, const gpuact_forward_desc *d, gpuact_stream s) {
    gpuact__fwd f;
    gpuact_result r;
    if (!d) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_forward: desc is NULL");
    if ((r = gpuact__check_dtype("gpuact_forward", "dtype", d->dtype))) return r;
    if (d->n > SIZE_MAX / gpuact_dtype_size(d->dtype))
        return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "gpuact_forward: n = %zu elements of %s overflow size_t",
                              d->n, gpuact__dtype_name(d->dtype));
    memset(&f, 0, sizeof f);
    f.fn = "gpuact_forward";
    f.elementwise = 1;
    f.d.act = d->act;
    f.d.rows = 1; f.d.cols = d->n;
    f.d.x_dtype = f.d.y_dtype = f.d.bias_dtype = d->dtype;
    f.d.x = d->x; f.d.y = d->y; f.d.mask = d->mask;
    f.d.mask_ld = gpuact__div_up(d->n, 8) * 8;
    f.d.codes = d->codes; f.d.code_bits = d->code_bits;
    f.d.codes_ld = gpuact__div_up(d->n, 32) * 32;
    return gpuact__forward(ctx, &f, s);
}

GPUACT_DEF gpuact_result gpuact_backward(gpuact_context *ctx, const gpuact_backward_desc *d, gpuact_stream s) {
    gpuact__bwd b;
    gpuact_result r;
    if (!d) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_backward: desc is NULL");
    if ((r = gpuact__check_dtype("gpuact_backward", "dtype", d->dtype))) return r;
    if (d->n > SIZE_MAX / gpuact_dtype_size(d->dtype))
        return gpuact__refuse(GPUACT_RULE_SIZE_OVERFLOW, "gpuact_backward: n = %zu elements of %s overflow size_t",
                              d->n, gpuact__dtype_name(d->dtype));
    memset(&b, 0, sizeof b);
    b.fn = "gpuact_backward";
    b.elementwise = 1;
    b.src_name = "x";
    b.d.act = d->act;
    b.d.rows = 1; b.d.cols = d->n;
    b.d.dy_dtype = b.d.dx_dtype = b.d.y_dtype = d->dtype;
    b.d.dy = d->dy; b.d.dx = d->dx; b.d.y = d->x; b.d.mask = d->mask;
    b.d.mask_ld = gpuact__div_up(d->n, 8) * 8;
    b.d.codes = d->codes; b.d.code_bits = d->code_bits;
    b.d.codes_ld = gpuact__div_up(d->n, 32) * 32;
    return gpuact__backward(ctx, &b, s);
}

GPUACT_DEF gpuact_result gpuact_relu_forward(gpuact_context *ctx, gpuact_dtype dt, size_t n, gpuact_buffer x,
                                             gpuact_buffer y, gpuact_stream s) {
    gpuact_forward_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = dt; d.n = n; d.x = x; d.y = y;
    return gpuact_forward(ctx, &d, s);
}

GPUACT_DEF gpuact_result gpuact_relu_backward(gpuact_context *ctx, gpuact_dtype dt, size_t n, gpuact_buffer dy,
                                              gpuact_buffer x, gpuact_buffer dx, gpuact_stream s) {
    gpuact_backward_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = dt; d.n = n; d.dy = dy; d.x = x; d.dx = dx;
    return gpuact_backward(ctx, &d, s);
}

GPUACT_DEF gpuact_result gpuact_epilogue_forward(gpuact_context *ctx, const gpuact_epilogue_desc *d,
                                                 gpuact_stream s) {
    gpuact__fwd f;
    if (!d) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_epilogue_forward: desc is NULL");
    f.fn = "gpuact_epilogue_forward";
    f.elementwise = 0;
    f.d = *d;
    return gpuact__forward(ctx, &f, s);
}

GPUACT_DEF gpuact_result gpuact_epilogue_backward(gpuact_context *ctx, const gpuact_epilogue_backward_desc *d,
                                                  gpuact_stream s) {
    gpuact__bwd b;
    if (!d) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_epilogue_backward: desc is NULL");
    b.fn = "gpuact_epilogue_backward";
    b.elementwise = 0;
    b.src_name = "y";
    b.d = *d;
    return gpuact__backward(ctx, &b, s);
}

/* ---- >>glu: the gated forms ---------------------------------------------------- */

/* One matrix argument of a glu op: its region (strided, for the halves
   check) after its ld is resolved and its extent checked. */
static gpuact_result gpuact__glu_matrix(const char *fn, const char *name, const char *ld_name, size_t rows,
                                        size_t cols, size_t *ld, gpuact_dtype dt, gpuact_buffer b, int output,
                                        gpuact__region *reg) {
    gpuact_result r;
    memset(reg, 0, sizeof *reg);
    if ((r = gpuact__resolve_ld(fn, ld_name, cols, ld)) ||
        (r = gpuact__matrix_extent(fn, name, rows, cols, *ld, dt, &reg->bytes)))
        return r;
    if (rows && cols && (r = gpuact__require(fn, name, b))) return r;
    reg->name = name;
    reg->buf = b;
    reg->align = gpuact_dtype_size(dt);
    reg->output = output;
    reg->alias = -1;
    reg->row_bytes = cols * reg->align;
    reg->ld_bytes = rows > 1 ? *ld * reg->align : 0;
    return GPUACT_SUCCESS;
}

/* A vector of cols elements (a bias or its gradient), optional. */
static gpuact_result gpuact__glu_vector(const char *fn, const char *name, size_t cols, gpuact_dtype dt,
                                        gpuact_buffer b, int output, gpuact__region *reg) {
    memset(reg, 0, sizeof *reg);
    reg->name = name;
    reg->buf = b;
    reg->align = b.handle ? gpuact_dtype_size(dt) : 1;
    reg->output = output;
    reg->alias = -1;
    return b.handle ? gpuact__matrix_extent(fn, name, 1, cols, cols, dt, &reg->bytes) : GPUACT_SUCCESS;
}

static gpuact_result gpuact__glu_common(const char *fn, gpuact_activation *act, gpuact_buffer p, gpuact_buffer q,
                                        const char *pq) {
    gpuact_result r;
    int k;
    if ((r = gpuact__check_act(fn, act))) return r;
    if ((p.handle == NULL) != (q.handle == NULL))
        return gpuact__refuse(GPUACT_RULE_BOTH_OR_NEITHER, "%s: give both of %s or neither", fn, pq);
    if (gpuact__kind_glu(act->kind)) return GPUACT_SUCCESS;
    gpuact__refuse(GPUACT_RULE_KIND_NOT_GATED, "%s: act.kind = %s does not gate; the glu ops take", fn,
                   gpuact__kind_names[act->kind]);
    for (k = 0; k < GPUACT_KIND_COUNT; k++)
        if (gpuact__kind_glu(k)) gpuact__append(" %s", gpuact__kind_names[k]);
    return GPUACT_ERROR_INVALID_ARGUMENT;
}

GPUACT_DEF gpuact_result gpuact_glu_forward(gpuact_context *ctx, const gpuact_glu_desc *dp, gpuact_stream s) {
    const char *fn = "gpuact_glu_forward";
    gpuact_glu_desc d;
    gpuact__region reg[5];
    gpuact__launch L;
    gpuact_result r;
    if (!dp) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "%s: desc is NULL", fn);
    GPUACT__NEED_CTX(fn);
    d = *dp;
    if ((r = gpuact__glu_common(fn, &d.act, d.bias_a, d.bias_b, "bias_a and bias_b")) ||
        (r = gpuact__check_dtype(fn, "x_dtype", d.x_dtype)) || (r = gpuact__check_dtype(fn, "y_dtype", d.y_dtype)) ||
        (r = gpuact__glu_matrix(fn, "a", "ld_a", d.rows, d.cols, &d.ld_a, d.x_dtype, d.a, 0, &reg[0])) ||
        (r = gpuact__glu_matrix(fn, "b", "ld_b", d.rows, d.cols, &d.ld_b, d.x_dtype, d.b, 0, &reg[1])) ||
        (r = gpuact__glu_matrix(fn, "y", "ld_y", d.rows, d.cols, &d.ld_y, d.y_dtype, d.y, 1, &reg[2])) ||
        (r = gpuact__glu_vector(fn, "bias_a", d.cols, d.x_dtype, d.bias_a, 0, &reg[3])) ||
        (r = gpuact__glu_vector(fn, "bias_b", d.cols, d.x_dtype, d.bias_b, 0, &reg[4])) ||
        (r = gpuact__check_regions(ctx, fn, reg, 5)) || !d.rows || !d.cols)
        return r;
    memset(&L, 0, sizeof L);
    L.v.op = GPUACT_OP_glu_forward;
    L.v.t[0] = L.v.t[2] = d.x_dtype;
    L.v.t[1] = d.y_dtype;
    L.v.kind = (int)d.act.kind;
    L.v.precise = gpuact__act_precise(&d.act);
    L.in = d.a; L.aux = d.b; L.out = d.y; L.bias = d.bias_a; L.bias2 = d.bias_b;
    L.rows = d.rows; L.cols = d.cols; L.ld_in = d.ld_a; L.ld_aux = d.ld_b; L.ld_out = d.ld_y;
    L.flags = d.bias_a.handle ? GPUACT_F_BIAS : 0;
    return gpuact__dispatch(ctx, s ? s : ctx->desc.stream, &L);
}

/* dbias[c] = 0 for c < cols: the sum over no rows. */
static gpuact_result gpuact__zero_vector(gpuact_context *ctx, gpuact_stream s, gpuact_buffer v, gpuact_dtype dt,
                                         size_t cols) {
    gpuact__launch F;
    memset(&F, 0, sizeof F);
    F.v.op = GPUACT_OP_dbias;
    F.v.t[0] = GPUACT_F32; F.v.t[1] = dt; F.v.t[2] = GPUACT_F32;
    F.in = v; /* never read: no rows */
    F.out = v; F.rows = 0; F.cols = F.ld_in = cols; F.grid_y = 1;
    return gpuact__dispatch(ctx, s, &F);
}

GPUACT_DEF gpuact_result gpuact_glu_backward(gpuact_context *ctx, const gpuact_glu_backward_desc *dp,
                                             gpuact_stream s) {
    const char *fn = "gpuact_glu_backward";
    gpuact_glu_backward_desc d;
    gpuact__region reg[9];
    gpuact__launch L;
    gpuact_result r;
    if (!dp) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "%s: desc is NULL", fn);
    GPUACT__NEED_CTX(fn);
    d = *dp;
    if ((r = gpuact__glu_common(fn, &d.act, d.bias_a, d.bias_b, "bias_a and bias_b")) ||
        (r = gpuact__glu_common(fn, &d.act, d.dbias_a, d.dbias_b, "dbias_a and dbias_b")) ||
        (r = gpuact__check_dtype(fn, "dy_dtype", d.dy_dtype)) || (r = gpuact__check_dtype(fn, "x_dtype", d.x_dtype)) ||
        (d.dbias_a.handle && (r = gpuact__check_dtype(fn, "dbias_dtype", d.dbias_dtype))) ||
        (r = gpuact__glu_matrix(fn, "dy", "ld_dy", d.rows, d.cols, &d.ld_dy, d.dy_dtype, d.dy, 0, &reg[0])) ||
        (r = gpuact__glu_matrix(fn, "a", "ld_a", d.rows, d.cols, &d.ld_a, d.x_dtype, d.a, 0, &reg[1])) ||
        (r = gpuact__glu_matrix(fn, "b", "ld_b", d.rows, d.cols, &d.ld_b, d.x_dtype, d.b, 0, &reg[2])) ||
        (r = gpuact__glu_matrix(fn, "da", "ld_da", d.rows, d.cols, &d.ld_da, d.x_dtype, d.da, 1, &reg[3])) ||
        (r = gpuact__glu_matrix(fn, "db", "ld_db", d.rows, d.cols, &d.ld_db, d.x_dtype, d.db, 1, &reg[4])) ||
        (r = gpuact__glu_vector(fn, "bias_a", d.cols, d.x_dtype, d.bias_a, 0, &reg[5])) ||
        (r = gpuact__glu_vector(fn, "bias_b", d.cols, d.x_dtype, d.bias_b, 0, &reg[6])) ||
        (r = gpuact__glu_vector(fn, "dbias_a", d.cols, d.dbias_dtype, d.dbias_a, 1, &reg[7])) ||
        (r = gpuact__glu_vector(fn, "dbias_b", d.cols, d.dbias_dtype, d.dbias_b, 1, &reg[8])) ||
        (r = gpuact__check_regions(ctx, fn, reg, 9)))
        return r;
    if (!s) s = ctx->desc.stream;
    if (!d.rows || !d.cols) {
        if (!d.dbias_a.handle || !d.cols) return GPUACT_SUCCESS;
        if ((r = gpuact__zero_vector(ctx, s, d.dbias_a, d.dbias_dtype, d.cols))) return r;
        return gpuact__zero_vector(ctx, s, d.dbias_b, d.dbias_dtype, d.cols);
    }
    memset(&L, 0, sizeof L);
    L.v.op = GPUACT_OP_glu_backward;
    L.v.t[0] = d.dy_dtype;
    L.v.t[1] = L.v.t[2] = d.x_dtype;
    L.v.kind = (int)d.act.kind;
    L.v.precise = gpuact__act_precise(&d.act);
    L.v.dbias = d.dbias_a.handle != NULL;
    L.in = d.dy; L.aux = d.a; L.aux2 = d.b; L.out = d.da; L.out2 = d.db; L.bias = d.bias_a; L.bias2 = d.bias_b;
    L.rows = d.rows; L.cols = d.cols; L.ld_in = d.ld_dy; L.ld_aux = d.ld_a; L.ld_aux2 = d.ld_b;
    L.ld_out = d.ld_da; L.ld_out2 = d.ld_db;
    L.flags = d.bias_a.handle ? GPUACT_F_BIAS : 0;
    if (L.v.dbias) {
        /* row groups write the column sums of da then db ([parts][2 cols]); two finishes add them in order */
        size_t parts;
        gpuact__launch F;
        gpuact__shape sh;
        int slot, h;
        gpuact__geometry(ctx, &L, &sh);
        parts = gpuact__dbias_parts(ctx, sh.dbias_groups, L.grid_x, d.rows, 2 * d.cols);
        if ((r = gpuact__workspace(ctx, s, parts * 2 * d.cols * 4, &L.part, &slot))) return r;
        L.grid_y = parts;
        r = gpuact__dispatch(ctx, s, &L);
        for (h = 0; h < 2 && r == GPUACT_SUCCESS; h++) {
            memset(&F, 0, sizeof F);
            F.v.op = GPUACT_OP_dbias;
            F.v.t[0] = GPUACT_F32; F.v.t[1] = d.dbias_dtype; F.v.t[2] = GPUACT_F32;
            F.in = L.part;
            F.in.offset += (size_t)h * d.cols * 4;
            F.out = h ? d.dbias_b : d.dbias_a;
            F.rows = parts; F.cols = d.cols; F.ld_in = 2 * d.cols;
            F.grid_y = 1;
            r = gpuact__dispatch(ctx, s, &F);
        }
        return gpuact__workspace_release(ctx, s, slot, r);
    }
    return gpuact__dispatch(ctx, s, &L);
}

GPUACT_DEF gpuact_result gpuact_testing_prepare(gpuact_context *ctx, int i) {
    gpuact__launch L;
    GPUACT__NEED_CTX("gpuact_testing_prepare");
    memset(&L, 0, sizeof L);
    if (i < 0 || i >= GPUACT__VARIANTS) return GPUACT_ERROR_NOT_SUPPORTED;
    gpuact__variant_at(i, &L.v);
    if (!gpuact__variant_reachable(&L.v)) return GPUACT_ERROR_NOT_SUPPORTED;
    L.prepare_only = 1;
    return ctx->be->launch(ctx, ctx->desc.stream, &L);
}

GPUACT_DEF int gpuact_testing_variant(const gpuact_context *ctx, int i, char *name, size_t name_size) {
    gpuact__variant V;
    if (i < 0 || i >= GPUACT__VARIANTS) return -1;
    gpuact__variant_at(i, &V);
    if (name && name_size) gpuact__variant_name(&V, name, name_size);
    if (!gpuact__variant_reachable(&V)) return 0;
    return ctx && GPUACT__LOAD_RELAXED(&ctx->launched[i]) ? 2 : 1;
}

GPUACT_DEF gpuact_result gpuact_testing_copy(gpuact_context *ctx, gpuact_stream s, gpuact_buffer dst,
                                             gpuact_buffer src, size_t bytes) {
    GPUACT__NEED_CTX("gpuact_testing_copy");
    if (!bytes) return GPUACT_SUCCESS;
    if (!dst.handle || !src.handle)
        return gpuact__refuse(GPUACT_RULE_BUFFER_REQUIRED, "gpuact_testing_copy: %s.handle is NULL",
                              !dst.handle ? "dst" : "src");
    return ctx->be->copy(ctx, s ? s : ctx->desc.stream, dst, src, bytes);
}
GPUACT_DEF gpuact_result gpuact_testing_timer_begin(gpuact_context *ctx, gpuact_stream s, void **token) {
    GPUACT__NEED_CTX("gpuact_testing_timer_begin");
    if (!token) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_testing_timer_begin: token is NULL");
    return ctx->be->timer_begin(ctx, s ? s : ctx->desc.stream, token);
}
GPUACT_DEF gpuact_result gpuact_testing_timer_end(gpuact_context *ctx, gpuact_stream s, void *token, double *ms) {
    GPUACT__NEED_CTX("gpuact_testing_timer_end");
    if (!token || !ms)
        return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_testing_timer_end: %s is NULL",
                              !token ? "token" : "ms");
    return ctx->be->timer_end(ctx, s ? s : ctx->desc.stream, token, ms);
}
GPUACT_DEF gpuact_result gpuact_testing_buffer_extent(gpuact_context *ctx, gpuact_buffer b, size_t *bytes) {
    GPUACT__NEED_CTX("gpuact_testing_buffer_extent");
    if (!bytes) return gpuact__refuse(GPUACT_RULE_NULL_ARGUMENT, "gpuact_testing_buffer_extent: bytes is NULL");
    if (!b.handle)
        return gpuact__refuse(GPUACT_RULE_BUFFER_REQUIRED, "gpuact_testing_buffer_extent: b.handle is NULL");
    *bytes = 0;
    switch (ctx->be->buffer_extent(ctx, b, bytes)) {
    case GPUACT__EXTENT_KNOWN: return GPUACT_SUCCESS;
    case GPUACT__EXTENT_UNKNOWN:
        return gpuact__fail(GPUACT_ERROR_NOT_SUPPORTED, "gpuact_testing_buffer_extent: the driver does not know "
                                                         "this memory");
    default:
        return gpuact__refuse(GPUACT_RULE_BUFFER_FOREIGN,
                              "gpuact_testing_buffer_extent: b is not an allocation of this context");
    }
}

#endif /* GPUACT__IMPLEMENTATION_DONE */
#endif /* GPUACT_IMPLEMENTATION */

/*
Copyright (c) 2026 the gpuact developers. MIT License: permission is hereby
granted, free of charge, to any person obtaining a copy of this software, to
deal in it without restriction, including the rights to use, copy, modify,
merge, publish, distribute, sublicense and/or sell copies, subject to
including this notice. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY.
*/
