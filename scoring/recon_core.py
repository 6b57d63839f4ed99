"""The scoring core's sequence check (scoring/inverse.py) as a reconciler :class:`DealChecker`."""

from __future__ import annotations

from functools import lru_cache

from scoring import inverse
from scoring.model import ALL_RULES, HouseRules


def rules_set(rules=None) -> frozenset[HouseRules]:
    """None: every house rule (an organiser's choice is never a mistake)."""
    if rules is None:
        return ALL_RULES
    return frozenset([rules]) if isinstance(rules, HouseRules) else frozenset(rules)


class CoreChecker:
    """Sets of reachable pad states, deal by deal, under ``rules``."""

    def __init__(self, rules=None) -> None:
        self.rules = rules_set(rules)
        self._one = lru_cache(maxsize=200_000)(self._step_one)

    def initial(self) -> frozenset:
        return inverse.initial_states(self.rules)

    def _step_one(self, state, ns: int, ew: int, last: bool) -> frozenset:
        return inverse.step((state,), ns, ew, last, self.rules)

    def step(self, states: frozenset, ns: int, ew: int, last: bool = False) -> frozenset:
        """Union of the per-state steps (memoised per state: sheets share most states)."""
        one = self._one
        if len(states) == 1:
            return one(next(iter(states)), ns, ew, last)
        out: set = set()
        for state in states:
            out |= one(state, ns, ew, last)
        return frozenset(out)
