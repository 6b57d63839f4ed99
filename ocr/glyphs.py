"""Glyph recogniser: MNIST-style normalisation and a small CNN run in NumPy.

The network is trained by ``train/train_glyphs.py`` (torch, training venv only) and
exported to ``ocr/models/glyphs.npz``; here it runs with plain NumPy (im2col
convolutions), batched over all glyphs of a sheet, so the runtime needs no
training library.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

# Output classes, in the network's order.  "-" is a dash, "?" a fragment/noise/merged blob.
CLASSES = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "N", "E", "S", "W", "-", "?")
DIGITS = tuple(range(10))
LETTERS = (10, 11, 12, 13)
DASH = 14
REJECT = 15
SIZE = 28  # network input side
BOX = 20  # the glyph's longer side inside the input, as in MNIST

MODEL_PATH = Path(__file__).resolve().parent / "models" / "glyphs.npz"


def normalize(ink: np.ndarray) -> np.ndarray:
    """Turn an ink image (float, 0 = paper, 1 = ink) into a 28x28 MNIST-style glyph.

    The ink's bounding box is scaled so its longer side is 20 px (aspect kept), then
    placed so its centre of mass is at the centre of the 28x28 frame; the result is
    rescaled so the darkest pixel is 1.
    """
    ink = np.asarray(ink, dtype=np.float32)
    ys, xs = np.nonzero(ink > 0.05)
    if len(xs) == 0:
        return np.zeros((SIZE, SIZE), np.float32)
    crop = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = crop.shape
    scale = BOX / max(h, w)
    nw, nh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(crop, (nw, nh), interpolation=interp)
    m = cv2.moments(small)
    if m["m00"] <= 0:
        return np.zeros((SIZE, SIZE), np.float32)
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    # keep the whole box inside the frame even when the mass centre is far off-centre
    dx = min(max(SIZE / 2 - 0.5 - cx, 0.0), SIZE - nw)
    dy = min(max(SIZE / 2 - 0.5 - cy, 0.0), SIZE - nh)
    shift = np.float32([[1, 0, dx], [0, 1, dy]])
    out = cv2.warpAffine(small, shift, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderValue=0)
    top = float(out.max())
    return out / top if top > 0 else out


def _conv3x3_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 'same' convolution + ReLU by im2col, channels last.  x: (B, H, W, C); w: (O, C, 3, 3)."""
    bsz, h, wd, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = np.concatenate([xp[:, dy : dy + h, dx : dx + wd, :] for dy in range(3) for dx in range(3)], axis=3)
    wm = w.transpose(2, 3, 1, 0).reshape(9 * c, -1)  # (dy, dx, c) rows, matching cols
    out = cols.reshape(bsz * h * wd, 9 * c) @ wm
    out += b
    np.maximum(out, 0, out=out)
    return out.reshape(bsz, h, wd, -1)


def _maxpool2(x: np.ndarray) -> np.ndarray:
    """2x2 max-pool, channels last, odd edges dropped (as torch's MaxPool2d(2))."""
    h2, w2 = x.shape[1] // 2 * 2, x.shape[2] // 2 * 2
    top = np.maximum(x[:, 0:h2:2, 0:w2:2], x[:, 0:h2:2, 1:w2:2])
    return np.maximum(top, np.maximum(x[:, 1:h2:2, 0:w2:2], x[:, 1:h2:2, 1:w2:2]), out=top)


@dataclass(frozen=True)
class GlyphModel:
    """The exported CNN: three conv(3x3)+ReLU+maxpool blocks, a hidden layer, a linear head."""

    convs: tuple[tuple[np.ndarray, np.ndarray], ...]
    fc1: tuple[np.ndarray, np.ndarray]
    fc2: tuple[np.ndarray, np.ndarray]
    temperature: float = 1.0

    @classmethod
    def load(cls, path: str | Path = MODEL_PATH) -> GlyphModel:
        with np.load(path) as z:
            n = int(z["n_convs"])
            convs = tuple((z[f"conv{i}_w"].astype(np.float32), z[f"conv{i}_b"].astype(np.float32)) for i in range(n))
            fc1 = (z["fc1_w"].astype(np.float32), z["fc1_b"].astype(np.float32))
            fc2 = (z["fc2_w"].astype(np.float32), z["fc2_b"].astype(np.float32))
            temp = float(z["temperature"])
        return cls(convs, fc1, fc2, temp)

    def logits(self, glyphs: np.ndarray) -> np.ndarray:
        """Raw (uncalibrated) logits for a batch of 28x28 normalised glyphs, shape (B, 16)."""
        x = np.asarray(glyphs, np.float32).reshape(-1, SIZE, SIZE, 1)
        if len(x) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        for w, b in self.convs:
            x = _maxpool2(_conv3x3_relu(x, w, b))
        x = x.transpose(0, 3, 1, 2).reshape(len(x), -1)  # flatten in torch's (C, H, W) order
        x = np.maximum(x @ self.fc1[0].T + self.fc1[1], 0)
        return x @ self.fc2[0].T + self.fc2[1]

    def predict_proba(self, glyphs: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities (temperature-scaled softmax), shape (B, 16)."""
        z = self.logits(glyphs) / self.temperature
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


@lru_cache(maxsize=1)
def default_model() -> GlyphModel:
    """The committed model, loaded once per process (read-only afterwards)."""
    if not MODEL_PATH.exists():
        raise FileNotFoundError(f"glyph model missing: {MODEL_PATH} (run `make model`)")
    return GlyphModel.load(MODEL_PATH)
