"""The blank *Rubber Bridge Summary Score Sheet* (seed 000), as we print it.

Two layouts:

- ``classic``: A4 portrait; title, "Names: N/S ... E/W ...", "Winners: ..."; the deal
  table (printed deal numbers 1..30, Dealer, Score N/S E/W, Cumulative N/S E/W) and,
  beside it on the right, the ruled *Scoring Table* of seed 000.
- ``wide``: the deal table across the full page width, no scoring table, and a
  "Total" row under deal 30.

Every printing can vary (:class:`FormStyle`: column widths, row height, rulings,
margins, font), so no reader may rely on one printing's pixel positions.
:func:`render_form` returns the page image together with the geometry it drew
(:class:`FormGeometry`): every deal cell's writing box and the text fields' boxes.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scoring.formspec import DEAL_COLUMNS, DEALS, TABLE_COLUMNS

LAYOUTS = ("classic", "wide")
PAGE_MM = (210.0, 297.0)  # A4 portrait, width x height
FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONT_FILES = {"sans": "DejaVuSans.ttf", "serif": "DejaVuSerif.ttf"}
TITLE = "Rubber Bridge Summary Score Sheet"

# Column widths in mm before variation, per layout (wide is stretched to the page).
BASE_COL_MM = {
    "classic": (9.0, 13.0, 21.0, 21.0, 23.0, 23.0),
    "wide": (16.0, 24.0, 34.0, 34.0, 39.0, 39.0),
}

# Seed 000's Scoring Table: (label, value, value, value, value); a 1-tuple is a section heading.
SCORING_TABLE: tuple[tuple[str, ...], ...] = (
    ("Contracts - trick values",),
    ("Minors", "20"),
    ("Majors", "30"),
    ("No Trumps - 1st trick", "40"),
    ("NT - subsequent tricks", "30"),
    ("Rubbers",),
    ("Three game rubber won", "500"),
    ("Two game rubber won", "700"),
    ("Unfinished rubbers",),
    ("One game won", "300"),
    ("Part score, incomplete game", "100"),
    ("Slams",),
    ("", "not vul", "vul"),
    ("Small", "500", "750"),
    ("Grand", "1000", "1500"),
    ("Overtricks",),
    ("per overtrick", "not vul", "vul"),
    ("not doubled: trick value",),
    ("doubled", "100", "200"),
    ("redoubled", "200", "400"),
    ("Undertricks",),
    ("", "not dbl", "", "dbl", ""),
    ("", "nv", "vul", "nv", "vul"),
    ("1", "50", "100", "100", "200"),
    ("2", "100", "200", "300", "500"),
    ("3", "150", "300", "500", "800"),
    ("4", "200", "400", "800", "1100"),
    ("5", "250", "500", "1100", "1400"),
    ("Extra Bonuses",),
    ("Making a doubled contract", "50"),
    ("Making a redoubled contract", "100"),
    ("4 trump honours in one hand", "100"),
    ("5 trump honours in one hand", "150"),
    ("4 aces in one hand in NT", "150"),
)

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the rendered page


@dataclass(frozen=True)
class FormStyle:
    """One printing of the form.  Lengths in mm; the defaults are our reference printing."""

    layout: str = "classic"
    dpi: int = 300
    margins_mm: tuple[float, float, float, float] = (12.0, 12.0, 12.0, 12.0)  # l, t, r, b
    col_mm: tuple[float, ...] | None = None  # widths of TABLE_COLUMNS; None = layout default
    row_mm: float = 6.8  # deal row height (clipped so the table fits the page)
    header_mm: float = 12.0  # both header rows together
    line_mm: float = 0.3  # inner rulings
    frame_mm: float = 0.6  # outer frame of each table
    font: str = "sans"  # a FONT_FILES key
    font_scale: float = 1.0
    gap_mm: float = 6.0  # classic: between the deal table and the scoring table
    score_row_mm: float = 6.2  # classic: scoring-table row height

    def px(self, mm: float) -> float:
        return mm * self.dpi / 25.4


@dataclass
class FormGeometry:
    """What :func:`render_form` drew, in pixels of its image (x right, y down)."""

    layout: str
    dpi: int
    size: tuple[int, int]  # width, height
    rows: list[str]  # "1".."30" (+ "total" for wide)
    cells: dict[tuple[str, str], Box]  # (row, key in DEAL_COLUMNS) -> writing box inside the rulings
    fields: dict[str, Box]  # TEXT_FIELDS -> writing area above the printed underline
    row_labels: dict[str, Box]  # row -> box of its printed deal number ("Total")
    headers: dict[str, Box]  # printed header text -> its cell
    col_x: list[float]  # x of the vertical rulings' centres (len(TABLE_COLUMNS) + 1)
    row_y: list[float]  # y of the horizontal rulings' centres: header top, header bottom, rows
    table_box: Box  # deal table outer frame (line centres)
    scoring_box: Box | None = None  # classic only: the scoring table's outer frame
    line_px: int = 1
    frame_px: int = 1

    def quad(self, box: Box) -> np.ndarray:
        """A box as a 4x2 float32 quad (tl, tr, br, bl)."""
        x0, y0, x1, y1 = box
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)


@lru_cache(maxsize=64)
def _font(name: str, size_px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / FONT_FILES[name]), max(6, size_px))


def _text(draw: ImageDraw.ImageDraw, box: Box, text: str, font: str, size_px: float,
          align: str = "center", bold: bool = False) -> None:
    """Draw ``text`` inside ``box``, shrinking the font until it fits the box width."""
    if not text:
        return
    x0, y0, x1, y1 = box
    pad = max(2.0, 0.08 * (y1 - y0))
    size = int(size_px)
    while True:
        f = _font(font, size)
        l_, t_, r_, b_ = draw.textbbox((0, 0), text, font=f)
        if r_ - l_ <= (x1 - x0) - 2 * pad or size <= 6:
            break
        size -= 1
    w, h = r_ - l_, b_ - t_
    x = x0 + pad if align == "left" else (x0 + x1 - w) / 2
    y = (y0 + y1 - h) / 2
    draw.text((x - l_, y - t_), text, font=f, fill=0, stroke_width=1 if bold else 0, stroke_fill=0)


def _hline(draw: ImageDraw.ImageDraw, x0: float, x1: float, y: float, t: int) -> None:
    """A ruling of thickness ``t`` whose pixel rows are y - t//2 .. y - t//2 + t - 1."""
    top = round(y) - t // 2
    draw.rectangle([round(x0) - t // 2, top, round(x1) - t // 2 + t - 1, top + t - 1], fill=0)


def _vline(draw: ImageDraw.ImageDraw, x: float, y0: float, y1: float, t: int) -> None:
    left = round(x) - t // 2
    draw.rectangle([left, round(y0) - t // 2, left + t - 1, round(y1) - t // 2 + t - 1], fill=0)


def _inner(x0: float, y0: float, x1: float, y1: float, t0: int, t1: int, t2: int, t3: int) -> Box:
    """The box between rulings at x0,x1 (thickness t0,t1) and y0,y1 (t2,t3); end exclusive."""
    return (round(x0) - t0 // 2 + t0, round(y0) - t2 // 2 + t2,
            round(x1) - t1 // 2, round(y1) - t3 // 2)


def _field(x0: float, y0: float, x1: float, base: float, t: int) -> Box:
    """The writing area above an underline drawn by ``_hline(x0, x1, base, t)``."""
    return (round(x0), round(y0), round(x1) - t // 2 + t, round(base) - t // 2)


def random_style(rng: random.Random, layout: str = "classic", dpi: int = 300) -> FormStyle:
    """A random but plausible printing of ``layout`` at ``dpi``."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    base = BASE_COL_MM[layout]
    cols = tuple(round(w * rng.uniform(0.85, 1.15), 2) for w in base)
    return FormStyle(
        layout=layout,
        dpi=dpi,
        margins_mm=tuple(round(rng.uniform(8.0, 18.0), 2) for _ in range(4)),  # type: ignore[arg-type]
        col_mm=cols,
        row_mm=round(rng.uniform(6.0, 7.4), 2),
        header_mm=round(rng.uniform(10.0, 14.0), 2),
        line_mm=round(rng.uniform(0.15, 0.5), 3),
        frame_mm=round(rng.uniform(0.3, 0.9), 3),
        font=rng.choice(sorted(FONT_FILES)),
        font_scale=round(rng.uniform(0.85, 1.15), 3),
        gap_mm=round(rng.uniform(3.0, 10.0), 2),
        score_row_mm=round(rng.uniform(5.2, 6.8), 2),
    )


def render_form(style: FormStyle | None = None) -> tuple[np.ndarray, FormGeometry]:
    """Render the blank sheet: a grey uint8 page image (paper 255) and its geometry."""
    s = style or FormStyle()
    if s.layout not in LAYOUTS:
        raise ValueError(f"unknown layout {s.layout!r}; choose one of {', '.join(LAYOUTS)}")
    if not 72 <= s.dpi <= 600:
        raise ValueError(f"dpi {s.dpi} out of range 72..600")
    W, H = round(s.px(PAGE_MM[0])), round(s.px(PAGE_MM[1]))
    img = Image.new("L", (W, H), 255)
    d = ImageDraw.Draw(img)
    t = max(1, round(s.px(s.line_mm)))
    tf = max(t, round(s.px(s.frame_mm)))
    ml, mt, mr, mb = (s.px(m) for m in s.margins_mm)
    fs = s.font_scale
    body = s.px(3.2) * fs

    # Title, names and winners lines.
    y = mt
    title_h = s.px(9.0) * fs
    _text(d, (ml, y, W - mr, y + title_h), TITLE, s.font, s.px(5.0) * fs, bold=True)
    y += title_h + s.px(2.0)
    fields: dict[str, Box] = {}
    line_h = s.px(9.0)
    under_t = max(1, t // 2 + 1)
    label_w = s.px(19.0) * fs
    mid = ml + (W - ml - mr) * 0.52
    # "Names: N/S ______   E/W ______"
    base = y + line_h
    _text(d, (ml, y, ml + label_w, base), "Names:", s.font, body, align="left")
    ns_lab = s.px(10.0) * fs
    _text(d, (ml + label_w, y, ml + label_w + ns_lab, base), "N/S", s.font, body, align="left")
    x_ns = ml + label_w + ns_lab
    _hline(d, x_ns, mid - s.px(3.0), base, under_t)
    fields["names_ns"] = _field(x_ns, y - s.px(1.0), mid - s.px(3.0), base, under_t)
    _text(d, (mid, y, mid + ns_lab, base), "E/W", s.font, body, align="left")
    x_ew = mid + ns_lab
    _hline(d, x_ew, W - mr, base, under_t)
    fields["names_ew"] = _field(x_ew, y - s.px(1.0), W - mr, base, under_t)
    y = base + s.px(2.0)
    base = y + line_h
    _text(d, (ml, y, ml + label_w, base), "Winners:", s.font, body, align="left")
    _hline(d, ml + label_w, mid - s.px(3.0), base, under_t)
    fields["winners"] = _field(ml + label_w, y - s.px(1.0), mid - s.px(3.0), base, under_t)
    y = base + s.px(5.0)

    # Deal table geometry.
    widths = list(s.col_mm or BASE_COL_MM[s.layout])
    if len(widths) != len(TABLE_COLUMNS):
        raise ValueError(f"col_mm needs {len(TABLE_COLUMNS)} widths")
    avail_w = PAGE_MM[0] - s.margins_mm[0] - s.margins_mm[2]
    if s.layout == "wide":
        k = avail_w / sum(widths)
        widths = [w * k for w in widths]
    elif sum(widths) > avail_w * 0.66:
        k = avail_w * 0.66 / sum(widths)
        widths = [w * k for w in widths]
    col_x = [round(ml + s.px(sum(widths[:i]))) for i in range(len(widths) + 1)]
    n_rows = DEALS + (1 if s.layout == "wide" else 0)
    head = s.px(s.header_mm)
    avail_h = H - mb - y - head
    row_h = min(s.px(s.row_mm), avail_h / n_rows)
    y_head = round(y)
    y_mid = round(y + head / 2)
    row_y = [y_head] + [round(y + head + row_h * i) for i in range(n_rows + 1)]
    rows = [str(i) for i in range(1, DEALS + 1)] + (["total"] if s.layout == "wide" else [])
    x_l, x_r, y_b = col_x[0], col_x[-1], row_y[-1]

    # Rulings: horizontal lines of the body, header split line, verticals.
    for yy in row_y[1:-1]:
        _hline(d, x_l, x_r, yy, t)
    if s.layout == "wide":  # a heavier line above the Total row
        _hline(d, x_l, x_r, row_y[-2], tf)
    _hline(d, col_x[2], col_x[6], y_mid, t)
    for i in (1, 2, 4):
        y_end = row_y[-2] if (i == 1 and s.layout == "wide") else y_b
        _vline(d, col_x[i], y_head, y_end, t)
    for i in (3, 5):
        _vline(d, col_x[i], y_mid, y_b, t)
    for yy in (y_head, y_b):
        _hline(d, x_l, x_r, yy, tf)
    for xx in (x_l, x_r):
        _vline(d, xx, y_head, y_b, tf)

    def thick_x(i: int) -> int:
        return tf if i in (0, len(col_x) - 1) else t

    def thick_y(j: int) -> int:
        if j in (0, len(row_y) - 1) or (s.layout == "wide" and j == len(row_y) - 2):
            return tf
        return t

    # Headers.
    headers: dict[str, Box] = {}
    hb = _inner(col_x[0], y_head, col_x[1], row_y[1], thick_x(0), t, tf, t)
    headers["Deal"] = hb
    _text(d, hb, "Deal", s.font, body * 0.95)
    hb = _inner(col_x[1], y_head, col_x[2], row_y[1], t, t, tf, t)
    headers["Dealer"] = hb
    _text(d, hb, "Dealer", s.font, body * 0.95)
    for name, i0, i1 in (("Score", 2, 4), ("Cumulative", 4, 6)):
        hb = _inner(col_x[i0], y_head, col_x[i1], y_mid, t, thick_x(i1), tf, t)
        headers[name] = hb
        _text(d, hb, name, s.font, body)
    for i, key in enumerate(DEAL_COLUMNS[1:], start=2):
        hb = _inner(col_x[i], y_mid, col_x[i + 1], row_y[1], t, thick_x(i + 1), t, t)
        headers[key] = hb
        _text(d, hb, "N/S" if key.endswith("ns") else "E/W", s.font, body * 0.95)

    # Body: printed deal numbers and the writing boxes.
    cells: dict[tuple[str, str], Box] = {}
    row_labels: dict[str, Box] = {}
    for j, row in enumerate(rows):
        ya, yb = row_y[j + 1], row_y[j + 2]
        ta, tb = thick_y(j + 1), thick_y(j + 2)
        if row == "total":
            lb = _inner(col_x[0], ya, col_x[2], yb, tf, t, ta, tb)
            _text(d, lb, "Total", s.font, body, bold=True)
        else:
            lb = _inner(col_x[0], ya, col_x[1], yb, tf, t, ta, tb)
            _text(d, lb, row, s.font, body)
        row_labels[row] = lb
        for i, key in enumerate(DEAL_COLUMNS, start=1):
            if row == "total" and key == "dealer":
                continue
            cells[(row, key)] = _inner(col_x[i], ya, col_x[i + 1], yb, t, thick_x(i + 1), ta, tb)

    table_box = (x_l, y_head, x_r, y_b)
    scoring_box = None
    if s.layout == "classic":
        scoring_box = _scoring_table(d, s, x_r + s.px(s.gap_mm), W - mr, y_head, H - mb, t, tf)

    geom = FormGeometry(
        layout=s.layout, dpi=s.dpi, size=(W, H), rows=rows, cells=cells, fields=fields,
        row_labels=row_labels, headers=headers, col_x=col_x, row_y=row_y, table_box=table_box,
        scoring_box=scoring_box, line_px=t, frame_px=tf,
    )
    return np.asarray(img, dtype=np.uint8).copy(), geom


def _scoring_table(d: ImageDraw.ImageDraw, s: FormStyle, x0: float, x1: float, y0: float,
                   y_max: float, t: int, tf: int) -> Box:
    """Draw seed 000's ruled Scoring Table in x0..x1 from y0 down; return its frame."""
    title_h = s.px(7.0)
    n = len(SCORING_TABLE)
    row_h = min(s.px(s.score_row_mm), (y_max - y0 - title_h) / n)
    y1 = y0 + title_h + n * row_h
    w = x1 - x0
    val_w = w * 0.13
    xs = [x0, x1 - 4 * val_w] + [x1 - (3 - i) * val_w for i in range(4)]
    size = s.px(2.6) * s.font_scale
    _text(d, (x0, y0, x1, y0 + title_h), "Scoring Table", s.font, s.px(3.4) * s.font_scale,
          bold=True)
    for k, entry in enumerate(SCORING_TABLE):
        ya = y0 + title_h + k * row_h
        yb = ya + row_h
        _hline(d, x0, x1, ya, tf if k == 0 else t)
        if len(entry) == 1:
            _text(d, (x0, ya, x1, yb), entry[0], s.font, size, align="left", bold=True)
            continue
        _text(d, (xs[0], ya, xs[1], yb), entry[0], s.font, size, align="left")
        for i, val in enumerate(entry[1:]):
            _text(d, (xs[1 + i], ya, xs[2 + i], yb), val, s.font, size)
        for xx in xs[1:-1]:
            _vline(d, xx, ya, yb, t)
    for yy in (y0, y1):
        _hline(d, x0, x1, yy, tf)
    for xx in (x0, x1):
        _vline(d, xx, y0, y1, tf)
    return (x0, y0, x1, y1)


def form_pdf_bytes(layout: str = "classic", dpi: int = 300) -> bytes:
    """The blank sheet of the reference printing as a one-page PDF (A4)."""
    img, _ = render_form(replace(FormStyle(), layout=layout, dpi=dpi))
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PDF", resolution=float(dpi), title=TITLE)
    return buf.getvalue()

