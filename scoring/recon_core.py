"""The scoring core's sequence check (scoring/inverse.py) as a reconciler :class:`DealChecker`."""

from __future__ import annotations

from scoring import inverse
from scoring.model import ALL_RULES, HouseRules
from scoring.pad import GAME, PadState

LEGS = range(0, GAME, 10)
# Every pad state: games 0-1 each, part-scores below a game each.
MEMO_SIZE = 200_000  # remembered (state, N/S score, E/W score) moves, at most (~40 MB)
EVERY_STATE = frozenset(PadState(gn, ge, ln, le) for gn in (0, 1) for ge in (0, 1) for ln in LEGS for le in LEGS)


def rules_set(rules=None) -> frozenset[HouseRules]:
    """None: every house rule (an organiser's choice is never a mistake)."""
    if rules is None:
        return ALL_RULES
    return frozenset([rules]) if isinstance(rules, HouseRules) else frozenset(rules)


class CoreChecker:
    """Sets of reachable pad states, deal by deal, under ``rules``."""

    def __init__(self, rules=None, memo_size: int = MEMO_SIZE) -> None:
        self.rules = rules_set(rules)
        self.memo_size = memo_size
        self._moves: dict[tuple[PadState, int, int], frozenset[PadState]] = {}

    def initial(self) -> frozenset:
        return inverse.initial_states(self.rules)

    def anything(self) -> frozenset:
        return EVERY_STATE

    def step(self, states: frozenset, ns: int, ew: int, last: bool = False) -> frozenset:
        if last:
            return inverse.step(states, ns, ew, last, self.rules)
        # inverse.step, one state at a time, each state's moves remembered: the decoder asks about
        # the same states and scores again and again, in ever new sets of states
        memo = self._moves
        if len(memo) > self.memo_size:
            memo.clear()
        reached: set[PadState] = set()
        for state in states:
            key = (state, ns, ew)
            after = memo.get(key)
            if after is None:
                after = memo[key] = inverse.moves(state, ns, ew)
            reached |= after
        return frozenset(reached)
