"""The cell networks alone on photographed number cells against their truth: how often their best
string is right and how often they are sure (best >= ReaderSettings.second_unsure: no second
reader asked) -- the cells as read_table gets them, with and without ocr.prep.clear_rulings, and
read_table's own way: rulings cleared and the photo networks (ocr/models/photonet*.npz) on a table
straightened from its lattice, the scan networks with the cut as it is elsewhere.

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


def cells_of(paths: list[Path]) -> list[tuple[np.ndarray, int, bool]]:
    """(grey cell image, true value, whether its table was straightened from its lattice) of every
    number cell of the deals in each picture's truth."""
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
        grid = table.straight.grid is not None
        out += [(c.image, rows[int(c.row)][c.key], grid) for c in table.cells
                if c.key in NUMBER_KEYS and c.row.isdigit() and int(c.row) in rows]
    return out


def measure(cells: list[tuple[np.ndarray, int, bool]], clear: bool | None, photo: bool = False) -> str:
    """The networks' best strings against the truth: ``clear`` the rulings of every cell (True), of
    none (False) or of the photographed tables' (None, as read_table does); ``photo``: the photo
    networks read the photographed tables' cells (the scan networks the others)."""
    from ocr.ensemble import NUMBER_SYMBOLS, default_net, photo_net
    from ocr.prep import clear_rulings, prepare_cut
    from ocr.read import string_value
    from ocr.settings import ReaderSettings

    s = ReaderSettings()
    nets = {False: default_net(), True: (photo_net() or default_net()) if photo else default_net()}
    inputs, cuts, values, grids, lost = [], [], [], [], 0
    for image, value, grid in cells:
        x, cut = prepare_cut(clear_rulings(image, s) if (grid if clear is None else clear) else image, s)
        if cut is None:
            lost += value != 0
            continue
        inputs.append(x)
        cuts.append(cut)
        values.append(value)
        grids.append(grid)
    if not inputs:
        return "no cell with ink"
    batch = np.array(inputs)
    found: list = [None] * len(batch)
    for grid, net in nets.items():
        idx = [i for i, g in enumerate(grids) if g == grid]
        if idx:
            got = net.nbest(batch[idx], [NUMBER_SYMBOLS] * len(idx), beam=s.beam, cuts=[cuts[i] for i in idx],
                            first=net.nets[0].read(batch[idx], s), settings=s)
            for i, f in zip(idx, got, strict=True):
                found[i] = f
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
    print(f"{len(paths)} pictures, {sum(g for *_, g in cells)} of {len(cells)} cells from tables straightened "
          "from their lattice")
    print("as cut:         ", measure(cells, False))
    print("rulings cleared:", measure(cells, True))
    from ocr.ensemble import photo_net

    print("read_table's way (scan networks): ", measure(cells, None, False))
    if photo_net() is not None:
        print("read_table's way (photo networks):", measure(cells, None, True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
