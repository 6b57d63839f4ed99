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

    # the names recogniser's frame log-probabilities are divided by this before a string is scored:
    # its probabilities are over-sure, and two clues' weights are only comparable once tempered
    temperature: float = 2.0
    # a names line is "none of the roster" when the best roster names are this many nats (after
    # tempering) less likely than the recogniser's own free reading of the line
    other_names_nats: float = 6.0
    # how often a names line holds something other than its pair's names from the roster (a
    # substitute, a nickname, a line left blank but for scribble)
    names_other: float = 0.05
    # how often a sheet is e-mailed by a member of one of its two pairs (the seed: the winners
    # send it); the rest come from someone else (a club secretary, the organiser forwarding)
    sender_in_match: float = 0.9
    # how often a match's printed form carries another match's code (a form printed for one match
    # and used for another)
    wrong_form: float = 1e-3
    # a sheet from no match of the draw (a friendly, a pair not entered) before any clue is seen
    prior_none: float = 0.02
    # a match that already has a sheet gets another (a second sheet of a tie, a better scan) this
    # much less often than a match without one
    second_sheet: float = 0.3
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
