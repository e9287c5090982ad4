/* gpuact OpenCL kernels: shared pieces. Each program is built with
   -DGPUACT_T0=<dtype> -DGPUACT_T1=<dtype> -DGPUACT_T2=<dtype> (f32, f16,
   bf16) -DGPUACT_SPEC=<n> and defines one kernel,
   gpuact_<op>_<T0>_<T1>_<T2>_<SPEC>, with the parameter list of
   GPUACT_PARAMS (the same for every op; see gpuact.h, ">>backend
   interface", which also defines the spec numbers).

   Data is handled as raw bits (uint) so that pass-through NaNs keep their
   payload; f16 uses vload_half/vstore_half_rte, which need no cl_khr_fp16.
   A work-item owns 8 consecutive elements of a row: two 16-byte loads for
   f32, one for 16-bit types, and exactly one mask byte. */
#pragma OPENCL FP_CONTRACT OFF

#define GPUACT_CAT_(a, b) a##b
#define GPUACT_CAT(a, b) GPUACT_CAT_(a, b)
#define GPUACT_NAME(op)                                                                                  \
    GPUACT_CAT(GPUACT_CAT(GPUACT_CAT(GPUACT_CAT(GPUACT_CAT(GPUACT_CAT(GPUACT_CAT(op, GPUACT_T0), _), GPUACT_T1), \
                                                         _), GPUACT_T2), _), GPUACT_SPEC)
#define GPUACT_KIND (GPUACT_SPEC % 3)

#define GPUACT_F_BIAS 1 /* run-time flags of the general paths */
#define GPUACT_F_SCALE 4
#define GPUACT_F_RAW 8
#define GPUACT_VEC 8

#define GPUACT_PARAMS                                                                             \
    __global uchar *in, ulong in_off, __global uchar *out, ulong out_off, __global uchar *aux,     \
        ulong aux_off, __global uchar *mask, ulong mask_off, __global uchar *part, ulong part_off, \
        ulong rows, ulong cols, ulong ld_in, ulong ld_out, ulong ld_aux, ulong mask_ld, float scale, \
        float slope, float ceiling, int kind, int flags

/* ---- element formats: size, raw load/store (scalar and 8-wide), bits <-> float */
#define SZ_f32 4
#define SZ_f16 2
#define SZ_bf16 2

uint ld1_f32(const __global uchar *p, ulong i) { return ((const __global uint *)p)[i]; }
uint ld1_f16(const __global uchar *p, ulong i) { return ((const __global ushort *)p)[i]; }
uint ld1_bf16(const __global uchar *p, ulong i) { return ((const __global ushort *)p)[i]; }
void st1_f32(__global uchar *p, ulong i, uint v) { ((__global uint *)p)[i] = v; }
void st1_f16(__global uchar *p, ulong i, uint v) { ((__global ushort *)p)[i] = (ushort)v; }
void st1_bf16(__global uchar *p, ulong i, uint v) { ((__global ushort *)p)[i] = (ushort)v; }

/* 8 elements from a 16-byte aligned address */
uint8 ld8_f32(const __global uchar *p, ulong i) {
    const __global uint4 *q = (const __global uint4 *)(p + i * 4);
    return (uint8)(q[0], q[1]);
}
uint8 ld8_f16(const __global uchar *p, ulong i) { return convert_uint8(*(const __global ushort8 *)(p + i * 2)); }
uint8 ld8_bf16(const __global uchar *p, ulong i) { return ld8_f16(p, i); }
void st8_f32(__global uchar *p, ulong i, uint8 v) {
    __global uint4 *q = (__global uint4 *)(p + i * 4);
    q[0] = v.lo;
    q[1] = v.hi;
}
void st8_f16(__global uchar *p, ulong i, uint8 v) { *(__global ushort8 *)(p + i * 2) = convert_ushort8(v); }
void st8_bf16(__global uchar *p, ulong i, uint8 v) { st8_f16(p, i, v); }

float tof_f32(uint b) { return as_float(b); }
float tof_bf16(uint b) { return as_float(b << 16); }
float tof_f16(uint b) {
    ushort h = (ushort)b;
    return vload_half(0, (const __private half *)&h);
}
uint fromf_f32(float v) { return as_uint(v); }
uint fromf_f16(float v) {
    ushort h;
    vstore_half_rte(v, 0, (__private half *)&h);
    return h;
}
uint fromf_bf16(float v) { /* round to nearest even; a NaN stays a (quiet) NaN */
    uint u = as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

/* Raw-bit tests (see gpuact_passes_bits): signed order and NaN per format. */
int sbits_f32(uint b) { return (int)b; }
int sbits_f16(uint b) { return (int)(short)(ushort)b; }
int sbits_bf16(uint b) { return (int)(short)(ushort)b; }
int isnan_f32(uint b) { return (b & 0x7fffffffu) > 0x7f800000u; }
int isnan_f16(uint b) { return (b & 0x7fffu) > 0x7c00u; }
int isnan_bf16(uint b) { return (b & 0x7fffu) > 0x7f80u; }

/* ReLU of the two 16-bit values of a word (see gpuact_relu_pair in the CUDA
   kernels): a lane becomes +0 where its sign is set and it is not a NaN. */
uint relu_pair(uint w, uint inf) {
    const uint nan = ((w & 0x7fff7fffu) + (0x7fffu - inf) * 0x00010001u) & 0x80008000u;
    return w & ~(((w & 0x80008000u & ~nan) >> 15) * 0xffffu);
}
#define INF16_f16 0x7c00u
#define INF16_bf16 0x7f80u
#define INF16_f32 0u

#define SZ(t) GPUACT_CAT(SZ_, t)
#define SBITS(t) GPUACT_CAT(sbits_, t)
#define ISNAN(t) GPUACT_CAT(isnan_, t)
#define LD1(t) GPUACT_CAT(ld1_, t)
#define ST1(t) GPUACT_CAT(st1_, t)
#define LD8(t) GPUACT_CAT(ld8_, t)
#define ST8(t) GPUACT_CAT(st8_, t)
#define TOF(t) GPUACT_CAT(tof_, t)
#define FROMF(t) GPUACT_CAT(fromf_, t)

/* Loads the up-to-8 elements c0.. of a row as raw bits: one vector access
   when the whole group is inside the row and aligned, else one by one. */
#define GPUACT_LOAD8(t, row, c0, cols, vec_ok, dst)                                   \
    do {                                                                              \
        if (vec_ok) {                                                                 \
            vstore8(LD8(t)(row, c0), 0, dst);                                         \
        } else {                                                                      \
            for (int k_ = 0; k_ < GPUACT_VEC; k_++)                                   \
                dst[k_] = (c0) + k_ < (cols) ? LD1(t)(row, (c0) + k_) : 0u;           \
        }                                                                             \
    } while (0)
#define GPUACT_STORE8(t, row, c0, cols, vec_ok, src)                                  \
    do {                                                                              \
        if (vec_ok) {                                                                 \
            ST8(t)(row, c0, vload8(0, src));                                          \
        } else {                                                                      \
            for (int k_ = 0; k_ < GPUACT_VEC; k_++)                                   \
                if ((c0) + k_ < (cols)) ST1(t)(row, (c0) + k_, src[k_]);              \
        }                                                                             \
    } while (0)

/* Vector accesses need 16-byte aligned row starts (cl_mem bases are aligned
   far more than that, so the offsets decide). */
int gpuact_rows_aligned(ulong off, ulong ld, ulong size, ulong rows) {
    return off % 16 == 0 && (rows == 1 || (ld * size) % 16 == 0);
}

/* ---- the activation of kind GPUACT_KIND, DESIGN.md's tables. Comparisons
   written so that a NaN takes the pass-through branch by selection (never
   fmax/fmin). */
float gpuact_act(float z, float slope, float c) {
    if (GPUACT_KIND == 1) return z > 0.0f ? z : z * slope;
    if (GPUACT_KIND == 2) return z <= 0.0f ? 0.0f : (z >= c ? c : z);
    return z <= 0.0f ? 0.0f : z;
}
int gpuact_passes(float v, float c) {
    if (GPUACT_KIND == 1) return v > 0.0f;
    if (GPUACT_KIND == 2) return !(v <= 0.0f || v >= c);
    return !(v <= 0.0f);
}

/* The same test on raw bits of type t, for the selection paths: no compiler
   can rewrite `z <= 0 ? 0 : x` on bits into a NaN-canonicalising max (NVIDIA's
   OpenCL compiler did, on floats). cbits: the ceiling as t (exact where
   used: elementwise ops round it to t; the epilogue's backward from y
   refuses clipped ReLU). */
#define GPUACT_PASSES_BITS(t, b, cbits)                                                          \
    (GPUACT_KIND == 1 ? (SBITS(t)(b) > 0 && !ISNAN(t)(b))                                        \
     : GPUACT_KIND == 2 ? (ISNAN(t)(b) || (SBITS(t)(b) > 0 && SBITS(t)(b) < SBITS(t)(cbits)))      \
                        : (ISNAN(t)(b) || SBITS(t)(b) > 0))
