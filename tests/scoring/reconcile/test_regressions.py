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


def test_a_slip_carried_forward_is_not_explained_away_by_writing_in_an_empty_cell():
    # Generated sheet 80074 (a photo of MNIST handwriting) read by the real reader: at deal 27 the
    # players wrote N/S cumulative 3790 for 2790 + 0 and carried the 1000 to the end.  The other
    # way to square it, "N/S scored 1000 there and the reader saw an empty cell" (read empty at
    # 0.998), must not outweigh the slip because the sheet is hard to read.
    raw = json.loads((DATA / "reading-80074-carried-slip-over-an-empty-cell.json").read_text())
    obj = reconcile(reading_from_json(raw), explain=False).to_json()
    slips = [f for f in obj["flags"] if f["kind"] == "cumulative"]
    assert [(f["deal"], f["side"], f["written"], f["expected"]) for f in slips] == [(27, "ns", 3790, 2790)]
    assert [r["cum_ns"] for r in obj["rows"][26:28]] == [3790, 3790]  # as written: the slip is carried


def test_a_lone_miscopied_cumulative_read_surely_is_flagged_not_explained_as_a_misread():
    # Generated sheet 70058 (a photo of MNIST handwriting) read by the real reader: at deal 19 the
    # players wrote N/S cumulative 3990 for 3790 + 0 and went on from 3790 (a lone miscopy).  The
    # reader read 3990 at 0.996; "3790 written, misread" must not be as likely as the miscopy
    # because the sheet's floor for "none of these" (1.2 % here) says so.
    raw = json.loads((DATA / "reading-70058-lone-miscopied-cumulative.json").read_text())
    obj = reconcile(reading_from_json(raw), explain=False).to_json()
    slips = [(f["deal"], f["side"], f["written"], f["expected"]) for f in obj["flags"] if f["kind"] == "cumulative"]
    assert (19, "ns", 3990, 3790) in slips
    assert (2, "ns", 100, 0) in slips  # the sheet's other planted mistake, a slip carried forward
    assert [r["cum_ns"] for r in obj["rows"][17:20]] == [3790, 3990, 3790]  # as written
