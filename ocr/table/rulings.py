"""Rulings: long horizontal and vertical strokes of the ink, found by morphology (and, on a fax
whose rulings came out as dashes, drawn in where the table's columns agree)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ocr.settings import GeometrySettings
from ocr.table.common import DEALS, N_COLS

DEFAULT = GeometrySettings()


@dataclass
class Rulings:
    horiz: np.ndarray  # 255 on horizontal ruling pixels
    vert: np.ndarray  # 255 on vertical ruling pixels
    px_mm: float  # pixels per millimetre of the sheet (estimated)

    @property
    def both(self) -> np.ndarray:
        return cv2.bitwise_or(self.horiz, self.vert)

    @property
    def thickness(self) -> float:
        """The median width of the vertical rulings (pixels), measured along a few rows."""
        rows = self.vert[::max(1, self.vert.shape[0] // 64)] > 0
        edges = np.diff(rows.astype(np.int8), axis=1, prepend=0, append=0)
        starts, ends = np.nonzero(edges == 1), np.nonzero(edges == -1)
        widths = ends[1] - starts[1]
        return float(np.median(widths)) if widths.size else 0.0


def find_rulings(ink: np.ndarray, gap_mm: float = 0.8, px_mm: float | None = None,
                 vert: np.ndarray | None = None) -> Rulings:
    """Long horizontal and vertical strokes of ``ink`` (rulings), tolerant of a slight
    tilt or curvature and of breaks up to ``gap_mm`` long in horizontal rulings (0.8 mm in
    vertical ones: handwriting stacked down a column must not become a ruling).  ``vert``: the
    vertical ones, when already found on this ``ink`` at this ``px_mm`` (they do not depend on
    ``gap_mm``): taken as they are."""
    h, w = ink.shape
    px_mm = px_mm or max(h, w) / 297.0  # the sheet fills the straight image; A4 long side
    hk, vk = round(25 * px_mm), round(60 * px_mm)  # deal-table verticals run its full height
    gap = max(3, round(gap_mm * px_mm)) | 1
    vgap = max(3, round(0.8 * px_mm)) | 1
    rect = cv2.getStructuringElement
    # thicken across the line so a slightly tilted line stays inside one kernel row
    tilt = 3
    hz = cv2.dilate(ink, rect(cv2.MORPH_RECT, (1, tilt)))
    hz = cv2.morphologyEx(hz, cv2.MORPH_CLOSE, rect(cv2.MORPH_RECT, (gap, 1)))
    hz = cv2.morphologyEx(hz, cv2.MORPH_OPEN, rect(cv2.MORPH_RECT, (hk, 1)))
    if vert is not None:
        return Rulings(horiz=hz, vert=vert, px_mm=px_mm)
    vt = cv2.dilate(ink, rect(cv2.MORPH_RECT, (tilt, 1)))
    vt = cv2.morphologyEx(vt, cv2.MORPH_CLOSE, rect(cv2.MORPH_RECT, (1, vgap)))
    vt = cv2.morphologyEx(vt, cv2.MORPH_OPEN, rect(cv2.MORPH_RECT, (1, vk)))
    return Rulings(horiz=hz, vert=vt, px_mm=px_mm)


def long_verticals(vert: np.ndarray, mm: float, share: float = 0.6) -> np.ndarray:
    """``vert`` without the vertical strokes shorter than ``share`` of the longest (the
    pieces of one ruling at the same x, broken by a dropout, counted together)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(vert, connectivity=8)
    if n <= 2:
        return vert
    groups: list[list[int]] = []  # component indices, by x
    for i in sorted(range(1, n), key=lambda i: stats[i, 0]):
        x = stats[i, 0]
        if groups and x <= max(stats[j, 0] + stats[j, 2] for j in groups[-1]) + mm:
            groups[-1].append(i)
        else:
            groups.append([i])
    span = {tuple(g): max(stats[j, 1] + stats[j, 3] for j in g) - min(stats[j, 1] for j in g)
            for g in groups}
    longest = max(span.values())
    keep = np.zeros(n, np.uint8)
    for g, length in span.items():
        if length >= share * longest:
            keep[list(g)] = 255
    return keep[labels]


def table_lines(ink: np.ndarray, rulings: Rulings, settings: GeometrySettings = DEFAULT) -> np.ndarray | None:
    """Horizontal rulings of the deal table recovered from their dashes (analysis
    resolution), or None when no set of columns shows any.

    A fax scan line is coarser than a thin ruling, so a ruling that is a little off level
    comes out as dashes with gaps of several millimetres, longer than handwriting's own
    gaps: no morphological closing can tell them apart.  But a ruling crosses every
    column of the table at the same height, thin, while writing sits in one cell.  For
    each column between two vertical rulings (found whole), the share of its width inked
    at each height is taken; a ruling is a thin peak of that share (GeometrySettings.line_cover) that at least
    GeometrySettings.line_agree of six adjacent columns show within a pixel or two of each other.  It is
    drawn across each column at that column's own peak (rows need not be parallel)."""
    mm = rulings.px_mm
    n, _, stats, _ = cv2.connectedComponentsWithStats(rulings.vert, connectivity=8)
    lines: list[tuple[int, int, int, int]] = []  # (x0, x1, y0, y1), thin, left to right
    for x, y, bw, bh in sorted(tuple(int(v) for v in stats[i, :4]) for i in range(1, n)):
        if bw > 3 * mm:
            continue
        if lines and x <= lines[-1][1] + mm:  # pieces of one ruling, broken by a dropout
            a = lines[-1]
            lines[-1] = (a[0], max(a[1], x + bw), min(a[2], y), max(a[3], y + bh))
        else:
            lines.append((x, x + bw, y, y + bh))
    if len(lines) < N_COLS + 1:
        return None
    band = cv2.dilate(ink, cv2.getStructuringElement(cv2.MORPH_RECT, (1, 3)))
    h = ink.shape[0]
    thick = max(3, round(1.5 * mm))  # a peak this far off must have fallen well away
    near = 2  # pixels: the columns' peaks of one ruling
    strips = []
    for a, b in zip(lines, lines[1:], strict=False):
        xa, xb = a[1] + round(0.5 * mm), b[0] - round(0.5 * mm)
        if not 4 * mm <= xb - xa <= 80 * mm:
            strips.append(None)
            continue
        y0, y1 = max(a[2], b[2]), min(a[3], b[3])
        cover = np.zeros(h, np.float32)
        if y1 - y0 > 10 * mm:
            cover[y0:y1] = band[y0:y1, xa:xb].mean(axis=1) / 255.0
        lo = np.minimum(np.roll(cover, thick), np.roll(cover, -thick))
        peak = ((cover >= settings.line_cover) & (cover >= np.roll(cover, 1)) & (cover > np.roll(cover, -1))
                & (lo <= 0.7 * cover))
        strips.append((xa, xb, cover, peak))
    best, best_n = None, 0
    for i in range(len(strips) - N_COLS + 1):  # six adjacent columns: the deal table's
        group = strips[i:i + N_COLS]
        if any(g is None for g in group):
            continue
        votes = sum(cv2.dilate(g[3].astype(np.uint8)[:, None], np.ones((2 * near + 1, 1), np.uint8))[:, 0]
                    for g in group)
        ys = np.flatnonzero(votes >= settings.line_agree)
        heights = evenly_spaced([int(run.mean()) for run in
                                  np.split(ys, np.flatnonzero(np.diff(ys) > 1) + 1) if run.size], mm)
        if len(heights) > best_n:
            best, best_n = (group, heights), len(heights)
    if best is None or best_n < DEALS // 2:
        return None
    out = np.zeros_like(ink)
    group, heights = best
    for y in heights:
        for xa, xb, cover, peak in group:
            lo, hi = max(0, y - near), min(h, y + near + 1)
            ys = np.flatnonzero(peak[lo:hi])
            yy = lo + int(ys[np.argmax(cover[lo:hi][ys])]) if ys.size else y
            out[max(0, yy - 1):yy + 2, xa - round(0.5 * mm) - 2:xb + round(0.5 * mm) + 2] = 255
    return out


def evenly_spaced(ys: list[int], mm: float) -> list[int]:
    """The longest run of the heights ``ys`` (sorted) spaced by one row pitch (or two: a
    ruling lost), the pitch being the most common spacing between them: the tops of
    digits written level across a row may agree as well as a ruling does, but not at
    the rulings' spacing."""
    if len(ys) < 3:
        return ys
    d = np.subtract.outer(np.array(ys), np.array(ys)).ravel()
    d = d[(d >= 3.5 * mm) & (d <= 18 * mm)]
    if d.size == 0:
        return []
    counts = np.bincount(d, minlength=int(d.max()) + 2).astype(np.float64)
    smooth = counts + np.roll(counts, 1) + np.roll(counts, -1)  # counts[0] and [-1] are 0
    p = int(np.flatnonzero(smooth >= 0.5 * smooth.max())[0])  # not twice the pitch
    while p + 2 < smooth.size and smooth[p + 1] > smooth[p]:  # its top, not its rising side:
        p += 1  # a pitch estimated short leaves rulings a pixel or two off out of the run
    pitch = float(np.average([p - 1, p, p + 1], weights=counts[p - 1:p + 2] + 1e-9))
    best: list[tuple[int, int]] = []  # per height: (run length ending there, previous index)
    for j, y in enumerate(ys):
        options = [(best[i][0] + 1, i) for i in range(j)
                   if any(abs(y - ys[i] - m * pitch) <= 0.15 * pitch for m in (1, 2))]
        best.append(max(options, default=(1, -1)))
    j = max(range(len(ys)), key=lambda i: best[i][0])
    out = []
    while j >= 0:
        out.append(ys[j])
        j = best[j][1]
    return out[::-1]

