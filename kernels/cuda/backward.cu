/* Backward: dx = select(passes, dy (* scale), +0), leaky: (dy (* scale)) *
   slope where it does not pass; the region from the mask or from aux (the
   forward's x or y). With GPUACT_F_DBIAS each row group (blockIdx.y) also
   writes its column sums of the stored dx to part[blockIdx.y][c], in row
   order. DY = dy, DX = dx, S = the region's source (DY when from the mask). */
#ifndef GPUACT_DIALECT
#include "dialect.cuh"
#endif
#include "common.cuh"

template <class DY, class DX, class S>
__device__ __forceinline__ void backward(GPUACT_PARAMS) {
    enum { VEC = gpuact_vec<DY, DX, S>::value };
    const gpuact_u64 cv = (gpuact_u64)blockIdx.x * GPUACT_BLOCK + threadIdx.x, c0 = cv * VEC;
    const bool from_mask = flags & GPUACT_F_MASK, dbias = flags & GPUACT_F_DBIAS, in_row = c0 < cols;
    const bool aligned = gpuact_rows_aligned(in, ld_in * DY::size, rows) &&
                         gpuact_rows_aligned(out, ld_out * DX::size, rows) &&
                         (from_mask || gpuact_rows_aligned(aux, ld_aux * S::size, rows));
    const bool vec_ok = aligned && c0 + VEC <= cols;
    float acc[VEC];
#pragma unroll
    for (int k = 0; k < VEC; k++) acc[k] = 0.0f;
    if (!in_row) return; /* no lane exchange in the backward */
    for (gpuact_u64 r = blockIdx.y; r < rows; r += gridDim.y) {
        gpuact_u32 dy[VEC], s[VEC], dx[VEC], bits = 0;
        gpuact_load<DY, VEC>(in + r * ld_in * DY::size, c0, cols, vec_ok, dy);
        if (from_mask) bits = gpuact_mask_read<VEC>(mask + r * (mask_ld / 8), cv);
        else gpuact_load<S, VEC>(aux + r * ld_aux * S::size, c0, cols, vec_ok, s);
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const float g = gpuact_tof<DY>(dy[k]);
            const float gs = (flags & GPUACT_F_SCALE) ? g * scale : g;
            const bool pass = from_mask ? (bits >> k) & 1u : gpuact_passes(kind, gpuact_tof<S>(s[k]), ceiling);
            if (pass) dx[k] = (flags & GPUACT_F_RAW) && g != g ? dy[k] : gpuact_fromf<DX>(gs);
            else dx[k] = gpuact_fromf<DX>(kind == 1 ? gs * slope : 0.0f);
            if (dbias) acc[k] += gpuact_tof<DX>(dx[k]);
        }
        gpuact_store<DX, VEC>(out + r * ld_out * DX::size, c0, cols, vec_ok, dx);
    }
    if (dbias) {
        float *p = part + (gpuact_u64)blockIdx.y * cols;
#pragma unroll
        for (int k = 0; k < VEC; k++)
            if (c0 + k < cols) p[c0 + k] = acc[k];
    }
}

GPUACT_INSTANTIATE(backward)
