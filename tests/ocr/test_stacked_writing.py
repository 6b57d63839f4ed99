"""ocr.dewarp._stacked_writing: pass two's retry drops handwriting stacked down a column (a wide
band over a few rows) from the vertical strokes, and keeps the thin column rulings that run down
the table."""

from __future__ import annotations

import numpy as np

from ocr.dewarp import _stacked_writing
from ocr.settings import GeometrySettings


def test_a_wide_short_band_goes_and_the_rulings_stay():
    per = 20.0  # pixels a row height
    vt = np.zeros((40 * 20, 300), np.uint8)
    vt[:, 50:53] = 255  # a column ruling down all forty rows
    vt[:, 200:203] = 255  # another
    vt[100:260, 110:130] = 255  # digits stacked over eight rows: a band a row height wide
    vt[400:520, 150:152] = 255  # a thin stroke over six rows
    out = _stacked_writing(vt.copy(), per, GeometrySettings())
    assert out[:, 50:53].all() and out[:, 200:203].all()
    assert not out[:, 105:135].any() and not out[:, 148:154].any()
