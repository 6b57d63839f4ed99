"""Write a sheet's content onto a rendered blank form, in one or two hands and an ink.

:func:`fill_form` draws in place on the BGR page image and returns, per cell, what was
written (``text``: "" for blank, "-" for a dash) and by which hand.
"""

from __future__ import annotations

import random

import numpy as np

from ocr.data import DEAL_COLUMNS, TEXT_FIELDS
from ocr.form import FormGeometry
from samples.content import SheetContent
from samples.hands import Hand

# Ink colours (BGR) and opacity ranges.
INKS = {
    "blue": ((150, 60, 20), (175, 80, 45), 0.85, 1.0),
    "black": ((25, 25, 25), (55, 50, 50), 0.85, 1.0),
    "pencil": ((85, 85, 85), (115, 115, 120), 0.45, 0.7),
}


class Pen:
    """A hand with an ink colour, and where it likes to put numbers in a cell."""

    def __init__(self, hand: str, ink: str, rng: random.Random, px_per_mm: float) -> None:
        self.hand = Hand(hand, rng, px_per_mm)
        self.ink = ink
        self.rng = rng
        lo, hi, a_lo, a_hi = INKS[ink]
        self.color = np.array([rng.uniform(a, b) for a, b in zip(lo, hi, strict=True)], np.float32)
        self.alpha = rng.uniform(a_lo, a_hi)
        typed = hand == "typed"
        self.size = rng.uniform(0.42, 0.5) if typed else rng.uniform(0.45, 0.65)
        self.align = "right" if typed else rng.choice(("right", "right", "center", "left"))
        self.big = 0.0 if typed else rng.uniform(0.0, 0.04)  # share of oversize, line-crossing entries

    def write(self, page: np.ndarray, box: tuple[float, float, float, float], text: str,
              np_rng: np.random.Generator, scale: float = 1.0) -> None:
        """Write ``text`` into ``box`` of ``page`` (BGR uint8, in place), ``scale`` x usual size."""
        if not text:
            return
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        rng = self.rng
        big = rng.random() < self.big
        height = h * scale * (rng.uniform(0.95, 1.12) if big else self.size * rng.uniform(0.92, 1.08))
        if text == "-":
            height = h * self.size
        mask, base = self.hand.render(text, height)
        if mask.shape[1] > w * 0.94:  # players write smaller when the number is long
            mask, base = self.hand.render(text, height * w * 0.9 / mask.shape[1])
        mw = mask.shape[1]
        if self.align == "right":
            x = x1 - mw - w * rng.uniform(0.04, 0.16)
        elif self.align == "center":
            x = (x0 + x1 - mw) / 2 + rng.gauss(0, 0.04 * w)
        else:
            x = x0 + w * rng.uniform(0.04, 0.16)
        x = min(max(x, x0 - 0.02 * w), x1 - mw + 0.02 * w) if mw < w else x0 + (w - mw) / 2
        # The baseline sits low in the cell; ordinary entries stay inside it, oversize ones cross.
        lo = (mask.shape[0] - base) / h + 0.04  # descenders clear of the bottom ruling
        hi = min(0.3, (h - base) / h - 0.06)  # top clear of the upper ruling
        offset = rng.uniform(lo, max(lo, hi)) if lo <= hi else (lo + hi) / 2
        baseline = y1 - h * (rng.uniform(-0.05, 0.1) if big else offset)
        if text == "-":
            baseline = y0 + h * rng.uniform(0.5, 0.65) + mask.shape[0] / 2
            base = mask.shape[0] // 2
        self.blot(page, mask, int(round(x)), int(round(baseline - base)), np_rng)

    def blot(self, page: np.ndarray, mask: np.ndarray, x: int, y: int,
             np_rng: np.random.Generator) -> None:
        """Composite a coverage mask at (x, y) with this pen's ink (multiplicative)."""
        H, W = page.shape[:2]
        mx0, my0 = max(0, -x), max(0, -y)
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(W, x + mask.shape[1]), min(H, y + mask.shape[0])
        if x1 <= x0 or y1 <= y0:
            return
        m = mask[my0:my0 + (y1 - y0), mx0:mx0 + (x1 - x0)] * self.alpha
        if self.ink == "pencil":  # graphite: grainy, uneven
            m = m * np_rng.uniform(0.45, 1.0, size=m.shape).astype(np.float32)
        else:  # ball-point: slightly uneven flow
            m = m * np_rng.uniform(0.85, 1.0, size=m.shape).astype(np.float32)
        region = page[y0:y1, x0:x1].astype(np.float32)
        absorb = 1.0 - self.color / 255.0
        region *= 1.0 - m[..., None] * absorb
        page[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)


def cell_text(value, zero_style: str) -> str:
    """How a written value appears: a number, or for zero a blank, a dash or "0"."""
    if value is None:
        return ""
    if value == 0:
        return {"blank": "", "dash": "-", "zero": "0"}[zero_style]
    return str(value)


def fill_form(page: np.ndarray, geom: FormGeometry, content: SheetContent, pens: list[Pen],
              switch_row: int, zero_style: str, np_rng: np.random.Generator) -> list[dict]:
    """Write ``content`` on ``page``; pens[0] writes rows before ``switch_row`` (1-based deal)
    and the text fields, pens[-1] the rest.  Returns per-cell truth (box on the page)."""
    cells: list[dict] = []
    first, second = pens[0], pens[-1]
    fields = {"names_ns": content.names["ns"], "names_ew": content.names["ew"],
              "winners": content.winners_text}
    for key in TEXT_FIELDS:
        box = geom.fields[key]
        text = fields[key]
        first.write(page, box, text, np_rng, scale=0.75)
        cells.append({"row": "", "key": key, "box": box, "text": text, "hand": first.hand.kind})
    for row in content.rows:
        deal = row["deal"]
        pen = first if deal < switch_row else second
        for key in DEAL_COLUMNS:
            box = geom.cells[(str(deal), key)]
            text = (row["dealer"] or "") if key == "dealer" else cell_text(row[key], zero_style)
            pen.write(page, box, text, np_rng)
            cells.append({"row": str(deal), "key": key, "box": box, "text": text,
                          "hand": pen.hand.kind})
    if "total" in geom.rows:
        for key in DEAL_COLUMNS[1:]:
            box = geom.cells[("total", key)]
            text = ""
            if content.totals_written is not None and key.startswith("cum_"):
                text = cell_text(content.totals_written[key[4:]], zero_style)
            second.write(page, box, text, np_rng)
            cells.append({"row": "total", "key": key, "box": box, "text": text,
                          "hand": second.hand.kind})
    return cells
