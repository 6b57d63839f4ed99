"""Re-running `batch` (--force), `audit`, or a newer reader never loses a person's decision: each
is applied again on top of the new reading.  The batch runs for real with the tests' fake page
reader (tests/support.py) and the real reconciliation."""

from __future__ import annotations

import json

from batch.audit import audit
from batch.inputs import collect_inputs
from batch.ledger import LEDGER_NAME, Ledger
from batch.runner import BatchOptions, run_batch
from review.folder import Folder
from review.providers import default_providers
from scoring.reconcile.trust import trusted
from scoring.sheet import CellReading
from tests.support import consistent_rows, fake_reader, sheet, sheet_bytes

GOOD = consistent_rows([(0, 370), (120, 0), (0, 60), (530, 0), (0, 300), (90, 0), (0, 620)])
UNREAD = {"2:cum_ns": [[None, 0.9]]}  # deal 2's N/S cumulative unreadable (120)


def newer_reader(path, data=None, name=None):
    """Another reader: reads deal 2's N/S cumulative surely as 170 (wrongly)."""
    for outcome in fake_reader(path, data, name):
        if outcome.reading is not None:
            row = outcome.reading.rows[1]
            row.cells["cum_ns"] = CellReading([(170, 0.99)])
            outcome.reading.meta["reader"] = "newer"
        yield outcome


def batch(inputs, out, reader=fake_reader, force=False):
    options = BatchOptions(out_dir=out, jobs=1, progress=False, force=force)
    return run_batch(collect_inputs([inputs], exclude=[out]), options, reader=reader)


def cum_ns(out, sid: str, deal: int = 2):
    with Ledger(out / LEDGER_NAME) as ledger:
        result = ledger.sheets(sid)[0].result
    return next(r for r in result["rows"] if r["deal"] == deal)["cum_ns"]


def decided_folder(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.png").write_bytes(sheet_bytes(GOOD, unsure=UNREAD))
    out = tmp_path / "out"
    batch(inputs, out)
    folder = Folder(out, default_providers())
    (sheet,) = folder.ledger().sheets()
    it = next(i for i in folder.items(sheet) if i.key == "review:2:cum_ns")
    folder.decide(sheet.sheet_id, 0, it.decide({"value": "120"}), "alice")
    return inputs, out, sheet.sheet_id


def test_batch_force_and_a_newer_reader_keep_a_decision(tmp_path):
    inputs, out, sid = decided_folder(tmp_path)
    assert cum_ns(out, sid) == 120
    batch(inputs, out, force=True)  # the same reader again: the cell unreadable again
    assert cum_ns(out, sid) == 120
    batch(inputs, out, reader=newer_reader, force=True)  # reads 170 surely
    assert cum_ns(out, sid) == 120
    with Ledger(out / LEDGER_NAME) as ledger:
        assert [d["after"] for d in ledger.decisions(sid)] == [120]
        result = ledger.sheets(sid)[0].result
        assert ledger.reading(sid)["meta"]["reader"] == "newer"  # the new reading is kept ...
        status, version = ledger.review_state(sid)
        assert status == "to check" and version > 1  # the batches moved it on: open pages are stale
    # the person's value on top: no flag or review item about deal 2 (the short fake sheet's
    # missing deals and unread winners line are all there is)
    assert [f["kind"] for f in result["flags"]] == ["missing_deal"]
    assert [r["column"] for r in result["review"]] == ["winners"]
    # the per-sheet file the batch wrote shows the decided value too
    assert json.loads((out / "sheets" / f"{sid}.json").read_text())["rows"][1]["cum_ns"] == 120


def test_without_the_decision_the_newer_reading_would_show(tmp_path):
    # the control: the same runs with the decision undone show what the reader read
    inputs, out, sid = decided_folder(tmp_path)
    folder = Folder(out, default_providers())
    folder.undo(sid, folder.ledger().review_state(sid)[1], None, "alice")
    batch(inputs, out, reader=newer_reader, force=True)
    assert cum_ns(out, sid) == 170


def test_audit_keeps_a_decision(tmp_path):
    inputs, out, sid = decided_folder(tmp_path)
    before = audit(out, unfinished="ahead")
    assert before.errors == []
    assert cum_ns(out, sid) == 120
    with Ledger(out / LEDGER_NAME) as ledger:
        assert len(ledger.decisions(sid)) == 1
        assert ledger.get_setting("rules")["unfinished"] == "ahead"


def test_a_rerun_without_force_leaves_decisions_alone(tmp_path):
    inputs, out, sid = decided_folder(tmp_path)
    summary = batch(inputs, out)
    assert summary.already == 1 and cum_ns(out, sid) == 120


def test_reconciliation_never_widens_a_person_reading():
    # on a hard sheet (doubt 0.3) every machine cell's "none of these" is widened; a person's not
    reading = sheet([(0, 370, 0, 370)])
    reading.meta["doubt"] = 0.3
    reading.rows[0].cells["cum_ew"] = CellReading([(370, 1.0)], person=True)
    out = trusted(reading)
    assert out.rows[0].cells["cum_ew"].candidates == [(370, 1.0)]
    assert any(v is None for v, _ in out.rows[0].cells["ew"].candidates)
