/*
test_validation.c -- every caller mistake is GPUACT_ERROR_INVALID_ARGUMENT,
refused by the rule the case names (gpuact_last_rule(), and the message
starts with "[gpuact rule NAME] "), and nothing launched or written. Every
rule of GPUACT_RULES must be fired by some case.

Each bad call starts from a valid description (checked first to be
accepted) and changes one thing. Afterwards the stream is synchronized and
every buffer read back: all must still hold their fill pattern. Runs on
OpenCL when available, else the first backend that is; with none it prints
the SKIP reason and "0 passed, 0 failed".

    usage: test_validation [-v]     -v lists every case with the library's message
*/
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "gpuact_ref.h"
#include "support/harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gpuact_context *ctx;

#define BUF_BYTES 4096
#define N 64            /* elementwise n: 256 bytes of f32 */
#define ROWS 4          /* epilogue shape */
#define COLS 16

/* The buffers every call points into, each filled with its own byte. */
enum { X, Y, DY, DX, MASK, BIAS, DBIAS, N_BUFS };
static const char *const BUF_NAMES[N_BUFS] = {"x", "y", "dy", "dx", "mask", "bias", "dbias"};
static gpuact_buffer bufs[N_BUFS];
static const gpuact_buffer ABSENT = {NULL, 0};

static unsigned char pattern_of(int b) { return (unsigned char)(0x3C + 17 * b); }

static gpuact_buffer buf(int b, size_t offset)
{
    gpuact_buffer r = bufs[b];
    r.offset = offset;
    return r;
}

static void report(int ok, const char *what, const char *why) { harness_report(ok, what, "%s", why); }

static int fill_patterns(void)
{
    static unsigned char fill[BUF_BYTES];
    int b;
    for (b = 0; b < N_BUFS; b++) {
        memset(fill, pattern_of(b), sizeof fill);
        if (gpuact_buffer_write(ctx, bufs[b], fill, sizeof fill) != GPUACT_SUCCESS)
            return 0;
    }
    return 1;
}

/* "" when every buffer still holds its pattern, else what changed. */
static const char *untouched(void)
{
    static unsigned char got[BUF_BYTES];
    static char why[200];
    gpuact_result r = gpuact_synchronize(ctx, NULL);
    int b;
    size_t i;
    if (r != GPUACT_SUCCESS) {
        snprintf(why, sizeof why, "gpuact_synchronize returned %s", gpuact_result_string(r));
        return why;
    }
    for (b = 0; b < N_BUFS; b++) {
        if ((r = gpuact_buffer_read(ctx, got, bufs[b], sizeof got)) != GPUACT_SUCCESS) {
            snprintf(why, sizeof why, "gpuact_buffer_read returned %s", gpuact_result_string(r));
            return why;
        }
        for (i = 0; i < sizeof got; i++) {
            if (got[i] != pattern_of(b)) {
                snprintf(why, sizeof why, "%s byte %zu was written: 0x%02x, pattern 0x%02x",
                         BUF_NAMES[b], i, got[i], pattern_of(b));
                fill_patterns();
                return why;
            }
        }
    }
    return "";
}

/* How many cases each rule refused as they expected; every rule must
   have one (see every_rule_fired). */
static unsigned long rule_fired[GPUACT_RULE_COUNT];

/* A caller mistake: INVALID_ARGUMENT by `rule` (gpuact_last_rule(), and the
   message starts with "[gpuact rule NAME] "), nothing written. */
static void expect_invalid(const char *what, gpuact_result r, gpuact_rule rule)
{
    char why[500], msg[300], prefix[80];
    const char *changed;
    gpuact_rule got = gpuact_last_rule();
    snprintf(msg, sizeof msg, "%s", harness_first_line(gpuact_last_error()));   /* before the read-back */
    snprintf(prefix, sizeof prefix, "[gpuact rule %s] ", gpuact_rule_name(rule));
    changed = untouched();
    if (r != GPUACT_ERROR_INVALID_ARGUMENT)
        snprintf(why, sizeof why, "returned %s, want GPUACT_ERROR_INVALID_ARGUMENT (%s)",
                 gpuact_result_string(r), msg);
    else if (got != rule)
        snprintf(why, sizeof why, "refused by rule %s, want %s (%s)", gpuact_rule_name(got),
                 gpuact_rule_name(rule), msg);
    else if (strncmp(msg, prefix, strlen(prefix)) != 0)
        snprintf(why, sizeof why, "the message does not start with \"%s\": %s", prefix, msg);
    else if (*changed)
        snprintf(why, sizeof why, "%s", changed);
    else
        snprintf(why, sizeof why, "%s", msg);
    if (r == GPUACT_ERROR_INVALID_ARGUMENT && got == rule && (unsigned)rule < GPUACT_RULE_COUNT)
        rule_fired[rule]++;
    report(r == GPUACT_ERROR_INVALID_ARGUMENT && got == rule && !strncmp(msg, prefix, strlen(prefix)) &&
           !*changed, what, why);
}

/* As expect_invalid, and the message says `words` (which field, which case). */
static void expect_invalid_saying(const char *what, gpuact_result r, gpuact_rule rule, const char *words)
{
    char full[200];
    const char *msg = gpuact_last_error();
    if (r == GPUACT_ERROR_INVALID_ARGUMENT && !strstr(msg, words)) {
        snprintf(full, sizeof full, "%s: the message does not say \"%s\"", what, words);
        report(0, full, harness_first_line(msg));
        fill_patterns();
        return;
    }
    expect_invalid(what, r, rule);
}

/* Valid and empty (n = 0, rows = 0, cols = 0): success, nothing written. */
static void expect_nothing(const char *what, gpuact_result r)
{
    char why[400];
    const char *changed = untouched();
    if (r != GPUACT_SUCCESS)
        snprintf(why, sizeof why, "returned %s (%s)", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
    else
        snprintf(why, sizeof why, "%s", changed);
    report(r == GPUACT_SUCCESS && !*changed, what, why);
}

/* Valid: success. It may write, so the patterns are restored afterwards. */
static void expect_accepted(const char *what, gpuact_result r)
{
    char why[400] = "";
    gpuact_result s = r == GPUACT_SUCCESS ? gpuact_synchronize(ctx, NULL) : r;
    if (r != GPUACT_SUCCESS)
        snprintf(why, sizeof why, "returned %s (%s)", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
    else if (s != GPUACT_SUCCESS)
        snprintf(why, sizeof why, "gpuact_synchronize returned %s", gpuact_result_string(s));
    report(r == GPUACT_SUCCESS && s == GPUACT_SUCCESS, what, why);
    fill_patterns();
}

/* Accepted for rule NONE, else refused by the rule. */
static void expect_result(const char *what, gpuact_result r, gpuact_rule rule)
{
    if (rule == GPUACT_RULE_NONE)
        expect_accepted(what, r);
    else
        expect_invalid(what, r, rule);
}

static void expect_true(const char *what, int ok, const char *why)
{
    report(ok, what, ok ? "" : why);
}

/* >>valid descriptions that each case changes in one place */

static gpuact_activation relu(void)
{
    gpuact_activation a;
    memset(&a, 0, sizeof a);
    return a;
}

static gpuact_activation act(gpuact_activation_kind kind, float slope, float ceiling)
{
    gpuact_activation a = relu();
    a.kind = kind;
    a.negative_slope = slope;
    a.ceiling = ceiling;
    return a;
}

static gpuact_forward_desc fwd(void)
{
    gpuact_forward_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = GPUACT_F32;
    d.n = N;
    d.x = buf(X, 0);
    d.y = buf(Y, 0);
    d.mask = buf(MASK, 0);
    return d;
}

static gpuact_backward_desc bwd(void)
{
    gpuact_backward_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = GPUACT_F32;
    d.n = N;
    d.dy = buf(DY, 0);
    d.dx = buf(DX, 0);
    d.x = buf(X, 0);
    return d;
}

static gpuact_epilogue_desc epi(void)
{
    gpuact_epilogue_desc d;
    memset(&d, 0, sizeof d);
    d.rows = ROWS;
    d.cols = COLS;
    d.x = buf(X, 0);
    d.y = buf(Y, 0);
    d.bias = buf(BIAS, 0);
    d.mask = buf(MASK, 0);
    return d;
}

static gpuact_epilogue_backward_desc epib(void)
{
    gpuact_epilogue_backward_desc d;
    memset(&d, 0, sizeof d);
    d.rows = ROWS;
    d.cols = COLS;
    d.dy = buf(DY, 0);
    d.dx = buf(DX, 0);
    d.mask = buf(MASK, 0);
    d.dbias = buf(DBIAS, 0);
    return d;
}

/* Each op with a description: the call the cases below read through. */
static gpuact_result F(gpuact_forward_desc d) { return gpuact_forward(ctx, &d, NULL); }
static gpuact_result B(gpuact_backward_desc d) { return gpuact_backward(ctx, &d, NULL); }
static gpuact_result E(gpuact_epilogue_desc d) { return gpuact_epilogue_forward(ctx, &d, NULL); }
static gpuact_result EB(gpuact_epilogue_backward_desc d) { return gpuact_epilogue_backward(ctx, &d, NULL); }

/* >>cases */

static void baselines(void)
{
    gpuact_epilogue_backward_desc eb = epib();
    expect_accepted("baseline relu_forward", gpuact_relu_forward(ctx, GPUACT_F32, N, buf(X, 0), buf(Y, 0), NULL));
    expect_accepted("baseline relu_backward", gpuact_relu_backward(ctx, GPUACT_F32, N, buf(DY, 0), buf(X, 0), buf(DX, 0), NULL));
    expect_accepted("baseline forward", F(fwd()));
    expect_accepted("baseline backward", B(bwd()));
    expect_accepted("baseline epilogue_forward", E(epi()));
    expect_accepted("baseline epilogue_backward", EB(eb));
    eb.mask = ABSENT;
    eb.y = buf(Y, 0);
    expect_accepted("baseline epilogue_backward from y", EB(eb));
}

static void null_arguments(void)
{
    gpuact_forward_desc f = fwd();
    gpuact_backward_desc b = bwd();
    gpuact_epilogue_desc e = epi();
    gpuact_epilogue_backward_desc eb = epib();
    gpuact_buffer out;
    char host[16];
    memset(host, 0, sizeof host);

    expect_invalid("relu_forward: NULL context", gpuact_relu_forward(NULL, GPUACT_F32, N, buf(X, 0), buf(Y, 0), NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("relu_backward: NULL context", gpuact_relu_backward(NULL, GPUACT_F32, N, buf(DY, 0), buf(X, 0), buf(DX, 0), NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("forward: NULL context", gpuact_forward(NULL, &f, NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("backward: NULL context", gpuact_backward(NULL, &b, NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("epilogue_forward: NULL context", gpuact_epilogue_forward(NULL, &e, NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("epilogue_backward: NULL context", gpuact_epilogue_backward(NULL, &eb, NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("synchronize: NULL context", gpuact_synchronize(NULL, NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("buffer_alloc: NULL context", gpuact_buffer_alloc(NULL, 64, &out), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("buffer_alloc: NULL out", gpuact_buffer_alloc(ctx, 64, NULL), GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("buffer_write: NULL context", gpuact_buffer_write(NULL, buf(X, 0), host, sizeof host), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("buffer_read: NULL context", gpuact_buffer_read(NULL, host, buf(X, 0), sizeof host), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("forward: NULL desc", gpuact_forward(ctx, NULL, NULL), GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("backward: NULL desc", gpuact_backward(ctx, NULL, NULL), GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("epilogue_forward: NULL desc", gpuact_epilogue_forward(ctx, NULL, NULL), GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("epilogue_backward: NULL desc", gpuact_epilogue_backward(ctx, NULL, NULL), GPUACT_RULE_NULL_ARGUMENT);
}

static void absent_buffers(void)
{
    gpuact_forward_desc f;
    gpuact_backward_desc b;
    gpuact_epilogue_desc e;
    gpuact_epilogue_backward_desc eb;

    expect_invalid("relu_forward: x absent", gpuact_relu_forward(ctx, GPUACT_F32, N, ABSENT, buf(Y, 0), NULL), GPUACT_RULE_BUFFER_REQUIRED);
    expect_invalid("relu_forward: y absent", gpuact_relu_forward(ctx, GPUACT_F32, N, buf(X, 0), ABSENT, NULL), GPUACT_RULE_BUFFER_REQUIRED);
    expect_invalid("relu_backward: dy absent", gpuact_relu_backward(ctx, GPUACT_F32, N, ABSENT, buf(X, 0), buf(DX, 0), NULL), GPUACT_RULE_BUFFER_REQUIRED);
    expect_invalid("relu_backward: x absent", gpuact_relu_backward(ctx, GPUACT_F32, N, buf(DY, 0), ABSENT, buf(DX, 0), NULL), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    expect_invalid("relu_backward: dx absent", gpuact_relu_backward(ctx, GPUACT_F32, N, buf(DY, 0), buf(X, 0), ABSENT, NULL), GPUACT_RULE_BUFFER_REQUIRED);
    f = fwd(); f.x = ABSENT; expect_invalid("forward: x absent", F(f), GPUACT_RULE_BUFFER_REQUIRED);
    f = fwd(); f.y = ABSENT; expect_invalid("forward: y absent", F(f), GPUACT_RULE_BUFFER_REQUIRED);
    b = bwd(); b.dy = ABSENT; expect_invalid("backward: dy absent", B(b), GPUACT_RULE_BUFFER_REQUIRED);
    b = bwd(); b.dx = ABSENT; expect_invalid("backward: dx absent", B(b), GPUACT_RULE_BUFFER_REQUIRED);
    b = bwd(); b.x = ABSENT; expect_invalid("backward: neither x nor mask", B(b), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    b = bwd(); b.mask = buf(MASK, 0); expect_invalid("backward: both x and mask", B(b), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    e = epi(); e.x = ABSENT; expect_invalid("epilogue_forward: x absent", E(e), GPUACT_RULE_BUFFER_REQUIRED);
    e = epi(); e.y = ABSENT; expect_invalid("epilogue_forward: y absent", E(e), GPUACT_RULE_BUFFER_REQUIRED);
    eb = epib(); eb.dy = ABSENT; expect_invalid("epilogue_backward: dy absent", EB(eb), GPUACT_RULE_BUFFER_REQUIRED);
    eb = epib(); eb.dx = ABSENT; expect_invalid("epilogue_backward: dx absent", EB(eb), GPUACT_RULE_BUFFER_REQUIRED);
    eb = epib(); eb.mask = ABSENT; expect_invalid("epilogue_backward: neither y nor mask", EB(eb), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    eb = epib(); eb.y = buf(Y, 0); expect_invalid("epilogue_backward: both y and mask", EB(eb), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    /* optional ones */
    f = fwd(); f.mask = ABSENT; expect_accepted("forward: no mask", F(f));
    e = epi(); e.bias = ABSENT; e.mask = ABSENT; expect_accepted("epilogue_forward: no bias, no mask", E(e));
    eb = epib(); eb.dbias = ABSENT; expect_accepted("epilogue_backward: no dbias", EB(eb));
}

static void bad_enums(void)
{
    const gpuact_dtype bad_dt = (gpuact_dtype)7;
    const gpuact_activation_kind bad_kinds[2] = {(gpuact_activation_kind)GPUACT_KIND_COUNT,
                                                 (gpuact_activation_kind)-1};
    gpuact_forward_desc f;
    gpuact_backward_desc b;
    gpuact_epilogue_desc e;
    gpuact_epilogue_backward_desc eb;
    int k;

    expect_invalid("relu_forward: dtype 7", gpuact_relu_forward(ctx, bad_dt, N, buf(X, 0), buf(Y, 0), NULL), GPUACT_RULE_DTYPE_UNKNOWN);
    expect_invalid("relu_backward: dtype 7", gpuact_relu_backward(ctx, bad_dt, N, buf(DY, 0), buf(X, 0), buf(DX, 0), NULL), GPUACT_RULE_DTYPE_UNKNOWN);
    f = fwd(); f.dtype = bad_dt; expect_invalid("forward: dtype 7", F(f), GPUACT_RULE_DTYPE_UNKNOWN);
    b = bwd(); b.dtype = bad_dt; expect_invalid("backward: dtype 7", B(b), GPUACT_RULE_DTYPE_UNKNOWN);
    e = epi(); e.x_dtype = bad_dt; expect_invalid("epilogue_forward: x_dtype 7", E(e), GPUACT_RULE_DTYPE_UNKNOWN);
    e = epi(); e.y_dtype = bad_dt; expect_invalid("epilogue_forward: y_dtype 7", E(e), GPUACT_RULE_DTYPE_UNKNOWN);
    e = epi(); e.bias_dtype = bad_dt; expect_invalid("epilogue_forward: bias_dtype 7", E(e), GPUACT_RULE_DTYPE_UNKNOWN);
    eb = epib(); eb.dy_dtype = bad_dt; expect_invalid("epilogue_backward: dy_dtype 7", EB(eb), GPUACT_RULE_DTYPE_UNKNOWN);
    eb = epib(); eb.dx_dtype = bad_dt; expect_invalid("epilogue_backward: dx_dtype 7", EB(eb), GPUACT_RULE_DTYPE_UNKNOWN);
    eb = epib(); eb.dbias_dtype = bad_dt; expect_invalid("epilogue_backward: dbias_dtype 7", EB(eb), GPUACT_RULE_DTYPE_UNKNOWN);
    eb = epib(); eb.mask = ABSENT; eb.y = buf(Y, 0); eb.y_dtype = bad_dt;
    expect_invalid("epilogue_backward from y: y_dtype 7", EB(eb), GPUACT_RULE_DTYPE_UNKNOWN);
    for (k = 0; k < 2; k++) {
        char what[80];
        gpuact_activation a = act(bad_kinds[k], 0.0f, 0.0f);
        snprintf(what, sizeof what, "forward: activation kind %d", (int)bad_kinds[k]);
        f = fwd(); f.act = a; expect_invalid(what, F(f), GPUACT_RULE_KIND_UNKNOWN);
        snprintf(what, sizeof what, "backward: activation kind %d", (int)bad_kinds[k]);
        b = bwd(); b.act = a; expect_invalid(what, B(b), GPUACT_RULE_KIND_UNKNOWN);
        snprintf(what, sizeof what, "epilogue_forward: activation kind %d", (int)bad_kinds[k]);
        e = epi(); e.act = a; expect_invalid(what, E(e), GPUACT_RULE_KIND_UNKNOWN);
        snprintf(what, sizeof what, "epilogue_backward: activation kind %d", (int)bad_kinds[k]);
        eb = epib(); eb.act = a; expect_invalid(what, EB(eb), GPUACT_RULE_KIND_UNKNOWN);
    }
    for (k = 0; k < 2; k++) { /* an unknown flag bit, alone and beside GPUACT_ACT_PRECISE */
        char what[80];
        gpuact_activation a = act(GPUACT_GELU, 0.0f, 0.0f);
        a.flags = k ? (GPUACT_ACT_PRECISE | 0x80000000u) : 2u;
        snprintf(what, sizeof what, "forward: act.flags 0x%x", a.flags);
        f = fwd(); f.act = a; expect_invalid(what, F(f), GPUACT_RULE_ACT_FLAGS_UNKNOWN);
        snprintf(what, sizeof what, "backward: act.flags 0x%x", a.flags);
        b = bwd(); b.act = a; expect_invalid(what, B(b), GPUACT_RULE_ACT_FLAGS_UNKNOWN);
        snprintf(what, sizeof what, "epilogue_forward: act.flags 0x%x", a.flags);
        e = epi(); e.act = a; expect_invalid(what, E(e), GPUACT_RULE_ACT_FLAGS_UNKNOWN);
        snprintf(what, sizeof what, "epilogue_backward: act.flags 0x%x", a.flags);
        eb = epib(); eb.act = a; expect_invalid(what, EB(eb), GPUACT_RULE_ACT_FLAGS_UNKNOWN);
    }
}

static void bad_parameters(void)
{
    /* rule NONE: valid */
    static const struct { const char *what; gpuact_activation_kind kind; float slope, ceiling; gpuact_rule rule; } P[] = {
        {"leaky slope -0.01", GPUACT_LEAKY_RELU, -0.01f, 0.0f, GPUACT_RULE_SLOPE_INVALID},
        {"leaky slope -Inf", GPUACT_LEAKY_RELU, -HUGE_VALF, 0.0f, GPUACT_RULE_SLOPE_INVALID},
        {"leaky slope NaN", GPUACT_LEAKY_RELU, NAN, 0.0f, GPUACT_RULE_SLOPE_INVALID},
        {"clipped ceiling 0", GPUACT_CLIPPED_RELU, 0.0f, 0.0f, GPUACT_RULE_CEILING_INVALID},
        {"clipped ceiling -0", GPUACT_CLIPPED_RELU, 0.0f, -0.0f, GPUACT_RULE_CEILING_INVALID},
        {"clipped ceiling -1", GPUACT_CLIPPED_RELU, 0.0f, -1.0f, GPUACT_RULE_CEILING_INVALID},
        {"clipped ceiling NaN", GPUACT_CLIPPED_RELU, 0.0f, NAN, GPUACT_RULE_CEILING_INVALID},
        {"leaky slope 0", GPUACT_LEAKY_RELU, 0.0f, 0.0f, GPUACT_RULE_NONE},
        {"leaky slope 1", GPUACT_LEAKY_RELU, 1.0f, 0.0f, GPUACT_RULE_NONE},
        {"clipped ceiling 6", GPUACT_CLIPPED_RELU, 0.0f, 6.0f, GPUACT_RULE_NONE},
        {"clipped ceiling smallest subnormal", GPUACT_CLIPPED_RELU, 0.0f, 1e-45f, GPUACT_RULE_NONE}
    };
    size_t i;
    for (i = 0; i < sizeof P / sizeof P[0]; i++) {
        gpuact_activation a = act(P[i].kind, P[i].slope, P[i].ceiling);
        gpuact_forward_desc f = fwd();
        gpuact_backward_desc b = bwd();
        gpuact_epilogue_desc e = epi();
        gpuact_epilogue_backward_desc eb = epib();
        char what[4][96];
        f.act = b.act = e.act = eb.act = a;
        snprintf(what[0], sizeof what[0], "forward: %s", P[i].what);
        snprintf(what[1], sizeof what[1], "backward: %s", P[i].what);
        snprintf(what[2], sizeof what[2], "epilogue_forward: %s", P[i].what);
        snprintf(what[3], sizeof what[3], "epilogue_backward: %s", P[i].what);
        expect_result(what[0], F(f), P[i].rule);
        expect_result(what[1], B(b), P[i].rule);
        expect_result(what[2], E(e), P[i].rule);
        expect_result(what[3], EB(eb), P[i].rule);
    }
}

/* hardtanh's bounds, and what the smooth kinds (no mask, backward from x)
   refuse. */
static void new_kinds(void)
{
    static const struct { const char *what; float lower, upper; int valid; } H[] = {
        {"hardtanh lower > upper", 1.0f, -1.0f, 0},
        {"hardtanh lower NaN", NAN, 1.0f, 0},
        {"hardtanh upper NaN", -1.0f, NAN, 0},
        {"hardtanh lower == upper", 0.5f, 0.5f, 1},
        {"hardtanh -0 and 0", -0.0f, 0.0f, 1},
        {"hardtanh -Inf, Inf", -HUGE_VALF, HUGE_VALF, 1},
        {"hardtanh -1, 1", -1.0f, 1.0f, 1}};
    size_t i;
    char what[96];
    for (i = 0; i < sizeof H / sizeof H[0]; i++) {
        gpuact_activation a = act(GPUACT_HARDTANH, 0.0f, H[i].upper);
        gpuact_forward_desc f = fwd();
        gpuact_epilogue_backward_desc eb = epib();
        a.lower = H[i].lower;
        f.act = eb.act = a;
        snprintf(what, sizeof what, "forward: %s", H[i].what);
        if (H[i].valid) expect_accepted(what, F(f));
        else expect_invalid(what, F(f), GPUACT_RULE_BOUNDS_INVALID);
        snprintf(what, sizeof what, "epilogue_backward: %s", H[i].what);
        if (H[i].valid) expect_accepted(what, EB(eb));
        else expect_invalid(what, EB(eb), GPUACT_RULE_BOUNDS_INVALID);
    }
    {
        gpuact_epilogue_backward_desc eb = epib();
        eb.act = act(GPUACT_HARDTANH, 0.0f, 1.0f);
        eb.act.lower = -1.0f;
        eb.mask.handle = NULL;
        eb.y = buf(Y, 0);
        expect_invalid_saying("epilogue_backward: hardtanh from y", EB(eb), GPUACT_RULE_Y_SOURCE_UNSUPPORTED_KIND, "needs the forward's mask");
        eb.y.handle = NULL;
        eb.x = buf(X, 0);
        expect_invalid("epilogue_backward: hardtanh from x", EB(eb), GPUACT_RULE_X_SOURCE_NEEDS_SMOOTH_KIND);
    }
    for (i = 0; i < GPUACT_KIND_COUNT; i++) {   /* every smooth kind of the table */
        gpuact_activation a = act((gpuact_activation_kind)i, 0.0f, 0.0f);
        gpuact_forward_desc f = fwd();
        gpuact_backward_desc b = bwd();
        gpuact_epilogue_desc e = epi();
        gpuact_epilogue_backward_desc eb = epib();
        if (!gpuact_ref_smooth(a))
            continue;
        f.act = b.act = e.act = eb.act = a;
        snprintf(what, sizeof what, "forward: kind %d with a mask", (int)i);
        expect_invalid(what, F(f), GPUACT_RULE_MASK_FOR_SMOOTH_KIND);
        f.mask.handle = NULL;
        snprintf(what, sizeof what, "forward: kind %d without mask", (int)i);
        expect_accepted(what, F(f));
        snprintf(what, sizeof what, "backward: kind %d from the mask", (int)i);
        b.x.handle = NULL;
        b.mask = buf(MASK, 0);
        expect_invalid(what, B(b), GPUACT_RULE_MASK_FOR_SMOOTH_KIND);
        snprintf(what, sizeof what, "epilogue_forward: kind %d with a mask", (int)i);
        e.mask = buf(MASK, 0);
        expect_invalid(what, E(e), GPUACT_RULE_MASK_FOR_SMOOTH_KIND);
        snprintf(what, sizeof what, "epilogue_backward: kind %d from the mask", (int)i);
        expect_invalid(what, EB(eb), GPUACT_RULE_MASK_FOR_SMOOTH_KIND);
        eb.mask.handle = NULL;
        eb.y = buf(Y, 0);
        snprintf(what, sizeof what, "epilogue_backward: kind %d from y", (int)i);
        expect_invalid_saying(what, EB(eb), GPUACT_RULE_Y_SOURCE_UNSUPPORTED_KIND, "needs the forward's input x");
        eb.bias = buf(BIAS, 0);
        snprintf(what, sizeof what, "epilogue_backward: kind %d, bias with y", (int)i);
        expect_invalid(what, EB(eb), GPUACT_RULE_BIAS_WITHOUT_X);
        eb.y.handle = NULL;
        eb.x = buf(X, 0);
        eb.x_dtype = GPUACT_F32;
        snprintf(what, sizeof what, "epilogue_backward: kind %d from x + bias", (int)i);
        expect_accepted(what, EB(eb));
        eb.x_dtype = (gpuact_dtype)7;
        snprintf(what, sizeof what, "epilogue_backward: kind %d, x_dtype 7", (int)i);
        expect_invalid_saying(what, EB(eb), GPUACT_RULE_DTYPE_UNKNOWN, "x_dtype = 7");
        eb.x_dtype = GPUACT_F32;
        eb.ld_x = COLS - 1;
        snprintf(what, sizeof what, "epilogue_backward: kind %d, ld_x < cols", (int)i);
        expect_invalid_saying(what, EB(eb), GPUACT_RULE_LD_TOO_SMALL, "ld_x");
        eb.ld_x = 0;
        eb.mask = buf(MASK, 0);
        snprintf(what, sizeof what, "epilogue_backward: kind %d, x and mask", (int)i);
        expect_invalid(what, EB(eb), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    }
}

/* Few-bit codes: code_bits 0-4 and a buffer only with bits, a kind with a
   table, codes_ld, the codes' extent and offset, the bias's dtype, and one
   source in the backward. (The mask's buffer holds the codes.) */
static void few_bit_codes(void)
{
    gpuact_activation gelu = act(GPUACT_GELU, 0.0f, 0.0f);
    gpuact_forward_desc f = fwd();
    gpuact_backward_desc b = bwd();
    gpuact_epilogue_desc e = epi();
    gpuact_epilogue_backward_desc eb = epib();
    f.act = b.act = e.act = eb.act = gelu;
    f.mask.handle = e.mask.handle = eb.mask.handle = NULL;
    f.codes = e.codes = eb.codes = buf(MASK, 0);
    f.code_bits = e.code_bits = eb.code_bits = 2;
    b.x.handle = NULL;
    b.codes = buf(MASK, 0);
    b.code_bits = 3;
    expect_accepted("forward: gelu writing 2-bit codes", F(f));
    expect_accepted("backward: gelu from 3-bit codes", B(b));
    expect_accepted("epilogue_forward: gelu writing 2-bit codes", E(e));
    expect_accepted("epilogue_backward: gelu from 2-bit codes, dbias", EB(eb));
    f.code_bits = 5;
    expect_invalid_saying("forward: code_bits 5", F(f), GPUACT_RULE_CODE_BITS_INVALID, "code_bits = 5");
    f.code_bits = -1;
    expect_invalid("forward: code_bits -1", F(f), GPUACT_RULE_CODE_BITS_INVALID);
    f.code_bits = 0;
    expect_invalid("forward: codes without code_bits", F(f), GPUACT_RULE_CODE_BITS_INVALID);
    f.code_bits = 4;
    f.codes.handle = NULL;
    expect_invalid("forward: code_bits without codes", F(f), GPUACT_RULE_BUFFER_REQUIRED);
    f.codes = buf(MASK, 2);
    expect_invalid_saying("forward: codes at offset 2", F(f), GPUACT_RULE_OFFSET_MISALIGNED, "codes");
    f.codes = buf(MASK, BUF_BYTES - 28);   /* 64 4-bit codes need 32 bytes */
    expect_invalid_saying("forward: codes 4 bytes too small", F(f), GPUACT_RULE_BUFFER_TOO_SMALL, "codes");
    f.codes = buf(MASK, BUF_BYTES - 32);
    expect_accepted("forward: 4-bit codes that just fit", F(f));
    f.code_bits = 3; /* dense: 64 3-bit codes fill 24 bytes */
    f.codes = buf(MASK, BUF_BYTES - 20);
    expect_invalid_saying("forward: 3-bit codes 4 bytes too small", F(f), GPUACT_RULE_BUFFER_TOO_SMALL, "codes");
    f.codes = buf(MASK, BUF_BYTES - 24);
    expect_accepted("forward: 3-bit codes that just fit", F(f));
    f.code_bits = 4;
    f.codes = buf(MASK, 0);
    f.mask = buf(MASK, 0);
    expect_invalid("forward: codes and a mask", F(f), GPUACT_RULE_MASK_FOR_SMOOTH_KIND);
    f.mask.handle = NULL;
    f.act = act(GPUACT_RELU, 0.0f, 0.0f);
    expect_invalid_saying("forward: relu with codes", F(f), GPUACT_RULE_CODES_KIND_WITHOUT_TABLE, "relu");
    f.act = act(GPUACT_SQUARED_RELU, 0.0f, 0.0f);
    expect_invalid("forward: squared relu with codes", F(f), GPUACT_RULE_CODES_KIND_WITHOUT_TABLE);
    b.act = act(GPUACT_LEAKY_RELU, 0.0f, 0.0f);
    expect_invalid("backward: leaky relu from codes", B(b), GPUACT_RULE_CODES_KIND_WITHOUT_TABLE);
    b.act = gelu;
    b.x = buf(X, 0);
    expect_invalid("backward: x and codes", B(b), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    b.x.handle = NULL;
    b.mask = buf(DBIAS, 0);
    expect_invalid("backward: mask and codes", B(b), GPUACT_RULE_SOURCE_NOT_EXACTLY_ONE);
    b.mask.handle = NULL;
    b.dx = buf(MASK, 0);
    expect_invalid("backward: dx over the codes", B(b), GPUACT_RULE_OVERLAP);
    e.codes_ld = 48;
    expect_invalid_saying("epilogue_forward: codes_ld 48", E(e), GPUACT_RULE_CODES_LD_INVALID, "codes_ld = 48");
    e.codes_ld = 0;
    e.cols = 40;
    e.ld_x = e.ld_y = 40;
    e.codes_ld = 32;
    expect_invalid("epilogue_forward: codes_ld 32 < cols 40", E(e), GPUACT_RULE_CODES_LD_INVALID);
    e.codes_ld = 64;
    expect_accepted("epilogue_forward: codes_ld 64, cols 40", E(e));
    e.cols = COLS;
    e.ld_x = e.ld_y = e.codes_ld = 0;
    e.bias_dtype = GPUACT_BF16;
    expect_invalid_saying("epilogue_forward: codes, bias in bf16, x in f32", E(e), GPUACT_RULE_CODES_BIAS_DTYPE, "bf16");
    e.bias_dtype = GPUACT_F32;
    e.y = buf(MASK, 64);
    expect_invalid("epilogue_forward: y over the codes", E(e), GPUACT_RULE_OVERLAP);
    eb.bias = buf(BIAS, 0);
    expect_invalid_saying("epilogue_backward: bias with codes", EB(eb), GPUACT_RULE_BIAS_WITHOUT_X, "codes");
    eb.bias.handle = NULL;
    eb.act = act(GPUACT_GELU_TANH, 0.0f, 0.0f);
    eb.code_bits = 9;
    expect_invalid("epilogue_backward: code_bits 9", EB(eb), GPUACT_RULE_CODE_BITS_INVALID);
    eb.code_bits = 1;
    eb.codes_ld = 31;
    expect_invalid("epilogue_backward: codes_ld 31", EB(eb), GPUACT_RULE_CODES_LD_INVALID);
}

/* The glu ops: which kinds gate, biases both or neither, outputs that
   overlap (and the halves of one buffer, which do not). */
static void glu_checks(void)
{
    gpuact_glu_desc f;
    gpuact_glu_backward_desc b;
    memset(&f, 0, sizeof f);
    f.act.kind = GPUACT_SILU;
    f.rows = ROWS; f.cols = COLS / 2;
    f.x_dtype = f.y_dtype = GPUACT_F32;
    f.a = buf(X, 0); f.b = buf(X, COLS / 2 * 4); f.ld_a = f.ld_b = COLS; /* the halves of X's rows */
    f.y = buf(Y, 0);
    expect_accepted("glu_forward: silu, halves of one buffer", gpuact_glu_forward(ctx, &f, NULL));
    f.act.kind = GPUACT_LEAKY_RELU;
    expect_invalid("glu_forward: leaky does not gate", gpuact_glu_forward(ctx, &f, NULL), GPUACT_RULE_KIND_NOT_GATED);
    f.act.kind = GPUACT_SQUARED_RELU;
    expect_invalid("glu_forward: sqrelu does not gate", gpuact_glu_forward(ctx, &f, NULL), GPUACT_RULE_KIND_NOT_GATED);
    f.act.kind = GPUACT_GELU;
    f.bias_a = buf(BIAS, 0);
    expect_invalid("glu_forward: bias_a without bias_b", gpuact_glu_forward(ctx, &f, NULL), GPUACT_RULE_BOTH_OR_NEITHER);
    f.bias_b = buf(BIAS, 0);
    expect_accepted("glu_forward: gelu with biases", gpuact_glu_forward(ctx, &f, NULL));
    f.y = buf(X, 0);
    expect_invalid("glu_forward: y over a", gpuact_glu_forward(ctx, &f, NULL), GPUACT_RULE_OVERLAP);
    f.y = buf(Y, 0);
    f.ld_y = 1;
    expect_invalid_saying("glu_forward: ld_y < cols", gpuact_glu_forward(ctx, &f, NULL), GPUACT_RULE_LD_TOO_SMALL, "ld_y");
    f.ld_y = 0;
    f.x_dtype = (gpuact_dtype)9;
    expect_invalid_saying("glu_forward: x_dtype 9", gpuact_glu_forward(ctx, &f, NULL), GPUACT_RULE_DTYPE_UNKNOWN, "x_dtype = 9");
    expect_invalid("glu_forward: NULL desc", gpuact_glu_forward(ctx, NULL, NULL), GPUACT_RULE_NULL_ARGUMENT);

    memset(&b, 0, sizeof b);
    b.act.kind = GPUACT_SILU;
    b.rows = ROWS; b.cols = COLS / 2;
    b.dy_dtype = b.x_dtype = b.dbias_dtype = GPUACT_F32;
    b.dy = buf(DY, 0);
    b.a = buf(X, 0); b.b = buf(X, COLS / 2 * 4); b.ld_a = b.ld_b = COLS;
    b.da = buf(DX, 0); b.db = buf(DX, COLS / 2 * 4); b.ld_da = b.ld_db = COLS; /* halves of dX */
    b.dbias_a = buf(DBIAS, 0); b.dbias_b = buf(DBIAS, COLS / 2 * 4);
    expect_accepted("glu_backward: silu, halves, dbias", gpuact_glu_backward(ctx, &b, NULL));
    b.db = buf(DX, COLS / 4 * 4);
    expect_invalid("glu_backward: da and db rows overlap", gpuact_glu_backward(ctx, &b, NULL), GPUACT_RULE_OVERLAP);
    b.db = buf(DX, COLS / 2 * 4);
    b.dbias_b.handle = NULL;
    expect_invalid("glu_backward: dbias_a alone", gpuact_glu_backward(ctx, &b, NULL), GPUACT_RULE_BOTH_OR_NEITHER);
    b.dbias_b = buf(DBIAS, 4);
    expect_invalid("glu_backward: dbias_a and dbias_b overlap", gpuact_glu_backward(ctx, &b, NULL),
                          GPUACT_RULE_OVERLAP);
    b.dbias_b = buf(DBIAS, COLS / 2 * 4);
    b.rows = 0;
    expect_accepted("glu_backward: no rows (dbias zeros)", gpuact_glu_backward(ctx, &b, NULL));
}

static void bad_sizes_and_offsets(void)
{
    const size_t huge = SIZE_MAX / 2 + 1;   /* times 2 or 4 bytes: past SIZE_MAX */
    gpuact_forward_desc f;
    gpuact_backward_desc b;
    gpuact_epilogue_desc e;
    gpuact_epilogue_backward_desc eb;

    expect_invalid("relu_forward: f32 n = SIZE_MAX/2+1 (bytes overflow)", gpuact_relu_forward(ctx, GPUACT_F32, huge, buf(X, 0), buf(Y, 0), NULL), GPUACT_RULE_SIZE_OVERFLOW);
    expect_invalid("relu_backward: f16 n = SIZE_MAX/2+1 (bytes overflow)", gpuact_relu_backward(ctx, GPUACT_F16, huge, buf(DY, 0), buf(X, 0), buf(DX, 0), NULL), GPUACT_RULE_SIZE_OVERFLOW);
    f = fwd(); f.n = huge; expect_invalid("forward: f32 n = SIZE_MAX/2+1", F(f), GPUACT_RULE_SIZE_OVERFLOW);
    f = fwd(); f.n = huge; f.dtype = GPUACT_BF16; expect_invalid("forward: bf16 n = SIZE_MAX/2+1", F(f), GPUACT_RULE_SIZE_OVERFLOW);
    f = fwd(); f.n = SIZE_MAX; f.mask = ABSENT; expect_invalid("forward: f32 n = SIZE_MAX", F(f), GPUACT_RULE_SIZE_OVERFLOW);
    b = bwd(); b.n = huge; expect_invalid("backward: f32 n = SIZE_MAX/2+1", B(b), GPUACT_RULE_SIZE_OVERFLOW);
    b = bwd(); b.n = huge; b.x = ABSENT; b.mask = buf(MASK, 0); expect_invalid("backward from mask: f32 n = SIZE_MAX/2+1", B(b), GPUACT_RULE_SIZE_OVERFLOW);

    expect_invalid("relu_forward: f32 x offset 1", gpuact_relu_forward(ctx, GPUACT_F32, N, buf(X, 1), buf(Y, 0), NULL), GPUACT_RULE_OFFSET_MISALIGNED);
    expect_invalid("relu_forward: f32 y offset 2", gpuact_relu_forward(ctx, GPUACT_F32, N, buf(X, 0), buf(Y, 2), NULL), GPUACT_RULE_OFFSET_MISALIGNED);
    expect_invalid("relu_backward: f16 dy offset 1", gpuact_relu_backward(ctx, GPUACT_F16, N, buf(DY, 1), buf(X, 0), buf(DX, 0), NULL), GPUACT_RULE_OFFSET_MISALIGNED);
    expect_invalid("relu_backward: f32 x offset 3", gpuact_relu_backward(ctx, GPUACT_F32, N, buf(DY, 0), buf(X, 3), buf(DX, 0), NULL), GPUACT_RULE_OFFSET_MISALIGNED);
    expect_invalid("relu_backward: bf16 dx offset 1", gpuact_relu_backward(ctx, GPUACT_BF16, N, buf(DY, 0), buf(X, 0), buf(DX, 1), NULL), GPUACT_RULE_OFFSET_MISALIGNED);
    f = fwd(); f.x.offset = 2; expect_invalid("forward: f32 x offset 2", F(f), GPUACT_RULE_OFFSET_MISALIGNED);
    f = fwd(); f.dtype = GPUACT_F16; f.y.offset = 3; expect_invalid("forward: f16 y offset 3", F(f), GPUACT_RULE_OFFSET_MISALIGNED);
    f = fwd(); f.mask.offset = 3; expect_accepted("forward: mask offset 3 (bytes: fine)", F(f));
    b = bwd(); b.dy.offset = 2; expect_invalid("backward: f32 dy offset 2", B(b), GPUACT_RULE_OFFSET_MISALIGNED);
    b = bwd(); b.dx.offset = 1; expect_invalid("backward: f32 dx offset 1", B(b), GPUACT_RULE_OFFSET_MISALIGNED);
    e = epi(); e.x.offset = 2; expect_invalid("epilogue_forward: f32 x offset 2", E(e), GPUACT_RULE_OFFSET_MISALIGNED);
    e = epi(); e.y_dtype = GPUACT_F16; e.y.offset = 1; expect_invalid("epilogue_forward: f16 y offset 1", E(e), GPUACT_RULE_OFFSET_MISALIGNED);
    e = epi(); e.bias.offset = 2; expect_invalid("epilogue_forward: f32 bias offset 2", E(e), GPUACT_RULE_OFFSET_MISALIGNED);
    eb = epib(); eb.dy.offset = 1; expect_invalid("epilogue_backward: f32 dy offset 1", EB(eb), GPUACT_RULE_OFFSET_MISALIGNED);
    eb = epib(); eb.dx.offset = 2; expect_invalid("epilogue_backward: f32 dx offset 2", EB(eb), GPUACT_RULE_OFFSET_MISALIGNED);
    eb = epib(); eb.dbias.offset = 1; expect_invalid("epilogue_backward: f32 dbias offset 1", EB(eb), GPUACT_RULE_OFFSET_MISALIGNED);
    eb = epib(); eb.mask = ABSENT; eb.y = buf(Y, 2); expect_invalid("epilogue_backward: f32 y offset 2", EB(eb), GPUACT_RULE_OFFSET_MISALIGNED);
}

static void overlaps(void)
{
    const size_t extent = N * 4;
    gpuact_forward_desc f;
    gpuact_backward_desc b;
    gpuact_epilogue_desc e;
    gpuact_epilogue_backward_desc eb;

    /* elementwise: inside X, partial overlaps and then exact aliasing */
    f = fwd(); f.x = buf(X, 0); f.y = buf(X, 4); expect_invalid("forward: y overlaps x (+1 element)", F(f), GPUACT_RULE_OVERLAP);
    f = fwd(); f.x = buf(X, extent - 4); f.y = buf(X, 0); expect_invalid("forward: x overlaps the end of y", F(f), GPUACT_RULE_OVERLAP);
    f = fwd(); f.x = buf(X, 0); f.y = buf(X, extent); expect_accepted("forward: y right after x in one buffer", F(f));
    f = fwd(); f.x = buf(X, 16); f.y = buf(X, 16); expect_accepted("forward: y = x exactly (in place)", F(f));
    f = fwd(); f.mask = buf(X, 8); expect_invalid("forward: mask overlaps x", F(f), GPUACT_RULE_OVERLAP);
    expect_invalid("relu_forward: y overlaps x", gpuact_relu_forward(ctx, GPUACT_F32, N, buf(X, 0), buf(X, 8), NULL), GPUACT_RULE_OVERLAP);
    expect_accepted("relu_forward: y = x exactly", gpuact_relu_forward(ctx, GPUACT_F32, N, buf(X, 0), buf(X, 0), NULL));
    b = bwd(); b.dy = buf(DY, 0); b.dx = buf(DY, 8); expect_invalid("backward: dx overlaps dy", B(b), GPUACT_RULE_OVERLAP);
    b = bwd(); b.dx = buf(X, 4); expect_invalid("backward: dx overlaps x", B(b), GPUACT_RULE_OVERLAP);
    b = bwd(); b.x = ABSENT; b.mask = buf(DX, 4); expect_invalid("backward: dx overlaps the mask", B(b), GPUACT_RULE_OVERLAP);
    b = bwd(); b.dx = buf(DY, 0); expect_accepted("backward: dx = dy exactly (in place)", B(b));
    expect_invalid("relu_backward: dx overlaps dy", gpuact_relu_backward(ctx, GPUACT_F32, N, buf(DY, 0), buf(X, 0), buf(DY, 4), NULL), GPUACT_RULE_OVERLAP);

    /* epilogue: the extent is ((rows - 1) * ld + cols) elements */
    e = epi(); e.y = buf(X, 4); expect_invalid("epilogue_forward: y overlaps x", E(e), GPUACT_RULE_OVERLAP);
    e = epi(); e.y = buf(BIAS, 4); expect_invalid("epilogue_forward: y overlaps bias", E(e), GPUACT_RULE_OVERLAP);
    e = epi(); e.mask = buf(X, 4); expect_invalid("epilogue_forward: mask overlaps x", E(e), GPUACT_RULE_OVERLAP);
    e = epi(); e.y = buf(X, 0); expect_accepted("epilogue_forward: y = x, same dtype and ld", E(e));
    e = epi(); e.y = buf(X, 0); e.ld_x = 0; e.ld_y = COLS; expect_accepted("epilogue_forward: y = x, ld 0 and ld cols", E(e));
    e = epi(); e.y = buf(X, 0); e.y_dtype = GPUACT_F16; expect_invalid("epilogue_forward: y = x with other dtypes", E(e), GPUACT_RULE_OVERLAP);
    e = epi(); e.y = buf(X, 0); e.ld_x = COLS + 4; e.ld_y = COLS + 8; expect_invalid("epilogue_forward: y = x with other lds", E(e), GPUACT_RULE_OVERLAP);
    eb = epib(); eb.dx = buf(DY, 4); expect_invalid("epilogue_backward: dx overlaps dy", EB(eb), GPUACT_RULE_OVERLAP);
    eb = epib(); eb.mask = ABSENT; eb.y = buf(DX, 4); expect_invalid("epilogue_backward: dx overlaps y", EB(eb), GPUACT_RULE_OVERLAP);
    eb = epib(); eb.dbias = buf(DY, 4); expect_invalid("epilogue_backward: dbias overlaps dy", EB(eb), GPUACT_RULE_OVERLAP);
    eb = epib(); eb.dbias = buf(DX, 4); expect_invalid("epilogue_backward: dbias overlaps dx", EB(eb), GPUACT_RULE_OVERLAP);
    eb = epib(); eb.dx = buf(DY, 0); expect_accepted("epilogue_backward: dx = dy, same dtype and ld", EB(eb));
    eb = epib(); eb.dx = buf(DY, 0); eb.dx_dtype = GPUACT_BF16; expect_invalid("epilogue_backward: dx = dy with other dtypes", EB(eb), GPUACT_RULE_OVERLAP);
    eb = epib(); eb.dx = buf(DY, 0); eb.ld_dy = COLS + 2; eb.ld_dx = COLS; expect_invalid("epilogue_backward: dx = dy with other lds", EB(eb), GPUACT_RULE_OVERLAP);
}

static void epilogue_shapes(void)
{
    gpuact_epilogue_desc e;
    gpuact_epilogue_backward_desc eb;

    e = epi(); e.ld_x = COLS - 1; expect_invalid("epilogue_forward: ld_x < cols", E(e), GPUACT_RULE_LD_TOO_SMALL);
    e = epi(); e.ld_y = COLS - 1; expect_invalid("epilogue_forward: ld_y < cols", E(e), GPUACT_RULE_LD_TOO_SMALL);
    e = epi(); e.cols = 20; e.mask_ld = 16; e.ld_x = e.ld_y = 20; expect_invalid("epilogue_forward: mask_ld < cols", E(e), GPUACT_RULE_MASK_LD_TOO_SMALL);
    e = epi(); e.mask_ld = 20; expect_invalid("epilogue_forward: mask_ld not a multiple of 8", E(e), GPUACT_RULE_MASK_LD_NOT_MULTIPLE_OF_8);
    e = epi(); e.mask_ld = 16; expect_accepted("epilogue_forward: mask_ld = cols", E(e));
    e = epi(); e.rows = SIZE_MAX / 8; expect_invalid("epilogue_forward: rows * ld overflows", E(e), GPUACT_RULE_SIZE_OVERFLOW);
    e = epi(); e.rows = SIZE_MAX / 32; expect_invalid("epilogue_forward: rows * ld * 4 bytes overflows", E(e), GPUACT_RULE_SIZE_OVERFLOW);
    e = epi(); e.ld_x = SIZE_MAX / 2; expect_invalid("epilogue_forward: ld_x * rows overflows", E(e), GPUACT_RULE_SIZE_OVERFLOW);
    /* 64 rows of 16 f32 fill x exactly; the mask's 63 * (mask_ld / 8) bytes pass SIZE_MAX */
    e = epi(); e.rows = 64; e.mask_ld = (SIZE_MAX / 4) & ~(size_t)7;
    expect_invalid("epilogue_forward: mask bytes (rows * mask_ld / 8) overflow", E(e), GPUACT_RULE_SIZE_OVERFLOW);
    e = epi(); e.scale = (float)NAN; expect_invalid("epilogue_forward: scale NaN", E(e), GPUACT_RULE_SCALE_NOT_FINITE);
    e = epi(); e.scale = HUGE_VALF; expect_invalid("epilogue_forward: scale +Inf", E(e), GPUACT_RULE_SCALE_NOT_FINITE);
    e = epi(); e.scale = -HUGE_VALF; expect_invalid("epilogue_forward: scale -Inf", E(e), GPUACT_RULE_SCALE_NOT_FINITE);
    e = epi(); e.scale = -0.5f; expect_accepted("epilogue_forward: scale -0.5", E(e));

    eb = epib(); eb.ld_dy = COLS - 1; expect_invalid("epilogue_backward: ld_dy < cols", EB(eb), GPUACT_RULE_LD_TOO_SMALL);
    eb = epib(); eb.ld_dx = COLS - 1; expect_invalid("epilogue_backward: ld_dx < cols", EB(eb), GPUACT_RULE_LD_TOO_SMALL);
    eb = epib(); eb.mask = ABSENT; eb.y = buf(Y, 0); eb.ld_y = COLS - 1; expect_invalid("epilogue_backward: ld_y < cols", EB(eb), GPUACT_RULE_LD_TOO_SMALL);
    eb = epib(); eb.mask_ld = 8; expect_invalid("epilogue_backward: mask_ld < cols", EB(eb), GPUACT_RULE_MASK_LD_TOO_SMALL);
    eb = epib(); eb.mask_ld = 36; expect_invalid("epilogue_backward: mask_ld not a multiple of 8", EB(eb), GPUACT_RULE_MASK_LD_NOT_MULTIPLE_OF_8);
    eb = epib(); eb.rows = SIZE_MAX / 8; expect_invalid("epilogue_backward: rows * ld overflows", EB(eb), GPUACT_RULE_SIZE_OVERFLOW);
    eb = epib(); eb.rows = 64; eb.mask_ld = (SIZE_MAX / 4) & ~(size_t)7;
    expect_invalid("epilogue_backward: mask bytes (rows * mask_ld / 8) overflow", EB(eb), GPUACT_RULE_SIZE_OVERFLOW);
    eb = epib(); eb.scale = (float)NAN; expect_invalid("epilogue_backward: scale NaN", EB(eb), GPUACT_RULE_SCALE_NOT_FINITE);
    eb = epib(); eb.scale = -HUGE_VALF; expect_invalid("epilogue_backward: scale -Inf", EB(eb), GPUACT_RULE_SCALE_NOT_FINITE);
    eb = epib(); eb.act = act(GPUACT_CLIPPED_RELU, 0.0f, 6.0f); eb.mask = ABSENT; eb.y = buf(Y, 0);
    expect_invalid("epilogue_backward: clipped relu from y", EB(eb), GPUACT_RULE_Y_SOURCE_UNSUPPORTED_KIND);
    eb = epib(); eb.mask = ABSENT; eb.y = buf(Y, 0); eb.scale = -1.0f;
    expect_invalid("epilogue_backward: from y with scale < 0", EB(eb), GPUACT_RULE_Y_SOURCE_NEEDS_POSITIVE_SCALE);
    eb = epib(); eb.scale = -1.0f; expect_accepted("epilogue_backward: from mask with scale < 0", EB(eb));
}

static void empty_work(void)
{
    gpuact_forward_desc f = fwd();
    gpuact_backward_desc b = bwd();
    gpuact_epilogue_desc e = epi();
    gpuact_epilogue_backward_desc eb = epib();

    expect_nothing("relu_forward: n = 0", gpuact_relu_forward(ctx, GPUACT_F32, 0, buf(X, 0), buf(Y, 0), NULL));
    expect_nothing("relu_backward: n = 0", gpuact_relu_backward(ctx, GPUACT_F32, 0, buf(DY, 0), buf(X, 0), buf(DX, 0), NULL));
    f.n = 0; expect_nothing("forward: n = 0 with mask", F(f));
    b.n = 0; expect_nothing("backward: n = 0", B(b));
    e.rows = 0; expect_nothing("epilogue_forward: rows = 0", E(e));
    e = epi(); e.cols = 0; expect_nothing("epilogue_forward: cols = 0", E(e));
    eb.rows = 0; eb.dbias = ABSENT; expect_nothing("epilogue_backward: rows = 0 without dbias", EB(eb));
    eb = epib(); eb.cols = 0; expect_nothing("epilogue_backward: cols = 0 with dbias", EB(eb));
}

/* rows = 0 with dbias: the sum over no rows is 0 in every column (as
   PyTorch's sum over an empty dimension), so exactly dbias's cols elements
   become +0; nothing else is written. */
static void empty_dbias(void)
{
    static const gpuact_dtype dts[3] = {GPUACT_F32, GPUACT_F16, GPUACT_BF16};
    static unsigned char got[BUF_BYTES];
    int k;
    for (k = 0; k < 3; k++) {
        gpuact_epilogue_backward_desc eb = epib();
        const size_t bytes = COLS * gpuact_dtype_size(dts[k]), off = 2 * gpuact_dtype_size(dts[k]);
        gpuact_result r;
        char what[96], why[400] = "";
        size_t i;
        eb.rows = 0;
        eb.dbias_dtype = dts[k];
        eb.dbias = buf(DBIAS, off);
        r = EB(eb);
        snprintf(what, sizeof what, "epilogue_backward: rows = 0 writes %s zeros to dbias", dts[k] == GPUACT_F32 ? "f32" : dts[k] == GPUACT_F16 ? "f16" : "bf16");
        if (r != GPUACT_SUCCESS)
            snprintf(why, sizeof why, "returned %s (%s)", gpuact_result_string(r),
                     harness_first_line(gpuact_last_error()));
        else if (gpuact_synchronize(ctx, NULL) || gpuact_buffer_read(ctx, got, bufs[DBIAS], sizeof got))
            snprintf(why, sizeof why, "read back: %s", harness_first_line(gpuact_last_error()));
        for (i = 0; i < sizeof got && !*why; i++) {
            unsigned char want = i >= off && i < off + bytes ? 0 : pattern_of(DBIAS);
            if (got[i] != want)
                snprintf(why, sizeof why, "dbias byte %zu is 0x%02x, want 0x%02x", i, got[i], want);
        }
        if (!*why) {
            fill_patterns();
            bufs[DBIAS].handle = NULL; /* the others must be untouched */
        }
        report(!*why, what, why);
        if (!bufs[DBIAS].handle) {
            const char *changed;
            bufs[DBIAS] = eb.dbias;
            bufs[DBIAS].offset = 0;
            changed = untouched();
            report(!*changed, "epilogue_backward: rows = 0 writes nothing but dbias", changed);
        }
        fill_patterns();
    }
}

#ifndef GPUACT_NO_OPENCL
/* clSetKernelArg that refuses argument 3 (a ulong offset) as the wrong size */
static gpuact__cl_int GPUACT__CLAPI set_arg_fails_at_3(gpuact__cl_kernel k, gpuact__cl_uint i, size_t size,
                                                      const void *value)
{
    (void)k; (void)size; (void)value;
    return i == 3 ? -51 /* CL_INVALID_ARG_SIZE */ : 0;
}
#endif

/* The bias gradient's row groups for a launch of gx blocks per row on a
   device of 132 units, `groups` per unit (0: the default) */
static size_t dbias_parts(unsigned groups, size_t gx, size_t rows, size_t cols)
{
    gpuact_context c;
    memset(&c, 0, sizeof c);
    c.units = 132;
    return gpuact__dbias_parts(&c, groups ? groups : GPUACT__DBIAS_GROUPS_PER_UNIT, gx, rows, cols);
}

#ifndef GPUACT_NO_OPENCL
/* The shape OpenCL gives a launch of op (with the mask and, for the
   backward, the bias gradient) over cols columns of dtypes t0, t1, t2, on
   NVIDIA's driver (wide) or another */
static gpuact__shape cl_shape(int wide, int op, int kind, gpuact_dtype t0, gpuact_dtype t1, gpuact_dtype t2, size_t cols)
{
    static gpuact__opencl o;
    gpuact_context c;
    gpuact__launch L;
    gpuact__shape sh;
    memset(&c, 0, sizeof c);
    memset(&L, 0, sizeof L);
    o.wide_groups = wide;
    c.impl = &o;
    c.units = 132;
    L.v.op = op;
    L.v.kind = kind;
    L.v.dbias = op == GPUACT_OP_backward;
    L.v.mask = 1;
    L.v.t[0] = t0;
    L.v.t[1] = t1;
    L.v.t[2] = t2;
    L.cols = cols;
    gpuact__opencl_shape(&c, &L, &sh);
    return sh;
}
/* NVIDIA's OpenCL: the work-group width chosen for a launch over cols
   columns of dtype t (gpuact__opencl_width; 0: the variant's) */
static unsigned cl_width(int op, int kind, gpuact_dtype t, size_t cols)
{
    gpuact__launch L;
    const gpuact__shape sh = cl_shape(1, op, kind, t, t, t, cols);
    memset(&L, 0, sizeof L);
    L.v.op = op;
    L.v.dbias = op == GPUACT_OP_backward;
    return gpuact__opencl_width(sh.fallback, &L, gpuact__div_up(cols, sh.items));
}
#endif
#if !defined(GPUACT_NO_CUDA) || !defined(GPUACT_NO_HIP)
/* A CUDA context's state on a device of that name with 132 units, as the backend sets it up */
static void cuda_on(const char *device, gpuact_context *c, gpuact__gpu *g)
{
    memset(c, 0, sizeof *c);
    memset(g, 0, sizeof *g);
    c->impl = g; /* as the backend's context holds it */
    snprintf(c->device_name, sizeof c->device_name, "%s", device);
    gpuact__gpu_set_shape(c, g, 132);
}
/* A launch of op over cols columns of dtypes t0, t1, t2 as the tests below take it: the ReLU backward with the
   bias gradient, the others' from x */
static void cuda_launch(gpuact__launch *L, int op, int kind, int mask, gpuact_dtype t0, gpuact_dtype t1, gpuact_dtype t2,
                        size_t cols)
{
    memset(L, 0, sizeof *L);
    L->v.op = op;
    L->v.kind = kind;
    L->v.dbias = op == GPUACT_OP_backward && kind == GPUACT_KIND_relu;
    L->v.fromx = op == GPUACT_OP_backward && kind != GPUACT_KIND_relu;
    L->v.mask = mask;
    L->v.t[0] = t0;
    L->v.t[1] = t1;
    L->v.t[2] = t2;
    L->cols = cols;
}
static gpuact__shape cuda_shape_on(const char *device, int op, int kind, int mask, gpuact_dtype t0, gpuact_dtype t1,
                                   gpuact_dtype t2, size_t cols)
{
    gpuact_context c;
    gpuact__gpu g;
    gpuact__launch L;
    gpuact__shape sh;
    cuda_on(device, &c, &g);
    cuda_launch(&L, op, kind, mask, t0, t1, t2, cols);
    gpuact__gpu_shape(&c, &L, &sh);
    return sh;
}
static gpuact__shape cuda_shape(int op, int mask, gpuact_dtype t0, gpuact_dtype t1, gpuact_dtype t2, size_t cols)
{
    return cuda_shape_on("NVIDIA H100 80GB HBM3", op, GPUACT_KIND_relu, mask, t0, t1, t2, cols);
}
/* The 16-bit lookup's indexing (kernels/contract.h, GPUACT_LUT16_*) of table tb, over every pattern: a
   pattern is in the table iff its magnitude's bits lie in [lo, hi) (bf16: 2^-12 is 0x3980, 16 is 0x4180;
   f16: 2^-14 is 0x0400, 4 0x4400), and then its entry holds that pattern (the fill kernel evaluates
   GPUACT_LUT16_BITS of each entry), or in a folded table (fold: GPUACT_LUT16_FOLD) the negative one of its
   magnitude; every entry is in the table, and every entry is some pattern's; returns the patterns that break a rule */
static unsigned lut16_index_errors(int tb, unsigned lo, unsigned hi, int fold)
{
    static unsigned char hit[65536];
    unsigned b, bad = 0;
    memset(hit, 0, sizeof hit);
    for (b = 0; b < 65536u; b++) {
        const unsigned m = b & 0x7fffu, e = GPUACT_LUT16_ENTRY(b, tb);
        const int in = m >= lo && m < hi;
        bad += e >= GPUACT_LUT16_ENTRIES(tb) || (GPUACT_LUT16_IN(b, tb) != 0) != in || !GPUACT_LUT16_FOLD(tb) != !fold ||
               (in && GPUACT_LUT16_BITS(e, tb) != (fold ? b | 0x8000u : b));
        if (in && e < 65536u) hit[e] = 1;
    }
    for (b = 0; b < GPUACT_LUT16_ENTRIES(tb) && b < 65536u; b++) bad += !hit[b];
    return bad;
}
/* Whether a variant looks its results up on a device (gpuact__gpu_lut16) */
static int lut16_on(const char *device, int op, int kind, int dbias, gpuact_dtype t)
{
    gpuact_context c;
    gpuact__gpu g;
    gpuact__variant V;
    cuda_on(device, &c, &g);
    memset(&V, 0, sizeof V);
    V.op = op;
    V.kind = kind;
    V.dbias = dbias;
    V.fromx = op == GPUACT_OP_backward;
    V.t[0] = V.t[1] = V.t[2] = t;
    return gpuact__gpu_lut16(&g, &V);
}
/* The rows a block row walks (gpuact__rows_per_block) in a 32768 x 8192 bf16 launch of op on a device: the
   gated backward (with the bias gradients: dbias), or the forward with a bias (the epilogue) */
static unsigned rows_walk_on(const char *device, int op, int kind, int dbias)
{
    gpuact_context c;
    gpuact__gpu g;
    gpuact__launch L;
    gpuact__shape sh;
    cuda_on(device, &c, &g);
    cuda_launch(&L, op, kind, 0, GPUACT_BF16, GPUACT_BF16, GPUACT_BF16, 8192);
    L.v.dbias = dbias;
    L.flags = op == GPUACT_OP_forward ? GPUACT_F_BIAS : 0;
    L.rows = 32768;
    gpuact__gpu_shape(&c, &L, &sh);
    L.grid_x = gpuact__grid_x(&c, &L, &sh);
    return (unsigned)gpuact__rows_per_block(&c, &L, &sh);
}
/* The smooth kinds' row walk (smooth_rows) of an op on a device */
static unsigned smooth_rows_on(const char *device, int op, int kind, gpuact_dtype t)
{
    return cuda_shape_on(device, op, kind, 0, t, t, t, 8192).smooth_rows;
}
#endif
/* Row groups per unit of the ReLU backward from the mask with the bias
   gradient, dy and dx of dtypes t0 and t1: on NVIDIA's OpenCL (CL_NV), on
   another OpenCL (CL) and on CUDA/HIP (the shape's dbias_groups) */
enum { CL_NV, CL, CUDA };
static size_t dbias_groups(int where, gpuact_dtype t0, gpuact_dtype t1, size_t cols)
{
#if !defined(GPUACT_NO_CUDA) || !defined(GPUACT_NO_HIP)
    if (where == CUDA)
        return cuda_shape(GPUACT_OP_backward, 1, t0, t1, t0, cols).dbias_groups;
#endif
#ifndef GPUACT_NO_OPENCL
    if (where != CUDA)
        return cl_shape(where == CL_NV, GPUACT_OP_backward, GPUACT_KIND_relu, t0, t1, t0, cols).dbias_groups;
#endif
    (void)t0; (void)t1; (void)cols;
    return 0;
}
#ifndef GPUACT_NO_OPENCL
static unsigned cl_dbias_width(gpuact_dtype t, size_t cols)
{
    return cl_width(GPUACT_OP_backward, GPUACT_KIND_relu, t, cols);
}
#endif

#ifndef GPUACT_NO_OPENCL
/* clEnqueueNDRangeKernel as a driver whose kernels take work-groups of at
   most local_limit work-items: it counts the wider ones it refused */
static gpuact__cl_api real_cl;
static size_t local_limit, widest_local, refused_local;
static gpuact__cl_int GPUACT__CLAPI enqueue_limited(gpuact__cl_queue q, gpuact__cl_kernel k, gpuact__cl_uint dims,
                                                    const size_t *offset, const size_t *global, const size_t *local,
                                                    gpuact__cl_uint waits, const gpuact__cl_event *wait,
                                                    gpuact__cl_event *event)
{
    if (local && local[0] > widest_local) widest_local = local[0];
    if (local && local[0] > local_limit) {
        refused_local++;
        return -54; /* CL_INVALID_WORK_GROUP_SIZE */
    }
    return real_cl.clEnqueueNDRangeKernel(q, k, dims, offset, global, local, waits, wait, event);
}

/* The bias-gradient backward as on NVIDIA's OpenCL (gpuact__opencl_width):
   8192 f32 columns go in work-groups of 1024; a driver that refuses them
   gets the variant's 768. Both give dx and dbias exactly (3 rows of small
   integers: every sum is exact). */
static void cl_wide_dbias(void)
{
    enum { R = 3, C = 8192 };
    static float dy[R * C], dx[R * C], want_dx[R * C], db[C], want_db[C];
    static unsigned char mask[R * C / 8];
    gpuact__opencl *o;
    gpuact_epilogue_backward_desc d;
    gpuact_buffer b[4];
    int wide;
    char why[300];
    int pass, i, ok = 1;
    size_t r, c;
    if (gpuact_context_backend(ctx) != GPUACT_BACKEND_OPENCL) return;
    o = GPUACT__CL(ctx);
    wide = o->wide_groups;
    for (r = 0; r < R; r++)
        for (c = 0; c < C; c++) dy[r * C + c] = (float)((int)((r * 7 + c) % 13) - 6);
    for (i = 0; i < R * C / 8; i++) mask[i] = (unsigned char)(0xA5 ^ (i * 37));
    for (c = 0; c < C; c++) {
        want_db[c] = 0.0f;
        for (r = 0; r < R; r++) {
            want_dx[r * C + c] = (mask[(r * C + c) / 8] >> (c % 8)) & 1 ? dy[r * C + c] : 0.0f;
            want_db[c] += want_dx[r * C + c];
        }
    }
    memset(b, 0, sizeof b);
    if (gpuact_buffer_alloc(ctx, sizeof dy, &b[0]) || gpuact_buffer_alloc(ctx, sizeof dx, &b[1]) ||
        gpuact_buffer_alloc(ctx, sizeof mask, &b[2]) || gpuact_buffer_alloc(ctx, sizeof db, &b[3]) ||
        gpuact_buffer_write(ctx, b[0], dy, sizeof dy) || gpuact_buffer_write(ctx, b[2], mask, sizeof mask)) {
        expect_true("NVIDIA OpenCL's wide bias-gradient launch: buffers", 0, harness_first_line(gpuact_last_error()));
        ok = 0;
    }
    memset(&d, 0, sizeof d);
    d.rows = R; d.cols = C;
    d.dy_dtype = d.dx_dtype = d.y_dtype = d.dbias_dtype = d.x_dtype = GPUACT_F32;
    d.dy = b[0]; d.dx = b[1]; d.mask = b[2]; d.mask_ld = C; d.dbias = b[3];
    real_cl = o->cl;
    for (pass = 0; ok && pass < 2; pass++) {
        gpuact_result res;
        size_t bad = 0;
        local_limit = pass ? 768 : SIZE_MAX;
        widest_local = refused_local = 0;
        o->wide_groups = 1;
        o->cl.clEnqueueNDRangeKernel = enqueue_limited;
        res = gpuact_epilogue_backward(ctx, &d, NULL);
        o->cl = real_cl;
        o->wide_groups = wide;
        if (!res) res = gpuact_buffer_read(ctx, dx, b[1], sizeof dx);
        if (!res) res = gpuact_buffer_read(ctx, db, b[3], sizeof db);
        for (i = 0; !res && i < R * C; i++) bad += memcmp(&dx[i], &want_dx[i], 4) != 0;
        for (i = 0; !res && i < C; i++) bad += memcmp(&db[i], &want_db[i], 4) != 0;
        snprintf(why, sizeof why, "%s; widest work-group %zu, %zu refused, %zu values differ (%s)",
                 gpuact_result_string(res), widest_local, refused_local, bad,
                                      res ? harness_first_line(gpuact_last_error()) : "");
        expect_true(pass ? "NVIDIA OpenCL's bias gradient falls back to 768 when 1024 is refused"
                         : "NVIDIA OpenCL's bias gradient over 8192 f32 columns in work-groups of 1024",
                    !res && bad == 0 && widest_local == 1024 && refused_local == (size_t)pass, why);
    }
    for (i = 0; i < 4; i++) gpuact_buffer_free(ctx, b[i]);
}
#endif

/* Pieces that are hard to reach through the API on this machine. */
static void internals(void)
{
    char why[400];
    const size_t cols = SIZE_MAX / 8, p = dbias_parts(0, 1, 1000, cols);
    snprintf(why, sizeof why, "%zu parts of %zu columns overflow the workspace size", p, cols);
    expect_true("dbias parts * cols * 4 fits size_t (SIZE_MAX/8 columns)", p >= 1 && p <= SIZE_MAX / 4 / cols, why);
    expect_true("dbias parts for a plain shape", dbias_parts(0, 1, 1000, 64) == 1000 / GPUACT__DBIAS_MIN_SHORT_ROWS &&
                dbias_parts(0, 4, 4000, 4096) == 132 * GPUACT__DBIAS_GROUPS_PER_UNIT_SHORT / 4 &&
                dbias_parts(0, 16, 16384, 8192) == 132 * GPUACT__DBIAS_GROUPS_PER_UNIT / 16 &&
                dbias_parts(24, 16, 16384, 8192) == 132 * 24 / 16 &&
                dbias_parts(0, 1, 0, 64) == 1,
                "want 125 (1000 rows, 8 each), 264 (few rows per group: the short count), 165 (many rows), 198 (24 "
                "groups) and 1");
    snprintf(why, sizeof why, "2 groups per unit over 4096 / 1024 rows: %zu %zu", dbias_parts(2, 1, 4096, 8192),
             dbias_parts(2, 1, 1024, 8192));
    expect_true("dbias parts: the few-rows count never raises a launch's groups",
                dbias_parts(2, 1, 4096, 8192) == 264 && dbias_parts(2, 1, 1024, 8192) == 1024 / 8, why);
#if !defined(GPUACT_NO_OPENCL) && (!defined(GPUACT_NO_CUDA) || !defined(GPUACT_NO_HIP))
    snprintf(why, sizeof why,
             "NVIDIA OpenCL f32 over 8192 / 16384 / 4096 / 2048 / 1000 columns: %zu %zu %zu %zu %zu; bf16 into f32 "
             "over 8192: %zu; bf16: %zu; CUDA f32: %zu; other OpenCL f32: %zu",
             dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 8192),
             dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 16384),
             dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 4096),
             dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 2048),
             dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 1000),
             dbias_groups(CL_NV, GPUACT_BF16, GPUACT_F32, 8192),
             dbias_groups(CL_NV, GPUACT_BF16, GPUACT_BF16, 8192),
             dbias_groups(CUDA, GPUACT_F32, GPUACT_F32, 8192),
             dbias_groups(CL, GPUACT_F32, GPUACT_F32, 8192));
    expect_true("bias-gradient row groups per unit: one wave for NVIDIA OpenCL's wide work-groups over rows that keep "
                "half of them busy",
                dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 8192) == GPUACT__DBIAS_GROUPS_PER_UNIT_WIDE &&
                    dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 16384) ==
                        GPUACT__DBIAS_GROUPS_PER_UNIT_WIDE &&
                    dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 4096) ==
                        GPUACT__DBIAS_GROUPS_PER_UNIT_WIDE &&
                    dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 2048) == 20 &&
                    dbias_groups(CL_NV, GPUACT_F32, GPUACT_F32, 1000) == 20 &&
                    dbias_groups(CL_NV, GPUACT_BF16, GPUACT_F32, 8192) ==
                        GPUACT__DBIAS_GROUPS_PER_UNIT_WIDE &&
                    dbias_groups(CL_NV, GPUACT_BF16, GPUACT_BF16, 8192) == 20 &&
                    dbias_groups(CUDA, GPUACT_F32, GPUACT_F32, 8192) == 24 &&
                    dbias_groups(CL, GPUACT_F32, GPUACT_F32, 8192) == GPUACT__DBIAS_GROUPS_PER_UNIT,
                why);
    {
        /* each device's walk for forward f32, forward bf16, backward f32, tanh-GELU's f32 backward, backward bf16 */
        static const int ops[5] = {GPUACT_OP_forward, GPUACT_OP_forward, GPUACT_OP_backward, GPUACT_OP_backward,
                                   GPUACT_OP_backward};
        static const int kinds[5] = {GPUACT_KIND_gelu, GPUACT_KIND_gelu, GPUACT_KIND_silu, GPUACT_KIND_gelu_tanh,
                                     GPUACT_KIND_gelu};
        static const gpuact_dtype dts[5] = {GPUACT_F32, GPUACT_BF16, GPUACT_F32, GPUACT_F32, GPUACT_BF16};
        const gpuact__gpu_rows *h200 = &gpuact__gpu_rows_tuned[0];
        const unsigned want[2][5] = {{GPUACT__ROWS_SMOOTH_FWD, GPUACT__ROWS_SMOOTH_FWD, GPUACT__ROWS_SMOOTH_BWD32,
                                      GPUACT__ROWS_TANH_BWD32, GPUACT__ROWS_SMOOTH_BWD16},
                                     {h200->fwd32, h200->fwd16, h200->bwd32, h200->tanh_bwd32, h200->bwd16}};
        const char *devices[2] = {"NVIDIA H100 80GB HBM3", "NVIDIA H200"};
        unsigned got[2][5];
        int d, i, ok = !strcmp(h200->name, "H200");
        for (d = 0; d < 2; d++)
            for (i = 0; i < 5; i++) {
                got[d][i] = smooth_rows_on(devices[d], ops[i], kinds[i], dts[i]);
                ok = ok && got[d][i] == want[d][i];
            }
        snprintf(why, sizeof why, "H100: %u %u %u %u %u; H200: %u %u %u %u %u", got[0][0], got[0][1], got[0][2],
                 got[0][3], got[0][4], got[1][0], got[1][1], got[1][2], got[1][3], got[1][4]);
        expect_true("the smooth kinds' row walks: the defaults, and the H200's row of gpuact__gpu_rows_tuned by its name",
                    ok, why);
    }
    {
        /* on each device: SwiGLU's and ReGLU's backward, SwiGLU's with the bias gradients, tanh-GELU's epilogue */
        const char *devices[2] = {"NVIDIA H100 80GB HBM3", "NVIDIA H200"};
        const gpuact__gpu_rows *h200 = &gpuact__gpu_rows_tuned[0];
        const unsigned want[2][4] = {{GPUACT__ROWS_GLU_BWD, 1, 1, GPUACT__ROWS_TRANSCENDENTAL}, {h200->glu_bwd, 1, 1, h200->epi}};
        unsigned got[2][4];
        int d, ok = 1;
        for (d = 0; d < 2; d++) {
            got[d][0] = rows_walk_on(devices[d], GPUACT_OP_glu_backward, GPUACT_KIND_silu, 0);
            got[d][1] = rows_walk_on(devices[d], GPUACT_OP_glu_backward, GPUACT_KIND_relu, 0);
            got[d][2] = rows_walk_on(devices[d], GPUACT_OP_glu_backward, GPUACT_KIND_silu, 1);
            got[d][3] = rows_walk_on(devices[d], GPUACT_OP_forward, GPUACT_KIND_gelu_tanh, 0);
            ok = ok && !memcmp(got[d], want[d], sizeof got[d]);
        }
        snprintf(why, sizeof why, "H100: %u %u %u %u; H200: %u %u %u %u", got[0][0], got[0][1], got[0][2], got[0][3],
                 got[1][0], got[1][1], got[1][2], got[1][3]);
        expect_true("the gated backward's and the epilogue's row walks: the defaults, the H200's row, one row for ReGLU "
                    "and with the bias gradients",
                    ok && h200->glu_bwd > 1 && h200->epi != GPUACT__ROWS_TRANSCENDENTAL, why);
    }
    snprintf(why, sizeof why, "%u of 65536 bf16 patterns misplaced, %u of f16", lut16_index_errors(0, 0x3980u, 0x4180u, 0),
             lut16_index_errors(1, 0x0400u, 0x4400u, 0) + lut16_index_errors(2, 0x0400u, 0x4400u, 1));
    expect_true("the 16-bit lookup's table holds every pattern of its range at the entry a lookup reads",
                lut16_index_errors(0, 0x3980u, 0x4180u, 0) == 0 &&
                    lut16_index_errors(1, 0x0400u, 0x4400u, 0) + lut16_index_errors(2, 0x0400u, 0x4400u, 1) == 0,
                why);
    snprintf(why, sizeof why, "H200: forward bf16 %d f16 %d, gated backward bf16 %d (bias gradients %d) f16 %d, ReGLU's %d; "
             "H100: forward bf16 %d, gated backward %d",
             lut16_on("NVIDIA H200", GPUACT_OP_forward, GPUACT_KIND_gelu, 0, GPUACT_BF16),
             lut16_on("NVIDIA H200", GPUACT_OP_forward, GPUACT_KIND_silu, 0, GPUACT_F16),
             lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 0, GPUACT_BF16),
             lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 1, GPUACT_BF16),
             lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 0, GPUACT_F16),
             lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_relu, 0, GPUACT_BF16),
             lut16_on("NVIDIA H100 80GB HBM3", GPUACT_OP_forward, GPUACT_KIND_gelu, 0, GPUACT_BF16),
             lut16_on("NVIDIA H100 80GB HBM3", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 0, GPUACT_BF16));
    expect_true("the 16-bit lookup: the H200's elementwise 16-bit and bf16 gated backward cells, no other",
                lut16_on("NVIDIA H200", GPUACT_OP_forward, GPUACT_KIND_gelu, 0, GPUACT_BF16) &&
                    lut16_on("NVIDIA H200", GPUACT_OP_forward, GPUACT_KIND_silu, 0, GPUACT_F16) &&
                    lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 0, GPUACT_BF16) &&
                    !lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 1, GPUACT_BF16) &&
                    !lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 0, GPUACT_F16) &&
                    !lut16_on("NVIDIA H200", GPUACT_OP_glu_backward, GPUACT_KIND_relu, 0, GPUACT_BF16) &&
                    !lut16_on("NVIDIA H100 80GB HBM3", GPUACT_OP_forward, GPUACT_KIND_gelu, 0, GPUACT_BF16) &&
                    !lut16_on("NVIDIA H100 80GB HBM3", GPUACT_OP_glu_backward, GPUACT_KIND_gelu, 0, GPUACT_BF16),
                why);
    {
        /* the lookup's blocks: f16's on a device whose row asks for the lookup (the forward writing few-bit
           codes looks its y up too), else the variant's own */
        const unsigned f16_h200 = cuda_shape_on("NVIDIA H200", GPUACT_OP_forward, GPUACT_KIND_gelu, 0, GPUACT_F16, GPUACT_F16,
                                                GPUACT_F16, 8192).block,
                       f16b_h200 = cuda_shape_on("NVIDIA H200", GPUACT_OP_backward, GPUACT_KIND_gelu, 0, GPUACT_F16,
                                                 GPUACT_F16, GPUACT_F16, 8192).block,
                       silu_b = cuda_shape_on("NVIDIA H200", GPUACT_OP_backward, GPUACT_KIND_silu, 0, GPUACT_F16,
                                              GPUACT_F16, GPUACT_F16, 8192).block,
                       bf16_h200 = cuda_shape_on("NVIDIA H200", GPUACT_OP_forward, GPUACT_KIND_gelu, 0, GPUACT_BF16,
                                                 GPUACT_BF16, GPUACT_BF16, 8192).block,
                       f16_h100 = cuda_shape_on("NVIDIA H100 80GB HBM3", GPUACT_OP_forward, GPUACT_KIND_gelu, 0, GPUACT_F16,
                                                GPUACT_F16, GPUACT_F16, 8192).block,
                       masked = cuda_shape_on("NVIDIA H200", GPUACT_OP_forward, GPUACT_KIND_gelu, 1, GPUACT_F16, GPUACT_F16,
                                              GPUACT_F16, 8192).block;
        snprintf(why, sizeof why, "H200 f16 forward %u, backward %u (SiLU's %u), bf16 %u, with codes %u; H100 f16 %u",
                 f16_h200, f16b_h200, silu_b, bf16_h200, masked, f16_h100);
        expect_true("the 16-bit lookup's blocks: GPUACT_LUT16_BLOCK_F16 for f16 where the device's row asks for it",
                    f16_h200 == GPUACT_LUT16_BLOCK_F16 && f16b_h200 == GPUACT_LUT16_BLOCK_F16 && silu_b == GPUACT_LUT16_BLOCK_F16 &&
                        bf16_h200 == GPUACT_BLOCK_SMALL && masked == GPUACT_LUT16_BLOCK_F16 && f16_h100 == GPUACT_BLOCK_SMALL,
                    why);
    }
#endif
#ifndef GPUACT_NO_OPENCL
    snprintf(why, sizeof why, "f32 over 8192 / 16384 / 4096 / 12288 / 1000 / 8 columns: %u %u %u %u %u %u; bf16: %u",
             cl_dbias_width(GPUACT_F32, 8192), cl_dbias_width(GPUACT_F32, 16384), cl_dbias_width(GPUACT_F32, 4096),
             cl_dbias_width(GPUACT_F32, 12288), cl_dbias_width(GPUACT_F32, 1000), cl_dbias_width(GPUACT_F32, 8),
             cl_dbias_width(GPUACT_BF16, 8192));
    expect_true("NVIDIA OpenCL's bias-gradient width: 1024 where it tiles the row better than 768",
                cl_dbias_width(GPUACT_F32, 8192) == 1024 && cl_dbias_width(GPUACT_F32, 16384) == 1024 &&
                    cl_dbias_width(GPUACT_F32, 4096) == 768 && cl_dbias_width(GPUACT_F32, 12288) == 768 &&
                    cl_dbias_width(GPUACT_F32, 1000) == 768 && cl_dbias_width(GPUACT_F32, 8) == 768 &&
                    cl_dbias_width(GPUACT_BF16, 8192) == 0,
                why);
    snprintf(why, sizeof why, "relu f32 over 1000 / 2040 / 2048 / 8192 columns: %u %u %u %u; hardtanh f32 over 1000: "
             "%u; relu bf16 over 1000: %u; gelu f32 over 1000: %u",
             cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 1000),
             cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 2040),
             cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 2048),
             cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 8192),
             cl_width(GPUACT_OP_forward, GPUACT_KIND_hardtanh, GPUACT_F32, 1000),
             cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_BF16, 1000),
             cl_width(GPUACT_OP_forward, GPUACT_KIND_gelu, GPUACT_F32, 1000));
    expect_true("NVIDIA OpenCL's forward width: GPUACT_BLOCK over rows of fewer work-items, else the variant's",
                cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 1000) == GPUACT_BLOCK &&
                    cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 2040) == GPUACT_BLOCK &&
                    cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 2048) == 0 &&
                    cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_F32, 8192) == 0 &&
                    cl_width(GPUACT_OP_forward, GPUACT_KIND_hardtanh, GPUACT_F32, 1000) == GPUACT_BLOCK &&
                    cl_width(GPUACT_OP_forward, GPUACT_KIND_relu, GPUACT_BF16, 1000) == 0 &&
                    cl_width(GPUACT_OP_forward, GPUACT_KIND_gelu, GPUACT_F32, 1000) == 0,
                why);
    {
        /* the ReLU family's forwards: wide groups with every array f32 (29-40 registers on NVIDIA's driver), but
           hardtanh's general forward without the mask (40: 97.4% of copy in groups of 256, 91.3% in wide ones);
           not with a 2-byte array (up to 47: one wide group would be resident); the backward with a 2-byte array
           keeps them. Index: 4 * kind + 2 * select + mask. */
        static gpuact__opencl o;
        gpuact_context c;
        gpuact__launch L;
        gpuact__shape sh;
        gpuact__variant v;
        unsigned all32[16], mixed[16], bwd = 0;
        int k, m, s, ok = 1;
        memset(&c, 0, sizeof c);
        memset(&L, 0, sizeof L);
        memset(&v, 0, sizeof v);
        o.wide_groups = 1;
        c.impl = &o;
        L.cols = 8192;
#define VARIANT_BLOCK_(V) (L.v = (V), gpuact__opencl_shape(&c, &L, &sh), sh.fallback)
        for (k = GPUACT_KIND_relu; k <= GPUACT_KIND_hardtanh; k++)
            for (s = 0; s < 2; s++)
                for (m = 0; m < 2; m++) {
                    const int i = 4 * k + 2 * s + m;
                    v.op = GPUACT_OP_forward;
                    v.kind = k;
                    v.select = s;
                    v.mask = m;
                    v.t[0] = v.t[1] = v.t[2] = GPUACT_F32;
                    all32[i] = VARIANT_BLOCK_(v);
                    v.t[1] = GPUACT_BF16;
                    mixed[i] = VARIANT_BLOCK_(v);
                    ok &= all32[i] == (k == GPUACT_KIND_hardtanh && !s && !m ? GPUACT_BLOCK : GPUACT_CL_BLOCK_WIDE) &&
                          (s || mixed[i] == GPUACT_BLOCK);
                }
        v.op = GPUACT_OP_backward;
        v.kind = GPUACT_KIND_relu;
        v.select = 0;
        v.mask = 0;
        bwd = VARIANT_BLOCK_(v);
#undef VARIANT_BLOCK_
        snprintf(why, sizeof why, "every array f32 (general, general + mask, selection, selection + mask): relu %u %u %u "
                 "%u, leaky %u %u %u %u, clipped %u %u %u %u, hardtanh %u %u %u %u; y bf16, general: %u %u %u %u %u %u "
                 "%u %u; the backward with one bf16 array: %u", all32[0], all32[1], all32[2], all32[3], all32[4],
                 all32[5], all32[6], all32[7], all32[8], all32[9], all32[10], all32[11], all32[12], all32[13],
                 all32[14], all32[15], mixed[0], mixed[1], mixed[4], mixed[5], mixed[8], mixed[9], mixed[12],
                 mixed[13], bwd);
        expect_true("NVIDIA OpenCL: the ReLU family's f32 forwards in wide work-groups but hardtanh's general one "
                    "without the mask, one into bf16 not",
                    ok && bwd == GPUACT_CL_BLOCK_WIDE, why);
    }
#endif
#if !defined(GPUACT_NO_CUDA) || !defined(GPUACT_NO_HIP)
    {
        /* the CUDA/HIP launch shape: the widening bias-gradient backward (16-bit dy into a 4-byte dx, from the
           mask) takes one vector of 4 per thread, as its kernel (GPUACT_ONE_VECTOR's widen); the same dtypes the
           other way round, every array f32, or from y take GPUACT_UNROLL vectors */
        unsigned widen, widen_f16, narrow, same, from_y;
        widen = cuda_shape(GPUACT_OP_backward, 1, GPUACT_BF16, GPUACT_F32, GPUACT_BF16, 8192).items;
        widen_f16 = cuda_shape(GPUACT_OP_backward, 1, GPUACT_F16, GPUACT_F32, GPUACT_BF16, 8192).items;
        narrow = cuda_shape(GPUACT_OP_backward, 1, GPUACT_F32, GPUACT_BF16, GPUACT_F32, 8192).items;
        same = cuda_shape(GPUACT_OP_backward, 1, GPUACT_F32, GPUACT_F32, GPUACT_F32, 8192).items;
        from_y = cuda_shape(GPUACT_OP_backward, 0, GPUACT_BF16, GPUACT_F32, GPUACT_BF16, 8192).items;
        snprintf(why, sizeof why, "bf16 / f16 dy into f32 dx: %u / %u (want %d); f32 into bf16: %u, all f32: %u, "
                 "from y: %u (want %d)", widen, widen_f16, GPUACT_VEC(0), narrow, same, from_y,
                 GPUACT_VEC(0) * GPUACT__UNROLL);
        expect_true("CUDA/HIP: the widening bias-gradient backward takes one vector per thread, the others not",
                    widen == (unsigned)GPUACT_VEC(0) && widen_f16 == widen &&
                        narrow == (unsigned)(GPUACT_VEC(0) * GPUACT__UNROLL) && same == narrow && from_y == narrow,
                    why);
    }
#endif
#ifndef GPUACT_NO_CUDA
    {
        const char *stub = gpuact__cuda_known_error(34);
        snprintf(why, sizeof why, "CUresult 34 is \"%s\"", stub ? stub : "(null)");
        expect_true("CUDA error 34 names the toolkit's stub libcuda",
                    stub && strstr(stub, "CUDA_ERROR_STUB_LIBRARY") && strstr(stub, "stub libcuda"), why);
        expect_true("CUDA errors 2, 100, 700 are named",
                    gpuact__cuda_known_error(2) && gpuact__cuda_known_error(100) && gpuact__cuda_known_error(700) &&
                    strcmp(gpuact__cuda_error_name(100), "CUDA_ERROR_NO_DEVICE") == 0, "a name is missing");
    }
#endif
#ifndef GPUACT_NO_OPENCL
    if (gpuact_context_backend(ctx) == GPUACT_BACKEND_OPENCL) {
        /* a launch's clSetKernelArg failure names the argument (from the
           parameter list of kernels/contract.h, each buffer as two arguments) */
        gpuact__opencl *o = GPUACT__CL(ctx);
        gpuact__cl_api saved = o->cl;
        gpuact__launch L;
        gpuact_result r;
        memset(&L, 0, sizeof L);
        o->cl.clSetKernelArg = set_arg_fails_at_3;
        r = gpuact__opencl_set_args(o, NULL, &L);
        o->cl = saved;
        snprintf(why, sizeof why, "%s: %s", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
        expect_true("clSetKernelArg failure names argument 3 (out's offset)",
                    r == GPUACT_ERROR_DEVICE && strstr(gpuact_last_error(), "(argument 3, out's offset)") &&
                    strstr(gpuact_last_error(), "CL_INVALID_ARG_SIZE"), why);
    }
#endif
}

static void contexts_and_names(void)
{
    static const char *const RESULTS[] = {
        "GPUACT_SUCCESS", "GPUACT_ERROR_INVALID_ARGUMENT", "GPUACT_ERROR_NOT_SUPPORTED",
        "GPUACT_ERROR_BACKEND_UNAVAILABLE", "GPUACT_ERROR_OUT_OF_MEMORY",
        "GPUACT_ERROR_KERNEL_BUILD", "GPUACT_ERROR_DEVICE"
    };
    static const char *const BACKENDS[] = {"auto", "cuda", "hip", "opencl"};
    gpuact_context_desc desc;
    gpuact_context *other = (gpuact_context *)&desc;   /* anything but NULL: must be reset */
    const char *s;
    char what[96], why[200];
    int i;

    memset(&desc, 0, sizeof desc);
    desc.backend = gpuact_context_backend(ctx);
    expect_invalid("context_create: NULL out", gpuact_context_create(&desc, NULL), GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("context_create: NULL desc, NULL out", gpuact_context_create(NULL, NULL), GPUACT_RULE_NULL_ARGUMENT);
    desc.backend = (gpuact_backend)9;
    expect_invalid("context_create: backend 9", gpuact_context_create(&desc, &other), GPUACT_RULE_BACKEND_UNKNOWN);
    expect_true("context_create: backend 9 sets *out to NULL", other == NULL, "*out was left as it was");

    for (i = 0; i < 7; i++) {
        s = gpuact_result_string((gpuact_result)i);
        snprintf(what, sizeof what, "result_string(%d)", i);
        snprintf(why, sizeof why, "\"%s\", want \"%s\"", s ? s : "(null)", RESULTS[i]);
        expect_true(what, s && strcmp(s, RESULTS[i]) == 0, why);
    }
    s = gpuact_result_string((gpuact_result)99);
    expect_true("result_string(99) is a string", s && *s, "NULL or empty");
    for (i = 0; i < 4; i++) {
        s = gpuact_backend_name((gpuact_backend)i);
        snprintf(what, sizeof what, "backend_name(%d)", i);
        snprintf(why, sizeof why, "\"%s\", want \"%s\"", s ? s : "(null)", BACKENDS[i]);
        expect_true(what, s && strcmp(s, BACKENDS[i]) == 0, why);
    }
    s = gpuact_backend_name((gpuact_backend)9);
    snprintf(why, sizeof why, "\"%s\", want \"unknown\"", s ? s : "(null)");
    expect_true("backend_name(9)", s && strcmp(s, "unknown") == 0, why);
    expect_true("dtype_size", gpuact_dtype_size(GPUACT_F32) == 4 && gpuact_dtype_size(GPUACT_F16) == 2 &&
                gpuact_dtype_size(GPUACT_BF16) == 2 && gpuact_dtype_size((gpuact_dtype)7) == 0,
                "want 4, 2, 2 and 0 for an unknown dtype");
}

#ifndef GPUACT_NO_OPENCL
/* clGetMemObjectInfo as a runtime that checks handles answers for one that
   is not a cl_mem (PoCL does not check) */
static gpuact__cl_int GPUACT__CLAPI mem_info_not_a_mem(gpuact__cl_mem m, gpuact__cl_uint what, size_t size,
                                                      void *value, size_t *got)
{
    (void)m; (void)what; (void)size; (void)value; (void)got;
    return -38; /* CL_INVALID_MEM_OBJECT */
}
#endif

/* The rules the cases above do not reach: the context's desc and the
   environment, host pointers, the testing entry points, the glu ops'
   context, a mask too wide for size_t, a handle that is not a cl_mem. */
static void more_rules(void)
{
    static char long_dir[1000];
    gpuact_context_desc desc;
    gpuact_context *other = NULL;
    gpuact_glu_desc g;
    gpuact_glu_backward_desc gb;
    gpuact_epilogue_desc e;
    char host[16], env_saved[200];
    const char *env = getenv("GPUACT_BACKEND");
    void *token = NULL;
    double ms = 0;
    memset(host, 0, sizeof host);

    memset(&desc, 0, sizeof desc);
    desc.backend = gpuact_context_backend(ctx);
    desc.device = -1;
    expect_invalid("context_create: device -1", gpuact_context_create(&desc, &other), GPUACT_RULE_DEVICE_NEGATIVE);
    desc.device = 0;
    memset(long_dir, 'd', sizeof long_dir - 1);
    desc.cache_dir = long_dir;
    expect_invalid_saying("context_create: a 999-byte cache_dir", gpuact_context_create(&desc, &other),
                          GPUACT_RULE_CACHE_DIR_TOO_LONG, "desc->cache_dir");
    desc.cache_dir = NULL;
    snprintf(env_saved, sizeof env_saved, "%s", env ? env : "");
    setenv("GPUACT_BACKEND", "vulkan", 1);
    desc.backend = GPUACT_BACKEND_AUTO;
    expect_invalid_saying("context_create: GPUACT_BACKEND=vulkan", gpuact_context_create(&desc, &other),
                          GPUACT_RULE_BACKEND_UNKNOWN, "GPUACT_BACKEND=\"vulkan\"");
    setenv("GPUACT_BACKEND", "auto", 1); /* the rule's own word for "try each": taken, not refused */
    {
        gpuact_result r = gpuact_context_create(&desc, &other);
        expect_true("context_create: GPUACT_BACKEND=auto is taken", r != GPUACT_ERROR_INVALID_ARGUMENT,
                    gpuact_last_error());
        gpuact_context_destroy(other);
    }
    if (env)
        setenv("GPUACT_BACKEND", env_saved, 1);
    else
        unsetenv("GPUACT_BACKEND");
    if (gpuact_context_backend(ctx) == GPUACT_BACKEND_OPENCL) {
        desc.backend = GPUACT_BACKEND_OPENCL;
        desc.native_context = &desc; /* refused before it is used */
        expect_invalid("context_create: OpenCL native_context without native_device",
                       gpuact_context_create(&desc, &other), GPUACT_RULE_NATIVE_DEVICE_MISSING);
        desc.native_context = NULL;
        desc.stream = &desc; /* a queue without its context: refused before it is used */
        expect_invalid("context_create: OpenCL stream without native_context",
                       gpuact_context_create(&desc, &other), GPUACT_RULE_NATIVE_CONTEXT_MISSING);
        desc.stream = NULL;
    }
    expect_true("context_create refusals leave *out NULL", other == NULL, "*out was set");

    expect_invalid("buffer_write: src NULL", gpuact_buffer_write(ctx, buf(X, 0), NULL, 16), GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("buffer_write: dst absent", gpuact_buffer_write(ctx, ABSENT, host, 16), GPUACT_RULE_BUFFER_REQUIRED);
    expect_invalid("buffer_read: dst NULL", gpuact_buffer_read(ctx, NULL, buf(X, 0), 16), GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("buffer_read: src absent", gpuact_buffer_read(ctx, host, ABSENT, 16), GPUACT_RULE_BUFFER_REQUIRED);
    expect_invalid("testing_copy: NULL context", gpuact_testing_copy(NULL, NULL, buf(Y, 0), buf(X, 0), 16),
                   GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("testing_copy: src absent", gpuact_testing_copy(ctx, NULL, buf(Y, 0), ABSENT, 16),
                   GPUACT_RULE_BUFFER_REQUIRED);
    expect_invalid("testing_timer_begin: NULL token", gpuact_testing_timer_begin(ctx, NULL, NULL),
                   GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("testing_timer_end: NULL ms", gpuact_testing_timer_end(ctx, NULL, &token, NULL),
                   GPUACT_RULE_NULL_ARGUMENT);
    expect_invalid("testing_timer_end: NULL token", gpuact_testing_timer_end(ctx, NULL, NULL, &ms),
                   GPUACT_RULE_NULL_ARGUMENT);
    memset(&g, 0, sizeof g);
    memset(&gb, 0, sizeof gb);
    expect_invalid("glu_forward: NULL context", gpuact_glu_forward(NULL, &g, NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("glu_backward: NULL context", gpuact_glu_backward(NULL, &gb, NULL), GPUACT_RULE_NULL_CONTEXT);
    expect_invalid("glu_backward: NULL desc", gpuact_glu_backward(ctx, NULL, NULL), GPUACT_RULE_NULL_ARGUMENT);
    g.act.kind = (gpuact_activation_kind)99;
    expect_invalid("glu_forward: activation kind 99", gpuact_glu_forward(ctx, &g, NULL), GPUACT_RULE_KIND_UNKNOWN);

    /* mask_ld 0 is cols rounded up to 128: past SIZE_MAX for these cols */
    e = epi(); e.cols = SIZE_MAX - 100; e.rows = 1;
    expect_invalid_saying("epilogue_forward: cols too large for a default mask_ld", E(e), GPUACT_RULE_SIZE_OVERFLOW,
                          "too large for a mask");
#ifndef GPUACT_NO_OPENCL
    if (gpuact_context_backend(ctx) == GPUACT_BACKEND_OPENCL) {
        gpuact__opencl *o = GPUACT__CL(ctx);
        gpuact__cl_api saved = o->cl;
        gpuact_result r;
        o->cl.clGetMemObjectInfo = mem_info_not_a_mem;
        r = F(fwd());
        o->cl = saved;
        expect_invalid_saying("forward: x is not a cl_mem (CL_INVALID_MEM_OBJECT)", r, GPUACT_RULE_BUFFER_FOREIGN,
                              "x.handle = ");
    }
#endif
}

/* Every rule of GPUACT_RULES was fired by some case above (a rule no call
   can break should not exist), and the names are well formed. Run last. */
static void every_rule_fired(void)
{
    char missing[600] = "", why[700];
    int r, k, names_ok = 1;
    for (r = 1; r < GPUACT_RULE_COUNT; r++) {
        const char *name = gpuact_rule_name((gpuact_rule)r);
        size_t used = strlen(missing);
        /* only OpenCL contexts can meet these */
        int opencl_only = r == GPUACT_RULE_BUFFER_FOREIGN || r == GPUACT_RULE_NATIVE_DEVICE_MISSING ||
                          r == GPUACT_RULE_NATIVE_CONTEXT_MISSING;
        if (!rule_fired[r] && !(opencl_only && gpuact_context_backend(ctx) != GPUACT_BACKEND_OPENCL) &&
            used + 1 < sizeof missing)
            snprintf(missing + used, sizeof missing - used, " %s", name);
        if (!*name || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name) ||
            !*gpuact_rule_description((gpuact_rule)r) || strcmp(name, "UNKNOWN") == 0 || strcmp(name, "NONE") == 0)
            names_ok = 0;
        for (k = 1; k < r; k++)
            if (strcmp(name, gpuact_rule_name((gpuact_rule)k)) == 0)
                names_ok = 0;
    }
    snprintf(why, sizeof why, "never fired:%s", missing);
    expect_true("every rule of GPUACT_RULES is fired by a case", !*missing, why);
    expect_true("rule names: upper case, distinct, each with a description", names_ok, "a name is malformed");
    expect_true("rule_name: NONE, and UNKNOWN past the list",
                strcmp(gpuact_rule_name(GPUACT_RULE_NONE), "NONE") == 0 &&
                strcmp(gpuact_rule_name(GPUACT_RULE_COUNT), "UNKNOWN") == 0 &&
                strcmp(gpuact_rule_name((gpuact_rule)-1), "UNKNOWN") == 0 &&
                strcmp(gpuact_rule_description(GPUACT_RULE_COUNT), "") == 0, "wrong names at the ends");
}

/* >>buffer extents and owners: a buffer smaller than the operation needs,
   or one of another context, is refused before anything is launched. */
static void extents_and_owners(void)
{
    static unsigned char small_fill[400], got[400], host[BUF_BYTES];
    gpuact_buffer small = {NULL, 0}, foreign = {NULL, 0};
    gpuact_context *other = NULL;
    gpuact_context_desc desc;
    gpuact_forward_desc f;
    gpuact_epilogue_backward_desc eb;
    char why[300];
    int intact = 1;

    memset(small_fill, 0xA5, sizeof small_fill);
    if (gpuact_buffer_alloc(ctx, sizeof small_fill, &small) != GPUACT_SUCCESS ||
        gpuact_buffer_write(ctx, small, small_fill, sizeof small_fill) != GPUACT_SUCCESS) {
        report(0, "extents: a 400-byte buffer", harness_first_line(gpuact_last_error()));
        return;
    }
    /* 1000 f32 elements of y are 4000 bytes; the buffer holds 400 */
    f = fwd(); f.n = 1000; f.mask = ABSENT; f.y = small;
    expect_invalid("forward: y is a 400-byte buffer, n = 1000 f32", F(f), GPUACT_RULE_BUFFER_TOO_SMALL);
    if (gpuact_buffer_read(ctx, got, small, sizeof got) != GPUACT_SUCCESS || memcmp(got, small_fill, sizeof got))
        intact = 0;
    expect_true("forward: the 400-byte y was not written", intact, "its bytes changed");
    snprintf(why, sizeof why, "the message does not name y and both sizes: %s",
             harness_first_line(gpuact_last_error()));
    F(f);
    expect_true("forward: the message names y, 400 and 4000",
                strstr(gpuact_last_error(), " y ") && strstr(gpuact_last_error(), "400 bytes") &&
                strstr(gpuact_last_error(), "4000 bytes"), why);
    f = fwd(); f.n = 100; f.x = small; f.x.offset = 4; f.mask = ABSENT;
    expect_invalid("forward: x 100 f32 from offset 4 of 400 bytes", F(f), GPUACT_RULE_BUFFER_TOO_SMALL);
    f = fwd(); f.n = 99; f.x = small; f.x.offset = 4; f.mask = ABSENT;
    expect_accepted("forward: x 99 f32 from offset 4 of 400 bytes (fits exactly)", F(f));
    f = fwd(); f.n = BUF_BYTES / 4 + 1; f.mask = ABSENT;
    expect_invalid("forward: x and y one element past their 4096 bytes", F(f), GPUACT_RULE_BUFFER_TOO_SMALL);
    f = fwd(); f.mask = buf(MASK, BUF_BYTES - 7);
    expect_invalid("forward: mask of 8 bytes starting 7 before the end", F(f), GPUACT_RULE_BUFFER_TOO_SMALL);
    f = fwd(); f.x = buf(X, BUF_BYTES + 64);
    expect_invalid("forward: x.offset past the end of its allocation", F(f), GPUACT_RULE_BUFFER_TOO_SMALL);
    eb = epib(); eb.dbias = small; eb.dbias.offset = 400 - 4 * COLS + 4;
    expect_invalid("epilogue_backward: dbias runs 4 bytes past its allocation", EB(eb), GPUACT_RULE_BUFFER_TOO_SMALL);
    eb = epib(); eb.rows = BUF_BYTES / (4 * COLS) + 1;
    expect_invalid("epilogue_backward: dy and dx one row past their allocations", EB(eb), GPUACT_RULE_BUFFER_TOO_SMALL);
    expect_invalid("buffer_read: 200 bytes from offset 4000 of 4096", gpuact_buffer_read(ctx, host, buf(X, 4000), 200), GPUACT_RULE_BUFFER_TOO_SMALL);
    expect_invalid("buffer_write: 200 bytes from offset 4000 of 4096", gpuact_buffer_write(ctx, buf(X, 4000), host, 200), GPUACT_RULE_BUFFER_TOO_SMALL);
    expect_invalid("buffer_write: 401 bytes into 400", gpuact_buffer_write(ctx, small, host, 401), GPUACT_RULE_BUFFER_TOO_SMALL);
    expect_accepted("buffer_read: the last 96 bytes exactly", gpuact_buffer_read(ctx, host, buf(X, 4000), 96));
    {   /* the query the checks above use, as benchmarks see it: the allocation's bytes from its handle */
        size_t bytes = 0;
        gpuact_result r = gpuact_testing_buffer_extent(ctx, small, &bytes);
        snprintf(why, sizeof why, "result %d, %zu bytes: %s", (int)r, bytes, harness_first_line(gpuact_last_error()));
        expect_true("testing_buffer_extent: a 400-byte buffer holds 400 bytes (or the driver cannot tell)",
                    (r == GPUACT_SUCCESS && bytes == 400) || r == GPUACT_ERROR_NOT_SUPPORTED, why);
        expect_invalid("testing_buffer_extent: bytes NULL", gpuact_testing_buffer_extent(ctx, small, NULL),
                       GPUACT_RULE_NULL_ARGUMENT);
        expect_invalid("testing_buffer_extent: b absent", gpuact_testing_buffer_extent(ctx, ABSENT, &bytes),
                       GPUACT_RULE_BUFFER_REQUIRED);
    }

    /* an allocation of another context of the same backend and device */
    memset(&desc, 0, sizeof desc);
    desc.backend = gpuact_context_backend(ctx);
    if (desc.backend == GPUACT_BACKEND_OPENCL) {
        if (gpuact_context_create(&desc, &other) != GPUACT_SUCCESS ||
            gpuact_buffer_alloc(other, BUF_BYTES, &foreign) != GPUACT_SUCCESS) {
            report(0, "owners: a second context", harness_first_line(gpuact_last_error()));
        } else {
            f = fwd(); f.x = foreign;
            expect_invalid("forward: x is a cl_mem of another context", F(f), GPUACT_RULE_BUFFER_FOREIGN);
            f = fwd(); f.y = foreign;
            expect_invalid("forward: y is a cl_mem of another context", F(f), GPUACT_RULE_BUFFER_FOREIGN);
            eb = epib(); eb.dbias = foreign;
            expect_invalid("epilogue_backward: dbias is a cl_mem of another context", EB(eb), GPUACT_RULE_BUFFER_FOREIGN);
            expect_invalid("buffer_write: a cl_mem of another context", gpuact_buffer_write(ctx, foreign, host, 16), GPUACT_RULE_BUFFER_FOREIGN);
            {
                size_t bytes = 0;
                expect_invalid("testing_buffer_extent: a cl_mem of another context",
                               gpuact_testing_buffer_extent(ctx, foreign, &bytes), GPUACT_RULE_BUFFER_FOREIGN);
            }
        }
        gpuact_buffer_free(other, foreign);
        gpuact_context_destroy(other);
    }
    gpuact_buffer_free(ctx, small);
}

#ifndef GPUACT_NO_OPENCL
/* >>stream lifetime: once the call that used a queue has returned (and the
   caller synchronized it), the caller may release the queue; gpuact must
   never use it again. Every queue-taking OpenCL entry point is wrapped to
   catch a use of a queue the test has let go (the queues stay allocated
   until the end, so a handle never comes back as another queue). */
#define LIFETIME_QUEUES 70
static gpuact__cl_queue dead_queues[LIFETIME_QUEUES];
static int n_dead, dead_uses;
static gpuact__cl_api real_cl;

static void check_queue(gpuact__cl_queue q) {
    int i;
    for (i = 0; i < n_dead; i++)
        if (dead_queues[i] == q) dead_uses++;
}
static gpuact__cl_int GPUACT__CLAPI finish_w(gpuact__cl_queue q) {
    check_queue(q);
    return real_cl.clFinish(q);
}
static gpuact__cl_int GPUACT__CLAPI marker_w(gpuact__cl_queue q, gpuact__cl_uint n, const gpuact__cl_event *w,
                                            gpuact__cl_event *ev) {
    check_queue(q);
    return real_cl.clEnqueueMarkerWithWaitList(q, n, w, ev);
}
static gpuact__cl_int GPUACT__CLAPI barrier_w(gpuact__cl_queue q, gpuact__cl_uint n, const gpuact__cl_event *w,
                                             gpuact__cl_event *ev) {
    check_queue(q);
    return real_cl.clEnqueueBarrierWithWaitList(q, n, w, ev);
}
static gpuact__cl_int GPUACT__CLAPI ndrange_w(gpuact__cl_queue q, gpuact__cl_kernel k, gpuact__cl_uint dims,
                                             const size_t *off, const size_t *global, const size_t *local,
                                             gpuact__cl_uint n, const gpuact__cl_event *w, gpuact__cl_event *ev) {
    check_queue(q);
    return real_cl.clEnqueueNDRangeKernel(q, k, dims, off, global, local, n, w, ev);
}

static void stream_lifetime(void)
{
    gpuact__opencl *o;
    gpuact__cl_queue q[LIFETIME_QUEUES];
    gpuact_epilogue_backward_desc eb;
    gpuact_result r = GPUACT_SUCCESS;
    char why[400] = "";
    int i;
    if (gpuact_context_backend(ctx) != GPUACT_BACKEND_OPENCL)
        return;
    o = GPUACT__CL(ctx);
    real_cl = o->cl;
    o->cl.clFinish = finish_w;
    o->cl.clEnqueueMarkerWithWaitList = marker_w;
    o->cl.clEnqueueBarrierWithWaitList = barrier_w;
    o->cl.clEnqueueNDRangeKernel = ndrange_w;
    for (i = 0; i < LIFETIME_QUEUES; i++) {
        gpuact__cl_int e = 0;
        q[i] = real_cl.clCreateCommandQueue(o->context, o->device, 0, &e);
        if (!q[i]) {
            snprintf(why, sizeof why, "clCreateCommandQueue failed (%d)", (int)e);
            break;
        }
    }
    /* one backward with dbias on each queue, then the queue is let go */
    for (i = 0; i < LIFETIME_QUEUES && !*why; i++) {
        eb = epib();
        if ((r = gpuact_epilogue_backward(ctx, &eb, q[i])) != GPUACT_SUCCESS ||
            (r = gpuact_synchronize(ctx, q[i])) != GPUACT_SUCCESS)
            snprintf(why, sizeof why, "queue %d: %s (%s)", i, gpuact_result_string(r),
                     harness_first_line(gpuact_last_error()));
        dead_queues[n_dead++] = q[i];
    }
    /* more rows and columns on the context's queue: a workspace grows */
    eb = epib();
    eb.rows = 8;
    eb.cols = 128;
    if (!*why && ((r = gpuact_epilogue_backward(ctx, &eb, NULL)) != GPUACT_SUCCESS ||
                  (r = gpuact_synchronize(ctx, NULL)) != GPUACT_SUCCESS))
        snprintf(why, sizeof why, "growing: %s (%s)", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
    if (!*why && dead_uses)
        snprintf(why, sizeof why, "gpuact used a queue after the call that got it had returned, %d time(s)",
                 dead_uses);
    o->cl = real_cl;
    for (i = 0; i < LIFETIME_QUEUES; i++)
        if (q[i])
            real_cl.clReleaseCommandQueue(q[i]);
    report(!*why, "70 short-lived queues with dbias: no queue used after its call", why);
    fill_patterns();
}
#else
static void stream_lifetime(void) {}
#endif

/* A library named by GPUACT_*_LIBRARY that does not load is an error that
   names it: no quiet fall-back to the built-in names, and AUTO does not
   move on to another backend. Runs before any library is loaded (they are
   loaded once per process). Results are reported once a context exists. */
static char named_results[4][400];
static int named_ok[4];
static void named_libraries(void)
{
    static const char *const path = "/nonexistent/gpuact-test/libnamed.so.1";
    gpuact_context_desc desc;
    gpuact_context *c = NULL;
    gpuact_result r;
    const char *vars[2] = {"GPUACT_OPENCL_LIBRARY", "GPUACT_CUDA_LIBRARY"};
    const gpuact_backend ids[2] = {GPUACT_BACKEND_OPENCL, GPUACT_BACKEND_CUDA};
    int k;
    for (k = 0; k < 2; k++) {
        memset(&desc, 0, sizeof desc);
        desc.backend = ids[k];
        setenv(vars[k], path, 1);
        gpuact_synchronize(NULL, NULL); /* a refusal first: the failure below must reset the rule */
        r = gpuact_context_create(&desc, &c);
        named_ok[k] = r == GPUACT_ERROR_BACKEND_UNAVAILABLE && !c && gpuact_last_rule() == GPUACT_RULE_NONE &&
                      strstr(gpuact_last_error(), path) &&
                      strstr(gpuact_last_error(), vars[k]) && !strstr(gpuact_last_error(), "libOpenCL.so.1:") &&
                      !strstr(gpuact_last_error(), "libcuda.so.1:");
        snprintf(named_results[k], sizeof named_results[k], "%s: %s", gpuact_result_string(r),
                 harness_first_line(gpuact_last_error()));
        if (c) gpuact_context_destroy(c);
        c = NULL;
        unsetenv(vars[k]);
    }
    /* AUTO with a CUDA library named that does not load stops there (AUTO itself: a GPUACT_BACKEND
       of the run, which would pick the backend instead, is set aside for the call) */
    {
        const char *env = getenv("GPUACT_BACKEND");
        char saved[32];
        snprintf(saved, sizeof saved, "%s", env ? env : "");
        unsetenv("GPUACT_BACKEND");
        setenv("GPUACT_CUDA_LIBRARY", path, 1);
        memset(&desc, 0, sizeof desc);
        r = gpuact_context_create(&desc, &c);
        named_ok[2] = r != GPUACT_SUCCESS && !c && strstr(gpuact_last_error(), path) != NULL;
        snprintf(named_results[2], sizeof named_results[2], "%s: %s", gpuact_result_string(r),
                 harness_first_line(gpuact_last_error()));
        if (c) gpuact_context_destroy(c);
        c = NULL;
        unsetenv("GPUACT_CUDA_LIBRARY");
        if (env) setenv("GPUACT_BACKEND", saved, 1);
    }
#ifndef GPUACT_NO_CUDA
    { /* the CUDA toolkit's stub libcuda: cuInit says CUDA_ERROR_STUB_LIBRARY, and the message says what that is */
        const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
        char stub_lib[300], nvrtc[300];
        snprintf(stub_lib, sizeof stub_lib, "%s/lib64/stubs/libcuda.so", home);
        snprintf(nvrtc, sizeof nvrtc, "%s/lib64/libnvrtc.so", home);
        if (access(stub_lib, R_OK) != 0 || access(nvrtc, R_OK) != 0) {
            named_ok[3] = 1;
            snprintf(named_results[3], sizeof named_results[3], "(no toolkit stub under %s: not tried)", home);
        } else {
            setenv("GPUACT_CUDA_LIBRARY", stub_lib, 1);
            setenv("GPUACT_NVRTC_LIBRARY", nvrtc, 1);
            memset(&desc, 0, sizeof desc);
            desc.backend = GPUACT_BACKEND_CUDA;
            r = gpuact_context_create(&desc, &c);
            named_ok[3] = r == GPUACT_ERROR_BACKEND_UNAVAILABLE && strstr(gpuact_last_error(), "CUDA_ERROR_STUB_LIBRARY") &&
                          strstr(gpuact_last_error(), "stub libcuda from the toolkit, not the driver");
            snprintf(named_results[3], sizeof named_results[3], "%s: %s", gpuact_result_string(r),
                     harness_first_line(gpuact_last_error()));
            if (c) gpuact_context_destroy(c);
            unsetenv("GPUACT_CUDA_LIBRARY");
            unsetenv("GPUACT_NVRTC_LIBRARY");
        }
    }
#else
    named_ok[3] = 1;
#endif
}
static void report_named_libraries(void)
{
    report(named_ok[0], "GPUACT_OPENCL_LIBRARY naming a missing library is an error naming it (rule NONE)",
           named_results[0]);
    report(named_ok[1], "GPUACT_CUDA_LIBRARY naming a missing library is an error naming it (rule NONE)",
           named_results[1]);
    report(named_ok[2], "AUTO stops at a named library that does not load", named_results[2]);
    report(named_ok[3], "the toolkit's stub libcuda is named as such", named_results[3]);
}

int main(int argc, char **argv)
{
    int b;

    if (!(ctx = harness_open(argc, argv, named_libraries))) {
        printf("0 passed, 0 failed\n");
        return 0;
    }
    for (b = 0; b < N_BUFS; b++) {
        if (gpuact_buffer_alloc(ctx, BUF_BYTES, &bufs[b]) != GPUACT_SUCCESS) {
            printf("FAIL gpuact_buffer_alloc: %s\n0 passed, 1 failed\n", harness_first_line(gpuact_last_error()));
            return 1;
        }
    }
    if (!fill_patterns()) {
        printf("FAIL gpuact_buffer_write: %s\n0 passed, 1 failed\n", harness_first_line(gpuact_last_error()));
        return 1;
    }
    report_named_libraries();
    baselines();
    null_arguments();
    absent_buffers();
    bad_enums();
    bad_parameters();
    new_kinds();
    few_bit_codes();
    glu_checks();
    bad_sizes_and_offsets();
    overlaps();
    epilogue_shapes();
    empty_work();
    empty_dbias();
    internals();
#ifndef GPUACT_NO_OPENCL
    cl_wide_dbias();
#endif
    contexts_and_names();
    extents_and_owners();
    stream_lifetime();
    more_rules();
    every_rule_fired();
    for (b = 0; b < N_BUFS; b++)
        gpuact_buffer_free(ctx, bufs[b]);
    gpuact_context_destroy(ctx);
    return harness_summary();
}
