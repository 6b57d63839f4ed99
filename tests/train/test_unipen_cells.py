"""UNIPEN training cells (train/unipen_cells.py): one writer's digits with marks to ignore, cut as
the reader cuts a cell; the writers the benchmark measures on are never among them."""

from __future__ import annotations

import numpy as np

from ocr.prep import prepare_cut
from train.unipen import Digit, split_writers
from train.unipen_cells import BENCH_PART, TRAIN_PARTS, VALIDATION_PART, number_text, render_cell


def _digits() -> list[Digit]:
    bar = Digit("1", "w", (np.array([[0.0, 0.0], [0.0, 100.0]]),))
    ring = Digit("0", "w", (np.array([[50 * np.cos(t), 50 * np.sin(t) + 50] for t in np.linspace(0, 6.3, 40)]),))
    return [bar, ring, ring, ring, ring]


def test_cells_hold_the_writing_with_marks_and_paper():
    rng = np.random.default_rng(3)
    shaded = 0
    widths = []
    for _ in range(40):
        grey, patterned = render_cell(_digits(), rng)
        shaded += patterned
        assert grey.dtype == np.uint8 and grey.shape[0] == 64
        assert grey.min() < np.median(grey) - 40  # ink darker than the paper
        x, cut = prepare_cut(grey)
        assert cut is not None and x.max() > 0.5
        widths.append(grey.shape[1])
    plain = [render_cell(_digits(), np.random.default_rng(k), marks=False)[0].shape[1] for k in range(40)]
    assert 0 < shaded < 40
    assert np.mean(widths) > np.mean(plain)  # separators, ticks and dashes take room


def test_numbers_are_scores_or_any_digits():
    rng = np.random.default_rng(0)
    texts = [number_text(rng) for _ in range(400)]
    assert all(t.isdigit() and 1 <= len(t) <= 7 for t in texts)
    assert all(t == "0" or t[0] != "0" for t in texts)
    assert 0.5 < np.mean([t.endswith("0") for t in texts]) < 0.8


def test_the_benchmarks_writers_are_never_rendered():
    digits = [Digit(str(k % 10), f"w{k % 97}", (np.zeros((2, 2)),)) for k in range(970)]
    bench = {d.writer for d in split_writers(digits, part=BENCH_PART)[1]}
    val = {d.writer for d in split_writers(digits, part=VALIDATION_PART)[1]}
    train = {d.writer for p in TRAIN_PARTS for d in split_writers(digits, part=p)[1]}
    assert bench and val and train and not bench & val and not (bench | val) & train
    assert len(TRAIN_PARTS) == 3
