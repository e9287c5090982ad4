#!/usr/bin/env python3
"""Host time per call of every gpuact.torch function and module against the torch code it replaces,
side by side, at n = 1024 elements (f32, eager), without and with autograd (the input requires grad:
the forward that builds the graph). Runs in well under a minute on one GPU:

    python python/bench/host_time.py [--dtype bf16] [--calls 100] [--batches 40] [--json FILE] [--compile]

Host time, not device time: each batch is `calls` back-to-back calls timed with perf_counter, fewer
than the launch queue holds, so the host never waits for the GPU; the device is synchronized between
batches, outside the timing; torch's and gpuact's batches alternate (the host's speed drifts within a
process); the median batch is reported, in microseconds per call. ratio = torch /
gpuact (>= 1.00: gpuact's call costs no more host time than torch's).

A second table splits gpuact's relu call into its pieces (the C enqueue alone in a C loop, the extension
call from Python, the allocation, the stream lookup, the operator gpuact::act through torch.ops and through
gpuact.torch._ext's unboxed entry, with and without autograd) next to torch's relu with and without
autograd, then leaky_relu's and nn.Linear + relu's calls and their parts next to torch's. --compile adds rows for torch.compile(fullgraph=True) functions of both
(one compile each, tens of seconds)."""
import argparse
import json
import statistics
import sys
import time


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dtype", default="f32", choices=["f32", "bf16", "f16"])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--batches", type=int, default=40)
    p.add_argument("--json", help="also write the rows here")
    p.add_argument("--compile", action="store_true", help="also time torch.compile(fullgraph=True) functions")
    args = p.parse_args()

    import torch
    import torch.nn.functional as F
    import gpuact.torch as ga

    if not torch.cuda.is_available():
        sys.exit("host_time.py needs a CUDA device")
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    dev = torch.device("cuda")
    n = args.n
    cols = 128
    rows = max(n // cols, 1)

    def t(*shape, grad=False):
        x = torch.randn(*shape, device=dev).to(dt)
        return x.requires_grad_() if grad else x

    def host_us(*fns):
        """Median host time per call of each fn, their batches alternating (fn 1, fn 2, ..., fn 1, ...)."""
        for fn in fns:
            for _ in range(20):
                fn()
        torch.cuda.synchronize()
        res = [[] for _ in fns]
        for _ in range(args.batches):
            for fn, r in zip(fns, res):
                t0 = time.perf_counter()
                for _ in range(args.calls):
                    fn()
                r.append((time.perf_counter() - t0) / args.calls * 1e6)
                torch.cuda.synchronize()
        out = [statistics.median(r) for r in res]
        return out[0] if len(fns) == 1 else out

    # (name, torch call, gpuact call): each a function of the inputs dict
    def cases(grad):
        x = t(n, grad=grad)
        m = t(rows, cols, grad=grad)
        b = t(cols, grad=grad).float() if not grad else torch.randn(cols, device=dev, requires_grad=True)
        h = t(rows, 2 * cols, grad=grad)
        lin_ga = ga.nn.Linear(cols, cols, activation="relu").to(dev, dt)
        lin_t = torch.nn.Linear(cols, cols).to(dev, dt)
        mlp_ga = ga.nn.GatedMLP(cols, 2 * cols).to(dev, dt)
        w1 = torch.nn.Linear(cols, 2 * cols, bias=False).to(dev, dt)
        w3 = torch.nn.Linear(cols, 2 * cols, bias=False).to(dev, dt)
        w2 = torch.nn.Linear(2 * cols, cols, bias=False).to(dev, dt)
        if not grad:
            for mod in (lin_ga, lin_t, mlp_ga, w1, w3, w2):
                mod.requires_grad_(False)
        nn_relu, nn_gelu, nn_silu = torch.nn.ReLU(), torch.nn.GELU(), torch.nn.SiLU()
        g_relu, g_gelu, g_silu = ga.nn.ReLU(), ga.nn.GELU(), ga.nn.SiLU()
        return [
            ("relu", lambda: torch.relu(x), lambda: ga.relu(x)),
            ("leaky_relu", lambda: F.leaky_relu(x, 0.1), lambda: ga.leaky_relu(x, 0.1)),
            ("relu6", lambda: F.relu6(x), lambda: ga.relu6(x)),
            ("hardtanh", lambda: F.hardtanh(x), lambda: ga.hardtanh(x)),
            ("clipped_relu(3)", lambda: F.hardtanh(x, 0.0, 3.0), lambda: ga.clipped_relu(x, 3.0)),
            ("gelu", lambda: F.gelu(x), lambda: ga.gelu(x)),
            ("gelu tanh", lambda: F.gelu(x, approximate="tanh"), lambda: ga.gelu(x, approximate="tanh")),
            ("silu", lambda: F.silu(x), lambda: ga.silu(x)),
            ("squared_relu", lambda: torch.relu(x) ** 2, lambda: ga.squared_relu(x)),
            (f"bias_act relu {rows}x{cols}", lambda: torch.relu(m + b), lambda: ga.bias_act(m, b, "relu")),
            (f"bias_act gelu {rows}x{cols}", lambda: F.gelu(m + b), lambda: ga.bias_act(m, b, "gelu")),
            (f"swiglu fused {rows}x{2 * cols}",
             lambda: (lambda g, u: F.silu(g) * u)(*h.chunk(2, -1)), lambda: ga.swiglu(h)),
            (f"geglu fused {rows}x{2 * cols}",
             lambda: (lambda g, u: F.gelu(g) * u)(*h.chunk(2, -1)), lambda: ga.geglu(h)),
            ("nn.ReLU", lambda: nn_relu(x), lambda: g_relu(x)),
            ("nn.GELU", lambda: nn_gelu(x), lambda: g_gelu(x)),
            ("nn.SiLU", lambda: nn_silu(x), lambda: g_silu(x)),
            (f"nn.Linear({cols}, {cols}) + relu, batch {rows}", lambda: torch.relu(lin_t(m)), lambda: lin_ga(m)),
            (f"GatedMLP({cols}, {2 * cols}), {rows} tokens", lambda: w2(F.silu(w1(m)) * w3(m)), lambda: mlp_ga(m)),
        ]

    def compiled_cases(grad):
        x = t(n, grad=grad)
        m = t(rows, cols, grad=grad)
        b = torch.randn(cols, device=dev, requires_grad=grad).to(dt)
        h = t(rows, 2 * cols, grad=grad)
        c = lambda f: torch.compile(f, fullgraph=True)  # noqa: E731
        pairs = [("relu", lambda v: torch.relu(v), lambda v: ga.relu(v), x),
                 ("gelu", lambda v: F.gelu(v), lambda v: ga.gelu(v), x),
                 (f"bias_act relu {rows}x{cols}", lambda v: torch.relu(v + b), lambda v: ga.bias_act(v, b, "relu"), m),
                 (f"swiglu fused {rows}x{2 * cols}", lambda v: (lambda g, u: F.silu(g) * u)(*v.chunk(2, -1)),
                  lambda v: ga.swiglu(v), h)]
        out = []
        for name, tf, gf, v in pairs:
            ctf, cgf = c(tf), c(gf)
            out.append((f"compiled {name}", (lambda f, v: lambda: f(v))(ctf, v), (lambda f, v: lambda: f(v))(cgf, v)))
        return out

    rows_out = []
    print(f"host time per call, us (n = {n}, {args.dtype}, eager; median of {args.batches} batches of "
          f"{args.calls} calls), ratio = torch / gpuact\n")
    print("| call | autograd | torch | gpuact | ratio |")
    print("|---|---|---|---|---|")
    for grad in (False, True):
        for name, tf, gf in cases(grad) + (compiled_cases(grad) if args.compile else []):
            tt, gt = host_us(tf, gf)
            rows_out.append({"call": name, "autograd": grad, "torch_us": tt, "gpuact_us": gt, "ratio": tt / gt})
            print(f"| {name} | {'yes' if grad else 'no'} | {tt:.2f} | {gt:.2f} | {tt / gt:.2f}x |", flush=True)
    pieces(args, dt, host_us)
    worst = min(rows_out, key=lambda r: r["ratio"])
    print(f"\nlowest ratio: {worst['ratio']:.2f}x ({worst['call']}, autograd {worst['autograd']}); "
          f"{sum(r['ratio'] >= 1.0 for r in rows_out)} of {len(rows_out)} rows at >= 1.00x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "dtype": args.dtype,
                       "n": n, "rows": rows_out}, f, indent=1)


def pieces(args, dt, host_us):
    """gpuact.relu's call split into its parts, on one x of n elements, next to torch.relu's."""
    import torch
    import gpuact.torch as ga
    from gpuact import _C
    from gpuact.torch import _impl

    x = torch.randn(args.n, device="cuda").to(dt)
    xg = x.clone().requires_grad_()
    y = torch.empty_like(x)
    dev = x.get_device()
    act = ga.functional._RELU[4]  # (kind, params...) as the call passes it
    fwd = (_impl.BACKEND, dev, _impl.raw_stream(dev), act, _impl.DTYPE[dt], args.n, x.data_ptr(), y.data_ptr(), None)

    from gpuact.torch import _ext
    import torch.nn.functional as F
    op = torch.ops.gpuact.act.default
    kind, plist = ga.functional._RELU[0], ga.functional._RELU[5]
    leaky = ga.functional._kp("leaky", {"negative_slope": 0.1})
    gelu = fwd[:3] + (ga.functional._GELU["none"][4],) + fwd[4:]
    cols = 128
    m = torch.randn(max(args.n // cols, 1), cols, device="cuda").to(dt)
    lin_ga = ga.nn.Linear(cols, cols, activation="relu").to("cuda", dt).requires_grad_(False)
    lin_t = torch.nn.Linear(cols, cols).to("cuda", dt).requires_grad_(False)
    w, b = lin_ga.weight, lin_ga.bias
    z = F.linear(m, w)

    def c_loop(a):  # batches of calls in C, the device synchronized between them, as host_us does
        res = []
        for _ in range(args.batches):
            torch.cuda.synchronize()
            res.append(_C.bench_forward(*a[:8], args.calls))
        return statistics.median(res)

    rows = [("gpuact_forward enqueue in a C loop (bench_forward)", c_loop(fwd)),
            ("gpuact._C.forward from Python, arguments ready", host_us(lambda: _C.forward(*fwd))),
            ("gpuact_forward enqueue in a C loop, gelu", c_loop(gelu)),
            ("gpuact._C.forward from Python, arguments ready, gelu", host_us(lambda: _C.forward(*gelu))),
            ("torch.empty_like(x)", host_us(lambda: torch.empty_like(x))),
            ("torch._C._cuda_getCurrentRawStream(dev)", host_us(lambda: _impl.raw_stream(dev))),
            ("torch.cuda.current_stream(dev).cuda_stream", host_us(lambda: torch.cuda.current_stream(dev).cuda_stream)),
            ("torch.ops.gpuact.act.default(x, ...)", host_us(lambda: op(x, kind, plist))),
            ("torch.ops.gpuact.act.default(x, ...), x requires grad", host_us(lambda: op(xg, kind, plist))),
            ("gpuact.torch._ext.act(x, ...) (unboxed entry)", host_us(lambda: _ext.act(x, kind, plist))),
            ("gpuact.torch._ext.act(x, ...), x requires grad", host_us(lambda: _ext.act(xg, kind, plist))),
            ("ga.relu(x)", host_us(lambda: ga.relu(x))),
            ("ga.relu(x), x requires grad", host_us(lambda: ga.relu(xg))),
            ("torch.relu(x)", host_us(lambda: torch.relu(x))),
            ("torch.relu(x), x requires grad", host_us(lambda: torch.relu(xg))),
            ("gpuact.torch._ext.act(x, leaky, ...) (unboxed entry)", host_us(lambda: _ext.act(x, leaky[0], leaky[5]))),
            ("ga.leaky_relu(x, 0.1)", host_us(lambda: ga.leaky_relu(x, 0.1))),
            ("F.leaky_relu(x, 0.1)", host_us(lambda: F.leaky_relu(x, 0.1))),
            ("torch._C._nn.leaky_relu(x, 0.1)", host_us(lambda: torch._C._nn.leaky_relu(x, 0.1))),
            (f"F.linear(m, w), m {tuple(m.shape)} (no bias: gpuact's Linear)", host_us(lambda: F.linear(m, w))),
            ("F.linear(m, w, b) (addmm: torch's Linear)", host_us(lambda: F.linear(m, w, b))),
            ("gpuact.torch._ext.bias_act(z, b, relu, ...) (unboxed entry)",
             host_us(lambda: _ext.bias_act(z, b, kind, plist, 1.0, None, False))),
            ("ga.bias_act(z, b, 'relu')", host_us(lambda: ga.bias_act(z, b, "relu"))),
            ("torch.relu(z)", host_us(lambda: torch.relu(z))),
            (f"ga.nn.Linear({cols}, {cols}, activation='relu')(m)", host_us(lambda: lin_ga(m))),
            (f"torch.relu(torch.nn.Linear({cols}, {cols})(m))", host_us(lambda: torch.relu(lin_t(m))))]
    print(f"\nthe pieces of a call, us (n = {args.n}, {args.dtype})\n")
    print("| piece | us |")
    print("|---|---|")
    for name, us in rows:
        print(f"| {name} | {us:.2f} |")


if __name__ == "__main__":
    main()
