/* embed: turns kernel sources into a C header of line arrays, so the library
   stays header-only and within ISO C's string-length limits.

     embed OUT.h PROGRAM=SOURCE...
     embed --binary OUT.h NAME FILE

   Every file is embedded once: SOURCE and, recursively, each file it names
   in an `#include "file"` line (relative to the including file) becomes
     static const char *const gpuact__file_<path>[] = { "line\n", ..., 0 };
   (a blank line joined to the string before it)
   with its include lines turned into comments, and each PROGRAM becomes
     static const char *const *const gpuact__<PROGRAM>[] = { files..., 0 };
   the files of SOURCE's include closure in inclusion order (an included
   file before the file that includes it, each file once), which the
   backends concatenate into one translation unit. Files that several
   programs (and backends) include are stored once. The arrays are marked
   GPUACT__UNUSED: a build without some backend leaves its programs unused.
   --binary writes FILE as `static const unsigned long long NAME[]` (8-byte
   aligned, as a CUDA fatbin wants), little-endian words, zero-padded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 64
static char files[MAX_FILES][512]; /* every file emitted so far, normalised */
static int nfiles;

/* a/b/../c -> a/c, ./a -> a */
static void normalise(const char *in, char *out, size_t size) {
    char parts[32][128];
    int n = 0, i;
    const char *p = in;
    while (*p) {
        const char *q = strchr(p, '/');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        char part[128];
        snprintf(part, sizeof part, "%.*s", (int)len, p);
        if (!strcmp(part, "..") && n > 0 && strcmp(parts[n - 1], "..")) n--;
        else if (strcmp(part, ".") && part[0] && n < 32) snprintf(parts[n++], sizeof parts[0], "%s", part);
        p += len + (q != NULL);
    }
    out[0] = '\0';
    for (i = 0; i < n; i++) {
        strncat(out, parts[i], size - strlen(out) - 1);
        if (i + 1 < n) strncat(out, "/", size - strlen(out) - 1);
    }
}

static void c_name(const char *path, char *out, size_t size) {
    size_t k;
    snprintf(out, size, "gpuact__file_%s", path);
    for (k = 0; out[k]; k++)
        if (!((out[k] >= 'a' && out[k] <= 'z') || (out[k] >= 'A' && out[k] <= 'Z') || (out[k] >= '0' && out[k] <= '9')))
            out[k] = '_';
}

static int include_of(const char *line, const char *dir, char *sub, size_t size) {
    char inc[1024], raw[2100];
    if (sscanf(line, " #include \"%1000[^\"]\"", inc) != 1) return 0;
    snprintf(raw, sizeof raw, "%s%s", dir, inc);
    normalise(raw, sub, size);
    return 1;
}

/* Emits path's includes (depth first), then path, each file once; appends
   each file of the closure to order[] (once). */
static void emit_file(FILE *out, const char *path, int depth, char (*order)[512], int *norder) {
    char line[4096], dir[1024], sub[512], name[600];
    const char *slash = strrchr(path, '/');
    int i, seen = 0, open_string = 0;
    FILE *in = fopen(path, "r");
    if (!in || depth > 8) {
        fprintf(stderr, "embed: cannot read %s\n", path);
        exit(1);
    }
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
    while (fgets(line, sizeof line, in))
        if (include_of(line, dir, sub, sizeof sub)) emit_file(out, sub, depth + 1, order, norder);
    for (i = 0; i < *norder; i++) seen |= !strcmp(order[i], path);
    if (!seen) snprintf(order[(*norder)++], 512, "%s", path);
    for (i = 0; i < nfiles; i++)
        if (!strcmp(files[i], path)) {
            fclose(in);
            return;
        }
    if (nfiles == MAX_FILES) {
        fprintf(stderr, "embed: more than %d files\n", MAX_FILES);
        exit(1);
    }
    snprintf(files[nfiles++], sizeof files[0], "%s", path);
    rewind(in);
    c_name(path, name, sizeof name);
    fprintf(out, "static GPUACT__UNUSED const char *const %s[] = { /* %s */\n", name, path);
    /* One string per source line, except that a blank line joins the string
       before it; the last string carries the terminator, so the header has
       fewer lines than the file. */
    while (fgets(line, sizeof line, in)) {
        char *p;
        if (include_of(line, dir, sub, sizeof sub)) {
            fprintf(out, "%s    \"/* #include \\\"%s\\\": composed by the program list */\\n",
                    open_string ? "\",\n" : "", sub);
            open_string = 1;
            continue;
        }
        if (open_string && !strcmp(line, "\n")) {
            fputs("\\n", out);
            continue;
        }
        fputs(open_string ? "\",\n    \"" : "    \"", out);
        open_string = 1;
        for (p = line; *p; p++) {
            if (*p == '\n') fputs("\\n", out);
            else if (*p == '\\' || *p == '"') fprintf(out, "\\%c", *p);
            else if (*p == '\t') fputs("\\t", out);
            else if (*p == '?') fputs("\\?", out); /* no trigraphs */
            else fputc(*p, out);
        }
    }
    fprintf(out, "%s0};\n", open_string ? "\", " : "    ");
    fclose(in);
}

static int emit_binary(const char *out_path, const char *name, const char *path) {
    FILE *in = fopen(path, "rb"), *out = fopen(out_path, "w");
    unsigned char b[8];
    size_t n, words = 0;
    if (!in || !out) {
        fprintf(stderr, "embed: cannot read %s or write %s\n", path, out_path);
        return 1;
    }
    fprintf(out, "/* Generated by tools/embed --binary from %s. Do not edit. */\n", path);
    fprintf(out, "static const unsigned long long %s[] = {\n", name);
    while ((n = fread(b, 1, 8, in)) > 0) {
        unsigned long long w = 0;
        int k;
        memset(b + n, 0, 8 - n);
        for (k = 7; k >= 0; k--) w = (w << 8) | b[k];
        fprintf(out, "0x%016llxull,%s", w, ++words % 4 ? " " : "\n");
    }
    fprintf(out, "0};\n");
    fclose(in);
    return fclose(out) != 0;
}

int main(int argc, char **argv) {
    FILE *out;
    int i, k;
    if (argc == 5 && !strcmp(argv[1], "--binary")) return emit_binary(argv[2], argv[3], argv[4]);
    if (argc < 3) {
        fprintf(stderr, "usage: embed OUT.h PROGRAM=SOURCE...\n");
        return 2;
    }
    out = fopen(argv[1], "w");
    if (!out) {
        fprintf(stderr, "embed: cannot write %s\n", argv[1]);
        return 1;
    }
    fprintf(out, "/* Generated by tools/embed from the kernel sources beside this file.\n"
                 "   Do not edit: edit the sources and run `make embed`. */\n");
    for (i = 2; i < argc; i++) {
        static char order[MAX_FILES][512];
        char path[512], name[600];
        const char *eq = strchr(argv[i], '=');
        int norder = 0;
        if (!eq) {
            fprintf(stderr, "embed: %s is not PROGRAM=SOURCE\n", argv[i]);
            return 2;
        }
        normalise(eq + 1, path, sizeof path);
        emit_file(out, path, 0, order, &norder);
        fprintf(out, "static GPUACT__UNUSED const char *const *const gpuact__%.*s[] = {", (int)(eq - argv[i]), argv[i]);
        for (k = 0; k < norder; k++) {
            c_name(order[k], name, sizeof name);
            fprintf(out, "%s, ", name);
        }
        fprintf(out, "0};\n");
    }
    return fclose(out) != 0;
}
