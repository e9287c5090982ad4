/* gpuact-info: what gpuact sees on this machine, for bug reports.

     gpuact-info               version, each backend (loaded or why not),
                               its devices, the kernel cache directory
     gpuact-info --self-test   also runs every op on every device on a small
                               random input and compares it bit for bit with
                               the CPU reference (tests/gpuact_ref.h, built in);
                               exit status 1 if anything differs or fails

   Compute units and memory are read from the vendor library through the
   native handles the public API gives (the OpenCL queue, the CUDA device
   ordinal); they are left out where that is not possible. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "../tests/gpuact_ref.h"
#include "../tests/support/harness.h"

static const gpuact_backend backends[] = {GPUACT_BACKEND_CUDA, GPUACT_BACKEND_HIP, GPUACT_BACKEND_OPENCL};
static const gpuact_dtype dtypes[] = {GPUACT_F32, GPUACT_F16, GPUACT_BF16};
#define MAX_DEVICES 64

/* ---- vendor queries through the native handles ----------------------------- */

/* The library gpuact loaded: the GPUACT_*_LIBRARY path, else the usual names
   (dlopen of a loaded library returns it again). */
static void *open_vendor(const char *env_var, const char *const *names) {
    const char *env = getenv(env_var);
    void *h = env && env[0] ? dlopen(env, RTLD_NOW | RTLD_LOCAL) : NULL;
    for (; !h && *names; names++) h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
    return h;
}
/* dlsym into a function pointer without an object-to-function cast. */
#define LOAD_SYM(h, fp, name) do { void *p_ = dlsym(h, name); memcpy(&(fp), &p_, sizeof p_); } while (0)

static void print_memory(unsigned long long bytes) {
    printf(", memory %.1f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

static void print_opencl_device(gpuact_context *ctx) {
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    typedef int (*queue_info_fn)(void *, unsigned, size_t, void *, size_t *);
    typedef int (*device_info_fn)(void *, unsigned, size_t, void *, size_t *);
    queue_info_fn queue_info = NULL;
    device_info_fn device_info = NULL;
    void *h = open_vendor("GPUACT_OPENCL_LIBRARY", names), *device = NULL;
    unsigned cu = 0;
    unsigned long long mem = 0;
    gpuact_context_desc d = gpuact_context_query_desc(ctx);
    if (!h) return;
    LOAD_SYM(h, queue_info, "clGetCommandQueueInfo");
    LOAD_SYM(h, device_info, "clGetDeviceInfo");
    device = d.native_device;
    /* CL_QUEUE_DEVICE 0x1091, CL_DEVICE_MAX_COMPUTE_UNITS 0x1002, CL_DEVICE_GLOBAL_MEM_SIZE 0x101F */
    if (!device && queue_info && d.stream && queue_info(d.stream, 0x1091, sizeof device, &device, NULL) != 0)
        device = NULL;
    if (device && device_info) {
        if (device_info(device, 0x1002, sizeof cu, &cu, NULL) == 0) printf(", %u compute units", cu);
        if (device_info(device, 0x101F, sizeof mem, &mem, NULL) == 0) print_memory(mem);
    }
    dlclose(h);
}

static void print_cuda_device(gpuact_context *ctx, int ordinal) {
    static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
    typedef int (*device_get_fn)(int *, int);
    typedef int (*attribute_fn)(int *, int, int);
    typedef int (*total_mem_fn)(size_t *, int);
    device_get_fn device_get = NULL;
    attribute_fn attribute = NULL;
    total_mem_fn total_mem = NULL;
    void *h;
    int dev = 0, sms = 0;
    size_t mem = 0;
    if (gpuact_context_query_desc(ctx).native_context) return; /* adopted: the ordinal says nothing */
    if (!(h = open_vendor("GPUACT_CUDA_LIBRARY", names))) return;
    LOAD_SYM(h, device_get, "cuDeviceGet");
    LOAD_SYM(h, attribute, "cuDeviceGetAttribute");
    LOAD_SYM(h, total_mem, "cuDeviceTotalMem_v2");
    if (device_get && device_get(&dev, ordinal) == 0) {
        /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16 */
        if (attribute && attribute(&sms, 16, dev) == 0) printf(", %d multiprocessors", sms);
        if (total_mem && total_mem(&mem, dev) == 0) print_memory(mem);
    }
    dlclose(h);
}

/* ---- the kernel cache directory ------------------------------------------------ */

static void print_cache_dir(const char *dir) {
    char parent[1024];
    struct stat st;
    printf("kernel cache (CUDA and HIP): ");
    if (!dir || !dir[0]) {
        printf("disabled (GPUACT_CACHE_DIR is empty)\n");
        return;
    }
    printf("%s: ", dir);
    if (stat(dir, &st) == 0) {
        printf("%s, %s\n", S_ISDIR(st.st_mode) ? "exists" : "exists but is not a directory",
               access(dir, W_OK) == 0 ? "writable" : "NOT writable (kernels are rebuilt in every process)");
        return;
    }
    /* Created (with its parents) on first use: can the nearest existing parent take it? */
    snprintf(parent, sizeof parent, "%s", dir);
    for (;;) {
        char *slash = strrchr(parent, '/');
        if (!slash) { snprintf(parent, sizeof parent, "."); break; }
        if (slash == parent) { parent[1] = '\0'; break; }
        *slash = '\0';
        if (stat(parent, &st) == 0) break;
    }
    printf("does not exist yet; %s\n", access(parent, W_OK) == 0 ? "it will be created on first use"
                                                                : "it cannot be created (parent not writable)");
}

/* ---- self-test -------------------------------------------------------------------- */

static int failures;

static void fail_call(const char *what, gpuact_result r) {
    printf("      FAIL %s: %s\n", what, gpuact_result_string(r));
    printf("        %s\n", gpuact_last_error());
    failures++;
}
#define TRY(call, what) do { gpuact_result r_ = (call); if (r_ != GPUACT_SUCCESS) { fail_call(what, r_); goto done; } } while (0)

static void *xalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) { fprintf(stderr, "gpuact-info: out of host memory\n"); exit(2); }
    return p;
}

/* A device buffer holding `bytes` of host data (or of a poison pattern). */
static gpuact_result upload(gpuact_context *ctx, const void *src, size_t bytes, gpuact_buffer *out) {
    gpuact_result r = gpuact_buffer_alloc(ctx, bytes, out);
    if (r == GPUACT_SUCCESS && src) r = gpuact_buffer_write(ctx, *out, src, bytes);
    if (r == GPUACT_SUCCESS && !src) {
        void *poison = xalloc(bytes);
        memset(poison, 0xa5, bytes);
        r = gpuact_buffer_write(ctx, *out, poison, bytes);
        free(poison);
    }
    return r;
}

/* rows x cols elements of got (leading dimension ld) against want, bit for bit. */
static int compare(const char *what, gpuact_dtype dt, const void *got, const void *want,
                   const unsigned char *nan_any, size_t rows, size_t cols, size_t ld) {
    size_t r, c;
    if (!harness_first_diff(dt, got, want, nan_any, rows, cols, ld, &r, &c)) return 1;
    printf("      FAIL %s: element [%zu][%zu] is 0x%x, the reference says 0x%x\n", what, r, c,
           (unsigned)gpuact_ref_raw(dt, got, r * ld + c), (unsigned)gpuact_ref_raw(dt, want, r * ld + c));
    failures++;
    return 0;
}
static int compare_mask(const char *what, const unsigned char *got, const unsigned char *want, size_t rows,
                        size_t cols, size_t mask_ld) {
    size_t r, b;
    for (r = 0; r < rows; r++)
        for (b = 0; b < (cols + 7) / 8; b++)
            if (got[r * mask_ld / 8 + b] != want[r * mask_ld / 8 + b]) {
                printf("      FAIL %s: mask row %zu byte %zu is 0x%02x, the reference says 0x%02x\n", what, r, b,
                       got[r * mask_ld / 8 + b], want[r * mask_ld / 8 + b]);
                failures++;
                return 0;
            }
    return 1;
}

static const char *act_name(gpuact_activation_kind k) {
    return k == GPUACT_LEAKY_RELU ? "leaky" : k == GPUACT_CLIPPED_RELU ? "clipped" : "relu";
}

/* Forward with mask, backward from x, backward from the mask: n elements. */
static void test_elementwise(gpuact_context *ctx, gpuact_activation act, gpuact_dtype dt, gpuact_ref_rng *rng) {
    const size_t n = 1003, es = gpuact_dtype_size(dt), mb = (n + 7) / 8, bytes = n * es;
    unsigned char *x = (unsigned char *)xalloc(bytes), *dy = (unsigned char *)xalloc(bytes);
    unsigned char *y = (unsigned char *)xalloc(bytes), *dx = (unsigned char *)xalloc(bytes);
    unsigned char *got = (unsigned char *)xalloc(bytes), *y_nan = (unsigned char *)xalloc(n);
    unsigned char *dx_nan = (unsigned char *)xalloc(n), *mask = (unsigned char *)xalloc(mb);
    unsigned char *mask_in = (unsigned char *)xalloc(mb), *got_mask = (unsigned char *)xalloc(mb);
    gpuact_buffer bx = {NULL, 0}, by = {NULL, 0}, bdy = {NULL, 0}, bdx = {NULL, 0}, bm = {NULL, 0};
    gpuact_forward_desc f;
    gpuact_backward_desc b;
    gpuact_ref_fwd rf;
    gpuact_ref_bwd rb;
    char what[96];
    size_t i;

    memset(&rf, 0, sizeof rf);
    rf.act = gpuact_ref_elementwise_act(act, dt);
    gpuact_ref_fill(rng, dt, x, n, 1, rf.act.kind == GPUACT_CLIPPED_RELU ? rf.act.ceiling : 0.0f);
    gpuact_ref_fill(rng, dt, dy, n, 1, 1.0f);
    rf.rows = 1;
    rf.cols = rf.ld_x = rf.ld_y = n;
    rf.mask_ld = 8 * mb;
    rf.x_dtype = rf.y_dtype = rf.bias_dtype = dt;
    rf.scale = 1.0f;
    rf.x = x;
    rf.y = y;
    rf.mask = mask;
    rf.nan_any = y_nan;
    gpuact_ref_forward(&rf);
    memset(&rb, 0, sizeof rb);
    rb.act = rf.act;
    rb.rows = 1;
    rb.cols = rb.ld_dy = rb.ld_dx = rb.ld_src = n;
    rb.mask_ld = 8 * mb;
    rb.dy_dtype = rb.dx_dtype = rb.src_dtype = dt;
    rb.scale = 1.0f;
    rb.dy = dy;
    rb.src = x;
    rb.dx = dx;
    rb.nan_any = dx_nan;
    gpuact_ref_backward(&rb);
    /* The backward must ignore the padding bits of the mask's last byte. */
    memcpy(mask_in, mask, mb);
    for (i = n; i < 8 * mb; i++) mask_in[i / 8] = (unsigned char)(mask_in[i / 8] | (1u << (i % 8)));

    TRY(upload(ctx, x, bytes, &bx), "upload");
    TRY(upload(ctx, NULL, bytes, &by), "upload");
    TRY(upload(ctx, NULL, mb, &bm), "upload");
    memset(&f, 0, sizeof f);
    f.act = act;
    f.dtype = dt;
    f.n = n;
    f.x = bx;
    f.y = by;
    f.mask = bm;
    snprintf(what, sizeof what, "%s forward %s", act_name(act.kind), gpuact__dtype_name(dt));
    TRY(gpuact_forward(ctx, &f, NULL), what);
    TRY(gpuact_synchronize(ctx, NULL), what);
    TRY(gpuact_buffer_read(ctx, got, by, bytes), what);
    TRY(gpuact_buffer_read(ctx, got_mask, bm, mb), what);
    if (compare(what, dt, got, y, y_nan, 1, n, n)) compare_mask(what, got_mask, mask, 1, n, 8 * mb);

    TRY(upload(ctx, dy, bytes, &bdy), "upload");
    TRY(upload(ctx, NULL, bytes, &bdx), "upload");
    memset(&b, 0, sizeof b);
    b.act = act;
    b.dtype = dt;
    b.n = n;
    b.dy = bdy;
    b.dx = bdx;
    b.x = bx;
    snprintf(what, sizeof what, "%s backward from x %s", act_name(act.kind), gpuact__dtype_name(dt));
    TRY(gpuact_backward(ctx, &b, NULL), what);
    TRY(gpuact_synchronize(ctx, NULL), what);
    TRY(gpuact_buffer_read(ctx, got, bdx, bytes), what);
    compare(what, dt, got, dx, dx_nan, 1, n, n);

    TRY(gpuact_buffer_write(ctx, bm, mask_in, mb), "upload");
    {
        unsigned char *poison = (unsigned char *)xalloc(bytes);
        memset(poison, 0xa5, bytes);
        TRY(gpuact_buffer_write(ctx, bdx, poison, bytes), "upload");
        free(poison);
    }
    b.x.handle = NULL;
    b.x.offset = 0;
    b.mask = bm;
    snprintf(what, sizeof what, "%s backward from mask %s", act_name(act.kind), gpuact__dtype_name(dt));
    TRY(gpuact_backward(ctx, &b, NULL), what);
    TRY(gpuact_synchronize(ctx, NULL), what);
    TRY(gpuact_buffer_read(ctx, got, bdx, bytes), what);
    compare(what, dt, got, dx, dx_nan, 1, n, n);
done:
    gpuact_buffer_free(ctx, bx);
    gpuact_buffer_free(ctx, by);
    gpuact_buffer_free(ctx, bdy);
    gpuact_buffer_free(ctx, bdx);
    gpuact_buffer_free(ctx, bm);
    free(x); free(dy); free(y); free(dx); free(got); free(y_nan); free(dx_nan);
    free(mask); free(mask_in); free(got_mask);
}

/* Epilogue forward (bias, scale 0.5, padded x rows, default mask_ld) and its
   backward from that mask with an f32 bias gradient. dx is compared bit for
   bit; dbias, a sum whose order is the device's, within 1e-5 of sum |dx|. */
static void test_epilogue(gpuact_context *ctx, gpuact_activation act, gpuact_dtype dt, gpuact_ref_rng *rng) {
    const size_t rows = 5, cols = 37, ld_x = 41, mask_ld = 128, es = gpuact_dtype_size(dt);
    const size_t xbytes = rows * ld_x * es, ybytes = rows * cols * es, mbytes = rows * mask_ld / 8;
    unsigned char *x = (unsigned char *)xalloc(xbytes), *bias = (unsigned char *)xalloc(cols * es);
    unsigned char *y = (unsigned char *)xalloc(ybytes), *y_nan = (unsigned char *)xalloc(rows * cols);
    unsigned char *dy = (unsigned char *)xalloc(ybytes), *dx = (unsigned char *)xalloc(ybytes);
    unsigned char *dx_nan = (unsigned char *)xalloc(rows * cols), *got = (unsigned char *)xalloc(ybytes);
    unsigned char *mask = (unsigned char *)xalloc(mbytes), *got_mask = (unsigned char *)xalloc(mbytes);
    double sum[37], sum_abs[37];
    float got_db[37];
    gpuact_buffer bx = {NULL, 0}, bb = {NULL, 0}, by = {NULL, 0}, bm = {NULL, 0}, bdy = {NULL, 0};
    gpuact_buffer bdx = {NULL, 0}, bdb = {NULL, 0};
    gpuact_epilogue_desc f;
    gpuact_epilogue_backward_desc b;
    gpuact_ref_fwd rf;
    gpuact_ref_bwd rb;
    char what[96];
    size_t c;

    gpuact_ref_fill(rng, dt, x, rows * ld_x, 1, act.kind == GPUACT_CLIPPED_RELU ? act.ceiling : 0.0f);
    gpuact_ref_fill(rng, dt, bias, cols, 0, 0.0f);
    gpuact_ref_fill(rng, dt, dy, rows * cols, 0, 1.0f); /* finite: dbias is a finite sum */
    memset(mask, 0, mbytes);
    memset(&rf, 0, sizeof rf);
    rf.act = act;
    rf.rows = rows;
    rf.cols = cols;
    rf.ld_x = ld_x;
    rf.ld_y = cols;
    rf.mask_ld = mask_ld;
    rf.x_dtype = rf.y_dtype = rf.bias_dtype = dt;
    rf.scale = 0.5f;
    rf.x = x;
    rf.bias = bias;
    rf.y = y;
    rf.mask = mask;
    rf.nan_any = y_nan;
    gpuact_ref_forward(&rf);
    memset(&rb, 0, sizeof rb);
    rb.act = act;
    rb.rows = rows;
    rb.cols = rb.ld_dy = rb.ld_dx = rb.ld_src = cols;
    rb.mask_ld = mask_ld;
    rb.dy_dtype = rb.dx_dtype = rb.src_dtype = dt;
    rb.scale = 0.5f;
    rb.dy = dy;
    rb.mask = mask;
    rb.dx = dx;
    rb.dbias = sum;
    rb.dbias_abs = sum_abs;
    rb.nan_any = dx_nan;
    gpuact_ref_backward(&rb);

    TRY(upload(ctx, x, xbytes, &bx), "upload");
    TRY(upload(ctx, bias, cols * es, &bb), "upload");
    TRY(upload(ctx, NULL, ybytes, &by), "upload");
    TRY(upload(ctx, NULL, mbytes, &bm), "upload");
    memset(&f, 0, sizeof f);
    f.act = act;
    f.rows = rows;
    f.cols = cols;
    f.x_dtype = f.y_dtype = f.bias_dtype = dt;
    f.ld_x = ld_x;
    f.scale = 0.5f;
    f.x = bx;
    f.bias = bb;
    f.y = by;
    f.mask = bm;
    snprintf(what, sizeof what, "%s epilogue forward %s", act_name(act.kind), gpuact__dtype_name(dt));
    TRY(gpuact_epilogue_forward(ctx, &f, NULL), what);
    TRY(gpuact_synchronize(ctx, NULL), what);
    TRY(gpuact_buffer_read(ctx, got, by, ybytes), what);
    TRY(gpuact_buffer_read(ctx, got_mask, bm, mbytes), what);
    if (compare(what, dt, got, y, y_nan, rows, cols, cols)) compare_mask(what, got_mask, mask, rows, cols, mask_ld);

    TRY(gpuact_buffer_write(ctx, bm, mask, mbytes), "upload");
    TRY(upload(ctx, dy, ybytes, &bdy), "upload");
    TRY(upload(ctx, NULL, ybytes, &bdx), "upload");
    TRY(upload(ctx, NULL, cols * 4, &bdb), "upload");
    memset(&b, 0, sizeof b);
    b.act = act;
    b.rows = rows;
    b.cols = cols;
    b.dy_dtype = b.dx_dtype = b.y_dtype = dt;
    b.dbias_dtype = GPUACT_F32;
    b.scale = 0.5f;
    b.dy = bdy;
    b.dx = bdx;
    b.mask = bm;
    b.dbias = bdb;
    snprintf(what, sizeof what, "%s epilogue backward + dbias %s", act_name(act.kind), gpuact__dtype_name(dt));
    TRY(gpuact_epilogue_backward(ctx, &b, NULL), what);
    TRY(gpuact_synchronize(ctx, NULL), what);
    TRY(gpuact_buffer_read(ctx, got, bdx, ybytes), what);
    TRY(gpuact_buffer_read(ctx, got_db, bdb, cols * 4), what);
    if (compare(what, dt, got, dx, dx_nan, rows, cols, cols)) {
        for (c = 0; c < cols; c++) {
            double err = (double)got_db[c] - sum[c];
            if (!(fabs(err) <= 1e-5 * sum_abs[c] + 1e-30)) {
                printf("      FAIL %s: dbias[%zu] is %.9g, the reference sum is %.9g\n", what, c,
                       (double)got_db[c], sum[c]);
                failures++;
                break;
            }
        }
    }
done:
    gpuact_buffer_free(ctx, bx);
    gpuact_buffer_free(ctx, bb);
    gpuact_buffer_free(ctx, by);
    gpuact_buffer_free(ctx, bm);
    gpuact_buffer_free(ctx, bdy);
    gpuact_buffer_free(ctx, bdx);
    gpuact_buffer_free(ctx, bdb);
    free(x); free(bias); free(y); free(y_nan); free(dy); free(dx); free(dx_nan); free(got);
    free(mask); free(got_mask);
}

static void self_test(gpuact_context *ctx) {
    gpuact_activation acts[3];
    gpuact_ref_rng rng;
    size_t a, t;
    int before = failures;
    memset(acts, 0, sizeof acts);
    acts[0].kind = GPUACT_RELU;
    acts[1].kind = GPUACT_LEAKY_RELU;
    acts[1].negative_slope = 0.01f;
    acts[2].kind = GPUACT_CLIPPED_RELU;
    acts[2].ceiling = 6.0f;
    rng.s = 0x6770756163742d69ull; /* fixed: a failure reproduces */
    for (t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++)
        for (a = 0; a < 3; a++) {
            test_elementwise(ctx, acts[a], dtypes[t], &rng);
            test_epilogue(ctx, acts[a], dtypes[t], &rng);
        }
    printf("    self-test: %s (relu, leaky, clipped; f32, f16, bf16; forward + mask, backward from x and "
           "from the mask, epilogue forward and backward with dbias)\n",
           failures == before ? "pass" : "FAIL");
}

/* ---- main ------------------------------------------------------------------------- */

static void print_indented(const char *text) {
    printf("    ");
    for (; *text; text++) {
        putchar(*text);
        if (*text == '\n' && text[1]) printf("    ");
    }
    putchar('\n');
}

int main(int argc, char **argv) {
    static const char *const env_vars[] = {"GPUACT_BACKEND", "GPUACT_CACHE_DIR", "GPUACT_CUDA_LIBRARY",
                                           "GPUACT_NVRTC_LIBRARY", "GPUACT_HIP_LIBRARY", "GPUACT_HIPRTC_LIBRARY",
                                           "GPUACT_OPENCL_LIBRARY", "XDG_CACHE_HOME"};
    int run_self_test = 0, any_device = 0, cache_printed = 0, a;
    size_t i;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--self-test")) run_self_test = 1;
        else {
            printf("usage: %s [--self-test]\n"
                   "  prints the gpuact version, each backend and its devices, and the kernel cache;\n"
                   "  --self-test also checks every op on every device against the CPU reference\n",
                   argv[0]);
            return strcmp(argv[a], "--help") && strcmp(argv[a], "-h") ? 2 : 0;
        }
    }
    printf("gpuact %s (gpuact-info)\n", GPUACT_VERSION_STRING);
    for (i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++)
        if (getenv(env_vars[i])) printf("%s=%s\n", env_vars[i], getenv(env_vars[i]));
    for (i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        gpuact_context_desc desc;
        gpuact_context *ctx = NULL;
        int d;
        for (d = 0; d < MAX_DEVICES; d++) {
            gpuact_result r;
            memset(&desc, 0, sizeof desc);
            desc.backend = backends[i];
            desc.device = d;
            r = gpuact_context_create(&desc, &ctx);
            if (r != GPUACT_SUCCESS) {
                if (d == 0) {
                    printf("backend %s: not usable (%s)\n", gpuact_backend_name(backends[i]), gpuact_result_string(r));
                    print_indented(gpuact_last_error());
                }
                break;
            }
            if (d == 0) printf("backend %s: loaded\n", gpuact_backend_name(backends[i]));
            any_device = 1;
            printf("  device %d: %s", d, gpuact_context_device_name(ctx));
            if (backends[i] == GPUACT_BACKEND_OPENCL) print_opencl_device(ctx);
            if (backends[i] == GPUACT_BACKEND_CUDA) print_cuda_device(ctx, d);
            printf("\n");
            if (!cache_printed) {
                print_cache_dir(gpuact_context_query_desc(ctx).cache_dir);
                cache_printed = 1;
            }
            if (run_self_test) self_test(ctx);
            gpuact_context_destroy(ctx);
        }
    }
    if (!cache_printed) {
        /* No context: the directory a context would use, by the same rule. */
        const char *env = getenv("GPUACT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        char dir[1024] = "";
        if (env) snprintf(dir, sizeof dir, "%s", env);
        else if (xdg && xdg[0]) snprintf(dir, sizeof dir, "%s/gpuact", xdg);
        else if (home && home[0]) snprintf(dir, sizeof dir, "%s/.cache/gpuact", home);
        print_cache_dir(dir);
    }
    if (run_self_test) {
        if (!any_device) {
            printf("self-test: FAIL: no backend has a device\n");
            return 1;
        }
        printf("self-test: %s\n", failures ? "FAIL" : "pass");
        return failures ? 1 : 0;
    }
    return 0;
}
