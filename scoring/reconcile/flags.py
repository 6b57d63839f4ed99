"""The players' mistakes: which the decoder's readings make probable enough to flag.

A mistake is flagged when the readings of the whole sheet that contain it carry most of the
probability (VerdictSettings: the thresholds by kind); one less probable, but not negligible, is
sent to review as "a misread or the players' mistake".  Also the dealer rotation, missing deals
and the winners line.  Each function appends to the ``flags`` and ``review`` lists it is given.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

from scoring.formspec import DEALS, SEATS
from scoring.reconcile import messages
from scoring.reconcile.cells import flatten, is_blank
from scoring.reconcile.check import DealChecker
from scoring.reconcile.dealer import DealerCell, decode_dealers
from scoring.reconcile.decode import DealInput, Hypothesis, Mistake
from scoring.reconcile.settings import DEFAULT, ReconcileSettings
from scoring.sheet import Flag, ReconciledRow, ReviewItem, RowReading


def mistake_flags(hyps: list[Hypothesis], last_deal, flags: list[Flag], review: list[ReviewItem],
                  settings: ReconcileSettings = DEFAULT,
                  doubtful=lambda m: False) -> set[tuple]:
    """Flag a mistake when the decoder's hypotheses give it most of the probability; return
    the flagged mistakes' keys.

    The gate is the posterior, not each cell's own confidence: a mistake's probability is
    the weight of the readings of the whole sheet that contain it, against every reading
    that explains the same inconsistency by misreads instead (other candidates of the cells
    involved, a value the reader did not propose, an unreadable cell), so a number read
    0.8 / 0.2 where both readings break the sums is a mistake whatever was written, while
    one read 0.6 / 0.4 where the second reading fits is read as that.  ``doubtful(mistake)``
    true: the mistake rests on writing too doubtful to flag (rescan_doubtful), a question at most.
    """
    v = settings.verdicts
    mass: dict[tuple, float] = defaultdict(float)
    for h in hyps:
        for key in {m.key for m in h.mistakes}:
            mass[key] += h.weight
    seen: set[tuple] = set()
    flagged: set[tuple] = set()
    for m in [m for h in hyps for m in h.mistakes]:  # best hypothesis first
        if m.key in seen:
            continue
        seen.add(m.key)
        deal = last_deal if m.kind == "total" else m.deal
        p = mass[m.key]
        flag_at = v.copy_flag_at if m.kind == "cumulative" and m.shape == "copy" else \
            v.total_flag_at if m.kind == "total" else \
            v.score_flag_at if m.kind == "score" else v.flag_at
        if p >= flag_at and m in hyps[0].mistakes and not doubtful(m):
            flagged.add(m.key)
            flags.append(Flag(m.kind, messages.mistake(m, deal), deal=deal, side=m.side,
                              column=m.column, written=m.written, expected=m.expected))
        elif p >= v.review_mistake_at:
            # the value the rows show (the arithmetic's) and the written one, each with its
            # probability; a Total row's doubt is named by its cell, as review.total_review names it
            cands = sorted([(m.expected, round(1.0 - p, 4)), (m.written, round(p, 4))],
                           key=lambda vp: -vp[1]) \
                if m.expected is not None else [(m.written, round(p, 4))]
            where = (None, "total_" + (m.side or "ns")) if m.kind == "total" \
                else (deal, m.column or "ns")
            review.append(ReviewItem(*where, cands, messages.misread_or_mistake(m, deal),
                                     kind=m.kind))
    return flagged


def rescan_doubtful(rows: list[RowReading], settings: ReconcileSettings = DEFAULT):
    """On a sheet sent back for a rescan: is a numbers mistake resting on a cell -- its own, the
    deal's score, the cumulative before -- that the reader read less surely than rescan_sure
    (writing that is really doubtful: a question, not a flag)?"""
    return _doubtful(rows, settings.verdicts.rescan_sure, resting_on=True)


def own_doubtful(rows: list[RowReading], settings: ReconcileSettings = DEFAULT):
    """Is a numbers mistake's own cell -- the cumulative or score it names -- read less surely than
    own_sure?  Then the writing there is doubtful, not legible: a question, not a flag (a fax's
    "600" read "0" at 0.3 is as likely the reader's loss as the players' slip)."""
    return _doubtful(rows, settings.verdicts.own_sure, resting_on=False)


def _doubtful(rows: list[RowReading], sure: float, resting_on: bool):
    """The predicate of the two above: a numbers mistake whose own cell (with ``resting_on`` also
    the deal's score and the cumulative before) holds writing read less surely than ``sure``."""
    index = {r.deal: i for i, r in enumerate(rows)}

    def unsure(cell) -> bool:
        return cell is not None and not cell.blank and (
            not cell.candidates or cell.best is None or cell.confidence < sure)

    def doubtful(m: Mistake) -> bool:
        i = index.get(m.deal)
        if sure <= 0 or m.kind not in ("cumulative", "score") or i is None \
                or m.side not in ("ns", "ew"):
            return False
        where = [(i, m.column or m.side)]
        if resting_on:
            where += [(i, m.side)] + ([(i - 1, "cum_" + m.side)] if i else [])
        return any(unsure(rows[j].cells.get(col)) for j, col in where)

    return doubtful


def or_seconded(doubtful, seconded: frozenset):
    """``doubtful`` or a numbers mistake whose expected value a reader sees in its own cell, or
    (a cumulative) whose deal's score adding up to it as written ((row label, column, value) in
    ``seconded``: look.seconded) -- a question, not a flag."""
    def either(m: Mistake) -> bool:
        if doubtful(m):
            return True
        if m.kind not in ("cumulative", "score"):
            return False
        label = str(m.deal)
        if (label, m.column or m.side, m.expected) in seconded:
            return True
        return m.kind == "cumulative" and isinstance(m.written, int) and m.base is not None \
            and (label, m.side, m.written - m.base) in seconded

    return either


def pair_side(m: Mistake, best: Hypothesis, checker: DealChecker, deals: list[int]) -> Mistake:
    """For an impossible pair, the side whose removal lets the rest of the sheet be
    explained (when only one does); otherwise the decoder's guess stands."""
    if m.kind != "score" or m.expected != 0 or m.score is None:
        return m
    i = deals.index(m.deal) if m.deal in deals else None
    if i is None or not best.cells[i] or best.pads[i] is None:
        return m
    ns, ew = best.cells[i]["ns"][0], best.cells[i]["ew"][0]
    if ns is None or ew is None:
        return m
    survives = {}
    for side, pair in (("ns", (0, ew)), ("ew", (ns, 0))):  # side = the one assumed wrong
        states = checker.step(best.pads[i], *pair, False)
        for k in range(i + 1, len(best.cells)):
            if not states:
                break
            c = best.cells[k]
            if not c:
                states = checker.anything()
                continue
            a, b = c["ns"][0], c["ew"][0]
            if a is None or b is None:
                break
            states = checker.step(states, a, b, k == len(best.cells) - 1)
        survives[side] = bool(states)
    if survives["ns"] == survives["ew"]:
        return m
    side = "ns" if survives["ns"] else "ew"
    written, other = (ns, ew) if side == "ns" else (ew, ns)
    return dataclasses.replace(m, side=side, column=side, written=written, score=other)


def dealer_flags(rows: list[RowReading], out_rows: list[ReconciledRow], flags: list[Flag],
                 review: list[ReviewItem], temperature: float = 1.0,
                 settings: ReconcileSettings = DEFAULT) -> None:
    """Dealer column against the rotation (an empty row still took its turn to deal); sets each
    row's dealer in ``out_rows``."""
    v = settings.verdicts
    cells = []
    read: list[tuple[str, float] | None] = []  # the reader's own best seat of each row
    for row in rows:
        cell = row.cells.get("dealer")
        if cell is None or is_blank(cell):
            cells.append(None)
            read.append(None)
            continue
        probs: dict[str, float] = defaultdict(float)
        for value, p in cell.candidates:
            if isinstance(value, str) and value.strip().upper()[:1] in SEATS:
                probs[value.strip().upper()[:1]] += float(p)
        read.append(max(probs.items(), key=lambda sp: sp[1]) if probs else None)
        if probs and temperature != 1.0:
            # a hard sheet's letters are trusted less too (as its numbers): the seats and the
            # unread rest flattened by the sheet's temperature
            rest = max(1.0 - sum(probs.values()), settings.dealer.min_seat_p)
            probs = dict(zip(probs, flatten([*probs.values(), rest], temperature, 1.0)[:-1],
                             strict=True))
        cells.append(DealerCell(dict(probs), settings=settings.dealer) if probs else None)
    if not cells:
        return
    result = decode_dealers(cells, settings.dealer)
    odd = {m.index for m in result.mistakes}
    for i, row in enumerate(rows):
        out_rows[i].values["dealer"] = result.seats[i]
        if result.seats[i] is None and result.expected[i] is not None:
            # not written (players often write only the first dealer): the rotation's, marked so
            out_rows[i].values["dealer"] = result.expected[i]
            out_rows[i].inferred.append("dealer")
        if read[i] and result.seats[i] and result.seats[i] != read[i][0] \
                and read[i][1] >= v.overridden_sure and i not in odd:
            # a letter read surely, shown as the rotation's: say so (never a silent guess)
            review.append(ReviewItem(row.deal, "dealer", [(read[i][0], round(read[i][1], 4))],
                                     messages.dealer_overridden(read[i][0], result.seats[i])))
    for m in result.mistakes:
        i = m.index
        cell = cells[i]
        # a single odd dealer is either the players' slip or a misread of that one cell
        margin = cell.cost(m.expected) - cell.cost(m.written) - settings.dealer.cost_dealer
        p = 1.0 if m.shape == "slip" else 1.0 / (1.0 + math.exp(-margin))
        if p < v.dealer_flag_at:
            if p >= v.review_mistake_at:
                review.append(ReviewItem(rows[i].deal, "dealer",
                                         sorted(cell.probs.items(), key=lambda sp: -sp[1]),
                                         messages.dealer_misread_or_mistake(
                                             rows[i].deal, m.written, m.expected),
                                         kind="dealer"))
            continue
        before = [j for j in range(i)
                  if out_rows[j].values["dealer"] and "dealer" not in out_rows[j].inferred]
        last = (out_rows[before[-1]].values["dealer"], rows[before[-1]].deal) if before else None
        flags.append(Flag("dealer", messages.dealer_out_of_turn(rows[i].deal, m.written,
                                                                m.expected, last),
                          deal=rows[i].deal, column="dealer", written=m.written,
                          expected=m.expected))


def many_empty(empty: list[bool], settings: ReconcileSettings = DEFAULT) -> bool:
    """More empty rows between written ones than players skip: writing the reader did not see."""
    return sum(empty) > settings.verdicts.max_empty_rows


def missing_flags(rows: list[RowReading], deals: list[DealInput], empty: list[bool],
                  flags: list[Flag], review: list[ReviewItem],
                  settings: ReconcileSettings = DEFAULT) -> None:
    """Empty rows, gaps in the deal numbers and a sheet that stops short: missing deals, or (on a
    sheet with many empty rows, or blanks read unsurely) writing the reader did not see."""
    n_empty = sum(empty)
    many = many_empty(empty, settings)
    for i, row in enumerate(rows):
        if empty[i] and many:
            review.append(ReviewItem(row.deal, "ns", [], messages.empty_row(n_empty - 1),
                                     kind="missing_deal"))
        elif empty[i] and not all(cell.p(0) >= settings.verdicts.sure_blank
                                  for cell in deals[i].cells.values() if cell.present):
            review.append(ReviewItem(row.deal, "ns", [], messages.EMPTY_ROW_UNSURE,
                                     kind="missing_deal"))
        elif empty[i]:
            flags.append(Flag("missing_deal", messages.empty_row_missing(row.deal),
                              deal=row.deal, written=None, expected=row.deal))
        if i and row.deal > rows[i - 1].deal + 1:
            gap = rows[i - 1].deal + 1
            flags.append(Flag("missing_deal", messages.gap_missing(gap, rows[i - 1].deal, row.deal),
                              deal=gap, written=None, expected=gap))
    last, played = (rows[-1].deal, len(rows)) if rows else (None, 0)
    if last is not None and (played < DEALS or (played - DEALS) % 2):
        nxt = last + 1
        why = messages.why_more_deals(played, DEALS)
        if many:  # the rows after it may be unseen writing too
            review.append(ReviewItem(nxt, "ns", [], messages.stops_unsure(last, why),
                                     kind="missing_deal"))
        else:
            flags.append(Flag("missing_deal", messages.stops_missing(nxt, last, why),
                              deal=nxt, written=None, expected=nxt))


def winner_flag(winners: str | None, final: dict) -> Flag | None:
    """The flag for named winners without the higher total (or level totals), or None."""
    ns, ew = final.get("ns"), final.get("ew")
    if winners not in ("ns", "ew") or ns is None or ew is None:
        return None
    mine, theirs = (ns, ew) if winners == "ns" else (ew, ns)
    if mine < theirs:
        return Flag("winner", messages.wrong_winners(winners, mine, theirs), side=winners,
                    written=winners, expected="ew" if winners == "ns" else "ns")
    if mine == theirs:
        return Flag("winner", messages.level_totals(ns), side=winners, written=winners,
                    expected=None)
    return None
