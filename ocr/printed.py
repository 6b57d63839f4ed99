"""Printed text of the form (header words, deal numbers) read with ONE Tesseract call.

Tesseract costs a process start and a page layout analysis per call, so all crops
of a sheet are pasted into one composite image (the header band on top, then the
deal-number cells one per line, so Tesseract cannot run two numbers together) and
every word found is mapped back to the crop it came from by its position.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ocr import tess

PER_LINE = 1  # deal-number crops per composite line (one: Tesseract cannot merge them)
TARGET_H = 22  # printed digit height (px) Tesseract reads best at, roughly
WHITELIST = "0123456789DdEeaAlLrRSsCcoOuUmMtTiIvVNWw/"
DIGIT_FIX = str.maketrans({"O": "0", "o": "0", "D": "0", "l": "1", "I": "1", "i": "1",
                           "L": "1", "S": "5", "s": "5"})


@dataclass
class PrintedText:
    header_words: list[tuple[str, float]]  # (word, x centre in the header crop's pixels)
    labels: list[str | None]  # per deal-number crop: its digits, or None when unread
    raw: list[str]  # per crop: the text as read ("" when nothing)


def read_printed(header: np.ndarray | None, labels: list[np.ndarray]) -> PrintedText:
    """Read the header band and each deal-number crop (grey, paper 255) in one call."""
    tight = [_tight(c) for c in labels]
    heights = [t.shape[0] for t in tight if t is not None]
    if not heights:
        return PrintedText([], [None] * len(labels), [""] * len(labels))
    f = min(3.0, max(1.0, TARGET_H / float(np.median(heights))))
    comp, slots, head_rect = _compose(header, tight, f)
    words = _ocr_words(comp)
    texts: list[list[tuple[float, str]]] = [[] for _ in labels]
    head: list[tuple[str, float]] = []
    for text, x, y in words:
        if head_rect is not None and y < head_rect[2]:
            head.append((text, (x - head_rect[1]) / head_rect[0]))
            continue
        for i, (sx0, sy0, sx1, sy1) in enumerate(slots):
            if sx0 <= x < sx1 and sy0 <= y < sy1:
                texts[i].append((x, text))
                break
    raw = ["".join(t for _, t in sorted(parts)) for parts in texts]
    digits = [s.translate(DIGIT_FIX) for s in raw]
    return PrintedText(head, [d if d.isdigit() else None for d in digits], raw)


def _tight(crop: np.ndarray) -> np.ndarray | None:
    """The crop trimmed to its ink (with a little paper around), or None when empty."""
    ink = crop < 140
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


def _compose(header: np.ndarray | None, crops: list[np.ndarray | None], f: float):
    """Paste the header and crops into one white image; return it, each crop's slot
    rectangle (x0, y0, x1, y1), and the header's (scale, left, bottom) or None."""
    scaled = [_resize(c, f) if c is not None else None for c in crops]
    cell_h = max(s.shape[0] for s in scaled if s is not None)
    cell_w = max(s.shape[1] for s in scaled if s is not None)
    gap_x, gap_y = 2 * cell_h, max(8, cell_h // 2)
    slot_w, slot_h = cell_w + gap_x, cell_h + gap_y
    n_lines = (len(crops) + PER_LINE - 1) // PER_LINE
    grid_w = PER_LINE * slot_w + gap_x
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
        r, c = divmod(i, PER_LINE)
        x0 = gap_x + c * slot_w
        y0 = gap_y + head_h + r * slot_h
        slots.append((x0 - gap_x // 2, y0 - gap_y // 2, x0 + slot_w - gap_x // 2, y0 + slot_h - gap_y // 2))
        if s is not None:
            ox = x0 + (cell_w - s.shape[1]) // 2
            oy = y0 + (cell_h - s.shape[0]) // 2
            comp[oy:oy + s.shape[0], ox:ox + s.shape[1]] = s
    return comp, slots, head_rect


def _ocr_words(img: np.ndarray) -> list[tuple[str, float, float]]:
    """Words Tesseract finds in ``img``: (text, x centre, y centre)."""
    return [(w.text, w.cx, w.cy) for w in tess.words(img, psm=6, whitelist=WHITELIST)]
