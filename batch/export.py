"""One CSV row per match (and per failed file, so failures never hide)."""

from __future__ import annotations

import csv
from typing import TextIO

from batch.ledger import Ledger

CSV_COLUMNS = ("source", "page", "date", "sender", "subject", "attachment", "names_ns", "names_ew",
               "winners", "total_ns", "total_ew", "margin", "flags", "reviews", "flag_messages",
               "status", "error", "sheet_id")


def export_rows(ledger: Ledger) -> list[dict]:
    rows = []
    for s in ledger.sheets():
        r = s.result or {}
        names, totals = r.get("names") or {}, r.get("totals") or {}
        tn, te = totals.get("ns"), totals.get("ew")
        flags = r.get("flags") or []
        ok = s.status == "ok" and bool(r)
        rows.append({
            "source": s.source, "page": s.page + 1, "date": s.date, "sender": s.sender,
            "subject": s.subject, "attachment": s.attachment,
            "names_ns": names.get("ns"), "names_ew": names.get("ew"), "winners": r.get("winners"),
            "total_ns": tn, "total_ew": te,
            "margin": abs(tn - te) if isinstance(tn, int) and isinstance(te, int) else None,
            "flags": len(flags) if ok else None, "reviews": len(r.get("review") or []) if ok else None,
            "flag_messages": " | ".join(str(f.get("message")) for f in flags),
            "status": "ok" if ok else "failed", "error": s.error, "sheet_id": s.sheet_id,
        })
    return rows


def write_csv(ledger: Ledger, out: TextIO) -> int:
    """Write the CSV to ``out``; returns the number of data rows."""
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    rows = export_rows(ledger)
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return len(rows)


def _cell(value: object) -> object:
    """Neutralise spreadsheet formulas in text that came from handwriting or e-mail headers."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value
