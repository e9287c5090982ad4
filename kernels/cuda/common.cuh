/* gpuact CUDA/HIP kernels: shared pieces, written once for both dialects
   (dialect.cuh / ../hip/dialect.h provide gpuact_u64, gpuact_u32,
   gpuact_h2f, gpuact_f2h and GPUACT_FROM_NEXT_LANE).

   Every kernel has the parameter list GPUACT_PARAMS (see gpuact.h,
   ">>backend interface") and is specialised at compile time by GPUACT_SPEC
   (activation kind and mode, see gpuact__spec in gpuact.h), so each module
   holds one straight-line path. A thread owns GPUACT_UNROLL vectors of VEC
   consecutive elements of a row, BLOCK vectors apart (each warp access stays
   contiguous; two 16-byte loads in flight per thread is what reaches the
   copy bandwidth on an H200). A vector is 16 bytes of the widest array
   (VEC = 8 when every array is 16-bit, else 4), loaded with one access when
   rows are 16-byte aligned, element by element otherwise and at a row's
   ragged end. Indices are 64-bit. Data moves as raw bits so pass-through
   NaNs keep their payload. */
#ifndef GPUACT_COMMON_CUH
#define GPUACT_COMMON_CUH

#define GPUACT_BLOCK 256
#ifndef GPUACT_UNROLL /* the host passes it (GPUACT__UNROLL in gpuact_cudalike.h) */
#define GPUACT_UNROLL 2
#endif
#define GPUACT_F_BIAS 1  /* run-time flags of the general paths */
#define GPUACT_F_SCALE 4
#define GPUACT_F_RAW 8

/* dtype tags: the names are the ones in the kernel names */
struct f32 { enum { size = 4 }; };
struct f16 { enum { size = 2 }; };
struct bf16 { enum { size = 2 }; };

template <class A, class B> struct gpuact_same { enum { value = 0 }; };
template <class A> struct gpuact_same<A, A> { enum { value = 1 }; };

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

/* 16-byte global accesses; CS marks them evict-first (.cs, CUDA only).
   Measured on the H200 (docs/PERFORMANCE.md): .cs makes the forward 5%
   slower and the dbias backward 10% slower, but the backward from the mask
   (its only other input is 1/32 of the bytes) 3% faster, so only that
   kernel asks for it. */
template <bool CS> __device__ __forceinline__ uint4 gpuact_ld16(const unsigned char *p) {
#if defined(GPUACT_DIALECT_CUDA)
    if (CS) {
        uint4 v;
        asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
        return v;
    }
#endif
    return *reinterpret_cast<const uint4 *>(p);
}
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
template <class T, int VEC, bool CS = false>
__device__ __forceinline__ void gpuact_load(const unsigned char *row, gpuact_u64 c0, gpuact_u64 cols, bool vec_ok,
                                            gpuact_u32 (&v)[VEC]) {
    if (vec_ok) {
        gpuact_u32 w[4];
        if (VEC * T::size == 16) {
            uint4 q = gpuact_ld16<CS>(row + c0 * T::size);
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

/* Row starts are 16-byte aligned (a single row needs only its base). */
__device__ __forceinline__ bool gpuact_rows_aligned(const void *p, gpuact_u64 ld_bytes, gpuact_u64 rows) {
    return ((gpuact_u64)p % 16 == 0) && (rows == 1 || ld_bytes % 16 == 0);
}

/* The activation, DESIGN.md's tables: comparisons chosen so that a NaN
   takes the pass-through branch by selection (never fmaxf/fminf). KIND:
   0 relu, 1 leaky, 2 clipped. */
template <int KIND> __device__ __forceinline__ float gpuact_act(float z, float slope, float c) {
    if (KIND == 1) return z > 0.0f ? z : z * slope;
    if (KIND == 2) return z <= 0.0f ? 0.0f : (z >= c ? c : z);
    return z <= 0.0f ? 0.0f : z;
}
template <int KIND> __device__ __forceinline__ bool gpuact_passes(float v, float c) {
    if (KIND == 1) return v > 0.0f;
    if (KIND == 2) return !(v <= 0.0f || v >= c);
    return !(v <= 0.0f);
}

/* The same tests on raw bits of type T: a NaN by its exponent and mantissa,
   order by the signed integer (exact for non-NaN values). The selection
   paths use these, so no compiler can rewrite `z <= 0 ? 0 : x` into a
   NaN-canonicalising max (NVIDIA's OpenCL compiler did), and f16 needs no
   conversion. cbits: the ceiling as T (exact where these are used: the
   elementwise ops round it to T, the epilogue's backward from y refuses
   clipped ReLU). */
template <class T> __device__ __forceinline__ int gpuact_sbits(gpuact_u32 b) {
    return T::size == 4 ? (int)b : (int)(short)(unsigned short)b;
}
template <class T> __device__ __forceinline__ bool gpuact_nan_bits(gpuact_u32 b) {
    return T::size == 4 ? (b & 0x7fffffffu) > 0x7f800000u
                        : (b & 0x7fffu) > (gpuact_same<T, f16>::value ? 0x7c00u : 0x7f80u);
}
template <class T, int KIND> __device__ __forceinline__ bool gpuact_passes_bits(gpuact_u32 b, gpuact_u32 cbits) {
    const bool nan = gpuact_nan_bits<T>(b);
    const int v = gpuact_sbits<T>(b);
    if (KIND == 1) return v > 0 && !nan;
    if (KIND == 2) return nan || (v > 0 && v < gpuact_sbits<T>(cbits));
    return nan || v > 0;
}

/* ReLU of the two 16-bit values of a word at once: a lane becomes +0 where
   its sign is set and it is not a NaN (mag + (0x7fff - inf) carries into
   the lane's top bit exactly when mag > inf; no carry crosses lanes). */
template <class T> __device__ __forceinline__ gpuact_u32 gpuact_relu_pair(gpuact_u32 w) {
    const gpuact_u32 inf = gpuact_same<T, f16>::value ? 0x7c00u : 0x7f80u;
    const gpuact_u32 nan = ((w & 0x7fff7fffu) + (0x7fffu - inf) * 0x00010001u) & 0x80008000u;
    const gpuact_u32 zero = w & 0x80008000u & ~nan;
    return w & ~((zero >> 15) * 0xffffu);
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

/* extern "C" kernel gpuact_<op>_<a>_<b>_<c>_<spec> running op<a, b, c, spec>.
   The _X form expands macro arguments (GPUACT_T0...) first. */
#define GPUACT_KERNEL(op, a, b, c, s)                                                               \
    extern "C" __global__ void __launch_bounds__(GPUACT_BLOCK)                                      \
        gpuact_##op##_##a##_##b##_##c##_##s(GPUACT_PARAMS) {                                        \
        op<a, b, c, s>(GPUACT_ARGS);                                                                \
    }
#define GPUACT_KERNEL_X(op, a, b, c, s) GPUACT_KERNEL(op, a, b, c, s)
/* One variant (run-time builds: -DGPUACT_T0=.. -DGPUACT_T1=.. -DGPUACT_T2=..
   -DGPUACT_SPEC=..), all of them (-DGPUACT_ALL_VARIANTS: the fatbin and the
   full check), or every dtype triple at one spec (-DGPUACT_ALL_DTYPES
   -DGPUACT_SPEC=..). An op file defines GPUACT_SPECS, the list of its specs. */
#define GPUACT_ALL_C(M, op, a, b) M(op, a, b, f32) M(op, a, b, f16) M(op, a, b, bf16)
#define GPUACT_ALL_BC(M, op, a) GPUACT_ALL_C(M, op, a, f32) GPUACT_ALL_C(M, op, a, f16) GPUACT_ALL_C(M, op, a, bf16)
#define GPUACT_ALL(M, op) GPUACT_ALL_BC(M, op, f32) GPUACT_ALL_BC(M, op, f16) GPUACT_ALL_BC(M, op, bf16)
#define GPUACT_AT_SPEC(op, a, b, c) GPUACT_KERNEL_X(op, a, b, c, GPUACT_SPEC)
#if defined(GPUACT_ALL_VARIANTS)
#define GPUACT_INSTANTIATE(op) GPUACT_ALL(GPUACT_SPECS, op)
#elif defined(GPUACT_ALL_DTYPES) /* every dtype triple at spec GPUACT_SPEC: the quicker checks */
#define GPUACT_INSTANTIATE(op) GPUACT_ALL(GPUACT_AT_SPEC, op)
#else
#define GPUACT_INSTANTIATE(op) GPUACT_KERNEL_X(op, GPUACT_T0, GPUACT_T1, GPUACT_T2, GPUACT_SPEC)
#endif
#define GPUACT_SPECS_1(op, a, b, c) GPUACT_KERNEL(op, a, b, c, 0)
#define GPUACT_SPECS_12(op, a, b, c)                                                                \
    GPUACT_KERNEL(op, a, b, c, 0) GPUACT_KERNEL(op, a, b, c, 1) GPUACT_KERNEL(op, a, b, c, 2)      \
    GPUACT_KERNEL(op, a, b, c, 3) GPUACT_KERNEL(op, a, b, c, 4) GPUACT_KERNEL(op, a, b, c, 5)      \
    GPUACT_KERNEL(op, a, b, c, 6) GPUACT_KERNEL(op, a, b, c, 7) GPUACT_KERNEL(op, a, b, c, 8)      \
    GPUACT_KERNEL(op, a, b, c, 9) GPUACT_KERNEL(op, a, b, c, 10) GPUACT_KERNEL(op, a, b, c, 11)
#define GPUACT_SPECS_24(op, a, b, c)                                                                \
    GPUACT_SPECS_12(op, a, b, c) GPUACT_KERNEL(op, a, b, c, 12) GPUACT_KERNEL(op, a, b, c, 13)     \
    GPUACT_KERNEL(op, a, b, c, 14) GPUACT_KERNEL(op, a, b, c, 15) GPUACT_KERNEL(op, a, b, c, 16)   \
    GPUACT_KERNEL(op, a, b, c, 17) GPUACT_KERNEL(op, a, b, c, 18) GPUACT_KERNEL(op, a, b, c, 19)   \
    GPUACT_KERNEL(op, a, b, c, 20) GPUACT_KERNEL(op, a, b, c, 21) GPUACT_KERNEL(op, a, b, c, 22)   \
    GPUACT_KERNEL(op, a, b, c, 23)

#endif
