/* gpuact's contract between the host (gpuact.h) and the kernels: every fact
   both sides must agree on, written once. Valid C99, C++ (CUDA, HIP) and
   OpenCL C; the host and every kernel dialect include it, and no list or
   number in it is written anywhere else.

   The lists are X-macros: GPUACT_DTYPES(X) calls X once per dtype, and so
   on; a user of a list defines X to take the columns it needs. */
#ifndef GPUACT_CONTRACT_H
#define GPUACT_CONTRACT_H

/* Element types: X(name, bytes). The order is gpuact_dtype's (GPUACT_F32,
   GPUACT_F16, GPUACT_BF16); the name is the one in kernel names and in the
   kernels' type tags. */
#define GPUACT_DTYPES(X) X(f32, 4) X(f16, 2) X(bf16, 2)

/* Activation kinds: X(name, slope, ceiling, lower, from_y, select, glu).
     name     in kernel names and as GPUACT_KIND_<name> in the kernels; the
              order is gpuact_activation_kind's.
     slope    uses negative_slope (validated >= 0, not NaN).
     ceiling  uses ceiling: clipped ReLU's (> 0), hardtanh's upper bound;
              the elementwise ops round it to the dtype, as torch does, so
              the selection path stays exact.
     lower    uses lower: hardtanh's lower bound (<= ceiling), rounded the
              same way.
     from_y   the epilogue backward may take its region from the output y.
     select   the ReLU family: the output is the input, a constant or
              x * slope, the gradient passes or not; such a kind has the
              selection ("plain") paths and the 1-bit mask. 0: a smooth
              kind (GELU, SiLU, squared ReLU): the backward multiplies by
              the derivative at the pre-activation, so it needs x (and the
              bias), never a mask or y.
     glu      the kind gates: the glu ops take it (SwiGLU, GeGLU, ReGLU).
   The formulas are in kernels/act.h (smooth ones in kernels/smooth.h). */
#define GPUACT_ACTIVATIONS(X)          \
    X(relu, 0, 0, 0, 1, 1, 1)          \
    X(leaky, 1, 0, 0, 1, 1, 0)         \
    X(clipped, 0, 1, 0, 0, 1, 0)       \
    X(hardtanh, 0, 1, 1, 0, 1, 0)      \
    X(gelu, 0, 0, 0, 0, 0, 1)          \
    X(gelu_tanh, 0, 0, 0, 0, 0, 1)     \
    X(silu, 0, 0, 0, 0, 0, 1)          \
    X(sqrelu, 0, 0, 0, 0, 0, 0)

/* Operations: X(name, short name in kernel names). Each has its program
   (kernels/cuda/<name>.cu, kernels/hip/<name>.hip, kernels/opencl/<name>.cl).
     glu_forward   y = act(a + bias_a) * (b + bias_b): in = a, aux = b,
                   bias = bias_a, bias2 = bias_b, out = y
     glu_backward  da = dy * (b + bias_b) * act'(a + bias_a),
                   db = dy * act(a + bias_a): in = dy, aux = a, aux2 = b,
                   bias, bias2, out = da, out2 = db; part = f32 partial
                   column sums of da then of db, [row groups][2 * cols] */
#define GPUACT_OPS(X) X(forward, fwd) X(backward, bwd) X(dbias, dbias) X(glu_forward, gluf) X(glu_backward, glub)

/* The fields that specialise a kernel at compile time, besides the op and
   its three dtypes: X(name, NAME, count): the field, its compile-time
   macro GPUACT_<NAME> (the host passes -DGPUACT_<NAME>=value), and the
   number of its values.
     kind    activation kind (count: the number of GPUACT_ACTIVATIONS)
     mask    forward: also writes the mask; backward: the region comes from
             the mask instead of the forward's x or y. For GELU, tanh-GELU
             and SiLU (GPUACT_CODES_KINDS) it is the few-bit codes instead
             (kernels/fewbit.h): the forward writes each element's code of
             z, the backward multiplies dy (* scale) by the code's level; the
             codes take the mask's geometry (its blocks, vectors, rows), and
             the backward's variant is the one of gelu whatever the kind: its
             table comes in the flags (GPUACT_F_CODE_TABLE)
     dbias   backward: each row group also writes its column sums of dx
     select  "plain": forward without bias, scale 1, x's dtype in and out,
             bounds exact in it (y is a selection of x's bits); backward
             with scale 1 and dy's dtype out (a passing element is dy's bits)
     fromx   backward: z = aux (+ bias[c]) is formed in f32 as the forward
             formed it (the forward's input x, and its bias), and the
             derivative comes from z: exactly the smooth kinds (the ReLU
             family's backward takes the mask or y, never x)
     precise the GELU, tanh-GELU and SiLU evaluation within 1 ulp
             (smooth.h's gpuact_gelu_erf, ...; gpuact_activation's
             GPUACT_ACT_PRECISE) instead of the default within 2 ulps
             (gpuact_*_fast) or, for a 16-bit result, the lean one
             (gpuact_*_16): gpuact_eval
   Reachable combinations (gpuact__variant_reachable in gpuact.h) are the
   only ones that exist as kernels. */
#define GPUACT_FIELDS(X) X(kind, KIND, GPUACT_KIND_COUNT) X(mask, MASK, 2) X(dbias, DBIAS, 2) X(select, SELECT, 2) X(fromx, FROMX, 2) \
    X(precise, PRECISE, 2)

/* Run-time flags of the general (non-select) paths. */
enum {
    GPUACT_F_BIAS = 1,  /* add bias[c] (forward; backward with fromx) */
    GPUACT_F_SCALE = 2, /* multiply by scale (never when scale is 1) */
    GPUACT_F_RAW = 4,   /* forward, no bias, scale 1, one dtype: a NaN x keeps its bits */
    GPUACT_F_CODE_BITS = 8,  /* codes (above): flags / GPUACT_F_CODE_BITS % 8 = bits per code, 1-4 */
    GPUACT_F_CODE_TABLE = 64 /* backward from codes: flags / GPUACT_F_CODE_TABLE = the table (fewbit.h) */
};
/* Few-bit codes: the kinds with a table (kernels/fewbit.h, in this order:
   the table of kind k is k - GPUACT_KIND_gelu; gpuact.h checks the order).
   A row's b-bit codes are dense: element i is bits [i * b, + b) of the row,
   bit j of a row being bit j % 8 of its byte j / 8 (3-bit codes cross
   bytes; 8 of them fill 3 bytes), as the mask's bits for b = 1. */
#define GPUACT_CODES_KINDS GPUACT_TRANSCENDENTAL_KINDS

/* The rows' layout, the kernel parameter `layout`: the host decides it once
   per launch (gpuact__layout in gpuact.h) from the arrays' addresses, row
   strides and dtypes, so no thread spends its prologue on it
   (docs/PERFORMANCE.md, "Designs measured and not kept").
     GPUACT_LAYOUT_ALIGNED  every array the kernel accesses in 16-byte
                            vectors has its row starts 16-byte aligned from
                            column shift on
     shift                  layout / GPUACT_LAYOUT_SHIFT: columns [0, shift)
                            of every row come before the first aligned
                            element and are taken one by one (only where
                            the backend's forward and backward kernels have
                            that head path; else 0) */
enum { GPUACT_LAYOUT_ALIGNED = 1, GPUACT_LAYOUT_SHIFT = 2 };
/* The kernels with the head path, CUDA/HIP: the forward without the mask
   (whose bytes follow the row's own element numbering) and the backward
   without the mask or the bias gradient, every array of one element size;
   the host gives the backward a shift only without the bias as well. The
   others are compiled without the path (shift 0). */
#define GPUACT_HEAD_PATH(op, mask, dbias, one_size) \
    (((op) == GPUACT_OP_forward || ((op) == GPUACT_OP_backward && !(dbias))) && !(mask) && (one_size))

/* Work-items per block (CUDA/HIP threads per block, OpenCL local size). The
   backends pass the host's value to the kernels (a build-time tuning knob;
   a multiple of GPUACT_DBIAS_COLS and of 32 * GPUACT_DBIAS_SLICES). */
#ifndef GPUACT_BLOCK
#define GPUACT_BLOCK 256
#endif
/* Threads per block of a variant, CUDA/HIP: GPUACT_BLOCK_SMALL for
     - every forward,
     - the backward without the bias gradient, but the backward from the
       mask with a 4-byte array,
   GPUACT_BLOCK otherwise, where 128 threads ran slower (docs/PERFORMANCE.md,
   "Tuning knobs"). */
#ifndef GPUACT_BLOCK_SMALL
#define GPUACT_BLOCK_SMALL 128
#endif
#define GPUACT_VARIANT_BLOCK(op, mask, dbias, some_4byte)                                                     \
    (((op) == GPUACT_OP_forward || ((op) == GPUACT_OP_backward && !(dbias) && !((mask) && (some_4byte)))) \
         ? GPUACT_BLOCK_SMALL                                                                               \
         : GPUACT_BLOCK)
/* OpenCL on NVIDIA's driver (the host knows it by
   cl_nv_device_attribute_query), a forward or backward variant:
     - with a 4-byte array, of a kind without a transcendental function:
       work-groups of GPUACT_CL_BLOCK_WIDE work-items, so that two groups
       (1536 work-items) are resident per multiprocessor instead of eight
       of GPUACT_BLOCK (2048), which ran those f32 cells slower. Not for
       the kinds with exp/erf/tanh (compute-bound, 48-56 registers: one
       wide group would fit), nor the forward with a 2-byte array (the
       epilogue of an f32 product into bf16: up to 47 registers, ptxas on
       the driver's PTX, and a wide group needs at most 40 for two to be
       resident), faster in groups of 256 than in wide groups or capped at
       40 registers. The driver gives hardtanh's f32 forward 40 registers:
       its selection forward and its forwards writing the mask run best in
       wide groups, its general forward without the mask (the epilogue) in
       groups of 256, so that one variant takes GPUACT_BLOCK.
     - with every array 16-bit (one 16-byte access per work-item), without
       the bias gradient: GPUACT_BLOCK_SMALL, faster there (the backward
       with the bias gradient ran slower in it).
   Else, and on other drivers, GPUACT_BLOCK (docs/PERFORMANCE.md, "Tuning
   knobs"). A build-time tuning knob. A launch of a variant
   in GPUACT_CL_BLOCK_WIDE groups may take another width (the OpenCL
   backend's gpuact__opencl_width: 1024 for some bias gradients, GPUACT_BLOCK for a
   forward over short rows); the kernels do not depend on the width. */
#ifndef GPUACT_CL_BLOCK_WIDE
#define GPUACT_CL_BLOCK_WIDE 768
#endif
#define GPUACT_TRANSCENDENTAL_KINDS ((1u << GPUACT_KIND_gelu) | (1u << GPUACT_KIND_gelu_tanh) | (1u << GPUACT_KIND_silu))
/* CUDA/HIP, where the host passes -DGPUACT_LUT16 (its device's row of
   backends/gpuact_cudalike.h asks for it): the elementwise 16-bit forward of
   GELU, tanh-GELU and SiLU (default evaluation; with few-bit codes or
   without), their elementwise
   backward from x (no bias gradient), and their bf16 gated backward (no
   bias, no bias gradient: act and act' of a), look their results, and the
   derivative, up. A 16-bit x has few values: the module keeps the result
   (or the f32 derivative) of every x in its table's range (bf16: 2^-12 <=
   |x| < 16; f16: 2^-14 <= |x| < 4, the backward's entries twice as wide),
   [sign][key], key = (bits & 0x7fff) - LO < SPAN,
   computed once by its gpuact_lut16_fill kernel with the kernel's own
   functions (so the same bits); each block copies it to dynamic shared
   memory (GPUACT_LUT16_SHARED bytes). Other x take the word path. f16's
   tables are 4-8 times bf16's: its blocks are GPUACT_LUT16_BLOCK_F16
   threads, so that the registers, not the tables, bound the warps resident.
   f16's backward table is folded (GPUACT_LUT16_FOLD): every 16-bit
   derivative is U(|x|) at x < 0 and 1 - U(|x|) at x > 0 (../smooth.h), so it
   keeps U = act'(-|x|) alone and the lookup forms 1 - U in f32 as the word
   path does, which halves the table and widens its range to the forward's. */
#define GPUACT_LUT16_TABLE(op, dt) ((dt) == GPUACT_DT_f16 ? ((op) == GPUACT_OP_forward ? 1 : 2) : 0)
#define GPUACT_LUT16_LO(tb) ((tb) == 0 ? 0x3980u : 0x0400u)
#define GPUACT_LUT16_SPAN(tb) ((tb) == 0 ? 0x0800u : 0x4000u)
#define GPUACT_LUT16_FOLD(tb) ((tb) == 2)
/* its entries: [sign][key], or [key] where folded */
#define GPUACT_LUT16_ENTRIES(tb) ((GPUACT_LUT16_FOLD(tb) ? 1u : 2u) * GPUACT_LUT16_SPAN(tb))
#define GPUACT_LUT16_BLOCK_F16 512
/* 16-bit bits b in table tb (GPUACT_LUT16_TABLE): its key, whether it is in the table, its entry (in the table for any b, so a
   lookup needs no test first); and the bits of entry e (a folded table's: the negative x) */
#define GPUACT_LUT16_KEY(b, tb) (((b) & 0x7fffu) - GPUACT_LUT16_LO(tb))
#define GPUACT_LUT16_IN(b, tb) (GPUACT_LUT16_KEY(b, tb) < GPUACT_LUT16_SPAN(tb))
#define GPUACT_LUT16_ENTRY(b, tb)                                                                                \
    ((GPUACT_LUT16_IN(b, tb) ? GPUACT_LUT16_KEY(b, tb) : 0u) +                                                   \
     (GPUACT_LUT16_FOLD(tb) ? 0u : ((b) >> 15 & 1u) * GPUACT_LUT16_SPAN(tb)))
#define GPUACT_LUT16_BITS(e, tb)                                                                                 \
    (GPUACT_LUT16_FOLD(tb)            ? ((e) + GPUACT_LUT16_LO(tb)) | 0x8000u                                    \
     : (e) < GPUACT_LUT16_SPAN(tb) ? (e) + GPUACT_LUT16_LO(tb)                                                   \
                                   : ((e) - GPUACT_LUT16_SPAN(tb) + GPUACT_LUT16_LO(tb)) | 0x8000u)
#define GPUACT_LUT16_VARIANT(op, kind, mask, dbias, fromx, precise, t0, t1, t2)                                   \
    (((op) == GPUACT_OP_forward || ((op) == GPUACT_OP_backward && (fromx) && !(dbias)) ||                          \
      ((op) == GPUACT_OP_glu_backward && !(dbias) && (t0) == GPUACT_DT_bf16)) &&                                   \
     ((GPUACT_TRANSCENDENTAL_KINDS >> (kind)) & 1u) && (!(mask) || (op) == GPUACT_OP_forward) && !(precise) && \
     ((t0) == GPUACT_DT_bf16 || (t0) == GPUACT_DT_f16) && (t1) == (t0) && (t2) == (t0))
/* a lookup variant's table in shared memory, its bytes: two 16-bit results, two f32 derivatives or two
   (act, act') pairs of f32 per key */
#define GPUACT_LUT16_SHARED(op, dt)                                                                               \
    (GPUACT_LUT16_ENTRIES(GPUACT_LUT16_TABLE(op, dt)) *                                                           \
     ((op) == GPUACT_OP_forward ? 2u : (op) == GPUACT_OP_backward ? 4u : 8u))
/* its threads per block: f16's GPUACT_LUT16_BLOCK_F16, bf16's the variant's own */
#define GPUACT_LUT16_BLOCK(dt, block) ((dt) == GPUACT_DT_f16 ? GPUACT_LUT16_BLOCK_F16 : (block))
#define GPUACT_CL_NV_BLOCK(op, kind, select, mask, dbias, some_4byte, all_4byte)                                   \
    (!((op) == GPUACT_OP_forward || (op) == GPUACT_OP_backward) ? GPUACT_BLOCK                                      \
     : !(some_4byte)                                            ? ((dbias) ? GPUACT_BLOCK : GPUACT_BLOCK_SMALL)     \
     : !((GPUACT_TRANSCENDENTAL_KINDS >> (kind)) & 1u) && !((op) == GPUACT_OP_forward && !(all_4byte)) &&          \
               !((op) == GPUACT_OP_forward && (kind) == GPUACT_KIND_hardtanh && !(select) && !(mask))             \
         ? GPUACT_CL_BLOCK_WIDE                                                                                     \
         : GPUACT_BLOCK)
/* CUDA/HIP: 16-byte vectors a thread handles, a block apart (a build-time
   tuning knob; the host passes -DGPUACT_UNROLL). */
#ifndef GPUACT_UNROLL
#define GPUACT_UNROLL 2
#endif
/* CUDA/HIP: vectors a thread of the gated forward handles when every array
   is 16-bit: its two inputs give it two 16-byte loads in flight at one,
   which runs faster than GPUACT_UNROLL's 2, at which the kernels used all
   64 registers their launch bounds allow (the biases of 16 elements,
   hoisted out of the row loop as floats); at 1: 48 (ReGLU) to 56
   (docs/PERFORMANCE.md, "Tuning knobs"). */
#define GPUACT_GLU16_UNROLL 1
/* CUDA/HIP kernels whose thread handles one vector instead of
   GPUACT_UNROLL: fewer registers (the column sums, the gated form's two
   inputs and two outputs), so more resident blocks where the kernel is
   compute- or register-bound; each of these ran faster with one than
   with two (docs/PERFORMANCE.md, "Tuning knobs"):
     - the backward with the bias gradient of a kind with exp/erf/tanh
       (the ReLU family's runs faster with two);
     - the gated backward; with a 4-byte array and without the bias
       gradients only with the next row's loads issued before this row's
       math (cuda/glu_backward.cu);
     - the backward from the mask with a 4-byte array, without the bias
       gradient (a gain at 2^18-2^22 elements; none with every array
       16-bit, so not there);
     - the backward from the mask with the bias gradient from a 16-bit dy
       into a 4-byte dx (widen: 2.1 bytes read, 4 written per element), in
       blocks bounded to 8 (GPUACT_MIN_BLOCKS_WIDEN, cuda/dialect.cuh; 31
       registers against 40 and a 4-byte spill); not from a 4-byte dy,
       slower there. */
#define GPUACT_ONE_VECTOR(op, kind, mask, dbias, all_16bit, widen)                                \
    (((op) == GPUACT_OP_backward && (dbias) && ((GPUACT_TRANSCENDENTAL_KINDS >> (kind)) & 1u)) || \
     ((op) == GPUACT_OP_glu_backward) ||                                                         \
     ((op) == GPUACT_OP_backward && (mask) && !(dbias) && !(all_16bit)) ||                        \
     ((op) == GPUACT_OP_backward && (mask) && (dbias) && (widen)))
/* Whether a backward widens: a 16-bit dy into a 4-byte dx. */
#define GPUACT_WIDENS(dy_bytes, dx_bytes) ((dy_bytes) == 2 && (dx_bytes) == 4)
/* CUDA/HIP: elements in a thread's 16-byte vector: 8 when every array of the
   kernel is 16-bit, else 4. */
#define GPUACT_VEC(all_16bit) ((all_16bit) ? 8 : 4)
/* OpenCL: a work-item takes GPUACT_CL_GROUPS groups of GPUACT_CL_VEC
   consecutive elements, a block apart: GPUACT_CL_GROUPS_PAIR groups on
   GPUACT_PAIR_PATH (the forward with every array 16-bit, on the selection
   of a kind without slope or lower bound, and on every path of a kind with
   a lower bound), one elsewhere: two groups are faster on those paths,
   slower for the smooth kinds and the leaky and clipped epilogues writing
   the mask (docs/PERFORMANCE.md, "Tuning knobs").
   GPUACT_CL_GROUPS_PAIR is a build-time tuning knob; the host passes it as
   a -D option. */
#define GPUACT_CL_VEC 8
#ifndef GPUACT_CL_GROUPS_PAIR
#define GPUACT_CL_GROUPS_PAIR 2
#endif
#define GPUACT_PAIR_KIND_BIT_(name, slope, ceiling, lower, from_y, select, glu) \
    | ((unsigned)((select) && !(slope) && !(lower)) << GPUACT_KIND_##name)
#define GPUACT_LOWER_KIND_BIT_(name, slope, ceiling, lower, from_y, select, glu) \
    | ((unsigned)((lower) != 0) << GPUACT_KIND_##name)
#define GPUACT_SELECT_KIND_BIT_(name, slope, ceiling, lower, from_y, select, glu) \
    | ((unsigned)((select) != 0) << GPUACT_KIND_##name)
/* the kinds whose 16-bit selection decides two lanes of a word at once, the
   kinds with a lower bound, and the ReLU family (constant expressions) */
#define GPUACT_PAIR_KINDS (0u GPUACT_ACTIVATIONS(GPUACT_PAIR_KIND_BIT_))
#define GPUACT_LOWER_KINDS (0u GPUACT_ACTIVATIONS(GPUACT_LOWER_KIND_BIT_))
#define GPUACT_SELECT_KINDS (0u GPUACT_ACTIVATIONS(GPUACT_SELECT_KIND_BIT_))
#define GPUACT_PAIR_PATH(op, kind, select, all_16bit)                                               \
    ((op) == GPUACT_OP_forward && (all_16bit) &&                                                      \
     ((((select) != 0) && ((GPUACT_PAIR_KINDS >> (kind)) & 1u)) || ((GPUACT_LOWER_KINDS >> (kind)) & 1u)))
#define GPUACT_CL_GROUPS(op, kind, select, all_16bit) \
    (GPUACT_PAIR_PATH(op, kind, select, all_16bit) ? GPUACT_CL_GROUPS_PAIR : 1)

/* The bias gradient. CUDA/HIP backward kernels with dbias split a block
   into GPUACT_DBIAS_SLICES row slices of GPUACT_BLOCK / GPUACT_DBIAS_SLICES
   threads; the slices' column sums are added in shared memory in slice
   order, so a block writes one partial row (OpenCL: one slice). The finish
   takes GPUACT_DBIAS_COLS columns per block, its GPUACT_BLOCK /
   GPUACT_DBIAS_COLS slices each adding a contiguous range of partial rows
   in order, then the slices in order. */
#define GPUACT_DBIAS_SLICES 4
#define GPUACT_DBIAS_COLS 32

/* The kernel parameter list, the same for every op (OpenCL passes each
   buffer as cl_mem plus a byte offset, CUDA/HIP as a pointer):
   BUF(name) a buffer, U64 / F32 / I32(name) a scalar, SEP between two.
   flags are GPUACT_F_*, layout is the rows' layout (GPUACT_LAYOUT_*).
     forward:  in = x, out = y, bias, mask written
     backward: in = dy, out = dx, aux = the forward's x or y, bias (fromx),
               mask read, part = f32 partial column sums [row groups][cols]
               (dbias)
     dbias:    in = part (rows = row groups, ld_in floats apart), out = dbias
     the glu ops: above (aux2, out2, bias2, ld_aux2, ld_out2 are theirs) */
#define GPUACT_KERNEL_PARAMS(BUF, U64, F32, I32, SEP)                                            \
    BUF(in) SEP BUF(out) SEP BUF(aux) SEP BUF(bias) SEP BUF(mask) SEP BUF(part) SEP BUF(aux2) SEP      \
        BUF(out2) SEP BUF(bias2) SEP U64(rows) SEP U64(cols) SEP U64(ld_in) SEP U64(ld_out) SEP             \
        U64(ld_aux) SEP U64(mask_ld) SEP U64(ld_aux2) SEP U64(ld_out2) SEP F32(scale) SEP F32(slope) SEP    \
        F32(ceiling) SEP F32(lower) SEP I32(flags) SEP I32(layout)

/* GPUACT_KIND_<name>, GPUACT_DT_<name>, GPUACT_OP_<name> as enum constants
   (the kernels compare with them; the -D options carry their values). */
#define GPUACT_KIND_ENUM_(name, slope, ceiling, lower, from_y, select, glu) GPUACT_KIND_##name,
enum { GPUACT_ACTIVATIONS(GPUACT_KIND_ENUM_) GPUACT_KIND_COUNT };
#define GPUACT_DT_ENUM_(name, bytes) GPUACT_DT_##name,
enum { GPUACT_DTYPES(GPUACT_DT_ENUM_) GPUACT_DT_COUNT };
#define GPUACT_OP_ENUM_(name, short_name) GPUACT_OP_##name,
enum { GPUACT_OPS(GPUACT_OP_ENUM_) GPUACT_OP_COUNT };

#endif
