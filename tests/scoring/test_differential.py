"""Per-deal entries against endplay's independent duplicate scorer, through RULES.md's identity.

made:     rubber above + below = duplicate - (300/500 if trick score >= 100 else 50)
defeated: the defenders' rubber entry = -duplicate
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.model import Contract, Result
from scoring.points import duplicate_score, score_result, trick_score

endplay_types = pytest.importorskip("endplay.types")


def endplay_score(r: Result, vul: bool) -> int:
    c = r.contract
    diff = r.tricks - (c.level + 6)
    res = "=" if diff == 0 else f"{diff:+d}"
    strain = "N" if c.strain == "NT" else c.strain
    seat = "N" if r.declarer == "ns" else "E"
    text = f"{c.level}{strain}{seat}{'x' * c.doubled}{res}"
    vul_enum = endplay_types.Vul.both if vul else endplay_types.Vul.none
    return endplay_types.Contract(text).score(vul_enum)


def all_results():
    for level in range(1, 8):
        for strain in ("C", "D", "H", "S", "NT"):
            for doubled in range(3):
                for tricks in range(14):
                    yield Result(Contract(level, strain, doubled), "ns", tricks)


@pytest.mark.parametrize("vul", [False, True])
def test_every_result_against_endplay(vul):
    checked = 0
    for r in all_results():
        dup = endplay_score(r, vul)
        assert duplicate_score(r, vul) == dup, r
        s = score_result(r, vul)
        if r.made:
            game = (500 if vul else 300) if trick_score(r.contract) >= 100 else 50
            assert s.total.ns == dup - game and s.total.ew == 0, r
        else:
            assert s.total.ew == -dup and s.total.ns == 0, r
        checked += 1
    assert checked == 7 * 5 * 3 * 14


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7), st.sampled_from(["C", "D", "H", "S", "NT"]), st.integers(0, 2),
       st.integers(0, 13), st.booleans(), st.sampled_from([0, 100, 150]))
def test_honours_are_outside_duplicate(level, strain, doubled, tricks, vul, honours):
    if strain == "NT" and honours == 100:
        honours = 150
    r = Result(Contract(level, strain, doubled), "ew", tricks, honours, "ns" if honours else None)
    s = score_result(r, vul)
    plain = score_result(Result(r.contract, "ew", tricks), vul)
    assert s.total.ns - plain.total.ns == honours and s.total.ew == plain.total.ew
