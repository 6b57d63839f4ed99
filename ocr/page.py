"""Find the sheet on a page and straighten it: perspective, quarter turns, skew.

All analysis runs on small copies; the original is warped once, at the working
resolution, by one homography whose inverse (``StraightPage.to_original``) maps
straight-image pixels back onto ``Page.image``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from ocr.data import InputError, Page, StraightPage
from ocr.dewarp import straighten_photo
from ocr.settings import GeometrySettings

# what NumPy and OpenCV raise on odd geometry (a degenerate quad, an empty crop): a path that fails
GEOMETRY_ERRORS = (ValueError, IndexError, ZeroDivisionError, np.linalg.LinAlgError, cv2.error)


def straighten(page: Page, settings: GeometrySettings | None = None) -> StraightPage:
    """Cut the sheet out of ``page`` and turn it upright and level (InputError if unusable).

    Two paths.  A scan (the sheet fills the picture, evenly lit) is straightened from the paper's
    outline and its rulings' angles by one homography: fast, and right on every scan and fax we
    measure.  A photo (the sheet on a table, uneven light) is straightened from its deal table's
    own ruling lattice (ocr/dewarp.py), which takes any turn, strong perspective and a curl.  The
    other path is kept as ``retry``, for ocr.table to try when it finds no table on the first."""
    settings = settings or GeometrySettings()
    img = page.image
    if img is None or img.ndim != 3 or img.shape[2] != 3 or min(img.shape[:2]) < 50:
        raise InputError(f"{page.source}: page {page.index + 1} has no usable image")
    def scan() -> StraightPage:
        try:
            return _straighten(page, settings)
        except GEOMETRY_ERRORS as exc:
            raise InputError(f"{page.source}: page {page.index + 1}: cannot straighten ({exc})") from None

    def photo(paper: np.ndarray | None = None) -> StraightPage | None:
        try:
            return straighten_photo(page, settings, paper)
        except GEOMETRY_ERRORS:
            return None

    def photo_of_paper() -> StraightPage | None:
        # the whole sheet shows: its outline can seed the lattice (see dewarp.paper_grid)
        return photo(paper_corners(img, settings))

    if not settings.photo_path:
        return scan()
    glance = _glance(img)
    if not looks_like_photo(glance, settings):
        first = scan()
        first.retry = photo
        return first
    if whole_paper(glance, settings):
        # a photo of the whole sheet, its outline on a darker table: the scan path is right on
        # most (its one homography), and fast; ocr.table checks that its rows come out straight
        first = scan()
        first.retry, first.verify = photo_of_paper, True
        return first
    first = photo()
    if first is None:
        return scan()
    first.retry = scan
    return first


GLANCE = 256  # long side of the quick look that tells a photo from a scan


def _glance(img: np.ndarray) -> np.ndarray:
    """A quick small copy of ``img``: every k-th pixel (no pass over the whole picture), then
    shrunk to GLANCE pixels long."""
    k = max(1, max(img.shape[:2]) // (2 * GLANCE))
    return _shrink(np.ascontiguousarray(img[::k, ::k]), GLANCE)


def whole_paper(small: np.ndarray, settings: GeometrySettings) -> bool:
    """Whether the whole sheet's outline shows on a darker background in ``small`` (a BGR glance)."""
    return find_paper(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), max(small.shape[:2])) is not None


def paper_corners(img: np.ndarray, settings: GeometrySettings) -> np.ndarray | None:
    """The sheet's corners (tl, tr, br, bl) on ``img`` when its outline shows on a darker
    background (found on a copy GeometrySettings.mid_long pixels long), else None."""
    mid = _shrink(img, settings.mid_long)
    quad = find_paper(cv2.cvtColor(mid, cv2.COLOR_BGR2GRAY), settings.paper_long)
    return None if quad is None else quad * (img.shape[1] / mid.shape[1])


def is_photo(img: np.ndarray, settings: GeometrySettings) -> bool:
    """Whether the picture ``img`` looks like a photo rather than a scan (see looks_like_photo)."""
    return looks_like_photo(_glance(img), settings)


def looks_like_photo(small: np.ndarray, settings: GeometrySettings) -> bool:
    """Whether ``small`` (a BGR glance at the picture) looks like a photo rather than a scan: uneven
    light over the picture (its background's darker parts below GeometrySettings.photo_light_ratio
    of its lighter), or coloured surroundings (a table, not a scanner's lid)."""
    bg = cv2.morphologyEx(small, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    grey = bg.min(axis=2).astype(np.float32)
    lo, hi = np.percentile(grey, (5, 95))
    if lo < settings.photo_light_ratio * hi:
        return True
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    h, w = small.shape[:2]
    m = max(2, min(h, w) // 25)
    rim = np.concatenate([hsv[:m].reshape(-1, 3), hsv[-m:].reshape(-1, 3),
                          hsv[:, :m].reshape(-1, 3), hsv[:, -m:].reshape(-1, 3)])
    return float(np.median(rim[:, 1])) > settings.photo_rim_saturation


def _straighten(page: Page, settings: GeometrySettings) -> StraightPage:
    img = page.image
    h0, w0 = img.shape[:2]
    # one shrink of a large original serves both the analysis copy and
    # the final warp (which then never shrinks by more than mid_long / work_long)
    mid = _shrink(img, settings.mid_long)
    s_small = settings.analysis_long / max(h0, w0)
    grey_small = cv2.resize(_shrink(cv2.cvtColor(mid, cv2.COLOR_BGR2GRAY), 2 * settings.analysis_long),
                            (round(w0 * s_small), round(h0 * s_small)), interpolation=cv2.INTER_AREA)

    # 1. the paper's outline (photos); otherwise the whole image is the sheet
    quad = find_paper(grey_small, settings.paper_long)
    if quad is None:
        sheet_w, sheet_h = grey_small.shape[1], grey_small.shape[0]
        h_paper = np.eye(3)
    else:
        sheet_w, sheet_h, h_paper = _rectify(quad)
    rect = cv2.warpPerspective(grey_small, h_paper, (sheet_w, sheet_h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)

    # 2. skew (and shear): the ruling lines' angles (mod 90 degrees)
    ink = _ink(rect)
    angle, angle_v = dominant_angle(ink)
    h_rot, sheet_w, sheet_h = _deskew(angle, angle_v, sheet_w, sheet_h)
    level = cv2.warpPerspective(ink, h_rot, (sheet_w, sheet_h), flags=cv2.INTER_NEAREST)
    # perspective the paper outline missed (or all of it, when no outline was seen)
    fix = ruling_homography(level)
    if fix is not None:
        h_fix, sheet_w, sheet_h = fix
        h_rot = h_fix @ h_rot
        level = cv2.warpPerspective(ink, h_rot, (sheet_w, sheet_h), flags=cv2.INTER_NEAREST)

    # 3. quarter turns: rulings run mostly horizontally, and the title block is on top
    turns = quarter_turns(level)
    h_turn, sheet_w, sheet_h = _turn(turns, sheet_w, sheet_h)

    # 4. one warp of the original to the working resolution
    s_work = settings.work_long / max(sheet_w, sheet_h)
    scale_work = np.diag([s_work, s_work, 1.0])
    to_small = np.diag([s_small, s_small, 1.0])
    h_total = scale_work @ h_turn @ h_rot @ h_paper @ to_small  # original -> straight
    out_w, out_h = round(sheet_w * s_work), round(sheet_h * s_work)
    to_mid = np.diag([mid.shape[1] / w0, mid.shape[0] / h0, 1.0])
    straight = _warp(mid, h_total @ np.linalg.inv(to_mid), (out_w, out_h))
    to_original = np.linalg.inv(h_total)
    return StraightPage(page=page, image=straight, to_original=to_original / to_original[2, 2],
                        skew_deg=float(angle), rotated=90 * turns)


def _warp(img: np.ndarray, h: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``img`` mapped by homography ``h`` onto a white canvas of ``size`` (w, h).  An
    affine ``h`` (no paper outline or perspective fix) takes the cheaper affine warp,
    which gives the same pixels in ~60 % of the time.  A colour image is warped with a
    fourth channel added (OpenCV's 4-channel warps are vectorised, its 3-channel ones
    are not): the same pixels, ~35 % cheaper with both conversions."""
    kw = {"flags": cv2.INTER_LINEAR, "borderMode": cv2.BORDER_CONSTANT, "borderValue": (255, 255, 255)}
    h = h / h[2, 2]
    four = img.ndim == 3 and img.shape[2] == 3
    if four:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        kw["borderValue"] = (255, 255, 255, 255)
    if abs(h[2, 0]) < 1e-12 and abs(h[2, 1]) < 1e-12:
        out = cv2.warpAffine(img, h[:2], size, **kw)
    else:
        out = cv2.warpPerspective(img, h, size, **kw)
    return cv2.cvtColor(out, cv2.COLOR_BGRA2BGR) if four else out


def _shrink(img: np.ndarray, long_side: int) -> np.ndarray:
    """``img`` with its long side at most ``long_side``: halved with Gaussian pyramids
    while far too large, then linear (cheap, and never shrinking by more than 2x)."""
    while max(img.shape[:2]) >= 2 * long_side:
        img = cv2.pyrDown(img)
    h, w = img.shape[:2]
    s = long_side / max(h, w)
    if s < 1.0:
        img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))),
                         interpolation=cv2.INTER_LINEAR)
    return img


# --------------------------------------------------------------------------- paper
def find_paper(grey: np.ndarray, paper_long: int = 500) -> np.ndarray | None:
    """The sheet's corners (tl, tr, br, bl) in ``grey`` when it lies on a darker
    background, else None (a scan: the sheet fills the image).

    Two outlines are tried, the bright region and the outermost edges (a shadow across
    the paper can cut the bright region short); the larger plausible one wins."""
    h, w = grey.shape
    s = paper_long / max(h, w)
    g = cv2.resize(grey, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    g = cv2.GaussianBlur(g, (5, 5), 0)
    k = max(3, round(min(g.shape) * 0.02)) | 1
    _, bright = cv2.threshold(g, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    edges = cv2.dilate(cv2.Canny(g, 30, 90), np.ones((3, 3), np.uint8))
    quads = [_outline(cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))),
             _outline(edges)]
    quads = [q for q in quads if q is not None and _darker_outside(g, q)]
    if not quads:
        return None
    corners = max(quads, key=lambda q: cv2.contourArea(q.astype(np.float32)))
    return _refine_corners(grey, _order_corners(corners / s))


def _outline(mask: np.ndarray) -> np.ndarray | None:
    """The four corners of the largest region of ``mask``, if it is a plausible sheet."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(c)
    area = cv2.contourArea(hull)
    if area < 0.2 * mask.size or area > 0.97 * mask.size:
        return None
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05):
        poly = cv2.approxPolyDP(hull, eps * peri, True)
        if len(poly) == 4:
            break
    else:
        return None
    if cv2.contourArea(poly) < 0.85 * area:
        return None
    corners = poly.reshape(4, 2).astype(np.float64)
    if _side_on_border(corners, mask.shape):  # the sheet runs out of the picture
        return None
    return corners


def _darker_outside(g: np.ndarray, corners: np.ndarray) -> bool:
    """Whether the image outside the quad is clearly darker than inside (a background)."""
    inside = np.zeros(g.shape, np.uint8)
    cv2.fillConvexPoly(inside, _order_corners(corners).astype(np.int32), 255)
    out = g[inside == 0]
    if out.size < 0.03 * g.size:
        return False
    return float(np.median(g[inside > 0])) - float(np.median(out)) >= 40


def _side_on_border(corners: np.ndarray, shape: tuple[int, int]) -> bool:
    """Whether two corners lie on the same image edge (so that side is the picture's
    edge, not the paper's)."""
    h, w = shape
    tol = 2.0  # pixels: a cut-off sheet's outline runs along the picture's edge itself
    for axis, size in ((0, w), (1, h)):
        for edge in (0.0, size - 1.0):
            if np.count_nonzero(np.abs(corners[:, axis] - edge) <= tol) >= 2:
                return True
    return False


def _order_corners(pts: np.ndarray) -> np.ndarray:
    """Order four points as tl, tr, br, bl."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise in image coords, starting near -180 deg (left)
    start = int(np.argmin(pts.sum(axis=1)))  # top-left has the smallest x + y
    return np.roll(pts, -start, axis=0)


def _refine_corners(grey: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Move each side of the quad onto the paper edge by fitting a line to edge points."""
    h, w = grey.shape
    offs = np.arange(-8, 9)
    lines = []
    for i in range(4):
        a, b = pts[i], pts[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 20:
            return pts
        t = d / length
        n = np.array([t[1], -t[0]])  # outward normal for a clockwise quad
        # 24 places along the side, each searched 8 pixels either way across it for the strongest
        # edge (the first of equals; at least 20): all at once, the same arithmetic as one by one
        p = a + np.linspace(0.1, 0.9, 24)[:, None] * d  # (24, 2)
        q = p[:, None, :] + offs[None, :, None] * n  # (24, 17, 2)
        x, y = np.round(q[..., 0]).astype(np.intp), np.round(q[..., 1]).astype(np.intp)
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        xc, yc = np.clip(x, 0, w - 1), np.clip(y, 0, h - 1)  # (those outside: not taken)
        gx, gy, (cx, cy) = _gradients(grey, xc, yc)
        xc, yc = xc - cx, yc - cy
        g = np.abs(gx[yc, xc].astype(np.float64) * n[0] + gy[yc, xc].astype(np.float64) * n[1])
        g[~inside] = 0.0
        k = np.argmax(g, axis=1)
        rows = np.arange(len(k))
        strong = g[rows, k] > 20
        found = q[rows[strong], k[strong]]
        if len(found) < 8:
            lines.append((a, t))
            continue
        vx, vy, x0, y0 = cv2.fitLine(found.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return pts
        s = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s[0] * d1)
    out = np.array(out)
    if np.abs(out - pts).max() > 0.03 * max(h, w):
        return pts
    return out


def _gradients(grey: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """The Sobel gradients (x, y) of ``grey`` blurred 3 x 3, as over the whole image, on the part of
    it around the pixels ``xs``, ``ys`` (3 pixels more each way: a filter's border then falls
    only where the image's own does), and that part's top-left corner."""
    h, w = grey.shape
    x0, y0 = max(0, int(xs.min()) - 3), max(0, int(ys.min()) - 3)
    x1, y1 = min(w, int(xs.max()) + 4), min(h, int(ys.max()) + 4)
    blur = cv2.GaussianBlur(grey[y0:y1, x0:x1], (3, 3), 0)
    return cv2.Sobel(blur, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(blur, cv2.CV_32F, 0, 1, ksize=3), (x0, y0)


def _rectify(quad: np.ndarray) -> tuple[int, int, np.ndarray]:
    """Homography taking the paper quad to an upright rectangle of the same scale."""
    tl, tr, br, bl = quad
    w = (np.hypot(*(tr - tl)) + np.hypot(*(br - bl))) / 2
    h = (np.hypot(*(bl - tl)) + np.hypot(*(br - tr))) / 2
    w, h = max(2, round(w)), max(2, round(h))
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    return w, h, cv2.getPerspectiveTransform(quad.astype(np.float32), dst.astype(np.float32))


# --------------------------------------------------------------------------- skew
def _ink(grey: np.ndarray) -> np.ndarray:
    """Binary ink mask (255 = ink) robust to uneven lighting."""
    h, w = grey.shape
    k = max(15, round(max(h, w) / 40)) | 1
    bg = cv2.dilate(grey, np.ones((k, k), np.uint8))
    norm = cv2.divide(grey, bg, scale=255)
    return cv2.threshold(norm, 169, 255, cv2.THRESH_BINARY_INV)[1]


def dominant_angle(ink: np.ndarray) -> tuple[float, float]:
    """Angles (degrees) by which the horizontal and the vertical rulings are turned
    clockwise on screen (y down).  They differ when the page is sheared (a fax's
    anisotropic resolution turns a skew into a shear).  (0, 0) when there is no ink."""
    pts = cv2.findNonZero(ink)  # the same points in the same order as np.nonzero, 3x cheaper
    if pts is None or len(pts) < 100:
        return 0.0, 0.0
    pts = pts.reshape(-1, 2)
    xs, ys = pts[:, 0], pts[:, 1]
    if xs.size > 30_000:  # a fixed subsample keeps this fast and deterministic
        step = xs.size // 30_000 + 1
        xs, ys = xs[::step], ys[::step]
    xs = xs.astype(np.float32) - ink.shape[1] / 2
    ys = ys.astype(np.float32) - ink.shape[0] / 2
    # the whole-degree search only has to land within the finer search's +-3 degrees, and
    # that one within the last search's +-0.25: a sixth and a half of the points do (the
    # same homographies as with a third and all of them on 300 generated sheets)
    coarse = _best_angle(xs[::6], ys[::6], np.arange(-45.0, 45.0, 1.0), "both")
    out = []
    for axis in ("rows", "cols"):
        mid = _best_angle(xs[::2], ys[::2], coarse + np.arange(-3.0, 3.01, 0.25), axis)
        out.append(_best_angle(xs, ys, mid + np.arange(-0.25, 0.26, 0.05), axis))
    a_h, a_v = ((a + 45.0) % 90.0 - 45.0 for a in out)
    if abs(a_h - a_v) > 45:  # folded apart across +-45: bring them together
        a_v += 90.0 if a_v < a_h else -90.0
    return float(a_h), float(a_v)


def _best_angle(xs: np.ndarray, ys: np.ndarray, angles: np.ndarray, axis: str) -> float:
    """The candidate angle whose rotation makes the ink's row profile ("rows"), column
    profile ("cols") or both sharpest."""
    best, best_score = 0.0, -1.0
    span = int(np.hypot(np.abs(xs).max(), np.abs(ys).max())) + 2
    for a in angles:
        t = math.radians(a)
        c, s = math.cos(t), math.sin(t)
        score = 0.0
        if axis != "cols":
            hy = np.bincount((ys * c - xs * s + span).astype(np.int32), minlength=2 * span)
            score += float(np.dot(hy, hy))
        if axis != "rows":
            hx = np.bincount((xs * c + ys * s + span).astype(np.int32), minlength=2 * span)
            score += float(np.dot(hx, hx))
        if score > best_score:
            best, best_score = float(a), score
    return best


def _deskew(a_h: float, a_v: float, w: int, h: int) -> tuple[np.ndarray, int, int]:
    """Homography making rulings at angles ``a_h`` (horizontal) and ``a_v`` (vertical)
    axis-parallel (a rotation, plus a shear when they differ), onto a canvas holding it all."""
    if abs(a_h) < 0.01 and abs(a_v) < 0.01:
        return np.eye(3), w, h
    th, tv = math.radians(a_h), math.radians(a_v)
    lines = np.array([[math.cos(th), -math.sin(tv)], [math.sin(th), math.cos(tv)]])
    m = np.eye(3)
    m[:2, :2] = np.linalg.inv(lines)
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64) @ m.T
    x0, y0 = corners[:, :2].min(axis=0)
    x1, y1 = corners[:, :2].max(axis=0)
    m[:2, 2] -= (x0, y0)
    return m, max(2, round(x1 - x0)), max(2, round(y1 - y0))


def ruling_homography(ink: np.ndarray) -> tuple[np.ndarray, int, int] | None:
    """A homography making the outermost long rulings of a nearly level sheet exactly
    horizontal and vertical (removing perspective), with its canvas size; None when
    they are already straight or too few are found."""
    h, w = ink.shape
    k = max(20, round(min(h, w) / 6))
    rect = cv2.getStructuringElement
    hz = cv2.morphologyEx(cv2.dilate(ink, rect(cv2.MORPH_RECT, (1, 5))), cv2.MORPH_OPEN,
                          rect(cv2.MORPH_RECT, (k, 1)))
    vt = cv2.morphologyEx(cv2.dilate(ink, rect(cv2.MORPH_RECT, (5, 1))), cv2.MORPH_OPEN,
                          rect(cv2.MORPH_RECT, (1, k)))
    rows = _fit_lines(hz, ink, 0.5 * w, max(8, h // 60), horizontal=True)
    cols = _fit_lines(vt, ink, 0.5 * h, max(8, w // 60), horizontal=False)
    if len(rows) < 2 or len(cols) < 2:
        return None
    top, bottom = min(rows, key=lambda ln: ln[0][1]), max(rows, key=lambda ln: ln[0][1])
    left, right = min(cols, key=lambda ln: ln[0][0]), max(cols, key=lambda ln: ln[0][0])
    if bottom[0][1] - top[0][1] < 0.3 * h or right[0][0] - left[0][0] < 0.3 * w:
        return None
    src = np.array([_cross(top, left), _cross(top, right), _cross(bottom, right),
                    _cross(bottom, left)], np.float64)
    xl, xr = (src[0, 0] + src[3, 0]) / 2, (src[1, 0] + src[2, 0]) / 2
    yt, yb = (src[0, 1] + src[1, 1]) / 2, (src[2, 1] + src[3, 1]) / 2
    dst = np.array([[xl, yt], [xr, yt], [xr, yb], [xl, yb]], np.float64)
    if np.abs(src - dst).max() < 0.75:
        return None
    m = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64), m)[0]
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    if x1 - x0 > 1.5 * w or y1 - y0 > 1.5 * h:  # implausibly strong: leave it
        return None
    m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ m
    return m, max(2, round(x1 - x0)), max(2, round(y1 - y0))


def _fit_lines(mask: np.ndarray, ink: np.ndarray, min_len: float, max_thick: int,
               horizontal: bool, keep: int = 2):
    """(point, direction) of the long thin straight components of ``mask``, fitted to
    the ``ink`` pixels inside them; only the ``keep`` outermost at either end (by their
    pixels' mean position across the line) are fitted, the others cannot be outermost."""
    # 16-bit labels (cheaper): an opened mask of lines longer than min_len has few components
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_16U)
    found = []
    for i in range(1, n):
        x, y, bw, bh, _ = stats[i]
        length, thick = (bw, bh) if horizontal else (bh, bw)
        if length < min_len or thick > max_thick + length * 0.05:
            continue
        ys, xs = np.nonzero((labels[y:y + bh, x:x + bw] == i) & (ink[y:y + bh, x:x + bw] > 0))
        if xs.size < min_len / 2:
            continue
        across = float(ys.mean()) + y if horizontal else float(xs.mean()) + x
        found.append((across, xs + x, ys + y))
    if len(found) > 2 * keep:
        order = sorted(range(len(found)), key=lambda j: found[j][0])
        outer = set(order[:keep] + order[-keep:])
        found = [f for j, f in enumerate(found) if j in outer]
    out = []
    for _, xs, ys in found:
        pts = np.column_stack([xs, ys]).astype(np.float32)[::3]
        vx, vy, px, py = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        out.append((np.array([px, py], np.float64), np.array([vx, vy], np.float64)))
    return out


def _cross(a, b) -> np.ndarray:
    """Intersection of two (point, direction) lines."""
    (p1, d1), (p2, d2) = a, b
    t = np.linalg.solve(np.array([d1, -d2]).T, p2 - p1)
    return p1 + t[0] * d1


# --------------------------------------------------------------------------- quarter turns
def quarter_turns(ink: np.ndarray) -> int:
    """How many quarter turns clockwise (0..3) make the level sheet upright.

    Upright, the sheet is portrait (or, for a near-square crop, most rulings run
    horizontally), and the title, names and winners lines sit above the ruled area."""
    h, w = ink.shape
    k = max(20, round(min(h, w) / 8))
    rect = cv2.getStructuringElement
    # thickened across the line first, so thin lines a pixel off level still pass
    horiz = cv2.dilate(ink, rect(cv2.MORPH_RECT, (1, 3)))
    horiz = cv2.morphologyEx(horiz, cv2.MORPH_OPEN, rect(cv2.MORPH_RECT, (k, 1)))
    vert = cv2.dilate(ink, rect(cv2.MORPH_RECT, (3, 1)))
    vert = cv2.morphologyEx(vert, cv2.MORPH_OPEN, rect(cv2.MORPH_RECT, (1, k)))
    ruling = cv2.bitwise_or(horiz, vert)
    if w > 1.15 * h:  # the form is portrait: a landscape sheet lies on its side
        sideways = True
    elif h > 1.15 * w:
        sideways = False
    else:  # a near-square crop: go by the direction of most rulings
        sideways = _count_lines(vert, axis=1) > 1.5 * _count_lines(horiz, axis=0)
    if sideways:
        # transposed, the seen image's left is on top: a title on the seen image's
        # right (below, transposed) needs an anticlockwise turn, on its left a clockwise one
        return 3 if _title_below(ink.T, ruling.T) else 1
    return 2 if _title_below(ink, ruling) else 0


def _count_lines(mask: np.ndarray, axis: int) -> int:
    """Number of separate long lines: runs of the projection across ``axis``."""
    prof = (mask > 0).sum(axis=1 - axis) > 0
    return int(np.count_nonzero(np.diff(prof.astype(np.int8)) == 1))


def _title_below(ink: np.ndarray, ruling: np.ndarray) -> bool:
    """True when there is more non-ruling ink below the ruled area than above it."""
    h, w = ink.shape
    my, mx = max(2, h // 30), max(2, w // 30)  # paper edges and scanner borders are no rulings
    ink, ruling = ink[my:h - my, mx:w - mx], ruling[my:h - my, mx:w - mx]
    rows = np.flatnonzero((ruling > 0).sum(axis=1) > 0)
    if rows.size == 0:
        return False
    top, bottom = int(rows[0]), int(rows[-1])
    text = (ink > 0) & (ruling == 0)
    above = int(text[:max(0, top - 2)].sum())
    below = int(text[bottom + 3:].sum())
    return below > 1.5 * above and below > 0


def _turn(turns: int, w: int, h: int) -> tuple[np.ndarray, int, int]:
    """Homography turning a w x h image by ``turns`` quarter turns clockwise."""
    if turns == 0:
        return np.eye(3), w, h
    if turns == 1:  # (x, y) -> (h - 1 - y, x)
        return np.array([[0, -1, h - 1], [1, 0, 0], [0, 0, 1]], np.float64), h, w
    if turns == 2:
        return np.array([[-1, 0, w - 1], [0, -1, h - 1], [0, 0, 1]], np.float64), w, h
    return np.array([[0, 1, 0], [-1, 0, w - 1], [0, 0, 1]], np.float64), h, w
