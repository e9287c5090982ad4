"""Trains a GPT-style character language model with exact GELU and with the
few-bit backward (backward_bits 2, 3, 4), same seed and data, and reports
the validation-loss curves, the peak memory and the step time of each.

The corpus is the concatenated .py sources of this Python's standard library
(sorted file order; the last 10% of characters held out), so it runs offline.
Model: 6 layers, d 384, 6 heads, context 256, MLP with GELU (4x), bf16
autocast, AdamW. Writes fewbit_train.json and, when matplotlib is
importable, fewbit_train.png to --out.

    python python/bench/fewbit_train.py --out OUT [--steps 2500] [--batch 32]
    python python/bench/fewbit_train.py --out OUT --tiny --device cpu   (a smoke test: exact torch GELU only
                                                                          where gpuact cannot run)
"""
import argparse
import json
import math
import os
import sysconfig
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def corpus():
    root = sysconfig.get_paths()["stdlib"]
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("site-packages", "test", "tests", "__pycache__"))
        files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".py")]
    text = []
    for f in sorted(files):
        with open(f, encoding="utf-8", errors="replace") as fh:
            text.append(fh.read())
    return "\n".join(text)


class Block(nn.Module):
    def __init__(self, d, heads, act):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads, self.act = heads, act

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab, ctx, d, layers, heads, act):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads, act) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def make_act(bits, device):
    if device == "cpu":  # gpuact needs a GPU: the smoke test checks the loop with torch's GELU
        return nn.GELU()
    import gpuact.torch as ga
    return ga.nn.GELU(backward_bits=bits)


def run(name, bits, data, args, vocab):
    torch.manual_seed(args.seed)
    dev = args.device
    model = GPT(vocab, args.ctx, args.d, args.layers, args.heads, make_act(bits, dev)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1, betas=(0.9, 0.95))
    train, val = data
    g = torch.Generator().manual_seed(args.seed)

    def batch(src, gen):
        i = torch.randint(len(src) - args.ctx - 1, (args.batch,), generator=gen)
        x = torch.stack([src[j:j + args.ctx] for j in i.tolist()])
        y = torch.stack([src[j + 1:j + 1 + args.ctx] for j in i.tolist()])
        return x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)

    def evaluate():
        model.eval()
        gv = torch.Generator().manual_seed(1234)
        tot = 0.0
        with torch.no_grad(), torch.autocast(dev, dtype=torch.bfloat16):
            for _ in range(args.eval_batches):
                x, y = batch(val, gv)
                tot += F.cross_entropy(model(x).float().view(-1, vocab), y.view(-1)).item()
        model.train()
        return tot / args.eval_batches

    if dev == "cuda":
        torch.cuda.reset_peak_memory_stats()
    curve, times = [], []
    for step in range(args.steps + 1):
        if step % args.eval_every == 0 or step == args.steps:
            curve.append((step, evaluate()))
            print(f"{name} step {step} val {curve[-1][1]:.4f}", flush=True)
        if step == args.steps:
            break
        lr = args.lr * min(1.0, (step + 1) / 100) * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        for pg in opt.param_groups:
            pg["lr"] = lr
        x, y = batch(train, g)
        if dev == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast(dev, dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x).float().view(-1, vocab), y.view(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if dev == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    skip = min(len(times) // 5, 50)
    return {"name": name, "backward_bits": bits, "curve": curve, "final_val": curve[-1][1],
            "peak_mem_bytes": torch.cuda.max_memory_allocated() if dev == "cuda" else None,
            "step_ms": 1000 * sum(times[skip:]) / max(1, len(times) - skip)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, default=2500)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--eval-batches", type=int, default=20)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--bits", default="none,2,3,4", help="comma list: none (exact) and bit counts")
    ap.add_argument("--tiny", action="store_true", help="2 layers, d 64, context 32 (a smoke test)")
    args = ap.parse_args()
    args.layers, args.d, args.heads, args.ctx = (2, 64, 2, 32) if args.tiny else (6, 384, 6, 256)
    os.makedirs(args.out, exist_ok=True)
    text = corpus()
    chars = sorted(set(text))
    idx = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([idx[c] for c in text], dtype=torch.long)
    cut = int(0.9 * len(ids))
    data = (ids[:cut], ids[cut:])
    print(f"corpus: {len(text)} characters, {len(chars)} symbols, {len(ids) - cut} held out", flush=True)
    results = []
    for b in args.bits.split(","):
        bits = None if b == "none" else int(b)
        results.append(run("exact" if bits is None else f"{bits}-bit", bits, data, args, len(chars)))
    exact = next((r for r in results if r["backward_bits"] is None), None)
    for r in results:
        rel = "" if exact is None else f"  vs exact {100 * (r['final_val'] / exact['final_val'] - 1):+.2f}%"
        mem = "" if r["peak_mem_bytes"] is None else f"  peak {r['peak_mem_bytes'] / 2**20:.0f} MiB"
        print(f"{r['name']:>6}: final val {r['final_val']:.4f}{rel}{mem}  step {r['step_ms']:.1f} ms")
    meta = {"device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu", "torch": torch.__version__,
            "args": vars(args)}
    with open(os.path.join(args.out, "fewbit_train.json"), "w") as fh:
        json.dump({"meta": meta, "runs": results}, fh, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not importable: no PNG")
        return
    for r in results:
        s, v = zip(*r["curve"])
        plt.plot(s, v, label=r["name"])
    plt.xlabel("step")
    plt.ylabel("validation loss (nats/char)")
    plt.legend()
    plt.title("char LM on the Python stdlib, bf16 autocast")
    plt.savefig(os.path.join(args.out, "fewbit_train.png"), dpi=120)


if __name__ == "__main__":
    main()
