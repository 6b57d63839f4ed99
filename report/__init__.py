"""Reports a person looks at: a read sheet as text (report.text), a batch as HTML (report.html)."""

UNSURE_NOTE = "the reading of this cell is unsure too: check it by eye before telling the players"


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
