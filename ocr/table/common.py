"""What the table finder's modules share: the deal table's shape, a cell blob, a row of them."""

from __future__ import annotations

from dataclasses import dataclass

from ocr.data import DEAL_COLUMNS

NOT_FOUND = "no summary score table found"
N_COLS = 1 + len(DEAL_COLUMNS)  # the printed deal-number column, then DEAL_COLUMNS
DEALS = 30


@dataclass
class Blob:
    """A paper region enclosed by rulings (a candidate cell), on the straight image."""

    x0: int
    y0: int
    x1: int  # exclusive
    y1: int  # exclusive

    @property
    def h(self) -> int:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


Row = list[Blob]  # N_COLS cells, left to right


def inner(b: Blob) -> tuple[int, int, int, int]:
    """The blob as (x, y, w, h)."""
    return (b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0)
