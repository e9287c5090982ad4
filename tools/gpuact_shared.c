/* The translation unit of build/libgpuact.so (`make shared`), for callers
   that load gpuact dynamically through a foreign-function interface (ctypes, cffi).
   It exports the whole public API of gpuact.h with default visibility, plus
   a few helpers that a foreign-function caller needs (the copy the
   benchmarks measure against is the public gpuact_testing_copy):

     gpuact_shared_context_stream(ctx)   the stream a NULL stream stands for
     gpuact_shared_layout(type, field)    sizeof(type) (field "" or NULL) or
                                          offsetof(type, field); (size_t)-1
                                          for a name it does not know. ctypes
                                          mirrors of the descriptors check
                                          their layout against it. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

#include <stddef.h>
#include <string.h>

#if defined(__GNUC__)
#define GPUACT_SHARED_API __attribute__((visibility("default")))
#else
#define GPUACT_SHARED_API
#endif

GPUACT_SHARED_API void *gpuact_shared_context_stream(const gpuact_context *ctx);
GPUACT_SHARED_API size_t gpuact_shared_layout(const char *type, const char *field);

void *gpuact_shared_context_stream(const gpuact_context *ctx) { return ctx ? gpuact_context_query_desc(ctx).stream : NULL; }

typedef struct gpuact_shared_field { const char *type, *field; size_t value; } gpuact_shared_field;
#define GPUACT_SHARED_SIZE(T) {#T, "", sizeof(T)}
#define GPUACT_SHARED_FIELD(T, f) {#T, #f, offsetof(T, f)}

size_t gpuact_shared_layout(const char *type, const char *field) {
    static const gpuact_shared_field table[] = {
        GPUACT_SHARED_SIZE(gpuact_buffer),
        GPUACT_SHARED_FIELD(gpuact_buffer, handle), GPUACT_SHARED_FIELD(gpuact_buffer, offset),
        GPUACT_SHARED_SIZE(gpuact_activation),
        GPUACT_SHARED_FIELD(gpuact_activation, kind), GPUACT_SHARED_FIELD(gpuact_activation, negative_slope),
        GPUACT_SHARED_FIELD(gpuact_activation, ceiling), GPUACT_SHARED_FIELD(gpuact_activation, lower),
        GPUACT_SHARED_FIELD(gpuact_activation, flags),
        GPUACT_SHARED_SIZE(gpuact_context_desc),
        GPUACT_SHARED_FIELD(gpuact_context_desc, backend), GPUACT_SHARED_FIELD(gpuact_context_desc, device),
        GPUACT_SHARED_FIELD(gpuact_context_desc, native_context),
        GPUACT_SHARED_FIELD(gpuact_context_desc, native_device), GPUACT_SHARED_FIELD(gpuact_context_desc, stream),
        GPUACT_SHARED_FIELD(gpuact_context_desc, cache_dir),
        GPUACT_SHARED_SIZE(gpuact_forward_desc),
        GPUACT_SHARED_FIELD(gpuact_forward_desc, act), GPUACT_SHARED_FIELD(gpuact_forward_desc, dtype),
        GPUACT_SHARED_FIELD(gpuact_forward_desc, n), GPUACT_SHARED_FIELD(gpuact_forward_desc, x),
        GPUACT_SHARED_FIELD(gpuact_forward_desc, y), GPUACT_SHARED_FIELD(gpuact_forward_desc, mask),
        GPUACT_SHARED_FIELD(gpuact_forward_desc, codes), GPUACT_SHARED_FIELD(gpuact_forward_desc, code_bits),
        GPUACT_SHARED_SIZE(gpuact_backward_desc),
        GPUACT_SHARED_FIELD(gpuact_backward_desc, act), GPUACT_SHARED_FIELD(gpuact_backward_desc, dtype),
        GPUACT_SHARED_FIELD(gpuact_backward_desc, n), GPUACT_SHARED_FIELD(gpuact_backward_desc, dy),
        GPUACT_SHARED_FIELD(gpuact_backward_desc, dx), GPUACT_SHARED_FIELD(gpuact_backward_desc, x),
        GPUACT_SHARED_FIELD(gpuact_backward_desc, mask),
        GPUACT_SHARED_FIELD(gpuact_backward_desc, codes), GPUACT_SHARED_FIELD(gpuact_backward_desc, code_bits),
        GPUACT_SHARED_SIZE(gpuact_epilogue_desc),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, act), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, rows),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, cols), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, x_dtype),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, y_dtype), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, bias_dtype),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, ld_x), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, ld_y),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, scale), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, x),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, bias), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, y),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, mask), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, mask_ld),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, codes), GPUACT_SHARED_FIELD(gpuact_epilogue_desc, code_bits),
        GPUACT_SHARED_FIELD(gpuact_epilogue_desc, codes_ld),
        GPUACT_SHARED_SIZE(gpuact_epilogue_backward_desc),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, act),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, rows),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, cols),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, dy_dtype),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, dx_dtype),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, y_dtype),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, dbias_dtype),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, ld_dy),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, ld_dx),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, ld_y),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, scale),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, dy),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, dx),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, y),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, mask),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, mask_ld),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, dbias),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, x),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, bias),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, x_dtype),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, ld_x),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, codes),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, code_bits),
        GPUACT_SHARED_FIELD(gpuact_epilogue_backward_desc, codes_ld),
        GPUACT_SHARED_SIZE(gpuact_glu_desc),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, act),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, rows),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, cols),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, x_dtype),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, y_dtype),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, ld_a),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, ld_b),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, ld_y),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, a),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, b),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, y),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, bias_a),
        GPUACT_SHARED_FIELD(gpuact_glu_desc, bias_b),
        GPUACT_SHARED_SIZE(gpuact_glu_backward_desc),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, act),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, rows),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, cols),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, dy_dtype),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, x_dtype),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, dbias_dtype),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, ld_dy),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, ld_a),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, ld_b),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, ld_da),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, ld_db),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, dy),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, a),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, b),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, bias_a),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, bias_b),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, da),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, db),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, dbias_a),
        GPUACT_SHARED_FIELD(gpuact_glu_backward_desc, dbias_b),
    };
    size_t i;
    if (!type) return (size_t)-1;
    if (!field) field = "";
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].type, type) && !strcmp(table[i].field, field)) return table[i].value;
    return (size_t)-1;
}
