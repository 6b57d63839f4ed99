"""A match's own summary sheet (``rubberscan form --match ID``): the blank form of ocr/form.py with
the match printed in: a QR code carrying the competition and the match, a heading line, and the two
pairs' names typed into the N/S and E/W name fields.

The deal table and the fields are the ordinary form's, moved down by a band at the top that holds
the QR code and the heading, so the table reader needs nothing new.  The pair printed at N/S keeps
the N/S columns: that is what the names on the sheet then say.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image, ImageDraw

from ocr.form import TITLE, FormGeometry, FormStyle, _text, render_form

# The band above the ordinary form that holds the code and the heading, and the code's size.
BAND_MM = 27.0
QR_MM = 22.0  # ~6 px a module at 150 dpi for the payloads we print (version 2-3): a phone's photo reads it
QR_BORDER = 4  # the quiet zone, in modules (the QR standard's)


@dataclass(frozen=True)
class MatchHeader:
    """What is printed on a match's form."""

    payload: str  # the QR code's text (competition.ids.qr_payload)
    heading: str  # e.g. "Kapiti Rubber Bridge - round 1, match R1-M3"
    detail: str  # e.g. "Hill / Cheater v Smith / Jones - to be played by 2025-06-30"
    names_ns: str
    names_ew: str


def qr_modules(payload: str) -> np.ndarray:
    """The QR code of ``payload`` as a boolean module matrix (True = dark), quiet zone included;
    error correction level Q at least (a quarter of the code may be smudged or written over)."""
    import segno

    code = segno.make(payload, error="q", micro=False, boost_error=True)
    rows = [list(r) for r in code.matrix_iter(scale=1, border=QR_BORDER)]
    return np.array(rows, dtype=bool)


def render_match_form(header: MatchHeader, style: FormStyle | None = None
                      ) -> tuple[np.ndarray, FormGeometry, tuple[float, float, float, float]]:
    """The match's form as a grey page image (paper 255), its geometry (ocr.form.FormGeometry, the
    table moved down by the band) and the QR code's box (x0, y0, x1, y1) in pixels."""
    s = style or FormStyle()
    l_, t_, r_, b_ = s.margins_mm
    moved = replace(s, margins_mm=(l_, t_ + BAND_MM, r_, b_))
    img_arr, geom = render_form(moved)
    img = Image.fromarray(img_arr)
    d = ImageDraw.Draw(img)
    # the code, at the top left inside the margins
    modules = qr_modules(header.payload)
    n = modules.shape[0]
    module = max(1, round(s.px(QR_MM) / n))
    x0, y0 = round(s.px(l_)), round(s.px(t_))
    qr = np.where(np.kron(modules, np.ones((module, module), bool)), 0, 255).astype(np.uint8)
    img.paste(Image.fromarray(qr), (x0, y0))
    qr_box = (float(x0), float(y0), float(x0 + n * module), float(y0 + n * module))
    # the heading beside it
    W = geom.size[0]
    tx0, tx1 = qr_box[2] + s.px(3.0), W - s.px(r_)
    line = s.px(6.5)
    ty = y0 + s.px(2.0)
    _text(d, (tx0, ty, tx1, ty + line), header.heading, s.font, s.px(4.2) * s.font_scale,
          align="left", bold=True)
    _text(d, (tx0, ty + line, tx1, ty + 2 * line), header.detail, s.font, s.px(3.4) * s.font_scale,
          align="left")
    _text(d, (tx0, ty + 2 * line, tx1, ty + 3 * line),
          "Winners: e-mail a scan of this sheet to the organiser. Please keep the code clear of "
          "writing.", s.font, s.px(2.8) * s.font_scale, align="left")
    # the names, typed into their fields
    for key, names in (("names_ns", header.names_ns), ("names_ew", header.names_ew)):
        fx0, fy0, fx1, fy1 = geom.fields[key]
        h = fy1 - fy0
        _text(d, (fx0 + s.px(1.0), fy0 + 0.25 * h, fx1, fy1 - 0.05 * h), names, s.font,
              0.55 * h, align="left")
    return np.asarray(img, dtype=np.uint8).copy(), geom, qr_box


def match_form_pdf_bytes(headers: list[MatchHeader], layout: str = "classic", dpi: int = 300) -> bytes:
    """One A4 page per match, as a PDF."""
    pages = [Image.fromarray(render_match_form(h, replace(FormStyle(), layout=layout, dpi=dpi))[0])
             for h in headers]
    if not pages:
        raise ValueError("no match to print")
    buf = io.BytesIO()
    pages[0].save(buf, format="PDF", resolution=float(dpi), title=TITLE, save_all=True,
                  append_images=pages[1:])
    return buf.getvalue()
