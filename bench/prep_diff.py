"""Which network inputs a change to ocr/prep.py alters: this tree's prepare_cut against another
checkout's, on bench_cells' real handwriting and on cached bench sheets' cells.

    python -m bench.prep_diff --tree DIR [--cells] [--tables PKL ...] [--out JSON]

``--tree``: a checkout with the old ocr/prep.py (``git archive COMMIT | tar -x -C DIR``).
``--cells``: bench_cells' inputs (the 1,080 ORAND-CAR-A images, 1,000 UNIPEN held-out "scores"
and "digits" numbers): how many inputs differ -- none means bench_cells reads exactly as before.
``--tables``: cached bench_reader_ablation tables (bench/_work/tables-*.pkl): the cells whose
input differs; ``--out`` writes their sheets as {seed: ["row:key", ...]}, the form
``bench_mistakes --reread`` takes (only those sheets need reading again).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pickle
import sys
from pathlib import Path

import numpy as np

from ocr.prep import clear_rulings, prepare_cut


def _other_prep(tree: str):
    """The other checkout's ocr/prep.py as a module (it imports this tree's ocr.settings)."""
    spec = importlib.util.spec_from_file_location("prep_other", Path(tree) / "ocr" / "prep.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["prep_other"] = module
    spec.loader.exec_module(module)
    return module


def differs(other, image: np.ndarray, photo: bool = False) -> bool:
    """Whether the two trees make different network inputs of ``image`` (and, for a photographed
    table's cell, of it with its rulings' leftovers cleared, as ocr.read reads it)."""
    images = (image, clear_rulings(image)) if photo else (image,)
    return any(not np.array_equal(other.prepare_cut(g)[0], prepare_cut(g)[0]) for g in images)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--cells", action="store_true")
    ap.add_argument("--tables", nargs="*", default=[])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    other = _other_prep(args.tree)
    if args.cells:
        from bench import bench_cells as bc
        sets = {"ORAND-CAR-A": bc.orand(1080)[0]}
        for kind in ("scores", "digits"):
            sets[f"UNIPEN held-out {kind}"] = bc.unipen_numbers(1000, 0, 1, kind)[0]
        for name, images in sets.items():
            print(f"{name}: {sum(differs(other, g) for g in images)} of {len(images)} inputs differ")
    touched: dict[str, list[str]] = {}
    for path in args.tables:
        with open(path, "rb") as fh:
            sheets = pickle.load(fh)
        n = cells = 0
        for seed, _, table in sheets:
            if table is None:
                continue
            photo = getattr(table.straight, "grid", None) is not None
            for c in table.cells:
                if c.image is None or not c.image.size or c.image.ndim != 2:
                    continue
                cells += 1
                if differs(other, c.image, photo):
                    touched.setdefault(str(seed), []).append(f"{c.row}:{c.key}")
                    n += 1
        print(f"{Path(path).name}: {n} of {cells} cells differ")
    if args.tables:
        print(f"sheets touched: {', '.join(sorted(touched)) or 'none'}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(touched, fh, indent=0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
