"""Is this scan worth reading, or should the organiser ask for a better one?

A fax of pencil writing, or a washed-out photo, can leave numbers a person barely makes out; the
reader then reads most of the sheet's written numbers as "none of these" or gives no value an even
chance, and reconciliation can only send them to review one by one.  When that is much of the
sheet the useful answer is a sheet-level one: ask the players for a clearer scan.  Pure: works on
the reader's candidates (scoring.sheet.SheetReading) as the reader gave them.
"""

from __future__ import annotations

from scoring.formspec import NUMBER_COLUMNS
from scoring.reconcile import messages
from scoring.reconcile.settings import DEFAULT, RescanSettings
from scoring.sheet import CellReading, SheetReading


def unread_cells(reading: SheetReading,
                 settings: RescanSettings = DEFAULT.rescan) -> tuple[int, int]:
    """(written numbers not read, written numbers) over the deal rows and the Total row."""
    rows = reading.rows + ([reading.total] if reading.total is not None else [])
    cells = [cell for row in rows for col, cell in row.cells.items() if col in NUMBER_COLUMNS]
    return count_unread(cells, settings)


def count_unread(cells: list[CellReading | None],
                 settings: RescanSettings = DEFAULT.rescan) -> tuple[int, int]:
    """(written numbers not read, written numbers) among number ``cells``: a cell is written when
    the reader gave it candidates and did not read it blank."""
    written = [cell for cell in cells if cell is not None and cell.candidates and not cell.blank]
    return sum(unread(cell, settings) for cell in written), len(written)


def unread(cell: CellReading, settings: RescanSettings = DEFAULT.rescan) -> bool:
    """Whether the reader gave no value of a written ``cell`` unread_below or more."""
    best = max((float(p) for v, p in cell.candidates if v is not None), default=0.0)
    return best < settings.unread_below


def rescan_advice(reading: SheetReading, settings: RescanSettings = DEFAULT.rescan) -> str | None:
    """A message asking for a better scan, or None when the sheet is legible enough to read."""
    unread, written = unread_cells(reading, settings)
    if unread < settings.rescan_min or unread < settings.rescan_share * written:
        return None
    return messages.rescan(unread, written)
