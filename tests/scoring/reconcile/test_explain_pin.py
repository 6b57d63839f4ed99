"""explain_sheet pinned: seed 001's exact words, and the fast grouping equal to the
plain definition (every explanation from scoring.inverse.explain, grouped and ranked
one by one) on simulated sheets read exactly and with reader noise."""

from __future__ import annotations

import random

import pytest

from samples.synth import MISTAKE_KINDS, Noise, exact_reading, noisy_reading, written_sheet
from scoring import inverse
from scoring.reconcile import reconcile
from scoring.reconcile.check import EVERY_STATE, rules_set
from scoring.reconcile.explain import MAX_LINES, SIDE, SUIT, explain_sheet
from scoring.simulate import random_match
from tests.support import SEED_001, running, sheet

# seed 001's rubber (990 v 1460), as the explanations read on 2026-11-21 before the speed-up
SEED_001_TEXTS = {
    1: ["N/S 100 = E/W down 2 (nobody vulnerable)",
        "N/S 100 = 2NT+1 / 4♣+1 / 4♦+1 / 1NT+2 / … by N/S made (nobody vulnerable)",
        "N/S 100 = 3NT / 5♣ / 5♦ by N/S made; game (nobody vulnerable)"],
    2: ["E/W 830 = 6♥ / 6♠ by E/W made, honours 150 to E/W; game"],
    3: ["E/W 300 = N/S down 3 (both vulnerable)",
        "E/W 300 = N/S down 2, honours 100 to E/W (both vulnerable)",
        "E/W 300 = N/S down 3, honours 150 to E/W (E/W vulnerable)"],
    4: ["N/S 170 = 1♣ / 1♦ by N/S made, honours 150 to N/S",
        "N/S 170 = 2♥x / 2♠x / 3♣x / 3♦x by N/S made; game (E/W vulnerable)"],
    5: ["N/S 60 = 1♥+1 / 1♠+1 / 2♣+1 / 2♦+1 / … by N/S made"],
    6: ["E/W 330 = 1NTx+1 / 2♣x+1 / 2♦x+1 by E/W made",
        "E/W 330 = 3♥+3 / 3♠+3 / 2♥+4 / 2♠+4 / … by E/W made, honours 150 to E/W"],
    7: ["N/S 660 = 4NT+1 / 5NT / 3NT+2 / 2NT+3 / … by N/S made; game; rubber 500 to N/S (2-1) "
        "(both vulnerable)",
        "N/S 660 = 1♥+1 / 1♠+1 / 2♣+1 / 2♦+1 / … by N/S made, honours 100 to N/S; game; "
        "rubber 500 to N/S (2-1) (both vulnerable)",
        "N/S 660 = 3♥xx+1 / 3♠xx+1 / 1NTxx+2 / 2♣xx+2 / … by N/S made; game (E/W vulnerable)"],
}


def test_seed_001_words_pinned():
    result = reconcile(sheet(running(SEED_001)), explain=False)
    got = {deal: [e["text"] for e in items] for deal, items in explain_sheet(result).items()}
    assert got == SEED_001_TEXTS


# ------------------------------------------------- the plain definition, one explanation at a time
def _pair(row):
    ns, ew = row.values.get("ns"), row.values.get("ew")
    return (ns, ew) if isinstance(ns, int) and isinstance(ew, int) else None


def _oddity(e) -> float:
    r = e.result
    old_card = 1.5 if any(v % 100 for v in e.unfinished) else 0.0
    if r.contract is None:
        return old_card
    delta = r.tricks - r.contract.level - 6
    odd = 3.0 * r.contract.doubled + (2.0 if r.honours else 0.0)
    odd += 1.5 * max(0, delta - 1) + 1.0 * max(0, -delta - 2) + 0.1 * r.contract.level
    return odd + old_card


def _key(e) -> tuple:
    r = e.result
    if r.contract is None:
        return ("pass",)
    c = r.contract
    shape = ("made",) if r.tricks >= c.level + 6 else ("down", c.level + 6 - r.tricks, c.doubled)
    return (r.declarer, shape, r.honours, r.honours_side, e.game_made, e.rubber_winner,
            e.rubber_bonus, tuple(e.unfinished))


def _vuls(group) -> list:
    return sorted({(x.before.vulnerable("ns"), x.before.vulnerable("ew")) for x in group})


def _text(ns, ew, group) -> str:
    e, r = group[0], group[0].result
    score = " / ".join(f"{SIDE[s]} {v}" for s, v in (("ns", ns), ("ew", ew)) if v) or "0"
    if r.contract is None:
        text = "passed out"
    elif r.tricks < r.contract.level + 6:
        dbl = ("", " doubled", " redoubled")[r.contract.doubled]
        text = f"{SIDE[r.declarer]}{dbl} down {r.contract.level + 6 - r.tricks}"
    else:
        variants = []
        for x in group:
            c, d = x.result.contract, x.result.tricks - x.result.contract.level - 6
            v = f"{c.level}{SUIT[c.strain]}{('', 'x', 'xx')[c.doubled]}" + (f"+{d}" if d > 0 else "")
            if v not in variants:
                variants.append(v)
        text = " / ".join(variants[:4]) + (" / …" if len(variants) > 4 else "") + \
            f" by {SIDE[r.declarer]} made"
    if r.honours:
        text += f", honours {r.honours} to {SIDE[r.honours_side]}"
    if e.game_made:
        text += "; game"
    if e.rubber_winner:
        text += f"; rubber {e.rubber_bonus} to {SIDE[e.rubber_winner]} (2-{1 if e.rubber_bonus == 500 else 0})"
    if tuple(e.unfinished) != (0, 0):
        text += f"; unfinished-rubber bonus {e.unfinished[0]}/{e.unfinished[1]}"
    vuls = _vuls(group)
    if len(vuls) == 1:
        vul = {(True, True): "both vulnerable", (True, False): "N/S vulnerable",
               (False, True): "E/W vulnerable", (False, False): "nobody vulnerable"}[vuls[0]]
        text += f" ({vul})"
    return f"{score} = {text}"


def _entry(ns, ew, group) -> dict:
    e, r = group[0], group[0].result
    entry = {"text": _text(ns, ew, group), "passed": r.contract is None, "vulnerable": _vuls(group),
             "game": e.game_made, "rubber_winner": e.rubber_winner, "rubber_bonus": e.rubber_bonus,
             "unfinished": {"ns": e.unfinished[0], "ew": e.unfinished[1]}}
    if r.contract is not None:
        contracts = []
        for x in group:
            if str(x.result.contract) not in contracts:
                contracts.append(str(x.result.contract))
        entry.update({"declarer": r.declarer, "made": r.tricks >= r.contract.level + 6,
                      "contracts": contracts[:8], "honours": r.honours, "honours_side": r.honours_side})
    return entry


def plain_explain_sheet(sheet_, rules=None) -> dict[int, list[dict]]:
    """explain_sheet's definition: every explanation built, grouped and ranked one by one."""
    rules = rules_set(rules)
    rows = sheet_.rows
    last = max((i for i, r in enumerate(rows) if _pair(r) is not None), default=-1)
    befores, states = [], inverse.initial_states(rules)
    for i, row in enumerate(rows):
        befores.append(states)
        pair = _pair(row)
        after = inverse.step(states, *pair, i == last, rules) if pair is not None else frozenset()
        states = after or EVERY_STATE
    out, wanted = {}, None
    for i in range(len(rows) - 1, -1, -1):
        pair = _pair(rows[i])
        if pair is None or befores[i] is EVERY_STATE:
            wanted = None
            continue
        exps = [e for b in befores[i] for e in inverse.explain(*pair, b, i == last, rules)]
        good = [e for e in exps if wanted is None or e.after in wanted] or exps
        wanted = frozenset(e.before for e in good) if good else None
        if good:
            groups: dict[tuple, list] = {}
            for e in good:
                groups.setdefault(_key(e), []).append((_oddity(e), e))
            ranked = sorted(groups.values(), key=lambda g: min(o for o, _ in g))[:MAX_LINES]
            out[rows[i].deal] = [_entry(*pair, [e for _, e in sorted(g, key=lambda oe: oe[0])])
                                 for g in ranked]
    return out


def test_plain_definition_gives_seed_001_words():
    result = reconcile(sheet(running(SEED_001)), explain=False)
    got = {d: [e["text"] for e in items] for d, items in plain_explain_sheet(result).items()}
    assert got == SEED_001_TEXTS


@pytest.mark.parametrize("seed", [3, 8, 21, 40])
def test_same_as_plain_definition_on_simulated_sheets(seed):
    rng = random.Random(seed)
    kind = MISTAKE_KINDS[seed % len(MISTAKE_KINDS)] if seed % 2 else None
    written = written_sheet(random_match(rng), rng, mistake=kind, total_row=seed % 2 == 0)
    reading = exact_reading(written) if seed % 4 == 0 else noisy_reading(written, rng, Noise())
    result = reconcile(reading, explain=False)
    fast = explain_sheet(result)
    assert fast == plain_explain_sheet(result)
    assert fast and all(1 <= len(items) <= MAX_LINES for items in fast.values())
