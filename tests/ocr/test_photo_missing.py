"""What a photo's table names missing: cells the picture really does not show readably (glare over
them, too faint), not cells whose thin printed rulings blurred away while the writing in them is
plain.  (Glare still named: tests/ocr/test_photo_conditions.py's glare test.)"""

from __future__ import annotations

import cv2
import numpy as np

from ocr.data import Missing, Page
from ocr.page import straighten
from ocr.settings import GeometrySettings
from ocr.table import find_table


def _table(page: Page, settings: GeometrySettings):
    return find_table(straighten(page, settings), settings)


def test_cells_whose_rulings_blurred_but_whose_writing_is_plain_are_read_not_named_missing():
    """A 3-D scene (samples/photo3d.py, ~2.4 px/mm) whose 1-px rulings over deals 1-12 keep a
    third of the table's contrast, the writing in those cells 70-110 grey levels: only the deals
    outside the photo are missing, and deals 1-12's cells are cut where they are.  Judged by the
    rulings alone, those deals were "too faint or blurred to read"."""
    from samples.photo3d import render_photo3d

    img, truth = render_photo3d(8033)
    page = Page("photo3d-8033", 0, img)
    table = _table(page, GeometrySettings())
    assert [m.reason for m in table.missing] == [Missing.OUTSIDE]
    for c in truth["cells"]:
        if c["row"].isdigit() and int(c["row"]) <= 12:
            cell = table.cell(c["row"], c["key"])
            assert cell is not None, (c["row"], c["key"])
            centre = tuple(float(v) for v in cell.quad.mean(axis=0))
            assert cv2.pointPolygonTest(np.array(c["quad"], np.float32), centre, False) >= 0
    by_rulings = _table(page, GeometrySettings(faded_ink_contrast=1e9))
    faint = {d for m in by_rulings.missing if m.reason == Missing.UNREADABLE for d in m.deals}
    assert {1, 4, 8, 12} <= faint
