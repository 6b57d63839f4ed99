"""Deal rows: the paper blobs the rulings enclose, chained left to right into rows of six that
share the table's column edges; the Total row and the header band around them."""

from __future__ import annotations

from statistics import median as _med  # np.median costs ~50 us a call on these short lists

import cv2
import numpy as np

from ocr.cells import ink_mask
from ocr.settings import GeometrySettings
from ocr.table.common import DEALS, N_COLS, Blob, Row
from ocr.table.rulings import Rulings, find_rulings, long_verticals, table_lines

DEFAULT = GeometrySettings()


def locate_rows(grey: np.ndarray, settings: GeometrySettings = DEFAULT, mm: float | None = None
                ) -> tuple[Rulings, list[Blob], list[Row], np.ndarray]:
    """Rulings, cell blobs and deal rows of the sheet (the rows may be fewer than 30),
    and the ink mask they were found in (1/GeometrySettings.table_analysis resolution)."""
    h, w = grey.shape
    ink = ink_mask(grey, settings.ruling_ink)
    k = settings.table_analysis  # cut to whole k x k blocks: an exact shrink takes OpenCV's fast path
    half = cv2.resize(ink[:h // k * k, :w // k * k], (w // k, h // k), interpolation=cv2.INTER_AREA)
    half = cv2.threshold(half, 59, 255, cv2.THRESH_BINARY)[1]  # any ink in the 2x2 block
    best = first = None
    for gap_mm in settings.ruling_breaks_mm:  # rulings broken into dashes (fax) need the wider gap
        # (the vertical rulings do not depend on the gap: found once, copies taken after)
        rulings = find_rulings(half, gap_mm, px_mm=mm, vert=None if first is None else first.vert.copy())
        first = first or Rulings(rulings.horiz.copy(), rulings.vert.copy(), rulings.px_mm)
        blobs = cell_blobs(rulings, k)
        rows = deal_rows(blobs, rulings.px_mm * k, k * rulings.thickness)
        if best is None or len(rows) > len(best[2]):
            best = (rulings, blobs, rows, half)
        if len(rows) >= DEALS:
            return best
    # handwriting stacked down a column, touching across the rulings, can pass for a
    # vertical ruling and split the cells of some rows: vertical strokes much shorter
    # than the table's own are dropped
    rulings = first  # find_rulings(half, settings.ruling_breaks_mm[0], px_mm=mm) again: the loop's first
    rulings.vert = long_verticals(rulings.vert, rulings.px_mm)
    blobs = cell_blobs(rulings, k)
    rows = deal_rows(blobs, rulings.px_mm * k, k * rulings.thickness)
    if len(rows) > len(best[2]):
        best = (rulings, blobs, rows, half)
    if len(rows) >= DEALS:
        return best
    # horizontal rulings broken into dashes with gaps longer than any safe closing (a fax
    # line thinner than a scan line): drawn in where the columns agree (see table_lines)
    drawn = table_lines(half, rulings, settings)
    if drawn is not None:
        rulings.horiz = cv2.bitwise_or(rulings.horiz, drawn)
        blobs = cell_blobs(rulings, k)
        rows = deal_rows(blobs, rulings.px_mm * k, k * rulings.thickness)
        if len(rows) > len(best[2]):
            best = (rulings, blobs, rows, half)
    return best


def extent(blobs: list[Blob], rows: list[Row], total: Row | None = None):
    """The Total row (``total``, else as found, else None), the header box (or None) and
    the table's (x0, y0, x1, y1)."""
    total = total or total_row(blobs, rows)
    header = header_box(blobs, rows)
    last = total or rows[-1]
    y0 = header[1] if header is not None else rows[0][0].y0
    return total, header, (rows[0][0].x0, y0, rows[0][-1].x1, last[-1].y1)


def cell_blobs(rulings: Rulings, k: int) -> list[Blob]:
    """Paper regions enclosed by rulings whose size and shape fit a table cell, in
    straight-image pixels (rulings are found at 1/k resolution)."""
    free = cv2.bitwise_not(rulings.both)
    n, _, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    mm = rulings.px_mm
    x, y, w, h, area = (stats[:, i] for i in range(5))
    keep = ((h >= 3.5 * mm) & (h <= 18 * mm) & (w >= 4 * mm) & (w <= 80 * mm)
            & (area >= 0.8 * w * h))
    return [Blob(int(x[i]) * k, int(y[i]) * k, int(x[i] + w[i]) * k, int(y[i] + h[i]) * k)
            for i in np.flatnonzero(keep)]


def right_neighbours(blobs: list[Blob], gap: float) -> list[int | None]:
    """For each blob, the index of the blob directly to its right in the same row (of equally
    good ones, the first in ``blobs``).  Only blobs whose left edge lies within ``gap`` of a
    blob's right edge are compared with it, so a page ruled all over (graph paper, thousands of
    squares) costs no more than its squares' neighbours."""
    n = len(blobs)
    if not n:
        return []
    b = np.array([(q.x0, q.y0, q.x1, q.y1) for q in blobs], np.float64)
    order = np.argsort(b[:, 0], kind="stable")
    lefts = b[order, 0]
    lo = np.searchsorted(lefts, b[:, 2], side="left")  # left edge >= this right edge ...
    hi = np.searchsorted(lefts, b[:, 2] + gap, side="right")  # ... and <= it + gap
    width = int((hi - lo).max())
    if width == 0:
        return [None] * n
    idx = lo[:, None] + np.arange(width)[None, :]
    cand = order[np.minimum(idx, n - 1)]  # (n, width) indices into blobs
    c = b[cand]
    dx = c[..., 0] - b[:, None, 2]
    overlap = np.minimum(b[:, None, 3], c[..., 3]) - np.maximum(b[:, None, 1], c[..., 1])
    hmin = np.minimum((b[:, 3] - b[:, 1])[:, None], c[..., 3] - c[..., 1])
    ok = (idx < hi[:, None]) & (overlap >= 0.6 * hmin)
    score = np.where(ok, overlap / np.maximum(hmin, 1) - dx / (gap + 1), -np.inf)
    best = np.where(ok & (score == score.max(axis=1)[:, None]), cand, n).min(axis=1)
    return [int(best[i]) if ok[i].any() else None for i in range(n)]


def chains(blobs: list[Blob], gap: float) -> list[list[Blob]]:
    """Maximal left-to-right chains of touching cells (one per printed row segment)."""
    right = right_neighbours(blobs, gap)
    has_left = {j for j in right if j is not None}
    out = []
    for i in range(len(blobs)):
        if i in has_left:
            continue
        chain, j, seen = [], i, set()
        while j is not None and j not in seen:
            seen.add(j)
            chain.append(blobs[j])
            j = right[j]
            if j is not None and len(chain) > 1 and chain[-1].h > 1.4 * chain[0].h:
                # a cell two rows high (a glare spot or a stroke over the ruling between them):
                # the chain goes on in its own row, not in whichever of the two came first
                j = _in_band(blobs, chain[-1], chain[0], gap, j)
        out.append(chain)
    return out


def _in_band(blobs: list[Blob], tall: Blob, first: Blob, gap: float, default: int) -> int:
    """The blob right of ``tall`` (left edge within ``gap`` of its right edge) that overlaps the
    row band of ``first`` most, if it overlaps it by more than half its height; else ``default``."""
    best, best_overlap = default, 0.0
    for k, b in enumerate(blobs):
        if 0 <= b.x0 - tall.x1 <= gap:
            overlap = min(b.y1, first.y1) - max(b.y0, first.y0)
            if overlap > best_overlap and overlap > 0.5 * min(b.h, first.h):
                best, best_overlap = k, overlap
    return best


def deal_rows(blobs: list[Blob], px_mm: float, ruling: float = 0.0) -> list[Row]:
    """The rows of the deal table, top to bottom: the largest set of six-cell chains
    that share column boundaries, plus rows whose cells a stray stroke split further.
    Cells side by side are at most 2 mm apart, or a little more than a ``ruling`` is thick
    (a phone's blur thickens a ruling well past its printed width)."""
    gap = max(6.0, 2.0 * px_mm, 1.3 * ruling + 2.0)
    all_chains = chains(blobs, gap)
    cand = [c for c in all_chains if len(c) == N_COLS]
    if not cand:
        return []
    bounds = np.array([[b.x0 for b in c] + [c[-1].x1] for c in cand], np.float64)
    tol = max(6.0, 2.0 * px_mm)
    close = (np.abs(bounds[:, None, :] - bounds[None, :, :]).max(axis=2) <= tol)
    ref = int(np.argmax(close.sum(axis=1)))
    rows = [cand[i] for i in np.flatnonzero(close[ref])]
    cols = np.median(bounds[close[ref]], axis=0)
    pitch = float(_med([r[0].h for r in rows]))
    for c in all_chains:
        row = merge_split(c, cols, tol)
        if row is not None and all(abs(row[0].cy - r[0].cy) > 0.5 * pitch for r in rows):
            rows.append(row)
    rows.sort(key=lambda r: _med([b.cy for b in r]))
    return [tidy(r) for r in rows]


def merge_split(chain: list[Blob], cols: np.ndarray, tol: float) -> Row | None:
    """A chain of more than six cells that starts at the deal-number column and ends at
    the table's right edge, its pieces merged per column; else None."""
    inside = [b for b in chain if b.cx < cols[-1]]
    if len(inside) <= N_COLS or abs(inside[0].x0 - cols[0]) > tol or abs(inside[-1].x1 - cols[-1]) > tol:
        return None
    groups: list[list[Blob]] = [[] for _ in range(N_COLS)]
    for b in inside:
        groups[min(N_COLS - 1, max(0, int(np.searchsorted(cols, b.cx)) - 1))].append(b)
    if any(not g for g in groups):
        return None
    return [Blob(min(b.x0 for b in g), min(b.y0 for b in g), max(b.x1 for b in g), max(b.y1 for b in g))
            for g in groups]


def tidy(row: Row) -> Row:
    """Clip cells that spilled into a neighbouring row (a broken ruling) to the row's band."""
    y0 = int(_med([b.y0 for b in row]))
    y1 = int(_med([b.y1 for b in row]))
    return [Blob(b.x0, max(b.y0, y0), b.x1, min(b.y1, y1)) if b.h > 1.4 * (y1 - y0) else b
            for b in row]


def fill_gaps(rows: list[Row]) -> list[Row]:
    """Insert rows missed between found ones (e.g. a ruling lost to a scan dropout)."""
    cys = np.array([_med([b.cy for b in r]) for r in rows])
    pitch = float(np.median(np.diff(cys))) if len(rows) > 1 else 0.0
    if pitch <= 0:
        return rows
    out = [rows[0]]
    for prev, nxt, d in zip(rows, rows[1:], np.diff(cys), strict=False):
        missing = round(d / pitch) - 1
        for k in range(1, missing + 1):
            t = k / (missing + 1)
            out.append([lerp(a, b, t) for a, b in zip(prev, nxt, strict=True)])
        out.append(nxt)
    return out


def frame_span(rulings: Rulings, rows: list[Row], k: int) -> tuple[int, int]:
    """Top and bottom (straight-image y) of the table's left frame ruling."""
    x = rows[0][0].x0 // k
    strip = rulings.vert[:, max(0, x - round(2 * rulings.px_mm)):x + 1]
    ys = np.flatnonzero(strip.any(axis=1))
    if ys.size == 0:
        return rows[0][0].y0, rows[-1][0].y1
    return int(ys[0]) * k, int(ys[-1] + 1) * k


def extend_rows(rows: list[Row], labels: list[str], span: tuple[int, int]):
    """Add deal rows missed above the first or below the last found one (their rulings
    lost), one pitch apart, as long as they fit inside the table's frame (``span``),
    leaving room for the header above."""
    cys = [_med([b.cy for b in r]) for r in rows]
    step = float(np.median(np.diff(cys))) if len(rows) > 1 else float(rows[0][0].h)
    first, last = int(labels[0]), int(labels[-1])
    above: list[Row] = []
    for k in range(1, first):
        r = [Blob(b.x0, round(b.y0 - k * step), b.x1, round(b.y1 - k * step)) for b in rows[0]]
        if r[0].y0 < span[0] + 1.2 * step:
            break
        above.insert(0, r)
    below: list[Row] = []
    for k in range(1, DEALS - last + 1):
        r = [Blob(b.x0, round(b.y0 + k * step), b.x1, round(b.y1 + k * step)) for b in rows[-1]]
        if r[0].y1 > span[1] + 0.3 * step:
            break
        below.append(r)
    names = ([str(first - len(above) + i) for i in range(len(above))] + labels
             + [str(last + 1 + i) for i in range(len(below))])
    return above + rows + below, names


def lerp(a: Blob, b: Blob, t: float) -> Blob:
    pa, pb = (a.x0, a.y0, a.x1, a.y1), (b.x0, b.y0, b.x1, b.y1)
    return Blob(*(round(p + t * (q - p)) for p, q in zip(pa, pb, strict=True)))


def column_bounds(rows: list[Row]) -> list[tuple[int, int]]:
    """Median left/right edge of each of the N_COLS columns."""
    return [(int(_med([r[i].x0 for r in rows])), int(_med([r[i].x1 for r in rows])))
            for i in range(N_COLS)]


def total_row(blobs: list[Blob], rows: list[Row]) -> Row | None:
    """The printed Total row under the last deal, when there is one: a label cell spanning
    the deal-number and dealer columns, then the four score columns."""
    last = rows[-1]
    pitch = float(_med([r[0].h for r in rows]))
    cols = column_bounds(rows)
    tol = max(4.0, 0.25 * pitch)
    label = next((b for b in blobs if abs(b.x0 - cols[0][0]) <= tol and abs(b.x1 - cols[1][1]) <= tol
                  and 0 <= b.y0 - last[0].y1 <= 0.8 * pitch and b.h <= 2.2 * pitch), None)
    if label is None:
        return None
    out: Row = [label]
    for i in range(2, N_COLS):
        c = next((b for b in blobs if abs(b.x0 - cols[i][0]) <= tol and abs(b.x1 - cols[i][1]) <= tol
                  and abs(b.cy - label.cy) <= 0.4 * label.h), None)
        if c is None:
            return None
        out.append(c)
    return out


def total_from_rows(rows: list[Row], labels: list[str | None], raw: list[str]) -> Row | None:
    """A six-cell row right after deal 30 whose label is not a deal number (a stroke of
    the printed "Total" split its label cell): the Total row, first two cells merged."""
    for i in range(1, len(rows)):
        if labels[i - 1] == str(DEALS) and labels[i] is None and raw[i] != str(DEALS + 1):
            a, b = rows[i][0], rows[i][1]
            return [Blob(a.x0, min(a.y0, b.y0), b.x1, max(a.y1, b.y1))] + rows[i][2:]
    return None


def header_box(blobs: list[Blob], rows: list[Row]) -> tuple[int, int, int, int] | None:
    """The printed header band above the first deal row, as (x, y, w, h)."""
    first = rows[0]
    pitch = float(_med([r[0].h for r in rows]))
    above = [b for b in blobs if b.y1 <= first[0].y0 + 2 and first[0].y0 - b.y1 <= 0.6 * pitch
             and b.x0 >= first[0].x0 - pitch and b.x1 <= first[-1].x1 + pitch]
    top = min((b.y0 for b in above), default=round(first[0].y0 - 2 * pitch))
    top = max(0, top)
    x0, x1 = first[0].x0, first[-1].x1
    if first[0].y0 - top < 0.5 * pitch:
        return None
    return (x0, top, x1 - x0, first[0].y0 - top)


def has_table_beside(blobs: list[Blob], x_right: int, y0: int, y1: int) -> bool:
    """Whether other ruled cells stand to the right of the deal table (the scoring table)."""
    return sum(1 for b in blobs if b.x0 > x_right and y0 <= b.cy <= y1) >= 10


def rows_bend(rows: list[Row]) -> float:
    """How far the table's rows are from straight: over the rows, the 90th percentile of the spread
    of their cells' top edges, in row pitches (a curled sheet's rows bow: their cells' tops and
    bottoms step up or down across the row)."""
    pitch = float(_med([r[0].h for r in rows]))
    spread = [max(b.y0 for b in r) - min(b.y0 for b in r) for r in rows]
    spread += [max(b.y1 for b in r) - min(b.y1 for b in r) for r in rows]
    return float(np.percentile(spread, 90)) / max(pitch, 1.0)
