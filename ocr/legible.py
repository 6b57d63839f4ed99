"""A photo whose writing is too small, faint or blurred to read: a far sheet's rows of writing get a
few photo pixels, a dim or shaken photo of pencil leaves strokes a reader cannot tell apart, and the
reader's readings of them are often wrong however sure it is.  Measured on the
photo itself (its cells' outlines on Page.image) and on how much of it the reader could read, never
on a scan or a fax; the rows concerned are named in the reading's meta, so reconciliation puts their
numbers in review and asks for a closer photo."""

from __future__ import annotations

import numpy as np

from ocr.data import Table, deal_spans
from ocr.settings import ReaderSettings
from scoring.formspec import NUMBER_COLUMNS
from scoring.reconcile.rescan import count_unread
from scoring.sheet import CellReading


def row_heights(table: Table) -> dict[int, float]:
    """Deal -> how many photo pixels its number cells are high: the median short side of their
    outlines on the photo (Page.image)."""
    sides: dict[int, list[float]] = {}
    for c in table.cells:
        if c.key in NUMBER_COLUMNS and c.deal is not None:
            q = np.asarray(c.quad, np.float64).reshape(4, 2)
            sides.setdefault(c.deal, []).append(min(float(np.linalg.norm(q[1] - q[0])),
                                                    float(np.linalg.norm(q[2] - q[1]))))
    return {deal: float(np.median(s)) for deal, s in sides.items()}


def unread_share(readings: list[CellReading]) -> float:
    """The share of the written number cells (not read blank) whose likeliest value is less than
    even (scoring.reconcile.rescan's "not read")."""
    unread, written = count_unread(readings)
    return unread / written if written else 0.0


def small_writing(table: Table, readings: list[CellReading], settings: ReaderSettings) -> dict | None:
    """The reading meta's "small_writing" for a photographed table (straightened from its lattice):
    the deals whose rows are less than ReaderSettings.small_writing_px photo pixels high (all of a
    table found on a far sheet only enlarged: Table.far) -- or
    every deal, where the rows are on the whole (their median) under blurred_writing_px and the
    reader could not read blurred_unread_share of the written numbers (``readings``: the number
    cells'), the writing blurred as well as small; or every deal, whatever the rows' height, where
    it could not read faint_unread_share of them ("faint": too faint or blurred) -- with the rows'
    height, the cause and the message asking for a closer or better photo; None when no row is
    concerned."""
    if table.straight.grid is None or settings.small_writing_px <= 0:
        return None
    heights = row_heights(table)
    if not heights:
        return None
    small = sorted(d for d, h in heights.items() if h < settings.small_writing_px or table.far)
    share = unread_share(readings)
    blurred = (float(np.median(list(heights.values()))) < settings.blurred_writing_px
               and share >= settings.blurred_unread_share)
    faint = not blurred and share >= settings.faint_unread_share
    # nearly every number cell read blank or 0: a sheet filled in shows writing in most
    # cumulative cells, so its writing is too faint to be seen at all (it would pass for zeros)
    unseen = (not blurred and not faint and bool(readings) and len(small) < len(heights)
              and sum(_nothing(r) for r in readings) >= settings.faint_blank_share * len(readings))
    faint = faint or unseen
    if blurred or faint:
        small = sorted(heights)
    if not small:
        return None
    px = float(np.median([heights[d] for d in small]))
    if unseen:
        message = ("next to no writing could be seen in this photo's table (its writing too faint or "
                   "blurred): take another photo in good light, holding the phone still, with the sheet "
                   "filling the frame; its numbers are to be checked.")
        return {"deals": small, "px": round(px, 1), "cause": "faint", "message": message}
    if faint:
        message = (f"the writing is too faint or blurred in this photo to be read surely ({share:.0%} of its "
                   "numbers could not be read): take another photo in good light, holding the phone still, "
                   "with the sheet filling the frame; its numbers are to be checked.")
        return {"deals": small, "px": round(px, 1), "cause": "faint", "message": message}
    if len(small) == len(heights):
        which = "the writing is"
    else:
        which = ("the writing of deals " if len(small) > 1 else "the writing of deal ") + deal_spans(small) + " is"
    what = "too small or blurred" if blurred else "too small"
    message = (f"{which} {what} in this photo to be read surely (rows {px:.0f} pixels high): "
               "take the photo closer, with the sheet filling the frame; its numbers are to be checked.")
    return {"deals": small, "px": round(px, 1), "cause": "blurred" if blurred else "small", "message": message}


def _nothing(cell: CellReading) -> bool:
    """Whether ``cell`` reads as nothing written: read blank, or its likeliest value 0 (a likeliest
    "none of these" is a cell not read: unread_share's)."""
    return cell.blank or not cell.candidates or max(cell.candidates, key=lambda c: c[1])[0] == 0
