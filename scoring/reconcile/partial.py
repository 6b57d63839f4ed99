"""A sheet whose picture does not show all of it: the reading's meta names what is missing and
why (ocr/partial.py: outside the photo, under glare, too faint); this tells the user so.

Each missing cell's review item says why it is missing instead of "could not be read"; the sheet
carries the messages ("deals 24-30 are outside the photo"); when the last deal's cumulatives are
among them the totals are not known (the last cumulatives read are not the match's), and the
advice to scan again is taken on the cells the picture does show (a part cut off is not faint
writing)."""

from __future__ import annotations

from dataclasses import replace

from scoring.reconcile.rescan import rescan_advice
from scoring.reconcile.settings import DEFAULT, RescanSettings
from scoring.sheet import ReconciledSheet, RowReading, SheetReading


def apply_missing(reading: SheetReading, sheet: ReconciledSheet,
                  settings: RescanSettings = DEFAULT.rescan) -> ReconciledSheet:
    """``sheet`` told what its reading's picture does not show (reading.meta["missing"])."""
    missing = reading.meta.get("missing") or []
    if not missing:
        return sheet
    why: dict[tuple[int, str], str] = {}
    for gap in missing:
        for deal in gap["deals"]:
            for key in gap["columns"]:
                why[(deal, key)] = gap["message"]
    for item in sheet.review:
        if item.deal is not None and (item.deal, item.column) in why:
            item.reason = why[(item.deal, item.column)]
    last = max((r.deal for r in reading.rows), default=None)
    if last is not None and any((last, key) in why for key in ("cum_ns", "cum_ew")):
        sheet.totals = {"ns": None, "ew": None}
        sheet.winners = reading.winners_hint if reading.winners_hint in ("ns", "ew") else None
    shown = [RowReading(r.deal, {k: c for k, c in r.cells.items() if (r.deal, k) not in why})
             for r in reading.rows]
    sheet.rescan = rescan_advice(replace(reading, rows=shown), settings)
    sheet.missing = [gap["message"] for gap in missing]
    return sheet
