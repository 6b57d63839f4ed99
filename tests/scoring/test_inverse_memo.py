"""The memoised last-deal bonuses in scoring.inverse never leak from one house rule to
another: per rule, the states after a last deal are those of the plain definition
(scoring.pad.advance + unfinished_bonus), in whatever order the rules are asked."""

from __future__ import annotations

import random

import pytest

from scoring.inverse import check_sequence, explain, step
from scoring.model import ALL_RULES, Pair
from scoring.pad import unfinished_bonus
from scoring.simulate import random_match

RULES = sorted(ALL_RULES, key=repr)


def _sheets(n: int):
    for seed in range(n):
        totals = [(d.ns, d.ew) for d in random_match(random.Random(700 + seed)).deals]
        states = check_sequence(totals[:-1], ALL_RULES, unfinished_last=False).states
        yield states[-1], totals[-1]


def test_last_step_per_rule_in_any_order():
    cases = list(_sheets(12))
    first = {(i, r): step(s, *t, True, r) for i, (s, t) in enumerate(cases) for r in RULES}
    for i, (s, t) in reversed(list(enumerate(cases))):
        for r in reversed(RULES):
            assert step(s, *t, True, r) == first[(i, r)]
        union = frozenset().union(*(first[(i, r)] for r in RULES))
        assert step(s, *t, True, ALL_RULES) == union


@pytest.mark.slow
def test_last_step_matches_explanations_and_bonus_rules():
    explained = 0
    for states, (ns, ew) in _sheets(12):
        for rule in RULES:
            exps = [e for s in states for e in explain(ns, ew, s, True, rule)]
            explained += bool(exps)
            assert step(states, ns, ew, True, rule) == frozenset(e.after for e in exps)
            for e in exps:  # the bonus counted is the rule's own for the pad the deal leaves
                if e.rubber_winner is None:
                    assert e.unfinished == unfinished_bonus(e.after, rule)
                else:
                    assert e.unfinished == unfinished_bonus(e.after, rule) == Pair()
    assert explained >= 12  # every simulated last deal is explained under its own rule


@pytest.mark.slow
def test_the_reconciler_checkers_remembered_moves_match_the_plain_step():
    """scoring.reconcile.check.CoreChecker remembers each state's moves; its steps -- from a few
    states or from every state, the memo full and cleared -- are scoring.inverse.step's."""
    from scoring.reconcile.check import EVERY_STATE, CoreChecker

    rng = random.Random(5)
    states = sorted(EVERY_STATE)
    scores = [(d.ns, d.ew) for seed in range(6) for d in random_match(random.Random(900 + seed)).deals]
    scores += [(ns + 10, ew) for ns, ew in scores[:20]] + [(0, 0), (120, 0), (0, 620)]
    for size in (100_000, 50):
        checker = CoreChecker(memo_size=size)
        for _ in range(3):  # asked again: answered from the memo
            for ns, ew in scores:
                some = frozenset(rng.sample(states, rng.randint(1, 40)))
                for group in (some, EVERY_STATE):
                    assert checker.step(group, ns, ew) == step(group, ns, ew)
        assert 0 < len(checker._moves) <= size + len(EVERY_STATE)
    # what the memo's keys cannot hold is passed to inverse.step as it is
    from scoring.pad import PadState

    odd = frozenset([PadState(0, 0, 15, 0), PadState(1, 0, 40, 0)])  # 15: no part-score the core makes
    for ns, ew in [(30, 0), (-10, 0), (0, 1 << 21), (120, 0)]:
        assert checker.step(odd, ns, ew) == step(odd, ns, ew)
        assert checker.step(EVERY_STATE, ns, ew) == step(EVERY_STATE, ns, ew)
