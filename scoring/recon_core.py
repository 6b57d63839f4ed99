"""The scoring core's sequence check (scoring/inverse.py) as a reconciler :class:`DealChecker`."""

from __future__ import annotations

from scoring import inverse
from scoring.model import ALL_RULES, HouseRules
from scoring.pad import GAME, PadState

LEGS = range(0, GAME, 10)
# Every pad state: games 0-1 each, part-scores below a game each.
EVERY_STATE = frozenset(PadState(gn, ge, ln, le) for gn in (0, 1) for ge in (0, 1) for ln in LEGS for le in LEGS)

MEMO_SIZE = 100_000  # remembered (state, N/S score, E/W score) moves, at most (~17 MB: 168 bytes each)
STATES = sorted(EVERY_STATE)
STATE_INDEX = {state: i for i, state in enumerate(STATES)}


def _bits(states) -> int:
    out = 0
    for state in states:
        out |= 1 << STATE_INDEX[state]
    return out


def _states(bits: int) -> frozenset[PadState]:
    out = []
    while bits:
        low = bits & -bits
        out.append(STATES[low.bit_length() - 1])
        bits ^= low
    return frozenset(out)


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
        # plain ints, which the garbage collector never walks: key state index + 512 x (N/S, E/W)
        # scores; value a bit set over STATES
        self._moves: dict[int, int] = {}

    def initial(self) -> frozenset:
        return inverse.initial_states(self.rules)

    def anything(self) -> frozenset:
        return EVERY_STATE

    def step(self, states: frozenset, ns: int, ew: int, last: bool = False) -> frozenset:
        if last or not (0 <= ns < 1 << 20 and 0 <= ew < 1 << 20):
            return inverse.step(states, ns, ew, last, self.rules)
        # inverse.step, one state at a time, each state's moves remembered: the decoder asks about
        # the same states and scores again and again, in ever new sets of states
        memo = self._moves
        if len(memo) > self.memo_size:
            memo.clear()
        base = ((ns << 20) | ew) << 9
        reached = 0
        try:
            for state in states:
                key = base | STATE_INDEX[state]
                after = memo.get(key)
                if after is None:
                    after = memo[key] = _bits(inverse.moves(state, ns, ew))
                reached |= after
        except KeyError:  # a state outside EVERY_STATE (not made by the scoring core)
            return inverse.step(states, ns, ew, last, self.rules)
        return _states(reached)
