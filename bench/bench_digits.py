"""The digit network on real handwriting alone: the 1,000 held-out MNIST digits, one at a time.

    .venv/bin/python -m bench.bench_digits [--net ocr/models/digitnet.npz ...]

Each held-out digit (samples/data/mnist_heldout.npz, never seen in training) is written as the
sample generator's MNIST hand writes a digit (cropped to its ink, scaled to a writing height of
24 px, the scans' digit size; upright and with the hand's largest slant, 0.3) with nothing around
it -- no scan, no ink colour, no neighbours -- and cut as the reader cuts a digit for the digit
network (ocr.digitnet.windows).  What it misreads here it misreads in the digit itself, not in a
sheet's troubles.  For scale: a plain MNIST classifier (train/mnist_ceiling.py, three networks
averaged) reads these 1,000 digits at 99.5 % (bench/RESULTS-read.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from ocr.digitnet import MODEL_PATH, DigitNet, windows
from ocr.prep import Cut
from samples.hands import mnist_digits, mnist_glyph

HEIGHT = 24  # px: the scans' written digits are 22-27 px high


def written_alone(image: np.ndarray, slant: float, height: int = HEIGHT) -> np.ndarray:
    """One MNIST digit (28x28, ink high) as the MNIST hand writes it, alone, cut as the digit
    network's input window (WIN x WIN, ink 0..1)."""
    glyph = mnist_glyph(image, height)
    canvas = np.zeros((height * 2, glyph.shape[1] + 2 * height), np.float32)
    canvas[height // 2:height // 2 + height, height:height + glyph.shape[1]] = glyph
    if slant:
        base = height // 2 + height
        m = np.float32([[1, -slant, slant * base], [0, 1, 0]])
        canvas = cv2.warpAffine(canvas, m, (canvas.shape[1], canvas.shape[0]), flags=cv2.INTER_LINEAR)
    rows, cols = np.nonzero(canvas > 0.05)
    cut = Cut(0, 1.0, int(rows.min()), int(rows.max()) + 1, canvas)
    return windows(cut, [int((cols.min() + cols.max()) / 2)])[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--net", action="append", default=None, help="digit network file(s) (default: the committed one)")
    args = ap.parse_args(argv)
    images, labels = mnist_digits()
    labels = labels.astype(int)
    print("| digit network | slant | held-out digits read right | wrong (true>read) |")
    print("|---|---|---|---|")
    for path in args.net or [str(MODEL_PATH)]:
        net = DigitNet.load(path)
        for slant in (0.0, 0.3):
            wins = np.stack([written_alone(im, slant) for im in images])
            read = net.log_probs(wins).argmax(axis=1)
            wrong = np.flatnonzero(read != labels)
            pairs = ", ".join(f"{labels[i]}>{read[i]}" for i in wrong)
            print(f"| {Path(path).name} | {slant} | {100 * (1 - len(wrong) / len(labels)):.1f} % "
                  f"({len(labels) - len(wrong)}/{len(labels)}) | {pairs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
