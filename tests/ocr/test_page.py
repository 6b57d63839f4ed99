"""ocr.page: the paper's outline and the scan path's straightening."""

from __future__ import annotations

import cv2
import numpy as np
from geometry_samples import make_scan

from ocr.page import find_paper, straighten
from ocr.table import find_table


def test_paper_found_under_a_shadow():
    # a sheet on a mid-grey table, a dark shadow across one corner of the paper: the
    # bright region alone is cut short by the shadow; the paper's edges are still there
    img = np.full((1000, 800), 110, np.uint8)
    corners = np.array([[150, 90], [650, 120], [690, 900], [110, 870]], np.float64)
    cv2.fillConvexPoly(img, corners.astype(np.int32), 240)
    shadow = np.zeros(img.shape, np.float32)  # a soft shadow, as a hand or phone casts
    cv2.fillConvexPoly(shadow, np.array([[400, 0], [800, 0], [800, 500]], np.int32), 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 40)
    img = (img * (1.0 - 0.55 * shadow)).astype(np.uint8)
    found = find_paper(img)
    assert found is not None
    assert np.abs(found - corners).max() < 8


def test_photo_cropped_inside_the_paper_is_straightened_by_its_rulings():
    # no paper edge in the picture: perspective is taken out using the table's rulings
    page, truth = make_scan(1200, "classic", photo=True)
    truth = {k: q for k, q in truth.items() if k[0]}
    pts = np.concatenate(list(truth.values()))  # truth has no deal-number column: keep it
    x0, y0 = (pts.min(axis=0) - [160, 60]).astype(int)
    x1, y1 = (pts.max(axis=0) + 60).astype(int)
    page.image = np.ascontiguousarray(page.image[y0:y1, x0:x1])
    straight = straighten(page)
    table = find_table(straight)
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    for key, quad in truth.items():
        cx, cy = table.cell(*key).quad.mean(axis=0)
        assert cv2.pointPolygonTest((quad - [x0, y0]).astype(np.float32), (float(cx), float(cy)), False) >= 0
