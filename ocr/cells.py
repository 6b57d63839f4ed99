"""Cell images: paper-normalised grey, ruling lines removed, outlines on the original page."""

from __future__ import annotations

import cv2
import numpy as np

from ocr.settings import GeometrySettings

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


def clean_region(grey: np.ndarray, rulings: np.ndarray, box: Box, band: int) -> np.ndarray:
    """Crop ``box`` from ``grey`` with the ruling pixels (``rulings`` > 0) painted white,
    except where a handwritten stroke crosses a ruling (ink on both sides within
    ``band`` pixels, about the ruling zone's thickness): there the stroke is kept."""
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
    out = g.copy()
    out[r & ~restore] = 255
    return out


def box_quad(box: Box, straight) -> np.ndarray:
    """The corners (tl, tr, br, bl) of ``box`` on ``straight`` (an ocr.data.StraightPage) mapped
    onto the original page image."""
    x, y, w, h = box
    return straight.to_page([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]).astype(np.float32)


def stretch_ink(image: np.ndarray, settings: GeometrySettings, min_spread: float = 0.0) -> np.ndarray:
    """``image`` (paper at about 255) with its levels set as a scan's: the paper's noise white and the
    ink dark.  A photo's paper comes out of the light's division mottled where the light was dim
    (the sensor's noise and the JPEG's blocks, divided by a small level), and a blurred, shrunk
    photo leaves the print grey.  Levels: white from the paper's median less
    GeometrySettings.paper_noise times its spread (median absolute deviation), the darkest
    ``ink_percentile`` of the darkest channel taken to ``ink_level`` (a gain of at most ``ink_gain``).
    Paper whose spread is under ``min_spread`` grey levels is left as it is."""
    sample = image[::4, ::4]
    grey = sample.min(axis=2) if sample.ndim == 3 else sample
    dark, mid = (float(v) for v in np.percentile(grey, (settings.ink_percentile, 50)))
    spread = float(np.median(np.abs(grey.astype(np.float32) - mid)))
    if spread < min_spread:
        return image
    white = min(254.0, mid - settings.paper_noise * spread)
    gain = min(settings.ink_gain, (255.0 - settings.ink_level) / max(1.0, white - dark))
    if gain <= 1.02 and white >= 250:
        return image
    return cv2.convertScaleAbs(image, alpha=gain, beta=255.0 - gain * white)
