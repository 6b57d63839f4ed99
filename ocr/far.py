"""A photo of a sheet too far off to read: when no table is found on a photo, the sheet's own size on
the picture tells whether its rows would be too small to read anyway.  Then the sender is asked for
a closer photo instead of told that no table was found (the table may well be there)."""

from __future__ import annotations

import cv2
import numpy as np

from ocr.data import InputError, Page
from ocr.dewarp import ROW_MM, row_pitch
from ocr.page import is_photo, paper_corners
from ocr.settings import GeometrySettings

PAGE_LONG_MM = 297.0  # A4's long side


def row_px(page: Page, settings: GeometrySettings) -> float | None:
    """About how many photo pixels a deal row of the sheet on ``page`` is high, at its nearest: from
    the paper's outline where it shows (its longest side, A4), else from the lattice of the table's
    rulings (its rows' median pitch); None when neither is found."""
    quad = paper_corners(page.image, settings)
    if quad is not None:
        q = np.asarray(quad, np.float64).reshape(4, 2)
        return max(float(np.linalg.norm(q[i] - q[(i + 1) % 4])) for i in range(4)) * ROW_MM / PAGE_LONG_MM
    return row_pitch(page.image, settings, settings.far_sheet_cells)


def too_far(page: Page, source: str, settings: GeometrySettings) -> InputError | None:
    """The error to give for a photo on which no table was found whose sheet's rows would be under
    GeometrySettings.far_sheet_row_px high (as the reader puts a found table's rows that small in
    review: ocr/legible.py); None for a scan, or a sheet near enough (the error found stands)."""
    img = page.image
    if settings.far_sheet_row_px <= 0 or img is None or img.ndim != 3 or min(img.shape[:2]) < 50:
        return None  # (no usable picture: straighten's own error stands)
    try:
        if not is_photo(img, settings):
            return None
        px = row_px(page, settings)
    except (ValueError, IndexError, ZeroDivisionError, np.linalg.LinAlgError, cv2.error):
        return None  # odd geometry: the error found stands
    if px is None or px >= settings.far_sheet_row_px:
        return None
    return InputError(f"{source}: the sheet is too small in this photo to be read (its rows about {px:.0f} "
                      f"pixels high, {settings.far_sheet_row_px:.0f} needed): take the photo closer, with "
                      "the sheet filling the frame.")
