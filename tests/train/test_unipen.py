"""UNIPEN's stroke files (train/unipen.py): block counting, writers, rendering."""

from __future__ import annotations

import io
import tarfile

import numpy as np
import pytest

from train.unipen import ARCHIVE, Digit, compose, load, render_number, split_writers

INCLUDE = """.COORD X Y
.WRITER_ID 7
.PEN_DOWN
 0 100
 0 0
.PEN_UP
.PEN_DOWN
 10 100
 30 100
 30 0
.PEN_UP
 40 50
 45 50
.PEN_DOWN
 50 0
 60 100
"""
SEGMENTS = """.INCLUDE x/data/w7.dat
.SEGMENT CHARACTER 0 ? "1"
.SEGMENT CHARACTER 1 OK "7"
.SEGMENT CHARACTER 1-3 ? "4"
.SEGMENT CHARACTER 3 BAD "1"
"""


def _archive(tmp_path):
    path = tmp_path / "u.tgz"
    with tarfile.open(path, "w:gz") as tar:
        for name, text in (("include/x/data/w7.dat", INCLUDE), ("data/1a/x/seg.dat", SEGMENTS)):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_blocks_count_pen_up_blocks_with_points_but_not_empty_markers(tmp_path):
    digits = load(_archive(tmp_path))
    assert [d.label for d in digits] == ["1", "7", "4"]  # BAD skipped
    one, seven, four = digits
    assert len(one.strokes) == 1 and one.strokes[0][:, 0].tolist() == [0, 0]
    assert seven.strokes[0][:, 0].tolist() == [10, 30, 30]  # the empty ".PEN_UP" is no block
    assert len(four.strokes) == 2  # blocks 1-3: down, up (hover points, not ink), down
    assert (seven.strokes[0][:, 1] == [-100, -100, 0]).all()  # y flipped: it pointed up
    assert {d.writer for d in digits} == {"x/data/w7.dat"}


def test_writer_split_is_by_writer_and_fixed():
    strokes = (np.zeros((2, 2)),)
    digits = [Digit(str(k % 10), f"w{k % 37}", strokes) for k in range(370)]
    others, held = split_writers(digits)
    assert held and others and not {d.writer for d in held} & {d.writer for d in others}
    assert split_writers(digits)[1] == held
    assert not {d.writer for d in split_writers(digits, part=1)[1]} & {d.writer for d in held}


def test_render_number_writes_a_cell():
    rng = np.random.default_rng(0)
    bar = Digit("1", "w", (np.array([[0.0, 0.0], [0.0, 100.0]]),))
    ring = Digit("0", "w", (np.array([[50 * np.cos(t), 50 * np.sin(t) + 50] for t in np.linspace(0, 6.3, 40)]),))
    digits = compose({"1": [bar], "0": [ring]}, "100", rng)
    assert compose({"1": [bar]}, "10", rng) is None
    cell = render_number(digits, rng, height=64)
    assert cell.dtype == np.uint8 and cell.shape[0] == 64 and cell.shape[1] >= 64
    assert cell.min() < 150 and np.median(cell) > 200  # dark strokes on light paper


@pytest.mark.skipif(not ARCHIVE.exists(), reason="../shared/data/unipen is not beside the project")
def test_the_whole_archive():
    digits = load()
    assert len(digits) == 15953 and len({d.writer for d in digits}) == 634
    assert all(d.strokes for d in digits)
