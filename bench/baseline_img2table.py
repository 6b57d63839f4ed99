"""Baseline: img2table + Tesseract on the same generated sheets as bench_read.py.

Runs in a throw-away venv (img2table is not a project dependency):

    python3 -m venv /tmp/venv-img2table && /tmp/venv-img2table/bin/pip install img2table
    OMP_THREAD_LIMIT=1 /tmp/venv-img2table/bin/python -m bench.baseline_img2table --count 100

Uses the sheets bench_read.py cached in bench/_work/sheets (run that first).  Each truth
cell is matched to the img2table cell containing the centre of its outline; a value is
right when its text, reduced to digits (blank or dash = 0), equals the written number.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import defaultdict
from pathlib import Path

CACHE = Path(__file__).resolve().parent / "_work" / "sheets"
NUMBER_KEYS = ("ns", "ew", "cum_ns", "cum_ew")
BORDERLESS = True  # the printed rulings are often too faint or dashed for ruled-table detection


def value_of(key: str, text: str | None) -> object:
    t = (text or "").strip()
    if key == "dealer":
        t = re.sub(r"[^NESW]", "", t.upper())
        return t or None
    t = t.replace(" ", "")
    if t in ("", "-") or set(t) <= {"-", "—", "_"}:
        return 0
    return int(t) if t.isdigit() else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=50000)
    args = ap.parse_args()
    from img2table.document import PDF, Image
    from img2table.ocr import TesseractOCR

    ocr = TesseractOCR(n_threads=1, lang="eng", psm=6)
    n = defaultdict(int)
    ok = defaultdict(int)
    times = []
    for seed in range(args.seed, args.seed + args.count):
        truth = json.loads((CACHE / f"sheet-{seed}.truth.json").read_text())
        path = CACHE / truth["source"]
        t0 = time.perf_counter()
        doc = PDF(src=str(path)) if path.suffix == ".pdf" else Image(src=str(path))
        try:
            found = doc.extract_tables(ocr=ocr, implicit_rows=True, borderless_tables=BORDERLESS, min_confidence=50)
        except Exception as exc:  # noqa: BLE001 - a baseline failure counts as all wrong
            print(f"{path.name}: {exc}")
            found = []
        if isinstance(found, dict):  # PDF: page -> tables
            found = [t for tables in found.values() for t in tables]
        times.append(time.perf_counter() - t0)
        cells = [c for t in found for row in t.content.values() for c in row]
        for c in truth["cells"]:
            key = c["key"]
            if key not in ("dealer",) + NUMBER_KEYS:
                continue
            q = c["quad"]
            cx, cy = sum(p[0] for p in q) / 4, sum(p[1] for p in q) / 4
            hit = next((x for x in cells if x.bbox.x1 <= cx <= x.bbox.x2 and x.bbox.y1 <= cy <= x.bbox.y2), None)
            got = value_of(key, hit.value if hit else None) if hit else None
            want = value_of(key, c["text"])
            groups = ("all", f"hand={c.get('hand')}", f"scan={truth['scan']}")
            for g in groups:
                if key == "dealer":
                    if want is not None:
                        n[(g, "dealer")] += 1
                        ok[(g, "dealer")] += got == want
                    continue
                n[(g, "cell")] += 1
                ok[(g, "cell")] += got == want
                if c["text"].strip().isdigit():
                    n[(g, "written")] += 1
                    ok[(g, "written")] += got == want
        print(f"{path.name}: {times[-1]:.2f}s, {len(found)} tables", flush=True)
    print(f"\nimg2table {args.count} sheets from seed {args.seed}")
    print("| group | written numbers | all number cells | dealer |")
    print("|---|---|---|---|")
    for g in sorted({g for g, _ in n}, key=lambda k: (k != "all", k)):
        row = []
        for m in ("written", "cell", "dealer"):
            row.append(f"{ok[(g, m)] / n[(g, m)]:.4f} ({ok[(g, m)]}/{n[(g, m)]})" if n[(g, m)] else "-")
        print(f"| {g} | " + " | ".join(row) + " |")
    print(f"\nseconds per sheet: median {statistics.median(times):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
