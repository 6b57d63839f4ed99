"""Find the deal table on a straightened sheet and cut it into cells.

No pixel positions of any one printing are assumed.  The rulings are found with
long morphological openings; the cells are the blobs of paper they enclose; a
deal row is a chain of six side-by-side blobs, and the deal table is the largest
stack of such rows sharing the same column boundaries (a scoring table printed
beside it has a different structure and is ignored).  Rows are then named by
their printed deal numbers, read with one batched Tesseract call, and the
columns are checked against the printed headers read in the same call.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median as _med  # np.median costs ~50 us a call on these short lists

import cv2
import numpy as np

from ocr import tess
from ocr.cells import box_quad, clean_region, ink_mask, paper_grey
from ocr.data import DEAL_COLUMNS, TEXT_FIELDS, CellImage, InputError, StraightPage, Table
from ocr.printed import read_fields, read_header, read_printed

NOT_FOUND = "no summary score table found"
N_COLS = 1 + len(DEAL_COLUMNS)  # the printed deal-number column, then DEAL_COLUMNS
DEALS = 30
RULING_INK = 215  # rulings may be thin and faint: anything darker than the paper may be one
BREAKS_MM = (0.8, 3.5)  # ruling gaps bridged: first try, then for dashed (fax) rulings
NS_GAP_MM = 25.0  # the N/S underline ends at most this far left of the E/W one
ANALYSIS = 2  # rulings and cells are found at 1/ANALYSIS of the straight resolution


@dataclass
class Blob:
    """A paper region enclosed by rulings (a candidate cell), on the straight image."""

    x0: int
    y0: int
    x1: int  # exclusive
    y1: int  # exclusive

    @property
    def h(self) -> int:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


Row = list[Blob]  # N_COLS cells, left to right


@dataclass
class Rulings:
    horiz: np.ndarray  # 255 on horizontal ruling pixels
    vert: np.ndarray  # 255 on vertical ruling pixels
    px_mm: float  # pixels per millimetre of the sheet (estimated)

    @property
    def both(self) -> np.ndarray:
        return cv2.bitwise_or(self.horiz, self.vert)


def find_table(straight: StraightPage) -> Table:
    """Locate the deal table on ``straight`` and return its cells (see ocr.data.Table).

    Raises InputError (and nothing else) when the page shows no summary score table."""
    page = straight.page
    src = page.source + (f" page {page.index + 1}" if page.index else "")
    try:
        try:
            return _find_table(straight, src)
        except _Unread as first:  # ruled rows but unreadable labels: maybe upside down
            try:
                return _find_table(turned_over(straight), src)
            except InputError:
                raise first from None
    except (ValueError, IndexError, ZeroDivisionError, cv2.error) as exc:  # odd geometry
        raise InputError(f"{src}: {NOT_FOUND} (table analysis failed: {exc})") from None


class _Unread(InputError):
    """Deal rows were found but their printed numbers or headers were not read."""


def turned_over(straight: StraightPage) -> StraightPage:
    """``straight`` turned by 180 degrees (its homography and quarter turns updated)."""
    h, w = straight.image.shape[:2]
    flip = np.array([[-1.0, 0.0, w - 1.0], [0.0, -1.0, h - 1.0], [0.0, 0.0, 1.0]])
    return StraightPage(page=straight.page, image=np.ascontiguousarray(straight.image[::-1, ::-1]),
                        to_original=straight.to_original @ flip, skew_deg=straight.skew_deg,
                        rotated=(straight.rotated + 180) % 360)


def _find_table(straight: StraightPage, src: str) -> Table:
    img = straight.image
    if img is None or img.ndim < 2 or min(img.shape[:2]) < 100:
        raise InputError(f"{src}: page image too small")
    grey = paper_grey(img)
    h, w = grey.shape
    rulings, blobs, rows, half = _locate_rows(grey)
    px_mm = rulings.px_mm * ANALYSIS
    if len(rows) < DEALS // 2:
        raise InputError(f"{src}: {NOT_FOUND} (no ruled table of deal rows)")
    rows = fill_gaps(rows)
    total, header, (x0, y0, x1, y1) = _extent(blobs, rows)

    # rulings removed once over the whole table, cells cut from that
    pitch = float(_med([r[0].h for r in rows]))
    margin = (max(2, round(0.6 * px_mm)), max(2, round(0.15 * pitch)))  # x, y
    zone = _full_res(rulings.both, (w, h))
    band = max(3, round(0.5 * px_mm) + 3)
    rx0, ry0 = max(0, x0 - 2 * margin[1]), max(0, y0 - 2 * margin[1])
    rx1, ry1 = min(w, x1 + 2 * margin[1]), min(h, y1 + 2 * margin[1])
    region = (rx0, ry0, rx1 - rx0, ry1 - ry0)
    clean = clean_region(grey, zone, region, band)

    def crop(b: tuple[int, int, int, int]) -> np.ndarray:
        bx, by, bw, bh = b
        return clean[by - ry0:by - ry0 + bh, bx - rx0:bx - rx0 + bw]

    # Through pytesseract (a process per call) the names/winners fields are read in the
    # same call as the printed text, so they are cut before the rows are named, from the
    # table's extent as found so far; in-process they are read once the table is final
    to_orig = straight.to_original
    guess = (text_fields(grey, zone, rulings, half, rows, min(y0, _frame_span(rulings, rows)[0]),
                         to_orig) if tess.backend() != "tesserocr" else [])
    header_img = crop(header) if header is not None else None
    printed = read_printed(header_img, [crop(_inner(r[0])) for r in rows],
                           {c.key: c.image for c in guess})
    labels = name_rows(printed.labels)
    if labels is None:
        raise _Unread(f"{src}: {NOT_FOUND} (the printed deal numbers 1-{DEALS} were not read)")
    header_words = printed.header_words
    if not _headers_read(header_words) and labels[0] is None:
        # the first "rows" carry no deal number: a header ruled into six cells (the N/S E/W
        # row under Score and Cumulative) was taken for a deal row, and the header band was
        # looked for above it; look again above the first numbered row
        first = next(i for i, lab in enumerate(labels) if lab is not None)
        again = header_box(blobs, rows[first:])
        if again is not None and again != header:
            header, header_words = again, read_header(crop(again), printed.scale)
    if not _headers_read(header_words):
        raise _Unread(f"{src}: {NOT_FOUND} (no Dealer / Score / Cumulative headers above "
                      "the numbered rows)")
    order = column_order(header_words, header)
    total = None
    if None in labels:  # rows without a deal number (e.g. a header split by its own text)
        total = _total_from_rows(rows, labels, printed.raw)
        named = [(r, lab) for r, lab in zip(rows, labels, strict=True) if lab is not None]
        rows, labels = [r for r, _ in named], [lab for _, lab in named]
    span = _frame_span(rulings, rows)
    rows, labels = extend_rows(rows, labels, span)
    total, header, (x0, y0, x1, y1) = _extent(blobs, rows, total)

    cells: list[CellImage] = []
    for row, label in zip(rows, labels, strict=True):
        cells.extend(_cell(crop, b, key, label, margin, region, to_orig)
                     for key, b in zip(order, row[1:], strict=True))
    if total is not None:
        cells.extend(_cell(crop, b, key, "total", margin, region, to_orig)
                     for key, b in zip(order[1:], total[1:], strict=True))
    fields = text_fields(grey, zone, rulings, half, rows, min(y0, span[0]), to_orig)
    cells.extend(fields)

    table_quad = box_quad((x0, y0, x1 - x0, y1 - y0), to_orig)
    layout = "summary+scoring" if _has_table_beside(blobs, x1, y0, y1) else "summary"
    texts = field_texts(fields, guess, printed.texts)
    return Table(straight=straight, cells=cells, layout=layout, has_total_row=total is not None,
                 table_quad=table_quad, texts=texts)


def _locate_rows(grey: np.ndarray) -> tuple[Rulings, list[Blob], list[Row], np.ndarray]:
    """Rulings, cell blobs and deal rows of the sheet (the rows may be fewer than 30),
    and the ink mask they were found in (1/ANALYSIS resolution)."""
    h, w = grey.shape
    ink = ink_mask(grey, RULING_INK)
    k = ANALYSIS  # cut to whole k x k blocks: an exact shrink takes OpenCV's fast path
    half = cv2.resize(ink[:h // k * k, :w // k * k], (w // k, h // k), interpolation=cv2.INTER_AREA)
    half = cv2.threshold(half, 59, 255, cv2.THRESH_BINARY)[1]  # any ink in the 2x2 block
    best = None
    for gap_mm in BREAKS_MM:  # rulings broken into dashes (fax) need the wider gap
        rulings = find_rulings(half, gap_mm)
        blobs = cell_blobs(rulings)
        rows = deal_rows(blobs, rulings.px_mm * ANALYSIS)
        if best is None or len(rows) > len(best[2]):
            best = (rulings, blobs, rows, half)
        if len(rows) >= DEALS:
            return best
    # handwriting stacked down a column, touching across the rulings, can pass for a
    # vertical ruling and split the cells of some rows: vertical strokes much shorter
    # than the table's own are dropped
    rulings = find_rulings(half, BREAKS_MM[0])
    rulings.vert = long_verticals(rulings.vert, rulings.px_mm)
    blobs = cell_blobs(rulings)
    rows = deal_rows(blobs, rulings.px_mm * ANALYSIS)
    if len(rows) > len(best[2]):
        best = (rulings, blobs, rows, half)
    if len(rows) >= DEALS:
        return best
    # horizontal rulings broken into dashes with gaps longer than any safe closing (a fax
    # line thinner than a scan line): drawn in where the columns agree (see table_lines)
    drawn = table_lines(half, rulings)
    if drawn is not None:
        rulings.horiz = cv2.bitwise_or(rulings.horiz, drawn)
        blobs = cell_blobs(rulings)
        rows = deal_rows(blobs, rulings.px_mm * ANALYSIS)
        if len(rows) > len(best[2]):
            best = (rulings, blobs, rows, half)
    return best


def _extent(blobs: list[Blob], rows: list[Row], total: Row | None = None):
    """The Total row (``total``, else as found, else None), the header box (or None) and
    the table's (x0, y0, x1, y1)."""
    total = total or total_row(blobs, rows)
    header = header_box(blobs, rows)
    last = total or rows[-1]
    y0 = header[1] if header is not None else rows[0][0].y0
    return total, header, (rows[0][0].x0, y0, rows[0][-1].x1, last[-1].y1)


def _full_res(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST)


# --------------------------------------------------------------------------- rulings
def find_rulings(ink: np.ndarray, gap_mm: float = 0.8, px_mm: float | None = None) -> Rulings:
    """Long horizontal and vertical strokes of ``ink`` (rulings), tolerant of a slight
    tilt or curvature and of breaks up to ``gap_mm`` long in horizontal rulings (0.8 mm in
    vertical ones: handwriting stacked down a column must not become a ruling)."""
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


LINE_COVER = 0.4  # a dashed ruling inks at least this share of its column's width
LINE_AGREE = 4  # ... in at least this many of the six columns at the same height


def table_lines(ink: np.ndarray, rulings: Rulings) -> np.ndarray | None:
    """Horizontal rulings of the deal table recovered from their dashes (analysis
    resolution), or None when no set of columns shows any.

    A fax scan line is coarser than a thin ruling, so a ruling that is a little off level
    comes out as dashes with gaps of several millimetres, longer than handwriting's own
    gaps: no morphological closing can tell them apart.  But a ruling crosses every
    column of the table at the same height, thin, while writing sits in one cell.  For
    each column between two vertical rulings (found whole), the share of its width inked
    at each height is taken; a ruling is a thin peak of that share that at least
    LINE_AGREE of six adjacent columns show within a pixel or two of each other.  It is
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
        peak = ((cover >= LINE_COVER) & (cover >= np.roll(cover, 1)) & (cover > np.roll(cover, -1))
                & (lo <= 0.7 * cover))
        strips.append((xa, xb, cover, peak))
    best, best_n = None, 0
    for i in range(len(strips) - N_COLS + 1):  # six adjacent columns: the deal table's
        group = strips[i:i + N_COLS]
        if any(g is None for g in group):
            continue
        votes = sum(cv2.dilate(g[3].astype(np.uint8)[:, None], np.ones((2 * near + 1, 1), np.uint8))[:, 0]
                    for g in group)
        ys = np.flatnonzero(votes >= LINE_AGREE)
        heights = _evenly_spaced([int(run.mean()) for run in
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


def _evenly_spaced(ys: list[int], mm: float) -> list[int]:
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


def cell_blobs(rulings: Rulings) -> list[Blob]:
    """Paper regions enclosed by rulings whose size and shape fit a table cell, in
    straight-image pixels (rulings are found at 1/ANALYSIS resolution)."""
    free = cv2.bitwise_not(rulings.both)
    n, _, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    mm = rulings.px_mm
    x, y, w, h, area = (stats[:, i] for i in range(5))
    keep = ((h >= 3.5 * mm) & (h <= 18 * mm) & (w >= 4 * mm) & (w <= 80 * mm)
            & (area >= 0.8 * w * h))
    k = ANALYSIS
    return [Blob(int(x[i]) * k, int(y[i]) * k, int(x[i] + w[i]) * k, int(y[i] + h[i]) * k)
            for i in np.flatnonzero(keep)]


# --------------------------------------------------------------------------- grid
def _right_neighbours(blobs: list[Blob], gap: float) -> list[int | None]:
    """For each blob, the index of the blob directly to its right in the same row."""
    if not blobs:
        return []
    b = np.array([(q.x0, q.y0, q.x1, q.y1) for q in blobs], np.float64)
    dx = b[None, :, 0] - b[:, None, 2]  # candidate's left edge minus this right edge
    overlap = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
    hmin = np.minimum(b[:, None, 3] - b[:, None, 1], b[None, :, 3] - b[None, :, 1])
    ok = (dx >= 0) & (dx <= gap) & (overlap >= 0.6 * hmin)
    score = np.where(ok, overlap / np.maximum(hmin, 1) - dx / (gap + 1), -np.inf)
    best = np.argmax(score, axis=1)
    return [int(best[i]) if ok[i].any() else None for i in range(len(blobs))]


def chains(blobs: list[Blob], gap: float) -> list[list[Blob]]:
    """Maximal left-to-right chains of touching cells (one per printed row segment)."""
    right = _right_neighbours(blobs, gap)
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
        out.append(chain)
    return out


def deal_rows(blobs: list[Blob], px_mm: float) -> list[Row]:
    """The rows of the deal table, top to bottom: the largest set of six-cell chains
    that share column boundaries, plus rows whose cells a stray stroke split further."""
    gap = max(6.0, 2.0 * px_mm)
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
        row = _merge_split(c, cols, tol)
        if row is not None and all(abs(row[0].cy - r[0].cy) > 0.5 * pitch for r in rows):
            rows.append(row)
    rows.sort(key=lambda r: _med([b.cy for b in r]))
    return [_tidy(r) for r in rows]


def _merge_split(chain: list[Blob], cols: np.ndarray, tol: float) -> Row | None:
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


def _tidy(row: Row) -> Row:
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
            out.append([_lerp(a, b, t) for a, b in zip(prev, nxt, strict=True)])
        out.append(nxt)
    return out


def _frame_span(rulings: Rulings, rows: list[Row]) -> tuple[int, int]:
    """Top and bottom (straight-image y) of the table's left frame ruling."""
    k = ANALYSIS
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


def _lerp(a: Blob, b: Blob, t: float) -> Blob:
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


def _total_from_rows(rows: list[Row], labels: list[str | None], raw: list[str]) -> Row | None:
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


def _has_table_beside(blobs: list[Blob], x_right: int, y0: int, y1: int) -> bool:
    """Whether other ruled cells stand to the right of the deal table (the scoring table)."""
    return sum(1 for b in blobs if b.x0 > x_right and y0 <= b.cy <= y1) >= 10


# --------------------------------------------------------------------------- naming
def name_rows(read: list[str | None]) -> list[str | None] | None:
    """Row labels ("1".."30") from the printed deal numbers as read, or None when they do
    not show a deal table.  The found rows are consecutive, so one offset (the number of
    the first row) is chosen by vote; stray misreadings are outvoted.  Rows the offset
    puts outside 1..30 (ruled rows that are not deals) get None."""
    votes: dict[int, int] = {}
    for i, text in enumerate(read):
        if text and text.isdigit():
            off = int(text) - i
            votes[off] = votes.get(off, 0) + 1
    if not votes:
        return None
    off, n = max(votes.items(), key=lambda kv: kv[1])
    if n < max(3, len(read) // 3):
        return None
    return [str(i + off) if 1 <= i + off <= DEALS else None for i in range(len(read))]


HEADER_WORDS = {"dealer": "dealer", "score": "score", "cumulative": "cumul"}
HEADER_STEMS = ("deal", "score", "cumul", "ns", "ew")  # two of them confirm the form


def _headers_read(words: list[tuple[str, float]]) -> bool:
    """Whether the header band shows at least two of the summary sheet's headers
    (Deal/Dealer, Score, Cumulative, N/S, E/W; slashes are often lost in reading)."""
    text = " ".join(w for w, _ in words).lower().replace("/", "")
    return sum(stem in text for stem in HEADER_STEMS) >= 2


def column_order(words: list[tuple[str, float]],
                 header: tuple[int, int, int, int] | None) -> tuple[str, ...]:
    """The DEAL_COLUMNS key of each data column, left to right.

    The printed order is Dealer, Score N/S E/W, Cumulative N/S E/W.  When the header
    shows "Cumulative" left of "Score", the two pairs are swapped."""
    if header is None:
        return DEAL_COLUMNS
    pos: dict[str, float] = {}
    for text, x in words:
        t = text.lower()
        for name, stem in HEADER_WORDS.items():
            if stem in t and name not in pos and not (name == "score" and "cumul" in t):
                pos[name] = x + header[0]
    if "score" in pos and "cumulative" in pos and pos["cumulative"] < pos["score"]:
        return ("dealer", "cum_ns", "cum_ew", "ns", "ew")
    return DEAL_COLUMNS


# --------------------------------------------------------------------------- output
def _inner(b: Blob) -> tuple[int, int, int, int]:
    return (b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0)


def _cell(crop, blob: Blob, key: str, row: str, margin: tuple[int, int],
          region: tuple[int, int, int, int], to_original: np.ndarray) -> CellImage:
    """One cell: the blob grown by ``margin`` (x, y), kept inside the cleaned ``region``."""
    rx, ry, rw, rh = region
    mx, my = margin
    x0, y0 = max(rx, blob.x0 - mx), max(ry, blob.y0 - my)
    x1, y1 = min(rx + rw, blob.x1 + mx), min(ry + rh, blob.y1 + my)
    box = (x0, y0, x1 - x0, y1 - y0)
    return CellImage(key=key, row=row, image=crop(box).copy(), quad=box_quad(box, to_original), box=box)


def text_fields(grey: np.ndarray, zone: np.ndarray, rulings: Rulings, half: np.ndarray,
                rows: list[Row], table_top: int, to_original: np.ndarray) -> list[CellImage]:
    """The writing areas above the "Names: N/S", "E/W" and "Winners:" underlines, which
    are the long horizontal rulings above the table (``table_top``); dashed underlines
    (fax) are looked for again with wide gaps bridged."""
    k = ANALYSIS
    mm = rulings.px_mm  # analysis pixels per mm
    pitch = float(_med([r[0].h for r in rows]))
    top = max(1, round(table_top / k - 3 * mm))
    found = _underlines(_lines(rulings.horiz[:top], mm))
    if len(found) < len(TEXT_FIELDS):
        dashed = _lines(find_rulings(half[:top], BREAKS_MM[-1], px_mm=mm).horiz, mm)
        found = max(found, _underlines(dashed), _underlines_by_winners(dashed, mm, half[:top]), key=len)
    found = {key: _along(seg, half, mm, [s for o, s in found.items() if o != key])
             for key, seg in found.items()}
    out = []
    height = round(1.5 * pitch)
    band = max(3, round(0.5 * mm * k) + 3)
    for key in TEXT_FIELDS:
        if key not in found:
            continue
        x, y, w, _ = (v * k for v in found[key])
        y0 = max(0, y - height)
        box = (x, y0, w, min(grey.shape[0], y + 2) - y0)
        out.append(CellImage(key=key, row="", image=clean_region(grey, zone, box, band),
                             quad=box_quad(box, to_original), box=box))
    return out


def field_texts(fields: list[CellImage], guess: list[CellImage],
                read: dict[str, str | None]) -> dict[str, str | None]:
    """TEXT_FIELDS -> text of the final ``fields``: as ``read`` from the ``guess`` cut
    before the rows were named where that crop is (nearly) the same, the others read now."""
    texts: dict[str, str | None] = {}
    todo: dict[str, np.ndarray] = {}
    early = {c.key: c for c in guess}
    for c in fields:
        g = early.get(c.key)
        if g is not None and _overlap(g.box, c.box) >= 0.9:
            texts[c.key] = read.get(c.key)
        else:
            todo[c.key] = c.image
    if todo:
        texts.update(read_fields(todo))
    return {key: texts.get(key) for key in TEXT_FIELDS}


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    iw = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    ih = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    inter = max(0, iw) * max(0, ih)
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def _underlines(lines: list[list[tuple[int, int, int, int]]]) -> dict[str, tuple[int, int, int, int]]:
    """TEXT_FIELDS -> (x, y, w, h) of its underline, from the two lowest ``lines`` (_lines):
    names N/S and E/W side by side, then winners -- only as the form places them (E/W right of
    where N/S ends; the winners line starts under N/S and is its line's leftmost segment)."""
    lines = lines[-2:]
    if not lines or len(lines[0]) < 2:
        return {}
    names = sorted(lines[0], key=lambda s: s[0])
    found = {"names_ns": names[0], "names_ew": names[-1]}
    if len(lines) == 2:
        found["winners"] = min(lines[1])  # the leftmost: a stray segment may lie beside it
    ns, ew, winners = found["names_ns"], found["names_ew"], found.get("winners")
    if ew[0] <= ns[0] + ns[2]:  # not side by side: two stray segments (feet of a handwritten name)
        return {}
    if winners is not None and winners[0] >= ew[0]:  # the winners line starts under N/S, not E/W
        del found["winners"]
    return found


def _lines(horiz: np.ndarray, mm: float) -> list[list[tuple[int, int, int, int]]]:
    """The long thin horizontal segments (x, y, w, h) of ``horiz`` grouped into lines, top down."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(horiz, 8)
    segs = sorted((tuple(int(v) for v in stats[i, :4]) for i in range(1, n)
                   if stats[i, 2] >= 20 * mm and stats[i, 3] <= 2.5 * mm), key=lambda s: s[1])
    lines: list[list[tuple[int, int, int, int]]] = []
    for s in segs:
        if lines and abs(s[1] - lines[-1][0][1]) <= 3 * mm:
            lines[-1].append(s)
        else:
            lines.append([s])
    return lines


def _underlines_by_winners(lines: list[list[tuple[int, int, int, int]]], mm: float,
                           ink: np.ndarray) -> dict[str, tuple[int, int, int, int]]:
    """Where _underlines finds too little (a fax): the lowest line, if it holds one segment,
    is the winners underline, which lies under N/S and ends where it ends; the names line is
    the lowest above it reaching right of that end -- a thin stray segment between them (the
    foot of a handwritten name, closed into a line) is passed over -- and its segments left
    and right of the end are N/S and E/W.  Where only the E/W underline was long enough to
    find, the N/S one is followed through its dashes in ``ink`` (_left_of)."""
    if not lines or len(lines[-1]) >= 2:
        return {}
    winners = lines[-1][0]
    end = winners[0] + winners[2]
    found = {"winners": winners}
    for line in reversed(lines[:-1]):
        right = [s for s in line if s[0] > end]
        if not right:
            continue
        left = [s for s in line if s[0] <= end]
        ew = _union(right)
        ns = _union(left) if left else _left_of(ew, ink, mm)
        if ns is not None:
            found.update(names_ns=ns, names_ew=ew)
        break
    return found


def _union(segs: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """The (x, y, w, h) box around ``segs``."""
    x0, y0 = min(s[0] for s in segs), min(s[1] for s in segs)
    x1, y1 = max(s[0] + s[2] for s in segs), max(s[1] + s[3] for s in segs)
    return (x0, y0, x1 - x0, y1 - y0)


def _left_of(ew: tuple[int, int, int, int], ink: np.ndarray, mm: float) -> tuple[int, int, int, int] | None:
    """The N/S underline left of the E/W one ``ew``, followed through its dashes (at least
    1.5 mm long) at ``ew``'s height: the nearest dash ending within NS_GAP_MM of ``ew``
    (the printed "E/W" stands between them) extended leftwards by _along; None unless it
    runs at least 20 mm."""
    x, y, _, h = ew
    dashes = [(a, b) for a, b in _runs(ink, y, h, 0, x) if b - a >= 1.5 * mm and x - b <= NS_GAP_MM * mm]
    if not dashes:
        return None
    a, b = dashes[-1]
    ns = _along((a, y, b - a, h), ink, mm, [ew])
    return ns if ns[2] >= 20 * mm else None


def _runs(ink: np.ndarray, y: int, h: int, lo: int, hi: int) -> list[tuple[int, int]]:
    """The (start, end) x of each run of ink columns between ``lo`` and ``hi`` in the band of
    rows ``y - 1`` to ``y + h`` (an underline's own height)."""
    row = ink[max(0, y - 1):y + h + 1, lo:hi].any(axis=0).astype(np.int8)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], row, [0]))))
    return [(int(a) + lo, int(b) + lo) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _along(seg: tuple[int, int, int, int], ink: np.ndarray, mm: float,
           others: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """An underline ``seg`` (x, y, w, h) found in part (a fax drops most of a thin line)
    followed along its own height through dashes at least 1.5 mm long with gaps of up to
    10 mm, never into another underline's span."""
    x, y, w, h = seg
    lo = max((o[0] + o[2] for o in others if abs(o[1] - y) <= 3 * mm and o[0] + o[2] <= x), default=0)
    hi = min((o[0] for o in others if abs(o[1] - y) <= 3 * mm and o[0] >= x + w), default=ink.shape[1])
    dashes = [(a, b) for a, b in _runs(ink, y, h, lo, hi) if b - a >= 1.5 * mm or (a < x + w and b > x)]
    x0, x1 = x, x + w
    gap = 10 * mm
    for a, b in sorted(dashes, key=lambda d: -d[0]):  # leftwards
        if b < x0 and x0 - b <= gap:
            x0 = a
    for a, b in sorted(dashes):  # rightwards
        if a > x1 and a - x1 <= gap:
            x1 = b
    return (int(min(x, x0)), y, int(max(x + w, x1) - min(x, x0)), h)

