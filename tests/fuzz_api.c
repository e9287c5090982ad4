/*
fuzz_api.c -- a fuzz target for gpuact's public API (make fuzz).

Each input is one API call, described by the input's bytes: the operation
(relu shortcuts, forward, backward, epilogue forward and backward with or
without mask, bias, dbias and scale, the backward from the mask, from y or
from x and bias, the gated forms glu_forward and glu_backward with and
without biases and bias gradients, a and b (da and db) as two matrices or
the halves of one, buffer read and write, synchronize, context creation
with a bad description, the name and size queries), every field of its
description (dtypes and all eight activation kinds in and out of range,
slopes, bounds and scales from a table of edge values or raw bits, sizes
from zero to past SIZE_MAX, leading dimensions and mask_ld smaller, equal
and larger than they need be), where each buffer sits (an allocation of its
own, the same allocation as another operand at the same or another offset,
misaligned, past the end, a 96-byte allocation, a cl_mem of another
context, absent), the stream (NULL, the context's own, a second queue, an
out-of-order queue), a NULL context or description, and the seed of the
data.

Every allocation is filled with random bytes before the call, the operands
with data (NaN, Inf, subnormal and near-ceiling values included) placed at
their offsets, and read back in full after it. A model of the manual's
rules predicts whether the call must be refused; then

  - refused: GPUACT_ERROR_INVALID_ARGUMENT, a message that starts with
    "[gpuact rule NAME] " for gpuact_last_rule()'s rule, every byte of every
    allocation (and the host buffer of a read) as it was;
  - accepted: GPUACT_SUCCESS, and every byte equal to the CPU reference
    (tests/gpuact_ref.h) under the conformance suite's rules: outputs bit
    for bit, any NaN where the reference says any NaN is right, dbias within
    1e-5 of sum |dx|, bit-identical when the call is repeated; everything
    outside the outputs (canaries, row padding, mask bytes past a row,
    inputs) unchanged;
  - either (the manual does not decide: an empty operation's absent or
    out-of-range buffers, fields of absent optional buffers, {NULL, k}
    handles): one of the two above.

Anything else is a fault: the call, what differed, and the input's file.

Two builds of this one file:
  clang -fsanitize=fuzzer,address,undefined   libFuzzer drives it
                                               (coverage-guided); arguments
                                               are libFuzzer's
  any C99 compiler, -DFUZZ_STANDALONE          a seeded random driver:
                                               fuzz_api [-seconds=N]
                                               [-seed=N] [input files...]
Both replay input files given as arguments. One context (OpenCL unless
GPUACT_BACKEND says otherwise) serves the whole run: PoCL builds each
kernel variant once per process.

Environment:
  FUZZ_ARTIFACT_DIR   where a faulting input is written (default: .)
  FUZZ_MAX_FAULTS     stop after this many faults (default 20)
  FUZZ_ABORT          1: abort() at the first fault (libFuzzer then saves
                      and minimizes the input itself)
  FUZZ_VERBOSE        1: print every call
The last line is the summary: calls, refusals, checked successes, faults;
the exit status is 1 when there was a fault.
*/
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "gpuact_ref.h"
#include "support/harness.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* >>state: one context, its allocations and their expected contents */

enum { N_REG = 8, SMALL = N_REG, FOREIGN = N_REG + 1, N_ALLOC = N_REG + 2 };
#define REG_BYTES 8192
#define SMALL_BYTES 96
#define POISON 0xA5u      /* outputs before the call: a negative number in every dtype, not a NaN */
#define HOST_GUARD 64

static gpuact_context *ctx, *other;      /* other: the owner of the foreign cl_mem */
static gpuact_stream queue2;             /* a second queue of ctx's cl_context (OpenCL), else NULL */
static gpuact_stream queue_ooo;          /* an out-of-order one, where the device has them */
static int foreign_ok;                   /* a foreign allocation exists and must be refused */
static gpuact_buffer alloc_buf[N_ALLOC];
static size_t alloc_size[N_ALLOC];

/* before: uploaded; want: expected after the call; rule/rule_dt/rule_col:
   how want is compared, per byte */
enum { R_EXACT = 0, R_NAN, R_SUM, R_SKIP };
static unsigned char before[N_ALLOC][REG_BYTES], want[N_ALLOC][REG_BYTES], got[N_ALLOC][REG_BYTES];
static unsigned char rule[N_ALLOC][REG_BYTES], rule_dt[N_ALLOC][REG_BYTES];
static unsigned char rule_fl[N_ALLOC][REG_BYTES]; /* R_NAN: what else the element may be (gpuact_ref_same) */
static unsigned short rule_col[N_ALLOC][REG_BYTES];   /* R_SUM: which * REG_BYTES + column */
/* the bias gradients' reference, per column: [0] dbias or dbias_a, [1] dbias_b */
static double sum[2 * REG_BYTES], sum_abs[2 * REG_BYTES], sum_fin[2 * REG_BYTES];

static unsigned long n_calls, n_refused, n_checked, n_either_refused, n_either_checked, n_faults, n_repeats;
static unsigned long n_op[16];
static int verbose, abort_on_fault, max_faults = 20;
static const char *artifact_dir = "";
static double t_start;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* >>features: what the instrumented code cannot tell libFuzzer. A new
   kernel variant, dtype mix, alignment or aliasing runs in the same host
   code as an old one, so the call's shape is hashed into libFuzzer's extra
   counters: an input with a new shape is kept as if it covered new code. */

static uint64_t shape;
static void shape_add(uint64_t v, uint64_t radix) { shape = shape * radix + (v < radix ? v : radix - 1); }

#if !defined(FUZZ_STANDALONE) && defined(__linux__)
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t extra_counters[1 << 16];
static void shape_end(int outcome)
{
    uint64_t h = (shape * 4 + (uint64_t)outcome) * UINT64_C(0x9e3779b97f4a7c15);
    extra_counters[(h >> 40) % sizeof extra_counters] = 1;
}
#else
static void shape_end(int outcome) { (void)outcome; }
#endif

/* >>the call's description, for a fault's report */

static char text[4096];
static size_t text_used;
static int faulted;

static void note(const char *fmt, ...)
{
    va_list ap;
    int k;
    if (text_used >= sizeof text - 1)
        return;
    va_start(ap, fmt);
    k = vsnprintf(text + text_used, sizeof text - text_used, fmt, ap);
    va_end(ap);
    if (k > 0)
        text_used += (size_t)k < sizeof text - text_used ? (size_t)k : sizeof text - text_used - 1;
}

/* Only the first difference of a call is printed. */
static void fault(const char *fmt, ...)
{
    va_list ap;
    if (faulted++)
        return;
    printf("FAULT %s\n  ", text);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* >>input: the bytes decide every choice; past the end every choice is 0 */

typedef struct reader { const uint8_t *p; size_t n, i; } reader;

static uint32_t take_bytes(reader *r, int k)
{
    uint32_t v = 0;
    while (k-- > 0)
        v = v << 8 | (r->i < r->n ? r->p[r->i++] : 0u);
    return v;
}

/* A choice in [0, n). */
static size_t take(reader *r, size_t n)
{
    if (n <= 1)
        return 0;
    if (n <= 256)
        return take_bytes(r, 1) % n;
    if (n <= 65536)
        return take_bytes(r, 2) % n;
    return take_bytes(r, 4) % n;
}

static float take_float(reader *r)
{
    static const float T[] = {
        0.0f, -0.0f, 1.0f, 0.5f, 1.0f / 3.0f, 0.25f, 2.0f, 6.0f, 0.01f, 0.2f, 1e-3f, 1.5f,
        1e-45f, 1e-40f, 5.9604645e-8f, 6.1035156e-5f, 65504.0f, 65520.0f, 3.0e38f, FLT_MAX,
        HUGE_VALF, -HUGE_VALF, NAN, -1.0f, -0.5f, 1e30f, 1e-30f, 0.999f, 1.0000001f, 0.1f, 3.0f, 0.0f};
    size_t k = take(r, sizeof T / sizeof T[0]);
    if (k == sizeof T / sizeof T[0] - 1) /* raw bits */
        return gpuact_ref_bits_f32(take_bytes(r, 4));
    return T[k];
}

static gpuact_dtype take_dtype(reader *r)
{
    static const int BAD[] = {3, 7, -1};
    if (take(r, 24) == 0)
        return (gpuact_dtype)BAD[take(r, 3)];
    return (gpuact_dtype)take(r, 3);
}

/* A slope or ceiling: mostly one the manual allows, sometimes anything. */
static float take_param(reader *r)
{
    static const float OK[] = {0.0f, 1.0f, 0.5f, 1.0f / 3.0f, 6.0f, 0.01f, 0.2f, 1e-3f, 1.5f, 1e-45f, 1e-40f,
                               5.9604645e-8f, 65504.0f, 65520.0f, 3.0e38f, HUGE_VALF};
    if (take(r, 4))
        return OK[take(r, sizeof OK / sizeof OK[0])];
    return take_float(r);
}

/* hardtanh's lower bound: mostly below the usual ceilings, sometimes anything. */
static float take_lower(reader *r)
{
    static const float OK[] = {-1.0f, -0.5f, -2.0f, 0.0f, -0.0f, -6.0f, -HUGE_VALF, 0.5f, 1.0f, -1e-45f,
                               -65504.0f, -65520.0f, -3.0e38f, 1.0f / 3.0f};
    if (take(r, 4))
        return OK[take(r, sizeof OK / sizeof OK[0])];
    return take_float(r);
}

#define N_KINDS GPUACT_KIND_COUNT
static int kind_ok(gpuact_activation a) { return (int)a.kind >= 0 && (int)a.kind < N_KINDS; }
/* the ReLU family: a mask, the selection paths; else smooth (needs x) */
static int kind_select(gpuact_activation a) { return gpuact_ref_kind_has(a.kind, GPUACT_REF_SELECT); }
/* the epilogue backward may start from y */
static int kind_from_y(gpuact_activation a) { return gpuact_ref_kind_has(a.kind, GPUACT_REF_FROM_Y); }
/* the glu ops take it */
static int kind_glu(gpuact_activation a) { return gpuact_ref_kind_has(a.kind, GPUACT_REF_GLU); }

/* One of the kinds that gate. */
static gpuact_activation_kind take_glu_kind(reader *r)
{
    int k, n = 0, pick;
    for (k = 0; k < N_KINDS; k++)
        n += gpuact_ref_kind_has((gpuact_activation_kind)k, GPUACT_REF_GLU);
    pick = (int)take(r, (size_t)n);
    for (k = 0; k < N_KINDS; k++)
        if (gpuact_ref_kind_has((gpuact_activation_kind)k, GPUACT_REF_GLU) && pick-- == 0)
            break;
    return (gpuact_activation_kind)k;
}

static gpuact_activation take_act(reader *r)
{
    static const int BAD[] = {N_KINDS, -1, 100};
    gpuact_activation a;
    size_t k = take(r, 4 * N_KINDS + 1);
    memset(&a, 0, sizeof a);
    a.kind = k == 4 * N_KINDS ? (gpuact_activation_kind)BAD[take(r, 3)] : (gpuact_activation_kind)(k % N_KINDS);
    /* unused parameters are usually 0, sometimes anything */
    a.negative_slope = gpuact_ref_kind_has(a.kind, GPUACT_REF_SLOPE) || take(r, 8) == 0 ? take_param(r) : 0.0f;
    a.ceiling = gpuact_ref_kind_has(a.kind, GPUACT_REF_CEILING) || take(r, 8) == 0 ? take_param(r) : 0.0f;
    a.lower = gpuact_ref_kind_has(a.kind, GPUACT_REF_LOWER) || take(r, 8) == 0 ? take_lower(r) : 0.0f;
    return a;
}

static const size_t HUGE_SIZES[] = {SIZE_MAX, SIZE_MAX / 2 + 1, SIZE_MAX / 4 + 1, SIZE_MAX / 8, SIZE_MAX - 127,
                                    ((size_t)1 << 32) + 1, ((size_t)1 << 31) + 3, (size_t)1 << 20, 100003};

/* A count: mostly small, sometimes 0, 1 or huge. */
static size_t take_count(reader *r, size_t small_max)
{
    switch (take(r, 16)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return HUGE_SIZES[take(r, sizeof HUGE_SIZES / sizeof HUGE_SIZES[0])];
    case 3: return take(r, 9);
    default: return take(r, small_max + 1);
    }
}

static size_t take_ld(reader *r, size_t cols)
{
    switch (take(r, 16)) {
    case 0: case 1: case 2: case 3: case 4: return 0;
    case 5: case 6: return cols;
    case 7: case 8: return cols + take(r, 25);
    case 9: return cols + 8 * take(r, 4);
    case 10: return cols ? cols - 1 : 0;
    case 11: return HUGE_SIZES[take(r, sizeof HUGE_SIZES / sizeof HUGE_SIZES[0])];
    default: return cols + take(r, 4);
    }
}

static size_t round8(size_t v) { return v > SIZE_MAX - 7 ? v : (v + 7) / 8 * 8; }

static size_t take_mask_ld(reader *r, size_t cols)
{
    switch (take(r, 10)) {
    case 0: case 1: case 2: case 3: return 0;
    case 4: return round8(cols);
    case 5: return round8(cols) + 8 * take(r, 17);
    case 6: return cols;
    case 7: return round8(cols) >= 8 ? round8(cols) - 8 : 0;
    case 8: return take(r, 2) ? (SIZE_MAX & ~(size_t)7) : HUGE_SIZES[take(r, sizeof HUGE_SIZES / sizeof HUGE_SIZES[0])];
    default: return take(r, 1025);
    }
}

/* >>operands: where each buffer of the call sits */

typedef struct opnd {
    const char *name;
    int alloc;          /* index into alloc_buf, -1: absent */
    size_t off;         /* the buffer's offset (also kept for an absent one: {NULL, off}) */
    int present;
    int ok_size;        /* its extent fits size_t */
    size_t bytes;       /* its extent from off */
    size_t align;       /* element size (1: bytes); 0: unknown dtype */
    int output, alias;  /* alias: index of the operand it may alias exactly, or -1 */
    int touched;        /* the call reads or writes bytes of it */
    gpuact_dtype dt;
    int is_mask;
    size_t row_bytes, ld_bytes;  /* the glu ops' matrices: row and pitch (0: one span), see interleaved() */
} opnd;

/* The current call's operands, to say where a differing byte lies. */
static const opnd *cur_ops;
static int cur_nops;

static gpuact_buffer buffer_of(const opnd *o)
{
    gpuact_buffer b;
    b.handle = o->alloc >= 0 ? alloc_buf[o->alloc].handle : NULL;
    b.offset = o->off;
    return b;
}

static const char *alloc_name(int a)
{
    static const char *const N[N_ALLOC] = {"A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "SMALL", "FOREIGN"};
    return a < 0 ? "absent" : N[a];
}

/* Places operand k (need: its nominal extent in bytes, es: element size)
   among the operands placed before it. */
static void place(reader *r, opnd *ops, int k, size_t need, size_t es)
{
    opnd *o = &ops[k];
    size_t mode = take(r, 32), j, span;
    int used[N_ALLOC], a;
    memset(used, 0, sizeof used);
    for (j = 0; j < (size_t)k; j++)
        if (ops[j].alloc >= 0)
            used[ops[j].alloc] = 1;
    if (es == 0)
        es = 1;
    o->alloc = -1;
    o->off = 0;
    if (mode < 22 || k == 0) { /* an allocation of its own, inside it */
        for (a = 0; a < N_REG && used[a]; a++) {}
        if (a == N_REG)
            a = (int)take(r, N_REG);
        o->alloc = a;
        span = need < REG_BYTES ? (REG_BYTES - need) / es : 0;
        o->off = take(r, span + 1) * es;
        if (take(r, 2) && o->off >= 16 && es <= 16) /* the vector path needs 16-byte alignment */
            o->off = o->off / 16 * 16;
    } else if (mode < 25) { /* exactly on an earlier operand */
        j = take(r, (size_t)k);
        o->alloc = ops[j].alloc;
        o->off = ops[j].off;
        if (o->alloc < 0)
            o->alloc = 0;
    } else if (mode < 27) { /* in an earlier operand's allocation, anywhere */
        j = take(r, (size_t)k);
        o->alloc = ops[j].alloc >= 0 ? ops[j].alloc : 0;
        o->off = take(r, REG_BYTES / es + 1) * es;
    } else if (mode == 27) { /* anywhere, any alignment, also past the end */
        o->alloc = (int)take(r, N_REG);
        o->off = take(r, REG_BYTES + 64);
    } else if (mode == 28) {
        o->alloc = SMALL;
        o->off = take(r, SMALL_BYTES / es + 2) * es;
    } else if (mode == 29 && foreign_ok) {
        o->alloc = FOREIGN;
        o->off = 0;
    } else if (mode == 30) {
        o->alloc = (int)take(r, N_REG);
        o->off = take(r, 2) ? SIZE_MAX - take(r, 64) : REG_BYTES + take(r, 8) * es;
    } else { /* absent, rarely with an offset */
        o->alloc = -1;
        o->off = take(r, 16) == 0 ? take(r, 64) : 0;
    }
    o->present = o->alloc >= 0;
}

/* >>verdicts: what the manual says must happen */

enum { V_VALID = 0, V_EITHER = 1, V_INVALID = 2 };
static int verdict;
static char why_invalid[300], why_either[300];

static void invalid(const char *fmt, ...)
{
    va_list ap;
    if (verdict == V_INVALID)
        return;
    verdict = V_INVALID;
    va_start(ap, fmt);
    vsnprintf(why_invalid, sizeof why_invalid, fmt, ap);
    va_end(ap);
}

static void either(const char *fmt, ...)
{
    va_list ap;
    if (verdict != V_VALID)
        return;
    verdict = V_EITHER;
    va_start(ap, fmt);
    vsnprintf(why_either, sizeof why_either, fmt, ap);
    va_end(ap);
}

static void verdict_begin(void)
{
    verdict = V_VALID;
    why_invalid[0] = why_either[0] = '\0';
}

static int dtype_ok(gpuact_dtype dt) { return dt == GPUACT_F32 || dt == GPUACT_F16 || dt == GPUACT_BF16; }

static int finite_f(float f) { return f == f && f - f == 0.0f; }

/* The activation's rules (its row of the kinds' table): a known kind; a
   slope >= 0 where the kind uses one; a ceiling > 0 where it has one and
   no lower bound; lower <= ceiling where it has both (neither NaN). */
static void check_act(gpuact_activation a)
{
    int lower = gpuact_ref_kind_has(a.kind, GPUACT_REF_LOWER);
    if (!kind_ok(a))
        invalid("act.kind %d", (int)a.kind);
    else if (gpuact_ref_kind_has(a.kind, GPUACT_REF_SLOPE) && !(a.negative_slope >= 0.0f))
        invalid("slope %g", (double)a.negative_slope);
    else if (gpuact_ref_kind_has(a.kind, GPUACT_REF_CEILING) && !lower && !(a.ceiling > 0.0f))
        invalid("ceiling %g", (double)a.ceiling);
    else if (lower && !(a.lower <= a.ceiling))
        invalid("lower %g, ceiling %g", (double)a.lower, (double)a.ceiling);
}

/* Bytes of rows x cols elements of es bytes, rows ld apart; 0 when empty. */
static int extent(size_t rows, size_t cols, size_t ld, size_t es, size_t *bytes)
{
    size_t elems;
    *bytes = 0;
    if (!rows || !cols)
        return 1;
    if (ld < cols)
        return 1; /* refused elsewhere */
    if (rows - 1 > (SIZE_MAX - cols) / ld)
        return 0;
    elems = (rows - 1) * ld + cols;
    if (elems > SIZE_MAX / es)
        return 0;
    *bytes = elems * es;
    return 1;
}

static void set_matrix(opnd *o, size_t rows, size_t cols, size_t ld, gpuact_dtype dt)
{
    o->dt = dt;
    o->align = dtype_ok(dt) ? gpuact_dtype_size(dt) : 0;
    o->ok_size = o->align ? extent(rows, cols, ld, o->align, &o->bytes) : 1;
    if (!o->align)
        o->bytes = 0;
}

static void set_mask(opnd *o, size_t rows, size_t cols, size_t mask_ld)
{
    o->is_mask = 1;
    o->align = 1;
    o->ok_size = mask_ld % 8 == 0 && mask_ld >= cols ? extent(rows, (cols + 7) / 8, mask_ld / 8, 1, &o->bytes) : 1;
}

/* mask_ld 0 means cols rounded up to 128 (SIZE_MAX: cannot be) */
static size_t resolve_mask_ld(size_t mask_ld, size_t cols)
{
    if (mask_ld)
        return mask_ld;
    return cols > SIZE_MAX - 127 ? SIZE_MAX : (cols + 127) / 128 * 128;
}

/* A multiple of 8, >= cols; the rule of a mask that is there. */
static void check_mask_ld(const opnd *mask, size_t mask_ld, size_t cols)
{
    if (mask_ld % 8 == 0 && mask_ld >= cols)
        return;
    if (mask->present)
        invalid("mask_ld %zu with cols %zu", mask_ld, cols);
    else
        either("mask_ld %zu without a mask", mask_ld);
}

static size_t alloc_bytes_of(int a) { return a >= 0 ? alloc_size[a] : 0; }

/* The glu ops' rule (gpuact.h: "a and b may be the two halves of each row
   of one up-projection output"): two matrices of one pitch whose rows fall
   in each other's gaps share no byte, though their spans overlap. a starts
   first. */
static int interleaved(const opnd *a, const opnd *b)
{
    size_t delta;
    if (!a->ld_bytes || a->ld_bytes != b->ld_bytes)
        return 0;
    delta = (b->off - a->off) % a->ld_bytes;
    return a->row_bytes <= delta && delta + b->row_bytes <= a->ld_bytes;
}

/* The rules every operation shares, over its operands. */
static void check_operands(opnd *ops, int n)
{
    int i, j;
    for (i = 0; i < n; i++) {
        opnd *o = &ops[i];
        if (!o->present) {
            if (o->off)
                either("%s is {NULL, %zu}: the manual names only {NULL, 0} absent", o->name, o->off);
            continue;
        }
        if (o->align && o->off % o->align)
            invalid("%s.offset %zu not a multiple of %zu", o->name, o->off, o->align);
        if (!o->ok_size) {
            invalid("%s's extent overflows size_t", o->name);
            continue;
        }
        if (o->bytes > SIZE_MAX - o->off) {
            invalid("%s.offset + extent overflows", o->name);
            continue;
        }
        if (o->alloc == FOREIGN) {
            if (o->bytes && o->touched)
                invalid("%s is a cl_mem of another context", o->name);
            else
                either("%s is a cl_mem of another context, but nothing of it is used", o->name);
            continue;
        }
        if (o->off > alloc_bytes_of(o->alloc) || o->bytes > alloc_bytes_of(o->alloc) - o->off) {
            if (o->bytes && o->touched)
                invalid("%s: %zu bytes from %zu past its %zu-byte allocation", o->name, o->bytes, o->off,
                        alloc_bytes_of(o->alloc));
            else
                either("%s lies past its allocation, but nothing of it is used", o->name);
        }
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            const opnd *a = &ops[i], *b = &ops[j];
            if (!a->present || !b->present || a->alloc != b->alloc || !(a->output || b->output))
                continue;
            if (!a->bytes || !b->bytes || !a->ok_size || !b->ok_size || a->bytes > SIZE_MAX - a->off ||
                b->bytes > SIZE_MAX - b->off)
                continue;
            if (a->off >= b->off + b->bytes || b->off >= a->off + a->bytes)
                continue;
            if ((a->alias == j || b->alias == i) && a->off == b->off && a->bytes == b->bytes)
                continue;
            if (a->off <= b->off ? interleaved(a, b) : interleaved(b, a))
                continue;
            if (a->touched && b->touched)
                invalid("%s and %s overlap", a->name, b->name);
            else
                either("%s and %s overlap, but one is not used", a->name, b->name);
        }
}

static void describe(const opnd *ops, int n)
{
    int i;
    cur_ops = ops;
    cur_nops = n;
    for (i = 0; i < n; i++) { /* absent, 16-byte aligned, element-aligned, else; shared allocation */
        const opnd *o = &ops[i];
        int j, shared = 0;
        for (j = 0; j < i; j++)
            shared |= o->present && ops[j].alloc == o->alloc;
        shape_add(!o->present ? 0 : o->off % 16 == 0 ? 1 : o->align && o->off % o->align == 0 ? 2 : 3, 4);
        shape_add((unsigned)shared, 2);
    }
    for (i = 0; i < n; i++)
        if (ops[i].present || ops[i].off)
            note(" %s=%s+%zu", ops[i].name, alloc_name(ops[i].alloc), ops[i].off);
}

/* >>images: upload, reference, compare */

static gpuact_ref_rng data_rng;

static void images_begin(void)
{
    int a;
    size_t i;
    for (a = 0; a < N_ALLOC; a++)
        for (i = 0; i < alloc_size[a]; i++)
            before[a][i] = (unsigned char)gpuact_ref_next(&data_rng);
}

/* The part of an operand inside its allocation, for filling. */
static size_t fill_span(const opnd *o)
{
    size_t size;
    if (!o->present)
        return 0;
    size = alloc_bytes_of(o->alloc);
    if (o->off >= size)
        return 0;
    return o->bytes < size - o->off ? o->bytes : size - o->off;
}

static void fill_output(const opnd *o)
{
    size_t n = fill_span(o);
    if (n)
        memset(before[o->alloc] + o->off, POISON, n);
}

static void fill_input(const opnd *o, int specials, float near)
{
    size_t n = fill_span(o), i;
    unsigned char *p;
    if (!n)
        return;
    p = before[o->alloc] + o->off;
    if (o->is_mask || !o->align) {
        for (i = 0; i < n; i++)
            p[i] = (unsigned char)gpuact_ref_next(&data_rng);
    } else if (o->off % o->align == 0) {
        unsigned char tmp[REG_BYTES];
        gpuact_ref_fill(&data_rng, o->dt, tmp, n / o->align, specials, near);
        memcpy(p, tmp, n / o->align * o->align);
    }
}

/* want = before, compared exactly, until the reference says otherwise. */
static void want_begin(void)
{
    int a;
    for (a = 0; a < N_ALLOC; a++) {
        memcpy(want[a], before[a], alloc_size[a]);
        memset(rule[a], R_EXACT, alloc_size[a]);
    }
}

static int upload(void)
{
    int a;
    gpuact_result r;
    for (a = 0; a < N_ALLOC; a++) {
        if (!alloc_buf[a].handle)
            continue;
        r = gpuact_buffer_write(a == FOREIGN ? other : ctx, alloc_buf[a], before[a], alloc_size[a]);
        if (r != GPUACT_SUCCESS) {
            fault("uploading %s: %s: %s", alloc_name(a), gpuact_result_string(r),
                  harness_first_line(gpuact_last_error()));
            return 0;
        }
    }
    return 1;
}

static const char *where(int a, size_t i)
{
    static char buf[120];
    int k;
    for (k = 0; k < cur_nops; k++) {
        const opnd *o = &cur_ops[k];
        if (o->present && o->alloc == a && i >= o->off && i - o->off < o->bytes) {
            snprintf(buf, sizeof buf, "inside %s%s, byte %zu of it", o->output ? "output " : "input ", o->name,
                     i - o->off);
            return buf;
        }
    }
    return "outside every operand: a canary";
}

/* Reads every allocation back and compares it with want (written) or
   before (not written); the host buffer of a read is checked elsewhere. */
static int compare_all(int written)
{
    int a;
    size_t i;
    for (a = 0; a < N_ALLOC; a++) {
        const unsigned char *w = written ? want[a] : before[a];
        gpuact_result r;
        if (!alloc_buf[a].handle)
            continue;
        r = gpuact_buffer_read(a == FOREIGN ? other : ctx, got[a], alloc_buf[a], alloc_size[a]);
        if (r != GPUACT_SUCCESS) {
            fault("reading %s back: %s: %s", alloc_name(a), gpuact_result_string(r),
                  harness_first_line(gpuact_last_error()));
            return 0;
        }
        for (i = 0; i < alloc_size[a]; i++) {
            int rl = written ? rule[a][i] : R_EXACT;
            if (rl == R_SKIP)
                continue;
            if (rl == R_EXACT) {
                if (got[a][i] != w[i]) {
                    fault("%s byte %zu (%s): got 0x%02x, want 0x%02x%s", alloc_name(a), i, where(a, i), got[a][i],
                          w[i], written ? "" : "; the call was refused: nothing may change");
                    return 0;
                }
            } else {
                gpuact_dtype dt = (gpuact_dtype)rule_dt[a][i];
                uint32_t gb = gpuact_ref_raw(dt, got[a] + i, 0), wb = gpuact_ref_raw(dt, w + i, 0);
                if (rl == R_NAN && !gpuact_ref_same(dt, gb, wb, rule_fl[a][i])) {
                    fault("%s element at byte %zu: got 0x%lx, want 0x%lx (%s)", alloc_name(a), i, (unsigned long)gb,
                          (unsigned long)wb, rule_fl[a][i] & GPUACT_REF_ANY_NAN ? "any NaN" : "or a neighbour");
                    return 0;
                }
                if (rl == R_SUM) {
                    size_t c = rule_col[a][i];
                    float g = gpuact_ref_load(dt, got[a] + i, 0);
                    if (!harness_sum_ok(dt, g, sum[c], sum_abs[c], sum_fin[c])) {
                        fault("%s[%zu] (%s byte %zu): got %.9g (0x%lx), want %.17g (sum |dx| %.9g)",
                              c >= REG_BYTES ? "dbias_b" : "dbias", c % REG_BYTES, alloc_name(a), i, (double)g,
                              (unsigned long)gb, sum[c], sum_abs[c]);
                        return 0;
                    }
                }
            }
        }
    }
    return 1;
}

/* Marks the elements of an output as the reference's nan_any says. */
static void mark_elems(const opnd *o, size_t rows, size_t cols, size_t ld, const unsigned char *nan_any)
{
    size_t r, c, k, es = gpuact_dtype_size(o->dt);
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++) {
            size_t b = o->off + (r * ld + c) * es;
            if (!nan_any[r * ld + c])
                continue;
            rule[o->alloc][b] = R_NAN;
            rule_dt[o->alloc][b] = (unsigned char)o->dt;
            rule_fl[o->alloc][b] = nan_any[r * ld + c];
            for (k = 1; k < es; k++)
                rule[o->alloc][b + k] = R_SKIP;
        }
}

/* Marks a bias gradient's elements: compared with harness_sum_ok against
   sum[which * REG_BYTES + c]. */
static void mark_sums(const opnd *o, size_t cols, int which)
{
    size_t c, k, es = gpuact_dtype_size(o->dt);
    for (c = 0; c < cols; c++) {
        size_t b = o->off + c * es;
        rule[o->alloc][b] = R_SUM;
        rule_dt[o->alloc][b] = (unsigned char)o->dt;
        rule_col[o->alloc][b] = (unsigned short)(which * REG_BYTES + c);
        for (k = 1; k < es; k++)
            rule[o->alloc][b + k] = R_SKIP;
    }
}

static const unsigned char *in_ptr(const opnd *o) { return o->present ? before[o->alloc] + o->off : NULL; }
static unsigned char *out_ptr(const opnd *o) { return o->present ? want[o->alloc] + o->off : NULL; }

/* >>running a call and judging it */

static gpuact_stream take_stream(reader *r)
{
    switch (take(r, 5)) {
    case 1: note(" stream=own"); return gpuact_context_query_desc(ctx).stream;
    case 2: if (queue2) { note(" stream=queue2"); return queue2; } return NULL;
    case 3: if (queue_ooo) { note(" stream=out-of-order"); return queue_ooo; } return NULL;
    default: return NULL;
    }
}

static int sync_all(gpuact_stream s)
{
    gpuact_result r = gpuact_synchronize(ctx, s);
    if (r == GPUACT_SUCCESS && s)
        r = gpuact_synchronize(ctx, NULL);
    if (r == GPUACT_SUCCESS && other)
        r = gpuact_synchronize(other, NULL);
    if (r != GPUACT_SUCCESS)
        fault("gpuact_synchronize: %s: %s", gpuact_result_string(r), harness_first_line(gpuact_last_error()));
    return r == GPUACT_SUCCESS;
}

/* Before each call gpuact_last_error() is set to this (by a refused
   gpuact_synchronize(NULL, NULL)), so a refusal that leaves it stale shows. */
static char stale_error[300];
static int sync_call;

/* The call returned res; the verdict says what it had to do; the
   reference (in want) was computed unless the verdict is V_INVALID. */
static void judge(gpuact_result res, gpuact_stream s)
{
    char msg[300];
    snprintf(msg, sizeof msg, "%s", harness_first_line(gpuact_last_error()));
    shape_end(res == GPUACT_SUCCESS ? 1 : res == GPUACT_ERROR_INVALID_ARGUMENT ? 2 : 3);
    if (verbose)
        printf("call:%s -> %s%s%s%s\n", text, gpuact_result_string(res), verdict == V_INVALID ? " [must refuse: " : verdict == V_EITHER ? " [either: " : "",
               verdict == V_INVALID ? why_invalid : verdict == V_EITHER ? why_either : "", verdict ? "]" : "");
    if (!sync_all(s))
        return;
    if (res == GPUACT_ERROR_INVALID_ARGUMENT) {
        if (verdict == V_VALID)
            fault("refused a valid call: %s", msg);
        else if (!msg[0] || (strcmp(msg, stale_error) == 0 && !sync_call))
            fault("refused without a message of its own: gpuact_last_error() is \"%s\"", msg);
        else if (gpuact_last_rule() == GPUACT_RULE_NONE || strncmp(msg, "[gpuact rule ", 13) != 0 ||
                 strncmp(msg + 13, gpuact_rule_name(gpuact_last_rule()), strlen(gpuact_rule_name(gpuact_last_rule()))))
            fault("refused without naming its rule (gpuact_last_rule() %s): \"%s\"",
                  gpuact_rule_name(gpuact_last_rule()), msg);
        else if (compare_all(0)) {
            if (verdict == V_INVALID)
                n_refused++;
            else
                n_either_refused++;
        }
        return;
    }
    if (res != GPUACT_SUCCESS) {
        fault("returned %s: %s", gpuact_result_string(res), msg);
        return;
    }
    if (verdict == V_INVALID) {
        fault("accepted a call the manual refuses (%s)", why_invalid);
        return;
    }
    if (compare_all(1)) {
        if (verdict == V_VALID)
            n_checked++;
        else
            n_either_checked++;
    }
}

/* >>operations */

enum { OP_RELU_FWD, OP_RELU_BWD, OP_FWD, OP_BWD, OP_EPI_FWD, OP_EPI_BWD, OP_GLU_FWD, OP_GLU_BWD, OP_WRITE, OP_READ,
       OP_SYNC, OP_CREATE, OP_MISC, OP_COUNT };
static const char *const OP_NAMES[OP_COUNT] = {"relu_forward", "relu_backward", "forward", "backward",
                                               "epilogue_forward", "epilogue_backward", "glu_forward",
                                               "glu_backward", "buffer_write", "buffer_read", "synchronize",
                                               "context_create", "queries"};

static const char *dt_str(gpuact_dtype dt)
{
    static char buf[4][16];
    static unsigned k;
    char *b = buf[k++ % 4];
    if (dt == GPUACT_F32) return "f32";
    if (dt == GPUACT_F16) return "f16";
    if (dt == GPUACT_BF16) return "bf16";
    snprintf(b, 16, "dtype(%d)", (int)dt);
    return b;
}

/* Where the input data crowds: at a clipping bound, else around 0. */
static float near_of(gpuact_activation a)
{
    return gpuact_ref_kind_has(a.kind, GPUACT_REF_CEILING) ? a.ceiling : 0.0f;
}

static unsigned dt_class(gpuact_dtype dt) { return dtype_ok(dt) ? (unsigned)dt : 3u; }
static unsigned kind_class(gpuact_activation a) { return kind_ok(a) ? (unsigned)a.kind : N_KINDS; }
static unsigned size_class(size_t n) { return n == 0 ? 0 : n < 8 ? 1 : n < 64 ? 2 : n % 8 ? 3 : n <= 1500 ? 4 : 5; }

static void note_act(gpuact_activation a)
{
    note(" act={kind %d, slope %a, ceiling %a, lower %a}", (int)a.kind, (double)a.negative_slope,
         (double)a.ceiling, (double)a.lower);
    shape_add(kind_class(a), N_KINDS + 1);
}

/* NULL context: one in 64 calls. */
static gpuact_context *take_ctx(reader *r)
{
    if (take(r, 64) == 0) {
        note(" ctx=NULL");
        invalid("NULL context");
        return NULL;
    }
    return ctx;
}

/* The elementwise ops: relu_forward/backward, forward/backward. */
static void op_elementwise(reader *r, int op)
{
    int backward = op == OP_RELU_BWD || op == OP_BWD, shortcut = op == OP_RELU_FWD || op == OP_RELU_BWD;
    gpuact_context *c = take_ctx(r);
    int null_desc = !shortcut && take(r, 64) == 0;
    gpuact_dtype dt = take_dtype(r);
    size_t n = take_count(r, 1200), es, mb = n / 8 + (n % 8 != 0);
    gpuact_activation act;
    opnd ops[4];
    int nops, with_mask = 0, from_mask = 0, has_data = n != 0, specials = (int)take(r, 4) != 0;
    const opnd *xo = NULL, *mo = NULL;   /* backward: where the region comes from */
    gpuact_stream s;
    gpuact_result res;
    memset(&act, 0, sizeof act);
    memset(ops, 0, sizeof ops);
    if (!shortcut)
        act = take_act(r);
    note(" %s n=%zu", dt_str(dt), n);
    shape_add(dt_class(dt), 4);
    shape_add(size_class(n), 6);
    if (!shortcut)
        note_act(act);
    if (null_desc) {
        note(" desc=NULL");
        invalid("NULL desc");
    }
    if (!dtype_ok(dt))
        invalid("dtype %d", (int)dt);
    es = dtype_ok(dt) ? gpuact_dtype_size(dt) : 1;
    if (dtype_ok(dt) && n > SIZE_MAX / es)
        invalid("n * %zu overflows", es);
    if (!shortcut)
        check_act(act);

    if (!backward) {
        ops[0].name = "x"; ops[1].name = "y"; ops[2].name = "mask";
        with_mask = !shortcut && take(r, 2);
        nops = 3;
    } else {
        ops[0].name = "dy"; ops[1].name = "dx";
        from_mask = !shortcut && take(r, 3) == 0;
        ops[2].name = from_mask ? "mask" : "x";
        nops = 3;
    }
    set_matrix(&ops[0], 1, n, n, dt);
    set_matrix(&ops[1], 1, n, n, dt);
    ops[1].output = 1;
    ops[1].alias = 0;
    ops[0].alias = -1;
    if (!backward || from_mask) {
        set_mask(&ops[2], 1, n, 8 * mb);
        ops[2].output = !backward;
    } else {
        set_matrix(&ops[2], 1, n, n, dt);
    }
    ops[2].alias = -1;
    place(r, ops, 0, ops[0].bytes, ops[0].align);
    place(r, ops, 1, ops[1].bytes, ops[1].align);
    if (!backward && !with_mask) {
        ops[2].alloc = -1;
        ops[2].present = 0;
    } else {
        place(r, ops, 2, ops[2].bytes, ops[2].align);
    }
    /* backward from both x and mask: the desc route only */
    if (backward && !shortcut && take(r, 32) == 0) {
        nops = 4;
        ops[3] = ops[2];
        ops[3].name = from_mask ? "x" : "mask";
        if (from_mask)
            set_matrix(&ops[3], 1, n, n, dt), ops[3].is_mask = 0;
        else
            set_mask(&ops[3], 1, n, 8 * mb);
        ops[3].output = 0;
        place(r, ops, 3, ops[3].bytes, ops[3].align);
    }
    s = take_stream(r);
    describe(ops, nops);
    {
        int i;
        for (i = 0; i < nops; i++)
            ops[i].touched = has_data;
    }
    if (backward) { /* what the call gives: x, the mask, both or neither */
        int i;
        xo = mo = NULL;
        for (i = 2; i < nops; i++)
            if (ops[i].present) {
                if (ops[i].is_mask)
                    mo = &ops[i];
                else
                    xo = &ops[i];
            }
    }
    if (xo && mo)
        invalid("both x and mask");
    if (kind_ok(act) && !kind_select(act) && (backward ? mo != NULL : ops[2].present))
        invalid("a smooth kind has no mask");
    if (backward && !xo && !mo) {
        if (has_data)
            invalid("neither x nor mask");
        else
            either("neither x nor mask, n = 0");
    }
    if (!ops[0].present || !ops[1].present) {
        if (has_data)
            invalid("%s absent", !ops[0].present ? ops[0].name : ops[1].name);
        else
            either("a required buffer is absent, n = 0");
    }
    check_operands(ops, nops);

    /* data, reference */
    images_begin();
    fill_output(&ops[1]);
    if (!backward)
        fill_output(&ops[2]);
    fill_input(&ops[0], specials, backward ? 1.0f : near_of(act));
    if (backward) {
        fill_input(&ops[2], specials, near_of(act));
        if (nops == 4)
            fill_input(&ops[3], specials, 0.0f);
    }
    want_begin();
    if (verdict != V_INVALID && has_data) {
        unsigned char *nan_any = (unsigned char *)calloc(n + 1, 1);
        if (!backward)
            gpuact_ref_elementwise_forward(act, dt, n, in_ptr(&ops[0]), out_ptr(&ops[1]),
                                           ops[2].present ? out_ptr(&ops[2]) : NULL, nan_any);
        else
            gpuact_ref_elementwise_backward(act, dt, n, in_ptr(&ops[0]), xo ? in_ptr(xo) : NULL, mo ? in_ptr(mo) : NULL,
                                            out_ptr(&ops[1]), nan_any);
        mark_elems(&ops[1], 1, n, n, nan_any);
        free(nan_any);
    }
    if (!upload())
        return;

    n_calls++;
    switch (op) {
    case OP_RELU_FWD:
        res = gpuact_relu_forward(c, dt, n, buffer_of(&ops[0]), buffer_of(&ops[1]), s);
        break;
    case OP_RELU_BWD:
        res = gpuact_relu_backward(c, dt, n, buffer_of(&ops[0]), buffer_of(&ops[2]), buffer_of(&ops[1]), s);
        break;
    case OP_FWD: {
        gpuact_forward_desc d;
        memset(&d, 0, sizeof d);
        d.act = act;
        d.dtype = dt;
        d.n = n;
        d.x = buffer_of(&ops[0]);
        d.y = buffer_of(&ops[1]);
        d.mask = buffer_of(&ops[2]);
        res = gpuact_forward(c, null_desc ? NULL : &d, s);
        break;
    }
    default: {
        gpuact_backward_desc d;
        memset(&d, 0, sizeof d);
        d.act = act;
        d.dtype = dt;
        d.n = n;
        d.dy = buffer_of(&ops[0]);
        d.dx = buffer_of(&ops[1]);
        d.x = buffer_of(from_mask ? &ops[3] : &ops[2]);     /* {NULL, k} ones too */
        d.mask = buffer_of(from_mask ? &ops[2] : &ops[3]);
        if (nops < 4)
            memset(from_mask ? &d.x : &d.mask, 0, sizeof d.x);
        res = gpuact_backward(c, null_desc ? NULL : &d, s);
        break;
    }
    }
    judge(res, s);
}

static void op_epilogue_forward(reader *r)
{
    gpuact_context *c = take_ctx(r);
    int null_desc = take(r, 64) == 0, specials = (int)take(r, 4) != 0;
    gpuact_epilogue_desc d;
    size_t ld_x, ld_y, mask_ld = 0;
    float scale;
    opnd ops[4];
    int has_data, i;
    gpuact_stream s;
    gpuact_result res;
    memset(&d, 0, sizeof d);
    memset(ops, 0, sizeof ops);
    d.act = take_act(r);
    d.rows = take_count(r, 7);
    d.cols = take_count(r, 160);
    d.x_dtype = take_dtype(r);
    d.y_dtype = take(r, 3) == 0 ? d.x_dtype : take_dtype(r);
    d.bias_dtype = take_dtype(r);
    d.ld_x = take_ld(r, d.cols);
    d.ld_y = take(r, 3) == 0 ? d.ld_x : take_ld(r, d.cols);
    d.scale = take(r, 3) == 0 ? 0.0f : take_float(r);
    d.mask_ld = take_mask_ld(r, d.cols);
    note(" %zux%zu x=%s y=%s bias=%s ld_x=%zu ld_y=%zu scale=%a mask_ld=%zu", d.rows, d.cols, dt_str(d.x_dtype),
         dt_str(d.y_dtype), dt_str(d.bias_dtype), d.ld_x, d.ld_y, (double)d.scale, d.mask_ld);
    note_act(d.act);
    shape_add(dt_class(d.x_dtype), 4);
    shape_add(dt_class(d.y_dtype), 4);
    shape_add(dt_class(d.bias_dtype), 4);
    shape_add(size_class(d.rows), 6);
    shape_add(size_class(d.cols), 6);
    shape_add(d.scale == 0.0f || d.scale == 1.0f ? 0 : d.scale > 0.0f ? 1 : 2, 3);
    if (null_desc) {
        note(" desc=NULL");
        invalid("NULL desc");
    }
    has_data = d.rows && d.cols;
    check_act(d.act);
    if (!dtype_ok(d.x_dtype) || !dtype_ok(d.y_dtype))
        invalid("x or y dtype");
    scale = d.scale == 0.0f ? 1.0f : d.scale;
    if (!finite_f(scale))
        invalid("scale %g", (double)scale);
    ld_x = d.ld_x ? d.ld_x : d.cols;
    ld_y = d.ld_y ? d.ld_y : d.cols;
    if (ld_x < d.cols || ld_y < d.cols)
        invalid("ld < cols");

    ops[0].name = "x"; ops[1].name = "y"; ops[2].name = "bias"; ops[3].name = "mask";
    set_matrix(&ops[0], d.rows, d.cols, ld_x, d.x_dtype);
    set_matrix(&ops[1], d.rows, d.cols, ld_y, d.y_dtype);
    set_matrix(&ops[2], 1, d.cols, d.cols, d.bias_dtype);
    ops[0].alias = -1;
    ops[1].output = 1;
    ops[1].alias = d.x_dtype == d.y_dtype && ld_x == ld_y ? 0 : -1;
    ops[2].alias = ops[3].alias = -1;
    ops[3].output = 1;
    ops[3].is_mask = 1;
    ops[3].align = 1;
    ops[3].ok_size = 1;
    place(r, ops, 0, ops[0].bytes, ops[0].align);
    place(r, ops, 1, ops[1].bytes, ops[1].align);
    if (take(r, 2))
        place(r, ops, 2, ops[2].bytes, ops[2].align);
    else
        ops[2].alloc = -1, ops[2].present = 0;
    if (ops[2].present && !dtype_ok(d.bias_dtype))
        invalid("bias dtype");
    else if (!dtype_ok(d.bias_dtype))
        either("bias_dtype %d without bias", (int)d.bias_dtype);
    mask_ld = resolve_mask_ld(d.mask_ld, d.cols);
    set_mask(&ops[3], d.rows, d.cols, mask_ld);
    if (take(r, 2)) {
        place(r, ops, 3, ops[3].bytes, 1);
    } else {
        ops[3].alloc = -1;
        ops[3].present = 0;
    }
    check_mask_ld(&ops[3], mask_ld, d.cols);
    if (ops[3].present && kind_ok(d.act) && !kind_select(d.act))
        invalid("a smooth kind has no mask");
    s = take_stream(r);
    describe(ops, 4);
    for (i = 0; i < 4; i++)
        ops[i].touched = has_data;
    if (!ops[0].present || !ops[1].present) {
        if (has_data)
            invalid("x or y absent");
        else
            either("x or y absent, nothing to do");
    }
    check_operands(ops, 4);

    images_begin();
    fill_output(&ops[1]);
    fill_output(&ops[3]);
    fill_input(&ops[0], specials, near_of(d.act));
    fill_input(&ops[2], take(r, 4) == 0, 0.0f);
    want_begin();
    if (verdict != V_INVALID && has_data) {
        gpuact_ref_fwd f;
        /* indexed like the output's elements; its extent, not rows * ld (rows = 1 allows any ld) */
        unsigned char *nan_any = (unsigned char *)calloc(ops[1].bytes / gpuact_dtype_size(d.y_dtype) + 1, 1);
        memset(&f, 0, sizeof f);
        f.act = d.act;
        f.rows = d.rows;
        f.cols = d.cols;
        f.ld_x = ld_x;
        f.ld_y = ld_y;
        f.mask_ld = mask_ld;
        f.x_dtype = d.x_dtype;
        f.y_dtype = d.y_dtype;
        f.bias_dtype = d.bias_dtype;
        f.scale = scale;
        f.x = in_ptr(&ops[0]);
        f.bias = ops[2].present ? in_ptr(&ops[2]) : NULL;
        f.y = out_ptr(&ops[1]);
        f.mask = ops[3].present ? out_ptr(&ops[3]) : NULL;
        f.nan_any = nan_any;
        gpuact_ref_forward(&f);
        mark_elems(&ops[1], d.rows, d.cols, ld_y, nan_any);
        free(nan_any);
    }
    if (!upload())
        return;
    d.x = buffer_of(&ops[0]);
    d.y = buffer_of(&ops[1]);
    d.bias = buffer_of(&ops[2]);
    d.mask = buffer_of(&ops[3]);
    n_calls++;
    res = gpuact_epilogue_forward(c, null_desc ? NULL : &d, s);
    judge(res, s);
}

/* The bias gradient of `which` (0, 1) from a stored gradient g (rows x
   cols of dt, rows ld apart): sum, sum |.|, sum of the finite |.|. */
static void ref_sums(int which, gpuact_dtype dt, const void *g, size_t rows, size_t cols, size_t ld)
{
    size_t r, c, k;
    for (c = 0; c < cols; c++) {
        k = (size_t)which * REG_BYTES + c;
        sum[k] = sum_abs[k] = sum_fin[k] = 0.0;
        for (r = 0; r < rows; r++) {
            double v = (double)gpuact_ref_load(dt, g, r * ld + c);
            sum[k] += v;
            sum_abs[k] += fabs(v);
            if (isfinite(fabs(v)))
                sum_fin[k] += fabs(v);
        }
    }
}

/* The call again from the same data: the bias gradients (operands ia, ib;
   ib < 0: one) must come out bit-identical. call() makes the call. */
static void repeat_sums(const opnd *ops, int ia, int ib, gpuact_result (*call)(void *), void *arg, gpuact_stream s)
{
    static unsigned char first[2][REG_BYTES];
    gpuact_result res;
    int k;
    for (k = 0; k < 2; k++)
        if (k == 0 || ib >= 0)
            memcpy(first[k], got[ops[k ? ib : ia].alloc] + ops[k ? ib : ia].off, ops[k ? ib : ia].bytes);
    if (!upload())
        return;
    n_calls++;
    n_repeats++;
    if ((res = call(arg)) != GPUACT_SUCCESS) {
        fault("the same call again returned %s: %s", gpuact_result_string(res),
              harness_first_line(gpuact_last_error()));
        return;
    }
    if (!sync_all(s) || !compare_all(1))
        return;
    for (k = 0; k < 2; k++)
        if ((k == 0 || ib >= 0) &&
            memcmp(first[k], got[ops[k ? ib : ia].alloc] + ops[k ? ib : ia].off, ops[k ? ib : ia].bytes) != 0)
            fault("%s differs between two identical calls", ops[k ? ib : ia].name);
}

typedef struct epib_call { gpuact_context *c; const gpuact_epilogue_backward_desc *d; gpuact_stream s; } epib_call;
static gpuact_result epib_again(void *arg)
{
    epib_call *e = (epib_call *)arg;
    return gpuact_epilogue_backward(e->c, e->d, e->s);
}

/* The epilogue backward: from the mask, from y (relu, leaky) or from the
   forward's x and bias (the smooth kinds), with or without dbias. */
static void op_epilogue_backward(reader *r)
{
    enum { DY, DX, Y, MASK, DBIAS, X, BIAS, N_OPS };
    gpuact_context *c = take_ctx(r);
    int null_desc = take(r, 64) == 0, specials = (int)take(r, 4) != 0, repeat, source, extra;
    gpuact_epilogue_backward_desc d;
    size_t ld_dy, ld_dx, ld_y, ld_x, mask_ld;
    float scale;
    opnd ops[N_OPS];
    int has_data, i, sources;
    gpuact_stream s;
    gpuact_result res;
    memset(&d, 0, sizeof d);
    memset(ops, 0, sizeof ops);
    d.act = take_act(r);
    d.rows = take_count(r, 7);
    d.cols = take_count(r, 160);
    d.dy_dtype = take_dtype(r);
    d.dx_dtype = take(r, 3) == 0 ? d.dy_dtype : take_dtype(r);
    d.y_dtype = take_dtype(r);
    d.x_dtype = take(r, 2) ? d.dy_dtype : take_dtype(r);
    d.dbias_dtype = take_dtype(r);
    d.ld_dy = take_ld(r, d.cols);
    d.ld_dx = take(r, 3) == 0 ? d.ld_dy : take_ld(r, d.cols);
    d.ld_y = take_ld(r, d.cols);
    d.ld_x = take_ld(r, d.cols);
    d.scale = take(r, 3) == 0 ? 0.0f : take_float(r);
    d.mask_ld = take_mask_ld(r, d.cols);
    /* the source the kind wants (mostly), another, or two */
    source = (int)take(r, 8);
    source = source < 6 ? (!kind_ok(d.act) || kind_select(d.act) ? (source % 3 == 0 && kind_from_y(d.act) ? Y : MASK) : X)
           : source == 6 ? (int)(Y + take(r, 2)) /* Y or MASK */ : X;
    extra = take(r, 32) == 0 ? (int)take(r, 3) : -1;   /* a second source: 0 y, 1 mask, 2 x */
    repeat = take(r, 4) == 0;
    note(" %zux%zu dy=%s dx=%s y=%s x=%s dbias=%s ld_dy=%zu ld_dx=%zu ld_y=%zu ld_x=%zu scale=%a mask_ld=%zu", d.rows,
         d.cols, dt_str(d.dy_dtype), dt_str(d.dx_dtype), dt_str(d.y_dtype), dt_str(d.x_dtype), dt_str(d.dbias_dtype),
         d.ld_dy, d.ld_dx, d.ld_y, d.ld_x, (double)d.scale, d.mask_ld);
    note_act(d.act);
    shape_add(dt_class(d.dy_dtype), 4);
    shape_add(dt_class(d.dx_dtype), 4);
    shape_add(dt_class(d.y_dtype), 4);
    shape_add(dt_class(d.dbias_dtype), 4);
    shape_add(size_class(d.rows), 6);
    shape_add(size_class(d.cols), 6);
    shape_add(d.scale == 0.0f || d.scale == 1.0f ? 0 : d.scale > 0.0f ? 1 : 2, 3);
    if (null_desc) {
        note(" desc=NULL");
        invalid("NULL desc");
    }
    has_data = d.rows && d.cols;
    check_act(d.act);
    if (!dtype_ok(d.dy_dtype) || !dtype_ok(d.dx_dtype))
        invalid("dy or dx dtype");
    scale = d.scale == 0.0f ? 1.0f : d.scale;
    if (!finite_f(scale))
        invalid("scale %g", (double)scale);
    ld_dy = d.ld_dy ? d.ld_dy : d.cols;
    ld_dx = d.ld_dx ? d.ld_dx : d.cols;
    ld_y = d.ld_y ? d.ld_y : d.cols;
    ld_x = d.ld_x ? d.ld_x : d.cols;
    if (ld_dy < d.cols || ld_dx < d.cols)
        invalid("ld < cols");

    ops[DY].name = "dy"; ops[DX].name = "dx"; ops[Y].name = "y"; ops[MASK].name = "mask"; ops[DBIAS].name = "dbias";
    ops[X].name = "x"; ops[BIAS].name = "bias";
    set_matrix(&ops[DY], d.rows, d.cols, ld_dy, d.dy_dtype);
    set_matrix(&ops[DX], d.rows, d.cols, ld_dx, d.dx_dtype);
    set_matrix(&ops[Y], d.rows, d.cols, ld_y, d.y_dtype);
    set_matrix(&ops[X], d.rows, d.cols, ld_x, d.x_dtype);
    set_matrix(&ops[BIAS], 1, d.cols, d.cols, d.x_dtype);
    set_matrix(&ops[DBIAS], 1, d.cols, d.cols, d.dbias_dtype);
    for (i = 0; i < N_OPS; i++)
        ops[i].alias = -1;
    ops[DX].output = 1;
    ops[DX].alias = d.dy_dtype == d.dx_dtype && ld_dy == ld_dx ? DY : -1;
    ops[DBIAS].output = 1;
    mask_ld = resolve_mask_ld(d.mask_ld, d.cols);
    set_mask(&ops[MASK], d.rows, d.cols, mask_ld);
    place(r, ops, DY, ops[DY].bytes, ops[DY].align);
    place(r, ops, DX, ops[DX].bytes, ops[DX].align);
    for (i = Y; i <= BIAS; i++) {
        int want = i == source || (extra >= 0 && i == (extra == 0 ? Y : extra == 1 ? MASK : X));
        if (i == DBIAS)
            want = take(r, 4) != 0;
        if (i == BIAS)
            want = (ops[X].present && take(r, 2)) || take(r, 32) == 0;
        if (want) {
            place(r, ops, i, ops[i].bytes, ops[i].align);
        } else {
            ops[i].alloc = -1;
            ops[i].present = 0;
        }
    }
    s = take_stream(r);
    describe(ops, N_OPS);
    for (i = 0; i < N_OPS; i++)
        ops[i].touched = has_data;
    ops[DBIAS].touched = d.cols != 0; /* rows = 0 writes zeros */

    sources = ops[Y].present + ops[MASK].present + ops[X].present;
    if (sources > 1)
        invalid("more than one of y, mask and x");
    else if (!sources && has_data)
        invalid("none of y, mask and x");
    else if (!sources)
        either("none of y, mask and x, nothing to do");
    if (ops[Y].present) {
        if (!dtype_ok(d.y_dtype))
            invalid("y dtype");
        if (ld_y < d.cols)
            invalid("ld_y < cols");
        if (kind_ok(d.act) && !kind_from_y(d.act))
            invalid("kind %d cannot start from y", (int)d.act.kind);
        if (!(scale > 0.0f))
            invalid("from y with scale %g", (double)scale);
    } else {
        if (!dtype_ok(d.y_dtype))
            either("y_dtype %d without y", (int)d.y_dtype);
        if (ld_y < d.cols)
            either("ld_y %zu without y", ld_y);
    }
    if (ops[X].present) {
        if (!dtype_ok(d.x_dtype))
            invalid("x dtype");
        if (ld_x < d.cols)
            invalid("ld_x < cols");
        if (kind_ok(d.act) && kind_select(d.act))
            invalid("x is the smooth kinds' source only");
    } else {
        if (!dtype_ok(d.x_dtype))
            either("x_dtype %d without x", (int)d.x_dtype);
        if (ld_x < d.cols)
            either("ld_x %zu without x", ld_x);
        if (ops[BIAS].present)
            either("bias without x");
    }
    if (ops[MASK].present && kind_ok(d.act) && !kind_select(d.act))
        invalid("a smooth kind has no mask");
    check_mask_ld(&ops[MASK], mask_ld, d.cols);
    if (ops[DBIAS].present && !dtype_ok(d.dbias_dtype))
        invalid("dbias dtype");
    else if (!dtype_ok(d.dbias_dtype))
        either("dbias_dtype %d without dbias", (int)d.dbias_dtype);
    if (!ops[DY].present || !ops[DX].present) {
        if (has_data)
            invalid("dy or dx absent");
        else
            either("dy or dx absent, nothing to do");
    }
    check_operands(ops, N_OPS);

    images_begin();
    fill_output(&ops[DX]);
    fill_output(&ops[DBIAS]);
    fill_input(&ops[DY], specials, 1.0f);
    fill_input(&ops[Y], specials, 0.0f);
    fill_input(&ops[MASK], 0, 0.0f);
    fill_input(&ops[X], specials, near_of(d.act));
    fill_input(&ops[BIAS], take(r, 4) == 0, 0.0f);
    want_begin();
    if (verdict != V_INVALID && ops[DBIAS].present && !has_data && d.cols) {
        /* rows = 0: a sum over no rows, +0 in every column */
        ref_sums(0, d.dx_dtype, NULL, 0, d.cols, 1);
        mark_sums(&ops[DBIAS], d.cols, 0);
    }
    if (verdict != V_INVALID && has_data) {
        gpuact_ref_bwd b;
        /* indexed like the output's elements; its extent, not rows * ld (rows = 1 allows any ld) */
        unsigned char *nan_any = (unsigned char *)calloc(ops[DX].bytes / gpuact_dtype_size(d.dx_dtype) + 1, 1);
        memset(&b, 0, sizeof b);
        b.act = d.act;
        b.rows = d.rows;
        b.cols = d.cols;
        b.ld_dy = ld_dy;
        b.ld_dx = ld_dx;
        b.ld_src = ops[X].present ? ld_x : ld_y;
        b.mask_ld = mask_ld;
        b.dy_dtype = d.dy_dtype;
        b.dx_dtype = d.dx_dtype;
        b.src_dtype = ops[X].present ? d.x_dtype : d.y_dtype;
        b.scale = scale;
        b.dy = in_ptr(&ops[DY]);
        b.src = ops[X].present ? in_ptr(&ops[X]) : ops[Y].present ? in_ptr(&ops[Y]) : NULL;
        b.mask = ops[MASK].present ? in_ptr(&ops[MASK]) : NULL;
        b.bias = ops[X].present && ops[BIAS].present ? in_ptr(&ops[BIAS]) : NULL;
        b.dx = out_ptr(&ops[DX]);
        b.nan_any = nan_any;
        gpuact_ref_backward(&b);
        mark_elems(&ops[DX], d.rows, d.cols, ld_dx, nan_any);
        if (ops[DBIAS].present) {
            ref_sums(0, d.dx_dtype, b.dx, d.rows, d.cols, ld_dx);
            mark_sums(&ops[DBIAS], d.cols, 0);
        }
        free(nan_any);
    }
    if (!upload())
        return;
    d.dy = buffer_of(&ops[DY]);
    d.dx = buffer_of(&ops[DX]);
    d.y = buffer_of(&ops[Y]);
    d.mask = buffer_of(&ops[MASK]);
    d.dbias = buffer_of(&ops[DBIAS]);
    d.x = buffer_of(&ops[X]);
    d.bias = buffer_of(&ops[BIAS]);
    n_calls++;
    res = gpuact_epilogue_backward(c, null_desc ? NULL : &d, s);
    judge(res, s);
    /* The bias gradient is bit-identical run to run: again, from the same data. */
    if (repeat && !faulted && res == GPUACT_SUCCESS && ops[DBIAS].present && d.cols) {
        epib_call e;
        e.c = c;
        e.d = &d;
        e.s = s;
        repeat_sums(ops, DBIAS, -1, epib_again, &e, s);
    }
}

/* >>the gated forms */

/* A glu matrix operand: its extent, and its row and pitch for interleaved(). */
static void set_glu_matrix(opnd *o, size_t rows, size_t cols, size_t ld, gpuact_dtype dt)
{
    set_matrix(o, rows, cols, ld, dt);
    o->row_bytes = cols * o->align;
    o->ld_bytes = rows > 1 && o->align ? ld * o->align : 0;
}

/* Places operand k right after operand base, delta bytes on (the second
   half of a fused row), unless the input says otherwise (then as place()). */
static void place_half(reader *r, opnd *ops, int k, int base, size_t delta, int fused)
{
    if (!fused || !ops[base].present) {
        place(r, ops, k, ops[k].bytes, ops[k].align);
        return;
    }
    ops[k].alloc = ops[base].alloc;
    ops[k].off = ops[base].off + delta;
    ops[k].present = 1;
}

/* A leading dimension of a glu operand: 2 cols when its rows are fused
   with another's, else as take_ld. */
static size_t glu_ld(reader *r, size_t cols, int fused)
{
    return fused && cols <= SIZE_MAX / 2 ? 2 * cols : take_ld(r, cols);
}

/* The rules both glu ops share: a kind that gates, both of a pair or neither. */
static void check_glu(gpuact_activation act, const opnd *p, const opnd *q)
{
    check_act(act);
    if (kind_ok(act) && !kind_glu(act))
        invalid("kind %d does not gate", (int)act.kind);
    if (p->present != q->present)
        invalid("%s without %s", p->present ? p->name : q->name, p->present ? q->name : p->name);
}

static size_t resolve_ld(size_t ld, size_t cols, const char *name)
{
    if (!ld)
        ld = cols;
    if (ld < cols)
        invalid("%s %zu < cols", name, ld);
    return ld;
}

static void op_glu_forward(reader *r)
{
    enum { A, B, Y, BA, BB, N_OPS };
    gpuact_context *c = take_ctx(r);
    int null_desc = take(r, 64) == 0, specials = (int)take(r, 4) != 0, fused = take(r, 2) != 0, i, has_data;
    gpuact_glu_desc d;
    size_t ld_a, ld_b, ld_y, es;
    opnd ops[N_OPS];
    gpuact_stream s;
    gpuact_result res;
    memset(&d, 0, sizeof d);
    memset(ops, 0, sizeof ops);
    d.act = take_act(r);
    if (take(r, 4))   /* mostly a kind that gates */
        d.act.kind = take_glu_kind(r);
    d.rows = take_count(r, 7);
    d.cols = take_count(r, 96);
    d.x_dtype = take_dtype(r);
    d.y_dtype = take(r, 2) ? d.x_dtype : take_dtype(r);
    d.ld_a = glu_ld(r, d.cols, fused);
    d.ld_b = fused ? d.ld_a : take_ld(r, d.cols);
    d.ld_y = take_ld(r, d.cols);
    note(" %zux%zu x=%s y=%s ld_a=%zu ld_b=%zu ld_y=%zu%s", d.rows, d.cols, dt_str(d.x_dtype), dt_str(d.y_dtype),
         d.ld_a, d.ld_b, d.ld_y, fused ? " fused" : "");
    note_act(d.act);
    shape_add(dt_class(d.x_dtype), 4);
    shape_add(dt_class(d.y_dtype), 4);
    shape_add(size_class(d.rows), 6);
    shape_add(size_class(d.cols), 6);
    shape_add((unsigned)fused, 2);
    if (null_desc) {
        note(" desc=NULL");
        invalid("NULL desc");
    }
    has_data = d.rows && d.cols;
    if (!dtype_ok(d.x_dtype) || !dtype_ok(d.y_dtype))
        invalid("x or y dtype");
    ld_a = resolve_ld(d.ld_a, d.cols, "ld_a");
    ld_b = resolve_ld(d.ld_b, d.cols, "ld_b");
    ld_y = resolve_ld(d.ld_y, d.cols, "ld_y");
    ops[A].name = "a"; ops[B].name = "b"; ops[Y].name = "y"; ops[BA].name = "bias_a"; ops[BB].name = "bias_b";
    set_glu_matrix(&ops[A], d.rows, d.cols, ld_a, d.x_dtype);
    set_glu_matrix(&ops[B], d.rows, d.cols, ld_b, d.x_dtype);
    set_glu_matrix(&ops[Y], d.rows, d.cols, ld_y, d.y_dtype);
    set_matrix(&ops[BA], 1, d.cols, d.cols, d.x_dtype);
    set_matrix(&ops[BB], 1, d.cols, d.cols, d.x_dtype);
    for (i = 0; i < N_OPS; i++)
        ops[i].alias = -1;
    ops[Y].output = 1;
    es = ops[A].align ? ops[A].align : 1;
    /* fused: a's span plus b's half of the last row */
    place(r, ops, A, fused && ops[A].bytes <= SIZE_MAX - d.cols * es ? ops[A].bytes + d.cols * es : ops[A].bytes,
          ops[A].align);
    place_half(r, ops, B, A, d.cols * es, fused);
    place(r, ops, Y, ops[Y].bytes, ops[Y].align);
    if (take(r, 3)) {
        place(r, ops, BA, fused ? 2 * ops[BA].bytes : ops[BA].bytes, ops[BA].align);
        if (take(r, 16))
            place_half(r, ops, BB, BA, d.cols * es, fused);
        else
            ops[BB].alloc = -1; /* one without the other */
    } else {
        ops[BA].alloc = ops[BB].alloc = -1;
        if (take(r, 16) == 0)
            place(r, ops, BB, ops[BB].bytes, ops[BB].align);
    }
    for (i = BA; i <= BB; i++)
        ops[i].present = ops[i].alloc >= 0;
    s = take_stream(r);
    describe(ops, N_OPS);
    for (i = 0; i < N_OPS; i++)
        ops[i].touched = has_data;
    check_glu(d.act, &ops[BA], &ops[BB]);
    for (i = A; i <= Y; i++)
        if (!ops[i].present) {
            if (has_data)
                invalid("%s absent", ops[i].name);
            else
                either("%s absent, nothing to do", ops[i].name);
        }
    check_operands(ops, N_OPS);

    images_begin();
    fill_output(&ops[Y]);
    fill_input(&ops[A], specials, 0.0f);
    fill_input(&ops[B], specials, 0.0f);
    fill_input(&ops[BA], take(r, 4) == 0, 0.0f);
    fill_input(&ops[BB], take(r, 4) == 0, 0.0f);
    want_begin();
    if (verdict != V_INVALID && has_data) {
        gpuact_ref_glu g;
        unsigned char *nan_any = (unsigned char *)calloc(ops[Y].bytes / gpuact_dtype_size(d.y_dtype) + 1, 1);
        memset(&g, 0, sizeof g);
        g.act = d.act;
        g.rows = d.rows;
        g.cols = d.cols;
        g.ld_a = ld_a;
        g.ld_b = ld_b;
        g.ld_y = ld_y;
        g.x_dtype = d.x_dtype;
        g.y_dtype = d.y_dtype;
        g.a = in_ptr(&ops[A]);
        g.b = in_ptr(&ops[B]);
        g.bias_a = ops[BA].present ? in_ptr(&ops[BA]) : NULL;
        g.bias_b = ops[BB].present ? in_ptr(&ops[BB]) : NULL;
        g.y = out_ptr(&ops[Y]);
        g.nan_any = nan_any;
        gpuact_ref_glu_forward(&g);
        mark_elems(&ops[Y], d.rows, d.cols, ld_y, nan_any);
        free(nan_any);
    }
    if (!upload())
        return;
    d.a = buffer_of(&ops[A]);
    d.b = buffer_of(&ops[B]);
    d.y = buffer_of(&ops[Y]);
    d.bias_a = buffer_of(&ops[BA]);
    d.bias_b = buffer_of(&ops[BB]);
    n_calls++;
    res = gpuact_glu_forward(c, null_desc ? NULL : &d, s);
    judge(res, s);
}

typedef struct glub_call { gpuact_context *c; const gpuact_glu_backward_desc *d; gpuact_stream s; } glub_call;
static gpuact_result glub_again(void *arg)
{
    glub_call *e = (glub_call *)arg;
    return gpuact_glu_backward(e->c, e->d, e->s);
}

static void op_glu_backward(reader *r)
{
    enum { DY, A, B, DA, DB, BA, BB, DBA, DBB, N_OPS };
    gpuact_context *c = take_ctx(r);
    int null_desc = take(r, 64) == 0, specials = (int)take(r, 4) != 0, fused = take(r, 2) != 0;
    int fused_d = take(r, 2) != 0, repeat = take(r, 4) == 0, i, has_data;
    gpuact_glu_backward_desc d;
    size_t ld_dy, ld_a, ld_b, ld_da, ld_db, es;
    opnd ops[N_OPS];
    gpuact_stream s;
    gpuact_result res;
    memset(&d, 0, sizeof d);
    memset(ops, 0, sizeof ops);
    d.act = take_act(r);
    if (take(r, 4))
        d.act.kind = take_glu_kind(r);
    d.rows = take_count(r, 7);
    d.cols = take_count(r, 96);
    d.dy_dtype = take_dtype(r);
    d.x_dtype = take(r, 2) ? d.dy_dtype : take_dtype(r);
    d.dbias_dtype = take_dtype(r);
    d.ld_dy = take_ld(r, d.cols);
    d.ld_a = glu_ld(r, d.cols, fused);
    d.ld_b = fused ? d.ld_a : take_ld(r, d.cols);
    d.ld_da = glu_ld(r, d.cols, fused_d);
    d.ld_db = fused_d ? d.ld_da : take_ld(r, d.cols);
    note(" %zux%zu dy=%s x=%s dbias=%s ld_dy=%zu ld_a=%zu ld_b=%zu ld_da=%zu ld_db=%zu%s%s", d.rows, d.cols,
         dt_str(d.dy_dtype), dt_str(d.x_dtype), dt_str(d.dbias_dtype), d.ld_dy, d.ld_a, d.ld_b, d.ld_da, d.ld_db,
         fused ? " fused" : "", fused_d ? " fused-d" : "");
    note_act(d.act);
    shape_add(dt_class(d.dy_dtype), 4);
    shape_add(dt_class(d.x_dtype), 4);
    shape_add(dt_class(d.dbias_dtype), 4);
    shape_add(size_class(d.rows), 6);
    shape_add(size_class(d.cols), 6);
    shape_add((unsigned)(fused + 2 * fused_d), 4);
    if (null_desc) {
        note(" desc=NULL");
        invalid("NULL desc");
    }
    has_data = d.rows && d.cols;
    if (!dtype_ok(d.dy_dtype) || !dtype_ok(d.x_dtype))
        invalid("dy or x dtype");
    ld_dy = resolve_ld(d.ld_dy, d.cols, "ld_dy");
    ld_a = resolve_ld(d.ld_a, d.cols, "ld_a");
    ld_b = resolve_ld(d.ld_b, d.cols, "ld_b");
    ld_da = resolve_ld(d.ld_da, d.cols, "ld_da");
    ld_db = resolve_ld(d.ld_db, d.cols, "ld_db");
    ops[DY].name = "dy"; ops[A].name = "a"; ops[B].name = "b"; ops[DA].name = "da"; ops[DB].name = "db";
    ops[BA].name = "bias_a"; ops[BB].name = "bias_b"; ops[DBA].name = "dbias_a"; ops[DBB].name = "dbias_b";
    set_glu_matrix(&ops[DY], d.rows, d.cols, ld_dy, d.dy_dtype);
    set_glu_matrix(&ops[A], d.rows, d.cols, ld_a, d.x_dtype);
    set_glu_matrix(&ops[B], d.rows, d.cols, ld_b, d.x_dtype);
    set_glu_matrix(&ops[DA], d.rows, d.cols, ld_da, d.x_dtype);
    set_glu_matrix(&ops[DB], d.rows, d.cols, ld_db, d.x_dtype);
    set_matrix(&ops[BA], 1, d.cols, d.cols, d.x_dtype);
    set_matrix(&ops[BB], 1, d.cols, d.cols, d.x_dtype);
    set_matrix(&ops[DBA], 1, d.cols, d.cols, d.dbias_dtype);
    set_matrix(&ops[DBB], 1, d.cols, d.cols, d.dbias_dtype);
    for (i = 0; i < N_OPS; i++)
        ops[i].alias = -1;
    ops[DA].output = ops[DB].output = ops[DBA].output = ops[DBB].output = 1;
    es = ops[A].align ? ops[A].align : 1;
    place(r, ops, DY, ops[DY].bytes, ops[DY].align);
    place(r, ops, A, fused && ops[A].bytes <= SIZE_MAX - d.cols * es ? ops[A].bytes + d.cols * es : ops[A].bytes,
          ops[A].align);
    place_half(r, ops, B, A, d.cols * es, fused);
    place(r, ops, DA, fused_d && ops[DA].bytes <= SIZE_MAX - d.cols * es ? ops[DA].bytes + d.cols * es : ops[DA].bytes,
          ops[DA].align);
    place_half(r, ops, DB, DA, d.cols * es, fused_d);
    for (i = BA; i <= DBA; i += 2) {   /* bias_a / bias_b, then dbias_a / dbias_b */
        size_t e = ops[i].align ? ops[i].align : 1;
        if (take(r, 3)) {
            place(r, ops, i, 2 * ops[i].bytes, ops[i].align);
            if (take(r, 16))
                place_half(r, ops, i + 1, i, d.cols * e, take(r, 2));
            else
                ops[i + 1].alloc = -1;
        } else {
            ops[i].alloc = ops[i + 1].alloc = -1;
            if (take(r, 16) == 0)
                place(r, ops, i + 1, ops[i + 1].bytes, ops[i + 1].align);
        }
        ops[i].present = ops[i].alloc >= 0;
        ops[i + 1].present = ops[i + 1].alloc >= 0;
    }
    s = take_stream(r);
    describe(ops, N_OPS);
    for (i = 0; i < N_OPS; i++)
        ops[i].touched = has_data;
    ops[DBA].touched = ops[DBB].touched = d.cols != 0; /* rows = 0 writes zeros */
    check_glu(d.act, &ops[BA], &ops[BB]);
    if (ops[DBA].present != ops[DBB].present)
        invalid("one bias gradient without the other");
    if (ops[DBA].present && !dtype_ok(d.dbias_dtype))
        invalid("dbias dtype");
    else if (!ops[DBA].present && !dtype_ok(d.dbias_dtype))
        either("dbias_dtype %d without the bias gradients", (int)d.dbias_dtype);
    for (i = DY; i <= DB; i++)
        if (!ops[i].present) {
            if (has_data)
                invalid("%s absent", ops[i].name);
            else
                either("%s absent, nothing to do", ops[i].name);
        }
    check_operands(ops, N_OPS);

    images_begin();
    fill_output(&ops[DA]);
    fill_output(&ops[DB]);
    fill_output(&ops[DBA]);
    fill_output(&ops[DBB]);
    fill_input(&ops[DY], specials, 1.0f);
    fill_input(&ops[A], specials, 0.0f);
    fill_input(&ops[B], specials, 0.0f);
    fill_input(&ops[BA], take(r, 4) == 0, 0.0f);
    fill_input(&ops[BB], take(r, 4) == 0, 0.0f);
    want_begin();
    if (verdict != V_INVALID && ops[DBA].present && ops[DBB].present && d.cols) {
        if (!has_data) { /* rows = 0: sums over no rows, +0 */
            ref_sums(0, d.x_dtype, NULL, 0, d.cols, 1);
            ref_sums(1, d.x_dtype, NULL, 0, d.cols, 1);
        }
    }
    if (verdict != V_INVALID && has_data) {
        gpuact_ref_glu_bwd g;
        unsigned char *da_nan = (unsigned char *)calloc(ops[DA].bytes / gpuact_dtype_size(d.x_dtype) + 1, 1);
        unsigned char *db_nan = (unsigned char *)calloc(ops[DB].bytes / gpuact_dtype_size(d.x_dtype) + 1, 1);
        memset(&g, 0, sizeof g);
        g.act = d.act;
        g.rows = d.rows;
        g.cols = d.cols;
        g.ld_dy = ld_dy;
        g.ld_a = ld_a;
        g.ld_b = ld_b;
        g.ld_da = ld_da;
        g.ld_db = ld_db;
        g.dy_dtype = d.dy_dtype;
        g.x_dtype = d.x_dtype;
        g.dy = in_ptr(&ops[DY]);
        g.a = in_ptr(&ops[A]);
        g.b = in_ptr(&ops[B]);
        g.bias_a = ops[BA].present ? in_ptr(&ops[BA]) : NULL;
        g.bias_b = ops[BB].present ? in_ptr(&ops[BB]) : NULL;
        g.da = out_ptr(&ops[DA]);
        g.db = out_ptr(&ops[DB]);
        g.da_nan = da_nan;
        g.db_nan = db_nan;
        gpuact_ref_glu_backward(&g);
        mark_elems(&ops[DA], d.rows, d.cols, ld_da, da_nan);
        mark_elems(&ops[DB], d.rows, d.cols, ld_db, db_nan);
        if (ops[DBA].present && ops[DBB].present) {
            ref_sums(0, d.x_dtype, g.da, d.rows, d.cols, ld_da);
            ref_sums(1, d.x_dtype, g.db, d.rows, d.cols, ld_db);
        }
        free(da_nan);
        free(db_nan);
    }
    if (verdict != V_INVALID && ops[DBA].present && ops[DBB].present && d.cols) {
        mark_sums(&ops[DBA], d.cols, 0);
        mark_sums(&ops[DBB], d.cols, 1);
    }
    if (!upload())
        return;
    d.dy = buffer_of(&ops[DY]);
    d.a = buffer_of(&ops[A]);
    d.b = buffer_of(&ops[B]);
    d.da = buffer_of(&ops[DA]);
    d.db = buffer_of(&ops[DB]);
    d.bias_a = buffer_of(&ops[BA]);
    d.bias_b = buffer_of(&ops[BB]);
    d.dbias_a = buffer_of(&ops[DBA]);
    d.dbias_b = buffer_of(&ops[DBB]);
    n_calls++;
    res = gpuact_glu_backward(c, null_desc ? NULL : &d, s);
    judge(res, s);
    if (repeat && !faulted && res == GPUACT_SUCCESS && ops[DBA].present && d.cols) {
        glub_call e;
        e.c = c;
        e.d = &d;
        e.s = s;
        repeat_sums(ops, DBA, DBB, glub_again, &e, s);
    }
}

/* buffer_write / buffer_read: any target, offset and size. */
static void op_transfer(reader *r, int write)
{
    static unsigned char host[REG_BYTES + 2 * HOST_GUARD], host_before[REG_BYTES + 2 * HOST_GUARD];
    gpuact_context *c = take_ctx(r);
    opnd o;
    size_t bytes, i;
    int null_host = take(r, 32) == 0, a;
    gpuact_result res;
    memset(&o, 0, sizeof o);
    o.name = write ? "dst" : "src";
    switch (take(r, 8)) {
    case 0: o.alloc = SMALL; break;
    case 1: o.alloc = foreign_ok ? FOREIGN : 0; break;
    case 2: o.alloc = -1; break;
    default: o.alloc = (int)take(r, N_REG); break;
    }
    o.present = o.alloc >= 0;
    o.off = take(r, 4) == 0 ? take(r, REG_BYTES + 64) : 0;
    bytes = take(r, 8) == 0 ? HUGE_SIZES[take(r, sizeof HUGE_SIZES / sizeof HUGE_SIZES[0])]
                            : take(r, 4) == 0 ? 0 : take(r, REG_BYTES + 64);
    o.bytes = bytes;
    o.output = write;
    cur_ops = &o;
    cur_nops = 1;
    note(" %s=%s+%zu bytes=%zu%s", o.name, alloc_name(o.alloc), o.off, bytes, null_host ? " host=NULL" : "");
    if (bytes == 0) {
        if (!o.present || null_host)
            either("0 bytes with a NULL pointer");
    } else if (!o.present || null_host) {
        invalid("NULL handle or host pointer");
    } else if (o.alloc == FOREIGN) {
        invalid("a cl_mem of another context");
    } else if (o.off > alloc_size[o.alloc] || bytes > alloc_size[o.alloc] - o.off) {
        invalid("past the end");
    }
    images_begin();
    want_begin();
    for (i = 0; i < sizeof host; i++)
        host[i] = (unsigned char)gpuact_ref_next(&data_rng);
    memcpy(host_before, host, sizeof host);
    if (write && verdict != V_INVALID && bytes && o.present && !null_host)
        memcpy(want[o.alloc] + o.off, host + HOST_GUARD, bytes);
    if (!upload())
        return;
    n_calls++;
    if (write)
        res = gpuact_buffer_write(c, buffer_of(&o), null_host ? NULL : host + HOST_GUARD, bytes);
    else
        res = gpuact_buffer_read(c, null_host ? NULL : host + HOST_GUARD, buffer_of(&o), bytes);
    a = o.alloc;
    if (!write && res == GPUACT_SUCCESS && verdict != V_INVALID && bytes && o.present && !null_host) {
        /* the host buffer: the bytes read, and its guards untouched */
        if (memcmp(host + HOST_GUARD, before[a] + o.off, bytes) != 0)
            fault("buffer_read: the bytes read differ from the allocation's");
        memcpy(host + HOST_GUARD, host_before + HOST_GUARD, bytes);
    }
    if (!write && memcmp(host, host_before, sizeof host) != 0)
        fault("buffer_read wrote host memory outside the %zu bytes it read (or wrote any when refused)",
              res == GPUACT_SUCCESS ? bytes : 0);
    judge(res, NULL);
}

static void op_sync(reader *r)
{
    gpuact_context *c = take_ctx(r);
    gpuact_stream s = take_stream(r);
    gpuact_result res;
    images_begin();
    want_begin();
    if (!upload())
        return;
    n_calls++;
    res = gpuact_synchronize(c, s);
    judge(res, s);
}

/* Context creation with a description that must be refused before anything
   is created (valid ones are slow on PoCL and are not fuzzed). */
static void op_create(reader *r)
{
    static char long_dir[1000];
    gpuact_context_desc d;
    gpuact_context *out = (gpuact_context *)&d, **outp = &out;
    gpuact_result res;
    memset(&d, 0, sizeof d);
    d.backend = GPUACT_BACKEND_OPENCL;
    switch (take(r, 4)) {
    case 0: outp = NULL; note(" out=NULL"); break;
    case 1: d.backend = (gpuact_backend)(take(r, 2) ? 4 + (int)take(r, 60) : -1 - (int)take(r, 60));
            note(" backend=%d", (int)d.backend); break;
    case 2: d.device = -1 - (int)take(r, 1000); note(" device=%d", d.device); break;
    default:
        memset(long_dir, 'd', sizeof long_dir - 1);
        long_dir[0] = '/';
        long_dir[801 + take(r, 190)] = '\0';
        d.cache_dir = long_dir;
        note(" cache_dir of %zu bytes", strlen(long_dir));
        break;
    }
    invalid("a bad context description");
    images_begin();
    want_begin();
    if (!upload())
        return;
    n_calls++;
    res = gpuact_context_create(&d, outp);
    if (outp && out != NULL)
        fault("context_create refused but left *out = %p", (void *)out);
    if (res == GPUACT_SUCCESS && outp && out)
        gpuact_context_destroy(out);
    judge(res, NULL);
}

/* Names, sizes and the variant table with odd arguments: strings are never
   NULL, names fit the buffer given. */
static void op_misc(reader *r)
{
    char name[200];
    int i = (int)take_bytes(r, 2) - 100, k;
    size_t size = take(r, 4) == 0 ? 0 : take(r, sizeof name);
    const char *s;
    n_calls++;
    s = gpuact_result_string((gpuact_result)(i % 12));
    if (!s || !*s)
        fault("gpuact_result_string(%d) is NULL or empty", i % 12);
    s = gpuact_backend_name((gpuact_backend)(i % 8));
    if (!s || !*s)
        fault("gpuact_backend_name(%d) is NULL or empty", i % 8);
    if (gpuact_dtype_size((gpuact_dtype)(i % 5)) != (i % 5 == 0 ? 4u : i % 5 == 1 || i % 5 == 2 ? 2u : 0u))
        fault("gpuact_dtype_size(%d) = %zu", i % 5, gpuact_dtype_size((gpuact_dtype)(i % 5)));
    memset(name, 0x7f, sizeof name);
    k = gpuact_testing_variant(take(r, 8) ? ctx : NULL, i * 17, size ? name : NULL, size);
    if (k < -1 || k > 2)
        fault("gpuact_testing_variant(%d) = %d", i * 17, k);
    if (size && k >= 0 && !memchr(name, '\0', size))
        fault("gpuact_testing_variant(%d): name not terminated within %zu bytes", i * 17, size);
    if (size < sizeof name && name[size] != 0x7f)
        fault("gpuact_testing_variant(%d): wrote past the %zu bytes given", i * 17, size);
    if (gpuact_context_backend(NULL) != GPUACT_BACKEND_AUTO || !gpuact_context_device_name(NULL))
        fault("queries of a NULL context");
    n_checked++;
}

/* >>one input */

static void save_input(const uint8_t *data, size_t size)
{
    char path[600];
    uint64_t h = UINT64_C(1469598103934665603);
    size_t i;
    FILE *f;
    for (i = 0; i < size; i++)
        h = (h ^ data[i]) * UINT64_C(1099511628211);
    snprintf(path, sizeof path, "%sfault-%016llx.bin", artifact_dir, (unsigned long long)h);
    if ((f = fopen(path, "wb")) != NULL) {
        fwrite(data, 1, size, f);
        fclose(f);
        printf("  input saved: %s (replay: fuzz_api %s)\n", path, path);
    } else {
        printf("  (could not write %s)\n", path);
    }
    fflush(stdout);
}

static void summary(void);

static void run_one(const uint8_t *data, size_t size)
{
    reader rd;
    int op;
    rd.p = data;
    rd.n = size;
    rd.i = 0;
    text_used = 0;
    text[0] = '\0';
    cur_nops = 0;
    faulted = 0;
    verdict_begin();
    op = (int)take(&rd, 32);
    gpuact_synchronize(NULL, NULL);
    snprintf(stale_error, sizeof stale_error, "%s", harness_first_line(gpuact_last_error()));
    op = op < 3 ? OP_RELU_FWD + op % 2 : op < 8 ? OP_FWD : op < 13 ? OP_BWD : op < 18 ? OP_EPI_FWD
       : op < 23 ? OP_EPI_BWD : op < 25 ? OP_GLU_FWD : op < 28 ? OP_GLU_BWD : op == 28 ? OP_WRITE : op == 29 ? OP_READ
       : op == 30 ? (take(&rd, 2) ? OP_SYNC : OP_CREATE) : OP_MISC;
    data_rng.s = take_bytes(&rd, 4);
    data_rng.s = data_rng.s << 32 | take_bytes(&rd, 4);
    note("%s", OP_NAMES[op]);
    shape = (uint64_t)op;
    sync_call = op == OP_SYNC;
    n_op[op]++;
    switch (op) {
    case OP_RELU_FWD: case OP_RELU_BWD: case OP_FWD: case OP_BWD: op_elementwise(&rd, op); break;
    case OP_EPI_FWD: op_epilogue_forward(&rd); break;
    case OP_EPI_BWD: op_epilogue_backward(&rd); break;
    case OP_GLU_FWD: op_glu_forward(&rd); break;
    case OP_GLU_BWD: op_glu_backward(&rd); break;
    case OP_WRITE: op_transfer(&rd, 1); break;
    case OP_READ: op_transfer(&rd, 0); break;
    case OP_SYNC: op_sync(&rd); break;
    case OP_CREATE: op_create(&rd); break;
    default: op_misc(&rd); break;
    }
    if (faulted) {
        n_faults++;
        save_input(data, size);
        if (abort_on_fault)
            abort();
        if ((long)n_faults >= max_faults) {
            printf("stopping: %lu faults (FUZZ_MAX_FAULTS)\n", n_faults);
            summary();
            exit(1);
        }
    }
}

/* >>set-up and summary */

static int summarized;
static void summary(void)
{
    char name[96];
    int i, state, reachable = 0, launched = 0;
    if (summarized++ || !ctx)
        return;
    for (i = 0; (state = gpuact_testing_variant(ctx, i, name, sizeof name)) >= 0; i++) {
        reachable += state > 0;
        launched += state == 2;
    }
    printf("fuzz_api: per operation:");
    for (i = 0; i < OP_COUNT; i++)
        printf(" %s %lu%s", OP_NAMES[i], n_op[i], i + 1 < OP_COUNT ? "," : "\n");
    printf("fuzz_api: kernel variants launched: %d of %d reachable; dbias repeats compared: %lu\n", launched,
           reachable, n_repeats);
    printf("fuzz_api: %.0f s, %lu calls: %lu refused as required, %lu successes checked against the reference, "
           "%lu either-way cases (%lu refused, %lu succeeded and checked), %lu faults\n",
           now() - t_start, n_calls, n_refused, n_checked, n_either_refused + n_either_checked, n_either_refused,
           n_either_checked, n_faults);
    fflush(stdout);
}

static void at_exit(void)
{
    summary();
    if (n_faults)
        _exit(1);
}

static int setup(void)
{
    gpuact_context_desc desc;
    const char *env;
    int a;
    if (ctx)
        return 1;
    verbose = (env = getenv("FUZZ_VERBOSE")) && atoi(env);
    abort_on_fault = (env = getenv("FUZZ_ABORT")) && atoi(env);
    if ((env = getenv("FUZZ_MAX_FAULTS")) && atoi(env) > 0)
        max_faults = atoi(env);
    if ((env = getenv("FUZZ_ARTIFACT_DIR")))
        artifact_dir = env;
    memset(&desc, 0, sizeof desc);
    desc.backend = getenv("GPUACT_BACKEND") && *getenv("GPUACT_BACKEND") ? GPUACT_BACKEND_AUTO : GPUACT_BACKEND_OPENCL;
    if (gpuact_context_create(&desc, &ctx) != GPUACT_SUCCESS) {
        printf("fuzz_api: no context: %s\n", harness_first_line(gpuact_last_error()));
        return 0;
    }
    printf("fuzz_api: backend %s: %s\n", gpuact_backend_name(gpuact_context_backend(ctx)),
           gpuact_context_device_name(ctx));
    for (a = 0; a < N_ALLOC; a++) {
        gpuact_result r;
        alloc_size[a] = a == SMALL ? SMALL_BYTES : REG_BYTES;
        if (a == FOREIGN)
            continue;
        if ((r = gpuact_buffer_alloc(ctx, alloc_size[a], &alloc_buf[a])) != GPUACT_SUCCESS) {
            printf("fuzz_api: gpuact_buffer_alloc: %s\n", harness_first_line(gpuact_last_error()));
            return 0;
        }
    }
#ifndef GPUACT_NO_OPENCL
    /* OpenCL: a cl_mem of another context (refused), a second queue. */
    if (gpuact_context_backend(ctx) == GPUACT_BACKEND_OPENCL) {
        gpuact__opencl *o = GPUACT__CL(ctx);
        gpuact__cl_int e = 0;
        memset(&desc, 0, sizeof desc);
        desc.backend = GPUACT_BACKEND_OPENCL;
        if (gpuact_context_create(&desc, &other) == GPUACT_SUCCESS &&
            gpuact_buffer_alloc(other, REG_BYTES, &alloc_buf[FOREIGN]) == GPUACT_SUCCESS)
            foreign_ok = 1;
        queue2 = o->cl.clCreateCommandQueue(o->context, o->device, 0, &e);
        queue_ooo = o->cl.clCreateCommandQueue(o->context, o->device, 1 /* OUT_OF_ORDER_EXEC_MODE */, &e);
    }
#endif
    if (!foreign_ok)
        alloc_size[FOREIGN] = 0;
    t_start = now();
    atexit(at_exit);
    return 1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A random input of the seeded driver: up to 255 bytes. */
static size_t random_input(gpuact_ref_rng *rng, uint8_t *buf)
{
    size_t n = (size_t)(gpuact_ref_next(rng) % 256), k;
    for (k = 0; k < n; k++)
        buf[k] = (uint8_t)gpuact_ref_next(rng);
    return n;
}

#ifndef FUZZ_STANDALONE

#include <dirent.h>

/* An empty corpus directory gets 256 inputs of the seeded driver (seed 1):
   libFuzzer then starts from every operation instead of from an empty input. */
static void seed_corpus(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0, i;
    gpuact_ref_rng rng;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL)
        files += e->d_name[0] != '.';
    closedir(d);
    if (files)
        return;
    rng.s = 1;
    for (i = 0; i < 256; i++) {
        uint8_t buf[256];
        char path[1200];
        size_t n = random_input(&rng, buf);
        FILE *f;
        snprintf(path, sizeof path, "%s/seed-%03d", dir, i);
        if ((f = fopen(path, "wb")) != NULL) {
            fwrite(buf, 1, n, f);
            fclose(f);
        }
    }
    printf("fuzz_api: %s was empty: 256 seed inputs written\n", dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int i;
    for (i = 1; i < *argc; i++)
        if ((*argv)[i][0] != '-' && is_dir((*argv)[i]))
            seed_corpus((*argv)[i]);
    if (!setup())
        exit(2);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_one(data, size);
    return 0;
}

#else /* the seeded random driver */

static int replay(const char *path)
{
    static uint8_t buf[1 << 16];
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("fuzz_api: cannot open %s\n", path);
        return 0;
    }
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    verbose = 1;
    printf("fuzz_api: replaying %s (%zu bytes)\n", path, n);
    run_one(buf, n);
    return 1;
}

int main(int argc, char **argv)
{
    double seconds = 60;
    unsigned long long seed = 0;
    int i, files = 0, have_seed = 0;
    const char *env = getenv("FUZZ_SECONDS");
    if (env)
        seconds = atof(env);
    for (i = 1; i < argc; i++) {
        if (strncmp(argv[i], "-seconds=", 9) == 0 || strncmp(argv[i], "-max_total_time=", 16) == 0)
            seconds = atof(strchr(argv[i], '=') + 1);
        else if (strncmp(argv[i], "-seed=", 6) == 0)
            seed = strtoull(argv[i] + 6, NULL, 0), have_seed = 1;
        else if (argv[i][0] == '-' || is_dir(argv[i]))
            argv[i] = NULL; /* libFuzzer's flags and corpus, given by the same Makefile line */
        else
            files++;
    }
    if (!setup())
        return 2;
    if (files) {
        for (i = 1; i < argc; i++)
            if (argv[i] && !replay(argv[i]))
                return 2;
        return n_faults ? 1 : 0;
    }
    if (!have_seed)
        seed = (unsigned long long)time(NULL);
    printf("fuzz_api: seeded random driver, seed %llu (reproduce the run: -seed=%llu), %g s\n", seed, seed, seconds);
    fflush(stdout);
    {
        gpuact_ref_rng rng;
        uint8_t buf[256];
        unsigned long it;
        double next_report = now() + 60;
        rng.s = seed;
        for (it = 0; now() - t_start < seconds; it++) {
            run_one(buf, random_input(&rng, buf));
            if (now() > next_report) {
                printf("fuzz_api: %.0f s: %lu calls, %lu refused, %lu checked, %lu faults\n", now() - t_start, n_calls,
                       n_refused, n_checked, n_faults);
                fflush(stdout);
                next_report += 60;
            }
        }
    }
    return n_faults ? 1 : 0;
}
#endif
