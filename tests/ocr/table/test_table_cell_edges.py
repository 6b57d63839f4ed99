"""Writing at a cell's top or bottom ruling: kept beside the ruling when the rulings are cleared
(ocr.cells.clean_region) and taken in across the cell's edge (ocr.cells.edge_writing)."""

import numpy as np

from ocr.cells import clean_region, edge_writing

W = 400


def _page(dashed: bool = False):
    """A grey page with a horizontal ruling at rows 40-42 (dashed: 20 px on, 10 off) and its
    ruling zone (rows 37-45, as the table finder's coarse mask has it)."""
    grey = np.full((100, W), 255, np.uint8)
    for x in range(W):
        if not dashed or x % 30 < 20:
            grey[40:43, x] = 0
    zone = np.zeros_like(grey)
    zone[37:46] = 255
    return grey, zone


def _seven(grey, x: int, bar: tuple[int, int]):
    """A 7 written under the ruling: its top bar on rows ``bar``, its stem down to row 75."""
    grey[bar[0]:bar[1], x:x + 22] = 0
    for y in range(bar[0], 76):
        dx = (y - bar[0]) // 4
        grey[y, x + 20 - dx:x + 23 - dx] = 0


def test_a_stroke_just_under_the_ruling_inside_its_zone_is_kept():
    grey, zone = _page()
    _seven(grey, 100, (43, 46))  # the bar just under the line, in the zone
    box = (0, 0, W, 100)
    bar = slice(44, 46), slice(102, 112)  # (the row next to the line goes with it)
    assert (clean_region(grey, zone, box, band=6)[bar] > 200).all()  # erased with the ruling
    kept = clean_region(grey, zone, box, band=6, line_run=40)
    assert (kept[bar] < 100).all()
    # the ruling itself is still cleared away from the writing
    assert (kept[40:43, 200:] == 255).all() and (kept[40:43, :90] == 255).all()


def test_a_dashed_ruling_touched_by_writing_is_still_cleared():
    grey, zone = _page(dashed=True)
    grey[43:76, 150:154] = 0  # a 1 standing on the dashed line
    kept = clean_region(grey, zone, (0, 0, W, 100), band=6, line_run=40)
    # no dash beside the 1 comes back as an underline or overline
    assert (kept[40:43, 160:] == 255).all() and (kept[40:43, :140] == 255).all()


def _window():
    """Rows 0-119 of a column of cells: this cell's body rows 40-79 (rulings above and below,
    cleared), its box rows 34-85; the neighbour rows' writing above and below."""
    win = np.full((120, 200), 255, np.uint8)
    win[10:30, 20:26] = 0  # the row above's own digit, well above the ruling
    win[92:112, 150:156] = 0  # the row below's
    return win


def test_the_cells_own_writing_over_its_top_edge_is_taken_in():
    win = _window()
    win[28:75, 100:104] = 0  # a stroke of this cell's 7 rising 6 rows over the box's top
    image, up, down = edge_writing(win, 34, 86, (40, 80), reach=12)
    assert (up, down) == (6, 0)
    assert image.shape == (86 - 34 + 6, 200)
    assert (image[:6, 100:104] == 0).all()  # the stroke's top, taken in
    assert (image[:6, 20:26] == 255).all()  # the row above's digit stays out (and is under it)
    assert (image[6:, :] == win[34:86, :]).all()  # the box as cut before


def test_the_neighbours_writing_in_the_margin_is_cleared_and_the_cut_kept():
    win = _window()
    win[20:37, 60:64] = 0  # the row above's descender, over the box's top into its margin
    image, up, down = edge_writing(win, 34, 86, (40, 80), reach=12)
    assert (up, down) == (0, 0)
    assert image.shape == (52, 200)
    assert (image[:3, 60:64] == 255).all()


def test_writing_inside_the_cell_alone_changes_nothing():
    win = _window()
    win[45:75, 100:104] = 0
    image, up, down = edge_writing(win, 34, 86, (40, 80), reach=12)
    assert (up, down) == (0, 0) and (image == win[34:86]).all()


def test_writing_going_on_past_the_reach_is_the_rows_touching_and_left_alone():
    win = _window()
    win[14:75, 100:104] = 0  # rising 20 rows over the edge: joined to the row above's writing
    win[40:70, 150:154] = 0  # a digit of this cell beside it
    image, up, down = edge_writing(win, 34, 86, (40, 80), reach=12)
    assert (up, down) == (0, 0) and (image == win[34:86]).all()
