#!/usr/bin/env python3
"""gpuact.torch's modules under DistributedDataParallel (NCCL): a few training steps of a transformer MLP
block whose layers are gpuact's, each rank on its half of the batch, against the same model trained on one
GPU on the whole batch. Run on a machine with two GPUs:

    torchrun --standalone --nproc_per_node=2 python/tests/ddp_check.py [--steps 3]

The block: h = LayerNorm(x); y = x + down(ga.nn.Linear(d, 4d, "gelu")(h)) + ga.nn.Linear(d, d, "relu",
scale=0.5)(h) + ga.nn.GatedMLP(d, 2d)(h), float32, so the three autograd paths (from x and the bias, from
the 1-bit mask, the gated backward) and their bias gradients all meet DDP's gradient all-reduce. Each step
compares every parameter's gradient on every rank with the single-GPU model's (run on each rank, on the
concatenated batch), then both take the same SGD step.

Tolerance: |g_ddp - g_one| <= 1e-4 * max|g_one| per parameter. DDP sums two half-batch gradients and
halves them; the single GPU sums all rows at once. In float32 (TF32 off) the two differ only in the
order of the additions: for sums of at most a few thousand terms that is a relative error of at most
about n * 2^-24 of the sum of magnitudes, a few 1e-5 at worst and about 1e-6 in practice, while a wrong
gradient (a rank's half missing, a factor of two, a bias gradient not reduced) is off by tens of percent.
Prints one line per step and "ddp_check: OK" on rank 0; exits 1 on a mismatch."""
import argparse
import copy
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F

import gpuact.torch as ga

TOL = 1e-4


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = ga.nn.Linear(d, 4 * d, activation="gelu")
        self.down = torch.nn.Linear(4 * d, d)
        self.gate = ga.nn.Linear(d, d, activation="relu", scale=0.5)
        self.ffn = ga.nn.GatedMLP(d, 2 * d, bias=True)

    def forward(self, x):
        h = self.norm(x)
        return x + self.down(self.up(h)) + self.gate(h) + self.ffn(h)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--tokens", type=int, default=2048, help="the global batch, split across the ranks")
    args = p.parse_args()
    if "RANK" not in os.environ:
        sys.exit("ddp_check.py runs under torchrun: torchrun --standalone --nproc_per_node=2 " + sys.argv[0])
    torch.backends.cuda.matmul.allow_tf32 = False
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    dev = torch.device("cuda", local)
    if args.tokens % world:
        sys.exit(f"ddp_check.py: --tokens {args.tokens} does not split over {world} ranks")

    torch.manual_seed(0)  # the same weights on every rank
    one = Block(args.dim).to(dev)
    ddp = torch.nn.parallel.DistributedDataParallel(copy.deepcopy(one), device_ids=[local])
    opt_one = torch.optim.SGD(one.parameters(), lr=0.05)
    opt_ddp = torch.optim.SGD(ddp.parameters(), lr=0.05)
    g = torch.Generator(device="cpu").manual_seed(1)
    worst, failed = 0.0, []
    for step in range(args.steps):
        x = torch.randn(args.tokens, args.dim, generator=g).to(dev)  # the same global batch on every rank
        target = torch.randn(args.tokens, args.dim, generator=g).to(dev)
        part = slice(rank * args.tokens // world, (rank + 1) * args.tokens // world)
        F.mse_loss(one(x), target).backward()  # the mean over the whole batch
        F.mse_loss(ddp(x[part]), target[part]).backward()  # the mean over this rank's half; DDP averages
        step_worst = 0.0
        for (name, a), b in zip(one.named_parameters(), ddp.module.parameters()):
            err = float((a.grad - b.grad).abs().max()) / max(float(a.grad.abs().max()), 1e-30)
            step_worst = max(step_worst, err)
            if not err <= TOL:
                failed.append(f"rank {rank} step {step} {name}: relative difference {err:.2e} > {TOL:g}")
        worst = max(worst, step_worst)
        opt_one.step()
        opt_ddp.step()
        opt_one.zero_grad()
        opt_ddp.zero_grad()
        if rank == 0:
            print(f"ddp_check: step {step}: largest gradient difference {step_worst:.2e} of the largest gradient",
                  flush=True)
    verdict = torch.tensor([len(failed), worst], device=dev, dtype=torch.float64)
    dist.all_reduce(verdict, op=dist.ReduceOp.MAX)
    for line in failed:
        print("ddp_check: FAIL", line, flush=True)
    if rank == 0:
        if verdict[0] == 0:
            print(f"ddp_check: OK ({world} ranks, {args.steps} steps, largest relative gradient difference "
                  f"{float(verdict[1]):.2e} <= {TOL:g})")
        else:
            print(f"ddp_check: FAIL (largest relative gradient difference {float(verdict[1]):.2e}, tolerance {TOL:g})")
    dist.destroy_process_group()
    sys.exit(1 if verdict[0] else 0)


if __name__ == "__main__":
    main()
