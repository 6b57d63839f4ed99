"""The rule check reconciliation runs deal by deal, behind a small interface.

A :class:`DealChecker` follows the set of score-pad states a sheet can be in:
``initial()`` is the set before deal 1 and ``step(states, ns, ew, last)`` the set
after a deal written as (ns, ew) -- empty when no result explains it.  State sets
must be hashable (frozensets) so the decoder can cache and merge on them.

:class:`CoreChecker` is the scoring core's sequence check (scoring/inverse.py);
:class:`ArithmeticChecker` knows only the rules one deal's pair can break (tests).
:func:`checker_for` gives the memoised core check for a set of house rules.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

from scoring import inverse
from scoring.model import ALL_RULES, HouseRules
from scoring.pad import GAME, PadState

HONOURS = (100, 150)


class DealChecker(Protocol):
    def initial(self) -> frozenset: ...

    def anything(self) -> frozenset:
        """Every state a pad can be in (after a deal whose score is unknown)."""
        ...

    def step(self, states: frozenset, ns: int, ew: int, last: bool = False) -> frozenset: ...


def pair_problem(ns: int, ew: int, last: bool = False) -> str | None:
    """Why a written (ns, ew) pair cannot be one deal's score, or None when it can be."""
    for value in (ns, ew):
        if value < 0:
            return f"a score of {value} is negative"
        if value % 10:
            return f"a score of {value} is not a multiple of 10"
    if ns and ew and not last and ns not in HONOURS and ew not in HONOURS:
        return (f"both sides scored ({ns} and {ew}); on one deal that only happens "
                "when one side scored honours alone (100 or 150)")
    return None


class ArithmeticChecker:
    """Only the rules a single deal's pair can break; every pad state is one state."""

    _ONE = frozenset({0})

    def initial(self) -> frozenset:
        return self._ONE

    def anything(self) -> frozenset:
        return self._ONE

    def step(self, states: frozenset, ns: int, ew: int, last: bool = False) -> frozenset:
        return frozenset() if pair_problem(ns, ew, last) else states


class CachedChecker:
    """Memoises another checker's ``step`` (the decoder asks the same question often)."""

    def __init__(self, inner: DealChecker, size: int = 65536) -> None:
        self.inner = inner
        self.step = lru_cache(maxsize=size)(self._step)

    def initial(self) -> frozenset:
        return self.inner.initial()

    def anything(self) -> frozenset:
        return self.inner.anything()

    def _step(self, states: frozenset, ns: int, ew: int, last: bool = False) -> frozenset:
        return self.inner.step(states, ns, ew, last)


# ----------------------------------------------------------------------------- the core's check
LEGS = range(0, GAME, 10)
# Every pad state: games 0-1 each, part-scores below a game each.
EVERY_STATE = frozenset(PadState(gn, ge, ln, le)
                        for gn in (0, 1) for ge in (0, 1) for ln in LEGS for le in LEGS)

# remembered (state, N/S score, E/W score) moves, at most (~17 MB: 168 bytes each)
MEMO_SIZE = 100_000
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


@lru_cache(maxsize=16)
def checker_for(rules=None) -> DealChecker:
    """The memoised rule check for ``rules`` (shared between sheets: a pure function)."""
    return CachedChecker(CoreChecker(rules))
