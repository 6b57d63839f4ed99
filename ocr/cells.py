"""Cell images: paper-normalised grey, ruling lines removed, outlines on the original page."""

from __future__ import annotations

import cv2
import numpy as np

Box = tuple[int, int, int, int]  # x, y, w, h


def paper_grey(bgr: np.ndarray) -> np.ndarray:
    """Grey image with the paper at ~255 and ink dark, whatever the ink colour or lighting.

    The darkest channel keeps blue, red and black ink all dark; dividing by a local
    estimate of the paper brightness removes shadows and uneven lighting."""
    if bgr.ndim == 3:
        b, g, r = cv2.split(bgr)
        grey = cv2.min(cv2.min(b, g), r)
    else:
        grey = bgr
    h, w = grey.shape
    f = 8
    sw, sh = max(1, w // f), max(1, h // f)
    # cut to whole 8x8 blocks: an exact shrink takes OpenCV's fast path (~6x cheaper)
    small = cv2.resize(grey[:sh * f, :sw * f] if min(h, w) >= f else grey, (sw, sh),
                       interpolation=cv2.INTER_AREA)
    k = max(5, round(max(small.shape) / 60)) | 1
    bg = cv2.dilate(small, np.ones((k, k), np.uint8))
    bg = cv2.blur(bg, (k, k))
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.divide(grey, np.maximum(bg, 1), scale=255)


def ink_mask(grey: np.ndarray, threshold: int = 170) -> np.ndarray:
    """255 where ``grey`` (from :func:`paper_grey`) is ink."""
    return cv2.threshold(grey, threshold - 1, 255, cv2.THRESH_BINARY_INV)[1]


def clean_region(grey: np.ndarray, rulings: np.ndarray, box: Box, band: int,
                 line_run: int = 0) -> np.ndarray:
    """Crop ``box`` from ``grey`` with the ruling pixels (``rulings`` > 0) painted white,
    except where a handwritten stroke crosses a ruling (ink on both sides within
    ``band`` pixels, about the ruling zone's thickness): there the stroke is kept.  With
    ``line_run`` (px), writing inside a horizontal ruling's zone beside the line itself is kept
    too (:func:`_beside_rulings`)."""
    x, y, w, h = box
    g = grey[y:y + h, x:x + w]
    r = rulings[y:y + h, x:x + w] > 0
    if not r.any():
        return g.copy()
    ink = g < 170
    kept = (ink & ~r).astype(np.uint8)
    # strokes crossing a ruling: ink on both sides of it, joined through it
    k = 2 * band + 1
    bridge_v = cv2.morphologyEx(kept, cv2.MORPH_CLOSE, np.ones((k, 1), np.uint8)) > 0
    bridge_h = cv2.morphologyEx(kept, cv2.MORPH_CLOSE, np.ones((1, k), np.uint8)) > 0
    restore = r & ink & (bridge_v | bridge_h)
    if line_run > 0:
        beside = _beside_rulings(ink, r, kept, restore, line_run)
        if beside.any():
            # a stroke crossing the line from writing beside it (a 7's stem up to its bar over
            # the ruling) is kept as one crossing from outside the zone
            kept |= beside.astype(np.uint8)
            bridge_v = cv2.morphologyEx(kept, cv2.MORPH_CLOSE, np.ones((k, 1), np.uint8)) > 0
            restore = beside | (r & ink & (bridge_v | bridge_h))
    out = g.copy()
    out[r & ~restore] = 255
    return out


def _beside_rulings(ink: np.ndarray, r: np.ndarray, kept: np.ndarray, restore: np.ndarray,
                    run: int) -> np.ndarray:
    """The ink in a horizontal ruling's zone that is writing beside the line, not the line: in a
    row of the zone less than half inked over ``run`` x 4 columns around it (a ruling's rows are
    inked along the table, dashed or solid; writing's only over a number), not next to such a
    row, and joined to writing outside the zone.  A 7's top bar just under the cell's top ruling,
    erased with it, leaves a 1 (bench sheet 210145)."""
    zone = cv2.morphologyEx(r.astype(np.uint8), cv2.MORPH_OPEN, np.ones((1, run), np.uint8))
    zink = (zone > 0) & ink
    if not zink.any():
        return zink
    width = (4 * run) | 1
    inked = cv2.blur(zink.astype(np.float32), (width, 1))
    share = inked / np.maximum(cv2.blur(zone.astype(np.float32), (width, 1)), 1e-3)
    line = cv2.dilate((share >= 0.5).astype(np.uint8), np.ones((3, 1), np.uint8)) > 0
    loose = zink & ~line
    if not loose.any():
        return loose
    n, labels = cv2.connectedComponents((kept.astype(bool) | loose | restore).astype(np.uint8), connectivity=8)
    joined = np.zeros(n, bool)
    joined[labels[kept > 0]] = True
    joined[0] = False
    return loose & joined[labels]


def edge_writing(window: np.ndarray, top: int, bottom: int, body: tuple[int, int],
                 reach: int) -> tuple[np.ndarray, int, int]:
    """A cell's image from ``window`` (the cleaned page's rows around it, its columns): rows
    ``top`` to ``bottom`` (end excluded), plus the rows of its own writing across either edge.  A
    mark of ink crossing an edge is the cell's own when more of it lies in the cell's ``body`` (its
    rows between the rulings) than outside and it ends within ``reach`` rows of the edges; the cell
    takes in its rows beyond the edge (with only that writing: the neighbour row's stays out), and
    a mark with none of it in the body (the neighbour's) is made paper in the cell's margins.
    Returns the image and the rows added above and below.  Writing rising over the ruling (the
    tops of "5770", bench sheet 180025) is cut by the cell's edge otherwise and read as "50"."""
    h = window.shape[0]
    ink = (window < 170).astype(np.uint8)
    if not (ink[top].any() or ink[bottom - 1].any()):  # no mark can cross an edge it does not touch
        return window[top:bottom].copy(), 0, 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n <= 1:
        return window[top:bottom].copy(), 0, 0
    rows = np.arange(h)
    in_box = (rows >= top) & (rows < bottom)
    in_body = (rows >= body[0]) & (rows < body[1])
    # each mark's pixels in the box, beyond it, in the body, beyond it (label 0 is paper)
    box_n, out_n, body_n, beyond_n = (np.bincount(labels[where].ravel(), minlength=n)
                                      for where in (in_box, ~in_box, in_body, ~in_body))
    crossing = (box_n > 0) & (out_n > 0)
    crossing[0] = False
    tops, ends = stats[:, cv2.CC_STAT_TOP], stats[:, cv2.CC_STAT_TOP] + stats[:, cv2.CC_STAT_HEIGHT]
    # the cell's own: mostly in its body, and ending within ``reach`` of its edges (a mark going on
    # further is writing of both rows touching, and is left as it is); the neighbour's: none of
    # it in the body
    own = crossing & (body_n >= beyond_n) & (top - tops <= reach) & (ends - bottom <= reach)
    foreign = crossing & (body_n == 0)
    up = int(max([top - tops[i] for i in np.flatnonzero(own)] + [0]))
    down = int(max([ends[i] - bottom for i in np.flatnonzero(own)] + [0]))
    y0, y1 = top - up, bottom + down
    out = window[y0:y1].copy()
    mine = cv2.dilate(own[labels[y0:y1]].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    added = ~in_box[y0:y1]
    out[added[:, None] & ~mine] = 255
    theirs = cv2.dilate(foreign[labels[y0:y1]].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    margin = ~in_body[y0:y1]
    out[margin[:, None] & theirs & ~mine] = 255
    return out, up, down


def box_quad(box: Box, straight) -> np.ndarray:
    """The corners (tl, tr, br, bl) of ``box`` on ``straight`` (an ocr.data.StraightPage) mapped
    onto the original page image."""
    x, y, w, h = box
    return straight.to_page([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]).astype(np.float32)
