"""ocr/table/rows.py: the windowed neighbour search gives what comparing every pair gives; rows
through a cell two rows high."""
import numpy as np
import pytest

from ocr.table.common import Blob
from ocr.table.rows import chains, deal_rows, right_neighbours


def every_pair(blobs: list[Blob], gap: float) -> list[int | None]:
    """The plain all-pairs definition: same row (60 % overlap), left edge within gap, best score,
    ties to the first blob."""
    b = np.array([(q.x0, q.y0, q.x1, q.y1) for q in blobs], np.float64)
    dx = b[None, :, 0] - b[:, None, 2]
    overlap = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
    hmin = np.minimum(b[:, None, 3] - b[:, None, 1], b[None, :, 3] - b[None, :, 1])
    ok = (dx >= 0) & (dx <= gap) & (overlap >= 0.6 * hmin)
    score = np.where(ok, overlap / np.maximum(hmin, 1) - dx / (gap + 1), -np.inf)
    best = np.argmax(score, axis=1)
    return [int(best[i]) if ok[i].any() else None for i in range(len(blobs))]


@pytest.mark.parametrize("seed", range(60))
def test_same_as_every_pair(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 150))
    xs, ys = rng.integers(0, 300, n), rng.integers(0, 300, n)
    ws, hs = rng.integers(1, 40, n), rng.integers(1, 40, n)
    if seed % 3 == 0:  # squares on a grid: many exact ties
        xs, ws = (xs // 20) * 20, np.full(n, 18)
    blobs = [Blob(int(x), int(y), int(x + w), int(y + h)) for x, y, w, h in
              zip(xs, ys, ws, hs, strict=True)]
    gap = float(rng.integers(1, 20))
    assert right_neighbours(blobs, gap) == every_pair(blobs, gap)


def test_graph_paper_row():
    squares = [Blob(x, y, x + 20, y + 20) for y in range(0, 2000, 25) for x in range(0, 2000, 25)]
    got = right_neighbours(squares, 8.0)
    assert got[0] == 1 and got[79] is None and got[80] == 81
    assert sum(g is None for g in got) == 80  # only the last square of each row has none


def test_rows_through_a_cell_two_rows_high_go_on_in_their_own_rows():
    """A glare spot washed out the ruling between two rows in one column (6306002): that cell is
    two rows high.  Both rows' chains pass through it; each goes on to its own row's cells to the
    right, not both to the upper one (which cut the lower row's cells twice and the upper row's
    never)."""
    cols = [0, 60, 110, 200, 290, 380, 470]
    rows = []
    for r in range(6):
        y = 40 * r
        for j in range(6):
            if j == 3 and r in (2, 3):
                if r == 2:
                    rows.append(Blob(cols[j] + 2, y + 2, cols[j + 1] - 2, y + 78))  # rows 2 and 3 merged
                continue
            rows.append(Blob(cols[j] + 2, y + 2, cols[j + 1] - 2, y + 38))
    found = deal_rows(rows, px_mm=4.0, ruling=4.0)
    assert len(found) == 6
    for r, row in enumerate(found):
        assert [b.y0 for b in row[4:]] == [40 * r + 2] * 2, r
    assert sum(len(c) == 6 for c in chains(rows, 8.0)) == 6
