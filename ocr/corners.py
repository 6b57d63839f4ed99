"""A sheet read from the four corners of its deal table, clicked by a person (the review app).

For a page whose table the geometry stage did not find: the four points (on ``Page.image``, in
any order) say where the table's outer frame is, so the straightening is one homography taking
them to an upright rectangle, with paper kept around it for the names and winners lines.  From
there the page goes the usual way: the table stage (ocr.table.find_table) and the reader, then
reconciliation, through ocr.pipeline.read_results (the one read path).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import cv2
import numpy as np

from ocr.data import InputError, Page, StraightPage
from ocr.pipeline import PageOutcome, SheetResult, read_results
from ocr.settings import CornersSettings, Settings

DEFAULT = CornersSettings()


def order_corners(points: Sequence[Sequence[float]]) -> np.ndarray:
    """Four points as top-left, top-right, bottom-right, bottom-left (as seen on the image)."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if pts.shape != (4, 2) or not np.isfinite(pts).all():
        raise InputError("four corners are needed, each an (x, y) point on the page")
    c = pts.mean(axis=0)
    pts = pts[np.argsort(np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]))]  # clockwise on screen
    return np.roll(pts, -int(np.argmin(pts.sum(axis=1))), axis=0)


def straight_from_corners(page: Page, corners: Sequence[Sequence[float]],
                          settings: CornersSettings = DEFAULT) -> StraightPage:
    """The page warped so the clicked table is an upright rectangle (InputError when the points
    enclose no table).  A table seen wider than tall is turned a quarter (a deal table is taller
    than wide); one upside down is turned over by the table stage itself."""
    img = page.image
    if img is None or img.ndim != 3 or min(img.shape[:2]) < 50:
        raise InputError(f"{page.source}: page {page.index + 1} has no usable image")
    quad = order_corners(corners)
    h0, w0 = img.shape[:2]
    if (quad[:, 0] < -0.05 * w0).any() or (quad[:, 0] > 1.05 * w0).any() \
            or (quad[:, 1] < -0.05 * h0).any() or (quad[:, 1] > 1.05 * h0).any():
        raise InputError("the corners are not on the page")
    sides = [float(np.hypot(*(quad[(i + 1) % 4] - quad[i]))) for i in range(4)]
    if min(sides) < settings.min_side or cv2.contourArea(quad.astype(np.float32)) < \
            settings.min_side ** 2:
        raise InputError("the four corners enclose no table: click the four corners of the "
                         "deal table's outer frame")
    turned = 0
    if sides[0] + sides[2] > sides[1] + sides[3]:  # wider than tall: a quarter turn
        quad = np.roll(quad, -1, axis=0)  # the top-right corner becomes the top-left
        turned = 90
        sides = sides[1:] + sides[:1]
    tw, th = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    s = settings
    left, right, top, bottom = (s.margin_left * tw, s.margin_right * tw, s.margin_top * th,
                                s.margin_bottom * th)
    rect = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64)
    h_table = cv2.getPerspectiveTransform(quad.astype(np.float32), rect.astype(np.float32))
    # no more paper than the page has: the page's corners seen in the table's frame
    page_pts = cv2.perspectiveTransform(
        np.array([[[0, 0], [w0, 0], [w0, h0], [0, h0]]], np.float64), h_table)[0]
    x0, y0, x1, y1 = -left, -top, tw + right, th + bottom
    w_row = h_table[2, :2] @ np.array([[0, w0, w0, 0], [0, 0, h0, h0]]) + h_table[2, 2]
    if (w_row > 0).all():  # the whole page in front of the camera's horizon
        x0, y0 = max(x0, page_pts[:, 0].min()), max(y0, page_pts[:, 1].min())
        x1, y1 = min(x1, page_pts[:, 0].max()), min(y1, page_pts[:, 1].max())
        x0, y0, x1, y1 = min(x0, 0.0), min(y0, 0.0), max(x1, tw), max(y1, th)
    scale = s.work_long / max(x1 - x0, y1 - y0)
    shift = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale], [0, 0, 1.0]])
    to_straight = shift @ h_table
    size = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))
    image = cv2.warpPerspective(img, to_straight, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(255, 255, 255))
    to_original = np.linalg.inv(to_straight)
    return StraightPage(page=page, image=image, to_original=to_original / to_original[2, 2],
                        rotated=turned)


def corners_reader(page: Page, corners: Sequence[Sequence[float]],
                   settings: CornersSettings = DEFAULT):
    """A reader for ocr.pipeline.read_results (read_file's signature) giving ``page`` read from
    the clicked ``corners``: the table stage and the reader as on any other page."""

    def reader(path, data=None, name=None) -> Iterator[PageOutcome]:
        from ocr.read import read_table
        from ocr.table import find_table

        outcome = PageOutcome(source=page.source, page=page.index)
        try:
            table = find_table(straight_from_corners(page, corners, settings))
            outcome.reading = read_table(table)
            outcome.table = table
        except InputError as exc:
            outcome.error = str(exc)
        yield outcome

    return reader


def read_from_corners(page: Page, corners: Sequence[Sequence[float]], rules=None,
                      settings: Settings | None = None) -> SheetResult:
    """``page`` read and reconciled from the clicked ``corners`` (never raises: a failure is the
    result's ``error``)."""
    settings = settings or Settings()
    reader = corners_reader(page, corners, settings.corners)
    return next(read_results(None, name=page.source, rules=rules, settings=settings,
                             reader=reader))
