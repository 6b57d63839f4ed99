"""ocr/table/extra.py's two checks on a row below the table: writing, and no ruling through it."""
import numpy as np

from ocr.settings import GeometrySettings
from ocr.table.extra import _ruled, _written

S = GeometrySettings()


def test_digits_are_writing_a_line_or_specks_are_not():
    cell = np.full((50, 200), 255, np.uint8)
    assert not _written(cell, S)
    line = cell.copy()
    line[24:26, 20:180] = 0  # an underline: ink, but two pixels high
    assert not _written(line, S)
    digits = cell.copy()
    for x in (60, 90, 120):
        digits[12:38, x:x + 4] = 0  # three strokes as tall as digits
    assert _written(digits, S)


def test_a_column_ruling_through_the_row_is_the_tables_own():
    page = np.full((100, 400), 255, np.uint8)
    boxes = {"ns": (0, 20, 100, 50), "ew": (98, 20, 100, 50), "cum_ns": (196, 20, 100, 50),
             "cum_ew": (294, 20, 100, 50)}
    assert not _ruled(page, boxes)
    page[20:24, :] = 0  # the table's bottom ruling across the row's top: not a column ruling
    assert not _ruled(page, boxes)
    page[20:55, 200:202] = 0  # a ruling down between ew and cum_ns, over 40 % of the row
    assert _ruled(page, boxes)
