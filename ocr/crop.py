"""A crop holding one written number, given on its own, made into a cell as the geometry stage
cuts them from a sheet (``rubberscan cell``; bench/bench_cells.py).

A sheet's cells arrive from ocr/table.py on flat white paper, rulings removed, the writing some
way short of the cell's height.  A crop from elsewhere (a phone photo of one cell, a cheque's
amount) may sit on shaded or patterned paper, with an underline or a box edge through it, cut
tight around the writing.  So: the paper's brightness is estimated (a grey closing over
``crop_background`` px, smoothed) and divided out; long horizontal lines (underlines, a
cheque's base line) are cleared; the ink is separated from what is left of the paper's pattern
by Otsu's threshold, softly (ink below it grades from grey to black); and the writing's rows are
framed to fill ``crop_writing_share`` of a cell's height.
"""

from __future__ import annotations

import cv2
import numpy as np

from ocr.settings import ReaderSettings


def _grey(image: np.ndarray) -> np.ndarray:
    g = np.asarray(image)
    if g.ndim == 3:
        g = cv2.cvtColor(g, cv2.COLOR_BGRA2GRAY if g.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
    if g.dtype != np.uint8:
        g = np.clip(g, 0, 255).astype(np.uint8)
    return g


def flatten(grey: np.ndarray, window: int, faintest: float = 0.0) -> np.ndarray | None:
    """The image divided by its paper's brightness (estimated by a closing over ``window`` px):
    paper 255, the darkest ink 0; None when its darkest 0.5 % is within ``faintest`` of the paper
    (no writing: stretching it would make ink of the paper's grain)."""
    g = grey.astype(np.float32)
    k = max(3, window | 1)
    paper = cv2.morphologyEx(g, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    paper = cv2.GaussianBlur(paper, (0, 0), k / 2)
    n = np.clip(g / np.maximum(paper, 1.0), 0, 1)
    lo = float(np.percentile(n, 0.5))
    if lo > 1.0 - faintest:
        return None
    return np.clip((n - lo) / max(1.0 - lo, 1e-3) * 255.0, 0, 255).astype(np.uint8)


def clear_lines(grey: np.ndarray) -> np.ndarray:
    """Long horizontal dark runs (a third of the crop wide or more) made paper."""
    ink = (grey < 160).astype(np.uint8)
    run = max(10, grey.shape[1] // 3)
    lines = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (run, 1)))
    out = grey.copy()
    out[lines > 0] = 255
    return out


def soft_ink(grey: np.ndarray) -> np.ndarray:
    """Paper and the pattern left on it (lighter than Otsu's threshold) white; ink below the
    threshold graded from grey to black at the image's darkest 1 %."""
    t, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    lo = float(np.percentile(grey, 1.0))
    x = (t - grey.astype(np.float32)) / max(t - lo, 1.0)
    return (255.0 - np.clip(x, 0, 1) * 255.0).astype(np.uint8)


def frame_rows(grey: np.ndarray, share: float) -> np.ndarray:
    """The rows holding writing, with paper above and below so that they fill ``share`` of the
    height (and a little paper left and right)."""
    rows = np.flatnonzero((grey < 128).sum(axis=1) > 1)
    if len(rows) == 0:
        return grey
    y0, y1 = int(rows[0]), int(rows[-1]) + 1
    h = y1 - y0
    total = int(round(h / max(share, 0.05)))
    top = (total - h) // 2
    return cv2.copyMakeBorder(grey[y0:y1], top, total - h - top, 4, 4, cv2.BORDER_CONSTANT, value=255)


DEFAULT = ReaderSettings()


def cell_image(image: np.ndarray, settings: ReaderSettings = DEFAULT) -> np.ndarray:
    """A crop (BGR or grey) as a cell image for ocr.read.read_cells: grey, paper 255, ink dark."""
    g = _grey(image)
    if g.shape[0] < 4 or g.shape[1] < 4:
        return np.full((max(4, g.shape[0]), max(4, g.shape[1])), 255, np.uint8)
    flat = flatten(g, settings.crop_background, settings.crop_faintest)
    if flat is None:  # nothing darker than the paper: an empty crop
        return np.full_like(g, 255)
    g = soft_ink(clear_lines(flat))
    return frame_rows(g, settings.crop_writing_share)
