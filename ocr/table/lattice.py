"""A straightened photo's deal table as its ruling lattice found it (ocr/dewarp.py): rows of six
cells at known places, named by the table's own structure when the printed numbers are not read."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ocr.data import TableRulings
from ocr.settings import GeometrySettings
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


def fits_the_lattice(rulings: TableRulings, labels: list[str | None]) -> bool:
    """Whether row names ``labels`` (one per lattice row) fit the form's shape: the form rules at
    most one row with a label cell outside deals 1-30 on either side (the wide printing's Total
    row, say; the header's split row has none), so a naming that leaves two or more deal-like rows
    (a label cell and three more) unnamed before its first deal or after its last does not show the
    table -- a few misread printed numbers agreeing by chance on the wrong offset."""
    found = rulings.found
    named = [i for i, lab in enumerate(labels) if lab is not None]
    if found.shape[1] != N_COLS or not named or len(labels) != found.shape[0]:
        return True

    def like(i: int) -> bool:
        return bool(found[i, 0] or found[i, 1]) and found[i].sum() >= 4

    before = sum(like(i) for i in range(named[0]))
    after = sum(like(i) for i in range(named[-1] + 1, len(labels)))
    return before <= 1 and after <= 1


def shape_outnames(rulings: TableRulings, shape: list[str | None], voted: list[str | None]) -> bool:
    """Whether the rows' names from the table's shape (``shape``) are to be taken over those of a
    weak vote of the printed numbers (``voted``, see ``GeometrySettings.lattice_vote_share``): the
    shape names all thirty deals, each in a row with its label cell and three more found, where
    the vote leaves some of them off the lattice -- a few misread numbers agreeing on an offset a
    row off (a dim photo's "2" read "1" twice), when the lattice holds every deal row."""
    found = rulings.found
    if found.shape[1] != N_COLS or len(shape) != found.shape[0] or len(voted) != len(shape):
        return False
    rows = [i for i, lab in enumerate(shape) if lab is not None]
    whole = len(rows) == DEALS and all(bool(found[i, 0] or found[i, 1]) and found[i].sum() >= 4 for i in rows)
    return whole and sum(lab is not None for lab in voted) < DEALS


def splits_columns(rows: list[Row], xs: np.ndarray, margin: float) -> bool:
    """Whether cells of ``rows`` (ruled on a photo's canvas) begin or end inside one of the columns
    the photo's lattice found (rulings ``xs``), further than ``margin`` of its width from both its
    rulings -- in most of the rows: a column the lattice measured whole is cut in two there."""
    if not rows or len(xs) < 2:
        return False
    cut = 0
    for row in rows:
        edges = [b.x0 for b in row] + [b.x1 for b in row]
        cut += any(xs[j] + margin * (xs[j + 1] - xs[j]) < e < xs[j + 1] - margin * (xs[j + 1] - xs[j])
                   for e in edges for j in range(len(xs) - 1))
    return cut * 2 > len(rows)


def whole_table_named(rulings: TableRulings, read: list[str | None], votes: int) -> list[str | None] | None:
    """Row names for a lattice of the form's shape that holds the whole table (thirty rows or more:
    the header's split row, deals 1-30, the Total row), from the printed deal numbers as read
    (``read``, row by row): deal 1 can then only be one of its first few rows, so ``votes`` numbers
    read as their row would have them under one choice, and none under another, pick it (a far
    sheet's print is read a number here and there).  None when they do not."""
    n = len(read)
    if n < DEALS or rulings.found.shape != (n, N_COLS):
        return None
    tally = {}
    for first in range(min(2, n - DEALS) + 1):  # the row of deal 1
        tally[first] = sum(text == str(i - first + 1) for i, text in enumerate(read) if text)
    ranked = sorted(tally.items(), key=lambda kv: -kv[1])
    first, best = ranked[0]
    if best < votes or len(ranked) > 1 and ranked[1][1] * 2 >= best:
        return None
    labels = [str(i - first + 1) if 1 <= i - first + 1 <= DEALS else None for i in range(n)]
    return labels if fits_the_lattice(rulings, labels) else None


def structural_labels(rulings: TableRulings, ruled_above: Callable[[int], bool | None] | None = None,
                      ends_below: Callable[[int], bool] | None = None,
                      headed: Callable[[int], bool] | None = None) -> list[str | None] | None:
    """Deal numbers of the lattice's rows from the table's shape alone, or None when it does not
    show it: under Score and Cumulative the header's N/S and E/W row is ruled into four cells where
    the deal-number and dealer columns have one cell two rows high (which the lattice does not
    hold), and so is the wide printing's Total row under deal 30 (its label spans both columns).
    Such a row at the top comes before deal 1; at the bottom, after deal 30.  Exactly thirty
    consecutive rows that look like deal rows, and no other, are deals 1-30.

    ``ruled_above(i)`` says whether the score columns' middle rulings run through the row above
    row ``i``: over the header's split row they do not (the Score and Cumulative titles span both
    columns), over a deal row they do.  A first row of score cells alone with them through the row
    above is a deal row whose label cells were lost (a large dealer letter over their rulings), not
    the header's split row; it is still taken for it when nothing else names the rows.
    ``ends_below(i)`` says whether the table ends under row ``i`` (bare paper where its rulings would
    run on): a last row with its label cell over the table's end is deal 30, however few of the
    rows above the lattice holds.  ``headed(i)`` says whether the header's two rows lie right above
    lattice row ``i`` (see :func:`header_above`): the first of the top two rows that holds is deal 1,
    however few rows or label cells the lattice holds (the header's split row in the lattice, its
    label cells taken for a deal row's, leaves a row above it; two header rows in it are no table's
    lattice: faint rulings there, the signs of the header are not to be trusted)."""
    found = rulings.found
    n = found.shape[0]
    if found.shape[1] != N_COLS or n < 3:
        return None

    def split(i: int) -> bool:  # score cells (most of them) without the two label cells
        return not found[i, 0] and not found[i, 1] and found[i, 2:].sum() >= 2

    def full(i: int) -> bool:  # a deal row: its number's or its dealer's cell, and more
        return (found[i, 0] or found[i, 1]) and found[i].sum() >= 4

    deal = {i for i in range(min(3, n - 1)) if split(i) and ruled_above is not None and ruled_above(i) is True}
    first = next((i for i in range(min(3, n - 1)) if split(i) and i not in deal and full(i + 1)), None)
    if first is not None:
        return [str(i - first) if 1 <= i - first <= DEALS else None for i in range(n)]
    def like(i: int) -> bool:  # a deal row, however many of its score cells blur or glare lost
        return bool(found[i, 0] or found[i, 1]) and found[i].sum() >= 3

    # a Total row: score cells alone under a deal row -- one with a label cell and two more will do
    # under thirty rows (a blurred deal 30), not under fewer (a deal row's lost label cells alike)
    last = next((i for i in range(n - 1, max(0, n - 3), -1)
                 if split(i) and (full(i - 1) or i >= DEALS and like(i - 1))), None)
    top = n - DEALS  # deal 1's row were the last row deal 30 (its label cells lost), not a Total row
    if last == n - 1 and top in (0, 1) and headed is not None and headed(top) and (
            ruled_above is not None and ruled_above(0) is True if top == 0 else split(0) and 0 not in deal):
        # score cells alone in the last row (a shadow over deal 30's label cells), and the header's
        # two rows right above the row that would be deal 1 then -- that row a deal row (the split
        # rulings above it) or the row above it the split row: deals 1-30 end the lattice
        return [str(i - top + 1) if i >= top else None for i in range(n)]
    if last is not None:
        return [str(DEALS - (last - 1 - i)) if 1 <= DEALS - (last - 1 - i) <= DEALS else None for i in range(n)]
    # exactly thirty deal-like rows in one run (a label cell and two more), and no other: the
    # thirty deals (the header and Total rows linked in part, or not at all)
    rows_like = [like(i) or i in deal for i in range(n)]
    if sum(rows_like) == DEALS:
        start = rows_like.index(True)
        if all(rows_like[start:start + DEALS]):
            # unless the header's two rows lie right above another of the top two rows and the table
            # ends under that row's thirtieth: the split row holds a label cell (the header's
            # deal-number cell, two rows high, placed in it) and deal 30 lost its score cells
            framed = _framed(found, headed, ends_below)
            start = start if framed is None else framed
            return [str(i - start + 1) if start <= i < start + DEALS else None for i in range(n)]
    # thirty rows, the first a deal row (split rulings above it), the last with a label cell (not a
    # Total row): deals 1-30, however many of their cells the glare or the writing merged
    if n == DEALS and 0 in deal and (found[-1, 0] or found[-1, 1]):
        return [str(i + 1) for i in range(n)]
    if ends_below is not None and (found[-1, 0] or found[-1, 1]) and ends_below(n - 1):
        return [str(DEALS - (n - 1 - i)) if DEALS - (n - 1 - i) >= 1 else None for i in range(n)]
    top = next((i for i in range(min(2, n)) if headed(i)), None) if headed is not None else None
    if top is not None:
        return [str(i - top + 1) if 0 <= i - top < DEALS else None for i in range(n)]
    first = next((i for i in range(min(3, n - 1)) if split(i) and full(i + 1)), None)
    if first is not None:
        return [str(i - first) if 1 <= i - first <= DEALS else None for i in range(n)]
    return None


def _framed(found: np.ndarray, headed: Callable[[int], bool] | None,
            ends_below: Callable[[int], bool] | None) -> int | None:
    """The row of deal 1 when the table's two ends agree on it: the header's two rows right above
    one of the lattice's top two rows, and the table's end right under the row thirty rows on (its
    label cell found); None when they do not both say so."""
    if headed is None or ends_below is None:
        return None
    n = found.shape[0]
    for top in range(min(2, n)):
        last = top + DEALS - 1
        if last < n and (found[last, 0] or found[last, 1]) and headed(top) and ends_below(last):
            return top
    return None


def belied(labels: list[str | None] | None, read: list[str | None]) -> bool:
    """Whether the printed deal numbers as read (``read``, row by row) give the lie to the rows'
    names from the table's shape (``labels``) on a lattice of fewer than thirty deal rows: no number
    read agrees with its row's name, and a deal number 10-30 read is three or more off its row's
    and does not hold it (a lattice of a few rows low in the table, its top row's label cells lost
    and handwriting over the rulings above it, looks like the header's rows over deal 1; a blurred
    24 read 25, or a 1 read 15 with a ruling's remnant, is no such sign)."""
    if labels is None or sum(lab is not None for lab in labels) >= DEALS:
        return False
    pairs = [(lab, text) for lab, text in zip(labels, read, strict=True) if lab and text and text.isdigit()]
    agree = sum(lab == text for lab, text in pairs)
    return agree == 0 and any(10 <= int(text) <= DEALS and abs(int(text) - int(lab)) >= 3 and lab not in text
                              for lab, text in pairs)


def columns_look_like_the_form(rulings: TableRulings) -> bool:
    """Whether the lattice's six columns are the deal table's: the deal-number and dealer columns
    narrower than each of the four score columns."""
    w = np.diff(rulings.xs)
    return len(w) == N_COLS and max(w[0], w[1]) < min(w[2:])


def ruled_above(grey: np.ndarray, rulings: TableRulings, i: int, settings: GeometrySettings) -> bool | None:
    """Whether the rulings between the two Score columns and between the two Cumulative columns run
    through the row above lattice row ``i`` on ``grey`` (the straightened sheet, paper light; above
    the lattice, a row height): True, False (something there, not both rulings), or None (next to
    nothing there to tell: glare, the paper's edge).  See :func:`_through`."""
    pitch = float(np.median(np.diff(rulings.ys)))
    top = rulings.ys[i - 1] if i else rulings.ys[0] - pitch
    return {"ruled": True, "marked": False}.get(_through(grey, rulings, i, top, rulings.ys[i], settings))


def header_above(grey: np.ndarray, rulings: TableRulings, settings: GeometrySettings, i: int = 0) -> bool:
    """Whether the header's two rows lie right above lattice row ``i`` on ``grey``: the Score and
    Cumulative columns' middle rulings run through the row above it (the N/S E/W split row) and not
    through the one above that (the titles spanning both columns), and the Score and Cumulative
    columns' own rulings not through the row above those (the table's top).  Above a lower deal row
    the rows over it are deal rows or the split row, ruled through; glare or the picture's edge
    there tells nothing (False).  See :func:`_through`."""
    ys = rulings.ys
    if len(ys) < i + 2:
        return False
    pitch = float(np.median(np.diff(ys)))
    y = ys[i]
    if _through(grey, rulings, i, y - pitch, y, settings) != "ruled":
        return False
    if _through(grey, rulings, i, y - 2 * pitch, y - pitch, settings) not in ("marked", "blank"):
        return False
    # above the titles' row the table ends (or a taller titles' row goes on), where above a deal
    # row the rows over it are ruled on
    top = _through(grey, rulings, i, y - 3 * pitch, y - 2 * pitch, settings, cols=(2, 4))
    return top in ("marked", "blank")


def ends_below(grey: np.ndarray, rulings: TableRulings, i: int, settings: GeometrySettings) -> bool:
    """Whether the deal rows end under lattice row ``i``: the row under it is bare paper where the
    rulings between the dealer column and the four score columns would run (the classic printing's
    frame ends), or has them and not the ruling between the deal-number and dealer columns (the
    wide printing's Total row, its label across both).  The caller makes sure the place is in the picture and out of the glare.
    See :func:`_through`."""
    ys = rulings.ys
    if i + 1 >= len(ys):
        return False
    pitch = float(np.median(np.diff(ys)))
    # on a lattice of rows enough to pin the canvas, the band starts where the paper shows again
    # under the row's bottom ruling: the classic printing's frame, blurred on a far sheet, reaches
    # further down than the band's inset, and its tail, darkest where the column rulings meet it,
    # passed for rulings running on.  (A few rows named from their end have the many others placed
    # past them, where a far sheet's canvas drifts: there the end is told as before)
    shift = 0.0
    if len(ys) - 1 >= settings.dewarp_grown_rows:
        shift = max(0.0, _under_ruling(grey, rulings, ys[i + 1], settings) - ys[i + 1])
    top = ys[i + 1] + shift
    bottom = (ys[i + 2] if i + 2 < len(ys) else ys[i + 1] + pitch) + shift
    middle = _through(grey, rulings, i, top, bottom, settings, cols=(2, 3, 4))
    if middle == "ruled":
        return _through(grey, rulings, i, top, bottom, settings, cols=(1,)) in ("marked", "blank")
    return middle == "blank"


def _under_ruling(grey: np.ndarray, rulings: TableRulings, y: float, settings: GeometrySettings) -> float:
    """The first pixel row under the horizontal ruling the lattice puts at ``y`` on ``grey`` where the
    paper's level is back: each pixel row's median across the score columns, from the darkest within
    GeometrySettings.header_ruling_reach's search reach of ``y`` down to the first within
    ``header_ruling_min`` of the lightest there (``y`` when nothing dips)."""
    xs = rulings.xs
    pitch = float(np.median(np.diff(rulings.ys)))
    reach = settings.header_ruling_reach[1] * pitch
    h, w = grey.shape[:2]
    a, b = max(0, round(y - reach)), min(h, round(y + 2 * reach) + 1)
    x0, x1 = max(0, round(xs[2])), min(w, round(xs[-1]) + 1)
    if b - a < 3 or x1 <= x0:
        return y
    level = np.median(grey[a:b, x0:x1].astype(np.float32), axis=1)
    dark = int(np.argmin(level[:min(len(level), round(2 * reach) + 1)]))
    back = np.flatnonzero(level[dark:] >= level.max() - settings.header_ruling_min)
    return float(a + dark + back[0]) if back.size else y


def _through(grey: np.ndarray, rulings: TableRulings, i: int, top: float, bottom: float,
             settings: GeometrySettings, cols: tuple[int, ...] = (3, 5)) -> str | None:
    """What the band ``top``-``bottom`` of ``grey`` shows where lattice row ``i``'s column rulings
    ``cols`` (by default the middle ones of the Score and the Cumulative columns) would run on:
    near where the lattice puts them (the
    canvas may drift beyond the lattice), each pixel row's dip under the paper.  "ruled": both dip
    on nearly every pixel row (GeometrySettings.header_ruled_share of them at least half as deep as
    the band's deepest tenth); "marked": something there, not every ruling (a title over them dips
    on a few pixel rows); "blank": next to no dip (under GeometrySettings.header_ruling_faint of the
    rulings' beside row ``i``); None: nothing to compare with."""
    xs, ys = rulings.xs, rulings.ys
    if len(xs) != N_COLS + 1 or i + 1 >= len(ys):
        return None
    pitch = float(np.median(np.diff(ys)))
    near, search, wide, inset = (f * pitch for f in settings.header_ruling_reach)
    h, w = grey.shape[:2]

    def dips(top: float, bottom: float, x: float, half: float) -> np.ndarray:
        """Each pixel row's deepest dip under the paper's level (its median across 2 x ``wide``)
        within ``half`` of ``x``."""
        a, b = max(0, round(top + inset)), min(h, round(bottom - inset))
        n0, n1 = max(0, round(x - half)), min(w, round(x + half) + 1)
        w0, w1 = max(0, round(x - wide)), min(w, round(x + wide) + 1)
        if b <= a or n1 <= n0 or w1 <= w0:
            return np.zeros(0)
        g = grey[a:b].astype(np.float32)
        return np.median(g[:, w0:w1], axis=1) - g[:, n0:n1].min(axis=1)

    states = []
    for x in xs[list(cols)]:
        own = dips(ys[i], ys[i + 1], x, near)
        there = dips(top, bottom, x, search)
        ref = float(np.median(own)) if own.size else 0.0
        if not there.size or ref < settings.header_ruling_min:
            return None
        deep = float(np.percentile(there, 90))
        if deep < max(settings.header_ruling_min, settings.header_ruling_faint * ref):
            states.append("blank")
        else:
            states.append("ruled" if float((there >= 0.5 * deep).mean()) >= settings.header_ruled_share
                          else "marked")
    if len(set(states)) == 1:
        return states[0]
    return "marked"
