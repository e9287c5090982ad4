/* compile_test: the header with its implementation must compile as C99 and
   as C++ with -Wall -Wextra -Werror -pedantic, with any subset of backends
   (make compile-test builds it every way). Touches every public name. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

int main(void) {
    gpuact_context *ctx = NULL;
    gpuact_context_desc desc;
    gpuact_forward_desc f;
    gpuact_backward_desc b;
    gpuact_epilogue_desc e;
    gpuact_epilogue_backward_desc eb;
    gpuact_buffer buf = {NULL, 0};
    memset(&desc, 0, sizeof desc);
    memset(&f, 0, sizeof f);
    memset(&b, 0, sizeof b);
    memset(&e, 0, sizeof e);
    memset(&eb, 0, sizeof eb);
    /* Nothing runs: the program only has to link. */
    if (gpuact_dtype_size(GPUACT_BF16) == 2) return 0;
    (void)gpuact_result_string(GPUACT_SUCCESS);
    (void)gpuact_last_error();
    (void)gpuact_backend_name(GPUACT_BACKEND_AUTO);
    (void)gpuact_context_create(&desc, &ctx);
    (void)gpuact_context_backend(ctx);
    (void)gpuact_context_device_name(ctx);
    (void)gpuact_context_query_desc(ctx);
    (void)gpuact_buffer_alloc(ctx, 16, &buf);
    (void)gpuact_buffer_write(ctx, buf, &desc, 0);
    (void)gpuact_buffer_read(ctx, &desc, buf, 0);
    (void)gpuact_synchronize(ctx, NULL);
    (void)gpuact_relu_forward(ctx, GPUACT_F32, 0, buf, buf, NULL);
    (void)gpuact_relu_backward(ctx, GPUACT_F32, 0, buf, buf, buf, NULL);
    (void)gpuact_forward(ctx, &f, NULL);
    (void)gpuact_backward(ctx, &b, NULL);
    (void)gpuact_epilogue_forward(ctx, &e, NULL);
    (void)gpuact_epilogue_backward(ctx, &eb, NULL);
    gpuact_buffer_free(ctx, buf);
    gpuact_context_destroy(ctx);
    return 0;
}
