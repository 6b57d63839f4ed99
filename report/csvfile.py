"""CSV, one format for the whole tool: ``rubberscan read --format csv`` writes a row per deal and
``rubberscan export`` a row per match (and per failed file), with the same column names for the
same things, one writer and one safety rule (text that came from handwriting or e-mail headers
never starts a spreadsheet formula).  Plain data in: the CONTRACT.md object of a sheet.
"""

from __future__ import annotations

import csv
from typing import TextIO

from scoring.formspec import DEAL_COLUMNS, NUMBER_COLUMNS

# A row per deal of a read sheet (`read --format csv`); a file that could not be read is one
# row with its error.
DEAL_ROW_COLUMNS = (("source", "page", "deal") + DEAL_COLUMNS
                    + tuple(f"conf_{c}" for c in NUMBER_COLUMNS)
                    + ("flag_messages", "review_reasons", "error"))
# A row per sheet of a batch folder (`export`): the match's names, totals and state.
MATCH_COLUMNS = ("source", "page", "date", "sender", "subject", "attachment", "names_ns",
                 "names_ew", "winners", "total_ns", "total_ew", "margin", "flags", "reviews",
                 "flag_messages", "status", "error", "sheet_id")
JOIN = " | "  # between the messages of one cell


def deal_rows(obj: dict) -> list[dict]:
    """The rows of one `rubberscan read` object (CONTRACT.md, "page" 1-based when given)."""
    base = {"source": obj.get("source"), "page": obj.get("page", 1)}
    if "error" in obj:
        return [{**base, "error": obj["error"]}]
    rows = []
    for row in obj.get("rows", []):
        deal = row.get("deal")
        conf = row.get("confidence", {})
        rows.append({
            **base, "deal": deal, **{k: row.get(k) for k in DEAL_COLUMNS},
            **{f"conf_{k}": conf.get(k) for k in NUMBER_COLUMNS},
            "flag_messages": JOIN.join(f["message"] for f in obj.get("flags", [])
                                       if f.get("deal") == deal),
            "review_reasons": JOIN.join(f"{r['column']}: {r['reason']}"
                                        for r in obj.get("review", []) if r.get("deal") == deal),
        })
    return rows


def match_row(sheet) -> dict:
    """The row of one sheet of a batch folder (report.records.SheetEntry)."""
    r = sheet.result or {}
    names, totals = r.get("names") or {}, r.get("totals") or {}
    tn, te = totals.get("ns"), totals.get("ew")
    flags = r.get("flags") or []
    ok = sheet.status == "ok" and bool(r)
    return {
        "source": sheet.source, "page": sheet.page + 1, "date": sheet.date,
        "sender": sheet.sender, "subject": sheet.subject, "attachment": sheet.attachment,
        "names_ns": names.get("ns"), "names_ew": names.get("ew"), "winners": r.get("winners"),
        "total_ns": tn, "total_ew": te,
        "margin": abs(tn - te) if isinstance(tn, int) and isinstance(te, int) else None,
        "flags": len(flags) if ok else None,
        "reviews": len(r.get("review") or []) if ok else None,
        "flag_messages": JOIN.join(str(f.get("message")) for f in flags),
        "status": "ok" if ok else "failed", "error": sheet.error, "sheet_id": sheet.sheet_id,
    }


class Writer:
    """Rows of ``columns`` to ``out``, the header first; every cell made safe (:func:`cell`)."""

    def __init__(self, out: TextIO, columns: tuple[str, ...]) -> None:
        self._csv = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore",
                                   lineterminator="\n")
        self._csv.writeheader()
        self.rows = 0

    def write(self, rows: list[dict]) -> None:
        for row in rows:
            self._csv.writerow({k: cell(v) for k, v in row.items()})
        self.rows += len(rows)


def cell(value: object) -> object:
    """Neutralise spreadsheet formulas in text that came from handwriting or e-mail headers."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value
