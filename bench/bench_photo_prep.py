"""Phone photos cut right: does cell preparation lose the writing, or do the networks misread it?
For each photo's written number cells (truth non-zero): how many come out of ``ocr.prep`` as an
all-zero input (after ``clear_rulings``), and the reader's raw best (before reconciliation) right /
blank / wrong -- as the photo is, and with ``--stretch``: each number cell's ink first stretched so
its 99.9th percentile is full ink (paper 255 kept), i.e. as if prep saw the writing at full
contrast.  ``--crops DIR`` saves each written cell as cell | rulings cleared | network input (x3).

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo_prep.py DIR NAME [NAME ...] [--stretch] [--crops OUT]

NAME: a photo's file name in DIR (with its .truth.json beside it), e.g. photo3d-19012.jpg.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from ocr.data import InputError  # noqa: E402
from ocr.load import load_pages  # noqa: E402
from ocr.page import straighten  # noqa: E402
from ocr.prep import clear_rulings, prepare_cut  # noqa: E402
from ocr.settings import GeometrySettings  # noqa: E402
from ocr.table import find_table  # noqa: E402

NUMBER_KEYS = ("ns", "ew", "cum_ns", "cum_ew")


def stretched(grey: np.ndarray) -> np.ndarray:
    """The cell with its ink scaled so that its 99.9th percentile is full ink."""
    ink = 255.0 - grey.astype(np.float32)
    top = max(float(np.percentile(ink, 99.9)), 1.0)
    return (255 - np.clip(ink * 255.0 / top, 0, 255)).astype(np.uint8)


def photo(path: Path, stretch: bool, crops: Path | None) -> dict:
    from ocr.read import read_table

    truth = json.loads(path.with_suffix(".truth.json").read_text())
    settings = GeometrySettings()
    try:
        table = find_table(straighten(load_pages(path)[0], settings), settings)
    except InputError:
        return {"source": path.name, "found": False}
    if stretch:
        table = replace(table, cells=[replace(c, image=stretched(c.image)) if c.key in NUMBER_KEYS else c
                                      for c in table.cells])
    want = {str(r["deal"]): r for r in truth["rows"]}
    reading = read_table(table)
    best = {(str(r.deal), k): (None if c.blank else c.best) for r in reading.rows for k, c in r.cells.items()}
    out = {"source": path.name, "found": True, "ink": truth["ink"], "written": 0, "empty_input": 0,
           "right": 0, "blank": 0, "wrong": 0}
    for c in table.cells:
        w = want.get(c.row, {}).get(c.key) if c.key in NUMBER_KEYS else None
        if not w:
            continue
        cleared = clear_rulings(c.image)
        x, _ = prepare_cut(cleared)
        got = best.get((c.row, c.key))
        out["written"] += 1
        out["empty_input"] += int(x.max() == 0)
        out["right" if got == w else "blank" if got is None else "wrong"] += 1
        if crops is not None:
            crops.mkdir(parents=True, exist_ok=True)
            inp = cv2.resize((255 - x * 255).astype(np.uint8), (x.shape[1] * c.image.shape[0] // x.shape[0],
                                                                c.image.shape[0]))
            strip = np.hstack([c.image, cleared, inp])
            name = f"{path.stem}-{c.row}-{c.key}-want{w}-got{got}.png"
            cv2.imwrite(str(crops / name), cv2.resize(strip, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("names", nargs="+")
    ap.add_argument("--stretch", action="store_true", help="stretch each number cell's ink to full first")
    ap.add_argument("--crops", type=Path, help="save each written cell's strip here")
    args = ap.parse_args(argv)
    print("| photo | ink | written | empty input | read right | read blank | read wrong |")
    print("|---|---|---|---|---|---|---|")
    for name in args.names:
        r = photo(args.folder / name, args.stretch, args.crops)
        if not r["found"]:
            print(f"| {name} | table not found | | | | | |")
            continue
        print(f"| {name} | {r['ink']} | {r['written']} | {r['empty_input']} | {r['right']} | {r['blank']} | {r['wrong']} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
