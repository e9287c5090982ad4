#!/usr/bin/env python3
"""Every cell of the performance matrix against its PyTorch counterpart,
side by side in one process (docs/PERFORMANCE.md, "The matrix").

    pip install ./python                     # the gpuact package, with torch beside it
    python3 bench/matrix.py --out matrix.md
    python3 bench/matrix.py --lib before=/old/venv/.../gpuact/_C.abi3.so --lib after   # A/B, same run

With two or more builds every output is also compared with the first build's, bit for bit, and the report
ends with the cells that differ (--same-bits: exit status 1 if any does, for a change meant to keep the bits).

A cell is op x activation kind x dtype x mode. Elementwise cells run at
4096 x 393216 elements (--n), the epilogue at 65536 x 8192 and 1024 x 8192
(f32 and bf16, and the mixed dtypes of a bf16 layer after an f32 product:
f32 x and bias into a bf16 y, a bf16 dy into an f32 dx and bias gradient).
Every gpuact output is compared bit for bit with torch's (random normal
data: no NaN, where torch's arithmetic and gpuact's selections agree
exactly); timings are medians of CUDA-event times after warm-up, with the
device-to-device copy measured in the same run. Ratios > 1 mean gpuact is
faster. Exit status 1 if an output differs.

    python3 bench/matrix.py --smooth --compile [--precise]   # GELU, tanh-GELU, SiLU

--smooth: the smooth kinds' cells instead: forward and backward from x in
f32, bf16 and f16 against torch eager, the epilogue act(x + b) * 0.5 (--epi-scale; 1: no scale) and
its backward with the bias gradient, and the gated forms (GeGLU, SwiGLU:
act(a) * b) against eager and (--compile) torch.compile of the same
expression. Their outputs are not bit-identical with torch's by design:
each cell prints how many elements differ and by how many ulps at most.

    python3 bench/matrix.py --fewbit 2,3 --n 268435456 --lib base=PATH --lib now   # few-bit codes

--fewbit: GELU, tanh-GELU and SiLU writing b-bit codes against gpuact's
plain forward (the issue's target is 1.04x its time), and the backward
from the codes against torch's backward from x, in f32, bf16 and f16.
"""
import argparse
import datetime
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from builds import add_lib_argument, builds, same_bits  # noqa: E402 (bench/builds.py, beside this file)

# the ReLU family's cells: (kind, negative_slope, ceiling)
KINDS = (("relu", 0.0, 0.0), ("leaky", 0.01, 0.0), ("clipped", 0.0, 6.0))
SMOOTH = ("gelu", "gelu_tanh", "silu")


def mask_ld_default(cols):
    """The epilogue's mask_ld when the call passes 0: cols rounded up to 128 (gpuact.epilogue_mask_ld)."""
    return (cols + 127) // 128 * 128


def differ(a, b):
    """(elements whose bits differ, largest distance in units in the last place of the dtype) of two tensors
    of one floating dtype: gpuact's smooth kinds are not bit-identical with torch's by design (docs/NUMERICS.md)."""
    import torch
    it = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}[a.dtype]
    a, b = a.reshape(-1).view(it), b.reshape(-1).view(it)
    sign = 1 << (8 * a.element_size() - 1)
    count, worst = 0, 0
    for i in range(0, a.numel(), 1 << 25):  # in slices: the int64 copies of a whole tensor may not fit
        ia, ib = a[i:i + (1 << 25)].long(), b[i:i + (1 << 25)].long()
        oa = torch.where(ia < 0, -(ia + sign), ia)  # the order of the values as integers (-0 == +0)
        ob = torch.where(ib < 0, -(ib + sign), ib)
        count += int((ia != ib).sum())
        worst = max(worst, int((oa - ob).abs().max()))
    return count, worst


def torch_smooth(F, name):
    """torch's forward and backward-from-x of a smooth kind."""
    import torch
    aten = torch.ops.aten
    if name == "gelu":
        return (lambda v: F.gelu(v)), (lambda g, v: aten.gelu_backward(g, v))
    if name == "gelu_tanh":
        return (lambda v: F.gelu(v, approximate="tanh")), (lambda g, v: aten.gelu_backward(g, v, approximate="tanh"))
    return (lambda v: F.silu(v)), (lambda g, v: aten.silu_backward(g, v))


class Matrix:
    def __init__(self, torch, libs, reps, warmup, only=None):
        self.t = torch
        self.only = re.compile(only) if only else None  # cells whose name matches, or every cell
        self.F = torch.nn.functional
        self.libs = libs  # [(label, builds.Build)]
        self.reps, self.warmup = reps, warmup
        self.e0 = torch.cuda.Event(enable_timing=True)
        self.e1 = torch.cuda.Event(enable_timing=True)
        self.rows = []
        self.bad = 0
        self.gen = torch.Generator(device="cuda")
        self.gen.manual_seed(int(time.time() * 1e6) & 0xffffffff)

    def randn(self, *shape, dtype=None):
        return self.t.randn(*shape, device="cuda", dtype=dtype or self.t.float32, generator=self.gen)

    def time_all(self, fns):
        """Median event time of each callable, taken round robin (one call of
        each per repetition) so clock or thermal drift affects all alike."""
        for _ in range(self.warmup):
            for fn in fns:
                fn()
        self.t.cuda.synchronize()
        ts = [[] for _ in fns]
        for _ in range(self.reps):
            for i, fn in enumerate(fns):
                self.e0.record()
                fn()
                self.e1.record()
                self.e1.synchronize()
                ts[i].append(self.e0.elapsed_time(self.e1))
        return [statistics.median(x) for x in ts]

    def wants(self, name):
        return not self.only or bool(self.only.search(name))

    def cell(self, name, nbytes, torch_fn, gp_fns, out, ref, torch_label="torch", exact=True, also=()):
        """gp_fns(g) -> callable for each lib; out: the tensor gpuact writes; ref: torch's result (or None).
        exact: the output must equal ref bit for bit; else the differing elements are counted (smooth kinds).
        also: further outputs (zeroed before each build's call) compared between builds only."""
        if not self.wants(name):
            return
        row = dict(cell=name, bytes=nbytes, torch=None, torch_label=torch_label, ms={}, ok={}, same={})
        fns = []
        first = None  # the first build's outputs, which every other build's are compared with bit for bit
        for label, g in self.libs:
            fn = gp_fns(g)
            out.fill_(float("nan")) if out.dtype.is_floating_point else out.zero_()
            for o in also:
                o.zero_()
            fn()
            self.t.cuda.synchronize()
            if len(self.libs) > 1:
                if first is None:
                    first = [o.clone() for o in (out, *also)]
                else:
                    row["same"][label] = all(same_bits(o, f) for o, f in zip((out, *also), first))
            if ref is not None and not exact:
                row.setdefault("diff", {})[label] = differ(out, ref())
                ok = None
            else:
                ok = same_bits(out, ref()) if ref is not None else None
            if ok is False:
                self.bad += 1
            row["ok"][label] = ok
            fns.append(fn)
        times = self.time_all(fns + ([torch_fn] if torch_fn is not None else []))
        for (label, _), ms in zip(self.libs, times):
            row["ms"][label] = ms
        if torch_fn is not None:
            row["torch"] = times[-1]
        self.rows.append(row)
        def mark(lab):
            other = self.bits_note(row, lab, ", ")
            if "diff" in row:
                return "differs from torch at %d, max %d ulp" % row["diff"][lab] + other
            return ("ok" if row["ok"][lab] else ("-" if row["ok"][lab] is None else "DIFF")) + other
        parts = [f"{lab} {ms:8.4f} ms {mark(lab)}" for lab, ms in row["ms"].items()]
        tt = f"torch {row['torch']:8.4f} ms" if row["torch"] else ""
        print(f"  {name:48s} {' | '.join(parts)} | {tt}", flush=True)

    def epi_forward(self, label, rows, cols, xx, bb, yy, xt, yt, do_compile):
        """The epilogue forward cells of one shape: against eager relu(x + b) (converted to y's dtype), its
        torch.compile, and writing the mask; returns the mask the first lib wrote, for the backward cells."""
        t = self.t
        conv = (lambda v: v) if yy.dtype == xx.dtype else (lambda v: v.to(yy.dtype))
        nb = (xx.element_size() + yy.element_size()) * rows * cols + bb.element_size() * cols
        eager = lambda: conv(t.relu(xx + bb))
        op = lambda g, **kw: g.epilogue_op(rows, cols, xx, yy, xt, yt, bias=bb, **kw)
        self.cell(f"epi relu(x+b) fwd {label}", nb, eager, op, yy, eager, "eager")
        name = f"epi relu(x+b) fwd {label} vs compile"
        if do_compile and self.wants(name):  # compile only for a cell that is timed
            cf = t.compile(lambda a_, b_: conv(t.relu(a_ + b_)), dynamic=False)
            cf(xx, bb)
            self.cell(name, nb, lambda: cf(xx, bb), op, yy, eager, "compile")
        mm = t.empty(rows * mask_ld_default(cols) // 8, dtype=t.uint8, device="cuda")
        self.cell(f"epi fwd+mask {label}", nb + rows * cols // 8, None, lambda g: op(g, mask=mm), yy, eager)
        self.libs[0][1].epilogue_op(rows, cols, xx, yy, xt, yt, bias=bb, mask=mm)()
        return mm

    def measure_copy(self, n):
        """The device-to-device copy of n f32 elements: the "% of copy" yardstick of this run."""
        x = self.randn(n)
        y = self.t.empty_like(x)
        self.copy_ms = self.time_all([lambda: y.copy_(x)])[0]
        self.copy_gbps = 8 * n / (self.copy_ms * 1e6)
        print(f"copy f32 n={n}: {self.copy_ms:.4f} ms, {self.copy_gbps:.0f} GB/s", flush=True)

    def run(self, n, epi_rows, do_compile):
        t, F = self.t, self.F
        self.measure_copy(n)
        code = {t.float32: "f32", t.float16: "f16", t.bfloat16: "bf16"}
        for dt in (t.float32, t.bfloat16, t.float16):
            es = t.tensor([], dtype=dt).element_size()
            dn = str(dt)[6:]
            x = self.randn(n, dtype=dt)
            y = t.empty_like(x)
            dy = self.randn(n, dtype=dt)
            dx = t.empty_like(x)
            mask = t.empty((n + 7) // 8, dtype=t.uint8, device="cuda")
            for kname, slope, ceil in KINDS:
                a = dict(kind=kname, negative_slope=slope, ceiling=ceil)
                if kname == "relu":
                    tf, tb = (lambda: t.relu(x)), (lambda: t.ops.aten.threshold_backward(dy, x, 0))
                elif kname == "leaky":
                    tf = lambda: F.leaky_relu(x, slope)
                    tb = lambda: t.ops.aten.leaky_relu_backward(dy, x, slope, False)
                else:
                    tf = lambda: F.hardtanh(x, 0.0, ceil)
                    tb = lambda: t.ops.aten.hardtanh_backward(dy, x, 0.0, ceil)
                c = code[dt]
                self.cell(f"{kname} fwd {dn}", 2 * es * n, tf, lambda g: g.forward_op(c, n, x, y, a), y, tf)
                self.cell(f"{kname} fwd+mask {dn}", 2 * es * n + n // 8, None,
                          lambda g: g.forward_op(c, n, x, y, a, mask), y, tf)
                self.cell(f"{kname} bwd from x {dn}", 3 * es * n, tb,
                          lambda g: g.backward_op(c, n, dy, dx, x=x, a=a), dx, tb)
                # the mask for the backward from the mask: written by the first lib's forward
                self.libs[0][1].forward_op(c, n, x, y, a, mask)()
                self.cell(f"{kname} bwd from mask {dn}", 2 * es * n + n // 8, None,
                          lambda g: g.backward_op(c, n, dy, dx, mask=mask, a=a), dx, tb)
            del x, y, dy, dx, mask
            t.cuda.empty_cache()
        # epilogue
        for dt in (t.float32, t.bfloat16):
            es = t.tensor([], dtype=dt).element_size()
            dn = str(dt)[6:]
            c = code[dt]
            for rows in epi_rows:
                cols = 8192
                xx = self.randn(rows, cols, dtype=dt)
                bb = self.randn(cols, dtype=dt)
                yy = t.empty_like(xx)
                mm = self.epi_forward(f"{dn} {rows}x{cols}", rows, cols, xx, bb, yy, c, c, do_compile)
                dy = self.randn(rows, cols, dtype=dt)
                dx = t.empty_like(dy)
                db = t.empty(cols, device="cuda", dtype=dt)

                def eager_bwd():
                    d = t.ops.aten.threshold_backward(dy, yy, 0)
                    return d, d.sum(0)
                ref = lambda: eager_bwd()[0]
                self.cell(f"epi bwd+dbias from mask {dn} {rows}x{cols}", 2 * es * rows * cols + rows * cols // 8,
                          eager_bwd, lambda g: g.epilogue_backward_op(rows, cols, dy, dx, c, c, mask=mm, dbias=db,
                                                                      dbias_dtype=c), dx, ref, "eager")
                self.cell(f"epi bwd+dbias from y {dn} {rows}x{cols}", 3 * es * rows * cols, eager_bwd,
                          lambda g: g.epilogue_backward_op(rows, cols, dy, dx, c, c, y=yy, dbias=db, dbias_dtype=c),
                          dx, ref, "eager")
                self.cell(f"epi bwd from mask, no dbias {dn} {rows}x{cols}", 2 * es * rows * cols + rows * cols // 8,
                          None, lambda g: g.epilogue_backward_op(rows, cols, dy, dx, c, c, mask=mm), dx, ref)
                del xx, bb, yy, mm, dy, dx, db
                t.cuda.empty_cache()
        # the mixed dtypes of a bf16 layer after an f32 product: x and bias f32 into a bf16 y, and back from a
        # bf16 dy into an f32 dx and dbias (torch: the f32 result converted, the bf16 gradient widened)
        for rows in epi_rows:
            cols = 8192
            xx, bb = self.randn(rows, cols), self.randn(cols)
            yy = t.empty(rows, cols, dtype=t.bfloat16, device="cuda")
            mm = self.epi_forward(f"float32 -> bfloat16 {rows}x{cols}", rows, cols, xx, bb, yy, "f32", "bf16", do_compile)
            dy = self.randn(rows, cols, dtype=t.bfloat16)
            dx = t.empty(rows, cols, device="cuda")
            db = t.empty(cols, device="cuda")

            def eager_bwd16():
                d = t.ops.aten.threshold_backward(dy, yy, 0).float()
                return d, d.sum(0)
            self.cell(f"epi bwd+dbias from mask bfloat16 -> float32 {rows}x{cols}", 6 * rows * cols + rows * cols // 8,
                      eager_bwd16, lambda g: g.epilogue_backward_op(rows, cols, dy, dx, "bf16", "f32", mask=mm, dbias=db,
                                                                    dbias_dtype="f32"),
                      dx, lambda: eager_bwd16()[0], "eager")
            del xx, bb, yy, mm, dy, dx, db
            t.cuda.empty_cache()

    def compiled(self, name, fn, *args):
        """torch.compile of fn for one cell (None where the cell is not timed: each compile costs seconds)."""
        if not self.wants(name):
            return None
        cf = self.t.compile(fn, dynamic=False)
        cf(*args)
        return lambda: cf(*args)

    def run_smooth(self, n, epi_rows, glu_rows, do_compile, precise, epi_scale=0.5):
        """GELU, tanh-GELU and SiLU: forward and backward from x in every dtype against torch eager; the
        epilogue act(x + b) * epi_scale and its backward with the bias gradient, and the gated forms act(a) * b,
        against eager and torch.compile. Every output is compared with torch's (the differing elements and
        the largest distance are printed: gpuact's own math is not torch's)."""
        t, F = self.t, self.F
        code = {t.float32: "f32", t.float16: "f16", t.bfloat16: "bf16"}
        fl = self.libs[0][1].C.ACT_PRECISE if precise else 0
        tag = " precise" if precise else ""
        for dt in (t.float32, t.bfloat16, t.float16):
            es = t.tensor([], dtype=dt).element_size()
            dn, c = str(dt)[6:], code[dt]
            x, dy = self.randn(n, dtype=dt), self.randn(n, dtype=dt)
            y, dx = t.empty_like(x), t.empty_like(x)
            for kname in SMOOTH:
                a = dict(kind=kname, flags=fl)
                tf, tb = torch_smooth(F, kname)
                self.cell(f"{kname}{tag} fwd {dn}", 2 * es * n, lambda: tf(x), lambda g: g.forward_op(c, n, x, y, a),
                          y, lambda: tf(x), exact=False)
                self.cell(f"{kname}{tag} bwd from x {dn}", 3 * es * n, lambda: tb(dy, x),
                          lambda g: g.backward_op(c, n, dy, dx, x=x, a=a), dx, lambda: tb(dy, x), exact=False)
            del x, dy, y, dx
            t.cuda.empty_cache()
        cols = 8192
        sname = f"*{epi_scale:g}" if epi_scale != 1.0 else ""  # scale 1: no scale flag, as a plain Linear's epilogue
        for dt in (t.float32, t.bfloat16):
            es = t.tensor([], dtype=dt).element_size()
            dn, c = str(dt)[6:], code[dt]
            for rows in epi_rows:
                xx, bb, dy = self.randn(rows, cols, dtype=dt), self.randn(cols, dtype=dt), self.randn(rows, cols, dtype=dt)
                yy, dx, db = t.empty_like(xx), t.empty_like(xx), t.empty(cols, device="cuda", dtype=dt)
                shape = f"{dn} {rows}x{cols}"
                nf, nb = 2 * es * rows * cols + es * cols, 3 * es * rows * cols + 2 * es * cols
                for kname in SMOOTH:
                    a = dict(kind=kname, flags=fl)
                    tf, tb = torch_smooth(F, kname)
                    ef = (lambda x_, b_: tf(x_ + b_) * epi_scale) if epi_scale != 1.0 else (lambda x_, b_: tf(x_ + b_))

                    def eb(dy_, x_, b_):
                        gz = tb(dy_ * epi_scale if epi_scale != 1.0 else dy_, x_ + b_)
                        return gz, gz.sum(0)
                    fop = lambda g: g.epilogue_op(rows, cols, xx, yy, c, c, bias=bb, a=a, scale=epi_scale)
                    bop = lambda g: g.epilogue_backward_op(rows, cols, dy, dx, c, c, x=xx, x_dtype=c, bias=bb, dbias=db,
                                                           dbias_dtype=c, a=a, scale=epi_scale)
                    name = f"epi {kname}{tag}(x+b){sname} fwd {shape}"
                    self.cell(name, nf, lambda: ef(xx, bb), fop, yy, lambda: ef(xx, bb), "eager", exact=False)
                    cf = self.compiled(name + " vs compile", ef, xx, bb) if do_compile else None
                    if cf:
                        self.cell(name + " vs compile", nf, cf, fop, yy, lambda: ef(xx, bb), "compile", exact=False)
                    name = f"epi {kname}{tag} bwd+dbias from x {shape}"
                    self.cell(name, nb, lambda: eb(dy, xx, bb), bop, dx, lambda: eb(dy, xx, bb)[0], "eager", exact=False)
                    cf = self.compiled(name + " vs compile", eb, dy, xx, bb) if do_compile else None
                    if cf:
                        self.cell(name + " vs compile", nb, cf, bop, dx, lambda: eb(dy, xx, bb)[0], "compile",
                                  exact=False)
                del xx, bb, dy, yy, dx, db
                t.cuda.empty_cache()
            for rows in glu_rows:
                aa, bb, dy = (self.randn(rows, cols, dtype=dt) for _ in range(3))
                yy, da, db = t.empty_like(aa), t.empty_like(aa), t.empty_like(aa)
                shape = f"{dn} {rows}x{cols}"
                for gname, kname in (("geglu", "gelu"), ("geglu_tanh", "gelu_tanh"), ("swiglu", "silu")):
                    a = dict(kind=kname, flags=fl)
                    tf, tb = torch_smooth(F, kname)
                    gf = lambda a_, b_: tf(a_) * b_
                    gb = lambda dy_, a_, b_: (tb(dy_ * b_, a_), dy_ * tf(a_))
                    fop = lambda g: g.glu_op(rows, cols, aa, bb, yy, c, c, act_=a)
                    bop = lambda g: g.glu_backward_op(rows, cols, dy, aa, bb, da, db, c, c, act_=a)
                    name = f"{gname}{tag} fwd {shape}"
                    self.cell(name, 3 * es * rows * cols, lambda: gf(aa, bb), fop, yy, lambda: gf(aa, bb), "eager",
                              exact=False)
                    cf = self.compiled(name + " vs compile", gf, aa, bb) if do_compile else None
                    if cf:
                        self.cell(name + " vs compile", 3 * es * rows * cols, cf, fop, yy, lambda: gf(aa, bb),
                                  "compile", exact=False)
                    name = f"{gname}{tag} bwd {shape}"
                    self.cell(name, 5 * es * rows * cols, lambda: gb(dy, aa, bb), bop, da, lambda: gb(dy, aa, bb)[0],
                              "eager", exact=False)
                    cf = self.compiled(name + " vs compile", gb, dy, aa, bb) if do_compile else None
                    if cf:
                        self.cell(name + " vs compile", 5 * es * rows * cols, cf, bop, da, lambda: gb(dy, aa, bb)[0],
                                  "compile", exact=False)
                del aa, bb, dy, yy, da, db
                t.cuda.empty_cache()

    def run_fewbit(self, n, bits):
        """GELU, tanh-GELU and SiLU with few-bit codes (elementwise, every dtype, each bit count): the forward
        writing the codes against gpuact's plain forward (y compared with torch's forward), the backward from
        the codes against torch's backward from x (dx is not torch's: '-'). With two or more builds the codes
        and dx are compared with the first build's, bit for bit (each backward reads the first build's codes)."""
        t, F = self.t, self.F
        code = {t.float32: "f32", t.float16: "f16", t.bfloat16: "bf16"}
        first = self.libs[0][1]
        for dt in (t.float32, t.bfloat16, t.float16):
            es = t.tensor([], dtype=dt).element_size()
            dn, c = str(dt)[6:], code[dt]
            x, dy = self.randn(n, dtype=dt), self.randn(n, dtype=dt)
            y, yp, dx = t.empty_like(x), t.empty_like(x), t.empty_like(x)
            for kname in SMOOTH:
                tf, tb = torch_smooth(F, kname)
                plain = first.forward_op(c, n, x, yp, kname)
                for b in bits:
                    nc = (n * b + 7) // 8
                    # room for 4 bits a code: builds before dense 3-bit codes kept them in 4-bit slots
                    codes = t.zeros((n * (4 if b == 3 else b) + 31) // 32 * 4, dtype=t.uint8, device="cuda")
                    fop = lambda g: g.codes_forward_op(1, n, x, y, c, codes, b, a=kname)
                    self.cell(f"{kname} fwd+{b}-bit codes {dn}", 2 * es * n + nc, plain, fop, y, lambda: tf(x),
                              "gpuact plain", exact=False, also=(codes,))
                    fop(first)()
                    self.cell(f"{kname} bwd from {b}-bit codes {dn}", 2 * es * n + nc, lambda: tb(dy, x),
                              lambda g: g.codes_backward_op(1, n, dy, dx, c, codes, b, a=kname), dx, None,
                              "torch from x")
                    del codes
            del x, dy, y, yp, dx
            t.cuda.empty_cache()

    def bits_note(self, row, lab, before="", after=""):
        """The note on a build whose output differs from the first build's ('' where it is the same)."""
        return "" if row["same"].get(lab, True) else f"{before}bits differ from {self.libs[0][0]}'s{after}"

    def changed(self):
        """The cells where a build's output differs from the first build's."""
        return [r["cell"] for r in self.rows if not all(r["same"].values())]

    def report(self, out, meta):
        labels = [lab for lab, _ in self.libs]
        head = ["cell"] + [f"{lab} ms" for lab in labels] + [f"{labels[-1]} GB/s", "% of copy", "torch ms",
                                                              f"{labels[-1]} vs torch"]
        if len(labels) > 1:
            head.append(f"{labels[-1]} vs {labels[0]}")
        lines = [f"# gpuact matrix: {meta}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in self.rows:
            last = r["ms"][labels[-1]]
            gbps = r["bytes"] / (last * 1e6)
            cells = [r["cell"]] + [f"{r['ms'][lab]:.4f}" + ("" if r["ok"][lab] in (True, None) else " DIFF")
                                   + (" (%d differ, max %d ulp)" % r["diff"][lab] if "diff" in r else "")
                                   + self.bits_note(r, lab, " (", ")")
                                   for lab in labels]
            cells += [f"{gbps:.0f}", f"{100 * gbps / self.copy_gbps:.1f}%",
                      f"{r['torch']:.4f} ({r['torch_label']})" if r["torch"] else "-",
                      f"{r['torch'] / last:.2f}x" if r["torch"] else "-"]
            if len(labels) > 1:
                cells.append(f"{r['ms'][labels[0]] / last:.3f}x")
            lines.append("| " + " | ".join(cells) + " |")
        if len(labels) > 1:
            changed = self.changed()
            lines += ["", f"Builds against {labels[0]}, bit for bit: {len(self.rows) - len(changed)} of {len(self.rows)} "
                      f"cells the same" + (f"; different: {', '.join(changed)}" if changed else "")]
        text = "\n".join(lines) + "\n"
        print(text)
        if out:
            with open(out, "w") as f:
                f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_lib_argument(ap, "gpuact")
    ap.add_argument("--n", type=int, default=4096 * 393216)
    ap.add_argument("--epi-rows", default="65536,1024")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--compile", action="store_true", help="also time torch.compile of the fused cells")
    ap.add_argument("--smooth", action="store_true", help="the GELU, tanh-GELU and SiLU cells instead of the "
                    "ReLU family's (elementwise at --n, epilogue at --epi-rows, gated at --glu-rows x 8192)")
    ap.add_argument("--glu-rows", default="32768")
    ap.add_argument("--epi-scale", type=float, default=0.5, help="--smooth: the epilogue's scale (1: none)")
    ap.add_argument("--precise", action="store_true", help="--smooth with GPUACT_ACT_PRECISE")
    ap.add_argument("--fewbit", metavar="BITS", help="the few-bit codes' cells instead, for these bit counts "
                    "(comma-separated, 1-4; elementwise at --n)")
    ap.add_argument("--only", metavar="REGEX", help="only the cells whose name matches (the copy is always timed)")
    ap.add_argument("--out")
    ap.add_argument("--same-bits", action="store_true", help="with two or more --lib: exit status 1 where a build's "
                    "output differs from the first's (an A/B of a change that keeps the bits)")
    args = ap.parse_args()
    import torch
    libs = [(g.label, g) for g in builds(args.lib, "gpuact", stream=torch.cuda.current_stream().cuda_stream)]
    m = Matrix(torch, libs, args.reps, args.warmup, args.only)
    if args.fewbit:
        m.measure_copy(args.n)
        m.run_fewbit(args.n, [int(b) for b in args.fewbit.split(",")])
    elif args.smooth:
        m.measure_copy(args.n)
        m.run_smooth(args.n, [int(r) for r in args.epi_rows.split(",")], [int(r) for r in args.glu_rows.split(",")],
                     args.compile, args.precise, args.epi_scale)
    else:
        m.run(args.n, [int(r) for r in args.epi_rows.split(",")], args.compile)
    meta = (f"{torch.cuda.get_device_name()}, {datetime.date.today().isoformat()}, torch {torch.__version__}, "
            f"n = {args.n}, median of {args.reps}, copy {m.copy_gbps:.0f} GB/s")
    m.report(args.out, meta)
    return 1 if m.bad or (args.same_bits and m.changed()) else 0


if __name__ == "__main__":
    sys.exit(main())
