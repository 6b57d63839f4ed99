"""Training cells of real handwriting from UNIPEN's writers (train/unipen.py), as the reader sees them.

    .venv-train/bin/python -m train.unipen_cells --count 150000 --out train/_data/unipen.npz

Each cell is one writer's digits (drawn from that writer's own) written as a number with our own
pen, ink, paper and scan effects -- wider ranges than ``train.unipen.render_number``, with which
bench/bench_cells.py writes its test cells -- and with the marks a reader of numbers must ignore:
thousands separators (dot, comma, apostrophe), ticks and dashes before or after the number, an
underline.  Labels are the digits alone.  A share of the cells lie on shaded or patterned paper and
go through ``ocr.crop.cell_image`` (what ``rubberscan cell`` does to a crop); every cell then goes
through ``ocr.prep.prepare_cut`` exactly as a sheet's cell does.

Writers: UNIPEN's writers split in fifths by ``split_writers``: part 0 is the benchmark's (never
used here), part 1 the validation cells (seeds that are multiples of 10, as train_cellnet.py
splits), parts 2-4 the training cells.  UNIPEN: CC BY 4.0, Zenodo 10.5281/zenodo.1195803.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from multiprocessing import Pool

import cv2
import numpy as np

from train.make_cells import save_cells
from train.unipen import Digit, compose, load, split_writers

BENCH_PART = 0  # bench/bench_cells.py's writers: never rendered here
VALIDATION_PART = 1  # the validation cells' writers (and the second reader's fit in bench_cells --fit)
TRAIN_PARTS = tuple(p for p in range(5) if p not in (BENCH_PART, VALIDATION_PART))
SEED_BASE = 10_000_000  # cells' "seeds" (train_cellnet.py's split: multiples of 10 validate)


def number_text(rng: np.random.Generator) -> str:
    """A number to write: scores (multiples of ten, 0) half the time, any digits (1-7 long) else."""
    if rng.random() < 0.5:
        n = int(rng.choice([1, 2, 3, 3, 4, 4, 5]))
        if n == 1:
            return "0"
        return str(int(rng.integers(1, 10))) + "".join(str(int(v)) for v in rng.integers(0, 10, n - 2)) + "0"
    n = int(rng.choice([1, 2, 3, 4, 4, 5, 5, 6, 7]))
    first = str(int(rng.integers(1 if n > 1 else 0, 10)))
    return first + "".join(str(int(v)) for v in rng.integers(0, 10, n - 1))


def _stroke_widths(n: int, base: float, rng: np.random.Generator) -> np.ndarray:
    """A pen's width along a stroke of n points: the stroke's pressure and a slow swell."""
    pressure = base * rng.uniform(0.7, 1.3)
    swell = 1 + rng.uniform(0, 0.35) * np.sin(np.linspace(0, rng.uniform(1, 6), max(n, 1)) + rng.uniform(0, 6))
    return pressure * swell


def _draw(strokes: list[np.ndarray], pen: float, size: tuple[int, int], rng: np.random.Generator,
          scale: int = 4) -> np.ndarray:
    """Ink (0..1) of the strokes, pressure varying along each, drawn 4x supersampled."""
    h, w = size
    canvas = np.zeros((h * scale, w * scale), np.uint8)
    for pts in strokes:
        widths = _stroke_widths(len(pts), pen, rng)
        p = np.round(pts * scale * 16).astype(np.int64)
        if len(p) == 1:
            cv2.circle(canvas, (int(p[0, 0]), int(p[0, 1])), max(1, int(widths[0] * scale / 2)) * 16, 255, -1,
                       cv2.LINE_AA, shift=4)
            continue
        for k in range(len(p) - 1):
            t = max(1, int(round(widths[k] * scale)))
            cv2.line(canvas, (int(p[k, 0]), int(p[k, 1])), (int(p[k + 1, 0]), int(p[k + 1, 1])), 255, t,
                     cv2.LINE_AA, shift=4)
    return cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _mark(kind: str, x: float, base: float, hd: float, rng: np.random.Generator) -> tuple[list[np.ndarray], float]:
    """A mark that is no digit, its left edge at x on a baseline at ``base`` (digits ``hd`` high):
    its strokes and its right edge."""
    j = lambda: rng.normal(0, 0.03 * hd)  # noqa: E731 - a hand's wobble
    if kind == ".":
        y = base - rng.uniform(0.0, 0.08) * hd
        return [np.array([[x + 0.05 * hd, y], [x + 0.08 * hd + j(), y + j()]])], x + 0.15 * hd
    if kind == ",":
        y = base - rng.uniform(-0.02, 0.08) * hd
        return [np.array([[x + 0.1 * hd, y], [x + 0.04 * hd + j(), y + 0.22 * hd + j()]])], x + 0.16 * hd
    if kind == "'":
        y = base - hd * rng.uniform(0.85, 1.05)
        return [np.array([[x + 0.1 * hd, y], [x + 0.06 * hd + j(), y + 0.22 * hd + j()]])], x + 0.16 * hd
    if kind == "-":
        y = base - hd * rng.uniform(0.3, 0.6)
        n = rng.uniform(0.3, 0.8) * hd
        return [np.array([[x, y + j()], [x + n, y + j()]])], x + n
    if kind == "=":
        y = base - hd * rng.uniform(0.35, 0.6)
        n = rng.uniform(0.3, 0.7) * hd
        return [np.array([[x, y - 0.1 * hd], [x + n, y - 0.1 * hd + j()]]),
                np.array([[x, y + 0.1 * hd + j()], [x + n, y + 0.1 * hd]])], x + n
    if kind == "/":
        return [np.array([[x + 0.35 * hd, base - 0.95 * hd + j()], [x + j(), base + j()]])], x + 0.4 * hd
    raise ValueError(kind)


def _digit_strokes(d: Digit, hd: float, slant: float, rng: np.random.Generator) -> list[np.ndarray]:
    """A digit's strokes scaled to about ``hd`` high, turned a little and slanted, top at y = 0."""
    pts = np.concatenate(d.strokes)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = hi - lo
    k = hd * rng.uniform(0.85, 1.15) / max(span[1], 0.35 * span[0], 1e-6)
    a = np.deg2rad(rng.normal(0, 4))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    sx = rng.uniform(0.8, 1.25)  # narrow or wide hands
    out = []
    for s in d.strokes:
        q = (s - lo) * k
        q[:, 0] *= sx
        q = (q - [0, hd / 2]) @ rot.T + [0, hd / 2]
        q[:, 0] += -slant * (q[:, 1] - hd)
        out.append(q)
    return out


def render_cell(digits: list[Digit], rng: np.random.Generator, height: int = 64,
                marks: bool = True) -> tuple[np.ndarray, bool]:
    """One writer's digits as a cell (grey uint8, paper light) with marks to ignore; and whether
    its paper is shaded or patterned (the caller sends such a cell through ocr.crop.cell_image)."""
    hd = height * rng.uniform(0.38, 0.8)
    slant = rng.uniform(-0.35, 0.2)
    pen = rng.uniform(1.0, 4.2) * height / 64
    gap_mean = rng.uniform(-0.1, 0.4)
    strokes: list[np.ndarray] = []
    n = len(digits)
    group = rng.choice([".", ",", "'"]) if marks and n >= 4 and rng.random() < 0.35 else None
    x = 0.0
    base = hd
    if marks and rng.random() < 0.06:  # a mark before the number ("=1500", "-300")
        s, x = _mark(str(rng.choice(["-", "="])), x, base, hd, rng)
        strokes += s
        x += rng.uniform(0.05, 0.3) * hd
    for i, d in enumerate(digits):
        ds = _digit_strokes(d, hd, slant, rng)
        dy = rng.normal(0, 0.04 * hd)
        left = min(q[:, 0].min() for q in ds)
        gap = (gap_mean + rng.normal(0, 0.06)) * hd if i else 0.0
        ds = [q + [x + gap - left, dy] for q in ds]
        x = max(q[:, 0].max() for q in ds)
        strokes += ds
        if group is not None and i < n - 1 and (n - 1 - i) % 3 == 0:
            s, x = _mark(str(group), x + rng.uniform(-0.02, 0.12) * hd, base, hd, rng)
            strokes += s
    if marks and rng.random() < 0.12:  # marks after the number ("1500.-", "300=", "20/-")
        for kind in str(rng.choice([".-", "-", "=", "/-", ".", ".--"])):
            s, x = _mark(kind, x + rng.uniform(0.03, 0.2) * hd, base, hd, rng)
            strokes += s
    if marks and rng.random() < 0.1:  # an underline, perhaps touching the digits
        y = base + rng.uniform(0.0, 0.2) * hd
        x0, x1 = -rng.uniform(0, 0.3) * hd, x + rng.uniform(0, 0.4) * hd
        strokes.append(np.array([[x0, y], [(x0 + x1) / 2, y + rng.normal(0, 0.04 * hd)], [x1, y + rng.normal(0, 0.05 * hd)]]))
    all_pts = np.concatenate(strokes)
    lo = all_pts.min(axis=0)
    ml, mr = rng.uniform(0.05, 1.0) * hd, rng.uniform(0.05, 1.0) * hd
    top = (height - hd) * rng.uniform(0.2, 0.8)
    strokes = [q - [lo[0], 0] + [ml + pen, top] for q in strokes]
    width = int(np.ceil(x - lo[0] + ml + mr + 2 * pen))
    ink = _draw(strokes, pen, (height, max(width, height // 2)), rng)
    ink = cv2.GaussianBlur(ink, (0, 0), rng.uniform(0.3, 1.1))
    if rng.random() < 0.25:  # pencil or a dry pen: grainy ink
        ink *= np.clip(rng.normal(1.0, rng.uniform(0.1, 0.35), ink.shape), 0, 1.2).astype(np.float32)
    darkness = rng.uniform(0.35, 0.97)
    paper = np.full(ink.shape, rng.uniform(195, 252), np.float32)
    shaded = rng.random() < 0.3
    if shaded:
        paper = _paper(paper, rng)
    grey = paper * (1 - darkness * np.clip(ink, 0, 1))
    grey += rng.normal(0, rng.uniform(0.5, 7.0), grey.shape)
    grey = np.clip(grey, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:  # a coarse scan, scaled back up
        f = rng.uniform(0.35, 0.7)
        small = cv2.resize(grey, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        grey = cv2.resize(small, (grey.shape[1], grey.shape[0]), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        grey = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return grey, shaded


def _paper(paper: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Paper shaded across (a photo's light) and, half the time, printed with a fine wavy pattern
    (a cheque's security background)."""
    h, w = paper.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(a) * xx / max(w, 1) + np.sin(a) * yy / max(h, 1))
    paper = paper * (1 - rng.uniform(0.0, 0.35) * (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-6))
    if rng.random() < 0.5:
        period = rng.uniform(3, 9)
        amp = rng.uniform(2, 10)
        b = rng.uniform(-0.6, 0.6)
        waves = np.sin((yy + b * xx + amp * np.sin(xx / rng.uniform(8, 30))) * 2 * np.pi / period)
        paper = paper * (1 - rng.uniform(0.04, 0.2) * (waves > rng.uniform(0.5, 0.95)))
    return paper


def _writers(part_filter) -> dict[str, dict[str, list[Digit]]]:
    by: dict[str, dict[str, list[Digit]]] = defaultdict(lambda: defaultdict(list))
    digits = load()
    for part in part_filter:
        for d in split_writers(digits, part=part)[1]:
            by[d.writer][d.label].append(d)
    return by


_POOL: dict[str, dict] = {}


def _init() -> None:
    cv2.setNumThreads(1)
    _POOL["train"] = _writers(TRAIN_PARTS)
    _POOL["val"] = _writers([VALIDATION_PART])


def one_cell(seed: int) -> tuple[np.ndarray, str, str]:
    """The cell of one seed: the network input (uint8, ink high), its digits and its kind."""
    from ocr.cells import paper_grey
    from ocr.crop import cell_image
    from ocr.prep import prepare_cut

    rng = np.random.default_rng(seed)
    pool = _POOL["val" if seed % 10 == 0 else "train"]
    writers = sorted(pool)
    while True:
        text = number_text(rng)
        digits = compose(pool[writers[int(rng.integers(len(writers)))]], text, rng)
        if digits is not None:
            break
    grey, shaded = render_cell(digits, rng)
    # a crop on shaded or patterned paper as ``rubberscan cell`` takes it; the others as the
    # geometry stage cuts a sheet's cells (paper divided out)
    grey = cell_image(grey) if shaded else paper_grey(grey)
    x, _ = prepare_cut(grey)
    return (x * 255).round().astype(np.uint8), text, f"number|unipen|{'crop' if shaded else 'cell'}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=150_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="train/_data/unipen.npz")
    args = ap.parse_args(argv)
    t0 = time.time()
    seeds = [SEED_BASE + k for k in range(args.count)]
    images, labels, kinds = [], [], []
    with Pool(args.jobs, initializer=_init) as pool:
        for k, (x, text, kind) in enumerate(pool.imap(one_cell, seeds, chunksize=256)):
            images.append(x)
            labels.append(text)
            kinds.append(kind)
            if k % 20000 == 0:
                print(f"{k} cells, {time.time() - t0:.0f}s", flush=True)
    out = save_cells(args.out, images, labels, kinds, seeds)
    print(f"wrote {len(images)} cells to {out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
