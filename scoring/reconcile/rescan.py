"""Is this scan worth reading, or should the organiser ask for a better one?

A fax of pencil writing, or a washed-out photo, can leave numbers a person barely makes out; the
reader then reads most of the sheet's written numbers as "none of these" or gives no value an even
chance, and reconciliation can only send them to review one by one.  When that is much of the
sheet the useful answer is a sheet-level one: ask the players for a clearer scan.  Pure: works on
the reader's candidates (scoring.sheet.SheetReading) as the reader gave them.

On the 879 generated sheets of the reconciliation benchmark (bench/RESULTS-reconcile.md, round 17)
the share of written numbers read with no value >= 0.5 is 0.28-1.0 on six faxes of pencil writing
(three all but blank, three whose strokes came through as scattered dots: a person makes them out
with effort, the reader misses 11-39 truths from its top 3 on each) and 0-0.24 on the other 873
(the highest, 0.24, a washed-out phone photo of pencil).
"""

from __future__ import annotations

from scoring.sheet import NUMBER_COLUMNS, CellReading, SheetReading

UNREAD_BELOW = 0.5  # a written number whose likeliest value is less probable than this is "not read"
RESCAN_SHARE = 0.25  # ... and when at least this share of the written numbers are ...
RESCAN_MIN = 10  # ... and at least this many, the sheet is worth scanning again


def unread_cells(reading: SheetReading) -> tuple[int, int]:
    """(written numbers not read, written numbers) over the deal rows and the Total row."""
    rows = reading.rows + ([reading.total] if reading.total is not None else [])
    cells = [cell for row in rows for col, cell in row.cells.items()
             if col in NUMBER_COLUMNS and cell is not None and cell.candidates and not cell.blank]
    return sum(_unread(cell) for cell in cells), len(cells)


def _unread(cell: CellReading) -> bool:
    return max((float(p) for v, p in cell.candidates if v is not None), default=0.0) < UNREAD_BELOW


def rescan_advice(reading: SheetReading) -> str | None:
    """A message asking for a better scan, or None when the sheet is legible enough to read."""
    unread, written = unread_cells(reading)
    if unread < RESCAN_MIN or unread < RESCAN_SHARE * written:
        return None
    return (f"{unread} of the {written} written numbers could not be read with confidence: the writing "
            "is too faint or broken up in this scan. Ask the players for a clearer scan or photo "
            "(pencil often does not survive a fax).")
