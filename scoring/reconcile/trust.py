"""How far reconciliation trusts the reader's list of candidates for a written number.

The reader (ocr/read.py) reports, for each written number cell, its candidates and -- as "none of
these" -- its own calibrated estimate of the chance that the truth is none of them.
Reconciliation takes that chance larger before it decodes: a sure misread looks exactly like a
lone miscopied cumulative, and "some value the reader did not list" is what lets the arithmetic
call a reading a misread rather than the players' mistake (TrustSettings says how much larger).

A reading carries the reader's sheet doubt in ``meta["doubt"]`` (the mean doubt about the top
string of its written number cells); one without it -- made by an older reader, which widened
"none of these" itself, or by hand -- is taken as it is.  Pure: no I/O.
"""

from __future__ import annotations

import dataclasses

from scoring.formspec import NUMBER_COLUMNS
from scoring.reconcile.settings import DEFAULT, TrustSettings
from scoring.sheet import CellReading, RowReading, SheetReading


def sheet_none_floor(doubt: float, settings: TrustSettings = DEFAULT.trust) -> float:
    """The "none of these" floor of a sheet's written number cells, from the sheet's doubt."""
    s = settings
    return min(max(s.none_floor, s.none_sheet * doubt), s.none_sheet_cap)


def widened(cell: CellReading, floor: float | None = None, sure_floor: float | None = None,
            settings: TrustSettings = DEFAULT.trust) -> CellReading:
    """``cell`` with "none of these" at least ``floor`` (default: the settings' none_floor;
    ``sure_floor`` instead, when lower, if the reader read it at least sure_at sure) and
    none_slope x the doubt about its best value; its values keep their proportions (those the
    reader dropped as unlikely included)."""
    s = settings
    floor = s.none_floor if floor is None else floor
    values = [(v, float(p)) for v, p in cell.candidates if v is not None]
    none = sum(float(p) for v, p in cell.candidates if v is None)
    kept = 1.0 - none  # the values' share of the reader's whole list
    if cell.blank or cell.person or not values or kept <= 0:  # a person's reading is certain
        return cell
    top, best = max(values, key=lambda vp: vp[1])
    if top == 0:
        # read as empty: whether a cell holds ink is not what makes a sheet hard to read, and a
        # cell read empty that sure almost never holds writing -- the plain floor, not the sheet's
        floor = min(floor, s.none_floor)
    elif sure_floor is not None and best >= s.sure_at:
        floor = min(floor, sure_floor)
    share = max(none, floor)
    best = best / kept * (1 - share)
    share = max(share, s.none_slope * (1 - best))
    scale = (1 - share) / kept
    cands = [(v, p * scale) for v, p in values if p * scale >= s.min_candidate]
    cands.append((None, share))
    cands.sort(key=lambda c: -c[1])
    return dataclasses.replace(cell, candidates=cands[:s.max_candidates])


def trusted(reading: SheetReading, settings: TrustSettings = DEFAULT.trust) -> SheetReading:
    """``reading`` with every written number cell widened by its sheet's floor (reading.meta's
    "doubt"; a cell read as empty by none_floor, a sure cumulative on an easy sheet by sure_floor);
    a reading without a doubt is returned as it is."""
    s = settings
    doubt = reading.meta.get("doubt")
    if doubt is None:
        return reading
    floor = sheet_none_floor(float(doubt), s)
    sure = s.sure_floor if float(doubt) < s.sure_doubt else None

    def row(r: RowReading) -> RowReading:
        return dataclasses.replace(r, cells={
            c: widened(cell, floor, sure if c.startswith("cum_") else None, s)
            if c in NUMBER_COLUMNS else cell
            for c, cell in r.cells.items()})

    return dataclasses.replace(reading, rows=[row(r) for r in reading.rows],
                               total=row(reading.total) if reading.total is not None else None)
