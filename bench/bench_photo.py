"""Phone photos (samples/photo.py) through the whole product: table found and cut right, written
numbers right after reconciliation, what is missing reported, CPU and memory.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo.py [--per-condition 20] [--seed 900000]
        [--span wide] [--geometry-only] [--files DIR] [--write bench/RESULTS-photo.md]

Photos are written to bench/_work/photo/<span>-<seed>/ first, in a child process (generation does
not count towards time or memory): for each condition of samples.photo.CONDITIONS and for
"combined", --per-condition photos.  The geometry was tuned on seeds 1000-1999 of the "tune" span;
the default here (seeds from 3000000, span "wide") is held out on both counts.

Per photo:
- found: a table was found;
- right: every cell of every deal the photo shows (truth ``visible_deals``) is cut and its outline's
  centre lies inside the truth cell, no cell of a deal outside the photo is cut, and the deals
  outside are named in the table's missing list; the cells of a deal the glare touches (truth
  ``glare_touched_deals``) may be cut right or named missing;
- numbers right: of the written (non-zero) numbers of the deals shown and not washed out, those
  the reconciled sheet gives as written (a cell named missing counts as not right);
- CPU seconds (one core): load + straighten + find_table; and the whole read (+ the reader and
  reconciliation without explanations); the process's peak RSS.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from cli import one_core  # noqa: E402

one_core()  # one thread for OpenCV and OpenMP, as the product reads (before they load)

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from ocr import tess  # noqa: E402
from ocr.data import InputError  # noqa: E402
from ocr.far import far_retry  # noqa: E402
from ocr.load import load_pages  # noqa: E402
from ocr.page import straighten  # noqa: E402
from ocr.settings import GeometrySettings  # noqa: E402
from ocr.table import find_table  # noqa: E402
from samples.photo import CONDITIONS  # noqa: E402

NUMBER_KEYS = ("ns", "ew", "cum_ns", "cum_ew")
SETS = CONDITIONS + ("combined",)


def generate(out: Path, per: int, seed: int, span: str) -> list[Path]:
    """The photos' truth files, generated when missing (a child process per condition)."""
    out.mkdir(parents=True, exist_ok=True)
    truths = []
    for k, cond in enumerate(SETS):
        first = seed + 1000 * k
        want = [out / f"photo-{first + i}.truth.json" for i in range(per)]
        if not all(p.exists() for p in want):
            subprocess.run([sys.executable, str(ROOT / "samples" / "photo.py"), "--out", str(out), "--count",
                            str(per), "--seed", str(first), "--span", span, "--condition", cond], check=True,
                           stdout=subprocess.DEVNULL)
        truths += want
    return truths


def cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def evaluate(path: Path, truth: dict, read: bool, settings: GeometrySettings) -> dict:
    """One photo through the product, against its truth."""
    res = {"set": _set_of(truth), "found": False, "right": False, "numbers": 0, "numbers_right": 0,
           "geometry_cpu": None, "cpu": None, "error": None, "missing": [], "why": ""}
    c0 = cpu()
    page = None
    try:
        page = load_pages(path)[0]
        table = find_table(straighten(page, settings), settings)
    except InputError as exc:
        # as the product does (ocr/pipeline.py): a far sheet sought again enlarged, else asked for
        # from closer
        table, far = far_retry(page, str(path), settings) if page is not None else (None, None)
        if table is None:
            res["error"] = str(far or exc)
            return res
    c1 = cpu()
    res["geometry_cpu"] = c1 - c0
    res["found"] = True
    res["missing"] = [m.message for m in table.missing]
    res["right"], res["why"] = cut_right(table, truth)
    if read:
        from ocr.read import read_table
        from scoring.reconcile import reconcile

        sheet = reconcile(read_table(table), explain=False).to_json()
        res["cpu"] = cpu() - c0
        res["numbers"], res["numbers_right"] = numbers_right(sheet, truth, table)
        res["digest"] = output_digest(sheet, table)
    return res


def output_digest(sheet: dict, table) -> str:
    """A digest of everything a read gives out -- every reading with its confidences, flag and review
    item, names, and every cell's cut (its quad) -- so two trees can be shown to read a photo alike."""
    cut = [(c.row, c.key, np.round(np.asarray(c.quad, float), 3).tolist()) for c in table.cells]
    out = {k: v for k, v in sheet.items() if k != "source"}
    return hashlib.sha256(json.dumps([out, cut], sort_keys=True, default=str).encode()).hexdigest()[:16]


def _set_of(truth: dict) -> str:
    if "photo" not in truth:  # samples/photo3d.py's
        return "3-D scenes"
    conds = truth["photo"]["conditions"]
    return conds[0] if len(conds) == 1 else "combined"


def cut_right(table, truth: dict) -> tuple[bool, str]:
    """Whether every cell of the deals shown is cut right (see the module docstring), and why not."""
    visible = set(truth["visible_deals"])
    washed = set(truth.get("glare_touched_deals", truth["glare_deals"]))
    outside = set(truth["outside_deals"])
    missing = {(str(d), k) for m in table.missing for d in m.deals for k in m.keys}
    named_out = {d for m in table.missing if m.reason == m.OUTSIDE for d in m.deals}
    got = {(c.row, c.key): c for c in table.cells if c.row}
    for c in truth["cells"]:
        if not c["row"] or not c["row"].isdigit():
            continue
        deal, key = int(c["row"]), c["key"]
        if deal not in visible:
            if (c["row"], key) in got:
                return False, f"deal {deal} is outside the photo, but cut"
            continue
        cell = got.get((c["row"], key))
        if cell is None:
            if deal in washed and (c["row"], key) in missing:
                continue
            return False, f"cell {deal}/{key} " + ("named missing" if (c["row"], key) in missing else "not cut")
        centre = tuple(float(v) for v in cell.quad.mean(axis=0))
        if cv2.pointPolygonTest(np.array(c["quad"], np.float32), centre, False) < 0:
            return False, f"cell {deal}/{key} cut in the wrong place"
    if not outside <= named_out:
        return False, f"deals {sorted(outside - named_out)} outside the photo not named missing"
    return True, ""


def numbers_right(sheet: dict, truth: dict, table) -> tuple[int, int]:
    """(written numbers of the deals shown and not washed out, of them reconciled as written)."""
    shown = set(truth["visible_deals"]) - set(truth["glare_deals"])
    rows = {r["deal"]: r for r in sheet["rows"]}
    total = right = 0
    for want in truth["rows"]:
        if want["deal"] not in shown:
            continue
        got = rows.get(want["deal"], {})
        for key in NUMBER_KEYS:
            if want[key]:
                total += 1
                right += got.get(key) == want[key]
    return total, right


def pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f} %" if d else "-"


def report(results: list[dict], read: bool) -> str:
    by = defaultdict(list)
    for r in results:
        by[r["set"]].append(r)
    by["**all**"] = results
    head = "| condition | photos | table found | every row and column right | numbers right after reconciliation " \
           "| CPU s/photo median: geometry (whole read) |"
    lines = [head, "|---|---|---|---|---|---|"]
    for name in list(SETS) + ["3-D scenes", "**all**"]:
        rs = by.get(name, [])
        if not rs:
            continue
        geo = [r["geometry_cpu"] for r in rs if r["geometry_cpu"] is not None]
        whole = [r["cpu"] for r in rs if r["cpu"] is not None]
        n, nr = sum(r["numbers"] for r in rs), sum(r["numbers_right"] for r in rs)
        t = f"{statistics.median(geo):.3f}" if geo else "-"
        if whole:
            t += f" ({statistics.median(whole):.3f})"
        lines.append(f"| {name} | {len(rs)} | {pct(sum(r['found'] for r in rs), len(rs))} "
                     f"| {pct(sum(r['right'] for r in rs), len(rs))} | {pct(nr, n) if read else '-'} | {t} |")
    lost = [r for r in results if not r["found"]]
    if lost:
        far = sum("too small in this photo" in (r["error"] or "") for r in lost)
        lines.append(f"\nOf the {len(lost)} photos without a table, {far} told the sheet is too small in the photo "
                     "(\"take the photo closer\").")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--per-condition", type=int, default=20)
    p.add_argument("--seed", type=int, default=3000000, help="first seed (tuning used 1000-3999)")
    p.add_argument("--span", choices=("tune", "wide"), default="wide")
    p.add_argument("--geometry-only", action="store_true", help="no reading and reconciliation")
    p.add_argument("--files", type=Path, help="photos with truth in this folder instead")
    p.add_argument("--scan-path", action="store_true", help="photos straightened as scans (before issue 30)")
    p.add_argument("--write", type=Path, help="also write the markdown here")
    args = p.parse_args(argv)
    if args.files:
        truths = sorted(args.files.glob("*.truth.json"))
        folder = args.files
    else:
        folder = ROOT / "bench" / "_work" / "photo" / f"{args.span}-{args.seed}"
        truths = generate(folder, args.per_condition, args.seed, args.span)
    read = not args.geometry_only
    settings = GeometrySettings(photo_path=not args.scan_path)
    tess.backend()  # an in-process Tesseract starts here, outside the timings
    if read:
        from ocr.ensemble import default_net
        default_net()  # the networks load here, once
    results = []
    t0 = time.time()
    for tp in truths:
        truth = json.loads(tp.read_text())
        r = evaluate(folder / truth["source"], truth, read, settings)
        r["source"] = truth["source"]
        results.append(r)
        if not r["right"]:
            print(f"  {r['source']} ({r['set']}): {r['error'] or r['why']}", file=sys.stderr)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    machine = (f"{platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}, "
               f"OpenCV {cv2.__version__}, Tesseract {tess.backend()}, OMP_THREAD_LIMIT={os.environ.get('OMP_THREAD_LIMIT')}")
    cmd = "OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = (f"{report(results, read)}\n\nPeak RSS of the benchmark process: {rss:.0f} MB.  "
            f"{len(results)} photos in {time.time() - t0:.0f} s wall.\nMachine: {machine}.\nCommand: `{cmd}`\n")
    print(text)
    if args.write:
        args.write.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
