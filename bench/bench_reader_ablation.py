"""Whole product (reader + reconciliation) under different reader settings, on cached tables.

Each generated sheet goes through load -> straighten -> find_table once (the tables are kept in
bench/_work/tables-SEED-COUNT-DIGEST.pkl); then, for every configuration, the cells are read again with
the networks and "none of these" settings asked for, and reconciled (without explanations).
This is how the reader's and reconciliation's changes are compared (bench/RESULTS-reconcile.md).
Example:

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.bench_reader_ablation --seed 70000 --count 180 \\
        --config "current" --config "slope=0,sheet=0" --config "nets=cellnet.npz,slope=0,sheet=0"

A configuration is comma-separated key=value: nets (model files in ocr/models, joined by '+'),
digits (the digit network: a file in ocr/models or a path, "none" to read without it), the
reader's readnone, second, secondbelow, mix, unsure, ensemble and variant (READER_FIELDS below:
fields of ReaderSettings), and reconciliation's settings -- a "group.field" of scoring.reconcile.ReconcileSettings (e.g.
verdicts.flag_at=0.7) or a short name of RECONCILE below (slope, sheet, cap, floor, temp, flag,
copy, total...).  Configurations differing only in reconciliation's settings share one reading of
the cells; "current" is the committed settings.  Beside reconciliation's figures each
configuration's reader alone is counted as bench_read.py counts it (written numbers read exactly;
truth among the first three candidates, "none of these" included), so a network can be judged on
cached tables in minutes.  The last two columns split off the sheets reconciliation sends back
for a rescan (a fax whose ink all but vanished: scoring/reconcile/rescan.py) and count numbers
and planted mistakes on the others.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import math
import pickle
import sys
import types
from pathlib import Path

import cv2

from bench.bench_end_to_end import KeptSheets, flag_is_planted, flagged_right, score_sheet
from bench.bench_read import NUMBER_KEYS, reading_cells, truth_value
from ocr.cellnet import MODEL_PATH, CellNet
from ocr.digitnet import MODEL_PATH as DIGITS_PATH
from ocr.digitnet import DigitNet
from ocr.ensemble import CellReader, default_net
from ocr.pipeline import read_file
from ocr.read import read_table
from ocr.settings import ReaderSettings
from samples.generate import generate_sheet
from scoring.reconcile import ReconcileSettings, reconcile

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "_work"
# short name -> the reconciliation setting it varies ("group.field" of ReconcileSettings; any
# "group.field" may also be given as it is)
RECONCILE = {
    "slope": "trust.none_slope", "sheet": "trust.none_sheet", "cap": "trust.none_sheet_cap",
    "floor": "trust.none_floor", "sureat": "trust.sure_at", "surefloor": "trust.sure_floor",
    "suredoubt": "trust.sure_doubt", "temp": "cells.sheet_temp", "shapepow": "cells.shape_power",
    "flag": "verdicts.flag_at", "copy": "verdicts.copy_flag_at", "total": "verdicts.total_flag_at",
    "scoreflag": "verdicts.score_flag_at", "oversure": "verdicts.overridden_sure",
    "digit": "misread.shape_digit", "lost": "misread.shape_lost", "extra": "misread.shape_extra",
    "swap": "misread.shape_swap", "far": "misread.shape_far", "nearslope": "misread.near_slope",
    "nearpivot": "misread.near_pivot", "nearmin": "misread.near_min", "nearmax": "misread.near_max",
    "costtotal": "decoder.cost_total", "costcum": "decoder.cost_cumulative",
}
# short name -> the ReaderSettings field it sets (configurations differing only in
# reconciliation share readings)
READER_FIELDS = {"readnone": "none_floor", "second": "second_share", "secondbelow": "second_unsure",
                 "mix": "digit_share", "unsure": "digits_unsure", "ensemble": "ensemble_unsure",
                 "variant": "digit_variant_at"}


# the code that makes the cached sheets and tables: a change to any of it makes new caches (a cache
# of old tables would go on measuring the old code)
# (glob patterns from the repository's root; the table finder is a package, ocr/table/)
TABLE_CODE = ("samples/generate.py", "samples/content.py", "samples/fill.py", "samples/hands.py",
              "samples/scan.py", "ocr/form.py", "ocr/load.py", "ocr/page.py", "ocr/table/*.py",
              "ocr/grid.py", "ocr/dewarp.py", "ocr/partial.py", "ocr/settings.py",
              "ocr/cells.py", "ocr/printed.py", "ocr/tess.py", "ocr/pipeline.py", "ocr/data.py",
              "scoring/formspec.py")


def _table_code() -> bytes:
    files = [p for pattern in TABLE_CODE for p in sorted(ROOT.glob(pattern))]
    return b"".join(p.read_bytes() for p in files)


def tables(seed: int, count: int, options=None, tag: str = "") -> list[tuple[int, dict, object]]:
    """(seed, truth, Table or None) for each sheet; the page image is dropped to keep it small.
    ``options`` (seed -> generate_sheet's options; ``tag`` names them in the file name) makes other
    sheets than the generator's defaults.  Kept in bench/_work by the digest of the code that made
    them (TABLE_CODE)."""
    digest = hashlib.sha256(_table_code()).hexdigest()[:12]
    path = WORK / f"tables-{seed}-{count}{'-' + tag if tag else ''}-{digest}.pkl"
    if path.exists():
        with path.open("rb") as fh:
            return pickle.load(fh)
    out = []
    for s in range(seed, seed + count):
        data, truth = generate_sheet(s, **(options(s) if options else {}))
        outcome = next(iter(read_file(f"sheet-{s}", data=data, name=f"sheet-{s}")))
        table = None
        if outcome.ok:
            # the reader asks whether the page was straightened from a photo's lattice (its grid)
            straight = outcome.table.straight
            stub = types.SimpleNamespace(page=types.SimpleNamespace(source=straight.page.source),
                                         grid=straight.grid)
            table = dataclasses.replace(outcome.table, straight=stub)
        out.append((s, truth, table))
        print(f"sheet-{s}: {'table' if table is not None else outcome.error}", file=sys.stderr)
    WORK.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        pickle.dump(out, fh)
    return out


def configure(spec: str) -> tuple[tuple, CellReader, ReconcileSettings]:
    """``spec``'s reader (its settings applied) and reconciliation settings, and the key of its
    readings (nets and the reader's settings; its last item the ReaderSettings to read with)."""
    values = dict(kv.split("=", 1) for kv in spec.split(",") if "=" in kv)
    reader_settings = dataclasses.replace(ReaderSettings(), **{
        field: float(values[name]) for name, field in READER_FIELDS.items() if name in values})
    settings = ReconcileSettings().with_values(
        {RECONCILE.get(name, name): value for name, value in values.items()
         if name not in READER_FIELDS and name not in ("nets", "digits")})
    key = (values.get("nets"), values.get("digits"), reader_settings)
    if "nets" not in values and "digits" not in values:
        return key, default_net(), settings
    nets = default_net().nets if "nets" not in values else \
        tuple(CellNet.load(MODEL_PATH.parent / name) for name in values["nets"].split("+"))
    digits = values.get("digits", DIGITS_PATH.name)
    reader = CellReader(nets, None if digits == "none" else DigitNet.load(MODEL_PATH.parent / digits))
    return key, reader, settings


def reader_code() -> bytes:
    """The reading code: every module of ocr/ and its packages (a change to any of them may change
    a reading)."""
    return b"".join(p.read_bytes() for p in sorted((ROOT / "ocr").rglob("*.py")))


def readings(seed: int, count: int, sheets, key: tuple, reader: CellReader, tag: str = "") -> list:
    """Each sheet's reading under ``key``'s settings, kept in bench/_work (by the networks' digests
    and the "none" settings, the reading code itself -- every module of ocr/ -- and the tables'
    code) so that reconciliation-only configurations take seconds, not minutes."""
    code = reader_code() + _table_code()
    digest = hashlib.sha256(repr((reader.version,) + key[1:]).encode() + code).hexdigest()[:12]
    path = WORK / f"readings-{seed}-{count}{'-' + tag if tag else ''}-{digest}.pkl"
    if path.exists():
        with path.open("rb") as fh:
            return pickle.load(fh)
    out = [None if table is None else read_table(table, net=reader, settings=key[-1]) for _, _, table in sheets]
    with path.open("wb") as fh:
        pickle.dump(out, fh)
    return out


# A planted mistake is legible when the reader reads what the players wrote there this sure
LEGIBLE_AT = 0.9


def legible(mistake: dict, cells: dict) -> bool | None:
    """Did the reader read the players' mistake as written, at least LEGIBLE_AT sure: the wrong
    number or dealer letter (its best candidate), the Total row's wrong total, every number cell of
    a row left empty read blank?  None for a winners line (read by Tesseract, no probability)."""
    kind, deal = mistake["kind"], str(mistake.get("deal"))
    if kind == "winner":
        return None
    if kind == "missing_deal":
        found = [cells.get((deal, key)) for key in NUMBER_KEYS]
        return all(c is not None and c.best == 0 and c.candidates[0][1] >= LEGIBLE_AT for c in found)
    if kind == "total":
        cell = cells.get(("total", f"cum_{mistake['side']}"))
    else:
        cell = cells.get((deal, mistake["column"]))
    return cell is not None and cell.best == mistake["written"] and cell.candidates[0][1] >= LEGIBLE_AT


def measure(sheets, readings: list, settings: ReconcileSettings,
            details: bool = False) -> dict[str, object]:
    numbers = right = planted = caught = clean = clean_flagged = exact = read = review = 0
    flags = flags_planted = 0
    by_legible = {True: [0, 0], False: [0, 0], None: [0, 0]}  # legible -> [planted, flagged]
    nll = written = 0.0
    number_cells = in_top3 = written_right = 0  # the reader alone, as bench_read.py counts them
    kept = KeptSheets()
    for (seed, truth, table), reading in zip(sheets, readings, strict=True):
        if table is None:
            continue
        cells = reading_cells(reading)
        for c in truth["cells"]:
            if c["key"] not in NUMBER_KEYS:
                continue
            cell = cells.get((c["row"], c["key"]))
            want = truth_value(c["key"], c["text"])
            number_cells += 1
            in_top3 += cell is not None and want in [v for v, _ in cell.candidates[:3]]
            if c["text"].strip().isdigit() and cell is not None:
                # how probable the reader found the truth of each written number
                probs = dict(cell.candidates)
                p = probs.get(want, probs.get(None, 0.0))
                nll -= math.log(max(p, 1e-6))
                written += 1
                written_right += cell.best == want
        obj = reconcile(reading, settings=settings, explain=False).to_json()
        score = score_sheet(obj, truth)
        if details and (score.caught < score.planted or score.flags_planted < score.flags):
            _explain(seed, truth, obj)
        for m in truth["mistakes"]:
            tally = by_legible[legible(m, cells)]
            tally[0] += 1
            tally[1] += flagged_right(m, obj["flags"])
        kept.add(obj, score)
        read += 1
        review += len(obj["review"])
        numbers += score.numbers
        right += score.numbers_right
        exact += score.exact
        planted += score.planted
        caught += score.caught
        clean += score.mistake_free
        clean_flagged += score.mistake_free and score.flagged
        flags += score.flags
        flags_planted += score.flags_planted
    return {"sheets": read, "numbers": right / max(numbers, 1), "caught": caught, "planted": planted,
            "clean_flagged": clean_flagged, "clean": clean, "exact": exact / max(read, 1),
            "review": review / max(read, 1), "nll": nll / max(written, 1),
            "read_written": written_right / max(written, 1), "top3": in_top3 / max(number_cells, 1),
            "legible": by_legible[True], "illegible": by_legible[False],
            "flags": flags, "flags_planted": flags_planted, "kept": kept}


def _explain(seed: int, truth: dict, obj: dict) -> None:
    """One line per planted mistake missed and per flag on a mistake-free sheet."""
    for m in truth["mistakes"]:
        if not flagged_right(m, obj["flags"]):
            # a Total-row doubt is kept at the last deal, its reason names the Total row
            near = [r for r in obj["review"] if r.get("deal") == m.get("deal")
                    or (m.get("deal") is None and m["kind"] in r.get("reason", "").lower())]
            print(f"  {seed} missed {m['kind']} deal {m.get('deal')} ({truth['hand']}, {truth['scan']}); "
                  f"{'in review' if near else 'not in review'}", file=sys.stderr)
    for f in obj["flags"]:
        if not flag_is_planted(f, truth):
            print(f"  {seed} false {f['kind']} deal {f.get('deal')} {f.get('side')} written {f.get('written')} "
                  f"expected {f.get('expected')} ({truth['hand']}, {truth['scan']})", file=sys.stderr)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--config", action="append", default=[], help="see the module docstring")
    ap.add_argument("--details", action="store_true", help="print each missed mistake and false flag (stderr)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    sheets = tables(args.seed, args.count)
    print(f"{len(sheets)} generated sheets, seeds {args.seed}..{args.seed + args.count - 1}\n")
    print("| configuration | numbers right | planted flagged | mistake-free sheets flagged | sheets exact | review items per sheet"
          " | truth's NLL (written cells) | reader alone: written numbers | truth in top 3"
          f" | planted flagged: read as written >= {LEGIBLE_AT} / less sure | flags naming a planted mistake"
          " | sheets sent back for a rescan | the others: numbers right, planted flagged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    cache: dict[tuple, list] = {}  # configurations that differ only in the flag thresholds share readings
    for spec in args.config or ["current"]:
        key, reader, settings = configure(spec)
        if key not in cache:
            cache[key] = readings(args.seed, args.count, sheets, key, reader)
        m = measure(sheets, cache[key], settings, args.details)
        print(f"| {spec} | {100 * m['numbers']:.2f} % | {m['caught']}/{m['planted']} |"
              f" {m['clean_flagged']}/{m['clean']} | {100 * m['exact']:.1f} % | {m['review']:.2f} | {m['nll']:.4f} |"
              f" {100 * m['read_written']:.2f} % | {100 * m['top3']:.2f} % |"
              f" {m['legible'][1]}/{m['legible'][0]} / {m['illegible'][1]}/{m['illegible'][0]} |"
              f" {m['flags_planted']}/{m['flags']} | {m['kept'].rescans} |"
              f" {100 * m['kept'].numbers_right / max(m['kept'].numbers, 1):.2f} %, {m['kept'].caught}/{m['kept'].planted} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
