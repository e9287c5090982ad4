/* gpuact CUDA/HIP kernels: shared pieces, written once for both dialects
   (dialect.cuh / ../hip/dialect.h provide gpuact_u64, gpuact_u32,
   gpuact_h2f, gpuact_f2h and GPUACT_FROM_NEXT_LANE).

   Every kernel has the parameter list GPUACT_PARAMS (see gpuact.h,
   ">>backend interface"). A thread owns VEC consecutive elements of a row:
   16 bytes of the widest array (VEC = 8 when every array is 16-bit, else 4),
   loaded with one vector access when the rows are 16-byte aligned, element
   by element otherwise and at a row's ragged end. Indices are 64-bit.
   Data moves as raw bits so pass-through NaNs keep their payload. */
#ifndef GPUACT_COMMON_CUH
#define GPUACT_COMMON_CUH

#define GPUACT_BLOCK 256
#define GPUACT_F_BIAS 1
#define GPUACT_F_MASK 2
#define GPUACT_F_SCALE 4
#define GPUACT_F_RAW 8
#define GPUACT_F_DBIAS 16

/* dtype tags: the names are the ones in the kernel names */
struct f32 { enum { size = 4 }; };
struct f16 { enum { size = 2 }; };
struct bf16 { enum { size = 2 }; };

template <class T> __device__ __forceinline__ float gpuact_tof(gpuact_u32 b);
template <> __device__ __forceinline__ float gpuact_tof<f32>(gpuact_u32 b) { return __uint_as_float(b); }
template <> __device__ __forceinline__ float gpuact_tof<bf16>(gpuact_u32 b) { return __uint_as_float(b << 16); }
template <> __device__ __forceinline__ float gpuact_tof<f16>(gpuact_u32 b) { return gpuact_h2f(b); }

template <class T> __device__ __forceinline__ gpuact_u32 gpuact_fromf(float v);
template <> __device__ __forceinline__ gpuact_u32 gpuact_fromf<f32>(float v) { return __float_as_uint(v); }
template <> __device__ __forceinline__ gpuact_u32 gpuact_fromf<f16>(float v) { return gpuact_f2h(v); }
/* Round to nearest even; a NaN stays a quiet NaN (the carry must not make it Inf). */
template <> __device__ __forceinline__ gpuact_u32 gpuact_fromf<bf16>(float v) {
    gpuact_u32 u = __float_as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

/* Elements per thread for a kernel over arrays of types A, B, C. The host
   (gpuact__vec_width) applies the same rule. */
template <class A, class B, class C> struct gpuact_vec {
    enum { value = (A::size == 2 && B::size == 2 && C::size == 2) ? 8 : 4 };
};

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

template <class T, int VEC>
__device__ __forceinline__ void gpuact_store(unsigned char *row, gpuact_u64 c0, gpuact_u64 cols, bool vec_ok,
                                             const gpuact_u32 (&v)[VEC]) {
    if (vec_ok) {
        gpuact_u32 w[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            w[k] = T::size == 4 ? v[k < VEC ? k : 0] : (v[(2 * k) % VEC] | (v[(2 * k + 1) % VEC] << 16));
        if (VEC * T::size == 16)
            *reinterpret_cast<uint4 *>(row + c0 * T::size) = make_uint4(w[0], w[1], w[2], w[3]);
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

/* Row starts are 16-byte aligned (a single row needs only its base). */
__device__ __forceinline__ bool gpuact_rows_aligned(const void *p, gpuact_u64 ld_bytes, gpuact_u64 rows) {
    return ((gpuact_u64)p % 16 == 0) && (rows == 1 || ld_bytes % 16 == 0);
}

/* The activation, DESIGN.md's tables: comparisons chosen so that a NaN
   takes the pass-through branch by selection (never fmaxf/fminf). */
__device__ __forceinline__ float gpuact_act(int kind, float z, float slope, float c) {
    if (kind == 1) return z > 0.0f ? z : z * slope;
    if (kind == 2) return z <= 0.0f ? 0.0f : (z >= c ? c : z);
    return z <= 0.0f ? 0.0f : z;
}
__device__ __forceinline__ bool gpuact_passes(int kind, float v, float c) {
    if (kind == 1) return v > 0.0f;
    if (kind == 2) return !(v <= 0.0f || v >= c);
    return !(v <= 0.0f);
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

#define GPUACT_PARAMS                                                                                       \
    const unsigned char *in, unsigned char *out, const unsigned char *aux, unsigned char *mask, float *part, \
        gpuact_u64 rows, gpuact_u64 cols, gpuact_u64 ld_in, gpuact_u64 ld_out, gpuact_u64 ld_aux,          \
        gpuact_u64 mask_ld, float scale, float slope, float ceiling, int kind, int flags
#define GPUACT_ARGS \
    in, out, aux, mask, part, rows, cols, ld_in, ld_out, ld_aux, mask_ld, scale, slope, ceiling, kind, flags

/* extern "C" kernel gpuact_<op>_<a>_<b>_<c> running op<a, b, c>. The _X form
   expands macro arguments (GPUACT_T0...) first. */
#define GPUACT_KERNEL(op, a, b, c)                                                                  \
    extern "C" __global__ void __launch_bounds__(GPUACT_BLOCK) gpuact_##op##_##a##_##b##_##c(GPUACT_PARAMS) { \
        op<a, b, c>(GPUACT_ARGS);                                                                  \
    }
#define GPUACT_KERNEL_X(op, a, b, c) GPUACT_KERNEL(op, a, b, c)
#define GPUACT_ALL_C(op, a, b) GPUACT_KERNEL(op, a, b, f32) GPUACT_KERNEL(op, a, b, f16) GPUACT_KERNEL(op, a, b, bf16)
#define GPUACT_ALL_BC(op, a) GPUACT_ALL_C(op, a, f32) GPUACT_ALL_C(op, a, f16) GPUACT_ALL_C(op, a, bf16)
#define GPUACT_ALL(op) GPUACT_ALL_BC(op, f32) GPUACT_ALL_BC(op, f16) GPUACT_ALL_BC(op, bf16)
/* One variant (run-time builds: -DGPUACT_T0=.. -DGPUACT_T1=.. -DGPUACT_T2=..)
   or all of them (-DGPUACT_ALL_VARIANTS: the fatbin and the checks). */
#ifdef GPUACT_ALL_VARIANTS
#define GPUACT_INSTANTIATE(op) GPUACT_ALL(op)
#else
#define GPUACT_INSTANTIATE(op) GPUACT_KERNEL_X(op, GPUACT_T0, GPUACT_T1, GPUACT_T2)
#endif

#endif
