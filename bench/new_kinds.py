#!/usr/bin/env python3
"""hardtanh, GELU (erf, tanh), SiLU and squared ReLU against PyTorch, on the GPU.

    make shared
    python3 bench/new_kinds.py --out DIR [--quick] [--skip-f32-all]

(a) Special values (NaN, +-Inf, +-0, smallest and largest subnormals,
    +-FLT_MAX, +-1) for every kind, forward and backward (dy = 1), f32:
    PyTorch's bits next to gpuact's (docs/NUMERICS.md copies the table).
(b) Every f16 and every bf16 input (65536 each), forward and backward
    (dy = 1): gpuact against PyTorch eager and both against the correctly
    rounded result (PyTorch's float64 of the same formula, rounded once),
    counted; hardtanh must agree with PyTorch bit for bit.
(c) Every f32 input (2^32, in chunks): ulp histograms of gpuact against
    PyTorch (float32) and of each against float64, forward and backward.
(d) Speed: forward and backward from x at 2^30 elements in each dtype,
    against the PyTorch op and the device-to-device copy of the same run;
    the epilogue (65536 x 8192) against eager and torch.compile.

Writes new_kinds.md (and prints it). Exit 1 if hardtanh differs from
PyTorch anywhere, or gpuact's f32 forward of a smooth kind is more than
1 ulp from float64 anywhere.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_compare as tc  # noqa: E402  (the ctypes binding of gpuact.h)

KINDS = [  # name, gpuact activation, torch forward, torch backward(g, x)
    ("hardtanh(-1,1)", dict(kind=tc.HARDTANH, lower=-1.0, ceiling=1.0)),
    ("gelu", dict(kind=tc.GELU)),
    ("gelu_tanh", dict(kind=tc.GELU_TANH)),
    ("silu", dict(kind=tc.SILU)),
    ("sqrelu", dict(kind=tc.SQRELU)),
]


def torch_fns(torch, F, name):
    aten = torch.ops.aten
    if name.startswith("hardtanh"):
        return (lambda x: F.hardtanh(x, -1.0, 1.0)), (lambda g, x: aten.hardtanh_backward(g, x, -1.0, 1.0))
    if name == "gelu":
        return (lambda x: F.gelu(x)), (lambda g, x: aten.gelu_backward(g, x))
    if name == "gelu_tanh":
        return (lambda x: F.gelu(x, approximate="tanh")), (lambda g, x: aten.gelu_backward(g, x, approximate="tanh"))
    if name == "silu":
        return (lambda x: F.silu(x)), (lambda g, x: aten.silu_backward(g, x))

    def sq_bwd(g, x):  # what autograd runs for relu(x) ** 2: pow's backward, then relu's
        r = torch.relu(x)
        return aten.threshold_backward(g * (2.0 * r), r, 0)
    return (lambda x: torch.relu(x) ** 2), sq_bwd


def dtype_code(torch, dt):
    return {torch.float32: tc.F32, torch.float16: tc.F16, torch.bfloat16: tc.BF16}[dt]


class Run:
    def __init__(self, args):
        import torch
        import torch.nn.functional as F
        self.torch, self.F = torch, F
        self.dev = torch.device("cuda")
        torch.cuda.init()
        self.g = tc.Gpuact(args.lib, "cuda", 0, torch.cuda.current_stream().cuda_stream)
        self.out = []
        self.bad = []

    def p(self, line=""):
        print(line)
        self.out.append(line)

    # gpuact calls on torch tensors (contiguous, same device)
    def fwd(self, a, x):
        y = self.torch.empty_like(x)
        self.g.forward_op(dtype_code(self.torch, x.dtype), x.numel(), x, y, tc.act(**a))()
        return y

    def bwd(self, a, g, x):
        dx = self.torch.empty_like(g)
        self.g.backward_op(dtype_code(self.torch, x.dtype), x.numel(), g, dx, x=x, a=tc.act(**a))()
        return dx

    def bits(self, t):
        return t.view(self.torch.int32 if t.dtype == self.torch.float32 else self.torch.int16)

    def key(self, t):
        """Order keys of float bits (int64; -0 == +0), for ulp distances."""
        torch = self.torch
        b = self.bits(t).to(torch.int64)
        mag = 0x7fffffff if t.dtype == torch.float32 else 0x7fff
        return torch.where(b < 0, -(b & mag), b)

    def ulps(self, a, b):
        """|a - b| in ulps of their dtype; NaN vs NaN 0, NaN vs number -1."""
        torch = self.torch
        na, nb = torch.isnan(a), torch.isnan(b)
        d = (self.key(a) - self.key(b)).abs()
        d = torch.where(na & nb, torch.zeros_like(d), d)
        return torch.where(na ^ nb, torch.full_like(d, -1), d)

    # (a) ------------------------------------------------------------------------------------------------
    def specials(self):
        torch = self.torch
        vals = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38, -1.1754942e-38,
                3.4028235e38, -3.4028235e38, 1.0, -1.0]
        names = ["NaN", "+Inf", "-Inf", "+0", "-0", "+min sub", "-min sub", "+max sub", "-max sub", "+FLT_MAX",
                 "-FLT_MAX", "+1", "-1"]
        x = torch.tensor(vals, dtype=torch.float32, device=self.dev)
        one = torch.ones_like(x)
        self.p("## (a) special values, f32 (bits; forward y and backward dx with dy = 1)")
        for name, a in KINDS:
            tf, tb = torch_fns(torch, self.F, name)
            ty, gy = tf(x), self.fwd(a, x)
            tdx, gdx = tb(one, x), self.bwd(a, one, x)
            self.p(f"\n### {name}\n")
            self.p("| x | torch y | gpuact y | torch dx | gpuact dx |")
            self.p("|---|---|---|---|---|")
            for i, n in enumerate(names):
                def h(t):
                    v = t[i].item()
                    return f"{v:.9g} (0x{self.bits(t)[i].item() & 0xffffffff:08x})"
                same = lambda a_, b_: (self.bits(a_)[i] == self.bits(b_)[i]).item() or (
                    torch.isnan(a_[i]) and torch.isnan(b_[i])).item()
                self.p(f"| {n} | {h(ty)} | {h(gy)}{'' if same(ty, gy) else ' **differs**'} | {h(tdx)} | "
                       f"{h(gdx)}{'' if same(tdx, gdx) else ' **differs**'} |")

    # (b) ------------------------------------------------------------------------------------------------
    def all16(self):
        torch = self.torch
        self.p("\n## (b) every f16 and bf16 input, forward and backward (dy = 1)\n")
        self.p("| kind | dtype | op | gpuact != torch | gpuact not correctly rounded | torch not correctly rounded |"
               " max ulp gpuact-torch | first differing inputs (x: torch, gpuact) |")
        self.p("|---|---|---|---|---|---|---|---|")
        for dt in (torch.float16, torch.bfloat16):
            x = torch.arange(-32768, 32768, dtype=torch.int32, device=self.dev).to(torch.int16).view(dt)
            one = torch.ones_like(x)
            for name, a in KINDS:
                tf, tb = torch_fns(torch, self.F, name)
                xd = x.double()
                for op in ("fwd", "bwd"):
                    if op == "fwd":
                        t, gg, ref = tf(x), self.fwd(a, x), tf(xd).to(dt)
                    else:
                        t, gg, ref = tb(one, x), self.bwd(a, one, x), tb(torch.ones_like(xd), xd).to(dt)
                    u = self.ulps(gg, t)
                    diff = (u != 0)
                    n_diff = int(diff.sum())
                    n_g = int((self.ulps(gg, ref) != 0).sum())
                    n_t = int((self.ulps(t, ref) != 0).sum())
                    idx = diff.nonzero().flatten()[:4].tolist()
                    ex = "; ".join(f"{x[i].item():.6g}: {t[i].item():.6g}, {gg[i].item():.6g}" for i in idx)
                    self.p(f"| {name} | {str(dt)[6:]} | {op} | {n_diff} | {n_g} | {n_t} | {int(u.max())} | {ex} |")
                    if name.startswith("hardtanh") and n_diff:
                        self.bad.append(f"hardtanh {dt} {op}: {n_diff} inputs differ from torch")

    # (c) ------------------------------------------------------------------------------------------------
    def all32(self, chunks):
        torch = self.torch
        labels = ["0", "1", "2", "3-4", "5-16", ">16", "NaN mismatch"]
        self.p("\n## (c) every f32 input: ulp histograms (counts)\n")
        self.p("| kind | op | pair | " + " | ".join(labels) + " | max |")
        self.p("|---|---|---|" + "---|" * (len(labels) + 1))
        n_chunk = (1 << 32) // chunks
        for name, a in KINDS:
            tf, tb = torch_fns(torch, self.F, name)
            for op in ("fwd", "bwd"):
                hist = {k: [0] * len(labels) for k in ("gpuact-torch", "gpuact-f64", "torch-f64")}
                mx = {k: 0 for k in hist}
                for c in range(chunks):
                    lo = -(1 << 31) + c * n_chunk
                    x = torch.arange(lo, lo + n_chunk, dtype=torch.int64, device=self.dev).to(torch.int32)
                    x = x.view(torch.float32)
                    if op == "fwd":
                        t, gg, ref = tf(x), self.fwd(a, x), tf(x.double()).float()
                    else:
                        one = torch.ones_like(x)
                        t, gg = tb(one, x), self.bwd(a, one, x)
                        ref = tb(torch.ones_like(x, dtype=torch.float64), x.double()).float()
                    for k, (p_, q_) in {"gpuact-torch": (gg, t), "gpuact-f64": (gg, ref), "torch-f64": (t, ref)}.items():
                        u = self.ulps(p_, q_)
                        for j, (lo_, hi_) in enumerate(((0, 0), (1, 1), (2, 2), (3, 4), (5, 16), (17, 1 << 62))):
                            hist[k][j] += int(((u >= lo_) & (u <= hi_)).sum())
                        hist[k][-1] += int((u < 0).sum())
                        mx[k] = max(mx[k], int(u.max()))
                    del x, t, gg, ref
                for k in hist:
                    self.p(f"| {name} | {op} | {k} | " + " | ".join(str(v) for v in hist[k]) + f" | {mx[k]} |")
                if op == "fwd" and not name.startswith("hardtanh") and name != "sqrelu" and mx["gpuact-f64"] > 1:
                    self.bad.append(f"{name} f32 forward: {mx['gpuact-f64']} ulp from float64 somewhere")

    # (d) ------------------------------------------------------------------------------------------------
    def timed(self, fn, reps):
        torch = self.torch
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            e0.record()
            fn()
            e1.record()
            e1.synchronize()
            ts.append(e0.elapsed_time(e1))
        return statistics.median(ts)

    def speed(self, n, reps, compile_ok):
        torch, F = self.torch, self.F
        self.p(f"\n## (d) speed, n = {n} elements, median of {reps} (CUDA events); GB/s = bytes moved / time\n")
        self.p("| kind | dtype | op | gpuact ms | torch ms | gpuact / torch speed | gpuact % of copy |")
        self.p("|---|---|---|---|---|---|---|")
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            es = torch.tensor([], dtype=dt).element_size()
            x = torch.randn(n, device=self.dev, dtype=dt)
            g = torch.randn(n, device=self.dev, dtype=dt)
            y = torch.empty_like(x)
            src = torch.empty(n * es, dtype=torch.uint8, device=self.dev)
            dst = torch.empty_like(src)
            copy2 = self.timed(self.g.copy_op(dst, src, n * es), reps)  # 2 n es bytes
            copy3 = copy2 * 1.5
            for name, a in KINDS:
                tf, tb = torch_fns(torch, F, name)
                ga = tc.act(**a)
                code = dtype_code(torch, dt)
                gf = self.g.forward_op(code, n, x, y, ga)
                gb = self.g.backward_op(code, n, g, y, x=x, a=ga)
                for op, gfn, tfn, cp in (("fwd", gf, lambda: tf(x), copy2), ("bwd", gb, lambda: tb(g, x), copy3)):
                    tg, tt = self.timed(gfn, reps), self.timed(tfn, reps)
                    self.p(f"| {name} | {str(dt)[6:]} | {op} | {tg:.4f} | {tt:.4f} | {tt / tg:.3f}x | "
                           f"{100 * cp / tg:.1f}% |")
            del x, g, y, src, dst
            torch.cuda.empty_cache()
        rows, cols = 65536, 8192
        self.p(f"\n### epilogue y = act(x + b) * 0.5, {rows} x {cols}: gpuact vs eager and torch.compile\n")
        self.p("| kind | dtype | gpuact ms | eager ms | compile ms | vs eager | vs compile | bwd+dbias gpuact ms |"
               " bwd eager ms | bwd vs eager |")
        self.p("|---|---|---|---|---|---|---|---|---|---|")
        for dt in (torch.float32, torch.bfloat16):
            x = torch.randn(rows, cols, device=self.dev, dtype=dt)
            b = torch.randn(cols, device=self.dev, dtype=dt)
            dy = torch.randn(rows, cols, device=self.dev, dtype=dt)
            y = torch.empty_like(x)
            dx = torch.empty_like(x)
            db = torch.empty(cols, device=self.dev, dtype=dt)
            code = dtype_code(torch, dt)
            for name, a in KINDS[1:]:
                tf, tb = torch_fns(torch, F, name)
                ga = tc.act(**a)
                gf = self.g.epilogue_op(rows, cols, x, y, code, code, bias=b, a=ga, scale=0.5)
                gbk = self.g.epilogue_backward_op(rows, cols, dy, dx, code, code, x=x, x_dtype=code, bias=b,
                                                  dbias=db, dbias_dtype=code, a=ga, scale=0.5)
                eager = lambda: tf(x + b) * 0.5

                def eager_bwd():
                    gz = tb(dy * 0.5, x + b)
                    return gz, gz.sum(0)
                t_g, t_e = self.timed(gf, reps), self.timed(eager, reps)
                t_c = float("nan")
                if compile_ok and name in ("gelu", "silu"):  # each compile costs seconds of device time
                    try:
                        cf = torch.compile(lambda x_, b_: tf(x_ + b_) * 0.5)
                        t_c = self.timed(lambda: cf(x, b), reps)
                    except Exception as e:  # report, keep going
                        print("torch.compile failed:", e)
                tb_g, tb_e = self.timed(gbk, reps), self.timed(eager_bwd, reps)
                self.p(f"| {name} | {str(dt)[6:]} | {t_g:.3f} | {t_e:.3f} | {t_c:.3f} | {t_e / t_g:.2f}x | "
                       f"{t_c / t_g:.2f}x | {tb_g:.3f} | {tb_e:.3f} | {tb_e / tb_g:.2f}x |")
            del x, b, dy, y, dx
            torch.cuda.empty_cache()


def glu(r, reps, compile_ok):
    """SwiGLU / GeGLU / ReGLU on the halves of one up-projection output (rows x 2 cols): numerics against
    torch computing the same in f32 and rounding once, and speed against eager and torch.compile."""
    torch, F = r.torch, r.F
    rows, cols = 16384, 8192
    r.p(f"\n## gated forms, a and b the halves of a {rows} x {2 * cols} matrix, with biases\n")
    r.p("| act | dtype | fwd max ulp vs torch f32 | bwd max ulp (da, db) | gpuact fwd ms | eager ms | compile ms |"
        " vs eager | vs compile | gpuact bwd+dbias ms | eager bwd ms | bwd vs eager |")
    r.p("|---|---|---|---|---|---|---|---|---|---|---|---|")
    kinds = (("silu", tc.SILU, F.silu, torch.ops.aten.silu_backward),
             ("gelu", tc.GELU, F.gelu, torch.ops.aten.gelu_backward),
             ("relu", tc.RELU, torch.relu, lambda g, a: torch.ops.aten.threshold_backward(g, a, 0)))
    for dt in (torch.float32, torch.bfloat16):
        code = dtype_code(torch, dt)
        es = torch.tensor([], dtype=dt).element_size()
        X = torch.randn(rows, 2 * cols, device=r.dev, dtype=dt)
        bias = torch.randn(2 * cols, device=r.dev, dtype=dt)
        dy = torch.randn(rows, cols, device=r.dev, dtype=dt)
        y = torch.empty(rows, cols, device=r.dev, dtype=dt)
        dX = torch.empty_like(X)
        dbias = torch.empty(2 * cols, device=r.dev, dtype=torch.float32)
        a, b = X[:, :cols], X[:, cols:]
        ba, bb = bias[:cols], bias[cols:]
        hb = tc.Buffer(X.data_ptr() + cols * es, 0)
        for name, kind, tf, tb in kinds:
            ga = tc.act(kind)
            gf = r.g.glu_op(rows, cols, X, hb, y, code, code, ga, bias, tc.Buffer(bias.data_ptr() + cols * es, 0),
                            2 * cols, 2 * cols)
            gb = r.g.glu_backward_op(rows, cols, dy, X, hb, dX, tc.Buffer(dX.data_ptr() + cols * es, 0), code, code,
                                     ga, bias, tc.Buffer(bias.data_ptr() + cols * es, 0), dbias,
                                     tc.Buffer(dbias.data_ptr() + cols * 4, 0), tc.F32, 0, 2 * cols, 2 * cols,
                                     2 * cols, 2 * cols)
            gf()
            gb()
            za, zb = a.float() + ba.float(), b.float() + bb.float()
            ref = (tf(za) * zb).to(dt)
            g32 = dy.float()
            rda = tb(g32 * zb, za).to(dt)
            rdb = (g32 * tf(za)).to(dt)
            u_f = int(r.ulps(y, ref).max())
            u_b = (int(r.ulps(dX[:, :cols], rda).max()), int(r.ulps(dX[:, cols:], rdb).max()))
            eager = lambda: tf(a + ba) * (b + bb)

            def eager_bwd():
                za_, zb_ = a + ba, b + bb
                g_ = dy * zb_
                da_ = tb(g_, za_)
                db_ = dy * tf(za_)
                return da_, db_, da_.sum(0), db_.sum(0)
            t_g, t_e = r.timed(gf, reps), r.timed(eager, reps)
            t_c = float("nan")
            if compile_ok and name == "silu":  # SwiGLU; each compile costs seconds of device time
                try:
                    cf = torch.compile(lambda a_, b_, ba_, bb_: tf(a_ + ba_) * (b_ + bb_))
                    t_c = r.timed(lambda: cf(a, b, ba, bb), reps)
                except Exception as e:  # report, keep going
                    print("torch.compile failed:", e)
            tb_g, tb_e = r.timed(gb, reps), r.timed(eager_bwd, reps)
            r.p(f"| {name} | {str(dt)[6:]} | {u_f} | {u_b[0]}, {u_b[1]} | {t_g:.3f} | {t_e:.3f} | {t_c:.3f} | "
                f"{t_e / t_g:.2f}x | {t_c / t_g:.2f}x | {tb_g:.3f} | {tb_e:.3f} | {tb_e / tb_g:.2f}x |")
        del X, bias, dy, y, dX, dbias
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default=tc.default_lib())
    ap.add_argument("--out", default=".")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, fewer repetitions")
    ap.add_argument("--skip-f32-all", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--only", help="comma-separated sections: specials,all16,all32,speed,glu")
    args = ap.parse_args()
    r = Run(args)
    import torch
    r.p(f"# new kinds vs PyTorch {torch.__version__} on {torch.cuda.get_device_name()}, gpuact {r.g.backend}")
    reps = 5 if args.quick else 20
    sections = [("specials", r.specials), ("all16", r.all16)]
    if not args.skip_f32_all:
        sections.append(("all32", lambda: r.all32(64)))
    sections += [("speed", lambda: r.speed((1 << 26) if args.quick else (1 << 30), reps, not args.no_compile)),
                 ("glu", lambda: glu(r, reps, not args.no_compile))]
    only = set(args.only.split(",")) if args.only else None
    for name, fn in sections:  # one section's failure must not lose the others
        if only and name not in only:
            continue
        try:
            fn()
        except Exception:
            import traceback
            traceback.print_exc()
            r.bad.append(f"section {name} raised (traceback above)")
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "new_kinds.md"), "w") as f:
        f.write("\n".join(r.out) + "\n")
    for b in r.bad:
        print("FAIL", b)
    sys.exit(1 if r.bad else 0)


if __name__ == "__main__":
    main()
