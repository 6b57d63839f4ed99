"""ocr.grid: the table's lattice found from the paper patches between its rulings, whatever the turn."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from ocr.grid import find_grid
from ocr.settings import GeometrySettings

WIDTHS = (1.3, 1.9, 3.1, 3.1, 3.4, 3.4)  # the deal table's columns, in row heights


def _drawn_table(turn_deg: float, rows: int = 31, pitch: float = 22.0, split: tuple[int, int] | None = None):
    """An ink mask (255 = ink) of a ruled table turned by ``turn_deg`` (clockwise on screen), and
    where its top-left crossing went; ``split`` (row, column): that cell cut in two by a stroke."""
    xs = np.concatenate([[0.0], np.cumsum(WIDTHS)]) * pitch
    ys = np.arange(rows + 1) * pitch
    w, h = xs[-1], ys[-1]
    size = int(math.hypot(w, h)) + 80
    a = math.radians(turn_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    centre = np.array([size / 2, size / 2])

    def place(p):
        return (np.asarray(p, float) - [w / 2, h / 2]) @ rot.T + centre

    ink = np.zeros((size, size), np.uint8)
    for x in xs:
        cv2.line(ink, tuple(int(v) for v in place((x, 0))), tuple(int(v) for v in place((x, h))), 255, 2)
    for y in ys:
        cv2.line(ink, tuple(int(v) for v in place((0, y))), tuple(int(v) for v in place((w, y))), 255, 2)
    if split is not None:
        r, c = split
        x = (xs[c] + xs[c + 1]) / 2
        cv2.line(ink, tuple(int(v) for v in place((x, ys[r]))), tuple(int(v) for v in place((x, ys[r + 1]))), 255, 2)
    return ink, place((0, 0))


@pytest.mark.parametrize("turn", [0.0, 37.0, 90.0, 180.0, 263.0])
def test_the_lattice_is_oriented_rows_down_narrow_columns_left_at_any_turn(turn):
    ink, top_left = _drawn_table(turn)
    grid = find_grid(ink, GeometrySettings())
    assert grid is not None and grid.shape == (31, 6)
    assert grid.widths[0] < grid.widths[2] and grid.widths[1] < grid.widths[5]  # deal, dealer first
    assert np.hypot(*(grid.nodes[0, 0] - top_left)) < 4  # its first crossing is the table's top-left


def test_a_cell_split_by_a_stroke_does_not_shift_the_row(monkeypatch):
    """A stroke from ruling to ruling splits one cell in two; each piece links to a neighbour, and
    placed through them the rest of the row shifts by a column.  The pieces are misfits (too narrow
    for their column) and the row is placed through its other neighbours."""
    import ocr.grid as grid_mod

    ink, _ = _drawn_table(0.0, split=(10, 2))
    grid = find_grid(ink, GeometrySettings())
    assert grid is not None and grid.shape == (31, 6)
    assert not grid.found[10, 2] and grid.found.sum() == 31 * 6 - 1  # only the split cell is left out
    monkeypatch.setattr(grid_mod, "misfits", lambda lat, settings: set())  # without the check
    blind = find_grid(ink, GeometrySettings())
    assert blind is None or blind.shape != (31, 6) or blind.found.sum() != 31 * 6 - 1
