"""The pictures the review app shows, cut from what the batch kept of each sheet (batch/keep.py):
a cell at the straightened scan's full resolution, its row with the rows around it, the page of
a sheet whose table was not found.  Files are only ever taken from inside the batch folder.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

import cv2
import numpy as np

from batch.ledger import LedgerSheet

# a file of the folder the app may serve (its report, pictures and per-sheet results)
SERVED_SUFFIXES = (".html", ".jpg", ".png", ".json")
MARK = (0, 140, 255)  # BGR orange: the cell in question, outlined on its row


def inside(folder: Path, relative: str) -> Path | None:
    """``folder / relative`` when that is a file inside ``folder`` (links resolved, no hidden
    part, a suffix the app serves); None otherwise."""
    root = folder.resolve()
    parts = Path(relative).parts
    if not parts or any(p.startswith(".") or p in ("..", "/") for p in parts):
        return None
    try:
        path = (root / relative).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if not path.is_relative_to(root) or path.suffix.lower() not in SERVED_SUFFIXES:
        return None
    return path if path.is_file() else None


class Pictures:
    """Cuts and caches the pictures of one batch folder's sheets."""

    def __init__(self, out_dir: Path, cache_size: int = 6):
        self.sheets_dir = Path(out_dir) / "sheets"
        self._cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ files
    def file(self, name: str | None) -> Path | None:
        """A kept file of the sheets folder by its name (never a path elsewhere)."""
        if not name:
            return None
        return inside(self.sheets_dir, Path(str(name)).name)

    def load(self, name: str | None, grey: bool = False) -> np.ndarray | None:
        """A kept picture, decoded (the last few are cached)."""
        path = self.file(name)
        if path is None:
            return None
        key = (str(path), path.stat().st_mtime_ns, grey)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR)
        if image is None:
            return None
        with self._lock:
            self._cache[key] = image
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return image

    # ------------------------------------------------------------------ where cells are
    @staticmethod
    def boxes(sheet: LedgerSheet) -> tuple[str | None, dict[tuple[str, str], tuple]]:
        """(picture name, (row, key) -> (x, y, w, h) on it): the full-resolution scan when the
        batch kept it, else the report's smaller picture."""
        layout = sheet.layout or {}
        full = layout.get("full")
        if full and full.get("image"):
            return full["image"], {(str(r), str(k)): (x, y, w, h)
                                   for r, k, x, y, w, h in full.get("cells", [])}
        return sheet.image, {(str(r), str(k)): (x, y, w, h)
                             for r, k, x, y, w, h in layout.get("cells", [])}

    def cell(self, sheet: LedgerSheet, row: str, key: str) -> bytes | None:
        """PNG of one cell as written (with a little of the paper around it)."""
        name, boxes = self.boxes(sheet)
        image = self.load(name)
        if image is None or (row, key) not in boxes:
            return None
        x, y, w, h = boxes[(row, key)]
        crop = _crop(image, x - 0.1 * w, y - 0.25 * h, x + 1.1 * w, y + 1.25 * h)
        ok, png = cv2.imencode(".png", crop)
        return png.tobytes() if ok and crop.size else None

    def rows(self, sheet: LedgerSheet, row: str, marked: list[tuple[str, str]]) -> bytes | None:
        """JPEG of a deal row with the rows before and after it (the printed deal numbers
        included), the ``marked`` cells outlined."""
        name, boxes = self.boxes(sheet)
        image = self.load(name)
        if image is None:
            return None
        order = sorted({r for r, _ in boxes if r.isdigit()}, key=int) + (
            ["total"] if any(r == "total" for r, _ in boxes) else [])
        if row not in order:
            return None
        i = order.index(row)
        shown = [b for (r, _), b in boxes.items() if r in order[max(0, i - 1):i + 2]]
        x0 = min(b[0] for b in shown)
        y0 = min(b[1] for b in shown)
        x1 = max(b[0] + b[2] for b in shown)
        y1 = max(b[1] + b[3] for b in shown)
        dealer = boxes.get((row, "dealer"))
        left = x0 - (1.3 * dealer[2] if dealer else 0.0)  # the printed deal number
        strip = _crop(image, left, y0 - 4, x1 + 4, y1 + 4).copy()
        ox, oy = max(0, round(left)), max(0, round(y0 - 4))
        thick = max(2, round(image.shape[0] / 700))
        for r, k in marked:
            if (r, k) in boxes:
                x, y, w, h = boxes[(r, k)]
                cv2.rectangle(strip, (round(x) - ox, round(y) - oy),
                              (round(x + w) - ox, round(y + h) - oy), MARK, thick)
        ok, jpeg = cv2.imencode(".jpg", strip, [cv2.IMWRITE_JPEG_QUALITY, 90])
        return jpeg.tobytes() if ok and strip.size else None

    def reader_cell(self, sheet: LedgerSheet, row: str, key: str) -> np.ndarray | None:
        """A cell exactly as the reader saw it (grey, rulings removed), from ``<id>.cells.png``."""
        full = (sheet.layout or {}).get("full") or {}
        image = self.load(full.get("cells_image"), grey=True)
        box = {(str(r), str(k)): (x, y, w, h)
               for r, k, x, y, w, h in full.get("cells", [])}.get((row, key))
        if image is None or box is None:
            return None
        x, y, w, h = (int(v) for v in box)
        crop = image[y:y + h, x:x + w]
        return crop.copy() if crop.size else None

    def page(self, sheet: LedgerSheet) -> tuple[Path, int, int] | None:
        """The kept page of a sheet whose table was not found: (file, width, height)."""
        info = (sheet.layout or {}).get("page") or {}
        path = self.file(info.get("image"))
        if path is None:
            return None
        return path, int(info.get("width") or 0), int(info.get("height") or 0)


def _crop(image: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    h, w = image.shape[:2]
    a, b = max(0, round(x0)), max(0, round(y0))
    c, d = min(w, round(x1)), min(h, round(y1))
    return image[b:d, a:c]
