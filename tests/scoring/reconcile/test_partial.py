"""scoring.reconcile.partial: a reconciled sheet whose picture does not show all of it says what is missing,
puts those cells in review with that reason, and does not give the last cumulatives read as the
match's totals."""

from __future__ import annotations

from ocr.data import Missing
from ocr.partial import add_missing, missing_meta
from scoring.reconcile import reconcile
from scoring.sheet import CellReading, RowReading, SheetReading


def _reading(last: int, missing: list[Missing]) -> SheetReading:
    rows, cum = [], 0
    for deal in range(1, last + 1):
        cum += 100
        rows.append(RowReading(deal, {"dealer": CellReading([("NESW"[(deal - 1) % 4], 0.99)]),
                                      "ns": CellReading([(100, 0.99)]), "ew": CellReading([(0, 0.99)], blank=True),
                                      "cum_ns": CellReading([(cum, 0.99)]), "cum_ew": CellReading([(0, 0.99)], blank=True)}))
    rows = add_missing(rows, missing)
    return SheetReading("cut.jpg", rows, meta={"missing": missing_meta(missing)})


def test_deals_outside_the_photo_are_in_review_with_the_reason_and_no_totals():
    gap = Missing(list(range(21, 31)), Missing.OUTSIDE)
    sheet = reconcile(_reading(20, [gap]), explain=False)
    out = sheet.to_json()
    assert out["missing"] == ["deals 21-30 are outside the photo"]
    assert out["totals"] == {"ns": None, "ew": None}  # deal 20's cumulatives are not the match's
    assert not out["flags"]  # not a "missing deal" the players skipped
    assert "rescan" not in out  # a part cut off is not faint writing
    rows = {r["deal"]: r for r in out["rows"]}
    assert rows[20]["cum_ns"] == 2000 and rows[25]["ns"] is None
    reasons = {(r["deal"], r["column"]): r["reason"] for r in out["review"]}
    assert reasons[(25, "ns")] == "deals 21-30 are outside the photo"


def test_a_sheet_with_nothing_missing_keeps_the_contract_keys():
    out = reconcile(_reading(30, []), explain=False).to_json()
    assert "missing" not in out and out["totals"]["ns"] == 3000
