"""Phone photos made another way than samples/photo.py: a real 3-D scene and a pinhole camera.

    python samples/photo3d.py --out DIR --count N --seed S

The filled form (samples.generate.fill_sheet, the printable form of ocr/form.py) is a sheet of
paper 210 x 297 mm lying on a table top, curled as a cylinder (its edges lift off the table), seen by
a camera with a phone's field of view from a random height, tilt, heading (any: sideways, upside
down) and roll.  Points are projected with cv2.projectPoints; the picture is rendered by rasterising
the projected mesh of the sheet (and the table plane) into maps of sheet coordinates.  The table top
is a checked cloth or planks drawn in the table's own plane (so its pattern obeys the perspective);
the light is a lamp with Lambertian shading and a specular highlight on the curl; then lens
vignetting, defocus, sensor noise, and a JPEG written by Pillow (not OpenCV).

The truth is samples.generate's, every cell's quad the projection of its corners, plus
``visible_deals``, ``glare_deals`` / ``glare_touched_deals`` (the deals whose cells the specular
spot washes out, by samples/photo.py's rule, ``washed_out``, the one thing shared with it: what
counts as unreadable must not differ between the two) and ``photo3d`` (the drawn scene).  None of
the rendering is shared with photo.py: the geometry benchmark measured on these is not the
generator scoring itself.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import random
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np
from PIL import Image, ImageFilter

from samples.photo import GLARE_COVER, GLARE_TOUCH, deal_ink, washed_out

PAGE_MM = (210.0, 297.0)


def _rotation(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """World -> camera rotation for a camera looking down at the table (z up) with the given
    heading, tilt from straight down and roll (degrees)."""
    y, p, r = (math.radians(a) for a in (yaw, pitch, roll))
    down = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], np.float64)  # camera z along world -z
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(p), -math.sin(p)], [0, math.sin(p), math.cos(p)]])
    rc = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    return rc @ rx @ down @ rz.T


def _sheet_points(u: np.ndarray, v: np.ndarray, radius: float, along_x: bool) -> np.ndarray:
    """3-D points (mm) of sheet coordinates (u, v) (mm from the top-left corner) on a sheet curled
    as a cylinder of ``radius`` around an axis along the sheet's v (``along_x``: rows bow) or u,
    centred on the table at the origin."""
    w, h = PAGE_MM
    # the table's y runs up the picture of a camera looking down with its own y down: down the
    # sheet is down the table's -y (else the sheet would be seen mirrored)
    a, b = (u - w / 2, h / 2 - v) if along_x else (h / 2 - v, u - w / 2)
    if math.isinf(radius):
        x, z = a, np.zeros_like(a)
    else:
        t = a / radius
        x, z = radius * np.sin(t), radius * (1 - np.cos(t))
    if along_x:
        return np.stack([x, b, z], axis=-1)
    return np.stack([b, x, z], axis=-1)  # curled down the sheet: the bowed axis is the table's y


def _raster(tri_img: np.ndarray, tri_src: np.ndarray, size: tuple[int, int], depth: np.ndarray,
            out_map: np.ndarray, zbuf: np.ndarray) -> None:
    """Rasterise triangles (image corners ``tri_img`` n x 3 x 2, source coordinates ``tri_src``
    n x 3 x 2, camera depth per triangle) into ``out_map`` (h x w x 2), nearest first."""
    w, h = size
    for ti, (p, s) in enumerate(zip(tri_img, tri_src, strict=True)):
        x0, y0 = np.floor(p.min(axis=0)).astype(int)
        x1, y1 = np.ceil(p.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w - 1, x1), min(h - 1, y1)
        if x1 < x0 or y1 < y0:
            continue
        ys, xs = np.mgrid[y0:y1 + 1, x0:x1 + 1]
        m = np.array([[p[1, 0] - p[0, 0], p[2, 0] - p[0, 0]], [p[1, 1] - p[0, 1], p[2, 1] - p[0, 1]]])
        det = np.linalg.det(m)
        if abs(det) < 1e-9:
            continue
        inv = np.linalg.inv(m)
        dx, dy = xs - p[0, 0], ys - p[0, 1]
        l1 = inv[0, 0] * dx + inv[0, 1] * dy
        l2 = inv[1, 0] * dx + inv[1, 1] * dy
        inside = (l1 >= -1e-6) & (l2 >= -1e-6) & (l1 + l2 <= 1 + 1e-6)
        inside &= zbuf[ys, xs] > depth[ti]
        if not inside.any():
            continue
        l0 = 1 - l1 - l2
        src = l0[..., None] * s[0] + l1[..., None] * s[1] + l2[..., None] * s[2]
        yy, xx = ys[inside], xs[inside]
        out_map[yy, xx] = src[inside]
        zbuf[yy, xx] = depth[ti]


def render_photo3d(seed: int, **options) -> tuple[np.ndarray, dict]:
    """One filled sheet photographed in a 3-D scene: the photo (BGR) and its truth."""
    image, truth, _ = _render(seed, **options)
    return image, truth


def _render(seed: int, **options) -> tuple[np.ndarray, dict, bytes]:
    """The photo (BGR, as decoded from its JPEG), its truth and the JPEG's bytes."""
    from samples.generate import fill_sheet

    filled = fill_sheet(seed, scan="photo", **options)
    rng = random.Random(seed * 7 + 3)
    np_rng = np.random.default_rng(seed * 7 + 3)
    page = filled.page
    ph, pw = page.shape[:2]
    mm = pw / PAGE_MM[0]  # page pixels per mm

    # the scene: a sheet curled (radius 250-900 mm, or flat), a camera 300-500 mm above
    radius = math.inf if rng.random() < 0.25 else rng.uniform(300, 900)
    along_x = rng.random() < 0.7
    yaw = rng.choice((0, 90, 180, 270)) + rng.uniform(-12, 12)
    pitch = rng.uniform(0, 35)
    roll = rng.uniform(-8, 8)
    height = rng.uniform(260, 380)
    landscape = rng.random() < 0.5
    mp = rng.uniform(1.0, 2.4)
    fw = int(math.sqrt(mp * 1e6 * (4 / 3 if landscape else 3 / 4)))
    fh = int(mp * 1e6 / fw)
    fov = math.radians(rng.uniform(62, 74))  # horizontal field of view of a phone's main camera
    f = (fw / 2) / math.tan(fov / 2)
    k = np.array([[f, 0, fw / 2], [0, f, fh / 2], [0, 0, 1]], np.float64)
    dist = np.array([rng.uniform(-0.05, 0.05), rng.uniform(-0.02, 0.02), 0, 0], np.float64)  # a little lens distortion
    rot = _rotation(yaw, pitch, roll)
    # the camera looks at a point near the sheet's middle
    target = np.array([rng.uniform(-25, 25), rng.uniform(-35, 35), 0.0])
    centre = target - rot.T @ np.array([0, 0, height])
    rvec, _ = cv2.Rodrigues(rot)
    tvec = -rot @ centre

    def project(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = pts.reshape(-1, 3)
        img, _ = cv2.projectPoints(flat, rvec, tvec, k, dist)
        depth = (flat @ rot.T + tvec)[:, 2]
        return img.reshape(pts.shape[:-1] + (2,)), depth.reshape(pts.shape[:-1])

    # the sheet's mesh, rasterised into page coordinates
    n_u, n_v = 30, 42
    us, vs = np.meshgrid(np.linspace(0, PAGE_MM[0], n_u), np.linspace(0, PAGE_MM[1], n_v))
    pts3 = _sheet_points(us, vs, radius, along_x)
    img_pts, depth = project(pts3)
    sheet_map = np.full((fh, fw, 2), -1.0, np.float32)
    zbuf = np.full((fh, fw), np.inf)
    tris_img, tris_src, tris_z = [], [], []
    for i in range(n_v - 1):
        for j in range(n_u - 1):
            a, b, c, d = (i, j), (i, j + 1), (i + 1, j + 1), (i + 1, j)
            for tri in ((a, b, c), (a, c, d)):
                tris_img.append([img_pts[t] for t in tri])
                tris_src.append([(us[t] * mm, vs[t] * mm) for t in tri])
                tris_z.append(np.mean([depth[t] for t in tri]))
    _raster(np.array(tris_img), np.array(tris_src), (fw, fh), np.array(tris_z), sheet_map, zbuf)
    on_sheet = sheet_map[..., 0] >= 0

    # the table top: its own plane, a pattern drawn in table millimetres
    table = _table(rng, np_rng, k, dist, rot, tvec, (fw, fh))
    sheet = _sample_sheet(page, sheet_map, on_sheet)
    tone = rng.uniform(0.9, 1.0)  # the paper's own tone
    img = np.where(on_sheet[..., None], sheet * tone, table)

    # light: a lamp above to one side; Lambertian on the curl, a specular spot, ambient
    lamp = np.array([rng.uniform(-400, 400), rng.uniform(-400, 400), rng.uniform(500, 900)])
    normal = _normals(sheet_map, on_sheet, mm, radius, along_x)
    surf = _sheet_points(sheet_map[..., 0] / mm, sheet_map[..., 1] / mm, radius, along_x)
    to_lamp = lamp - surf
    to_lamp /= np.linalg.norm(to_lamp, axis=-1, keepdims=True) + 1e-9
    lambert = np.clip((normal * to_lamp).sum(axis=-1), 0, 1)
    ambient = rng.uniform(0.35, 0.6)
    shade = np.where(on_sheet, ambient + (1 - ambient) * lambert, rng.uniform(0.7, 1.0))
    to_cam = centre - surf
    to_cam /= np.linalg.norm(to_cam, axis=-1, keepdims=True) + 1e-9
    half = to_lamp + to_cam
    half /= np.linalg.norm(half, axis=-1, keepdims=True) + 1e-9
    spec = np.where(on_sheet, np.clip((normal * half).sum(axis=-1), 0, 1) ** rng.uniform(40, 200), 0)
    warm = np.array([rng.uniform(0.75, 0.95), rng.uniform(0.88, 0.98), 1.0], np.float32)  # BGR: a warm lamp
    level = rng.uniform(0.55, 1.0)
    shine = rng.uniform(60, 220)  # grey levels of the specular spot at its peak
    img = img * (shade[..., None] * level) * warm + spec[..., None] * shine
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    r2 = ((xx - fw / 2) ** 2 + (yy - fh / 2) ** 2) / ((fw / 2) ** 2 + (fh / 2) ** 2)
    vignette = 1 - rng.uniform(0.15, 0.35) * r2
    img *= vignette[..., None]
    img = np.clip(img + np_rng.normal(0, rng.uniform(1.5, 5.0), img.shape), 0, 255).astype(np.uint8)

    # Pillow for the rest: a defocus blur and the JPEG
    pil = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB)).filter(ImageFilter.GaussianBlur(rng.uniform(0.4, 1.3)))
    quality = rng.randint(35, 75)
    buf = io.BytesIO()
    pil.save(buf, format="JPEG", quality=quality, subsampling=2)
    photo = cv2.imdecode(np.frombuffer(buf.getvalue(), np.uint8), cv2.IMREAD_COLOR)

    geom = filled.geom

    def quad(box) -> list[list[float]]:
        x0, y0, x1, y1 = box
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64) / mm
        p, _ = project(_sheet_points(corners[:, 0], corners[:, 1], radius, along_x))
        return [[round(float(x), 2), round(float(y), 2)] for x, y in p]

    truth = filled.truth
    truth["scan"] = "phone3d"
    cells = [{"row": c["row"], "key": c["key"], "quad": quad(c["box"]), "text": c["text"], "hand": c["hand"]}
             for c in filled.cells]
    # what the specular spot washes out, by samples/photo.py's rule: the light's gain and the
    # grey levels the spot adds, per photo pixel, before blur, noise and clipping
    gain = (tone * level * float(warm.mean())) * shade * vignette
    glare = spec * shine * vignette
    visible, glared, touched = [], [], []
    for deal in range(1, 31):
        boxes = [c["box"] for c in filled.cells if c["row"] == str(deal)] + [geom.row_labels[str(deal)]]
        quads = [np.array(quad(b)) for b in boxes]
        if ((np.concatenate(quads) >= 0) & (np.concatenate(quads) <= [fw - 1, fh - 1])).all():
            visible.append(deal)
            share = washed_out(glare, gain, quads[:-1], deal_ink(truth, deal))
            if share >= GLARE_COVER:
                glared.append(deal)
            if share >= GLARE_TOUCH:
                touched.append(deal)
    truth.update({"cells": cells, "page_quad": quad((0, 0, pw, ph)), "rotation": int(round(yaw / 90)) % 4 * 90,
                  "skew_deg": 0.0, "image_size": [fw, fh], "dpi": None, "form_dpi": filled.form_dpi,
                  "page_to_image": None, "jpeg_quality": quality, "visible_deals": visible,
                  "outside_deals": [d for d in range(1, 31) if d not in visible], "glare_deals": glared,
                  "glare_touched_deals": touched,
                  "photo3d": {"radius_mm": None if math.isinf(radius) else round(radius), "rows_bow": along_x,
                              "yaw": round(yaw, 1), "pitch": round(pitch, 1), "roll": round(roll, 1),
                              "height_mm": round(height), "fov_deg": round(math.degrees(fov), 1),
                              "mp": round(fw * fh / 1e6, 2), "jpeg": quality}})
    return photo, truth, buf.getvalue()


def _sample_sheet(page: np.ndarray, sheet_map: np.ndarray, on: np.ndarray) -> np.ndarray:
    """The page seen through ``sheet_map`` (page pixels per photo pixel), as a camera sees it: each
    photo pixel gathers the light of its whole footprint on the page.  The page is first shrunk
    (area-averaged) to about one page pixel per photo pixel (the median footprint), then sampled;
    sampling the 200-dpi page point by point instead breaks a ruling thinner than a footprint into
    dashes, which no lens and sensor do."""
    gx = np.gradient(sheet_map[..., 0], axis=1)
    gy = np.gradient(sheet_map[..., 1], axis=0)
    gxy = np.gradient(sheet_map[..., 0], axis=0)
    gyx = np.gradient(sheet_map[..., 1], axis=1)
    inner = cv2.erode(on.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    det = np.abs(gx * gy - gxy * gyx)[inner]
    foot = float(np.sqrt(np.median(det))) if det.size else 1.0
    src = page.astype(np.float32)
    if foot > 1.0:
        ph, pw = page.shape[:2]
        src = cv2.resize(src, (max(1, round(pw / foot)), max(1, round(ph / foot))), interpolation=cv2.INTER_AREA)
        sx, sy = src.shape[1] / pw, src.shape[0] / ph
        mx = np.where(on, (sheet_map[..., 0] + 0.5) * sx - 0.5, -1).astype(np.float32)
        my = np.where(on, (sheet_map[..., 1] + 0.5) * sy - 0.5, -1).astype(np.float32)
    else:
        mx, my = sheet_map[..., 0], sheet_map[..., 1]
    return cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def _normals(sheet_map: np.ndarray, on: np.ndarray, mm: float, radius: float, along_x: bool) -> np.ndarray:
    """The sheet's surface normal at each pixel's sheet point (the table's normal off the sheet)."""
    w, h = PAGE_MM
    out = np.zeros(sheet_map.shape[:2] + (3,), np.float64)
    out[..., 2] = 1.0
    if math.isinf(radius):
        return out
    a = (sheet_map[..., 0] / mm - w / 2) if along_x else (h / 2 - sheet_map[..., 1] / mm)
    t = a / radius
    n = np.stack([-np.sin(t), np.zeros_like(t), np.cos(t)], axis=-1)
    if not along_x:
        n = n[..., [1, 0, 2]]
    return np.where(on[..., None], n, out)


def _table(rng: random.Random, np_rng: np.random.Generator, k, dist, rot, tvec, size) -> np.ndarray:
    """The table top as the camera sees it: a pattern in the table's plane (z = 0), in mm."""
    fw, fh = size
    # the table plane's homography (lens distortion left out of the background: it is a texture)
    h_plane = k @ np.column_stack([rot[:, 0], rot[:, 1], tvec])
    inv = np.linalg.inv(h_plane)
    ys, xs = np.mgrid[0:fh:4, 0:fw:4].astype(np.float64)
    p = np.stack([xs, ys, np.ones_like(xs)], axis=-1) @ inv.T
    tx, ty = p[..., 0] / p[..., 2], p[..., 1] / p[..., 2]
    kind = rng.choice(("check", "planks"))
    if kind == "check":
        sq = rng.uniform(15, 40)
        c1 = np.array([rng.uniform(0, 255) for _ in range(3)])
        c2 = np.array([rng.uniform(180, 255) for _ in range(3)])
        on = ((np.floor(tx / sq) + np.floor(ty / sq)) % 2)[..., None]
        img = c1 * on + c2 * (1 - on)
    else:
        plank = rng.uniform(60, 140)
        idx = np.floor(ty / plank)
        tone = np.sin(idx * 12.9898) * 43758.5453 % 1
        base = np.array([rng.uniform(40, 80), rng.uniform(70, 110), rng.uniform(110, 160)])
        grain = np.sin(tx / rng.uniform(2, 6) + np.sin(ty / 9.0) * 3)
        img = base * (0.85 + 0.25 * tone[..., None]) * (1 + 0.08 * grain[..., None])
        img *= np.where((ty % plank) < 1.5, 0.6, 1.0)[..., None]
    img = cv2.resize(img.astype(np.float32), (fw, fh), interpolation=cv2.INTER_LINEAR)
    return img


def write_photo3d(out_dir: Path, seed: int, **options) -> Path:
    _, truth, data = _render(seed, **options)
    path = out_dir / f"photo3d-{seed}.jpg"
    path.write_bytes(data)  # Pillow's JPEG, as written
    truth.update(source=path.name, format="jpg", pages=1, page=0)
    (out_dir / f"photo3d-{seed}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.count):
        write_photo3d(args.out, args.seed + i)
    print(f"wrote {args.count} photos to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
