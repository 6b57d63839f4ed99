"""Whole-cell recogniser: a small convolutional network with a CTC output.

A prepared cell (ocr/prep.py: paper-normalised ink cut to the writing, HEIGHT x WIDTH) is read
left to right as a sequence of frames (one every FRAME input columns); each frame gives a
distribution over the symbols ``0-9 - N E S W`` and the CTC "nothing here" symbol (ocr/ctc.py
decodes them).  The network runs from its ONNX graph (ONNX Runtime, else OpenCV's dnn), checked
against the NumPy implementation of the same layers when it loads (ocr/runtime.py), which is the
fallback.

The network is trained by ``train/train_cellnet.py`` (torch, training venv only) and exported to
``ocr/models/cellnet.npz`` (+ ``cellnet.onnx``); the ensemble of such networks is ocr/ensemble.py.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ocr.ctc import ALPHABET
from ocr.prep import HEIGHT, WIDTH
from ocr.runtime import checked_dnn, conv2d, digest, log_softmax, pool
from ocr.settings import ReaderSettings

MODEL_PATH = Path(__file__).resolve().parent / "models" / "cellnet.npz"
# the photo networks: the cell networks fine-tuned on photographed cells (train/photo_cells.py),
# read on a photographed table only (ocr.ensemble.photo_net)
PHOTO_PATH = MODEL_PATH.with_name("photonet.npz")
FRAME = 4  # input columns per output frame (the network's pooling: 2 x 2 x 1 x 1 x 1)
DEFAULT = ReaderSettings()


@dataclass(frozen=True)
class CellNet:
    """The exported network: conv blocks (BatchNorm folded in) with their pooling, then a
    per-frame head of 1-D convolutions over the sequence and a linear output."""

    convs: tuple[tuple[np.ndarray, np.ndarray, int, int], ...]  # (w, b, pool_h, pool_w)
    head: tuple[tuple[np.ndarray, np.ndarray], ...]  # 1-D convs as (O, C, 1, k)
    out: tuple[np.ndarray, np.ndarray]  # (classes, C), (classes,)
    temperature: float = 1.0
    # the same network as an ONNX graph (train/export_onnx.py): run by ONNX Runtime or OpenCV,
    # faster than the NumPy path, when it loads and agrees with NumPy on a probe input
    onnx: bytes | None = None
    digest: str = ""  # the first 12 hex digits of the weights file's SHA-256 (which network read a sheet)
    _dnn: dict = field(default_factory=dict, compare=False, repr=False)  # pid -> runnable graph or None

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
        return cls(convs, head, out, temp, graph.read_bytes() if graph.exists() else None, digest(data))

    def log_probs(self, inputs: np.ndarray, batch: int = 64) -> np.ndarray:
        """Per-frame log-probabilities, shape (B, T, classes), for inputs (B, HEIGHT, WIDTH)."""
        x_all = np.asarray(inputs, np.float32)
        outs = [self._forward(x_all[i:i + batch]) for i in range(0, len(x_all), batch)]
        if not outs:
            return np.zeros((0, 0, len(ALPHABET) + 1), np.float32)
        return np.concatenate(outs)

    def read(self, inputs: np.ndarray, settings: ReaderSettings = DEFAULT, batch: int = 64) -> list[np.ndarray]:
        """Per-frame log-probabilities of each input (HEIGHT, WIDTH), each (T_i, classes).

        Inputs carry their writing at the left (ocr/prep.py); each is run only as wide as its
        writing plus ``settings.run_margin`` empty columns (in steps of ``run_step``), inputs of
        the same width together, so empty padding costs nothing."""
        x_all = np.asarray(inputs, np.float32)
        widths = [_run_width(x, settings) for x in x_all]
        out: list[np.ndarray | None] = [None] * len(x_all)
        for w in sorted(set(widths)):
            idx = [i for i, wi in enumerate(widths) if wi == w]
            lp = self.log_probs(x_all[idx][:, :, :w], batch)
            for i, row in zip(idx, lp, strict=True):
                out[i] = row
        return out  # type: ignore[return-value]

    def dnn(self):
        """The ONNX graph made runnable for this process, or None: no ONNX graph,
        RUBBERSCAN_CELLNET=numpy, or it does not load or does not reproduce the NumPy network
        (ocr.runtime.checked_dnn)."""
        probe = np.random.default_rng(0).random((2, HEIGHT, 64), np.float32)
        return checked_dnn(self._dnn, self.onnx, lambda net: self._forward_dnn(net, probe), lambda: self._forward_numpy(probe))

    def _forward(self, x: np.ndarray) -> np.ndarray:
        net = self.dnn()
        return self._forward_numpy(x) if net is None else self._forward_dnn(net, x)

    def _forward_dnn(self, net, x: np.ndarray) -> np.ndarray:
        net.setInput(np.ascontiguousarray(x[:, None]))
        return log_softmax(net.forward()[:, :, 0, :].transpose(0, 2, 1) / self.temperature)

    def _forward_numpy(self, x: np.ndarray) -> np.ndarray:
        x = x[..., None]
        for w, b, ph, pw in self.convs:
            x = conv2d(x, w, b)
            if ph > 1 or pw > 1:
                x = pool(x, ph, pw)
        bsz, h, t, c = x.shape
        # collapse height into channels in torch's (C, H) order: (B, 1, T, C*H)
        x = x.transpose(0, 2, 3, 1).reshape(bsz, 1, t, c * h)
        for w, b in self.head:
            x = conv2d(x, w, b)
        z = x[:, 0] @ self.out[0].T + self.out[1]
        return log_softmax(z / self.temperature)


def _run_width(x: np.ndarray, settings: ReaderSettings) -> int:
    cols = np.flatnonzero(x.max(axis=0) > 0)
    used = int(cols[-1]) + 1 if len(cols) else 0
    step = settings.run_step
    return min(WIDTH, -(-(used + settings.run_margin) // step) * step)


def model_paths(first: Path = MODEL_PATH) -> list[Path]:
    """The committed ensemble: ``cellnet.npz`` and its siblings ``cellnet-1.npz``, ``cellnet-2.npz``...
    in that order; other files beside them (a network being tried, ``cellnet-wide.npz``) are not
    part of it."""
    siblings = [p for p in first.parent.glob(f"{first.stem}-*.npz") if p.stem.rsplit("-", 1)[1].isdigit()]
    return [first] + sorted(siblings, key=lambda p: int(p.stem.rsplit("-", 1)[1]))


def default_paths() -> list[Path]:
    """The networks this process reads with: the committed ones, or the first N of them when
    RUBBERSCAN_NETWORKS=N."""
    if not MODEL_PATH.exists():
        raise FileNotFoundError(f"cell model missing: {MODEL_PATH} (run `make model`)")
    return _wanted(model_paths())


def _wanted(paths: list[Path]) -> list[Path]:
    """``paths``, or their first N when RUBBERSCAN_NETWORKS=N."""
    wanted = os.environ.get("RUBBERSCAN_NETWORKS", "").strip()
    if wanted:
        if not wanted.isdigit() or int(wanted) < 1:
            raise ValueError(f"RUBBERSCAN_NETWORKS must be a whole number >= 1, not {wanted!r}")
        paths = paths[: int(wanted)]
    return paths


def photo_paths() -> list[Path]:
    """The photo networks (``photonet.npz``, ``photonet-1.npz``...; the first N of them when
    RUBBERSCAN_NETWORKS=N), or none when they are not installed."""
    if not PHOTO_PATH.exists():
        return []
    return _wanted(model_paths(PHOTO_PATH))
