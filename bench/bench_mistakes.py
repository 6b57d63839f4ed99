"""Every players' mistake shown at its deal: issue 33's three figures on generated sheets.

    OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 python -m bench.bench_mistakes [--ranges dev,held-out]
        [--config SPEC ...] [--details] [--cached RANGE=TABLES:READINGS] [--leave-out JSON]
        [--redraw JSON [--redrawn TABLES:READINGS]] [--reread JSON]

Each range named is reported on its own, then all of them together.  ``--tree DIR`` reconciles
the same cached readings with the code of another checkout (``git archive COMMIT | tar -x -C
DIR``), its second look included, for a before/after; its review items, from before they carried a ``kind``, count as naming
a mistake when they are at its place and say more than "unsure reading" or "blank?".

The sheets: the generator's every kind of planted mistake (samples.content.ALL_MISTAKES, the carry
slip and the score in the wrong column among them) on half the sheets, a quarter of those with two;
on 30 % of sheets the players write only the first deal's dealer; every scan kind, hand and ink
as the generator draws them.  Each range's tables and readings are made once and kept in
bench/_work by the digest of the code that made them (bench_reader_ablation.tables / readings), so
after a change to the reader the same command reads the sheets again, and after a change to
reconciliation it takes a minute or two.  Each sheet is reconciled as ocr.pipeline.read_results
does it: before a number becomes a flag the second reader looks again at the cells it rests on, in
the cached table's cell images (ocr/look.py); its CPU time is reported apart from
reconciliation's.  A configuration (``--config``) is
bench_reader_ablation's: "current", or reconciliation settings such as verdicts.flag_at=0.7.

What is counted, per kind of mistake and per scan kind:
- shown: the planted mistake is flagged at its deal, or a review item at its place names an
  inconsistency there (it has a ``kind``: "a misread or the players' mistake", a reading the
  arithmetic overrode, a number a flag rests on, an empty row, the Total row or the winners line
  in question) -- the issue's "nothing missed"; a flag of
  another kind at its deal (the inconsistency there, seen through a misread cell: a score read
  without its first digit flagged as a wrong cumulative) is counted apart, and is not a flag that
  names a real mistake;
- legible: the reader read every cell the inconsistency rests on as written, at least
  LEGIBLE_AT sure (the mistaken cell, the score and cumulatives its check uses; a winners line:
  read as the pair it names, and the last cumulatives) -- of those, how many are flagged;
- mistake-free sheets with any flag; flags that name a planted mistake (or the winners line a
  planted slip made wrong); review items per sheet (median, 90th percentile) per scan kind and on
  clean scans per hand; numbers right after reconciliation; sheets read exactly (a dealer the
  players did not write counts right when the row shows the rotation's, marked inferred);
  reconciliation's CPU time per sheet; of the planted mistakes not shown, how many are on a sheet
  the tool sent back for a rescan (its writing unreadable in the scan: still counted as missed);
  the flags that name no planted mistake by cause, a "sure misread" being a numbers flag whose own
  cell the reader read at least SURE_MISREAD_AT sure as a value not written (the reader's to fix:
  no arithmetic tells it from the players' slip).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import cv2

from bench import bench_reader_ablation as ablation
from bench import confidence as conf_bands
from bench.bench_end_to_end import flag_is_planted, flagged_right, score_sheet
from bench.bench_read import NUMBER_KEYS, reading_cells, truth_value
from ocr.look import second_look
from samples.content import ALL_MISTAKES
from scoring.reconcile import reconcile

# (first seed, sheets) per cache file; "dev" is what reconciliation was tuned on, "held-out" was
# not looked at until the end of one round (and has been looked at since), "held-out-2" is the
# next round's range never looked at before its end, "held-out-3" the one after that, "held-out-4"
# the next, "held-out-5" one to tune on sheet by sheet, "held-out-6", "held-out-7" and "held-out-8"
# ones measured before and after only, "held-out-9" measured by the lead at the end of stop 47,
# "held-out-10" (240000+: 230000+ are faxes) one only the lead measures, at the end of stop 48,
# "held-out-11" measured before and after the REAL step's networks (stop 50), "held-out-12" and
# "held-out-13" measured once each (stops 52, 53), "held-out-14" made at stop 54 to check a rule
# chosen on held-out-12
RANGES = {
    "dev": [(140000 + 100 * i, 100) for i in range(8)],
    "dev-200": [(140000, 100), (140100, 100)],
    "held-out": [(130000, 100), (130100, 100)],
    "held-out-2": [(150000, 100), (150100, 100)],
    "held-out-3": [(160000, 100), (160100, 100)],
    "held-out-4": [(170000, 100), (170100, 100)],
    "held-out-5": [(180000, 100), (180100, 100)],
    "held-out-6": [(190000, 100), (190100, 100)],
    "held-out-7": [(200000, 100), (200100, 100)],
    "held-out-8": [(210000, 100), (210100, 100)],
    "held-out-9": [(220000, 100), (220100, 100)],
    "held-out-10": [(240000, 100), (240100, 100)],
    "held-out-11": [(250000, 100), (250100, 100)],
    "held-out-12": [(260000, 100), (260100, 100)],
    "held-out-13": [(270000, 100), (270100, 100)],
    "held-out-14": [(280000, 100), (280100, 100)],
}
TAG = "i33"  # the sheet options below, in the cache files' names
LEGIBLE_AT = 0.9
SURE_MISREAD_AT = 0.99  # a false numbers flag whose cell the reader read this sure as another value
# the planted mistakes (samples.content details) by the names the issue gives them
KINDS = {"slip_carried": "cumulative slip", "carry": "carry slip (100 / 1000)",
         "miscopy": "lone miscopy", "unexplainable": "score no result explains",
         "wrong_column": "score in the wrong column", "impossible_pair": "impossible pair",
         "total": "total", "winner": "winner", "missing_deal": "missing deal", "dealer": "dealer"}
SCANS = ("clean", "skewed", "photo", "fax")


def sheet_options(seed: int) -> dict:
    """The generator's options for sheet ``seed``: every kind of mistake on half the sheets, only
    the first dealer written on 30 % of them (drawn from the seed, apart from the sheet's own
    draws)."""
    rng = random.Random(seed * 104729 + 33)
    return {"mistake_rate": 0.5, "mistake_kinds": tuple(ALL_MISTAKES),
            "dealers": "first" if rng.random() < 0.3 else "every"}


def load(names: list[str], key: tuple, reader, cached: dict[str, tuple[str, str]] | None = None,
         redraw: frozenset[int] = frozenset(), redrawn: tuple[str, str] | None = None,
         reread: frozenset[int] = frozenset()) -> list[tuple[int, dict, object, object]]:
    """(seed, truth, table or None, reading) of every sheet in the named ranges (made and cached as
    needed; the tables keep their cell images, for the second look before a flag).  ``cached``
    (range -> digests of its tables and readings) takes a range's cache files made by other code
    instead (an earlier reader's readings, reconciled by this code); the sheets of ``redraw`` are
    made and read again with today's generator and reader (each cached apart), the others taken as
    cached -- for a generator change that alters only those sheets.  ``redrawn`` (digests of
    tables and readings) takes a redrawn sheet cached apart by other code where there is one; the
    sheets of ``reread`` are made and read with today's code in any case (a reader change that
    alters only those sheets' inputs)."""
    out = []
    for name in names:
        for seed, count in RANGES[name]:
            if cached and name in cached:
                sheets, read = cached_files(seed, count, *cached[name])
            else:
                sheets = ablation.tables(seed, count, sheet_options, TAG)
                read = ablation.readings(seed, count, sheets, key, reader, TAG)
            for k, (s, _, _) in enumerate(sheets):
                if s in redraw and s not in reread and redrawn and all(
                        (ablation.WORK / f"{kind}-{s}-1-{TAG}-{d}.pkl").exists()
                        for kind, d in zip(("tables", "readings"), redrawn, strict=True)):
                    one, again = cached_files(s, 1, *redrawn)
                    sheets[k], read[k] = one[0], again[0]
                elif s in redraw or s in reread:
                    sheets[k] = ablation.tables(s, 1, sheet_options, TAG)[0]
                    read[k] = ablation.readings(s, 1, sheets[k:k + 1], key, reader, TAG)[0]
            out += [(s, truth, table, r)
                    for (s, truth, table), r in zip(sheets, read, strict=True)]
            del sheets
    return out


def seed_list(path: str) -> frozenset[int]:
    """The seeds a bench.glyph_draws file gives a non-empty list."""
    with open(path) as fh:
        return frozenset(int(seed) for seed, texts in json.load(fh).items() if texts)


def cached_files(seed: int, count: int, tables: str, readings: str) -> tuple[list, list]:
    """The tables and readings of ``count`` sheets from ``seed`` cached in bench/_work under the
    digests ``tables`` and ``readings`` (a clear error when either file is not there)."""
    out = []
    for kind, digest in (("tables", tables), ("readings", readings)):
        path = ablation.WORK / f"{kind}-{seed}-{count}-{TAG}-{digest}.pkl"
        if not path.exists():
            raise SystemExit(f"bench_mistakes: no cached {kind} {path}")
        with path.open("rb") as fh:
            out.append(pickle.load(fh))
    return out[0], out[1]


def parse_cached(specs: list[str]) -> dict[str, tuple[str, str]]:
    """``RANGE=TABLES_DIGEST:READINGS_DIGEST`` options as range -> (tables, readings)."""
    out = {}
    for spec in specs:
        name, _, digests = spec.partition("=")
        tables, _, readings = digests.partition(":")
        if name not in RANGES or not tables or not readings:
            raise SystemExit(f"bench_mistakes: --cached wants RANGE=TABLES:READINGS, not {spec!r}")
        out[name] = (tables, readings)
    return out


# ----------------------------------------------------------------------------- one mistake
def mistake_cells(m: dict, truth: dict) -> list[tuple[str, str]]:
    """The cells (row, key) the planted mistake ``m``'s inconsistency rests on."""
    detail, deal, side = m["detail"], m.get("deal"), m.get("side")
    last = str(truth["rows"][-1]["deal"])
    if detail == "total":
        return [("total", f"cum_{side}"), (last, f"cum_{side}")]
    if detail == "winner":
        return [(last, "cum_ns"), (last, "cum_ew")]
    if detail == "dealer":
        return [(str(deal), "dealer")]
    if detail == "missing_deal":
        return [(str(deal), key) for key in NUMBER_KEYS]
    sides = ("ns", "ew") if detail in ("wrong_column", "impossible_pair") else (side,)
    out = []
    for s in sides:
        out += [(str(deal), s), (str(deal), f"cum_{s}")]
        if deal > 1:
            out.append((str(deal - 1), f"cum_{s}"))
        if detail == "miscopy" and deal < len(truth["rows"]):
            out += [(str(deal + 1), s), (str(deal + 1), f"cum_{s}")]
    return out


def legible(m: dict, truth: dict, written: dict, reading) -> bool:
    """Did the reader read every cell ``m`` rests on as written, at least LEGIBLE_AT sure (a
    winners line: its letters as written, and as the pair it names)?"""
    if m["detail"] == "winner" and (reading.winners_hint != truth["winners"] or _letters(
            reading.winners_text) != _letters(truth["winners_text"])):
        return False
    cells = reading_cells(reading)
    for where in mistake_cells(m, truth):
        cell = cells.get(where)
        if cell is None or not cell.candidates or cell.candidates[0][1] < LEGIBLE_AT \
                or cell.best != written.get(where):
            return False
    return True


def _letters(text: str | None) -> str:
    return "".join(ch for ch in (text or "").lower() if ch.isalpha())


def winner_right_after_all(m: dict, truth: dict) -> bool:
    """A planted winners mistake (the line names the pair behind on the written totals) that names
    the pair the deals' scores make winners: a slip planted with it turned the written totals
    round, and the line is right -- not a mistake to show."""
    if m["detail"] != "winner":
        return False
    ns = sum(r["ns"] or 0 for r in truth["true_rows"])
    ew = sum(r["ew"] or 0 for r in truth["true_rows"])
    return ns != ew and m["written"] == ("ns" if ns > ew else "ew")


def place(m: dict) -> tuple:
    """Where a review item about ``m`` is: (deal, column or None for any column of the deal)."""
    if m["kind"] == "total":
        return (None, f"total_{m['side']}")
    if m["kind"] == "winner":
        return (None, "winners")
    return (m["deal"], None)


def _loosely_named(m: dict, review: list[dict]) -> bool:
    """For an older tree's output (no ``kind``): a review item at ``m``'s place that says more than
    that the reading is unsure."""
    deal, column = place(m)
    return any(r.get("deal") == deal and (column is None or r.get("column") == column)
               and not str(r.get("reason", "")).startswith(("unsure reading", "blank?"))
               for r in review)


def other_tree(tree: str, data, reader_settings=None) -> dict[str, dict]:
    """Each sheet's reconciled object made by the code in ``tree`` (a subprocess with its modules
    first on the path), by source -- with that tree's second look at the cached table's cells, as
    :func:`measure` has it look, when ``reader_settings`` is given."""
    with tempfile.TemporaryDirectory() as tmp:
        readings = os.path.join(tmp, "readings.pkl")
        with open(readings, "wb") as fh:
            pickle.dump(([(table, r) for _, _, table, r in data if table is not None], reader_settings), fh)
        script = ("import json, pickle, sys\n"
                  "from scoring.reconcile import reconcile\n"
                  "from ocr.look import second_look\n"
                  "pairs, rs = pickle.load(open(sys.argv[1], 'rb'))\n"
                  "look = lambda t: None if rs is None else second_look(t, rs)\n"
                  "json.dump({r.source: reconcile(r, explain=False, look=look(t)).to_json()"
                  " for t, r in pairs}, open(sys.argv[2], 'w'))\n")
        out = os.path.join(tmp, "out.json")
        subprocess.run([sys.executable, "-c", script, readings, out], check=True, cwd=tree,
                       env=dict(os.environ, PYTHONPATH=os.path.abspath(tree)))
        with open(out) as fh:
            return json.load(fh)


def named_in_review(m: dict, review: list[dict]) -> bool:
    """Is ``m`` in review at its place, the item naming an inconsistency there (a review item with
    a ``kind``: "a misread or the players' mistake", a reading the arithmetic overrode, a number a
    flag rests on, an empty row, the Total row or the winners line in question)?"""
    deal, column = place(m)
    return any(r.get("kind") and r.get("deal") == deal
               and (column is None or r.get("column") == column) for r in review)


# ----------------------------------------------------------------------------- the counts
@dataclass
class Tally:
    planted: int = 0
    shown: int = 0
    other_kind: int = 0  # shown only by a flag of another kind at its deal
    flagged: int = 0
    legible: int = 0
    legible_flagged: int = 0
    illegible_flagged: int = 0
    illegible_reviewed: int = 0  # shown by a review item, not flagged

    def add(self, flagged: bool, shown: bool, is_legible: bool, other_kind: bool = False) -> None:
        self.planted += 1
        self.flagged += flagged
        self.shown += shown or other_kind
        self.other_kind += other_kind and not shown
        self.legible += is_legible
        self.legible_flagged += is_legible and flagged
        self.illegible_flagged += not is_legible and flagged
        self.illegible_reviewed += not is_legible and shown and not flagged


@dataclass
class Sheets:
    sheets: int = 0
    mistake_free: int = 0
    false_flagged: int = 0
    flags: int = 0
    flags_real: int = 0
    numbers: int = 0
    numbers_right: int = 0
    exact: int = 0
    reviews: list[int] = field(default_factory=list)
    rescan: int = 0  # sheets the product sent back for a rescan (its `rescan` line) ...
    kept_numbers: int = 0  # ... and the written numbers of the others, ...
    kept_numbers_right: int = 0  # ... shown as written


def measure(data, settings, details: bool = False, outputs: dict | None = None,
            reader_settings=None) -> dict:
    """The counts over ``data``, reconciled with ``settings`` -- the second reader looking again
    at the cells a numbers flag rests on, as ocr.pipeline.read_results has it look (read with
    ``reader_settings``) -- or taken from ``outputs``: source -> object, made by another tree."""
    by_kind: dict[str, Tally] = defaultdict(Tally)
    by_scan: dict[str, Tally] = defaultdict(Tally)
    sheets: dict[str, Sheets] = defaultdict(Sheets)  # by scan kind, and "all"
    clean_by_hand: dict[str, list[int]] = defaultdict(list)
    cpu: list[float] = []
    missing = right_after_all = 0
    unseen_rescan = 0  # planted mistakes not shown, on sheets sent back for a rescan
    false_flags: dict[str, int] = defaultdict(int)  # flags naming no planted mistake, by cause
    confidence: Counter = Counter()  # written numbers by the confidence shown (bench/confidence.py)
    looked = 0
    look_cpu: list[float] = []
    for seed, truth, table, reading in data:
        if table is None:
            missing += 1
            continue
        if outputs is not None:
            obj = outputs[reading.source]
        else:
            look = second_look(table, reader_settings) if reader_settings is not None else None
            spent = [0.0]  # the second reader's time: reading, not reconciliation
            t0 = time.process_time()
            sheet = reconcile(reading, settings=settings, explain=False,
                              look=None if look is None else timed(look, spent))
            cpu.append(time.process_time() - t0 - spent[0])
            look_cpu.append(spent[0])
            looked += "second_look" in sheet.meta
            obj = sheet.to_json()
        written = {(c["row"], c["key"]): truth_value(c["key"], c["text"]) for c in truth["cells"]}
        score = score_sheet(obj, truth)
        scan = truth["scan"]
        shown_conf(obj, truth, confidence)
        for group in (sheets[scan], sheets["all"]):
            group.sheets += 1
            group.mistake_free += score.mistake_free
            group.false_flagged += score.mistake_free and score.flagged
            group.flags += score.flags
            group.flags_real += score.flags_planted
            group.numbers += score.numbers
            group.numbers_right += score.numbers_right
            sent_back = bool(obj.get("rescan"))
            group.rescan += sent_back
            group.kept_numbers += 0 if sent_back else score.numbers
            group.kept_numbers_right += 0 if sent_back else score.numbers_right
            group.exact += score.exact
            group.reviews.append(len(obj["review"]))
        if scan == "clean":
            clean_by_hand[truth["hand"]].append(len(obj["review"]))
        for m in truth["mistakes"]:
            if winner_right_after_all(m, truth):
                right_after_all += 1
                continue
            flagged = flagged_right(m, obj["flags"])
            shown = flagged or (named_in_review(m, obj["review"]) if outputs is None
                                else _loosely_named(m, obj["review"]))
            other = m.get("deal") is not None and any(f.get("deal") == m["deal"] for f in obj["flags"])
            ok = legible(m, truth, written, reading)
            for tally in (by_kind[m["detail"]], by_kind["all"], by_scan[scan]):
                tally.add(flagged, shown, ok, other)
            unseen_rescan += not (shown or other) and bool(obj.get("rescan"))
            if details and (not shown or (ok and not flagged)):
                print(f"  {seed} {m['detail']} deal {m.get('deal')} {m.get('side')}: "
                      f"{'legible, not flagged' if shown else 'flagged as another kind' if other else 'not shown'} "
                      f"({truth['hand']}, {scan})", file=sys.stderr)
        for f in obj["flags"]:
            if not flag_is_planted(f, truth):
                false_flags[f"{false_flag_cause(f, written, reading)} ({scan})"] += 1
        if details and not score.exact:
            for line in wrong_numbers(obj, truth, reading, score.wrong):
                print(f"  {seed} inexact: {line} ({truth['hand']}, {scan})", file=sys.stderr)
        if details:
            for f in obj["flags"]:
                if not flag_is_planted(f, truth):
                    print(f"  {seed} false {f['kind']} deal {f.get('deal')} {f.get('side')} "
                          f"written {f.get('written')} expected {f.get('expected')} "
                          f"({truth['hand']}, {scan})", file=sys.stderr)
    return {"by_kind": by_kind, "by_scan": by_scan, "sheets": sheets, "clean_by_hand": clean_by_hand,
            "cpu": cpu, "missing": missing, "right_after_all": right_after_all, "looked": looked,
            "look_cpu": look_cpu, "unseen_rescan": unseen_rescan, "false_flags": false_flags,
            "confidence": confidence}


def shown_conf(obj: dict, truth: dict, seen: Counter) -> None:
    """Tally each written number ``obj`` (a reconciled sheet's JSON) shows by its confidence and
    whether it is right: all of them, and those in review on a sheet sent back for a rescan."""
    written = {r["deal"]: r for r in truth["rows"]}
    asked = {(r["deal"], r["column"]) for r in obj["review"]}
    for row in obj["rows"]:
        want = written.get(row["deal"])
        for key in NUMBER_KEYS:
            if want is None or not want[key] or row[key] is None:
                continue
            p, right = row["confidence"].get(key, 0.0), row[key] == want[key]
            conf_bands.tally(seen, "all", p, right)
            if obj.get("rescan") and (row["deal"], key) in asked:
                conf_bands.tally(seen, "in review, sent back", p, right)


def wrong_numbers(obj: dict, truth: dict, reading, wrong: list) -> list[str]:
    """Each number of a reconciled sheet (``obj``) that differs from what is written (``wrong``:
    score_sheet's (deal, column) pairs): the value shown, the reader's first candidates, whether the
    row marks it the arithmetic's, and the review item on its cell -- what makes a sheet inexact,
    one line each."""
    written = {r["deal"]: r for r in truth["rows"]}
    shown = {r["deal"]: r for r in obj["rows"]}
    cells = reading_cells(reading)
    review = {(r["deal"], r["column"]): r for r in obj["review"]}
    out = []
    for deal, key in wrong:
        row, want = shown[deal], written[deal]
        cell = cells.get((str(deal), key))
        read = ", ".join(f"{v} {p:.3f}" for v, p in (cell.candidates[:3] if cell else []))
        item = review.get((deal, key))
        out.append(f"deal {deal} {key} shown {row[key]} written {want[key]}, read [{read}]"
                   + (" (the arithmetic's)" if key in row.get("inferred", []) else "")
                   + (f", review {item['candidates'][:2]}" if item else ", no review"))
    return out


def false_flag_cause(flag: dict, written: dict, reading) -> str:
    """Why a flag names no planted mistake: "sure misread" (a numbers flag whose own cell the
    reader read at least SURE_MISREAD_AT sure as a value the players did not write -- no
    arithmetic can tell that from their slip), another numbers flag by how its cell was read, or
    the flag's kind; with the scan kind."""
    if flag["kind"] not in ("cumulative", "score", "total"):
        return flag["kind"]
    where = ("total", f"cum_{flag['side']}") if flag["kind"] == "total" \
        else (str(flag.get("deal")), flag.get("column"))
    cell = reading_cells(reading).get(where)
    if cell is None or not cell.candidates:
        return "numbers, cell not read"
    if cell.best == written.get(where):
        return "numbers, cell read as written"  # the misread is in another cell it rests on
    return "sure misread" if cell.candidates[0][1] >= SURE_MISREAD_AT else "numbers, cell misread less surely"


def timed(look, spent: list[float]):
    """``look`` adding the CPU time it takes to ``spent[0]``."""
    def run(asked):
        t0 = time.process_time()
        try:
            return look(asked)
        finally:
            spent[0] += time.process_time() - t0
    return run


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} % ({a}/{b})" if b else "-"


def p90(values: list[int]) -> float:
    return sorted(values)[int(0.9 * (len(values) - 1))] if values else 0


def report(m: dict, title: str) -> str:
    lines = [f"### {title}", "",
             "| kind of mistake | planted | shown at its deal (flag or review naming it; of which a flag of"
             " another kind) | flagged |"
             f" legible (read as written >= {LEGIBLE_AT}): flagged | not legible: flagged / in review |",
             "|---|---|---|---|---|---|"]
    for detail in list(KINDS) + ["all"]:
        t = m["by_kind"].get(detail)
        if t is None:
            continue
        name = KINDS.get(detail, "**all**")
        lines.append(f"| {name} | {t.planted} | {pct(t.shown, t.planted)}{f'; {t.other_kind}' if t.other_kind else ''} |"
                     f" {pct(t.flagged, t.planted)} |"
                     f" {pct(t.legible_flagged, t.legible)} | {t.illegible_flagged} / {t.illegible_reviewed}"
                     f" of {t.planted - t.legible} |")
    lines += ["", "| scan kind | sheets | planted shown | legible flagged | mistake-free sheets flagged |"
              " flags naming a real mistake | review items a sheet: median / p90 (mean) | numbers right |"
              " numbers right on the sheets not sent back for a rescan (sent back) | sheets exact |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for scan in [s for s in SCANS if s in m["sheets"]] + ["all"]:
        g, t = m["sheets"][scan], m["by_scan"].get(scan) if scan != "all" else m["by_kind"].get("all")
        t = t or Tally()
        lines.append(f"| {scan} | {g.sheets} | {pct(t.shown, t.planted)} | {pct(t.legible_flagged, t.legible)} |"
                     f" {pct(g.false_flagged, g.mistake_free)} | {pct(g.flags_real, g.flags)} |"
                     f" {statistics.median(g.reviews) if g.reviews else 0:g} / {p90(g.reviews):g}"
                     f" ({statistics.mean(g.reviews) if g.reviews else 0:.2f}) |"
                     f" {100 * g.numbers_right / max(g.numbers, 1):.2f} % |"
                     f" {100 * g.kept_numbers_right / max(g.kept_numbers, 1):.2f} % ({g.rescan}) |"
                     f" {pct(g.exact, g.sheets)} |")
    lines += ["", "| clean scans, by hand | sheets | review items a sheet: median / p90 (mean) |", "|---|---|---|"]
    for hand, reviews in sorted(m["clean_by_hand"].items()):
        lines.append(f"| {hand} | {len(reviews)} | {statistics.median(reviews):g} / {p90(reviews):g}"
                     f" ({statistics.mean(reviews):.2f}) |")
    cpu = sorted(m["cpu"])
    t_all = m["by_kind"].get("all") or Tally()
    causes = ", ".join(f"{k} {v}" for k, v in sorted(m.get("false_flags", {}).items()))
    looked_cpu = [t for t in m.get("look_cpu", []) if t > 0]
    if cpu:
        lines += ["", f"Reconciliation (no explanations), CPU ms a sheet: median {1000 * statistics.median(cpu):.1f},"
                  f" p95 {1000 * cpu[int(0.95 * (len(cpu) - 1))]:.1f}; sheets given a second look:"
                  f" {m['looked']} (the second reader's CPU a sheet so looked at: median"
                  f" {1000 * statistics.median(looked_cpu) if looked_cpu else 0:.0f} ms);"
                  f" tables not found: {m['missing']};"
                  f" planted winners mistakes not counted, the line naming the pair the deals' scores make"
                  f" winners (a slip planted with it turned the written totals round): {m['right_after_all']};"
                  f" planted mistakes not shown that are on a sheet sent back for a rescan:"
                  f" {m.get('unseen_rescan', 0)} of {t_all.planted - t_all.shown}; flags naming no planted"
                  f" mistake, by cause (a sure misread: the flagged cell read >= {SURE_MISREAD_AT} sure as a"
                  f" value not written): {causes or 'none'}."]
    if m.get("confidence"):
        lines += ["", "Written numbers shown, right by the confidence shown: "
                  f"{conf_bands.calibration(m['confidence'], 'all')}; those in review on sheets sent back for a"
                  f" rescan: {conf_bands.calibration(m['confidence'], 'in review, sent back')}."]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranges", default="dev,held-out", help=f"comma-separated: {', '.join(RANGES)}")
    ap.add_argument("--config", action="append", default=[], help="bench_reader_ablation's configurations")
    ap.add_argument("--details", action="store_true", help="each mistake not shown or legible and not flagged,"
                    " each false flag and each wrong number of an inexact sheet (stderr)")
    ap.add_argument("--tree", help="reconcile with the code of this checkout instead (a before/after)")
    ap.add_argument("--cached", action="append", default=[], metavar="RANGE=TABLES:READINGS",
                    help="a range's tables and readings cached under these digests (made by other"
                    " code: an earlier reader's readings) instead of this code's")
    ap.add_argument("--leave-out", metavar="JSON", help="leave out the sheets this file gives a"
                    " non-empty list ({seed: [...]}, as bench.glyph_draws writes it: the sheets"
                    " written with one MNIST pool image)")
    ap.add_argument("--redrawn", metavar="TABLES:READINGS", help="--redraw's sheets cached apart under"
                    " these digests (by other code) where they are")
    ap.add_argument("--reread", metavar="JSON", help="make and read again with this code the sheets"
                    " this file gives a non-empty list (the sheets a reader change touches)")
    ap.add_argument("--redraw", metavar="JSON", help="make and read again the sheets this file gives"
                    " a non-empty list (bench.glyph_draws: those that drew a pool image the generator"
                    " now passes over), taking the others as cached")
    args = ap.parse_args(argv)
    names = args.ranges.split(",")
    bad = [n for n in names if n not in RANGES]
    if bad:
        ap.error(f"unknown range(s) {', '.join(bad)}; choose from {', '.join(RANGES)}")
    cv2.setNumThreads(1)
    cached = parse_cached(args.cached)
    loaded: dict[tuple, dict] = {}
    for spec in args.config or ["current"]:
        key, reader, settings = ablation.configure(spec)
        if key not in loaded:
            redraw = seed_list(args.redraw) if args.redraw else frozenset()
            reread = seed_list(args.reread) if args.reread else frozenset()
            redrawn = tuple(args.redrawn.split(":", 1)) if args.redrawn else None
            loaded[key] = {name: load([name], key, reader, cached, redraw, redrawn, reread)
                           for name in names}
            if args.leave_out:
                out = seed_list(args.leave_out)
                loaded[key] = {name: [d for d in data if d[0] not in out]
                               for name, data in loaded[key].items()}
        parts = [(name, loaded[key][name], [name]) for name in names]
        if len(names) > 1:
            parts.append(("all", [d for name in names for d in loaded[key][name]], names))
        for name, data, group in parts:
            seeds = ", ".join(f"{s}-{s + n - 1}" for g in group for s, n in RANGES[g])
            outputs = other_tree(args.tree, data, key[-1]) if args.tree else None
            title = args.tree if args.tree else spec
            print(report(measure(data, settings, args.details and name != "all", outputs, key[-1]),
                         f"{title}, {name}: {len(data)} sheets, seeds {seeds}") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
