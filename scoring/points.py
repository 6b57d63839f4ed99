"""One deal's rubber-bridge score (shared/RULES.md table), item by item.

Pure functions of a :class:`Result` and the declaring side's vulnerability.
Each item says which side scores it and whether it goes above or below the
line, so a score pad can be drawn exactly as a person keeps one.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.model import Contract, Pair, Result, other

# Order in which a person writes a deal's above-the-line items (seed 001).
ABOVE_ORDER = ("overtricks", "insult", "slam", "undertricks", "honours", "rubber", "unfinished")


@dataclass(frozen=True)
class Item:
    side: str  # "ns" / "ew"
    amount: int
    kind: str  # "contract" (below the line) or an ABOVE_ORDER entry
    below: bool = False


@dataclass(frozen=True)
class DealScore:
    """A deal's entries; the totals are sums of ``items``."""

    items: tuple[Item, ...] = ()

    @property
    def below(self) -> Pair:
        return _sum(i for i in self.items if i.below)

    @property
    def above(self) -> Pair:
        return _sum(i for i in self.items if not i.below)

    @property
    def total(self) -> Pair:
        return _sum(self.items)

    def with_items(self, *extra: Item) -> DealScore:
        return DealScore(self.items + tuple(i for i in extra if i.amount))


def _sum(items) -> Pair:
    ns = ew = 0
    for i in items:
        if i.side == "ns":
            ns += i.amount
        else:
            ew += i.amount
    return Pair(ns, ew)


def trick_score(contract: Contract) -> int:
    """Points below the line for the tricks bid and made (×2 doubled, ×4 redoubled)."""
    if contract.strain == "NT":
        base = 40 + 30 * (contract.level - 1)
    else:
        base = (20 if contract.strain in ("C", "D") else 30) * contract.level
    return base * (1, 2, 4)[contract.doubled]


def overtrick_value(contract: Contract, vulnerable: bool) -> int:
    """Points for each overtrick."""
    if contract.doubled == 0:
        return 20 if contract.strain in ("C", "D") else 30
    return (100 if not vulnerable else 200) * contract.doubled


def undertrick_penalty(down: int, doubled: int, vulnerable: bool) -> int:
    """The defenders' score for ``down`` undertricks."""
    if doubled == 0:
        return down * (100 if vulnerable else 50)
    if vulnerable:
        pen = 200 + 300 * (down - 1)
    else:
        pen = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
    return pen * doubled


def slam_bonus(level: int, vulnerable: bool) -> int:
    """Bonus for a slam bid and made (0 below the six level)."""
    if level == 6:
        return 750 if vulnerable else 500
    if level == 7:
        return 1500 if vulnerable else 1000
    return 0


def score_result(result: Result, vulnerable: bool) -> DealScore:
    """The deal's items; ``vulnerable`` is the declaring side's vulnerability."""
    c = result.contract
    if c is None:
        return DealScore()
    decl = result.declarer
    items: list[Item] = []
    need = c.level + 6
    if result.tricks >= need:
        items.append(Item(decl, trick_score(c), "contract", below=True))
        over = (result.tricks - need) * overtrick_value(c, vulnerable)
        items.append(Item(decl, over, "overtricks"))
        items.append(Item(decl, 50 * c.doubled, "insult"))
        items.append(Item(decl, slam_bonus(c.level, vulnerable), "slam"))
    else:
        pen = undertrick_penalty(need - result.tricks, c.doubled, vulnerable)
        items.append(Item(other(decl), pen, "undertricks"))
    if result.honours:
        items.append(Item(result.honours_side, result.honours, "honours"))
    return DealScore(tuple(i for i in items if i.amount))


def duplicate_score(result: Result, vulnerable: bool) -> int:
    """The duplicate score of a result, from the declaring side (negative when defeated).

    Trick score + overtricks + insult + slam + game bonus (300 / 500) or
    part-score bonus 50; no honours, no carry-over (RULES.md, seed 004).
    """
    c = result.contract
    if c is None:
        return 0
    need = c.level + 6
    if result.tricks < need:
        return -undertrick_penalty(need - result.tricks, c.doubled, vulnerable)
    ts = trick_score(c)
    bonus = (500 if vulnerable else 300) if ts >= 100 else 50
    return (
        ts
        + (result.tricks - need) * overtrick_value(c, vulnerable)
        + 50 * c.doubled
        + slam_bonus(c.level, vulnerable)
        + bonus
    )
