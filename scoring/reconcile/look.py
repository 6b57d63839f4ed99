"""A second look before a number becomes a flag: several readings per cell, the sums choose.

A sure misread looks exactly like the players' lone miscopy.  Before a numbers flag stands, the
cells it rests on (its own, the deal's score and cumulative on that side, the cumulatives either
side) are shown to a second reader (a ``look``: ocr/look.py asks PP-OCR about the cell images);
its opinion of each value is mixed into the reader's (LookSettings), and the sheet is
decoded again.  Where the second reader sees the value that makes the sheet add up, the misread
wins (the row shows it, or a review item names the choice); where it confirms what was read, the
flag stands; where it reads yet another number in the flagged cell, the reading is doubted and the
flag becomes a question; where the reader's own candidates or the second reader give the value
that makes the sheet add up real weight (not a person's classic slip away from the reading), the
writing is doubtful and the flag becomes a question too (:func:`seconded`).  Pure: the look is
given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from dataclasses import dataclass

from scoring.reconcile.decode import carry_like
from scoring.reconcile.settings import DEFAULT, LookSettings
from scoring.sheet import CellReading, Flag, ReviewItem, SheetReading

# (row label -- "1".."30" or "total" --, column key, values in question) -> per cell asked and
# seen: {value or None ("none of these"): the second reader's probability}
Look = Callable[[list[tuple[str, str, list[int]]]], dict[tuple[str, str], dict[int | None, float]]]
NUMBER_KINDS = ("cumulative", "score", "total")


def asked_cells(flags: list[Flag], reading: SheetReading,
                review: list[ReviewItem] = ()) -> list[tuple[str, str, list[int]]]:
    """The written number cells the numbers flags (and the "misread or mistake?" questions in
    ``review``) rest on, each with the values in question (the reader's candidates, the values
    the arithmetic weighs in the cell in question, and a cumulative flag's deal's score that adds
    up to it as written)."""
    cells: dict[tuple[str, str], CellReading] = {
        (str(r.deal), key): c for r in reading.rows for key, c in r.cells.items()}
    if reading.total is not None:
        cells.update({("total", key): c for key, c in reading.total.cells.items()})
    asked: dict[tuple[str, str], list[int]] = {}
    for question, (where, flagged) in _places(flags, reading, review):
        weighed = question[-1]
        for w in where:
            cell = cells.get(w)
            if cell is None or cell.blank or cell.person or cell.best in (None, 0):
                continue  # nothing written, unread, or a person's reading: no second look
            vals = asked.setdefault(w, [])
            vals += [v for v, _ in cell.candidates if isinstance(v, int) and v not in vals]
            if w == flagged:
                vals += [v for v in weighed if isinstance(v, int) and v not in vals]
    for w, value in adding_up(flags, reading):  # a cumulative's deal's score that adds up
        if w in asked and value not in asked[w]:
            asked[w].append(value)
    return [(row, key, vals) for (row, key), vals in asked.items()]


def _places(flags: list[Flag], reading: SheetReading, review: list[ReviewItem]):
    """Each question of :func:`_questions` with the cells it rests on and the cell it names."""
    labels = {r.deal: str(r.deal) for r in reading.rows}
    last = reading.rows[-1].deal if reading.rows else None
    for question in _questions(flags, review):
        kind, deal, side, column, _ = question
        if kind == "total":
            where = [("total", f"cum_{side}")] + \
                ([(labels[last], f"cum_{side}")] if last in labels else [])
            yield question, (where, ("total", f"cum_{side}"))
        elif deal is not None:
            where = [(labels[d], key) for d in (deal - 1, deal, deal + 1)
                     if d in labels for key in (side, f"cum_{side}")]
            if kind == "score" and deal in labels:  # a score may be in the other column
                other = "ew" if side == "ns" else "ns"
                where += [(labels[deal], other), (labels[deal], f"cum_{other}")]
            yield question, (where, (labels.get(deal, ""), column or side))


def _questions(flags: list[Flag], review: list[ReviewItem]):
    """(kind, deal, side, column, values weighed) of each numbers flag and each review item
    asking "a misread or the players' mistake?" about a number."""
    for f in flags:
        if f.kind in NUMBER_KINDS and f.side in ("ns", "ew"):
            yield f.kind, f.deal, f.side, f.column, [f.expected, f.written]
    for item in review:
        side = item.column[-2:]
        if item.kind in NUMBER_KINDS and side in ("ns", "ew") and item.candidates:
            column = "cum_" + side if item.column.startswith("total_") else item.column
            yield item.kind, item.deal, side, column, [v for v, _ in item.candidates]


def seen_again(cell: CellReading, opinion: dict[int | None, float], question: list[int],
               settings: LookSettings = DEFAULT.look, flagged: bool = False,
               expected: Collection[int] = ()) -> CellReading:
    """``cell`` with the second reader's vote among the values in ``question`` (the reader's
    candidates, the value the arithmetic wants there) mixed in at its ``share``: a value in
    question it gives at least ``seen_at`` gets share x that probability; what it gives none of
    them stays the reader's, and so does "none of these" (a second reader that misreads the cell
    as something else entirely is no reason to doubt the reader) -- except in the cell a flag
    names (``flagged``): there a second reader that gives the reader's value less than
    ``doubt_below`` and reads another number at least ``doubt_other`` sure does not share the
    reading, and its share of what it read outside the question goes to "none of these" (the flag
    would rest on one reader's reading alone).  There, the reader's number without its leading 1
    (``trust_lost_one``: the thin stroke the second reader loses) is neither a vote nor a doubt,
    unless it is a value the flag ``expected`` (with ``lost_one_agree``: one the reader's own
    candidates give at least ``reader_sees`` too)."""
    s = settings
    # in a flagged cell, the reader's number without its leading 1 (11300 read 1300) where that
    # explains nothing: the thin stroke the second reader loses, no vote against the reading
    lost = _without_leading_one(cell.best) if s.trust_lost_one and flagged else None
    if lost in expected and not (s.lost_one_agree and _given(cell, lost) < s.reader_sees):
        lost = None
    seen = {v: opinion[v] for v in question
            if v in opinion and opinion[v] >= s.seen_at and v != lost}
    none = sum(float(p) for v, p in cell.candidates if v is None)
    listed = {v: float(p) for v, p in cell.candidates if v is not None}
    mine, voted = sum(listed.values()), s.share * sum(seen.values())
    # in a flagged cell, the second reader reads another number than the reader's: what it reads
    # outside the values in question is its doubt, "none of these"
    other = max((p for v, p in opinion.items() if v is not None and v not in (cell.best, lost)),
                default=0.0)
    doubts = flagged and opinion.get(cell.best, 0.0) < s.doubt_below and other >= s.doubt_other
    doubt = s.share * (1.0 - sum(seen.values())) if doubts else 0.0
    if mine <= 0 or not (seen or doubt):
        return cell
    mixed: dict[int | None, float] = {v: (1.0 - voted - doubt) * p / mine
                                      for v, p in listed.items()}
    for v, q in seen.items():
        mixed[v] = mixed.get(v, 0.0) + s.share * q
    cands = sorted([(v, p * (1.0 - none)) for v, p in mixed.items()]
                   + [(None, none + (1.0 - none) * doubt)], key=lambda vp: -vp[1])
    best = next((v for v, _ in cands if v is not None), None)
    # the first network's odds of the best value's one-digit variants: about the old best only
    near = cell.near if best == cell.best else None
    return dataclasses.replace(cell, candidates=cands, near=near)


def _given(cell: CellReading, value) -> float:
    """The probability the reader's own candidates of ``cell`` give ``value``."""
    return sum(float(p) for v, p in cell.candidates if v == value)


def _slip_alike(read, value) -> bool:
    """Is ``value`` the number ``read`` with a leading 1 more or less (190, 1190), a 0 more or
    less (800, 8000), 100 or 1000 off, or two neighbouring digits swapped?  Those are how the
    readers misread (a thin leading 1 or a 0 lost) and how the players slip (a carry, a 0 too
    many, a swap) alike: a reader giving such a value weight is no sign the writing is
    doubtful."""
    if not isinstance(read, int) or not isinstance(value, int) or read < 0 or value < 0:
        return False
    return _without_leading_one(read) == value or _without_leading_one(value) == read \
        or read == 10 * value or value == 10 * read or carry_like(read, value)


def _without_leading_one(value) -> int | None:
    """``value`` with its leading 1 left out (11300 -> 1300), or None when it has none."""
    text = str(value) if isinstance(value, int) else ""
    return int(text[1:]) if len(text) > 1 and text[0] == "1" else None


@dataclass(frozen=True)
class SecondLook:
    """What the second look gives reconciliation: the reading with the second reader's opinion
    mixed in, and the values that make the sheet add up that a reader sees in a cell a flag rests
    on ((row label, column, value): :func:`seconded`)."""

    reading: SheetReading
    seconded: frozenset[tuple[str, str, int]] = frozenset()


def adding_up(flags: list[Flag], reading: SheetReading) -> list[tuple[tuple[str, str], int]]:
    """Each numbers flag's cells with the value that makes the sheet add up there: a cumulative or
    score flag's own cell and the value it expects; a cumulative's deal's score (as the reader
    read it best) and the score that adds up to the cumulative as written."""
    rows = {str(r.deal): r for r in reading.rows}
    out = []
    for f in flags:
        if f.kind not in ("cumulative", "score") or f.side not in ("ns", "ew") \
                or not isinstance(f.expected, int):
            continue
        label = str(f.deal)
        out.append(((label, f.column or f.side), f.expected))
        score = rows[label].cells.get(f.side) if label in rows else None
        if f.kind == "cumulative" and isinstance(f.written, int) and score is not None \
                and isinstance(score.best, int):
            meant = score.best + f.written - f.expected
            if meant >= 0 and meant % 10 == 0 and meant != score.best:
                out.append(((label, f.side), meant))
    return out


def seconded(reading: SheetReading, flags: list[Flag],
             seen: dict[tuple[str, str], dict[int | None, float]],
             settings: LookSettings = DEFAULT.look) -> frozenset[tuple[str, str, int]]:
    """The values that make the sheet add up in a cell a numbers flag rests on (:func:`adding_up`)
    that the reader's own candidates give at least ``reader_sees``, or the second reader's
    opinion at least ``second_sees``: a reader sees that value in the writing (210065: an MNIST 8
    like a 6, 1890 read 1690 with 1890 at 0.018), which is doubtful -- the flag a question; a
    person's slip written clearly leaves the readers no such value.  Not a blank (the second
    reader gives "nothing" weight in written cells) nor a value a person's classic slip away
    from what was read (:func:`_slip_alike`: a leading 1 or a 0 more or less, a carry, a swap),
    which the readers' own misreads make alike."""
    cells = {(str(r.deal), key): c for r in reading.rows for key, c in r.cells.items()}
    out = set()
    for where, value in adding_up(flags, reading):
        cell = cells.get(where)
        if cell is None or not value or _slip_alike(cell.best, value):
            # a blank (the second reader's "nothing" in any cell), or a person's classic slip
            # from what was read: no sign either way
            continue
        by_reader = settings.reader_sees > 0 and _given(cell, value) >= settings.reader_sees
        by_second = settings.second_sees > 0 \
            and seen.get(where, {}).get(value, 0.0) >= settings.second_sees
        if by_reader or by_second:
            out.add((*where, value))
    return frozenset(out)


def looked_again(reading: SheetReading, flags: list[Flag], look: Look,
                 settings: LookSettings = DEFAULT.look,
                 review: list[ReviewItem] = ()) -> SecondLook | None:
    """``reading`` with the second reader's opinion in the cells its numbers flags (and, with
    ``settings.questions``, its "misread or mistake?" questions) rest on, and the values adding
    up that a reader sees there (:func:`seconded`); None when there is nothing to look at (or
    the look saw nothing)."""
    if settings.share <= 0:
        return None
    asked = asked_cells(flags, reading, review if settings.questions else [])
    if not asked:
        return None
    seen = look(asked)
    if not seen:
        return None
    question = {(row, key): vals for row, key, vals in asked}
    # the cells the flags (and questions) name, each with the values that would make the sheet add
    # up there: a flag's expected value, a question's every candidate
    expected: dict[tuple[str, str], set[int]] = {}
    for q, (_, flagged) in _places(flags, reading, []):
        expected.setdefault(flagged, set()).update(v for v in q[-1][:1] if isinstance(v, int))
    for q, (_, flagged) in _places([], reading, review if settings.questions else []):
        expected.setdefault(flagged, set()).update(v for v in q[-1] if isinstance(v, int))
    named = expected.keys()

    def row(r, label: str):
        changed = {key: seen_again(c, seen[(label, key)], question[(label, key)], settings,
                                   (label, key) in named, expected.get((label, key), ()))
                   for key, c in r.cells.items() if (label, key) in seen}
        return dataclasses.replace(r, cells={**r.cells, **changed}) if changed else r

    again = dataclasses.replace(
        reading, rows=[row(r, str(r.deal)) for r in reading.rows],
        total=row(reading.total, "total") if reading.total is not None else None)
    return SecondLook(again, seconded(reading, flags, seen, settings))
