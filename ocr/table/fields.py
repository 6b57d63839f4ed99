"""The names and winners fields: the writing areas above the "Names: N/S", "E/W" and "Winners:"
underlines above the deal table, and their texts."""

from __future__ import annotations

from statistics import median as _med  # np.median costs ~50 us a call on these short lists

import cv2
import numpy as np

from ocr.cells import box_quad, clean_region
from ocr.data import TEXT_FIELDS, CellImage, StraightPage
from ocr.printed import read_fields
from ocr.settings import GeometrySettings
from ocr.table.common import Row
from ocr.table.rulings import Rulings, find_rulings

DEFAULT = GeometrySettings()


def text_fields(grey: np.ndarray, zone: np.ndarray, rulings: Rulings, half: np.ndarray,
                rows: list[Row], table_top: int, to_original: StraightPage,
                settings: GeometrySettings = DEFAULT) -> list[CellImage]:
    """The writing areas above the "Names: N/S", "E/W" and "Winners:" underlines, which
    are the long horizontal rulings above the table (``table_top``); dashed underlines
    (fax) are looked for again with wide gaps bridged."""
    k = settings.table_analysis
    mm = rulings.px_mm  # analysis pixels per mm
    pitch = float(_med([r[0].h for r in rows]))
    top = max(1, round(table_top / k - 3 * mm))
    found = underlines(long_lines(rulings.horiz[:top], mm))
    if len(found) < len(TEXT_FIELDS):
        dashed = long_lines(find_rulings(half[:top], settings.ruling_breaks_mm[-1], px_mm=mm).horiz, mm)
        found = max(found, underlines(dashed), underlines_by_winners(dashed, mm, half[:top], settings.ns_gap_mm), key=len)
    found = {key: _along(seg, half, mm, [s for o, s in found.items() if o != key])
             for key, seg in found.items()}
    out = []
    height = round(1.5 * pitch)
    band = max(3, round(0.5 * mm * k) + 3)
    for key in TEXT_FIELDS:
        if key not in found:
            continue
        x, y, w, _ = (v * k for v in found[key])
        y0 = max(0, y - height)
        box = (x, y0, w, min(grey.shape[0], y + 2) - y0)
        out.append(CellImage(key=key, row="", image=clean_region(grey, zone, box, band),
                             quad=box_quad(box, to_original), box=box))
    return out


def field_texts(fields: list[CellImage], guess: list[CellImage],
                read: dict[str, str | None], settings: GeometrySettings = DEFAULT) -> dict[str, str | None]:
    """TEXT_FIELDS -> text of the final ``fields``: as ``read`` from the ``guess`` cut
    before the rows were named where that crop is (nearly) the same, the others read now."""
    texts: dict[str, str | None] = {}
    todo: dict[str, np.ndarray] = {}
    early = {c.key: c for c in guess}
    for c in fields:
        g = early.get(c.key)
        if g is not None and _overlap(g.box, c.box) >= 0.9:
            texts[c.key] = read.get(c.key)
        else:
            todo[c.key] = c.image
    if todo:
        texts.update(read_fields(todo, settings))
    return {key: texts.get(key) for key in TEXT_FIELDS}


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    iw = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    ih = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    inter = max(0, iw) * max(0, ih)
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def underlines(lines: list[list[tuple[int, int, int, int]]]) -> dict[str, tuple[int, int, int, int]]:
    """TEXT_FIELDS -> (x, y, w, h) of its underline, from the two lowest ``lines`` (long_lines):
    names N/S and E/W side by side, then winners -- only as the form places them (E/W right of
    where N/S ends; the winners line starts under N/S and is its line's leftmost segment)."""
    lines = lines[-2:]
    if not lines or len(lines[0]) < 2:
        return {}
    names = sorted(lines[0], key=lambda s: s[0])
    found = {"names_ns": names[0], "names_ew": names[-1]}
    if len(lines) == 2:
        found["winners"] = min(lines[1])  # the leftmost: a stray segment may lie beside it
    ns, ew, winners = found["names_ns"], found["names_ew"], found.get("winners")
    if ew[0] <= ns[0] + ns[2]:  # not side by side: two stray segments (feet of a handwritten name)
        return {}
    if winners is not None and winners[0] >= ew[0]:  # the winners line starts under N/S, not E/W
        del found["winners"]
    return found


def long_lines(horiz: np.ndarray, mm: float) -> list[list[tuple[int, int, int, int]]]:
    """The long thin horizontal segments (x, y, w, h) of ``horiz`` grouped into lines, top down."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(horiz, 8)
    segs = sorted((tuple(int(v) for v in stats[i, :4]) for i in range(1, n)
                   if stats[i, 2] >= 20 * mm and stats[i, 3] <= 2.5 * mm), key=lambda s: s[1])
    lines: list[list[tuple[int, int, int, int]]] = []
    for s in segs:
        if lines and abs(s[1] - lines[-1][0][1]) <= 3 * mm:
            lines[-1].append(s)
        else:
            lines.append([s])
    return lines


def underlines_by_winners(lines: list[list[tuple[int, int, int, int]]], mm: float,
                          ink: np.ndarray, ns_gap_mm: float = DEFAULT.ns_gap_mm
                          ) -> dict[str, tuple[int, int, int, int]]:
    """Where underlines finds too little (a fax): the lowest line, if it holds one segment,
    is the winners underline, which lies under N/S and ends where it ends; the names line is
    the lowest above it reaching right of that end -- a thin stray segment between them (the
    foot of a handwritten name, closed into a line) is passed over -- and its segments left
    and right of the end are N/S and E/W.  Where only the E/W underline was long enough to
    find, the N/S one is followed through its dashes in ``ink`` (_left_of)."""
    if not lines or len(lines[-1]) >= 2:
        return {}
    winners = lines[-1][0]
    end = winners[0] + winners[2]
    found = {"winners": winners}
    for line in reversed(lines[:-1]):
        right = [s for s in line if s[0] > end]
        if not right:
            continue
        left = [s for s in line if s[0] <= end]
        ew = _union(right)
        ns = _union(left) if left else _left_of(ew, ink, mm, ns_gap_mm)
        if ns is not None:
            found.update(names_ns=ns, names_ew=ew)
        break
    return found


def _union(segs: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """The (x, y, w, h) box around ``segs``."""
    x0, y0 = min(s[0] for s in segs), min(s[1] for s in segs)
    x1, y1 = max(s[0] + s[2] for s in segs), max(s[1] + s[3] for s in segs)
    return (x0, y0, x1 - x0, y1 - y0)


def _left_of(ew: tuple[int, int, int, int], ink: np.ndarray, mm: float,
             ns_gap_mm: float) -> tuple[int, int, int, int] | None:
    """The N/S underline left of the E/W one ``ew``, followed through its dashes (at least
    1.5 mm long) at ``ew``'s height: the nearest dash ending within ``ns_gap_mm`` of ``ew``
    (the printed "E/W" stands between them) extended leftwards by _along; None unless it
    runs at least 20 mm."""
    x, y, _, h = ew
    dashes = [(a, b) for a, b in _runs(ink, y, h, 0, x) if b - a >= 1.5 * mm and x - b <= ns_gap_mm * mm]
    if not dashes:
        return None
    a, b = dashes[-1]
    ns = _along((a, y, b - a, h), ink, mm, [ew])
    return ns if ns[2] >= 20 * mm else None


def _runs(ink: np.ndarray, y: int, h: int, lo: int, hi: int) -> list[tuple[int, int]]:
    """The (start, end) x of each run of ink columns between ``lo`` and ``hi`` in the band of
    rows ``y - 1`` to ``y + h`` (an underline's own height)."""
    row = ink[max(0, y - 1):y + h + 1, lo:hi].any(axis=0).astype(np.int8)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], row, [0]))))
    return [(int(a) + lo, int(b) + lo) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _along(seg: tuple[int, int, int, int], ink: np.ndarray, mm: float,
           others: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """An underline ``seg`` (x, y, w, h) found in part (a fax drops most of a thin line)
    followed along its own height through dashes at least 1.5 mm long with gaps of up to
    10 mm, never into another underline's span."""
    x, y, w, h = seg
    lo = max((o[0] + o[2] for o in others if abs(o[1] - y) <= 3 * mm and o[0] + o[2] <= x), default=0)
    hi = min((o[0] for o in others if abs(o[1] - y) <= 3 * mm and o[0] >= x + w), default=ink.shape[1])
    dashes = [(a, b) for a, b in _runs(ink, y, h, lo, hi) if b - a >= 1.5 * mm or (a < x + w and b > x)]
    x0, x1 = x, x + w
    gap = 10 * mm
    for a, b in sorted(dashes, key=lambda d: -d[0]):  # leftwards
        if b < x0 and x0 - b <= gap:
            x0 = a
    for a, b in sorted(dashes):  # rightwards
        if a > x1 and a - x1 <= gap:
            x1 = b
    return (int(min(x, x0)), y, int(max(x + w, x1) - min(x, x0)), h)
