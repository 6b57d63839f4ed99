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


def test_a_photos_rows_of_too_small_writing_are_read_but_all_in_review_and_a_closer_photo_asked():
    """A reading whose meta names deals 11-20 written too small in the photo (ocr/legible.py): the
    rows keep the values read, every number cell of those deals is in review (the reader's sure
    0.99 notwithstanding: on such writing it is wrong as often as not), the other deals are not,
    and the sheet asks for a closer photo."""
    reading = _reading(20, [])
    message = "the writing of deals 11-20 is too small in this photo to be read surely"
    reading.meta["small_writing"] = {"deals": list(range(11, 21)), "px": 12.0, "message": message}
    out = reconcile(reading, explain=False).to_json()
    rows = {r["deal"]: r for r in out["rows"]}
    assert rows[15]["ns"] == 100 and rows[20]["cum_ns"] == 2000  # read, not dropped
    asked = {(r["deal"], r["column"]): r["reason"] for r in out["review"]}
    assert {(d, c) for d in range(11, 21) for c in ("ns", "ew", "cum_ns", "cum_ew")} <= set(asked)
    assert not any(d is not None and d <= 10 for d, _ in asked)
    assert "too small in this photo" in asked[(15, "ns")] and "100" in asked[(15, "ns")]
    assert out["rescan"] == message
    assert out["totals"]["ns"] == 2000  # the totals as read; they too are to be checked
    plain = reconcile(_reading(20, []), explain=False).to_json()
    assert not any(r["deal"] for r in plain["review"]) and "rescan" not in plain


def test_on_a_photo_too_small_to_read_rows_after_the_last_read_are_asked_about_unless_surely_blank():
    """Deals 21-30 of a far photo read empty (left off the rows shown): where the reader was not sure
    they are blank (0.5: a sheet whose blanks it doubts), their cells go to review -- small writing
    read as nothing is the likeliest silent error; where it was (0.995: no ink at all), they do not."""
    def reading(blank_p: float) -> SheetReading:
        r = _reading(20, [])
        for deal in range(21, 31):
            r.rows.append(RowReading(deal, {k: CellReading([(0, blank_p), (None, 1 - blank_p)], blank=True)
                                            for k in ("ns", "ew", "cum_ns", "cum_ew")}))
        r.meta["small_writing"] = {"deals": list(range(1, 31)), "px": 14.0, "message": "too small"}
        return r

    out = reconcile(reading(0.5), explain=False).to_json()
    assert out["rows"][-1]["deal"] == 20
    asked = {(r["deal"], r["column"]) for r in out["review"]}
    assert {(d, c) for d in range(21, 31) for c in ("ns", "ew", "cum_ns", "cum_ew")} <= asked
    sure = reconcile(reading(0.995), explain=False).to_json()
    assert not any(r["deal"] and r["deal"] > 20 for r in sure["review"])


def _asked_on(reading: SheetReading, cells: int):
    """``reading`` reconciled, with review items put on the first ``cells`` N/S scores shown, as
    reconciliation leaves the numbers of a photo it could not read surely."""
    from scoring.sheet import ReviewItem

    sheet = reconcile(reading, explain=False)
    sheet.review = [ReviewItem(row.deal, "ns", [(row.values["ns"], 0.4)], "read as 100, or 700?")
                    for row in sheet.rows[:cells]]
    return sheet


def test_a_photo_with_much_of_it_in_doubt_puts_every_number_in_review_and_asks_for_another():
    """A photo whose reconciled sheet has a third of its (non-zero) numbers in review: the rest,
    shown as sure, fit a story the arithmetic made of the misreads -- they go to review too, and the
    sheet asks for another photo.  Under that share, or on a scan, nothing changes."""
    from scoring.reconcile.partial import apply_doubtful

    photo = _reading(30, [])
    photo.meta["photo"] = True
    sheet = apply_doubtful(photo, _asked_on(photo, 20))  # 20 of 60 numbers shown: 33 %
    asked = {(r.deal, r.column) for r in sheet.review}
    assert {(d, c) for d in range(1, 31) for c in ("ns", "cum_ns")} <= asked
    assert (25, "cum_ns") in asked and sheet.review[-1].candidates[0][0] is not None
    assert sheet.rescan.startswith("33% of the numbers on this photo could not be read surely")
    below = apply_doubtful(photo, _asked_on(photo, 17))  # 28 %
    assert len(below.review) == 17 and below.rescan is None
    scan = _reading(30, [])
    assert len(apply_doubtful(scan, _asked_on(scan, 20)).review) == 20


def test_the_numbers_shown_beside_cells_under_glare_are_in_review_too():
    """Deals 5-6's scores under glare (named missing): their cumulatives are read, but the light
    that washed out the scores dimmed them too and no score checks them -- in review, the glare
    named.  Cells outside the photo put nothing beside them in review; the rule can be turned off."""
    from dataclasses import replace

    from scoring.reconcile.settings import ReconcileSettings

    glare = Missing([5, 6], Missing.GLARE, ("ns", "ew"))
    out = reconcile(_reading(30, [glare]), explain=False).to_json()
    reasons = {(r["deal"], r["column"]): r["reason"] for r in out["review"]}
    assert {(5, "cum_ns"), (6, "cum_ns"), (5, "ns")} <= set(reasons)
    assert "part of this deal is hidden (glare over deals 5-6" in reasons[(5, "cum_ns")]
    assert not any(d in (4, 7) for d, _ in reasons)
    rows = {r["deal"]: r for r in out["rows"]}
    assert rows[5]["cum_ns"] == 500  # the reading's value, to be checked
    settings = ReconcileSettings()
    off = replace(settings, rescan=replace(settings.rescan, beside_missing=False))
    quiet = reconcile(_reading(30, [glare]), explain=False, settings=off).to_json()
    assert (5, "cum_ns") not in {(r["deal"], r["column"]) for r in quiet["review"]}
    outside = reconcile(_reading(30, [Missing([30], Missing.OUTSIDE, ("cum_ns",))]), explain=False).to_json()
    assert (30, "ns") not in {(r["deal"], r["column"]) for r in outside["review"]}


def test_a_photos_number_the_reader_could_not_read_and_the_arithmetic_filled_is_in_review():
    """Deal 7's N/S score on a photo: ink the reader could not read ("none of these" likeliest), the
    arithmetic fills 100 between the cumulatives.  On a photo that goes to review (misread
    neighbours fill such cells wrong as readily); on a scan, as the arithmetic decides."""
    def reading(photo: bool) -> SheetReading:
        r = _reading(30, [])
        r.rows[6].cells["ns"] = CellReading([(None, 0.6), (700, 0.2), (100, 0.1)])
        if photo:
            r.meta["photo"] = True
        return r

    out = reconcile(reading(True), explain=False).to_json()
    assert {r["deal"]: r for r in out["rows"]}[7]["ns"] == 100
    items = {(r["deal"], r["column"]): r["reason"] for r in out["review"]}
    assert (7, "ns") in items and "the arithmetic gives 100" in items[(7, "ns")]
    scan = reconcile(reading(False), explain=False).to_json()
    assert {r["deal"]: r for r in scan["rows"]}[7]["ns"] == 100
    assert (7, "ns") not in {(r["deal"], r["column"]) for r in scan["review"]}


def _faint_scan(unread: int) -> SheetReading:
    """A scan whose first ``unread`` deals' N/S scores are ink the reader could not read (its best
    "none of these"), the rest read surely."""
    reading = _reading(30, [])
    for row in reading.rows[:unread]:
        row.cells["ns"] = CellReading([(100, 0.3), (None, 0.7)])
    return reading


def test_a_scan_sent_back_puts_every_number_shown_in_review_and_none_sure():
    """A scan a quarter of whose numbers could not be read is sent back (rescan): the numbers read
    "surely" beside them go to review too (on such faint sheets they were right 63 % of the time),
    and no number in review shows a confidence above RescanSettings.sent_back_confidence, in its
    row or its review item.  A scan read well keeps its sure numbers, out of review."""
    from dataclasses import replace

    from scoring.reconcile.settings import ReconcileSettings

    out = reconcile(_faint_scan(16), explain=False).to_json()
    assert out["rescan"].startswith("16 of the 60 written numbers")
    asked = {(r["deal"], r["column"]): r for r in out["review"]}
    assert {(d, "cum_ns") for d in range(1, 31)} <= set(asked)  # read at 0.99, asked all the same
    assert "much of this scan is too faint" in asked[(20, "cum_ns")]["reason"]
    assert (20, "ew") not in asked  # a blank shown as 0 is not a number to check
    rows = {r["deal"]: r for r in out["rows"]}
    assert rows[20]["cum_ns"] == 2000 and rows[20]["confidence"]["cum_ns"] == 0.5
    assert all(p <= 0.5 for item in out["review"] if item["column"] in ("ns", "ew", "cum_ns", "cum_ew")
               for _, p in item["candidates"])
    settings = ReconcileSettings()
    old = replace(settings, rescan=replace(settings.rescan, sent_back_confidence=1.0, scan_sent_back_all=False))
    before = reconcile(_faint_scan(16), explain=False, settings=old).to_json()
    assert (20, "cum_ns") not in {(r["deal"], r["column"]) for r in before["review"]}
    assert {r["deal"]: r for r in before["rows"]}[20]["confidence"]["cum_ns"] > 0.9
    well = reconcile(_faint_scan(2), explain=False).to_json()
    assert "rescan" not in well and (20, "cum_ns") not in {(r["deal"], r["column"]) for r in well["review"]}
    assert {r["deal"]: r for r in well["rows"]}[20]["confidence"]["cum_ns"] > 0.9


def test_a_photo_sent_back_keeps_its_sure_numbers_out_of_review_but_caps_those_in_it():
    """A photo sent back (too small to read surely in deals 11-15): those deals' numbers are in
    review at no more than 0.5 (such numbers shown at >= 0.5 were right 58 % of the time on the
    tuning photos); the other deals, read surely, stay out of review and sure (99 % right on photos)."""
    reading = _reading(30, [])
    reading.meta["photo"] = True
    reading.meta["small_writing"] = {"deals": list(range(11, 16)), "px": 12.0, "message": "too small"}
    out = reconcile(reading, explain=False).to_json()
    rows = {r["deal"]: r for r in out["rows"]}
    assert rows[15]["confidence"]["cum_ns"] == 0.5 and rows[5]["confidence"]["cum_ns"] > 0.9
    asked = {(r["deal"], r["column"]): r for r in out["review"]}
    assert (5, "cum_ns") not in asked and asked[(15, "cum_ns")]["candidates"] == [[1500, 0.5]]
