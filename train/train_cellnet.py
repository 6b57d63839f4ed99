"""Train the whole-cell CTC recogniser and export it to ocr/models/cellnet.npz.

Run in the training venv (or `make model`):

    .venv-train/bin/python -m train.make_cells --out train/_data/cells.npz      # the data recipe
    .venv-train/bin/python -m train.train_cellnet --data train/_data/cells.npz

Data: cells cut by the product's own pipeline from generated training sheets (see
train/make_cells.py; the MNIST hand uses only the training part of the MNIST subset).  One sheet
in ten (by seed) is the validation split.  Augmentation on the fly: horizontal stretch,
shift, stroke thickening/thinning, contrast, noise.  Loss: CTC.  Probabilities are calibrated by
a temperature fitted on the validation split (the CTC loss of the true string is exactly the
-log probability the reader gives it).  BatchNorm is folded into the convolutions on export, so
ocr/cellnet.py runs the network with NumPy alone.  Everything is seeded.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ocr.cellnet import CellNet
from ocr.ctc import ALPHABET, ctc_nbest
from ocr.prep import HEIGHT, WIDTH

ROOT = Path(__file__).resolve().parent.parent

CONVS = ((1, 16, (2, 2)), (16, 32, (2, 2)), (32, 64, (1, 1)), (64, 64, (2, 1)), (64, 96, (2, 1)))
HEAD = ((96 * 2, 128, 5), (128, 128, 5))
N_CLASSES = len(ALPHABET) + 1


def widths(width: float = 1.0) -> tuple[tuple, tuple]:
    """CONVS and HEAD with every layer's channels scaled by ``width`` (the input's one channel and
    the 2 rows collapsed into the head's input kept)."""
    w = [(1 if ci == 1 else round(ci * width), round(co * width), pool) for ci, co, pool in CONVS]
    h = [(round(ci * width), round(co * width), k) for ci, co, k in HEAD]
    return tuple(w), tuple(h)


class Net(nn.Module):
    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        convs, head = widths(width)
        self.convs = nn.ModuleList()
        self.bns = nn.ModuleList()
        self.pools = []
        for ci, co, pool in convs:
            self.convs.append(nn.Conv2d(ci, co, 3, padding=1, bias=False))
            self.bns.append(nn.BatchNorm2d(co))
            self.pools.append(pool)
        self.head = nn.ModuleList([nn.Conv1d(ci, co, k, padding=k // 2) for ci, co, k in head])
        self.drop = nn.Dropout(0.1)
        self.out = nn.Linear(head[-1][1], N_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, 1, H, W) -> logits (B, T, classes)."""
        for conv, bn, pool in zip(self.convs, self.bns, self.pools, strict=True):
            x = F.relu(bn(conv(x)))
            if pool != (1, 1):
                x = F.max_pool2d(x, pool)
        b, c, h, t = x.shape
        x = x.reshape(b, c * h, t)
        for conv in self.head:
            x = F.relu(conv(x))
        x = self.drop(x.transpose(1, 2))
        return self.out(x)


def encode(labels: np.ndarray) -> list[list[int]]:
    return [[ALPHABET.index(ch) + 1 for ch in s] for s in labels]


ELASTIC_STEP = 8  # the elastic distortion's grid: one random offset every this many pixels


def elastic(x: torch.Tensor, g: torch.Generator, amp: float, share: float = 0.5) -> torch.Tensor:
    """A smooth random displacement of ``share`` of the images (x (B,1,H,W)): offsets drawn on a
    coarse grid (a point every ELASTIC_STEP pixels, standard deviation ``amp`` pixels) and
    interpolated over the image, so each digit's strokes bend a little differently -- another
    writer's hand, as Simard et al. (2003) distorted MNIST."""
    b, _, h, w = x.shape
    coarse = torch.randn(b, 2, h // ELASTIC_STEP + 1, w // ELASTIC_STEP + 1, generator=g) * amp
    coarse = coarse * (torch.rand(b, 1, 1, 1, generator=g) < share)
    field = F.interpolate(coarse, size=(h, w), mode="bicubic", align_corners=True)
    theta = torch.zeros(b, 2, 3)
    theta[:, 0, 0] = theta[:, 1, 1] = 1.0
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    grid = grid + torch.stack((field[:, 0] * 2 / w, field[:, 1] * 2 / h), dim=-1)
    return F.grid_sample(x, grid, align_corners=False, padding_mode="zeros")


def augment(x: torch.Tensor, g: torch.Generator, elastic_amp: float = 0.0) -> torch.Tensor:
    """Random stretch/shift (one affine per image), thickness, contrast and noise; x (B,1,H,W) in 0..1;
    a smooth elastic distortion first when ``elastic_amp`` (pixels) is set."""
    if elastic_amp:
        x = elastic(x, g, elastic_amp)
    b = x.shape[0]
    sx = 1 + (torch.rand(b, generator=g) - 0.5) * 0.3  # horizontal stretch 0.85-1.15
    sy = 1 + (torch.rand(b, generator=g) - 0.5) * 0.16
    shear = (torch.rand(b, generator=g) - 0.5) * 0.3
    tx = (torch.rand(b, generator=g) - 0.5) * 0.1
    ty = (torch.rand(b, generator=g) - 0.5) * 0.12
    theta = torch.zeros(b, 2, 3)
    theta[:, 0, 0] = 1 / sx
    theta[:, 0, 1] = shear
    theta[:, 0, 2] = tx
    theta[:, 1, 1] = 1 / sy
    theta[:, 1, 2] = ty
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, align_corners=False, padding_mode="zeros")
    r = torch.rand(b, generator=g)
    thick = F.max_pool2d(x, 3, 1, 1)
    thin = -F.max_pool2d(-x, 3, 1, 1)
    x = torch.where((r < 0.15)[:, None, None, None], thick, x)
    x = torch.where((r > 0.9)[:, None, None, None], thin, x)
    gain = 0.6 + 0.6 * torch.rand(b, 1, 1, 1, generator=g)
    x = (x * gain).clamp(0, 1)
    noise = torch.randn(x.shape, generator=g) * 0.08 * torch.rand(b, 1, 1, 1, generator=g)
    return (x + noise).clamp(0, 1)


def epoch_order(rng: np.random.Generator, hands: np.ndarray, mnist_weight: float,
                weights: dict[str, float] | None = None, draws: int = 0) -> np.ndarray:
    """One epoch's order of the training examples: a permutation, or -- with ``mnist_weight`` != 1,
    other hands' ``weights`` or ``draws`` -- that many draws (default len(hands)) in which the MNIST
    hand's (the real handwriting's) are ``mnist_weight`` times as likely and each hand named in
    ``weights`` that many times."""
    weights = {"mnist": mnist_weight, **(weights or {})}
    if all(w == 1.0 for w in weights.values()) and not draws:
        return rng.permutation(len(hands))
    p = np.ones(len(hands))
    for hand, w in weights.items():
        p[hands == hand] = w
    return rng.choice(len(hands), draws or len(hands), p=p / p.sum())


def ctc_loss(net: Net, x: torch.Tensor, targets: list[list[int]], temp: float = 1.0,
             reduction: str = "mean") -> torch.Tensor:
    logits = net(x) / temp
    lp = logits.log_softmax(2).transpose(0, 1)  # (T, B, C)
    t = torch.full((x.shape[0],), lp.shape[0], dtype=torch.long)
    lens = torch.tensor([len(s) for s in targets], dtype=torch.long)
    flat = torch.tensor([c for s in targets for c in s] or [0], dtype=torch.long)
    return F.ctc_loss(lp, flat[: int(lens.sum())] if lens.sum() else flat[:0], t, lens, blank=0,
                      reduction=reduction, zero_infinity=True)


def fold(conv: nn.Conv2d, bn: nn.BatchNorm2d) -> tuple[np.ndarray, np.ndarray]:
    """A bias-free convolution followed by BatchNorm (eval mode) as one convolution: (weights, bias)."""
    scale = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
    return ((conv.weight.detach() * scale[:, None, None, None]).numpy().astype(np.float32),
            (bn.bias.detach() - bn.running_mean * scale).numpy().astype(np.float32))


def export(net: Net, temp: float, path: Path) -> None:
    arrays: dict[str, np.ndarray] = {"n_convs": np.array(len(net.convs)), "n_head": np.array(len(net.head)),
                                     "temperature": np.array(temp, np.float32)}
    for i, (conv, bn, pool) in enumerate(zip(net.convs, net.bns, net.pools, strict=True)):
        arrays[f"conv{i}_w"], arrays[f"conv{i}_b"] = fold(conv, bn)
        arrays[f"conv{i}_pool"] = np.array(pool, np.int32)
    for i, conv in enumerate(net.head):
        arrays[f"head{i}_w"] = conv.weight.detach().numpy()[:, :, None, :].astype(np.float32)
        arrays[f"head{i}_b"] = conv.bias.detach().numpy().astype(np.float32)
    arrays["out_w"] = net.out.weight.detach().numpy().astype(np.float32)
    arrays["out_b"] = net.out.bias.detach().numpy().astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


def load_exported(path: Path, width: float = 1.0, seed: int = 0) -> Net:
    """A Net holding an exported network's weights (read by the reader's own CellNet.load), to
    fine-tune.  BatchNorm was folded into the convolutions on export: each BatchNorm becomes the
    identity plus the folded bias and must stay in eval mode while training.  A ``width`` wider
    than the exported network's widens it first, keeping what it computes (widen_exported)."""
    model = CellNet.load(path)
    net = Net(width)
    if net.convs[-1].out_channels != model.convs[-1][0].shape[0]:
        model = widen_exported(model, net, np.random.default_rng(seed))
    with torch.no_grad():
        for (w, b, _, _), conv, bn in zip(model.convs, net.convs, net.bns, strict=True):
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for (w, b), conv in zip(model.head, net.head, strict=True):
            conv.weight.copy_(torch.from_numpy(w[:, :, 0, :]))
            conv.bias.copy_(torch.from_numpy(b))
        net.out.weight.copy_(torch.from_numpy(model.out[0]))
        net.out.bias.copy_(torch.from_numpy(model.out[1]))
    return net


def widen_exported(model: CellNet, net: Net, rng: np.random.Generator, noise: float = 0.002) -> CellNet:
    """``model``'s weights grown to ``net``'s channel counts computing the same function (Chen et al.,
    "Net2Net", 2016): each new channel copies a random old one, whose outgoing weights the copies
    then share; a little noise on the copies' incoming weights lets them drift apart in training."""
    convs, head = [], []
    prev_map = np.arange(1)  # the input's one channel
    layers = [(w, b) for w, b, _, _ in model.convs] + [(w, b) for w, b in model.head]
    new_out = [c.out_channels for c in net.convs] + [c.out_channels for c in net.head]
    rows = None  # after the convolutions the head sees channel x rows, in (C, H) order
    for i, ((w, b), co) in enumerate(zip(layers, new_out, strict=True)):
        old = w.shape[0]
        if i == len(model.convs):  # the first head layer: inputs are (channel, row) pairs
            rows = w.shape[1] // len(np.unique(prev_map))
            prev_map = (prev_map[:, None] * rows + np.arange(rows)[None]).reshape(-1)
        counts = np.bincount(prev_map, minlength=w.shape[1])
        w = w[:, prev_map] / counts[prev_map][None, :, None, None]
        new_map = np.concatenate([np.arange(old), rng.integers(0, old, co - old)])
        w2, b2 = w[new_map].copy(), b[new_map].copy()
        dup = np.arange(co) >= old
        w2[dup] += noise * w.std() * rng.standard_normal(w2[dup].shape).astype(np.float32)
        (convs if i < len(model.convs) else head).append((w2.astype(np.float32), b2.astype(np.float32)))
        prev_map = new_map
    counts = np.bincount(prev_map)
    out_w = model.out[0][:, prev_map] / counts[prev_map][None, :]
    return CellNet(tuple((w, b, *p[2:]) for (w, b), p in zip(convs, model.convs, strict=True)), tuple(head),
                   (out_w.astype(np.float32), model.out[1]), model.temperature)


def val_logits(net: Net, x: np.ndarray) -> torch.Tensor:
    net.eval()
    with torch.no_grad():
        return torch.cat([net(torch.from_numpy(x[i:i + 512].astype(np.float32) / 255.0)[:, None])
                          for i in range(0, len(x), 512)])


def nll_at(logits: torch.Tensor, labels: np.ndarray, temp: float) -> float:
    """Mean -log P(true string) under temperature ``temp`` (CTC, summed over alignments)."""
    lp = (logits / temp).log_softmax(2).transpose(0, 1)
    tg = encode(labels)
    t = torch.full((logits.shape[0],), lp.shape[0], dtype=torch.long)
    lens = torch.tensor([len(s) for s in tg], dtype=torch.long)
    flat = torch.tensor([c for s in tg for c in s], dtype=torch.long)
    return float(F.ctc_loss(lp, flat, t, lens, blank=0, reduction="sum", zero_infinity=True)) / len(labels)


def best_path_accuracy(logits: torch.Tensor, labels: np.ndarray) -> float:
    ok = 0
    for row, want in zip(logits.argmax(2).numpy(), labels, strict=True):
        s, prev = [], 0
        for c in row:
            if c != prev and c != 0:
                s.append(ALPHABET[c - 1])
            prev = c
        ok += "".join(s) == want
    return ok / len(labels)


def report(what: str, logits: torch.Tensor, labels: np.ndarray, hands: np.ndarray, tail: str = "") -> None:
    """Validation exact (best path) and NLL, and exact per hand."""
    acc, nll = best_path_accuracy(logits, labels), nll_at(logits, labels, 1.0)
    per = ", ".join(f"{h} {best_path_accuracy(logits[torch.from_numpy(hands == h)], labels[hands == h]):.4f}"
                    for h in sorted(set(hands.tolist())))
    print(f"{what}: validation exact {acc:.4f} ({per}), nll {nll:.4f}{tail}", flush=True)


def load_cells(paths: list, labels: list) -> tuple[np.ndarray, ...]:
    """Training and validation cells: make_cells.py / unipen_cells.py files (validation: seeds that
    are multiples of 10) and cells a person confirmed (train/labels.py; all for training), without
    all-zero inputs (no ink: the reader never sends them to the network).  Returns (training
    images, labels, hands, validation images, labels, hands); a cell's hand is its kind's second part."""
    files = [np.load(p) for p in paths]
    images, texts, seeds, kinds = (np.concatenate([z[k] for z in files]) for k in ("images", "labels", "seeds", "kinds"))
    assert images.shape[1:] == (HEIGHT, WIDTH), images.shape
    assert len(set(seeds.tolist())) == sum(len(set(z["seeds"].tolist())) for z in files), "files share sheets"
    val = seeds % 10 == 0
    hands = np.array([k.split("|")[1] for k in kinds])  # kinds: "column|hand|scan"
    if labels:
        from train.labels import load_labels

        extra = [load_labels(p) for p in labels]
        images = np.concatenate([images] + [x for x, _ in extra])
        texts = np.concatenate([texts] + [t for _, t in extra])
        hands = np.concatenate([hands] + [np.full(len(t), "labelled") for _, t in extra])
        val = np.concatenate([val] + [np.zeros(len(t), bool) for _, t in extra])
    inked = images.reshape(len(images), -1).max(axis=1) > 0
    tr, va = inked & ~val, inked & val
    return images[tr], texts[tr], hands[tr], images[va], texts[va], hands[va]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", default=None,
                    help="cells from make_cells.py or unipen_cells.py (repeat to train on several files; "
                         "default train/_data/cells.npz)")
    ap.add_argument("--labels", action="append", default=[],
                    help="cells a person confirmed (rubberscan labels; train/README.md), all used for training")
    ap.add_argument("--out", default=str(ROOT / "ocr" / "models" / "cellnet.npz"))
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="use only this many training cells (quick runs)")
    ap.add_argument("--init", default=None,
                    help="fine-tune this exported network (its BatchNorm frozen) instead of starting afresh")
    ap.add_argument("--mnist-weight", type=float, default=1.0,
                    help="draw training cells written in the MNIST hand (real handwriting) this many times as often")
    ap.add_argument("--draws", type=int, default=0,
                    help="training cells drawn per epoch (default: as many as there are)")
    ap.add_argument("--weight", action="append", default=[], metavar="HAND=W",
                    help="draw the cells of this hand (e.g. unipen, labelled) W times as often")
    ap.add_argument("--elastic", type=float, default=0.0,
                    help="elastic distortion of half the training cells, this many pixels (standard deviation; 0: none)")
    ap.add_argument("--width", type=float, default=1.0,
                    help="every layer's channels x this (with --init from a narrower network: widened, same function)")
    ap.add_argument("--seed", type=int, default=0,
                    help="initialisation, augmentation and batch order (the committed pair: 2, then 1)")
    ap.add_argument("--checkpoint-every", type=int, default=500,
                    help="steps between checkpoints (OUT.ckpt.pt, removed when the run ends); 0: none")
    ap.add_argument("--resume", action="store_true", help="go on from OUT.ckpt.pt when there is one")
    ap.add_argument("--val-share", type=float, default=1.0,
                    help="validate on this share of the validation cells (all of --temp-hand's kept)")
    ap.add_argument("--temp-hand", default=None, metavar="HAND",
                    help="fit the temperature on this hand's validation cells only (e.g. photo: the cells "
                         "the network will read)")
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(args.seed + 1)
    weights = {k: float(v) for k, v in (w.split("=", 1) for w in args.weight)}

    xtr, ytr, htr, xva, yva, hva = load_cells(args.data or [ROOT / "train" / "_data" / "cells.npz"], args.labels)
    if args.val_share < 1.0:  # a quicker validation: a fixed share of it (all of --temp-hand's cells kept)
        keep = (np.random.default_rng(0).random(len(yva)) < args.val_share) | (hva == args.temp_hand)
        xva, yva, hva = xva[keep], yva[keep], hva[keep]
    if args.limit:
        xtr, ytr, htr = xtr[: args.limit], ytr[: args.limit], htr[: args.limit]
    print(f"train {len(xtr)} cells, validation {len(xva)} cells", flush=True)

    net = load_exported(Path(args.init), args.width, args.seed) if args.init else Net(args.width)
    if args.init:
        report(f"start ({args.init})", val_logits(net, xva), yva, hva)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = (args.draws or len(xtr)) // args.batch
    steps = args.epochs * per_epoch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    rng = np.random.default_rng(args.seed)
    out = Path(args.out)
    ckpt = out.with_name(out.name + ".ckpt.pt")
    start_epoch, start_step, order = 0, 0, None
    if args.resume and ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        rng.bit_generator.state = state["rng"]
        g.set_state(state["g"])
        torch.set_rng_state(state["torch"])
        start_epoch, start_step, order = state["epoch"], state["step"], state["order"]
        print(f"resumed from {ckpt}: epoch {start_epoch} step {start_step}", flush=True)
        done = start_epoch * per_epoch + start_step
        if sched.total_steps != steps and steps > done:
            # run cut short (--epochs lowered on resume): the learning rate falls from where it is
            # to nothing by the new end, as the one cycle's tail would
            for group in opt.param_groups:
                group["initial_lr"] = group["lr"]  # the one cycle's own starting rate is set there
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps - done, eta_min=0.0)
            print(f"schedule shortened to {steps} steps: annealing over the last {steps - done}", flush=True)
    t0 = time.time()
    lv = None
    for epoch in range(start_epoch, args.epochs):
        net.train()
        if args.init:
            for bn in net.bns:
                bn.eval()
        if order is None or epoch != start_epoch:
            order = epoch_order(rng, htr, args.mnist_weight, weights, args.draws)
        run = 0.0
        for k in range(start_step if epoch == start_epoch else 0, per_epoch):
            if args.checkpoint_every and k % args.checkpoint_every == 0 and (epoch, k) != (start_epoch, start_step):
                save_checkpoint(ckpt, net, opt, sched, rng, g, epoch, k, order)
            idx = order[k * args.batch:(k + 1) * args.batch]
            xb = torch.from_numpy(xtr[idx].astype(np.float32) / 255.0)[:, None]
            xb = augment(xb, g, args.elastic)
            loss = ctc_loss(net, xb, encode(ytr[idx]))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 5.0)
            opt.step()
            sched.step()
            run = 0.98 * run + 0.02 * loss.item() if run else loss.item()
            if k % 100 == 0:
                print(f"epoch {epoch} step {k} loss {run:.4f} {time.time() - t0:.0f}s", flush=True)
        lv = val_logits(net, xva)
        report(f"epoch {epoch}", lv, yva, hva, f", {time.time() - t0:.0f}s")
        net.train()
    if lv is None:  # resumed at the very end of the last epoch
        lv = val_logits(net, xva)

    # temperature: minimise the validation NLL of the true strings (the last epoch's logits;
    # OneCycleLR needs at least one epoch)
    fit = torch.from_numpy(hva == args.temp_hand) if args.temp_hand else torch.ones(len(yva), dtype=torch.bool)
    best = min((nll_at(lv[fit], yva[fit.numpy()], float(t)), float(t)) for t in np.arange(0.6, 2.61, 0.05))
    temp = best[1]
    print(f"temperature {temp:.2f} (validation nll {best[0]:.4f})", flush=True)
    net.eval()
    export(net, temp, out)

    # the exported NumPy network must agree with torch
    model = CellNet.load(out)
    xb = xva[:64].astype(np.float32) / 255.0
    with torch.no_grad():
        ref = (net(torch.from_numpy(xb)[:, None]) / temp).log_softmax(2).numpy()
    got = model.log_probs(xb)
    assert np.allclose(ref, got, atol=1e-3), float(np.abs(ref - got).max())
    top = [ctc_nbest(lp)[0][0] for lp in got]
    print(f"export check ok; NumPy best strings on 64 validation cells: {np.mean([a == b for a, b in zip(top, yva[:64], strict=True)]):.3f}")
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB) in {time.time() - t0:.0f}s")
    ckpt.unlink(missing_ok=True)
    return 0


def save_checkpoint(path: Path, net: Net, opt, sched, rng: np.random.Generator, g: torch.Generator,
                    epoch: int, step: int, order: np.ndarray) -> None:
    """Everything a run needs to go on from (epoch, step) as if it had not stopped (--resume)."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "rng": rng.bit_generator.state, "g": g.get_state(), "torch": torch.get_rng_state(),
                "epoch": epoch, "step": step, "order": order}, tmp)
    tmp.replace(path)


if __name__ == "__main__":
    raise SystemExit(main())
