"""Phone photos through the whole read: where the written numbers that come out wrong go wrong.
For each written (non-zero) number of the deals a photo shows and the glare does not wash out
(bench_photo.py's "numbers right"), on photos whose table is found: right, or

- ``named missing``: its cell is in the table's missing list (under glare, too faint), not read;
- ``not cut``: no cell for it (and not named missing);
- ``read blank``: the reader found nothing written there, and the reconciliation did not fill it;
- ``misread, kept``: the reader's best reading is wrong and the reconciled sheet gives it;
- ``misread, changed wrong``: the reader's best is wrong and the reconciliation put another wrong
  value;
- ``read right, changed``: the reader's best is right and the reconciliation changed it;
- ``filled wrong``: named missing / blank / not cut, and the reconciliation put a wrong value.

(A number whose reading was wrong and which the reconciliation set right counts right.)  Each is
also counted by how the output shows it (``shown``): ``right``; ``asked``, wrong but the sheet asks
about it (a review item or a flag on its cell, or named missing); ``silent``, wrong and shown as sure
-- what the organiser must never get; and by the confidence shown (>= 0.95, 0.5-0.95, < 0.5), how
many are right: is the shown probability honest (also for the numbers in review on photos sent back
for another, RescanSettings.sent_back_confidence).  Counted
separately for photos cut right (bench_photo.py's cut_right) and those found but cut wrong; the
photos cut right also by how many photo pixels their rows of writing got (``cell_px``: the median
short side of the truth's number cells in the photo; ``--px-bands``), since a far, blurred sheet's
writing is a few pixels high whatever the reader does.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo_numbers.py DIR [DIR ...] [--json OUT.json]
        [--px-bands 16,20] [--small-writing-px PX]

``--small-writing-px 0`` reads as before the small-writing check (ocr/legible.py) for a before/after
from one tree; ``--faint-unread-share 1.01`` as before its "too faint or blurred" rule.  Right numbers
that are in review anyway (the review's cost) are counted too, and the written numbers in review a
photo (median, 90th percentile): the organiser's load.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from cli import one_core  # noqa: E402

one_core()  # one thread for OpenCV and OpenMP, as the product reads (before they load)
sys.path.insert(0, str(ROOT / "bench"))

from bench.confidence import calibration, tally  # noqa: E402
from ocr.data import InputError  # noqa: E402
from ocr.load import load_pages  # noqa: E402
from ocr.page import straighten  # noqa: E402
from ocr.settings import GeometrySettings, ReaderSettings  # noqa: E402
from ocr.table import find_table  # noqa: E402

NUMBER_KEYS = ("ns", "ew", "cum_ns", "cum_ew")


def cell_px(truth: dict) -> float | None:
    """How many photo pixels a row of writing got: the median short side of the truth's number
    cells' outlines in the photo (None: the truth has no cell outlines)."""
    sides = sorted(min(math.dist(q[0], q[1]), math.dist(q[1], q[2]))
                   for q in (c["quad"] for c in truth.get("cells", []) if c.get("key") in NUMBER_KEYS))
    return sides[len(sides) // 2] if sides else None


def by_size(results: list[dict], bands: list[float]) -> list[tuple[str, int, int, int, int, int]]:
    """The photos cut right, by ``cell_px`` between ``bands``' edges: (band, photos, written
    numbers, right, wrong but asked, wrong and shown as sure) per band (photos without a size left
    out)."""
    edges = [0.0, *bands, math.inf]
    out = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        rs = [r for r in results if r["found"] and r["right"] and r.get("cell_px") is not None
              and lo <= r["cell_px"] < hi]
        name = f"< {hi:g} px" if lo == 0 else f">= {lo:g} px" if math.isinf(hi) else f"{lo:g}-{hi:g} px"
        out.append((name, len(rs), sum(sum(r["numbers"].values()) for r in rs),
                    sum(r["numbers"].get("right", 0) for r in rs),
                    sum(r.get("shown", {}).get("asked", 0) for r in rs),
                    sum(r.get("shown", {}).get("silent", 0) for r in rs)))
    return out


def classify(path: Path, truth: dict, settings: GeometrySettings,
             reader: ReaderSettings | None = None) -> dict:
    """One photo: found, cut right, and each written number's class."""
    import bench_photo as bp

    from ocr.read import read_table
    from scoring.reconcile import reconcile

    try:
        table = find_table(straighten(load_pages(path)[0], settings), settings)
    except InputError:
        return {"source": path.name, "found": False, "right": False, "numbers": {}}
    right, why = bp.cut_right(table, truth)
    reading = read_table(table, settings=reader or ReaderSettings())
    sheet = reconcile(reading, explain=False).to_json()
    out = numbers(truth, table, reading, sheet)
    out.update({"source": path.name, "found": True, "right": right, "why": why, "cell_px": cell_px(truth)})
    return out


def asked_cells(sheet: dict) -> set[tuple[int, str]]:
    """The (deal, column) cells the reconciled ``sheet`` (its JSON) asks about: a review item or a
    flag on the cell (a flag naming a side but no column: that side's score and cumulative)."""
    out = {(r["deal"], r["column"]) for r in sheet["review"] if r.get("deal") is not None}
    for f in sheet["flags"]:
        if f.get("deal") is None:
            continue
        if f.get("column") in NUMBER_KEYS:
            out.add((f["deal"], f["column"]))
        elif f.get("side") in ("ns", "ew"):
            out |= {(f["deal"], f["side"]), (f["deal"], "cum_" + f["side"])}
    return out


def numbers(truth: dict, table, reading, sheet: dict) -> dict:
    """Each written number the photo shows: its class (the module's list) under "numbers", how the
    output shows it under "shown", and the wrong ones under "wrong"."""
    got = {r["deal"]: r for r in sheet["rows"]}
    read = {r.deal: r.cells for r in reading.rows}
    missing = {(d, k) for m in table.missing for d in m.deals for k in m.keys}
    cut = {(c.row, c.key) for c in table.cells}
    shown = set(truth["visible_deals"]) - set(truth["glare_deals"])
    out: Counter = Counter()
    seen: Counter = Counter()
    conf: Counter = Counter()  # by the confidence shown (bench/confidence.py)
    asked = asked_cells(sheet)
    wrong = []
    for want in truth["rows"]:
        deal = want["deal"]
        if deal not in shown:
            continue
        for key in NUMBER_KEYS:
            if not want[key]:
                continue
            final = got.get(deal, {}).get(key)
            cell = read.get(deal, {}).get(key)
            best = None if cell is None or cell.blank else cell.best
            if final == want[key]:
                cls = "right"
            elif (deal, key) in missing:
                cls = "named missing" if final is None else "filled wrong"
            elif (str(deal), key) not in cut:
                cls = "not cut" if final is None else "filled wrong"
            elif best is None:
                cls = "read blank" if final in (None, 0) else "filled wrong"
            elif best == want[key]:
                cls = "read right, changed"
            else:
                cls = "misread, kept" if final == best else "misread, changed wrong"
            out[cls] += 1
            how = ("right" if cls == "right" else
                   "asked" if (deal, key) in asked or (deal, key) in missing else "silent")
            seen[how] += 1
            if cls == "right" and (deal, key) in asked:
                seen["right, asked"] += 1  # what the review costs: a right number a person checks
            if cls != "right":
                wrong.append([deal, key, want[key], best, final, cls, how])
            if final is not None:  # the confidence shown against the truth: calibration
                p = got[deal].get("confidence", {}).get(key, 0.0)
                tally(conf, "all", p, cls == "right")
                if (deal, key) in asked and sheet.get("rescan"):
                    tally(conf, "in review, sent back", p, cls == "right")
    return {"numbers": dict(out), "shown": dict(seen), "wrong": wrong, "confidence": dict(conf)}



def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dirs", type=Path, nargs="+")
    p.add_argument("--json", type=Path)
    p.add_argument("--px-bands", default="16,20", help="cell_px band edges for the photos cut right")
    p.add_argument("--small-writing-px", type=float, default=None,
                   help="ReaderSettings.small_writing_px (0: off; default: the settings')")
    p.add_argument("--faint-unread-share", type=float, default=None,
                   help="ReaderSettings.faint_unread_share (1.01: off; default: the settings')")
    args = p.parse_args(argv)
    from ocr import tess
    from ocr.ensemble import default_net

    tess.backend()
    default_net()
    settings = GeometrySettings()
    reader = ReaderSettings(**{k: v for k, v in (("small_writing_px", args.small_writing_px),
                                                   ("faint_unread_share", args.faint_unread_share)) if v is not None})
    results = []
    for d in args.dirs:
        for tp in sorted(d.glob("*.truth.json")):
            truth = json.loads(tp.read_text())
            r = classify(d / truth["source"], truth, settings, reader)
            r["dir"] = d.name
            results.append(r)
            print(f"{d.name}/{r['source']}: right={r['right']} {r['numbers']}", flush=True)
    for name, want in (("cut right", True), ("found, cut wrong", False)):
        rs = [r for r in results if r["found"] and r["right"] == want]
        total = Counter()
        for r in rs:
            total.update(r["numbers"])
        n = sum(total.values())
        seen, conf = Counter(), Counter()
        for r in rs:
            seen.update(r.get("shown", {}))
            conf.update(r.get("confidence", {}))
        print(f"\n{name}: {len(rs)} photos, {n} written numbers, right {total['right']} "
              f"({100.0 * total['right'] / max(1, n):.1f} %; {seen['right, asked']} of them in review); "
              f"wrong but asked {seen['asked']}, wrong and shown as sure {seen['silent']}")
        # the organiser's load: the written numbers a photo's review asks about, right or wrong
        load = sorted(r.get("shown", {}).get("asked", 0) + r.get("shown", {}).get("right, asked", 0) for r in rs)
        if load:
            print(f"  numbers in review a photo: median {statistics.median(load):g}, "
                  f"90th percentile {load[math.ceil(0.9 * len(load)) - 1]}")
        print(f"  written numbers shown, right by the confidence shown: {calibration(conf, 'all')}")
        print(f"    those in review on photos sent back: {calibration(conf, 'in review, sent back')}")
        for cls, k in total.most_common():
            if cls != "right":
                print(f"  {k:5d}  {cls}  (photos: {sum(1 for r in rs if r['numbers'].get(cls))})")
    print("\ncut right, by photo pixels per row of writing (cell_px):")
    for name, photos, n, right, asked, silent in by_size(results, [float(v) for v in args.px_bands.split(",")]):
        print(f"  {name:>12}: {photos} photos, {n} written numbers, right {right} ({100.0 * right / max(1, n):.1f} %),"
              f" wrong but asked {asked}, wrong and shown as sure {silent} ({100.0 * silent / max(1, n):.1f} %)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
