"""Sheets too poorly scanned to read well get a request for a better scan (scoring/reconcile/rescan.py)."""

from __future__ import annotations

from report.text import sheet_text
from samples.generate import generate_sheet
from scoring.reconcile import reconcile
from scoring.reconcile.rescan import rescan_advice, unread_cells
from scoring.reconcile.settings import RescanSettings
from scoring.sheet import CellReading, RowReading, SheetReading


def reading_with(unread: int, written: int, blanks: int = 0) -> SheetReading:
    """A sheet of ``written`` written number cells (the first ``unread`` of them read with no value
    even 0.5 likely) and ``blanks`` blank ones, four to a row."""
    cells = [CellReading([(None, 0.6), (120, 0.3), (170, 0.1)]) if k < unread else CellReading([(120, 0.97), (None, 0.03)])
             for k in range(written)] + [CellReading([(0, 0.995), (None, 0.005)], blank=True)] * blanks
    rows = [RowReading(deal=i // 4 + 1, cells={}) for i in range(0, len(cells), 4)]
    for k, cell in enumerate(cells):
        rows[k // 4].cells[("ns", "ew", "cum_ns", "cum_ew")[k % 4]] = cell
    return SheetReading(source="t", rows=rows)


def test_unread_share_decides():
    assert unread_cells(reading_with(30, 100, blanks=20)) == (30, 100)  # blanks are not counted
    assert rescan_advice(reading_with(30, 100)) is not None
    assert "30 of the 100 written numbers" in rescan_advice(reading_with(30, 100))
    assert rescan_advice(reading_with(20, 100)) is None  # a fifth unread: review them one by one
    # a short sheet needs at least RescanSettings.rescan_min unread numbers, whatever the share
    RESCAN_MIN = RescanSettings().rescan_min
    assert rescan_advice(reading_with(RESCAN_MIN - 1, 12)) is None
    assert rescan_advice(reading_with(RESCAN_MIN, 12)) is not None


def test_a_value_at_even_odds_counts_as_read():
    # "none of these" ahead but a value at 0.5: the reader has read it, if unsurely
    sheet = reading_with(0, 40)
    for row in sheet.rows:
        row.cells["ns"] = CellReading([(None, 0.5), (300, 0.5)])
    assert unread_cells(sheet) == (0, 40)


def test_reconciled_output_carries_the_advice_only_when_given():
    faint = reconcile(reading_with(40, 100), explain=False).to_json()
    assert "ask the players for a clearer scan" in faint["rescan"].lower()
    assert "ask for a better scan" in sheet_text(faint)
    fine = reconcile(reading_with(2, 100), explain=False).to_json()
    assert "rescan" not in fine  # CONTRACT.md's keys, nothing more
    assert "better scan" not in sheet_text(fine)


def test_a_fax_of_pencil_is_sent_back_and_a_clean_scan_is_not():
    from ocr.pipeline import read_file

    def advice(seed: int) -> tuple[dict, str | None]:
        data, truth = generate_sheet(seed)
        outcome = next(iter(read_file(f"sheet-{seed}", data=data, name=f"sheet-{seed}")))
        assert outcome.ok, outcome.error
        return truth, reconcile(outcome.reading, explain=False).to_json().get("rescan")

    truth, faint = advice(80000)  # a fax of pencil writing: its strokes came through as scattered dots
    assert (truth["scan"], truth["inks"]) == ("fax", ["pencil"]) and faint is not None
    truth, clear = advice(80004)  # a fax too, of black ink: read well
    assert (truth["scan"], truth["inks"]) == ("fax", ["black"]) and clear is None
