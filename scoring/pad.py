"""The rubber score pad: games, part-scores, vulnerability, rubbers, the match.

:class:`PadState` is everything about the pad that changes the score of a later
deal: games each side has in the current rubber and each side's part-score
("legs") below the line in the current game.  :func:`play` is the pure
transition for one deal; :func:`score_match` runs a whole match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from scoring.formspec import DEALS
from scoring.model import DEFAULT_RULES, SIDES, HouseRules, Pair, Result, other
from scoring.points import DealScore, Item, score_result

GAME = 100
MATCH_DEALS = DEALS  # a match is the deals printed on the summary sheet


class PadState(NamedTuple):
    """Games in the current rubber and part-scores in the current game, per side.

    A named tuple (not a dataclass) because the sequence check builds and
    hashes many of them.
    """

    games_ns: int = 0
    games_ew: int = 0
    legs_ns: int = 0
    legs_ew: int = 0

    def games(self, side: str) -> int:
        return self.games_ns if side == "ns" else self.games_ew

    def legs(self, side: str) -> int:
        return self.legs_ns if side == "ns" else self.legs_ew

    def vulnerable(self, side: str) -> bool:
        return self.games(side) > 0

    @property
    def fresh(self) -> bool:
        """True at the start of a rubber (nothing that carries forward)."""
        return self == FRESH


FRESH = PadState()


def rubber_bonus(loser_games: int) -> int:
    """700 for a two-game rubber, 500 for a three-game one."""
    return 700 if loser_games == 0 else 500


def advance(state: PadState, side: str | None,
            below: int) -> tuple[PadState, str | None, int, Pair]:
    """Add ``below`` trick points for ``side`` to the pad.

    Returns (new state, side that won the rubber or None, rubber bonus,
    games each side has in this rubber after the deal).  A game clears both
    sides' part-scores; a finished rubber starts a fresh pad.
    """
    games = Pair(state.games_ns, state.games_ew)
    if side is None or below == 0:
        return state, None, 0, games
    legs = state.legs(side) + below
    if legs < GAME:
        if side == "ns":
            return PadState(state.games_ns, state.games_ew, legs, state.legs_ew), None, 0, games
        return PadState(state.games_ns, state.games_ew, state.legs_ns, legs), None, 0, games
    games = games.plus(Pair.one(side, 1))
    if games.of(side) == 2:
        return FRESH, side, rubber_bonus(games.of(other(side))), games
    return PadState(games.ns, games.ew, 0, 0), None, 0, games


def unfinished_bonus(state: PadState, rules: HouseRules = DEFAULT_RULES) -> Pair:
    """The unfinished-rubber bonus each side scores when play stops in ``state``.

    See :class:`HouseRules` for how a game or part-score held by *both* sides
    is treated under each option.
    """
    out = []
    for side in SIDES:
        mine_g, their_g = state.games(side), state.games(other(side))
        mine_l, their_l = state.legs(side), state.legs(other(side))
        if rules.unfinished == "each":
            game, part = mine_g > 0, mine_l > 0
        elif rules.unfinished == "ahead":
            game, part = mine_g > their_g, mine_l > their_l
        else:  # "laws": only one side has it
            game, part = mine_g > 0 and their_g == 0, mine_l > 0 and their_l == 0
        out.append(300 * game + rules.partscore_bonus * part)
    return Pair(*out)


@dataclass(frozen=True)
class DealOutcome:
    """One deal played on the pad."""

    result: Result
    before: PadState
    after: PadState  # FRESH when this deal finished a rubber
    score: DealScore  # every item, rubber (and unfinished) bonus included
    games: Pair  # games in this deal's rubber after the deal (2 for a rubber's winner)
    rubber_winner: str | None = None
    rubber_bonus: int = 0

    @property
    def game_made(self) -> bool:
        return self.games != Pair(self.before.games_ns, self.before.games_ew)


def play(state: PadState, result: Result) -> DealOutcome:
    """Score ``result`` on the pad in ``state`` (pure)."""
    decl = result.declarer
    score = score_result(result, state.vulnerable(decl))
    below = score.below.of(decl) if result.made else 0
    after, winner, bonus, games = advance(state, decl if below else None, below)
    if winner:
        score = score.with_items(Item(winner, bonus, "rubber"))
    return DealOutcome(result, state, after, score, games, winner, bonus)


@dataclass(frozen=True)
class DealLine:
    """One deal of a scored match, as the summary sheet records it."""

    deal: int  # 1-based
    outcome: DealOutcome
    rubber: int  # 1-based number of the rubber the deal was played in
    unfinished: Pair = Pair()  # unfinished-rubber bonus added on this (last) deal
    cumulative: Pair = Pair()

    @property
    def score(self) -> DealScore:
        if self.unfinished == Pair():
            return self.outcome.score
        extra = [Item(s, self.unfinished.of(s), "unfinished") for s in SIDES]
        return self.outcome.score.with_items(*extra)

    @property
    def total(self) -> Pair:
        return self.score.total

    def to_json(self) -> dict:
        """The object ``rubberscan score --format json`` prints (CONTRACT.md).

        ``above`` includes the rubber and unfinished bonuses; ``games`` counts
        games in the rubber this deal was played in, after the deal.
        """
        score, before = self.score, self.outcome.before
        total = score.total
        return {
            "deal": self.deal,
            "ns": total.ns,
            "ew": total.ew,
            "below": score.below.as_dict(),
            "above": score.above.as_dict(),
            "vulnerable": {s: before.vulnerable(s) for s in SIDES},
            "games": self.outcome.games.as_dict(),
            "rubber_bonus": self.outcome.rubber_bonus,
        }


@dataclass(frozen=True)
class MatchScore:
    lines: tuple[DealLine, ...]
    final_state: PadState  # the pad after the last deal (before any unfinished bonus)

    @property
    def totals(self) -> Pair:
        return self.lines[-1].cumulative if self.lines else Pair()

    @property
    def winner(self) -> str | None:
        """"ns"/"ew" by the higher total, None on a tie."""
        t = self.totals
        return None if t.ns == t.ew else ("ns" if t.ns > t.ew else "ew")

    @property
    def complete(self) -> bool:
        """A finished match: 30 deals, or 30 + 2k after ties, with a winner."""
        n = len(self.lines)
        return n >= MATCH_DEALS and (n - MATCH_DEALS) % 2 == 0 and self.winner is not None


def score_match(
    results: list[Result], rules: HouseRules = DEFAULT_RULES, unfinished: bool = True
) -> MatchScore:
    """Play every result in order (a new rubber after each finished one).

    With ``unfinished`` the last deal also carries the unfinished-rubber bonus.
    """
    lines: list[DealLine] = []
    state, rubber, cum = FRESH, 1, Pair()
    for i, result in enumerate(results):
        outcome = play(state, result)
        extra = Pair()
        if unfinished and i == len(results) - 1:
            extra = unfinished_bonus(outcome.after, rules)
        line = DealLine(i + 1, outcome, rubber, extra)
        cum = cum.plus(line.total)
        lines.append(DealLine(i + 1, outcome, rubber, extra, cum))
        if outcome.rubber_winner:
            rubber += 1
        state = outcome.after
    return MatchScore(tuple(lines), state)


@dataclass(frozen=True)
class MatchOutcome:
    """Who won a match, judged from the per-deal totals alone (seed 000's format)."""

    winner: str | None  # "ns"/"ew", None while undecided
    totals: Pair  # after the deciding deal (or all deals when undecided)
    decided_at: int | None  # deals played when the match was decided: 30, 32, 34...
    extra_deals: int  # deals played after the match was decided (should be 0)


def match_outcome(deal_totals: list[tuple[int, int]], deals: int = MATCH_DEALS) -> MatchOutcome:
    """The pair ahead after ``deals`` deals wins; on a tie two more deals, then two more..."""
    cum = Pair()
    for n, (ns, ew) in enumerate(deal_totals, start=1):
        cum = cum.plus((ns, ew))
        if n >= deals and (n - deals) % 2 == 0 and cum.ns != cum.ew:
            winner = "ns" if cum.ns > cum.ew else "ew"
            return MatchOutcome(winner, cum, n, len(deal_totals) - n)
    return MatchOutcome(None, cum, None, 0)
