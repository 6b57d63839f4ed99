"""Every tuning value of the competition (draw, matching sheets to matches, results), in one frozen
object; each field with a one-line reason.  How a value was measured is in
bench/RESULTS-competition.md, not here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DrawSettings:
    """The random draw of a round (competition/draw.py)."""

    # two pairs of one club or area meet only when no other draw avoids it (the seed's "geographical
    # factors": a knock-out where neighbours knock each other out early is no regional competition)
    same_area_cost: float = 10.0
    # two Open pairs meet in a round only when it cannot be helped (the seed's "grading factors":
    # the strongest pairs kept apart early, as seeding does in any knock-out)
    both_open_cost: float = 1.0


@dataclass(frozen=True)
class MatchingSettings:
    """Which match a sheet is (competition/assign.py) and what its lines name (names.py)."""

    # the names recogniser's frame log-probabilities are divided by this before a string is scored
    # (1: as the model gives them; flattening them favours short names on a badly read line)
    temperature: float = 1.0
    # a line holding something other than the roster's names is taken to be this many nats less
    # likely than the recogniser's own free reading of it (its best path as a string)
    other_names_nats: float = 14.0
    # how often a names line holds something other than its pair's names from the roster (a
    # substitute, a nickname, a line left blank but for scribble)
    names_other: float = 0.02
    # how often a sheet is e-mailed by a member of one of its two pairs (the seed: the winners
    # send it) ...
    sender_in_match: float = 0.9
    # ... and by a member of another pair of the roster (a club-mate scanning it for them); the
    # rest come from addresses no pair has (a club secretary, the organiser forwarding): no clue
    sender_other_pair: float = 0.03
    # how often a match's printed form carries another match's code (a form printed for one match
    # and used for another)
    wrong_form: float = 1e-3
    # the pair printed at N/S on a match's form (the draw's first pair) keeps the N/S columns this
    # often: the names printed in say whose columns are whose, read or not (to swap, the players
    # would cross them out)
    printed_seats: float = 0.995
    # a sheet from no match of the draw (a friendly, a pair not entered) before any clue is seen
    prior_none: float = 0.02
    # a match that already has a sheet gets another (a second sheet of a tie, a better scan) this
    # much less often than a match without one
    second_sheet: float = 0.3
    # a sheet read before its match's round was drawn is that match's this often (a round drawn
    # again, a clock wrong): once later rounds are drawn, an earlier sheet stays in its own round
    before_draw: float = 1e-3
    # the best match is taken without asking when its weight is at least this; below, the sheet's
    # match is a review item
    accept: float = 0.99
    # a winners line names a pair when its weight is at least this; below, it is left unread
    winners_sure: float = 0.9


@dataclass(frozen=True)
class CompetitionSettings:
    draw: DrawSettings = DrawSettings()
    matching: MatchingSettings = MatchingSettings()


DEFAULT = CompetitionSettings()
