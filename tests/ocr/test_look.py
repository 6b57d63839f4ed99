"""The second look (ocr/look.py): the second reader's opinion of the values in question in a
cell, read afresh from the cell image; nothing for a cell without ink or not in the table."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from ocr.data import CellImage, Table
from ocr.look import second_look
from ocr.ppocr import default_reader

pytestmark = pytest.mark.skipif(default_reader() is None, reason="second reader not installed")


def _cell(text: str, row: str = "5", key: str = "cum_ns") -> CellImage:
    image = np.full((60, 220), 255, np.uint8)
    if text:
        cv2.putText(image, text, (30, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 0, 3, cv2.LINE_AA)
    return CellImage(key=key, row=row, image=image, quad=np.zeros((4, 2), np.float32))


def test_the_second_reader_finds_the_written_value_likelier():
    table = Table(straight=None, cells=[_cell("170"), _cell("", row="6")])
    look = second_look(table)
    seen = look([("5", "cum_ns", [120, 170]), ("6", "cum_ns", [300]), ("7", "cum_ns", [10])])
    assert set(seen) == {("5", "cum_ns")}  # the empty cell and the absent one: no opinion
    opinion = seen[("5", "cum_ns")]
    assert opinion[170] > 0.5 > opinion[120]
    assert abs(sum(opinion.values()) - 1.0) < 1e-6 and opinion[None] >= 0.0


def test_read_results_gives_a_reconciler_that_takes_a_look_the_pages_look():
    """ocr.pipeline.read_results (the one read path) hands the page's cells to a reconciler that
    takes a look; one that does not is called as before."""
    from ocr.pipeline import PageOutcome, read_results
    from scoring.sheet import SheetReading

    table = Table(straight=None, cells=[_cell("170")])

    def reader(path, data, name):
        yield PageOutcome(source="x", page=0, reading=SheetReading("x", []), table=table)

    seen = []

    def looking(reading, rules=None, look=None):
        seen.append(look([("5", "cum_ns", [120, 170])]))
        return "sheet"
    looking.takes_look = True

    [result] = read_results(None, name="x", reader=reader, reconciler=looking)
    assert result.error is None and result.sheet == "sheet"
    assert seen[0][("5", "cum_ns")][170] > 0.5
    plain = []
    [result] = read_results(None, name="x", reader=reader,
                            reconciler=lambda reading, rules=None: plain.append(1) or "sheet")
    assert result.error is None and plain == [1]
