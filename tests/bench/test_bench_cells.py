"""How bench_cells.py scores a reader on real handwriting: exact, and digits right (1 - CER)."""

from __future__ import annotations

import pytest

from bench.bench_cells import edit_distance, score
from scoring.sheet import CellReading


@pytest.mark.parametrize(("a", "b", "d"), [("", "", 0), ("123", "", 3), ("552", "2", 2), ("2550", "2150", 1),
                                           ("18014", "180014", 1), ("kitten", "sitting", 3)])
def test_edit_distance(a, b, d):
    assert edit_distance(a, b) == d == edit_distance(b, a)


def test_digits_right_counts_each_digit_and_a_none_reading_as_no_digits():
    readings = [CellReading([(18014, 0.9)]), CellReading([(2150, 0.6), (2550, 0.3)]), CellReading([(None, 0.8), (7, 0.1)])]
    s = score(readings, ["18014", "2550", "75"])
    assert s["exact"] == pytest.approx(1 / 3)
    assert s["top3"] == pytest.approx(2 / 3)
    # 0 + 1 + 2 digit errors over 5 + 4 + 2 digits
    assert s["digits"] == pytest.approx(1 - 3 / 11)
