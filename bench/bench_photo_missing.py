"""Phone photos whose table is found: every cell the geometry names missing (under glare, too faint)
against the truth, with what ocr/table/missing.py measured on it -- so the cells named missing that
a person could read can be told from those really gone, and looked at.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo_missing.py DIR [DIR ...] [--json OUT.json]
        [--crops OUTDIR] [--set FIELD=VALUE ...]

Per named cell: the photo, deal and column, the reason given, the truth's verdict on the deal
(``gone``: in ``glare_deals``, must be named; ``edge``: in ``glare_touched_deals`` only, either
way right; ``readable``: must be read), the cell's ruling contrast as a share of the table's
median, the share of it burnt out (every channel >= GeometrySettings.glare_level), and its writing's
contrast (missing.py ``_ink_contrast``).  With --crops, each cell named missing where the truth
calls it readable or edge is saved as PNG for a person to look at: the straightened photo's darkest
channel (StraightPage.image, the light not divided out), a third of a row around the cell, as it is and (below) its
grey levels stretched to the full range, three times enlarged.  The
summary counts photos found but failing, by their first failure, and named cells by class.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import ocr.table as table_mod  # noqa: E402
from ocr.data import InputError, Missing  # noqa: E402
from ocr.load import load_pages  # noqa: E402
from ocr.page import straighten  # noqa: E402
from ocr.settings import GeometrySettings  # noqa: E402
from ocr.table import missing as missing_mod  # noqa: E402


def probe(path: Path, truth: dict, settings: GeometrySettings, crops: Path | None) -> dict:
    """One photo: found / cut right and why, and each cell named missing with its measures."""
    import bench_photo as bp

    seen = {}
    real = missing_mod.faded_cells

    def recorder(straight, grey, rows, labels, order, s):
        out = real(straight, grey, rows, labels, order, s)
        seen.update(straight=straight, grey=grey, rows=rows, labels=labels, order=order, out=out)
        return out

    table_mod.faded_cells = recorder
    try:
        table = table_mod.find_table(straighten(load_pages(path)[0], settings), settings)
    except InputError as exc:
        return {"source": path.name, "found": False, "why": str(exc), "cells": []}
    finally:
        table_mod.faded_cells = real
    right, why = bp.cut_right(table, truth)
    res = {"source": path.name, "found": True, "right": right, "why": why, "cells": []}
    if not seen or not seen["out"]:
        return res
    gone, touched = set(truth["glare_deals"]), set(truth.get("glare_touched_deals", truth["glare_deals"]))
    straight, grey, rows, labels, order = (seen[k] for k in ("straight", "grey", "rows", "labels", "order"))
    contrast = np.array([[missing_mod._ruling_contrast(grey, b) for b in row[1:]] for row in rows])
    typical = float(np.median(contrast))
    raw = missing_mod._raw_grey(straight)
    bright = None if raw is None else raw >= settings.glare_level
    for r, (row, label) in enumerate(zip(rows, labels, strict=True)):
        for c, (b, key) in enumerate(zip(row[1:], order, strict=True)):
            reason = seen["out"].get((label, key))
            if reason is None or reason == Missing.OUTSIDE or not label.isdigit():
                continue
            deal = int(label)
            verdict = "gone" if deal in gone else "edge" if deal in touched else "readable"
            cell = {"deal": deal, "key": key, "reason": reason, "truth": verdict,
                    "ruling_share": round(float(contrast[r, c]) / max(typical, 1e-6), 3),
                    "burnt": None if bright is None else round(missing_mod._share(bright, b), 3),
                    "ink": None if raw is None else round(missing_mod._ink_contrast(raw, b), 1),
                    "text": next((t["text"] for t in truth["cells"] if t["row"] == label and t["key"] == key), None)}
            res["cells"].append(cell)
            if crops is not None and raw is not None and verdict != "gone":
                h = b.y1 - b.y0
                img = straight.image
                view = img.min(axis=2) if img.ndim == 3 else img
                part = view[max(0, b.y0 - h // 3):b.y1 + h // 3, max(0, b.x0 - h // 3):b.x1 + h // 3]
                lo, hi = (float(v) for v in np.percentile(part, (0.5, 99.5)))
                stretched = np.clip((part.astype(np.float32) - lo) * 255.0 / max(hi - lo, 1.0), 0, 255)
                big = cv2.resize(np.vstack([part, np.zeros((2, part.shape[1]), np.uint8),
                                            stretched.astype(np.uint8)]), None, fx=3, fy=3,
                                 interpolation=cv2.INTER_NEAREST)
                name = f"{path.stem}-d{deal}-{key}-{verdict}-ink{cell['ink']:.0f}-burnt{cell['burnt']:.2f}.png"
                cv2.imwrite(str(crops / name), big)
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dirs", type=Path, nargs="+")
    p.add_argument("--json", type=Path)
    p.add_argument("--crops", type=Path)
    p.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE",
                   help="GeometrySettings fields to change (e.g. glare_ink_contrast=1e9)")
    args = p.parse_args(argv)
    if args.crops:
        args.crops.mkdir(parents=True, exist_ok=True)
    settings = GeometrySettings(**{k: type(getattr(GeometrySettings, k))(float(v))
                                   for k, v in (a.split("=", 1) for a in args.set)})
    results = []
    for d in args.dirs:
        for tp in sorted(d.glob("*.truth.json")):
            truth = json.loads(tp.read_text())
            r = probe(d / truth["source"], truth, settings, args.crops)
            r["dir"] = d.name
            results.append(r)
            named = [f"{c['deal']}/{c['key']}:{c['truth'][0]}:ink{c['ink']}:b{c['burnt']}" for c in r["cells"]
                     if c["truth"] != "gone"]
            if not r.get("right", False):
                print(f"{d.name}/{r['source']}: {r['why']}  {' '.join(named)}", flush=True)
    found = [r for r in results if r["found"]]
    first = Counter(r["why"].split(" ")[0] + " " + r["why"].split(" ")[-1] if r["why"] else "right" for r in found)
    print(f"\n{len(results)} photos, {len(found)} found; found, by first failure:")
    for k, n in first.most_common():
        print(f"  {n:4d}  {k}")
    cls = Counter((c["reason"], c["truth"]) for r in found for c in r["cells"])
    print("cells named missing, by (reason, truth):")
    for k, n in cls.most_common():
        print(f"  {n:4d}  {k}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
