"""The rule check the reconciler runs deal by deal, behind a small interface.

A :class:`DealChecker` follows the set of score-pad states a sheet can be in:
``initial()`` is the set before deal 1 and ``step(states, ns, ew, last)`` the set
after a deal written as (ns, ew) -- empty when no result explains it.  State sets
must be hashable (frozensets) so the decoder can cache and merge on them.

:func:`default_checker` gives the scoring core's inverse when it is available and
falls back to :class:`ArithmeticChecker` (pair and multiple-of-ten rules only).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

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


def default_checker(rules=None) -> DealChecker:
    """The scoring core's sequence check for ``rules`` when present, else arithmetic only."""
    try:
        from scoring.recon_core import CoreChecker
    except ImportError:
        return ArithmeticChecker()
    return CoreChecker(rules)
