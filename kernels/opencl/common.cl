/* gpuact OpenCL kernels: shared pieces. A program is one op's variants
   (gpuact.h's OpenCL backend, gpuact__opencl_source): dialect.cl,
   ../contract.h, ../act.h and this file once, then for each variant the
   #defines of gpuact__variant_defines (GPUACT_NAME: the kernel's name,
   GPUACT_T0/T1/T2: <dtype> (f32, f16, bf16), GPUACT_KIND/MASK/DBIAS/SELECT/
   FROMX/PRECISE: <n>), the op file and their #undefs. Each variant's kernel
   has the parameter list of GPUACT_KERNEL_PARAMS (../contract.h); an op
   file's functions that read the variant's macros are named per variant
   with GPUACT_OWN, the rest sit once behind the file's guard.

   Data is handled as raw bits (uint) so that pass-through NaNs keep their
   payload; f16 uses vload_half/vstore_half_rte, which need no cl_khr_fp16.
   A work-item owns GPUACT_CL_VEC = 8 consecutive elements of a row (the
   forward: GPUACT_CL_GROUPS such groups, see forward.cl): two 16-byte loads
   for f32, one for 16-bit types, and exactly one mask byte. */
#include "dialect.cl"
#include "../contract.h"
#include "../act.h"

#define GPUACT_CAT_(a, b) a##b
#define GPUACT_CAT(a, b) GPUACT_CAT_(a, b)
#define GPUACT_OWN(f) GPUACT_CAT(f, GPUACT_CAT(_, GPUACT_NAME)) /* f_<the kernel's name> */

#define GPUACT_P_BUF_(name) __global uchar *name, ulong name##_off
#define GPUACT_P_U64_(name) ulong name
#define GPUACT_P_F32_(name) float name
#define GPUACT_P_I32_(name) int name
#define GPUACT_COMMA ,
#define GPUACT_PARAMS \
    GPUACT_KERNEL_PARAMS(GPUACT_P_BUF_, GPUACT_P_U64_, GPUACT_P_F32_, GPUACT_P_I32_, GPUACT_COMMA)

/* ---- element formats: size, raw load/store (scalar and 8-wide); bits <-> float
   and the raw-bit tests are ../act.h's gpuact_*_dt, by DT(t) */
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
/* 16-bit: one 16-byte access of four words, split or joined in registers
   (NVIDIA's compiler made two 8-byte accesses of a ushort8) */
uint8 ld8_f16(const __global uchar *p, ulong i) {
    const uint4 q = *(const __global uint4 *)(p + i * 2);
    return (uint8)(q.x & 0xffffu, q.x >> 16, q.y & 0xffffu, q.y >> 16, q.z & 0xffffu, q.z >> 16, q.w & 0xffffu,
                   q.w >> 16);
}
uint8 ld8_bf16(const __global uchar *p, ulong i) { return ld8_f16(p, i); }
void st8_f32(__global uchar *p, ulong i, uint8 v) {
    __global uint4 *q = (__global uint4 *)(p + i * 4);
    q[0] = v.lo;
    q[1] = v.hi;
}
void st8_f16(__global uchar *p, ulong i, uint8 v) {
    const uint8 lo = v & 0xffffu, hi = v << 16;
    *(__global uint4 *)(p + i * 2) = (uint4)(lo.s0 | hi.s1, lo.s2 | hi.s3, lo.s4 | hi.s5, lo.s6 | hi.s7);
}
void st8_bf16(__global uchar *p, ulong i, uint8 v) { st8_f16(p, i, v); }

#define SZ(t) GPUACT_CAT(SZ_, t)
#define DT(t) GPUACT_CAT(GPUACT_DT_, t) /* the dtype's id (../contract.h; ../act.h's gpuact_*_dt take it) */
#define LD1(t) GPUACT_CAT(ld1_, t)
#define ST1(t) GPUACT_CAT(st1_, t)
#define LD8(t) GPUACT_CAT(ld8_, t)
#define ST8(t) GPUACT_CAT(st8_, t)

/* The elements of group c0 that lie inside its row: 0 past the row's end,
   at most GPUACT_CL_VEC. The tail paths compare k < n on this one 32-bit
   count: compares of the 64-bit c0 + k with cols were kept by NVIDIA's
   compiler in two registers per k across the row loop (docs/PERFORMANCE.md). */
uint gpuact_cl_count(ulong c0, ulong cols) {
    return c0 >= cols ? 0u : cols - c0 < GPUACT_CL_VEC ? (uint)(cols - c0) : (uint)GPUACT_CL_VEC;
}

/* Loads the n (gpuact_cl_count) elements c0.. of a row as raw bits, 0 for
   the rest: one vector access when the whole group is inside the row and
   aligned, else one by one. */
#define GPUACT_LOAD8(t, row, c0, n, vec_ok, dst)                                      \
    do {                                                                              \
        if (vec_ok) {                                                                 \
            vstore8(LD8(t)(row, c0), 0, dst);                                         \
        } else {                                                                      \
            for (int k_ = 0; k_ < GPUACT_CL_VEC; k_++)                                \
                dst[k_] = k_ < (int)(n) ? LD1(t)(row, (c0) + k_) : 0u;                \
        }                                                                             \
    } while (0)
#define GPUACT_STORE8(t, row, c0, n, vec_ok, src)                                     \
    do {                                                                              \
        if (vec_ok) {                                                                 \
            ST8(t)(row, c0, vload8(0, src));                                          \
        } else {                                                                      \
            for (int k_ = 0; k_ < GPUACT_CL_VEC; k_++)                                \
                if (k_ < (int)(n)) ST1(t)(row, (c0) + k_, src[k_]);                   \
        }                                                                             \
    } while (0)
