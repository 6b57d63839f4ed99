"""The results behind each deal's score, in words a club player reads at a glance.

For every deal of a reconciled sheet, the results (contract, tricks, honours,
game and rubber) that give the written score on a pad consistent with the whole
sheet, grouped ("4♥/4♠ by N/S made; game; rubber 500 to N/S") and ranked from
the most ordinary to the most exotic.  Uses the scoring core's inverse.
"""

from __future__ import annotations

from functools import lru_cache

from scoring import inverse
from scoring.formspec import SIDE_NAMES as SIDE
from scoring.reconcile.check import EVERY_STATE, rules_set

SUIT = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "NT"}
MAX_LINES = 3


@lru_cache(maxsize=4096)
def _result_groups(vul_ns: bool, vul_ew: bool, key: tuple[int, int], effect) -> tuple:
    """The results of one inverse part grouped by how they read: (result key, least
    oddity, first index, ((oddity, index, result, variant, contract), ...) by oddity), in
    order of first index.  Oddities here leave out the unfinished-rubber part (it is the
    same for the whole part)."""
    groups: dict[tuple, list] = {}
    for idx, r in enumerate(inverse.results_of(vul_ns, vul_ew, key, effect)):
        words = (None, None) if r.contract is None else (_variant(r), str(r.contract))
        groups.setdefault(_result_key(r), []).append((_result_oddity(r), idx, r, *words))
    return tuple((rkey, min(x[0] for x in items), items[0][1],
                  tuple(sorted(items, key=lambda x: x[:2])))
                 for rkey, items in groups.items())


@lru_cache(maxsize=4096)
def _part_groups(vul_ns: bool, vul_ew: bool, key: tuple[int, int], effect, tail: tuple) -> tuple:
    """:func:`_result_groups` for a part whose outcome is ``tail`` (game, rubber winner,
    rubber bonus, unfinished bonus): (group key, least oddity, first index, old-card
    oddity, items) each."""
    old_card = 1.5 if any(v % 100 for v in tail[3]) else 0.0  # the 50 part-score bonus
    return tuple((rkey if rkey == ("pass",) else rkey + tail, least + old_card, first, old_card,
                  items)
                 for rkey, least, first, items in _result_groups(vul_ns, vul_ew, key, effect))


@lru_cache(maxsize=20_000)
def _pieces(ns: int, ew: int, state, last: bool, rules) -> tuple:
    """Every explanation of (ns, ew) from ``state``, one piece per inverse part:
    (after, part index, part, state, groups of :func:`_part_groups`)."""
    vul = (state.vulnerable("ns"), state.vulnerable("ew"))
    return tuple(
        (part.after, p, part, state, _part_groups(*vul, part.key, part.effect, (
            part.game_made, part.rubber_winner, part.rubber_bonus, tuple(part.unfinished))))
        for p, part in enumerate(inverse.explain_parts(ns, ew, state, last, rules)))


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
        pieces = [(b, pc) for b, before in enumerate(befores[i])
                  for pc in _pieces(*pair, before, i == last, rules)]
        good = [bp for bp in pieces if wanted is None or bp[1][0] in wanted] or pieces
        wanted = frozenset(pc[3] for _, pc in good) if good else None
        if good:
            out[rows[i].deal] = summarise(*pair, good)
    return out


def _pair(row) -> tuple[int, int] | None:
    ns, ew = row.values.get("ns"), row.values.get("ew")
    return (ns, ew) if isinstance(ns, int) and isinstance(ew, int) else None


def _result_oddity(r) -> float:
    """How unusual a result is (0 = an ordinary contract just made), before the
    unfinished-rubber part."""
    if r.contract is None:
        return 0.0
    delta = r.tricks - r.contract.level - 6
    odd = 3.0 * r.contract.doubled + (2.0 if r.honours else 0.0)
    return odd + 1.5 * max(0, delta - 1) + 1.0 * max(0, -delta - 2) + 0.1 * r.contract.level


def _result_key(r) -> tuple:
    """The part of a group key a result gives: results that read the same to a player have
    the same side, honours and for a defeated contract the same undertricks (the contract
    hardly matters); a passed-out deal reads the same whatever the bonuses."""
    if r.contract is None:
        return ("pass",)
    c = r.contract
    made = r.tricks >= c.level + 6
    shape = ("made",) if made else ("down", c.level + 6 - r.tricks, c.doubled)
    return (r.declarer, shape, r.honours, r.honours_side)


def _variant(r) -> str:
    c = r.contract
    delta = r.tricks - c.level - 6
    over = f"+{delta}" if delta > 0 else ""
    return f"{c.level}{SUIT[c.strain]}{('', 'x', 'xx')[c.doubled]}{over}"


def summarise(ns: int, ew: int, pieces: list) -> list[dict]:
    """Group equivalent results and keep the most ordinary few groups.

    ``pieces``: (before index, piece of :func:`_pieces`) in the order of the explanations;
    groups rank by least oddity, then first appearance; results in a group by oddity,
    then appearance."""
    groups: dict[tuple, list] = {}
    for b, (_, p, part, state, part_groups) in pieces:
        for gkey, least, first, old_card, items in part_groups:
            group = groups.get(gkey)
            where = (b, p, first)
            if group is None:
                groups[gkey] = [least, where, [(b, p, part, state, old_card, items)]]
            else:
                if least < group[0]:
                    group[0] = least
                if where < group[1]:
                    group[1] = where
                group[2].append((b, p, part, state, old_card, items))
    ranked = sorted(groups.values(), key=lambda g: (g[0], g[1]))[:MAX_LINES]
    return [_entry(ns, ew, g[2]) for g in ranked]


def _entry(ns: int, ew: int, members: list) -> dict:
    """One group's words and fields from its members (before index, part index, part,
    state, old-card oddity, items); the most ordinary result first."""
    # members from states of the same vulnerability share one cached items tuple: only its
    # first copy (least before and part index) can come first, the others add nothing
    first: dict[tuple[int, float], tuple] = {}
    for m in members:
        copy = (id(m[5]), m[4])
        if copy not in first or m[:2] < first[copy][:2]:
            first[copy] = m
    items = sorted((odd + old_card, b, p, idx, r, part, variant, contract)
                   for b, p, part, _, old_card, its in first.values()
                   for odd, idx, r, variant, contract in its)
    head, part = items[0][4], items[0][5]
    vuls = {(m[3].vulnerable("ns"), m[3].vulnerable("ew")) for m in members}
    entry = {
        "text": _text(ns, ew, head, part, [x[6] for x in items], vuls),
        "passed": head.contract is None,
        "vulnerable": sorted(vuls),
        "game": part.game_made,
        "rubber_winner": part.rubber_winner,
        "rubber_bonus": part.rubber_bonus,
        "unfinished": {"ns": part.unfinished[0], "ew": part.unfinished[1]},
    }
    if head.contract is not None:
        entry.update({
            "declarer": head.declarer,
            "made": head.tricks >= head.contract.level + 6,
            "contracts": list(dict.fromkeys(x[7] for x in items))[:8],
            "honours": head.honours,
            "honours_side": head.honours_side,
        })
    return entry


def _what(head, variants: list) -> str:
    if head.contract is None:
        return "passed out"
    who = SIDE[head.declarer]
    if head.tricks < head.contract.level + 6:
        down = head.contract.level + 6 - head.tricks
        dbl = ("", " doubled", " redoubled")[head.contract.doubled]
        return f"{who}{dbl} down {down}"
    variants = list(dict.fromkeys(variants))
    shown = " / ".join(variants[:4]) + (" / …" if len(variants) > 4 else "")
    return f"{shown} by {who} made"


def _vulnerability(vuls: set) -> str:
    if len(vuls) != 1:
        return ""
    vns, vew = next(iter(vuls))
    return "both vulnerable" if vns and vew else "N/S vulnerable" if vns else \
        "E/W vulnerable" if vew else "nobody vulnerable"


def _text(ns: int, ew: int, head, part, variants: list, vuls: set) -> str:
    score = " / ".join(f"{SIDE[s]} {v}" for s, v in (("ns", ns), ("ew", ew)) if v) or "0"
    text = _what(head, variants)
    if head.honours:
        text += f", honours {head.honours} to {SIDE[head.honours_side]}"
    if part.game_made:
        text += "; game"
    if part.rubber_winner:
        lost = 1 if part.rubber_bonus == 500 else 0
        text += f"; rubber {part.rubber_bonus} to {SIDE[part.rubber_winner]} (2-{lost})"
    if tuple(part.unfinished) != (0, 0):
        text += f"; unfinished-rubber bonus {part.unfinished[0]}/{part.unfinished[1]}"
    vul = _vulnerability(vuls)
    return f"{score} = {text}" + (f" ({vul})" if vul else "")
