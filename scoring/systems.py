"""The other ways of scoring the same deals: Chicago and duplicate (RULES.md, seed 004).

Used to recognise a summary sheet scored the wrong way, e.g. 420 written for
a made 4S, which is duplicate scoring (rubber writes 120 below the line).

Chicago variants (``style``):
  - "classic":   rubber-style pad within each four-deal round (part-scores carry
    over until a game), game bonus 300/500 on the deal the game is made, 100 for
    a part-score made on deal 4 that does not complete a game, honours count,
    no rubber bonus.
  - "per_deal":  each deal on its own: game bonus 300/500 for a trick score of
    100 or more, else a part-score bonus of 50 (not vulnerable) or 100
    (vulnerable); honours count (seed 004's second Chicago table).
  - "duplicate": each deal scored exactly as duplicate (part-score bonus 50, no
    honours).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from scoring.inverse import all_results
from scoring.model import SEATS, SIDES, Pair, Result, side_of
from scoring.points import Item, duplicate_score, score_result, trick_score

CHICAGO_STYLES = ("classic", "per_deal", "duplicate")


def duplicate_entries(result: Result, vul_ns: bool, vul_ew: bool) -> Pair:
    """What a duplicate score sheet shows for ``result``: the scoring side's positive score."""
    if result.contract is None:
        return Pair()
    vul = vul_ns if result.declarer == "ns" else vul_ew
    score = duplicate_score(result, vul)
    if score >= 0:
        return Pair.one(result.declarer, score)
    return Pair.one("ew" if result.declarer == "ns" else "ns", -score)


@lru_cache(maxsize=4)
def _duplicate_table(vul_ns: bool, vul_ew: bool) -> dict[Pair, tuple[Result, ...]]:
    table: dict[Pair, list[Result]] = {}
    for r in all_results():
        if r.honours == 0:
            table.setdefault(duplicate_entries(r, vul_ns, vul_ew), []).append(r)
    return {k: tuple(v) for k, v in table.items()}


def duplicate_explain(ns: int, ew: int, vul_ns: bool, vul_ew: bool) -> tuple[Result, ...]:
    """Every result whose *duplicate* score is exactly (ns, ew) at this vulnerability."""
    if (ns, ew) == (0, 0):
        return (Result(None),)
    return _duplicate_table(vul_ns, vul_ew).get(Pair(ns, ew), ())


def chicago_vulnerability(deal: int, dealer: str | None = None) -> Pair:
    """Vulnerability (1/0 per side) on Chicago deal ``deal`` (1-based, repeating every 4).

    Deal 1: none; 2 and 3: the dealer's side (seed 004) or, without a dealer,
    N/S on 2 and E/W on 3 (the other common convention); 4: both.
    """
    k = (deal - 1) % 4
    if k == 0:
        return Pair(0, 0)
    if k == 3:
        return Pair(1, 1)
    side = side_of(dealer) if dealer else ("ns" if k == 1 else "ew")
    return Pair.one(side, 1)


def chicago_scores(results: list[Result], dealers: Iterable[str] | None = None,
                   style: str = "classic") -> list[Pair]:
    """Each deal's (N/S, E/W) total under Chicago scoring ``style``.

    ``dealers``: each deal's dealer (N/E/S/W); default N, E, S, W in turn.
    """
    if style not in CHICAGO_STYLES:
        raise ValueError(f"style must be one of {CHICAGO_STYLES}, not {style!r}")
    dealer_list = list(dealers) if dealers is not None \
        else [SEATS[i % 4] for i in range(len(results))]
    out: list[Pair] = []
    legs = {s: 0 for s in SIDES}
    for i, (result, dealer) in enumerate(zip(results, dealer_list, strict=True)):
        if i % 4 == 0:
            legs = {s: 0 for s in SIDES}
        vul = chicago_vulnerability(i + 1, dealer)
        if result.contract is None:
            out.append(Pair())
            continue
        decl_vul = bool(vul.of(result.declarer))
        if style == "duplicate":
            out.append(duplicate_entries(result, bool(vul.ns), bool(vul.ew)))
            continue
        score = score_result(result, decl_vul)
        if result.made:
            ts = trick_score(result.contract)
            game_bonus = 500 if decl_vul else 300
            if style == "per_deal":
                bonus = game_bonus if ts >= 100 else (100 if decl_vul else 50)
            else:
                legs[result.declarer] += ts
                if legs[result.declarer] >= 100:
                    bonus = game_bonus
                    legs = {s: 0 for s in SIDES}
                else:
                    bonus = 100 if i % 4 == 3 else 0
            score = score.with_items(Item(result.declarer, bonus, "chicago"))
        out.append(score.total)
    return out
