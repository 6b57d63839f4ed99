"""What a person should look at: the rows as shown, and a review item wherever the reading of a
cell is unsure, was overridden by the arithmetic, or could not be made at all.

The confidences and the candidates of a review item are posteriors over all the decoder's
readings of the whole sheet (one scale); a cell gets at most one review item, the most telling.
"""

from __future__ import annotations

from collections import defaultdict

from scoring.formspec import NUMBER_COLUMNS
from scoring.reconcile import messages
from scoring.reconcile.cells import cell_model, values
from scoring.reconcile.decode import Hypothesis
from scoring.reconcile.settings import DEFAULT, ReconcileSettings
from scoring.sheet import CellReading, ReconciledRow, ReviewItem, RowReading

# review reasons by how telling they are, first the most (a cell keeps one item: _one_per_cell)
REVIEW_PRIORITY = ("a misread or", "could not be read", "read as", "the flag at", "hard to read",
                   "blank?", "dealer", "unsure reading")


def overridden(value, p: float, post: list[tuple[object, float]],
               read) -> list[tuple[object, float]]:
    """A review item's candidates where the arithmetic overrode the reading: the value shown,
    then the other values by the same posterior probability (the reader's own reading among them,
    at 0 when no reading of the whole sheet keeps it) -- one scale, not the reader's and the
    decoder's mixed."""
    out = [(value, round(p, 4))] + [(v, round(q, 4)) for v, q in post if v not in (value, None)][:2]
    if read is not None and read != value and all(v != read for v, _ in out):
        out.append((read, round(dict(post).get(read, 0.0), 4)))
    return out


def posteriors(chosen) -> list[tuple[object, float]]:
    """The values the readings of the whole sheet show in one place -- ``chosen``: (that place's
    choice in a reading, or None; the reading's weight) -- each by the summed weight showing it."""
    acc: dict[object, float] = defaultdict(float)
    for choice, weight in chosen:
        if choice is not None:
            acc[choice[0]] += weight
    return sorted(acc.items(), key=lambda vp: -vp[1])


def shown(hyps: list[Hypothesis], flagged: set[tuple]) -> Hypothesis | None:
    """The reading the output shows: the most probable one whose every players' mistake is
    flagged.  A mistake not flagged (too likely a misread; it is in review) is not believed, so
    the row shows the value the sheet's arithmetic supports rather than the doubtful written
    one: at the probabilities that keep such a mistake out of the flags, a misread is the likelier
    explanation."""
    if not hyps:
        return None
    for h in hyps:
        if all(m.key in flagged for m in h.mistakes):
            return h
    return hyps[0]


def rows(readings: list[RowReading], empty: list[bool], hyps: list[Hypothesis],
         review: list[ReviewItem], best: Hypothesis | None,
         settings: ReconcileSettings = DEFAULT) -> list[ReconciledRow]:
    """The rows as ``best`` (the reading shown) reads them (confidences are posteriors over all
    of ``hyps``), and the review items their cells call for."""
    v = settings.verdicts
    out = []
    for i, row in enumerate(readings):
        chosen: dict[str, object] = {"dealer": None}
        conf: dict[str, float] = {}
        inferred: list[str] = []  # columns shown with a value the reader did not see there
        filled: list[tuple[str, object, object]] = []  # scores the arithmetic chose, not the reader
        for col in NUMBER_COLUMNS:
            cell = row.cells.get(col)
            if empty[i] or best is None:  # an empty row is a missing deal (flagged), not zeros
                chosen[col], conf[col] = None, 0.0
                continue
            value, source = best.cells[i][col][:2]
            implied = best.cells[i][col][2] if len(best.cells[i][col]) > 2 else None
            post = posteriors((h.cells[i].get(col), h.weight) for h in hyps)
            p = dict(post).get(value, 0.0)
            read = [(c, round(q, 4)) for c, q in (cell.candidates if cell else [])]
            if cell is None:
                chosen[col], conf[col] = None, 0.0
            elif source == "none" or value is None:
                chosen[col], conf[col] = None, 0.0
                review.append(ReviewItem(row.deal, col, unread_candidates(read, implied),
                                         "could not be read" + maybe(read, implied)
                                         + (f"; the arithmetic gives {implied}"
                                            if implied is not None else "")))
            elif source == "inferred":
                chosen[col], conf[col] = value, p
                inferred.append(col)
                if cell.best is not None:
                    review.append(ReviewItem(row.deal, col, overridden(value, p, post, cell.best),
                                             messages.read_as_but(cell.best, value),
                                             kind=column_kind(col)))
                else:
                    review.append(ReviewItem(row.deal, col, overridden(value, p, post, cell.best),
                                             f"hard to read{maybe(read, value)}; the arithmetic "
                                             f"gives {value}"))
            else:
                chosen[col], conf[col] = value, p
                own = values(cell.candidates)[0] or ({0: 1.0} if cell.blank else {})  # the reader's
                sure, sure_p = max(own.items(), key=lambda vp: vp[1], default=(None, 0.0))
                if sure not in (None, value) and sure_p >= v.overridden_sure \
                        and own.get(value, 0.0) < v.overridden_below:
                    # a sure reading replaced by a candidate the reader hardly believed: most often
                    # a misread repaired, but now and then a miscopy the arithmetic undid
                    inferred.append(col)
                    review.append(ReviewItem(row.deal, col, overridden(value, p, post, sure),
                                             messages.read_as_but(sure, value),
                                             kind=column_kind(col)))
                elif value == 0 and own.get(0, 0.0) < v.blank_review_below:
                    # a blank the arithmetic cannot confirm (0 + 0 fits anything that is unknown):
                    # no surer than the reader found it, however many readings of the sheet agree
                    conf[col] = min(p, own.get(0, 0.0))
                    # the reader's own doubt, on its own scale (the sheet's readings may all agree)
                    review.append(ReviewItem(row.deal, col, read or [(0, round(p, 4))],
                                             "blank? the reader is not sure this cell is empty"))
                elif cell.candidates and cell.best is None and p < v.review_below:
                    review.append(ReviewItem(row.deal, col, post[:3],
                                             f"hard to read; the arithmetic confirms {value}"))
                elif p < v.review_below:
                    review.append(ReviewItem(row.deal, col, post[:3], messages.unsure(post[:3])))
                if col in ("ns", "ew") and value not in (None, 0) and cell.best != value \
                        and own.get(value, 0.0) < v.filled_score_below:
                    filled.append((col, value, cell.best))
        for col, value, read in filled:
            # a score the reader hardly proposed, taken because the cumulative fits it: the same
            # cumulative is the players' slip if the score is what the reader saw
            key = "cum_" + col
            cum, decided = chosen.get(key), row.cells.get(key)
            if cum is not None and not (decided is not None and decided.person):  # a person said
                reason = messages.score_taken_to_fit(row.deal, col, value, read, cum)
                review.append(ReviewItem(row.deal, key, [(cum, round(conf.get(key, 0.0), 4))],
                                         reason, kind="cumulative"))
        out.append(ReconciledRow(row.deal, chosen, conf, inferred=inferred))
    return out


def column_kind(col: str) -> str:
    """The flag kind a wrong value in number column ``col`` would be."""
    return "cumulative" if col.startswith("cum_") else "score"


def flag_support(flags, rows: list[RowReading], out_rows: list[ReconciledRow],
                 review: list[ReviewItem], settings: ReconcileSettings = DEFAULT) -> None:
    """A review item on each number a cumulative flag rests on -- the cumulative before and the
    deal's score -- that the reader read less surely than support_below: if the sheet says
    otherwise there, the players' mistake is there, not where it is flagged."""
    index = {r.deal: i for i, r in enumerate(rows)}
    for flag in flags:
        i = index.get(flag.deal)
        if flag.kind != "cumulative" or i is None or flag.side not in ("ns", "ew"):
            continue
        support = [(i, flag.side)] + ([(i - 1, "cum_" + flag.side)] if i else [])
        for j, col in support:
            cell, shown = rows[j].cells.get(col), out_rows[j].values.get(col)
            if cell is None or shown is None:
                continue
            own = values(cell.candidates)[0] or ({0: 1.0} if cell.blank else {})
            if own.get(shown, 0.0) < settings.verdicts.support_below:
                read = [(v, round(q, 4)) for v, q in cell.candidates]
                reason = messages.flag_rests_on(flag.deal, shown, maybe(read, shown))
                review.append(ReviewItem(rows[j].deal, col, read or [(shown, 0.0)], reason,
                                         kind="cumulative"))


def unread_candidates(read: list, implied: object) -> list[tuple[object, float]]:
    """An unreadable cell's review candidates on the reader's scale: the value the arithmetic
    gives first -- at the reader's probability of it, or of "none of these" when it did not list
    it -- then the values the reader proposed."""
    own = dict(read)
    out = [(v, q) for v, q in read if v is not None and v != implied]
    if implied is None:
        return out
    return [(implied, own.get(implied, own.get(None, 0.0)))] + out


def maybe(read: list, but: object) -> str:
    """" (maybe X)" for the reader's likeliest proposed value other than ``but``, or nothing."""
    others = [v for v, _ in read if v is not None and v != but]
    return f" (maybe {others[0]})" if others else ""


def best_read(cell: CellReading) -> str:
    return str(cell.best) if cell.candidates and cell.best is not None else "unreadable"


def total_review(hyps: list[Hypothesis], best: Hypothesis | None, total: RowReading | None,
                 review: list[ReviewItem], settings: ReconcileSettings = DEFAULT) -> None:
    """Total-row cells the reader could not read, or read differently from what ``best`` shows;
    where the cumulatives overrode the reading, the candidates are the values shown by the
    readings of the whole sheet, by their probability (one scale, as :func:`overridden`)."""
    if best is None or total is None:
        return
    for side, (value, source, *_rest) in best.totals.items():
        cell = total.cells.get("cum_" + side) or total.cells.get(side)
        read = [(v, round(float(p), 4)) for v, p in (cell.candidates if cell else [])
                if v is not None]
        if source == "none":
            review.append(ReviewItem(None, "total_" + side, read, "Total row could not be read",
                                     kind="total"))
        elif source == "inferred" or (
                cell is not None and value != cell_model(cell, settings=settings).options[0].value):
            # a less likely candidate chosen because the cumulatives agree with it: never silently
            post = posteriors((h.totals.get(side), h.weight) for h in hyps)
            review.append(ReviewItem(None, "total_" + side,
                                     overridden(value, dict(post).get(value, 0.0), post,
                                                cell.best if cell else None),
                                     messages.total_read_as_but(best_read(cell), value),
                                     kind="total"))


def winners_review(winners_hint: str | None, winners_text: str | None, winners: str | None,
                   review: list[ReviewItem]) -> None:
    """A winners line the reader could not tell (the named winners cannot be checked): a person
    reads it, or a winners mistake would go unnoticed."""
    if winners_hint in ("ns", "ew"):
        return
    text = (winners_text or "").strip()
    review.append(ReviewItem(None, "winners", [(winners, 1.0)] if winners else [],
                             messages.winners_unread(text, winners), kind="winner"))


def one_per_cell(review: list[ReviewItem]) -> list[ReviewItem]:
    """At most one review item per cell: the most telling reason."""
    def rank(item: ReviewItem) -> int:
        return next((i for i, p in enumerate(REVIEW_PRIORITY) if item.reason.startswith(p)),
                    len(REVIEW_PRIORITY))

    kept: dict[tuple, ReviewItem] = {}
    for item in review:
        key = (item.deal, item.column)
        if key not in kept or rank(item) < rank(kept[key]):
            kept[key] = item
    return list(kept.values())
