"""What a sheet says about which match it is, kept with its reading (``SheetReading.meta["clues"]``)
so a competition can match it later, against whatever roster it has then, without the image:

- ``qr``: the text of the QR code in the top left corner of the straightened page, where a match's
  printed form has its code (ocr/matchform.py), decoded with OpenCV (ocr/qr.py);
- ``lines``: the names and winners lines as small grey PNG crops (base64), the writing cut out with
  a little paper around it and scaled to the names recogniser's input height (ocr/ppocr.py), so
  the competition can score each roster pair's names against them (competition/names.py).

Never raises: a clue that cannot be had is left out.
"""

from __future__ import annotations

import base64

import cv2
import numpy as np

from ocr.data import Table
from ocr.ppocr import HEIGHT, writing_crop
from ocr.qr import decode_codes, may_hold_code

LINE_FIELDS = ("names_ns", "names_ew", "winners")
# the top left corner of the straightened page (as shares of its height and width) holds the code
# of our printed forms (at the margins, 22 mm: ~14 % of the height, ~20 % of the width)
QR_CORNER = (0.25, 0.45)
# ... a code 21-33 modules of 4-9 px on the page straightened to 2,000 px: its side as shares of that,
# with room either way (a corner with no block that size is not searched: ocr.qr.may_hold_code)
QR_SIDE = (0.025, 0.2)
LINE_MARGIN = 0.15  # paper around the writing, x its height (as ocr.ppocr.read_line cuts it)
PAPER_BELOW = 25
MIN_CONTRAST = 30  # the darkest writing this much darker than the paper, or the field is empty
INK_SHARE = 0.4  # ink: darker than the paper by this share of the darkest writing (pencil too)
# a printed label taken in at an end of a field: at most this wide (x the ink's height: "E/W"),
# this far from the writing (words of a name are closer), within this share of the field's end
LABEL_WIDTH, LABEL_GAP, LABEL_EDGE = 1.6, 1.2, 0.5  # grey levels within this of the crop's paper become paper: small, clean PNGs


def line_crop(grey: np.ndarray, margin: float = LINE_MARGIN) -> np.ndarray | None:
    """A text field's writing as the recogniser reads it: cut to its ink with ``margin`` of paper,
    HEIGHT rows high, faint paper noise whitened; None when the field holds no writing."""
    g = np.asarray(grey)
    if g.ndim == 3:
        g = cv2.cvtColor(g, cv2.COLOR_BGR2GRAY)
    if g.size == 0:
        return None
    paper = int(np.percentile(g, 50))
    contrast = paper - int(np.percentile(g, 0.5))
    if contrast < MIN_CONTRAST:
        return None
    ink = g < paper - max(MIN_CONTRAST // 2, contrast * INK_SHARE)
    rows = np.flatnonzero(ink.sum(axis=1) >= 2)
    cols = np.flatnonzero(ink.sum(axis=0) >= 2)
    if len(rows) == 0 or len(cols) == 0 or ink.sum() < 12:
        return None
    cols = _without_stray_label(cols, rows[-1] - rows[0] + 1, g.shape[1])
    kept = ink[:, cols[0]:cols[-1] + 1]
    rows = np.flatnonzero(kept.sum(axis=1) >= 2)  # the writing's own rows
    if len(rows) == 0:  # thin strokes left (a speck of rows >= 2 was trimmed): any inked row
        rows = np.flatnonzero(kept.any(axis=1))
        if len(rows) == 0:
            return None
    crop = writing_crop(g, (int(rows[0]), int(rows[-1]) + 1), (int(cols[0]), int(cols[-1]) + 1),
                        margin)
    width = max(1, round(HEIGHT * crop.shape[1] / crop.shape[0]))
    crop = cv2.resize(crop, (width, HEIGHT),
                      interpolation=cv2.INTER_AREA if crop.shape[0] > HEIGHT else cv2.INTER_LINEAR)
    crop[crop >= paper - PAPER_BELOW] = 255
    return crop


def _without_stray_label(cols: np.ndarray, height: int, width: int) -> np.ndarray:
    """The inked columns less small groups alone at either end of the field, far from the rest:
    the next field's printed label ("E/W") that a field cut a little too wide takes in, a speck."""
    for _ in range(4):
        gaps = np.flatnonzero(np.diff(cols) > LABEL_GAP * height)
        if len(gaps) == 0:
            return cols
        first, last = cols[: gaps[0] + 1], cols[gaps[-1] + 1:]
        if last[-1] - last[0] < LABEL_WIDTH * height and last[0] > (1 - LABEL_EDGE) * width:
            cols = cols[: gaps[-1] + 1]
        elif first[-1] - first[0] < LABEL_WIDTH * height and first[-1] < LABEL_EDGE * width:
            cols = cols[gaps[0] + 1:]
        else:
            return cols
    return cols


def encode_png(grey: np.ndarray) -> str:
    ok, buf = cv2.imencode(".png", grey, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise ValueError("PNG encoding failed")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def decode_png(text: str) -> np.ndarray:
    """A crop stored by :func:`encode_png` back as a grey image; raises ValueError when damaged."""
    try:
        data = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"stored line crop is not base64: {exc}") from None
    image = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE) if data.size else None
    if image is None:
        raise ValueError("stored line crop is not a PNG image")
    return image


def sheet_clues(table: Table) -> dict:
    """The clues of one straightened, cut sheet: {"qr": [...], "lines": {field: png}}."""
    out: dict = {"qr": [], "lines": {}}
    try:
        image = table.straight.image
        h, w = image.shape[:2]
        corner = image[: max(1, round(QR_CORNER[0] * h)), : max(1, round(QR_CORNER[1] * w))]
        if may_hold_code(corner, (QR_SIDE[0] * max(h, w), QR_SIDE[1] * max(h, w))):
            out["qr"] = decode_codes(corner)
    except (cv2.error, ValueError, AttributeError):
        pass
    for cell in table.cells:
        if cell.key in LINE_FIELDS and cell.key not in out["lines"]:
            try:
                crop = line_crop(cell.image)
                if crop is not None:
                    out["lines"][cell.key] = encode_png(crop)
            except (cv2.error, ValueError):
                continue
    return out
