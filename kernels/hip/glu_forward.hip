/* glu_forward kernels for HIP: the CUDA source, in the HIP dialect. */
#include "dialect.h"
#include "../cuda/glu_forward.cu"
