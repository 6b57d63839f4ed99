"""From written scores back to results: the inverse of rubber scoring.

:func:`explain` lists every result (contract, doubling, declaring side, tricks,
honours) that gives a deal's written (N/S, E/W) totals on a pad in a given
state, with the state it leads to.  :func:`step` and :func:`check_sequence`
work with *sets* of reachable pad states, so checking a whole sheet is exact
(no history is missed) and fast: there are at most a few hundred distinct pad
states (games 0-1 each, part-scores below 100 each).

Per vulnerability the raw deal entries of every possible result are tabulated
once per process (a memoised pure function, ~0.02 s: each result's score is computed
once per declaring side and vulnerability, and a Result object is made only for the
entries asked about) and then looked up.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from scoring.model import (
    ALL_RULES,
    SIDES,
    STRAINS,
    Contract,
    HouseRules,
    Pair,
    Result,
    other,
)
from scoring.pad import FRESH, PadState, advance, unfinished_bonus
from scoring.points import score_result

# A result's effect on the pad: (side scoring below the line or None, amount).
Effect = tuple[str | None, int]
RulesArg = HouseRules | Iterable[HouseRules]


@dataclass(frozen=True)
class Explanation:
    """One result that explains a deal's written totals, and where it leads."""

    result: Result
    before: PadState
    after: PadState  # FRESH when the deal finished a rubber
    game_made: bool
    rubber_winner: str | None
    rubber_bonus: int
    unfinished: Pair = Pair()  # unfinished-rubber bonus included (last deal only)
    rules: frozenset[HouseRules] = frozenset()  # house rules giving that bonus (last deal)

    def describe(self) -> str:
        """A short readable account, e.g. '4S by N/S making 10; game; rubber 700 to N/S'."""
        r = self.result
        if r.contract is None:
            return "passed out"
        who = "N/S" if r.declarer == "ns" else "E/W"
        need = r.contract.level + 6
        if r.tricks >= need:
            text = f"{r.contract} by {who} making {r.tricks}"
        else:
            text = f"{r.contract} by {who} down {need - r.tricks}"
        if r.honours:
            text += f", honours {r.honours} to {'N/S' if r.honours_side == 'ns' else 'E/W'}"
        if self.game_made:
            text += "; game"
        if self.rubber_winner:
            winner = "N/S" if self.rubber_winner == "ns" else "E/W"
            text += f"; rubber {self.rubber_bonus} to {winner}"
        if self.unfinished != Pair():
            text += f"; unfinished-rubber bonus {self.unfinished.ns}/{self.unfinished.ew}"
        return text


def _rules_set(rules: RulesArg) -> frozenset[HouseRules]:
    return frozenset([rules]) if isinstance(rules, HouseRules) else frozenset(rules)


# A result as plain values, in Result's field order: (contract, declarer, tricks, honours, holder).
Spec = tuple[Contract, str, int, int, str | None]


@lru_cache(maxsize=1)
def _specs() -> tuple[Spec, ...]:
    """Every distinct result of a played deal as a :data:`Spec`, in :func:`all_results`' order
    (built once per process; a Result is made only for what is asked)."""
    out: list[Spec] = []
    for level in range(1, 8):
        for strain in STRAINS:
            honours = [(0, None)] + [(h, s) for h in ((150,) if strain == "NT" else (100, 150))
                                     for s in SIDES]
            for doubled in range(3):
                contract = Contract(level, strain, doubled)
                for side in SIDES:
                    for tricks in range(14):
                        for value, holder in honours:
                            out.append((contract, side, tricks, value, holder))
    return tuple(out)


def all_results() -> Iterable[Result]:
    """Every distinct result of a played deal, declarer given as a side."""
    for spec in _specs():
        yield Result(*spec)


@lru_cache(maxsize=4)
def _plain(declarer: str,
           vulnerable: bool) -> dict[tuple[Contract, int], tuple[tuple[int, int], Effect]]:
    """(contract, tricks) -> (raw N/S, raw E/W) entries without honours, and the pad effect, for
    one declaring side at its vulnerability (each score computed once per process)."""
    out = {}
    for contract, side, tricks, value, _ in _specs():
        if side == declarer and not value:
            s = score_result(Result(contract, side, tricks), vulnerable)
            below = s.below.of(side)
            out[(contract, tricks)] = (tuple(s.total), (side if below else None, below))
    return out


@lru_cache(maxsize=4)
def _table(vul_ns: bool, vul_ew: bool) -> dict[tuple[int, int], dict[Effect, tuple[int, ...]]]:
    """(raw N/S, raw E/W) entries -> {pad effect: the results' indices in :func:`_specs`} for one
    vulnerability, keys, effects and indices in :func:`all_results`' order (honours only add to
    the totals).  :func:`results_of` makes the Results."""
    plain = {"ns": _plain("ns", vul_ns), "ew": _plain("ew", vul_ew)}
    table: dict[tuple[int, int], dict[Effect, list[int]]] = {}
    for i, (contract, side, tricks, value, holder) in enumerate(_specs()):
        (ns, ew), effect = plain[side][(contract, tricks)]
        if value:
            if holder == "ns":
                ns += value
            else:
                ew += value
        by_effect = table.get((ns, ew))
        if by_effect is None:
            by_effect = table[(ns, ew)] = {}
        found = by_effect.get(effect)
        if found is None:
            by_effect[effect] = [i]
        else:
            found.append(i)
    return {k: {e: tuple(rs) for e, rs in v.items()} for k, v in table.items()}


@lru_cache(maxsize=8192)
def _offsets(state: PadState, last: bool,
             rules: frozenset[HouseRules]) -> tuple[tuple[int, int], ...]:
    """Every bonus (N/S, E/W) a deal's totals may include on top of its result (memoised:
    the key holds the rules, so nothing is shared across house rules)."""
    out = {(0, 0)}
    for side in SIDES:
        if state.games(side):
            out.add(tuple(Pair.one(side, 700 if state.games(other(side)) == 0 else 500)))
    if last:
        each = {0} | {v for r in rules for v in (r.partscore_bonus, 300, 300 + r.partscore_bonus)}
        out |= {(a, b) for a in each for b in each}
    return tuple(out)


@lru_cache(maxsize=65_536)
def _outcomes(state: PadState, effect: Effect, offset: tuple[int, int], last: bool,
              rules: frozenset[HouseRules]):
    """(after, winner, bonus, unfinished, rules that fit) when ``effect`` plus the bonuses
    it implies add exactly ``offset`` to the result's entries; else None (memoised)."""
    after, winner, bonus, _ = advance(state, *effect)
    rubber = Pair.one(winner, bonus) if winner else Pair()
    if not last:
        return (after, winner, bonus, Pair(), frozenset()) if rubber == offset else None
    for extra, fits in _unfinished_options(after, rules):
        if rubber.plus(extra) == offset:
            return after, winner, bonus, extra, fits
    return None


@lru_cache(maxsize=8192)
def _unfinished_options(state: PadState, rules: frozenset[HouseRules]):
    """The distinct unfinished bonuses for ``state``, each with the rules giving it."""
    by_bonus: dict[Pair, set[HouseRules]] = {}
    for rule in rules:
        by_bonus.setdefault(unfinished_bonus(state, rule), set()).add(rule)
    return tuple((extra, frozenset(fits)) for extra, fits in by_bonus.items())


@lru_cache(maxsize=4096)
def results_of(vul_ns: bool, vul_ew: bool, key: tuple[int, int],
               effect: Effect) -> tuple[Result, ...]:
    """The results whose raw entries are ``key`` with pad ``effect`` (a deal passed out among
    them for (0, 0) and no effect)."""
    specs = _specs()
    results = tuple(Result(*specs[i]) for i in _table(vul_ns, vul_ew).get(key, {}).get(effect, ()))
    return results + (Result(None),) if key == (0, 0) and effect == (None, 0) else results


class Part(NamedTuple):
    """Results sharing one pad effect and outcome (``results_of(*vul, key, effect)``)."""

    key: tuple[int, int]
    effect: Effect
    after: PadState
    game_made: bool
    rubber_winner: str | None
    rubber_bonus: int
    unfinished: Pair
    rules: frozenset[HouseRules]


@lru_cache(maxsize=8192)
def _unfinished_set(state: PadState, rules: frozenset[HouseRules]) -> frozenset[tuple[int, int]]:
    """The unfinished-rubber bonuses (N/S, E/W) a last deal ending in ``state`` may include
    under one of ``rules`` (memoised per state and rules)."""
    return frozenset(tuple(extra) for extra, _ in _unfinished_options(state, rules))


def explain_parts(ns: int, ew: int, state: PadState, last: bool,
                  rules: frozenset[HouseRules]) -> list[Part]:
    """:func:`explain` with the results left in their shared groups, in the same order."""
    table = _table(state.vulnerable("ns"), state.vulnerable("ew"))
    parts: list[Part] = []
    for offset in _offsets(state, last, rules):
        key = (ns - offset[0], ew - offset[1])
        effects = list(table.get(key, {}))
        if key == (0, 0) and (None, 0) not in effects:
            effects.append((None, 0))
        for effect in effects:
            out = _outcomes(state, effect, offset, last, rules)
            if out is not None:
                game = effect[0] is not None and state.legs(effect[0]) + effect[1] >= 100
                parts.append(Part(key, effect, out[0], game, *out[1:]))
    return parts


def explain(ns: int, ew: int, state: PadState = FRESH, last: bool = False,
            rules: RulesArg = ALL_RULES) -> list[Explanation]:
    """Every result giving exactly (ns, ew) for this deal on a pad in ``state``.

    ``last``: the deal is the match's last, so its totals include the
    unfinished-rubber bonus under one of ``rules`` (a HouseRules or a set).
    A passed-out deal explains (0, 0) (plus any unfinished bonus).
    """
    rules = _rules_set(rules)
    vul = (state.vulnerable("ns"), state.vulnerable("ew"))
    return [Explanation(r, state, p.after, p.game_made, p.rubber_winner, p.rubber_bonus,
                        p.unfinished, p.rules)
            for p in explain_parts(ns, ew, state, last, rules)
            for r in results_of(*vul, p.key, p.effect)]


@lru_cache(maxsize=4)
def _effects(vul_ns: bool, vul_ew: bool) -> dict[tuple[int, int], tuple[Effect, ...]]:
    """(raw N/S, raw E/W) -> the distinct pad effects of the results giving them."""
    table = {k: tuple(v) for k, v in _table(vul_ns, vul_ew).items()}
    table[(0, 0)] = table.get((0, 0), ()) + ((None, 0),)  # passed out
    return table


def prepare_tables() -> None:
    """Build every lookup table now (otherwise the first checks build them lazily)."""
    for vul_ns in (False, True):
        for vul_ew in (False, True):
            _effects(vul_ns, vul_ew)


def _next_states(state: PadState, ns: int, ew: int, reached: set[PadState]) -> None:
    """Add to ``reached`` every state one deal scored (ns, ew) leads to (not the last deal).

    The same transitions as :func:`scoring.pad.advance`, inlined: this is the
    inner loop of the sequence check.
    """
    gn, ge, ln, le = state
    table = _effects(gn > 0, ge > 0)
    for effect in table.get((ns, ew), ()):
        side, amount = effect
        if side is None:
            reached.add(state)
        elif side == "ns":
            if ln + amount < 100:
                reached.add(PadState(gn, ge, ln + amount, le))
            elif gn == 0:
                reached.add(PadState(1, ge, 0, 0))
        elif le + amount < 100:
            reached.add(PadState(gn, ge, ln, le + amount))
        elif ge == 0:
            reached.add(PadState(gn, 1, 0, 0))
    # a deal that wins the rubber: its totals include the bonus
    if gn and ns >= 500:
        for effect in table.get((ns - (700 if ge == 0 else 500), ew), ()):
            if effect[0] == "ns" and ln + effect[1] >= 100:
                reached.add(FRESH)
    if ge and ew >= 500:
        for effect in table.get((ns, ew - (700 if gn == 0 else 500)), ()):
            if effect[0] == "ew" and le + effect[1] >= 100:
                reached.add(FRESH)


def moves(state: PadState, ns: int, ew: int) -> frozenset[PadState]:
    """The states one deal scored (ns, ew) leads to from ``state`` (not the last deal)."""
    reached: set[PadState] = set()
    _next_states(state, ns, ew, reached)
    return frozenset(reached)


def step(states: Iterable[PadState], ns: int, ew: int, last: bool = False,
         rules: RulesArg = ALL_RULES) -> frozenset[PadState]:
    """The pad states reachable after a deal scored (ns, ew) from any of ``states``.

    Empty when no result explains the deal from any of them.  With ``last``
    the totals include the unfinished-rubber bonus under one of ``rules``.
    """
    reached: set[PadState] = set()
    if not last:
        for state in states:
            _next_states(state, ns, ew, reached)
        return frozenset(reached)
    rules = _rules_set(rules)
    for state in states:
        gn, ge, ln, le = state
        table = _effects(gn > 0, ge > 0)
        for offset in _offsets(state, True, rules):
            for side, amount in table.get((ns - offset[0], ew - offset[1]), ()):
                # scoring.pad.advance, inlined (this loop runs thousands of times)
                if side is None:
                    after = state
                elif side == "ns":
                    if ln + amount < 100:
                        after = PadState(gn, ge, ln + amount, le)
                    elif gn:
                        if offset == (700 if ge == 0 else 500, 0):
                            reached.add(FRESH)
                        continue
                    else:
                        after = PadState(1, ge, 0, 0)
                elif le + amount < 100:
                    after = PadState(gn, ge, ln, le + amount)
                elif ge:
                    if offset == (0, 700 if gn == 0 else 500):
                        reached.add(FRESH)
                    continue
                else:
                    after = PadState(gn, 1, 0, 0)
                if offset in _unfinished_set(after, rules):
                    reached.add(after)
    return frozenset(reached)


def initial_states(rules: RulesArg = ALL_RULES) -> frozenset[PadState]:
    """The pad before the first deal: a fresh rubber (the same under every house rule)."""
    return frozenset([FRESH])


@dataclass(frozen=True)
class SequenceCheck:
    ok: bool
    first_unexplained: int | None  # 0-based index of the first deal no history explains
    states: tuple[frozenset[PadState], ...]  # reachable states after each explained deal


def check_sequence(totals: list[tuple[int, int]], rules: RulesArg = ALL_RULES,
                   unfinished_last: bool = True) -> SequenceCheck:
    """Is there a history of results explaining every deal's (ns, ew) totals in order?

    Rubber bonuses are implied by the history; with ``unfinished_last`` the
    last deal includes the unfinished-rubber bonus under one of ``rules`` (by
    default every house rule, so an organiser's choice is never an error).
    """
    rules = _rules_set(rules)
    states = initial_states(rules)
    reached: list[frozenset[PadState]] = []
    for i, (ns, ew) in enumerate(totals):
        states = step(states, ns, ew, unfinished_last and i == len(totals) - 1, rules)
        if not states:
            return SequenceCheck(False, i, tuple(reached))
        reached.append(states)
    return SequenceCheck(True, None, tuple(reached))


def explain_sequence(totals: list[tuple[int, int]], rules: RulesArg = ALL_RULES,
                     unfinished_last: bool = True) -> list[list[Explanation]] | None:
    """For each deal, the explanations that lie on *some* complete history.

    None when the sequence cannot be explained (see :func:`check_sequence`).
    """
    check = check_sequence(totals, rules, unfinished_last)
    if not check.ok:
        return None
    befores = (initial_states(rules),) + check.states[:-1]
    wanted: frozenset[PadState] | None = None  # states the next deal starts from
    out: list[list[Explanation]] = []
    for i in range(len(totals) - 1, -1, -1):
        last = unfinished_last and i == len(totals) - 1
        ns, ew = totals[i]
        good = [e for before in befores[i] for e in explain(ns, ew, before, last, rules)
                if wanted is None or e.after in wanted]
        out.append(good)
        wanted = frozenset(e.before for e in good)
    return out[::-1]
