"""ocr.table.lattice: a photo's lattice named by the table's own shape."""

from __future__ import annotations

import numpy as np

from ocr.data import TableRulings
from ocr.table.lattice import structural_labels


def _rulings(found: np.ndarray) -> TableRulings:
    rows, cols = found.shape
    return TableRulings(np.arange(cols + 1) * 60.0, np.arange(rows + 1) * 40.0, found)


def test_thirty_rows_each_with_its_label_cells_are_deals_1_to_30():
    found = np.ones((30, 6), bool)
    found[[5, 12], 2:4] = False  # writing across rulings merged a few score cells
    found[28:, 3:] = False
    assert structural_labels(_rulings(found)) == [str(d) for d in range(1, 31)]


def test_a_lattice_of_thirty_rows_without_label_cells_throughout_is_not_named():
    found = np.ones((30, 6), bool)
    found[17, :2] = False  # a row without its deal-number and dealer cells: 29 deal rows
    assert structural_labels(_rulings(found)) is None
    assert structural_labels(_rulings(np.ones((29, 6), bool))) is None  # a row short: which one?


def test_thirty_deal_rows_under_a_header_row_linked_in_part_are_named():
    found = np.ones((31, 6), bool)
    found[0, 2:] = False  # the header's two-row label cells, its score cells merged
    assert structural_labels(_rulings(found)) == [None] + [str(d) for d in range(1, 31)]
    found[0, 2:4] = True  # the header row looks like a deal row too: which thirty?
    assert structural_labels(_rulings(found)) is None
