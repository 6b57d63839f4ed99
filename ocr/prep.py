"""A cell's grey image made into the cell networks' input: its writing found and cut out.

The cell keeps its full height (so a digit's size relative to the row is kept) and is cut to the
columns holding writing (specks too small to be writing are ignored for the cut), with a margin;
the cut is scaled to HEIGHT rows, squeezed if wider than WIDTH, and placed at the left.  A cell
without writing gives an all-zero input.  Every threshold is a ReaderSettings field.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from ocr.settings import ReaderSettings

HEIGHT = 32  # the cell networks' input: HEIGHT rows ...
WIDTH = 128  # ... by WIDTH columns
DEFAULT = ReaderSettings()


@dataclass(frozen=True)
class Cut:
    """Where a prepared input came from in its cell image: input column u is cell column
    x0 + u / xscale; the writing's rows are y0 to y1 (end excluded); ``ink`` is the cell's ink
    (0 paper .. 1 full ink) as the input was made from it."""

    x0: int
    xscale: float
    y0: int
    y1: int
    ink: np.ndarray
    second_look: bool = False  # found by prepare_cut's second look (faint, speckled or dotted writing)
    x1: int = -1  # the cut's right edge in the cell (end excluded; -1: the cell's)


def prepare(grey: np.ndarray, settings: ReaderSettings = DEFAULT) -> np.ndarray:
    """A cell's grey image -> the network input: float32 (HEIGHT, WIDTH), ink = 1, paper = 0."""
    return prepare_cut(grey, settings)[0]


def prepare_cut(grey: np.ndarray, settings: ReaderSettings = DEFAULT) -> tuple[np.ndarray, Cut | None]:
    """:func:`prepare`'s input and where it came from (None for an all-zero input).

    A cell the first look finds empty gets a second: writing can be faint (a washed-out photo of
    pencil, darkest ink < 0.2), grey beside one black speck (normalising by the speck hides it), or
    broken into dots by a fax.  The second look normalises by the 99.5th percentile of the ink and
    closes dots up before looking for marks tall enough to be writing; isolated specks and fax
    noise stay empty.  The cut takes in a digit broken into dots beside a solid one and one written
    fainter than its neighbours, and faint ink in its margins that makes no stroke is cleared
    (:func:`_clear_margins`).
    """
    s = settings
    g = np.asarray(grey)
    out = np.zeros((HEIGHT, WIDTH), np.float32)
    if g.ndim != 2 or g.shape[0] < 4 or g.shape[1] < 4:
        return out, None
    h = g.shape[0]
    raw = (255.0 - g.astype(np.float32)) / 255.0
    top = float(raw.max())
    if top >= 0.2:
        ink, mask, boxes, writing_top = _marks(raw, top, h, s)
        if boxes and writing_top < s.speck_darker * top:
            # the darkest ink is a speck, not writing: normalised by it, grey writing's thin
            # strokes fall apart below writing_ink (a thin 1 lost: "1370" read "370")
            ink, mask, boxes, _ = _marks(raw, writing_top, h, s)
        if boxes:
            # writing a fax broke into specks beside these marks (not the specks around them)
            dotted = [d for d in _dotted_marks(ink, mask, h, s) if not any(_overlap(d, b) for b in boxes)]
            faint = [f for f in _faint_marks(ink, h, s) if not any(_overlap(f, b) for b in boxes + dotted)]
            return _cut_to(ink, boxes + dotted + faint, out, s)
    robust = float(np.percentile(raw, 99.5))
    if robust < s.faint_top:
        return out, None
    ink = np.clip(raw / robust, 0, 1)
    boxes = _dotted_marks(ink, (ink > s.writing_ink).astype(np.uint8), h, s)
    if not boxes:
        return out, None
    out, cut = _cut_to(ink, boxes, out, s)
    return out, replace(cut, second_look=True)


def _marks(raw: np.ndarray, top: float, h: int, s: ReaderSettings) -> tuple:
    """``raw`` ink normalised by ``top`` (at least 0.35), its writing mask, the marks of it that
    count as writing (rows of connectedComponentsWithStats' stats) and the darkest raw ink in them."""
    ink = np.clip(raw / max(top, 0.35), 0, 1)
    mask = (ink > s.writing_ink).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    counts = np.flatnonzero((stats[1:, cv2.CC_STAT_AREA] >= _mark_area(h, s))
                            | (stats[1:, cv2.CC_STAT_HEIGHT] >= s.mark_tall * h)) + 1
    if not counts.size:
        return ink, mask, [], 0.0
    counted = np.zeros(n, bool)  # by label (a lookup: np.isin cost more than the rest of this)
    counted[counts] = True
    return ink, mask, [stats[i] for i in counts], float(np.max(raw[counted[labels]]))


def stretch_photo_ink(grey: np.ndarray, settings: ReaderSettings = DEFAULT) -> np.ndarray:
    """A photographed number cell with its ink scaled so that its 99.9th percentile is full ink,
    at most ``photo_stretch_max`` times; a cell whose percentile is under ``photo_stretch_min``
    grey levels is left as it is.  Pale pencil on a far photo keeps 0.1-0.3 of full ink: cut by
    prepare_cut's thresholds (relative to at least 0.35 of full ink) in part or not at all."""
    s = settings
    if s.photo_stretch_max <= 1:
        return grey
    ink = 255.0 - grey.astype(np.float32)
    top = float(np.percentile(ink, 99.9))
    if top < s.photo_stretch_min:
        return grey
    return (255 - np.clip(ink * min(255.0 / top, s.photo_stretch_max), 0, 255)).astype(np.uint8)


def clear_rulings(grey: np.ndarray, settings: ReaderSettings = DEFAULT) -> np.ndarray:
    """A photographed cell's image with its rulings' leftovers made paper.

    On a phone photo the rulings are blurred over several pixels and bent by the paper's curl, so
    the geometry stage leaves parts of them along the cell's sides; the cut then takes in a
    vertical one beside the writing (read as a 1, or alone when the writing is fainter) or is
    stretched to the cell's width by a horizontal one.  Removed: dark vertical runs at least
    ``photo_ruling_tall`` x the cell's height whose middle lies within ``photo_ruling_edge`` of
    its width from either side, and horizontal runs at least ``photo_ruling_long`` x its height
    (and a third of its width) long whose middle lies in the outer ``photo_ruling_band`` of its
    rows -- each with a pixel around it.  Writing between them is left alone."""
    s = settings
    g = np.asarray(grey)
    if g.ndim != 2 or min(g.shape) < 4:
        return g
    h, w = g.shape
    ink = 255 - g.astype(np.int16)
    top = int(ink.max())
    if top < 40:  # no ink to speak of
        return g
    mask = (ink > max(20, 0.3 * top)).astype(np.uint8)
    clear = np.zeros_like(mask)
    runs = [((max(int(s.photo_ruling_long * h), w // 3), 1), 1, s.photo_ruling_band * h, h),
            ((1, max(3, int(s.photo_ruling_tall * h))), 0, s.photo_ruling_edge * w, w)]
    for size, axis, near, extent in runs:
        if size[0] >= w or size[1] >= h:
            continue
        lines = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, size))
        n, labels, _, centres = cv2.connectedComponentsWithStats(lines, connectivity=8)
        for i in range(1, n):
            c = centres[i][axis]
            if c < near or c > extent - near:
                clear[labels == i] = 1
    if not clear.any():
        return g
    out = g.copy()
    out[cv2.dilate(clear, np.ones((3, 3), np.uint8)) > 0] = 255
    return out


def _dotted_marks(ink: np.ndarray, mask: np.ndarray, h: int, s: ReaderSettings) -> list:
    """The marks of ``mask`` that are writing once its dots are closed up (the second look's test),
    as boxes of ``ink``'s coordinates: a fax breaks a digit beside a solid one into specks each too
    small to count, and a cut to the solid one alone reads "50" as "5" (bench sheet 60005)."""
    k = max(3, int(round(s.faint_close * h)) | 1)
    closed = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    inked = np.bincount(labels[mask > 0], minlength=n)
    pad = k // 2
    return [np.array([b[0] + pad, b[1] + pad, b[2] - 2 * pad, b[3] - 2 * pad, b[4]]) for b in
            (stats[i] for i in range(1, n)
             if stats[i, cv2.CC_STAT_HEIGHT] - (k - 1) >= s.faint_tall * h and inked[i] >= s.faint_ink * h * h)]


def _faint_marks(ink: np.ndarray, h: int, s: ReaderSettings) -> list:
    """The cell's faint marks (ink above ``faint_mark_ink``) as tall as writing (at least
    ``mark_tall`` x the cell, under 0.9 x it: not a ruling's leftover) and as big as a mark that
    counts, as boxes (rows of connectedComponentsWithStats' stats)."""
    n, _, st, _ = cv2.connectedComponentsWithStats((ink > s.faint_mark_ink).astype(np.uint8), connectivity=8)
    return [st[i] for i in range(1, n) if s.mark_tall * h <= st[i, cv2.CC_STAT_HEIGHT] < 0.9 * h
            and st[i, cv2.CC_STAT_AREA] >= _mark_area(h, s)]


def _mark_area(h: int, s: ReaderSettings) -> float:
    """The ink pixels a mark in a cell ``h`` rows high needs to count as writing (unless it is
    tall): fewer are specks."""
    return max(4.0, s.mark_area * h * h)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two boxes (rows of connectedComponentsWithStats' stats) share columns."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2]


def _cut_to(ink: np.ndarray, boxes: list, out: np.ndarray, s: ReaderSettings) -> tuple[np.ndarray, Cut]:
    """The input made from ``ink`` (0..1) cut to the columns of the writing's boxes (rows of
    connectedComponentsWithStats' stats), with a margin, scaled to HEIGHT rows into ``out``."""
    h, w = ink.shape
    x0 = min(int(b[cv2.CC_STAT_LEFT]) for b in boxes)
    x1 = max(int(b[cv2.CC_STAT_LEFT] + b[cv2.CC_STAT_WIDTH]) for b in boxes)
    margin = int(round(s.cut_margin * h))
    y0 = min(int(b[cv2.CC_STAT_TOP]) for b in boxes)
    y1 = max(int(b[cv2.CC_STAT_TOP] + b[cv2.CC_STAT_HEIGHT]) for b in boxes)
    lo = max(0, x0 - margin)
    crop = ink[:, lo:min(w, x1 + margin)].copy()
    _clear_margins(crop, x0 - lo, x1 - lo, y1 - y0, s)
    x0 = lo
    scale = HEIGHT / h
    nw = int(round(crop.shape[1] * scale))
    nw = max(1, min(WIDTH, nw))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    out[:, :nw] = cv2.resize(crop, (nw, HEIGHT), interpolation=interp)
    return out, Cut(x0, nw / max(1, crop.shape[1]), y0, y1, ink, x1=x0 + crop.shape[1])


def _clear_margins(crop: np.ndarray, left: int, right: int, writing_h: int, s: ReaderSettings) -> None:
    """Clear (in place) the faint ink (below ``writing_ink``) of ``crop``'s columns before ``left``
    and from ``right`` on that makes no stroke there (at least ``margin_stroke_tall`` x the
    writing's height tall at ink > 0.1, at most ``margin_stroke_wide`` x it wide).  Each margin is
    judged on its own: judged with the rest of the cell beside it, a faint 1 joined to shading is
    lost with it (130103's "1740" read "740")."""
    hw = max(writing_h, 1)
    for a, b in ((0, left), (right, crop.shape[1])):
        part = crop[:, a:b]
        if part.size == 0:
            continue
        n, labels, st, _ = cv2.connectedComponentsWithStats((part > 0.1).astype(np.uint8), connectivity=8)
        stroke = np.zeros(n, bool)
        stroke[1:] = ((st[1:, cv2.CC_STAT_HEIGHT] >= s.margin_stroke_tall * hw)
                      & (st[1:, cv2.CC_STAT_WIDTH] <= s.margin_stroke_wide * hw))
        part[(part < s.writing_ink) & ~stroke[labels]] = 0


# A cell as stored for training (the review app's confirmed cells, ``rubberscan labels``;
# train/labels.py): LABEL_HEIGHT rows, at most LABEL_WIDTH columns (aspect 6: wider than any cell)
LABEL_HEIGHT = 64
LABEL_WIDTH = 384


def label_cell(grey: np.ndarray) -> np.ndarray:
    """A cell image (grey, paper light, as ocr/cells.py cuts it from the straightened scan) in the
    one size a file of labelled cells holds: scaled to LABEL_HEIGHT rows keeping its aspect
    (squeezed to LABEL_WIDTH columns if wider), paper (255) filled in on the right.  prepare_cut
    makes the same network input of it as of the cell (it scales every cell to HEIGHT rows)."""
    g = np.asarray(grey)
    if g.ndim == 3:
        g = cv2.cvtColor(g, cv2.COLOR_BGR2GRAY)
    g = np.clip(g, 0, 255).astype(np.uint8)
    out = np.full((LABEL_HEIGHT, LABEL_WIDTH), 255, np.uint8)
    if g.ndim != 2 or min(g.shape) < 1:
        return out
    w = max(1, min(LABEL_WIDTH, int(round(g.shape[1] * LABEL_HEIGHT / g.shape[0]))))
    interp = cv2.INTER_AREA if g.shape[0] > LABEL_HEIGHT else cv2.INTER_LINEAR
    out[:, :w] = cv2.resize(g, (w, LABEL_HEIGHT), interpolation=interp)
    return out
