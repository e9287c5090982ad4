/* The conformance suite's expected values, and their comparison with a
   result, in an object of their own (tests/conformance/reference.c): the
   reference (../gpuact_ref.h) run element by element over every case. They
   call nothing of the library, so the suite's ASan+UBSan build
   (CONFORMANCE_SANITIZED=1) links them built without the sanitizers, and
   what calls the library stays instrumented. The reference itself runs
   under the sanitizers in the other tests and the fuzzer. */
#ifndef CONFORMANCE_REFERENCE_H
#define CONFORMANCE_REFERENCE_H

#include "../gpuact_ref.h"

void ref_fill(gpuact_ref_rng *r, gpuact_dtype dt, void *base, size_t n, int specials, float near);
void ref_forward(const gpuact_ref_fwd *p);
void ref_backward(const gpuact_ref_bwd *p);
void ref_glu_forward(const gpuact_ref_glu *p);
void ref_glu_backward(const gpuact_ref_glu_bwd *p);
/* The first of count elements of dt where got is not want (gpuact_ref_same,
   flags[i] the nan_any entry of element i), else count. */
size_t ref_first_wrong(gpuact_dtype dt, const void *got, const void *want, const unsigned char *flags, size_t count);

#endif
