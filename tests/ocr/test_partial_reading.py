"""ocr.partial and the Missing messages: what a picture does not show enters the reading as cells
that cannot be read, never as blanks."""

from __future__ import annotations

from ocr.data import DEAL_COLUMNS, Missing
from ocr.partial import add_missing, missing_meta
from scoring.sheet import CellReading, RowReading


def _row(deal: int) -> RowReading:
    return RowReading(deal, {k: CellReading([(0, 0.9)]) for k in DEAL_COLUMNS})


def test_missing_rows_and_cells_become_unreadable_in_printed_order():
    rows = [_row(d) for d in range(1, 24)]
    rows[4].cells.pop("ns")  # deal 5's N/S cell was under the glare: no cell for it
    gaps = [Missing(list(range(24, 31)), Missing.OUTSIDE), Missing([5], Missing.GLARE, ("ns",))]
    out = add_missing(rows, gaps)
    assert [r.deal for r in out] == list(range(1, 31))
    assert out[4].cells["ns"].candidates == [(None, 1.0)]  # "cannot read", not a blank 0
    assert out[4].cells["ew"].best == 0  # the rest of the row as read
    assert all(out[d - 1].cells[k].candidates == [(None, 1.0)] for d in range(24, 31) for k in DEAL_COLUMNS)
    assert [m["message"] for m in missing_meta(gaps)] == [
        "deals 24-30 are outside the photo", "glare over deal 5 (score N/S): ask for another photo"]


def test_messages_name_the_deals_as_ranges():
    assert Missing([3, 1, 2, 7], Missing.UNREADABLE).message == (
        "deals 1-3, 7 are too faint or blurred to read: ask for another photo")
    assert Missing([30], Missing.OUTSIDE).message == "deal 30 is outside the photo"


def test_the_reader_reads_a_table_with_rows_missing_as_unreadable_rows():
    """ocr.read.read_table on a Table whose deals 25-30 are named missing (their cells left out):
    the reading still has rows 1-30, the missing ones unreadable, and carries the messages."""
    from pathlib import Path

    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.read import read_table
    from ocr.table import find_table

    scan = Path(__file__).resolve().parents[2] / "samples" / "scans" / "01-classic-clean-mnist-blue.jpg"
    table = find_table(straighten(load_pages(scan)[0]))
    table.cells = [c for c in table.cells if not (c.row.isdigit() and int(c.row) >= 25)]
    table.missing = [Missing(list(range(25, 31)), Missing.OUTSIDE)]
    reading = read_table(table)
    assert [r.deal for r in reading.rows] == list(range(1, 31))
    assert reading.rows[26].cells["cum_ns"].candidates == [(None, 1.0)]
    assert reading.rows[0].cells["cum_ns"].best is not None
    assert reading.meta["missing"][0]["message"] == "deals 25-30 are outside the photo"
