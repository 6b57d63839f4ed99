"""The digit network's second opinion: CTC alignment against brute force, the reweighing of a
cell's candidates, and the committed network on real handwritten digits it never saw (held-out
MNIST)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ocr.ctc import ALPHABET, best_path, best_path_frames, ctc_align
from ocr.digitnet import MODEL_PATH as DIGITS_PATH
from ocr.digitnet import SIDE, WIN, DigitNet, Opinion, windows
from ocr.ensemble import CellReader, default_net
from ocr.prep import prepare_cut
from samples.hands import mnist_digits
from tests.ocr.test_cellnet import _mnist_number

N_CLASSES = len(ALPHABET) + 1


def _collapse(path: tuple[int, ...]) -> str:
    out, prev = [], 0
    for c in path:
        if c != prev and c != 0:
            out.append(ALPHABET[c - 1])
        prev = c
    return "".join(out)


@pytest.mark.parametrize("string", ["7", "12", "11", "505"])
def test_ctc_align_matches_brute_force(string):
    """The Viterbi alignment is the best of all frame paths that collapse to the string; each
    character's frame is its strongest in its run on that path."""
    rng = np.random.default_rng(len(string))
    n_t = 6
    lp = np.log(rng.dirichlet(np.ones(N_CLASSES) * 0.3, size=n_t))
    symbols = [0] + [ALPHABET.index(ch) + 1 for ch in set(string)]
    best, best_path = -np.inf, None
    for path in itertools.product(symbols, repeat=n_t):
        if _collapse(path) == string:
            score = sum(lp[t, c] for t, c in enumerate(path))
            if score > best:
                best, best_path = score, path
    want, prev = [], 0
    for t, c in enumerate(best_path):
        if c != 0 and c != prev:
            want.append(t)
        elif c != 0 and lp[t, c] > lp[want[-1], c]:
            want[-1] = t
        prev = c
    assert ctc_align(lp, string) == want


def test_ctc_align_cannot_place_more_characters_than_frames():
    lp = np.log(np.full((2, N_CLASSES), 1 / N_CLASSES))
    assert ctc_align(lp, "111") == [-1, -1, -1]
    assert ctc_align(lp, "") == []


def test_best_path_frames():
    path = [0, 2, 2, 0, 3, 0, 0, 3]  # "1", "2", "2": a repeat needs the blank between
    lp = np.full((len(path), N_CLASSES), np.log(0.01))
    for t, c in enumerate(path):
        lp[t, c] = np.log(0.8)
    lp[2, 2] = np.log(0.9)  # the 1's strongest frame is its second
    assert best_path_frames(lp) == ("122", [2, 4, 7]) and best_path(lp) == "122"
    assert best_path_frames(lp, allowed="1") == ("1", [2])  # other symbols cannot be chosen


def test_windows_come_from_the_cell_image_at_its_own_scale():
    """A window is cut from the cell's ink, square around the writing's rows and the given
    column of the network input, the writing SIDE times smaller than the window."""
    cell = np.full((60, 240), 255, np.uint8)
    cell[15:45, 100:106] = 0  # a stroke 30 px high, 6 wide, at columns 100-105
    x, cut = prepare_cut(cell)
    assert cut is not None and (cut.y0, cut.y1) == (15, 45)
    u = (103 - cut.x0) * cut.xscale  # the stroke's column in the input
    assert x[:, int(u)].max() > 0.5
    w = windows(cut, [int(round(u)), int(round(u)) + 40])
    assert w.shape == (2, WIN, WIN)
    rows, cols = np.nonzero(w[0] > 0.5)
    assert abs(cols.mean() - (WIN - 1) / 2) <= 1.5 and abs(rows.mean() - (WIN - 1) / 2) <= 1.5
    assert (rows.max() - rows.min() + 1) == pytest.approx(WIN / SIDE, abs=2)
    assert w[1].max() < 0.5  # a window off to the right of the stroke sees (almost) nothing


def test_reweigh_moves_mass_between_placed_strings_only():
    lp = {(0, 10): np.log(np.array([0.01] * 7 + [0.9, 0.01, 0.02])), (0, 30): np.log(np.full(10, 0.1))}
    op = Opinion({2: [(0, 10), (0, 30)]}, lp, [])
    strings = ["", "10", "70", "-", "100"]
    probs = np.array([0.1, 0.6, 0.2, 0.05, 0.05])
    out = op.reweigh(strings, probs, mix=0.5)
    assert out[0] == 0.1 and out[3] == 0.05 and out[4] == 0.05  # blank, dash, a length not placed
    assert out[1] + out[2] == pytest.approx(0.8)  # the placed strings keep their total
    assert out[2] > 0.2 and out[1] < 0.6  # the digit network reads a 7 at the first place
    assert np.array_equal(op.reweigh(strings, probs, mix=0.0), probs)
    assert op.score("7") is None and op.score("7-") is None


def test_mixing_is_bounded_and_per_length():
    """A mix share of each length's mass goes by the digit network's own view: a string it is sure
    of gets at most that share from it, and strings of another length keep their total."""
    lp = {(0, 4): np.log(np.array([0.001] * 9 + [0.991])), (0, 12): np.log(np.array([0.991] + [0.001] * 9)),
          (0, 20): np.log(np.array([0.991] + [0.001] * 9))}
    op = Opinion({2: [(0, 4), (0, 12)], 3: [(0, 4), (0, 12), (0, 20)]}, lp, [])
    strings = ["40", "90", "400", "900"]
    probs = np.array([0.7, 0.0, 0.2, 0.1])
    out = op.reweigh(strings, probs, mix=0.3)
    assert out[0] + out[1] == pytest.approx(0.7) and out[2] + out[3] == pytest.approx(0.3)
    assert out[1] == pytest.approx(0.3 * 0.7, rel=0.01)  # unseen by the cell networks: the mix share at most
    assert out[3] == pytest.approx(0.7 * 0.1 + 0.3 * 0.3, rel=0.01)


needs_model = pytest.mark.skipif(not DIGITS_PATH.exists(), reason="no digit network committed")


@needs_model
def test_digit_network_reads_held_out_mnist_digits():
    """Single held-out MNIST digits (never in training) written in a cell, the window centred on
    the ink: the committed network reads most of them (measured 0.973 on these 300; floor below)."""
    images, labels = mnist_digits()
    rng = np.random.default_rng(3)
    wants = rng.integers(0, 10, 300)
    wins = []
    for d in wants:
        x, cut = prepare_cut(_mnist_number(rng, str(d), images, labels))
        cols = np.flatnonzero(x.max(axis=0) > 0.3)
        wins.append(windows(cut, [int(round(cols.mean()))])[0])
    got = DigitNet.load(DIGITS_PATH).log_probs(np.stack(wins)).argmax(axis=1)
    assert np.mean(got == wants) >= 0.95


@needs_model
def test_second_opinion_on_real_handwritten_numbers():
    """Numbers of held-out MNIST digits read by the committed networks with and without the digit
    network: with it, at least as many right and the truth among the first three at least as often
    (200 numbers; measured 0.980 exact with it, 0.975 without; truth in the first three 1.0 both)."""
    images, labels = mnist_digits()
    rng = np.random.default_rng(11)
    wants = [str(int(rng.integers(1, 600)) * 10) for _ in range(200)]
    prepared = [prepare_cut(_mnist_number(rng, w, images, labels)) for w in wants]
    cells, cuts = np.stack([x for x, _ in prepared]), [c for _, c in prepared]
    with_digits = default_net()
    assert with_digits.digits is not None
    without = CellReader(with_digits.nets)
    got = {}
    for name, reader in (("with", with_digits), ("without", without)):
        found = reader.nbest(cells, ["0123456789-"] * len(cells), cuts=cuts)
        got[name] = (np.mean([f[0][0] == w for f, w in zip(found, wants, strict=True)]),
                     np.mean([w in [s for s, _ in f[:3]] for f, w in zip(found, wants, strict=True)]))
        for f in found:  # probabilities stay a distribution
            assert sum(p for _, p in f) <= 1.0 + 1e-6
    assert got["with"][0] >= got["without"][0] and got["with"][1] >= got["without"][1], got


@needs_model
def test_digitnet_setting(monkeypatch, fresh_default_net):
    """RUBBERSCAN_DIGITNET=0 reads without the digit network (and the reader's version says so);
    nonsense is refused."""
    from ocr.ensemble import reader_version

    assert default_net().digits is not None
    assert [p for p in reader_version().split("+") if not p.startswith("second-")][-2].startswith("digits-")
    monkeypatch.setenv("RUBBERSCAN_DIGITNET", "0")
    monkeypatch.setenv("RUBBERSCAN_SECOND", "0")  # the networks' own version, without the second reader's mark
    from ocr.ppocr import default_reader

    default_reader.cache_clear()
    without = fresh_default_net()
    assert without.digits is None and without.version == reader_version()
    assert "digits-" not in reader_version()
    default_reader.cache_clear()  # read with again once the environment is restored
    monkeypatch.setenv("RUBBERSCAN_DIGITNET", "maybe")
    with pytest.raises(ValueError, match="RUBBERSCAN_DIGITNET"):
        fresh_default_net()
