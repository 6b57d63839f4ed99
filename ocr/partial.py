"""A partly readable sheet: the rows and cells its picture does not show readably (ocr.data.Missing)
enter the reading as cells that cannot be read, so reconciliation puts each in review and never
takes the paper where they should be for a blank."""

from __future__ import annotations

from ocr.data import Missing
from scoring.sheet import CellReading, RowReading


def add_missing(rows: list[RowReading], missing: list[Missing]) -> list[RowReading]:
    """``rows`` (in printed order) with every cell of ``missing`` as "cannot read" (its row added
    where the picture shows none of it), still in printed order."""
    by_deal = {r.deal: r for r in rows}
    for gap in missing:
        for deal in gap.deals:
            row = by_deal.setdefault(deal, RowReading(deal=deal, cells={}))
            for key in gap.keys:
                row.cells[key] = CellReading([(None, 1.0)])
    return [by_deal[d] for d in sorted(by_deal)]


def missing_meta(missing: list[Missing]) -> list[dict]:
    """What the reading's meta carries for reconciliation and the output (Missing.to_json)."""
    return [m.to_json() for m in missing]
