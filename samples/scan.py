"""Turn a filled page image into a scan or photo, tracking the geometry exactly.

Every kind applies ONE perspective warp (a 3x3 matrix ``M``: page pixel -> output pixel,
composed of scaling, skew, quarter turns and perspective) plus photometric effects, so
any point of the page maps onto the output with ``apply_h(M, points)``.

Kinds:
- ``clean``: flatbed scan, 300 dpi, skew within +-2 degrees.
- ``skewed``: skew up to +-8 degrees, sometimes a 90/180/270 degree turn.
- ``photo``: the sheet on a table, perspective, uneven light and shadow, slight blur,
  JPEG quality 40-75, about 150-200 dpi effective.
- ``fax``: binarised, 200x100 dpi resolution feel, speckle noise.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

SCAN_KINDS = ("clean", "skewed", "photo", "fax")


@dataclass
class Scan:
    image: np.ndarray  # BGR (or grey for fax) uint8
    matrix: np.ndarray  # 3x3: page pixel -> output pixel
    kind: str
    rotation: int  # clockwise quarter turn of the page as seen in the output: 0/90/180/270
    skew_deg: float  # further clockwise rotation of the page in the output, degrees
    dpi: float  # resolution of the output (nominal for photos)
    jpeg_quality: int | None = None  # quality to save with, or None for lossless


def apply_h(matrix: np.ndarray, points) -> np.ndarray:
    """Map (x, y) points through a 3x3 homography."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    hom = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(matrix, np.float64).T
    return hom[:, :2] / hom[:, 2:3]


def _scale(sx: float, sy: float) -> np.ndarray:
    return np.diag([sx, sy, 1.0])


def _translate(tx: float, ty: float) -> np.ndarray:
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], dtype=np.float64)


def _rotate(deg: float) -> np.ndarray:
    """Clockwise rotation as seen on screen (y axis down) about the origin."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


def _fit(matrix: np.ndarray, w: int, h: int, margin: float) -> tuple[np.ndarray, int, int]:
    """Translate so the warped page (w x h) sits inside a canvas with ``margin`` px around."""
    corners = apply_h(matrix, [(0, 0), (w, 0), (w, h), (0, h)])
    lo = corners.min(axis=0)
    hi = corners.max(axis=0)
    m = _translate(margin - lo[0], margin - lo[1]) @ matrix
    size = np.ceil(hi - lo + 2 * margin).astype(int)
    return m, int(size[0]), int(size[1])


def _paper(page: np.ndarray, rng: np.random.Generator, tone: float) -> np.ndarray:
    """Paper tone and a little sensor noise (noise drawn at low resolution; uint8 maths)."""
    h, w = page.shape[:2]
    small = np.clip(rng.normal(8, 2.5, size=(h // 8 + 1, w // 8 + 1)), 0, 16).astype(np.uint8)
    noise = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if page.ndim == 3:
        noise = cv2.cvtColor(noise, cv2.COLOR_GRAY2BGR)
    out = cv2.convertScaleAbs(page, alpha=tone / 255.0)
    return cv2.subtract(cv2.add(out, noise), (8, 8, 8, 0) if page.ndim == 3 else 8)


def _turn(rng: random.Random, allow: bool) -> int:
    if not allow:
        return 0
    r = rng.random()
    return 180 if r < 0.1 else 90 if r < 0.17 else 270 if r < 0.24 else 0


def make_scan(page: np.ndarray, page_dpi: float, kind: str, rng: random.Random,
              np_rng: np.random.Generator, allow_turn: bool = True,
              dpi: float | None = None, faint_ink: bool = False) -> Scan:
    """A scan of ``page`` (BGR, rendered at ``page_dpi``) of the given kind; ``dpi``
    overrides the output resolution of flatbed scans and photos.  ``faint_ink`` (pencil):
    the sender of a fax picks its "dark" setting, else the writing would not go through."""
    if kind not in SCAN_KINDS:
        raise ValueError(f"unknown scan kind {kind!r}; choose one of {', '.join(SCAN_KINDS)}")
    if kind == "fax":
        return _fax(page, page_dpi, kind, rng, np_rng, allow_turn, dpi, dark=faint_ink)
    return {"clean": _flatbed, "skewed": _flatbed, "photo": _photo, "fax": _fax}[kind](
        page, page_dpi, kind, rng, np_rng, allow_turn, dpi)


def _flatbed(page, page_dpi, kind, rng, np_rng, allow_turn, want_dpi) -> Scan:
    h, w = page.shape[:2]
    dpi = 300.0 if kind == "clean" else rng.choice((200.0, 250.0, 300.0))
    dpi = float(want_dpi or dpi)
    skew = rng.uniform(-2, 2) if kind == "clean" else rng.uniform(-8, 8)
    turn = 0 if kind == "clean" else _turn(rng, allow_turn)
    s = dpi / page_dpi
    m = _rotate(turn + skew) @ _scale(s, s)
    m, cw, ch = _fit(m, w, h, margin=dpi * rng.uniform(0.02, 0.12))
    lid = rng.randint(225, 250)  # scanner lid around the sheet
    paper = _paper(page, np_rng, tone=rng.uniform(238, 252))
    out = cv2.warpPerspective(paper, m, (cw, ch), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(lid, lid, lid))
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (3, 3), 0.6)
    quality = rng.randint(80, 94) if rng.random() < 0.7 else None
    return Scan(out, m, kind, turn, skew, dpi, quality)


def _table(w: int, h: int, rng: random.Random, np_rng: np.random.Generator) -> np.ndarray:
    """A table top: a base colour, wood-like streaks, low-frequency variation."""
    base = np.array([rng.uniform(40, 140), rng.uniform(50, 130), rng.uniform(60, 150)], np.float32)
    small = np_rng.normal(0, 1, size=(max(2, h // 64), max(2, w // 8))).astype(np.float32)
    streak = cv2.resize(cv2.GaussianBlur(small, (0, 0), 1.5), (w, h), interpolation=cv2.INTER_CUBIC)
    img = base[None, None, :] * (1 + 0.15 * streak[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def _photo(page, page_dpi, kind, rng, np_rng, allow_turn, want_dpi) -> Scan:
    h, w = page.shape[:2]
    dpi = rng.uniform(150, 200)
    dpi = float(want_dpi or dpi)
    s = dpi / page_dpi
    sw, sh = w * s, h * s
    turn = _turn(rng, allow_turn)
    # Output frame a bit larger than the sheet; sheet corners jittered for perspective.
    out_w, out_h = int(sw * rng.uniform(1.08, 1.25)), int(sh * rng.uniform(1.06, 1.18))
    cx, cy = out_w / 2 + rng.uniform(-0.03, 0.03) * out_w, out_h / 2 + rng.uniform(-0.03, 0.03) * out_h
    skew = rng.uniform(-6, 6)
    rot = _rotate(skew)
    base = apply_h(rot, [(-sw / 2, -sh / 2), (sw / 2, -sh / 2), (sw / 2, sh / 2), (-sw / 2, sh / 2)])
    k = 0.06 * min(sw, sh)
    # Keystone: the far edge (top) narrower, plus independent corner jitter.
    keystone = rng.uniform(0.0, 0.08) * sw
    dst = base + np.array([[cx, cy]]) + np.array(
        [[keystone, 0], [-keystone, 0], [0, 0], [0, 0]]) + np.array(
        [[rng.uniform(-k, k), rng.uniform(-k, k)] for _ in range(4)])
    # Keep the whole sheet in the frame, with some table showing on every side.
    margin = 0.015 * max(out_w, out_h)
    dst += np.maximum(0.0, margin - dst.min(axis=0))
    out_w = max(out_w, int(np.ceil(dst[:, 0].max() + margin)))
    out_h = max(out_h, int(np.ceil(dst[:, 1].max() + margin)))
    src = np.float32([(0, 0), (w, 0), (w, h), (0, h)])
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32)).astype(np.float64)
    if turn:
        # Quarter turn of the whole photo (camera held sideways / upside down).
        if turn == 180:
            t = _translate(out_w, out_h) @ _rotate(180)
        elif turn == 90:
            t = _translate(out_h, 0) @ _rotate(90)
            out_w, out_h = out_h, out_w
        else:
            t = _translate(0, out_w) @ _rotate(270)
            out_w, out_h = out_h, out_w
        m = t @ m
    paper = _paper(page, np_rng, tone=rng.uniform(225, 250))
    table = _table(out_w, out_h, rng, np_rng)
    img = cv2.warpPerspective(paper, m, (out_w, out_h), dst=table, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_TRANSPARENT)
    # Uneven lighting (a smooth gradient and a soft shadow blob) and a colour cast, as one
    # per-pixel gain computed at 1/8 resolution; uint8 maths (gain x 128, scale 1/128).
    yy, xx = np.mgrid[0:out_h:8, 0:out_w:8].astype(np.float32)
    gx, gy = rng.uniform(-1, 1), rng.uniform(-1, 1)
    light = 1 + 0.18 * (gx * (xx / out_w - 0.5) + gy * (yy / out_h - 0.5))
    if rng.random() < 0.7:
        sx, sy = rng.uniform(0, out_w), rng.uniform(0, out_h)
        r = rng.uniform(0.2, 0.5) * max(out_w, out_h)
        light -= rng.uniform(0.15, 0.35) * np.exp(-(((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * r * r)))
    tint = np.array([rng.uniform(0.9, 1.0), rng.uniform(0.95, 1.0), rng.uniform(0.97, 1.05)],
                    np.float32)
    gain = np.clip(light[..., None] * tint[None, None, :] * 128, 0, 255).astype(np.uint8)
    gain = cv2.resize(gain, (out_w, out_h), interpolation=cv2.INTER_LINEAR)
    img = cv2.multiply(img, gain, scale=1 / 128)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.1))
    top_edge = math.degrees(math.atan2(dst[1, 1] - dst[0, 1], dst[1, 0] - dst[0, 0]))
    return Scan(img, m, kind, turn, round(top_edge, 3), dpi, rng.randint(40, 75))


def _fax(page, page_dpi, kind, rng, np_rng, allow_turn, want_dpi, dark: bool = False) -> Scan:
    h, w = page.shape[:2]
    skew = rng.uniform(-1.5, 1.5)
    fine = rng.random() < 0.3  # "fine" mode is 200x200; standard is 200x100
    m = _rotate(skew) @ _scale(200 / page_dpi, (200 if fine else 100) / page_dpi)
    m, cw, ch = _fit(m, w, h, margin=rng.uniform(4, 20))
    grey = cv2.cvtColor(page, cv2.COLOR_BGR2GRAY)
    low = cv2.warpPerspective(grey, m, (cw, ch), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    thresh = rng.uniform(150, 190)
    if dark:  # pencil is ~150-220 grey: the normal setting drops it all (the page arrives blank)
        thresh += 40
    bw = np.where(low < thresh, 0, 255).astype(np.uint8)
    flip = np_rng.random(bw.shape) < rng.uniform(0.001, 0.004)
    bw[flip] = 255 - bw[flip]
    if not fine:  # stretch rows back to square pixels: each scan line doubled
        bw = cv2.resize(bw, (cw, ch * 2), interpolation=cv2.INTER_NEAREST)
        m = _scale(1, 2) @ m
    return Scan(bw, m, kind, 0, skew, 200.0, None)
