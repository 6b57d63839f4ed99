"""Benchmark the geometry stage (straighten + find_table) against generated ground truth.

    OMP_THREAD_LIMIT=1 .venv/bin/python -m bench.bench_geometry [--count 100] [--seed 50000]
        [--files DIR] [--write bench/RESULTS-geometry.md]

Sheets come from samples/generate.py (written to bench/_work/geometry first, in a child
process, so generation does not count towards memory), or from --files DIR (any folder
of sheets with *.truth.json beside them).  Per scan kind it reports: table found %,
every row and column assigned right % (each cell's quad centre inside the truth quad of
the same row/key, no cell missing or extra), residual skew of the truth rows on the
straight image, seconds per sheet for this stage (wall and CPU including Tesseract),
the names/winners texts read exactly, and the process's peak RSS.

Tesseract runs in-process (tesserocr) when installed, started once before the timed
sheets; ``RUBBERSCAN_TESSERACT=pytesseract`` measures the one-process-per-sheet path.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from cli import one_core  # noqa: E402

one_core()  # one thread for OpenCV and OpenMP (Tesseract), as the product reads

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from ocr import tess  # noqa: E402
from ocr.data import InputError  # noqa: E402
from ocr.load import load_pages  # noqa: E402
from ocr.page import straighten  # noqa: E402
from ocr.table import find_table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def generate(out: Path, count: int, seed: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    have = sorted(out.glob("*.truth.json"))
    if len(have) >= count and all((out / f"sheet-{s}.truth.json").exists()
                                  for s in range(seed, seed + count)):
        return
    subprocess.run([sys.executable, str(ROOT / "samples" / "generate.py"), "--out", str(out),
                    "--count", str(count), "--seed", str(seed)], check=True)


def _cpu() -> tuple[float, float, float]:
    """CPU seconds used so far by this process, by its (Tesseract) children, and by the
    in-process Tesseract (tesserocr; part of the first figure)."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime, tess.STATS["cpu"]


def evaluate(path: Path, truth: dict) -> dict:
    """Run the stage on one sheet; compare with its truth."""
    res = {"kind": truth.get("scan", "?"), "layout": truth.get("layout", "?"), "found": False,
           "right": False, "fields": False, "texts": [], "skew": None, "wall": None, "cpu": None, "tess": None,
           "error": None}
    try:
        pages = load_pages(path)
    except InputError as exc:
        res["error"] = f"load: {exc}"
        return res
    page = pages[truth.get("page", 0)]
    t0, c0 = time.perf_counter(), _cpu()
    try:
        straight = straighten(page)
        table = find_table(straight)
    except InputError as exc:
        res["error"] = str(exc)
        return res
    c1 = _cpu()
    res["wall"], res["cpu"] = time.perf_counter() - t0, c1[0] - c0[0] + c1[1] - c0[1]
    res["tess"] = c1[1] - c0[1] + c1[2] - c0[2]
    res["found"] = True
    # the truth is on the generated image; a PDF page is rendered at its own resolution
    tw, th = truth.get("image_size") or (page.image.shape[1], page.image.shape[0])
    sx, sy = page.image.shape[1] / tw, page.image.shape[0] / th
    want = {(c["row"], c["key"]): np.array(c["quad"], np.float32) * np.float32([sx, sy])
            for c in truth["cells"] if c["row"]}
    got = {(c.row, c.key): c for c in table.cells if c.row}
    wrong = [k for k, c in got.items() if k not in want or cv2.pointPolygonTest(
        want[k], tuple(float(v) for v in c.quad.mean(axis=0)), False) < 0]
    missing = [k for k in want if k not in got]
    res["right"] = not wrong and not missing
    res["wrong"], res["missing"] = wrong[:5], missing[:5]
    fields = {c["key"]: np.array(c["quad"], np.float32) * np.float32([sx, sy])
              for c in truth["cells"] if not c["row"]}
    found = {c.key: c for c in table.cells if not c.row}
    res["fields"] = all(k in found and cv2.pointPolygonTest(
        found[k].quad, tuple(float(v) for v in q.mean(axis=0)), False) >= 0 for k, q in fields.items())
    want_text = {"names_ns": (truth.get("names") or {}).get("ns"),
                 "names_ew": (truth.get("names") or {}).get("ew"), "winners": truth.get("winners_text")}
    got_text = table.texts or {}
    res["texts"] = [_same_text(got_text.get(k), v) for k, v in want_text.items() if v]
    inv = np.linalg.inv(straight.to_original)
    angles = []
    for q in want.values():
        p = cv2.perspectiveTransform(q[None].astype(np.float64), inv)[0]
        angles.append(math.degrees(math.atan2(p[1][1] - p[0][1], p[1][0] - p[0][0])))
    res["skew"] = abs(float(np.median(angles)))
    return res


def _same_text(got: str | None, want: str) -> bool:
    """Whether a names/winners text was read as written (letters and digits, any case)."""
    def key(t: str) -> str:
        return "".join(ch for ch in t.lower() if ch.isalnum())
    return got is not None and key(got) == key(want)


def pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f} %" if d else "-"


def report(results: list[dict]) -> str:
    kinds = defaultdict(list)
    for r in results:
        kinds[r["kind"]].append(r)
    kinds["**all**"] = results
    lines = ["| scan kind | sheets | table found | rows+columns all right | text fields right "
             "| names/winners read exactly | skew median / max (deg) "
             "| s/sheet: wall median (CPU, of it Tesseract) |",
             "|---|---|---|---|---|---|---|---|"]
    for kind, rs in sorted(kinds.items(), key=lambda kv: (kv[0] == "**all**", kv[0])):
        skews = [r["skew"] for r in rs if r["skew"] is not None]
        walls = [r["wall"] for r in rs if r["wall"] is not None]
        cpus = [r["cpu"] for r in rs if r["cpu"] is not None]
        tess = [r["tess"] for r in rs if r["tess"] is not None]
        sk = f"{statistics.median(skews):.3f} / {max(skews):.3f}" if skews else "-"
        tm = (f"{statistics.median(walls):.3f} ({statistics.median(cpus):.3f}, "
              f"{statistics.median(tess):.3f})" if walls else "-")
        lines.append(f"| {kind} | {len(rs)} | {pct(sum(r['found'] for r in rs), len(rs))} "
                     f"| {pct(sum(r['right'] for r in rs), len(rs))} "
                     f"| {pct(sum(r['fields'] for r in rs), len(rs))} "
                     f"| {pct(sum(sum(r['texts']) for r in rs), sum(len(r['texts']) for r in rs))} "
                     f"| {sk} | {tm} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--seed", type=int, default=50000, help="first seed (tests use others)")
    p.add_argument("--files", type=Path, help="use the sheets in this folder instead")
    p.add_argument("--write", type=Path, help="also write the markdown section here")
    args = p.parse_args(argv)
    folder = args.files or ROOT / "bench" / "_work" / "geometry"
    if not args.files:
        generate(folder, args.count, args.seed)
        truths = [folder / f"sheet-{s}.truth.json" for s in range(args.seed, args.seed + args.count)]
    else:
        truths = sorted(folder.glob("*.truth.json"))
    c0 = time.process_time()
    engine = tess.backend()  # an in-process engine starts here, once, outside the timings
    started = time.process_time() - c0
    results = []
    for tp in truths:
        truth = json.loads(tp.read_text())
        r = evaluate(folder / truth["source"], truth)
        r["source"] = truth["source"]
        results.append(r)
        if not r["right"]:
            print(f"  {r['source']} ({r['kind']}, {r['layout']}): "
                  f"{r['error'] or 'wrong ' + str(r.get('wrong')) + ' missing ' + str(r.get('missing'))}",
                  file=sys.stderr)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table = report(results)
    machine = (f"{platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}, "
               f"OpenCV {cv2.__version__}, OMP_THREAD_LIMIT={os.environ.get('OMP_THREAD_LIMIT')}")
    text = (f"{table}\n\nPeak RSS of the benchmark process: {rss_mb:.0f} MB "
            f"(loading, straightening and table finding of {len(results)} sheets, one process).\n"
            f"Machine: {machine}.\n"
            f"Tesseract: {engine}"
            + (f" (in-process, started once per process: {started:.3f} s CPU, not in the "
               "per-sheet figures)" if engine == "tesserocr" else " (one process per sheet)")
            + ".\n")
    print(text)
    if args.write:
        forced = os.environ.get(tess.ENV)
        cmd = ((f"{tess.ENV}={forced} " if forced else "") + "OMP_THREAD_LIMIT=1 .venv/bin/python "
               "bench/bench_geometry.py " + " ".join(argv or sys.argv[1:]))
        args.write.write_text(f"## Geometry (load excluded from timings): straighten + find_table\n\n"
                              f"Command: `{cmd}`\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
