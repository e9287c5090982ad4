/* Backward kernels for HIP: the CUDA source, in the HIP dialect. */
#include "dialect.h"
#include "../cuda/backward.cu"
