"""ocr/corners.py: a sheet read from the four corners of its deal table, clicked on a page the
geometry stage could not straighten; and a corners decision that outlives `batch --force` and
can be undone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from batch.ledger import LEDGER_NAME, Ledger
from cli import run_batch_command
from ocr.corners import order_corners, read_from_corners, straight_from_corners
from ocr.data import InputError, Page
from review.folder import Folder
from review.providers import default_providers
from tests.review.fixtures import TURNED, truth_rows, turned, turned_corners


def test_corners_are_ordered_whatever_the_click_order():
    square = [[10, 10], [110, 12], [108, 200], [12, 198]]
    for shuffled in (square, square[::-1], square[2:] + square[:2]):
        assert order_corners(shuffled).tolist() == [[10, 10], [110, 12], [108, 200], [12, 198]]


@pytest.mark.parametrize("corners, message", [
    ([[0, 0], [1, 1], [2, 2]], "four corners"),
    ([[10, 10], [20, 10], [20, 20], [10, 20]], "enclose no table"),
    ([[10, 10], [5000, 10], [5000, 900], [10, 900]], "not on the page"),
])
def test_corners_that_enclose_no_table_are_refused(corners, message):
    page = Page("p.png", 0, np.full((1000, 800, 3), 255, np.uint8))
    with pytest.raises(InputError, match=message):
        straight_from_corners(page, corners)


def test_a_table_seen_wider_than_tall_is_turned_a_quarter():
    page = Page("p.png", 0, np.full((800, 1000, 3), 255, np.uint8))
    straight = straight_from_corners(page, [[100, 100], [900, 100], [900, 500], [100, 500]])
    assert straight.rotated == 90 and straight.image.shape[0] > straight.image.shape[1]
    # straight pixels map back onto the page through to_original
    h, w = straight.image.shape[:2]
    back = cv2.perspectiveTransform(np.array([[[w / 2, h / 2]]], float), straight.to_original)
    assert 100 < back[0, 0, 0] < 900 and 100 < back[0, 0, 1] < 500


@pytest.mark.slow
def test_a_page_turned_past_a_quarter_is_read_from_its_corners(tmp_path):
    # 30 degrees (the browser test's page) and a further quarter turn: the table is seen wider
    # than tall, turned back a quarter, and maybe over (the table stage's own half turn)
    image = cv2.rotate(cv2.imread(str(turned(tmp_path))), cv2.ROTATE_90_CLOCKWISE)
    corners = np.array(turned_corners())
    corners = np.stack([image.shape[1] - 1 - corners[:, 1], corners[:, 0]], axis=1)
    rng = np.random.default_rng(90)
    clicked = corners + rng.normal(0, 3, corners.shape)  # a hand's clicks are a little off
    result = read_from_corners(Page("turned.jpg", 0, image), clicked.tolist())
    assert result.error is None, result.error
    rows = result.to_json()["rows"]
    truth = truth_rows(TURNED)
    right = sum(r[c] == t[c] for r, t in zip(rows, truth, strict=True)
                for c in ("ns", "ew", "cum_ns", "cum_ew"))
    assert right >= 0.95 * 4 * len(truth)


@pytest.mark.slow
def test_a_corners_decision_outlives_batch_force_and_can_be_undone(scanned_copy):
    out = scanned_copy
    folder = Folder(out, default_providers())
    sid = next(s.sheet_id for s in folder.ledger().sheets() if s.source.endswith("turned.jpg"))
    failed = folder.sheet(sid)
    assert failed.status == "failed" and failed.layout["page"]["image"] == f"{sid}.page.jpg"
    folder.decide(sid, 0, Folder.corners_decision(
        ";".join(f"{x},{y}" for x, y in turned_corners()), failed.error), "alice")
    read = folder.sheet(sid)
    assert read.status == "ok" and len(read.result["rows"]) == 30
    assert read.layout["full"]["image"] == f"{sid}.straight.jpg"
    # the batch reads the page again (the table still not found): the corners are used again
    status = run_batch_command([str(out.parent / "in" / "turned.jpg")], str(out), jobs=1,
                               force=True, progress=False)
    assert status == 3  # the batch itself still fails to find the table ...
    with Ledger(out / LEDGER_NAME) as ledger:
        again = ledger.sheets(sid)[0]
        assert again.status == "ok" and again.result["rows"] == read.result["rows"]  # ... not so
        assert ledger.decisions(sid)[0]["kind"] == "corners"
    # undone: the sheet is the failure it was, its page still there for new corners
    folder.undo(sid, folder.ledger().review_state(sid)[1], None, "alice")
    back = folder.sheet(sid)
    assert back.status == "failed" and "no summary score table" in back.error
    assert back.result is None and back.layout["page"]["image"] == f"{sid}.page.jpg"
    assert [it.kind for it in folder.items(back)] == ["table"]


@pytest.mark.slow
def test_corners_that_find_no_table_change_nothing(scanned_copy):
    from review.folder import DecisionError

    folder = Folder(scanned_copy, default_providers())
    sid = next(s.sheet_id for s in folder.ledger().sheets() if s.source.endswith("turned.jpg"))
    blank_corner = [[5, 5], [300, 5], [300, 600], [5, 600]]  # white paper, no table there
    with pytest.raises(DecisionError, match="click the corners again") as exc:
        folder.decide(sid, 0, Folder.corners_decision(
            ";".join(f"{x},{y}" for x, y in blank_corner), "x"), "alice")
    assert exc.value.status == 422
    assert folder.ledger().decisions(sid, undone=True) == []
    assert folder.sheet(sid).status == "failed"
