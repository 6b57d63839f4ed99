"""The match simulator: seeded, consistent with the pad, realistic frequencies."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.model import SEATS, HouseRules
from scoring.pad import score_match
from scoring.simulate import random_match


def test_same_seed_same_match_and_rules_respected():
    a = random_match(random.Random(42))
    b = random_match(random.Random(42))
    assert a.deals == b.deals
    c = random_match(random.Random(42), rules=HouseRules("laws", 50))
    assert c.rules == HouseRules("laws", 50)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 100_000))
def test_entries_cumulatives_dealers_and_winner(seed):
    m = random_match(random.Random(seed))
    n = len(m.deals)
    assert n >= 30 and (n - 30) % 2 == 0
    cum = [0, 0]
    start = SEATS.index(m.deals[0].dealer)
    for d in m.deals:
        cum = [cum[0] + d.ns, cum[1] + d.ew]
        assert (d.cum_ns, d.cum_ew) == tuple(cum)
        assert d.dealer == SEATS[(start + d.deal - 1) % 4]
        assert d.ns % 10 == 0 and d.ew % 10 == 0
    assert tuple(m.totals) == tuple(cum) and cum[0] != cum[1]
    assert m.winner == ("ns" if cum[0] > cum[1] else "ew")
    # the entries are the pad's own: rescoring the results gives the same totals
    again = score_match([d.result for d in m.deals], m.rules, unfinished=True)
    assert [tuple(x.total) for x in again.lines] == [(d.ns, d.ew) for d in m.deals]


def test_realistic_frequencies():
    rng = random.Random(2024)
    kinds: Counter = Counter()
    bonuses: Counter = Counter()
    deals = 0
    for _ in range(200):
        m = random_match(rng)
        for line in m.score.lines:
            r = line.outcome.result
            deals += 1
            kinds["pass" if r.passed else "made" if r.made else "down"] += 1
            kinds["honours"] += bool(r.honours)
            kinds["slam"] += bool(r.contract and r.contract.level >= 6)
            kinds["doubled"] += bool(r.contract and r.contract.doubled)
            kinds["big"] += max(line.total) >= 1000
            bonuses[line.outcome.rubber_bonus] += 1
        kinds["unfinished"] += m.score.lines[-1].unfinished != (0, 0)
    share = {k: v / deals for k, v in kinds.items()}
    assert 0.01 < share["pass"] < 0.06
    assert 0.55 < share["made"] < 0.85
    assert 0.06 < share["honours"] < 0.15
    assert 0.01 < share["slam"] < 0.07
    assert 0.04 < share["doubled"] < 0.20
    assert share["big"] > 0.005
    assert bonuses[700] > 100 and bonuses[500] > 100  # about 6-7 rubbers a match
    assert kinds["unfinished"] > 100  # most matches stop in an unfinished rubber
