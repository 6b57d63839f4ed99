"""Find the deal table on a straightened sheet and cut it into cells.

No pixel positions of any one printing are assumed.  The rulings are found with long morphological
openings (rulings.py); the cells are the blobs of paper they enclose; a deal row is a chain of six
side-by-side blobs, and the deal table is the largest stack of such rows sharing the same column
boundaries (rows.py: a scoring table printed beside it has a different structure and is ignored).
On a photo straightened from its ruling lattice, the rows are where the lattice put them
(lattice.py).  Rows are then named by their printed deal numbers, read with one batched Tesseract
call, and the columns are checked against the printed headers read in the same call (headers.py);
the names and winners fields are the writing areas over the underlines above the table (fields.py).
Rows outside the picture and cells washed out by glare are named in Table.missing (missing.py).
"""

from __future__ import annotations

from statistics import median as _med

import cv2
import numpy as np

from ocr import tess
from ocr.cells import box_quad, clean_region, paper_grey, stretch_ink
from ocr.data import CellImage, InputError, Missing, StraightPage, Table, TableRulings
from ocr.printed import read_header, read_printed
from ocr.settings import GeometrySettings
from ocr.table.common import DEALS, NOT_FOUND, Blob, inner
from ocr.table.extra import extra_rows
from ocr.table.fields import field_texts, text_fields
from ocr.table.headers import column_order, headers_read, name_rows, other_headers
from ocr.table.lattice import (
    belied,
    columns_look_like_the_form,
    ends_below,
    fits_the_lattice,
    header_above,
    lattice_rows,
    ruled_above,
    shape_outnames,
    splits_columns,
    structural_labels,
    whole_table_named,
)
from ocr.table.missing import drop, faded_cells, group, outside_rows, straight_inside
from ocr.table.rows import (
    extend_rows,
    extent,
    fill_gaps,
    frame_span,
    has_table_beside,
    header_box,
    locate_rows,
    rows_bend,
    total_from_rows,
)

__all__ = ["NOT_FOUND", "find_table", "turned_over"]


def find_table(straight: StraightPage, settings: GeometrySettings | None = None) -> Table:
    """Locate the deal table on ``straight`` and return its cells (see ocr.data.Table); when none is
    found there, on ``straight.retry()`` (the other straightening path) when it has one.

    Raises InputError (and nothing else) when the page shows no summary score table."""
    settings = settings or GeometrySettings()
    return extra_rows(_find_either(straight, settings), settings)


def _find_either(straight: StraightPage, settings: GeometrySettings) -> Table:
    """The table found on ``straight`` or on its other straightening path (see find_table)."""
    try:
        table = _find_table_once(straight, settings)
    except InputError:
        retry = straight.retry() if callable(straight.retry) else None
        if retry is None:
            raise
        try:
            return _find_table_once(retry, settings)
        except InputError:
            pass
        raise
    if _whole(table) or not callable(straight.retry):
        return table
    # some rows only placed by their pitch, or not shown: the other path may see them all
    retry = straight.retry()
    if retry is None:
        return table
    try:
        other = _find_table_once(retry, settings)
    except InputError:
        return table
    return other if _whole(other) else table


def _whole(table: Table) -> bool:
    """Whether every deal of ``table`` was found ruled and nothing is missing."""
    return table.rows_found >= DEALS and len(table.deal_rows) == DEALS and not table.missing


def _find_table_once(straight: StraightPage, settings: GeometrySettings) -> Table:
    page = straight.page
    src = page.source + (f" page {page.index + 1}" if page.index else "")
    try:
        try:
            return _find_table(straight, src, settings)
        except _Unread as first:  # ruled rows but unreadable labels: maybe upside down
            if first.lattice_dropped:
                # more rows ruled here than the photo's lattice placed, but none named: the
                # lattice's rows may be named by the table's shape
                try:
                    return _find_table(straight, src, settings, lattice_first=True)
                except InputError:
                    pass
            try:
                return _find_table(turned_over(straight), src, settings)
            except InputError:
                raise first from None
    except (ValueError, IndexError, ZeroDivisionError, cv2.error) as exc:  # odd geometry
        raise InputError(f"{src}: {NOT_FOUND} (table analysis failed: {exc})") from None


class _Unread(InputError):
    """Deal rows were found but their printed numbers or headers were not read."""

    lattice_dropped = False  # the photo's lattice was set aside for rows ruled here


def turned_over(straight: StraightPage) -> StraightPage:
    """``straight`` turned by 180 degrees (its mapping onto the page and quarter turns updated)."""
    h, w = straight.image.shape[:2]
    flip = np.array([[-1.0, 0.0, w - 1.0], [0.0, -1.0, h - 1.0], [0.0, 0.0, 1.0]])
    pre = None if straight.grid is None else (flip if straight.grid_pre is None else straight.grid_pre @ flip)
    rulings = straight.table_rulings.turned_over(w, h) if straight.table_rulings is not None else None
    return StraightPage(page=straight.page, image=np.ascontiguousarray(straight.image[::-1, ::-1]),
                        to_original=straight.to_original @ flip, skew_deg=straight.skew_deg,
                        rotated=(straight.rotated + 180) % 360, grid=straight.grid,
                        grid_step=straight.grid_step, grid_pre=pre, px_mm=straight.px_mm,
                        table_rulings=rulings)


def _find_table(straight: StraightPage, src: str, settings: GeometrySettings, lattice_first: bool = False) -> Table:
    img = straight.image
    if img is None or img.ndim < 2 or min(img.shape[:2]) < 100:
        raise InputError(f"{src}: page image too small")
    k = settings.table_analysis
    grey = paper_grey(img)
    h, w = grey.shape
    mm = straight.px_mm / k if straight.px_mm else None  # analysis pixels per mm, when known
    rulings, blobs, rows, half = locate_rows(grey, settings, mm)
    px_mm = rulings.px_mm * k
    lattice = straight.table_rulings
    at_least = DEALS // 2
    if lattice is not None:
        # the photo's lattice placed the rows: take them unless the rulings here show more
        placed = lattice_rows(lattice, max(2.0, settings.lattice_inset * float(np.median(np.diff(lattice.ys)))))
        if len(placed) >= min(len(rows), DEALS) or lattice_first and len(placed) >= settings.partial_min_rows:
            rows = placed
        elif splits_columns(rows, lattice.xs, settings.lattice_split_margin):
            # the rows ruled here cut one of the lattice's columns in two (a shadow's hard edge
            # down the sheet taken for a ruling): their cells are not the form's
            raise InputError(f"{src}: {NOT_FOUND} (the rulings found split the photo's table columns)")
        else:
            lattice = None
        at_least = settings.partial_min_rows  # a part of the table (the rest outside the photo)
    if len(rows) < at_least:
        raise InputError(f"{src}: {NOT_FOUND} (no ruled table of deal rows)")
    if straight.verify and rows_bend(rows) > settings.bend_max:
        # a curled photo straightened by one homography: its rows are still curves
        raise InputError(f"{src}: {NOT_FOUND} (the rows curve: the sheet is curled)")
    found_rows = len(rows)
    rows = fill_gaps(rows)
    total, header, (x0, y0, x1, y1) = extent(blobs, rows)

    # rulings removed once over the whole table, cells cut from that
    pitch = float(_med([r[0].h for r in rows]))
    margin = (max(2, round(0.6 * px_mm)), max(2, round(0.15 * pitch)))  # x, y
    zone = cv2.resize(rulings.both, (w, h), interpolation=cv2.INTER_NEAREST)
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
    guess = (text_fields(grey, zone, rulings, half, rows, min(y0, frame_span(rulings, rows, k)[0]),
                         straight, settings) if tess.backend() != "tesserocr" else [])
    header_img = crop(header) if header is not None else None
    soft = straight.grid is not None  # a photo's print: grey and blurred
    # (there, the printed numbers are cut a little inside their cells: a ruling's remnant along a
    # crop's edge, stretched with the faint print, reads as a letter)
    shrink = round(settings.label_inset * pitch) if soft else 0
    printed = read_printed(header_img, [crop(_shrunk(inner(r[0]), shrink)) for r in rows],
                           {c.key: c.image for c in guess}, settings=settings, soft=soft)
    shaped = lattice is not None and columns_look_like_the_form(lattice)
    labels = name_rows(printed.labels)
    # a blurred photo's print reads poorly: on a table shaped like the form (a photo's lattice)
    # fewer agreeing numbers name the rows, or the table's shape does (its header row, its Total)
    structural = structural_labels(lattice, lambda i: ruled_above(grey, lattice, i, settings),
                                   lambda i: _bare_below(straight, grey, lattice, i, settings),
                                   lambda i: header_above(grey, lattice, settings, i)) if shaped else None
    evidence = labels is not None or structural is not None  # for the headers, below
    if labels is None and shaped:
        voted = name_rows(printed.labels, settings.lattice_vote_share)
        if voted is not None and not fits_the_lattice(lattice, voted):
            voted = None  # a chance agreement of a few misread numbers on an offset the form belies
        # rows named by their own printed numbers agreeing on one offset are evidence as good as
        # the shape's: the headers need not be read either
        evidence = evidence or voted is not None
        shape = (structural if structural is not None and not belied(structural, printed.labels)
                 and fits_the_lattice(lattice, structural) else None)
        if voted is not None and shape is not None and shape_outnames(lattice, shape, voted):
            voted = None  # the lattice holds thirty deal rows the weak vote would shift off it
        labels = voted or shape
        if labels is None:
            # a lattice of the whole table leaves deal 1 a row or two to choose from: a few numbers
            # read pick it
            labels = whole_table_named(lattice, printed.labels, settings.lattice_few_votes)
            evidence = evidence or labels is not None
    if labels is None or all(lab is None for lab in labels):
        unread = _Unread(f"{src}: {NOT_FOUND} (the printed deal numbers 1-{DEALS} were not read)")
        unread.lattice_dropped = lattice is None and straight.table_rulings is not None
        raise unread
    header_words = printed.header_words
    if not headers_read(header_words) and labels[0] is None:
        # the first "rows" carry no deal number: a header ruled into six cells (the N/S E/W
        # row under Score and Cumulative) was taken for a deal row, and the header band was
        # looked for above it; look again above the first numbered row
        first = next(i for i, lab in enumerate(labels) if lab is not None)
        again = header_box(blobs, rows[first:])
        if again is not None and again != header:
            header, header_words = again, read_header(crop(again), printed.scale)
    # a photo too blurred for its headers to be read passes on the table's shape alone, or on its
    # rows named by their printed numbers (the canvas's rulings holding more rows than its lattice),
    # not one whose header band holds other words (another form ruled alike)
    illegible = (shaped or soft) and evidence and not other_headers(printed.header_sure)
    if not headers_read(header_words) and not illegible:
        raise _Unread(f"{src}: {NOT_FOUND} (no Dealer / Score / Cumulative headers above "
                      "the numbered rows)")
    order = column_order(header_words, header)
    total = None
    if None in labels:  # rows without a deal number (e.g. a header split by its own text)
        total = total_from_rows(rows, labels, printed.raw)
        named = [(r, lab) for r, lab in zip(rows, labels, strict=True) if lab is not None]
        rows, labels = [r for r, _ in named], [lab for _, lab in named]
    span = frame_span(rulings, rows, k)
    # rows the rulings here (or the photo's lattice) missed above or below the found ones: one
    # pitch a row, inside the table's frame -- or, on a photo, anywhere on the canvas (those the
    # picture's edge cuts are named outside it below)
    rows, labels = extend_rows(rows, labels, span if lattice is None else (0, h))
    total, header, (x0, y0, x1, y1) = extent(blobs, rows, total)
    wider = (max(0, x0 - 2 * margin[1]), max(0, y0 - 2 * margin[1]),
             min(w, x1 + 2 * margin[1]), min(h, y1 + 2 * margin[1]))
    if wider[0] < rx0 or wider[1] < ry0 or wider[2] > rx1 or wider[3] > ry1:
        # rows placed past the ones found ruled (by their pitch): the rulings are removed over them
        # too, or their cells would be cut by the cleaned region's edge (short, or of no height)
        rx0, ry0, rx1, ry1 = min(rx0, wider[0]), min(ry0, wider[1]), max(rx1, wider[2]), max(ry1, wider[3])
        region = (rx0, ry0, rx1 - rx0, ry1 - ry0)
        clean = clean_region(grey, zone, region, band)
    if straight.verify and (found_rows < len(rows) or len(rows) < DEALS):
        # a photo straightened by one homography whose rulings were found only in part (a shadow's
        # edge, glare): the rows put in between or beyond them by their pitch may be off; the
        # photo's own lattice places every row
        raise InputError(f"{src}: {NOT_FOUND} (some rows not ruled on the straightened photo)")

    # what this picture does not show readably: rows outside it, cells the light washed out
    deals_out, deals_lost = outside_rows(straight, rows, labels, pitch, settings)
    faded = faded_cells(straight, grey, rows, labels, order, settings) if straight.grid is not None else {}
    faded.update({(str(d), key): Missing.OUTSIDE for d in deals_out for key in order})
    if lattice is not None:
        # columns the photo's lattice placed without seeing them: their cells are not cut
        for j in (j for j in lattice.unseen if 1 <= j <= len(order)):  # (0: the deal numbers')
            faded.update({(label, order[j - 1]): Missing.UNSEEN for label in labels
                          if (label, order[j - 1]) not in faded})
    # a cell the picture's edge leaves (nearly) no room for is never cut: it is named unreadable
    faded.update({(label, key): Missing.UNREADABLE for row, label in zip(rows, labels, strict=True)
                  for key, b in zip(order, row[1:], strict=True)
                  if (label, key) not in faded and _too_small(b, margin, region, settings)})
    missing = group({k: v for k, v in faded.items() if v != Missing.OUTSIDE}, deals_out,
                    deals_lost if lattice is not None else [])

    # a photo straightened as a scan: its paper divided by dim light can come out mottled (the
    # sensor's noise, the JPEG's blocks) where a scan's is white; then its cells get a photo canvas's
    # levels (on clean paper they would change how the scan networks see faint ink: not taken)
    levelled = stretch_ink(clean, settings, settings.scan_photo_mottle) if straight.verify else clean

    def cell_crop(b: tuple[int, int, int, int]) -> np.ndarray:
        bx, by, bw, bh = b
        return levelled[by - ry0:by - ry0 + bh, bx - rx0:bx - rx0 + bw]

    cells: list[CellImage] = []
    for row, label in zip(rows, labels, strict=True):
        cells.extend(_cell(cell_crop, b, key, label, margin, region, straight)
                     for key, b in zip(order, row[1:], strict=True))
    if total is not None:
        cells.extend(_cell(cell_crop, b, key, "total", margin, region, straight)
                     for key, b in zip(order[1:], total[1:], strict=True))
    cells = drop(cells, faded)
    fields = text_fields(grey, zone, rulings, half, rows, min(y0, span[0]), straight, settings)
    cells.extend(fields)

    table_quad = box_quad((x0, y0, x1 - x0, y1 - y0), straight)
    layout = "summary+scoring" if has_table_beside(blobs, x1, y0, y1) else "summary"
    texts = field_texts(fields, guess, printed.texts, settings)
    return Table(straight=straight, cells=cells, layout=layout, has_total_row=total is not None,
                 table_quad=table_quad, texts=texts, missing=missing,
                 rows_found=min(found_rows, len(labels)) if lattice is None else len(lattice.ys) - 1)


def _cell(crop, blob: Blob, key: str, row: str, margin: tuple[int, int],
          region: tuple[int, int, int, int], straight: StraightPage) -> CellImage:
    """One cell: the blob grown by ``margin`` (x, y), kept inside the cleaned ``region``."""
    rx, ry, rw, rh = region
    mx, my = margin
    x0, y0 = max(rx, blob.x0 - mx), max(ry, blob.y0 - my)
    x1, y1 = min(rx + rw, blob.x1 + mx), min(ry + rh, blob.y1 + my)
    box = (x0, y0, x1 - x0, y1 - y0)
    return CellImage(key=key, row=row, image=crop(box).copy(), quad=box_quad(box, straight), box=box)


def _bare_below(straight: StraightPage, grey: np.ndarray, lattice: TableRulings, i: int,
                settings: GeometrySettings) -> bool:
    """Whether the table ends under lattice row ``i`` (lattice.ends_below), told only where the row
    under it lies inside the picture and out of the glare (either leaves bare paper too)."""
    xs, ys = lattice.xs, lattice.ys
    pitch = float(np.median(np.diff(ys)))
    x0, x1, y0, y1 = xs[0], xs[-1], ys[i + 1], ys[i + 1] + pitch
    page = straight.page.image
    h, w = page.shape[:2]
    quad = straight.to_page([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    if not straight_inside(straight, quad, w, h, settings):
        return False
    # glare: a burnt-out photo pixel (every channel at GeometrySettings.glare_level) in that row
    bx, by, bw, bh = cv2.boundingRect(np.round(quad).astype(np.int32))
    bx, by = max(0, bx), max(0, by)
    crop = page[by:by + bh, bx:bx + bw]
    burnt = (crop.min(axis=2) if crop.ndim == 3 else crop) >= settings.glare_level
    inside = np.zeros(burnt.shape, np.uint8)
    cv2.fillPoly(inside, [np.round(quad - (bx, by)).astype(np.int32)], 1)
    if (burnt & (inside > 0)).any():
        return False
    return ends_below(grey, lattice, i, settings)


def _too_small(blob: Blob, margin: tuple[int, int], region: tuple[int, int, int, int],
               settings: GeometrySettings) -> bool:
    """Whether :func:`_cell`'s box for ``blob`` would be under GeometrySettings.cell_min_px
    either way (its row placed beyond the picture's edge)."""
    rx, ry, rw, rh = region
    mx, my = margin
    w = min(rx + rw, blob.x1 + mx) - max(rx, blob.x0 - mx)
    h = min(ry + rh, blob.y1 + my) - max(ry, blob.y0 - my)
    return min(w, h) < settings.cell_min_px


def _shrunk(box: tuple[int, int, int, int], by: int) -> tuple[int, int, int, int]:
    """``box`` (x, y, w, h) less ``by`` pixels on every side (never below 4 pixels across)."""
    x, y, w, h = box
    by = max(0, min(by, (w - 4) // 2, (h - 4) // 2))
    return (x + by, y + by, w - 2 * by, h - 2 * by)
