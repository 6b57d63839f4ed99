"""When should a photographed table's cells go to the second reader?  Numbers right after
reconciliation, and cells the second reader reads, with it asked where the photo networks' best is
below each threshold (``ReaderSettings.second_unsure_photo`` on tables straightened from their lattice,
the ones the photo networks read; other tables as shipped).

    OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_second_ask.py \
        --thresholds 0.9 0.7 0.5 0.3 bench/_work/photo/scene3d-16000/*.jpg

Each photo needs its truth beside it (PHOTO.truth.json).  Reconciled two ways: as bench_photo.py
does (no look) and as ``rubberscan read`` does (with the second reader's look before a flag,
ocr/look.py).  The second reader's frames are remembered per crop across thresholds (the same crop
gives the same frames, up to its batch partner's padding), so a threshold costs only the rest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("photos", nargs="+", type=Path)
    p.add_argument("--thresholds", type=float, nargs="+", default=[0.9, 0.7, 0.5, 0.3])
    p.add_argument("--min-widths", type=int, nargs="+", default=[240],
                   help="second_min_width_photo values, each tried with every threshold")
    p.add_argument("--json", type=Path, help="per photo and threshold figures")
    args = p.parse_args(argv)

    import bench_photo as bp

    from ocr.data import InputError
    from ocr.load import load_pages
    from ocr.look import second_look
    from ocr.page import straighten
    from ocr.ppocr import LineReader
    from ocr.read import read_table
    from ocr.settings import ReaderSettings
    from ocr.table import find_table
    from scoring.reconcile import reconcile

    memo: dict = {}
    probs = LineReader.probs

    def remembered(self, images, min_width=240, batch=2, keep=None):
        keys = [hashlib.sha1(g.tobytes() + str(g.shape).encode()).hexdigest() + f"{min_width}" for g in images]
        todo = [i for i, k in enumerate(keys) if k not in memo]
        if todo:
            for i, y in zip(todo, probs(self, [images[i] for i in todo], min_width, batch), strict=True):
                memo[keys[i]] = y
        return [memo[k] if keep is None else keep(memo[k]) for k in keys]

    LineReader.probs = remembered  # type: ignore[method-assign]
    columns = [0]  # the columns the second reader runs over (its cost grows with them)
    widths = LineReader.probs

    def counted(self, images, min_width=240, batch=2, keep=None):
        columns[0] += sum(max(min_width, -(-48 * g.shape[1] // max(1, g.shape[0]))) for g in images)
        return widths(self, images, min_width, batch, keep)

    LineReader.probs = counted  # type: ignore[method-assign]
    configs = [(t, w) for w in args.min_widths for t in args.thresholds]
    base = ReaderSettings()
    totals: dict = defaultdict(lambda: [0, 0, 0, 0, 0, 0])  # numbers, right (no look), right (look), asked, photos, columns
    rows = []
    t0 = time.time()
    for path in args.photos:
        truth = json.loads(path.with_suffix(".truth.json").read_text())
        try:
            table = find_table(straighten(load_pages(path)[0]))
        except InputError:
            continue
        lattice = table.straight.grid is not None
        line = [path.name + ("" if lattice else " (scan path)")]
        for t, w in configs:
            settings = replace(base, second_unsure_photo=t, second_min_width_photo=w)
            columns[0] = 0
            reading = read_table(table, settings=settings)
            plain = reconcile(reading, explain=False).to_json()
            looked = reconcile(reading, look=second_look(table, settings), explain=False).to_json()
            n, right = bp.numbers_right(plain, truth, table)
            _, right_look = bp.numbers_right(looked, truth, table)
            asked = reading.meta["second_read"]
            tot = totals[t, w]
            for k, v in enumerate((n, right, right_look, asked, 1, columns[0])):
                tot[k] += v
            line.append(f"{t:g}/{w}: {right}/{right_look}/{n} asked {asked}")
            rows.append({"photo": path.name, "lattice": lattice, "threshold": t, "min_width": w, "numbers": n,
                         "right": right, "right_look": right_look, "asked": asked, "columns": columns[0]})
        print("  ".join(line), flush=True)
    print(f"\n{len(args.photos)} photos, {time.time() - t0:.0f} s wall")
    print("| ask below | padded to | photos | numbers right, no look (bench_photo) | with the look (rubberscan read) "
          "| cells the second reader read | its columns a photo (read and look) |")
    print("|---|---|---|---|---|---|---|")
    for t, w in configs:
        n, r, rl, a, k, c = totals[t, w]
        print(f"| {t:g} | {w} | {k} | {r}/{n} = {100.0 * r / max(1, n):.2f} % | {rl}/{n} = {100.0 * rl / max(1, n):.2f} % "
              f"| {a} ({a / max(1, k):.1f} a photo) | {c / max(1, k):.0f} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
