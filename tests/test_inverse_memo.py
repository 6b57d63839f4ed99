"""The memoised last-deal bonuses in scoring.inverse never leak from one house rule to
another: per rule, the states after a last deal are those of the plain definition
(scoring.pad.advance + unfinished_bonus), in whatever order the rules are asked."""

from __future__ import annotations

import random

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
