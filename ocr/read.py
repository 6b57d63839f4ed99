"""Read a located table's cells into N-best candidate readings (Table -> SheetReading).

Number and dealer cells: the whole-cell network in ``ocr.cellnet`` reads every cell of the
sheet in one batch; a CTC beam search gives each cell's most probable strings with their
probabilities (summed over all alignments, so touching digits need no cutting), and the
strings become values with light priors (scores are multiples of ten).  What the beam does
not cover, or what is no number at all, stays as "none of these" (``None``).
Names and the winners line: best effort, read by the geometry stage (ocr.printed.read_fields).
"""

from __future__ import annotations

import re
import time
from difflib import SequenceMatcher

import numpy as np

from ocr.data import DEAL_COLUMNS, Table
from ocr.ensemble import CellReader, default_net, number_strings, photo_net, variant_odds
from ocr.legible import small_writing
from ocr.partial import add_missing, missing_meta
from ocr.ppocr import LineReader, default_reader, mark, read_line
from ocr.prep import HEIGHT, WIDTH, Cut, clear_rulings, prepare_cut, stretch_photo_ink
from ocr.printed import read_fields
from ocr.settings import ReaderSettings
from scoring.sheet import Candidate, CellReading, RowReading, SheetReading

LETTER_SYMBOLS = "NESW"
DEFAULT = ReaderSettings()


def read_table(table: Table, net: CellReader | None = None, settings: ReaderSettings = DEFAULT,
               second: LineReader | None = None) -> SheetReading:
    """Read every cell of ``table``: numbers and dealer letters with N-best candidates.
    ``second``: the second reader (default: the installed one, unless ``settings.use_second`` is off)."""
    t0 = time.perf_counter()
    photo = table.straight.grid is not None  # a photo straightened from its lattice: rulings' leftovers
    # a photo's cells: the networks trained on photographed cells too, when installed
    if net is None and photo and settings.photo_networks:
        net = photo_net()
        if net is not None:  # the photo networks read: the second reader asked where they are unsure
            settings = settings.for_photo_networks()
    net = net or default_net()
    second = _second(second, settings)
    cells = [(ci, c) for ci, c in enumerate(table.cells) if c.key == "dealer" or c.key in DEAL_COLUMNS]
    inputs = np.zeros((len(cells), HEIGHT, WIDTH), np.float32)
    cuts = []
    for k, (_, cell) in enumerate(cells):
        inputs[k], cut = prepare_cut(clear_rulings(stretch_photo_ink(cell.image, settings), settings)
                                     if photo and cell.key != "dealer" else cell.image, settings)
        cuts.append(cut)
    inked = np.flatnonzero(inputs.reshape(len(cells), -1).max(axis=1) > 0) if cells else np.zeros(0, int)
    dealers = [k for k in inked if cells[k][1].key == "dealer"]
    numbers_in = [k for k in inked if cells[k][1].key != "dealer"]
    strings: dict[int, list[tuple[str, float]]] = {}
    # dealer letters: the cell networks (the others asked only where the first is unsure, as for
    # numbers), not the digit network nor the second reader; numbers: every reader
    if dealers:
        found = CellReader(net.nets).nbest(inputs[dealers], [LETTER_SYMBOLS] * len(dealers), beam=settings.beam,
                                           cuts=[cuts[k] for k in dealers], settings=settings)
        strings.update({cells[k][0]: f for k, f in zip(dealers, found, strict=True)})
    own: dict[int, list[tuple[str, float]]] = {}  # the number cells' strings as the cell networks read them
    number_frames: list[np.ndarray] = []  # the first network's frames of the number cells (numbers_in)
    asked = 0
    if numbers_in:
        number_frames = net.nets[0].read(inputs[numbers_in], settings)
        found, nets_only, asked = number_strings(inputs[numbers_in], [cuts[k] for k in numbers_in], number_frames,
                                                 net, second, settings)
        strings.update({cells[k][0]: f for k, f in zip(numbers_in, found, strict=True)})
        own.update({cells[k][0]: f for k, f in zip(numbers_in, nets_only, strict=True)})

    numbers = [ci for ci, c in cells if c.key != "dealer"]
    blank_prob = (settings.blank_prob if _blank_share(table, numbers, strings) <= settings.blank_sheet_share
                  else settings.suspect_blank_prob)
    doubt = sheet_doubt([own[ci] for ci in numbers if ci in own])
    if (sum(cut is not None and cut.second_look for cut in cuts) >= settings.faint_sheet_cells
            and doubt >= settings.faint_sheet_doubt):
        blank_prob = settings.suspect_blank_prob  # faint or dotted writing: an empty-looking cell may hold more of it
    readings: dict[int, CellReading] = {}
    for ci, cell in cells:
        found = strings.get(ci, [("", settings.blank_prob)])  # no ink at all: blank
        if cell.key == "dealer":
            readings[ci] = letter_reading(found, settings)
        else:
            readings[ci] = number_reading(found, blank_prob, settings)
        readings[ci].quad = np.asarray(cell.quad, float).tolist()
    if numbers_in:
        # how likely the first network finds each one-digit variant of the number the cell is read
        # as (the reading's best value, which reconciliation varies -- not the beam's top string,
        # which the priors may have demoted)
        best = [readings[cells[k][0]].best for k in numbers_in]
        odds = variant_odds(number_frames, [str(b) if isinstance(b, int) and b > 0 else "" for b in best], settings)
        for k, o in zip(numbers_in, odds, strict=True):
            readings[cells[k][0]].near = o

    rows: list[RowReading] = []
    total: RowReading | None = None
    by_row: dict[str, dict[str, CellReading]] = {}
    for ci, r in readings.items():
        cell = table.cells[ci]
        by_row.setdefault(cell.row, {})[cell.key] = r
    for row in table.deal_rows:
        rows.append(RowReading(deal=int(row), cells=by_row.get(row, {})))
    rows = add_missing(rows, table.missing)  # what the picture does not show readably: "cannot read"
    if "total" in by_row:
        total = RowReading(deal=0, cells=by_row["total"])

    t1 = time.perf_counter()
    text = table.texts  # read by the geometry stage's Tesseract call; a Table made elsewhere:
    if text is None:  # the same field reader, now
        text = read_fields({c.key: c.image for c in table.cells if c.key in ("names_ns", "names_ew", "winners")})
    names = {"ns": text.get("names_ns"), "ew": text.get("names_ew")}
    winners_text = text.get("winners")
    hint = winners_hint(winners_text, names, settings)
    if hint is None and second is not None:
        # a winners line Tesseract left unread or unclear: the second reader reads handwriting
        # better (bench/bench_lines.py: winners lines 95 % against 80 % exactly right)
        crop = next((c.image for c in table.cells if c.key == "winners"), None)
        line = (read_line(crop, second, settings.second_margin, settings.second_min_width,
                          settings.second_line_max_aspect) if crop is not None and crop.size else None)
        again = winners_hint(line[0], names, settings) if line and line[0] else None
        if again is not None:
            winners_text, hint = line[0], again
    t2 = time.perf_counter()
    # a photo whose rows of writing are too small to read surely (ocr/legible.py): only on such a sheet
    small = small_writing(table, [readings[ci] for ci in numbers], settings)
    small = {"small_writing": small} if small is not None else {}
    return SheetReading(
        source=table.straight.page.source,
        rows=rows,
        total=total,
        names=names,
        winners_text=winners_text,
        winners_hint=hint,
        # doubt: how hard this sheet's numbers were to read (reconciliation widens "none of these" by it)
        meta={"layout": table.layout, "reader": reader_version(net, second, settings), "cells_read": len(inked),
              "doubt": doubt, "second_read": asked, "read_cells_s": t1 - t0, "read_text_s": t2 - t1,
              "missing": missing_meta(table.missing),
              # a photo (straightened from its lattice, or as a scan and checked): reconciliation
              # trusts less a sheet of it that leaves much in doubt (scoring/reconcile/partial.py)
              "photo": table.straight.grid is not None or bool(getattr(table.straight, "verify", False))} | small,
    )


def _second(second: LineReader | None, settings: ReaderSettings) -> LineReader | None:
    """The second reader to read with: the one given, else the installed one -- none when
    ``settings.use_second`` is off."""
    if not settings.use_second:
        return None
    return second if second is not None else default_reader()


def reader_version(net: CellReader, second: LineReader | None, settings: ReaderSettings = DEFAULT) -> str:
    """Which readers made a reading: the cell networks' version (ocr.cellnet), and the second
    reader's model digest with the threshold below which it is asked and its weight."""
    return net.version_with(mark(second.digest, settings) if second is not None else None, settings)


def read_cells(images: list[np.ndarray], settings: ReaderSettings = DEFAULT, net: CellReader | None = None,
               second: LineReader | None = None) -> list[CellReading]:
    """One number per grey cell image (paper light, ink dark, rulings removed): the code that
    reads a sheet's number cells (:func:`read_table`), for cells given one by one (``rubberscan
    cell``; a crop as photographed goes through ocr.crop.cell_image first)."""
    net = net or default_net()
    second = _second(second, settings)
    inputs = np.zeros((len(images), HEIGHT, WIDTH), np.float32)
    cuts: list[Cut | None] = []
    for k, image in enumerate(images):
        inputs[k], cut = prepare_cut(image, settings)
        cuts.append(cut)
    inked = [k for k, cut in enumerate(cuts) if cut is not None]
    found: dict[int, list[tuple[str, float]]] = {}
    if inked:
        frames = net.nets[0].read(inputs[inked], settings)
        strings, _, _ = number_strings(inputs[inked], [cuts[k] for k in inked], frames, net, second, settings)
        found = dict(zip(inked, strings, strict=True))
    return [number_reading(found.get(k, [("", settings.blank_prob)]), settings.blank_prob, settings)
            for k in range(len(images))]


def _is_blank(found: list[tuple[str, float]]) -> bool:
    return bool(found) and found[0][0] == ""


def _blank_share(table: Table, numbers: list[int], strings: dict[int, list[tuple[str, float]]]) -> float:
    """Share of blank number cells in the deal rows up to the last one with writing (a sheet
    that ends early leaves its later rows blank; only gaps before that count)."""
    order = {row: i for i, row in enumerate(table.deal_rows)}
    rows = {ci: order.get(table.cells[ci].row) for ci in numbers}
    blank = {ci: ci not in strings or _is_blank(strings[ci]) for ci in numbers}
    written = [r for ci, r in rows.items() if r is not None and not blank[ci]]
    if not written:
        return 0.0
    inner = [ci for ci, r in rows.items() if r is not None and r <= max(written)]
    return sum(blank[ci] for ci in inner) / len(inner)


def string_value(s: str, max_digits: int = DEFAULT.max_digits) -> int | None:
    """The number a symbol string stands for: nothing or dashes alone are 0; a stray dash
    beside digits is ignored (the caller lowers its probability)."""
    if not s or set(s) == {"-"}:
        return 0
    digits = s.replace("-", "")
    if digits.isdigit() and len(digits) <= max_digits:
        return int(digits)
    return None


def sheet_doubt(found: list[list[tuple[str, float]]]) -> float:
    """How hard this sheet's handwriting is for the reader: the mean doubt (1 - probability of
    the best string) over its written number cells."""
    doubts = [1.0 - f[0][1] for f in found if f and not _is_blank(f)]
    return sum(doubts) / len(doubts) if doubts else 0.0


def number_reading(found: list[tuple[str, float]], blank_prob: float | None = None,
                   settings: ReaderSettings = DEFAULT) -> CellReading:
    """A number cell's candidates from its N-best strings (blank, dash and 0 all read 0): up to
    settings.n_best values and "none of these" (None), best first."""
    blank_prob = settings.blank_prob if blank_prob is None else blank_prob
    if _is_blank(found) and blank_prob < settings.blank_prob:
        # on a sheet cut in the wrong place a blank may hide writing: doubt it
        return CellReading(candidates=[(0, blank_prob), (None, 1 - blank_prob)], blank=True)
    values: dict[int, float] = {}
    covered = 0.0
    for s, q in found:
        covered += q
        value = string_value(s, settings.max_digits)
        if value is None:
            continue
        digits = s.replace("-", "")
        if "-" in s and digits:
            q *= settings.stray_dash_prior
        if digits:
            if value % 10:
                q *= settings.not_tens_prior
            if len(digits) > 1 and digits[0] == "0":
                q *= settings.leading_zero_prior
        values[value] = values.get(value, 0.0) + q
    # what the beam left out (or could not be a number) is "none of these"
    none = settings.none_scale * (max(0.0, 1.0 - covered)
                                  + sum(q for s, q in found if string_value(s, settings.max_digits) is None))
    total = sum(values.values()) + none
    if total <= 0:
        return CellReading(candidates=[(None, 1.0)])
    share = max(none / total, 0.0 if _is_blank(found) else settings.none_floor)
    known = sum(values.values())
    cands: list[Candidate] = [(v, q / known * (1 - share)) for v, q in values.items()] if known > 0 else []
    cands = sorted((c for c in cands if c[1] >= settings.min_candidate), key=lambda c: -c[1])[:settings.n_best]
    cands.append((None, share if known > 0 else 1.0))
    cands.sort(key=lambda c: -c[1])
    return CellReading(candidates=cands, blank=_is_blank(found))


def letter_reading(found: list[tuple[str, float]], settings: ReaderSettings = DEFAULT) -> CellReading:
    """A dealer cell's candidates: one of N/E/S/W, or None (blank or unreadable)."""
    letters: dict[str, float] = {}
    other = max(0.0, 1.0 - sum(q for _, q in found))
    for s, q in found:
        if len(s) == 1:
            letters[s] = letters.get(s, 0.0) + q
        else:
            other += q
    if _is_blank(found):
        return CellReading(candidates=[(None, 1.0)], blank=True)
    cands: list[Candidate] = [(k, v) for k, v in letters.items()] + [(None, other)]
    z = sum(v for _, v in cands) or 1.0
    cands = [(k, v / z) for k, v in cands if v / z >= settings.min_candidate]
    cands.sort(key=lambda c: -c[1])
    return CellReading(candidates=cands or [(None, 1.0)])


def _side_token(text: str) -> str | None:
    t = re.sub(r"[^a-z]", "", text.lower())
    if t in ("ns", "northsouth", "nsw") or re.fullmatch(r"n\W*s", text.strip().lower()):
        return "ns"
    if t in ("ew", "eastwest") or re.fullmatch(r"e\W*w", text.strip().lower()):
        return "ew"
    # "N/S" or "E/W" among other marks ("rs E/w": a stray stroke read as letters)
    sides = {"ns" if m.group(0).startswith("n") else "ew"
             for m in re.finditer(r"(?<![a-z])(?:n\s*/\s*s|e\s*/\s*w)(?![a-z])", text.lower())}
    return sides.pop() if len(sides) == 1 else None


def winners_hint(winners: str | None, names: dict[str, str | None], settings: ReaderSettings = DEFAULT) -> str | None:
    """"ns"/"ew" when the winners line says N/S or E/W, clearly matches one pair's names, or
    names a pair and clearly not the only pair whose names were read."""
    if not winners or not winners.strip():
        return None
    side = _side_token(winners)
    if side:
        return side

    def sim(other: str | None) -> float:
        if not other:
            return 0.0
        return SequenceMatcher(None, winners.lower(), other.lower()).ratio()

    ns, ew = sim(names.get("ns")), sim(names.get("ew"))
    if max(ns, ew) >= 0.5 and abs(ns - ew) >= 0.15:
        return "ns" if ns > ew else "ew"
    read = [side for side in ("ns", "ew") if names.get(side)]
    if len(read) == 1 and max(ns, ew) < settings.other_pair_below and _names_a_pair(winners):
        # one pair's names were not read; the winners line names a pair, clearly not the other
        return "ew" if read == ["ns"] else "ns"
    return _misread_side_token(winners)


def _names_a_pair(text: str) -> bool:
    """Does ``text`` look like two names ("Lee/Stone", "Lee & Stone"): >= 6 letters, a separator?"""
    return len(re.sub(r"[^a-z]", "", text.lower())) >= 6 and bool(re.search(r"/|&|\band\b", text.lower()))


def _misread_side_token(text: str) -> str | None:
    """A short winners line Tesseract half-read: "N/S" comes back as "W/S", "WS", "NWS", "MWS";
    "E/W" as "Ef", "eh", "ee", "c/w", "L/w" (all seen on generated scans).  A 2-3 letter token
    ending in S is N/S; one starting with E or ending in W is E/W; both or neither: unsure."""
    t = text.strip()
    letters = re.sub(r"[^a-z]", "", t.lower())
    if len(t) > 4 or not 2 <= len(letters) <= 3:
        return None
    ns_like = letters.endswith("s")
    ew_like = letters.startswith("e") or letters.endswith("w")
    if ns_like != ew_like:
        return "ns" if ns_like else "ew"
    return None
