"""Phone photos of filled sheets, as players take them, with exact ground truth.

    python samples/photo.py --out DIR --count N --seed S [--span tune|wide]
        [--condition clutter|perspective|...|combined] [--cut bottom:24]

A photo is the filled page of :func:`samples.generate.fill_sheet` laid on a table and taken with a
phone.  The page goes through a smooth displacement field first (a curled or bent sheet: rows become
gentle curves, which no homography straightens) and then a homography (position, turn, perspective),
so every page point maps onto the photo by :meth:`PhotoGeometry.forward`; the photo is rendered
through the inverse of that map.  Conditions (each photo has a mild base of all of them, and the
named ones at full strength):

- ``clutter``: other papers (ruled, printed, a gridded form), a phone, wood grain or coloured cloth;
- ``perspective``: each corner of the page moved independently, up to ``span.corner`` of its size;
- ``rotation``: any quarter turn (held sideways, upside down) plus up to ``span.turn`` degrees;
- ``edge_out``: a corner or one edge of the paper outside the frame (the deal table inside);
- ``curl``: the paper curled or bent (a bow across the rows and a random smooth field);
- ``shadow``: the hard-edged shadow of a hand or a phone across part of the table;
- ``glare``: a bright glare spot on the table, saturating at its centre;
- ``dim``: dim, warm light falling off across the page;
- ``camera``: few megapixels, low JPEG quality, motion blur and noise.

``combined`` draws each of them with probability one half (at least three).  Two spans: ``tune``
(narrower; the geometry was tuned on it) and ``wide`` (the held-out range, wider than the issue's
conditions).  ``cut=("bottom", k)`` (or ``"top"``) places the frame's edge on the ruling between deal
k and k + 1 (between k - 1 and k for the top), so part of the table lies outside the photo.

The truth is :mod:`samples.generate`'s, with every quad mapped through the curled map, plus
``photo`` (the conditions and drawn parameters), ``visible_deals`` (every cell of the row, its
printed number included, inside the frame), ``outside_deals``, ``glare_deals`` (rows with a
cell the glare washes out: more than GLARE_COVER of it where the ink and paper come out within
GLARE_CONTRAST grey levels of each other where the paper is burnt out; the ink of the pen
that wrote the deal, samples.photo.deal_ink) and ``glare_touched_deals`` (GLARE_TOUCH of a cell).  ``page_to_image`` is None: the map is not a homography.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np

from samples.fill import INKS
from samples.scan import apply_h

CONDITIONS = ("clutter", "perspective", "rotation", "edge_out", "curl", "shadow", "glare", "dim",
              "camera")
GLARE_COVER = 0.3  # a cell is washed out when this share of it ...
GLARE_CONTRAST = 30  # ... keeps less than this many grey levels between ink and paper ...
PAPER_LEVEL = 235.0  # ... (paper before the light and the glare; the ink's level: ink_level) ...
BURNT = 254.5  # ... where the glare burns the paper out (white)
GLARE_TOUCH = 0.05  # a cell this much washed out may be read or named missing alike
FIELD_STEP = 8  # page pixels between the samples of the displacement field
MIN_PX_MM = 3.0  # the page is photographed at no less than this many pixels per millimetre


@dataclass(frozen=True)
class PhotoSpan:
    """How strong each condition may be (at full strength; the base of every photo is milder)."""

    corner: float  # perspective: largest corner shift, share of the page's mean side
    turn: float  # degrees of turn besides the quarter turns
    curl: float  # largest bow of a row, share of the page's height
    mp: tuple[float, float]  # megapixels of the photo
    jpeg: tuple[int, int]  # JPEG quality
    blur: float  # longest motion blur, pixels
    noise: float  # largest sensor noise, grey levels (sigma)
    shadow: tuple[float, float]  # light left in the shadow (share)
    glare: tuple[float, float]  # glare peak, grey levels added
    dim: tuple[float, float]  # overall light (share of full)
    falloff: float  # light lost across the page (share)


SPANS = {
    "tune": PhotoSpan(corner=0.09, turn=6.0, curl=0.012, mp=(1.3, 2.5), jpeg=(35, 70), blur=3.5,
                      noise=5.0, shadow=(0.4, 0.7), glare=(80, 220), dim=(0.45, 0.8), falloff=0.4),
    "wide": PhotoSpan(corner=0.15, turn=10.0, curl=0.025, mp=(1.0, 2.5), jpeg=(25, 70), blur=6.0,
                      noise=9.0, shadow=(0.25, 0.75), glare=(60, 300), dim=(0.3, 0.8), falloff=0.55),
}
BASE = PhotoSpan(corner=0.03, turn=3.0, curl=0.003, mp=(1.3, 2.5), jpeg=(50, 70), blur=1.5,
                 noise=3.0, shadow=(1.0, 1.0), glare=(0, 0), dim=(0.85, 1.0), falloff=0.15)


@dataclass
class PhotoGeometry:
    """Page pixel -> photo pixel: a displacement field on the page, then a homography."""

    matrix: np.ndarray  # 3x3, curled page pixel -> photo pixel
    dx: np.ndarray  # displacement field (page pixels), sampled every FIELD_STEP page pixels
    dy: np.ndarray

    def displacement(self, pts: np.ndarray) -> np.ndarray:
        """The field's displacement at page points ``pts`` (N x 2), bilinear between samples."""
        pts = np.asarray(pts, np.float32).reshape(-1, 2) / FIELD_STEP
        n = len(pts)
        width = 1024  # remap's maps must stay under 32767 a side
        padded = np.zeros((-(-n // width) * width, 2), np.float32)
        padded[:n] = pts
        mx = np.ascontiguousarray(padded[:, 0].reshape(-1, width))
        my = np.ascontiguousarray(padded[:, 1].reshape(-1, width))
        ux = cv2.remap(self.dx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).ravel()[:n]
        uy = cv2.remap(self.dy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).ravel()[:n]
        return np.column_stack([ux, uy]).astype(np.float64)

    def forward(self, pts) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        return apply_h(self.matrix, pts + self.displacement(pts))

    def inverse_grid(self, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Page coordinates of the photo points (xs, ys) (equal-shaped arrays): the homography's
        inverse, then the displacement undone by fixed-point steps (it is smooth and small)."""
        shape = xs.shape
        u = apply_h(np.linalg.inv(self.matrix), np.column_stack([xs.ravel(), ys.ravel()]))
        p = u.copy()
        for _ in range(5):
            p = u - self.displacement(p)
        return p[:, 0].reshape(shape), p[:, 1].reshape(shape)


# ------------------------------------------------------------------------------- drawing
def _lerp(rng: random.Random, lo_hi: tuple[float, float], strength: float, base: tuple[float, float]):
    """A draw between the base range and the full range, by ``strength`` (0 base, 1 full)."""
    lo = base[0] + strength * (lo_hi[0] - base[0])
    hi = base[1] + strength * (lo_hi[1] - base[1])
    return rng.uniform(min(lo, hi), max(lo, hi))


def _noise_field(np_rng: np.random.Generator, w: int, h: int, cells: tuple[int, int]) -> np.ndarray:
    """A smooth random field in about [-1, 1] of size (h, w) from a cells[1] x cells[0] grid."""
    small = np_rng.normal(0, 1, size=(cells[1] + 3, cells[0] + 3)).astype(np.float32)
    big = cv2.resize(small, (w + 2 * w // cells[0], h + 2 * h // cells[1]), interpolation=cv2.INTER_CUBIC)
    oy, ox = h // cells[1], w // cells[0]
    out = big[oy:oy + h, ox:ox + w]
    return out / max(1e-6, float(np.abs(out).max()))


def _surface(w: int, h: int, rng: random.Random, np_rng: np.random.Generator, busy: bool) -> np.ndarray:
    """A table top (float32 BGR, 0-255): wood grain, coloured cloth, or a pale laminate."""
    kind = rng.choices(("wood", "cloth", "pale"), weights=(0.5, 0.35, 0.15 if not busy else 0.05))[0]
    sw, sh = max(8, w // 2), max(8, h // 2)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    if kind == "wood":
        a = rng.uniform(0, math.pi)
        across = xx * math.cos(a) + yy * math.sin(a)
        along = -xx * math.sin(a) + yy * math.cos(a)
        warp = _noise_field(np_rng, sw, sh, (3, 3)) * rng.uniform(10, 40)
        period = rng.uniform(4, 18)
        grain = np.sin(2 * math.pi * (across + warp) / period) + 0.3 * np.sin(
            2 * math.pi * (across * 2.3 + 0.02 * along + warp) / period)
        base = np.array([rng.uniform(30, 80), rng.uniform(60, 110), rng.uniform(100, 170)], np.float32)
        img = base * (1 + rng.uniform(0.08, 0.25 if busy else 0.15) * grain[..., None])
    elif kind == "cloth":
        hue = rng.uniform(0, 180)
        col = cv2.cvtColor(np.uint8([[[hue, rng.uniform(90, 230), rng.uniform(70, 200)]]]),
                           cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        p = rng.uniform(2.0, 4.5)
        weave = np.sin(2 * math.pi * xx / p) * np.sin(2 * math.pi * yy / p)
        folds = _noise_field(np_rng, sw, sh, (4, 3))
        img = col * (1 + 0.08 * weave[..., None] + 0.18 * folds[..., None])
    else:
        tone = rng.uniform(200, 240)
        img = np.full((sh, sw, 3), tone, np.float32) * (1 + 0.03 * _noise_field(np_rng, sw, sh, (5, 4))[..., None])
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(img, 0, 255)


def _other_paper(rng: random.Random, np_rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Another paper lying around (float32 BGR): a ruled notebook page, printed text, or a gridded form."""
    tone = rng.uniform(215, 250)
    img = np.full((h, w, 3), tone, np.uint8)
    kind = rng.choice(("ruled", "text", "grid"))
    if kind == "ruled":
        step = max(6, int(h / rng.uniform(18, 30)))
        for y in range(step * 2, h, step):
            cv2.line(img, (0, y), (w, y), (200, 160, 140), 1)
        cv2.line(img, (w // 8, 0), (w // 8, h), (120, 120, 220), 1)
    elif kind == "text":
        y = int(h * 0.08)
        size = max(0.25, h / 900)
        while y < h * 0.92:
            words = " ".join(rng.choice(("the", "club", "bridge", "match", "12", "rubber", "Total",
                                         "pairs", "Round", "7", "N/S", "results")) for _ in range(8))
            cv2.putText(img, words, (int(w * 0.06), y), cv2.FONT_HERSHEY_SIMPLEX, size, (40, 40, 40), 1,
                        cv2.LINE_AA)
            y += max(8, int(h / rng.uniform(20, 35)))
    else:
        cols, rows = rng.randint(3, 7), rng.randint(6, 20)
        x0, y0, x1, y1 = int(0.1 * w), int(0.12 * h), int(0.9 * w), int(0.9 * h)
        for i in range(cols + 1):
            x = x0 + (x1 - x0) * i // cols
            cv2.line(img, (x, y0), (x, y1), (50, 50, 50), 1)
        for j in range(rows + 1):
            y = y0 + (y1 - y0) * j // rows
            cv2.line(img, (x0, y), (x1, y), (50, 50, 50), 1)
    return img.astype(np.float32)


def _paste_quad(canvas: np.ndarray, img: np.ndarray, quad: np.ndarray) -> None:
    """Warp ``img`` (float32 BGR) onto ``quad`` (4x2, tl tr br bl) of ``canvas`` in place."""
    h, w = img.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpPerspective(img, m, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones((h, w), np.float32), m, size, flags=cv2.INTER_LINEAR)
    canvas *= 1 - mask[..., None]
    canvas += warped * mask[..., None]


def _phone(canvas: np.ndarray, rng: random.Random, centre, size: float, angle: float) -> None:
    """A phone lying on the table: a dark rounded slab with a faint screen reflection."""
    w, h = 0.48 * size, size
    rect = ((float(centre[0]), float(centre[1])), (w, h), angle)
    pts = cv2.boxPoints(rect).astype(np.int32)
    body = rng.uniform(15, 60)
    cv2.fillConvexPoly(canvas, pts, (body, body, body * 1.05), cv2.LINE_AA)
    inner = cv2.boxPoints(((float(centre[0]), float(centre[1])), (0.9 * w, 0.9 * h), angle)).astype(np.int32)
    cv2.fillConvexPoly(canvas, inner, (body + 15, body + 12, body + 10), cv2.LINE_AA)


def _rot(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _convex_ok(q: np.ndarray, min_angle: float = 50.0) -> bool:
    """Whether quad ``q`` is convex with every corner angle at least ``min_angle`` degrees."""
    cross = []
    for i in range(4):
        a, b, c = q[i - 1], q[i], q[(i + 1) % 4]
        u, v = a - b, c - b
        ang = math.degrees(math.acos(np.clip(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9),
                                             -1, 1)))
        if ang < min_angle:
            return False
        e, f = b - a, c - b
        cross.append(e[0] * f[1] - e[1] * f[0])
    return all(c > 0 for c in cross) or all(c < 0 for c in cross)


# ------------------------------------------------------------------------------- the photo
@dataclass
class Photo:
    image: np.ndarray  # BGR uint8
    geometry: PhotoGeometry
    jpeg_quality: int
    params: dict  # the conditions and every drawn parameter
    glare: np.ndarray | None  # grey levels the glare added, per photo pixel (None: no glare)
    rotation: int
    skew_deg: float
    light: np.ndarray | None = None  # the light's gain (mean over channels), per photo pixel


def _displacement(rng: random.Random, np_rng: np.random.Generator, wp: int, hp: int,
                  amount: float) -> tuple[np.ndarray, np.ndarray, dict]:
    """A curled or bent page: rows bowed (more on one side than the other), the edges foreshortened,
    plus a random smooth field; ``amount`` is the largest bow, share of the page's height."""
    gw, gh = wp // FIELD_STEP + 2, hp // FIELD_STEP + 2
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32) * FIELD_STEP
    u, v = 2 * xx / wp - 1, 2 * yy / hp - 1
    bow = amount * hp * rng.uniform(0.5, 1.0) * rng.choice((-1, 1))
    tilt = rng.uniform(-1.0, 1.0)
    along_rows = rng.random() < 0.75  # a curl across the rows (they bow); else down the columns
    if along_rows:
        dy = bow * (1 - u ** 2) * (1 + tilt * v) / (1 + abs(tilt))
        dx = -0.25 * abs(bow) * u ** 3
    else:
        dx = bow * (1 - v ** 2) * (1 + tilt * u) / (1 + abs(tilt)) * (wp / hp)
        dy = -0.25 * abs(bow) * v ** 3
    wobble = amount * hp * rng.uniform(0.05, 0.25)
    dx = dx + wobble * _noise_field(np_rng, gw, gh, (3, 4))
    dy = dy + wobble * _noise_field(np_rng, gw, gh, (3, 4))
    return dx.astype(np.float32), dy.astype(np.float32), {
        "bow_px": round(float(bow), 1), "across_rows": along_rows, "wobble_px": round(float(wobble), 1)}


def photograph(page: np.ndarray, page_dpi: float, table_box, row_bounds: dict[int, tuple[float, float]],
               rng: random.Random, np_rng: np.random.Generator, conditions: set[str],
               span: PhotoSpan, cut: tuple[str, int] | None = None) -> Photo:
    """A phone photo of ``page`` (BGR, rendered at ``page_dpi``) under ``conditions``.

    ``table_box`` (x0, y0, x1, y1) is the deal table on the page (kept inside the frame unless
    ``cut``); ``row_bounds`` maps each deal to its (top, bottom) on the page (for ``cut``)."""
    hp, wp = page.shape[:2]
    full = {c: (c in conditions) for c in CONDITIONS}
    sp = {c: (span if full[c] else BASE) for c in CONDITIONS}
    params: dict = {"conditions": sorted(conditions)}

    # camera frame
    # few megapixels belong to the camera condition; the others are taken at BASE's
    mp = rng.uniform(span.mp[0], span.mp[0] + 0.5) if full["camera"] else rng.uniform(*BASE.mp)
    turn = rng.choice((0, 90, 180, 270)) if full["rotation"] else (180 if rng.random() < 0.05 else 0)
    skew = rng.uniform(-sp["rotation"].turn, sp["rotation"].turn)
    aspect = 4 / 3 if rng.random() < 0.75 else 16 / 9
    across = rng.random() < 0.1  # the frame held across the page: the page is small in it
    landscape = (turn in (90, 270)) != across
    fw = math.sqrt(mp * 1e6 * (aspect if landscape else 1 / aspect))
    fh = mp * 1e6 / fw
    fw, fh = int(round(fw)), int(round(fh))
    params.update(mp=round(fw * fh / 1e6, 3), size=[fw, fh], turn=turn, skew=round(skew, 2))

    # curl, then the page's place in the frame: a turned, perspective-jittered quad
    curl = rng.uniform(0.4, 1.0) * span.curl if full["curl"] else rng.uniform(0, BASE.curl)
    dx, dy, curl_params = _displacement(rng, np_rng, wp, hp, curl)
    params["curl"] = {"amount": round(curl, 4), **curl_params}
    corner = sp["perspective"].corner
    mean_side = (wp + hp) / 2
    centred = np.array([[-wp / 2, -hp / 2], [wp / 2, -hp / 2], [wp / 2, hp / 2], [-wp / 2, hp / 2]])
    for _ in range(200):
        shift = np.array([[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(4)]) * corner * mean_side
        if full["perspective"]:  # a keystone besides: the far edge narrower
            k = rng.uniform(0, corner) * wp
            shift += np.array([[k, 0], [-k, 0], [0, 0], [0, 0]]) if rng.random() < 0.5 else 0
        quad = (centred + shift) @ _rot(turn + skew).T
        if _convex_ok(quad):
            break
    src = np.float32([[0, 0], [wp, 0], [wp, hp], [0, hp]])
    base_m = cv2.getPerspectiveTransform(src, quad.astype(np.float32)).astype(np.float64)
    geom0 = PhotoGeometry(base_m, dx, dy)
    outline = geom0.forward(_outline(wp, hp))
    tx0, ty0, tx1, ty1 = table_box
    table_pts = geom0.forward(_outline(tx1 - tx0, ty1 - ty0) + [tx0, ty0])
    lo, hi = outline.min(axis=0), outline.max(axis=0)
    fill = rng.uniform(0.6, 0.85) if full["clutter"] else rng.uniform(0.72, 0.95)
    if across:
        fill = rng.uniform(0.92, 0.98)
    edge = None
    if full["edge_out"]:
        fill = rng.uniform(0.95, 1.2)
        edge = rng.choice(("corner", "edge"))
    fit = min(fw / (hi - lo)[0], fh / (hi - lo)[1])
    # a person holds the phone close enough to read the writing: at least MIN_PX_MM on the page
    # (as long as the whole page still fits the frame)
    scale = max(fit * fill, min(MIN_PX_MM * 25.4 / page_dpi, 0.98 * fit))
    centre = (lo + hi) / 2

    def placed(dxy) -> np.ndarray:
        return np.array([[scale, 0, fw / 2 + dxy[0] - scale * centre[0]],
                         [0, scale, fh / 2 + dxy[1] - scale * centre[1]], [0, 0, 1]]) @ base_m

    slack = np.maximum(0.0, np.array([fw, fh]) - scale * (hi - lo)) / 2
    offset = np.array([rng.uniform(-s, s) for s in slack]) * 0.9
    m = placed(offset)
    if cut is not None:
        m = _cut(m, geom0, dx, dy, table_box, row_bounds, cut, (fw, fh))
        params["cut"] = list(cut)
    elif edge is not None:
        for _ in range(300):
            off = np.array([rng.uniform(-0.25, 0.25) * fw, rng.uniform(-0.25, 0.25) * fh])
            cand = placed(off)
            page_pts = apply_h(cand @ np.linalg.inv(base_m), outline)
            tpts = apply_h(cand @ np.linalg.inv(base_m), table_pts)
            inside = ((tpts >= 0.01 * np.array([fw, fh])) & (tpts <= 0.99 * np.array([fw, fh]))).all()
            corners = apply_h(cand @ np.linalg.inv(base_m), geom0.forward(src))
            out = ~((corners >= 0) & (corners <= [fw, fh])).all(axis=1)
            edge_out = ((page_pts < 0) | (page_pts > [fw, fh])).any(axis=1).mean()
            if inside and ((edge == "corner" and out.sum() == 1) or (edge == "edge" and out.sum() == 2)) \
                    and edge_out > 0:
                m = cand
                break
        else:  # no place found at this size: shrink until the table fits
            scale *= 0.85
            m = placed(np.zeros(2))
        params["edge_out"] = edge
    geom = PhotoGeometry(m, dx, dy)
    params["corner_shift"] = round(float(corner), 3)

    # the surface, clutter on it, then the sheet
    canvas = _surface(fw, fh, rng, np_rng, busy=full["clutter"])
    page_size = scale * mean_side
    if full["clutter"]:
        _clutter(canvas, rng, np_rng, geom.forward(_outline(wp, hp)), page_size)
    photo_pts = geom.forward(_outline(wp, hp))
    s_out = math.sqrt(max(1.0, cv2.contourArea(photo_pts.astype(np.float32))) / (wp * hp))
    src_img, sx, sy = page, 1.0, 1.0
    if s_out < 0.85:  # pre-shrink the page: rulings one pixel wide must not alias away
        size = (round(wp * s_out * 1.2), round(hp * s_out * 1.2))
        src_img = cv2.resize(page, size, interpolation=cv2.INTER_AREA)
        sx, sy = size[0] / wp, size[1] / hp
    step = 4
    gy, gx = np.mgrid[0:fh + step:step, 0:fw + step:step].astype(np.float64)
    px, py = geom.inverse_grid(gx, gy)
    # photo pixel p takes the coarse grid's value at p / step, bilinear
    to_grid = np.float32([[1.0 / step, 0, 0], [0, 1.0 / step, 0]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    # (a resize puts page pixel x at x * s + (s - 1) / 2: pixel centres stay pixel centres)
    mapx = cv2.warpAffine((px * sx + (sx - 1) / 2).astype(np.float32), to_grid, (fw, fh), flags=flags,
                          borderMode=cv2.BORDER_REPLICATE)
    mapy = cv2.warpAffine((py * sy + (sy - 1) / 2).astype(np.float32), to_grid, (fw, fh), flags=flags,
                          borderMode=cv2.BORDER_REPLICATE)
    sheet = cv2.remap(src_img.astype(np.float32), mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                      borderValue=(0, 0, 0))
    mask = cv2.remap(np.ones(src_img.shape[:2], np.float32), mapx, mapy, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    paper_tone = rng.uniform(0.9, 1.0)
    # a faint drop shadow of the sheet on the table
    drop = cv2.GaussianBlur(mask, (0, 0), max(1.0, 0.004 * page_size))
    canvas *= (1 - 0.35 * drop)[..., None]
    img = canvas * (1 - mask[..., None]) + sheet * paper_tone * mask[..., None]

    # light: warm dim fall-off, a hard shadow; then glare, blur, noise
    img, light = _light(img, rng, np_rng, full, span, photo_pts, geom, table_box, params)
    glare = None
    if full["glare"]:
        img, glare = _glare(img, rng, geom, table_box, span, params)
    length = rng.uniform(0.5 * span.blur, span.blur) if full["camera"] else rng.uniform(0, BASE.blur)
    if length >= 1.0:
        img = _motion_blur(img, length, rng.uniform(0, 180))
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 0.9))
    sigma = rng.uniform(0.5 * span.noise, span.noise) if full["camera"] else rng.uniform(1.0, BASE.noise)
    noise = np_rng.normal(0, sigma, size=img.shape[:2]).astype(np.float32)[..., None]
    noise = noise + np_rng.normal(0, 0.4 * sigma, size=img.shape).astype(np.float32)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    quality = rng.randint(span.jpeg[0], span.jpeg[0] + 20) if full["camera"] else rng.randint(*BASE.jpeg)
    params.update(blur_px=round(length, 2), noise=round(sigma, 2), jpeg=quality)
    return Photo(img, geom, quality, params, glare, turn, skew,
                 light.mean(axis=2).astype(np.float32) if glare is not None else None)


def _outline(w: float, h: float, n: int = 24) -> np.ndarray:
    """Points along the border of a w x h box (curled, its sides are curves)."""
    t = np.linspace(0, 1, n, endpoint=False)
    return np.concatenate([np.column_stack([t * w, 0 * t]), np.column_stack([w + 0 * t, t * h]),
                           np.column_stack([(1 - t) * w, h + 0 * t]), np.column_stack([0 * t, (1 - t) * h])])


def _cut(m: np.ndarray, geom0: PhotoGeometry, dx, dy, table_box, row_bounds, cut, frame) -> np.ndarray:
    """``m`` moved so that the frame's edge runs along the ruling where the table is cut."""
    side, k = cut
    fw, fh = frame
    geom = PhotoGeometry(m, dx, dy)
    x0, _, x1, _ = table_box
    y = row_bounds[k][1] if side == "bottom" else row_bounds[k][0]
    line = geom.forward(np.column_stack([np.linspace(x0, x1, 40), np.full(40, y)]))
    inward = geom.forward([[(x0 + x1) / 2, y + (-50 if side == "bottom" else 50)]])[0]
    mid = line.mean(axis=0)
    d = mid - inward  # the direction out of the kept part
    if abs(d[0]) > abs(d[1]):  # the frame's left or right edge
        t = (fw - 1.5 - line[:, 0].max()) if d[0] > 0 else (1.5 - line[:, 0].min())
        shift = (t, 0.0)
    else:
        t = (fh - 1.5 - line[:, 1].max()) if d[1] > 0 else (1.5 - line[:, 1].min())
        shift = (0.0, t)
    return np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]]) @ m


def _clutter(canvas: np.ndarray, rng: random.Random, np_rng: np.random.Generator, sheet: np.ndarray,
             page_size: float) -> None:
    """Other papers and a phone around the sheet (drawn first: the sheet lies on top)."""
    fh, fw = canvas.shape[:2]
    lo, hi = sheet.min(axis=0), sheet.max(axis=0)
    for _ in range(rng.randint(1, 3)):
        w = page_size * rng.uniform(0.35, 0.8)
        h = w * rng.uniform(0.6, 1.5)
        paper = _other_paper(rng, np_rng, max(20, int(w)), max(20, int(h)))
        # beside the sheet: left, right, above or below it, partly under it at most
        side = rng.choice(("l", "r", "t", "b"))
        cx = {"l": lo[0] - 0.35 * w, "r": hi[0] + 0.35 * w}.get(side, rng.uniform(lo[0], hi[0]))
        cy = {"t": lo[1] - 0.35 * h, "b": hi[1] + 0.35 * h}.get(side, rng.uniform(lo[1], hi[1]))
        corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        quad = corners @ _rot(rng.uniform(-40, 40)).T + [cx, cy]
        _paste_quad(canvas, paper, quad)
    if rng.random() < 0.8:
        size = 0.5 * page_size
        side = rng.choice(("l", "r", "t", "b"))
        cx = {"l": lo[0] - 0.3 * size, "r": hi[0] + 0.3 * size}.get(side, rng.uniform(lo[0], hi[0]))
        cy = {"t": lo[1] - 0.3 * size, "b": hi[1] + 0.3 * size}.get(side, rng.uniform(lo[1], hi[1]))
        _phone(canvas, rng, (cx, cy), size, rng.uniform(0, 180))
    del fh, fw


def _light(img, rng, np_rng, full, span, sheet_pts, geom, table_box, params):
    """Dim, warm light falling off across the frame, and a hard-edged shadow over the table."""
    fh, fw = img.shape[:2]
    s = 8
    yy, xx = np.mgrid[0:fh:s, 0:fw:s].astype(np.float32)
    dim_span = span if full["dim"] else BASE
    level = rng.uniform(*dim_span.dim)
    a = rng.uniform(0, 2 * math.pi)
    ramp = ((xx / fw - 0.5) * math.cos(a) + (yy / fh - 0.5) * math.sin(a)) / 0.7 + 0.5  # 0..1 across
    fall = rng.uniform(0.5, 1.0) * dim_span.falloff
    if full["dim"] and rng.random() < 0.5:  # a lamp to one side: light falling off with distance
        lx, ly = rng.uniform(-0.3, 1.3) * fw, rng.uniform(-0.3, 1.3) * fh
        dist = np.sqrt((xx - lx) ** 2 + (yy - ly) ** 2) / math.hypot(fw, fh)
        light = level * (1 - fall * np.clip(dist / max(1e-3, dist.max()), 0, 1))
    else:
        light = level * (1 - fall * np.clip(ramp, 0, 1))
    warm = np.array([rng.uniform(0.55, 0.8), rng.uniform(0.8, 0.92), 1.0], np.float32) if full["dim"] \
        else np.array([rng.uniform(0.9, 1.0), rng.uniform(0.95, 1.0), rng.uniform(0.97, 1.03)], np.float32)
    gain = light[..., None] * warm
    gain = cv2.resize(gain, (fw, fh), interpolation=cv2.INTER_LINEAR)
    params["light"] = {"level": round(level, 3), "falloff": round(fall, 3), "warm": [round(float(w), 3) for w in warm]}
    if full["shadow"]:
        mask = _shadow_mask(rng, geom, table_box, (fw, fh))
        depth = rng.uniform(*span.shadow)
        edge = rng.uniform(0.5, 2.5)
        mask = cv2.GaussianBlur(mask, (0, 0), edge)
        tint = np.array([1.0, 0.97, 0.92], np.float32)  # the shade is lit by the (bluer) sky, not the lamp
        gain = gain * (1 - mask[..., None] * (1 - depth * tint))
        params["shadow"] = {"light_left": round(depth, 3), "edge_px": round(edge, 2)}
    return img * gain, gain


def _shadow_mask(rng: random.Random, geom: PhotoGeometry, table_box, frame) -> np.ndarray:
    """1 inside the shadow of a hand or a phone that falls across part of the table."""
    fw, fh = frame
    x0, y0, x1, y1 = table_box
    pts = geom.forward([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    mask = np.zeros((fh, fw), np.float32)
    # the shadow reaches into the table from one side
    t = rng.uniform(0.2, 0.8)
    a, b = rng.choice(((0, 1), (1, 2), (2, 3), (3, 0)))
    start = pts[a] + t * (pts[b] - pts[a])
    centre = pts.mean(axis=0)
    inward = centre - start
    reach = rng.uniform(0.25, 0.6)
    tip = start + reach * inward
    size = float(np.linalg.norm(pts[1] - pts[0])) * rng.uniform(0.35, 0.7)
    ang = math.degrees(math.atan2(inward[1], inward[0]))
    if rng.random() < 0.5:  # a phone held over the sheet
        rect = ((float(tip[0] - 0.5 * inward[0] * reach), float(tip[1] - 0.5 * inward[1] * reach)),
                (float(np.linalg.norm(inward) * reach * 1.6), size * 0.6), ang)
        cv2.fillConvexPoly(mask, cv2.boxPoints(rect).astype(np.int32), 1.0)
    else:  # a hand: the arm from outside, a palm, fingers towards the table's middle
        back = start - 0.6 * inward
        cv2.line(mask, tuple(int(v) for v in back), tuple(int(v) for v in start), 1.0, max(2, int(size * 0.5)))
        cv2.ellipse(mask, (int(start[0]), int(start[1])), (int(size * 0.45), int(size * 0.32)), ang, 0, 360, 1.0, -1)
        nrm = np.array([-inward[1], inward[0]]) / (np.linalg.norm(inward) + 1e-9)
        for k in range(4):
            base = start + (k - 1.5) * 0.18 * size * nrm
            end = base + inward / (np.linalg.norm(inward) + 1e-9) * size * rng.uniform(0.5, 0.8)
            cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in end), 1.0, max(2, int(size * 0.1)))
    return mask


def _glare(img, rng, geom: PhotoGeometry, table_box, span: PhotoSpan, params):
    """A glare spot: light added over part of the table, saturating at its centre."""
    fh, fw = img.shape[:2]
    x0, y0, x1, y1 = table_box
    c = geom.forward([[rng.uniform(x0, x1), rng.uniform(y0 + 0.1 * (y1 - y0), y1 - 0.1 * (y1 - y0))]])[0]
    side = float(np.linalg.norm(geom.forward([[x0, y0]])[0] - geom.forward([[x1, y0]])[0]))
    rx, ry = side * rng.uniform(0.06, 0.18), side * rng.uniform(0.05, 0.14)
    ang = math.radians(rng.uniform(0, 180))
    peak = rng.uniform(*span.glare)
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    u = ((xx - c[0]) * math.cos(ang) + (yy - c[1]) * math.sin(ang)) / rx
    v = (-(xx - c[0]) * math.sin(ang) + (yy - c[1]) * math.cos(ang)) / ry
    amount = (peak * np.exp(-(u * u + v * v) ** 1.5)).astype(np.float32)  # a flat-topped spot
    params["glare"] = {"centre": [round(float(c[0]), 1), round(float(c[1]), 1)],
                       "radii": [round(rx, 1), round(ry, 1)], "peak": round(peak, 1)}
    return img + amount[..., None] * np.array([0.97, 0.99, 1.0], np.float32), amount


def _motion_blur(img: np.ndarray, length: float, angle: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    d = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))]) * length / 2
    cv2.line(k, (int(round(c - d[0])), int(round(c - d[1]))), (int(round(c + d[0])), int(round(c + d[1]))), 1.0, 1,
             cv2.LINE_AA)
    return cv2.filter2D(img, -1, k / k.sum())


# ------------------------------------------------------------------------------- sheets
def render_photo(seed: int, *, conditions: tuple[str, ...] | str = "combined", span: str = "tune",
                 cut: tuple[str, int] | None = None, **options) -> tuple[np.ndarray, dict]:
    """One filled sheet photographed under ``conditions`` (names from CONDITIONS, or "combined"):
    the photo (BGR) and its truth.  ``options`` go to :func:`samples.generate.fill_sheet`."""
    from samples.generate import fill_sheet

    if span not in SPANS:
        raise ValueError(f"unknown span {span!r}; choose one of {', '.join(SPANS)}")
    filled = fill_sheet(seed, scan="photo", **options)
    rng = random.Random(seed * 104729 + 7)  # the photo's own stream: the sheet stays the same
    np_rng = np.random.default_rng(seed * 104729 + 7)
    if isinstance(conditions, str):
        conditions = (conditions,)
    chosen = set(conditions)
    if "combined" in chosen:
        chosen.discard("combined")
        while len(chosen) < 3:
            chosen |= {c for c in CONDITIONS if rng.random() < 0.5}
    bad = chosen - set(CONDITIONS)
    if bad:
        raise ValueError(f"unknown condition(s) {', '.join(sorted(bad))}; choose from "
                         f"{', '.join(CONDITIONS)} or combined")
    geom = filled.geom
    rows = {int(r): (geom.row_y[i + 1], geom.row_y[i + 2]) for i, r in enumerate(geom.rows) if r.isdigit()}
    ph = photograph(filled.page, filled.form_dpi, geom.table_box, rows, rng, np_rng, chosen, SPANS[span], cut)
    fw, fh = ph.image.shape[1], ph.image.shape[0]

    def quad(box) -> np.ndarray:
        x0, y0, x1, y1 = box
        return ph.geometry.forward([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])

    truth = filled.truth
    truth["scan"] = "phone"
    cells = [{"row": c["row"], "key": c["key"], "quad": _rounded(quad(c["box"])), "text": c["text"],
              "hand": c["hand"]} for c in filled.cells]
    W, H = geom.size
    visible, outside, glared, touched = [], [], [], []
    for deal in range(1, 31):
        boxes = [c["box"] for c in filled.cells if c["row"] == str(deal)] + [geom.row_labels[str(deal)]]
        inside = all(_inside(ph.geometry.forward(_outline(b[2] - b[0], b[3] - b[1], 4) + [b[0], b[1]]), fw, fh)
                     for b in boxes)
        (visible if inside else outside).append(deal)
        if ph.glare is not None and inside:
            share = washed_out(ph.glare, ph.light, [quad(b) for b in boxes[:-1]], deal_ink(truth, deal))
            if share >= GLARE_COVER:
                glared.append(deal)
            if share >= GLARE_TOUCH:
                touched.append(deal)
    truth.update({
        "cells": cells,
        "page_quad": _rounded(quad((0, 0, W, H))),
        "rotation": ph.rotation,
        "skew_deg": round(float(ph.skew_deg), 3),
        "image_size": [fw, fh],
        "dpi": round(float(filled.form_dpi * math.sqrt(abs(np.linalg.det(ph.geometry.matrix[:2, :2])))), 2),
        "form_dpi": filled.form_dpi,
        "page_to_image": None,
        "jpeg_quality": ph.jpeg_quality,
        "photo": {"span": span, **ph.params},
        "visible_deals": visible,
        "outside_deals": outside,
        "glare_deals": glared,
        "glare_touched_deals": touched,
    })
    return ph.image, truth


def deal_ink(truth: dict, deal: int) -> float:
    """The ink level of the pen that wrote ``deal`` (samples.fill: the second pen from switch_deal)."""
    inks, switch = truth["inks"], truth.get("switch_deal")
    return ink_level(inks[-1] if switch and deal >= switch else inks[0])


def ink_level(ink: str) -> float:
    """The lightest grey ``ink`` leaves on paper (samples.fill.INKS: its lightest colour at its
    least opacity): a cell is gone when its faintest writing is, so pencil counts as pencil."""
    _, (b, g, r), opacity, _ = INKS[ink]
    return PAPER_LEVEL * (1 - opacity) + (0.114 * b + 0.587 * g + 0.299 * r) * opacity


def washed_out(glare: np.ndarray, gain: np.ndarray, quads: list[np.ndarray], ink: float) -> float:
    """The largest share of any of these cells (quads in photo pixels) where the glare leaves ink of
    grey ``ink`` (before the light; ink_level) within GLARE_CONTRAST grey levels of the paper
    (PAPER_LEVEL) where the paper is burnt out (BURNT): the writing gone, by the glare and not by dim
    light alone.  ``glare``: grey levels the glare adds, ``gain``: the light's
    gain, per photo pixel (before blur and noise); samples/photo3d.py's truth uses the same rule."""
    worst = 0.0
    for q in quads:
        q = np.asarray(q, np.float64)
        x0, y0 = np.floor(q.min(axis=0)).astype(int)
        x1, y1 = np.ceil(q.max(axis=0)).astype(int)
        g = glare[max(0, y0):y1, max(0, x0):x1]
        light = gain[max(0, y0):y1, max(0, x0):x1]
        if g.size:
            paper = np.minimum(255, PAPER_LEVEL * light + g)
            written = np.minimum(255, ink * light + g)
            worst = max(worst, float(((paper >= BURNT) & (paper - written < GLARE_CONTRAST)).mean()))
    return worst


def _inside(pts: np.ndarray, w: int, h: int) -> bool:
    return bool(((pts >= 0) & (pts <= [w - 1, h - 1])).all())


def _rounded(q: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in q]


def write_photo(out_dir: Path, seed: int, name: str | None = None, **options) -> Path:
    """One photo into ``out_dir`` as JPEG (at its drawn quality) with NAME.truth.json beside it."""
    image, truth = render_photo(seed, **options)
    stem = name or f"photo-{seed}"
    path = out_dir / f"{stem}.jpg"
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(truth["jpeg_quality"])])
    if not ok:
        raise OSError(f"cannot encode {path}")
    path.write_bytes(buf.tobytes())
    truth.update(source=path.name, format="jpg", pages=1, page=0)
    (out_dir / f"{stem}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--span", choices=sorted(SPANS), default="tune")
    p.add_argument("--condition", default="combined",
                   help=f"comma-separated: {', '.join(CONDITIONS)}, or combined")
    p.add_argument("--cut", help="SIDE:DEAL, e.g. bottom:20 (deals 21-30 outside the photo)")
    args = p.parse_args(argv)
    cut = None
    if args.cut:
        side, _, k = args.cut.partition(":")
        if side not in ("top", "bottom") or not k.isdigit() or not 1 <= int(k) <= 30:
            p.error("--cut takes top:DEAL or bottom:DEAL with DEAL 1-30")
        cut = (side, int(k))
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.count):
        write_photo(args.out, args.seed + i, conditions=tuple(args.condition.split(",")), span=args.span,
                    cut=cut)
    print(f"wrote {args.count} photos to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
