"""UNIPEN category 1a (isolated digits written on a tablet) as pen strokes, by writer.

``.SEGMENT CHARACTER a-b QUALITY "d"`` lines in ``data/1a/<inst>/*.dat`` name blocks of the
include file the segment file ``.INCLUDE``s; the block indices count ``.PEN_DOWN`` and ``.PEN_UP``
blocks alike (0-based; a marker with no points is no block), and only the pen-down blocks are ink.  The y axis points up (flipped here).
A writer is the include file (one session of one person; ``.WRITER_ID`` within an institution).
Read straight from the archive in ../shared/data/unipen (CC BY 4.0, Zenodo 10.5281/zenodo.1195803).
"""

from __future__ import annotations

import re
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ARCHIVE = Path(__file__).resolve().parents[2] / "shared" / "data" / "unipen" / "unipen_1a.tgz"


@dataclass(frozen=True)
class Digit:
    """One written digit: its label, its writer's key and its strokes (each (n, 2) x, y; y down)."""

    label: str
    writer: str
    strokes: tuple[np.ndarray, ...]


def _blocks(text: str) -> list[tuple[bool, np.ndarray]]:
    """The include file's pen blocks in order: (pen down?, points (n, 2))."""
    out: list[tuple[bool, list]] = []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("."):
            if s.startswith(".PEN_DOWN"):
                out.append((True, []))
            elif s.startswith(".PEN_UP"):
                out.append((False, []))
            continue
        if out:
            parts = s.split()
            try:
                out[-1][1].append((float(parts[0]), float(parts[1])))
            except (IndexError, ValueError):
                continue  # a comment's continuation line, not a point
    # a marker with no points after it (".PEN_UP" straight before ".PEN_DOWN") is no block: counting
    # it puts 5,803 of the 15,953 segments on pen-up blocks alone; not counting it, every segment
    # names pen-down blocks (557 with a pen-up block of hover points between two strokes)
    return [(down, np.asarray(pts, float).reshape(-1, 2)) for down, pts in out if pts]


def _indices(spec: str) -> list[int]:
    """'96-98' -> [96, 97, 98]; '4,7' -> [4, 7]; '5' -> [5]; a point inside a block ('380:1')
    counts as its whole block."""
    out: list[int] = []
    spec = re.sub(r":\d+", "", spec)
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out += list(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


SEGMENT = re.compile(r'^\.SEGMENT\s+CHARACTER\s+(\S+)\s+(\S+)\s+"(.)"')


def load(archive: str | Path = ARCHIVE) -> list[Digit]:
    """Every labelled digit of the archive whose segment names pen-down blocks (quality BAD skipped)."""
    with tarfile.open(archive) as tar:
        files = {m.name: tar.extractfile(m).read().decode("latin-1") for m in tar.getmembers() if m.isfile()}
    roots = {name.split("include/", 1)[1]: text for name, text in files.items() if "include/" in name}
    digits: list[Digit] = []
    cache: dict[str, list] = {}
    for name, text in sorted(files.items()):
        if "data/1a/" not in name or not name.endswith(".dat"):
            continue
        include = None
        for line in text.splitlines():
            if line.startswith(".INCLUDE"):
                include = line.split(None, 1)[1].strip()
                continue
            m = SEGMENT.match(line)
            if not m or include is None or include not in roots:
                continue
            spec, quality, label = m.groups()
            if quality.upper() == "BAD" or not label.isdigit():
                continue
            if include not in cache:
                cache[include] = _blocks(roots[include])
            blocks = cache[include]
            idx = _indices(spec)
            if not idx or max(idx) >= len(blocks):
                continue
            strokes = tuple(pts * [1, -1] for i in idx for down, pts in [blocks[i]] if down and len(pts))
            if strokes:
                digits.append(Digit(label, include, strokes))
    return digits


def split_writers(digits: list[Digit], share: float = 0.2, part: int = 0) -> tuple[list[Digit], list[Digit]]:
    """(others, held out): writers whose key's CRC32 falls in the ``part``-th ``share`` of the range
    are held out -- a fixed split by writer, the same on every machine."""
    n = int(round(1 / share))

    def held(w: str) -> bool:
        return zlib.crc32(w.encode()) % n == part

    return [d for d in digits if not held(d.writer)], [d for d in digits if held(d.writer)]


def _draw(strokes: list[np.ndarray], widths: list[float], size: tuple[int, int], scale: int = 4) -> np.ndarray:
    """Ink (0..1, float32) of polylines drawn at ``scale`` x supersampling, antialiased down."""
    h, w = size
    canvas = np.zeros((h * scale, w * scale), np.uint8)
    for pts, width in zip(strokes, widths, strict=True):
        p = np.round(pts * scale).astype(np.int32).reshape(-1, 1, 2)
        t = max(1, int(round(width * scale)))
        if len(p) == 1:
            cv2.circle(canvas, tuple(int(v) for v in p[0, 0]), max(1, t // 2), 255, -1, cv2.LINE_AA)
        else:
            cv2.polylines(canvas, [p], False, 255, t, cv2.LINE_AA)
    return cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def render_number(digits: list[Digit], rng: np.random.Generator, height: int = 64) -> np.ndarray:
    """A cell (grey uint8, paper light) with ``digits`` (one writer's) written left to right as one
    number: each digit scaled to a common height (a writer's sizes vary a little), one slant for
    the number, gaps from touching to wide, a pen 1.5-3.5 px wide pressed harder or lighter per
    stroke, blue-black to pencil-grey ink, paper grain, blur and noise of a scan."""
    hd = height * rng.uniform(0.45, 0.75)  # the writing's height in the cell
    slant = rng.uniform(-0.25, 0.15)
    pen = rng.uniform(1.5, 3.5) * height / 64
    parts: list[list[np.ndarray]] = []
    x = 0.0
    for d in digits:
        pts = np.concatenate(d.strokes)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        span = hi - lo
        k = hd * rng.uniform(0.9, 1.1) / max(span[1], 0.35 * span[0], 1e-6)
        strokes = []
        for s in d.strokes:
            q = (s - lo) * k
            q[:, 0] += -slant * (q[:, 1] - hd)  # slant: the top leans right for slant < 0
            strokes.append(q)
        allq = np.concatenate(strokes)
        left = allq[:, 0].min()
        gap = rng.uniform(-0.08, 0.35) * hd if parts else 0.0
        strokes = [q + [x + gap - left, 0] for q in strokes]
        x = max(q[:, 0].max() for q in strokes)
        parts.append(strokes)
    margin_l, margin_r = rng.uniform(0.1, 1.0) * hd, rng.uniform(0.1, 1.0) * hd
    width = int(np.ceil(x + margin_l + margin_r + pen * 2))
    top = (height - hd) * rng.uniform(0.25, 0.75)
    strokes = [q + [margin_l + pen, top] for p in parts for q in p]
    ink = _draw(strokes, [pen * rng.uniform(0.75, 1.25) for _ in strokes], (height, max(width, height)))
    ink = cv2.GaussianBlur(ink, (0, 0), rng.uniform(0.3, 0.9))
    darkness = rng.uniform(0.45, 0.95)
    paper = rng.uniform(215, 250)
    grey = paper * (1 - darkness * np.clip(ink, 0, 1))
    grey += rng.normal(0, rng.uniform(1.0, 6.0), grey.shape)
    return np.clip(grey, 0, 255).astype(np.uint8)


def compose(pool: dict[str, list[Digit]], text: str, rng: np.random.Generator) -> list[Digit] | None:
    """One writer's digits spelling ``text`` (a digit drawn at random from the writer's own of that
    label), or None when the writer never wrote one of them."""
    out = []
    for ch in text:
        have = pool.get(ch)
        if not have:
            return None
        out.append(have[int(rng.integers(len(have)))])
    return out
