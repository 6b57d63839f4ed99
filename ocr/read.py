"""Read a located table's cells into N-best candidate readings (Table -> SheetReading).

Number and dealer cells: the whole-cell network in ``ocr.cellnet`` reads every cell of the
sheet in one batch; a CTC beam search gives each cell's most probable strings with their
probabilities (summed over all alignments, so touching digits need no cutting), and the
strings become values with light priors (scores are multiples of ten).  What the beam does
not cover, or what is no number at all, stays as "none of these" (``None``).
Names and the winners line: best effort, read by the geometry stage (ocr.printed.read_fields).
"""

from __future__ import annotations

import re
import time
from difflib import SequenceMatcher

import numpy as np

from ocr.cellnet import HEIGHT, WIDTH, CellReader, default_net, prepare_cut, variant_odds
from ocr.data import DEAL_COLUMNS, Table
from ocr.partial import add_missing, missing_meta
from ocr.printed import read_fields
from scoring.sheet import Candidate, CellReading, RowReading, SheetReading

N_BEST = 5
BEAM = 12
MAX_DIGITS = 5
NUMBER_SYMBOLS = "0123456789-"
LETTER_SYMBOLS = "NESW"
BLANK_PROB = 0.995
# A sheet whose number cells are mostly blank was probably cut in the wrong place (a misfound
# table): its blank cells are then only this sure.  Real sheets leave ~25 % blank (the side
# that did not score); 30 generated sheets: at most 29 %, the misfound ones 50-92 %.
BLANK_SHEET_SHARE = 0.45
SUSPECT_BLANK_PROB = 0.5
# ... and so are they on a sheet where this many cells' writing was found only by prepare_cut's second
# look (faint, speckled or fax-dotted writing: the cells that look empty there may hold more of it)
# and whose numbers were hard to read (sheet_doubt at least FAINT_SHEET_DOUBT): on the 879 benchmark
# sheets the four whose empty-looking cells hid writing have doubt 0.28-0.94; a clean scan of
# pencil with a few light cells (80027: doubt 0.009) had 29 blanks, all truly blank, sent to review
FAINT_SHEET_CELLS = 3
FAINT_SHEET_DOUBT = 0.1
# A winners line that names a pair (winners_hint) and matches the one pair whose names were read
# less than this names the other pair (seed 70145: "Lee/Stone" against E/W's "Dunn / Grant", 0.19)
OTHER_PAIR_BELOW = 0.3
NOT_TENS_PRIOR = 0.01  # scores are multiples of 10 (soft: a misread last digit still counts)
LEADING_ZERO_PRIOR = 0.05
STRAY_DASH_PRIOR = 0.3  # a flat mark beside digits read as a dash and ignored
MIN_CANDIDATE = 0.005
# "None of these": NONE_SCALE x the probability the beam did not cover (or gave to strings that
# are no number), as a share of the cell's, and at least NONE_FLOOR.  Calibrated on the read
# benchmark: round 16, the whole uncovered mass, mean 0.59 % against 0.45 % of written cells whose
# truth is unlisted; round 17's digit network listed the truth more often (0.61 against 0.33 %), and
# half the mass gives the truth a lower NLL on all seven benchmark ranges (60000-60099 0.0675 ->
# 0.0666; 0.3: 0.0668; bench/RESULTS-read.md round 19).  Reconciliation widens it for its own use
# (scoring/recon_trust.py); until round 16 the reader did.
NONE_FLOOR = 0.001
NONE_SCALE = 0.5


def read_table(table: Table, net: CellReader | None = None) -> SheetReading:
    """Read every cell of ``table``: numbers and dealer letters with N-best candidates."""
    t0 = time.perf_counter()
    net = net or default_net()
    cells = [(ci, c) for ci, c in enumerate(table.cells) if c.key == "dealer" or c.key in DEAL_COLUMNS]
    inputs = np.zeros((len(cells), HEIGHT, WIDTH), np.float32)
    cuts = []
    for k, (_, cell) in enumerate(cells):
        inputs[k], cut = prepare_cut(cell.image)
        cuts.append(cut)
    inked = np.flatnonzero(inputs.reshape(len(cells), -1).max(axis=1) > 0) if cells else np.zeros(0, int)
    dealers = [k for k in inked if cells[k][1].key == "dealer"]
    numbers_in = [k for k in inked if cells[k][1].key != "dealer"]
    strings: dict[int, list[tuple[str, float]]] = {}
    # dealer letters: the cell networks (the others asked only where the first is unsure, as for
    # numbers), not the digit network; numbers: the whole ensemble
    number_frames: list[np.ndarray] = []  # the first network's frames of the number cells (numbers_in)
    for reader, symbols, part in ((CellReader(net.nets), LETTER_SYMBOLS, dealers), (net, NUMBER_SYMBOLS, numbers_in)):
        if not part:
            continue
        first = net.nets[0].read(inputs[part])
        found = reader.nbest(inputs[part], [symbols] * len(part), beam=BEAM, cuts=[cuts[k] for k in part], first=first)
        strings.update({cells[k][0]: f for k, f in zip(part, found, strict=True)})
        if symbols == NUMBER_SYMBOLS:
            number_frames = first

    numbers = [ci for ci, c in cells if c.key != "dealer"]
    blank_prob = BLANK_PROB if _blank_share(table, numbers, strings) <= BLANK_SHEET_SHARE else SUSPECT_BLANK_PROB
    doubt = sheet_doubt([strings[ci] for ci in numbers if ci in strings])
    if sum(cut is not None and cut.second_look for cut in cuts) >= FAINT_SHEET_CELLS and doubt >= FAINT_SHEET_DOUBT:
        blank_prob = SUSPECT_BLANK_PROB  # faint or dotted writing: an empty-looking cell may hold more of it
    readings: dict[int, CellReading] = {}
    for ci, cell in cells:
        found = strings.get(ci, [("", BLANK_PROB)])  # no ink at all: blank
        if cell.key == "dealer":
            readings[ci] = letter_reading(found)
        else:
            readings[ci] = number_reading(found, blank_prob)
        readings[ci].quad = np.asarray(cell.quad, float).tolist()
    if numbers_in:
        # how likely the first network finds each one-digit variant of the number the cell is read
        # as (the reading's best value, which reconciliation varies -- not the beam's top string,
        # which the priors may have demoted)
        best = [readings[cells[k][0]].best for k in numbers_in]
        odds = variant_odds(number_frames, [str(b) if isinstance(b, int) and b > 0 else "" for b in best])
        for k, o in zip(numbers_in, odds, strict=True):
            readings[cells[k][0]].near = o

    rows: list[RowReading] = []
    total: RowReading | None = None
    by_row: dict[str, dict[str, CellReading]] = {}
    for ci, r in readings.items():
        cell = table.cells[ci]
        by_row.setdefault(cell.row, {})[cell.key] = r
    for row in table.deal_rows:
        rows.append(RowReading(deal=int(row), cells=by_row.get(row, {})))
    rows = add_missing(rows, table.missing)  # what the picture does not show readably: "cannot read"
    if "total" in by_row:
        total = RowReading(deal=0, cells=by_row["total"])

    t1 = time.perf_counter()
    text = table.texts  # read by the geometry stage's Tesseract call; a Table made elsewhere:
    if text is None:  # the same field reader, now
        text = read_fields({c.key: c.image for c in table.cells if c.key in ("names_ns", "names_ew", "winners")})
    names = {"ns": text.get("names_ns"), "ew": text.get("names_ew")}
    winners_text = text.get("winners")
    t2 = time.perf_counter()
    return SheetReading(
        source=table.straight.page.source,
        rows=rows,
        total=total,
        names=names,
        winners_text=winners_text,
        winners_hint=winners_hint(winners_text, names),
        # doubt: how hard this sheet's numbers were to read (reconciliation widens "none of these" by it)
        meta={"layout": table.layout, "reader": net.version, "cells_read": len(inked), "doubt": doubt,
              "read_cells_s": t1 - t0, "read_text_s": t2 - t1, "missing": missing_meta(table.missing)},
    )


def _is_blank(found: list[tuple[str, float]]) -> bool:
    return bool(found) and found[0][0] == ""


def _blank_share(table: Table, numbers: list[int], strings: dict[int, list[tuple[str, float]]]) -> float:
    """Share of blank number cells in the deal rows up to the last one with writing (a sheet
    that ends early leaves its later rows blank; only gaps before that count)."""
    order = {row: i for i, row in enumerate(table.deal_rows)}
    rows = {ci: order.get(table.cells[ci].row) for ci in numbers}
    blank = {ci: ci not in strings or _is_blank(strings[ci]) for ci in numbers}
    written = [r for ci, r in rows.items() if r is not None and not blank[ci]]
    if not written:
        return 0.0
    inner = [ci for ci, r in rows.items() if r is not None and r <= max(written)]
    return sum(blank[ci] for ci in inner) / len(inner)


def string_value(s: str) -> int | None:
    """The number a symbol string stands for: nothing or dashes alone are 0; a stray dash
    beside digits is ignored (the caller lowers its probability)."""
    if not s or set(s) == {"-"}:
        return 0
    digits = s.replace("-", "")
    if digits.isdigit() and len(digits) <= MAX_DIGITS:
        return int(digits)
    return None


def sheet_doubt(found: list[list[tuple[str, float]]]) -> float:
    """How hard this sheet's handwriting is for the reader: the mean doubt (1 - probability of
    the best string) over its written number cells."""
    doubts = [1.0 - f[0][1] for f in found if f and not _is_blank(f)]
    return sum(doubts) / len(doubts) if doubts else 0.0


def number_reading(found: list[tuple[str, float]], blank_prob: float = BLANK_PROB) -> CellReading:
    """A number cell's candidates from its N-best strings (blank, dash and 0 all read 0): up to
    N_BEST values and "none of these" (None), best first."""
    if _is_blank(found) and blank_prob < BLANK_PROB:
        # on a sheet cut in the wrong place a blank may hide writing: doubt it
        return CellReading(candidates=[(0, blank_prob), (None, 1 - blank_prob)], blank=True)
    values: dict[int, float] = {}
    covered = 0.0
    for s, q in found:
        covered += q
        value = string_value(s)
        if value is None:
            continue
        digits = s.replace("-", "")
        if "-" in s and digits:
            q *= STRAY_DASH_PRIOR
        if digits:
            if value % 10:
                q *= NOT_TENS_PRIOR
            if len(digits) > 1 and digits[0] == "0":
                q *= LEADING_ZERO_PRIOR
        values[value] = values.get(value, 0.0) + q
    # what the beam left out (or could not be a number) is "none of these"
    none = NONE_SCALE * (max(0.0, 1.0 - covered) + sum(q for s, q in found if string_value(s) is None))
    total = sum(values.values()) + none
    if total <= 0:
        return CellReading(candidates=[(None, 1.0)])
    share = max(none / total, 0.0 if _is_blank(found) else NONE_FLOOR)
    known = sum(values.values())
    cands: list[Candidate] = [(v, q / known * (1 - share)) for v, q in values.items()] if known > 0 else []
    cands = sorted((c for c in cands if c[1] >= MIN_CANDIDATE), key=lambda c: -c[1])[:N_BEST]
    cands.append((None, share if known > 0 else 1.0))
    cands.sort(key=lambda c: -c[1])
    return CellReading(candidates=cands, blank=_is_blank(found))


def letter_reading(found: list[tuple[str, float]]) -> CellReading:
    """A dealer cell's candidates: one of N/E/S/W, or None (blank or unreadable)."""
    letters: dict[str, float] = {}
    other = max(0.0, 1.0 - sum(q for _, q in found))
    for s, q in found:
        if len(s) == 1:
            letters[s] = letters.get(s, 0.0) + q
        else:
            other += q
    if _is_blank(found):
        return CellReading(candidates=[(None, 1.0)], blank=True)
    cands: list[Candidate] = [(k, v) for k, v in letters.items()] + [(None, other)]
    z = sum(v for _, v in cands) or 1.0
    cands = [(k, v / z) for k, v in cands if v / z >= MIN_CANDIDATE]
    cands.sort(key=lambda c: -c[1])
    return CellReading(candidates=cands or [(None, 1.0)])


def _side_token(text: str) -> str | None:
    t = re.sub(r"[^a-z]", "", text.lower())
    if t in ("ns", "northsouth", "nsw") or re.fullmatch(r"n\W*s", text.strip().lower()):
        return "ns"
    if t in ("ew", "eastwest") or re.fullmatch(r"e\W*w", text.strip().lower()):
        return "ew"
    # "N/S" or "E/W" among other marks ("rs E/w": a stray stroke read as letters)
    sides = {"ns" if m.group(0).startswith("n") else "ew"
             for m in re.finditer(r"(?<![a-z])(?:n\s*/\s*s|e\s*/\s*w)(?![a-z])", text.lower())}
    return sides.pop() if len(sides) == 1 else None


def winners_hint(winners: str | None, names: dict[str, str | None]) -> str | None:
    """"ns"/"ew" when the winners line says N/S or E/W, clearly matches one pair's names, or
    names a pair and clearly not the only pair whose names were read."""
    if not winners or not winners.strip():
        return None
    side = _side_token(winners)
    if side:
        return side

    def sim(other: str | None) -> float:
        if not other:
            return 0.0
        return SequenceMatcher(None, winners.lower(), other.lower()).ratio()

    ns, ew = sim(names.get("ns")), sim(names.get("ew"))
    if max(ns, ew) >= 0.5 and abs(ns - ew) >= 0.15:
        return "ns" if ns > ew else "ew"
    read = [side for side in ("ns", "ew") if names.get(side)]
    if len(read) == 1 and max(ns, ew) < OTHER_PAIR_BELOW and _names_a_pair(winners):
        # one pair's names were not read; the winners line names a pair, clearly not the other
        return "ew" if read == ["ns"] else "ns"
    return _misread_side_token(winners)


def _names_a_pair(text: str) -> bool:
    """Does ``text`` look like two names ("Lee/Stone", "Lee & Stone"): >= 6 letters, a separator?"""
    return len(re.sub(r"[^a-z]", "", text.lower())) >= 6 and bool(re.search(r"/|&|\band\b", text.lower()))


def _misread_side_token(text: str) -> str | None:
    """A short winners line Tesseract half-read: "N/S" comes back as "W/S", "WS", "NWS", "MWS";
    "E/W" as "Ef", "eh", "ee", "c/w", "L/w" (all seen on generated scans).  A 2-3 letter token
    ending in S is N/S; one starting with E or ending in W is E/W; both or neither: unsure."""
    t = text.strip()
    letters = re.sub(r"[^a-z]", "", t.lower())
    if len(t) > 4 or not 2 <= len(letters) <= 3:
        return None
    ns_like = letters.endswith("s")
    ew_like = letters.startswith("e") or letters.endswith("w")
    if ns_like != ew_like:
        return "ns" if ns_like else "ew"
    return None
