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
        if m.shape == "column":
            other = SIDE_NAMES["ew" if m.side == "ns" else "ns"]
            return (f"deal {deal}: {m.written} is written in the {side} column, but the "
                    f"cumulatives add it to {other}: the score is in the wrong column")
        if m.expected == 0 and m.score is not None:
            other = SIDE_NAMES["ew" if m.side == "ns" else "ns"]
            return (f"deal {deal}: {side} {m.written} and {other} {m.score} both scored; on one "
                    "deal that only happens when one side scored honours alone (100 or 150) — "
                    f"{side} {m.written} looks wrong")
        if m.shape == "zero":
            return (f"deal {deal}: {side} score {m.written} cannot be right, but {m.expected} can: "
                    f"a 0 {'too many' if m.written > m.expected else 'left out'}")
        if m.shape != "rules":
            return f"deal {deal}: {m.shape}"
        return (f"deal {deal}: {side} score {m.written} cannot be right: no result gives it "
                "with the games and part-scores the sheet shows so far")
    return f"deal {deal}: {m.kind}"


def misread_or_mistake(m, deal) -> str:
    """The review reason for a mistake (decode.Mistake) not probable enough to flag: what was read,
    what the arithmetic says, and what each answer would mean."""
    side = SIDE_NAMES.get(m.side or "", "")
    head = "a misread or the players' mistake: "
    if m.kind == "cumulative":
        return (head + f"deal {deal}'s {side} cumulative looks like {m.written}, but {m.base} + "
                f"{m.score} = {m.expected}. If the sheet says {m.written}, the players added up "
                f"wrong; if it says {m.expected}, it was only misread")
    if m.kind == "total":
        return (head + f"the Total row's {side} total looks like {m.written}, but the last "
                f"cumulative is {m.expected}. If the sheet says {m.written}, the players copied "
                f"it wrong; if it says {m.expected}, it was only misread")
    return (head + mistake(m, deal) + ". If the scores on the sheet are as read, this is the "
            "players' mistake; if not, they were only misread")


def unsure(candidates: list) -> str:
    """Review: a cell read unsurely where the sheet's arithmetic does not decide (or decides with
    only ``candidates[0]``'s probability)."""
    values = [("empty" if v == 0 else str(v)) for v, _ in candidates if v is not None]
    if len(values) < 2:
        return "unsure reading: please check this number on the sheet"
    return (f"unsure reading: is it {' or '.join(values[:3])}? The shown "
            f"{values[0]} is the likelier; look at the sheet")


def flag_rests_on(deal: int, shown, maybe: str) -> str:
    """Review: a number, read unsurely, that the cumulative flag at ``deal`` rests on."""
    return (f"the flag at deal {deal} rests on this number, read unsurely as {shown}{maybe}: check "
            "it first -- if the sheet says otherwise here, the players' mistake is here instead")


def read_as_but(read, shown) -> str:
    """Review: a cell whose reading the arithmetic overrode; the row shows ``shown``."""
    what = "empty" if read == 0 else str(read)
    return (f"read as {what}, but the arithmetic gives {shown} (shown in the row). If the sheet "
            f"says {what}, the players made a mistake here")


def score_taken_to_fit(deal: int, col: str, value, read, cum) -> str:
    """Review, at a cumulative: the deal's score in ``col`` is shown as ``value`` because the
    cumulative ``cum`` fits it, though the reader hardly proposed it (it read ``read``)."""
    side = "N/S" if col == "ns" else "E/W"
    seen = "unreadable" if read is None else "empty" if read == 0 else str(read)
    return (f"a misread or the players' mistake: deal {deal}'s {side} score is shown as {value} "
            f"to fit the {side} cumulative {cum}, but it reads {seen}. If the sheet's score is not "
            f"{value}, the players added up wrong here")


def total_read_as_but(read: str, shown) -> str:
    return (f"Total row read as {read}, but the cumulatives give {shown}. If the sheet says "
            f"{read}, the players copied the total wrong")


def dealer_out_of_turn(deal: int, written: str, expected: str, before: tuple | None) -> str:
    """A dealer flag; ``before`` is (seat, deal) of the last dealer shown before it, if any."""
    prev = f"after {before[0]} on deal {before[1]}, " if before else ""
    return (f"deal {deal}: dealer {written}, but {prev}the dealer should be {expected} "
            "(dealer rotates N, E, S, W)")


def dealer_misread_or_mistake(deal: int, written: str, expected: str) -> str:
    return (f"a misread or the players' mistake: the dealer of deal {deal} looks like {written}, "
            f"but the rotation gives {expected}. If the sheet says {written}, the players wrote "
            f"the wrong dealer; if it says {expected}, it was only misread")


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


def winners_unclear(text: str | None, winners: str, final: dict) -> str:
    """Review: a winners line, not read clearly, that seems to name ``winners`` though they do not
    have the higher total (``final``: the totals by side)."""
    other = "ew" if winners == "ns" else "ns"
    why = (f"the totals are level ({final['ns']} each)" if final["ns"] == final["ew"] else
           f"{SIDE_NAMES[other]} have the higher total ({final[other]} v {final[winners]})")
    return (f"the winners line, read as {(text or '').strip()!r}, seems to name "
            f"{SIDE_NAMES[winners]}, but {why}. Does it name them (the players' mistake), or was "
            "it misread?")


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


def unread_filled(shown) -> str:
    """Review: a number the reader could not read on a photo, filled in by the arithmetic."""
    return f"hard to read in this photo; the arithmetic gives {shown}: check it"


def beside_missing(shown, why: str) -> str:
    """Review: a number of a deal part of which the picture does not show readably (``why``)."""
    return f"read as {shown}, but part of this deal is hidden ({why}): check this number"


def doubtful_photo(share: float) -> str:
    """The sheet's rescan advice: a photo so much in doubt that nothing on it is taken as sure."""
    return (f"{share:.0%} of the numbers on this photo could not be read surely, so none of them "
            "is taken as read: take another photo in good light, holding the phone still, with the "
            "sheet filling the frame; its numbers are to be checked.")


def small_writing(shown, cause: str = "small") -> str:
    """Review: a number on a photo whose writing is too small (or, ``cause`` "faint", too faint or
    blurred) to read surely (the sheet says why)."""
    what = "too faint or blurred" if cause == "faint" else "too small"
    return (f"read as {shown}, but the writing is {what} in this photo to be sure of it"
            if shown is not None else f"the writing is {what} in this photo to read it")


def faint_scan(shown) -> str:
    """Review: a number read on a scan sent back because much of its writing could not be read."""
    return (f"read as {shown}, but much of this scan is too faint to read surely: check this "
            "number on a clearer scan")
