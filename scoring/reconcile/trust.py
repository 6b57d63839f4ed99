"""How far reconciliation trusts the reader's list of candidates for a written number.

The reader (ocr/read.py) reports, for each written number cell, its candidates and -- as "none of
these" -- its own estimate of the chance that the truth is none of them: calibrated, from the mass
its beam left uncovered (ocr/read.py NONE_SCALE; bench/RESULTS-read.md, rounds 16 and 19).
Reconciliation takes that chance larger before it decodes: a sure misread looks exactly like a lone miscopied cumulative, and "some
value the reader did not list" is what lets the arithmetic call a reading a misread rather than
the players' mistake.  How much larger was chosen with the whole product (rounds 4-12: 2-20x the
real rate put fewer false flags on mistake-free sheets at no cost in planted mistakes flagged);
until round 16 the reader itself reported it that way, which left its figures deliberately
miscalibrated and "none of these" crowding the truth out of its top three.

A reading carries the reader's sheet doubt in ``meta["doubt"]`` (the mean doubt about the top
string of its written number cells); one without it -- made by a reader before round 16, which
widened "none of these" itself, or by hand -- is taken as it is.  Pure: no I/O.
"""

from __future__ import annotations

import dataclasses

from scoring.sheet import NUMBER_COLUMNS, CellReading, RowReading, SheetReading

NONE_FLOOR = 0.01  # "none of these" keeps at least this share in every written cell
# ... and at least this fraction of the doubt about the best value: when the best value is only
# 0.85 sure, the truth is missing from the whole list far more often than 1 % of the time
# (bench/RESULTS-read.md: unlisted for ~0.3 x (1 - best) of the written cells with the single
# network of round 3, ~0.15 x with the ensemble; 0.3 is kept -- on the side of review -- because it
# put fewer false flags on mistake-free sheets at no cost in planted mistakes flagged)
NONE_SLOPE = 0.3
# ... and on a sheet whose writing is hard for the reader, this multiple of the sheet's doubt, at
# most NONE_SHEET_CAP: the same confidence is worth less there
NONE_SHEET = 0.3
NONE_SHEET_CAP = 0.05
MIN_CANDIDATE = 0.005  # candidates less likely than this (once widened) are left out ...
N_BEST = 5  # ... and so are those after the fifth ("none of these" included)
# A cumulative read at least SURE_AT sure on a sheet the reader did not find hard (its doubt below
# SURE_DOUBT) keeps only SURE_FLOOR, not the sheet's floor: of 37,853 such cells on 879 generated
# sheets 8 were misread (0.02 %; 1 of 29,085 score cells), and the sheet's floor (1 % and up)
# made "the players wrote it right and the reader misread it" as likely as a lone miscopied
# cumulative (70058: 3990 for 3790, read 3990 at 0.996, went to review at 0.56).  Score cells
# keep their floor: a score misread that sure is what makes the next cumulative look wrong
# (130013: 780 read 180 at 0.999), and only that floor lets the arithmetic call it a misread.
# 879 sheets: planted flagged 303 -> 305 of 317, false-flagged sheets 2 -> 2 of 626; 130000-130199
# unchanged; within one planted mistake for SURE_AT 0.98-0.995, SURE_FLOOR 0.001-0.003, SURE_DOUBT
# 0.05-0.2 (bench/RESULTS-reconcile.md, round 21).  SURE_AT is the reader's own
# figure ("none of these" counted): cumulatives read 0.98-0.99 sure were misread 0.25 % of the time.
SURE_AT = 0.99
SURE_FLOOR = 0.002
SURE_DOUBT = 0.15


def sheet_none_floor(doubt: float) -> float:
    """The "none of these" floor of a sheet's written number cells, from the reader's sheet doubt."""
    return min(max(NONE_FLOOR, NONE_SHEET * doubt), NONE_SHEET_CAP)


def widened(cell: CellReading, floor: float = NONE_FLOOR, sure_floor: float | None = None) -> CellReading:
    """``cell`` with "none of these" at least ``floor`` (``sure_floor`` instead, when lower, if the
    reader read it at least SURE_AT sure) and NONE_SLOPE x the doubt about its best value; its
    values keep their proportions (those the reader dropped as unlikely included)."""
    values = [(v, float(p)) for v, p in cell.candidates if v is not None]
    none = sum(float(p) for v, p in cell.candidates if v is None)
    kept = 1.0 - none  # the values' share of the reader's whole list
    if cell.blank or not values or kept <= 0:
        return cell
    top, best = max(values, key=lambda vp: vp[1])
    if top == 0:
        # read as empty: whether a cell holds ink is not what makes a sheet hard to read.  Of
        # 34,336 cells read empty at >= 0.99 on 1,079 generated sheets one held writing (a fax);
        # with the sheet's floor (up to NONE_SHEET_CAP) "1000 written there, read as empty" explained
        # away a slip of 1000 carried forward on a hard photo (80074).  879 sheets: planted flagged
        # 302 -> 303, no false flag more; a floor of 0.003 or 0.001 the same (RESULTS-reconcile.md)
        floor = min(floor, NONE_FLOOR)
    elif sure_floor is not None and best >= SURE_AT:
        floor = min(floor, sure_floor)
    share = max(none, floor)
    best = best / kept * (1 - share)
    share = max(share, NONE_SLOPE * (1 - best))
    scale = (1 - share) / kept
    cands = [(v, p * scale) for v, p in values if p * scale >= MIN_CANDIDATE]
    cands.append((None, share))
    cands.sort(key=lambda c: -c[1])
    return dataclasses.replace(cell, candidates=cands[:N_BEST])


def trusted(reading: SheetReading) -> SheetReading:
    """``reading`` with every written number cell widened by its sheet's floor (reading.meta's
    "doubt"; a cell read as empty by NONE_FLOOR, a sure cumulative on an easy sheet by SURE_FLOOR);
    a reading without a doubt is returned as it is."""
    doubt = reading.meta.get("doubt")
    if doubt is None:
        return reading
    floor = sheet_none_floor(float(doubt))
    sure = SURE_FLOOR if float(doubt) < SURE_DOUBT else None

    def row(r: RowReading) -> RowReading:
        return dataclasses.replace(r, cells={
            c: widened(cell, floor, sure if c.startswith("cum_") else None) if c in NUMBER_COLUMNS else cell
            for c, cell in r.cells.items()})

    return dataclasses.replace(reading, rows=[row(r) for r in reading.rows],
                               total=row(reading.total) if reading.total is not None else None)
