#!/usr/bin/env python3
"""Training steps with gpuact.torch's modules against the plain-torch model each replaces, in one process,
eager and under torch.compile(fullgraph=True): step time, peak memory and the loss over the steps.

    python python/bench/train_step.py [--case NAME ...] [--steps 20] [--warmup 3] [--rounds 3] [--no-compile]
                                      [--json FILE]

Cases (--case, default all):
  linear_relu      bf16 ga.nn.Linear(8192, 8192, activation="relu", scale=0.5), batch 1024, against
                   torch.nn.Linear + relu * 0.5
  mlp_gelu, mlp_gelu_tanh, mlp_silu
                   a transformer MLP block under torch.autocast(bfloat16), float32 parameters:
                   x + Linear(8192, 2048)(act(Linear(2048, 8192)(LayerNorm(2048)(x)))), 16384 tokens, with
                   ga.nn.Linear(2048, 8192, activation=act) for the first Linear and the activation
  swiglu           the LLaMA FFN (d 4096, hidden 11008, 8192 tokens, bf16 autocast): ga.nn.GatedMLP against
                   w2(silu(w1(x)) * w3(x)), the GatedMLP loading the three-Linear state_dict
  relu             autograd ReLU on 4096 x 393216 float32: forward and backward, no parameters (the
                   gradients are compared bit for bit instead of losses)

Each step: forward, a mean-squared-error loss against a fixed target, backward, AdamW (lr 1e-4), with the
same initial weights and data for both models. Step time: CUDA events over --steps steps after --warmup
steps (the compile happens in the warm-up), in --rounds windows per model, the two models' windows
alternating (torch, gpuact, torch, ...), the fastest window each: the steps of these cases are short and
partly bound by the host, whose speed drifts by several percent within a process, so one window each,
one model after the other, measured the order as much as the models. Peak memory:
torch.cuda.max_memory_allocated() over the first window, after reset_peak_memory_stats(), parameters and
optimizer state included (the same for both), less what was allocated before the model was built (the
model built first stays alive, idle, while the other runs; its memory is in that base).
ratio = torch / gpuact (>= 1.00: gpuact's step is no slower); max rel loss diff = max over the steps of
|loss_gpuact - loss_torch| / |loss_torch|."""
import argparse
import gc
import json
import sys

CASES = ("linear_relu", "mlp_gelu", "mlp_gelu_tanh", "mlp_silu", "swiglu", "relu")


def build(case, use_ga, torch, ga):
    """(model, inputs, target, autocast dtype or None) for one case; the models of a case take one state_dict."""
    nn, F = torch.nn, torch.nn.functional
    dev = torch.device("cuda")
    g = torch.Generator(device="cpu").manual_seed(0)
    if case == "linear_relu":
        class TorchLinearRelu(nn.Linear):
            def forward(self, x):
                return F.relu(super().forward(x)) * 0.5
        torch.manual_seed(0)
        model = (ga.nn.Linear(8192, 8192, activation="relu", scale=0.5) if use_ga else
                 TorchLinearRelu(8192, 8192)).to(dev, torch.bfloat16)
        x = torch.randn(1024, 8192, generator=g).to(dev, torch.bfloat16)
        return model, x, torch.randn(1024, 8192, generator=g).to(dev, torch.bfloat16), None
    if case.startswith("mlp_"):
        act = case[4:]
        torch_act = {"gelu": F.gelu, "gelu_tanh": lambda h: F.gelu(h, approximate="tanh"), "silu": F.silu}[act]

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = nn.LayerNorm(2048)
                self.up = ga.nn.Linear(2048, 8192, activation=act) if use_ga else nn.Linear(2048, 8192)
                self.down = nn.Linear(8192, 2048)

            def forward(self, x):
                h = self.up(self.norm(x))
                return x + self.down(h if use_ga else torch_act(h))
        torch.manual_seed(0)
        x = torch.randn(16384, 2048, generator=g).to(dev)
        return Block().to(dev), x, torch.randn(16384, 2048, generator=g).to(dev), torch.bfloat16
    if case == "swiglu":
        class FeedForward(nn.Module):  # LLaMA's
            def __init__(self):
                super().__init__()
                self.w1 = nn.Linear(4096, 11008, bias=False)
                self.w3 = nn.Linear(4096, 11008, bias=False)
                self.w2 = nn.Linear(11008, 4096, bias=False)

            def forward(self, x):
                return self.w2(F.silu(self.w1(x)) * self.w3(x))
        torch.manual_seed(0)
        ref = FeedForward().to(dev)
        if use_ga:
            model = ga.nn.GatedMLP(4096, 11008, device=dev)
            model.load_state_dict(ref.state_dict())
            del ref
        else:
            model = ref
        x = torch.randn(8192, 4096, generator=g).to(dev)
        return model, x, torch.randn(8192, 4096, generator=g).to(dev), torch.bfloat16
    if case == "relu":
        class Relu(nn.Module):
            def forward(self, x):
                return ga.relu(x) if use_ga else torch.relu(x)
        x = torch.empty(4096, 393216, device=dev).normal_(generator=torch.Generator(device=dev).manual_seed(0))
        return Relu(), x, None, None
    raise SystemExit(f"train_step.py: unknown case {case!r}; the cases are {', '.join(CASES)}")


class Run:
    """One model of a case, built, compiled and warmed up: window() times --steps steps."""

    def __init__(self, case, use_ga, compiled, args, torch, ga):
        self.torch, self.args = torch, args
        self.base = torch.cuda.memory_allocated()  # what the caller still holds (the other model)
        model, x, target, amp = build(case, use_ga, torch, ga)
        fn = torch.compile(model, fullgraph=True) if compiled else model
        params = list(model.parameters())
        opt = torch.optim.AdamW(params, lr=1e-4) if params else None
        self.x = x
        self.losses = losses = []  # the step appends here, not through self: no cycle keeps a model alive
        if target is None:  # the parameter-free ReLU: forward and backward of a fixed output gradient
            x.requires_grad_(True)
            dy = torch.empty_like(x).normal_(generator=torch.Generator(device=x.device).manual_seed(1))

            def step():
                x.grad = None
                fn(x).backward(dy)
        else:
            def step():
                with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
                    loss = torch.nn.functional.mse_loss(fn(x).float(), target.float())
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                losses.append(loss.detach())
        self.step, self.has_target = step, target is not None
        for _ in range(args.warmup):
            step()
        torch.cuda.synchronize()
        self.losses.clear()
        self.ms, self.peak, self.first = None, None, None

    def window(self):
        """Times one window of steps; the first also gives the peak memory and the losses."""
        torch, args = self.torch, self.args
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0.record()
        for _ in range(args.steps):
            self.step()
        t1.record()
        torch.cuda.synchronize()
        ms = t0.elapsed_time(t1) / args.steps
        self.ms = ms if self.ms is None else min(self.ms, ms)
        if self.peak is None:
            self.peak = (torch.cuda.max_memory_allocated() - self.base) / 2**20
            self.first = [float(v) for v in self.losses] if self.has_target else None
        self.losses.clear()

    def result(self):
        """(fastest ms per step, peak MiB of the first window, its losses or None, dx or None)."""
        return self.ms, self.peak, self.first, None if self.has_target else self.x.grad


def run_pair(case, compiled, args, torch, ga):
    """Both models of a case, their windows alternating: (torch's result, gpuact's result) as Run.result."""
    runs = [Run(case, False, compiled, args, torch, ga)]
    runs[0].window()  # its peak, before the other model is built
    runs.append(Run(case, True, compiled, args, torch, ga))
    runs[1].window()
    for _ in range(args.rounds - 1):
        for r in runs:
            r.window()
    out = tuple(r.result() for r in runs)
    del runs
    gc.collect()  # the next case's base must not hold this one's models
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", action="append", choices=CASES, help="a case (repeat for several; default all)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3, help="timed windows per model, alternating (default 3)")
    p.add_argument("--no-compile", action="store_true", help="eager only")
    p.add_argument("--json", help="also write the rows here")
    args = p.parse_args()

    import torch
    import gpuact.torch as ga

    if not torch.cuda.is_available():
        sys.exit("train_step.py needs a CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"training steps on {torch.cuda.get_device_name()}, torch {torch.__version__}: the fastest of {args.rounds} "
          f"alternating windows of {args.steps} steps after {args.warmup} warm-up steps; ratio = torch / gpuact\n")
    print("| case | mode | torch ms | gpuact ms | ratio | torch peak MiB | gpuact peak MiB | max rel loss diff |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for case in args.case or CASES:
        for compiled in (False,) if args.no_compile else (False, True):
            mode = "compiled" if compiled else "eager"
            (tm, tp, tl, tdx), (gm, gp, gl, gdx) = run_pair(case, compiled, args, torch, ga)
            torch.cuda.empty_cache()
            if tl is not None:
                diff = max(abs(a - b) / abs(b) for a, b in zip(gl, tl))
                diff_text = f"{diff:.2e}"
            else:  # the ReLU: its gradients, bit for bit
                diff = float((tdx != gdx).sum())
                diff_text = f"dx: {int(diff)} elements differ"
            del tdx, gdx
            row = {"case": case, "mode": mode, "torch_ms": tm, "gpuact_ms": gm, "ratio": tm / gm,
                   "torch_peak_mib": tp, "gpuact_peak_mib": gp, "max_rel_loss_diff": diff,
                   "torch_losses": tl, "gpuact_losses": gl}
            rows.append(row)
            print(f"| {case} | {mode} | {tm:.3f} | {gm:.3f} | {tm / gm:.2f}x | {tp:.0f} | {gp:.0f} | {diff_text} |",
                  flush=True)
    slow = [r for r in rows if r["ratio"] < 1.0]
    heavy = [r for r in rows if r["gpuact_peak_mib"] > r["torch_peak_mib"]]
    print(f"\n{len(rows) - len(slow)} of {len(rows)} rows at >= 1.00x; gpuact's peak memory above torch's in "
          f"{len(heavy)} rows" + (": " + ", ".join(f"{r['case']} {r['mode']}" for r in heavy) if heavy else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
