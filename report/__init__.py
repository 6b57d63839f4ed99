"""Reports a person looks at: a read sheet as text (report.text), a batch as HTML (report.html)."""

UNSURE_NOTE = "the reading of this cell is unsure too: check it by eye before telling the players"


def reading_unsure(flag: dict, result: dict) -> bool:
    """Is the cell ``flag`` points at also in ``result``'s review list?  Then the flag rests on a
    reading a person should confirm first (a misread can look exactly like a miscopied number)."""
    column, deal = flag.get("column"), flag.get("deal")
    if flag.get("kind") == "total" and flag.get("side"):
        column, deal = f"total_{flag['side']}", None
    if not column:
        return False
    return any(r.get("column") == column and r.get("deal") == deal for r in result.get("review") or [])

