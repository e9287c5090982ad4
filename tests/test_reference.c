/*
test_reference.c -- unit tests of the CPU reference (tests/gpuact_ref.h).

The conformance suite trusts the reference, so the reference is checked here
against bit patterns worked out by hand from docs/NUMERICS.md's tables, never
against values computed by the code under test. Each failing check prints
its name with the expected and the actual bits; the last line is
"N passed, N failed" and the exit status is 0 only if nothing failed.
*/
#include "gpuact_ref.h"

#include <stdio.h>

static int g_passed, g_failed;

static void check_bits(const char *what, size_t i, uint32_t want, uint32_t got)
{
    if (want == got) {
        g_passed++;
        return;
    }
    g_failed++;
    printf("FAIL %s [%lu]: expected 0x%08lx got 0x%08lx\n", what, (unsigned long)i,
           (unsigned long)want, (unsigned long)got);
}

static void check_f64(const char *what, size_t i, double want, double got)
{
    if (want == got) {
        g_passed++;
        return;
    }
    g_failed++;
    printf("FAIL %s [%lu]: expected %.17g got %.17g\n", what, (unsigned long)i, want, got);
}

static void check_range(const char *what, long lo, long hi, long got)
{
    if (got >= lo && got <= hi) {
        g_passed++;
        return;
    }
    g_failed++;
    printf("FAIL %s: expected %ld..%ld got %ld\n", what, lo, hi, got);
}

/* Every element of an array of raw values, with the NaN-is-any rule. */
static void check_array(const char *what, gpuact_dtype dt, const void *got, const uint32_t *want,
                        const unsigned char *nan_any, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t g = gpuact_ref_raw(dt, got, i);
        /* Where nan_any is set the expectation is written as some NaN and
           any NaN matches it. */
        if (gpuact_ref_same(dt, g, want[i], nan_any && nan_any[i])) {
            g_passed++;
        } else {
            g_failed++;
            printf("FAIL %s [%lu]: expected 0x%08lx got 0x%08lx\n", what, (unsigned long)i,
                   (unsigned long)want[i], (unsigned long)g);
        }
    }
}

static void check_bytes(const char *what, const unsigned char *got, const unsigned char *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        check_bits(what, i, want[i], got[i]);
}

static float F(uint32_t bits) { return gpuact_ref_bits_f32(bits); }

static gpuact_activation make_act(gpuact_activation_kind kind, float slope, float ceiling)
{
    gpuact_activation a;
    a.kind = kind;
    a.negative_slope = slope;
    a.ceiling = ceiling;
    return a;
}

/* >>conversions */

static void test_f16_conversions(void)
{
    static const struct { uint32_t f32; uint16_t f16; } to16[] = {
        {0x3f800000, 0x3c00},   /* 1.0 */
        {0xc0000000, 0xc000},   /* -2.0 */
        {0x477fe000, 0x7bff},   /* 65504, the largest finite */
        {0x477fefff, 0x7bff},   /* just under 65520: rounds down */
        {0x477ff000, 0x7c00},   /* 65520: the tie, to even is 65536, overflow */
        {0x7f7fffff, 0x7c00},   /* FLT_MAX */
        {0xff800000, 0xfc00},   /* -Inf */
        {0x80000000, 0x8000},   /* -0 */
        {0x33800000, 0x0001},   /* 2^-24, the smallest subnormal */
        {0x33000000, 0x0000},   /* 2^-25: tie with 0, to even */
        {0x33000001, 0x0001},   /* just above it */
        {0xb3000000, 0x8000},   /* -2^-25: -0 */
        {0x33c00000, 0x0002},   /* 1.5 * 2^-24: tie, to even 2 */
        {0x387fc000, 0x03ff},   /* the largest subnormal */
        {0x387fe000, 0x0400},   /* 1023.5 * 2^-24: tie rounds up into the smallest normal */
        {0x38800000, 0x0400},   /* 2^-14 */
        {0x3f801000, 0x3c00},   /* 1 + 2^-11: tie, to even (down) */
        {0x3f803000, 0x3c02},   /* 1 + 3 * 2^-11: tie, to even (up) */
        {0x3f801001, 0x3c01},   /* just above a tie */
        {0x00000001, 0x0000},   /* f32 subnormal */
        {0x80000001, 0x8000},
        {0x7fc00000, 0x7e00},   /* quiet NaN */
        {0xffc12345, 0xfe09},   /* sign and the top 10 payload bits */
        {0x7f800001, 0x7e00},   /* signalling, low payload: quiet NaN, not Inf */
        {0x7fa00000, 0x7f00},   /* signalling, top payload bit kept, quiet bit set */
    };
    static const struct { uint16_t f16; uint32_t f32; } to32[] = {
        {0x3c00, 0x3f800000}, {0x7bff, 0x477fe000}, {0x0001, 0x33800000},
        {0x8001, 0xb3800000}, {0x03ff, 0x387fc000}, {0x0200, 0x38000000},
        {0x0400, 0x38800000}, {0x8000, 0x80000000}, {0x7c00, 0x7f800000},
        {0xfc00, 0xff800000}, {0x7e00, 0x7fc00000}, {0xfd01, 0xffe02000},
        {0x7c01, 0x7fc02000},
    };
    size_t i;
    uint16_t buf[5] = {0x1111, 0x2222, 0x3333, 0x4444, 0x5555};

    for (i = 0; i < sizeof to16 / sizeof to16[0]; i++)
        check_bits("f32_to_f16", i, to16[i].f16, gpuact_ref_f32_to_f16(F(to16[i].f32)));
    for (i = 0; i < sizeof to32 / sizeof to32[0]; i++)
        check_bits("f16_to_f32", i, to32[i].f32, gpuact_ref_f32_bits(gpuact_ref_f16_to_f32(to32[i].f16)));

    /* store/load go through the same conversions at the right element. */
    gpuact_ref_store(GPUACT_F16, buf, 3, 65520.0f);
    check_bits("store f16 65520 at [3]", 3, 0x7c00, buf[3]);
    check_bits("store f16 leaves [2]", 2, 0x3333, buf[2]);
    check_bits("store f16 leaves [4]", 4, 0x5555, buf[4]);
    check_bits("load f16 [1]", 1, 0x3c444000, gpuact_ref_f32_bits(gpuact_ref_load(GPUACT_F16, buf, 1)));
    check_bits("raw f16 [0]", 0, 0x1111, gpuact_ref_raw(GPUACT_F16, buf, 0));
}

static void test_bf16_conversions(void)
{
    static const struct { uint32_t f32; uint16_t bf16; } to16[] = {
        {0x3f800000, 0x3f80},   /* 1.0 */
        {0x3f808000, 0x3f80},   /* tie, to even (down) */
        {0x3f818000, 0x3f82},   /* tie, to even (up) */
        {0x3f808001, 0x3f81},   /* just above a tie */
        {0x3f807fff, 0x3f80},   /* just below a tie */
        {0x7f7f7fff, 0x7f7f},   /* stays finite */
        {0x7f7fffff, 0x7f80},   /* FLT_MAX rounds to Inf */
        {0x80000000, 0x8000},   /* -0 */
        {0x00008000, 0x0000},   /* subnormal tie with 0 */
        {0x00018000, 0x0002},   /* subnormal tie, up to even */
        {0xff800000, 0xff80},   /* -Inf */
        {0x7f800001, 0x7fc0},   /* NaN with low payload only: stays NaN */
        {0xff800001, 0xffc0},
        {0x7fc00000, 0x7fc0},
        {0x7f81ffff, 0x7fc1},   /* rounding would carry into the payload */
        {0xffffffff, 0xffff},   /* rounding would carry out of the sign */
    };
    size_t i;
    for (i = 0; i < sizeof to16 / sizeof to16[0]; i++)
        check_bits("f32_to_bf16", i, to16[i].bf16, gpuact_ref_f32_to_bf16(F(to16[i].f32)));
    check_bits("bf16_to_f32 1.0", 0, 0x3f800000, gpuact_ref_f32_bits(gpuact_ref_bf16_to_f32(0x3f80)));
    check_bits("bf16_to_f32 sNaN kept", 0, 0xff810000, gpuact_ref_f32_bits(gpuact_ref_bf16_to_f32(0xff81)));
    check_bits("bf16_to_f32 -0", 0, 0x80000000, gpuact_ref_f32_bits(gpuact_ref_bf16_to_f32(0x8000)));
}

static void test_raw_helpers(void)
{
    check_bits("raw_isnan f16 0x7c01", 0, 1, (uint32_t)gpuact_ref_raw_isnan(GPUACT_F16, 0x7c01));
    check_bits("raw_isnan f16 0x7c00", 0, 0, (uint32_t)gpuact_ref_raw_isnan(GPUACT_F16, 0x7c00));
    check_bits("raw_isnan f16 0xfc00", 0, 0, (uint32_t)gpuact_ref_raw_isnan(GPUACT_F16, 0xfc00));
    check_bits("raw_isnan bf16 0x7f81", 0, 1, (uint32_t)gpuact_ref_raw_isnan(GPUACT_BF16, 0x7f81));
    check_bits("raw_isnan bf16 0x7f80", 0, 0, (uint32_t)gpuact_ref_raw_isnan(GPUACT_BF16, 0x7f80));
    check_bits("raw_isnan f32 0xff800001", 0, 1, (uint32_t)gpuact_ref_raw_isnan(GPUACT_F32, 0xff800001));
    check_bits("raw_isnan f32 0x7f800000", 0, 0, (uint32_t)gpuact_ref_raw_isnan(GPUACT_F32, 0x7f800000));

    check_bits("same f16 NaN/NaN any", 0, 1, (uint32_t)gpuact_ref_same(GPUACT_F16, 0x7e00, 0xfe01, 1));
    check_bits("same f16 NaN/NaN exact", 0, 0, (uint32_t)gpuact_ref_same(GPUACT_F16, 0x7e00, 0x7e01, 0));
    check_bits("same f16 NaN/Inf any", 0, 0, (uint32_t)gpuact_ref_same(GPUACT_F16, 0x7e00, 0x7c00, 1));
    check_bits("same f32 +0/-0 any", 0, 0, (uint32_t)gpuact_ref_same(GPUACT_F32, 0x00000000, 0x80000000, 1));
    check_bits("same bf16 equal", 0, 1, (uint32_t)gpuact_ref_same(GPUACT_BF16, 0x7fc0, 0x7fc0, 0));
    check_bits("same f32 differ", 0, 0, (uint32_t)gpuact_ref_same(GPUACT_F32, 0x3f800000, 0x3f800001, 0));
    /* 16-bit dtypes compare only their 16 bits. */
    check_bits("same f16 ignores bits 16..31", 0, 1, (uint32_t)gpuact_ref_same(GPUACT_F16, 0x13c00, 0x3c00, 0));
}

/* >>activations */

static void test_activations(void)
{
    gpuact_activation relu = make_act(GPUACT_RELU, 0.0f, 0.0f);
    gpuact_activation leaky = make_act(GPUACT_LEAKY_RELU, 0.25f, 0.0f);
    gpuact_activation leaky0 = make_act(GPUACT_LEAKY_RELU, 0.0f, 0.0f);
    gpuact_activation clip = make_act(GPUACT_CLIPPED_RELU, 0.0f, 6.0f);
    const struct { const char *name; const gpuact_activation *a; uint32_t in, out; } cases[] = {
        {"relu NaN", &relu, 0xffc12345, 0xffc12345},
        {"relu +Inf", &relu, 0x7f800000, 0x7f800000},
        {"relu -Inf", &relu, 0xff800000, 0x00000000},
        {"relu -0", &relu, 0x80000000, 0x00000000},
        {"relu +subnormal", &relu, 0x00000001, 0x00000001},
        {"relu -3.5", &relu, 0xc0600000, 0x00000000},
        {"relu 2.5", &relu, 0x40200000, 0x40200000},
        {"leaky +Inf", &leaky, 0x7f800000, 0x7f800000},
        {"leaky -Inf", &leaky, 0xff800000, 0xff800000},
        {"leaky -0", &leaky, 0x80000000, 0x80000000},
        {"leaky +subnormal", &leaky, 0x00000001, 0x00000001},
        {"leaky -3.5", &leaky, 0xc0600000, 0xbf600000},
        {"leaky -4 * 2^-149 (no FTZ)", &leaky, 0x80000004, 0x80000001},
        {"leaky -2^-149 (underflow to -0)", &leaky, 0x80000001, 0x80000000},
        {"leaky slope 0, -3.5", &leaky0, 0xc0600000, 0x80000000},
        {"clipped NaN", &clip, 0xffc12345, 0xffc12345},
        {"clipped +Inf", &clip, 0x7f800000, 0x40c00000},
        {"clipped -Inf", &clip, 0xff800000, 0x00000000},
        {"clipped -0", &clip, 0x80000000, 0x00000000},
        {"clipped +subnormal", &clip, 0x00000001, 0x00000001},
        {"clipped -3.5", &clip, 0xc0600000, 0x00000000},
        {"clipped 7", &clip, 0x40e00000, 0x40c00000},
        {"clipped 5.5", &clip, 0x40b00000, 0x40b00000},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bits(cases[i].name, i, cases[i].out, gpuact_ref_f32_bits(gpuact_ref_act(*cases[i].a, F(cases[i].in), GPUACT_F32)));
    /* leaky's NaN may have any payload: only NaN-ness is specified. */
    check_bits("leaky NaN is NaN", 0, 1,
               (uint32_t)gpuact_ref_raw_isnan(GPUACT_F32, gpuact_ref_f32_bits(gpuact_ref_act(leaky, F(0xffc12345), GPUACT_F32))));
}

static void test_passes(void)
{
    gpuact_activation relu = make_act(GPUACT_RELU, 0.0f, 0.0f);
    gpuact_activation leaky = make_act(GPUACT_LEAKY_RELU, 0.25f, 0.0f);
    gpuact_activation clip = make_act(GPUACT_CLIPPED_RELU, 0.0f, 6.0f);
    const struct { const char *name; const gpuact_activation *a; uint32_t in; int passes; } cases[] = {
        {"relu +0", &relu, 0x00000000, 0},
        {"relu -0", &relu, 0x80000000, 0},
        {"relu NaN", &relu, 0x7fc00000, 1},
        {"relu -NaN", &relu, 0xffc00000, 1},
        {"relu +subnormal", &relu, 0x00000001, 1},
        {"relu -subnormal", &relu, 0x80000001, 0},
        {"relu +Inf", &relu, 0x7f800000, 1},
        {"relu -Inf", &relu, 0xff800000, 0},
        {"leaky +0", &leaky, 0x00000000, 0},
        {"leaky -0", &leaky, 0x80000000, 0},
        {"leaky NaN", &leaky, 0x7fc00000, 0},
        {"leaky +subnormal", &leaky, 0x00000001, 1},
        {"leaky +Inf", &leaky, 0x7f800000, 1},
        {"clipped +0", &clip, 0x00000000, 0},
        {"clipped NaN", &clip, 0x7fc00000, 1},
        {"clipped +subnormal", &clip, 0x00000001, 1},
        {"clipped 6 (= ceiling)", &clip, 0x40c00000, 0},
        {"clipped just under 6", &clip, 0x40bfffff, 1},
        {"clipped just over 6", &clip, 0x40c00001, 0},
        {"clipped +Inf", &clip, 0x7f800000, 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bits(cases[i].name, i, (uint32_t)cases[i].passes, (uint32_t)gpuact_ref_passes(*cases[i].a, F(cases[i].in)));
}

static void test_elementwise_act(void)
{
    gpuact_activation clip = make_act(GPUACT_CLIPPED_RELU, 0.0f, 6.1f);
    gpuact_activation leaky = make_act(GPUACT_LEAKY_RELU, 0.1f, 0.0f);
    check_bits("ceiling 6.1 f32", 0, 0x40c33333, gpuact_ref_f32_bits(gpuact_ref_elementwise_act(clip, GPUACT_F32).ceiling));
    check_bits("ceiling 6.1 f16 (up)", 0, 0x40c34000, gpuact_ref_f32_bits(gpuact_ref_elementwise_act(clip, GPUACT_F16).ceiling));
    check_bits("ceiling 6.1 bf16 (down)", 0, 0x40c30000, gpuact_ref_f32_bits(gpuact_ref_elementwise_act(clip, GPUACT_BF16).ceiling));
    check_bits("leaky slope not rounded", 0, 0x3dcccccd,
               gpuact_ref_f32_bits(gpuact_ref_elementwise_act(leaky, GPUACT_F16).negative_slope));
}

/* >>forward */

static void test_forward_passthrough(void)
{
    static const uint32_t x32[4] = {0x7f800001, 0xffc12345, 0x3f800000, 0x80000000};
    static const uint32_t relu_y[4] = {0x7f800001, 0xffc12345, 0x3f800000, 0x00000000};
    static const unsigned char none[4] = {0, 0, 0, 0};
    static const uint32_t leaky_y[4] = {0x7fc00000, 0x7fc00000, 0x3f800000, 0x80000000};
    static const unsigned char leaky_any[4] = {1, 1, 0, 0};
    static const uint16_t x16[4] = {0x7c01, 0xfe01, 0x7c00, 0x4700};
    static const uint32_t clip_y[4] = {0x7c01, 0xfe01, 0x4600, 0x4600};
    uint32_t y32[4];
    uint16_t y16[4];
    float yf[1];
    unsigned char nan_any[4];
    static const uint16_t zero_bias = 0;
    gpuact_ref_fwd p;

    /* relu selects a NaN input: every bit kept, the signalling one too. */
    gpuact_ref_elementwise_forward(make_act(GPUACT_RELU, 0, 0), GPUACT_F32, 4, x32, y32, NULL, nan_any);
    check_array("relu f32 NaN pass-through", GPUACT_F32, y32, relu_y, NULL, 4);
    check_bytes("relu f32 nan_any", nan_any, none, 4);

    /* leaky multiplies: its NaN is any NaN. */
    gpuact_ref_elementwise_forward(make_act(GPUACT_LEAKY_RELU, 0.25f, 0), GPUACT_F32, 4, x32, y32, NULL, nan_any);
    check_array("leaky f32 NaN", GPUACT_F32, y32, leaky_y, leaky_any, 4);
    check_bytes("leaky f32 nan_any", nan_any, leaky_any, 4);

    gpuact_ref_elementwise_forward(make_act(GPUACT_CLIPPED_RELU, 0, 6.0f), GPUACT_F16, 4, x16, y16, NULL, nan_any);
    check_array("clipped f16 NaN pass-through", GPUACT_F16, y16, clip_y, NULL, 4);
    check_bytes("clipped f16 nan_any", nan_any, none, 4);

    /* With a bias, a scale or a dtype change the NaN comes out of
       arithmetic or conversion: any NaN. */
    memset(&p, 0, sizeof p);
    p.act = make_act(GPUACT_RELU, 0, 0);
    p.rows = p.cols = p.ld_x = p.ld_y = 1;
    p.mask_ld = 8;
    p.x_dtype = p.y_dtype = p.bias_dtype = GPUACT_F16;
    p.scale = 1.0f;
    p.x = x16;
    p.y = y16;
    p.nan_any = nan_any;
    p.bias = &zero_bias;
    gpuact_ref_forward(&p);
    check_bits("relu f16 + bias NaN: nan_any", 0, 1, nan_any[0]);
    check_bits("relu f16 + bias NaN: is NaN", 0, 1, (uint32_t)gpuact_ref_raw_isnan(GPUACT_F16, y16[0]));
    p.bias = NULL;
    p.scale = 2.0f;
    gpuact_ref_forward(&p);
    check_bits("relu f16 * 2 NaN: nan_any", 0, 1, nan_any[0]);
    p.scale = 1.0f;
    p.y_dtype = GPUACT_F32;
    p.y = yf;
    gpuact_ref_forward(&p);
    check_bits("relu f16 -> f32 NaN: nan_any", 0, 1, nan_any[0]);
    check_bits("relu f16 -> f32 NaN: is NaN", 0, 1, (uint32_t)gpuact_ref_raw_isnan(GPUACT_F32, gpuact_ref_f32_bits(yf[0])));
}

static void test_mask_format(void)
{
    /* relu passes: 1 0 1 0 1 0 1 0 | 1 1 0 1 0 (NaN passes, -0 does not).
       LSB first: byte 0 = bits 0,2,4,6 = 0x55; byte 1 = bits 0,1,3 = 0x0b
       with its padding bits 5..7 cleared; byte 2 is past the mask. */
    static const uint16_t x[13] = {0x3c00, 0xbc00, 0x4000, 0x0000, 0x7e00, 0x8000, 0x4200,
                                   0xc000, 0x4400, 0x4500, 0xc500, 0x3800, 0xb800};
    static const uint32_t want_y[13] = {0x3c00, 0, 0x4000, 0, 0x7e00, 0, 0x4200,
                                        0, 0x4400, 0x4500, 0, 0x3800, 0};
    static const unsigned char want_mask[3] = {0x55, 0x0b, 0xff};
    uint16_t y[13];
    unsigned char mask[3] = {0xff, 0xff, 0xff};

    gpuact_ref_elementwise_forward(make_act(GPUACT_RELU, 0, 0), GPUACT_F16, 13, x, y, mask, NULL);
    check_array("mask test relu f16 y", GPUACT_F16, y, want_y, NULL, 13);
    check_bytes("mask n=13 bytes (third untouched)", mask, want_mask, 3);
}

/* Epilogue 3x5, x f16 (ld 7), bias bf16, y f32 (ld 7), relu, scale 0.5,
   mask_ld 16 bits. The rows' second mask bytes lie between the rows and must
   stay untouched, as must the row padding of y and nan_any. */
static const uint16_t epi_x[21] = {
    0x3c00, 0xbc00, 0x4000, 0x3800, 0x7e01, 0x5555, 0x5555,   /* 1 -1 2 0.5 NaN */
    0xc200, 0x4200, 0x8000, 0x7bff, 0x3e00, 0x5555, 0x5555,   /* -3 3 -0 65504 1.5 */
    0x7c00, 0xfc00, 0x0001, 0xc000, 0x3400, 0x5555, 0x5555,   /* +Inf -Inf 2^-24 -2 0.25 */
};
static const uint16_t epi_bias[5] = {0x3f00, 0x3f80, 0xc000, 0x0000, 0xbf80};  /* 0.5 1 -2 0 -1 */

static void epi_forward(float *y, unsigned char *mask, unsigned char *nan_any)
{
    gpuact_ref_fwd p;
    memset(&p, 0, sizeof p);
    p.act = make_act(GPUACT_RELU, 0, 0);
    p.rows = 3;
    p.cols = 5;
    p.ld_x = p.ld_y = 7;
    p.mask_ld = 16;
    p.x_dtype = GPUACT_F16;
    p.bias_dtype = GPUACT_BF16;
    p.y_dtype = GPUACT_F32;
    p.scale = 0.5f;
    p.x = epi_x;
    p.bias = epi_bias;
    p.y = y;
    p.mask = mask;
    p.nan_any = nan_any;
    gpuact_ref_forward(&p);
}

static void test_epilogue(void)
{
    /* z = x + bias:  1.5 0 0 0.5 NaN | -2.5 4 -2 65504 0.5 | Inf -Inf -2 -2 -0.75
       then relu and * 0.5. 0xdeadbeef marks the untouched padding. */
    static const uint32_t want_y[21] = {
        0x3f400000, 0x00000000, 0x00000000, 0x3e800000, 0x7fc00000, 0xdeadbeef, 0xdeadbeef,
        0x00000000, 0x40000000, 0x00000000, 0x46ffe000, 0x3e800000, 0xdeadbeef, 0xdeadbeef,
        0x7f800000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0xdeadbeef, 0xdeadbeef,
    };
    static const unsigned char want_any[21] = {
        0, 0, 0, 0, 1, 0x77, 0x77,  0, 0, 0, 0, 0, 0x77, 0x77,  0, 0, 0, 0, 0, 0x77, 0x77,
    };
    /* passes on z: 1 0 0 1 1 -> 0x19; 0 1 0 1 1 -> 0x1a; 1 0 0 0 0 -> 0x01 */
    static const unsigned char want_mask[6] = {0x19, 0xff, 0x1a, 0xff, 0x01, 0xff};
    /* Backward with dy = 1..15 and scale 0.5: dy * 0.5 where the mask passes. */
    static const uint32_t want_dx[15] = {
        0x3f000000, 0, 0, 0x40000000, 0x40200000,
        0, 0x40600000, 0, 0x40900000, 0x40a00000,
        0x40b00000, 0, 0, 0, 0,
    };
    float y[21], dy[15], dx_mask[15], dx_y[15];
    unsigned char mask[6], nan_any[21];
    gpuact_ref_bwd b;
    size_t i;

    for (i = 0; i < 21; i++)
        y[i] = F(0xdeadbeef);
    memset(mask, 0xff, sizeof mask);
    memset(nan_any, 0x77, sizeof nan_any);
    epi_forward(y, mask, nan_any);
    check_array("epilogue 3x5 y", GPUACT_F32, y, want_y, want_any, 21);
    check_bytes("epilogue 3x5 nan_any", nan_any, want_any, 21);
    check_bytes("epilogue 3x5 mask", mask, want_mask, 6);

    /* From the mask, and from y (relu): the same region here, as no z * 0.5
       underflows, NaN included (relu passes NaN). */
    for (i = 0; i < 15; i++)
        dy[i] = (float)(i + 1);
    memset(&b, 0, sizeof b);
    b.act = make_act(GPUACT_RELU, 0, 0);
    b.rows = 3;
    b.cols = 5;
    b.ld_dy = b.ld_dx = 5;
    b.ld_src = 7;
    b.mask_ld = 16;
    b.dy_dtype = b.dx_dtype = b.src_dtype = GPUACT_F32;
    b.scale = 0.5f;
    b.dy = dy;
    b.mask = mask;
    b.dx = dx_mask;
    gpuact_ref_backward(&b);
    check_array("epilogue backward from mask", GPUACT_F32, dx_mask, want_dx, NULL, 15);
    b.mask = NULL;
    b.src = y;
    b.dx = dx_y;
    gpuact_ref_backward(&b);
    check_array("epilogue backward from y", GPUACT_F32, dx_y, want_dx, NULL, 15);
}

/* Leaky epilogue, x f32 (ld 4), bias f16, y bf16 (ld 3 = cols), scale 3:
   rounding to bf16 on store, and -0 + +0 = +0 shows the add happened. */
static void test_epilogue_leaky_bf16(void)
{
    static const uint32_t x[8] = {
        0x3f808000, 0xbf800000, 0x7fc00001, 0x12345678,   /* 1 + 2^-8, -1, NaN */
        0x43808000, 0x80000000, 0x7f800000, 0x12345678,   /* 257, -0, +Inf */
    };
    static const uint16_t bias[3] = {0x0000, 0x0000, 0x3c00};   /* 0 0 1 */
    /* 3.01171875 -> 0x4041 (up), -0.75, NaN | 771 -> 0x4441 (up), +0, +Inf */
    static const uint32_t want_y[6] = {0x4041, 0xbf40, 0x7fc0, 0x4441, 0x0000, 0x7f80};
    static const unsigned char want_any[6] = {0, 0, 1, 0, 0, 0};
    static const unsigned char want_mask[2] = {0x01, 0x05};    /* z > 0 */
    uint16_t y[6];
    unsigned char mask[2], nan_any[6];
    gpuact_ref_fwd p;

    memset(&p, 0, sizeof p);
    p.act = make_act(GPUACT_LEAKY_RELU, 0.25f, 0);
    p.rows = 2;
    p.cols = 3;
    p.ld_x = 4;
    p.ld_y = 3;
    p.mask_ld = 8;
    p.x_dtype = GPUACT_F32;
    p.bias_dtype = GPUACT_F16;
    p.y_dtype = GPUACT_BF16;
    p.scale = 3.0f;
    p.x = x;
    p.bias = bias;
    p.y = y;
    p.mask = mask;
    p.nan_any = nan_any;
    gpuact_ref_forward(&p);
    check_array("leaky epilogue bf16 y", GPUACT_BF16, y, want_y, want_any, 6);
    check_bytes("leaky epilogue bf16 nan_any", nan_any, want_any, 6);
    check_bytes("leaky epilogue bf16 mask", mask, want_mask, 2);
}

/* >>backward */

/* The mask test's x, an incoming gradient with NaNs on both sides of the
   mask, and dx worked out from the relu table: masked-out elements are +0
   (the NaN at [5] does not leak), passed ones keep dy's bits exactly (-0 at
   [8], the signalling NaN at [9]). */
static const uint16_t bw_x[13] = {0x3c00, 0xbc00, 0x4000, 0x0000, 0x7e00, 0x8000, 0x4200,
                                  0xc000, 0x4400, 0x4500, 0xc500, 0x3800, 0xb800};
static const uint16_t bw_dy[13] = {0x3800, 0x3800, 0x7e00, 0x3400, 0xbc00, 0xfe01, 0x4000,
                                   0x4000, 0x8000, 0x7d01, 0x3c00, 0x4200, 0x4200};
static const uint32_t bw_dx[13] = {0x3800, 0, 0x7e00, 0, 0xbc00, 0, 0x4000,
                                   0, 0x8000, 0x7d01, 0, 0x4200, 0};

static void test_backward_relu(void)
{
    static const unsigned char none[13] = {0};
    static const unsigned char mask[2] = {0x55, 0x0b};
    static const unsigned char want_any_scaled[13] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    uint16_t dx[13];
    unsigned char nan_any[13];
    gpuact_ref_bwd b;

    gpuact_ref_elementwise_backward(make_act(GPUACT_RELU, 0, 0), GPUACT_F16, 13, bw_dy, bw_x, NULL, dx, nan_any);
    check_array("relu backward f16 from x", GPUACT_F16, dx, bw_dx, NULL, 13);
    check_bytes("relu backward f16 from x nan_any", nan_any, none, 13);

    memset(dx, 0xab, sizeof dx);
    gpuact_ref_elementwise_backward(make_act(GPUACT_RELU, 0, 0), GPUACT_F16, 13, bw_dy, NULL, mask, dx, nan_any);
    check_array("relu backward f16 from mask", GPUACT_F16, dx, bw_dx, NULL, 13);

    /* With a scale the passed NaNs come out of a multiply: any NaN. */
    memset(&b, 0, sizeof b);
    b.act = make_act(GPUACT_RELU, 0, 0);
    b.rows = 1;
    b.cols = b.ld_dy = b.ld_dx = 13;
    b.mask_ld = 16;
    b.dy_dtype = b.dx_dtype = GPUACT_F16;
    b.scale = 2.0f;
    b.dy = bw_dy;
    b.mask = mask;
    b.dx = dx;
    b.nan_any = nan_any;
    gpuact_ref_backward(&b);
    check_bytes("relu backward f16 * 2 nan_any", nan_any, want_any_scaled, 13);
    check_bits("relu backward f16 * 2 [0]", 0, 0x3c00, dx[0]);
    check_bits("relu backward f16 * 2 [5] masked NaN", 5, 0x0000, dx[5]);
}

static void test_backward_inplace(void)
{
    uint16_t buf[13];
    memcpy(buf, bw_dy, sizeof buf);
    gpuact_ref_elementwise_backward(make_act(GPUACT_RELU, 0, 0), GPUACT_F16, 13, buf, bw_x, NULL, buf, NULL);
    check_array("relu backward f16 in place", GPUACT_F16, buf, bw_dx, NULL, 13);
}

/* bf16 clipped at 6.1: the ceiling rounds down to 6.09375 (0x40c3), so x =
   6.09375 is clipped and its y equals the ceiling; from x, from y and from
   the mask the region is the same. With the unrounded 6.1f, x = 7 would
   give y = 6.09375, which would pass from y but not from x. */
static void test_backward_clipped_regions(void)
{
    static const uint16_t x[9] = {0x40c3, 0x40c2, 0x40e0, 0x7f80, 0xffc1, 0x0001, 0x8000, 0x3f80, 0xbf80};
    static const uint32_t want_y[9] = {0x40c3, 0x40c2, 0x40c3, 0x40c3, 0xffc1, 0x0001, 0x0000, 0x3f80, 0x0000};
    /* passes 0 1 0 0 1 1 0 1 | 0: bits 1,4,5,7 */
    static const unsigned char want_mask[2] = {0xb2, 0x00};
    static const uint16_t dy[9] = {0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0, 0x40e0, 0x4100, 0x4110};
    static const uint32_t want_dx[9] = {0, 0x4000, 0, 0, 0x40a0, 0x40c0, 0, 0x4100, 0};
    gpuact_activation clip = make_act(GPUACT_CLIPPED_RELU, 0, 6.1f);
    uint16_t y[9], dx[9];
    unsigned char mask[2] = {0xff, 0xff};

    gpuact_ref_elementwise_forward(clip, GPUACT_BF16, 9, x, y, mask, NULL);
    check_array("clipped bf16 forward y", GPUACT_BF16, y, want_y, NULL, 9);
    check_bytes("clipped bf16 forward mask", mask, want_mask, 2);
    gpuact_ref_elementwise_backward(clip, GPUACT_BF16, 9, dy, x, NULL, dx, NULL);
    check_array("clipped bf16 backward from x", GPUACT_BF16, dx, want_dx, NULL, 9);
    memset(dx, 0xab, sizeof dx);
    gpuact_ref_elementwise_backward(clip, GPUACT_BF16, 9, dy, y, NULL, dx, NULL);
    check_array("clipped bf16 backward from y", GPUACT_BF16, dx, want_dx, NULL, 9);
    memset(dx, 0xab, sizeof dx);
    gpuact_ref_elementwise_backward(clip, GPUACT_BF16, 9, dy, NULL, want_mask, dx, NULL);
    check_array("clipped bf16 backward from mask", GPUACT_BF16, dx, want_dx, NULL, 9);
}

/* A NaN dy where the gradient does not pass: +0 for relu and clipped (by
   selection), NaN for leaky (dy * slope). A passing NaN keeps its bits, the
   signalling one too (x = 7 passes for leaky but not for clipped at 6). */
static void test_backward_nan_dy(void)
{
    static const uint32_t x[4] = {0xbf800000, 0x40e00000, 0x3f800000, 0x80000000};  /* -1 7 1 -0 */
    static const uint32_t dy[4] = {0x7fc00000, 0xffc00001, 0x7f800001, 0x40800000}; /* NaN NaN sNaN 4 */
    static const uint32_t want_relu[4] = {0x00000000, 0xffc00001, 0x7f800001, 0x00000000};
    static const uint32_t want_clip[4] = {0x00000000, 0x00000000, 0x7f800001, 0x00000000};
    static const uint32_t want_leaky[4] = {0x7fc00000, 0xffc00001, 0x7f800001, 0x3f800000};
    static const unsigned char none[4] = {0, 0, 0, 0};
    static const unsigned char leaky_any[4] = {1, 0, 0, 0};
    uint32_t dx[4];
    unsigned char nan_any[4];

    gpuact_ref_elementwise_backward(make_act(GPUACT_RELU, 0, 0), GPUACT_F32, 4, dy, x, NULL, dx, nan_any);
    check_array("relu backward NaN dy", GPUACT_F32, dx, want_relu, NULL, 4);
    check_bytes("relu backward NaN dy nan_any", nan_any, none, 4);
    gpuact_ref_elementwise_backward(make_act(GPUACT_CLIPPED_RELU, 0, 6.0f), GPUACT_F32, 4, dy, x, NULL, dx, nan_any);
    check_array("clipped backward NaN dy", GPUACT_F32, dx, want_clip, NULL, 4);
    check_bytes("clipped backward NaN dy nan_any", nan_any, none, 4);
    gpuact_ref_elementwise_backward(make_act(GPUACT_LEAKY_RELU, 0.25f, 0), GPUACT_F32, 4, dy, x, NULL, dx, nan_any);
    check_array("leaky backward NaN dy", GPUACT_F32, dx, want_leaky, leaky_any, 4);
    check_bytes("leaky backward NaN dy nan_any", nan_any, leaky_any, 4);
}

/* Leaky, 3x2, dy f32 (ld 2), dx f16 (ld 3), scale 0.5, from a mask with
   mask_ld 16 whose padding bits and in-between bytes hold junk. */
static void test_backward_dbias(void)
{
    static const unsigned char mask[6] = {0xfd, 0xaa, 0xfe, 0x55, 0xff, 0x00};  /* 1 0 | 0 1 | 1 1 */
    static const float dy[6] = {2.0f, 4.0f, 8.0f, 1.0f, -6.0f, 0.1f};
    /* 1, 4*0.5*0.25 | 8*0.5*0.25, 0.5 | -3, 0.05f -> f16 0x2a66 (down) */
    static const uint32_t want_dx[9] = {0x3c00, 0x3800, 0xabcd, 0x3c00, 0x3800, 0xabcd, 0xc200, 0x2a66, 0xabcd};
    uint16_t dx[9];
    double dbias[2], dbias_abs[2];
    gpuact_ref_bwd b;
    size_t i;

    for (i = 0; i < 9; i++)
        dx[i] = 0xabcd;
    dbias[0] = dbias[1] = dbias_abs[0] = dbias_abs[1] = 99.0;
    memset(&b, 0, sizeof b);
    b.act = make_act(GPUACT_LEAKY_RELU, 0.25f, 0);
    b.rows = 3;
    b.cols = 2;
    b.ld_dy = 2;
    b.ld_dx = 3;
    b.mask_ld = 16;
    b.dy_dtype = GPUACT_F32;
    b.dx_dtype = GPUACT_F16;
    b.scale = 0.5f;
    b.dy = dy;
    b.mask = mask;
    b.dx = dx;
    b.dbias = dbias;
    b.dbias_abs = dbias_abs;
    gpuact_ref_backward(&b);
    check_array("leaky backward dbias dx", GPUACT_F16, dx, want_dx, NULL, 9);
    /* Sums of the stored f16 values; 0x2a66 = 1638 / 32768. */
    check_f64("dbias", 0, -1.0, dbias[0]);
    check_f64("dbias", 1, 1.0 + 1638.0 / 32768.0, dbias[1]);
    check_f64("dbias_abs", 0, 5.0, dbias_abs[0]);
    check_f64("dbias_abs", 1, 1.0 + 1638.0 / 32768.0, dbias_abs[1]);
}

/* >>test data */

static void test_rng(void)
{
    /* splitmix64's published first outputs from state 0. */
    gpuact_ref_rng r = {0};
    uint64_t a = gpuact_ref_next(&r), b = gpuact_ref_next(&r);
    check_bits("splitmix64 #1 hi", 0, 0xe220a839u, (uint32_t)(a >> 32));
    check_bits("splitmix64 #1 lo", 0, 0x7b1dcdafu, (uint32_t)a);
    check_bits("splitmix64 #2 hi", 1, 0x6e789e6au, (uint32_t)(b >> 32));
    check_bits("splitmix64 #2 lo", 1, 0xa1b965f4u, (uint32_t)b);
}

#define FILL_N 4096

static void test_fill(void)
{
    /* Every special, in each format, with near = 6.1 as the dtype holds it. */
    static const uint32_t specials[3][22] = {
        {0x7fc00000, 0xffc00001, 0x7fffffff, 0xffe00000, 0x7f800001, 0xffa00001, 0x7f800000, 0xff800000,
         0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x7f7fffff, 0xff7fffff,
         0x40c33333, 0x40c33332, 0x40c33334, 0xc0c33333, 0xc0c33332, 0xc0c33334},
        {0x7e00, 0xfe01, 0x7fff, 0xff00, 0x7c01, 0xfd01, 0x7c00, 0xfc00,
         0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x7bff, 0xfbff,
         0x461a, 0x4619, 0x461b, 0xc61a, 0xc619, 0xc61b},
        {0x7fc0, 0xffc1, 0x7fff, 0xffe0, 0x7f81, 0xffa1, 0x7f80, 0xff80,
         0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x7f7f, 0xff7f,
         0x40c3, 0x40c2, 0x40c4, 0xc0c3, 0xc0c2, 0xc0c4},
    };
    static const gpuact_dtype dts[3] = {GPUACT_F32, GPUACT_F16, GPUACT_BF16};
    static const char *names[3] = {"f32", "f16", "bf16"};
    static uint32_t buf[FILL_N], again[FILL_N];
    char what[96];
    int d;

    for (d = 0; d < 3; d++) {
        gpuact_dtype dt = dts[d];
        gpuact_ref_rng r;
        size_t i, k;
        long out_of_range = 0, negative = 0, positive = 0, n_special = 0;

        /* Without specials: finite, nonzero, within [-4, 4], both signs,
           and the same sequence for the same seed. */
        r.s = 42;
        gpuact_ref_fill(&r, dt, buf, FILL_N, 0, 6.1f);
        r.s = 42;
        gpuact_ref_fill(&r, dt, again, FILL_N, 0, 6.1f);
        for (i = 0; i < FILL_N; i++) {
            float v = gpuact_ref_load(dt, buf, i);
            if (!(v >= -4.0f && v <= 4.0f) || v == 0.0f)
                out_of_range++;
            negative += v < 0;
            positive += v > 0;
        }
        sprintf(what, "fill %s plain: elements outside [-4,4] or zero", names[d]);
        check_range(what, 0, 0, out_of_range);
        sprintf(what, "fill %s plain: negatives", names[d]);
        check_range(what, FILL_N / 3, FILL_N * 2 / 3, negative);
        sprintf(what, "fill %s plain: positives", names[d]);
        check_range(what, FILL_N / 3, FILL_N * 2 / 3, positive);
        sprintf(what, "fill %s plain: deterministic", names[d]);
        check_range(what, 0, 0, (long)(memcmp(buf, again, FILL_N * (dt == GPUACT_F32 ? 4u : 2u)) != 0));

        /* With specials: about 1 in 8, and each one of them present. */
        r.s = 7;
        gpuact_ref_fill(&r, dt, buf, FILL_N, 1, 6.1f);
        for (k = 0; k < 22; k++) {
            long seen = 0;
            for (i = 0; i < FILL_N; i++)
                seen += gpuact_ref_raw(dt, buf, i) == specials[d][k];
            n_special += seen;
            sprintf(what, "fill %s specials: count of 0x%08lx", names[d], (unsigned long)specials[d][k]);
            check_range(what, 1, FILL_N, seen);
        }
        sprintf(what, "fill %s specials: total", names[d]);
        check_range(what, FILL_N / 12, FILL_N / 5, n_special);
    }
}

int main(void)
{
    test_f16_conversions();
    test_bf16_conversions();
    test_raw_helpers();
    test_activations();
    test_passes();
    test_elementwise_act();
    test_forward_passthrough();
    test_mask_format();
    test_epilogue();
    test_epilogue_leaky_bf16();
    test_backward_relu();
    test_backward_inplace();
    test_backward_clipped_regions();
    test_backward_nan_dy();
    test_backward_dbias();
    test_rng();
    test_fill();
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
