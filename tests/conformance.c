/*
conformance.c -- the shared conformance suite: every op x dtype x activation
on every backend compiled in and available, bit for bit against the CPU
reference in gpuact_ref.h (docs/NUMERICS.md).

Every run poisons its outputs and surrounds every buffer with canary bytes
inside the same allocation. Afterwards it reads the whole allocation back:
the canaries, the row padding (ld > cols) and the mask bytes past a row's
ceil(cols / 8) must be untouched, inputs unchanged, and every element must
equal the reference (gpuact_ref_same; dbias within 1e-5 of sum |dx|).

    usage: conformance [-v]        -v also lists the passing cases
           conformance --launched FILE...   whether the runs that wrote FILE...
                                   launched every reachable variant together

    GPUACT_BACKEND=cuda|hip|opencl  test only that backend
    GPUACT_CONFORMANCE_LARGE=N      n of the large case (default 2^27 + 5; 0 skips it)
    GPUACT_CONFORMANCE_SUITES=a,b   only those suites (elementwise, epilogue, variant,
                                   glu, codes, large); no variant count then, unless
    GPUACT_CONFORMANCE_LAUNCHED=F   appends the launched variants to F (for --launched:
                                   `make test` runs two parts side by side)
    GPUACT_CACHE_DIR                as for the library (the context uses the default)

The suites, one file per operation, are in tests/conformance/: common.h
(cases, guarded regions, the comparison, the activations), elementwise.c,
epilogue.c, gated.c, codes.c (the few-bit codes) and variants.c (every
kernel variant), compiled here as one translation unit; the expected values
come from reference.c, an object of its own (reference.h says why).

One line per failed case names the op, dtypes, activation, shape, offsets,
placement and the first wrong byte or element with both bit patterns. The
last line is always "N passed, N failed".
*/
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "gpuact_ref.h"
#include "conformance/reference.h"
#include "support/harness.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/common.h"
#include "conformance/elementwise.c"
#include "conformance/epilogue.c"
#include "conformance/gated.c"
#include "conformance/codes.c"
#include "conformance/variants.c"

/* >>main */

static int suite_on(const char *suites, const char *name)
{
    const char *p = suites;
    size_t n = strlen(name);
    if (!suites)
        return 1;
    while ((p = strstr(p, name)) != NULL) {
        if ((p == suites || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
        p += n;
    }
    return 0;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

int main(int argc, char **argv)
{
    static const gpuact_backend BACKENDS[] = {
#ifndef GPUACT_NO_CUDA
        GPUACT_BACKEND_CUDA,
#endif
#ifndef GPUACT_NO_HIP
        GPUACT_BACKEND_HIP,
#endif
#ifndef GPUACT_NO_OPENCL
        GPUACT_BACKEND_OPENCL,
#endif
    };
    const char *only = env_or("GPUACT_BACKEND", NULL);
    const char *large_env = env_or("GPUACT_CONFORMANCE_LARGE", NULL);
    /* GPUACT_CONFORMANCE_SUITES=glu,epilogue...: only those (for debugging; no variant count) */
    const char *suites = env_or("GPUACT_CONFORMANCE_SUITES", NULL);
    const char *launched_out = env_or("GPUACT_CONFORMANCE_LAUNCHED", NULL);
    size_t large = ((size_t)1 << 27) + 5;
    size_t i;
    int i_arg, tested = 0;

    if (argc > 1 && strcmp(argv[1], "--launched") == 0)
        return check_launched(argc - 2, argv + 2);
    for (i_arg = 1; i_arg < argc; i_arg++) {
        if (strcmp(argv[i_arg], "-v") == 0) {
            verbose = 1;
        } else {
            fprintf(stderr, "usage: %s [-v] | --launched FILE...\n", argv[0]);
            return 2;
        }
    }
    if (only && strcmp(only, "cuda") != 0 && strcmp(only, "hip") != 0 && strcmp(only, "opencl") != 0) {
        fprintf(stderr, "GPUACT_BACKEND=%s: expected cuda, hip or opencl\n", only);
        return 2;
    }
    if (large_env) {
        char *end;
        unsigned long long v = strtoull(large_env, &end, 0);
        if (*end != '\0' || v > SIZE_MAX / 4) {
            fprintf(stderr, "GPUACT_CONFORMANCE_LARGE=%s: expected an element count\n", large_env);
            return 2;
        }
        large = (size_t)v;
    }
    acts_cover_the_table();
    memset(canary_bytes, CANARY, sizeof canary_bytes);
    readback = (unsigned char *)malloc(CHUNK);
    staging = (unsigned char *)malloc(CHUNK);
    if (!readback || !staging) {
        fprintf(stderr, "out of host memory\n");
        return 2;
    }

    if (only) {
        for (i = 0; i < sizeof BACKENDS / sizeof BACKENDS[0]; i++)
            if (strcmp(gpuact_backend_name(BACKENDS[i]), only) == 0)
                break;
        if (i == sizeof BACKENDS / sizeof BACKENDS[0])
            printf("SKIP %s: compiled out of this build\n", only);
    }
    for (i = 0; i < sizeof BACKENDS / sizeof BACKENDS[0]; i++) {
        gpuact_context_desc desc;
        gpuact_result res;
        if (only && strcmp(gpuact_backend_name(BACKENDS[i]), only) != 0)
            continue;
        memset(&desc, 0, sizeof desc);
        desc.backend = BACKENDS[i];
        desc.cache_dir = NULL;   /* the default: $GPUACT_CACHE_DIR or ~/.cache/gpuact */
        res = gpuact_context_create(&desc, &ctx);
        if (res != GPUACT_SUCCESS) {
            printf("SKIP %s: %s\n", gpuact_backend_name(BACKENDS[i]), harness_first_line(gpuact_last_error()));
            continue;
        }
        printf("backend %s: %s\n", gpuact_backend_name(BACKENDS[i]), gpuact_context_device_name(ctx));
        fflush(stdout);
        tested++;
        if (suite_on(suites, "elementwise")) elementwise_suite();
        if (suite_on(suites, "epilogue")) epilogue_suite();
        if (suite_on(suites, "variant")) variant_suite();
        if (suite_on(suites, "glu")) glu_suite();
        if (suite_on(suites, "codes")) codes_suite();
        if (suite_on(suites, "large")) large_suite(large);
        if (!suites) variants_launched(); /* only a full run launches them all */
        else if (launched_out) record_launched(launched_out, gpuact_backend_name(BACKENDS[i]));
        gpuact_context_destroy(ctx);
        ctx = NULL;
    }
    free(readback);
    free(staging);
    /* GPUACT_CONFORMANCE_REQUIRE=1 (make test sets it: `make deps` installs
       PoCL): a run in which every backend was skipped is a failure, so CI
       cannot pass without having tested anything. */
    if (tested == 0 && getenv("GPUACT_CONFORMANCE_REQUIRE") && atoi(getenv("GPUACT_CONFORMANCE_REQUIRE"))) {
        printf("FAIL no backend could be tested, and GPUACT_CONFORMANCE_REQUIRE is set\n");
        n_failed++;
    }
    printf("%lu passed, %lu failed\n", n_passed, n_failed);
    return n_failed == 0 && (n_passed > 0 || tested == 0) ? 0 : 1;
}
