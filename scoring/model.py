"""The plain values of the scoring core: sides, contracts, results, house rules.

A *result* is what happened on one deal: the contract (or a pass-out), the
declaring side, the tricks it took and any honours held.  Everything here is an
immutable, hashable value so results and pad states can live in sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from scoring.formspec import SEATS as SEATS  # clockwise, the dealing order
from scoring.formspec import SIDES as SIDES

STRAINS = ("C", "D", "H", "S", "NT")
DOUBLING = ("", "x", "xx")  # index = 0 undoubled, 1 doubled, 2 redoubled
UNFINISHED_OPTIONS = ("each", "ahead", "laws")


def side_of(seat: str) -> str:
    """The side ("ns"/"ew") a seat N/E/S/W belongs to."""
    return "ns" if seat in ("N", "S") else "ew"


def other(side: str) -> str:
    """The opposing side."""
    return "ew" if side == "ns" else "ns"


class Pair(NamedTuple):
    """One number for each side."""

    ns: int = 0
    ew: int = 0

    def of(self, side: str) -> int:
        return self.ns if side == "ns" else self.ew

    def plus(self, other_pair: tuple[int, int]) -> Pair:
        return Pair(self.ns + other_pair[0], self.ew + other_pair[1])

    @staticmethod
    def one(side: str, value: int) -> Pair:
        """``value`` for ``side`` and 0 for the other side."""
        return Pair(value, 0) if side == "ns" else Pair(0, value)

    def as_dict(self) -> dict[str, int]:
        return {"ns": self.ns, "ew": self.ew}


@dataclass(frozen=True)
class Contract:
    level: int  # 1-7
    strain: str  # one of STRAINS
    doubled: int = 0  # 0, 1 (x) or 2 (xx)

    def __str__(self) -> str:
        return f"{self.level}{self.strain}{DOUBLING[self.doubled]}"


@dataclass(frozen=True)
class Result:
    """One deal's outcome.  ``contract`` None is a passed-out deal.

    ``declarer`` is the declaring side; ``seat`` the declarer's seat when known
    (it never changes the score).  ``honours`` is 0, 100 or 150, held by
    ``honours_side``.
    """

    contract: Contract | None
    declarer: str = "ns"
    tricks: int = 0
    honours: int = 0
    honours_side: str | None = None
    seat: str | None = None

    @property
    def passed(self) -> bool:
        return self.contract is None

    @property
    def made(self) -> bool:
        return self.contract is not None and self.tricks >= self.contract.level + 6

    def __str__(self) -> str:
        if self.contract is None:
            return "pass"
        who = self.seat or self.declarer.upper()
        text = f"{self.contract} {who} {self.tricks}"
        if self.honours:
            text += f" honours {self.honours} {self.honours_side.upper()}"
        return text


PASS = Result(None)


@dataclass(frozen=True)
class HouseRules:
    """Unfinished-rubber settings (the only part of rubber scoring clubs vary).

    unfinished:
      - "each":  every side with a game in the unfinished rubber scores 300, and
        every side with a part-score in the unfinished game scores
        ``partscore_bonus`` (seed 000's table read literally; both sides can
        score, so a side can get 300 + 100).
      - "ahead": only a side strictly ahead scores: 300 to a side with a game
        when the other has none; ``partscore_bonus`` to a side whose part-score
        in the unfinished game is larger than the other side's.
      - "laws":  the Laws' wording ("if only one side has ..."): 300 to a side
        with a game when the other has none; ``partscore_bonus`` to a side with
        a part-score when the other side has none.
    partscore_bonus: 100 (current Laws, seed 000) or 50 (some old cards).
    """

    unfinished: str = "each"
    partscore_bonus: int = 100

    def __post_init__(self) -> None:
        if self.unfinished not in UNFINISHED_OPTIONS:
            raise ValueError(f"unfinished must be one of {UNFINISHED_OPTIONS}, "
                             f"not {self.unfinished!r}")
        if self.partscore_bonus not in (50, 100):
            raise ValueError(f"partscore_bonus must be 50 or 100, not {self.partscore_bonus!r}")


DEFAULT_RULES = HouseRules()
# Every house rule a club may use: accepting any of them means an organiser's
# choice is never flagged as a mistake.
ALL_RULES = frozenset(HouseRules(u, p) for u in UNFINISHED_OPTIONS for p in (100, 50))
