"""Read a located table's cells into N-best candidate readings (Table -> SheetReading).

Number cells: ``ocr.segment`` builds a lattice of glyph options, the CNN in
``ocr.glyphs`` scores every glyph of the whole sheet in one batch, and a beam search
over the lattice sums the probability of each whole number over all segmentations.
Dealer cells: the N/E/S/W distribution of the cell's single glyph.  Names and the
winners line: best effort with one batched Tesseract call per sheet.
"""

from __future__ import annotations

import re
import time
from difflib import SequenceMatcher

import numpy as np

from ocr.data import DEAL_COLUMNS, CellImage, Table
from ocr.glyphs import CLASSES, DASH, LETTERS, REJECT, GlyphModel, default_model, normalize
from ocr.segment import (
    MAX_DIGITS,
    CellSegments,
    add_splits,
    segment_letter,
    segment_number,
    shape_mask,
)
from scoring.sheet import Candidate, CellReading, RowReading, SheetReading

N_BEST = 5
BEAM = 24
NUMBER_SYMBOLS = tuple(range(10)) + (DASH,)  # class indices a number cell may contain
_SYMBOL_IDX = np.array(NUMBER_SYMBOLS)
_SYMBOL_CHARS = tuple(CLASSES[s] for s in NUMBER_SYMBOLS)
BLANK_PROB = 0.995
# A sheet whose number cells are mostly blank was probably cut in the wrong place (a misfound
# table): its blank cells are then only this sure.  Real sheets leave ~25 % blank (the side
# that did not score); 30 generated sheets: at most 29 %, the misfound ones 50-92 %.
BLANK_SHEET_SHARE = 0.45
SUSPECT_BLANK_PROB = 0.5
NOT_TENS_PRIOR = 0.01  # scores are multiples of 10 (soft: a misread last digit still counts)
LEADING_ZERO_PRIOR = 0.05
MIN_CANDIDATE = 0.005
STRAY_DASH_PRIOR = 0.3  # a flat mark beside digits read as a dash and ignored
# "None of these" keeps this floor in every written number's candidates: without it the top
# band (mean 0.998) was right 98.1 % of the time; with it 0.976 / 99.1 % (30 generated sheets).
NONE_FLOOR = 0.02
NARROW_GLYPH = 0.4  # a glyph narrower than this x its height ...
NARROW_NOT_ONE = 0.05  # ... is this much less likely any digit but 1


def read_table(table: Table, model: GlyphModel | None = None) -> SheetReading:
    """Read every cell of ``table``: numbers and dealer letters with N-best candidates."""
    t0 = time.perf_counter()
    model = model or default_model()
    batch = GlyphBatch()
    number_segs: dict[int, tuple[CellSegments, list[list[list[int]]]]] = {}
    letter_glyph: dict[int, int | None] = {}
    for ci, cell in enumerate(table.cells):
        if cell.key == "dealer":
            ink = segment_letter(cell.image)
            letter_glyph[ci] = None if ink is None else batch.add(ink)
        elif cell.key in DEAL_COLUMNS:
            seg = segment_number(cell.image)
            ids = [[[batch.add(g, shape_mask(g, seg)) for g in o.glyphs] for o in e.options] for e in seg.edges]
            number_segs[ci] = (seg, ids)
    probs = batch.classify(model)
    for seg, ids in number_segs.values():  # second pass: cut wide or doubtful units
        _add_split_options(seg, ids, probs, batch)
    probs = batch.classify(model)

    readings: dict[int, CellReading] = {}
    blank_prob = BLANK_PROB if _blank_share(table, number_segs) <= BLANK_SHEET_SHARE else SUSPECT_BLANK_PROB
    for ci, (seg, ids) in number_segs.items():
        readings[ci] = _number_reading(seg, ids, probs, blank_prob)
    for ci, gi in letter_glyph.items():
        readings[ci] = _letter_reading(None if gi is None else probs[gi])
    for ci, r in readings.items():
        r.quad = np.asarray(table.cells[ci].quad, float).tolist()

    rows: list[RowReading] = []
    total: RowReading | None = None
    by_row: dict[str, dict[str, CellReading]] = {}
    for ci, r in readings.items():
        cell = table.cells[ci]
        by_row.setdefault(cell.row, {})[cell.key] = r
    for row in table.deal_rows:
        rows.append(RowReading(deal=int(row), cells=by_row.get(row, {})))
    if "total" in by_row:
        total = RowReading(deal=0, cells=by_row["total"])

    t1 = time.perf_counter()
    text = read_text_fields([c for c in table.cells if c.key in ("names_ns", "names_ew", "winners")])
    names = {"ns": text.get("names_ns"), "ew": text.get("names_ew")}
    winners_text = text.get("winners")
    t2 = time.perf_counter()
    return SheetReading(
        source=table.straight.page.source,
        rows=rows,
        total=total,
        names=names,
        winners_text=winners_text,
        winners_hint=winners_hint(winners_text, names),
        meta={"layout": table.layout, "glyphs": len(batch.glyphs), "read_cells_s": t1 - t0, "read_text_s": t2 - t1},
    )


def _blank_share(table: Table, number_segs: dict[int, tuple[CellSegments, list]]) -> float:
    """Share of blank number cells in the deal rows up to the last one with writing (a sheet
    that ends early leaves its later rows blank; only gaps before that count)."""
    order = {row: i for i, row in enumerate(table.deal_rows)}
    rows = {ci: order.get(table.cells[ci].row) for ci in number_segs}
    written = [r for ci, r in rows.items() if r is not None and not number_segs[ci][0].blank]
    if not written:
        return 0.0
    inner = [ci for ci, r in rows.items() if r is not None and r <= max(written)]
    return sum(number_segs[ci][0].blank for ci in inner) / len(inner)


SURE_GLYPH = 0.9  # a unit read as one digit at least this surely is not tried as touching digits
WIDE_UNIT = 1.3  # units wider than this x line height are always tried as touching digits


def _add_split_options(seg: CellSegments, ids, probs: np.ndarray, batch: GlyphBatch) -> None:
    """Add cut hypotheses for units that are very wide or not surely one digit."""
    for edge, edge_ids in zip(seg.edges, ids, strict=True):
        if not edge.splits:
            continue
        p = probs[edge_ids[0][0]]
        if edge.ratio < WIDE_UNIT and max(float(p[d]) for d in NUMBER_SYMBOLS) >= SURE_GLYPH:
            continue
        for opt in add_splits(edge, seg.line_height):
            edge_ids.append([batch.add(g, shape_mask(g, seg)) for g in opt.glyphs])


def read_number_cell(grey: np.ndarray, model: GlyphModel | None = None) -> CellReading:
    """Read one number cell on its own (for tests and tools; sheets go through read_table)."""
    model = model or default_model()
    batch = GlyphBatch()
    seg = segment_number(grey)
    ids = [[[batch.add(g, shape_mask(g, seg)) for g in o.glyphs] for o in e.options] for e in seg.edges]
    _add_split_options(seg, ids, batch.classify(model), batch)
    return _number_reading(seg, ids, batch.classify(model))


class GlyphBatch:
    """All glyphs of a sheet, normalised, with the classes each one's shape allows."""

    def __init__(self) -> None:
        self.glyphs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self._probs: list[np.ndarray] = []
        self._seen: dict[bytes, int] = {}  # identical pieces (shared by several cuts) are scored once
        self._raw: dict[bytes, int] = {}  # ... and normalised once

    def add(self, ink: np.ndarray, allowed: np.ndarray | None = None) -> int:
        ink = np.ascontiguousarray(ink, np.float32)
        mask = np.ones(len(CLASSES), bool) if allowed is None else allowed
        raw = np.int32(ink.shape).tobytes() + ink.tobytes() + mask.tobytes()
        if raw not in self._raw:
            self._raw[raw] = self._add(ink, mask, allowed)
        return self._raw[raw]

    def _add(self, ink: np.ndarray, mask: np.ndarray, allowed: np.ndarray | None) -> int:
        glyph = normalize(ink)
        h, w = ink.shape[:2]
        if w < NARROW_GLYPH * h:  # as narrow as a 1: other digits are unlikely
            mask = mask * np.where(np.arange(len(CLASSES)) < 10, NARROW_NOT_ONE, 1.0)
            mask[1] = 1.0 if allowed is None else float(allowed[1])
        key = glyph.tobytes() + mask.tobytes()
        if key not in self._seen:
            self._seen[key] = len(self.glyphs)
            self.glyphs.append(glyph)
            self.masks.append(mask)
        return self._seen[key]

    def classify(self, model: GlyphModel, chunk: int = 256) -> np.ndarray:
        """Class probabilities of every glyph added so far (only new ones are computed);
        the mass of classes a glyph's shape rules out is moved to reject."""
        done = len(self._probs)
        if len(self.glyphs) > done:
            x = np.stack(self.glyphs[done:])
            probs = np.concatenate([model.predict_proba(x[i : i + chunk]) for i in range(0, len(x), chunk)])
            weights = np.stack(self.masks[done:]).astype(np.float64)
            out = probs * weights
            out[:, REJECT] += (probs * (weights == 0)).sum(axis=1)
            out /= out.sum(axis=1, keepdims=True)
            masks = weights > 0
            flat = masks[:, DASH] & ~masks[:, :10].any(axis=1)  # dash-shaped: a dash or nothing
            out[flat, DASH] += 0.8 * out[flat, REJECT]
            out[flat, REJECT] *= 0.2
            self._probs.extend(out)
        if not self._probs:
            return np.zeros((0, len(CLASSES)), np.float32)
        return np.stack(self._probs)


def _option_strings(glyph_ids: list[int], probs: np.ndarray) -> tuple[dict[str, float], float]:
    """Symbol strings for one segmentation option with their probabilities, and its plausibility."""
    beam: dict[str, float] = {"": 1.0}
    plaus = 1.0
    for gi in glyph_ids:
        sym = probs[gi, _SYMBOL_IDX]
        number_mass = float(sym.sum())
        z = max(number_mass + float(probs[gi, REJECT]), 1e-12)  # letters cannot occur in a number cell
        plaus *= number_mass / z
        top = [(_SYMBOL_CHARS[i], float(sym[i]) / z) for i in np.argsort(-sym, kind="stable")[:4]]
        nxt: dict[str, float] = {}
        for prefix, q in beam.items():
            for ch, r in top:
                key = prefix + ch
                nxt[key] = nxt.get(key, 0.0) + q * r
        beam = dict(sorted(nxt.items(), key=lambda kv: -kv[1])[:BEAM])
    return beam, plaus


def decode_number(seg: CellSegments, ids: list[list[list[int]]], probs: np.ndarray) -> list[Candidate]:
    """Whole-number candidates of a non-blank cell: lattice beam search over all segmentations."""
    n = seg.n_units
    mass: list[dict[str, float]] = [dict() for _ in range(n + 1)]
    best_plaus = [0.0] * (n + 1)
    mass[0][""] = 1.0
    best_plaus[0] = 1.0
    for node in range(n):
        if not mass[node]:
            continue
        for edge, edge_ids in zip(seg.edges, ids, strict=True):
            if edge.start != node:
                continue
            for opt, glyph_ids in zip(edge.options, edge_ids, strict=True):
                strings, plaus = _option_strings(glyph_ids, probs)
                best_plaus[edge.end] = max(best_plaus[edge.end], best_plaus[node] * plaus)
                target = mass[edge.end]
                for prefix, q in mass[node].items():
                    for s, r in strings.items():
                        if len(prefix) + len(s) <= MAX_DIGITS + 1:
                            target[prefix + s] = target.get(prefix + s, 0.0) + q * r * opt.prior
        for later in range(node + 1, n + 1):
            mass[later] = dict(sorted(mass[later].items(), key=lambda kv: -kv[1])[:BEAM])
    values: dict[object, float] = {}
    for s, q in mass[n].items():
        value = _string_value(s)
        if value is None:
            continue
        if "-" in s and value:
            q *= STRAY_DASH_PRIOR
        digits = s.replace("-", "")
        if digits.isdigit():
            s = digits
            if value % 10:
                q *= NOT_TENS_PRIOR
            if len(s) > 1 and s[0] == "0":
                q *= LEADING_ZERO_PRIOR
        values[value] = values.get(value, 0.0) + q
    total = sum(values.values())
    unreadable = float(np.clip(1.0 - best_plaus[n], 0.0, 1.0))
    unreadable = 1.0 - (1.0 - unreadable) * (1.0 - NONE_FLOOR)
    if total <= 0:
        return [(None, 1.0)]
    cands: list[Candidate] = [(v, q / total * (1 - unreadable)) for v, q in values.items()]
    cands.append((None, unreadable))
    cands = [c for c in cands if c[1] >= MIN_CANDIDATE or c[0] is None and c[1] > 0]
    cands.sort(key=lambda c: -c[1])
    return cands[:N_BEST]


def _string_value(s: str) -> int | None:
    """The number a symbol string stands for: dashes alone are 0; a stray dash beside digits
    is ignored (the caller lowers its probability)."""
    if not s:
        return None
    if set(s) == {"-"}:
        return 0
    digits = s.replace("-", "")
    if digits.isdigit() and len(digits) <= MAX_DIGITS:
        return int(digits)
    return None


def _number_reading(seg: CellSegments, ids, probs: np.ndarray, blank_prob: float = BLANK_PROB) -> CellReading:
    if seg.blank:
        return CellReading(candidates=[(0, blank_prob), (None, 1 - blank_prob)], blank=True)
    return CellReading(candidates=decode_number(seg, ids, probs))


def _letter_reading(p: np.ndarray | None) -> CellReading:
    if p is None:
        return CellReading(candidates=[(None, 1.0)], blank=True)
    letters = {CLASSES[i]: float(p[i]) for i in LETTERS}
    z = sum(letters.values()) + float(p[REJECT])
    if z <= 0:
        return CellReading(candidates=[(None, 1.0)])
    cands: list[Candidate] = [(k, v / z) for k, v in letters.items()]
    cands.append((None, float(p[REJECT]) / z))
    cands.sort(key=lambda c: -c[1])
    return CellReading(candidates=[c for c in cands if c[1] >= MIN_CANDIDATE])


def read_text_fields(cells: list[CellImage]) -> dict[str, str | None]:
    """Printed or handwritten names/winners text by one Tesseract call for all fields; best effort."""
    out: dict[str, str | None] = {c.key: None for c in cells}
    if not cells:
        return out
    try:
        import cv2
        import pytesseract

        target_h = 36
        parts, spans, y = [], [], 0
        width = 0
        scaled = []
        for c in cells:
            img = np.asarray(c.image)
            if img.ndim == 3:
                img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
            if img.size == 0:
                scaled.append(None)
                continue
            s = target_h / max(img.shape[0], 1)
            img = cv2.resize(img, (max(1, int(img.shape[1] * s)), target_h), interpolation=cv2.INTER_AREA)
            scaled.append(img)
            width = max(width, img.shape[1])
        gap = 24
        for c, img in zip(cells, scaled, strict=True):
            if img is None:
                continue
            y += gap
            parts.append((y, img))
            spans.append((c.key, y, y + img.shape[0]))
            y += img.shape[0]
        canvas = np.full((y + gap, width + 2 * gap), 255, np.uint8)
        for top, img in parts:
            canvas[top : top + img.shape[0], gap : gap + img.shape[1]] = img
        data = pytesseract.image_to_data(canvas, config="--psm 6", output_type=pytesseract.Output.DICT)
    except Exception:  # noqa: BLE001 - names are best effort; a failing OCR engine must not stop the sheet
        return out
    words: dict[str, list[tuple[int, str]]] = {}
    for text, top, h, left, conf in zip(data["text"], data["top"], data["height"], data["left"], data["conf"], strict=False):
        text = text.strip()
        if not text or float(conf) < 10:
            continue
        mid = top + h / 2
        for key, a, b in spans:
            if a - gap / 2 <= mid <= b + gap / 2:
                words.setdefault(key, []).append((left, text))
    for key, ws in words.items():
        out[key] = " ".join(w for _, w in sorted(ws)) or None
    return out


def _side_token(text: str) -> str | None:
    t = re.sub(r"[^a-z]", "", text.lower())
    if t in ("ns", "northsouth", "nsw") or re.fullmatch(r"n\W*s", text.strip().lower()):
        return "ns"
    if t in ("ew", "eastwest") or re.fullmatch(r"e\W*w", text.strip().lower()):
        return "ew"
    return None


def winners_hint(winners: str | None, names: dict[str, str | None]) -> str | None:
    """"ns"/"ew" when the winners line says N/S or E/W or clearly matches one pair's names."""
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
    return None
