"""Cut a cell image into glyph hypotheses.

A number cell becomes a small lattice: its ink is deslanted and split into *units*
(clusters of connected components that overlap horizontally, so a pencil-broken digit
stays one unit), and every edge of the lattice -- one unit, or two neighbouring narrow
units merged -- carries one or more *options*: the unit read as one glyph, or (added on
request by :func:`add_splits`, for units wide enough to be touching digits) cut into
2-5 glyphs along least-ink paths.  The recogniser scores every option and ``ocr.read``
combines them; nothing here decides which cut is right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import cv2
import numpy as np

MAX_DIGITS = 5
SKIP_PRIOR = 0.2  # prior of reading a small unit as nothing at all
SPLIT_PRIOR = 0.5  # prior of cutting a unit into touching digits (times the cut's own)
MIN_DIGIT_RATIO = 0.35  # narrowest width / line height of a digit in a touching group
CUTS_PER_K = 5  # cut hypotheses kept per digit count
MIN_PIECE = 0.15  # narrowest piece a cut may leave, x line height


@dataclass
class Option:
    """One way of reading a lattice edge: its glyph ink images, left to right, and a prior."""

    glyphs: list[np.ndarray]
    prior: float = 1.0


@dataclass
class Edge:
    start: int  # lattice node (unit index) where the edge begins
    end: int  # node after the last unit it covers
    options: list[Option] = field(default_factory=list)
    splits: list[int] = field(default_factory=list)  # digit counts the unit may be cut into
    ratio: float = 0.0  # unit width / line height


def add_splits(edge: Edge, line_height: float) -> list[Option]:
    """Add the options cutting this edge's single unit into touching digits; returns them."""
    if not edge.splits or edge.end - edge.start != 1:
        return []
    img = edge.options[0].glyphs[0]
    new = []
    for cuts, prior in _cuts(img, edge.splits, line_height):
        pieces = _split(img, cuts)
        if pieces:
            new.append(Option(pieces, SPLIT_PRIOR * prior))
    edge.options.extend(new)
    edge.splits = []
    return new


@dataclass
class CellSegments:
    """Segmentation of one cell: blank, or a lattice of edges over ``n_units`` units."""

    blank: bool
    n_units: int = 0
    edges: list[Edge] = field(default_factory=list)
    line_height: float = 0.0  # height of the tallest unit (the written number's height)
    cell_height: float = 0.0


def ink_map(grey: np.ndarray) -> np.ndarray:
    """Ink strength in [0, 1] (0 = paper) from a grey cell image; faint noise is set to 0."""
    g = np.asarray(grey, np.float32)
    if g.ndim == 3:
        g = cv2.cvtColor(g, cv2.COLOR_BGR2GRAY)
    if g.size == 0:
        return np.zeros((0, 0), np.float32)
    dark, bg = (float(v) for v in np.percentile(g, (0.5, 60)))
    mad = float(np.median(np.abs(g - bg)))
    delta = max(45.0, 6.0 * 1.48 * mad)
    if bg - dark < delta:  # no stroke clearly darker than the paper
        return np.zeros_like(g)
    ink = np.clip((bg - g) / max(bg - dark, 1.0), 0, 1)
    ink[g > bg - delta * 0.6] = 0
    return ink


def deslant(ink: np.ndarray) -> np.ndarray:
    """Shear the ink so strokes stand upright (the shear that makes the column profile peakiest)."""
    h, w = ink.shape
    if h < 4 or not ink.any():
        return ink
    pad = int(0.5 * h) + 1
    best, best_score = ink, -1.0
    for shear in (-0.4, -0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5):
        m = np.float32([[1, shear, pad - shear * h / 2], [0, 1, 0]])
        out = cv2.warpAffine(ink, m, (w + 2 * pad, h), flags=cv2.INTER_LINEAR)
        col = out.sum(axis=0)
        score = float((col * col).sum())
        if score > best_score * 1.02 or (shear == 0.0 and score >= best_score * 0.98):
            best, best_score = out, score
    return best


def _edge_lines(mask: np.ndarray) -> np.ndarray:
    """Long straight ink runs in the outer bands of a cell: ruling residue, not writing."""
    H, W = mask.shape
    lines = np.zeros_like(mask)
    if W >= 12:
        horiz = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((1, max(10, int(0.3 * W))), np.uint8))
        band = max(2, int(0.2 * H))
        lines[:band] |= horiz[:band]
        lines[H - band :] |= horiz[H - band :]
    if H >= 12:
        vert = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((max(8, int(0.85 * H)), 1), np.uint8))
        band = max(2, int(0.08 * W))
        lines[:, :band] |= vert[:, :band]
        lines[:, W - band :] |= vert[:, W - band :]
    return lines


def _components(ink: np.ndarray, strong: float = 0.35, lines: bool = True) -> list[tuple[int, int, int, int, int, np.ndarray]]:
    """Connected ink components as (x, y, w, h, area, mask), rulings residue and specks dropped
    (``lines=False``: the long edge lines were already removed)."""
    mask = (ink >= strong).astype(np.uint8)
    if lines:
        mask[_edge_lines(mask) > 0] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    H, W = ink.shape
    comps = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        touches = x <= 2 or y <= 2 or x + w >= W - 2 or y + h >= H - 2
        cy, cx = y + h / 2, x + w / 2
        if h <= max(4, 0.12 * H) and w >= 3 * h and (cy < 0.2 * H or cy > 0.8 * H):
            continue  # a piece of a horizontal ruling along the top or bottom
        if w <= max(4, 0.08 * H) and h >= 0.85 * H and (cx < 0.06 * W or cx > 0.94 * W):
            continue  # a piece of a vertical ruling along the sides
        if touches and area < 0.5 * max(w, h) * 3 and max(w, h) < 0.3 * H:
            continue  # sliver left where a ruling met the edge
        comps.append((x, y, w, h, area, labels[y : y + h, x : x + w] == i))
    if not comps:
        return comps
    big = max(max(c[2], c[3]) for c in comps)
    return [c for c in comps if max(c[2], c[3]) >= max(3, 0.22 * big) or c[4] >= 0.15 * big * big / 4]


def _keep(ink: np.ndarray, comps) -> np.ndarray:
    """The ink of the kept components only (rulings residue and specks removed)."""
    mask = np.zeros(ink.shape, np.uint8)
    for x, y, w, h, _, m in comps:
        mask[y : y + h, x : x + w] |= m.astype(np.uint8)
    return ink * cv2.dilate(mask, np.ones((3, 3), np.uint8))


def _units(comps) -> list[list[int]]:
    """Cluster components that overlap horizontally (broken strokes of one glyph).

    A small mark wholly above or below the glyph it overlaps (a speck, a neighbour's
    stroke reaching into the cell) stays a unit of its own."""
    order = sorted(range(len(comps)), key=lambda i: comps[i][0])
    units: list[list[int]] = []
    spans: list[list[int]] = []  # x0, x1, y0, y1 of each unit
    for i in order:
        x, y, w, h, _, _ = comps[i]
        if spans:
            a, b, top, bottom = spans[-1]
            overlap = min(b, x + w) - max(a, x)
            v_gap = max(top, y) - min(bottom, y + h)  # > 0: one wholly above the other
            beside = v_gap <= 0.15 * (bottom - top) or h >= 0.5 * (bottom - top)
            if overlap > 0.5 * min(w, b - a) and beside:
                units[-1].append(i)
                spans[-1] = [a, max(b, x + w), min(top, y), max(bottom, y + h)]
                continue
        units.append([i])
        spans.append([x, x + w, y, y + h])
    return units


def _render(ink: np.ndarray, comps, idx: list[int]) -> tuple[np.ndarray, int, int]:
    """Ink of the given components only (soft edges kept), cropped; returns (image, x0, y0)."""
    x0 = min(comps[i][0] for i in idx)
    y0 = min(comps[i][1] for i in idx)
    x1 = max(comps[i][0] + comps[i][2] for i in idx)
    y1 = max(comps[i][1] + comps[i][3] for i in idx)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for i in idx:
        x, y, w, h, _, m = comps[i]
        mask[y - y0 : y - y0 + h, x - x0 : x - x0 + w] |= m.astype(np.uint8)
    mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    return ink[y0:y1, x0:x1] * mask, x0, y0


def _path(img: np.ndarray, start: int, reach: int) -> tuple[np.ndarray, float]:
    """The top-to-bottom path through least ink near column ``start`` (one column per row)."""
    h, w = img.shape
    lo, hi = max(1, start - reach), min(w - 1, start + reach + 1)
    band = img[:, lo:hi].astype(np.float64) + 0.02  # a small cost per step keeps paths short
    cost = band[0].copy()
    back = np.zeros(band.shape, np.int8)
    left, right = np.full_like(cost, np.inf), np.full_like(cost, np.inf)
    for y in range(1, h):
        left[1:], right[:-1] = cost[:-1], cost[1:]
        best = np.minimum(np.minimum(left, cost), right)
        back[y] = np.where(best == cost, 0, np.where(best == left, -1, 1))
        cost = best + band[y]
    x = int(np.argmin(cost))
    total = float(cost[x])
    xs = np.empty(h, np.int64)
    for y in range(h - 1, -1, -1):
        xs[y] = x + lo
        x += int(back[y, x]) if y else 0
    return xs, total


def _crossings(img: np.ndarray, xs: np.ndarray) -> int:
    """How many strokes a cut path crosses."""
    on = img[np.arange(len(xs)), xs] > 0.35
    return int(np.count_nonzero(on[1:] & ~on[:-1]) + on[0])


def _cuts(img: np.ndarray, ks: list[int], line_h: float) -> list[tuple[list[np.ndarray], float]]:
    """Ways to cut ``img`` into k glyphs for each k in ``ks``: (cut paths, prior).

    Starting columns are vertical-projection minima and even spacings; from each, a
    least-ink path is traced (so slanted or touching digits are separated along their
    junction).  Combinations leaving every piece a plausible digit width are ranked by
    the ink they cut; the prior falls when a cut crosses more than one stroke."""
    w = img.shape[1]
    prof = img.sum(axis=0).astype(np.float32)
    prof = cv2.GaussianBlur(prof.reshape(1, -1), (0, 0), max(1.0, line_h / 30)).ravel()
    margin = max(2, int(0.12 * line_h))
    minima = [i for i in range(margin, w - margin) if prof[i] <= prof[i - 1] and prof[i] < prof[i + 1]]
    starts = set(sorted(minima, key=lambda i: prof[i])[: max(ks) + 4])
    starts |= {int(round(w * j / k)) for k in ks for j in range(1, k)}
    paths: dict[int, tuple[np.ndarray, float, int]] = {}
    for i in sorted(i for i in starts if margin <= i < w - margin):
        xs, cost = _path(img, i, max(2, int(0.25 * line_h)))
        centre = int(round(xs.mean()))
        if all(abs(centre - c) > 1 for c in paths):
            paths[centre] = (xs, cost, _crossings(img, xs))
    out = []
    for k in ks:
        ranked: list[tuple[float, list[int]]] = []
        for combo in combinations(sorted(paths), k - 1):
            edges = [0, *combo, w]
            widths = [b - a for a, b in zip(edges[:-1], edges[1:], strict=True)]
            if min(widths) >= MIN_PIECE * line_h and max(widths) <= 1.4 * line_h:
                ranked.append((sum(paths[c][1] for c in combo), list(combo)))
        ranked.sort(key=lambda t: t[0])
        for _, combo in ranked[: CUTS_PER_K]:
            prior = 1.0
            for c in combo:
                runs = paths[c][2]
                prior *= 1.0 if runs <= 1 else 0.25 if runs == 2 else 0.05
            out.append(([paths[c][0] for c in combo], prior))
    return out


def _split(img: np.ndarray, cuts: list[np.ndarray]) -> list[np.ndarray]:
    """The pieces of ``img`` between successive cut paths, each cropped to its ink."""
    cols = np.arange(img.shape[1])[None, :]
    bounds = [np.zeros(img.shape[0], np.int64)] + cuts + [np.full(img.shape[0], img.shape[1])]
    pieces = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        piece = img * ((cols >= a[:, None]) & (cols < b[:, None]))
        ys, xs = np.nonzero(piece > 0.05)
        if len(xs) == 0:
            return []
        pieces.append(piece[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])
    return pieces


def segment_number(grey: np.ndarray) -> CellSegments:
    """Segment a number cell into a lattice of glyph options (see module docstring)."""
    ink = ink_map(grey)
    comps = _components(ink) if ink.size else []
    if not comps:
        return CellSegments(blank=True)
    ink = deslant(_keep(ink, comps))
    comps = _components(ink, lines=False)
    if not comps:
        return CellSegments(blank=True)
    units = _units(comps)
    if len(units) > 2 * MAX_DIGITS:  # scribble or texture: keep the largest units
        units = sorted(units, key=lambda u: -sum(comps[i][4] for i in u))[: 2 * MAX_DIGITS]
        units.sort(key=lambda u: min(comps[i][0] for i in u))
    rendered = [_render(ink, comps, u) for u in units]
    heights = [r[0].shape[0] for r in rendered]
    line_h = float(max(heights))
    edges: list[Edge] = []
    for i, (img, _, _) in enumerate(rendered):
        w = img.shape[1]
        ratio = w / line_h
        # k digits of 0.35-1.2 x the line height (cuts are only tried for doubtful units)
        ks = [k for k in range(2, MAX_DIGITS + 1) if MIN_DIGIT_RATIO * k + 0.1 <= ratio <= 1.2 * k + 0.3]
        if img.shape[0] < 0.6 * line_h or _flat(img.shape, ink.shape[0]):
            ks = []  # a dash or a stray stroke, not touching digits
        options = [Option([img], 1.0)]
        if img.shape[0] < 0.6 * line_h and len(rendered) > 1:
            options.append(Option([], SKIP_PRIOR))  # a stray mark or a detached stroke
        edges.append(Edge(i, i + 1, options, splits=ks, ratio=ratio))
        if i + 1 < len(rendered):  # a glyph broken into two side-by-side pieces
            nxt, nx0, _ = rendered[i + 1]
            _, x0, _ = rendered[i]
            gap = nx0 - (x0 + w)
            short = min(img.shape[0], nxt.shape[0]) < 0.75 * line_h
            if short and gap <= 0.15 * line_h and (nx0 + nxt.shape[1] - x0) <= 0.9 * line_h:
                merged, _, _ = _render(ink, comps, units[i] + units[i + 1])
                edges.append(Edge(i, i + 2, [Option([merged], 0.3)]))
    return CellSegments(blank=False, n_units=len(units), edges=edges, line_height=line_h, cell_height=float(ink.shape[0]))


def _flat(shape: tuple[int, ...], cell_height: float) -> bool:
    """Dash-shaped: clearly wider than tall and short beside the cell height."""
    h, w = shape[:2]
    return w >= 1.3 * h and h <= 0.25 * max(cell_height, 1.0)


def shape_mask(glyph: np.ndarray, seg: CellSegments) -> np.ndarray:
    """Which output classes a glyph's shape allows: a dash is flat and thin, a digit is not wide."""
    h, w = glyph.shape
    allowed = np.ones(16, bool)
    flat = _flat(glyph.shape, seg.cell_height)
    allowed[14] = flat
    if flat or w > 2.0 * h:
        allowed[:10] = False
    return allowed


def segment_letter(grey: np.ndarray) -> np.ndarray | None:
    """All the ink of a letter cell as one glyph image, or None for a blank cell."""
    ink = ink_map(grey)
    comps = _components(ink) if ink.size else []
    if not comps:
        return None
    return _render(ink, comps, list(range(len(comps))))[0]
