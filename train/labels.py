"""Cells a person confirmed in the review app (``rubberscan labels DIR --out FILE.npz``), as
training cells for the cell networks (``make model LABELS=FILE.npz``; train/README.md, "Labelled
cells", holds the format).

A file holds ``images``: (N, H, W) uint8 grey cells (paper light, ink dark, rulings removed) as
ocr/cells.py cuts them from the straightened scan, each made one size by ``ocr.prep.label_cell``
(H = 64 rows, W = 384 columns, paper filled in on the right); and ``values``: (N,) strings, the
digits a person confirmed ("" for a blank cell).  Each cell becomes the network input the reader
makes of it (``ocr.prep.prepare_cut``) with its digits as the label; cells confirmed 0 are left
out (a 0 is often written as a dash, which the networks read as "-").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ocr.prep import prepare_cut


class LabelsError(ValueError):
    """A labelled-cells file that is not in the agreed format (train/README.md)."""


def load_labels(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(inputs (N, HEIGHT, WIDTH) uint8, labels (N,) str) from a labelled-cells file; a file not
    in the format is refused with the reason (LabelsError), never half read."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if "images" not in z or "values" not in z:
                raise LabelsError(f"{path}: needs arrays 'images' and 'values', has {sorted(z.files)}")
            images, values = z["images"], z["values"]
    except (OSError, ValueError) as exc:
        if isinstance(exc, LabelsError):
            raise
        raise LabelsError(f"{path}: not a .npz file of labelled cells ({exc})") from None
    if images.dtype != np.uint8 or images.ndim != 3:
        raise LabelsError(f"{path}: 'images' must be (N, H, W) uint8, is {images.shape} {images.dtype}")
    if values.ndim != 1 or len(values) != len(images) or values.dtype.kind not in "U":
        raise LabelsError(f"{path}: 'values' must be (N,) strings beside {len(images)} images, "
                          f"is {values.shape} {values.dtype}")
    bad = [v for v in values.tolist() if not (v == "" or v.isdigit()) or len(v) > 7]
    if bad:
        raise LabelsError(f"{path}: values must be digits or '' (blank): {bad[:5]}")
    keep = values != "0"  # a 0 is often written as a dash, which the networks read as "-"
    images, values = images[keep], values[keep]
    inputs = np.stack([(prepare_cut(im)[0] * 255).round().astype(np.uint8) for im in images]) if len(images) else \
        np.zeros((0, 32, 128), np.uint8)
    return inputs, values.astype(str)
