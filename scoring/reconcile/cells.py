"""The cell model: a number cell's candidate readings as the decoder's options and costs.

A cell's candidates become options (cost = -log p), "cannot be read", and a price for any value
the reader did not propose (the arithmetic may imply one): the residual probability spread over
the plausible values, more for a value unlike what the reader read (:func:`misread_shape`), or,
one digit off its best reading, by the reader's own odds of that digit (``CellReading.near``).
On a sheet the reader found hard, the candidates are flattened first (:func:`sheet_temperature`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from scoring.formspec import NUMBER_COLUMNS
from scoring.reconcile.settings import DEFAULT, MisreadSettings, ReconcileSettings
from scoring.sheet import CellReading, RowReading, SheetReading


@dataclass(frozen=True)
class Option:
    """One way to read a cell."""

    value: int | None  # None: cannot be read
    cost: float


@dataclass
class CellModel:
    """A number cell's readings as the decoder sees them."""

    options: list[Option]
    other_cost: float  # cost of a value none of the options gives
    present: bool = True  # False: the form has no such cell
    read: tuple[int, ...] = ()  # the written numbers the reader proposed (shape_cost)
    shape_scale: float = 1.0  # shape_cost's weight here (less on a hard sheet)
    best: int | None = None  # the reader's most probable number (near_cost) ...
    near: dict[int, float] | None = None  # ... and its one-digit variants' odds (CellReading.near)
    sure: bool = False  # the best reading at least MisreadSettings.near_sure_at probable
    misread: MisreadSettings = field(default=DEFAULT.misread, repr=False)

    def __post_init__(self) -> None:
        self.values = {o.value for o in self.options}
        self.choices = [(o.value, o.cost, "read" if o.value is not None else "none")
                        for o in self.options]

    def other(self, value: int) -> float:
        """The cost of ``value`` when the reader did not propose it."""
        if not self.read:
            return self.other_cost
        if self.near is not None and self.best and value \
                and misread_shape(self.best, value) == "digit":
            odds = self.near.get(value, self.misread.near_floor)
            return self.other_cost + self.shape_scale * near_cost(odds, self.misread, self.sure)
        return self.other_cost + self.shape_scale * shape_cost(self.read, value, self.misread)

    def likely_variants(self, at: float, count: int) -> list[int]:
        """Up to ``count`` one-digit variants of the reader's best number, not among its options,
        that it finds at least 10 ** ``at`` as likely (most likely first)."""
        if not self.near or not self.best or count <= 0:
            return []
        found = sorted(((o, v) for v, o in self.near.items()
                        if o >= at and v and v % 10 == 0 and v not in self.values), reverse=True)
        return [v for _, v in found[:count]]

    def p(self, value: int) -> float:
        """The reader's own probability of a number ``value`` (0 = blank), as modelled here."""
        return sum(math.exp(-o.cost) for o in self.options if o.value == value)


def misread_shape(read: int, value: int) -> str:
    """How the reader's ``read`` differs from a written ``value``: "same", "digit" (one digit),
    "lost" (``value`` with one digit left out), "extra" (one digit more), "swap" (two neighbouring
    digits swapped) or "far"."""
    a, b = str(read), str(value)
    if a == b:
        return "same"
    if len(a) == len(b):
        wrong = [i for i in range(len(a)) if a[i] != b[i]]
        if len(wrong) == 1:
            return "digit"
        if len(wrong) == 2 and wrong[1] == wrong[0] + 1 and a[wrong[0]] == b[wrong[1]] \
                and a[wrong[1]] == b[wrong[0]]:
            return "swap"
        return "far"
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    if len(long_) == len(short) + 1 \
            and any(long_[:i] + long_[i + 1:] == short for i in range(len(long_))):
        return "lost" if short == a else "extra"
    return "far"


def shape_cost(read: tuple[int, ...], value: int,
               misread: MisreadSettings = DEFAULT.misread) -> float:
    """Extra cost of an unproposed ``value`` for a cell whose proposals are ``read`` (the closest
    proposal counts); 0 where the reader proposed no written number; ``shape_blank`` where
    ``value`` is 0 (a blank where the reader read a number)."""
    if not read:
        return 0.0
    if not value:
        return misread.shape_blank
    costs = {"same": 0.0, "digit": misread.shape_digit, "lost": misread.shape_lost,
             "extra": misread.shape_extra, "swap": misread.shape_swap, "far": misread.shape_far}
    return min(costs[misread_shape(r, value)] for r in read)


def near_cost(odds: float, misread: MisreadSettings = DEFAULT.misread, sure: bool = False) -> float:
    """Extra cost of a value one digit off the reader's best that the reader finds 10 ** odds as
    likely (MisreadSettings.near_slope); with ``misread.near_sure``, by the steeper near_sure_*
    line where the best reading is ``sure``."""
    if sure and misread.near_sure:
        line = misread.near_sure_slope * (misread.near_sure_pivot - odds)
        return min(max(line, misread.near_min), misread.near_sure_max)
    return min(max(misread.near_slope * (misread.near_pivot - odds), misread.near_min),
               misread.near_max)


# ----------------------------------------------------------------------------- the sheet's doubt
def sheet_doubt(reading: SheetReading) -> float:
    """How hard the reader found this sheet's numbers: the mean of 1 - (probability of the best
    value) over its written number cells (deal rows and Total row)."""
    rows = reading.rows + ([reading.total] if reading.total is not None else [])
    doubts = [min(max(1.0 - max((float(p) for v, p in cell.candidates if v is not None),
                                default=0.0), 0.0), 1.0)
              for row in rows for col, cell in row.cells.items()
              if col in NUMBER_COLUMNS and cell.candidates and not is_blank(cell)]
    return sum(doubts) / len(doubts) if doubts else 0.0


def sheet_temperature(reading: SheetReading, settings: ReconcileSettings = DEFAULT) -> float:
    """The temperature that flattens this sheet's number candidates (CellSettings.sheet_temp):
    on a hard sheet a sure-looking reading is wrong far more often than on an easy one."""
    return 1.0 + settings.cells.sheet_temp * sheet_doubt(reading)


# ----------------------------------------------------------------------------- one cell
def values(candidates) -> tuple[dict[object, float], float]:
    """A number cell's candidates as value -> probability (None: "none of these"), and the total
    probability listed."""
    merged: dict[object, float] = defaultdict(float)
    listed = 0.0
    for value, p in candidates:
        v, p = as_int(value), max(float(p), 0.0)
        listed += p
        if v is not None and v < 0:
            continue
        if v is not None and v % 10:
            # every score, so every cumulative, ends in 0: a last digit read as 6 or 7 is a 0
            # misread (47 -> 40); a lone digit lost its 0 (4 -> 40)
            v = v - v % 10 if v >= 10 else v * 10
        merged[v] += p
    return merged, listed


def cell_model(cell: CellReading | None, temperature: float = 1.0,
               settings: ReconcileSettings = DEFAULT) -> CellModel:
    """Turn a number cell's candidates into decoder options (cost = -log p); a written cell's
    candidates flattened by ``temperature`` first (same order, same total)."""
    s = settings.cells
    if cell is None:
        return CellModel([Option(None, 0.0)], other_cost=0.0, present=False,
                         misread=settings.misread)
    candidates = cell.candidates
    if temperature != 1.0 and candidates and not is_blank(cell) \
            and not (as_int(cell.best) == 0 and cell.confidence >= s.zero_sure_at):
        flat = flatten([float(p) for _, p in candidates], temperature,
                       sum(max(float(p), 0.0) for _, p in candidates))
        candidates = [(v, q) for (v, _), q in zip(candidates, flat, strict=True)]
    merged, listed = values(candidates)
    kept = sum(merged.values())
    if kept <= 0:
        merged, kept = {0 if cell.blank and not cell.candidates else None: 1.0}, 1.0
    total = min(listed, 1.0) if listed > 0 else 1.0
    merged = {v: p * total / kept for v, p in merged.items()}
    none_p = merged.get(None, 0.0)
    extra = 0.0
    if none_p and any(v is not None and p > none_p for v, p in merged.items()):
        # a minor None is the reader's "none of these" (as trust.py widened it): some value it
        # did not propose, as likely the one the arithmetic implies as any other -- not a cell
        # that cannot be read
        del merged[None]
        total -= none_p
    elif none_p and none_p < s.unreadable_at:
        # the proposals together outweigh "none of these": its mass is some other value's too,
        # and "cannot be read" costs a little more than one such value
        total -= none_p
        extra = s.other_spread - s.unread_cost + s.unknown_over_other
    ranked = sorted(merged.items(), key=lambda vp: -vp[1])[:s.max_options]
    options = [Option(v, -math.log(max(p, s.min_p))
                      + (s.unread_cost + extra if v is None and len(ranked) > 1 else 0.0))
               for v, p in ranked if p >= s.min_p]
    other = -math.log(max(1.0 - total, s.min_p)) + s.other_spread
    # the shapes were measured where the reader read a number (its best proposal no "none of
    # these"): where it could not, its proposals say little about what is written
    read = tuple(sorted(o.value for o in options if o.value)) \
        if ranked and ranked[0][0] is not None else ()
    return CellModel(options or [Option(None, 0.0)], other_cost=other, read=read,
                     shape_scale=temperature ** -s.shape_power if read else 1.0,
                     best=ranked[0][0] if read else None, near=cell.near if read else None,
                     sure=bool(read) and ranked[0][1] >= settings.misread.near_sure_at,
                     misread=settings.misread)


def flatten(ps: list[float], temperature: float, total: float) -> list[float]:
    """``ps`` (negatives as 0) raised to 1 / ``temperature`` and rescaled to sum to ``total``."""
    flat = [max(p, 0.0) ** (1.0 / temperature) for p in ps]
    scale = total / (sum(flat) or 1.0)
    return [q * scale for q in flat]


def as_int(value) -> int | None:
    """A candidate value as an int, or None when it is not a whole number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def is_blank(cell: CellReading | None) -> bool:
    """No cell, a cell read as blank, or one with no candidates."""
    if cell is None:
        return True
    if cell.blank:
        return True
    return not cell.candidates


# ----------------------------------------------------------------------------- rows
def is_empty(row: RowReading, settings: ReconcileSettings = DEFAULT) -> bool:
    """Nothing written in the row: both cumulatives blank (or read as 0 less surely than
    CellSettings.speck_below: a speck, not a cumulative), no dealer and no score that reads as a
    number other than 0 (specks on a fax read as "unreadable", not as a deal)."""
    for col in ("cum_ns", "cum_ew"):
        cell = row.cells.get(col)
        if not is_blank(cell) and not (as_int(cell.best) == 0
                                       and cell.confidence < settings.cells.speck_below):
            return False
    dealer = row.cells.get("dealer")
    if dealer is not None and not is_blank(dealer) and dealer.best is not None \
            and dealer.confidence >= 0.5:
        return False
    for col in ("ns", "ew"):
        cell = row.cells.get(col)
        if cell is not None and not is_blank(cell):
            best = as_int(cell.best)
            if best is not None and best > 0 and best % 10 == 0:
                return False
    return True


def trim(rows: list[RowReading], settings: ReconcileSettings = DEFAULT) -> list[RowReading]:
    """The rows up to the last one with anything written (printed blank rows dropped)."""
    rows = sorted(rows, key=lambda r: r.deal)
    while rows and is_empty(rows[-1], settings):
        rows = rows[:-1]
    return rows


def total_models(total: RowReading | None, temperature: float = 1.0,
                 settings: ReconcileSettings = DEFAULT) -> dict[str, CellModel] | None:
    """The Total row's cells as cell models, by side (None: no Total row, or nothing in it)."""
    if total is None:
        return None
    out = {}
    for side in ("ns", "ew"):
        cell = total.cells.get("cum_" + side) or total.cells.get(side)
        if cell is not None and not is_blank(cell):
            out[side] = cell_model(cell, temperature, settings)
    return out or None
