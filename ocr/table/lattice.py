"""A straightened photo's deal table as its ruling lattice found it (ocr/dewarp.py): rows of six
cells at known places, named by the table's own structure when the printed numbers are not read."""

from __future__ import annotations

import numpy as np

from ocr.data import TableRulings
from ocr.table.common import DEALS, N_COLS, Blob, Row


def lattice_rows(rulings: TableRulings, inset: float) -> list[Row]:
    """One row of six cells per row of the lattice (all of them when the lattice is six columns
    wide, else none), each cell the space between its rulings less ``inset`` on every side."""
    xs, ys = rulings.xs, rulings.ys
    if len(xs) != N_COLS + 1:
        return []
    rows = []
    for i in range(len(ys) - 1):
        rows.append([Blob(int(round(xs[j] + inset)), int(round(ys[i] + inset)), int(round(xs[j + 1] - inset)),
                          int(round(ys[i + 1] - inset))) for j in range(N_COLS)])
    return rows


def structural_labels(rulings: TableRulings) -> list[str | None] | None:
    """Deal numbers of the lattice's rows from the table's shape alone, or None when it does not
    show it: under Score and Cumulative the header's N/S and E/W row is ruled into four cells where
    the deal-number and dealer columns have one cell two rows high (which the lattice does not
    hold), and so is the wide printing's Total row under deal 30 (its label spans both columns).
    Such a row at the top comes before deal 1; at the bottom, after deal 30."""
    found = rulings.found
    n = found.shape[0]
    if found.shape[1] != N_COLS or n < 3:
        return None

    def split(i: int) -> bool:  # score cells (most of them) without the two label cells
        return not found[i, 0] and not found[i, 1] and found[i, 2:].sum() >= 2

    def full(i: int) -> bool:  # a deal row: its number's or its dealer's cell, and more
        return (found[i, 0] or found[i, 1]) and found[i].sum() >= 4

    first = next((i for i in range(min(3, n - 1)) if split(i) and full(i + 1)), None)
    if first is not None:
        return [str(i - first) if 1 <= i - first <= DEALS else None for i in range(n)]
    last = next((i for i in range(n - 1, max(0, n - 3), -1) if split(i) and full(i - 1)), None)
    if last is not None:
        return [str(DEALS - (last - 1 - i)) if 1 <= DEALS - (last - 1 - i) <= DEALS else None for i in range(n)]
    return None


def columns_look_like_the_form(rulings: TableRulings) -> bool:
    """Whether the lattice's six columns are the deal table's: the deal-number and dealer columns
    narrower than each of the four score columns."""
    w = np.diff(rulings.xs)
    return len(w) == N_COLS and max(w[0], w[1]) < min(w[2:])
