/* glu_backward kernels for HIP: the CUDA source, in the HIP dialect. */
#include "dialect.h"
#include "../cuda/glu_backward.cu"
