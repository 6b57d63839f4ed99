"""A photo of a sheet too far off to read: when no table is found on a photo, the sheet's own size on
the picture tells whether its rows would be too small to read anyway.  Then the sender is asked for
a closer photo instead of told that no table was found (the table may well be there)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from ocr.data import InputError, Page, Table
from ocr.dewarp import ROW_MM, row_pitch, straighten_photo
from ocr.page import GEOMETRY_ERRORS, is_photo, paper_corners
from ocr.settings import GeometrySettings

PAGE_LONG_MM = 297.0  # A4's long side


def row_px(page: Page, settings: GeometrySettings) -> float | None:
    """About how many photo pixels a deal row of the sheet on ``page`` is high, at its nearest: from
    the paper's outline where it shows (its longest side, A4), else the larger of what the paper's
    bright patch (:func:`paper_patch`) and the lattice of the table's rulings (its rows' median
    pitch) give -- a shadowed sheet's patch is part of it, and a sheet is called far only when
    neither says it is near; None when none is found."""
    quad = paper_corners(page.image, settings)
    if quad is not None:
        q = np.asarray(quad, np.float64).reshape(4, 2)
        return max(float(np.linalg.norm(q[i] - q[(i + 1) % 4])) for i in range(4)) * ROW_MM / PAGE_LONG_MM
    patch = paper_patch(page.image, settings)
    found = [v for v in (None if patch is None else patch * ROW_MM / PAGE_LONG_MM,
                         row_pitch(page.image, settings, settings.far_sheet_cells)) if v is not None]
    return max(found) if found else None


def paper_patch(image: np.ndarray, settings: GeometrySettings) -> float | None:
    """The long side in photo pixels of the paper as a bright, colourless patch (a curled or dim
    sheet whose outline has no four corners to find): the largest connected part of the pixels as
    bright as the photo's ``far_patch_bright`` percentile and less saturated than
    ``far_patch_saturation``, its smallest enclosing rectangle.  None when that part is under
    ``far_patch_area`` of the photo or holds under ``far_patch_share`` of such pixels (other papers,
    or a shadow splitting the sheet: its size would be a part's)."""
    h, w = image.shape[:2]
    k = min(1.0, settings.far_patch_long / max(h, w))
    small = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else image
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    value, sat = hsv[..., 2], hsv[..., 1]
    mask = ((value >= np.percentile(value, settings.far_patch_bright)) & (sat < settings.far_patch_saturation))
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n < 2:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = int(stats[best, cv2.CC_STAT_AREA])
    if area < settings.far_patch_area * mask.size or area < settings.far_patch_share * int(stats[1:, cv2.CC_STAT_AREA].sum()):
        return None
    ys, xs = np.nonzero(labels == best)
    _, (a, b), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
    return max(a, b) / k


def _too_far(source: str, px: float | None, settings: GeometrySettings) -> InputError | None:
    """The error to give for a photo on which no table was found whose sheet's rows, ``px`` high
    (None: not measured), are under GeometrySettings.far_sheet_row_px (as the reader puts a found
    table's rows that small in review: ocr/legible.py); None for a sheet near enough (the error
    found stands)."""
    if px is None or settings.far_sheet_row_px <= 0 or px >= settings.far_sheet_row_px:
        return None
    return InputError(f"{source}: the sheet is too small in this photo to be read (its rows about {px:.0f} "
                      f"pixels high, {settings.far_sheet_row_px:.0f} needed): take the photo closer, with "
                      "the sheet filling the frame.")


def _rows_px(page: Page, settings: GeometrySettings) -> float | None:
    """:func:`row_px` of a photo's sheet; None for a scan, no usable picture, or odd geometry."""
    img = page.image
    if img is None or img.ndim != 3 or min(img.shape[:2]) < 50:
        return None  # (no usable picture: straighten's own error stands)
    try:
        if not is_photo(img, settings):
            return None
        return row_px(page, settings)
    except GEOMETRY_ERRORS:
        return None  # odd geometry: the error found stands


def far_retry(page: Page, source: str, settings: GeometrySettings) -> tuple[Table | None, InputError | None]:
    """Where no table was found on ``page``: (its table found on the photo enlarged, None) for a far
    photo, its rows under GeometrySettings.far_retry_row_px (:func:`far_table`), else (None,
    the "take the photo closer" error: None for a scan, or unless the sheet is under
    far_sheet_row_px)."""
    if settings.far_sheet_row_px <= 0:
        return None, None
    px = _rows_px(page, settings)
    limit = max(settings.far_sheet_row_px, settings.far_retry_row_px)
    table = far_table(page, settings) if px is not None and px < limit else None
    return (table, None) if table is not None else (None, _too_far(source, px, settings))


def far_table(page: Page, settings: GeometrySettings) -> Table | None:
    """The table of a far photo on which none was found (else :func:`far_retry` asks for a closer
    one), sought again by the photo path on the photo enlarged by each of
    GeometrySettings.far_retry_scales in turn; its cells and outline put back onto ``page``.  Its
    sheet being too small (Table.far), the reader puts all its numbers in review (ocr/legible.py).
    None when none is found."""
    from ocr.table import find_table

    long = max(page.image.shape[:2])
    tried = set()
    for k in settings.far_retry_scales:
        k = min(k, settings.far_retry_long / long)  # (a large photo: its enlarged copy bounded)
        if k <= 1.0 or round(k, 3) in tried:
            continue
        tried.add(round(k, 3))
        big = Page(page.source, page.index, cv2.resize(page.image, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC),
                   page.meta)
        try:
            straight = straighten_photo(big, settings, paper_corners(big.image, settings))
            if straight is None:
                continue
            table = find_table(straight, settings)
        except (InputError, *GEOMETRY_ERRORS):
            continue
        return _onto(table, page, k)
    return None


def _onto(table: Table, page: Page, k: float) -> Table:
    """``table``, found on ``page`` enlarged ``k`` times, with its straightening and outlines on ``page``."""
    s = table.straight
    back = np.diag([1.0 / k, 1.0 / k, 1.0])
    table.straight = replace(s, page=page, to_original=back @ s.to_original,
                             grid=None if s.grid is None else s.grid / np.float32(k))
    for c in table.cells:
        if c.quad is not None:
            c.quad = (np.asarray(c.quad) / k).astype(np.asarray(c.quad).dtype)
    if table.table_quad is not None:
        table.table_quad = np.asarray(table.table_quad, np.float64) / k
    table.far = True  # (its sheet's rows under far_retry_row_px: every one's numbers to review)
    return table
