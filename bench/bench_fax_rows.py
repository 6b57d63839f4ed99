"""How closely the geometry stage cuts generated faxes' deal cells on their truth cells.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_fax_rows.py --seed 230000 --count 500

bench_geometry.py counts a cell right when its centre lies inside the truth cell: a row cut
half a pitch off passes it.  This takes the faxes among sheets ``seed``.. (drawn with
bench_mistakes.sheet_options, as the reading benches draw them; made once into
bench/_work/fax_rows), cuts each with straighten + find_table and reports, per sheet, the
largest distance (px, original image) from a cell's corner to its truth cell's, and over all
faxes how many have a corner off by more than a quarter of the truth cell's height.
``--list`` prints every sheet's figure and a digest of its cell boxes (to diff two trees).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_mistakes import sheet_options  # noqa: E402
from ocr.data import InputError  # noqa: E402
from ocr.load import load_pages  # noqa: E402
from ocr.page import straighten  # noqa: E402
from ocr.table import find_table  # noqa: E402
from samples.generate import generate_sheet  # noqa: E402

WORK = ROOT / "bench" / "_work" / "fax_rows"


def faxes(seed: int, count: int) -> list[Path]:
    """Truth files of the faxes among sheets seed..seed+count-1 (made and cached as needed)."""
    out = []
    for s in range(seed, seed + count):
        tp, skip = WORK / f"sheet-{s}.truth.json", WORK / f"sheet-{s}.not-fax"
        if not tp.exists() and not skip.exists():
            WORK.mkdir(parents=True, exist_ok=True)
            data, truth = generate_sheet(s, **sheet_options(s))
            if truth["scan"] != "fax":
                skip.touch()
                continue
            truth["source"] = f"sheet-{s}.{truth['format']}"
            (WORK / truth["source"]).write_bytes(data)
            tp.write_text(json.dumps(truth))
        if tp.exists():
            out.append(tp)
    return out


def measure(tp: Path) -> tuple[float | None, str]:
    """(largest corner error over the deal cells as a share of the truth cell's height, or None
    when no table is found; a digest of every cell's box)."""
    truth = json.loads(tp.read_text())
    page = load_pages(WORK / truth["source"])[truth.get("page", 0) or 0]
    tw, th = truth.get("image_size") or (page.image.shape[1], page.image.shape[0])
    scale = np.array([page.image.shape[1] / tw, page.image.shape[0] / th])
    quads = {(c["row"], c["key"]): np.array(c["quad"], float) * scale for c in truth["cells"] if c["row"]}
    try:
        table = find_table(straighten(page))
    except InputError:
        return None, "-"
    worst = 0.0
    for cell in table.cells:
        q = quads.get((cell.row, cell.key))
        if q is not None:
            height = float(np.linalg.norm(q[3] - q[0]))
            worst = max(worst, float(np.linalg.norm(np.asarray(cell.quad, float) - q, axis=1).max()) / height)
    digest = hashlib.md5(repr(sorted((c.row, c.key, c.box) for c in table.cells)).encode()).hexdigest()[:10]
    return worst, digest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=230000)
    p.add_argument("--count", type=int, default=500)
    p.add_argument("--list", action="store_true", help="print every sheet's figure and digest")
    args = p.parse_args(argv)
    found = []
    for tp in faxes(args.seed, args.count):
        worst, digest = measure(tp)
        found.append((tp.name.split(".")[0], worst))
        if args.list:
            print(f"{tp.name.split('.')[0]} {'none' if worst is None else f'{worst:.3f}'} {digest}")
    shares = [w for _, w in found if w is not None]
    off = [n for n, w in found if w is None or w > 0.25]
    print(f"| faxes | table found | every corner within 1/4 cell height | worst corner off "
          f"(cell heights): median / max |\n|---|---|---|---|\n| {len(found)} | {len(shares)} | "
          f"{len(found) - len(off)} | {np.median(shares):.3f} / {max(shares):.3f} |")
    if off:
        print("off by more:", " ".join(off))
    return 0


if __name__ == "__main__":
    sys.exit(main())
