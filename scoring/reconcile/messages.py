"""The sentences reconciliation writes for the organiser: flags, sheet-level review, rescan."""

from __future__ import annotations

from scoring.formspec import SIDE_NAMES


def mistake(m, deal) -> str:
    """A numbers mistake (decode.Mistake) found at ``deal``, in words."""
    side = SIDE_NAMES.get(m.side or "", "")
    if m.kind == "cumulative":
        text = (f"deal {deal}: {side} cumulative {m.written}, but {m.base} + {m.score} "
                f"= {m.expected}")
        if m.shape == "slip":
            return text + " (the error is carried into the later cumulatives)"
        return text
    if m.kind == "total":
        return (f"Total row: {side} total {m.written}, but the cumulative after deal {deal} "
                f"is {m.expected}")
    if m.kind == "score":
        if m.expected == 0 and m.score is not None:
            other = SIDE_NAMES["ew" if m.side == "ns" else "ns"]
            return (f"deal {deal}: {side} {m.written} and {other} {m.score} both scored; on one "
                    "deal that only happens when one side scored honours alone (100 or 150) — "
                    f"{side} {m.written} looks wrong")
        if m.shape != "rules":
            return f"deal {deal}: {m.shape}"
        return (f"deal {deal}: {side} score {m.written} cannot be right: no result gives it "
                "with the games and part-scores the sheet shows so far")
    return f"deal {deal}: {m.kind}"


def misread_or_mistake(text: str) -> str:
    """The review reason for a mistake not probable enough to flag."""
    return "a misread or the players' mistake: " + text


def dealer_out_of_turn(deal: int, written: str, expected: str, before: tuple | None) -> str:
    """A dealer flag; ``before`` is (seat, deal) of the last dealer shown before it, if any."""
    prev = f"after {before[0]} on deal {before[1]}, " if before else ""
    return (f"deal {deal}: dealer {written}, but {prev}the dealer should be {expected} "
            "(dealer rotates N, E, S, W)")


def dealer_misread_or_mistake(written: str, expected: str) -> str:
    return (f"dealer {written} breaks the rotation (expected {expected}): a misread or the "
            "players' mistake")


def dealer_overridden(read: str, shown: str) -> str:
    return f"dealer read as {read}, but the rotation gives {shown}"


def empty_row(others: int) -> str:
    """Review: an empty row on a sheet with many (``others`` more) between written ones."""
    return (f"the row reads as empty, as do {others} other rows between written ones: more likely "
            "writing the reader did not see than deals the players skipped")


EMPTY_ROW_UNSURE = ("the row reads as empty, but the reading is unsure: a missing deal, or "
                    "writing the reader did not see")


def empty_row_missing(deal: int) -> str:
    return (f"deal {deal}: the row is empty — a deal is missing (a passed-out deal still counts "
            "and is written as a dash)")


def gap_missing(gap: int, before: int, after: int) -> str:
    return f"deal {gap}: missing — the sheet goes from deal {before} to deal {after}"


def why_more_deals(played: int, deals: int) -> str:
    return (f"a match is {deals} deals" if played < deals
            else "after a tie the match goes on two deals at a time")


def stops_unsure(last: int, why: str) -> str:
    return (f"the sheet reads as stopping at deal {last} ({why}), but with so many rows read as "
            "empty the rest may be writing the reader did not see")


def stops_missing(nxt: int, last: int, why: str) -> str:
    return f"deal {nxt}: missing — the sheet stops at deal {last}, and {why}"


def wrong_winners(winners: str, mine: int, theirs: int) -> str:
    name, other = SIDE_NAMES[winners], SIDE_NAMES["ew" if winners == "ns" else "ns"]
    return (f"the sheet names {name} as winners, but {other} have the higher total "
            f"({theirs} v {mine})")


def level_totals(total: int) -> str:
    return f"the totals are level ({total} each): the match needs two more deals"


def winners_unsure(winners: str, final: dict) -> str:
    """Review: named winners that the totals contradict, on a sheet too unsure to flag it."""
    return (f"winners line names {SIDE_NAMES[winners]}; the numbers read so far give "
            f"{final['ns']} (N/S) v {final['ew']} (E/W), but too many are unsure to say")


def winners_unread(text: str, winners: str | None) -> str:
    """Review: a winners line that names no pair the reader could tell."""
    return ((f"winners line read as {text!r}" if text else "winners line not read")
            + ": which pair does it name?"
            + (f" (the totals make {SIDE_NAMES[winners]} the winners)" if winners else ""))


def rescan(unread: int, written: int) -> str:
    """The request for a clearer scan of a sheet whose numbers mostly could not be read."""
    return (f"{unread} of the {written} written numbers could not be read with confidence: the "
            "writing is too faint or broken up in this scan. Ask the players for a clearer scan or "
            "photo (pencil often does not survive a fax).")
