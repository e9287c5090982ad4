/* cl_program: the program binaries the OpenCL driver built for chosen kernel
   variants (NVIDIA's driver returns PTX), to read what the kernels compiled
   to: local-memory traffic, instruction counts. A developer's tool, not part
   of the library.

     cl_program OUTDIR SUBSTRING...   every reachable variant whose name
                                      contains one of the substrings

   Writes OUTDIR/<kernel name>.bin and prints one line per variant: name,
   bytes, and the lines mentioning .local (PTX local memory). Uses the
   library's own OpenCL backend to build, then reads the program back. */
#define GPUACT_NO_CUDA
#define GPUACT_NO_HIP
#define GPUACT_IMPLEMENTATION
#include "gpuact.h" /* -I. (or -I<other tree>) */

#include <dlfcn.h>

#define CL_PROGRAM_BINARY_SIZES_ 0x1165
#define CL_PROGRAM_BINARIES_ 0x1166

int main(int argc, char **argv) {
    typedef int (*get_info_fn)(void *, unsigned, size_t, void *, size_t *);
    gpuact_context_desc desc;
    gpuact_context *ctx = NULL;
    get_info_fn get_info;
    void *lib;
    int i, state, shown = 0;
    char name[GPUACT__NAME_MAX];
    if (argc < 3) {
        fprintf(stderr, "usage: cl_program OUTDIR SUBSTRING...\n");
        return 2;
    }
    memset(&desc, 0, sizeof desc);
    desc.backend = GPUACT_BACKEND_OPENCL;
    if (gpuact_context_create(&desc, &ctx) != GPUACT_SUCCESS) {
        fprintf(stderr, "cl_program: %s\n", gpuact_last_error());
        return 1;
    }
    lib = GPUACT__CL(ctx)->lib ? GPUACT__CL(ctx)->lib : dlopen("libOpenCL.so.1", RTLD_NOW);
    {
        gpuact__symbol q[] = {{"clGetProgramInfo", (void *)&get_info}};
        if (!lib || gpuact__resolve(lib, q, 1)) get_info = NULL;
    }
    if (!get_info) {
        fprintf(stderr, "cl_program: no clGetProgramInfo\n");
        return 1;
    }
    for (i = 0; (state = gpuact_testing_variant(ctx, i, name, sizeof name)) >= 0; i++) {
        int a, want = 0;
        size_t size = 0;
        unsigned char *bin;
        char path[1024];
        FILE *f;
        if (state == 0) continue;
        for (a = 2; a < argc; a++) want |= strstr(name, argv[a]) != NULL;
        if (!want) continue;
        if (gpuact_testing_prepare(ctx, i) != GPUACT_SUCCESS) {
            fprintf(stderr, "cl_program: %s: %s\n", name, gpuact_last_error());
            return 1;
        }
        if (get_info(GPUACT__CL(ctx)->k[i].program, CL_PROGRAM_BINARY_SIZES_, sizeof size, &size, NULL) || !size) {
            fprintf(stderr, "cl_program: %s: no binary\n", name);
            continue;
        }
        bin = (unsigned char *)malloc(size + 1);
        if (!bin || get_info(GPUACT__CL(ctx)->k[i].program, CL_PROGRAM_BINARIES_, sizeof bin, &bin, NULL)) {
            fprintf(stderr, "cl_program: %s: reading the binary failed\n", name);
            return 1;
        }
        bin[size] = 0;
        snprintf(path, sizeof path, "%s/%s.bin", argv[1], name);
        if ((f = fopen(path, "wb"))) {
            fwrite(bin, 1, size, f);
            fclose(f);
        }
        {
            size_t local = 0;
            const char *p = (const char *)bin;
            while ((p = strstr(p, ".local"))) { local++; p++; }
            printf("%-56s %8zu bytes, %zu mentions of .local\n", name, size, local);
        }
        free(bin);
        shown++;
    }
    gpuact_context_destroy(ctx);
    return shown ? 0 : 1;
}
