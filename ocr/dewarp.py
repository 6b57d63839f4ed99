"""Straighten a photographed sheet from its deal table's own ruling lattice (ocr/grid.py).

Table coordinates (X, Y) measure the table in row heights: Y counts rows down from the lattice's
first ruling, X runs across the columns by their measured widths.  A smooth model maps table
coordinates onto the photo (a homography for the perspective and a quadratic for a curl), and the
ruling crossings found correct it locally (a mesh: the residual at each crossing, interpolated
between them), so rows that curve come out straight.

Two passes.  The first finds the lattice on the photo from paper patches between rulings, which a
number written across a ruling can merge or split; from the cells it does find, the table is
straightened roughly.  On that rough image the rulings run nearly level and upright, so they are
told from the handwriting by their length (morphological openings along the rows and columns),
and the second pass finds the whole lattice from the rulings alone.  The sheet is then warped once,
from the original photo, onto a canvas of the printed page's proportions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from ocr.cells import stretch_ink
from ocr.data import Page, StraightPage, TableRulings
from ocr.grid import TableGrid, background, darkest, find_cells, grid_of
from ocr.settings import GeometrySettings
from ocr.table.common import DEALS, N_COLS


@dataclass
class TableModel:
    """Table coordinates -> image points: a homography, a quadratic correction, and the residual
    left at each ruling crossing (bilinear between crossings, held constant beyond the lattice)."""

    h: np.ndarray  # 3x3, table (X, Y) -> image
    poly: np.ndarray | None  # (6, 2): quadratic in normalised (X, Y), added after the homography
    norm: tuple[float, float, float, float]  # X centre, X scale, Y centre, Y scale
    xs: np.ndarray  # X of the lattice's column rulings
    ys: np.ndarray  # Y of its row rulings
    residual: np.ndarray | None  # (len(ys), len(xs), 2) image correction at each crossing

    def smooth(self, xy: np.ndarray) -> np.ndarray:
        pts = cv2.perspectiveTransform(xy.reshape(-1, 1, 2).astype(np.float64), self.h).reshape(-1, 2)
        if self.poly is not None:
            pts = pts + _terms(xy, self.norm) @ self.poly
        return pts

    def __call__(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        pts = self.smooth(xy)
        if self.residual is not None:
            pts = pts + _bilinear(self.residual, self.xs, self.ys, xy)
        return pts


def _terms(xy: np.ndarray, norm) -> np.ndarray:
    u = (xy[:, 0] - norm[0]) / norm[1]
    v = (xy[:, 1] - norm[2]) / norm[3]
    return np.column_stack([np.ones_like(u), u, v, u * u, u * v, v * v])


def _bilinear(values: np.ndarray, xs: np.ndarray, ys: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """``values`` (len(ys), len(xs), k) at the points ``xy``, bilinear on the (irregular) grid
    xs x ys, the nearest edge's values beyond it."""
    fx = np.interp(xy[:, 0], xs, np.arange(len(xs)))
    fy = np.interp(xy[:, 1], ys, np.arange(len(ys)))
    i0 = np.clip(np.floor(fy).astype(int), 0, max(0, len(ys) - 2))
    j0 = np.clip(np.floor(fx).astype(int), 0, max(0, len(xs) - 2))
    i1, j1 = np.minimum(i0 + 1, len(ys) - 1), np.minimum(j0 + 1, len(xs) - 1)
    ty, tx = (fy - i0)[:, None], (fx - j0)[:, None]
    return ((1 - ty) * ((1 - tx) * values[i0, j0] + tx * values[i0, j1])
            + ty * ((1 - tx) * values[i1, j0] + tx * values[i1, j1]))


def table_coords(grid: TableGrid) -> tuple[np.ndarray, np.ndarray]:
    """X of each column ruling and Y of each row ruling of ``grid``, in row heights."""
    widths = np.where(np.isfinite(grid.widths), grid.widths, np.nanmedian(grid.widths))
    xs = np.concatenate([[0.0], np.cumsum(widths)])
    ys = np.arange(grid.nodes.shape[0], dtype=np.float64)
    return xs, ys


def fit_model(grid: TableGrid, settings: GeometrySettings, mesh: bool = True) -> TableModel | None:
    """The model of ``grid``'s table: a homography fitted to its crossings (outliers dropped), a
    quadratic correction when the lattice spans enough rows and columns to pin one, and with
    ``mesh`` the residual at every crossing."""
    xs, ys = table_coords(grid)
    gx, gy = np.meshgrid(xs, ys)
    ok = np.isfinite(grid.nodes[..., 0])
    if ok.sum() < 8:
        return None
    src = np.column_stack([gx[ok], gy[ok]])
    dst = grid.nodes[ok]
    h, inliers = cv2.findHomography(src, dst, cv2.RANSAC, settings.dewarp_ransac_px)
    if h is None:
        return None
    keep = inliers.ravel().astype(bool)
    norm = (float(src[:, 0].mean()), float(np.ptp(src[:, 0]) / 2 + 1e-6),
            float(src[:, 1].mean()), float(np.ptp(src[:, 1]) / 2 + 1e-6))
    model = TableModel(h, None, norm, xs, ys, None)
    rows_spanned = len(np.unique(src[:, 1]))
    cols_spanned = len(np.unique(src[:, 0]))
    if rows_spanned >= settings.dewarp_quadratic_rows and cols_spanned >= 4:
        # the quadratic is fitted to every crossing (a curl is what the homography's RANSAC took
        # for outliers), then refitted without the worst
        base = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
        terms = _terms(src, norm)
        use = np.ones(len(src), bool)
        for _ in range(2):
            poly, *_ = np.linalg.lstsq(terms[use], (dst - base)[use], rcond=None)
            err = np.hypot(*(base + terms @ poly - dst).T)
            use = err <= max(settings.dewarp_ransac_px, 3 * float(np.median(err)))
        model.poly = poly
        keep = use
    if mesh:
        res = np.zeros(grid.nodes.shape, np.float64)
        have = np.zeros(ok.shape, bool)
        idx = np.argwhere(ok)
        smooth = model.smooth(src)
        err = dst - smooth
        good = np.hypot(*err.T) <= settings.dewarp_mesh_max * float(np.median(np.diff(ys)) if len(ys) > 1 else 1) \
            * _scale(model)
        for (i, j), e, g in zip(idx, err, good & keep | good, strict=True):
            if g:
                res[i, j] = e
                have[i, j] = True
        model.residual = _fill(res, have)
    return model


def _scale(model: TableModel) -> float:
    """Image pixels per row height, about, at the table's middle."""
    c = np.array([[model.norm[0], model.norm[2]], [model.norm[0], model.norm[2] + 1.0]])
    p = model.smooth(c)
    return float(np.hypot(*(p[1] - p[0])))


def _fill(values: np.ndarray, have: np.ndarray) -> np.ndarray:
    """``values`` with the entries not in ``have`` filled from their neighbours (repeated
    averaging of the known ones around each unknown; far from any, zero)."""
    out = np.where(have[..., None], values, 0.0)
    known = have.astype(np.float64)
    if have.all() or not have.any():
        return out
    for _ in range(max(values.shape[:2])):
        if known.all():
            break
        k = cv2.blur(known, (3, 3), borderType=cv2.BORDER_CONSTANT)
        s = np.stack([cv2.blur(out[..., c] * known, (3, 3), borderType=cv2.BORDER_CONSTANT)
                      for c in range(values.shape[2])], axis=-1)
        new = (known == 0) & (k > 0)
        out[new] = s[new] / k[new][:, None]
        known[new] = 1.0
    return out


def remap_grid(model: TableModel, x0: float, y0: float, per: float, size: tuple[int, int],
               step: int) -> np.ndarray:
    """Image coordinates of a straight canvas's points: canvas pixel (u, v) is table point
    (x0 + u / per, y0 + v / per); sampled every ``step`` pixels, one sample past each end."""
    w, h = size
    us = np.arange(0, w + step, step, dtype=np.float64)
    vs = np.arange(0, h + step, step, dtype=np.float64)
    gu, gv = np.meshgrid(us, vs)
    xy = np.column_stack([x0 + gu.ravel() / per, y0 + gv.ravel() / per])
    return model(xy).reshape(len(vs), len(us), 2).astype(np.float32)


def warp(img: np.ndarray, grid: np.ndarray, step: int, size: tuple[int, int], scale: float = 1.0,
         border=255) -> np.ndarray:
    """``img`` warped onto a canvas of ``size`` through the coarse map ``grid`` (every ``step``
    canvas pixels, in units of ``1 / scale`` image pixels), linear between samples."""
    w, h = size
    # canvas pixel p takes the grid's value at p / step, bilinear: an affine warp of the grid itself
    m = np.float32([[1.0 / step, 0, 0], [0, 1.0 / step, 0]])
    full = cv2.warpAffine(grid * np.float32(scale), m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
    value = (border,) * (img.shape[2] if img.ndim == 3 else 1)
    return cv2.remap(img, full, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=value)


# --------------------------------------------------------------------------- the photo path
ROW_MM = 6.8  # a deal row of our printing is 6.0-7.4 mm high: the straight canvas is scaled by it


def _shrink(img: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """``img`` with its long side at most ``long_side`` and the factor it was scaled by."""
    h, w = img.shape[:2]
    s = min(1.0, long_side / max(h, w))
    if s < 1.0:
        img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return img, s


def first_grid(grey: np.ndarray, settings: GeometrySettings, thick: bool = False,
               patches: dict[int, list] | None = None) -> tuple[TableGrid | None, int]:
    """Pass one: the lattice of paper patches, tried at each GeometrySettings.grid_thresholds
    level until one holds most of a table; the largest found, and the level it was found at.
    ``thick``: the cells reach across rulings as thick as the sheet's (see find_grid).
    ``patches``: the paper patches of ``grey`` found so far, by level -- used, and added to (the
    thick retry links again the patches the first try found, rather than finding them again)."""
    patches = {} if patches is None else patches
    best, level = None, settings.grid_thresholds[0]
    for t in settings.grid_thresholds:
        if t not in patches:
            patches[t] = find_cells(cv2.threshold(grey, t, 255, cv2.THRESH_BINARY_INV)[1], settings)
        grid = grid_of(patches[t], settings, thick=thick)
        if grid is not None and (best is None or grid.cells > best.cells):
            best, level = grid, t
        if best is not None and best.cells >= settings.grid_enough_cells:
            break
    return best, level


def rulings_only(ink: np.ndarray, per: float, settings: GeometrySettings, strict: bool = False) -> np.ndarray:
    """The long strokes of ``ink`` on a roughly straightened table (``per`` pixels a row height):
    rulings run along rows and columns further than any handwriting does.  ``strict``: also without
    the vertical strokes of handwriting stacked down a column (see :func:`_stacked_writing`)."""
    rect = cv2.getStructuringElement
    tilt = settings.dewarp_tilt_px
    hk = max(5, round(settings.dewarp_ruling_rows[0] * per))
    vk = max(5, round(settings.dewarp_ruling_rows[1] * per))
    hz = cv2.dilate(ink, rect(cv2.MORPH_RECT, (1, tilt)))
    hz = cv2.morphologyEx(hz, cv2.MORPH_CLOSE, rect(cv2.MORPH_RECT, (max(3, round(0.15 * per)), 1)))
    hz = cv2.morphologyEx(hz, cv2.MORPH_OPEN, rect(cv2.MORPH_RECT, (hk, 1)))
    vt = cv2.dilate(ink, rect(cv2.MORPH_RECT, (tilt, 1)))
    vt = cv2.morphologyEx(vt, cv2.MORPH_CLOSE, rect(cv2.MORPH_RECT, (1, max(3, round(0.15 * per)))))
    vt = cv2.morphologyEx(vt, cv2.MORPH_OPEN, rect(cv2.MORPH_RECT, (1, vk)))
    if strict:
        vt = _stacked_writing(vt, per, settings)
    return cv2.bitwise_and(cv2.bitwise_or(hz, vt), cv2.dilate(ink, rect(cv2.MORPH_RECT, (3, 3))))


def _stacked_writing(vt: np.ndarray, per: float, settings: GeometrySettings) -> np.ndarray:
    """``vt`` (a rough image's vertical strokes, ``per`` pixels a row height) without handwriting
    stacked down a column over many rows (a cumulative score repeated deal after deal, its digits
    touching the rulings between them): bands wider than GeometrySettings.dewarp_stack_width row
    heights (a ruling is thin), and strokes shorter than ``dewarp_stack_rows`` (a column ruling
    runs down the whole table)."""
    rect = cv2.getStructuringElement
    band = cv2.morphologyEx(vt, cv2.MORPH_OPEN,
                            rect(cv2.MORPH_RECT, (max(3, round(settings.dewarp_stack_width * per)), 1)))
    vt = cv2.subtract(vt, cv2.dilate(band, rect(cv2.MORPH_RECT, (3, 1))))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(vt, connectivity=8)
    short = np.flatnonzero(stats[1:, cv2.CC_STAT_HEIGHT] < settings.dewarp_stack_rows * per) + 1
    if short.size:
        vt[np.isin(labels, short)] = 0
    return vt


def _spaced_widths(grid: TableGrid) -> TableGrid:
    """``grid`` with its column widths (in row heights) measured between its crossings: a lattice
    linked across thick rulings has cells shorter, for the rulings' thickness, than their rows are
    apart, so its cells' own proportions make the columns too wide."""
    n = grid.nodes
    across = np.hypot(*np.moveaxis(n[:, 1:] - n[:, :-1], -1, 0))
    pitch = _pitch(grid)
    if pitch is None or not np.isfinite(across).any():
        return grid
    with np.errstate(all="ignore"):
        widths = np.array([np.nanmedian(col) if np.isfinite(col).any() else np.nan for col in across.T]) / pitch
    widths = np.where(np.isfinite(widths), widths, grid.widths)
    return TableGrid(grid.nodes, grid.count, widths, grid.cells, grid.found)


def _pitch(grid: TableGrid) -> float | None:
    """The median distance between ``grid``'s crossings one row apart (None: no two are known)."""
    down = np.hypot(*np.moveaxis(grid.nodes[1:] - grid.nodes[:-1], -1, 0))
    return float(np.nanmedian(down)) if np.isfinite(down).any() else None


def second_grid(grey: np.ndarray, level: int, model: TableModel, grid: TableGrid,
                settings: GeometrySettings, strict: bool = False) -> TableGrid | None:
    """Pass two: the table roughly straightened by ``model``, its lattice found from the rulings
    alone, and its crossings mapped back onto ``grey`` (None when it finds less than pass one)."""
    rows, cols = grid.shape
    xs, ys = model.xs, model.ys
    per = float(np.clip(_scale(model), settings.dewarp_rough_px[0], settings.dewarp_rough_px[1]))
    more_x = max(0, 6 - cols) * 3.5 + 1.0  # room for the columns and rows pass one missed
    more_y = max(0, 34 - rows) + 1.0
    x0, x1 = xs[0] - more_x, xs[-1] + more_x
    y0, y1 = ys[0] - more_y, ys[-1] + more_y
    size = (int((x1 - x0) * per), int((y1 - y0) * per))
    if size[0] * size[1] > 4 * grey.size:
        return None
    smooth = TableModel(model.h, model.poly, model.norm, model.xs, model.ys, None)  # no mesh yet
    cells = _rough_cells(grey, level, smooth, (x0, y0), per, size, settings, strict)
    # the slack for the mask's thick rulings on a lattice of most of the table only (measured there)
    found = _rough_grid(cells, settings)
    if (found is None or found.cells < grid.cells) and settings.dewarp_thick_retry and rows < DEALS:
        # a far sheet's rough image is enlarged to dewarp_rough_px a row: its mask's rulings
        # (blurred, then drawn thick) lie nearly as thick as its cells are high and part them.
        # Linked across them, the lattice is taken for the rows it adds to one short of the table,
        # when it holds rows enough to pin a curl (reaching across a thick ruling can also join a
        # narrow column to the next; a few rows extrapolated to thirty drift)
        thick = _rough_grid(cells, settings, thick=True)
        if (thick is not None and thick.shape[0] > max(grid.shape[0], settings.dewarp_grown_rows - 1)
                and thick.shape[1] <= N_COLS):
            found = _spaced_widths(thick)
    if found is None or found.cells < grid.cells:
        return None
    return _mapped_back(found, smooth, (x0, y0), per)


def _rough_cells(grey: np.ndarray, level: int, smooth: TableModel, origin: tuple[float, float], per: float,
                 size: tuple[int, int], settings: GeometrySettings, strict: bool = False) -> list:
    """The paper patches between the rulings of ``grey`` roughly straightened by ``smooth`` onto a
    canvas of ``size`` whose pixel (u, v) is table point ``origin`` + (u, v) / ``per``, thresholded at
    ``level`` (the long strokes alone: see :func:`rulings_only`)."""
    step = 4
    g = remap_grid(smooth, origin[0], origin[1], per, size, step)
    rough = warp(grey, g, step, size)
    ink = cv2.threshold(rough, level, 255, cv2.THRESH_BINARY_INV)[1]
    return find_cells(rulings_only(ink, per, settings, strict), settings)


def _rough_grid(cells: list, settings: GeometrySettings, thick: bool = False) -> TableGrid | None:
    """The lattice of a rough image's ``cells`` (its rows running down the canvas, crossings as far
    apart as dewarp_node_slack_px allows on a lattice of most of the table), with ``thick`` linked
    across thick rulings (see second_grid)."""
    return grid_of(cells, settings, down=np.array([0.0, 1.0]), thick=thick,
                   slack=settings.dewarp_node_slack_px, slack_rows=settings.dewarp_slack_rows)


def _mapped_back(found: TableGrid, smooth: TableModel, origin: tuple[float, float], per: float) -> TableGrid:
    """A lattice ``found`` on a rough image (see :func:`_rough_cells`) with its crossings mapped back
    through ``smooth`` onto the analysed image, turned over when it lies upside down there."""
    w = found.widths
    if len(w) >= 4 and w[0] + w[1] > w[-1] + w[-2]:
        # pass one saw too few columns to tell the table's left from its right: this lattice sees
        # the narrow deal-number and dealer columns on the right, so the table is upside down
        found = TableGrid(found.nodes[::-1, ::-1].copy(), found.count[::-1, ::-1].copy(), w[::-1].copy(),
                          found.cells, found.found[::-1, ::-1].copy())
    ok = np.isfinite(found.nodes[..., 0])
    table = found.nodes[ok] / per + origin
    back = np.full(found.nodes.shape, np.nan)
    back[ok] = smooth(table)
    return TableGrid(back, found.count, found.widths, found.cells, found.found)


PAGE_ROWS = (210.0 / ROW_MM, 297.0 / ROW_MM)  # the printed page in row heights (A4, portrait)


def paper_grid(grey: np.ndarray, paper: np.ndarray, settings: GeometrySettings,
               strict: bool = False) -> tuple[TableGrid | None, int]:
    """Pass one seeded by the sheet's outline ``paper`` (corners tl, tr, br, bl on ``grey``): the page
    straightened by that quad's homography onto a rough image of dewarp_rough_px a row, and the
    lattice found there from the rulings alone (as pass two finds it), at each grid_thresholds level
    until one holds most of a table.  A far sheet's table is small and blurred in the photo: its
    handwriting, as thick as its rulings, merges and splits the paper patches pass one looks for,
    where on the rough image the rulings are told from it by their length.  The lattice on ``grey``
    and its level; (None, first level) when none is found."""
    w, h = PAGE_ROWS
    tl, tr, br, bl = np.asarray(paper, np.float64)
    if np.hypot(*(tr - tl)) + np.hypot(*(br - bl)) > np.hypot(*(bl - tl)) + np.hypot(*(br - tr)):
        tl, tr, br, bl = tr, br, bl, tl  # the sheet lies sideways: its long sides run across the photo
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    hom = cv2.getPerspectiveTransform(src, np.float32([tl, tr, br, bl]))
    model = TableModel(hom, None, (w / 2, 1.0, h / 2, 1.0), np.array([0.0, w]), np.array([0.0, h]), None)
    per = float(np.clip(_scale(model), settings.dewarp_rough_px[0], settings.dewarp_rough_px[1]))
    origin = (-1.0, -1.0)
    size = (int((w + 2) * per), int((h + 2) * per))
    best, level = None, settings.grid_thresholds[0]
    for t in settings.grid_thresholds:
        cells = _rough_cells(grey, t, model, origin, per, size, settings, strict)
        found = _rough_grid(cells, settings)
        if (found is None or found.cells < settings.grid_enough_cells) and settings.dewarp_thick_retry:
            thick = _rough_grid(cells, settings, thick=True)
            if thick is not None and thick.shape[1] <= N_COLS and (found is None or thick.cells > found.cells):
                found = _spaced_widths(thick)
        if found is not None and (best is None or found.cells > best.cells):
            best, level = found, t
        if best is not None and best.cells >= settings.grid_enough_cells:
            break
    return (None if best is None else _mapped_back(best, model, origin, per)), level


def _analyse(ana: np.ndarray, settings: GeometrySettings,
             patches: dict[int, list] | None = None) -> tuple[np.ndarray, np.ndarray, TableGrid | None, int]:
    """``ana`` with the light flattened (each channel divided by its own light, as
    grid.flatten_light; kept for the straightened image), its darkest channel (the grey), and pass
    one's lattice and level on that (``patches``: filled with the grey's paper patches by level,
    see :func:`first_grid`)."""
    kernel = max(9, round(max(ana.shape[:2]) * settings.light_kernel_share))
    flat = cv2.divide(ana, np.maximum(background(ana, kernel), 1), scale=255)
    grey = darkest(flat)
    grid, level = first_grid(grey, settings, patches=patches)
    return flat, grey, grid, level


def row_pitch(img: np.ndarray, settings: GeometrySettings, min_cells: int = 1) -> float | None:
    """The median pitch, in pixels of ``img``, of the rows of pass one's lattice on it (linked across
    thick rulings when the plain one finds none), or None when it holds fewer than ``min_cells``."""
    ana, a = _shrink(img, settings.photo_analysis_long)
    _, grey, grid, _ = _analyse(ana, settings)
    if grid is None:
        grid, _ = first_grid(grey, settings, thick=True)
    pitch = None if grid is None or grid.cells < min_cells else _pitch(grid)
    return None if pitch is None else pitch / a


def straighten_photo(page: Page, settings: GeometrySettings | None = None,
                     paper: np.ndarray | None = None, strict: bool = False) -> StraightPage | None:
    """The sheet of a photo straightened from its deal table's lattice, or None when no lattice of
    a table is found (the caller falls back to the paper's outline).  ``paper``: the sheet's corners
    (tl, tr, br, bl) on Page.image when its whole outline shows, for :func:`paper_grid`."""
    settings = settings or GeometrySettings()
    ana, a = _shrink(page.image, settings.photo_analysis_long)
    patches: dict[int, list] = {}
    flat, grey, grid, level = _analyse(ana, settings, patches)
    tried = [(ana, a, flat, grey, patches)]
    f = settings.photo_upsample
    if ((grid is None or grid.cells < settings.grid_enough_cells) and f > 1
            and max(ana.shape[:2]) * f <= settings.photo_upsample_long):
        # too few cells: a low-resolution photo's rulings (~1 px, faint, under the JPEG's noise)
        # break at the threshold; interpolated to twice the size, they stay whole and close cells
        up = cv2.resize(ana, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
        patches_up: dict[int, list] = {}
        again = _analyse(up, settings, patches_up)
        tried.append((up, a * f, again[0], again[1], patches_up))
        if again[2] is not None and (grid is None or again[2].cells > grid.cells):
            ana, a = up, a * f
            flat, grey, grid, level = again
    if grid is None or grid.cells < settings.grid_enough_cells:
        # still too few: a far, blurred sheet's rulings come out of the threshold nearly as thick as
        # its cells are high: its cells are linked again reaching across them (as taken and enlarged)
        for img, scale, flattened, dark, found in tried:
            thick, at = first_grid(dark, settings, thick=True, patches=found)
            if thick is not None and (grid is None or thick.cells > grid.cells):
                ana, a, flat, grey, grid, level = img, scale, flattened, dark, thick, at
    far = paper is not None and cv2.contourArea(np.asarray(paper, np.float32).reshape(-1, 1, 2)) \
        <= settings.photo_paper_seed_share * page.image.shape[0] * page.image.shape[1]
    if far and settings.photo_paper_seed and (grid is None or grid.cells < settings.grid_enough_cells):
        # still too few, and the sheet's outline shows (a far sheet): its lattice sought on the page
        # straightened by that outline, where rulings are told from handwriting by their length
        # (taken with rows enough to pin a curl, as a grown lattice: the rows placed past a few drift)
        seeded, at = paper_grid(grey, np.asarray(paper, np.float64) * a, settings, strict)
        if (seeded is not None and seeded.shape[0] >= settings.dewarp_grown_rows
                and (grid is None or seeded.cells > grid.cells)):
            grid, level = seeded, at
    if grid is None:
        return None
    model = fit_model(grid, settings)
    if model is None:
        return None
    better = second_grid(grey, level, model, grid, settings, strict)
    refined = fit_model(better, settings) if better is not None else None
    if refined is not None:
        grid, model = better, refined
    before = grid, model
    # (pass two not taken: the regrow's first try would be the same call again, with the same end)
    for _ in range(settings.dewarp_regrow if refined is not None else 0):
        # a lattice of part of the table (a far sheet's few columns): its model, fitted to that part,
        # straightens the rest badly; refitted to the larger lattice pass two found, it does better
        # (a few cells more are the same lattice cut again, its column widths drifting: not taken)
        if grid.shape[1] >= N_COLS and grid.shape[0] >= DEALS:
            break
        better = second_grid(grey, level, model, grid, settings, strict)
        grows = better is not None and better.cells >= settings.dewarp_regrow_gain * grid.cells
        refined = fit_model(better, settings) if grows else None
        if refined is None:
            break
        grid, model = better, refined
    if grid is not before[0] and grid.shape[0] < settings.dewarp_grown_rows:
        # grown, but still too few rows to pin the sheet's curl: the rows the canvas places past
        # them drift (a row off twenty rows on); the lattice as found stands
        grid, model = before
    if not strict and grid.shape[1] < settings.dewarp_stack_cols:
        # too few columns to place the table by: pass two may have taken handwriting stacked down
        # a column for rulings that split its cells (see _stacked_writing); sought again without it
        again = straighten_photo(page, settings, paper, strict=True) if settings.dewarp_stack_retry else None
        if again is not None and len(again.table_rulings.xs) > grid.shape[1] + 1:
            return again
        if settings.photo_faint_levels and paper is not None:
            # or the table's rulings are barely darker than the paper (washed out by the light) and
            # break at every usual level: sought on the page straightened by the sheet's outline
            again = _faint(page, *tried[0][1:4], settings, paper)
            if again is not None and len(again.table_rulings.xs) > grid.shape[1] + 1:
                return again
    return _placed(page, a, flat, grey, grid, model, settings)


def _faint(page: Page, a: float, flat: np.ndarray, grey: np.ndarray,
           settings: GeometrySettings, paper: np.ndarray) -> StraightPage | None:
    """straighten_photo's faint retry: :func:`paper_grid` at GeometrySettings.photo_faint_levels on
    the photo's light-flattened ``grey`` (as :func:`_analyse` made it; a lattice of rows enough to pin
    a curl), then pass two at its level."""
    grid, level = paper_grid(grey, np.asarray(paper, np.float64) * a,
                             replace(settings, grid_thresholds=settings.photo_faint_levels))
    if grid is None or grid.shape[0] < settings.dewarp_grown_rows:
        return None
    model = fit_model(grid, settings)
    if model is None:
        return None
    better = second_grid(grey, level, model, grid, settings)
    refined = fit_model(better, settings) if better is not None else None
    if refined is not None and better.shape[0] >= settings.dewarp_grown_rows:
        grid, model = better, refined
    return _placed(page, a, flat, grey, grid, model, settings)


def _placed(page: Page, a: float, flat: np.ndarray, grey: np.ndarray, grid: TableGrid,
            model: TableModel, settings: GeometrySettings) -> StraightPage:
    """The sheet straightened by ``model`` of the lattice ``grid`` (on the analysed copy, ``a`` times
    Page.image's size, ``flat`` that copy with the light flattened and ``grey`` its darkest channel,
    as :func:`_analyse` made them), the columns it missed placed as the form has them."""
    rows, cols = grid.shape
    xs, ys = model.xs, model.ys
    found = grid.found.copy()
    w = np.diff(xs)
    short = 0  # score columns to put back beside the last one found
    unseen: tuple[int, ...] = ()  # of them, those placed too far out to be cut surely
    if cols in (5, 6) and max(w[0], w[1]) < min(w[2:-1]) \
            and w[-1] < settings.photo_part_column * float(np.median(w[2:-1])):
        # a last column far narrower than the score columns: its cells closed by the edge of pass
        # two's rough image (the cumulative E/W's, or the cumulative N/S's when that image ended
        # there), or by a writer's stacked digits, not by its right ruling; it is dropped and
        # placed again as the form has it (below), with the one beyond it
        xs, found, w = xs[:-1], found[:, :-1], w[:-1]
        cols, short = cols - 1, 7 - cols
    elif (cols == 5 and w[1] >= settings.photo_score_like * float(np.median(w[2:]))
          and _ruled_left(grey, model, settings)):
        # the dealer column and the four score columns: the deal-number column (its numbers' ink
        # over its rulings, or blurred) was lost; its ruling is there on the left, one deal-number
        # column's width (GeometrySettings.photo_deal_of_dealer of the dealer's) out
        xs = np.insert(xs, 0, xs[0] - settings.photo_deal_of_dealer * w[0])
        found = np.hstack([np.zeros((found.shape[0], 1), bool), found])
    elif cols == 5 and max(w[0], w[1]) < min(w[2:]):
        # the deal-number and dealer columns and three score columns: the last one (the cumulative
        # E/W, its rulings written over or curled out of the light) was lost
        short = 1
    elif cols == 5 and _labels_merged(w, settings):
        # the four score columns and one narrower: the deal-number and dealer columns as one (the
        # ruling between them lost under blur, or the deal numbers written over): it is split as
        # the form has it, each part found where the merged cell was
        cut = xs[0] + settings.photo_deal_column_share * w[0]
        xs = np.insert(xs, 1, cut)
        found = np.hstack([found[:, :1], found])
    elif cols == 4 and rows >= DEALS and max(w[0], w[1]) < min(w[2:]):
        # the deal-number and dealer columns and the two Score columns of every row: both
        # Cumulative columns lost (their rulings curled out of the light, or under glare).  Placed
        # two columns out, a curl moves them off their cells: the rows are named and the scores
        # read, and the cumulative cells are named missing rather than cut in the wrong place and
        # read.  (On a lattice of part of the rows, the rows placed beyond it drift too: no table.)
        short, unseen = 2, (4, 5)
    if short:
        # the score columns lost lie beside the ones found, each as wide as their median, where the
        # model takes them
        xs = np.append(xs, xs[-1] + float(np.median(w[2:])) * np.arange(1, short + 1))
        found = np.hstack([found, np.zeros((found.shape[0], short), bool)])
    # the canvas: the printed page around the table (title, names and winners above it; the
    # scoring table, on the classic printing, to its right), in row heights
    missing = max(0, settings.photo_table_rows - rows)
    x0 = xs[0] - 2.0
    x1 = max(x0 + settings.photo_page_rows[0], xs[-1] + 2.0)
    y0 = ys[0] - settings.photo_rows_above - missing
    y1 = ys[-1] + 3.0 + missing
    per = settings.photo_row_px
    size = (int(round((x1 - x0) * per)), int(round((y1 - y0) * per)))
    step = settings.photo_grid_step
    g = remap_grid(model, x0, y0, per, size, step)
    # the sheet comes out with the light flattened (the reader and the table's rulings see paper
    # at 255 under a shadow as in full light), from the analysed copy (at most photo_analysis_long
    # pixels long, as large as the canvas it fills)
    image = stretch_ink(warp(flat, g, step, size), settings)
    g /= np.float32(a)  # onto Page.image
    # the homography nearest to the mesh, for whatever needs one matrix
    gh, gw = g.shape[:2]
    canvas = np.stack(np.meshgrid(np.arange(gw) * step, np.arange(gh) * step), axis=-1)[::3, ::3].reshape(-1, 2)
    h, _ = cv2.findHomography(canvas.astype(np.float64), g[::3, ::3].reshape(-1, 2).astype(np.float64), 0)
    if h is None:
        h = np.eye(3)
    rulings = TableRulings((xs - x0) * per, (ys - y0) * per, found, unseen)
    return StraightPage(page=page, image=image, to_original=h / h[2, 2], grid=g, grid_step=step,
                        px_mm=per / ROW_MM, table_rulings=rulings)


def _ruled_left(grey: np.ndarray, model: TableModel, settings: GeometrySettings) -> bool:
    """Whether a column ruling runs down the table left of the lattice's first column, where the
    form's deal-number column would end (GeometrySettings.photo_deal_of_dealer of the first
    column's width out, give or take a quarter of that): the median over the table's rows of each
    place's darkness on ``grey`` (analysed image) peaks there at least
    ``photo_ruling_left`` as deep as on the lattice's own first ruling."""
    xs, ys = model.xs, model.ys
    w0 = float(xs[1] - xs[0])
    y = np.linspace(ys[0], ys[-1], 60)
    x = xs[0] - w0 * np.arange(-0.15, 1.1 * settings.photo_deal_of_dealer + 0.3, 0.02)
    gx, gy = np.meshgrid(x, y)
    pts = model(np.column_stack([gx.ravel(), gy.ravel()])).astype(np.float32).reshape(len(y), len(x), 2)
    vals = cv2.remap(grey, np.ascontiguousarray(pts[..., 0]), np.ascontiguousarray(pts[..., 1]),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=255).astype(np.float32)
    dark = 255.0 - np.median(vals, axis=0)  # per place left of the table, over its rows
    off = (xs[0] - x) / w0  # how far out, in the first column's widths
    own = float(dark[np.abs(off) <= 0.1].max())
    want = np.abs(off - settings.photo_deal_of_dealer) <= 0.25 * settings.photo_deal_of_dealer
    return own > 0 and float(dark[want].max()) >= settings.photo_ruling_left * own


def _labels_merged(w: np.ndarray, settings: GeometrySettings) -> bool:
    """Whether a lattice five columns wide (widths ``w``) is the four score columns and, before
    them, the deal-number and dealer columns as one: four of about the same width (within
    GeometrySettings.grid_misfit of their median) and a first one a share of theirs in
    ``photo_labels_merged``."""
    score = float(np.median(w[1:]))
    lo, hi = settings.photo_labels_merged
    return (len(w) == 5 and all(settings.grid_misfit[0] <= v / score <= settings.grid_misfit[1] for v in w[1:])
            and lo * score <= w[0] <= hi * score)
