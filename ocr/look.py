"""A second look at a few number cells: the second reader's own opinion on them, on request.

The cell networks read most cells alone; the second reader (ocr/ppocr.py) is asked only where they
are unsure.  Before reconciliation calls a number the players' mistake it asks about the cells the
mistake rests on (scoring.reconcile.look): :func:`second_look` makes that question's answerer for
one table -- given cells and the values in question, how probable the second reader finds each
value (and the numbers it reads there itself), read from the cell image afresh.
"""

from __future__ import annotations

from collections.abc import Callable

from ocr.ctc import ctc_nbest, ctc_string_probs
from ocr.data import Table
from ocr.ensemble import NUMBER_SYMBOLS, second_crop
from ocr.ppocr import LineReader, default_reader
from ocr.prep import prepare_cut
from ocr.settings import ReaderSettings

DEFAULT = ReaderSettings()
# (row label, column key, values in question) -> {value or None ("none of these"): probability}
Look = Callable[[list[tuple[str, str, list[int]]]], dict[tuple[str, str], dict[int | None, float]]]


def value_strings(value: int) -> list[str]:
    """The ways a number is written in a cell: its digits; 0 also as a dash or nothing."""
    return ["0", "-", ""] if value == 0 else [str(value)]


def second_look(table: Table, settings: ReaderSettings = DEFAULT,
                second: LineReader | None = None) -> Look | None:
    """The second reader's look at cells of ``table`` (None when there is no second reader)."""
    second = second if second is not None else (default_reader() if settings.use_second else None)
    if second is None:
        return None

    def look(asked: list[tuple[str, str, list[int]]]) -> dict[tuple[str, str], dict[int | None, float]]:
        crops, keys, values = [], [], []
        for row, key, vals in asked:
            cell = table.cell(row, key)
            if cell is None or cell.image is None or not cell.image.size:
                continue
            _, cut = prepare_cut(cell.image, settings)
            if cut is None:  # no ink: nothing for a second reader to read
                continue
            crops.append(second_crop(cut, settings))
            keys.append((row, key))
            values.append(vals)
        out: dict[tuple[str, str], dict[int | None, float]] = {}
        if not crops:
            return out
        frames = second.cell_probs(crops, settings)
        for where, vals, lp in zip(keys, values, frames, strict=True):
            # the values asked about, and the numbers the second reader itself reads there
            own = [s for s, _ in ctc_nbest(lp, beam=settings.second_beam, allowed=NUMBER_SYMBOLS)]
            wanted = list(dict.fromkeys(
                [v for v in vals if isinstance(v, int) and v >= 0]
                + [int(s) for s in own if s.isdigit() and len(s) <= settings.max_digits]))
            strings = [s for v in wanted for s in value_strings(v)]
            probs = ctc_string_probs([lp], [strings])[0].tolist()
            opinion: dict[int | None, float] = {}
            k = 0
            for v in wanted:
                n = len(value_strings(v))
                opinion[v] = float(sum(probs[k:k + n]))
                k += n
            opinion[None] = max(0.0, 1.0 - sum(opinion.values()))
            out[where] = opinion
        return out

    return look
