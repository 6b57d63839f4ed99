"""Every tuning value of reconciliation, in one frozen, grouped object.

Each step of reconciliation takes its group (``settings.decoder``, ``settings.verdicts``...) as an
argument; nothing reads a module constant a caller cannot change.  Benchmarks vary a value by
building a new object (:meth:`ReconcileSettings.with_values` or ``dataclasses.replace``), never
by monkeypatching.  Probabilities are on the reader's scale; costs are in nats (-log p).  Each
field carries a one-line reason; how a value was measured is in bench/RESULTS-reconcile.md and
bench/HISTORY.md, not here.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TrustSettings:
    """How far the reader's "none of these" is widened before decoding (trust.py)."""

    # "none of these" keeps at least this share in every written cell
    none_floor: float = 0.01
    # ... and this fraction of the doubt about the best value (the truth is unlisted more there)
    none_slope: float = 0.3
    # ... and this multiple of the sheet's doubt: the same confidence is worth less on hard writing
    none_sheet: float = 0.3
    # ... but the sheet's share at most this
    none_sheet_cap: float = 0.05
    # widened candidates less likely than this are left out ...
    min_candidate: float = 0.005
    # ... and so are those after this many ("none of these" included): where the reader could not
    # tell, the value written is often its fifth or sixth candidate
    max_candidates: int = 7
    # a cumulative read at least this sure ...
    sure_at: float = 0.99
    # ... on a sheet whose doubt is below this ...
    sure_doubt: float = 0.15
    # ... keeps only this floor: such cells are almost never misread
    sure_floor: float = 0.002
    # a cell read as 0 (left empty, a dash or a 0) at least this sure ...
    zero_sure_at: float = 0.99
    # ... keeps only this floor on any sheet: it almost never holds a number (1 in 34,000)
    zero_floor: float = 0.001
    # on a sheet whose doubt is below this, a cell read at least runner_best sure ...
    runner_doubt: float = 0.02
    runner_best: float = 0.85
    # ... has its other candidates (and the odds of its one-digit variants) scaled by this: there
    # the reader claims its runner-ups far more often than they are what is written
    runner_scale: float = 0.1


@dataclass(frozen=True)
class CellSettings:
    """How a number cell's candidates become the decoder's options (cells.py)."""

    # a hard sheet's candidates are flattened by the temperature 1 + this x its doubt ...
    sheet_temp: float = 5.0
    # ... but not those of a cell read as 0 (empty, a dash or a 0) at least this sure: a hard
    # sheet makes its digits doubtful, not whether a cell holds a number
    zero_sure_at: float = 0.99
    # a cumulative read as 0 less surely than this holds no number (a speck in an empty row) --
    # 0 turns that off
    speck_below: float = 0.9
    # a misread's shape counts temperature ** -this: on a hard sheet misreads are wilder
    shape_power: float = 1.0
    # a cell whose "none of these" reaches this cannot be read (null in the output)
    unreadable_at: float = 0.5
    # below that, "cannot be read" costs this much more than one unproposed value
    unknown_over_other: float = 0.5
    # "cannot read" explains nothing: a candidate the arithmetic confirms beats it
    unread_cost: float = 3.0
    # an unproposed value: the residual mass spread over the plausible values
    other_spread: float = 4.5
    # probabilities below this count as this (costs stay finite)
    min_p: float = 1e-4
    # candidate values per cell the decoder tries
    max_options: int = 6


@dataclass(frozen=True)
class MisreadSettings:
    """The extra cost of a value the reader did not propose, by how it differs from what the
    reader read (cells.py: a reader loses a leading digit more often than it invents one)."""

    # one digit wrong (where the reader's own odds are unknown)
    shape_digit: float = 0.0
    # one digit left out (1510 read 510)
    shape_lost: float = 1.5
    # one digit more (100 read 1100)
    shape_extra: float = 1.0
    # two neighbouring digits swapped
    shape_swap: float = 1.5
    # anything further off (two digits wrong...)
    shape_far: float = 5.0
    # nothing written (0: a blank, a dash) where the reader read a number and proposed no 0: the
    # reader reads a number into an empty cell more rarely than "far" (none of 19,000 in 600 sheets)
    shape_blank: float = 1.0
    # a one-digit variant costs this many nats per decade the reader finds it less likely ...
    near_slope: float = 1.0
    # ... than 10 ** this times the best reading (above it: less) ...
    near_pivot: float = -5.2
    # ... bounded below ...
    near_min: float = -2.0
    # ... and above
    near_max: float = 3.0
    # a variant the reader did not score is at most 10 ** this as likely as its best reading
    near_floor: float = -8.0
    # where the reader's best reading is at least near_sure_at probable (after the sheet's
    # temperature), price its variants by a steeper line: below 10 ** -4 they are almost never
    # what is written (measured on 0.9 M variants: bench/RESULTS-reconcile.md)
    near_sure: bool = True
    near_sure_at: float = 0.9
    # ... this many nats per decade ...
    near_sure_slope: float = 2.2
    # ... from 0 at 10 ** this ...
    near_sure_pivot: float = -3.7
    # ... up to this
    near_sure_max: float = 6.0


@dataclass(frozen=True)
class DecoderSettings:
    """The beam search over the deals and the players' mistakes it may assume (decode.py)."""

    # prior cost of a wrong cumulative written by the players
    cost_cumulative: float = 6.5
    # ... of a score no result explains
    cost_score: float = 7.0
    # less for one that a 0 too many or too few explains (6000 or 60 for 600): a person's slip,
    # not any number
    zero_discount: float = 2.0
    # ... of a Total row that disagrees with the last cumulatives
    cost_total: float = 6.5
    # ... of a score written in the other side's column (and added where it belongs)
    cost_column: float = 6.5
    # less for the classic slips of a person adding up: a carry (100 or 1000 off), a swap
    carry_discount: float = 0.0
    # less again for two neighbouring digits swapped: a reader would have to misread both digits,
    # each as the other, where a person adding up swaps them in one slip
    swap_discount: float = 1.0
    # extra for a wrong number unlike a person's slip (more like a misread)
    cost_odd_slip: float = 4.0
    # a one-digit variant the reader finds at least 10 ** this as likely as its reading is tried
    # even where the other cell of the pair must then be misread too ...
    near_try_at: float = -3.0
    # ... at most this many a cell
    near_try: int = 4
    # beam nodes kept after each deal
    beam: int = 10
    # ... at most this many per pair of running totals (a misread path is not crowded out)
    per_totals: int = 3
    # readings this much costlier than the best are dropped
    window: float = 10.0
    # ways to read one side's pair of cells kept per running total
    side_options: int = 12
    # readings of the whole sheet kept: their weights give the posteriors
    hypotheses: int = 24


@dataclass(frozen=True)
class DealerSettings:
    """The dealer column under the N -> E -> S -> W rotation (dealer.py)."""

    # prior cost of a dealer out of turn
    cost_dealer: float = 4.0
    # a seat the reader did not propose: the residual spread over the three others
    other_seat_spread: float = math.log(3)
    # seat probabilities below this count as this
    min_seat_p: float = 1e-4


@dataclass(frozen=True)
class VerdictSettings:
    """When a mistake is flagged, and when a reading goes to review (flags.py, review.py)."""

    # a numbers mistake this probable (misreads explain at most the rest) is flagged ...
    flag_at: float = 0.8
    # ... one between this and its flag threshold goes to review instead
    review_mistake_at: float = 0.1
    # a lone miscopied cumulative looks like one misread cell: it needs this much
    copy_flag_at: float = 0.8
    # a Total row is one number against one column: flagged once likelier than a misread
    total_flag_at: float = 0.5
    # ... and so is a score no result explains, or an impossible pair on one deal
    score_flag_at: float = 0.5
    # ... and a dealer out of turn against a misread letter
    dealer_flag_at: float = 0.5
    # an empty row is a missing deal only when its blanks are this sure
    sure_blank: float = 0.9
    # more empty rows than this between written ones: unseen writing, not skipped deals
    max_empty_rows: int = 2
    # a number whose shown value is less probable than this goes to review
    review_below: float = 0.9
    # ... and one the reader read at least this sure as another value ...
    overridden_sure: float = 0.5
    # ... and gave the shown value less than this (a sure reading overridden by the arithmetic)
    overridden_below: float = 0.05
    # ... and a number shown as blank that the reader found blank less surely than this
    blank_review_below: float = 0.6
    # a score shown with a value the reader gave less than this (its best another, or unreadable):
    # the cumulative it fits is named for review (a slip there if the score is as read); 0: never
    filled_score_below: float = 0.5
    # a cumulative flag rests on the cumulative before and the deal's score: one the reader read
    # less surely than this is named for a person to check (the mistake may be there instead)
    support_below: float = 0.5
    # on a sheet sent back for a rescan, a numbers mistake resting on a cell read less surely than
    # this is a question, not a flag (too much of such a scan is misread)
    rescan_sure: float = 0.9
    # on any sheet, a numbers mistake whose own cell the reader read less surely than this is a
    # question, not a flag: that writing is doubtful, not legible (0 turns it off)
    own_sure: float = 0.5


@dataclass(frozen=True)
class WinnersSettings:
    """When the winners line is read clearly enough for a winners mistake to be flagged
    (winners.py); a line read less clearly that seems to name the losers goes to review."""

    # the winners line reads at least this much like the named pair's names ...
    name_match: float = 0.8
    # ... and at most this much like the other pair's
    other_below: float = 0.5
    # ... or, where the other pair's names were not read, at least this much like the named pair's
    name_alone: float = 0.9
    # the named pair is behind on the totals in readings of the sheet this probable in all (the
    # totals rest on every number)
    behind_at: float = 0.8


@dataclass(frozen=True)
class RescanSettings:
    """When a sheet is too faint to read and a clearer scan is asked for (rescan.py)."""

    # a written number whose likeliest value is less probable than this is "not read"
    unread_below: float = 0.5
    # a clearer scan is asked for when at least this share of the written numbers is not read ...
    rescan_share: float = 0.25
    # ... and at least this many
    rescan_min: int = 10
    # on a photo whose writing is too small to read surely (partial.apply_small), a cell of a row
    # after the last one shown goes to review unless read blank at least this surely (the reader's
    # blank_prob: no ink at all)
    small_blank_sure: float = 0.99
    # on a photo where at least this share of the numbers shown is in review (and at least
    # rescan_min of them), the rest are not to be trusted either: the reader misread so much that
    # the arithmetic settles on a coherent wrong story (partial.apply_doubtful); >1 turns it off
    photo_doubt_share: float = 0.3
    # the numbers shown of a deal with cells under glare or too faint go to review too
    # (partial.apply_missing)
    beside_missing: bool = True
    # on a photo, a number the reader could not read (ink, but its likeliest reading "none of
    # these") that the arithmetic filled goes to review (partial.apply_unread)
    photo_unread_filled: bool = True
    # on a sheet sent back for another scan or photo (its ``rescan``), no number in review is shown
    # surer than this (partial.apply_sent_back): on the tuning photos (6400000+, 5900000+) such
    # numbers shown at >= 0.5 were right 58 % of the time (their confidences averaged 0.87)
    sent_back_confidence: float = 0.5
    # ... and on a scan sent back every number shown goes to review: where half of a faint fax's
    # numbers could not be read, those read "surely" were right 63 % of the time (a photo's: 99 %;
    # there partial.apply_doubtful decides)
    scan_sent_back_all: bool = True


@dataclass(frozen=True)
class LookSettings:
    """The second look before a numbers flag (look.py): the second reader's opinion on the cells
    a flag rests on, mixed into the reader's."""

    # the second reader's share of the mixture (as the reader mixes it in where it is unsure:
    # ReaderSettings.second_share); 0 turns the second look off
    share: float = 0.3
    # a value the second reader gives less than this gets none of its share (a reader's crumbs
    # on every one-digit variant would otherwise outweigh the players' slips)
    seen_at: float = 0.02
    # the cells of a "misread or the players' mistake?" question are looked at too (a second
    # reader that confirms the writing makes it a flag)
    questions: bool = False
    # in the cell a numbers flag names, a second reader that gives the reader's best value less
    # than this ...
    doubt_below: float = 0.05
    # ... and reads another number there at least this sure does not share the reading: its
    # share goes to "none of these" (two readers sure of different numbers are no ground for a
    # flag; at 0.5 the second reader's own misreads -- a thin leading 1 lost -- cost legible flags)
    doubt_other: float = 0.8
    # the second reader's reading of the reader's number without its leading 1 (11300 as 1300) is
    # no vote and no doubt: it loses thin leading 1s, the reader seldom invents one
    trust_lost_one: bool = True
    # a value that makes the sheet add up in a cell a numbers flag rests on (its own cell; for a
    # cumulative also the deal's score) that the reader's own candidates give at least this ...
    reader_sees: float = 0.005
    # ... or the second reader at least this, is seen in the writing: it is doubtful, and the flag
    # a "misread or mistake?" question (a person's slip written clearly leaves the readers no such
    # value; 0 turns either off)
    second_sees: float = 0.03
    # the second reader's reading of the reader's number without its leading 1 is a vote for the
    # value a flag expects only where the reader's own candidates give that value at least
    # reader_sees too: alone it is the thin stroke the second reader loses (210168: a carry slip
    # 1100 for 100, read 0.997, "100" to the second reader)
    lost_one_agree: bool = True


def _as(kind: type, value: object) -> object:
    """``value`` (a number, or text from a command line) as a field of type ``kind``: "0",
    "false", "no" and "off" are False for a flag (bool("0") would be True)."""
    if kind is bool and isinstance(value, str):
        text = value.strip().lower()
        if text not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
            raise ValueError(f"not a yes/no value: {value!r}")
        return text in ("1", "true", "yes", "on")
    return kind(float(value)) if kind is int else kind(value)


@dataclass(frozen=True)
class ReconcileSettings:
    """Reconciliation's settings, one group per step."""

    trust: TrustSettings = field(default_factory=TrustSettings)
    cells: CellSettings = field(default_factory=CellSettings)
    misread: MisreadSettings = field(default_factory=MisreadSettings)
    decoder: DecoderSettings = field(default_factory=DecoderSettings)
    dealer: DealerSettings = field(default_factory=DealerSettings)
    verdicts: VerdictSettings = field(default_factory=VerdictSettings)
    winners: WinnersSettings = field(default_factory=WinnersSettings)
    rescan: RescanSettings = field(default_factory=RescanSettings)
    look: LookSettings = field(default_factory=LookSettings)

    def with_values(self, values: dict[str, object]) -> ReconcileSettings:
        """A copy with ``values`` ("group.field" -> value, e.g. "verdicts.flag_at") changed;
        an unknown name raises ValueError; a value is converted to the field's type."""
        groups: dict[str, dict[str, object]] = {}
        names = {f.name for f in dataclasses.fields(self)}
        for name, value in values.items():
            group, _, key = name.partition(".")
            current = getattr(self, group) if group in names else None
            if current is None or key not in {f.name for f in dataclasses.fields(current)}:
                raise ValueError(f"no reconciliation setting {name!r}")
            kind = type(getattr(current, key))
            groups.setdefault(group, {})[key] = _as(kind, value)
        return dataclasses.replace(self, **{g: dataclasses.replace(getattr(self, g), **kv)
                                            for g, kv in groups.items()})

    def values(self) -> dict[str, object]:
        """Every setting as "group.field" -> value."""
        return {f"{g.name}.{f.name}": getattr(getattr(self, g.name), f.name)
                for g in dataclasses.fields(self)
                for f in dataclasses.fields(getattr(self, g.name))}


DEFAULT = ReconcileSettings()
