"""The deal table's ruling lattice found in a photo, whatever its turn, perspective or curl.

A cell of a ruled table is a patch of paper enclosed by rulings.  Its outline is found as a
white component of the ink mask (after the light is flattened, so a shadow or a lamp's fall-off
does not look like ink), four corners are fitted to it, and two cells are neighbours when a side of
one lies against a side of the other across one ruling (anti-parallel, about as long).  Walking
those links gives every cell a (row, column) place in a lattice without assuming any direction in
the image: the table may be turned any way, seen in strong perspective, or curled.  The corners of
the cells that meet at a ruling crossing give that crossing's position: a mesh of the table's own
grid, from which ocr.dewarp straightens it.  Nothing here looks at the paper's outline, so a sheet
whose edge is outside the photo, or lies on a pale table, is found alike.
"""

from __future__ import annotations

import warnings
from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from ocr.settings import GeometrySettings

# lattice directions: the neighbour across side k of a cell (sides in screen-clockwise order,
# starting with the side from its first corner to its second) is one step in STEP[k]
STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (d_row, d_col): up, right, down, left


@dataclass
class Cell:
    """One paper patch enclosed by rulings, with four corners (screen-clockwise)."""

    corners: np.ndarray  # 4x2 float64, on the analysed image
    area: float

    def side(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Midpoint and vector of side k (from corner k to corner k + 1)."""
        a, b = self.corners[k], self.corners[(k + 1) % 4]
        return (a + b) / 2, b - a


@dataclass
class Lattice:
    """Cells placed on a lattice (row, col) -> index into ``cells``; rows run down the table."""

    cells: list[Cell]
    place: dict[tuple[int, int], int]  # (row, col) -> cell index
    turn: dict[int, int]  # cell index -> how its corner order maps onto the lattice (0..3)
    quads: np.ndarray | None = None  # every cell's corners (n x 4 x 2), shared by the lattices

    def __post_init__(self):
        if self.quads is None:
            self.quads = np.array([c.corners for c in self.cells]).reshape(-1, 4, 2)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The placed cells as arrays: (row, col) (m x 2), cell index (m), turn (m)."""
        if not self.place:
            return np.zeros((0, 2), int), np.zeros(0, int), np.zeros(0, int)
        rc = np.array(list(self.place.keys()), int)
        idx = np.array(list(self.place.values()), int)
        return rc, idx, np.array([self.turn[i] for i in idx], int)

    def placed_corners(self) -> tuple[np.ndarray, np.ndarray]:
        """(row, col) of each placed cell and its corners as the lattice's tl, tr, br, bl (m x 4 x 2)."""
        rc, idx, turn = self.arrays()
        k = (np.arange(4)[None, :] + turn[:, None]) % 4
        return rc, self.quads[idx[:, None], k]

    @property
    def rows(self) -> range:
        rs = [r for r, _ in self.place]
        return range(min(rs), max(rs) + 1)

    @property
    def cols(self) -> range:
        cs = [c for _, c in self.place]
        return range(min(cs), max(cs) + 1)

    def corners(self, rc: tuple[int, int]) -> np.ndarray:
        """The cell at lattice place ``rc``: its corners as top-left, top-right, bottom-right,
        bottom-left of the lattice."""
        i = self.place[rc]
        return np.roll(self.cells[i].corners, -self.turn[i], axis=0)


# --------------------------------------------------------------------------- light
def background(bgr: np.ndarray, kernel: int) -> np.ndarray:
    """The light falling on the paper, per channel: a morphological closing (the brightest level
    around each pixel, then the darkest of those) at a scale larger than the writing (``kernel``
    pixels), taken at half resolution.  A closing keeps a hard shadow's edge where it is (a
    dilation alone would spread the lit side into the shadow, which then reads as a band of ink)
    and removes every stroke narrower than the kernel."""
    h, w = bgr.shape[:2]
    half = cv2.resize(bgr, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    k = max(3, kernel // 2) | 1
    bg = cv2.morphologyEx(half, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    return cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)


def flatten_light(bgr: np.ndarray, kernel: int, bg: np.ndarray | None = None) -> np.ndarray:
    """Grey image with paper at 255 and ink dark, whatever the light: each channel divided by its
    own :func:`background`, then the darkest channel kept (blue, red and black ink all stay dark)."""
    bg = background(bgr, kernel) if bg is None else bg
    return darkest(cv2.divide(bgr, np.maximum(bg, 1), scale=255))


def darkest(norm: np.ndarray) -> np.ndarray:
    """The darkest channel of each pixel of ``norm`` (a grey image as it is)."""
    if norm.ndim == 2:
        return norm
    b, g, r = cv2.split(norm)
    return cv2.min(cv2.min(b, g), r)


# --------------------------------------------------------------------------- cells
def find_cells(ink: np.ndarray, settings: GeometrySettings) -> list[Cell]:
    """Paper patches of ``ink`` (255 = ink) that are four-cornered and about as large as cells."""
    h, w = ink.shape
    paper = cv2.bitwise_not(ink)
    contours, hierarchy = cv2.findContours(paper, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    lo = settings.grid_cell_min_px ** 2
    hi = settings.grid_cell_max_share * h * w
    out = []
    for cnt, hier in zip(contours, hierarchy[0], strict=True):
        if hier[3] != -1 or len(cnt) < 4:  # a hole (ink inside paper), not a paper patch
            continue
        x, y, bw, bh = cv2.boundingRect(cnt)
        if bw * bh < lo or bw * bh > 2.5 * hi or min(bw, bh) < settings.grid_cell_min_px:
            continue
        area = cv2.contourArea(cnt)
        if area < lo or area > hi:
            continue
        corners = _corners(cnt.reshape(-1, 2).astype(np.float64))
        quad = cv2.contourArea(corners.astype(np.float32))
        if quad <= 0 or not settings.grid_fill[0] <= area / quad <= settings.grid_fill[1]:
            continue
        out.append(Cell(corners, area))
    return out


def _corners(pts: np.ndarray) -> np.ndarray:
    """Four corners of a roughly four-sided outline: its extreme points along the diagonals of its
    smallest enclosing rectangle (a notch cut by a stroke touching a ruling moves none of them)."""
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(pts.astype(np.float32))
    t = np.deg2rad(ang)
    cos, sin = np.cos(t), np.sin(t)
    u = np.array([cos, sin])
    v = np.array([-sin, cos])  # u turned clockwise on screen (y down)
    d = pts - (cx, cy)
    a = d @ u / max(rw / 2, 1e-6)
    b = d @ v / max(rh / 2, 1e-6)
    # the extremes of -a - b, a - b, a + b and -a + b: negation is exact, so the first largest of
    # -(a + b) is the first smallest of a + b
    s, r = a + b, a - b
    return pts[[s.argmin(), r.argmax(), s.argmax(), r.argmin()]]


# --------------------------------------------------------------------------- lattice
def link_cells(cells: list[Cell], settings: GeometrySettings,
               thick: bool = False) -> dict[tuple[int, int], tuple[int, int]]:
    """(cell, side) -> (other cell, its side) for cells lying side by side across one ruling: the
    sides' midpoints near (GeometrySettings.grid_link_*; with ``thick``, further where the rulings
    are thick beside the cells), the sides anti-parallel and about as long, each the other's
    nearest such side."""
    if len(cells) < 2:
        return {}
    corners = np.array([c.corners for c in cells])  # n x 4 x 2
    nxt = np.roll(corners, -1, axis=1)
    mids = ((corners + nxt) / 2).reshape(-1, 2)
    vecs = (nxt - corners).reshape(-1, 2)
    lengths = np.linalg.norm(vecs, axis=1) + 1e-9
    dirs = vecs / lengths[:, None]
    normals = np.column_stack([dirs[:, 1], -dirs[:, 0]])  # outward for a screen-clockwise outline
    # a ruling is thin next to the cells it parts: the reach is a share of the cell's smaller extent
    # (its row height, about), never of the extent across the side (a wide cell would reach over the
    # gap between two tables)
    side_len = lengths.reshape(-1, 4)
    small = np.minimum((side_len[:, 0] + side_len[:, 2]) / 2, (side_len[:, 1] + side_len[:, 3]) / 2)
    reach = np.maximum(settings.grid_link_px, settings.grid_link_share * np.repeat(small, 4))
    most = np.maximum(reach, settings.grid_link_most * np.repeat(small, 4)) if thick else reach
    owner = np.repeat(np.arange(len(cells)), 4)
    # candidate pairs: sides whose midpoints fall in the same or neighbouring buckets
    size = float(most.max()) + 1.0
    kx = np.floor(mids[:, 0] / size).astype(np.int64)
    ky = np.floor(mids[:, 1] / size).astype(np.int64)
    span = int(ky.max() - ky.min()) + 3
    key = (kx - kx.min() + 1) * span + (ky - ky.min() + 1)
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    pairs_i, pairs_j = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            want = key + dx * span + dy
            lo = np.searchsorted(sorted_keys, want, side="left")
            hi = np.searchsorted(sorted_keys, want, side="right")
            count = hi - lo
            if not count.any():
                continue
            i = np.repeat(np.arange(len(key)), count)
            starts = np.repeat(lo - np.cumsum(count) + count, count)
            j = order[np.arange(len(i)) + starts]
            pairs_i.append(i)
            pairs_j.append(j)
    i = np.concatenate(pairs_i)
    j = np.concatenate(pairs_j)
    d = mids[j] - mids[i]
    dist = np.hypot(d[:, 0], d[:, 1])
    ratio = lengths[i] / lengths[j]
    ok = ((owner[i] != owner[j]) & (dist <= np.minimum(most[i], most[j]))
          & (np.einsum("ij,ij->i", normals[i], normals[j]) <= -settings.grid_parallel)
          & (ratio >= 1 / settings.grid_length_ratio) & (ratio <= settings.grid_length_ratio)
          & (np.einsum("ij,ij->i", d, normals[i]) >= -0.5 * settings.grid_link_px))  # not inside
    if thick and ok.any():
        # the typical ruling: the median over the sides of the distance to the nearest facing side
        nearest = np.full(len(mids), np.inf)
        np.minimum.at(nearest, i[ok], dist[ok])
        ruling = float(np.median(nearest[np.isfinite(nearest)]))
        if ruling >= settings.grid_link_thick * float(np.median(small)):
            reach = np.minimum(most, np.maximum(reach, settings.grid_link_rulings * ruling))
    ok &= dist <= np.minimum(reach[i], reach[j])
    i, j, score = i[ok], j[ok], (dist / reach[i])[ok]
    best = np.full(len(mids), -1, np.int64)
    if i.size:
        o = np.lexsort((score, i))  # by side, nearest first
        first = np.concatenate(([True], i[o][1:] != i[o][:-1]))
        best[i[o][first]] = j[o][first]
    a = np.flatnonzero(best >= 0)
    b = best[a]
    mutual = best[b] == a  # each other's nearest
    a, b = a[mutual], b[mutual]
    if not a.size:
        return {}
    # a ruling is about as thick all over the table: a link across a gap much wider than the
    # typical one spans the space between two tables (the scoring table beside the deal table)
    gap = np.abs(np.einsum("ij,ij->i", mids[b] - mids[a], normals[a]))
    keep = gap <= max(settings.grid_link_px, settings.grid_gap_factor * float(np.median(gap)) + 2.0)
    return {(int(owner[x]), int(x % 4)): (int(owner[y]), int(y % 4)) for x, y in zip(a[keep], b[keep], strict=True)}


def build_lattices(cells: list[Cell], links: dict) -> list[Lattice]:
    """The connected groups of linked cells, each placed on a lattice by walking its links."""
    quads = np.array([c.corners for c in cells]).reshape(-1, 4, 2)
    adj: dict[int, list[tuple[int, int, int]]] = {}
    for (i, a), (j, b) in links.items():
        adj.setdefault(i, []).append((a, j, b))
    seen: set[int] = set()
    out = []
    # start from the best-connected cells so a stray link at the rim cannot misplace the core
    for start in sorted(adj, key=lambda i: -len(adj[i])):
        if start in seen:
            continue
        place: dict[tuple[int, int], int] = {(0, 0): start}
        where = {start: (0, 0)}
        turn = {start: 0}
        queue = deque([start])
        seen.add(start)
        while queue:
            i = queue.popleft()
            r, c = where[i]
            for a, j, b in adj.get(i, ()):
                d = (a - turn[i]) % 4  # the lattice direction of side a
                dr, dc = STEP[d]
                rc = (r + dr, c + dc)
                tj = (b - (d + 2)) % 4  # j's side b faces back the opposite way
                if j in where:
                    continue
                if rc in place or j in seen:
                    continue
                place[rc] = j
                where[j] = rc
                turn[j] = tj
                seen.add(j)
                queue.append(j)
        out.append(Lattice(cells, place, turn, quads))
    return out


def nodes(lat: Lattice, slack: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The ruling crossings of ``lat``: an array (rows + 1, cols + 1, 2) of image positions, each
    the mean of the corners of the cells meeting there that lie near their median (none when two
    disagree by more than a quarter of the smaller cell, plus ``slack`` pixels for the ruling's
    own thickness between them: a patch cut short by handwriting; NaN where no cell has a corner),
    and how many corners each was taken from."""
    r0, c0 = lat.rows.start, lat.cols.start
    shape = (len(lat.rows) + 1, len(lat.cols) + 1)
    rc, q = lat.placed_corners()
    size = np.minimum(np.linalg.norm(q[:, 1] - q[:, 0], axis=1), np.linalg.norm(q[:, 3] - q[:, 0], axis=1))
    pts = np.full(shape + (4, 2), np.nan)  # per node, the corner of each of the four cells around it
    tol = np.full(shape + (4,), np.inf)
    for k, (dr, dc) in enumerate(((0, 0), (0, 1), (1, 1), (1, 0))):
        i, j = rc[:, 0] - r0 + dr, rc[:, 1] - c0 + dc
        pts[i, j, k] = q[:, k]
        tol[i, j, k] = 0.25 * size + slack
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: nodes no cell touches
        mid = np.nanmedian(pts, axis=2)
        near = np.hypot(*(pts - mid[:, :, None]).transpose(3, 0, 1, 2)) <= tol.min(axis=2)[..., None]
        n = near.sum(axis=2)
        have = np.isfinite(pts[..., 0]).sum(axis=2)
        pos = np.where(near[..., None], pts, 0).sum(axis=2) / np.maximum(n, 1)[..., None]
    bad = (n == 0) | ((2 * n <= have) & (have > 1))
    pos[bad] = np.nan
    return pos, np.where(bad, 0, n).astype(np.int32)


# --------------------------------------------------------------------------- the table's lattice
@dataclass
class TableGrid:
    """The deal table's lattice, oriented: rows run down the table, columns left to right (the
    narrow deal-number and dealer columns first), ruling crossings on the analysed image."""

    nodes: np.ndarray  # (rows + 1, cols + 1, 2) image positions, NaN where unknown
    count: np.ndarray  # (rows + 1, cols + 1) cell corners averaged into each node
    widths: np.ndarray  # per column, its width in row heights (median over the rows)
    cells: int  # cells on the lattice
    found: np.ndarray  # (rows, cols) bool: the cells the lattice holds

    @property
    def shape(self) -> tuple[int, int]:
        return self.nodes.shape[0] - 1, self.nodes.shape[1] - 1


def prune(lat: Lattice, settings: GeometrySettings) -> Lattice:
    """``lat`` without its sparse rim: columns and rows holding fewer than
    GeometrySettings.grid_sparse of the fullest one's cells (a stray patch of paper linked at the
    table's edge), keeping the longest run of the others."""
    place = dict(lat.place)
    for axis in (1, 0, 1):
        counts: dict[int, int] = {}
        for rc in place:
            counts[rc[axis]] = counts.get(rc[axis], 0) + 1
        if not counts:
            break
        full = max(counts.values())
        good = sorted(k for k, n in counts.items() if n >= settings.grid_sparse * full)
        runs: list[list[int]] = []
        for k in good:
            if runs and k == runs[-1][-1] + 1:
                runs[-1].append(k)
            else:
                runs.append([k])
        keep = set(max(runs, key=lambda r: sum(counts[k] for k in r)))
        place = {rc: i for rc, i in place.items() if rc[axis] in keep}
    return Lattice(lat.cells, place, lat.turn, lat.quads)


def misfits(lat: Lattice, settings: GeometrySettings) -> set[int]:
    """Cells whose width is far from their lattice column's (median) width, or whose height is far
    from their row's: two cells merged, or a piece of one."""
    rc, idx, w, h = _cell_sizes(lat)
    lo, hi = settings.grid_misfit
    bad = np.zeros(len(idx), bool)
    for axis, size in ((1, w), (0, h)):
        keys, inv = np.unique(rc[:, axis], return_inverse=True)
        med = np.array([np.median(size[inv == k]) for k in range(len(keys))])
        ratio = size / med[inv]
        bad |= (ratio < lo) | (ratio > hi)
    return {int(i) for i in idx[bad]}


def _transform(lat: Lattice, quarter: int) -> Lattice:
    """``lat`` turned by ``quarter`` quarter turns (lattice places and corner order together)."""
    place, turn = {}, {}
    for (r, c), i in lat.place.items():
        for _ in range(quarter % 4):
            r, c = c, -r  # a clockwise quarter turn of the lattice: (row, col) -> (col, -row)
        place[(r, c)] = i
        turn[i] = (lat.turn[i] - quarter) % 4
    return Lattice(lat.cells, place, turn, lat.quads)


def _cell_sizes(lat: Lattice) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The placed cells' (row, col), index, width (mean of their top and bottom sides) and height."""
    rc, q = lat.placed_corners()
    _, idx, _ = lat.arrays()
    side = lambda a, b: np.linalg.norm(q[:, b] - q[:, a], axis=1)  # noqa: E731
    w = (side(0, 1) + side(3, 2)) / 2
    h = (side(0, 3) + side(1, 2)) / 2
    return rc, idx, w, h


def orient(lat: Lattice, down: np.ndarray | None = None) -> Lattice:
    """``lat`` turned so that its rows run down the table and its columns left to right.

    With ``down`` (an image direction known to run down the table) the turn follows it.  Without,
    the table decides: its cells are wider than high (score columns ~3 row heights wide), and the
    narrow deal-number and dealer columns are on the left."""
    if down is not None:
        best, best_dot = 0, -np.inf
        for q in range(4):
            t = _transform(lat, q)
            step = _row_step(t)
            if step is not None and float(step @ down) > best_dot:
                best, best_dot = q, float(step @ down)
        return _transform(lat, best)
    rc, _, w, h = _cell_sizes(lat)
    if float(np.median(w / np.maximum(h, 1e-6))) < 1.0:  # the lattice's rows are the table's columns
        lat = _transform(lat, 1)
        rc, _, w, h = _cell_sizes(lat)
    width = _column_widths(rc, w / np.maximum(h, 1e-6))
    if len(width) >= 4 and width[0] + width[1] > width[-1] + width[-2]:
        lat = _transform(lat, 2)
    return lat


def _column_widths(rc: np.ndarray, ratio: np.ndarray) -> list[float]:
    """The median of ``ratio`` in each lattice column present, left to right."""
    return [float(np.median(ratio[rc[:, 1] == c])) for c in np.unique(rc[:, 1])]


def _row_step(lat: Lattice) -> np.ndarray | None:
    """The mean image displacement from a cell to the one below it on the lattice."""
    rc, q = lat.placed_corners()
    centre = q.mean(axis=1)
    at = {tuple(x): i for i, x in enumerate(rc.tolist())}
    below = [(i, at[(r + 1, c)]) for i, (r, c) in enumerate(rc.tolist()) if (r + 1, c) in at]
    if not below:
        return None
    a, b = np.array(below).T
    return (centre[b] - centre[a]).mean(axis=0)


def table_grid(lat: Lattice, slack: float = 0.0) -> TableGrid:
    """The oriented lattice's ruling crossings (see :func:`nodes`) and column widths."""
    pos, count = nodes(lat, slack)
    rc, _, w, h = _cell_sizes(lat)
    cols = lat.cols
    ratio = w / np.maximum(h, 1e-6)
    widths = np.array([np.median(ratio[rc[:, 1] == c]) if (rc[:, 1] == c).any() else np.nan for c in cols])
    found = np.zeros((len(lat.rows), len(cols)), bool)
    found[rc[:, 0] - lat.rows.start, rc[:, 1] - cols.start] = True
    return TableGrid(pos, count, widths, len(lat.place), found)


def find_grid(ink: np.ndarray, settings: GeometrySettings, down: np.ndarray | None = None,
              thick: bool = False, slack: float = 0.0, slack_rows: int = 0) -> TableGrid | None:
    """The lattice of cells in ``ink`` (255 = ink) most like the deal table, oriented (see
    :func:`orient`), or None when none has GeometrySettings.grid_min_cells.  Most like the table:
    the most cells, where a lattice not six columns wide counts GeometrySettings.grid_other_weight
    of its cells (the scoring table beside the deal table can hold more cells than a deal table
    whose handwriting merged many of its own).  ``thick``: rulings as thick as the cells are high
    may part linked cells (see :func:`link_cells`; a photo's threshold, not a mask of rulings
    drawn thick on purpose).  ``slack``: see :func:`nodes`, on a lattice of ``slack_rows`` rows or
    more only."""
    return grid_of(find_cells(ink, settings), settings, down, thick, slack, slack_rows)


def grid_of(cells: list[Cell], settings: GeometrySettings, down: np.ndarray | None = None,
            thick: bool = False, slack: float = 0.0, slack_rows: int = 0) -> TableGrid | None:
    """:func:`find_grid` on the paper patches ``cells`` already found (one set of cells linked
    both ways, across thin rulings and thick ones)."""
    links = link_cells(cells, settings, thick)
    best, best_score = None, 0.0
    for lat in _largest(cells, links, settings):
        lat = prune(lat, settings)
        if len(lat.place) < settings.grid_min_cells or not fits_form(lat, settings):
            continue
        score = len(lat.place) * (1.0 if len(lat.cols) == 6 else settings.grid_other_weight)
        if score > best_score:
            best, best_score = lat, score
    if best is None:
        return None
    best = orient(best, down)
    return table_grid(best, slack if len(best.rows) >= slack_rows else 0.0)


def fits_form(lat: Lattice, settings: GeometrySettings) -> bool:
    """Whether ``lat``'s columns can be the deal table's: at most two of them (the deal-number and
    dealer columns) narrower than GeometrySettings.grid_narrow_share of its second widest (the
    widest may be two merged), one at least ``grid_score_min`` row heights wide (a score column),
    and none more than ``grid_widest_ratio`` times as wide as the next widest.  The scoring table's
    undertricks block, seven rows of four narrow value columns beside a wide label column, or its
    value columns alone, is the other lattice a far or blurred sheet closes best."""
    rc, _, w, h = _cell_sizes(orient(lat))
    width = np.array(_column_widths(rc, w / np.maximum(h, 1e-6)))
    if len(width) < 2:
        return True
    top, second = np.sort(width)[::-1][:2]
    if top > settings.grid_widest_ratio * second:
        return False
    if len(width) < 3:
        return True
    return int((width < settings.grid_narrow_share * second).sum()) < 3 and top >= settings.grid_score_min


def _largest(cells: list[Cell], links: dict, settings: GeometrySettings, count: int = 3) -> list[Lattice]:
    """The ``count`` largest lattices of ``cells``, each placed again without its misfits, passing
    over lattices wider than a deal table both ways (GeometrySettings.grid_max_across)."""
    out = []
    for lat in sorted(build_lattices(cells, links), key=lambda la: -len(la.place)):
        if len(out) >= count or len(lat.place) < settings.grid_min_cells:
            break
        if min(len(lat.rows), len(lat.cols)) > 2 * settings.grid_max_across:
            continue  # ruled paper far wider than a table both ways: not worth placing again
        group = set(lat.place.values())
        own = {k: v for k, v in links.items() if k[0] in group}
        for _ in range(3):
            odd = misfits(lat, settings)
            if not odd:
                break
            # a patch two cells wide (a ruling lost) or a piece of one (split by a stroke) shifts
            # every cell placed through it: drop it and place them again through their other neighbours
            own = {k: v for k, v in own.items() if k[0] not in odd and v[0] not in odd}
            again = build_lattices(cells, own)
            if not again:
                break
            lat = max(again, key=lambda la: len(la.place))
        if min(len(lat.rows), len(lat.cols)) > settings.grid_max_across:
            continue  # ruled paper around the table: its own lattice, passed over
        out.append(lat)
    return out
