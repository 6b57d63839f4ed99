"""Reconcile a sheet's candidate readings with the rules and the sheet's own arithmetic.

:func:`reconcile` runs the steps in order: how far to trust the reader's lists (trust.py), the
cell models (cells.py), the most probable readings of all number cells together (decode.py), the
players' mistakes among them (flags.py), the rows shown and what to review (review.py), the
dealer column (dealer.py, flags.py), the totals and winners, and each deal's explanations
(explain.py).  Pure: no I/O.
"""

from __future__ import annotations

from scoring.formspec import NUMBER_COLUMNS
from scoring.reconcile import flags as verdicts
from scoring.reconcile import messages, review
from scoring.reconcile.cells import cell_model, is_empty, sheet_temperature, total_models, trim
from scoring.reconcile.check import DealChecker, checker_for
from scoring.reconcile.decode import DealInput, Hypothesis, decode
from scoring.reconcile.look import Look, looked_again
from scoring.reconcile.partial import (
    apply_doubtful,
    apply_missing,
    apply_sent_back,
    apply_small,
    apply_unread,
)
from scoring.reconcile.rescan import rescan_advice
from scoring.reconcile.settings import DEFAULT, ReconcileSettings
from scoring.reconcile.trust import trusted
from scoring.reconcile.winners import clearly_named
from scoring.sheet import Flag, ReconciledSheet, ReviewItem, SheetReading


def reconcile(reading: SheetReading, rules=None, settings: ReconcileSettings = DEFAULT, *,
              checker: DealChecker | None = None, explain: bool = True,
              look: Look | None = None) -> ReconciledSheet:
    """The most probable consistent reading of ``reading``, with its flags and review list.

    ``rules`` are the scoring core's house rules (None: accept every house rule for
    the unfinished-rubber bonus); ``settings`` every tuning value (settings.py); ``checker``
    overrides the rule check (tests); ``explain`` adds the results behind each deal's score
    (explain.py, the slow part: 0.2-1 s a sheet, less once its memo is warm); ``look`` a second
    reader's look at the cells a numbers flag rests on (look.py; None: the reading decides alone).
    """
    checker = checker or checker_for(rules)
    if look is not None:
        first = _reconciled(reading, rules, settings, checker, False)
        again = looked_again(reading, first.flags, look, settings.look, first.review)
        if again is not None:
            sheet = _reconciled(again.reading, rules, settings, checker, explain, again.seconded)
            sheet.meta["second_look"] = sum(
                1 for r0, r1 in zip(reading.rows, again.reading.rows, strict=True)
                for key in r0.cells if r0.cells[key] is not r1.cells[key])
            return sheet
        if explain:  # the look changed nothing: the first reading's sheet, explained
            add_explanations(first, first.meta["hypotheses"] > 0, rules)
        return first
    return _reconciled(reading, rules, settings, checker, explain)


def _reconciled(reading: SheetReading, rules, settings: ReconcileSettings, checker: DealChecker,
                explain: bool, seconded: frozenset = frozenset()) -> ReconciledSheet:
    """:func:`reconcile` of one reading as it is; ``seconded``: the values adding up that a
    reader sees in a cell a flag rests on (look.seconded) -- those flags questions instead."""
    # on the reader's own candidates, before they are widened
    rescan = rescan_advice(reading, settings.rescan)
    reading = trusted(reading, settings.trust)  # "none of these" as wide as reconciliation takes it
    rows = trim(reading.rows, settings)
    empty = [is_empty(r, settings) for r in rows]
    temperature = sheet_temperature(reading, settings)
    deals = [DealInput(r.deal, {c: cell_model(r.cells.get(c), temperature, settings)
                                for c in NUMBER_COLUMNS}, skip=e)
             for r, e in zip(rows, empty, strict=True)]
    totals = total_models(reading.total, temperature, settings)
    hyps = decode(deals, totals, checker, settings) if rows else []
    best = hyps[0] if hyps else None

    flags: list[Flag] = []
    items: list[ReviewItem] = []
    last_deal = rows[-1].deal if rows else None
    flagged: set[tuple] = set()
    if best is not None:
        best.mistakes = [verdicts.pair_side(m, best, checker, [r.deal for r in rows])
                         for m in best.mistakes]
        doubtful = verdicts.rescan_doubtful(rows, settings) if rescan is not None \
            else verdicts.own_doubtful(rows, settings)
        if seconded:
            doubtful = verdicts.or_seconded(doubtful, seconded)
        flagged = verdicts.mistake_flags(hyps, last_deal, flags, items, settings, doubtful)
    shown = review.shown(hyps, flagged)
    out_rows = review.rows(rows, empty, hyps, items, shown, settings)
    review.flag_support(flags, rows, out_rows, items, settings)
    verdicts.dealer_flags(rows, out_rows, flags, items, temperature, settings)
    verdicts.missing_flags(rows, deals, empty, flags, items, settings)
    totals_out, final = sheet_totals(shown, out_rows, empty, settings)
    review.total_review(hyps, shown, reading.total, items, settings)
    winners = reading.winners_hint if reading.winners_hint in ("ns", "ew") else None
    winner_flag = verdicts.winner_flag(winners, final)
    clear = clearly_named(reading.winners_text, winners, reading.names, settings.winners)
    if winner_flag is not None and rescan is None and clear and winners_behind(
            hyps, winners, [r.deal for r in rows], empty, settings) < settings.winners.behind_at:
        # the totals the winners line contradicts rest on every number of the sheet
        items.append(ReviewItem(None, "winners", [(winners, 1.0)],
                                messages.winners_unsure(winners, final), kind="winner"))
    elif winner_flag is not None and rescan is None and clear:
        flags.append(winner_flag)
    elif winner_flag is not None and rescan is None:
        # a winners line read loosely that seems to name the losers: a question, not a flag
        items.append(ReviewItem(None, "winners", [(winners, 1.0)],
                                messages.winners_unclear(reading.winners_text, winners, final),
                                kind="winner"))
    elif winner_flag is not None:
        # too much of the sheet unread (rescan advice): its totals are guesses, the winners a
        # question
        items.append(ReviewItem(None, "winners", [(winners, 1.0)],
                                messages.winners_unsure(winners, final), kind="winner"))
    if winners is None and final["ns"] is not None and final["ew"] is not None \
            and final["ns"] != final["ew"]:
        winners = "ns" if final["ns"] > final["ew"] else "ew"
    if rows:
        review.winners_review(reading.winners_hint, reading.winners_text, winners, items)
    items = review.one_per_cell(items)
    flags.sort(key=lambda f: (f.deal if f.deal is not None else 10**6, f.kind, f.side or ""))
    items.sort(key=lambda r: (r.deal if r.deal is not None else 10**6, r.column))
    sheet = ReconciledSheet(
        source=reading.source, rows=out_rows, totals=totals_out, names=dict(reading.names),
        winners=winners, flags=flags, review=items, form=reading.form,
        meta={"hypotheses": len(hyps), "arithmetic_totals": final}, rescan=rescan,
    )
    if explain:
        add_explanations(sheet, shown is not None, rules)
    sheet = apply_missing(reading, sheet, settings.rescan)  # a picture not showing all the sheet
    sheet = apply_small(reading, sheet, settings.rescan)  # writing too small to read surely
    sheet = apply_unread(reading, sheet, settings.rescan)  # a photo's unread cells filled in
    sheet = apply_doubtful(reading, sheet, settings.rescan)  # a photo misread too much to trust
    return apply_sent_back(reading, sheet, settings.rescan)  # no number in doubt shown as sure


def sheet_totals(best: Hypothesis | None, out_rows, empty: list[bool],
                 settings: ReconcileSettings = DEFAULT) -> tuple[dict, dict]:
    """(totals as written on the sheet, the sums of the deal scores).

    The sums fall back to the running totals when a score is unknown, or a deal's row is empty
    (a missing deal: its score went into the later cumulatives, but is written nowhere).
    """
    final = score_sums(best, [r.deal for r in out_rows], empty, settings)
    written = {"ns": None, "ew": None}
    filled = [r for r in out_rows if any(r.values.get(c) for c in NUMBER_COLUMNS)]
    for side in ("ns", "ew"):
        if best is not None and side in best.totals and best.totals[side][1] != "none":
            written[side] = best.totals[side][0]
        elif filled:
            written[side] = filled[-1].values.get("cum_" + side)
    return written, final


def score_sums(h: Hypothesis | None, deals: list[int], empty: list[bool],
               settings: ReconcileSettings = DEFAULT) -> dict[str, int | None]:
    """What each side scored in all by reading ``h`` (the sums of its deal scores; the running
    totals where a score is unknown or a row empty; None where rows were not seen)."""
    final: dict[str, int | None] = {"ns": None, "ew": None}
    if h is None or verdicts.many_empty(empty, settings):  # rows the reader did not see
        return final
    final = dict(h.bases)
    if any(empty):  # an empty row's score is in the later cumulatives only
        return final
    # a score written in the wrong column counts for the side the cumulatives add it to
    moved = {m.deal for m in h.mistakes if m.kind == "score" and m.shape == "column"}
    for side in ("ns", "ew"):
        scores = []
        for deal, c in zip(deals, h.cells, strict=True):
            cell = c[("ew" if side == "ns" else "ns") if deal in moved else side]
            scores.append(cell[0] if cell[0] is not None else (cell[2] if len(cell) > 2 else None))
        if scores and None not in scores:
            final[side] = sum(scores)
    return final


def winners_behind(hyps: list[Hypothesis], winners: str, deals: list[int], empty: list[bool],
                   settings: ReconcileSettings = DEFAULT) -> float:
    """The probability, over the readings of the whole sheet, that the pair the winners line names
    does not have the higher total."""
    other = "ew" if winners == "ns" else "ns"
    out = 0.0
    for h in hyps:
        sums = score_sums(h, deals, empty, settings)
        if sums[winners] is not None and sums[other] is not None and sums[winners] <= sums[other]:
            out += h.weight
    return out


def add_explanations(sheet: ReconciledSheet, decoded: bool, rules) -> None:
    """Each deal's explanations (explain.py) on ``sheet`` and its rows, where a reading was
    ``decoded`` (the values the rows show; the review and rescan rules after the decoding change
    no value, so the explanations may come before or after them)."""
    from scoring.reconcile.explain import explain_sheet

    if not decoded:
        return
    sheet.explanations = explain_sheet(sheet, rules)
    for row in sheet.rows:
        row.explanation = [e["text"] for e in sheet.explanations.get(row.deal, [])]
