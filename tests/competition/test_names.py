"""Names lines against a closed list: the folding, the CTC forward sum, the variants."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from competition.names import (
    BLANK,
    CLASSES,
    LETTERS,
    OTHER,
    SEP,
    best_path,
    ctc_log_likelihoods,
    encode,
    fold,
    pair_variants,
    score_line,
    temper,
)
from tests.competition.helpers import frames


def test_case_accents_spaces_and_separators_fold():
    assert encode("Hill / Cheater") == encode("HILL/CHEATER") == encode("hill /cheater")
    assert encode("Hill & Cheater") == encode("Hill - Cheater") == encode("Hill, Cheater")
    assert encode("Müller") == encode("Muller") and encode("O'Brien") == encode("OBrien")
    assert encode(" / Hill /") == encode("Hill") and SEP not in encode("Hill  Cheater")
    assert encode("Room 4")[-1] == OTHER


def _brute(logp: np.ndarray, target: tuple[int, ...]) -> float:
    """The CTC sum by enumerating every path (tiny cases only)."""
    total = -math.inf
    for path in itertools.product(range(logp.shape[1]), repeat=logp.shape[0]):
        out, prev = [], None
        for c in path:
            if c != prev and c != BLANK:
                out.append(c)
            prev = c
        if tuple(out) == target:
            total = np.logaddexp(total, sum(logp[t, c] for t, c in enumerate(path)))
    return total


@pytest.mark.parametrize("target", [(1,), (1, 2), (1, 1), (2, 1, 2), ()])
def test_the_forward_sum_is_the_sum_over_every_path(target):
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(3), size=4)  # 4 frames, classes: blank, 1, 2
    logp = np.log(p)
    got = ctc_log_likelihoods(logp, [target])[0]
    assert got == pytest.approx(_brute(logp, target), abs=1e-9)


def test_a_string_longer_than_the_frames_allow_is_impossible():
    logp = np.log(np.full((3, 3), 1 / 3))
    assert ctc_log_likelihoods(logp, [(1, 1, 1)])[0] < -1e20  # needs 5 frames (a blank between)


def test_fold_gives_each_recogniser_character_its_class():
    chars = ("", "a", "B", "/", " ", "7", "é")
    probs = np.array([[0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1]])
    out = np.exp(fold(probs, chars))[0]
    assert out.sum() == pytest.approx(1.0, abs=1e-5)
    assert out[BLANK] == pytest.approx(0.2, abs=1e-5)  # the blank and the space
    assert out[1 + LETTERS.index("a")] == pytest.approx(0.2, abs=1e-5)
    assert out[1 + LETTERS.index("b")] == pytest.approx(0.1, abs=1e-5)
    assert out[1 + LETTERS.index("e")] == pytest.approx(0.1, abs=1e-5)
    assert out[SEP] == pytest.approx(0.2, abs=1e-5) and out[OTHER] == pytest.approx(0.2, abs=1e-5)


def test_temper_flattens_and_keeps_a_distribution():
    logp = frames("hill")
    hot = np.exp(temper(logp, 3.0))
    assert np.allclose(hot.sum(axis=1), 1.0)
    assert hot.max() < np.exp(logp).max()


def test_the_written_names_win_in_any_order_and_the_free_reading_is_the_line():
    cands = {"P1": pair_variants(("Hill", "Cheater")), "P2": pair_variants(("Hall", "Chester")),
             "P3": pair_variants(("Smith", "Jones"))}
    for written in ("Hill / Cheater", "CHEATER & HILL", "Hill Cheater"):
        ls = score_line(frames(written), cands, temperature=2.0)
        assert max(ls.scores, key=ls.scores.get) == "P1"
        assert ls.scores["P1"] - ls.scores["P2"] > 5
    assert score_line(frames("Hill / Cheater"), cands).read == "hill/cheater"
    assert best_path(frames("Hill / Cheater")) == encode("hill/cheater")


def test_variants_cover_surnames_alone_and_either_order():
    v = pair_variants(("Jane Hill", "Bob Cheater"))
    assert encode("Hill / Cheater") in v and encode("Cheater / Jane Hill") in v
    assert encode("Jane Hill Bob Cheater") in v and len(v) == len(set(v))


def test_no_class_is_left_out():
    assert CLASSES == len(LETTERS) + 3
