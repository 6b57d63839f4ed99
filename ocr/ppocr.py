"""A second reader of handwriting: PP-OCRv6's small text recogniser, run by ONNX Runtime (or OpenCV's
dnn module where that is not installed: ocr/runtime.py).

PaddleOCR's PP-OCRv6 small recognition model (Apache-2.0) was trained on far more handwriting than
the cell networks ever saw; it reads a line of text 48 px high into per-frame probabilities over
18,710 characters with a CTC output.  The model file ships inside the ``rapidocr`` wheel on PyPI;
``make install`` extracts just that file into ``ocr/models/`` (``python -m ocr.ppocr WHEEL``), and
nothing is downloaded at run time.  Its character list is the ONNX metadata key ``character``.

Two uses: a number cell's frames cut down to the cell networks' alphabet (separators and ticks
count as "nothing here"), so the same CTC code scores any candidate string under it
(ocr/read.py combines the two readers); and a names or winners line read as text (:func:`read_line`).
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ocr.ctc import ALPHABET
from ocr.runtime import onnx_metadata, onnx_net, split_softmax_head
from ocr.settings import ReaderSettings

MODEL_PATH = Path(__file__).resolve().parent / "models" / "PP-OCRv6_rec_small.onnx"
WHEEL_MEMBER = "rapidocr/models/PP-OCRv6_rec_small.onnx"
# the model file of rapidocr 3.10.0 (its MODEL_LICENSES.md gives the same digest)
SHA256 = "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"
HEIGHT = 48  # the model's input rows
DEFAULT = ReaderSettings()


@dataclass(frozen=True)
class LineReader:
    """The loaded recogniser: its characters (index 0 is the CTC blank, the last a space) and the
    model bytes, made into a network once per process (a forked worker makes its own)."""

    chars: tuple[str, ...]
    model: bytes
    digest: str
    _dnn: dict = field(default_factory=dict, compare=False, repr=False)
    _maps: dict = field(default_factory=dict, compare=False, repr=False)  # see _columns

    @classmethod
    def load(cls, path: str | Path = MODEL_PATH) -> LineReader:
        data = Path(path).read_bytes()
        meta = onnx_metadata(data)
        if "character" not in meta:
            raise ValueError(f"{path}: no character list in the model's metadata")
        chars = ("",) + tuple(meta["character"].split("\n")) + (" ",)
        return cls(chars, data, hashlib.sha256(data).hexdigest()[:12])

    def net(self):
        """The network up to its last layer (the features of each frame): see :meth:`_head`."""
        pid = os.getpid()
        if pid not in self._dnn:
            self._dnn[pid] = onnx_net(self._head()[0])
        return self._dnn[pid]

    def _head(self) -> tuple[bytes, np.ndarray | None, np.ndarray | None]:
        """The model split before its last layer (ocr.runtime.split_softmax_head): the network runs
        to each frame's features, and the last layer is computed here -- over every character for a
        line of text, over a number cell's few symbols for a cell (:meth:`cell_probs`).  A model of
        another shape runs whole (no weights: its output is already the probabilities)."""
        if "head" not in self._maps:
            try:
                self._maps["head"] = split_softmax_head(self.model)
            except (ValueError, KeyError, StopIteration, IndexError):
                self._maps["head"] = (self.model, None, None)
        return self._maps["head"]

    def _features(self, images: list[np.ndarray], min_width: int, batch: int):
        """(index, the frames' features (T_i, C)) of each grey image (paper light, ink dark), scaled
        to HEIGHT rows; images of similar width run together, padded on the right as PaddleOCR pads
        a line (mid-grey, 0 after normalisation) to the widest of the batch and at least
        ``min_width`` columns.  Each image's frames end two after its own width."""
        widths = [max(1, int(math.ceil(HEIGHT * g.shape[1] / max(1, g.shape[0])))) for g in images]
        order = sorted(range(len(images)), key=lambda i: widths[i])
        for k in range(0, len(order), batch):
            idx = order[k:k + batch]
            wmax = max(max(widths[i] for i in idx), HEIGHT, min_width)
            x = np.zeros((len(idx), 3, HEIGHT, wmax), np.float32)
            for j, i in enumerate(idx):
                g = cv2.resize(images[i], (widths[i], HEIGHT), interpolation=cv2.INTER_AREA
                               if images[i].shape[0] > HEIGHT else cv2.INTER_LINEAR)
                x[j, :, :, :widths[i]] = (g.astype(np.float32) / 255.0 - 0.5) / 0.5
            net = self.net()
            net.setInput(x)
            y = net.forward()  # (B, T, C)
            for j, i in enumerate(idx):
                yield i, y[j, : max(1, -(-widths[i] // 8) + 2)]  # the model's frames are 8 columns wide

    def probs(self, images: list[np.ndarray], min_width: int = DEFAULT.second_min_width,
              batch: int = DEFAULT.second_batch, keep=None) -> list[np.ndarray]:
        """Per-frame character probabilities (T_i, len(chars)) of each grey image (see
        :meth:`_features`).  With ``keep``, each image's frames are passed through it as soon as its
        batch is read, and what it returns is kept instead (a cell's full frames are ~2.4 MB: kept
        for ~100 cells of a photo, they held ~280 MB)."""
        _, w, b = self._head()
        out: list[np.ndarray | None] = [None] * len(images)
        for i, f in self._features(images, min_width, batch):
            if w is None:
                p = f
            else:
                z = f @ w + b
                z = np.exp(z - z.max(axis=1, keepdims=True))
                p = z / z.sum(axis=1, keepdims=True)
            out[i] = p if keep is None else keep(p)
        return out  # type: ignore[return-value]

    def cell_probs(self, images: list[np.ndarray], settings: ReaderSettings = DEFAULT) -> list[np.ndarray]:
        """:meth:`cell_frames` of each number cell's crop, the last layer computed for the cell's
        symbols and marks alone (the rest of a softmax's classes only renormalise, and
        :meth:`mapped` renormalises among these anyway): ``settings``' second_min_width and
        second_batch."""
        _, w, b = self._head()
        used, cols, sep, one, alike = self._compact(ALPHABET, settings.second_ignored, settings.second_as_one,
                                                    settings.second_as_digit)
        if w is not None:
            w, b = w[:, used], b[used]
        out: list[np.ndarray | None] = [None] * len(images)
        for i, f in self._features(images, settings.second_min_width, settings.second_batch):
            if w is None:
                kept = f[:, used].astype(np.float64)
            else:
                z = (f @ w + b).astype(np.float64)
                kept = np.exp(z - z.max(axis=1, keepdims=True))
            out[i] = _fold(kept, len(ALPHABET), cols, sep, one, alike, ALPHABET.index("1"))
        return out  # type: ignore[return-value]

    def mapped(self, probs: np.ndarray, alphabet: str, ignored: str = DEFAULT.second_ignored,
               as_one: str = DEFAULT.second_as_one, as_digit: str = DEFAULT.second_as_digit) -> np.ndarray:
        """Log-probabilities over [CTC blank] + ``alphabet`` from full frames: the ``ignored``
        marks' (and the space's) probability goes to the blank, the ``as_one`` marks' to the digit
        1 (a stroke many write a 1 as), each letter of ``as_digit``'s pairs ("S5 O0": a letter, then
        the digit it is read for) to its digit -- taken from the letter's own column where
        ``alphabet`` has it -- every other character's is left out and the rest renormalised: the
        reader asked "which of these symbols, if any", as the cell networks are (a symbol of
        ``alphabet`` among the ignored marks is never read)."""
        cols, sep, one, alike = self._columns(alphabet, ignored, as_one, as_digit)
        return _fold(probs, len(alphabet), cols, sep, one if "1" in alphabet else [], alike,
                     alphabet.index("1") if "1" in alphabet else -1)

    def cell_frames(self, probs: np.ndarray, settings: ReaderSettings = DEFAULT) -> np.ndarray:
        """:meth:`mapped` onto a number cell's symbols (ocr.ctc.ALPHABET) with ``settings``' marks
        (second_ignored, second_as_one, second_as_digit): the frames a cell's reading takes."""
        return self.mapped(probs, ALPHABET, settings.second_ignored, settings.second_as_one,
                           settings.second_as_digit)

    def _columns(self, alphabet: str, ignored: str, as_one: str = "",
                 as_digit: str = "") -> tuple[np.ndarray, list[int], list[int], list[tuple[int, list[int]]]]:
        """For :meth:`mapped`: the frames' column of each symbol of ``alphabet`` (-1: left out),
        the columns that count as the blank, those that count as a 1 and, per digit, the look-alike
        letters' columns that count as it, worked out once per reader (the character list is 18,710
        long: ~1.3 ms a cell when it was indexed for each)."""
        key = (alphabet, ignored, as_one, as_digit)
        if key not in self._maps:
            index = {c: i for i, c in enumerate(self.chars)}
            pairs = [(p[0], p[1]) for p in as_digit.split() if len(p) == 2 and p[1] in alphabet and p[0] in index]
            letters = {c for c, _ in pairs}
            ones = [index[c] for c in as_one if c in index and c not in alphabet]
            cols = np.array([index[c] if c in index and c not in ignored and c not in letters else -1
                             for c in alphabet], np.intp)
            blank = sorted({index[c] for c in ignored + " " if c in index and c not in as_one and c not in letters})
            alike: dict[int, list[int]] = {}
            for c, d in pairs:
                alike.setdefault(1 + alphabet.index(d), []).append(index[c])
            self._maps[key] = (cols, blank, sorted(set(ones)), sorted(alike.items()))
        return self._maps[key]

    def _compact(self, alphabet: str, ignored: str, as_one: str,
                 as_digit: str) -> tuple[np.ndarray, np.ndarray, list[int], list[int], list[tuple[int, list[int]]]]:
        """:meth:`_columns` over the few characters they name: those characters' columns of the
        full frames (the blank's first), then each of :meth:`_columns`' indices into them."""
        key = ("compact", alphabet, ignored, as_one, as_digit)
        if key not in self._maps:
            cols, sep, one, alike = self._columns(alphabet, ignored, as_one, as_digit)
            used = sorted({0, *sep, *one, *cols[cols >= 0].tolist(), *(c for _, src in alike for c in src)})
            at = {c: j for j, c in enumerate(used)}
            self._maps[key] = (np.array(used, np.intp), np.array([at.get(c, -1) for c in cols.tolist()], np.intp),
                               [at[c] for c in sep], [at[c] for c in one], [(d, [at[c] for c in src]) for d, src in alike])
        return self._maps[key]

    def text(self, probs: np.ndarray) -> tuple[str, float]:
        """The best path's text and its probability (the product of its frames' best probabilities)."""
        best = probs.argmax(axis=1)
        chars: list[str] = []
        prev = 0
        for c in best.tolist():
            if c != prev and c != 0:
                chars.append(self.chars[c])
            prev = c
        conf = float(np.exp(np.log(np.maximum(probs.max(axis=1), 1e-30)).sum()))
        return "".join(chars).strip(), conf


def _fold(probs: np.ndarray, n: int, cols: np.ndarray, sep: list[int], one: list[int],
          alike: list[tuple[int, list[int]]], one_at: int) -> np.ndarray:
    """LineReader.mapped's log-probabilities over [CTC blank] + ``n`` symbols from frames whose
    column 0 is the blank: ``cols`` each symbol's column (-1: none), ``sep`` the columns that count
    as the blank, ``one`` those that count as the symbol at ``one_at``, ``alike`` the columns added
    to a symbol; renormalised (the frames' own scale does not matter)."""
    out = np.empty((len(probs), n + 1), np.float64)
    out[:, 0] = probs[:, 0] + probs[:, sep].sum(axis=1)
    out[:, 1:] = np.where(cols >= 0, probs[:, np.maximum(cols, 0)], 0.0)
    if one:
        out[:, 1 + one_at] += probs[:, one].sum(axis=1)
    for at, src in alike:
        out[:, at] += probs[:, src].sum(axis=1)
    out /= np.maximum(out.sum(axis=1, keepdims=True), 1e-30)
    return np.log(np.maximum(out, 1e-30))


def mark(digest: str, settings: ReaderSettings = DEFAULT) -> str:
    """The second reader's part of a reading's reader version: its model, when it is asked, how
    its opinion is weighed ("-lost<below>-<share>": its share where the networks are that unsure;
    readings without it mixed it in alike everywhere), the width a crop is padded to ("-pad320";
    readings without it were padded to the widest crop of the batch only) and "-digits": it reads
    nothing but digits (its dashes count as nothing); "-sure<at>-<share>": its share where it is
    that sure; "-one<n>": n marks it reads count as a 1 (second_as_one)."""
    rule = f"mix{settings.second_share:g}" if settings.second_share > 0 else f"w{settings.nets_weight:g}-{settings.second_weight:g}"
    if settings.second_share > 0 and settings.second_lost > 0:
        rule += f"-lost{settings.second_lost:g}-{settings.second_share_lost:g}"
    if settings.second_share > 0 and settings.second_sure <= 1:
        rule += f"-sure{settings.second_sure:g}-{settings.second_share_sure:g}"
    if settings.second_share > 0 and settings.second_none != 1:
        rule += f"-none{settings.second_none:g}"
    ones = f"-one{len(settings.second_as_one)}" if settings.second_as_one else ""
    if settings.second_as_digit:
        ones += "-alike" + hashlib.sha256(settings.second_as_digit.encode()).hexdigest()[:6]
    if settings.second_share > 0 and settings.second_sure_same <= 1:
        rule += f"-same{settings.second_sure_same:g}"
    return f"second-{digest}-below{settings.second_unsure:g}-{rule}-pad{settings.second_min_width}-digits{ones}"


@lru_cache(maxsize=1)
def default_reader() -> LineReader | None:
    """The installed model, loaded once per process; None when it is not installed (``make install``
    puts it there) or RUBBERSCAN_SECOND=0 -- the cell networks then read alone."""
    wanted = os.environ.get("RUBBERSCAN_SECOND", "").strip()
    if wanted not in ("", "0", "1"):
        raise ValueError(f"RUBBERSCAN_SECOND must be 0 or 1, not {wanted!r}")
    if wanted == "0" or not MODEL_PATH.exists():
        return None
    return LineReader.load(MODEL_PATH)


def writing_crop(grey: np.ndarray, rows: tuple[int, int], cols: tuple[int, int], margin: float) -> np.ndarray:
    """The part of a cell image holding its writing (rows y0..y1, columns x0..x1, end excluded),
    with ``margin`` x the writing's height of paper around it: a text line as the model reads them."""
    y0, y1 = rows
    x0, x1 = cols
    pad = int(round(margin * max(1, y1 - y0))) + 1
    crop = np.ascontiguousarray(grey[y0:y1, x0:x1])
    return cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)


def to_aspect(crop: np.ndarray, max_aspect: float) -> np.ndarray:
    """``crop`` with paper added above and below where it is wider than ``max_aspect`` x its height."""
    h, w = crop.shape[:2]
    if w <= max_aspect * h:
        return crop
    pad = int(math.ceil(w / max_aspect)) - h
    return cv2.copyMakeBorder(crop, pad // 2, pad - pad // 2, 0, 0, cv2.BORDER_CONSTANT, value=255)


def read_line(grey: np.ndarray, reader: LineReader | None = None, margin: float = DEFAULT.second_margin,
              min_width: int = DEFAULT.second_min_width,
              max_aspect: float = DEFAULT.second_line_max_aspect) -> tuple[str, float] | None:
    """A names or winners line's text and the model's confidence, from a field's grey crop (paper
    light, rulings removed); ("", 1.0) for a field with no writing; None without the model.
    A crop wider than ``max_aspect`` x its height is padded with paper to that shape."""
    reader = reader or default_reader()
    if reader is None:
        return None
    g = np.asarray(grey)
    if g.ndim == 3:
        g = cv2.cvtColor(g, cv2.COLOR_BGR2GRAY)
    ink = g < min(160, int(np.percentile(g, 50)) - 40)
    rows, cols = np.flatnonzero(ink.sum(axis=1) > 0), np.flatnonzero(ink.sum(axis=0) > 0)
    if len(rows) == 0 or ink.sum() < 12:
        return "", 1.0
    crop = writing_crop(g, (int(rows[0]), int(rows[-1]) + 1), (int(cols[0]), int(cols[-1]) + 1), margin)
    return reader.text(reader.probs([to_aspect(crop, max_aspect)], min_width)[0])


def extract(wheel: str | Path, out: str | Path = MODEL_PATH) -> Path:
    """Copy the model file out of a rapidocr wheel, checking its SHA-256 (install time only)."""
    with zipfile.ZipFile(wheel) as z:
        data = z.read(WHEEL_MEMBER)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        raise ValueError(f"{wheel}: {WHEEL_MEMBER} has SHA-256 {digest}, expected {SHA256}")
    out = Path(out)
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(out)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m ocr.ppocr RAPIDOCR_WHEEL   (extracts the model into ocr/models/)")
    print(extract(sys.argv[1]))
