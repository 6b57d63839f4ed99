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

# Column keys of the deal table, their names in messages, and the free-text fields, as the form
# specification has them
from scoring.formspec import COLUMN_NAMES as COLUMN_NAMES
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
class TableRulings:
    """The deal table's rulings where a photo's lattice placed them (ocr/dewarp.py), on the
    straightened image: x of each column ruling, y of each row ruling, and which cells between
    them the lattice found (rows x columns)."""

    xs: np.ndarray
    ys: np.ndarray
    found: np.ndarray  # (len(ys) - 1, len(xs) - 1) bool
    # columns the table's model placed where the picture showed none of their rulings, too far from
    # those found to be cut surely: their cells are named missing, not read
    unseen: tuple[int, ...] = ()

    def turned_over(self, w: int, h: int) -> TableRulings:
        """The same rulings on the image turned by 180 degrees (``w`` x ``h``)."""
        last = len(self.xs) - 2
        return TableRulings(w - 1.0 - self.xs[::-1], h - 1.0 - self.ys[::-1],
                            self.found[::-1, ::-1].copy(),
                            tuple(sorted(last - j for j in self.unseen)))


@dataclass
class StraightPage:
    """The sheet cut out of the page and straightened (perspective + deskew, or a photo's curl)."""

    page: Page
    image: np.ndarray  # BGR uint8, upright, sheet fills the frame
    to_original: np.ndarray  # 3x3 homography: straight (x, y, 1) -> Page.image coords (a photo
    #   straightened through a mesh: the homography nearest to it; ``to_page`` is exact)
    skew_deg: float = 0.0  # rotation removed, for diagnostics
    rotated: int = 0  # 0/90/180/270 quarter turns removed
    # a photo straightened through a mesh (ocr/dewarp.py): Page.image coordinates of the canvas
    # points (k * grid_step, l * grid_step), as a (rows, cols, 2) float32 array, and the 3x3 map
    # from this image's pixels to that canvas (a turn made afterwards), None for none
    grid: np.ndarray | None = None
    grid_step: int = 0
    grid_pre: np.ndarray | None = None
    # pixels per mm when known (else the sheet is taken to fill the image)
    px_mm: float | None = None
    # another straightening to try when no table is found on this one (the other path), or None
    retry: object = None
    table_rulings: TableRulings | None = None  # a photo's deal table as its lattice found it
    verify: bool = False  # a photo straightened by one homography: its rows must come out straight

    def to_page(self, pts) -> np.ndarray:
        """Points (N x 2) of this image mapped onto Page.image."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        if self.grid is None:
            hom = np.column_stack([pts, np.ones(len(pts))]) @ self.to_original.T
            return hom[:, :2] / hom[:, 2:3]
        if self.grid_pre is not None:
            hom = np.column_stack([pts, np.ones(len(pts))]) @ self.grid_pre.T
            pts = hom[:, :2] / hom[:, 2:3]
        g = self.grid
        fx = np.clip(pts[:, 0] / self.grid_step, 0, g.shape[1] - 1.0)
        fy = np.clip(pts[:, 1] / self.grid_step, 0, g.shape[0] - 1.0)
        j0 = np.minimum(np.floor(fx).astype(int), g.shape[1] - 2)
        i0 = np.minimum(np.floor(fy).astype(int), g.shape[0] - 2)
        tx, ty = (fx - j0)[:, None], (fy - i0)[:, None]
        return ((1 - ty) * ((1 - tx) * g[i0, j0] + tx * g[i0, j0 + 1])
                + ty * ((1 - tx) * g[i0 + 1, j0] + tx * g[i0 + 1, j0 + 1])).astype(np.float64)


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
class Missing:
    """Deals of a sheet (all their cells, or those under ``keys``) that cannot be read from this
    picture, and why: they are in no cell of the Table; the reading puts them in review."""

    deals: list[int]
    reason: str  # OUTSIDE, GLARE or UNREADABLE below
    keys: tuple[str, ...] = DEAL_COLUMNS

    OUTSIDE = "outside the photo"
    GLARE = "under glare"
    UNREADABLE = "too faint or blurred to read"
    UNSEEN = "not seen on the photo (the rulings of those columns were not found)"

    @property
    def message(self) -> str:
        """What is missing, as told to the user: "deals 24-30 are outside the photo", "glare over
        deals 5-8: ask for another photo"."""
        spans = deal_spans(self.deals)
        many = len(self.deals) > 1
        which = ("deals " if many else "deal ") + spans
        if self.keys != DEAL_COLUMNS:
            which += " (" + ", ".join(COLUMN_NAMES[k] for k in self.keys) + ")"
        if self.reason == self.GLARE:
            return f"glare over {which}: ask for another photo"
        verb = "are" if many else "is"
        tail = "" if self.reason == self.OUTSIDE else ": ask for another photo"
        return f"{which} {verb} {self.reason}{tail}"

    def to_json(self) -> dict:
        return {"deals": list(self.deals), "columns": list(self.keys), "reason": self.reason,
                "message": self.message}


def deal_spans(deals: list[int]) -> str:
    """1, 2, 3, 5 -> "1-3, 5"."""
    out: list[list[int]] = []
    for d in sorted(deals):
        if out and d == out[-1][1] + 1:
            out[-1][1] = d
        else:
            out.append([d, d])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in out)


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
    missing: list[Missing] = field(default_factory=list)  # what this picture does not show readably
    rows_found: int = 0  # rows found ruled (the others of deal_rows were placed by the rows' pitch)
    far: bool = False  # found only on the photo enlarged, its sheet too small (ocr/far.py)

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
