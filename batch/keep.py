"""What a batch keeps of each page for the review app (review/), beside the report's picture.

A sheet that was read keeps its straightened scan at full resolution (``<id>.straight.jpg``, the
cells a person checks are cut from it) and the cells exactly as the reader saw them, rulings
removed, pasted onto one white grey image (``<id>.cells.png``: `rubberscan labels` cuts its
training crops from it).  A page whose table was not found keeps the page itself
(``<id>.page.jpg``), so a person can click the table's corners on it.  Both are described by a
dict stored in the sheet's ``layout`` (keys ``full`` and ``page``); nothing here raises.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from batch.atomic import atomic_write_bytes
from scoring.formspec import DEAL_COLUMNS

STRAIGHT_JPEG_QUALITY = 90  # the cells a person reads: sharper than the report's picture
PAGE_LONG = 2500  # long side of a kept page, pixels: the geometry's own working size at most
PAGE_JPEG_QUALITY = 90
# the errors after which a page is kept for clicking its table's corners (the geometry's words)
KEEP_PAGE_AFTER = ("no summary score table found", "cannot straighten")


def keep_cells(table, sheets_dir: Path, sid: str) -> dict | None:
    """Write ``<sid>.straight.jpg`` and ``<sid>.cells.png`` for a read ``table`` (ocr.data.Table);
    returns the layout's ``full`` entry (file names, size and each cell's box at full resolution),
    or None when they could not be written."""
    try:
        image = np.asarray(table.straight.image)
        h, w = image.shape[:2]
        colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        ok, jpeg = cv2.imencode(".jpg", colour, [cv2.IMWRITE_JPEG_QUALITY, STRAIGHT_JPEG_QUALITY])
        canvas = np.full((h, w), 255, np.uint8)
        cells = []
        for c in table.cells:
            x, y, cw, ch = (int(v) for v in c.box)
            cells.append([c.row, c.key, x, y, cw, ch])
            if c.key in DEAL_COLUMNS and c.image is not None and c.image.shape == (ch, cw):
                canvas[y:y + ch, x:x + cw] = c.image  # the reader's own input, rulings removed
        # run-length strategy: as small as the default deflate here, three times as fast
        ok_png, png = cv2.imencode(".png", canvas, [cv2.IMWRITE_PNG_COMPRESSION, 1,
                                                    cv2.IMWRITE_PNG_STRATEGY,
                                                    cv2.IMWRITE_PNG_STRATEGY_RLE])
        if not (ok and ok_png):
            return None
        atomic_write_bytes(sheets_dir / f"{sid}.straight.jpg", jpeg.tobytes())
        atomic_write_bytes(sheets_dir / f"{sid}.cells.png", png.tobytes())
    except (OSError, ValueError, cv2.error):
        return None
    return {"image": f"{sid}.straight.jpg", "cells_image": f"{sid}.cells.png", "width": w,
            "height": h, "cells": cells}


def keep_page(path: str | None, data: bytes | None, name: str, page: int, error: str | None,
              sheets_dir: Path, sid: str) -> dict | None:
    """For a page whose table was not found (``error``), write the page as ``<sid>.page.jpg``
    (decoded again from the file: the reader keeps no page it could not use) and return the
    layout's ``page`` entry; None for any other error or when it cannot be written."""
    if not error or not any(words in error for words in KEEP_PAGE_AFTER):
        return None
    try:
        from ocr.load import iter_pages

        image = None
        for p in iter_pages(path, data=data, name=name):
            if p.index == page:
                image = p.image
                break
        if image is None:
            return None
        h, w = image.shape[:2]
        scale = min(1.0, PAGE_LONG / max(h, w))
        if scale < 1.0:
            image = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                               interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, PAGE_JPEG_QUALITY])
        if not ok:
            return None
        atomic_write_bytes(sheets_dir / f"{sid}.page.jpg", jpeg.tobytes())
    except Exception:  # noqa: BLE001 - a page that cannot be kept is no reason to lose the record
        return None
    return {"image": f"{sid}.page.jpg", "width": image.shape[1], "height": image.shape[0]}
