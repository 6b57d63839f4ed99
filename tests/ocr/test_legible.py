"""ocr/legible.py: a photo whose rows of writing are too few photo pixels high to read surely is
told from the photo itself (its cells' outlines on the picture), and its numbers go to review with a
request for a closer photo; a near photo and a scan are left as they are."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
from geometry_samples import photo3d, photographed_table

from ocr.legible import row_heights, small_writing
from ocr.page import straighten
from ocr.settings import GeometrySettings, ReaderSettings
from ocr.table import find_table
from scoring.sheet import CellReading


@cache
def _table(seed: int):
    page, truth = photo3d(seed)
    settings = GeometrySettings()
    return find_table(straighten(page, settings), settings), truth


def test_a_far_photos_writing_is_too_small_and_every_number_goes_to_review_with_a_closer_photo_asked():
    """3-D scene 19006 (samples/photo3d.py): the sheet far off, its rows ~14 photo pixels high (the
    written digits a smear 5-7 pixels high; the reader gets 0 of its ~80 numbers right, 8 of them
    wrong with no question asked).  Every row is named too small, and the reconciled sheet keeps
    its readings but puts each number in review and asks for a closer photo."""
    from ocr.read import read_table
    from scoring.reconcile import reconcile

    table, _ = _table(19006)
    heights = row_heights(table)
    assert len(heights) >= 20 and max(heights.values()) < ReaderSettings().small_writing_px
    reading = read_table(table)
    small = reading.meta["small_writing"]
    # "small", or "blurred" where the reader could not read most of it either (the photo networks
    # trained on UNIPEN leave the smear unread): both name every row and ask for a closer photo
    assert small["deals"] == sorted(heights) and small["cause"] in ("small", "blurred")
    assert "too small" in small["message"] and "closer" in small["message"]
    sheet = reconcile(reading, explain=False).to_json()
    assert sheet["rescan"] == small["message"]
    assert sheet["rescan"].startswith("the writing is too small")
    asked = {(r["deal"], r["column"]) for r in sheet["review"]}
    shown = [(row["deal"], c) for row in sheet["rows"] for c in ("ns", "ew", "cum_ns", "cum_ew")]
    assert shown and set(shown) <= asked
    # the same reading with the check off: numbers shown with no question asked, and no request
    off = read_table(table, settings=ReaderSettings(small_writing_px=0, blurred_writing_px=0,
                                                    faint_unread_share=1.01, faint_blank_share=1.01))
    assert "small_writing" not in off.meta
    plain = reconcile(off, explain=False).to_json()
    assert "rescan" not in plain or "too small" not in plain["rescan"]
    assert not set(shown) <= {(r["deal"], r["column"]) for r in plain["review"]}


def _unsure(n: int, p: float) -> list[CellReading]:
    return [CellReading([(120, p), (None, 1.0 - p)]) for _ in range(n)]


def test_a_near_photo_and_a_scan_are_not_judged_too_small():
    """3-D scene 19011 (rows ~37 photo pixels high, every number read right): no row too small, nor
    blurred; only were half its numbers unread would it be "too faint or blurred" (below).  A table
    not straightened from a photo's lattice (a scan, a fax) is never judged, however small its rows:
    19006's far table taken as a scan's."""
    near, _ = _table(19011)
    assert min(row_heights(near).values()) >= ReaderSettings().blurred_writing_px
    assert small_writing(near, _unsure(60, 0.9) + _unsure(20, 0.3), ReaderSettings()) is None
    assert small_writing(near, _unsure(80, 0.3), ReaderSettings())["cause"] == "faint"
    assert small_writing(near, _unsure(80, 0.3), ReaderSettings(faint_unread_share=1.01)) is None
    far, _ = _table(19006)
    assert small_writing(far, [], ReaderSettings()) is not None
    assert small_writing(replace(far, straight=replace(far.straight, grid=None)), [], ReaderSettings()) is None


def test_rows_a_little_larger_are_all_judged_when_the_reader_could_not_read_half_the_table():
    """3-D scene 19014: rows 17-26 photo pixels high (median 21).  Read as the reader reads it (most
    numbers surely), only its rows under 20 pixels are named; were half its written numbers read
    less than even (as on 20034, 20032, 20012: blurred writing at 21-25 pixels, mostly misread),
    every row is, the writing "too small or blurred"."""
    table, _ = _table(19014)
    heights = row_heights(table)
    assert ReaderSettings().small_writing_px <= sorted(heights.values())[len(heights) // 2] \
        < ReaderSettings().blurred_writing_px
    sure = small_writing(table, _unsure(60, 0.9) + _unsure(20, 0.3), ReaderSettings())
    assert sure is not None and sure["deals"] == sorted(d for d, h in heights.items() if h < 20)
    assert len(sure["deals"]) < len(heights) and "too small in" in sure["message"]
    blurred = small_writing(table, _unsure(40, 0.9) + _unsure(40, 0.3), ReaderSettings())
    assert blurred["deals"] == sorted(heights) and "too small or blurred" in blurred["message"]


def test_a_photo_too_faint_or_blurred_to_read_half_its_numbers_has_them_all_in_review_whatever_its_rows_height():
    """Phone photo 5308008 (samples/photo.py, camera condition, tune span): pencil in the MNIST hand,
    dim light, 3 px of motion blur, JPEG quality 47.  Its rows are ~31 photo pixels high, over the
    small-writing rules' 20 and 26, but the reader could not read half its written numbers and
    got ~20 of 90 right, ~30 of the wrong ones shown as sure.  Every row is named "too faint or
    blurred": each number shown goes to review and the sheet asks for a better photo."""
    from ocr.read import read_table
    from scoring.reconcile import reconcile

    table, _ = photographed_table(5308008, "camera")
    heights = row_heights(table)
    assert float(np.median(list(heights.values()))) >= ReaderSettings().blurred_writing_px
    reading = read_table(table)
    assert reading.meta["photo"] is True
    faint = reading.meta["small_writing"]
    assert faint["cause"] == "faint" and faint["deals"] == sorted(heights)
    sheet = reconcile(reading, explain=False).to_json()
    assert sheet["rescan"] == faint["message"]
    assert sheet["rescan"].startswith("the writing is too faint or blurred in this photo")
    asked = {(r["deal"], r["column"]) for r in sheet["review"]}
    shown = [(row["deal"], c) for row in sheet["rows"] for c in ("ns", "ew", "cum_ns", "cum_ew")]
    assert len(shown) >= 80 and set(shown) <= asked
    assert any("too faint or blurred in this photo" in r["reason"] for r in sheet["review"])
    # the rule off: the same readings name no row (the rows are not small)
    numbers = [c for row in reading.rows for k, c in row.cells.items() if k in ("ns", "ew", "cum_ns", "cum_ew")]
    assert small_writing(table, numbers, ReaderSettings(faint_unread_share=1.01, faint_blank_share=1.01)) is None


def test_a_photo_whose_number_cells_nearly_all_read_blank_or_0_is_asked_for_again():
    """3-D scene 30023's pencil too faint for the straightened canvas to show: 103 of its 120
    number cells read blank or 0, the rest nothing sure -- shown as zeros and blanks with no
    question (39 wrong numbers as sure).  A sheet filled in has about a third of them so (the score
    of the side that did not score): from 80 % every row is named and a better photo asked for.
    Here on the near 3-D scene 19011's table, whose rows are not small."""
    near, _ = _table(19011)
    blank = [CellReading([(0, 0.5), (None, 0.5)], blank=True) for _ in range(70)]
    zero = [CellReading([(0, 0.7), (None, 0.3)]) for _ in range(26)]
    seen = small_writing(near, blank + zero + _unsure(24, 0.9), ReaderSettings())
    assert seen["cause"] == "faint" and seen["deals"] == sorted(row_heights(near))
    assert seen["message"].startswith("next to no writing could be seen in this photo's table")
    # a filled-in sheet: a third blank or 0, the rest read
    assert small_writing(near, blank[:40] + _unsure(80, 0.9), ReaderSettings()) is None
    assert small_writing(near, blank + zero + _unsure(24, 0.9), ReaderSettings(faint_blank_share=1.01)) is None
