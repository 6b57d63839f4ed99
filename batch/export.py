"""`rubberscan export`: every match of a batch folder (and every failed file, so failures never
hide) with the values as a person verified them in the review app and each sheet's review
status: CSV, a row per sheet in the tool's one CSV format (report/csvfile.py), or JSON, an object
per sheet with its rows, flags and decisions."""

from __future__ import annotations

import json
from typing import TextIO

from batch.decided import decided_cells, flag_key, flag_target, open_items, sheet_status
from batch.ledger import Ledger, LedgerSheet
from report.csvfile import MATCH_COLUMNS, Writer, match_row

# the review app's columns after the match's own
EXPORT_COLUMNS = MATCH_COLUMNS + ("review_status", "decided_cells", "decided_by")


def _review(sheet: LedgerSheet, decisions: list[dict]) -> dict:
    failed = sheet.status != "ok" or not sheet.result
    cells = sorted(decided_cells(decisions))
    return {"review_status": sheet_status(sheet.result, decisions, failed=failed),
            "decided_cells": cells,
            "decided_by": sorted({d["who"] for d in decisions})}


def write_csv(ledger: Ledger, out: TextIO) -> int:
    """Write the CSV to ``out``; returns the number of data rows."""
    writer = Writer(out, EXPORT_COLUMNS)
    rows = []
    for sheet in ledger.sheets():
        row = match_row(sheet)
        if sheet.sheet_id is not None:
            review = _review(sheet, ledger.decisions(sheet.sheet_id))
            row.update(review_status=review["review_status"],
                       decided_cells=" ".join(review["decided_cells"]),
                       decided_by=", ".join(review["decided_by"]))
        rows.append(row)
    writer.write(rows)
    return writer.rows


def sheet_object(sheet: LedgerSheet, decisions: list[dict]) -> dict:
    """One sheet for `export --format json`: where it came from, its review status, the values
    as decided (each row naming the cells a person decided), its flags (open or answered), the
    review items still open and the decisions in force."""
    r = sheet.result or {}
    obj: dict = {"sheet_id": sheet.sheet_id, "source": sheet.source, "page": sheet.page + 1,
                 "date": sheet.date, "sender": sheet.sender, "subject": sheet.subject,
                 "status": "ok" if sheet.status == "ok" and r else "failed",
                 "error": sheet.error}
    if sheet.sheet_id is None:
        obj["review_status"] = "to check"
        return obj
    review = _review(sheet, decisions)
    obj["review_status"] = review["review_status"]
    cells = set(review["decided_cells"])
    if r:
        totals = r.get("totals") or {}
        tn, te = totals.get("ns"), totals.get("ew")
        obj.update(names=r.get("names"), winners=r.get("winners"), totals=totals,
                   margin=abs(tn - te) if isinstance(tn, int) and isinstance(te, int) else None)
        obj["rows"] = [{**row, "decided": [c for c in ("dealer", "ns", "ew", "cum_ns", "cum_ew")
                                           if f"{row.get('deal')}:{c}" in cells]}
                       for row in r.get("rows") or []]
        still, flags = open_items(r, decisions)
        open_flags = {flag_key(f) for f in flags}
        answered = {d["target"]: d["after"] for d in decisions if d["kind"] == "flag"}
        obj["flags"] = [{**f, "state": "open" if flag_key(f) in open_flags else
                         answered.get(flag_key(f), "confirmed" if flag_target(f) in cells
                                      else "answered")}
                        for f in r.get("flags") or []]
        obj["dismissed_flags"] = r.get("dismissed_flags") or []
        obj["review"] = still
        if r.get("rescan"):
            obj["rescan"] = r["rescan"]
    obj["decisions"] = [{k: d[k] for k in ("at", "who", "kind", "target", "before", "after",
                                            "reason")} for d in decisions]
    return obj


def write_json(ledger: Ledger, out: TextIO) -> int:
    """Write one JSON document, an array of :func:`sheet_object` in processing order, to ``out``;
    returns the number of sheets."""
    objects = [sheet_object(s, ledger.decisions(s.sheet_id) if s.sheet_id else [])
               for s in ledger.sheets()]
    out.write(json.dumps(objects, indent=2, ensure_ascii=False, default=str) + "\n")
    return len(objects)
