"""Train the digit network (ocr/digitnet.py) on the digits make_digits.py cut from training sheets.

    OMP_NUM_THREADS=1 .venv-train/bin/python train/train_digitnet.py [--data train/_data/digits.npz] [--out ocr/models/digitnet.npz]

Validation: the digits of every tenth sheet (seed % 10 == 0, train_cellnet.py's split).  A small
CNN (3x3 conv 16/32/64, each BatchNorm + ReLU + 2x2 max-pool; fc 128; 10 classes), trained with
random shifts of each window (up to CONTEXT columns, SHIFT_Y rows), contrast, thickness and noise;
BatchNorm is folded into the convolutions on export and a temperature fitted on the validation
digits.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from make_digits import CONTEXT  # noqa: E402
from train_cellnet import elastic, epoch_order, fold  # noqa: E402

from ocr.digitnet import WIN, DigitNet  # noqa: E402

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


def batch_inputs(w: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> torch.Tensor:
    """Windows (B, WIN + 2 CONTEXT, same) uint8 -> (B, 1, WIN, WIN) in 0..1, each cut shifted by (dx, dy)."""
    out = np.empty((len(w), WIN, WIN), np.float32)
    for k, (wk, x, y) in enumerate(zip(w, dx, dy, strict=True)):
        out[k] = wk[CONTEXT + y:CONTEXT + y + WIN, CONTEXT + x:CONTEXT + x + WIN]
    return torch.from_numpy(out / 255.0)[:, None]


def export(net: Net, temp: float, prior: np.ndarray, path: Path) -> None:
    """Folded weights, the temperature and (for reference; the reader does not use it) the
    training digits' class shares."""
    arrays: dict[str, np.ndarray] = {"n_convs": np.array(len(CHANNELS)), "n_fcs": np.array(2),
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
