"""A phone photo of the whole sheet straightened by the scan path (ocr/page.py: one homography,
``StraightPage.verify``): its cells are levelled as a photo canvas is, so that dim light's mottle
on the paper is not read as writing (bench/RESULTS-geometry.md, scanlevels)."""

from __future__ import annotations

import pytest
from geometry_samples import photographed_table

from ocr.read import read_table
from ocr.settings import ReaderSettings

NUMBER_KEYS = ("ns", "ew", "cum_ns", "cum_ew")
DIM_SEED = 5607002  # a looked-at tune-span "dim" photo: faint pencil, the JPEG's blocks on dim paper
FAST = ReaderSettings(use_second=False)  # the cell networks alone


@pytest.fixture(scope="module")
def dim_table():
    table, truth = photographed_table(DIM_SEED, "dim")
    assert truth["zero_style"] == "blank"  # a deal's 0 is left empty: an empty cell reads blank
    return table, truth


def test_dim_photo_takes_the_scan_path(dim_table):
    table, _ = dim_table
    assert table.straight.grid is None and table.straight.verify


def test_dim_photo_straightened_as_a_scan_is_read(dim_table):
    table, truth = dim_table
    want = {str(r["deal"]): r for r in truth["rows"]}
    reading = read_table(table, settings=FAST)
    right = total = 0
    for row in reading.rows:
        for key in NUMBER_KEYS:
            cell = row.cells.get(key)
            if cell is not None:
                total += 1
                right += (None if cell.blank else cell.best or None) == (want[str(row.deal)][key] or None)
    assert total == 120
    # the networks' best, before reconciliation: 41 of 120 without the levels (empty cells' mottle
    # read as digits, faint pencil cut in pieces), 70 with them
    assert right >= 65, right
