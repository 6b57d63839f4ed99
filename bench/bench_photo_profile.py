"""Where a photo's read spends its CPU, and what the second reader buys on it, photo by photo.

    OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo_profile.py PHOTO.jpg ...

Each photo needs its truth beside it (PHOTO.truth.json: samples/photo.py, samples/photo3d.py).
Per photo, one core (process CPU time): geometry; the read (read_table) and inside it the second
reader (ocr/ppocr.py), with how many number cells it read of those with ink; reconciliation; and
the written numbers right after reconciliation (bench_photo.py's measure) read three ways -- as the
product reads (``full``); the cell networks alone with the second reader's look on request
(``nets+look``: ocr/look.py, asked before reconciliation flags a number); the networks alone.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main(argv: list[str] | None = None) -> int:
    import bench_photo as bp

    from ocr.data import InputError
    from ocr.ensemble import default_net
    from ocr.load import load_pages
    from ocr.look import second_look
    from ocr.page import straighten
    from ocr.ppocr import LineReader, default_reader
    from ocr.read import read_table
    from ocr.settings import ReaderSettings
    from ocr.table import find_table
    from scoring.reconcile import reconcile

    paths = [Path(p) for p in (argv if argv is not None else sys.argv[1:])]
    if not paths:
        print(__doc__)
        return 2
    default_net()
    default_reader()
    spent = [0.0]
    probs = LineReader.probs

    def timed(self, *a, **k):  # the second reader's own CPU, counted inside the read
        c = time.process_time()
        try:
            return probs(self, *a, **k)
        finally:
            spent[0] += time.process_time() - c

    LineReader.probs = timed  # type: ignore[method-assign]
    full = ReaderSettings()
    nets = replace(full, use_second=False)
    for path in paths:
        truth = json.loads(path.with_suffix(".truth.json").read_text())
        c0 = time.process_time()
        try:
            table = find_table(straighten(load_pages(path)[0]))
        except InputError as exc:
            print(f"{path.name}: {exc}")
            continue
        geometry = time.process_time() - c0
        parts = []
        for name, settings, with_look in (("full", full, False), ("nets+look", nets, True), ("nets", nets, False)):
            asked = [0]
            spent[0] = 0.0
            c1 = time.process_time()
            reading = read_table(table, settings=settings)
            c2 = time.process_time()
            look = None
            if with_look:
                inner = second_look(table, full)

                def look(q, inner=inner, asked=asked):
                    asked[0] += len(q)
                    return inner(q)
            sheet = reconcile(reading, look=look, explain=False).to_json()
            c3 = time.process_time()
            n, right = bp.numbers_right(sheet, truth, table)
            parts.append(f"{name}: numbers {right}/{n}, read {c2 - c1:.2f} s (second reader {spent[0]:.2f} s on "
                         f"{reading.meta['second_read']} of {reading.meta['cells_read']} cells"
                         + (f", look asked {asked[0]}" if with_look else "") + f"), reconcile {c3 - c2:.2f} s")
        print(f"{path.name}: geometry {geometry:.2f} s\n    " + "\n    ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
