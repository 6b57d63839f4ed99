"""The results behind each deal's score, in words a club player reads at a glance.

For every deal of a reconciled sheet, the results (contract, tricks, honours,
game and rubber) that give the written score on a pad consistent with the whole
sheet, grouped ("4♥/4♠ by N/S made; game; rubber 500 to N/S") and ranked from
the most ordinary to the most exotic.  Uses the scoring core's inverse.
"""

from __future__ import annotations

from functools import lru_cache

from scoring import inverse
from scoring.recon_core import EVERY_STATE, rules_set

SUIT = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "NT"}
SIDE = {"ns": "N/S", "ew": "E/W"}
MAX_LINES = 3


@lru_cache(maxsize=100_000)
def _explain(ns: int, ew: int, state, last: bool, rules) -> tuple:
    """The scoring core's explanations, memoised (sheets share most (score, state) pairs)."""
    return tuple(inverse.explain(ns, ew, state, last, rules))


def explain_sheet(sheet, rules=None) -> dict[int, list[dict]]:
    """deal -> up to MAX_LINES grouped explanations of its written score.

    Forward: the pad states each deal can start from; backward: only the results that
    lead to a state the next deal can start from (as scoring.inverse.explain_sequence).
    A deal no history explains, or an unknown score, lets every state through.
    """
    rules = rules_set(rules)
    rows = sheet.rows
    last = max((i for i, r in enumerate(rows) if _pair(r) is not None), default=-1)
    befores: list[frozenset] = []
    states = inverse.initial_states(rules)
    for i, row in enumerate(rows):
        befores.append(states)
        pair = _pair(row)
        after = inverse.step(states, *pair, i == last, rules) if pair is not None else frozenset()
        states = after or EVERY_STATE
    out: dict[int, list[dict]] = {}
    wanted: frozenset | None = None
    for i in range(len(rows) - 1, -1, -1):
        pair = _pair(rows[i])
        if pair is None or befores[i] is EVERY_STATE:  # right after an unknown: too vague to say
            wanted = None
            continue
        exps = [e for before in befores[i] for e in _explain(*pair, before, i == last, rules)]
        good = [e for e in exps if wanted is None or e.after in wanted] or exps
        wanted = frozenset(e.before for e in good) if good else None
        if good:
            out[rows[i].deal] = summarise(*pair, good)
    return out


def _pair(row) -> tuple[int, int] | None:
    ns, ew = row.values.get("ns"), row.values.get("ew")
    return (ns, ew) if isinstance(ns, int) and isinstance(ew, int) else None


def _oddity(e) -> float:
    """How unusual a result is (0 = an ordinary contract just made)."""
    r = e.result
    old_card = 1.5 if any(v % 100 for v in e.unfinished) else 0.0  # the 50 part-score bonus
    if r.contract is None:
        return old_card
    delta = r.tricks - r.contract.level - 6
    odd = 3.0 * r.contract.doubled + (2.0 if r.honours else 0.0)
    odd += 1.5 * max(0, delta - 1) + 1.0 * max(0, -delta - 2) + 0.1 * r.contract.level
    return odd + old_card


def _key(e) -> tuple:
    """Results that read the same to a player: same side, honours, game and bonuses;
    for a defeated contract also the same undertricks (the contract hardly matters)."""
    r = e.result
    if r.contract is None:
        return ("pass",)
    c = r.contract
    made = r.tricks >= c.level + 6
    shape = ("made",) if made else ("down", c.level + 6 - r.tricks, c.doubled)
    return (r.declarer, shape, r.honours, r.honours_side, e.game_made, e.rubber_winner,
            e.rubber_bonus, tuple(e.unfinished))


def _variant(e) -> str:
    c, r = e.result.contract, e.result
    delta = r.tricks - c.level - 6
    return f"{c.level}{SUIT[c.strain]}{('', 'x', 'xx')[c.doubled]}" + (f"+{delta}" if delta > 0 else "")


def summarise(ns: int, ew: int, exps: list) -> list[dict]:
    """Group equivalent results and keep the most ordinary few groups."""
    groups: dict[tuple, list] = {}
    for e in exps:
        groups.setdefault(_key(e), []).append((_oddity(e), e))
    ranked = sorted(groups.values(), key=lambda g: min(odd for odd, _ in g))
    return [_entry(ns, ew, [e for _, e in sorted(g, key=lambda oe: oe[0])]) for g in ranked[:MAX_LINES]]


def _what(group: list) -> str:
    e = group[0]
    r = e.result
    if r.contract is None:
        return "passed out"
    who = SIDE[r.declarer]
    if r.tricks < r.contract.level + 6:
        down = r.contract.level + 6 - r.tricks
        dbl = ("", " doubled", " redoubled")[r.contract.doubled]
        return f"{who}{dbl} down {down}"
    variants = list(dict.fromkeys(_variant(x) for x in group))
    shown = " / ".join(variants[:4]) + (" / …" if len(variants) > 4 else "")
    return f"{shown} by {who} made"


def _vulnerability(group: list) -> str:
    seen = {(e.before.vulnerable("ns"), e.before.vulnerable("ew")) for e in group}
    if len(seen) != 1:
        return ""
    vns, vew = seen.pop()
    return "both vulnerable" if vns and vew else "N/S vulnerable" if vns else \
        "E/W vulnerable" if vew else "nobody vulnerable"


def _text(ns: int, ew: int, group: list) -> str:
    e = group[0]
    score = " / ".join(f"{SIDE[s]} {v}" for s, v in (("ns", ns), ("ew", ew)) if v) or "0"
    text = _what(group)
    if e.result.honours:
        text += f", honours {e.result.honours} to {SIDE[e.result.honours_side]}"
    if e.game_made:
        text += "; game"
    if e.rubber_winner:
        lost = 1 if e.rubber_bonus == 500 else 0
        text += f"; rubber {e.rubber_bonus} to {SIDE[e.rubber_winner]} (2-{lost})"
    if tuple(e.unfinished) != (0, 0):
        text += f"; unfinished-rubber bonus {e.unfinished[0]}/{e.unfinished[1]}"
    vul = _vulnerability(group)
    return f"{score} = {text}" + (f" ({vul})" if vul else "")


def _entry(ns: int, ew: int, group: list) -> dict:
    e = group[0]
    r = e.result
    entry = {
        "text": _text(ns, ew, group),
        "passed": r.contract is None,
        "vulnerable": sorted({(x.before.vulnerable("ns"), x.before.vulnerable("ew")) for x in group}),
        "game": e.game_made,
        "rubber_winner": e.rubber_winner,
        "rubber_bonus": e.rubber_bonus,
        "unfinished": {"ns": e.unfinished[0], "ew": e.unfinished[1]},
    }
    if r.contract is not None:
        entry.update({
            "declarer": r.declarer,
            "made": r.tricks >= r.contract.level + 6,
            "contracts": list(dict.fromkeys(str(x.result.contract) for x in group))[:8],
            "honours": r.honours,
            "honours_side": r.honours_side,
        })
    return entry
