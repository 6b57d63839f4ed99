"""The cell networks alone on photographed number cells against their truth: how often their best
string is right and how often they are sure (best >= ReaderSettings.second_unsure: no second
reader asked) -- the cells as read_table gets them, with and without ocr.prep.clear_rulings.

    OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo_cells.py PHOTO.jpg ...

Each picture needs its truth beside it (NAME.truth.json: samples/photo.py, samples/photo3d.py, the
sample scans in samples/scans).  A picture whose table is not found is left out; "written but cut as
blank" counts cells with a written number whose writing prepare_cut did not find.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

NUMBER_KEYS = ("ns", "ew", "cum_ns", "cum_ew")


def cells_of(paths: list[Path]) -> list[tuple[np.ndarray, int]]:
    """(grey cell image, true value) of every number cell of the deals in each picture's truth."""
    from ocr.data import InputError
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table

    out = []
    for path in paths:
        truth = json.loads(path.with_suffix(".truth.json").read_text())
        rows = {r["deal"]: r for r in truth["rows"]}
        try:
            table = find_table(straighten(load_pages(path)[0]))
        except InputError:
            continue
        out += [(c.image, rows[int(c.row)][c.key]) for c in table.cells
                if c.key in NUMBER_KEYS and c.row.isdigit() and int(c.row) in rows]
    return out


def measure(cells: list[tuple[np.ndarray, int]], clear: bool) -> str:
    from ocr.ensemble import NUMBER_SYMBOLS, default_net
    from ocr.prep import clear_rulings, prepare_cut
    from ocr.read import string_value
    from ocr.settings import ReaderSettings

    s = ReaderSettings()
    net = default_net()
    inputs, cuts, values, lost = [], [], [], 0
    for image, value in cells:
        x, cut = prepare_cut(clear_rulings(image, s) if clear else image, s)
        if cut is None:
            lost += value != 0
            continue
        inputs.append(x)
        cuts.append(cut)
        values.append(value)
    if not inputs:
        return "no cell with ink"
    batch = np.array(inputs)
    found = net.nbest(batch, [NUMBER_SYMBOLS] * len(batch), beam=s.beam, cuts=cuts,
                      first=net.nets[0].read(batch, s), settings=s)
    right = [bool(f) and string_value(f[0][0]) == v for f, v in zip(found, values, strict=True)]
    sure = [bool(f) and f[0][1] >= s.second_unsure for f in found]
    n = len(cells)
    return (f"{n} cells, ink found in {len(batch)}: best right {sum(right)} ({100 * sum(right) / len(batch):.1f} %), "
            f"sure {sum(sure)}, sure and wrong {sum(a and not b for a, b in zip(sure, right, strict=True))}, "
            f"written but cut as blank {lost}")


def main(argv: list[str] | None = None) -> int:
    paths = [Path(p) for p in (argv if argv is not None else sys.argv[1:])]
    if not paths:
        print(__doc__)
        return 2
    cells = cells_of(paths)
    print(f"{len(paths)} pictures")
    print("as cut:         ", measure(cells, False))
    print("rulings cleared:", measure(cells, True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
