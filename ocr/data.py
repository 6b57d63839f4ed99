"""Plain dataclasses passed between the image stages.

file -> Page -> StraightPage -> Table (CellImage...) -> scoring.sheet.SheetReading

Conventions
- Colour images are BGR ``uint8`` (OpenCV order); grey images are ``uint8`` with
  paper near 255 and ink near 0.
- Coordinates are ``(x, y)`` pixels.  ``quad`` fields are 4x2 float arrays in the
  order top-left, top-right, bottom-right, bottom-left, **on the original page
  image** (``Page.image``), so a report can outline them on the scan as received.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Column keys of the deal table and the free-text fields, as the form specification has them
from scoring.formspec import DEAL_COLUMNS as DEAL_COLUMNS
from scoring.formspec import TEXT_FIELDS as TEXT_FIELDS


class InputError(Exception):
    """A file that cannot be turned into a sheet; the message is shown to the user."""


@dataclass
class Page:
    """One page of one input file, as decoded (EXIF orientation already applied)."""

    source: str  # path or display name of the file it came from
    index: int  # 0-based page number within the file
    image: np.ndarray  # BGR uint8
    meta: dict = field(default_factory=dict)  # e.g. dpi, format, email sender


@dataclass
class StraightPage:
    """The sheet cut out of the page and straightened (perspective + deskew)."""

    page: Page
    image: np.ndarray  # BGR uint8, upright, sheet fills the frame
    to_original: np.ndarray  # 3x3 homography: straight (x, y, 1) -> Page.image coords
    skew_deg: float = 0.0  # rotation removed, for diagnostics
    rotated: int = 0  # 0/90/180/270 quarter turns removed


@dataclass
class CellImage:
    """One cell (or free-text field) cut from the straightened sheet, rulings removed."""

    key: str  # a DEAL_COLUMNS entry, or a TEXT_FIELDS entry
    row: str  # printed row label: "1".."30", "31"... , "total", or "" for text fields
    image: np.ndarray  # grey uint8, paper ~255, ink ~0, ruling lines removed
    quad: np.ndarray  # 4x2 float32 on Page.image (see module docstring)
    box: tuple[int, int, int, int] = (0, 0, 0, 0)  # x, y, w, h on StraightPage.image

    @property
    def deal(self) -> int | None:
        return int(self.row) if self.row.isdigit() else None


@dataclass
class Table:
    """The located deal table of one sheet, split into cells."""

    straight: StraightPage
    cells: list[CellImage]  # deal cells, Total row cells, and the text fields
    layout: str = ""  # free-form name of the printing recognised, for diagnostics
    has_total_row: bool = False
    table_quad: np.ndarray | None = None  # the deal table outline on Page.image
    # names_ns / names_ew / winners as read by Tesseract with the printed text (ocr.table),
    # None for a field not found or with nothing read; None when not read at all
    texts: dict[str, str | None] | None = None

    def cell(self, row: str, key: str) -> CellImage | None:
        for c in self.cells:
            if c.row == row and c.key == key:
                return c
        return None

    @property
    def deal_rows(self) -> list[str]:
        seen: list[str] = []
        for c in self.cells:
            if c.row.isdigit() and c.row not in seen:
                seen.append(c.row)
        return sorted(seen, key=int)
