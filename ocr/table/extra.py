"""A tie's deals written below deal 30: after a tie the match goes on two deals at a time, and
players write deals 31, 32, ... under the printed table, in its columns.  Those rows have no
rulings of their own: each is row 30's cells moved down by whole row pitches, kept while both
cumulative cells hold writing and no column ruling runs through it (a ruled row there is the
table's own: a Total row not named as one)."""

from __future__ import annotations

import cv2
import numpy as np

from ocr.cells import box_quad, paper_grey
from ocr.data import CellImage, Table
from ocr.settings import GeometrySettings
from ocr.table.common import DEALS
from scoring.formspec import DEAL_COLUMNS

INK = 170  # grey levels below this (paper ~255) are ink, as elsewhere in ocr/table


def extra_rows(table: Table, settings: GeometrySettings) -> Table:
    """``table`` with the rows written below its deal 30 (deals 31, 32, ...) added as cells."""
    last = [table.cell(str(DEALS), key) for key in DEAL_COLUMNS]
    above = table.cell(str(DEALS - 1), "cum_ns")
    if table.missing or any(c is None or min(c.box[2:]) <= 0 for c in last) or above is None:
        return table
    pitch = last[3].box[1] - above.box[1]
    bottom = max(c.box[1] + c.box[3] for c in table.cells if c.row in (str(DEALS), "total"))
    # the first written row below: under the Total row when the form prints one
    shift = pitch * (2 if table.has_total_row else 1)
    if pitch <= 0 or bottom > last[0].box[1] + shift + pitch:
        return table
    image = table.straight.image
    first = _moved(last, shift)
    # most sheets have nothing below: looked at in the darkest channel, never lighter than
    # paper_grey's, so no writing there is none after it either and the page needs no pass
    if not _inside(first, image.shape) or not all(
            _written(_darkest(image, first[key]), settings) for key in ("cum_ns", "cum_ew")):
        return table
    grey = paper_grey(image)
    added: list[CellImage] = []
    for k in range(settings.extra_max_rows):
        boxes = _moved(last, shift + k * pitch)
        if not _inside(boxes, grey.shape) or _ruled(grey, boxes):
            break
        crops = {key: _clean(grey, box) for key, box in boxes.items()}
        if not (_written(crops["cum_ns"], settings) and _written(crops["cum_ew"], settings)):
            break
        row = str(DEALS + 1 + k)
        added.extend(CellImage(key=key, row=row, image=crops[key], box=boxes[key],
                               quad=box_quad(boxes[key], table.straight)) for key in DEAL_COLUMNS)
    if not added:
        return table
    cells = list(table.cells)
    at = max(i for i, c in enumerate(cells) if c.row in (str(DEALS), "total")) + 1
    cells[at:at] = added
    table.cells = cells
    return table


def _moved(cells: list[CellImage], dy: int) -> dict[str, tuple[int, int, int, int]]:
    """The boxes of ``cells`` moved ``dy`` pixels down, by column."""
    return {c.key: (c.box[0], c.box[1] + dy, c.box[2], c.box[3]) for c in cells}


def _inside(boxes: dict[str, tuple[int, int, int, int]], shape: tuple[int, ...]) -> bool:
    """Whether every box lies wholly on an image of ``shape``."""
    return all(x >= 0 and y >= 0 and x + w <= shape[1] and y + h <= shape[0]
               for x, y, w, h in boxes.values())


def _darkest(image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The crop of ``box``, each pixel its darkest channel."""
    x, y, w, h = box
    crop = image[y:y + h, x:x + w]
    return crop.min(axis=2) if crop.ndim == 3 else crop


def _ruled(grey: np.ndarray, boxes: dict[str, tuple[int, int, int, int]]) -> bool:
    """Whether a vertical ruling runs down between two of the row's number cells: a dark run
    down some column near where one cell ends and the next begins, over 40 % of the row's height
    (the table's bottom ruling, crossing the top of a row written below it, is a few pixels)."""
    keys = ("ns", "ew", "cum_ns", "cum_ew")
    for left, right in zip(keys, keys[1:], strict=False):
        lx, y, lw, h = boxes[left]
        rx = boxes[right][0]
        reach = max(4, round(0.06 * lw))  # a curled photo's ruling may stray from the cells' edge
        band = grey[y:y + h, max(0, min(lx + lw, rx) - reach):max(lx + lw, rx) + reach] < INK
        if not band.size:
            continue
        band = cv2.dilate(band.astype(np.uint8), np.ones((1, 3), np.uint8)) > 0  # a slight tilt
        if max(_longest_run(col) for col in band.T) >= 0.4 * h:
            return True
    return False


def _longest_run(col: np.ndarray) -> int:
    """The longest run of True in ``col``."""
    best = run = 0
    for v in col.tolist():
        run = run + 1 if v else 0
        best = max(best, run)
    return best


def _clean(grey: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The crop of ``box`` with long horizontal lines (the table's bottom ruling) whitened."""
    x, y, w, h = box
    crop = grey[y:y + h, x:x + w].copy()
    ink = (crop < INK).astype(np.uint8)
    lines = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, max(3, int(0.6 * w))), np.uint8))
    crop[cv2.dilate(lines, np.ones((3, 3), np.uint8)) > 0] = 255
    return crop


def _written(crop: np.ndarray, settings: GeometrySettings) -> bool:
    """Whether ``crop`` holds writing: enough ink, spread over enough of its height."""
    h, w = crop.shape
    iy, ix = round(settings.extra_inset * h), round(settings.extra_inset * w)
    inner = crop[iy:h - iy, ix:w - ix] < INK
    if inner.size == 0 or inner.mean() < settings.extra_ink_share:
        return False
    ys = np.flatnonzero(inner.any(axis=1))
    return (ys[-1] - ys[0] + 1) >= settings.extra_ink_height * inner.shape[0]
