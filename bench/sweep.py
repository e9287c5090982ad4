#!/usr/bin/env python3
"""gpuact against torch and the copy over sizes, two ways, and odd shapes
(docs/PERFORMANCE.md, "Sizes").

    pip install ./python                     # the gpuact package, with torch beside it
    python3 bench/sweep.py --out sweep.csv --plot sweep.png

For each size n = 2^10 ... 2^32 (--max-log2) and each workload (relu forward
f32 and bf16, relu backward from the mask bf16, epilogue relu(x + b) f32
with 8192 columns), the time per call of gpuact, of torch's counterpart and
of a device-to-device copy of the same bytes, the three taking turns batch
by batch once the GPU has settled after the previous size's buffers were
freed:

  device  the GPU is kept busy by a spin kernel (torch.cuda._sleep) while the
          calls are queued, so launch latency hides: the kernels' own time.
  host    calls back to back from Python, no spin: what a caller gets,
          host cost included (gpuact through its C layer, gpuact._C).

Then odd shapes against their aligned neighbours: n = 10^8 + 3, a view
offset by one element, an epilogue with 8191 columns. Every gpuact output
is checked bit for bit against torch's once per size.
"""
import argparse
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from builds import builds, same_bits  # noqa: E402 (bench/builds.py, beside this file)


def timed_batch(t, e0, e1, fn, calls, spin):
    """ms per call of one batch of calls (t: torch, e0 and e1 timing events). spin: the GPU is kept busy
    by a spin kernel while the calls are queued, longer than queueing them takes (20 us each at most), so
    they wait behind it and launch latency hides ("device" time)."""
    t.cuda.synchronize()
    if spin:
        t.cuda._sleep(int(2e9 * 20e-6 * calls) + 1000000)
    e0.record()
    for _ in range(calls):
        fn()
    e1.record()
    e1.synchronize()
    return e0.elapsed_time(e1) / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="gpuact", metavar="LABEL[=PATH]",
                    help="the build: the installed package, or LABEL=PATH of another gpuact._C extension")
    ap.add_argument("--min-log2", type=int, default=10)
    ap.add_argument("--max-log2", type=int, default=32)
    ap.add_argument("--step", type=int, default=2)
    ap.add_argument("--out", default="sweep.csv")
    ap.add_argument("--plot")
    ap.add_argument("--odd-n", type=int, default=10 ** 8, help="elements of the odd-shape cases (n + 3, an offset "
                    "view) against n")
    args = ap.parse_args()
    import torch
    t = torch
    g = builds([args.lib], None, stream=t.cuda.current_stream().cuda_stream)[0]
    e0, e1 = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
    bad = 0

    def batch(fn, calls, spin):
        return timed_batch(t, e0, e1, fn, calls, spin)

    def per_call(fns, calls, spin):
        """ms per call of each function, median of 5 batches; the functions take turns batch by batch
        (round robin), so a slow stretch of the GPU weighs on all of them alike."""
        res = {name: [] for name in fns}
        for _ in range(6):
            for name, fn in fns.items():
                res[name].append(batch(fn, calls, spin))
        return {name: statistics.median(r[1:]) for name, r in res.items()}

    def settle(fn, nbytes):
        """Run fn until two blocks of calls (about 20 ms each) agree within 1%. Right after the previous
        size's buffers were freed the GPU runs slower for tens of milliseconds (a copy of 1 GiB measured
        554-624 us per call over its first 50 calls after freeing 12 GiB, 505 us after): whatever ran
        first there measured up to 12% slow, which made gpuact's bf16 forward look 0.89x torch at
        2^29-2^32 elements in device-time mode."""
        calls = max(1, min(2000, int(20e-3 * 3e12 / max(nbytes, 1))))
        prev = batch(fn, calls, False)
        for _ in range(20):
            cur = batch(fn, calls, False)
            if abs(cur - prev) <= 0.01 * prev:
                return
            prev = cur

    rows = []
    for lg in range(args.min_log2, args.max_log2 + 1, args.step):
        n = 1 << lg
        for wl in ("relu fwd f32", "relu fwd bf16", "relu bwd from mask bf16", "epilogue f32"):
            dt = t.bfloat16 if "bf16" in wl else t.float32
            es = 2 if dt == t.bfloat16 else 4
            code = "bf16" if dt == t.bfloat16 else "f32"
            try:
                if wl.startswith("epilogue"):
                    cols = 8192
                    if n < cols:
                        continue
                    r = n // cols
                    x = t.randn(r, cols, device="cuda", dtype=dt)
                    b = t.randn(cols, device="cuda", dtype=dt)
                    y = t.empty_like(x)
                    ours = g.epilogue_op(r, cols, x, y, code, code, bias=b)
                    theirs = lambda: t.relu(x + b)
                    nbytes = 2 * es * n
                    ref = theirs
                elif "bwd" in wl:
                    x = t.randn(n, device="cuda", dtype=dt)
                    dy = t.randn(n, device="cuda", dtype=dt)
                    y = t.empty_like(x)
                    mask = t.empty((n + 7) // 8, dtype=t.uint8, device="cuda")
                    g.forward_op(code, n, x, y, "relu", mask)()
                    ours = g.backward_op(code, n, dy, y, mask=mask, a="relu")
                    theirs = lambda: t.ops.aten.threshold_backward(dy, x, 0)
                    nbytes = 2 * es * n + n // 8
                    ref = theirs
                else:
                    x = t.randn(n, device="cuda", dtype=dt)
                    y = t.empty_like(x)
                    ours = g.forward_op(code, n, x, y, "relu")
                    theirs = lambda: t.relu(x)
                    nbytes = 2 * es * n
                    ref = theirs
            except RuntimeError as e:  # out of memory at the largest sizes
                print(f"skip {wl} n=2^{lg}: {e}")
                t.cuda.empty_cache()
                continue
            ours()
            t.cuda.synchronize()
            ok = same_bits(y, ref())
            bad += not ok
            src = t.empty(nbytes // 2, dtype=t.uint8, device="cuda")
            dst = t.empty_like(src)
            copy = lambda: dst.copy_(src)
            calls = max(5, min(2000, (1 << 28) // n))
            settle(copy, nbytes)
            for how, spin in (("device", True), ("host", False)):
                ms = per_call({"gpuact": ours, "torch": theirs, "copy": copy}, calls, spin)
                row = dict(workload=wl, log2n=lg, n=n, how=how, bytes=nbytes, ok=ok,
                           **{f"{k}_us": v * 1e3 for k, v in ms.items()},
                           **{f"{k}_gbps": nbytes / (v * 1e6) for k, v in ms.items()})
                rows.append(row)
                print(f"{wl:24s} 2^{lg:<2d} {how:6s} gpuact {ms['gpuact']*1e3:10.2f} us  torch {ms['torch']*1e3:10.2f}"
                      f" us  copy {ms['copy']*1e3:10.2f} us  gpuact/torch speed {ms['torch']/ms['gpuact']:.2f}x"
                      f"  {'ok' if ok else 'DIFF'}", flush=True)
            del x, y, src, dst
            t.cuda.empty_cache()

    # odd shapes against aligned neighbours (device time)
    def odd(name, fa, fb):
        settle(fb, 1 << 30)
        ms = per_call({"odd": fa, "aligned": fb}, 20, True)
        a, b_ = ms["odd"], ms["aligned"]
        rows.append(dict(workload=name, how="odd/aligned", gpuact_us=a * 1e3, torch_us=b_ * 1e3))
        print(f"{name:40s} odd {a*1e3:9.1f} us, aligned {b_*1e3:9.1f} us, ratio {a / b_:.3f}", flush=True)
    n = args.odd_n
    x = t.randn(n + 8, device="cuda")
    y = t.empty_like(x)
    odd("relu f32 n = 10^8 + 3 vs 10^8", g.forward_op("f32", n + 3, x, y, "relu"), g.forward_op("f32", n, x, y, "relu"))
    odd("relu f32 offset by one element", g.forward_op("f32", n, x[1:], y[1:], "relu"), g.forward_op("f32", n, x, y, "relu"))
    xb = x.to(t.bfloat16)
    yb = t.empty_like(xb)
    odd("relu bf16 offset by one element", g.forward_op("bf16", n, xb[1:], yb[1:], "relu"),
        g.forward_op("bf16", n, xb, yb, "relu"))
    del x, y, xb, yb
    r = 16384
    xe = t.randn(r, 8192, device="cuda")
    ye = t.empty_like(xe)
    be = t.randn(8192, device="cuda")
    odd("epilogue f32 16384 x 8191 (ld 8192) vs x 8192",
        g.epilogue_op(r, 8191, xe, ye, "f32", "f32", bias=be, ld_x=8192, ld_y=8192),
        g.epilogue_op(r, 8192, xe, ye, "f32", "f32", bias=be))

    keys = sorted({k for row in rows for k in row}, key=lambda k: (k not in ("workload", "log2n", "how"), k))
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        wls = ["relu fwd f32", "relu fwd bf16", "relu bwd from mask bf16", "epilogue f32"]
        fig, axes = plt.subplots(2, len(wls), figsize=(5 * len(wls), 8), sharex=True)
        for j, wl in enumerate(wls):
            for i, how in enumerate(("device", "host")):
                ax = axes[i][j]
                sel = [r_ for r_ in rows if r_.get("workload") == wl and r_.get("how") == how]
                for impl, style in (("gpuact", "o-"), ("torch", "s--"), ("copy", "k:")):
                    ax.plot([r_["log2n"] for r_ in sel], [r_[f"{impl}_gbps"] for r_ in sel], style, label=impl)
                ax.set_title(f"{wl}, {how} time")
                ax.set_xlabel("log2(elements)")
                ax.set_ylabel("GB/s (bytes read + written)")
                ax.grid(True, alpha=0.3)
                ax.legend()
        fig.suptitle(f"gpuact vs torch vs copy, {t.cuda.get_device_name()}")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=80)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
