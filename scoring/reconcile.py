"""Reconcile a sheet's candidate readings with the rules and the sheet's own arithmetic.

:func:`reconcile` chooses the most probable reading of all cells together
(scoring/recon_decode.py for the numbers, scoring/recon_dealer.py for the dealer
column), flags the players' mistakes (only when misreads explain the inconsistency
with at most 20 % of the probability) and sends what stays uncertain to ``review``.  Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from functools import lru_cache

from scoring.legibility import rescan_advice
from scoring.partial import apply_missing
from scoring.recon_check import CachedChecker, DealChecker, default_checker
from scoring.recon_dealer import COST_DEALER, DealerCell, decode_dealers
from scoring.recon_decode import (
    MAX_OPTIONS,
    MIN_P,
    OTHER_SPREAD,
    CellModel,
    DealInput,
    Hypothesis,
    Mistake,
    Option,
    decode,
)
from scoring.recon_trust import trusted
from scoring.sheet import (
    NUMBER_COLUMNS,
    CellReading,
    Flag,
    ReconciledRow,
    ReconciledSheet,
    ReviewItem,
    RowReading,
    SheetReading,
)

MATCH_DEALS = 30
FLAG_AT = 0.8  # a numbers mistake this probable (misreads explain at most the rest) is flagged ...
REVIEW_MISTAKE_AT = 0.1  # ... one between this and FLAG_AT goes to review instead
# A single miscopied cumulative (later rows right again) looks exactly like one misread cell, the
# commonest reader error; it needs more evidence than a slip carried forward, which no single
# misread can mimic.  (0.9 until round 6; with a hard sheet's candidates flattened, SHEET_TEMP below,
# 0.8 flagged more planted copies and no more mistake-free sheets: bench/RESULTS-reconcile.md.)
COPY_FLAG_AT = 0.8
# A Total row that disagrees with the last cumulatives is flagged once a mistake is more probable
# than a misread (0.8 until round 13): a planted wrong total was read 0.90-0.97 sure and still sent to
# review at 0.58-0.73, while no mistake-free sheet of 626 gets a total flag even at 0.4
# (bench/RESULTS-reconcile.md, round 14).  Checking it is one number against one column.
TOTAL_FLAG_AT = 0.5
# ... and so is a score no result explains, or an impossible pair on one deal (0.8 until round 15:
# two planted scores, read 0.83-0.89 sure, stayed in review at 0.78; 879 sheets at 0.8 / 0.7 / 0.6 /
# 0.5: planted flagged 295 / 297 / 297 / 297, false-flagged mistake-free sheets 6 at each;
# bench/RESULTS-reconcile.md, round 15).  A cumulative slip carried forward stays at FLAG_AT:
# 0.7 / 0.6 / 0.5 flag 1 / 2 / 3 more planted slips and 2 more mistake-free sheets.
SCORE_FLAG_AT = 0.5
DEALER_FLAG_AT = 0.5  # a dealer out of turn more probable than a misread letter is flagged
SURE_BLANK = 0.9  # an empty row is a missing deal only when its blanks are this sure
# ... and only when the sheet has at most this many empty rows between written ones: players skip
# a deal now and then, a sheet with many empty rows inside it was read badly (a faint fax)
MAX_EMPTY_ROWS = 2
REVIEW_BELOW = 0.9  # a number whose chosen value is less probable than this goes to review
# ... and so does one the reader read at least OVERRIDDEN_SURE as another value and gave the chosen
# one less than OVERRIDDEN_BELOW (a sure reading overridden by the arithmetic; round 7: 0.9 and
# 0.02, bench/RESULTS-reconcile.md; round 9's networks read seed 100063's miscopy 0.84 sure and
# the arithmetic's value 0.023, which 0.8 and 0.05 catch for +0.08 review items a sheet; round 15:
# 0.5, so that seed 90049's miscopy -- 20 read 0.57, the arithmetic's 120 at 0.023, repaired to 120
# without a word -- is reviewed too: every planted mistake not flagged on 879 sheets is now in
# review, for +0.05-0.10 review items a sheet; the dealer letters use it as well)
OVERRIDDEN_BELOW = 0.05
OVERRIDDEN_SURE = 0.5
# ... and so does a number shown as blank that the reader found blank less surely than this: on a
# faint or misfound sheet the reader's blanks are only 0.5 sure (ocr/read.py SUSPECT_BLANK_PROB)
# and a row of zeros is consistent with anything unknown (seed 80000: 50 such zeros, 44 wrong)
BLANK_REVIEW_BELOW = 0.6
# On a sheet whose numbers the reader found hard (mean doubt about the best value of its written
# number cells), a sure-looking reading is wrong far more often than on an easy one
# (bench/RESULTS-read.md), so there a misread must be able to explain an inconsistency that would
# otherwise be flagged: the cells' candidates are flattened by the temperature 1 + SHEET_TEMP x that
# doubt (mean doubt 0.1: 1.8) before decoding.  The reader's own probabilities stay as it gave
# them.  Chosen with the whole product on 580 generated sheets (bench/RESULTS-reconcile.md, round 6:
# 6.0); re-swept for round 10's networks (a further fine-tune) on 879 sheets: 6 -> 280 planted
# flagged / 14 false-flagged mistake-free sheets, 7 -> 278 / 13, 8 -> 276 / 11; and for round 11's
# reader (the digit network's second opinion: fewer sure misreads): 8 -> 276 / 6, 6 -> 281 / 9,
# 5 -> 282 / 11, 4 -> 283 / 12.  With round 13's reader (the digit network asked below 0.999: fewer
# sure misreads) 6 -> 282 / 7, 5 -> 284 / 7, 4.5 -> 284 / 8, 4 -> 286 / 8, 3 -> 288 / 13.
SHEET_TEMP = 5.0
# How much a value's shape (recon_decode.shape_cost: a digit lost, two swapped, ...) counts on a
# sheet of temperature t: t ** -SHAPE_POWER.  On a faint fax a reader loses and invents digits
# freely; at 0 the shapes counted fully there and put 2 more false flags on such sheets (879 sheets:
# planted flagged 293 both ways, false-flagged mistake-free sheets 8 vs 6; at 2: 290 and 6).
SHAPE_POWER = 1.0
# A cell whose best candidate is "none of these" but whose proposals together outweigh it (its
# "none" below this) was read, just not as a value the reader proposed: the arithmetic may supply
# the value (a review item says so).  "Cannot be read" stays possible there, costing a little more
# than one unproposed value, so that it wins only where it saves a players' mistake (two
# neighbouring cells both misread).  Priced far above that, as first tried, it put slips on such
# sheets (false-flagged sheets 13 of 626 against 11; bench/RESULTS-reconcile.md).  A cell whose
# "none" reaches UNREADABLE_AT cannot be read: null in the output.
UNREADABLE_AT = 0.5
UNKNOWN_OVER_OTHER = 0.5
UNREAD_COST = 3.0  # "cannot read" explains nothing: a candidate the arithmetic confirms beats it
SIDE_NAMES = {"ns": "N/S", "ew": "E/W"}
SEAT_ORDER = ("N", "E", "S", "W")

@lru_cache(maxsize=16)
def checker_for(rules=None) -> DealChecker:
    """The memoised rule check for ``rules`` (shared between sheets: a pure function)."""
    return CachedChecker(default_checker(rules))


def reconcile(reading: SheetReading, rules=None, checker: DealChecker | None = None,
              explain: bool = True) -> ReconciledSheet:
    """The most probable consistent reading of ``reading``, with its flags and review list.

    ``rules`` are the scoring core's house rules (None: accept every house rule for
    the unfinished-rubber bonus); ``checker`` overrides the rule check (tests);
    ``explain`` adds the results behind each deal's score (scoring/explain.py, the
    slow part: 0.2-1 s a sheet, less once its memo is warm).
    """
    checker = checker or checker_for(rules)
    rescan = rescan_advice(reading)  # on the reader's own candidates, before they are widened
    reading = trusted(reading)  # "none of these" as wide as reconciliation takes it
    rows = _trim(reading.rows)
    empty = [_is_empty(r) for r in rows]
    temperature = sheet_temperature(reading)
    deals = [DealInput(r.deal, {c: cell_model(r.cells.get(c), temperature) for c in NUMBER_COLUMNS}, skip=e)
             for r, e in zip(rows, empty, strict=True)]
    totals = _total_models(reading.total, temperature)
    hyps = decode(deals, totals, checker) if rows else []
    best = hyps[0] if hyps else None

    flags: list[Flag] = []
    review: list[ReviewItem] = []
    last_deal = rows[-1].deal if rows else None
    flagged: set[tuple] = set()
    if best is not None:
        best.mistakes = [_pair_side(m, best, checker, [r.deal for r in rows]) for m in best.mistakes]
        flagged = _mistake_flags(hyps, last_deal, flags, review)
    shown = _shown(hyps, flagged)
    out_rows = _rows(rows, empty, hyps, review, shown)
    _dealer_flags(rows, empty, out_rows, flags, review, temperature)
    _missing_flags(rows, deals, empty, flags, review)
    totals_out, final = _totals(shown, out_rows, empty)
    _total_review(hyps, shown, reading.total, review)
    winners = reading.winners_hint if reading.winners_hint in ("ns", "ew") else None
    winner_flag = _winner_flag(winners, final)
    if winner_flag is not None and rescan is None:
        flags.append(winner_flag)
    elif winner_flag is not None:
        # too much of the sheet unread (rescan advice): its totals are guesses, the winners a question
        review.append(ReviewItem(None, "winners", [(winners, 1.0)],
                                 f"winners line names {SIDE_NAMES[winners]}; the numbers read so far "
                                 f"give {final['ns']} (N/S) v {final['ew']} (E/W), but too many are unsure to say"))
    if winners is None and final["ns"] is not None and final["ew"] is not None \
            and final["ns"] != final["ew"]:
        winners = "ns" if final["ns"] > final["ew"] else "ew"
    if reading.winners_hint not in ("ns", "ew") and rows:
        # the named winners cannot be checked: a person reads the line (a winners mistake would
        # otherwise go unnoticed)
        text = (reading.winners_text or "").strip()
        review.append(ReviewItem(None, "winners", [(winners, 1.0)] if winners else [],
                                 (f"winners line read as {text!r}" if text else "winners line not read")
                                 + ": which pair does it name?"
                                 + (f" (the totals make {SIDE_NAMES[winners]} the winners)" if winners else "")))
    review = _one_per_cell(review)
    flags.sort(key=lambda f: (f.deal if f.deal is not None else 10**6, f.kind, f.side or ""))
    review.sort(key=lambda r: (r.deal if r.deal is not None else 10**6, r.column))
    sheet = ReconciledSheet(
        source=reading.source, rows=out_rows, totals=totals_out, names=dict(reading.names),
        winners=winners, flags=flags, review=review, form=reading.form,
        meta={"hypotheses": len(hyps), "arithmetic_totals": final}, rescan=rescan,
    )
    if explain:
        _add_explanations(sheet, shown, rules)
    return apply_missing(reading, sheet)  # a picture that does not show all of the sheet (issue 30)


# ----------------------------------------------------------------------------- input
def sheet_doubt(reading: SheetReading) -> float:
    """How hard the reader found this sheet's numbers: the mean of 1 - (probability of the best
    value) over its written number cells (deal rows and Total row)."""
    rows = reading.rows + ([reading.total] if reading.total is not None else [])
    doubts = [min(max(1.0 - max((float(p) for v, p in cell.candidates if v is not None), default=0.0), 0.0), 1.0)
              for row in rows for col, cell in row.cells.items()
              if col in NUMBER_COLUMNS and cell.candidates and not _is_blank(cell)]
    return sum(doubts) / len(doubts) if doubts else 0.0


def sheet_temperature(reading: SheetReading) -> float:
    """The temperature that flattens this sheet's number candidates (SHEET_TEMP)."""
    return 1.0 + SHEET_TEMP * sheet_doubt(reading)


def _values(candidates) -> tuple[dict[object, float], float]:
    """A number cell's candidates as value -> probability (None: "none of these"), and the total
    probability listed."""
    merged: dict[object, float] = defaultdict(float)
    listed = 0.0
    for value, p in candidates:
        v, p = _as_int(value), max(float(p), 0.0)
        listed += p
        if v is not None and v < 0:
            continue
        if v is not None and v % 10:
            # every score, so every cumulative, ends in 0: a last digit read as 6 or 7 is a 0
            # misread (47 -> 40); a lone digit lost its 0 (4 -> 40)
            v = v - v % 10 if v >= 10 else v * 10
        merged[v] += p
    return merged, listed


def cell_model(cell: CellReading | None, temperature: float = 1.0) -> CellModel:
    """Turn a number cell's candidates into decoder options (cost = -log p); a written cell's
    candidates flattened by ``temperature`` first (same order, same total)."""
    if cell is None:
        return CellModel([Option(None, 0.0)], other_cost=0.0, present=False)
    candidates = cell.candidates
    if temperature != 1.0 and candidates and not _is_blank(cell):
        flat = _flatten([float(p) for _, p in candidates], temperature, sum(max(float(p), 0.0) for _, p in candidates))
        candidates = [(v, q) for (v, _), q in zip(candidates, flat, strict=True)]
    merged, listed = _values(candidates)
    kept = sum(merged.values())
    if kept <= 0:
        merged, kept = {0 if cell.blank and not cell.candidates else None: 1.0}, 1.0
    total = min(listed, 1.0) if listed > 0 else 1.0
    merged = {v: p * total / kept for v, p in merged.items()}
    none_p = merged.get(None, 0.0)
    extra = 0.0
    if none_p and any(v is not None and p > none_p for v, p in merged.items()):
        # a minor None is the reader's "none of these" (as recon_trust widened it): some value it
        # did not propose, as likely the one the arithmetic implies as any other -- not a cell
        # that cannot be read
        del merged[None]
        total -= none_p
    elif none_p and none_p < UNREADABLE_AT:
        # the proposals together outweigh "none of these": its mass is some other value's too,
        # and "cannot be read" costs a little more than one such value
        total -= none_p
        extra = OTHER_SPREAD - UNREAD_COST + UNKNOWN_OVER_OTHER
    ranked = sorted(merged.items(), key=lambda vp: -vp[1])[:MAX_OPTIONS]
    options = [Option(v, -math.log(max(p, MIN_P)) + (UNREAD_COST + extra if v is None and len(ranked) > 1 else 0.0))
               for v, p in ranked if p >= MIN_P]
    other = -math.log(max(1.0 - total, MIN_P)) + OTHER_SPREAD
    # the shapes were measured where the reader read a number (its best proposal no "none of
    # these"): where it could not, its proposals say little about what is written
    read = tuple(sorted(o.value for o in options if o.value)) if ranked and ranked[0][0] is not None else ()
    return CellModel(options or [Option(None, 0.0)], other_cost=other, read=read,
                     shape_scale=temperature ** -SHAPE_POWER if read else 1.0,
                     best=ranked[0][0] if read else None, near=cell.near if read else None)


def _flatten(ps: list[float], temperature: float, total: float) -> list[float]:
    """``ps`` (negatives as 0) raised to 1 / ``temperature`` and rescaled to sum to ``total``."""
    flat = [max(p, 0.0) ** (1.0 / temperature) for p in ps]
    scale = total / (sum(flat) or 1.0)
    return [q * scale for q in flat]


def _as_int(value) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _is_blank(cell: CellReading | None) -> bool:
    if cell is None:
        return True
    if cell.blank:
        return True
    return not cell.candidates


def _is_empty(row: RowReading) -> bool:
    """Nothing written in the row: both cumulatives blank, no dealer and no score that
    reads as a number other than 0 (specks on a fax read as "unreadable", not as a deal)."""
    if not all(_is_blank(row.cells.get(c)) for c in ("cum_ns", "cum_ew")):
        return False
    dealer = row.cells.get("dealer")
    if dealer is not None and not _is_blank(dealer) and dealer.best is not None and dealer.confidence >= 0.5:
        return False
    for col in ("ns", "ew"):
        cell = row.cells.get(col)
        if cell is not None and not _is_blank(cell):
            best = _as_int(cell.best)
            if best is not None and best > 0 and best % 10 == 0:
                return False
    return True


def _trim(rows: list[RowReading]) -> list[RowReading]:
    """The rows up to the last one with anything written (printed blank rows dropped)."""
    rows = sorted(rows, key=lambda r: r.deal)
    while rows and _is_empty(rows[-1]):
        rows = rows[:-1]
    return rows


def _total_models(total: RowReading | None, temperature: float = 1.0) -> dict[str, CellModel] | None:
    if total is None:
        return None
    out = {}
    for side in ("ns", "ew"):
        cell = total.cells.get("cum_" + side) or total.cells.get(side)
        if cell is not None and not _is_blank(cell):
            out[side] = cell_model(cell, temperature)
    return out or None


# ----------------------------------------------------------------------------- rows
def _overridden(value, p: float, post: list[tuple[object, float]], read) -> list[tuple[object, float]]:
    """A review item's candidates where the arithmetic overrode the reading: the value shown,
    then the other values by the same posterior probability (the reader's own reading among them,
    at 0 when no reading of the whole sheet keeps it) -- one scale, not the reader's and the
    decoder's mixed."""
    out = [(value, round(p, 4))] + [(v, round(q, 4)) for v, q in post if v not in (value, None)][:2]
    if read is not None and read != value and all(v != read for v, _ in out):
        out.append((read, round(dict(post).get(read, 0.0), 4)))
    return out


def _posteriors(chosen) -> list[tuple[object, float]]:
    """The values the readings of the whole sheet show in one place -- ``chosen``: (that place's
    choice in a reading, or None; the reading's weight) -- each by the summed weight showing it."""
    acc: dict[object, float] = defaultdict(float)
    for choice, weight in chosen:
        if choice is not None:
            acc[choice[0]] += weight
    return sorted(acc.items(), key=lambda vp: -vp[1])


def _shown(hyps: list[Hypothesis], flagged: set[tuple]) -> Hypothesis | None:
    """The reading the output shows: the most probable one whose every players' mistake is
    flagged.  A mistake not flagged (too likely a misread; it is in review) is not believed, so
    the row shows the value the sheet's arithmetic supports rather than the doubtful written one
    -- at the 0.5-0.8 probabilities that keep such a mistake out of the flags, a misread was
    three times likelier than a real slip on the generated sheets (bench/RESULTS-reconcile.md)."""
    if not hyps:
        return None
    for h in hyps:
        if all(m.key in flagged for m in h.mistakes):
            return h
    return hyps[0]


def _rows(rows, empty, hyps, review, shown) -> list[ReconciledRow]:
    """The rows as ``shown`` reads them (confidences are posteriors over all of ``hyps``), and
    the review items their cells call for."""
    out = []
    for i, row in enumerate(rows):
        values: dict[str, object] = {"dealer": None}
        conf: dict[str, float] = {}
        for col in NUMBER_COLUMNS:
            cell = row.cells.get(col)
            if empty[i] or shown is None:  # an empty row is a missing deal (flagged), not zeros
                values[col], conf[col] = None, 0.0
                continue
            value, source = shown.cells[i][col][:2]
            implied = shown.cells[i][col][2] if len(shown.cells[i][col]) > 2 else None
            post = _posteriors((h.cells[i].get(col), h.weight) for h in hyps)
            p = dict(post).get(value, 0.0)
            read = [(v, round(p_, 4)) for v, p_ in (cell.candidates if cell else [])]
            if cell is None:
                values[col], conf[col] = None, 0.0
            elif source == "none" or value is None:
                values[col], conf[col] = None, 0.0
                review.append(ReviewItem(row.deal, col, _unread_candidates(read, implied),
                                         "could not be read" + _maybe(read, implied)
                                         + (f"; the arithmetic gives {implied}" if implied is not None else "")))
            elif source == "inferred":
                values[col], conf[col] = value, p
                reason = (f"read as {cell.best}, but the arithmetic gives {value}" if cell.best is not None
                          else f"hard to read{_maybe(read, value)}; the arithmetic gives {value}")
                review.append(ReviewItem(row.deal, col, _overridden(value, p, post, cell.best), reason))
            else:
                values[col], conf[col] = value, p
                own = _values(cell.candidates)[0] or ({0: 1.0} if cell.blank else {})  # the reader's own
                sure, sure_p = max(own.items(), key=lambda vp: vp[1], default=(None, 0.0))
                if sure not in (None, value) and sure_p >= OVERRIDDEN_SURE and own.get(value, 0.0) < OVERRIDDEN_BELOW:
                    # a sure reading replaced by a candidate the reader hardly believed: most often
                    # a misread repaired, but now and then a miscopy the arithmetic undid
                    review.append(ReviewItem(row.deal, col, _overridden(value, p, post, sure),
                                             f"read as {sure}, but the arithmetic gives {value}"))
                elif value == 0 and own.get(0, 0.0) < BLANK_REVIEW_BELOW:
                    # a blank the arithmetic cannot confirm (0 + 0 fits anything that is unknown):
                    # no surer than the reader found it, however many readings of the sheet agree
                    conf[col] = min(p, own.get(0, 0.0))
                    # the reader's own doubt, on its own scale (the sheet's readings may all agree on 0)
                    review.append(ReviewItem(row.deal, col, read or [(0, round(p, 4))],
                                             "blank? the reader is not sure this cell is empty"))
                elif cell.candidates and cell.best is None and p < REVIEW_BELOW:
                    review.append(ReviewItem(row.deal, col, post[:3],
                                             f"hard to read; the arithmetic confirms {value}"))
                elif p < REVIEW_BELOW:
                    review.append(ReviewItem(row.deal, col, post[:3], "unsure reading"))
        out.append(ReconciledRow(row.deal, values, conf))
    return out


def _unread_candidates(read: list, implied: object) -> list[tuple[object, float]]:
    """An unreadable cell's review candidates on the reader's scale: the value the arithmetic
    gives first -- at the reader's probability of it, or of "none of these" when it did not list
    it -- then the values the reader proposed."""
    own = dict(read)
    out = [(v, q) for v, q in read if v is not None and v != implied]
    if implied is None:
        return out
    return [(implied, own.get(implied, own.get(None, 0.0)))] + out


def _maybe(read: list, but: object) -> str:
    """" (maybe X)" for the reader's likeliest proposed value other than ``but``, or nothing."""
    maybe = [v for v, _ in read if v is not None and v != but]
    return f" (maybe {maybe[0]})" if maybe else ""


def _best_read(cell: CellReading) -> str:
    return str(cell.best) if cell.candidates and cell.best is not None else "unreadable"


REVIEW_PRIORITY = ("a misread or", "could not be read", "read as", "hard to read", "blank?", "dealer",
                   "unsure reading")


def _one_per_cell(review: list[ReviewItem]) -> list[ReviewItem]:
    """At most one review item per cell: the most telling reason."""
    def rank(item: ReviewItem) -> int:
        return next((i for i, p in enumerate(REVIEW_PRIORITY) if item.reason.startswith(p)), len(REVIEW_PRIORITY))

    best: dict[tuple, ReviewItem] = {}
    for item in review:
        key = (item.deal, item.column)
        if key not in best or rank(item) < rank(best[key]):
            best[key] = item
    return list(best.values())


# ----------------------------------------------------------------------------- flags
def _mistake_flags(hyps: list[Hypothesis], last_deal, flags, review) -> set[tuple]:
    """Flag a mistake when the decoder's hypotheses give it most of the probability; return
    the flagged mistakes' keys.

    The gate is the posterior, not each cell's own confidence: a mistake's probability is
    the weight of the readings of the whole sheet that contain it, against every reading
    that explains the same inconsistency by misreads instead (other candidates of the cells
    involved, a value the reader did not propose, an unreadable cell), so a number read
    0.8 / 0.2 where both readings break the sums is a mistake whatever was written, while
    one read 0.6 / 0.4 where the second reading fits is read as that.
    """
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
        flag_at = COPY_FLAG_AT if m.kind == "cumulative" and m.shape == "copy" else \
            TOTAL_FLAG_AT if m.kind == "total" else SCORE_FLAG_AT if m.kind == "score" else FLAG_AT
        if p >= flag_at and m in hyps[0].mistakes:
            flagged.add(m.key)
            flags.append(Flag(m.kind, _message(m, deal), deal=deal, side=m.side, column=m.column,
                              written=m.written, expected=m.expected))
        elif p >= REVIEW_MISTAKE_AT:
            # the value the rows show (the arithmetic's) and the written one, each with its probability;
            # a Total row's doubt is named by its cell, as _total_review names it
            cands = sorted([(m.expected, round(1.0 - p, 4)), (m.written, round(p, 4))], key=lambda vp: -vp[1]) \
                if m.expected is not None else [(m.written, round(p, 4))]
            where = (None, "total_" + (m.side or "ns")) if m.kind == "total" else (deal, m.column or "ns")
            review.append(ReviewItem(*where, cands, "a misread or the players' mistake: " + _message(m, deal)))
    return flagged


def _pair_side(m: Mistake, best: Hypothesis, checker: DealChecker, deals: list[int]) -> Mistake:
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


def _message(m: Mistake, deal) -> str:
    side = SIDE_NAMES.get(m.side or "", "")
    if m.kind == "cumulative":
        text = f"deal {deal}: {side} cumulative {m.written}, but {m.base} + {m.score} = {m.expected}"
        if m.shape == "slip":
            return text + " (the error is carried into the later cumulatives)"
        return text
    if m.kind == "total":
        return f"Total row: {side} total {m.written}, but the cumulative after deal {deal} is {m.expected}"
    if m.kind == "score":
        if m.expected == 0 and m.score is not None:
            other = SIDE_NAMES["ew" if m.side == "ns" else "ns"]
            return (f"deal {deal}: {side} {m.written} and {other} {m.score} both scored; on one deal that "
                    f"only happens when one side scored honours alone (100 or 150) — {side} {m.written} "
                    "looks wrong")
        if m.shape != "rules":
            return f"deal {deal}: {m.shape}"
        return (f"deal {deal}: {side} score {m.written} cannot be right: no result gives it "
                "with the games and part-scores the sheet shows so far")
    return f"deal {deal}: {m.kind}"


def _dealer_flags(rows, empty, out_rows, flags, review, temperature: float = 1.0) -> None:
    """Dealer column against the rotation; an empty row still took its turn to deal."""
    idx = list(range(len(rows)))
    cells = []
    read: list[tuple[str, float] | None] = []  # the reader's own best seat of each row
    for i in idx:
        cell = rows[i].cells.get("dealer")
        if cell is None or _is_blank(cell):
            cells.append(None)
            read.append(None)
            continue
        probs: dict[str, float] = defaultdict(float)
        for v, p in cell.candidates:
            if isinstance(v, str) and v.strip().upper()[:1] in SEAT_ORDER:
                probs[v.strip().upper()[:1]] += float(p)
        read.append(max(probs.items(), key=lambda sp: sp[1]) if probs else None)
        if probs and temperature != 1.0:
            # a hard sheet's letters are trusted less too (as its numbers, SHEET_TEMP): the seats
            # and the unread rest flattened -- on 879 sheets 80000's two false dealer flags (a
            # dotted fax: N read W 0.9997 sure) go to review, no planted dealer mistake does; on the
            # synthetic bench 1 of 14 does (bench/RESULTS-reconcile.md, round 15)
            rest = max(1.0 - sum(probs.values()), 1e-4)
            probs = dict(zip(probs, _flatten([*probs.values(), rest], temperature, 1.0)[:-1], strict=True))
        cells.append(DealerCell(dict(probs)) if probs else None)
    if not cells:
        return
    result = decode_dealers(cells)
    odd = {m.index for m in result.mistakes}
    for k, i in enumerate(idx):
        out_rows[i].values["dealer"] = result.seats[k]
        if read[k] and result.seats[k] and result.seats[k] != read[k][0] and read[k][1] >= OVERRIDDEN_SURE \
                and k not in odd:
            # a letter read surely, shown as the rotation's: say so (never a silent guess)
            review.append(ReviewItem(rows[i].deal, "dealer", [(read[k][0], round(read[k][1], 4))],
                                     f"dealer read as {read[k][0]}, but the rotation gives {result.seats[k]}"))
    for m in result.mistakes:
        i = idx[m.index]
        cell = cells[m.index]
        # a single odd dealer is either the players' slip or a misread of that one cell
        margin = cell.cost(m.expected) - cell.cost(m.written) - COST_DEALER
        p = 1.0 if m.shape == "slip" else 1.0 / (1.0 + math.exp(-margin))
        if p < DEALER_FLAG_AT:
            if p >= REVIEW_MISTAKE_AT:
                review.append(ReviewItem(rows[i].deal, "dealer", sorted(cell.probs.items(), key=lambda sp: -sp[1]),
                                         f"dealer {m.written} breaks the rotation (expected {m.expected}): "
                                         "a misread or the players' mistake"))
            continue
        before = [j for j in range(m.index) if out_rows[j].values["dealer"]]
        prev = f"after {out_rows[before[-1]].values['dealer']} on deal {rows[before[-1]].deal}, " if before else ""
        flags.append(Flag("dealer", f"deal {rows[i].deal}: dealer {m.written}, but {prev}"
                          f"the dealer should be {m.expected} (dealer rotates N, E, S, W)",
                          deal=rows[i].deal, column="dealer", written=m.written, expected=m.expected))


def _many_empty(empty: list[bool]) -> bool:
    """More empty rows between written ones than players skip: writing the reader did not see."""
    return sum(empty) > MAX_EMPTY_ROWS


def _missing_flags(rows, deals, empty, flags, review) -> None:
    n_empty = sum(empty)
    many = _many_empty(empty)
    for i, row in enumerate(rows):
        if empty[i] and many:
            review.append(ReviewItem(row.deal, "ns", [],
                                     f"the row reads as empty, as do {n_empty - 1} other rows between "
                                     "written ones: more likely writing the reader did not see than "
                                     "deals the players skipped"))
        elif empty[i] and not all(cell.p(0) >= SURE_BLANK for cell in deals[i].cells.values()
                                  if cell.present):
            review.append(ReviewItem(row.deal, "ns", [],
                                     "the row reads as empty, but the reading is unsure: a missing "
                                     "deal, or writing the reader did not see"))
        elif empty[i]:
            flags.append(Flag("missing_deal", f"deal {row.deal}: the row is empty — a deal is missing "
                              "(a passed-out deal still counts and is written as a dash)",
                              deal=row.deal, written=None, expected=row.deal))
        if i and row.deal > rows[i - 1].deal + 1:
            gap = rows[i - 1].deal + 1
            flags.append(Flag("missing_deal", f"deal {gap}: missing — the sheet goes from deal "
                              f"{rows[i - 1].deal} to deal {row.deal}", deal=gap, written=None, expected=gap))
    last, played = (rows[-1].deal, len(rows)) if rows else (None, 0)
    if last is not None and (played < MATCH_DEALS or (played - MATCH_DEALS) % 2):
        nxt = last + 1
        why = (f"a match is {MATCH_DEALS} deals" if played < MATCH_DEALS
               else "after a tie the match goes on two deals at a time")
        if many:  # the rows after it may be unseen writing too
            review.append(ReviewItem(nxt, "ns", [], f"the sheet reads as stopping at deal {last} ({why}), "
                                     "but with so many rows read as empty the rest may be writing the "
                                     "reader did not see"))
        else:
            flags.append(Flag("missing_deal", f"deal {nxt}: missing — the sheet stops at deal {last}, and {why}",
                              deal=nxt, written=None, expected=nxt))


def _totals(best: Hypothesis | None, out_rows, empty: list[bool]) -> tuple[dict, dict]:
    """(totals as written on the sheet, the sums of the deal scores).

    The sums fall back to the running totals when a score is unknown, or a deal's row is empty
    (a missing deal: its score went into the later cumulatives, but is written nowhere).
    """
    final = {"ns": None, "ew": None}
    if best is not None:
        final = dict(best.bases)
        if _many_empty(empty):  # rows the reader did not see (_missing_flags): totals unknown
            final = {"ns": None, "ew": None}
        elif not any(empty):  # an empty row's score is in the later cumulatives only
            for side in ("ns", "ew"):
                scores = [c[side][0] if c[side][0] is not None else (c[side][2] if len(c[side]) > 2 else None)
                          for c in best.cells]
                if scores and None not in scores:
                    final[side] = sum(scores)
    written = {"ns": None, "ew": None}
    filled = [r for r in out_rows if any(r.values.get(c) for c in NUMBER_COLUMNS)]
    for side in ("ns", "ew"):
        if best is not None and side in best.totals and best.totals[side][1] != "none":
            written[side] = best.totals[side][0]
        elif filled:
            written[side] = filled[-1].values.get("cum_" + side)
    return written, final


def _total_review(hyps: list[Hypothesis], best: Hypothesis | None, total: RowReading | None, review) -> None:
    """Total-row cells the reader could not read, or read differently from what ``best`` shows;
    where the cumulatives overrode the reading, the candidates are the values shown by the
    readings of the whole sheet, by their probability (one scale, as _overridden)."""
    if best is None or total is None:
        return
    for side, (value, source, *_rest) in best.totals.items():
        cell = total.cells.get("cum_" + side) or total.cells.get(side)
        read = [(v, round(float(p), 4)) for v, p in (cell.candidates if cell else []) if v is not None]
        if source == "none":
            review.append(ReviewItem(None, "total_" + side, read, "Total row could not be read"))
        elif source == "inferred" or (cell is not None and value != cell_model(cell).options[0].value):
            # a less likely candidate chosen because the cumulatives agree with it: never silently
            post = _posteriors((h.totals.get(side), h.weight) for h in hyps)
            review.append(ReviewItem(None, "total_" + side,
                                     _overridden(value, dict(post).get(value, 0.0), post, cell.best if cell else None),
                                     f"Total row read as {_best_read(cell)}, but the cumulatives give {value}"))


def _winner_flag(winners, final) -> Flag | None:
    """The flag for named winners without the higher total (or level totals), or None."""
    ns, ew = final.get("ns"), final.get("ew")
    if winners not in ("ns", "ew") or ns is None or ew is None:
        return None
    mine, theirs = (ns, ew) if winners == "ns" else (ew, ns)
    name, other = SIDE_NAMES[winners], SIDE_NAMES["ew" if winners == "ns" else "ns"]
    if mine < theirs:
        return Flag("winner", f"the sheet names {name} as winners, but {other} have the higher "
                    f"total ({theirs} v {mine})", side=winners, written=winners,
                    expected="ew" if winners == "ns" else "ns")
    if mine == theirs:
        return Flag("winner", f"the totals are level ({ns} each): the match needs two more deals",
                    side=winners, written=winners, expected=None)
    return None


def _add_explanations(sheet: ReconciledSheet, best: Hypothesis | None, rules) -> None:
    from scoring.explain import explain_sheet

    if best is None:
        return
    sheet.explanations = explain_sheet(sheet, rules)
    for row in sheet.rows:
        row.explanation = [e["text"] for e in sheet.explanations.get(row.deal, [])]
