#!/usr/bin/env python3
"""gpuact.torch against PyTorch on one CUDA device; prints markdown tables and
writes them (results.md, results.json) under --out.

    pip install --no-build-isolation ./python      # on a machine without network access
    python python/bench/bench_torch.py --out DIR   # --quick: small sizes, for a smoke run

(a) Host time per call at n = 1024 (wall clock around 1000 back-to-back
    calls, median of 7 batches): gpuact.torch.relu against torch.relu, the
    dispatcher path (torch.ops.gpuact.act_fwd), bias_act, and the raw
    extension call (gpuact._C.forward with prepared arguments, GIL released
    and kept) against the same C call in a C loop in this process
    (gpuact._C.bench_forward: what build/host_overhead measures in C).
(b) Training steps (forward + backward, CUDA events, median), each as plain
    torch, torch.compile of it, gpuact, and torch.compile of gpuact, with the
    peak memory of one step over what was allocated before it
    (torch.cuda.max_memory_allocated):
      1. autograd ReLU on 4096 x 393216 f32 (y = relu(x); y.backward(dy));
      2. Linear 8192 -> 8192 + bias + ReLU at batch 1024;
      3. the same Linear + ReLU, then divided by a constant (gpuact: scale = 1/c
         in the epilogue).
Each kernel's own device time against torch's, every cell: bench/matrix.py.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time
import traceback


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="directory for results.md and results.json")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run, not figures)")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile columns")
    p.add_argument("--only", default="ab", help="which sections to run: 'a', 'b' or both")
    return p.parse_args()


class Bench:
    def __init__(self, args):
        import torch
        import gpuact
        import gpuact.torch as ga
        self.args, self.torch, self.ga, self.gpuact = args, torch, ga, gpuact
        self.dev = torch.device("cuda", torch.cuda.current_device())
        self.gen = torch.Generator(device=self.dev)
        self.gen.manual_seed(int(time.time() * 1e6) & 0xffffffff)  # fresh data every run
        self.sections = {}
        self.e0 = torch.cuda.Event(enable_timing=True)
        self.e1 = torch.cuda.Event(enable_timing=True)

    # -- helpers --------------------------------------------------------------------------------
    def randn(self, *shape, dtype=None, requires_grad=False):
        t = self.torch.randn(*shape, device=self.dev, generator=self.gen, dtype=self.torch.float32)
        t = t.to(dtype) if dtype is not None else t
        return t.requires_grad_() if requires_grad else t

    def device_ms(self, fn):
        t = self.torch
        for _ in range(self.args.warmup):
            fn()
        t.cuda.synchronize()
        ts = []
        for _ in range(self.args.reps):
            self.e0.record()
            fn()
            self.e1.record()
            self.e1.synchronize()
            ts.append(self.e0.elapsed_time(self.e1))
        return statistics.median(ts)

    def host_us(self, fn, calls=1000, batches=7):
        t = self.torch
        for _ in range(50):
            fn()
        t.cuda.synchronize()
        res = []
        for _ in range(batches):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            res.append((time.perf_counter() - t0) / calls * 1e6)
            t.cuda.synchronize()
        return statistics.median(res)

    def peak_mb(self, step):
        t = self.torch
        t.cuda.synchronize()
        t.cuda.reset_peak_memory_stats()
        base = t.cuda.memory_allocated()
        step()
        t.cuda.synchronize()
        return (t.cuda.max_memory_allocated() - base) / 2 ** 20

    def free(self):
        import gc
        gc.collect()
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()

    def compile(self, fn):
        return self.torch.compile(fn) if not self.args.no_compile else None

    def table(self, name, header, rows):
        self.sections[name] = {"header": header, "rows": rows}
        print(f"\n### {name}\n")
        print(markdown(header, rows), flush=True)

    # -- (a) host time --------------------------------------------------------------------------
    def host_time(self):
        t, ga, C = self.torch, self.ga, self.gpuact._C
        import gpuact.torch._impl as impl
        x = self.randn(1024)
        x2 = self.randn(8, 128)
        b = self.randn(128)
        y = t.empty_like(x)
        kp = ga.functional._kp("relu", {})
        act, plist = (kp[0],) + kp[1], list(kp[1])
        dev = x.get_device()
        stream = impl.raw_stream(dev)
        args = (impl.BACKEND, dev, stream, act, 0, 1024, x.data_ptr(), y.data_ptr(), None)
        f = C.forward
        rows = []

        def row(what, us, note=""):
            rows.append([what, f"{us:.2f}", note])

        row("torch.relu(x)", self.host_us(lambda: t.relu(x)))
        row("gpuact.torch.relu(x)", self.host_us(lambda: ga.relu(x)), "eager fast path, allocates y")
        row("torch.ops.gpuact.act_fwd(x, ...)", self.host_us(lambda: t.ops.gpuact.act_fwd(x, kp[0], plist, False)),
            "the operator through torch.ops (torch.compile's path)")
        row("torch.relu(x + b), 8 x 128", self.host_us(lambda: t.relu(x2 + b)))
        row("gpuact.torch.bias_act(x, b), 8 x 128", self.host_us(lambda: ga.bias_act(x2, b)))
        old = C.set_release_gil(True)
        c_loop = C.bench_forward(*args[:8], 20000)
        raw_rel = self.host_us(lambda: f(*args))
        C.set_release_gil(False)
        raw_keep = self.host_us(lambda: f(*args))
        C.set_release_gil(old)
        c_loop2 = C.bench_forward(*args[:8], 20000)
        c_us = min(c_loop, c_loop2)
        row("gpuact_forward in a C loop (gpuact._C.bench_forward)", c_us, "the C figure, same process and buffers")
        row("gpuact._C.forward(...), GIL released", raw_rel, f"{raw_rel - c_us:+.2f} us over C")
        row("gpuact._C.forward(...), GIL kept", raw_keep, f"{raw_keep - c_us:+.2f} us over C")
        t.cuda.synchronize()
        self.table("(a) host time per call, n = 1024 f32", ["call", "us per call", "note"], rows)

    # -- (b) training steps ------------------------------------------------------------------------------
    def training(self):
        t, ga = self.torch, self.ga
        rows = []

        def run(work, impls):
            base = None
            for name, step in impls:
                if step is None:
                    continue
                try:
                    ms = self.device_ms(step)
                    mb = self.peak_mb(step)
                except Exception as e:  # one failing column must not hide the others
                    rows.append([work, name, "error", "", "", repr(e)[:120]])
                    traceback.print_exc()
                    continue
                base = ms if base is None else base
                rows.append([work, name, f"{ms:.3f}", f"{base / ms:.2f}x", f"{mb:.0f}", ""])
            self.free()

        # 1. autograd ReLU
        shape = (256, 16384) if self.args.quick else (4096, 393216)
        x = self.randn(*shape, requires_grad=True)
        dy = self.randn(*shape)

        def relu_step(fn):
            def step():
                x.grad = None
                fn(x).backward(dy)
            return step

        ct, cg = self.compile(lambda v: t.relu(v)), self.compile(lambda v: ga.relu(v))
        run(f"autograd ReLU {shape[0]}x{shape[1]} f32", [
            ("torch", relu_step(t.relu)), ("torch.compile", relu_step(ct) if ct else None),
            ("gpuact", relu_step(ga.relu)), ("torch.compile(gpuact)", relu_step(cg) if cg else None)])
        x = dy = None
        self.free()

        # 2 and 3. Linear + ReLU (then / c)
        batch, fin, fout = (256, 1024, 1024) if self.args.quick else (1024, 8192, 8192)
        c = 3.0
        for divide in (False, True):
            t.manual_seed(0)
            ref = t.nn.Linear(fin, fout).to(self.dev)
            mine = ga.nn.Linear(fin, fout, scale=1.0 / c if divide else 1.0).to(self.dev)
            mine.load_state_dict(ref.state_dict())
            xin = self.randn(batch, fin)
            dyo = self.randn(batch, fout)

            def torch_fwd(v, ref=ref, divide=divide):
                h = t.relu(ref(v))
                return h / c if divide else h

            def step_of(fwd, params):
                def step():
                    for p in params:
                        p.grad = None
                    fwd(xin).backward(dyo)
                return step

            ct, cg = self.compile(torch_fwd), self.compile(mine)
            work = f"Linear {fin}->{fout} + bias + ReLU{' / c' if divide else ''}, batch {batch} f32"
            run(work, [("torch", step_of(torch_fwd, ref.parameters())),
                       ("torch.compile", step_of(ct, list(ref.parameters())) if ct else None),
                       ("gpuact", step_of(mine, list(mine.parameters()))),
                       ("torch.compile(gpuact)", step_of(cg, list(mine.parameters())) if cg is not None else None)])
            ref = mine = xin = dyo = None
            self.free()
        self.table("(b) training steps (forward + backward)",
                   ["step", "implementation", "median ms", "speedup vs torch", "peak MiB over inputs", "note"], rows)


def markdown(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def main():
    args = parse()
    os.makedirs(args.out, exist_ok=True)
    try:
        import torch
    except ImportError:
        print("bench_torch: torch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("bench_torch: no CUDA device", file=sys.stderr)
        return 2
    b = Bench(args)
    import gpuact
    head = (f"gpuact {gpuact.VERSION}, torch {torch.__version__}, {torch.cuda.get_device_name()}, "
            f"{datetime.datetime.now().isoformat(timespec='seconds')}, reps {args.reps}, warm-up {args.warmup}"
            + (", QUICK (not figures)" if args.quick else ""))
    print(head)
    failed = []
    for key, fn in (("a", b.host_time), ("b", b.training)):
        if key in args.only:
            try:
                fn()
            except Exception:
                traceback.print_exc()
                failed.append(key)
            b.free()
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(f"# gpuact.torch benchmark\n\n{head}\n")
        for name, sec in b.sections.items():
            f.write(f"\n### {name}\n\n{markdown(sec['header'], sec['rows'])}\n")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"head": head, "sections": b.sections, "failed": failed}, f, indent=1)
    print(f"\nwritten: {os.path.join(args.out, 'results.md')}" + (f"; sections that failed: {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
