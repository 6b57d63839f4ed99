"""What part of the deal table a picture does not show readably, and why: rows outside the photo,
cells under glare or too faint to read.  Those cells are left out of the Table and named in
Table.missing, so the reading puts them in review instead of reading paper as a blank."""

from __future__ import annotations

import cv2
import numpy as np

from ocr.data import DEAL_COLUMNS, CellImage, Missing, StraightPage
from ocr.settings import GeometrySettings
from ocr.table.common import DEALS, Blob, Row


def outside_rows(straight: StraightPage, rows: list[Row], labels: list[str], pitch: float,
                 settings: GeometrySettings) -> tuple[list[int], list[int]]:
    """The deals 1-30 not shown whole: a named row with a cell over the picture's edge, and the
    deals missing from ``labels`` whose row, a row's step (the named rows' spacing, else ``pitch``)
    a deal from the named ones, would lie (even in part) outside the picture; and the missing
    deals whose row lies inside it (found nowhere)."""
    named = {int(lab): r for r, lab in zip(rows, labels, strict=True) if lab.isdigit()}
    if not named:
        return [], []
    first = min(named)
    ref = named[first]
    if len(named) > 1:
        last = max(named)
        pitch = (named[last][0].y0 - ref[0].y0) / (last - first)
    h, w = straight.page.image.shape[:2]
    out, lost = [], []
    for deal in range(1, DEALS + 1):
        if deal in named:
            r = named[deal]
            corners = straight.to_page([[b.x0, b.y0] for b in r] + [[b.x1, b.y1] for b in r])
            if not straight_inside(straight, corners, w, h, settings):
                out.append(deal)  # cut by the picture's edge: what shows of it is not all of it
            continue
        dy = (deal - first) * pitch
        x0, x1 = ref[0].x0, ref[-1].x1
        y0, y1 = ref[0].y0 + dy, ref[0].y1 + dy
        corners = straight.to_page([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        sh, sw = straight.image.shape[:2]
        beyond = y0 < 0 or y1 > sh or not straight_inside(straight, corners, w, h, settings)
        (out if beyond else lost).append(deal)
    return out, lost


def straight_inside(straight: StraightPage, corners: np.ndarray, w: int, h: int,
                    settings: GeometrySettings) -> bool:
    """Whether page points ``corners`` lie inside the picture (``w`` x ``h``), with a margin."""
    m = settings.outside_margin_px
    return bool(((corners >= -m) & (corners <= np.array([w - 1 + m, h - 1 + m]))).all())


def faded_cells(straight: StraightPage, grey: np.ndarray, rows: list[Row], labels: list[str],
                order: tuple[str, ...], settings: GeometrySettings) -> dict[tuple[str, str], str]:
    """(row, key) -> Missing reason for the cells whose rulings have all but vanished: the rulings
    are printed in the same dark ink as the writing, so where they fade (a glare spot washes the
    picture out, or the light or focus fails) the writing has faded with them.  A cell's ruling
    contrast is the darkness of its top and bottom rulings (the darkest of a band around each, on
    the light-flattened ``grey``); faded is below GeometrySettings.faded_share of the table's
    median.  Glare, when the picture itself is burnt out over part of it (the part may hide what
    is written there) -- unless its writing keeps GeometrySettings.glare_ink_contrast grey levels
    but less than glare_ink_most: the paper burns out at a far weaker glare than the pen's ink,
    and writing the glare has dimmed but not washed out is dimmed alike all over the cell (the
    rim of the spot), while writing as dark as out of the glare beside burnt paper lies beside a
    spot that may hide the rest of it.  Else too faint to read -- unless its own writing
    keeps GeometrySettings.faded_ink_contrast grey levels on the photo (its darkest channel, the
    light not divided out): a 1-px printed ruling blurs away long before a pen's wider stroke."""
    if len(rows) < 4:
        return {}
    contrast = np.array([[_ruling_contrast(grey, b) for b in row[1:]] for row in rows])
    typical = float(np.median(contrast))
    if typical < settings.faded_min_contrast:
        return {}
    out = {}
    raw = _raw_grey(straight)
    bright = None if raw is None else raw >= settings.glare_level
    for r, (row, label) in enumerate(zip(rows, labels, strict=True)):
        for c, (b, key) in enumerate(zip(row[1:], order, strict=True)):
            if contrast[r, c] < settings.faded_share * typical:
                if bright is not None and _share(bright, b) >= settings.glare_cover:
                    ink = _ink_contrast(raw, b)
                    if not settings.glare_ink_contrast <= ink < settings.glare_ink_most:
                        out[(label, key)] = Missing.GLARE
                    # else the glare dimmed the writing all over the cell and it still shows: read it
                elif raw is None or _ink_contrast(raw, b) < settings.faded_ink_contrast:
                    out[(label, key)] = Missing.UNREADABLE
                # else its writing shows, out of the glare: read it
    return out


def _ink_contrast(raw: np.ndarray, b: Blob) -> float:
    """How far the darkest of the writing inside blob ``b`` (its 1st percentile, the rulings left
    out by an inset) lies below the cell's paper (its median), in the photo's grey levels scaled as
    if that paper were white (255): the light multiplies paper and ink alike, so writing under a dim
    light keeps its share of the paper's level, not its grey levels."""
    dy, dx = (b.y1 - b.y0) // 5, (b.x1 - b.x0) // 10
    region = raw[b.y0 + dy:b.y1 - dy, b.x0 + dx:b.x1 - dx]
    if region.size == 0:
        return 0.0
    low, paper = np.percentile(region, (1, 50))
    return float(paper - low) * 255.0 / max(float(paper), 1.0)


def _ruling_contrast(grey: np.ndarray, b: Blob) -> float:
    """How dark the rulings above and below blob ``b`` are (255 minus the median over the cell's
    width of the darkest pixel in a band around each ruling), the mean of the two (a cell at the
    rim of a glare spot keeps one of them, and most of its writing)."""
    band = max(3, (b.y1 - b.y0) // 4)
    x0, x1 = b.x0 + (b.x1 - b.x0) // 8, b.x1 - (b.x1 - b.x0) // 8
    if x1 <= x0:
        return 0.0
    out = []
    for y in (b.y0, b.y1):
        strip = grey[max(0, y - band):y + band, x0:x1]
        if strip.size == 0:
            return 0.0
        out.append(255.0 - float(np.median(strip.min(axis=0))))
    return sum(out) / 2


def _raw_grey(straight: StraightPage) -> np.ndarray | None:
    """On the straightened image: the original picture's darkest channel (its light not divided
    out; 0 outside it), for the glare (every channel at least GeometrySettings.glare_level: burnt
    out) and the writing's own contrast; None for a picture not straightened from a photo."""
    if straight.grid is None or straight.grid_pre is not None and straight.grid_pre[0, 0] < 0:
        return None if straight.grid is None else _turned(_raw_grey(_upright(straight)))
    page = straight.page.image
    h, w = straight.image.shape[:2]
    g = straight.grid  # Page.image coordinates every grid_step canvas pixels
    darkest = cv2.min(cv2.min(page[..., 0], page[..., 1]), page[..., 2]) if page.ndim == 3 else page
    small = cv2.remap(darkest, np.ascontiguousarray(g[..., 0]), np.ascontiguousarray(g[..., 1]),
                      cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    m = np.float32([[1.0 / straight.grid_step, 0, 0], [0, 1.0 / straight.grid_step, 0]])
    return cv2.warpAffine(small, m, (w, h), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)


def _upright(straight: StraightPage) -> StraightPage:
    """``straight`` as it was before it was turned over (its grid's own canvas)."""
    from dataclasses import replace

    return replace(straight, grid_pre=None)


def _turned(mask: np.ndarray | None) -> np.ndarray | None:
    return None if mask is None else np.ascontiguousarray(mask[::-1, ::-1])


def _share(mask: np.ndarray, b: Blob) -> float:
    region = mask[b.y0:b.y1, b.x0:b.x1]
    return float((region > 0).mean()) if region.size else 0.0


def group(cells: dict[tuple[str, str], str], deals_out: list[int], deals_lost: list[int]) -> list[Missing]:
    """Missing entries: whole rows outside the picture or found nowhere, then faded cells grouped
    by reason and by the columns concerned (a whole row: every column)."""
    out = []
    if deals_out:
        out.append(Missing(sorted(deals_out), Missing.OUTSIDE))
    if deals_lost:
        out.append(Missing(sorted(deals_lost), Missing.UNREADABLE))
    by: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    rows: dict[str, dict[str, str]] = {}
    for (label, key), reason in cells.items():
        if label.isdigit():
            rows.setdefault(label, {})[key] = reason
    for label, keys in rows.items():
        for reason in sorted(set(keys.values())):
            ks = tuple(k for k in DEAL_COLUMNS if keys.get(k) == reason)
            by.setdefault((reason, ks), []).append(int(label))
    for (reason, ks), deals in sorted(by.items(), key=lambda kv: min(kv[1])):
        out.append(Missing(sorted(deals), reason, ks))
    return out


def drop(cells: list[CellImage], faded: dict[tuple[str, str], str]) -> list[CellImage]:
    """``cells`` without the faded ones."""
    return [c for c in cells if (c.row, c.key) not in faded]
