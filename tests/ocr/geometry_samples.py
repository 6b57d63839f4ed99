"""Sheets for the geometry tests: a rendered form filled with script-font numbers and scanned or
photographed here (skew, quarter turns, perspective on a dark table, shadow + JPEG, fax), with every
cell's truth quad; and generated sheets (samples.generate) through the loader."""

from __future__ import annotations

import random

import cv2
import numpy as np

from ocr.data import Page
from ocr.form import random_style, render_form

BACKGROUND = (60, 80, 100)  # a wooden table, BGR


def handwriting(img: np.ndarray, geom, rng: random.Random) -> None:
    """Script-font numbers in most cells, some written across the ruling below."""
    for (_row, key), (x0, y0, x1, y1) in geom.cells.items():
        if rng.random() < 0.2:
            continue
        text = rng.choice("NESW") if key == "dealer" else str(rng.choice([0, 30, 120, 450, 1230]))
        h = y1 - y0
        scale = h / 30.0 * rng.uniform(0.8, 1.1)
        y = int(y1 + 0.15 * h) if rng.random() < 0.2 else int(y1 - rng.uniform(0.1, 0.3) * h)
        cv2.putText(img, text, (int(x0 + rng.uniform(0.05, 0.3) * (x1 - x0)), y),
                    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, scale, 40, max(1, int(scale * 2)), cv2.LINE_AA)


def make_scan(seed: int, layout: str, angle: float = 0.0, turns: int = 0, photo: bool = False,
              post: str = "", dpi: int = 200):
    """A filled sheet scanned or photographed; returns (Page, truth quads on Page.image)
    keyed by (row, key), with row "" for the text fields."""
    rng = random.Random(seed)
    img, geom = render_form(random_style(rng, layout, dpi=dpi))
    handwriting(img, geom, rng)
    bgr = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = img.shape
    m = np.eye(3)
    if photo:
        pad = int(0.15 * w)
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = src + pad + np.float32([[rng.uniform(-0.06, 0.06) * w for _ in range(2)] for _ in range(4)])
        p = cv2.getPerspectiveTransform(src, dst)
        w, h = w + 2 * pad, h + 2 * pad
        bgr = cv2.warpPerspective(bgr, p, (w, h), borderValue=BACKGROUND)
        m = p @ m
    if angle:
        r = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        bgr = cv2.warpAffine(bgr, r, (w, h), borderValue=BACKGROUND if photo else (255, 255, 255))
        m = np.vstack([r, [0, 0, 1]]) @ m
    for _ in range(turns):
        bgr = cv2.rotate(bgr, cv2.ROTATE_90_CLOCKWISE)
        m = np.array([[0, -1, h - 1], [1, 0, 0], [0, 0, 1]], float) @ m
        w, h = h, w
    if post == "shadow+jpeg":
        ramp = np.linspace(0.55, 1.0, w, dtype=np.float32)[None, :, None]
        bgr = (bgr * ramp).astype(np.uint8)
        bgr = cv2.imdecode(cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 55])[1], 1)
    elif post == "fax":
        g = cv2.GaussianBlur(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        b = np.where(g < 150, 0, 255).astype(np.uint8)
        flip = np.random.default_rng(seed).random(b.shape) < 0.005
        b[flip] = 255 - b[flip]
        bgr = cv2.cvtColor(b, cv2.COLOR_GRAY2BGR)
    boxes = dict(geom.cells) | {("", k): b for k, b in geom.fields.items()}
    truth = {k: cv2.perspectiveTransform(geom.quad(b)[None].astype(np.float64), m)[0]
             for k, b in boxes.items()}
    return Page(source=f"synthetic-{seed}", index=0, image=bgr), truth


def page_of(img: np.ndarray, name: str) -> Page:
    bgr = img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return Page(source=name, index=0, image=bgr)


def generated(seed: int, **options):
    """A sheet from samples.generate (with ``options``) through the loader, with its truth quads
    on the page."""
    from ocr.load import load_pages
    from samples.generate import generate_sheet

    data, truth = generate_sheet(seed, **options)
    name = f"sheet-{seed}.{truth['format']}"
    page = load_pages(name, data=data, name=name)[truth.get("page", 0) or 0]
    tw, th = truth.get("image_size") or (page.image.shape[1], page.image.shape[0])
    scale = np.float32([page.image.shape[1] / tw, page.image.shape[0] / th])
    quads = {(c["row"], c["key"]): np.array(c["quad"], np.float32) * scale
             for c in truth["cells"] if c["row"]}
    return page, truth, quads


def photo(seed: int, condition: str, span: str = "tune", cut=None):
    """A generated phone photo (samples.photo) as a Page, with its truth."""
    from samples.photo import render_photo

    img, truth = render_photo(seed, conditions=(condition,), span=span, cut=cut)
    return Page(source=f"photo-{seed}", index=0, image=img), truth


def photo3d(seed: int):
    """A generated 3-D scene (samples.photo3d) as a Page, with its truth."""
    from samples.photo3d import render_photo3d

    img, truth = render_photo3d(seed)
    return Page(source=f"photo3d-{seed}", index=0, image=img), truth


def photographed_table(seed: int, condition: str, span: str = "tune"):
    """(Table, truth) of a generated phone photo as it is sent -- a JPEG at its drawn quality --
    loaded, straightened and its table found, as the product does."""
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table
    from samples.photo import render_photo

    image, truth = render_photo(seed, conditions=(condition,), span=span)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(truth["jpeg_quality"])])
    assert ok
    return find_table(straighten(load_pages("photo.jpg", data=buf.tobytes(), name="photo.jpg")[0])), truth


def cells_right(table, truth: dict) -> str:
    """"" when every cell of every deal the photo shows is cut and its outline's centre lies inside
    the truth cell, no cell of a deal outside the photo is cut, and the deals outside are named
    missing (cells of deals the glare touches may be named missing instead); else what is wrong."""
    visible, outside = set(truth["visible_deals"]), set(truth["outside_deals"])
    touched = set(truth.get("glare_touched_deals", []))
    missing = {(str(d), k) for m in table.missing for d in m.deals for k in m.keys}
    named_out = {d for m in table.missing if m.reason == m.OUTSIDE for d in m.deals}
    got = {(c.row, c.key): c for c in table.cells if c.row}
    for c in truth["cells"]:
        if not c["row"].isdigit():
            continue
        deal, key = int(c["row"]), c["key"]
        cell = got.get((c["row"], key))
        if deal not in visible:
            if cell is not None:
                return f"deal {deal} is outside the photo, but cut"
            continue
        if cell is None:
            if deal in touched and (c["row"], key) in missing:
                continue
            return f"cell {deal}/{key} " + ("named missing" if (c["row"], key) in missing else "not cut")
        centre = tuple(float(v) for v in cell.quad.mean(axis=0))
        if cv2.pointPolygonTest(np.array(c["quad"], np.float32), centre, False) < 0:
            return f"cell {deal}/{key} cut in the wrong place"
    if not outside <= named_out:
        return f"deals {sorted(outside - named_out)} outside the photo not named missing"
    return ""
