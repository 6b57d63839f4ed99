"""The reader on single cells of real handwriting nobody here wrote: ORAND-CAR-A and UNIPEN.

    .venv/bin/python bench/bench_cells.py [--orand N] [--unipen N] [--part P] [--seed S] [--fit]

- ORAND-CAR-A (../shared/data/orand-car-a, measure only): 1,080 courtesy amounts cut from real
  cheques; each image goes through ``ocr.crop.cell_image`` and ``ocr.read.read_cells`` -- what
  ``rubberscan cell`` runs.  Digits only (separators and ticks ignored); a cheque is no score, so
  read with ``max_digits=7`` and no multiple-of-ten prior; the 998 amounts of 1-5 digits beside.
- UNIPEN writers held out by ``train.unipen.split_writers(part=P)`` (a fifth of the ~630 writers,
  never trained on): numbers of 1-5 digits composed from one writer's digits and rendered as cells
  (``train.unipen.render_number``); "scores" are multiples of ten read with the product's priors,
  "digits" any digits (first not 0) read without the multiple-of-ten prior.
A reading at >= 0.95 is right when its best is the truth, or "none of these" while the truth is
not among its values (it said, rightly, that it cannot read the cell).
Readers: the cell networks alone, the second reader alone (PP-OCRv6, asked on every cell, a mixture
share of 1), and the combination as shipped (the default ReaderSettings).  Per reader: exact,
truth in the top 3, digits right (1 - the character error rate of the best reading's digits against
the truth's: edit distance over the truth's digits, a "none of these" best counted as no digits --
how a text recogniser's accuracy is often quoted, and far above "exact" on multi-digit amounts),
readings at >= 0.95 (how many, how many right), the truth's mean NLL, ms per cell.
``--fit``: the combination's weights and threshold over a grid, by the truth's NLL, on the writers of
``--part`` (use a part other than the measured one).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from ocr.crop import cell_image  # noqa: E402
from ocr.read import read_cells  # noqa: E402
from ocr.settings import ReaderSettings  # noqa: E402
from scoring.sheet import CellReading  # noqa: E402

ORAND = Path(__file__).resolve().parents[2] / "shared" / "data" / "orand-car-a"
SURE = 0.95


def orand(count: int) -> tuple[list[np.ndarray], list[str]]:
    items = json.loads((ORAND / "labels.json").read_text())[:count]
    return [cell_image(cv2.imread(str(ORAND / it["image"]))) for it in items], [it["digits"] for it in items]


def unipen_numbers(count: int, part: int, seed: int, kind: str) -> tuple[list[np.ndarray], list[str]]:
    """``count`` numbers of 1-5 digits, each from one held-out writer's digits, rendered as cells."""
    from train.unipen import compose, load, render_number, split_writers

    _, held = split_writers(load(), part=part)
    by: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for d in held:
        by[d.writer][d.label].append(d)
    writers = sorted(by)
    rng = np.random.default_rng(seed)
    images, truths = [], []
    while len(images) < count:
        n = int(rng.integers(1, 6))
        if kind == "scores":  # a score: 0, or a multiple of ten of 2-5 digits
            text = "0" if n == 1 else str(int(rng.integers(1, 10))) + "".join(str(int(v)) for v in rng.integers(0, 10, n - 2)) + "0"
        else:
            text = str(int(rng.integers(1, 10))) + "".join(str(int(v)) for v in rng.integers(0, 10, n - 1))
        digits = compose(by[writers[int(rng.integers(len(writers)))]], text, rng)
        if digits is None:
            continue
        images.append(render_number(digits, rng))
        truths.append(text)
    return images, truths


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions and substitutions all cost 1)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def score(readings: list[CellReading], truths: list[str]) -> dict:
    exact = top3 = sure = sure_ok = 0
    errors = 0
    nll = []
    for r, t in zip(readings, truths, strict=True):
        want = int(t)
        values = [v for v, _ in r.candidates]
        exact += r.best == want
        errors += edit_distance(t, "" if r.best is None else str(r.best))
        top3 += want in values[:3]
        if r.confidence >= SURE:
            sure += 1
            # a sure "none of these" is right when the truth is not among the values listed
            sure_ok += r.best == want or (r.best is None and want not in values)
        p = dict(r.candidates).get(want) or dict(r.candidates).get(None, 0.0) * 1e-3
        nll.append(-math.log(max(p, 1e-9)))
    n = len(truths)
    return {"n": n, "exact": exact / n, "top3": top3 / n, "digits": 1 - errors / max(1, sum(map(len, truths))), "sure": sure, "sure_right": sure_ok / sure if sure else float("nan"),
            "nll": statistics.fmean(nll)}


READERS = {
    "cell networks": dict(use_second=False),
    "second reader alone": dict(second_share=1.0, second_unsure=1.01),
    "combined (as shipped)": dict(),
}


def measure(name: str, images: list[np.ndarray], truths: list[str], base: ReaderSettings, rows: list[str],
            readers: dict = READERS) -> None:
    for reader, change in readers.items():
        settings = replace(base, **change)
        t0 = time.process_time()
        readings = read_cells(images, settings)
        ms = 1000 * (time.process_time() - t0) / max(1, len(images))
        s = score(readings, truths)
        rows.append(f"| {name} | {reader} | {s['n']} | {100 * s['exact']:.1f} % | {100 * s['top3']:.1f} % | {100 * s['digits']:.1f} % | "
                    f"{s['sure']} ({100 * s['sure'] / s['n']:.0f} %), {100 * s['sure_right']:.2f} % right | {s['nll']:.3f} | {ms:.1f} |")
        print(rows[-1], flush=True)


def fit(images: list[np.ndarray], truths: list[str], base: ReaderSettings) -> None:
    """The combination's weights and threshold by the truth's NLL (printed, best last): each reader
    reads every cell once, then the grid recombines their strings (ocr.read.combine)."""
    from ocr.ensemble import NUMBER_SYMBOLS, combine, default_net, second_crop
    from ocr.ppocr import default_reader
    from ocr.prep import prepare_cut
    from ocr.read import number_reading

    net, second = default_net(), default_reader()
    prepared = [prepare_cut(g) for g in images]
    inked = [k for k, (_, cut) in enumerate(prepared) if cut is not None]
    inputs = np.stack([prepared[k][0] for k in inked])
    cuts = [prepared[k][1] for k in inked]
    first = net.nets[0].read(inputs)
    found = net.nbest(inputs, [NUMBER_SYMBOLS] * len(inked), beam=base.beam, cuts=cuts, first=first)
    lps = second.cell_probs([second_crop(c, base) for c in cuts], base)
    out = []
    grid = [dict(second_unsure=u, nets_weight=a, second_weight=b) for u in (0.95, 0.995, 1.01)
            for a in (0.2, 0.35, 0.5, 1.0) for b in (0.5, 1.0)]
    grid += [dict(second_unsure=u, second_share=w) for u in (0.95, 0.995, 1.01) for w in (0.3, 0.5, 0.7, 0.9)]
    for change in grid:
        st = replace(base, **change)
        unsure = st.second_unsure
        readings = {k: number_reading(combine(f, lp, fr, st) if f and f[0][1] < unsure else f, settings=st)
                    for k, f, lp, fr in zip(inked, found, lps, first, strict=True)}
        all_r = [readings.get(k, number_reading([("", st.blank_prob)], settings=st)) for k in range(len(images))]
        s = score(all_r, truths)
        out.append((s["nll"], change))
        print(f"{change}: NLL {s['nll']:.4f} exact {100 * s['exact']:.2f} % "
              f"top3 {100 * s['top3']:.2f} % sure {s['sure']} right {100 * s['sure_right']:.2f} %", flush=True)
    out.sort(key=lambda r: r[0])
    print("best (NLL, settings):", out[:5])


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--orand", type=int, default=1080, help="ORAND images to read (0: none)")
    ap.add_argument("--unipen", type=int, default=1000, help="UNIPEN numbers of each kind (0: none)")
    ap.add_argument("--part", type=int, default=0, help="which fifth of the UNIPEN writers is held out and read")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fit", action="store_true", help="fit the combination on --part's writers instead")
    args = ap.parse_args(argv)
    product = ReaderSettings()
    cheque = replace(product, max_digits=7, not_tens_prior=1.0)
    if args.fit:
        images, truths = unipen_numbers(args.unipen, args.part, args.seed, "scores")
        fit(images, truths, product)
        return 0
    rows = ["| data | reader | cells | exact | top 3 | digits right | readings >= 0.95 | NLL | CPU ms/cell |",
            "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(rows), flush=True)
    if args.orand:
        images, truths = orand(args.orand)
        measure("ORAND-CAR-A", images, truths, cheque, rows)
        short = [k for k, t in enumerate(truths) if len(t) <= 5]
        measure("ORAND, 1-5 digits", [images[k] for k in short], [truths[k] for k in short], cheque, rows)
    if args.unipen:
        for kind, base in (("scores", product), ("digits", replace(product, not_tens_prior=1.0))):
            images, truths = unipen_numbers(args.unipen, args.part, args.seed, kind)
            measure(f"UNIPEN part {args.part}, {kind}", images, truths, base, rows)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
