"""ocr.grid: the table's lattice found from the paper patches between its rulings, whatever the turn."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from ocr.grid import find_grid
from ocr.settings import GeometrySettings

WIDTHS = (1.3, 1.9, 3.1, 3.1, 3.4, 3.4)  # the deal table's columns, in row heights


def _drawn_table(turn_deg: float, rows: int = 31, pitch: float = 22.0, split: tuple[int, int] | None = None,
                 ruling: int = 2):
    """An ink mask (255 = ink) of a ruled table turned by ``turn_deg`` (clockwise on screen), and
    where its top-left crossing went; ``split`` (row, column): that cell cut in two by a stroke;
    ``ruling``: the rulings' thickness in pixels."""
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
        cv2.line(ink, tuple(int(v) for v in place((x, 0))), tuple(int(v) for v in place((x, h))), 255, ruling)
    for y in ys:
        cv2.line(ink, tuple(int(v) for v in place((0, y))), tuple(int(v) for v in place((w, y))), 255, ruling)
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


@pytest.mark.parametrize("turn", [0.0, 23.0])
def test_rulings_nearly_as_thick_as_the_cells_are_high_still_part_linked_cells(turn):
    """A far, blurred sheet: rows 18 px apart, the rulings ~8 px thick out of the threshold, so the
    paper between them is ~10 px high and a cell's side lies ~8 px from its neighbour's -- beyond
    half the cell's height, the reach that serves a near sheet.  On a photo's threshold
    (``thick``) the reach follows the sheet's typical ruling and the whole table links; a mask of
    rulings drawn thick on purpose (pass two's) keeps the near sheet's reach."""
    ink, top_left = _drawn_table(turn, pitch=18.0, ruling=6)
    grid = find_grid(ink, GeometrySettings(), thick=True)
    assert grid is not None and grid.shape == (31, 6) and grid.cells == 31 * 6
    assert np.hypot(*(grid.nodes[0, 0] - top_left)) < 6  # the corners inside the thick ruling
    near = find_grid(ink, GeometrySettings())
    assert near is None or near.cells < 31 * 6 // 2
    # a near sheet's thin rulings link as they did
    ink, _ = _drawn_table(turn)
    assert find_grid(ink, GeometrySettings(), thick=True).found.sum() == find_grid(ink, GeometrySettings()).found.sum()


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


def test_the_table_is_found_on_graph_paper_ruled_all_round_it():
    """Squared paper under and around the sheet is a lattice of thousands of cells, far larger than
    the table's: it is passed over (wider than a deal table both ways), not taken for the table."""
    ink, top_left = _drawn_table(30.0)
    squares = np.zeros_like(ink)
    squares[:, ::16] = 255
    squares[::16, :] = 255
    table = cv2.dilate(ink, np.ones((3, 3), np.uint8))
    hull = cv2.convexHull(cv2.findNonZero(table))
    cv2.fillPoly(squares, [hull], 0)  # the table's own area left clear
    grid = find_grid(cv2.bitwise_or(ink, squares), GeometrySettings())
    assert grid is not None and grid.shape == (31, 6)
    assert np.hypot(*(grid.nodes[0, 0] - top_left)) < 4


def _ruled(ink: np.ndarray, widths, rows: int, pitch: float, at: tuple[float, float]) -> None:
    """Draw into ``ink`` a ruled block of ``rows`` rows and columns ``widths`` (in row heights) with
    its top-left crossing at ``at``."""
    xs = at[0] + np.concatenate([[0.0], np.cumsum(widths)]) * pitch
    ys = at[1] + np.arange(rows + 1) * pitch
    for x in xs:
        cv2.line(ink, (int(x), int(ys[0])), (int(x), int(ys[-1])), 255, 2)
    for y in ys:
        cv2.line(ink, (int(xs[0]), int(y)), (int(xs[-1]), int(y)), 255, 2)


def test_the_scoring_tables_lattice_is_not_taken_for_the_deal_table():
    """On a far, blurred sheet the scoring table's undertricks block (seven rows: a wide label
    column and four value columns ~1.5 row heights wide) can close more cells than the deal table,
    of which only a part of the score columns is found.  Its columns do not fit the form's: the
    deal table's part is taken."""
    pitch = 20.0
    ink = np.zeros((700, 900), np.uint8)
    _ruled(ink, (6.0, 1.5, 1.5, 1.5, 1.5), 7, pitch, (480.0, 40.0))  # the scoring table's block
    _ruled(ink, WIDTHS[2:], 5, pitch, (40.0, 300.0))  # four score columns of five deal rows
    grid = find_grid(ink, GeometrySettings())
    assert grid is not None and grid.shape == (5, 4)
    assert np.hypot(*(grid.nodes[0, 0] - (40.0, 300.0))) < 4
    # its value columns alone, with no label column beside them, are no deal table either
    alone = np.zeros_like(ink)
    _ruled(alone, (1.5, 1.5, 1.5, 1.5), 7, pitch, (480.0, 40.0))
    assert find_grid(alone, GeometrySettings()) is None
    # a deal table's own columns fit, whichever part of them the lattice holds, and with its two
    # cumulative columns merged (their ruling lost: 3-D 7001), the others no narrower for it
    for part in (WIDTHS, WIDTHS[:3], WIDTHS[1:], WIDTHS[2:], WIDTHS[:4] + (6.8,)):
        own = np.zeros_like(ink)
        _ruled(own, part, 7, pitch, (40.0, 40.0))
        got = find_grid(own, GeometrySettings())
        assert got is not None and got.shape == (7, len(part)), part


def test_a_lattice_linked_across_thick_rulings_takes_its_widths_from_its_crossings():
    """Linked across rulings 6 px thick, the cells are 12 px high for rows 18 px apart: their own
    proportions make every column half as wide again; measured between the lattice's crossings,
    the widths are the table's."""
    from ocr.dewarp import _spaced_widths

    ink, _ = _drawn_table(0.0, pitch=18.0, ruling=6)
    # (the inner crossings kept across the rulings' thickness, as pass two keeps them)
    grid = find_grid(ink, GeometrySettings(), thick=True, slack=8.0, slack_rows=24)
    assert grid is not None and grid.shape == (31, 6)
    assert np.abs(grid.widths / WIDTHS - 1).max() > 0.4  # the cells' proportions: far too wide
    spaced = _spaced_widths(grid)
    assert np.abs(spaced.widths / WIDTHS - 1).max() < 0.2  # (the drawing's pixels: the narrowest 15 % off)
    assert spaced.nodes is grid.nodes and spaced.cells == grid.cells
