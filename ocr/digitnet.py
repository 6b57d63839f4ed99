"""A second opinion on each digit: a small classifier of one digit at a time.

The cell networks (ocr/cellnet.py) read a whole number at once, from the cell scaled to 32 rows.
This network looks at one digit in the cell's own scan: a square window around the place where
the first cell network's CTC alignment of a candidate string puts that digit, scaled to WIN x WIN.
Its distributions over 0-9 give each candidate of that length a probability of its own (the
product over its digits), of which a share (``ReaderSettings.digit_share``) is mixed into the
cell networks' (Opinion.reweigh), and a digit it finds likely at a place proposes another string.  Trained by
``train/train_digitnet.py`` (torch, training venv only) on digits make_digits.py cut from the
training sheets at the same alignments; run from its ONNX graph (ocr/runtime.py), or NumPy.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ocr.cellnet import FRAME
from ocr.ctc import best_path_frames, ctc_align
from ocr.prep import Cut
from ocr.runtime import checked_dnn, conv2d, digest, pool
from ocr.settings import ReaderSettings

MODEL_PATH = Path(__file__).resolve().parent / "models" / "digitnet.npz"
# the window the network was trained on: WIN x WIN pixels showing a square SIDE x as high as the
# cell's writing, around a digit (train/make_digits.py cuts its training digits so)
WIN = 32
SIDE = 1.3
DEFAULT = ReaderSettings()


def centre(frame: int) -> int:
    """The input column at the middle of a frame."""
    return frame * FRAME + FRAME // 2


def windows(cut: Cut, centres: list[int], size: int = WIN) -> np.ndarray:
    """(len(centres), size, size) float32 windows of the cell's own ink (its scan resolution, not
    the network input's 32 rows): square, SIDE x the writing's height, centred on the writing's
    rows and on each centre (a column of the prepared input), scaled to WIN x WIN; ``size`` >
    WIN gives that much more around it at the same scale (training cuts, shifted later)."""
    hd = max(cut.y1 - cut.y0, 0.3 * cut.ink.shape[0], 4.0)
    side = SIDE * hd * size / WIN
    k = size / side
    yc = (cut.y0 + cut.y1) / 2
    out = np.empty((len(centres), size, size), np.float32)
    for n, u in enumerate(centres):
        xc = cut.x0 + u / cut.xscale
        m = np.float32([[k, 0, size / 2 - k * xc], [0, k, size / 2 - k * yc]])
        out[n] = cv2.warpAffine(cut.ink, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out


@dataclass(frozen=True)
class DigitNet:
    """The exported digit classifier: 3x3 conv blocks (BatchNorm folded in) each followed by 2x2
    max-pooling, then fully connected layers; a temperature fitted on validation digits.  Run by
    ONNX Runtime (or OpenCV's dnn) from the same weights as an ONNX graph (train/export_onnx.py)
    when that loads and agrees with the NumPy path on a probe input, else in NumPy."""

    convs: tuple[tuple[np.ndarray, np.ndarray], ...]
    fcs: tuple[tuple[np.ndarray, np.ndarray], ...]
    temperature: float
    digest: str
    onnx: bytes | None = None
    _dnn: dict = field(default_factory=dict, compare=False, repr=False)  # pid -> runnable graph or None

    @classmethod
    def load(cls, path: str | Path = MODEL_PATH) -> DigitNet:
        data = Path(path).read_bytes()
        with np.load(io.BytesIO(data)) as z:
            convs = tuple((z[f"conv{i}_w"].astype(np.float32), z[f"conv{i}_b"].astype(np.float32))
                          for i in range(int(z["n_convs"])))
            fcs = tuple((z[f"fc{i}_w"].astype(np.float32), z[f"fc{i}_b"].astype(np.float32))
                        for i in range(int(z["n_fcs"])))
            temp = float(z["temperature"])
        graph = Path(path).with_suffix(".onnx")
        return cls(convs, fcs, temp, digest(data), graph.read_bytes() if graph.exists() else None)

    def log_probs(self, wins: np.ndarray, batch: int = 64) -> np.ndarray:
        """(N, 10) log-probabilities of the digits 0-9 for windows (N, WIN, WIN)."""
        net = self.dnn()
        outs = [self._logits(net, np.asarray(wins[i:i + batch], np.float32)) for i in range(0, len(wins), batch)]
        if not outs:
            return np.zeros((0, 10), np.float32)
        z = np.concatenate(outs) / self.temperature
        z = z - z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    def dnn(self):
        """The ONNX graph made runnable for this process, or None (see ocr.runtime.checked_dnn)."""
        probe = np.random.default_rng(0).random((3, WIN, WIN), np.float32)
        return checked_dnn(self._dnn, self.onnx, lambda net: self._logits(net, probe), lambda: self._logits(None, probe))

    def _logits(self, net, x: np.ndarray) -> np.ndarray:
        if net is not None:
            net.setInput(np.ascontiguousarray(x[:, None]))
            return net.forward()
        x = x[..., None]
        for w, b in self.convs:
            x = pool(conv2d(x, w, b), 2, 2)
        x = x.transpose(0, 3, 1, 2).reshape(len(x), -1)  # torch's (C, H, W) order
        for k, (w, b) in enumerate(self.fcs):
            x = x @ w.T + b
            if k < len(self.fcs) - 1:
                x = np.maximum(x, 0)
        return x


@dataclass
class Opinion:
    """The digit network's view of one cell: the digits' places for each string length it placed
    and, at each place, its log-probabilities of 0-9."""

    places: dict[int, list[tuple[int, ...]]]  # length -> [key of each place]
    digit_lp: dict[tuple[int, ...], np.ndarray]
    variants: list[str]

    def score(self, s: str) -> float | None:
        """Sum of the digits' log-probabilities, or None (not digits, or a length not placed)."""
        keys = self.places.get(len(s)) if s.isdigit() else None
        if keys is None:
            return None
        return float(sum(self.digit_lp[k][int(ch)] for k, ch in zip(keys, s, strict=True)))

    def reweigh(self, strings: list[str], probs: np.ndarray, mix: float) -> np.ndarray:
        """The cell networks' probabilities of ``strings`` with the digit network's opinion mixed
        in: among the placed strings of each length, a ``mix`` share of their total is handed out
        as the digit network's own string probabilities (products of its digits' probabilities,
        normalised over those strings).  A mixture, not a product: where both read a badly written
        digit as the same other digit -- their errors are correlated -- it does not make that
        reading surer (a product did: more false flags, bench/RESULTS-read.md round 11).  Strings
        not placed (blank, dash, other lengths) keep their probabilities."""
        out = np.array(probs, float)
        scores = [self.score(s) for s in strings]
        for n in {len(strings[k]) for k, sc in enumerate(scores) if sc is not None} if mix else ():
            group = [k for k, sc in enumerate(scores) if sc is not None and len(strings[k]) == n]
            e = np.array([scores[k] for k in group])
            own = np.exp(e - e.max())
            out[group] = (1 - mix) * out[group] + mix * out[group].sum() * own / own.sum()
        return out


def opinions(net: DigitNet, cuts: list[Cut | None], first_lps: list[np.ndarray],
             proposals: list[list[tuple[str, float]]], settings: ReaderSettings = DEFAULT) -> list[Opinion]:
    """The digit network's opinion of each input (prepared cell), given the first cell network's
    frames and N-best strings: the best path's digits are placed from its frames, and the top
    ``settings.digit_top_align`` strings of other lengths by a CTC alignment; all places of all inputs are read in one
    batch.  Variants: the most probable string with one digit changed to one the digit network
    finds at least ``settings.digit_variant_at`` likely there."""
    plans: list[dict[int, list[int]]] = []
    for cut, lp, found in zip(cuts, first_lps, proposals, strict=True):
        plan: dict[int, list[int]] = {}
        if cut is None:
            plans.append(plan)
            continue
        s, frames = best_path_frames(lp)
        if s.isdigit():
            plan[len(s)] = [centre(f) for f in frames]
        for s, _ in found[:settings.digit_top_align]:
            if s.isdigit() and len(s) not in plan:
                frames = ctc_align(lp, s)
                if min(frames) >= 0:
                    plan[len(s)] = [centre(f) for f in frames]
        plans.append(plan)
    keys: list[tuple[int, int]] = []
    cut_wins = [np.zeros((0, WIN, WIN), np.float32)]
    for i, plan in enumerate(plans):
        places = sorted({c for cs in plan.values() for c in cs})  # lengths often share places
        if places:
            keys += [(i, c) for c in places]
            cut_wins.append(windows(cuts[i], places))
    lps = dict(zip(keys, net.log_probs(np.concatenate(cut_wins)), strict=True))
    out = []
    for i, (plan, found) in enumerate(zip(plans, proposals, strict=True)):
        places = {n: [(i, c) for c in cs] for n, cs in plan.items()}
        op = Opinion(places, {k: lps[k] for ks in places.values() for k in ks}, [])
        top = next((s for s, _ in found if s.isdigit()), None)
        if top is not None and len(top) in places:
            seen = {s for s, _ in found}
            for pos, key in enumerate(places[len(top)]):
                for d in np.flatnonzero(np.exp(op.digit_lp[key]) >= settings.digit_variant_at).tolist():
                    v = top[:pos] + str(d) + top[pos + 1:]
                    if v not in seen:
                        seen.add(v)
                        op.variants.append(v)
        out.append(op)
    return out
