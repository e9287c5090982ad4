/* Shared by rtc_check.c and hip_rtc_check.c: which kernels a check compiles,
   how it finds them, and the child processes that compile them.

   A job is one op's program (as the backend composes it) followed by one
   GPUACT_KERNEL line for each variant of the job, named as the backend
   names it. What a check proves:

   - Every reachable variant (gpuact__variant_reachable: the ones the API
     can launch) goes through the compiler's front end and optimizer for
     the first target, where a template instantiation or a dialect call
     fails: NVRTC to PTX for the first architecture's virtual one
     (compute_90 for sm_90, the same __CUDA_ARCH__; at NVRTC's
     --Ofast-compile=min, about half the CPU time of its default on these
     jobs), hiprtc's first step in comgr to LLVM bitcode for the first gfx
     target. Not the code generation (ptxas, the AMDGPU back end), which is
     most of the time.
     The precise variants (GPUACT_ACT_PRECISE) with mixed dtypes are left
     out: the precise field swaps the smooth.h functions a kernel calls
     and nothing else, and those are compiled in the precise variants of
     one dtype. These variants go to jobs of at most RTC_CHUNK kernels in
     slot order, so that the jobs spread evenly over the cores.
   - Every target, the first included, compiles to machine code (SASS, a
     code object) the settings that change with a target. In the source
     that is the CUDA dialect's inline PTX by architecture (act.h's
     two-at-once 16-bit conversions and NaN-propagating min/max from sm_80,
     two-lane 16-bit comparisons from sm_90, each with its portable
     fallback), which sits in the per-element code of the ReLU family and
     in every 16-bit store, and which only ptxas reads; for HIP nothing in
     the source changes, only the ISA the compiler emits. So these jobs
     compile a few settings of the fields per op, the most involved ones:
     leaky writing/reading the mask with dbias and the general paths, at
     every dtype triple (the loads, stores and vector widths of each mix);
     clipped on the selection path; GELU, the heaviest smooth math, with
     the few-bit codes and dbias, in each dtype (f32, f16, bf16 throughout:
     its math is the same PTX on every target, its stores the leaky
     job's); the glu ops with SiLU and dbias.
   - The targets (the Makefile's CUDA_ARCHS, HIP_ARCHS) are one per code
     path a target selects, as the machine code of a target that compiles
     no source of its own proves nothing the others do not. The sources'
     only architecture tests are the CUDA dialect's __CUDA_ARCH__ >= 800
     and >= 900 (no __HIP_ARCH_* or __gfx*__ test, no wavefront-size macro,
     no warpSize): sm_90, sm_80, and sm_75 for the portable paths below 800
     (sm_70 compiles the same, and CUDA 13's NVRTC has no sm_70: SKIP, so
     sm_75 stays); gfx90a for wave64 (gfx908 compiled exactly its source)
     and gfx1030 for wave32, where the 4-bit mask's lane exchange
     (GPUACT_FROM_NEXT_LANE) changes; gfx940, gfx942 and gfx1100 compile
     where a newer ROCm knows them (SKIP here). By the same rule the CUDA
     targets after the first leave GELU's jobs out: GELU's math is the same
     PTX on every target and its stores are the leaky job's, so sm_75 and
     sm_80 compile none of their own there. HIP's targets compile every
     job: gfx1030's wave32 changes the 1-bit codes' lane exchange, in
     GELU's jobs.

   Then every kernel is looked up by its name in the result (PTX: its
   .entry; bitcode: its symbol; machine code: its ELF symbol), and a job
   that holds no kernel fails. Where hip_rtc_check cannot stop at bitcode
   (no comgr, or hiprtc's header not found), its first target compiles
   every variant to code objects instead. */
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RTC_CHUNK 64

static int glu_op(int op) { return op == GPUACT_OP_glu_forward || op == GPUACT_OP_glu_backward; }

/* Whether the first target compiles V. */
static int in_full(const gpuact__variant *V) {
    return gpuact__variant_reachable(V) && (!V->precise || (V->t[0] == V->t[1] && V->t[1] == V->t[2]));
}

/* The first target's job of each slot it compiles (-1: none), and its job count per op. */
static int full_job[GPUACT__VARIANTS], full_jobs[GPUACT_OP_COUNT];
static void number_full_jobs(void) {
    static int done;
    int i, count[GPUACT_OP_COUNT] = {0};
    if (done) return;
    done = 1;
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        gpuact__variant_at(i, &V);
        full_job[i] = in_full(&V) ? count[V.op]++ / RTC_CHUNK : -1;
    }
    for (i = 0; i < GPUACT_OP_COUNT; i++) full_jobs[i] = (count[i] + RTC_CHUNK - 1) / RTC_CHUNK;
}

static int jobs_of(int op, int full) {
    number_full_jobs();
    return full ? full_jobs[op] : op == GPUACT_OP_dbias || glu_op(op) ? 1 : 3;
}

static const char *job_label(int op, int full, int job) {
    static char label[32];
    if (full) {
        snprintf(label, sizeof label, "every, %d of %d", job + 1, jobs_of(op, 1));
        return label;
    }
    if (op == GPUACT_OP_dbias) return "every variant";
    if (glu_op(op)) return "silu";
    return job == 0 ? "leaky, general" : job == 1 ? "clipped, plain" : "gelu, one dtype";
}

/* Whether the variant in slot i is in the job. */
static int in_job(int i, const gpuact__variant *V, int full, int job) {
    if (full) {
        number_full_jobs();
        return full_job[i] == job;
    }
    if (!in_full(V)) return 0;
    if (V->op == GPUACT_OP_dbias) return 1;
    if (glu_op(V->op)) return V->kind == GPUACT_KIND_silu && V->dbias == (V->op == GPUACT_OP_glu_backward);
    if (job == 2) /* the smooth math, in each dtype (the dtype triples: the leaky job) */
        return V->kind == GPUACT_KIND_gelu && V->dbias == (V->op == GPUACT_OP_backward) && V->t[0] == V->t[1] &&
               V->t[1] == V->t[2];
    if (job == 0)
        return V->kind == GPUACT_KIND_leaky && V->mask && !V->select && V->dbias == (V->op == GPUACT_OP_backward);
    return V->kind == GPUACT_KIND_clipped && V->select && V->mask == (V->op == GPUACT_OP_backward) &&
           V->dbias == (V->op == GPUACT_OP_backward);
}

/* The GPUACT_KERNEL line that instantiates V (kernels/cuda/common.cuh). */
static int kernel_line(const gpuact__variant *V, char *buf, size_t size) {
    char name[GPUACT__NAME_MAX];
    int n;
    gpuact__variant_name(V, name, sizeof name);
    n = snprintf(buf, size, "GPUACT_KERNEL(%s, %s, %s, %s, %s", gpuact__op_names[V->op], name,
                 gpuact__dtype_name(V->t[0]), gpuact__dtype_name(V->t[1]), gpuact__dtype_name(V->t[2]));
#define KERNEL_LINE_FIELD_(fname, NAME, count) \
    if (n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - (size_t)n, ", %d", V->fname);
    GPUACT_FIELDS(KERNEL_LINE_FIELD_)
    if (n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - (size_t)n, ")\n");
    return n;
}

/* The job's source (malloc'd) and in *count its number of kernels. */
static char *job_source(const char *const *const *program, int op, int full, int job, int *count) {
    char *base = gpuact__join(program), *src, *p;
    size_t line = 200, n;
    int i;
    *count = 0;
    if (!base) return NULL;
    n = strlen(base);
    src = (char *)malloc(n + (size_t)GPUACT__VARIANTS * line + 1);
    if (!src) {
        free(base);
        return NULL;
    }
    memcpy(src, base, n);
    free(base);
    p = src + n;
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        gpuact__variant_at(i, &V);
        if (V.op != op || !in_job(i, &V, full, job)) continue;
        p += kernel_line(&V, p, line);
        ++*count;
    }
    *p = '\0';
    return src;
}

/* Whether the machine code (an ELF file) names the kernel: a symbol name
   ends in a NUL. */
static int kernel_present(const char *code, size_t size, const char *name) {
    size_t n = strlen(name), i;
    for (i = 0; i + n <= size; i++)
        if (!memcmp(code + i, name, n) && (i + n == size || code[i + n] == '\0')) return 1;
    return 0;
}

/* How a check compiles the first target's every-variant jobs: to the
   compiler's intermediate code (its front end and optimizer, not the code
   generation), or with ir NULL to machine code like the other jobs. */
typedef struct rtc_ir {
    const char *name;                                             /* "PTX" */
    void (*use)(gpuact__gpu *g, const char *target);              /* sets g's compiler up to emit it */
    int (*present)(const char *code, size_t size, const char *name); /* whether it holds the kernel */
} rtc_ir;
static const rtc_ir *the_ir;

/* Prints each missing kernel of the job; returns how many are missing. */
static int missing_kernels(int op, int full, int job, const char *code, size_t size, const char *target,
                           int (*present)(const char *, size_t, const char *)) {
    int i, missing = 0;
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        char name[GPUACT__NAME_MAX];
        gpuact__variant_at(i, &V);
        if (V.op != op || !in_job(i, &V, full, job)) continue;
        gpuact__variant_name(&V, name, sizeof name);
        if (!present(code, size, name)) {
            printf("FAIL %s: %s missing from the compiled code\n", target, name);
            missing++;
        }
    }
    return missing;
}

/* Prints a GPUACT_KERNEL line for every reachable variant of every op (the
   list the fatbin build appends to the op sources). */
static GPUACT__UNUSED void print_all_variants(void) {
    int i;
    for (i = 0; i < GPUACT__VARIANTS; i++) {
        gpuact__variant V;
        char line[200];
        gpuact__variant_at(i, &V);
        if (!gpuact__variant_reachable(&V)) continue;
        kernel_line(&V, line, sizeof line);
        fputs(line, stdout);
    }
}

/* ---- the jobs in child processes ------------------------------------------------ */

/* One job through the backend's compiler as the backend calls it (g: its
   sources and options), in a child of run_jobs: prints the job's line(s)
   with its code size, kernel count and CPU time; returns 1 if it failed. */
static int compile_job(gpuact__gpu *g, const char *target, int full, int op, int job) {
    const clock_t t0 = clock();
    const rtc_ir *ir = full ? the_ir : NULL;
    const char *opts[4];
    char *code = NULL;
    size_t size = 0;
    int i, missing, nopts = 1, total = 0;
    char *src = job_source(g->sources[op], op, full, job, &total);
    snprintf(g->arch, sizeof g->arch, "%s", target);
    snprintf(g->arch_option, sizeof g->arch_option, "--gpu-architecture=%s", target);
    if (ir) ir->use(g, target);
    opts[0] = g->arch_option;
    for (i = 0; i < 3 && g->rtc_options[i]; i++) opts[nopts++] = g->rtc_options[i];
    if (!src || gpuact__gpu_compile(g, src, opts, nopts, gpuact__op_names[op], &code, &size) != GPUACT_SUCCESS) {
        printf("FAIL %s %s %s:\n%s\n", target, gpuact__op_names[op], job_label(op, full, job), gpuact_last_error());
        GPUACT_FREE(src);
        return 1;
    }
    missing = missing_kernels(op, full, job, code, size, target, ir ? ir->present : kernel_present) +
              (total == 0); /* an empty job proves nothing */
    printf("%s %-8s %-12s %-15s %9zu bytes of %s, %3d kernels, %5.1f s CPU\n", missing ? "FAIL" : "ok  ", target,
           gpuact__op_names[op], job_label(op, full, job), size,
           ir ? ir->name : strcmp(g->api.name, "cuda") ? "code object" : "SASS", total,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    GPUACT_FREE(code);
    GPUACT_FREE(src);
    return missing != 0;
}

/* Whether a target after the first compiles machine-code job `job` of op:
   every one but CUDA's GELU jobs (see the header). */
static int later_target_job(const gpuact__gpu *g, int op, int job) {
    return strcmp(g->api.name, "cuda") != 0 || op == GPUACT_OP_dbias || glu_op(op) || job != 2;
}

/* Every job of every target (the first: every variant; skip[t] non-NULL: the
   target's SKIP line instead) through g's compiler, each in a child process, as many at a time
   as there are CPUs (a crash is that job's FAIL); the output follows in the
   order of the targets and jobs, then "N passed, N failed". Returns whether
   a job failed. */
static int run_jobs(gpuact__gpu *g, const rtc_ir *ir, int ntargets, char *const *targets, const char *const *skip) {
    enum { MAX_JOBS = 1024 };
    static pid_t pid[MAX_JOBS];
    static int status[MAX_JOBS];
    static FILE *out[MAX_JOBS];
    static const char *job_target[MAX_JOBS];
    static int job_op[MAX_JOBS], job_no[MAX_JOBS], job_full[MAX_JOBS];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int t, op, j, full, n = 0, running = 0, passed = 0, failed = 0;
    the_ir = ir;
    for (t = 0; t < ntargets; t++) {
        if (skip[t]) continue;
        /* the first target: every variant, then (when that was intermediate code) the other targets' jobs */
        for (full = t == 0; full >= (t == 0 && !ir); full--)
            for (op = 0; op < GPUACT_OP_COUNT; op++)
                for (j = 0; j < jobs_of(op, full); j++) {
                    if (t > 0 && !later_target_job(g, op, j)) continue;
                    if (n == MAX_JOBS) {
                        printf("FAIL more than %d jobs\n", MAX_JOBS);
                        return 1;
                    }
                    job_target[n] = targets[t];
                    job_op[n] = op;
                    job_no[n] = j;
                    job_full[n] = full;
                    n++;
                }
    }
    fflush(stdout);
    for (j = 0; j <= n; j++) {
        /* at most one child per CPU: wait for one to end before the next starts, and for all at the end */
        for (; running >= (j < n ? (cpus > 0 ? cpus : 1) : 1); running--) {
            int st = 0, k;
            pid_t p = wait(&st);
            for (k = 0; k < j; k++)
                if (p > 0 && pid[k] == p) status[k] = st;
        }
        if (j == n) break;
        if (!(out[j] = tmpfile()) || (pid[j] = fork()) < 0) {
            perror("rtc check: tmpfile or fork");
            return 1;
        }
        if (pid[j] == 0) {
            int f;
            if (dup2(fileno(out[j]), 1) < 0) _exit(1);
            f = compile_job(g, job_target[j], job_full[j], job_op[j], job_no[j]);
            fflush(stdout);
            _exit(f != 0);
        }
        running++;
    }
    for (t = 0, j = 0; t < ntargets; t++) {
        if (skip[t]) {
            printf("%s\n", skip[t]);
            continue;
        }
        for (; j < n && job_target[j] == targets[t]; j++) {
            char line[4096];
            rewind(out[j]);
            while (fgets(line, sizeof line, out[j])) fputs(line, stdout);
            fclose(out[j]);
            if (WIFEXITED(status[j]) && WEXITSTATUS(status[j]) == 0) {
                passed++;
                continue;
            }
            failed++;
            if (!WIFEXITED(status[j]))
                printf("FAIL %s %s %s: the compiler crashed (signal %d)\n", targets[t], gpuact__op_names[job_op[j]],
                       job_label(job_op[j], job_full[j], job_no[j]), WIFSIGNALED(status[j]) ? WTERMSIG(status[j]) : 0);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
