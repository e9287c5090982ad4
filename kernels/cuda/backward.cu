/* Backward: dx = select(passes, dy (* scale), +0), leaky: (dy (* scale)) *
   slope where it does not pass; the region from the mask (FROM_MASK) or
   from aux (the forward's x or y). SELECT_: scale 1 and DY = DX, so a
   passing element is dy's own bits. With DBIAS each row group (blockIdx.y)
   writes its column sums of the stored dx to part[blockIdx.y][c], adding
   its rows in order. DY = dy, DX = dx, S = the region's source (DY when
   from the mask). */
#include "common.cuh"

template <class DY, class DX, class S, int KIND, int FROM_MASK, int DBIAS, int SELECT_>
__device__ __forceinline__ void backward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<DY, DX, S>::value, U = GPUACT_UNROLL };
    enum { SELECT = SELECT_ && gpuact_same<DY, DX>::value };
    enum { CS = FROM_MASK && !DBIAS }; /* evict-first dy and dx: see gpuact_ld16 */
    const gpuact_u64 v0 = (gpuact_u64)blockIdx.x * (GPUACT_BLOCK * U) + threadIdx.x;
    const bool aligned = gpuact_rows_aligned(in, ld_in * DY::size, rows) &&
                         gpuact_rows_aligned(out, ld_out * DX::size, rows) &&
                         (FROM_MASK || gpuact_rows_aligned(aux, ld_aux * S::size, rows));
    const bool do_scale = !SELECT && (flags & GPUACT_F_SCALE);
    const gpuact_u32 cbits = gpuact_fromf<S>(ceiling); /* exact: see gpuact_passes_bits */
    float acc[U][VEC];
#pragma unroll
    for (int u = 0; u < U; u++)
#pragma unroll
        for (int k = 0; k < VEC; k++) acc[u][k] = 0.0f;
    if (v0 * VEC >= cols) return; /* no lane exchange in the backward */
    for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
        gpuact_u32 dy[U][VEC], s[U][VEC], dx[U][VEC], bits[U];
#pragma unroll
        for (int u = 0; u < U; u++) { /* every load first */
            const gpuact_u64 cv = v0 + u * GPUACT_BLOCK, c0 = cv * VEC;
            const bool vec_ok = aligned && c0 + VEC <= cols;
            if (c0 >= cols) continue;
            gpuact_load<DY, VEC, CS>(in + r * ld_in * DY::size, c0, cols, vec_ok, dy[u]);
            if (FROM_MASK) bits[u] = gpuact_mask_read<VEC>(mask + r * (mask_ld / 8), cv);
            else gpuact_load<S, VEC>(aux + r * ld_aux * S::size, c0, cols, vec_ok, s[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const gpuact_u64 c0 = (v0 + u * GPUACT_BLOCK) * VEC;
            if (c0 >= cols) continue;
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const bool pass = FROM_MASK ? (bits[u] >> k) & 1u : gpuact_passes_bits<S, KIND>(s[u][k], cbits);
                const float g = gpuact_tof<DY>(dy[u][k]), gs = do_scale ? g * scale : g;
                if (pass) dx[u][k] = SELECT ? dy[u][k] : gpuact_fromf<DX>(gs);
                else dx[u][k] = KIND == GPUACT_KIND_leaky ? gpuact_fromf<DX>(gpuact_blocked_grad(KIND, gs, slope)) : 0u;
                if (DBIAS) acc[u][k] += gpuact_tof<DX>(dx[u][k]);
            }
            gpuact_store<DX, VEC, CS>(out + r * ld_out * DX::size, c0, cols, aligned && c0 + VEC <= cols, dx[u]);
        }
    }
    if (DBIAS) {
        float *p = reinterpret_cast<float *>(part) + (gpuact_u64)blockIdx.y * cols;
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const gpuact_u64 c = (v0 + u * GPUACT_BLOCK) * VEC + k;
                if (c < cols) p[c] = acc[u][k];
            }
    }
}

GPUACT_INSTANTIATE(backward)
