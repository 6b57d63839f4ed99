"""The score pad: seed 001's worked rubber deal by deal, games, rubbers, unfinished bonus."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.model import HouseRules, Pair
from scoring.notation import parse_deals
from scoring.pad import FRESH, PadState, score_match, unfinished_bonus
from scoring.simulate import random_result

# Seed 001: Frank & Lena (here N/S) v Arrow & Beatrice (E/W).
SEED_001 = """\
3D N 11
6S E 12 honours 150 EW
4Hx N 8
2Hx N 8
2H N 8
1NTx E 8
1NT N 11
"""
# (below ns, below ew, above items ns, above items ew) per deal, as the seed draws them.
SEED_001_ENTRIES = [
    (60, 0, [40], []),
    (0, 180, [], [500, 150]),
    (0, 0, [], [300]),
    (120, 0, [50], []),
    (60, 0, [], []),
    (0, 80, [], [200, 50]),
    (40, 0, [120, 500], []),
]


def test_seed_001_deal_by_deal():
    match = score_match(parse_deals(SEED_001), unfinished=False)
    for line, (bns, bew, ans, aew) in zip(match.lines, SEED_001_ENTRIES, strict=True):
        s = line.score
        assert s.below == (bns, bew), line.deal
        assert [i.amount for i in s.items if not i.below and i.side == "ns"] == ans, line.deal
        assert [i.amount for i in s.items if not i.below and i.side == "ew"] == aew, line.deal
    assert match.totals == (990, 1460)
    assert match.winner == "ew"
    last = match.lines[-1].outcome
    assert (last.rubber_winner, last.rubber_bonus, last.games) == ("ns", 500, Pair(2, 1))
    assert match.final_state == FRESH


def test_seed_001_vulnerability_and_games():
    lines = score_match(parse_deals(SEED_001), unfinished=False).lines
    vul = [(ln.outcome.before.vulnerable("ns"), ln.outcome.before.vulnerable("ew")) for ln in lines]
    assert vul == [(False, False), (False, False), (False, True), (False, True),
                   (True, True), (True, True), (True, True)]
    # 60 part-score is cleared by A&B's game: F&L's 2Hx (120) is a game on its own, 2H (60) is not.
    assert [ln.outcome.game_made for ln in lines] == [False, True, False, True, False, False, True]


def test_part_scores_add_up_to_game_and_both_cleared():
    m = score_match(parse_deals("2S N 8\n1NT E 7\n2D S 8\n2H W 8\n"), unfinished=False)
    states = [ln.outcome.after for ln in m.lines]
    assert states[1] == PadState(0, 0, 60, 40)
    assert states[2] == PadState(1, 0, 0, 0)  # 60 + 40 = game; E/W's 40 no longer counts
    assert states[3] == PadState(1, 0, 0, 60)


def test_two_game_rubber_700_and_new_rubber():
    m = score_match(parse_deals("4S N 10\n3NT S 9\n4H E 10\n"), unfinished=False)
    assert m.lines[1].outcome.rubber_bonus == 700
    assert m.lines[1].total == (800, 0)
    assert m.lines[2].rubber == 2 and not m.lines[2].outcome.before.vulnerable("ns")
    assert m.totals == (920, 120)


def test_passed_out_deal_counts_and_changes_nothing():
    m = score_match(parse_deals("2S N 8\npass\n"), unfinished=False)
    assert m.lines[1].total == (0, 0) and m.lines[1].outcome.after == PadState(0, 0, 60, 0)


@pytest.mark.parametrize("state,rules,bonus", [
    (PadState(1, 0, 0, 0), HouseRules(), (300, 0)),
    (PadState(0, 0, 60, 0), HouseRules(), (100, 0)),
    (PadState(0, 0, 60, 0), HouseRules(partscore_bonus=50), (50, 0)),
    (PadState(1, 0, 60, 0), HouseRules(), (400, 0)),
    (PadState(1, 1, 60, 40), HouseRules("each"), (400, 400)),
    (PadState(1, 1, 60, 40), HouseRules("ahead"), (100, 0)),
    (PadState(1, 1, 60, 40), HouseRules("laws"), (0, 0)),
    (PadState(1, 0, 0, 40), HouseRules("laws"), (300, 100)),
    (PadState(1, 0, 30, 40), HouseRules("ahead"), (300, 100)),
    (FRESH, HouseRules("each"), (0, 0)),
])
def test_unfinished_bonus_options(state, rules, bonus):
    assert unfinished_bonus(state, rules) == bonus


def test_unfinished_bonus_on_last_deal_only():
    m = score_match(parse_deals("4S N 10\n2H E 8\n"), unfinished=True)
    assert m.lines[0].total == (120, 0)
    assert m.lines[1].total == (300, 60 + 100)
    assert m.lines[1].to_json()["above"] == {"ns": 300, "ew": 100}


def test_match_winner_and_completeness():
    m = score_match(parse_deals("pass\n" * 30), unfinished=True)
    assert m.winner is None and not m.complete
    m = score_match(parse_deals("pass\n" * 31 + "1C N 7\n"), unfinished=True)
    assert m.winner == "ns" and m.complete and m.totals == (120, 0)


def test_bad_house_rules_rejected():
    with pytest.raises(ValueError):
        HouseRules("most")
    with pytest.raises(ValueError):
        HouseRules(partscore_bonus=70)


def test_text_pad_rubbers_and_unfinished():
    from scoring.padtext import render_pad

    deals = "4S N 10\n3NT S 9\npass\n2H E 8\n1NTx W 9 honours 150 EW\n2C N 8\n"
    text = render_pad(score_match(parse_deals(deals), unfinished=True))
    blocks = text.split("\n\n")
    assert blocks[0].startswith("Rubber 1\n") and "Rubber 2 (unfinished)" in blocks[1]
    assert "920 | 0" in blocks[0] and "WE +920" in blocks[0]
    # rubber 2: E/W 300 game + 150 honours + 50 + 200 above; N/S 100 part-score bonus
    above = blocks[1].split("==========")[0]
    assert above.index("300") < above.index("150") < above.index("200")
    assert "100 | 200" in above
    assert "140 | 840" in blocks[1]
    assert "WE 1060  THEY 840" in blocks[2] and "(1 passed out)" in blocks[2]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_totals_are_sums_of_entries(seed, unfinished):
    rng = random.Random(seed)
    results = [random_result(rng) for _ in range(rng.randrange(1, 40))]
    m = score_match(results, unfinished=unfinished)
    cum = Pair()
    for line in m.lines:
        j = line.to_json()
        assert j["ns"] == j["below"]["ns"] + j["above"]["ns"]
        assert j["ew"] == j["below"]["ew"] + j["above"]["ew"]
        assert line.total == (sum(i.amount for i in line.score.items if i.side == "ns"),
                              sum(i.amount for i in line.score.items if i.side == "ew"))
        cum = cum.plus(line.total)
        assert line.cumulative == cum
        assert j["below"]["ns"] == 0 or j["below"]["ew"] == 0  # one contract a deal
    games = [ln.outcome.rubber_bonus for ln in m.lines if ln.outcome.rubber_bonus]
    assert all(b in (500, 700) for b in games)


def test_match_outcome_tie_extends_two_deals_at_a_time():
    from scoring.pad import match_outcome

    level = [(0, 0)] * 29 + [(100, 100)]
    assert match_outcome(level).winner is None
    assert match_outcome(level + [(0, 50)]).winner is None  # 31 deals: not a decision point
    out = match_outcome(level + [(0, 50), (0, 0)])
    assert (out.winner, out.decided_at, out.extra_deals, out.totals) == ("ew", 32, 0, (100, 150))
    out = match_outcome([(0, 0)] * 29 + [(100, 0)] + [(0, 500)] * 2)
    assert (out.winner, out.decided_at, out.extra_deals) == ("ns", 30, 2)
    assert match_outcome([(10, 0)] * 12).winner is None  # fewer than 30 deals: undecided
