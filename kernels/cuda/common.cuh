/* gpuact CUDA/HIP kernels: shared pieces, written once for both dialects.
   A program is composed of the dialect (dialect.cuh, or ../hip/dialect.h
   then dialect.cuh), ../contract.h, ../act.h, this file and one op file;
   the dialect provides gpuact_u64, gpuact_u32, GPUACT_FN, gpuact_h2f,
   gpuact_f2h and GPUACT_FROM_NEXT_LANE.

   Every kernel has the parameter list of GPUACT_KERNEL_PARAMS
   (../contract.h) and is specialised at compile time by its named fields
   (kind, mask, dbias, select), so each module holds one straight-line path.
   A thread owns GPUACT_UNROLL vectors (one on GPUACT_ONE_VECTOR) of VEC
   consecutive elements of a row,
   a block's width apart (GPUACT_VARIANT_BLOCK; each warp access stays contiguous; two
   16-byte loads in flight per thread is what reaches the copy bandwidth on
   an H200). A vector is 16 bytes of the widest array (GPUACT_VEC), loaded
   with one access when rows are 16-byte aligned, element by element
   otherwise and at a row's ragged end. Indices are 64-bit. Data moves as
   raw bits so pass-through NaNs keep their payload. */
#ifndef GPUACT_COMMON_CUH
#define GPUACT_COMMON_CUH
#include "dialect.cuh"
#include "../contract.h"
#include "../act.h"

/* dtype tags, named as in the kernel names */
#define GPUACT_DTYPE_TAG_(name, bytes) struct name { enum { size = bytes, id = GPUACT_DT_##name }; };
GPUACT_DTYPES(GPUACT_DTYPE_TAG_)

template <class A, class B> struct gpuact_same { enum { value = 0 }; };
template <class A> struct gpuact_same<A, A> { enum { value = 1 }; };

/* One element as raw bits (../act.h's dtype-id functions, by tag). */
template <class T> __device__ __forceinline__ float gpuact_tof(gpuact_u32 b) { return gpuact_tof_dt(T::id, b); }
template <class T> __device__ __forceinline__ gpuact_u32 gpuact_fromf(float v) { return gpuact_fromf_dt(T::id, v); }

/* Elements of a thread's vector for a kernel over arrays of types A, B, C
   (the host applies the same GPUACT_VEC rule). */
template <class A, class B, class C> struct gpuact_vec {
    enum { value = GPUACT_VEC(A::size == 2 && B::size == 2 && C::size == 2) };
};

/* 16-byte global stores; CS marks them evict-first (.cs, CUDA only).
   Only the f32 backward from the mask asks for it (its only other input is
   1/32 of the bytes), on its stores alone: .cs loads, and .cs in the
   other kernels, ran slower (docs/PERFORMANCE.md, "Designs measured and
   not kept"). */
template <bool CS> __device__ __forceinline__ void gpuact_st16(unsigned char *p, uint4 v) {
#if defined(GPUACT_DIALECT_CUDA)
    if (CS) {
        asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                     "r"(v.w)
                     : "memory");
        return;
    }
#endif
    *reinterpret_cast<uint4 *>(p) = v;
}

/* VEC elements of a row starting at column c0, as raw bits. vec_ok: the
   whole group is inside the row and 16-byte aligned (one 8/16-byte access). */
template <class T, int VEC>
__device__ __forceinline__ void gpuact_load(const unsigned char *row, gpuact_u64 c0, gpuact_u64 cols, bool vec_ok,
                                            gpuact_u32 (&v)[VEC]) {
    if (vec_ok) {
        gpuact_u32 w[4];
        if (VEC * T::size == 16) {
            uint4 q = *reinterpret_cast<const uint4 *>(row + c0 * T::size);
            w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;
        } else {
            uint2 q = *reinterpret_cast<const uint2 *>(row + c0 * T::size);
            w[0] = q.x; w[1] = q.y; w[2] = 0; w[3] = 0;
        }
#pragma unroll
        for (int k = 0; k < VEC; k++)
            v[k] = T::size == 4 ? w[k] : (w[k / 2] >> (16 * (k & 1))) & 0xffffu;
    } else {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            v[k] = c0 + k >= cols ? 0u
                   : T::size == 4 ? reinterpret_cast<const gpuact_u32 *>(row)[c0 + k]
                                  : reinterpret_cast<const unsigned short *>(row)[c0 + k];
    }
}

template <class T, int VEC, bool CS = false>
__device__ __forceinline__ void gpuact_store(unsigned char *row, gpuact_u64 c0, gpuact_u64 cols, bool vec_ok,
                                             const gpuact_u32 (&v)[VEC]) {
    if (vec_ok) {
        gpuact_u32 w[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            w[k] = T::size == 4 ? v[k < VEC ? k : 0] : (v[(2 * k) % VEC] | (v[(2 * k + 1) % VEC] << 16));
        if (VEC * T::size == 16)
            gpuact_st16<CS>(row + c0 * T::size, make_uint4(w[0], w[1], w[2], w[3]));
        else
            *reinterpret_cast<uint2 *>(row + c0 * T::size) = make_uint2(w[0], w[1]);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            if (c0 + k >= cols) break;
            if (T::size == 4) reinterpret_cast<gpuact_u32 *>(row)[c0 + k] = v[k];
            else reinterpret_cast<unsigned short *>(row)[c0 + k] = (unsigned short)v[k];
        }
    }
}

/* A vector of 8 16-bit elements as 4 words of two (element 2j in the low
   half of word j): one 16-byte access when vec_ok, else element by element
   (0 past the row's end). */
template <class T>
__device__ __forceinline__ void gpuact_load_words(const unsigned char *row, gpuact_u64 c0, gpuact_u64 cols,
                                                  bool vec_ok, gpuact_u32 (&w)[4]) {
    if (vec_ok) {
        const uint4 q = *reinterpret_cast<const uint4 *>(row + c0 * 2);
        w[0] = q.x; w[1] = q.y; w[2] = q.z; w[3] = q.w;
    } else {
        const unsigned short *e = reinterpret_cast<const unsigned short *>(row);
#pragma unroll
        for (int j = 0; j < 4; j++)
            w[j] = (c0 + 2 * j < cols ? e[c0 + 2 * j] : 0u) |
                   (c0 + 2 * j + 1 < cols ? (gpuact_u32)e[c0 + 2 * j + 1] << 16 : 0u);
    }
}
template <class T, bool CS = false>
__device__ __forceinline__ void gpuact_store_words(unsigned char *row, gpuact_u64 c0, gpuact_u64 cols, bool vec_ok,
                                                   const gpuact_u32 (&w)[4]) {
    if (vec_ok) {
        gpuact_st16<CS>(row + c0 * 2, make_uint4(w[0], w[1], w[2], w[3]));
    } else {
        unsigned short *e = reinterpret_cast<unsigned short *>(row);
#pragma unroll
        for (int k = 0; k < 8; k++)
            if (c0 + k < cols) e[c0 + k] = (unsigned short)(w[k / 2] >> (16 * (k & 1)));
    }
}

/* ../act.h's gpuact_fromf2_dt, by tag. */
template <class T> __device__ __forceinline__ void gpuact_fromf2(float lo, float hi, gpuact_u32 &a, gpuact_u32 &b) {
    gpuact_fromf2_dt(T::id, lo, hi, &a, &b);
}

/* Whether every vector of this block is inside the row and 16-byte
   aligned: the block's columns, span = its threads x vectors x VEC
   elements from the row's first aligned element (shift), end at or before
   cols. Decided once per block (uniform, so the mask writers' lane
   exchange stays in step): all blocks but a row's last take the path
   without per-access bounds tests, which at sizes that sit in the L2 was
   two thirds of a kernel's instructions (docs/PERFORMANCE.md). */
__device__ __forceinline__ bool gpuact_block_full(bool aligned, gpuact_u64 shift, gpuact_u64 span, gpuact_u64 cols) {
    return aligned && shift + ((gpuact_u64)blockIdx.x + 1) * span <= cols;
}

/* Mask bits of a thread's VEC elements. VEC 8: one byte per thread. VEC 4:
   a byte holds two threads' nibbles, so every thread of the warp must call
   these (the even thread writes the byte, lane + 1 gives the high nibble). */
template <int VEC>
__device__ __forceinline__ void gpuact_mask_write(unsigned char *row, gpuact_u64 cv, bool in_row, gpuact_u32 bits) {
    if (VEC == 8) {
        if (in_row) row[cv] = (unsigned char)bits;
    } else {
        gpuact_u32 hi = GPUACT_FROM_NEXT_LANE(bits);
        if (in_row && (cv & 1) == 0) row[cv / 2] = (unsigned char)(bits | (hi << 4));
    }
}
template <int VEC>
__device__ __forceinline__ gpuact_u32 gpuact_mask_read(const unsigned char *row, gpuact_u64 cv) {
    return VEC == 8 ? row[cv] : (row[cv / 2] >> (4 * (cv & 1))) & 0xfu;
}

/* Few-bit codes (../contract.h, ../fewbit.h). The code of z: how many of
   the table's sorted boundaries are <= z; NaN compares false: 0. By binary
   search in four steps over the 15 entries of bnd (in shared memory, NaN
   past the table's boundaries: 3-bit tables too). */
__device__ __forceinline__ gpuact_u32 gpuact_code_search(float z, const float *bnd) {
    gpuact_u32 c = 0;
#pragma unroll
    for (int s = 8; s; s >>= 1) c += z >= bnd[c + s - 1] ? (gpuact_u32)s : 0u;
    return c;
}
/* For b <= 2 (N = 3) or, in f32 vectors, 3 (N = 7), as a float, from the first N boundaries (NaN past the 2^b - 1):
   the ones z passes, counted in a tree of additions (exact). */
template <int N>
__device__ __forceinline__ float gpuact_codef(float z, const float *bnd) {
    float c[N];
#pragma unroll
    for (int i = 0; i < N; i++) c[i] = z >= bnd[i] ? 1.0f : 0.0f;
#pragma unroll
    for (int h = 1; h < N; h *= 2)
#pragma unroll
        for (int i = 0; i + h < N; i += 2 * h) c[i] += c[i + h];
    return c[0];
}
/* The codes of elements [k0, k0 + n) of a vector, element k in bits [(k - k0) * nb, + nb):
   a float Horner sum (m = 2^nb; exact, as n * nb <= 16 bits), then its bits. */
template <int N, class Z>
__device__ __forceinline__ gpuact_u32 gpuact_codes_pack(const Z &z_of, int k0, int n, const float *bnd, float m) {
    float acc = gpuact_codef<N>(z_of(k0 + n - 1), bnd);
#pragma unroll
    for (int k = n - 2; k >= 0; k--) acc = GPUACT_FMA(acc, m, gpuact_codef<N>(z_of(k0 + k), bnd));
    return gpuact_as_u32(acc + 8388608.0f) - 0x4b000000u;
}
/* Eight 3-bit codes from nibbles (code k in bits [4 k, + 3)) to bits [3 k, + 3): pairs, then quads, then all. */
__device__ __forceinline__ gpuact_u32 gpuact_codes3_dense(gpuact_u32 w) {
    w = (w & 0x07070707u) | ((w >> 1) & 0x38383838u);
    w = (w & 0x003f003fu) | ((w >> 2) & 0x0fc00fc0u);
    return (w & 0x00000fffu) | ((w >> 4) & 0x00fff000u);
}
/* An f32 vector's 3-bit codes: its 12 bits from the one or two words that
   hold them (rows start 4-byte aligned), or from the row's bytes where a
   word would pass the row's end (n: elements from the vector on). Each
   lane reads its own: the backward's lanes past a row's end have left. */
template <int VEC>
__device__ __forceinline__ gpuact_u32 gpuact_codes3_read(const unsigned char *row, gpuact_u64 cv, gpuact_u64 n) {
    const gpuact_u64 o = cv * (3 * VEC); /* the vector's first bit */
    const int sh = (int)(o % 32), two = sh + 3 * VEC > 32;
    const gpuact_u32 *p = reinterpret_cast<const gpuact_u32 *>(row) + o / 32;
    if (n >= 16 || 3 * (int)n >= 32 * (1 + two) - sh)
        return (gpuact_u32)((((gpuact_u64)(two ? p[1] : 0u) << 32) | p[0]) >> sh);
    const unsigned char *b = row + o / 8;
    const int bits = (int)(o % 8) + 3 * (int)(n < VEC ? n : VEC);
    gpuact_u32 w = 0;
#pragma unroll 1
    for (int i = 0; i < (bits + 7) / 8; i++) w |= (gpuact_u32)b[i] << (8 * i);
    return w >> (o % 8);
}
/* The codes of a thread's VEC elements, element k in bits [k * nb, + nb)
   of w: VEC * nb / 8 bytes at that many times cv, as one access (rows
   start 4-byte aligned; 3 bytes as two, 2-byte aligned); VEC * nb = 4 or
   12 as pairs of lanes, the mask's nibbles or 24 bits (every thread of the
   warp calls it). The row's last vector (not whole: n < VEC elements in
   the row) takes only its ceil(n * nb / 8) bytes. */
template <int VEC>
__device__ __forceinline__ void gpuact_codes_write(unsigned char *row, gpuact_u64 cv, bool in_row, gpuact_u32 w,
                                                   int nb, bool whole, gpuact_u64 n) {
    const int bytes = VEC * nb / 8;
    if (VEC * nb == 12) { /* the even lane writes the pair's 24 bits, lane + 1 gives the high 12 */
        w |= GPUACT_FROM_NEXT_LANE(w) << 12;
        if (cv % 2 == 0) gpuact_codes_write<8>(row, cv / 2, in_row, w, 3, n >= 8, n);
        return;
    }
    if (bytes == 0) {
        gpuact_mask_write<VEC>(row, cv, in_row, w);
        return;
    }
    if (!in_row) return;
    unsigned char *p = row + cv * bytes;
    if (whole) {
        if (bytes == 1) *p = (unsigned char)w;
        else if (bytes == 2) *reinterpret_cast<unsigned short *>(p) = (unsigned short)w;
        else if (bytes == 3) { /* a halfword on the even address, the byte beside it: no branch */
            const int odd = (int)(cv % 2);
            *reinterpret_cast<unsigned short *>(p + odd) = (unsigned short)(w >> (8 * odd));
            p[odd ? 0 : 2] = (unsigned char)(w >> (odd ? 0 : 16));
        } else *reinterpret_cast<gpuact_u32 *>(p) = w;
    } else {
#pragma unroll 1 /* the row's last vector only: unrolled, its byte accesses held registers the main path lacked */
        for (int i = 0; i < (int)((n * nb + 7) / 8); i++) p[i] = (unsigned char)(w >> (8 * i));
    }
}
template <int VEC>
__device__ __forceinline__ gpuact_u32 gpuact_codes_read(const unsigned char *row, gpuact_u64 cv, int nb, bool whole,
                                                        gpuact_u64 n) {
    const int bytes = VEC * nb / 8;
    if (VEC * nb == 12) return gpuact_codes3_read<VEC>(row, cv, n);
    if (bytes == 0) return gpuact_mask_read<VEC>(row, cv);
    const unsigned char *p = row + cv * bytes;
    const int odd = (int)(cv % 2);
    if (whole && bytes == 3) { /* as the write: the halfword on the even address and the byte beside it */
        const gpuact_u32 h = *reinterpret_cast<const unsigned short *>(p + odd), c = p[odd ? 0 : 2];
        return odd ? c | h << 8 : h | c << 16;
    }
    if (whole)
        return bytes == 1 ? *p : bytes == 2 ? *reinterpret_cast<const unsigned short *>(p)
                                            : *reinterpret_cast<const gpuact_u32 *>(p);
    gpuact_u32 w = 0;
#pragma unroll 1
    for (int i = 0; i < (int)((n * nb + 7) / 8); i++) w |= (gpuact_u32)p[i] << (8 * i);
    return w;
}

#define GPUACT_P_BUF_(name) unsigned char *name
#define GPUACT_P_U64_(name) gpuact_u64 name
#define GPUACT_P_F32_(name) float name
#define GPUACT_P_I32_(name) int name
#define GPUACT_P_ARG_(name) name
#define GPUACT_COMMA ,
#define GPUACT_PARAMS \
    GPUACT_KERNEL_PARAMS(GPUACT_P_BUF_, GPUACT_P_U64_, GPUACT_P_F32_, GPUACT_P_I32_, GPUACT_COMMA)
#define GPUACT_ARGS GPUACT_KERNEL_PARAMS(GPUACT_P_ARG_, GPUACT_P_ARG_, GPUACT_P_ARG_, GPUACT_P_ARG_, GPUACT_COMMA)

/* The 16-bit lookup (../contract.h, GPUACT_LUT16_VARIANT): in a module built for one variant, where the
   host asks for it */
#if defined(GPUACT_LUT16) && defined(GPUACT_NAME)
#define GPUACT_LUT16_ON 1
#else
#define GPUACT_LUT16_ON 0
#endif

/* A lookup's table (../contract.h, GPUACT_LUT16_VARIANT) from global to shared memory by a block of BLK
   threads, N 16-byte words: each thread's loads all in flight before its stores, so the block waits one
   memory latency, not one per word */
template <unsigned N, unsigned BLK>
__device__ __forceinline__ void gpuact_lut16_load(uint4 *dst, const uint4 *src) {
    enum { PER = (N + BLK - 1) / BLK };
    uint4 v[PER];
#pragma unroll
    for (unsigned k = 0; k < PER; k++)
        if (k * BLK + threadIdx.x < N) v[k] = src[k * BLK + threadIdx.x];
#pragma unroll
    for (unsigned k = 0; k < PER; k++)
        if (k * BLK + threadIdx.x < N) dst[k * BLK + threadIdx.x] = v[k];
    __syncthreads();
}

/* The tables' slices (../smooth.h) a kernel of KIND reads, copied into gpuact_tab_s (the dialect's):
   ACT, its f32 forward's (GELU, tanh-GELU), GRAD, its f32 derivative's (../act.h, GPUACT_ACT_TABLE and
   GPUACT_GRAD_TABLE). At the kernel's top, before any thread returns: it holds a barrier. */
template <int KIND, bool ACT, bool GRAD>
__device__ __forceinline__ void gpuact_tabs_fill() {
    enum { N = GPUACT_SM_GTD / 4 }; /* one table's 16-byte words */
    enum { A = KIND == GPUACT_KIND_gelu ? GPUACT_SM_GEF : GPUACT_SM_GTF };
    enum { G = KIND == GPUACT_KIND_gelu ? GPUACT_SM_GED : KIND == GPUACT_KIND_gelu_tanh ? GPUACT_SM_GTD : GPUACT_SM_SID };
    if (!ACT && !GRAD) return;
    for (unsigned i = threadIdx.x; i < N; i += blockDim.x) {
        if (ACT) reinterpret_cast<uint4 *>(gpuact_tab_s + A)[i] = reinterpret_cast<const uint4 *>(gpuact_sm_dtabs + A)[i];
        if (GRAD) reinterpret_cast<uint4 *>(gpuact_tab_s + G)[i] = reinterpret_cast<const uint4 *>(gpuact_sm_dtabs + G)[i];
    }
    __syncthreads();
}

/* One kernel: extern "C" name(params) running op<dtypes, fields>. The host
   names it (gpuact__variant_name) and selects it with -DGPUACT_NAME=...
   -DGPUACT_T0.. -DGPUACT_KIND.. (gpuact__variant_defines); the fatbin and
   the compile checks append one GPUACT_KERNEL line per reachable variant
   instead. The _X form expands macro arguments first. */
#define GPUACT_KERNEL(op, name, t0, t1, t2, kind, mask, dbias, select, fromx, precise)              \
    extern "C" __global__ void GPUACT_LAUNCH_BOUNDS(                                                \
        select, dbias, GPUACT_BOUND16(op, t0, t1, t2, kind, mask, precise),                         \
        GPUACT_HT16(op, t0, t1, t2, kind, mask, select), GPUACT_DBIAS_BLOCKS(op, t0, t1, mask, fromx), \
        GPUACT_Y16(op, t0, t1, t2, kind, select), GPUACT_SMALL_BLOCKS(op, t0, t1, t2, kind, mask, precise), \
        GPUACT_LUT_F16(op, t0, t1, t2, kind, mask, dbias, fromx, precise))                         \
        name(GPUACT_PARAMS) {                                                                       \
        op<t0, t1, t2, kind, mask, dbias, select, fromx, precise>(GPUACT_ARGS);                     \
    }
/* Every array 16-bit, and the ReLU family's mask read or written, the gated forward, or the
   forward of a kind in ../act.h's GPUACT_QUICK2_KINDS in the default evaluation, bias or not (its
   quick values in two steps fit without a spill; see GPUACT_LAUNCH_BOUNDS). Not GELU's (its one
   step spills there), the precise functions (spill too), nor a smooth kind's few-bit codes, whose
   forward carries the smooth function's registers besides the codes'. */
#define GPUACT_BOUND16(op, t0, t1, t2, kind, mask, precise)                                                \
    ((((mask) && ((GPUACT_SELECT_KINDS >> (kind)) & 1u)) || GPUACT_OP_##op == GPUACT_OP_glu_forward ||     \
      (GPUACT_OP_##op == GPUACT_OP_forward && !(mask) && !(precise) && ((GPUACT_QUICK2_KINDS >> (kind)) & 1u))) && \
     t0::size == 2 && t1::size == 2 && t2::size == 2)
/* f16's lookup (../contract.h): its blocks per multiprocessor, 0 for any other kernel. Three for
   tanh-GELU's and SiLU's forward (40 registers, 75% of the warps; 64 KiB of table each), two for GELU's
   (it spills at 40), the forwards writing few-bit codes and the backwards (64 registers; at 40 they
   spill on the main path). */
#define GPUACT_LUT_F16(op, t0, t1, t2, kind, mask, dbias, fromx, precise)                                          \
    (!(GPUACT_LUT16_ON && t0::id == GPUACT_DT_f16 &&                                                               \
       GPUACT_LUT16_VARIANT(GPUACT_OP_##op, kind, mask, dbias, fromx, precise, t0::id, t1::id, t2::id)) ? 0         \
     : GPUACT_OP_##op == GPUACT_OP_forward && (kind) != GPUACT_KIND_gelu && !(mask)                ? 3         \
                                                                                                      : 2)
/* A smooth kind's forward in the default evaluation, in blocks of GPUACT_BLOCK_SMALL, from a 4-byte
   x: writing few-bit codes, its blocks GPUACT_MIN_BLOCKS_CODES; without, every array 4-byte,
   GPUACT_MIN_BLOCKS_SMOOTH32. Else 0 (the other bounds). */
#define GPUACT_SMALL_BLOCKS(op, t0, t1, t2, kind, mask, precise)                                                   \
    (GPUACT_OP_##op != GPUACT_OP_forward || (precise) || !((GPUACT_TRANSCENDENTAL_KINDS >> (kind)) & 1u) ||          \
             t0::size != 4                                                                                         \
         ? 0                                                                                                       \
     : (mask)                                  ? GPUACT_MIN_BLOCKS_CODES                                           \
     : t1::size == 4 && t2::size == 4 ? GPUACT_MIN_BLOCKS_SMOOTH32                                                 \
                                               : 0)
/* Blocks per multiprocessor of a kernel with the bias gradient: the ReLU
   family's backward from the mask into a 4-byte dx (from a 16-bit dy:
   GPUACT_MIN_BLOCKS_WIDEN), else 1, the compiler's choice (see
   GPUACT_LAUNCH_BOUNDS). */
#define GPUACT_DBIAS_BLOCKS(op, t0, t1, mask, fromx)                                                  \
    (GPUACT_OP_##op == GPUACT_OP_backward && (mask) && !(fromx) && t1::size == 4                       \
         ? (GPUACT_WIDENS(t0::size, t1::size) ? GPUACT_MIN_BLOCKS_WIDEN : GPUACT_MIN_BLOCKS_DBIAS32) \
         : 1)
/* hardtanh's forward on the selection path writing the mask, every array
   f16 (same). */
#define GPUACT_HT16(op, t0, t1, t2, kind, mask, select)                                             \
    (GPUACT_OP_##op == GPUACT_OP_forward && (select) && (mask) && (kind) == GPUACT_KIND_hardtanh && \
     t0::id == GPUACT_DT_f16 && t1::id == GPUACT_DT_f16 && t2::id == GPUACT_DT_f16)
/* The ReLU family's general forward into a 16-bit y from a 4-byte array
   (the f32 product's epilogue into bf16; same). */
#define GPUACT_Y16(op, t0, t1, t2, kind, select)                                                  \
    (GPUACT_OP_##op == GPUACT_OP_forward && !(select) && t1::size == 2 &&                         \
     (t0::size == 4 || t2::size == 4) && ((GPUACT_SELECT_KINDS >> (kind)) & 1u))
#define GPUACT_KERNEL_X(op, name, t0, t1, t2, kind, mask, dbias, select, fromx, precise) \
    GPUACT_KERNEL(op, name, t0, t1, t2, kind, mask, dbias, select, fromx, precise)
#ifdef GPUACT_NAME
#define GPUACT_INSTANTIATE(op) \
    GPUACT_KERNEL_X(op, GPUACT_NAME, GPUACT_T0, GPUACT_T1, GPUACT_T2, GPUACT_KIND, GPUACT_MASK, GPUACT_DBIAS, \
                    GPUACT_SELECT, GPUACT_FROMX, GPUACT_PRECISE)
#else
#define GPUACT_INSTANTIATE(op)
#endif

#endif
