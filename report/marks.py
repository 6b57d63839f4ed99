"""Which cells of a read sheet its flags and review items point at (the CONTRACT.md object), so
the text and HTML reports mark the same cells alike."""

from __future__ import annotations

UNSURE_NOTE = "the reading of this cell is unsure too: check it by eye before telling the players"
INFERRED_LEGEND = ("(in brackets): not written on the sheet -- a dealer the rotation gives, or a "
                   "number the sheet's arithmetic gives where something else was read")


def inferred_note(row: dict, col: str) -> str:
    """Why a row's value in ``col`` is not what is written on the sheet ("" when it is): a dealer
    the players did not write (``dealer_inferred``), a number the arithmetic gives
    (``inferred``)."""
    if col == "dealer" and row.get("dealer_inferred"):
        return "not written: the dealer rotation gives it"
    if col in (row.get("inferred") or []):
        return "not what is read on the sheet: the arithmetic gives it"
    return ""


def review_cells(result: dict) -> set[tuple[str, str]]:
    """(row, cell key) of every review item; a Total-row item ("total_ns") is the Total row's
    cumulative cell."""
    out = set()
    for r in result.get("review") or []:
        col = str(r.get("column"))
        if r.get("deal") is None and col.startswith("total_"):
            out.add(("total", "cum_" + col[len("total_"):]))
        else:
            out.add(("" if r.get("deal") is None else str(r["deal"]), col))
    return out


def flagged_cells(result: dict) -> set[tuple[str, str]]:
    """(row label, column) pairs a flag points at; column "*" = the whole row."""
    out: set[tuple[str, str]] = set()
    for f in result.get("flags") or []:
        kind, side, col = f.get("kind"), f.get("side"), f.get("column")
        deal = f.get("deal")
        row = "total" if kind == "total" else str(deal) if deal is not None else None
        if row is None:
            continue
        if col:
            out.add((row, col))
        elif kind == "cumulative":
            out.update({(row, f"cum_{side}")} if side else {(row, "cum_ns"), (row, "cum_ew")})
        elif kind == "score":
            out.update({(row, side)} if side else {(row, "ns"), (row, "ew")})
        elif kind == "dealer":
            out.add((row, "dealer"))
        elif side:
            out.update({(row, side), (row, f"cum_{side}")})
        else:
            out.add((row, "*"))
    return out


def cell_state(row: str, key: str, flagged: set, review: set) -> str:
    """"flag", "review" or "read" for one cell, given :func:`flagged_cells` and
    :func:`review_cells`."""
    if (row, key) in flagged or (row, "*") in flagged:
        return "flag"
    if (row, key) in review or (row == "total" and ("", key) in review):
        return "review"
    return "read"


def reading_unsure(flag: dict, result: dict) -> bool:
    """Is the cell ``flag`` points at also in ``result``'s review list?  Then the flag rests on a
    reading a person should confirm first (a misread can look exactly like a miscopied number)."""
    if flag.get("kind") == "total" and flag.get("side"):
        cell = ("total", f"cum_{flag['side']}")
    elif flag.get("column"):
        cell = ("" if flag.get("deal") is None else str(flag["deal"]), flag["column"])
    else:
        return False
    return cell in review_cells(result)
