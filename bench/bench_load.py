"""Loading a file and the blank-page check, per file format: CPU ms per file (median).

The generated benchmark sheets (the same as bench_read.py: seeds 60000.., made once and kept in
bench/_work/sheets) and the bundled scans in samples/scans are each loaded ``--repeats`` times
with ocr.load.load_pages, and every page they give is put through ocr.pipeline.is_blank:

    OMP_THREAD_LIMIT=1 .venv/bin/python -m bench.bench_load --count 100 --seed 60000
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

import cv2

from bench.bench_read import CACHE, cached_sheet
from ocr.load import load_pages
from ocr.pipeline import is_blank

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "scans"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=60000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    files = [(truth["source"], data) for data, truth in
             (cached_sheet(CACHE, s) for s in range(args.seed, args.seed + args.count))]
    files += [(p.name, p.read_bytes()) for p in sorted(SAMPLES.iterdir()) if not p.name.endswith(".json")]
    load_ms: dict[str, list[float]] = defaultdict(list)
    blank_ms: dict[str, list[float]] = defaultdict(list)
    for name, data in files:
        fmt = name.rsplit(".", 1)[-1].lower()
        runs, checks = [], []
        for _ in range(args.repeats):
            c0 = time.process_time()
            pages = load_pages(name, data=data, name=name)
            runs.append(time.process_time() - c0)
            c0 = time.process_time()
            for page in pages:
                is_blank(page)
            checks.append(time.process_time() - c0)
        load_ms[fmt].append(1000 * statistics.median(runs))
        blank_ms[fmt].append(1000 * statistics.median(checks))
    print(f"{len(files)} files (seeds {args.seed}..{args.seed + args.count - 1} and samples/scans), "
          f"median of {args.repeats} loads each\n")
    print("| format | files | load_pages, CPU ms per file, median (max) | is_blank, CPU ms per file, median |")
    print("|---|---:|---:|---:|")
    for fmt in sorted(load_ms):
        ms = load_ms[fmt]
        print(f"| {fmt} | {len(ms)} | {statistics.median(ms):.1f} ({max(ms):.1f}) | {statistics.median(blank_ms[fmt]):.1f} |")
    every = [m for ms in load_ms.values() for m in ms]
    checks = [m for ms in blank_ms.values() for m in ms]
    print(f"| all | {len(every)} | {statistics.median(every):.1f} ({max(every):.1f}) | {statistics.median(checks):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
