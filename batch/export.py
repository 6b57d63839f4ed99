"""`rubberscan export`: one CSV row per match of a batch folder (and per failed file, so failures
never hide), in the tool's one CSV format (report/csvfile.py)."""

from __future__ import annotations

from typing import TextIO

from batch.ledger import Ledger
from report.csvfile import MATCH_COLUMNS, Writer, match_row


def write_csv(ledger: Ledger, out: TextIO) -> int:
    """Write the CSV to ``out``; returns the number of data rows."""
    writer = Writer(out, MATCH_COLUMNS)
    writer.write([match_row(sheet) for sheet in ledger.sheets()])
    return writer.rows
