/* test_cache: the CUDA/HIP kernel disk cache's logic, on the CPU (no GPU,
   no driver): SHA-256, the key, the directory checks, entries verified in
   full, atomic writes, an entry the driver refuses being rebuilt and
   replaced, and paths that are too long. The driver and compiler are small
   fakes in a gpuact__gpu_api. Ends with `N passed, N failed`. */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"

#if defined(GPUACT_NO_CUDA) && defined(GPUACT_NO_HIP)
int main(void) {
    printf("SKIP test_cache: no CUDA or HIP backend compiled in\n0 passed, 0 failed\n");
    return 0;
}
#else
#include <dirent.h>

static int passed, failed;
static void check(int ok, const char *what, const char *why) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s%s%s\n", what, why && *why ? ": " : "", why ? why : "");
    }
}

static void hex(const unsigned char *d, int n, char *out) {
    int i;
    for (i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

static void sha256_vectors(void) {
    static const struct { const char *in; const char *want; } V[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    unsigned char d[32];
    char got[65];
    size_t i;
    gpuact__sha256 c;
    char *million = (char *)malloc(1000000);
    for (i = 0; i < sizeof V / sizeof V[0]; i++) {
        gpuact__sha256_of(V[i].in, strlen(V[i].in), d);
        hex(d, 32, got);
        check(strcmp(got, V[i].want) == 0, "sha256 test vector", got);
    }
    /* a million 'a', added in uneven pieces */
    memset(million, 'a', 1000000);
    gpuact__sha256_init(&c);
    for (i = 0; i < 1000000;) {
        size_t k = 1 + (i * 7) % 131;
        if (k > 1000000 - i) k = 1000000 - i;
        gpuact__sha256_add(&c, million + i, k);
        i += k;
    }
    gpuact__sha256_end(&c, d);
    hex(d, 32, got);
    check(strcmp(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
          "sha256 of a million 'a' in pieces", got);
    free(million);
}

/* ---- a fake driver and compiler ---- */
static int compiles;
static int fake_load(void **module, const void *image) {
    if (strcmp((const char *)image, "GOOD") != 0) return 200; /* CUDA_ERROR_INVALID_IMAGE */
    *module = (void *)&compiles;
    return 0;
}
static int fake_create(void **prog, const char *src, const char *name, int n, const char *const *h,
                       const char *const *i) {
    (void)src; (void)name; (void)n; (void)h; (void)i;
    *prog = (void *)&compiles;
    return 0;
}
static int fake_compile(void *prog, int n, const char *const *opts) {
    (void)prog; (void)n; (void)opts;
    compiles++;
    return 0;
}
static int fake_size(void *prog, size_t *size) { (void)prog; *size = 5; return 0; }
static int fake_code(void *prog, char *code) { (void)prog; memcpy(code, "GOOD", 5); return 0; }
static int fake_destroy(void **prog) { *prog = NULL; return 0; }
static const char *fake_error(int e) { (void)e; return "a fake error"; }

static gpuact__gpu g; /* large: static */

static void fake_gpu(void) {
    memset(&g.api, 0, sizeof g.api);
    g.api.name = "cuda";
    g.api.rtc_name = "fake";
    g.api.module_load_data = fake_load;
    g.api.rtc_create = fake_create;
    g.api.rtc_compile = fake_compile;
    g.api.rtc_code_size = fake_size;
    g.api.rtc_code = fake_code;
    g.api.rtc_destroy = fake_destroy;
    g.api.rtc_error_string = fake_error;
    g.api.error_name = fake_error;
    snprintf(g.arch, sizeof g.arch, "sm_90");
    g.driver_version = 13000;
    g.rtc_version = 13000;
}

static void key_inputs(void) {
    const char *opts[2] = {"--gpu-architecture=sm_90", "-DGPUACT_SPEC=3"}, *opts2[2] = {opts[0], "-DGPUACT_SPEC=4"};
    unsigned char k0[32], k1[32];
    fake_gpu();
    gpuact__cache_key(&g, "source", opts, 2, k0);
    gpuact__cache_key(&g, "source", opts, 2, k1);
    check(memcmp(k0, k1, 32) == 0, "key: same inputs, same key", "");
    gpuact__cache_key(&g, "sourcf", opts, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: the source changes it", "");
    gpuact__cache_key(&g, "source", opts2, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: an option changes it", "");
    gpuact__cache_key(&g, "source", opts, 1, k1);
    check(memcmp(k0, k1, 32) != 0, "key: a missing option changes it", "");
    g.driver_version++;
    gpuact__cache_key(&g, "source", opts, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: the driver version changes it", "");
    g.driver_version--;
    g.rtc_version++;
    gpuact__cache_key(&g, "source", opts, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: the compiler version changes it", "");
    g.rtc_version--;
    snprintf(g.arch, sizeof g.arch, "sm_80");
    gpuact__cache_key(&g, "source", opts, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: the device architecture changes it", "");
    fake_gpu();
    /* "ab" + "c" and "a" + "bc" differ: inputs are length-prefixed */
    {
        const char *a[1] = {"c"}, *b[1] = {"bc"};
        gpuact__cache_key(&g, "ab", a, 1, k0);
        gpuact__cache_key(&g, "a", b, 1, k1);
        check(memcmp(k0, k1, 32) != 0, "key: inputs cannot run into each other", "");
    }
}

static char base[256];

static void directories(void) {
    char dir[400], why[200], sub[400], file[400];
    struct stat st;
    FILE *f;
    snprintf(dir, sizeof dir, "%s/d", base);
    mkdir(dir, 0700);
    check(gpuact__cache_dir_ok(dir, 0, why, sizeof why), "dir 0700 of this user is used", why);
    chmod(dir, 0755);
    check(gpuact__cache_dir_ok(dir, 0, why, sizeof why), "dir 0755 is used (nobody else can write)", why);
    chmod(dir, 0777);
    check(!gpuact__cache_dir_ok(dir, 0, why, sizeof why) && strstr(why, "others"), "dir 0777 is refused", why);
    chmod(dir, 01777);
    check(!gpuact__cache_dir_ok(dir, 0, why, sizeof why), "dir 1777 (sticky, like /tmp) is refused", why);
    chmod(dir, 0770);
    check(!gpuact__cache_dir_ok(dir, 0, why, sizeof why) && strstr(why, "group"), "dir 0770 is refused", why);
    chmod(dir, 0700);
    snprintf(file, sizeof file, "%s/plain-file", base);
    if ((f = fopen(file, "w")) != NULL) fclose(f);
    check(!gpuact__cache_dir_ok(file, 1, why, sizeof why), "a file is refused as a directory", why);
    snprintf(sub, sizeof sub, "%s/made/on/demand", base);
    check(gpuact__cache_dir_ok(sub, 1, why, sizeof why) && stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700,
          "a missing directory is made, 0700", why);
    if (geteuid() == 0) {
        if (chown(dir, 4242, 4242) == 0) {
            check(!gpuact__cache_dir_ok(dir, 0, why, sizeof why) && strstr(why, "owned by uid 4242"),
                  "a directory of another user is refused", why);
            if (chown(dir, 0, 0) != 0) check(0, "chown back", strerror(errno));
        }
    } else {
        printf("(not root: the other-owner case is not tried)\n");
    }
}

static int count_files(const char *dir, int *temps) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    *temps = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        n++;
        if (!strstr(e->d_name, ".bin") || strstr(e->d_name, ".bin."))
            (*temps)++;
    }
    closedir(d);
    return n;
}

/* Rewrites one byte of the entry (at `at` from its start; -1: truncate by
   one; -2: append one byte), or restores it from `saved`. */
static long entry_bytes(const char *path, char *buf, long size) {
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) return -1;
    n = (long)fread(buf, 1, (size_t)size, f);
    fclose(f);
    return n;
}
static void entry_write(const char *path, const char *buf, long n) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(buf, 1, (size_t)n, f);
    fclose(f);
}

static void entries(void) {
    char dir[400], path[1200], saved[4096], bad[4096], why[200];
    unsigned char key[32];
    const char *opts[1] = {"--gpu-architecture=sm_90"};
    char *code;
    size_t size = 0;
    long n;
    int temps = 0;
    struct stat st;
    fake_gpu();
    snprintf(dir, sizeof dir, "%s/entries", base);
    gpuact__cache_key(&g, "src", opts, 1, key);
    gpuact__cache_store(dir, &g, key, "CODE-A", 7);
    code = gpuact__cache_load(dir, &g, key, &size);
    check(code && size == 7 && strcmp(code, "CODE-A") == 0, "an entry stored is loaded back", "");
    GPUACT_FREE(code);
    check(count_files(dir, &temps) == 1 && temps == 0, "one entry, no temporary file left", "");
    gpuact__cache_path(dir, &g, key, path, sizeof path);
    check(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the entry is 0600", "");
    n = entry_bytes(path, saved, sizeof saved);
    check(n == (long)sizeof(gpuact__cache_header) + 7, "the entry is its header and code", "");

    memcpy(bad, saved, (size_t)n);
    bad[n - 3] ^= 1;
    entry_write(path, bad, n);
    check(gpuact__cache_load(dir, &g, key, &size) == NULL, "a flipped bit in the code is not loaded", "");
    memcpy(bad, saved, (size_t)n);
    bad[offsetof(gpuact__cache_header, key) + 5] ^= 1;
    entry_write(path, bad, n);
    check(gpuact__cache_load(dir, &g, key, &size) == NULL, "a flipped bit in the key is not loaded", "");
    memcpy(bad, saved, (size_t)n);
    bad[offsetof(gpuact__cache_header, code_sha256)] ^= 1;
    entry_write(path, bad, n);
    check(gpuact__cache_load(dir, &g, key, &size) == NULL, "a flipped bit in the checksum is not loaded", "");
    entry_write(path, saved, n - 1);
    check(gpuact__cache_load(dir, &g, key, &size) == NULL, "a truncated entry is not loaded", "");
    memcpy(bad, saved, (size_t)n);
    bad[n] = 'x';
    entry_write(path, bad, n + 1);
    check(gpuact__cache_load(dir, &g, key, &size) == NULL, "an entry with a byte appended is not loaded", "");
    entry_write(path, saved, n);
    g.driver_version = 12040;
    check(gpuact__cache_load(dir, &g, key, &size) == NULL, "another driver version does not load the entry", "");
    fake_gpu();
    chmod(dir, 0777);
    check(gpuact__cache_load(dir, &g, key, &size) == NULL, "nothing is loaded from a directory others may write",
          "");
    gpuact__cache_store(dir, &g, key, "CODE-B", 7);
    chmod(dir, 0700);
    code = gpuact__cache_load(dir, &g, key, &size);
    check(code && strcmp(code, "CODE-A") == 0, "nothing is written to a directory others may write", "");
    GPUACT_FREE(code);

    /* the driver refuses the cached code: rebuilt, and the entry replaced */
    {
        void *module = NULL;
        gpuact_result r;
        gpuact__cache_key(&g, "kernel source", opts, 1, key);
        gpuact__cache_store(dir, &g, key, "BAD!", 5);
        compiles = 0;
        r = gpuact__cached_module(dir, &g, "kernel source", opts, 1, "kernel", &module);
        snprintf(why, sizeof why, "%s, %d compile(s): %.120s", gpuact_result_string(r), compiles, gpuact_last_error());
        check(r == GPUACT_SUCCESS && module && compiles == 1, "an entry the driver refuses is rebuilt", why);
        code = gpuact__cache_load(dir, &g, key, &size);
        check(code && strcmp(code, "GOOD") == 0, "... and replaced", code ? code : "(none)");
        GPUACT_FREE(code);
        module = NULL;
        r = gpuact__cached_module(dir, &g, "kernel source", opts, 1, "kernel", &module);
        check(r == GPUACT_SUCCESS && module && compiles == 1, "the replaced entry is used without compiling", "");
        r = gpuact__cached_module("", &g, "kernel source", opts, 1, "kernel", &module);
        check(r == GPUACT_SUCCESS && compiles == 2, "no directory: compiled every time", "");
    }
}

static void long_paths(void) {
    char *dir = (char *)malloc(2000), path[1200];
    unsigned char key[32];
    gpuact_context_desc desc;
    gpuact_context *ctx = NULL;
    gpuact_result r;
    memset(key, 0, sizeof key);
    memset(dir, 'd', 1999);
    dir[0] = '/';
    dir[1999] = '\0';
    fake_gpu();
    check(!gpuact__cache_path(dir, &g, key, path, sizeof path), "an entry path that does not fit is refused", "");
    dir[GPUACT__CACHE_DIR_MAX + 1] = '\0';
    check(!gpuact__cache_dir_ok(dir, 1, NULL, 0), "a directory path over the limit is not used", "");
    memset(&desc, 0, sizeof desc);
    desc.cache_dir = dir;
    r = gpuact_context_create(&desc, &ctx);
    check(r == GPUACT_ERROR_INVALID_ARGUMENT && !ctx && gpuact_last_rule() == GPUACT_RULE_CACHE_DIR_TOO_LONG &&
          strstr(gpuact_last_error(), "desc->cache_dir"),
          "gpuact_context_create refuses a desc.cache_dir over 800 bytes (CACHE_DIR_TOO_LONG)", gpuact_last_error());
    setenv("GPUACT_CACHE_DIR", dir, 1);
    r = gpuact_context_create(NULL, &ctx);
    check(r == GPUACT_ERROR_INVALID_ARGUMENT && !ctx && gpuact_last_rule() == GPUACT_RULE_CACHE_DIR_TOO_LONG &&
          strstr(gpuact_last_error(), "GPUACT_CACHE_DIR"),
          "gpuact_context_create refuses a $GPUACT_CACHE_DIR over 800 bytes (CACHE_DIR_TOO_LONG)", gpuact_last_error());
    unsetenv("GPUACT_CACHE_DIR");
    if (ctx) gpuact_context_destroy(ctx);
    free(dir);
}

int main(void) {
    char cmd[300];
    snprintf(base, sizeof base, "/tmp/gpuact-test-cache-XXXXXX");
    if (!mkdtemp(base)) {
        printf("FAIL mkdtemp: %s\n0 passed, 1 failed\n", strerror(errno));
        return 1;
    }
    sha256_vectors();
    key_inputs();
    directories();
    entries();
    long_paths();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) printf("(could not remove %s)\n", base);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
#endif
