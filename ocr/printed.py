"""Printed text of the form (header words, deal numbers) and the handwritten names and
winners fields, read with Tesseract in one batch per sheet.

Tesseract costs a page layout analysis per call (and, through pytesseract, a process
start of ~0.1 s CPU), so all crops of a sheet are pasted into a composite image (the
header band on top, then the deal-number cells one per line, so Tesseract cannot run
two numbers together) and every word found is mapped back to the crop it came from by
its position.  The names/winners crops go below them, each on its own line: in the same
image and call through pytesseract (no character whitelist then), as a second in-process
call with tesserocr (no start-up to save, and the printed part keeps its whitelist).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ocr import tess
from ocr.settings import GeometrySettings

WHITELIST = "0123456789DdEeaAlLrRSsCcoOuUmMtTiIvVNWw/"
DIGIT_FIX = str.maketrans({"O": "0", "o": "0", "D": "0", "l": "1", "I": "1", "i": "1",
                           "L": "1", "S": "5", "s": "5"})
DEFAULT = GeometrySettings()  # the tuning values (printed_* and field_*) live there


@dataclass
class PrintedText:
    header_words: list[tuple[str, float]]  # (word, x centre in the header crop's pixels)
    labels: list[str | None]  # per deal-number crop: its digits, or None when unread
    raw: list[str]  # per crop: the text as read ("" when nothing)
    texts: dict[str, str | None] = field(default_factory=dict)  # per field key: words read
    scale: float = 1.0  # the crops were enlarged by this factor for Tesseract
    header_sure: list[str] = field(default_factory=list)  # header words Tesseract is sure of


def read_printed(header: np.ndarray | None, labels: list[np.ndarray],
                 fields: dict[str, np.ndarray] | None = None, settings: GeometrySettings = DEFAULT,
                 soft: bool = False) -> PrintedText:
    """Read the header band and each deal-number crop (grey, paper 255), and the text
    of each ``fields`` crop (key -> grey image), in one batch.  ``soft`` (a photo's grey, blurred
    print): each deal-number crop's contrast is stretched to its own ink and paper and sharpened
    first (on the geometry bench's tuning photos: the crops' agreeing deal numbers 73 -> 118 of
    287; thresholding each at its Otsu level instead: 87)."""
    fields = fields or {}
    ink = settings.printed_ink_below
    if soft:
        labels = [_sharpen(_stretch(c, 1), settings) if c is not None and c.size else c for c in labels]
    tight = [_tight(c, ink) for c in labels]
    heights = [t.shape[0] for t in tight if t is not None]
    if not heights:
        return PrintedText([], [None] * len(labels), [""] * len(labels), dict.fromkeys(fields))
    f = min(3.0, max(1.0, settings.printed_target_h / float(np.median(heights))))
    comp, slots, head_rect = _compose(header, tight, f, settings.printed_per_line)
    merge = bool(fields) and tess.backend() != "tesserocr"  # one process for all
    field_comp, spans = _compose_fields(fields, settings)
    if field_comp is not None and merge:
        top = comp.shape[0]
        words = _ocr_words(_stack(comp, field_comp), whitelist="")
        field_words = [(t, x, y - top, c) for t, x, y, c in words if y >= top]
        words = [w for w in words if w[2] < top]
    else:
        words = _ocr_words(comp)
        field_words = _ocr_words(field_comp, whitelist="") if field_comp is not None else []
    texts: list[list[tuple[float, str]]] = [[] for _ in labels]
    head: list[tuple[str, float]] = []
    sure: list[str] = []
    for text, x, y, conf in words:
        if head_rect is not None and y < head_rect[2]:
            head.append((text, (x - head_rect[1]) / head_rect[0]))
            if conf >= settings.header_sure_conf:
                sure.append(text)
            continue
        for i, (sx0, sy0, sx1, sy1) in enumerate(slots):
            if sx0 <= x < sx1 and sy0 <= y < sy1:
                texts[i].append((x, text))
                break
    raw = ["".join(t for _, t in sorted(parts)) for parts in texts]
    digits = [s.translate(DIGIT_FIX) for s in raw]
    return PrintedText(head, [d if d.isdigit() else None for d in digits], raw,
                       _read_again(fields, _field_texts(fields, spans, field_words, settings), settings), f,
                       sure)


def read_header(header: np.ndarray, f: float = 1.0) -> list[tuple[str, float]]:
    """The words of a header band alone (enlarged by ``f``, as in :func:`read_printed`):
    (word, x centre in the header crop's pixels)."""
    img = _resize(header, f)
    pad = max(8, img.shape[0] // 2)
    comp = np.full((img.shape[0] + 2 * pad, img.shape[1] + 2 * pad), 255, np.uint8)
    comp[pad:pad + img.shape[0], pad:pad + img.shape[1]] = img
    return [(text, (x - pad) / f) for text, x, _, _ in _ocr_words(comp)]


def read_fields(fields: dict[str, np.ndarray], settings: GeometrySettings = DEFAULT) -> dict[str, str | None]:
    """The text of each ``fields`` crop (key -> grey image), read in one call (and those
    Tesseract found nothing in once more, trimmed to their writing: _read_again)."""
    return _read_again(fields, _read_once(fields, settings), settings)


def _read_once(fields: dict[str, np.ndarray], settings: GeometrySettings) -> dict[str, str | None]:
    comp, spans = _compose_fields(fields, settings)
    return _field_texts(fields, spans, _ocr_words(comp, whitelist="") if comp is not None else [], settings)


def _read_again(fields: dict[str, np.ndarray], texts: dict[str, str | None],
                settings: GeometrySettings) -> dict[str, str | None]:
    """``texts`` with each field read as nothing read again, in one call, from its crop
    trimmed to the rows its writing fills (_writing_rows): scaled to field_h whole, a short
    "E/W" written small comes out ~10 px high, under what Tesseract reads."""
    again = {}
    for key, img in fields.items():
        if texts.get(key) is None and img is not None and img.ndim == 2 and img.size:
            trimmed = _writing_rows(img, settings)
            if trimmed is not None:
                again[key] = trimmed
    if not again:
        return texts
    redo = _read_once(again, settings)
    return {key: text or redo.get(key) for key, text in texts.items()}


def _writing_rows(img: np.ndarray, settings: GeometrySettings) -> np.ndarray | None:
    """``img`` (contrast stretched) cut to the rows holding at least field_writing_row of its
    fullest row's ink, with a quarter of that height as margin; None when it has no ink."""
    img = _stretch(img)
    per_row = (img < settings.printed_ink_below).sum(axis=1)
    if per_row.max() < 3:
        return None
    rows = np.flatnonzero(per_row >= max(2, settings.field_writing_row * per_row.max()))
    y0, y1 = int(rows[0]), int(rows[-1]) + 1
    pad = max(2, (y1 - y0) // 4)
    return img[max(0, y0 - pad):y1 + pad]


def _compose_fields(fields: dict[str, np.ndarray], settings: GeometrySettings):
    """The field crops, each scaled to field_h high, one under the other on white: the
    image (None when there is nothing to read) and each key's (top, bottom) in it.
    Each crop's contrast is stretched to its own ink and paper: faint pencil would fall
    under one threshold for the whole image next to the printed digits."""
    fh, gap = settings.field_h, settings.field_gap
    scaled = []
    for key, img in fields.items():
        if img is None or img.size == 0 or min(img.shape[:2]) < 2:
            continue
        if img.ndim == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        img = _stretch(img)
        s = fh / img.shape[0]
        scaled.append((key, cv2.resize(img, (max(1, round(img.shape[1] * s)), fh),
                                       interpolation=cv2.INTER_AREA)))
    if not scaled:
        return None, {}
    width = max(img.shape[1] for _, img in scaled) + 2 * gap
    comp = np.full((gap + len(scaled) * (fh + gap), width), 255, np.uint8)
    spans = {}
    for i, (key, img) in enumerate(scaled):
        y = gap + i * (fh + gap)
        comp[y:y + fh, gap:gap + img.shape[1]] = img
        spans[key] = (y, y + fh)
    return comp, spans


def _sharpen(img: np.ndarray, settings: GeometrySettings) -> np.ndarray:
    """``img`` through an unsharp mask (GeometrySettings.printed_sharpen: sigma, amount)."""
    sigma, amount = settings.printed_sharpen
    blur = cv2.GaussianBlur(img.astype(np.float32), (0, 0), sigma)
    return np.clip(img + amount * (img - blur), 0, 255).astype(np.uint8)


def _stretch(img: np.ndarray, dark: float = 1) -> np.ndarray:
    """``img`` with its darkest ink (``dark`` percentile) at 0 and its paper (median) at 255."""
    lo, hi = np.percentile(img, (dark, 50))
    if hi - lo < 8:
        return img
    return cv2.convertScaleAbs(img, alpha=255.0 / (hi - lo), beta=-255.0 * lo / (hi - lo))


def _field_texts(fields: dict[str, np.ndarray], spans: dict[str, tuple[int, int]],
                 words: list[tuple[str, float, float, float]], settings: GeometrySettings) -> dict[str, str | None]:
    """Each field's words (Tesseract confidence >= field_min_conf) left to right, joined
    by spaces; None for a field with none."""
    found: dict[str, list[tuple[float, str]]] = {k: [] for k in fields}
    for text, x, y, conf in words:
        if conf < settings.field_min_conf:
            continue
        for key, (a, b) in spans.items():
            if a - settings.field_gap / 2 <= y <= b + settings.field_gap / 2:
                found[key].append((x, text))
                break
    return {k: " ".join(t for _, t in sorted(ws)) or None for k, ws in found.items()}


def _stack(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a`` above ``b`` on a white canvas as wide as the wider."""
    out = np.full((a.shape[0] + b.shape[0], max(a.shape[1], b.shape[1])), 255, np.uint8)
    out[:a.shape[0], :a.shape[1]] = a
    out[a.shape[0]:, :b.shape[1]] = b
    return out


def _tight(crop: np.ndarray, ink_below: int) -> np.ndarray | None:
    """The crop trimmed to its ink (darker than ``ink_below``, with a little paper around), or None
    when empty."""
    ink = crop < ink_below
    if ink.sum() < 4:
        return None
    ys, xs = np.nonzero(ink)
    pad = 2
    y0, y1 = max(0, ys.min() - pad), min(crop.shape[0], ys.max() + 1 + pad)
    x0, x1 = max(0, xs.min() - pad), min(crop.shape[1], xs.max() + 1 + pad)
    return crop[y0:y1, x0:x1]


def _resize(img: np.ndarray, f: float) -> np.ndarray:
    if abs(f - 1.0) < 1e-3:
        return img
    return cv2.resize(img, (max(1, round(img.shape[1] * f)), max(1, round(img.shape[0] * f))),
                      interpolation=cv2.INTER_CUBIC)


def _compose(header: np.ndarray | None, crops: list[np.ndarray | None], f: float, per_line: int = 1):
    """Paste the header and crops into one white image; return it, each crop's slot
    rectangle (x0, y0, x1, y1), and the header's (scale, left, bottom) or None."""
    scaled = [_resize(c, f) if c is not None else None for c in crops]
    cell_h = max(s.shape[0] for s in scaled if s is not None)
    cell_w = max(s.shape[1] for s in scaled if s is not None)
    gap_x, gap_y = 2 * cell_h, max(8, cell_h // 2)
    slot_w, slot_h = cell_w + gap_x, cell_h + gap_y
    n_lines = (len(crops) + per_line - 1) // per_line
    grid_w = per_line * slot_w + gap_x
    head = _resize(header, f) if header is not None else None
    head_h = head.shape[0] + gap_y if head is not None else 0
    width = max(grid_w, head.shape[1] + 2 * gap_x if head is not None else 0)
    comp = np.full((gap_y + head_h + n_lines * slot_h + gap_y, width), 255, np.uint8)
    head_rect = None
    if head is not None:
        comp[gap_y:gap_y + head.shape[0], gap_x:gap_x + head.shape[1]] = head
        head_rect = (f, gap_x, gap_y + head.shape[0] + gap_y // 2)
    slots = []
    for i, s in enumerate(scaled):
        r, c = divmod(i, per_line)
        x0 = gap_x + c * slot_w
        y0 = gap_y + head_h + r * slot_h
        slots.append((x0 - gap_x // 2, y0 - gap_y // 2, x0 + slot_w - gap_x // 2, y0 + slot_h - gap_y // 2))
        if s is not None:
            ox = x0 + (cell_w - s.shape[1]) // 2
            oy = y0 + (cell_h - s.shape[0]) // 2
            comp[oy:oy + s.shape[0], ox:ox + s.shape[1]] = s
    return comp, slots, head_rect


def _ocr_words(img: np.ndarray, whitelist: str = WHITELIST) -> list[tuple[str, float, float, float]]:
    """Words Tesseract finds in ``img``: (text, x centre, y centre, confidence)."""
    return [(w.text, w.cx, w.cy, w.conf) for w in tess.words(img, psm=6, whitelist=whitelist)]
