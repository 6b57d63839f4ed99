"""The review tests' batch folder, made from the committed sample scans through the real batch:

- ``blotted.jpg``: sample 01 with three number cells scribbled over (unreadable: review items
  whose values the arithmetic knows) besides its own unsure cell;
- ``photo.jpg``: sample 02 as it is (a players' cumulative mistake: a flag);
- ``turned.jpg``: sample 03 turned 30 degrees on white paper, squared like graph paper all round
  its deal table (ruled clutter in which the geometry finds no table today: a sheet to click the
  corners of); ``turned_corners()`` are its deal table's corners on that page.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from tests.support import SCANS

BLOTTED = "01-classic-clean-mnist-blue"
PHOTO = "02-wide-photo-strokes-black"
TURNED = "03-classic-skewed-hershey-pencil"
BLOTS = (("3", "cum_ns"), ("7", "ns"), ("20", "cum_ew"))  # the cells scribbled over
TURN_DEG, TURN_SCALE = 30.0, 0.8


def _quads(name: str) -> dict[tuple[str, str], np.ndarray]:
    truth = json.loads((SCANS / f"{name}.truth.json").read_text())
    return {(c["row"], c["key"]): np.array(c["quad"], float) for c in truth["cells"]}


def truth_rows(name: str) -> list[dict]:
    return json.loads((SCANS / f"{name}.truth.json").read_text())["rows"]


def blotted(out: Path) -> Path:
    img = cv2.imread(str(SCANS / f"{BLOTTED}.jpg"))
    quads = _quads(BLOTTED)
    for row, key in BLOTS:
        q = quads[(row, key)]
        c, w, h = q.mean(axis=0), q[1][0] - q[0][0], q[3][1] - q[0][1]
        rng = np.random.default_rng(int(row))
        pts = np.stack([c[0] + rng.uniform(-0.4, 0.4, 40) * w,
                        c[1] + rng.uniform(-0.3, 0.3, 40) * h], axis=1).astype(np.int32)
        cv2.polylines(img, [pts], False, (120, 40, 20), 3)
    path = out / "blotted.jpg"
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return path


def _turn_matrix(w: int, h: int) -> tuple[np.ndarray, int]:
    side = int(1.5 * max(h, w))
    m = cv2.getRotationMatrix2D((w / 2, h / 2), TURN_DEG, 1.0)
    m[0, 2] += (side - w) / 2
    m[1, 2] += (side - h) / 2
    scale = np.diag([TURN_SCALE, TURN_SCALE, 1.0])
    return scale @ np.vstack([m, [0, 0, 1]]), round(side * TURN_SCALE)


GRID_STEP, GRID_GREY = 25, 150  # the squares ruled all round the table: pixels, grey level


def turned(out: Path) -> Path:
    img = cv2.imread(str(SCANS / f"{TURNED}.jpg"))
    m, side = _turn_matrix(img.shape[1], img.shape[0])
    page = cv2.warpPerspective(img, m, (side, side), borderValue=(255, 255, 255))
    squares = np.full((side, side), 255, np.uint8)
    squares[:, ::GRID_STEP] = GRID_GREY
    squares[::GRID_STEP, :] = GRID_GREY
    cv2.fillPoly(squares, [np.array(turned_corners(), np.int32)], 255)  # the table left clear
    page = np.minimum(page, squares[..., None])
    path = out / "turned.jpg"
    cv2.imwrite(str(path), page, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return path


def turned_corners() -> list[list[float]]:
    """The deal table's outer corners on turned.jpg (tl, tr, br, bl of the table as printed):
    from the truth's cell outlines, one column left (the deal numbers) and two rows up."""
    quads = _quads(TURNED)
    tl, tr = quads[("1", "dealer")][0], quads[("1", "cum_ew")][1]
    br, bl = quads[("30", "cum_ew")][2], quads[("30", "dealer")][3]
    col, row = (tr - tl) / 5, (bl - tl) / 30
    pts = np.array([tl - col - 2 * row, tr - 2 * row, br, bl - col])
    img = cv2.imread(str(SCANS / f"{TURNED}.jpg"))
    m, _ = _turn_matrix(img.shape[1], img.shape[0])
    return cv2.perspectiveTransform(pts[None], m)[0].round(1).tolist()


def make_inputs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    blotted(folder)
    shutil.copy(SCANS / f"{PHOTO}.jpg", folder / "photo.jpg")
    turned(folder)
    return folder
