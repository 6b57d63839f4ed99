"""A photographed cell's rulings' leftovers made paper before the cut (ocr.prep.clear_rulings,
used by ocr.read.read_table on a photo's table)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from ocr.data import CellImage, Page, StraightPage, Table
from ocr.prep import clear_rulings, prepare_cut
from ocr.read import read_table
from samples.hands import mnist_digits


def _number(digits: str, seed: int = 3) -> np.ndarray:
    """A 48 x 220 cell with ``digits`` written by real MNIST digits, from column 40 on."""
    images, labels = mnist_digits()
    rng = np.random.default_rng(seed)
    cell = np.full((48, 220), 255, np.uint8)
    x = 40
    for ch in digits:
        img = images[rng.choice(np.flatnonzero(labels == int(ch)))]
        ys, xs = np.nonzero(img > 40)
        crop = img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        w = max(3, round(crop.shape[1] * 26 / crop.shape[0]))
        glyph = cv2.resize(crop, (w, 26), interpolation=cv2.INTER_AREA)
        cell[11:37, x:x + w] = np.minimum(cell[11:37, x:x + w], 255 - glyph)
        x += w + 2
    return cell


def _with_rulings(cell: np.ndarray) -> np.ndarray:
    """The cell as a phone photo leaves it: blurred parts of its rulings along its right side and
    its bottom (what geometry on a curled, blurred photo did not remove)."""
    dirty = cell.copy()
    cv2.line(dirty, (213, 4), (213, 44), 70, 2)
    cv2.line(dirty, (60, 46), (210, 46), 60, 1)
    lines = np.full_like(dirty, 255)
    lines[:, 200:] = dirty[:, 200:]
    lines[44:] = dirty[44:]
    soft = cv2.GaussianBlur(lines, (0, 0), 0.8)
    return np.minimum(cell, soft)


@pytest.fixture(scope="module")
def fifty() -> np.ndarray:
    return _number("50")


def test_leftover_rulings_are_cleared_and_the_writing_kept(fifty):
    dirty = _with_rulings(fifty)
    _, cut = prepare_cut(dirty)
    assert cut.x1 > 205  # the cut runs out to the ruling beside the writing
    cleaned = clear_rulings(dirty)
    _, cut = prepare_cut(cleaned)
    _, clean_cut = prepare_cut(fifty)
    assert (cut.x0, cut.x1) == (clean_cut.x0, clean_cut.x1)
    assert np.array_equal(cleaned[:40, :190], fifty[:40, :190])  # the writing untouched
    assert cleaned[:, 205:].min() > 200 and cleaned[46, 70:200].min() > 200  # a faint halo at most


def test_writing_alone_is_left_as_it_is():
    """A 1 is tall and thin but stands inside the cell; a dash is long but in the writing's rows."""
    for digits in ("100", "1", "71"):
        cell = _number(digits, seed=5)
        assert np.array_equal(clear_rulings(cell), cell)
    dash = np.full((48, 160), 255, np.uint8)
    cv2.line(dash, (50, 24), (110, 24), 30, 3)
    assert np.array_equal(clear_rulings(dash), dash)


def _table(images: list[np.ndarray], photo: bool) -> Table:
    bgr = np.full((50, 50, 3), 255, np.uint8)
    straight = StraightPage(page=Page("photo", 0, bgr), image=bgr, to_original=np.eye(3),
                            grid=np.zeros((2, 2, 2), np.float32) if photo else None, grid_step=8)
    quad = np.zeros((4, 2), np.float32)
    return Table(straight=straight, cells=[CellImage(key, "1", image, quad)
                                           for key, image in zip(("ns", "ew"), images, strict=True)])


def test_a_photo_table_is_read_without_its_rulings_leftovers(fifty):
    """read_table on a photo's table (straightened through a mesh) reads each cell as it would
    read it clean; a scan's table is read as it is (its rulings were removed by the scan path)."""
    dirty = _with_rulings(fifty)
    photo = read_table(_table([dirty, fifty], photo=True), settings=_nets_only())
    clean = read_table(_table([fifty, fifty], photo=False), settings=_nets_only())
    cells = photo.rows[0].cells
    assert _same(cells["ns"].candidates, cells["ew"].candidates)
    assert _same(cells["ns"].candidates, clean.rows[0].cells["ns"].candidates)
    assert cells["ns"].best == 50
    scan = read_table(_table([dirty, fifty], photo=False), settings=_nets_only())
    assert not _same(scan.rows[0].cells["ns"].candidates, cells["ns"].candidates)


def _same(a: list, b: list) -> bool:
    return [v for v, _ in a] == [v for v, _ in b] and np.allclose([p for _, p in a], [p for _, p in b], atol=1e-3)


def _nets_only():
    from ocr.settings import ReaderSettings

    # the same networks on both tables (the photo networks would read a photo's cells): the cut alone differs
    return ReaderSettings(use_second=False, photo_networks=False)


@pytest.mark.parametrize(("digits", "seed"), [("130", 5), ("690", 3)])
def test_pale_pencil_on_a_photo_is_read_whole(digits, seed):
    """Pencil on a far phone photo keeps a fifth of full ink or less, its first digit lighter
    still: cut at the cell's usual thresholds the pale 1 or 6 fell out ("130" read "30").  A
    photographed number cell's ink is stretched to full first (ReaderSettings.photo_stretch_max);
    with it off the first digit is lost, and a scan's cell is read as it is."""
    from dataclasses import replace

    cell = _number(digits, seed)
    scale = np.full(cell.shape, 0.2, np.float32)
    scale[:, :58] = 0.06  # the first digit (written from column 40) paler
    pale = (255 - scale * (255 - cell.astype(np.float32))).astype(np.uint8)
    on = read_table(_table([pale, cell], photo=True), settings=_nets_only())
    assert on.rows[0].cells["ns"].best == int(digits)
    off = replace(_nets_only(), photo_stretch_max=1.0)
    assert read_table(_table([pale, cell], photo=True), settings=off).rows[0].cells["ns"].best == int(digits[1:])
    scan = read_table(_table([pale, cell], photo=False), settings=_nets_only())
    assert scan.rows[0].cells["ns"].best == int(digits[1:])
