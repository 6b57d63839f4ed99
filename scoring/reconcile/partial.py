"""A sheet whose picture does not show all of it: the reading's meta names what is missing and
why (ocr/partial.py: outside the photo, under glare, too faint); this tells the user so.

Each missing cell's review item says why it is missing instead of "could not be read"; the sheet
carries the messages ("deals 24-30 are outside the photo"); when the last deal's cumulatives are
among them the totals are not known (the last cumulatives read are not the match's), and the
advice to scan again is taken on the cells the picture does show (a part cut off is not faint
writing).  A photo whose writing is too small to read surely (ocr/legible.py) keeps its readings,
all in review, and asks for a closer photo; so does a photo whose reconciled sheet leaves much of
it in doubt (apply_doubtful)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from scoring.formspec import NUMBER_COLUMNS
from scoring.reconcile import messages
from scoring.reconcile.rescan import rescan_advice
from scoring.reconcile.settings import DEFAULT, RescanSettings
from scoring.sheet import CellReading, ReconciledSheet, ReviewItem, RowReading, SheetReading

# the reasons (ocr.data.Missing) of cells the light hid, whose neighbours it dimmed
DIMMED = ("under glare", "too faint or blurred to read")


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
    if settings.beside_missing:
        # a deal's numbers shown beside its cells the glare or blur hid: the light that washed those
        # out dimmed these too, and with its score unseen nothing checks its cumulative
        hidden = {deal: gap["message"] for gap in missing if gap.get("reason") in DIMMED
                  for deal in gap["deals"]}
        _ask(sheet, lambda deal, col, value: messages.beside_missing(value, hidden[deal])
             if deal in hidden and value is not None else None)
    last = max((r.deal for r in reading.rows), default=None)
    if last is not None and any((last, key) in why for key in ("cum_ns", "cum_ew")):
        sheet.totals = {"ns": None, "ew": None}
        sheet.winners = reading.winners_hint if reading.winners_hint in ("ns", "ew") else None
    shown = [RowReading(r.deal, {k: c for k, c in r.cells.items() if (r.deal, k) not in why})
             for r in reading.rows]
    sheet.rescan = rescan_advice(replace(reading, rows=shown), settings)
    sheet.missing = [gap["message"] for gap in missing]
    return sheet


def apply_small(reading: SheetReading, sheet: ReconciledSheet,
                settings: RescanSettings = DEFAULT.rescan) -> ReconciledSheet:
    """``sheet`` told that its photo's writing is too small to read surely in the rows its reading's
    meta names (reading.meta["small_writing"], ocr/legible.py): each number shown in them goes to
    review (those already there keep their item), and the sheet asks for a closer photo (its
    ``rescan``).  The values shown are the reading's as they are: a person checks them.  So do the
    cells of the rows after the last one shown that the reader did not read surely blank."""
    small = reading.meta.get("small_writing")
    if not small:
        return sheet
    deals = set(small["deals"])
    cause = small.get("cause", "small")
    _ask(sheet, lambda deal, col, value: messages.small_writing(value, cause)
         if deal in deals else None)
    # rows after the last one shown (read empty, so left off): a cell not surely blank may hold
    # writing the reader could not see
    last = max((row.deal for row in sheet.rows), default=0)
    for row in reading.rows:
        if row.deal > last and row.deal in deals:
            for col in NUMBER_COLUMNS:
                cell = row.cells.get(col)
                if cell is None or not (cell.blank and _blank_p(cell) >= settings.small_blank_sure):
                    sheet.review.append(ReviewItem(row.deal, col, [(None, 0.0)],
                                                   messages.small_writing(None, cause)))
    _in_order(sheet)
    sheet.rescan = small["message"]  # in place of a scan's "too faint": the cause and the cure told
    return sheet


def _blank_p(cell: CellReading) -> float:
    return max((float(p) for v, p in cell.candidates if v == 0), default=0.0)


def apply_unread(reading: SheetReading, sheet: ReconciledSheet,
                 settings: RescanSettings = DEFAULT.rescan) -> ReconciledSheet:
    """``sheet`` of a photo (reading.meta["photo"]) with each number the reader saw ink in but could
    not read (its likeliest reading "none of these") and the arithmetic filled in review: on a photo
    the arithmetic of misread neighbours fills such a cell wrong as readily as right."""
    if not reading.meta.get("photo") or not settings.photo_unread_filled:
        return sheet
    cells = {(row.deal, col): cell for row in reading.rows for col, cell in row.cells.items()}

    def unread(deal: int, col: str) -> bool:  # ink the reader saw, "none of these" its likeliest
        cell = cells.get((deal, col))
        return cell is not None and not cell.blank and bool(cell.candidates) and cell.best is None

    _ask(sheet, lambda deal, col, value: messages.unread_filled(value)
         if value not in (None, 0) and unread(deal, col) else None)
    return sheet


def apply_doubtful(reading: SheetReading, sheet: ReconciledSheet,
                   settings: RescanSettings = DEFAULT.rescan) -> ReconciledSheet:
    """``sheet`` of a photo (reading.meta["photo"]) with at least RescanSettings.photo_doubt_share
    of its numbers shown (not blank or 0) in review: the rest go to review too, and the sheet asks
    for another photo.  A dim or shaken photo misread that much leaves the arithmetic a coherent
    but wrong story to settle on (a misread cumulative copied down the rows), shown as sure where
    it fits."""
    if not reading.meta.get("photo"):
        return sheet
    shown = [(row.deal, col) for row in sheet.rows for col in NUMBER_COLUMNS if row.values.get(col)]
    asked = {(item.deal, item.column) for item in sheet.review}
    doubtful = sum(cell in asked for cell in shown)
    if doubtful < settings.rescan_min or doubtful < settings.photo_doubt_share * len(shown):
        return sheet
    _ask(sheet, lambda deal, col, value: messages.small_writing(value, "faint")
         if value is not None else None)
    if sheet.rescan is None:  # (a photo sent back already keeps its reason)
        sheet.rescan = messages.doubtful_photo(doubtful / len(shown))
    return sheet


def apply_sent_back(reading: SheetReading, sheet: ReconciledSheet,
                    settings: RescanSettings = DEFAULT.rescan) -> ReconciledSheet:
    """``sheet`` sent back for another picture (its ``rescan`` set): on a scan, each number shown
    (not 0) goes to review too -- the faint writing that was not read makes the rest doubtful --
    and every number cell in review, on a scan or a photo, is shown no surer than
    ``settings.sent_back_confidence``, in its row and its review item: the arithmetic of a sheet
    read that poorly settles on its story with a confidence its readings do not have."""
    if sheet.rescan is None:
        return sheet
    photo = reading.meta.get("photo") or reading.meta.get("small_writing")  # (only photos have it)
    if not photo and settings.scan_sent_back_all:
        _ask(sheet, lambda deal, col, value: messages.faint_scan(value)
             if value not in (None, 0) else None)
    cap = settings.sent_back_confidence
    asked = {(item.deal, item.column) for item in sheet.review if item.column in NUMBER_COLUMNS}
    for row in sheet.rows:
        for col in NUMBER_COLUMNS:
            if (row.deal, col) in asked and col in row.confidence:
                row.confidence[col] = min(row.confidence[col], cap)
    for item in sheet.review:
        if item.column in NUMBER_COLUMNS:
            item.candidates = [(v, min(p, cap)) for v, p in item.candidates]
    return sheet


def _ask(sheet: ReconciledSheet, reason: Callable[[int, str, object], str | None]) -> None:
    """A review item on each number cell of ``sheet``'s rows that no item asks about yet and that
    ``reason(deal, column, value shown)`` gives a reason for (None: not asked), with the value shown
    and its confidence; the review then in the sheet's order."""
    asked = {(item.deal, item.column) for item in sheet.review}
    for row in sheet.rows:
        for col in NUMBER_COLUMNS:
            value = row.values.get(col)
            why = None if (row.deal, col) in asked else reason(row.deal, col, value)
            if why is not None:
                shown = [(value, round(row.confidence.get(col, 0.0), 4))]
                sheet.review.append(ReviewItem(row.deal, col, shown, why))
    _in_order(sheet)


def _in_order(sheet: ReconciledSheet) -> None:
    """``sheet``'s review items by deal (the sheet's own last), then column."""
    sheet.review.sort(key=lambda r: (r.deal if r.deal is not None else 10**6, r.column))
