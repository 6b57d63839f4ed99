"""Cells a person confirmed (``make model LABELS=FILE.npz``): the agreed file format, read into the
network inputs the reader makes of the same cells, and refused clearly when it is not that format."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from ocr.prep import LABEL_HEIGHT, LABEL_WIDTH, label_cell, prepare
from train.labels import LabelsError, load_labels


def _cell(text: str, h: int = 52, w: int = 180) -> np.ndarray:
    cell = np.full((h, w), 250, np.uint8)
    cv2.putText(cell, text, (30, 38), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 30, 3)
    return cell


def test_a_labelled_cell_gives_the_input_its_cell_gives():
    cell = _cell("620")
    stored = label_cell(cell)
    assert stored.shape == (LABEL_HEIGHT, LABEL_WIDTH) and stored.dtype == np.uint8
    assert (stored[:, 260:] == 255).all()  # paper filled in on the right
    a, b = prepare(cell), prepare(stored)
    assert np.abs(a - b).mean() < 0.02 and (a > 0.5).sum() == pytest.approx((b > 0.5).sum(), rel=0.1)


def test_label_cell_squeezes_a_very_wide_cell_and_takes_colour():
    wide = cv2.cvtColor(_cell("12345", h=30, w=600), cv2.COLOR_GRAY2BGR)
    stored = label_cell(wide)
    assert stored.shape == (LABEL_HEIGHT, LABEL_WIDTH) and stored.min() < 100


def test_load_labels(tmp_path):
    path = tmp_path / "labels.npz"
    images = np.stack([label_cell(_cell("620")), label_cell(np.full((52, 180), 250, np.uint8))])
    images = np.concatenate([images, images[:1]])
    np.savez_compressed(path, images=images, values=np.array(["620", "", "0"]))
    inputs, values = load_labels(path)
    assert inputs.shape == (2, 32, 128) and inputs.dtype == np.uint8
    assert values.tolist() == ["620", ""]  # a cell confirmed 0 may be a dash: left out
    assert inputs[0].max() > 200 and inputs[1].max() == 0  # the blank cell: no ink, never trained on


@pytest.mark.parametrize("arrays, reason", [
    ({"images": np.zeros((1, 64, 384), np.uint8)}, "needs arrays"),
    ({"images": np.zeros((1, 64, 384), np.float32), "values": np.array(["1"])}, "uint8"),
    ({"images": np.zeros((2, 64, 384), np.uint8), "values": np.array(["1"])}, "strings beside 2"),
    ({"images": np.zeros((1, 64, 384), np.uint8), "values": np.array(["1,200"])}, "digits"),
    ({"images": np.zeros((1, 64, 384), np.uint8), "values": np.array([1])}, "strings"),
])
def test_a_file_not_in_the_format_is_refused_with_the_reason(tmp_path, arrays, reason):
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(LabelsError, match=reason):
        load_labels(path)


def test_not_an_npz_is_refused(tmp_path):
    path = tmp_path / "x.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(LabelsError, match="not a .npz"):
        load_labels(path)
    with pytest.raises(LabelsError, match="not a .npz"):
        load_labels(tmp_path / "missing.npz")
