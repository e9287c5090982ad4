/* tests/conformance/reference.h's functions: gpuact_ref.h's, with
   external linkage (the Makefile builds this file as an object of its own,
   and always without the sanitizers). */
#include "reference.h"

void ref_fill(gpuact_ref_rng *r, gpuact_dtype dt, void *base, size_t n, int specials, float near)
{
    gpuact_ref_fill(r, dt, base, n, specials, near);
}

void ref_forward(const gpuact_ref_fwd *p) { gpuact_ref_forward(p); }
void ref_backward(const gpuact_ref_bwd *p) { gpuact_ref_backward(p); }
void ref_glu_forward(const gpuact_ref_glu *p) { gpuact_ref_glu_forward(p); }
void ref_glu_backward(const gpuact_ref_glu_bwd *p) { gpuact_ref_glu_backward(p); }

size_t ref_first_wrong(gpuact_dtype dt, const void *got, const void *want, const unsigned char *flags, size_t count)
{
    size_t i;
    for (i = 0; i < count; i++)
        if (!gpuact_ref_same(dt, gpuact_ref_raw(dt, got, i), gpuact_ref_raw(dt, want, i), flags[i]))
            break;
    return i;
}
