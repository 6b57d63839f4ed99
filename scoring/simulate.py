"""Random but realistic rubber-bridge matches, for sample sheets and tests.

Seeded by the caller's ``random.Random``; nothing global.  Rough frequencies
per deal: 3% passed out; of the rest about 53% part-score attempts, 39% game
attempts (at the level the pad needs), 3% slams, 5% doubled sacrifices; 6% of
other contracts doubled and 1% redoubled; honours on about 10% of deals.  Most
contracts make, some with overtricks, about a quarter go down.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scoring.model import DEFAULT_RULES, SEATS, Contract, HouseRules, Pair, Result, other, side_of
from scoring.pad import FRESH, GAME, MATCH_DEALS, MatchScore, PadState, advance, score_match
from scoring.points import trick_score

_STRAIN_WEIGHTS = {"C": 14, "D": 14, "H": 22, "S": 23, "NT": 27}
_MADE_OFFSETS = {-3: 2, -2: 6, -1: 18, 0: 42, 1: 22, 2: 8, 3: 2}
_DOUBLED_OFFSETS = {-3: 5, -2: 15, -1: 30, 0: 35, 1: 12, 2: 3}
_SACRIFICE_OFFSETS = {-1: 20, -2: 40, -3: 30, -4: 10}


@dataclass(frozen=True)
class SimulatedDeal:
    deal: int  # 1-based
    dealer: str  # N/E/S/W
    result: Result
    ns: int  # each side's entry on the summary sheet for this deal
    ew: int
    cum_ns: int
    cum_ew: int


@dataclass(frozen=True)
class SimulatedMatch:
    deals: tuple[SimulatedDeal, ...]
    score: MatchScore  # the full pad, for anyone who needs the detail
    rules: HouseRules

    @property
    def totals(self) -> Pair:
        return self.score.totals

    @property
    def winner(self) -> str | None:
        return self.score.winner


def _pick(rng: random.Random, weights: dict) -> object:
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _level_for(strain: str, target: int, doubled: int = 0) -> int:
    """The lowest level whose trick score reaches ``target`` (at most 7)."""
    for level in range(1, 8):
        if trick_score(Contract(level, strain, doubled)) >= target:
            return level
    return 7


def random_result(rng: random.Random, state: PadState = FRESH) -> Result:
    """One plausible deal result on a pad in ``state``."""
    if rng.random() < 0.03:
        return Result(None)
    seat = rng.choice(SEATS)
    side = side_of(seat)
    strain = _pick(rng, _STRAIN_WEIGHTS)
    doubled = 0
    kind = rng.random()
    if kind < 0.53:  # part-score
        level = rng.choice((1, 2, 2, 3, 3)) + (strain in ("C", "D") and rng.random() < 0.2)
        offsets = _MADE_OFFSETS
    elif kind < 0.92:  # game, bid to what the pad needs
        level = _level_for(strain, GAME - state.legs(side))
        offsets = _MADE_OFFSETS
    elif kind < 0.95:  # slam
        level = 7 if rng.random() < 0.15 else 6
        offsets = {k: v for k, v in _MADE_OFFSETS.items() if k <= 7 - level}
    else:  # doubled sacrifice
        level = min(7, _level_for(strain, GAME) + rng.choice((0, 0, 1)))
        doubled, offsets = 1, _SACRIFICE_OFFSETS
    if kind < 0.95:
        r = rng.random()
        doubled = 2 if r < 0.01 else 1 if r < 0.07 else 0
        if doubled:
            offsets = _DOUBLED_OFFSETS
    tricks = min(13, max(0, level + 6 + _pick(rng, offsets)))
    honours, holder = 0, None
    if rng.random() < (0.04 if strain == "NT" else 0.12):
        honours = 150 if strain == "NT" or rng.random() < 0.2 else 100
        holder = side if rng.random() < 0.75 else other(side)
    return Result(Contract(level, strain, doubled), side, tricks, honours, holder, seat)


def random_match(
    rng: random.Random, deals: int = MATCH_DEALS, rules: HouseRules = DEFAULT_RULES
) -> SimulatedMatch:
    """A whole match: ``deals`` deals (two more at a time while tied), dealer
    rotating N->E->S->W from a random start, the unfinished-rubber bonus on the
    last deal."""
    start = rng.randrange(4)
    results: list[Result] = []
    state = FRESH
    while True:
        while len(results) < deals:
            result = random_result(rng, state)
            results.append(result)
            below = trick_score(result.contract) if result.made else 0
            state = advance(state, result.declarer, below)[0]
        match = score_match(results, rules, unfinished=True)
        if match.winner is not None:
            break
        deals += 2
    rows = []
    for line in match.lines:
        total, cum = line.total, line.cumulative
        rows.append(SimulatedDeal(line.deal, SEATS[(start + line.deal - 1) % 4],
                                  line.outcome.result, total.ns, total.ew, cum.ns, cum.ew))
    return SimulatedMatch(tuple(rows), match, rules)
