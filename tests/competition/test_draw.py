"""DRAW.csv and the seeded random draw: byes, areas and Open pairs kept apart where it can."""

from __future__ import annotations

import pytest

from competition.draw import DrawError, draw_cost, draw_csv, make_draw, pairing_cost, parse_draw
from competition.roster import parse_pairs
from tests.competition.helpers import roster


def _roster(n: int, areas: int, open_every: int = 0):
    lines = ["pair,names,grade,emails,area"]
    for k in range(1, n + 1):
        grade = "Open" if open_every and k % open_every == 0 else "Int"
        lines.append(f"P{k},A{k} / B{k},{grade},,Area{k % areas}")
    return parse_pairs("\n".join(lines) + "\n")


def test_the_draw_is_read_and_written_back():
    text = ("round,match,pair_a,pair_b,deadline\n1,R1-M1,P1,P2,2025-06-30\n1,R1-M2,P3,P4,\n"
            "1,R1-M3,P5,,\n")
    draw = parse_draw(text, roster())
    assert [m.match for m in draw] == ["R1-M1", "R1-M2", "R1-M3"]
    assert draw[0].deadline == "2025-06-30" and draw[1].deadline is None
    assert draw[2].bye and draw[2].pairs == ("P5",)
    assert parse_draw(draw_csv(draw), roster()) == draw


def test_every_bad_line_of_a_draw_is_named():
    text = ("round,match,pair_a,pair_b,deadline\n"
            "one,R1-M1,P1,P2,\n"  # round
            "1,R1-M2,P1,P9,\n"  # no such pair
            "1,R1-M3,P3,P3,\n"  # itself
            "1,R1-M4,P3,P4,30/06/2025\n"  # not an ISO date
            "1,R1-M5,P5,P6,\n"
            "1,R1-M6,P5,P1,\n"  # P5 twice in round 1
            "1,R1-M5,P2,P4,\n")  # id again
    with pytest.raises(DrawError) as err:
        parse_draw(text, roster(), "draw.csv")
    said = str(err.value)
    for line in (2, 3, 4, 5, 7, 8):
        assert f"draw.csv: line {line}:" in said
    assert "draw.csv: line 6:" not in said and "already on line 6" in said


def test_the_draw_is_the_same_for_a_seed_and_another_for_another():
    r = _roster(16, 8)
    a = make_draw(list(r), 1, seed=5)
    assert a == make_draw(list(r), 1, seed=5)
    assert a != make_draw(list(r), 1, seed=6)
    assert sorted(p for m in a for p in m.pairs) == sorted(p.pair for p in r)
    assert [m.match for m in a] == [f"R1-M{k}" for k in range(1, 9)]


def test_an_odd_number_gives_one_bye_to_a_pair_that_had_none():
    r = _roster(9, 3)
    had = frozenset(f"P{k}" for k in range(1, 9))  # all but P9 had one
    draw = make_draw(list(r), 2, seed=1, had_bye=had)
    byes = [m for m in draw if m.bye]
    assert len(byes) == 1 and byes[0].pair_a == "P9" and len(draw) == 5


@pytest.mark.parametrize("seed", range(8))
def test_pairs_of_one_area_and_two_open_pairs_meet_only_when_it_cannot_be_helped(seed):
    r = _roster(20, 4, open_every=5)  # four areas of five pairs, four Open pairs
    draw = make_draw(list(r), 1, seed=seed)
    assert draw_cost(draw, r) == 0
    crowded = _roster(6, 1)  # every pair in one area: no draw avoids it, and that is no error
    assert len(make_draw(list(crowded), 1, seed=seed)) == 3


def test_the_costs_say_what_they_avoid():
    r = roster()
    assert pairing_cost(r.get("P1"), r.get("P3")) == 10.0  # both Otaki
    assert pairing_cost(r.get("P2"), r.get("P5")) == 11.0  # both Waikanae, both Open
    assert pairing_cost(r.get("P1"), r.get("P4")) == 0.0


def test_fewer_than_two_pairs_cannot_be_drawn():
    with pytest.raises(DrawError):
        make_draw(list(roster())[:1], 3, seed=1)
