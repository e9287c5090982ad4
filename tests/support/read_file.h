/* A whole file as a NUL-terminated string (malloc'd), for the tests that
   compile the kernel headers themselves (smooth_cl_check, smooth_rtc_check):
   root/rel, or NULL with a line on stderr naming the path. */
#ifndef GPUACT_TEST_READ_FILE_H
#define GPUACT_TEST_READ_FILE_H

#include <stdio.h>
#include <stdlib.h>

static char *support_read_file(const char *root, const char *rel)
{
    char path[4096];
    FILE *f;
    long n;
    char *buf;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    if (!(f = fopen(path, "rb"))) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (char *)malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

#endif
