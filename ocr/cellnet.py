"""Whole-cell recogniser: a small convolutional network with a CTC output, run in NumPy.

A cell image (paper-normalised grey, rulings removed) is cut to the columns that carry ink,
scaled to 32 px high and read left to right as a sequence of 32 frames; each frame gives a
distribution over the symbols ``0-9 - N E S W`` and the CTC "nothing here" symbol.  The
N-best strings come from a CTC prefix beam search, each with its probability summed over
all alignments, so touching digits need no cutting: the network reads the whole number.

The network is trained by ``train/train_cellnet.py`` (torch, training venv only) on cells cut
by this very pipeline from generated sheets, and exported to ``ocr/models/cellnet.npz``.
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

ALPHABET = "0123456789-NESW"  # CTC blank is class 0; ALPHABET[i] is class i + 1
HEIGHT = 32
WIDTH = 128
MODEL_PATH = Path(__file__).resolve().parent / "models" / "cellnet.npz"
DIGITS_PATH = MODEL_PATH.with_name("digitnet.npz")  # the digit network (ocr/digitnet.py), when there is one ...
# ... asked about a number cell when the first network's best string is less sure than this (0.98 in
# rounds 11-12; 0.999 halves the wrong readings at >= 0.95 and, on 879 sheets, the false flags they
# cause: 9 -> 7 mistake-free sheets, for ~0.03 s a sheet; bench/RESULTS-read.md, round 13)
DIGITS_UNSURE = 0.999
DIGITS_UNSURE_UNMARKED = 0.98  # readings stored by rounds 11-12 name the digit network without its threshold
# The ensemble's other networks read a cell only when the first network's best string is less sure
# than this (a cascade: on the cells it reads surer, the other networks almost always agree; 879
# sheets: 0.99 and 0.995 as without it, one false-flagged sheet more at 0.99)
ENSEMBLE_UNSURE = 0.995

if TYPE_CHECKING:
    from ocr.digitnet import DigitNet


def prepare(grey: np.ndarray) -> np.ndarray:
    """A cell's grey image -> the network input: float32 (HEIGHT, WIDTH), ink = 1, paper = 0.

    The cell keeps its full height (so a digit's size relative to the row is kept) and is
    cut to the columns holding ink (specks too small to be writing are ignored for the
    cut), with a margin; the cut is scaled to HEIGHT rows, squeezed if wider than WIDTH,
    and placed at the left.  A cell without writing gives an all-zero input.
    """
    return prepare_cut(grey)[0]


@dataclass(frozen=True)
class Cut:
    """Where a prepared input came from in its cell image: input column u is cell column
    x0 + u / xscale; the writing's rows are y0 to y1 (end excluded); ``ink`` is the cell's ink
    (0 paper .. 1 full ink) as the input was made from it."""

    x0: int
    xscale: float
    y0: int
    y1: int
    ink: np.ndarray
    second_look: bool = False  # found by prepare_cut's second look (faint, speckled or dotted writing)
    x1: int = -1  # the cut's right edge in the cell (end excluded; -1: the cell's)


# Ink (0 paper .. 1 the cell's darkest) above this is writing; a mark of it counts when it holds
# _mark_area(h) pixels or is MARK_TALL x the cell's height tall
WRITING_INK = 0.35
MARK_TALL = 0.3
# The second look at a cell the first finds empty (see prepare_cut): writing at least this dark at
# the cell's 99.5th percentile of ink (a robust "darkest" that one black speck does not set) ...
FAINT_TOP = 0.1
# ... whose ink, with dots closed up by a dilation this fraction of the cell's height, makes marks
# at least this fraction of the cell's height tall
FAINT_CLOSE = 0.08
FAINT_TALL = 0.3
# ... holding at least this many ink pixels (x the cell's height squared): a chain of fax specks in
# an empty cell holds 0.003-0.009, the sparsest dotted writing on 879 benchmark sheets 0.006-0.011
FAINT_INK = 0.01
# The reader's version ends with this (see _version): "look2", its cells get this second look (round
# 14); "odds", its readings carry their one-digit variants' odds and dealer letters are read by the
# cascade of cell networks, not the first alone (round 15); "cal", its "none of these" is calibrated
# and its readings carry the sheet's doubt, by which reconciliation widens it (round 16: readings
# without the mark carry "none" already widened); "dots", its cut keeps a digit a fax broke into
# dots beside a solid one or written fainter, and clears faint shading from its margins; "half",
# its "none of these" is half the mass its beam left uncovered and the digit network's share of it
# 0.6 (round 19: the same networks read many cells differently, so stored readings say which)
PREPARE_MARK = "look2-odds-cal-dots-half"


def prepare_cut(grey: np.ndarray) -> tuple[np.ndarray, Cut | None]:
    """:func:`prepare`'s input and where it came from (None for an all-zero input).

    A cell the first look finds empty gets a second: writing can be faint (a washed-out photo of
    pencil, darkest ink < 0.2), grey beside one black speck (normalising by the speck hides it), or
    broken into dots by a fax.  The second look normalises by the 99.5th percentile of the ink and
    closes dots up before looking for marks tall enough to be writing; isolated specks and fax
    noise stay empty.  The cut takes in a digit broken into dots beside a solid one and one written
    fainter than its neighbours, and faint ink in its margins that makes no stroke is cleared
    (:func:`_clear_margins`; all three round 19).
    """
    g = np.asarray(grey)
    out = np.zeros((HEIGHT, WIDTH), np.float32)
    if g.ndim != 2 or g.shape[0] < 4 or g.shape[1] < 4:
        return out, None
    h = g.shape[0]
    raw = (255.0 - g.astype(np.float32)) / 255.0
    top = float(raw.max())
    if top >= 0.2:
        ink = np.clip(raw / max(top, 0.35), 0, 1)
        mask = (ink > WRITING_INK).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        boxes = [stats[i] for i in range(1, n)
                 if stats[i, cv2.CC_STAT_AREA] >= _mark_area(h) or stats[i, cv2.CC_STAT_HEIGHT] >= MARK_TALL * h]
        if boxes:
            # writing a fax broke into specks beside these marks (not the specks around them)
            dotted = [d for d in _dotted_marks(ink, mask, h) if not any(_overlap(d, b) for b in boxes)]
            faint = [f for f in _faint_marks(ink, h) if not any(_overlap(f, b) for b in boxes + dotted)]
            return _cut_to(ink, boxes + dotted + faint, out)
    robust = float(np.percentile(raw, 99.5))
    if robust < FAINT_TOP:
        return out, None
    ink = np.clip(raw / robust, 0, 1)
    boxes = _dotted_marks(ink, (ink > WRITING_INK).astype(np.uint8), h)
    if not boxes:
        return out, None
    out, cut = _cut_to(ink, boxes, out)
    return out, replace(cut, second_look=True)


def _dotted_marks(ink: np.ndarray, mask: np.ndarray, h: int) -> list:
    """The marks of ``mask`` that are writing once its dots are closed up (the second look's test),
    as boxes of ``ink``'s coordinates: a fax breaks a digit beside a solid one into specks each too
    small to count, and a cut to the solid one alone reads "50" as "5" (bench sheet 60005)."""
    k = max(3, int(round(FAINT_CLOSE * h)) | 1)
    closed = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    inked = np.bincount(labels[mask > 0], minlength=n)
    pad = k // 2
    return [np.array([b[0] + pad, b[1] + pad, b[2] - 2 * pad, b[3] - 2 * pad, b[4]]) for b in
            (stats[i] for i in range(1, n)
             if stats[i, cv2.CC_STAT_HEIGHT] - (k - 1) >= FAINT_TALL * h and inked[i] >= FAINT_INK * h * h)]


# A digit written fainter than its neighbours (ink above this, below WRITING_INK of the darkest) counts for the cut when it is as tall as writing (>= 0.3 x the cell, < 0.9 x it: not a
# ruling's leftover) and as big as a mark that counts: bench sheet 90102, "50" with a pale 5, was cut
# to the "0" and read 0 at 0.999 (a false flag).  Round 19: the truth's NLL lower on five of seven
# ranges (60000-60099 0.0617 -> 0.0594), the same within 0.0002 on the others; real handwriting
# wrong 1,385 -> 1,375 of 41,668 (bench/RESULTS-read.md).
FAINT_MARK_INK = 0.2


def _faint_marks(ink: np.ndarray, h: int) -> list:
    """The cell's faint marks (see FAINT_MARK_INK) as boxes (rows of connectedComponentsWithStats' stats)."""
    n, _, st, _ = cv2.connectedComponentsWithStats((ink > FAINT_MARK_INK).astype(np.uint8), connectivity=8)
    return [st[i] for i in range(1, n) if MARK_TALL * h <= st[i, cv2.CC_STAT_HEIGHT] < 0.9 * h
            and st[i, cv2.CC_STAT_AREA] >= _mark_area(h)]


def _mark_area(h: int) -> float:
    """The ink pixels a mark in a cell ``h`` rows high needs to count as writing (unless it is
    MARK_TALL): fewer are specks."""
    return max(4.0, 0.008 * h * h)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two boxes (rows of connectedComponentsWithStats' stats) share columns."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2]


def _cut_to(ink: np.ndarray, boxes: list, out: np.ndarray) -> tuple[np.ndarray, Cut]:
    """The input made from ``ink`` (0..1) cut to the columns of the writing's boxes (rows of
    connectedComponentsWithStats' stats), with a margin, scaled to HEIGHT rows into ``out``."""
    h, w = ink.shape
    x0 = min(int(b[cv2.CC_STAT_LEFT]) for b in boxes)
    x1 = max(int(b[cv2.CC_STAT_LEFT] + b[cv2.CC_STAT_WIDTH]) for b in boxes)
    margin = int(round(0.12 * h))
    y0 = min(int(b[cv2.CC_STAT_TOP]) for b in boxes)
    y1 = max(int(b[cv2.CC_STAT_TOP] + b[cv2.CC_STAT_HEIGHT]) for b in boxes)
    lo = max(0, x0 - margin)
    crop = ink[:, lo:min(w, x1 + margin)].copy()
    _clear_margins(crop, x0 - lo, x1 - lo, y1 - y0)
    x0 = lo
    scale = HEIGHT / h
    nw = int(round(crop.shape[1] * scale))
    nw = max(1, min(WIDTH, nw))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    out[:, :nw] = cv2.resize(crop, (nw, HEIGHT), interpolation=interp)
    return out, Cut(x0, nw / max(1, crop.shape[1]), y0, y1, ink, x1=x0 + crop.shape[1])


# Faint ink in the margins beside the writing's marks (below WRITING_INK) is cleared
# unless it makes a stroke: at least MARGIN_STROKE_TALL x the writing's height (at ink > 0.1) and at
# most MARGIN_STROKE_WIDE x it wide -- a lightly written 1 stays, a photo's shading, a JPEG block's
# edge or a fax's grey goes (read as a leading 1 or 6: "600" -> "6600").  Round 19, on the seven
# benchmark ranges: the truth's NLL 3-13 % lower on every one, real handwriting read wrong 1,436 ->
# 1,385 of 41,668 (bench/RESULTS-read.md); clearing every faint margin pixel lost faint leading 1s.
MARGIN_STROKE_TALL = 0.4
MARGIN_STROKE_WIDE = 0.35


def _clear_margins(crop: np.ndarray, left: int, right: int, writing_h: int) -> None:
    """Clear (in place) the faint ink of ``crop``'s columns before ``left`` and from ``right`` on
    that makes no stroke there (see MARGIN_STROKE_TALL).  Each margin is judged on its own: judged
    with the rest of the cell beside it, a faint 1 joined to shading is lost with it (130103's "1740"
    read "740"; 879 sheets: 1 cell more wrong in real handwriting, 2 more flags naming no mistake)."""
    hw = max(writing_h, 1)
    for a, b in ((0, left), (right, crop.shape[1])):
        part = crop[:, a:b]
        if part.size == 0:
            continue
        n, labels, st, _ = cv2.connectedComponentsWithStats((part > 0.1).astype(np.uint8), connectivity=8)
        stroke = np.zeros(n, bool)
        stroke[1:] = (st[1:, cv2.CC_STAT_HEIGHT] >= MARGIN_STROKE_TALL * hw) & (st[1:, cv2.CC_STAT_WIDTH] <= MARGIN_STROKE_WIDE * hw)
        part[(part < WRITING_INK) & ~stroke[labels]] = 0


def _conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray, relu: bool = True) -> np.ndarray:
    """'same' convolution by im2col, channels last.  x: (B, H, W, C); w: (O, C, kh, kw)."""
    bsz, h, wd, c = x.shape
    o, _, kh, kw = w.shape
    ph, pw = kh // 2, kw // 2
    xp = np.pad(x, ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    cols = np.concatenate([xp[:, dy:dy + h, dx:dx + wd, :] for dy in range(kh) for dx in range(kw)], axis=3)
    wm = w.transpose(2, 3, 1, 0).reshape(kh * kw * c, o)
    out = cols.reshape(bsz * h * wd, kh * kw * c) @ wm
    out += b
    if relu:
        np.maximum(out, 0, out=out)
    return out.reshape(bsz, h, wd, o)


def _pool(x: np.ndarray, ph: int, pw: int) -> np.ndarray:
    """Max-pool with window = stride = (ph, pw), channels last, odd edges dropped."""
    bsz, h, w, c = x.shape
    h2, w2 = h // ph, w // pw
    x = x[:, :h2 * ph, :w2 * pw].reshape(bsz, h2, ph, w2, pw, c)
    return x.max(axis=(2, 4))


@dataclass(frozen=True)
class CellNet:
    """The exported network: conv blocks (BatchNorm folded in) with their pooling, then a
    per-frame head of 1-D convolutions over the sequence and a linear output."""

    convs: tuple[tuple[np.ndarray, np.ndarray, int, int], ...]  # (w, b, pool_h, pool_w)
    head: tuple[tuple[np.ndarray, np.ndarray], ...]  # 1-D convs as (O, C, 1, k)
    out: tuple[np.ndarray, np.ndarray]  # (classes, C), (classes,)
    temperature: float = 1.0
    # the same network as an ONNX graph (train/export_onnx.py): run by OpenCV's dnn module,
    # ~1.5x faster than the NumPy path, when it loads and agrees with NumPy on a probe input
    onnx: bytes | None = None
    digest: str = ""  # the first 12 hex digits of the weights file's SHA-256 (which network read a sheet)
    _dnn: dict = field(default_factory=dict, compare=False, repr=False)  # pid -> cv2.dnn.Net or None

    @classmethod
    def load(cls, path: str | Path = MODEL_PATH) -> CellNet:
        data = Path(path).read_bytes()  # read once: the weights and their digest
        with np.load(io.BytesIO(data)) as z:
            n, m = int(z["n_convs"]), int(z["n_head"])
            convs = tuple(
                (z[f"conv{i}_w"].astype(np.float32), z[f"conv{i}_b"].astype(np.float32),
                 int(z[f"conv{i}_pool"][0]), int(z[f"conv{i}_pool"][1]))
                for i in range(n)
            )
            head = tuple((z[f"head{i}_w"].astype(np.float32), z[f"head{i}_b"].astype(np.float32)) for i in range(m))
            out = (z["out_w"].astype(np.float32), z["out_b"].astype(np.float32))
            temp = float(z["temperature"])
        graph = Path(path).with_suffix(".onnx")
        return cls(convs, head, out, temp, graph.read_bytes() if graph.exists() else None, _digest(data))

    def log_probs(self, inputs: np.ndarray, batch: int = 64) -> np.ndarray:
        """Per-frame log-probabilities, shape (B, T, classes), for inputs (B, HEIGHT, WIDTH)."""
        x_all = np.asarray(inputs, np.float32)
        outs = [self._forward(x_all[i:i + batch]) for i in range(0, len(x_all), batch)]
        if not outs:
            return np.zeros((0, 0, len(ALPHABET) + 1), np.float32)
        return np.concatenate(outs)

    def read(self, inputs: np.ndarray, batch: int = 64) -> list[np.ndarray]:
        """Per-frame log-probabilities of each input (HEIGHT, WIDTH), each (T_i, classes).

        Inputs carry their writing at the left (see :func:`prepare`); each is run only as wide
        as its writing plus a margin of empty columns (in steps of RUN_STEP px), inputs of the same
        width together, so empty padding costs nothing.  The frames beyond the margin would
        read "nothing" anyway."""
        x_all = np.asarray(inputs, np.float32)
        widths = [_run_width(x) for x in x_all]
        out: list[np.ndarray | None] = [None] * len(x_all)
        for w in sorted(set(widths)):
            idx = [i for i, wi in enumerate(widths) if wi == w]
            lp = self.log_probs(x_all[idx][:, :, :w], batch)
            for i, row in zip(idx, lp, strict=True):
                out[i] = row
        return out  # type: ignore[return-value]

    def dnn(self):
        """OpenCV's dnn network for this process (made once per process: a forked batch worker
        makes its own), or None: no ONNX graph, RUBBERSCAN_CELLNET=numpy, or it does not load
        or does not reproduce the NumPy network."""
        probe = np.random.default_rng(0).random((2, HEIGHT, 64), np.float32)
        return checked_dnn(self._dnn, self.onnx, lambda net: self._forward_dnn(net, probe), lambda: self._forward_numpy(probe))

    def _forward(self, x: np.ndarray) -> np.ndarray:
        net = self.dnn()
        return self._forward_numpy(x) if net is None else self._forward_dnn(net, x)

    def _forward_dnn(self, net, x: np.ndarray) -> np.ndarray:
        net.setInput(np.ascontiguousarray(x[:, None]))
        return _log_softmax(net.forward()[:, :, 0, :].transpose(0, 2, 1) / self.temperature)

    def _forward_numpy(self, x: np.ndarray) -> np.ndarray:
        x = x[..., None]
        for w, b, ph, pw in self.convs:
            x = _conv2d(x, w, b)
            if ph > 1 or pw > 1:
                x = _pool(x, ph, pw)
        bsz, h, t, c = x.shape
        # collapse height into channels in torch's (C, H) order: (B, 1, T, C*H)
        x = x.transpose(0, 2, 3, 1).reshape(bsz, 1, t, c * h)
        for w, b in self.head:
            x = _conv2d(x, w, b)
        z = x[:, 0] @ self.out[0].T + self.out[1]
        return _log_softmax(z / self.temperature)


def checked_dnn(cache: dict, onnx: bytes | None, run_dnn, run_numpy):
    """OpenCV's dnn network from an ONNX graph, made once per process (kept in ``cache`` by pid),
    or None: no graph, RUBBERSCAN_CELLNET=numpy, or it does not load, or ``run_dnn(net)`` (a probe
    input through it) differs from ``run_numpy()`` (the same through the NumPy path)."""
    pid = os.getpid()
    if pid not in cache:
        cache[pid] = None
        if onnx is not None and os.environ.get("RUBBERSCAN_CELLNET", "").lower() != "numpy":
            try:
                net = cv2.dnn.readNetFromONNX(np.frombuffer(onnx, np.uint8))
                if np.allclose(run_dnn(net), run_numpy(), atol=1e-3):
                    cache[pid] = net
            except cv2.error:
                pass
    return cache[pid]


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=2, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=2, keepdims=True))


RUN_MARGIN = 24  # empty columns kept right of the writing when an input is run narrower ...
RUN_STEP = 8  # ... in steps of this many columns (32: the same readings on the 100 bench sheets, ~10 % slower)


def _run_width(x: np.ndarray) -> int:
    cols = np.flatnonzero(x.max(axis=0) > 0)
    used = int(cols[-1]) + 1 if len(cols) else 0
    return min(WIDTH, -(-(used + RUN_MARGIN) // RUN_STEP) * RUN_STEP)


def model_paths(first: Path = MODEL_PATH) -> list[Path]:
    """The committed ensemble: ``cellnet.npz`` and its siblings ``cellnet-1.npz``, ``cellnet-2.npz``...
    in that order; other files beside them (a network being tried, ``cellnet-wide.npz``) are not
    part of it."""
    siblings = [p for p in first.parent.glob(f"{first.stem}-*.npz") if p.stem.rsplit("-", 1)[1].isdigit()]
    return [first] + sorted(siblings, key=lambda p: int(p.stem.rsplit("-", 1)[1]))


def _digest(data: bytes) -> str:
    """The first 12 hex digits of the SHA-256 of a weights file's bytes."""
    return hashlib.sha256(data).hexdigest()[:12]


def _default_paths() -> list[Path]:
    """The networks this process reads with: the committed ones, or the first N of them when
    RUBBERSCAN_NETWORKS=N."""
    if not MODEL_PATH.exists():
        raise FileNotFoundError(f"cell model missing: {MODEL_PATH} (run `make model`)")
    paths = model_paths()
    wanted = os.environ.get("RUBBERSCAN_NETWORKS", "").strip()
    if wanted:
        if not wanted.isdigit() or int(wanted) < 1:
            raise ValueError(f"RUBBERSCAN_NETWORKS must be a whole number >= 1, not {wanted!r}")
        paths = paths[: int(wanted)]
    return paths


def reader_version() -> str:
    """What the reader reads with by default, without loading the cell networks: their digests
    joined by '+', and the installed second reader's mark (the string ocr.read.read_table stores as
    its reading's ``meta["reader"]``)."""
    from ocr.ppocr import default_reader, mark

    digits = _digits_path()
    second = default_reader()
    return _version([_digest(p.read_bytes()) for p in _default_paths()], _digest(digits.read_bytes()) if digits else None,
                    mark(second.digest) if second is not None else None)


def _version(nets: list[str], digits: str | None, second: str | None = None) -> str:
    """A reader's version from its networks' digests: joined by '+'; each network after the first
    marked '-belowENSEMBLE_UNSURE' when it reads only the cells the first is less sure of (round 12's
    cascade: the same networks read every cell before it); the digit network as 'digits-DIGEST',
    marked '-belowDIGITS_UNSURE' unless it is asked below 0.98 (as in rounds 11-12, whose stored
    readings carry no mark); then the second reader's mark (ocr.ppocr.mark), when it reads too;
    last, PREPARE_MARK (readings stored before round 14 carry none: there, cells the first look found
    empty were read as blank; round 14's end "+look2")."""
    cascade = f"-below{ENSEMBLE_UNSURE:g}" if ENSEMBLE_UNSURE <= 1.0 else ""
    asked = f"-below{DIGITS_UNSURE:g}" if DIGITS_UNSURE != DIGITS_UNSURE_UNMARKED else ""
    return "+".join(nets[:1] + [d + cascade for d in nets[1:]] + ([f"digits-{digits}{asked}"] if digits else [])
                    + ([second] if second else []) + [PREPARE_MARK])


def _digits_path() -> Path | None:
    """The digit network this process reads with: the committed one, or none when there is none or
    RUBBERSCAN_DIGITNET=0 (~0.1 s per sheet faster, less accurate: bench/RESULTS-read.md)."""
    wanted = os.environ.get("RUBBERSCAN_DIGITNET", "").strip().lower()
    if wanted not in ("", "0", "1"):
        raise ValueError(f"RUBBERSCAN_DIGITNET must be 0 or 1, not {wanted!r}")
    return DIGITS_PATH if wanted != "0" and DIGITS_PATH.exists() else None


@lru_cache(maxsize=1)
def default_net() -> CellReader:
    """The committed networks, loaded once per process (read-only afterwards).
    RUBBERSCAN_NETWORKS=1 reads with the first network alone: less accurate, and since the
    cascade (nbest) hardly faster (bench/RESULTS-read.md); RUBBERSCAN_DIGITNET=0 without the digit network."""
    from ocr.digitnet import DigitNet

    digits = _digits_path()
    return CellReader(tuple(CellNet.load(p) for p in _default_paths()), DigitNet.load(digits) if digits else None)


@dataclass(frozen=True)
class CellReader:
    """One network or an ensemble of networks trained alike from different seeds.

    The networks propose strings for a cell; every proposed string is then scored exactly
    under every network (CTC forward probability, summed over alignments) and the networks'
    probabilities are averaged.  The average of string probabilities -- not of the
    per-frame outputs, whose spikes may sit one frame apart from one network to the next --
    keeps a string that only one network believes at a share that reflects the disagreement."""

    nets: tuple[CellNet, ...]
    digits: DigitNet | None = None  # a second opinion on each digit of a number (ocr/digitnet.py)

    def version_with(self, second: str | None) -> str:
        """:attr:`version` with a second reader's mark (ocr.ppocr.mark) among its parts."""
        return _version([n.digest for n in self.nets], self.digits.digest if self.digits else None, second)

    @property
    def version(self) -> str:
        """Which networks these are: their weights files' digests joined by '+', the digit
        network's as 'digits-DIGEST' (kept with every reading, so a stored result says which reader
        made it); see :func:`_version`."""
        return _version([n.digest for n in self.nets], self.digits.digest if self.digits else None)

    def nbest(self, inputs: np.ndarray, allowed: list[str | None], beam: int = 16,
              cuts: list[Cut | None] | None = None, first: list[np.ndarray] | None = None) -> list[list[tuple[str, float]]]:
        """The most probable strings of each input with their (averaged) probabilities, best first.

        The first network's beam search proposes the strings, each other network adds its best
        path (the beam of every network costs more and found the same readings, 0.05 % apart on
        the benchmark sheets); then every proposal is scored under every network.  The other
        networks read only the cells whose best string the first network gives less than
        ENSEMBLE_UNSURE (a cascade: ~0.09 s a sheet saved, figures within one sheet on 879 sheets;
        bench/RESULTS-read.md, round 12).  With the
        inputs' cuts (:func:`prepare_cut`) and a digit network, number strings are also weighed by
        the digit network's reading of each digit in the cell image itself (ocr/digitnet.py).
        ``first``: the first network's frames of ``inputs``, when already read."""
        from ocr.digitnet import opinions as digit_opinions

        first = self.nets[0].read(inputs) if first is None else first
        proposals = [ctc_nbest(first[i], beam=beam, allowed=allowed[i]) for i in range(len(inputs))]
        # the other networks read the cells the first one is not sure of (None elsewhere)
        ask = [i for i in range(len(inputs)) if not proposals[i] or proposals[i][0][1] < ENSEMBLE_UNSURE]
        per_net: list[list] = [first]
        for net in self.nets[1:]:
            lps: list = [None] * len(inputs)
            for i, lp in zip(ask, net.read(inputs[ask]) if ask else [], strict=True):
                lps[i] = lp
            per_net.append(lps)
        # the digit network is asked about number cells the first network is not sure of
        numbers = [] if self.digits is None or cuts is None else [
            i for i in range(len(inputs)) if (allowed[i] is None or any(ch.isdigit() for ch in allowed[i]))
            and proposals[i] and proposals[i][0][1] < DIGITS_UNSURE]
        if not numbers and len(self.nets) == 1:
            return proposals
        opinions = dict(zip(numbers, digit_opinions(self.digits, [cuts[i] for i in numbers], [per_net[0][i] for i in numbers],
                                                    [proposals[i] for i in numbers]), strict=True)) if numbers else {}
        strings = [sorted({s for s, _ in proposals[i]} | {best_path(lps[i], allowed[i]) for lps in per_net[1:] if lps[i] is not None}
                          | (set(opinions[i].variants) if i in opinions else set()))
                   for i in range(len(inputs))]
        scored = [_scored_where_read(lps, strings) for lps in per_net]
        out = []
        for i, ss in enumerate(strings):
            mean = np.mean([sc[i] for sc in scored if sc[i] is not None], axis=0)
            if i in opinions:
                mean = opinions[i].reweigh(ss, mean)
            out.append(sorted(zip(ss, mean.tolist(), strict=True), key=lambda kv: -kv[1])[:beam])
        return out


# One-digit variants of a cell's best number whose probability under the first network is at least
# 10 ** NEAR_FLOOR times the best one's are kept (CellReading.near); reconciliation takes the rest as
# that unlikely.  Of 65 lone miscopied cumulatives read as written, 40 had the value the arithmetic
# gives at < 1e-6 of the best; of 261 numbers misread one digit off with the truth not proposed,
# 243 had it at >= 1e-5 (bench/RESULTS-reconcile.md, round 15).
NEAR_FLOOR = -8.0


def variant_odds(log_probs: list[np.ndarray], bests: list[str]) -> list[dict[int, float] | None]:
    """For each input's best number string, its one-digit variants' probabilities under the
    network whose frames ``log_probs`` are, as log10 of their ratio to the best string's, rounded
    to 0.1; only those >= NEAR_FLOOR ({}: measured, none that likely).  None where nothing was
    measured: the best is not a number, or that network gives it no probability at all (the
    string came from another network), so the odds against it say nothing."""
    # (a last 0 stays: every score ends in 0)
    variants = [[s[:k] + d + s[k + 1:] for k in range(len(s) - s.endswith("0")) for d in "0123456789" if d != s[k]]
                if s.isdigit() else [] for s in bests]
    keep = [i for i, v in enumerate(variants) if v]
    out: list[dict[int, float] | None] = [None for _ in bests]
    if not keep:
        return out
    probs = ctc_string_probs([log_probs[i] for i in keep], [[bests[i]] + variants[i] for i in keep])
    for i, p in zip(keep, probs, strict=True):
        if p[0] <= 0:
            continue
        ratio = np.log10(np.maximum(p[1:], 1e-300) / p[0])
        out[i] = {int(v): round(float(r), 1) for v, r in zip(variants[i], ratio, strict=True)
                  if r >= NEAR_FLOOR and not (len(v) > 1 and v[0] == "0")}
    return out


def _scored_where_read(lps: list[np.ndarray | None], strings: list[list[str]]) -> list[np.ndarray | None]:
    """:func:`ctc_string_probs` of the inputs a network read (``lps[i]`` not None); None for the others."""
    read = [i for i, lp in enumerate(lps) if lp is not None]
    out: list[np.ndarray | None] = [None] * len(lps)
    for i, sc in zip(read, ctc_string_probs([lps[i] for i in read], [strings[i] for i in read]), strict=True):
        out[i] = sc
    return out


def best_path(log_probs: np.ndarray, allowed: str | None = None) -> str:
    """The string of the most probable single alignment (greedy CTC decoding)."""
    return best_path_frames(log_probs, allowed)[0]


def best_path_frames(log_probs: np.ndarray, allowed: str | None = None) -> tuple[str, list[int]]:
    """:func:`best_path`'s string and, for each of its characters, its strongest frame in its run."""
    lp = np.asarray(log_probs)
    keep = [0] + [i + 1 for i, ch in enumerate(ALPHABET) if allowed is None or ch in allowed]
    path = np.asarray(keep)[np.argmax(lp[:, keep], axis=1)].tolist()
    chars: list[str] = []
    frames: list[int] = []
    prev = 0
    for t, c in enumerate(path):
        if c != 0 and c != prev:
            chars.append(ALPHABET[c - 1])
            frames.append(t)
        elif c != 0 and lp[t, c] > lp[frames[-1], c]:
            frames[-1] = t
        prev = c
    return "".join(chars), frames


def ctc_string_probs(log_probs: list[np.ndarray], strings: list[list[str]]) -> list[np.ndarray]:
    """P(string | frames) for each given string of each input (CTC forward pass, all inputs
    and strings in one batch).  ``log_probs[i]`` is input i's (T_i, classes) frames."""
    items = [(i, s) for i, ss in enumerate(strings) for s in ss]
    out = [np.zeros(len(ss)) for ss in strings]
    if not items:
        return out
    n_t = max(lp.shape[0] for lp in log_probs)
    frames = np.zeros((len(log_probs), n_t, len(ALPHABET) + 1))
    frames[:, :, 0] = 1.0  # inputs run narrower are padded with frames of "nothing here"
    for i, lp in enumerate(log_probs):
        frames[i, : lp.shape[0]] = np.exp(lp)
    n_s = 2 * max(len(s) for _, s in items) + 1
    ext = np.zeros((len(items), n_s), int)  # blank, a, blank, b, blank ...
    for k, (_, s) in enumerate(items):
        ext[k, 1: 2 * len(s): 2] = [ALPHABET.index(ch) + 1 for ch in s]
    length = np.array([2 * len(s) + 1 for _, s in items])
    valid = np.arange(n_s)[None, :] < length[:, None]
    skip = np.zeros((len(items), n_s), bool)
    skip[:, 2:] = (ext[:, 2:] != 0) & (ext[:, 2:] != ext[:, :-2])
    owner = np.array([i for i, _ in items])
    emit = frames[owner[:, None, None], np.arange(n_t)[None, :, None], ext[:, None, :]]  # (N, T, S)
    alpha = np.zeros((len(items), n_s))
    alpha[:, 0] = emit[:, 0, 0]
    if n_s > 1:  # (a batch of nothing but empty strings has the blank state alone)
        alpha[:, 1] = emit[:, 0, 1] * (length > 1)
    for t in range(1, n_t):
        a = alpha.copy()
        a[:, 1:] += alpha[:, :-1]
        a[:, 2:] += np.where(skip[:, 2:], alpha[:, :-2], 0.0)
        alpha = a * emit[:, t] * valid
    rows = np.arange(len(items))
    end = alpha[rows, length - 1] + np.where(length > 1, alpha[rows, np.maximum(length - 2, 0)], 0.0)
    k = 0
    for i, ss in enumerate(strings):
        out[i] = end[k:k + len(ss)]
        k += len(ss)
    return out


def ctc_nbest(log_probs: np.ndarray, beam: int = 16, allowed: str | None = None) -> list[tuple[str, float]]:
    """CTC prefix beam search over one cell's frames (T, classes): the most probable strings
    with their probabilities (summed over alignments), best first.  ``allowed`` limits the
    symbols (e.g. digits and dash for a number cell)."""
    probs = np.exp(np.asarray(log_probs, np.float64))
    symbols = np.array([i + 1 for i, ch in enumerate(ALPHABET) if allowed is None or ch in allowed])
    # symbols negligible in a frame are skipped; plain Python floats in the loop (faster than NumPy scalars)
    actives = [symbols[m].tolist() for m in probs[:, symbols] > 1e-4]
    # prefix -> (p ending in blank, p ending in non-blank)
    beams: dict[tuple[int, ...], tuple[float, float]] = {(): (1.0, 0.0)}
    for p, active in zip(probs.tolist(), actives, strict=True):
        if not active:  # a frame of "nothing here": every prefix just goes on
            beams = {k: ((pb + pnb) * p[0], pnb * p[k[-1]] if k else 0.0) for k, (pb, pnb) in beams.items()}
            continue
        nxt: dict[tuple[int, ...], list[float]] = {}
        for prefix, (pb, pnb) in beams.items():
            total = pb + pnb
            e = nxt.setdefault(prefix, [0.0, 0.0])
            e[0] += total * p[0]
            if prefix:
                e[1] += pnb * p[prefix[-1]]  # repeated symbol without a blank: same prefix
            for s in active:
                ext = prefix + (s,)
                f = nxt.setdefault(ext, [0.0, 0.0])
                if prefix and prefix[-1] == s:
                    f[1] += pb * p[s]  # a repeat needs a blank in between
                else:
                    f[1] += total * p[s]
        ranked = sorted(nxt.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:beam]
        beams = {k: (v[0], v[1]) for k, v in ranked}
    out = [("".join(ALPHABET[s - 1] for s in k), v[0] + v[1]) for k, v in beams.items()]
    out.sort(key=lambda kv: -kv[1])
    return out
