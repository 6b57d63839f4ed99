"""One deal's score against every row of shared/RULES.md and seed 000's scoring table."""

import pytest

from scoring.model import Contract, Result
from scoring.notation import parse_deal
from scoring.points import duplicate_score, score_result, undertrick_penalty


def entries(text: str, vul: bool):
    """(declarer-side below, declarer-side above, defenders above) ignoring honours."""
    r = parse_deal(text)
    s = score_result(r, vul)
    d = r.declarer
    o = "ew" if d == "ns" else "ns"
    return s.below.of(d), s.above.of(d), s.above.of(o)


# trick score per odd trick bid and made: minors 20, majors 30, NT 40 + 30; x2 / x4
@pytest.mark.parametrize("text,below", [
    ("1C N 7", 20), ("3D N 9", 60), ("5D N 11", 100), ("2H N 8", 60), ("4S N 10", 120),
    ("1NT N 7", 40), ("2NT N 8", 70), ("3NT N 9", 100), ("7NT N 13", 220),
    ("2Hx N 8", 120), ("1NTxx N 7", 160), ("1Cxx N 7", 80), ("3NTx N 9", 200),
])
def test_trick_score(text, below):
    for vul in (False, True):
        assert entries(text, vul)[0] == below


# overtricks: undoubled trick value; doubled 100/200; redoubled 200/400
@pytest.mark.parametrize("text,nv,v", [
    ("3D N 11", 40, 40), ("2S N 10", 60, 60), ("1NT N 11", 120, 120),
    ("2Hx N 9", 100 + 50, 200 + 50), ("2Hxx N 10", 400 + 100, 800 + 100),
])
def test_overtricks_and_insult(text, nv, v):
    assert entries(text, False)[1] == nv
    assert entries(text, True)[1] == v


def test_insult_50_and_100():
    assert entries("4Sx N 10", False) == (240, 50, 0)
    assert entries("4Sxx N 10", True) == (480, 100, 0)


# slams must be bid: 500/750 small, 1000/1500 grand
def test_slams():
    assert entries("6S N 12", False) == (180, 500, 0)
    assert entries("6S N 12", True) == (180, 750, 0)
    assert entries("7NT N 13", False) == (220, 1000, 0)
    assert entries("7C N 13", True) == (140, 1500, 0)
    assert entries("4S N 12", False) == (120, 60, 0)  # 12 tricks in 4S is no slam


# undertricks: seed 000's table (nv / vul, undoubled / doubled), redoubled twice doubled
SEED_000_UNDERTRICKS = {1: (50, 100, 100, 200), 2: (100, 200, 300, 500), 3: (150, 300, 500, 800),
                        4: (200, 400, 800, 1100), 5: (250, 500, 1100, 1400)}


@pytest.mark.parametrize("down", sorted(SEED_000_UNDERTRICKS))
def test_undertricks_seed_000_table(down):
    nv, v, xnv, xv = SEED_000_UNDERTRICKS[down]
    assert undertrick_penalty(down, 0, False) == nv
    assert undertrick_penalty(down, 0, True) == v
    assert undertrick_penalty(down, 1, False) == xnv
    assert undertrick_penalty(down, 1, True) == xv
    assert undertrick_penalty(down, 2, False) == 2 * xnv
    assert undertrick_penalty(down, 2, True) == 2 * xv


def test_undertricks_go_to_defenders_above():
    assert entries("4Hx N 8", False) == (0, 0, 300)  # seed 001 deal 3
    assert entries("7NTx E 0", True) == (0, 0, 200 + 300 * 12)
    assert entries("3NT W 6", True) == (0, 0, 300)


def test_honours_either_side_made_or_not_never_doubled():
    s = score_result(parse_deal("4Sx N 10 honours 100 EW"), False)
    assert (s.below.ns, s.above.ns, s.above.ew) == (240, 50, 100)
    s = score_result(parse_deal("4Hxx N 7 honours 150 NS"), False)
    assert (s.above.ns, s.above.ew) == (150, 1000)
    s = score_result(parse_deal("3NT E 9 honours 150 EW"), True)
    assert s.total == (0, 250)


def test_passed_out_scores_nothing():
    assert score_result(Result(None), True).total == (0, 0)


# duplicate: RULES.md identity and seed 004's duplicate examples (1C redoubled made = 230)
@pytest.mark.parametrize("text,vul,dup", [
    ("1Cxx N 7", False, 230), ("4S N 10", False, 420), ("4S N 10", True, 620),
    ("3NT N 10", False, 430), ("2S N 9", False, 140), ("3D N 9", False, 110),
    ("3H N 9", True, 140), ("6Sx N 13", False, 1310), ("3NT E 8", False, -50),
])
def test_duplicate_score(text, vul, dup):
    assert duplicate_score(parse_deal(text), vul) == dup


def test_trick_score_table_minimal():
    assert score_result(Result(Contract(1, "NT"), "ew", 7), False).below == (0, 40)
