"""ocr/far.py: a photo of a sheet too far off to read asks for a closer photo, not "no table"."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from geometry_samples import cells_right, photo3d

from ocr.data import InputError, Page
from ocr.far import far_retry, far_table, paper_patch, row_px
from ocr.pipeline import read_file
from ocr.settings import GeometrySettings


def too_far(page: Page, source: str, settings: GeometrySettings) -> InputError | None:
    """far_retry's "take the photo closer" error, without its enlarged retry (no table is sought)."""
    table, error = far_retry(page, source, replace(settings, far_retry_scales=()))
    assert table is None
    return error


def test_a_far_sheet_without_a_table_found_is_asked_for_again_from_closer():
    """A 3-D scene (seed 29033) of a sheet ~45 cm off: its rows ~12 px high, its rulings too faint
    to find.  The file's error names the sheet's size and asks for a closer photo."""
    page, truth = photo3d(29033)
    q = np.asarray(truth["page_quad"], np.float64).reshape(4, 2)
    near = max(np.linalg.norm(q[i] - q[(i + 1) % 4]) for i in range(4)) * 6.8 / 297
    assert abs(row_px(page, GeometrySettings()) - near) < 2
    ok, jpeg = cv2.imencode(".jpg", page.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    error = next(iter(read_file("far.jpg", data=jpeg.tobytes(), name="far.jpg"))).error
    assert error.startswith("far.jpg: the sheet is too small in this photo to be read (its rows about 1")
    assert "take the photo closer" in error
    assert too_far(page, "far.jpg", GeometrySettings(far_sheet_row_px=0)) is None


def test_a_far_sheets_table_is_found_on_the_photo_enlarged_its_numbers_all_in_review():
    """A 3-D scene (seed 31015, as sent: a JPEG at its quality) of a whole sheet far off, its rows
    ~14 px high: no table is found on the photo as it is (its rows are left unnamed), but on it
    enlarged (GeometrySettings.far_retry_scales) the table is, cut right; its numbers all go to
    review with a request for a closer photo.  The retry off, the too-small error stands."""
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table
    from scoring.reconcile import reconcile

    image, truth = photo3d(31015)
    ok, jpeg = cv2.imencode(".jpg", image.image, [cv2.IMWRITE_JPEG_QUALITY, int(truth["jpeg_quality"])])
    page = load_pages("far.jpg", data=jpeg.tobytes(), name="far.jpg")[0]
    settings = GeometrySettings()
    with pytest.raises(InputError):
        find_table(straighten(page, settings), settings)
    table = far_table(page, settings)
    assert table is not None and table.far and table.straight.page is page and cells_right(table, truth) == ""
    outcome = next(iter(read_file("far.jpg", data=jpeg.tobytes(), name="far.jpg")))
    assert outcome.error is None
    sheet = reconcile(outcome.reading, explain=False).to_json()
    assert sheet["rescan"].startswith("the writing is too small") and "closer" in sheet["rescan"]
    asked = {(r["deal"], r["column"]) for r in sheet["review"]}
    shown = [(row["deal"], c) for row in sheet["rows"] for c in ("ns", "ew", "cum_ns", "cum_ew")]
    assert len(sheet["rows"]) == 30 and set(shown) <= asked
    # the retry off: the too-small error, as before
    off = GeometrySettings(far_retry_scales=())
    assert far_table(page, off) is None
    assert "take the photo closer" in str(too_far(page, "far.jpg", off))


def test_a_near_sheet_or_a_scan_keeps_its_own_error():
    """A near photo's sheet (seed 29000, rows ~26 px) is not too far whatever went wrong; a scan is
    never asked for as a photo."""
    page, _ = photo3d(29000)
    assert row_px(page, GeometrySettings()) > 20
    assert too_far(page, "near.jpg", GeometrySettings()) is None
    scan = np.full((1400, 1000, 3), 255, np.uint8)
    cv2.rectangle(scan, (100, 100), (300, 140), (0, 0, 0), -1)  # a little text, white all round
    assert too_far(Page(source="scan.png", index=0, image=scan), "scan.png", GeometrySettings()) is None


def test_a_page_without_a_usable_picture_keeps_its_own_error():
    """No picture, a grey one, a sliver: nothing to judge, no crash -- straighten's error stands."""
    for image in (None, np.full((40, 900, 3), 120, np.uint8), np.full((600, 400), 200, np.uint8)):
        assert too_far(Page(source="odd.png", index=0, image=image), "odd.png", GeometrySettings()) is None
    ok, png = cv2.imencode(".png", np.full((30, 30, 3), 90, np.uint8))
    error = next(iter(read_file("tiny.png", data=png.tobytes(), name="tiny.png"))).error
    assert error is not None and "too small in this photo" not in error


def test_a_far_sheet_whose_outline_is_not_found_is_measured_by_its_bright_patch():
    """A 3-D scene (seed 29030): a curled sheet ~50 cm off, its rows ~12 px high; no outline of four
    corners and no lattice are found, so only the paper's bright patch tells its size."""
    from ocr.page import paper_corners

    page, truth = photo3d(29030)
    settings = GeometrySettings()
    q = np.asarray(truth["page_quad"], np.float64).reshape(4, 2)
    near = max(np.linalg.norm(q[i] - q[(i + 1) % 4]) for i in range(4)) * 6.8 / 297
    assert paper_corners(page.image, settings) is None
    assert abs(row_px(page, settings) - near) < 2.5
    error = too_far(page, "far.jpg", settings)
    assert error is not None and "take the photo closer" in str(error)


def test_the_bright_patch_is_the_sheet_only_when_one_patch_holds_most_of_the_paper():
    """A white sheet on a coloured cloth: its long side.  Two sheets alike (or one a shadow splits
    in two): no size, rather than half a sheet's."""
    cloth = np.zeros((900, 1200, 3), np.uint8)
    cloth[:] = (40, 120, 200)
    one = cloth.copy()
    cv2.rectangle(one, (300, 200), (720, 794), (235, 235, 235), -1)  # 420 x 594: A4 standing
    assert abs(paper_patch(one, GeometrySettings()) - 594) < 8
    two = cloth.copy()
    cv2.rectangle(two, (100, 200), (500, 700), (235, 235, 235), -1)
    cv2.rectangle(two, (650, 200), (1050, 700), (235, 235, 235), -1)
    assert paper_patch(two, GeometrySettings()) is None
    assert paper_patch(cloth, GeometrySettings()) is None  # no paper at all


def test_a_sheet_a_little_over_the_far_size_is_sought_enlarged_too():
    """A 3-D scene (seed 33026, as sent: a JPEG at quality 40) of a sheet whose rows are ~22 px high,
    over GeometrySettings.far_sheet_row_px: no table is found on the photo as it is (its printed
    numbers unread), so no closer photo is asked for -- but under far_retry_row_px it is sought
    enlarged, and found there, cut right (its numbers to review, as a far sheet's)."""
    from ocr.far import far_retry
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table

    image, truth = photo3d(33026)
    ok, jpeg = cv2.imencode(".jpg", image.image, [cv2.IMWRITE_JPEG_QUALITY, int(truth["jpeg_quality"])])
    page = load_pages("far.jpg", data=jpeg.tobytes(), name="far.jpg")[0]
    settings = GeometrySettings()
    assert settings.far_sheet_row_px < row_px(page, settings) < settings.far_retry_row_px
    with pytest.raises(InputError):
        find_table(straighten(page, settings), settings)
    table, error = far_retry(page, "far.jpg", settings)
    assert error is None and table is not None and table.far and cells_right(table, truth) == ""
    # at the far size alone: neither a table nor a request for a closer photo (its own error stands)
    assert far_retry(page, "far.jpg", GeometrySettings(far_retry_row_px=0)) == (None, None)
