"""Reconciliation on real reader output that once broke it (stored SheetReadings)."""

from __future__ import annotations

import json
from pathlib import Path

from batch.serial import reading_from_json
from scoring.reconcile import reconcile

DATA = Path(__file__).resolve().parent / "data"


def test_unreadable_cell_in_an_impossible_pair_does_not_crash():
    # Generated sheet 70005 read by the real reader: at deal 5 the decoder's best
    # hypothesis has a "score" mistake on a deal whose other cell is unreadable (None).
    raw = json.loads((DATA / "reading-70005-unreadable-in-impossible-pair.json").read_text())
    sheet = reconcile(reading_from_json(raw))
    obj = sheet.to_json()
    assert [r["deal"] for r in obj["rows"]] == list(range(1, 31))
    # the doubt about deal 5 is reported, not silently dropped
    assert any(f.get("deal") == 5 for f in obj["flags"]) or any(
        r["deal"] == 5 for r in obj["review"])
