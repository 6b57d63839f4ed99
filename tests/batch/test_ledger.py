"""The SQLite ledger: replacing records, results with flags/reviews, schema version, settings."""

from __future__ import annotations

import sqlite3

import pytest

from batch.ledger import Ledger, LedgerError, ScanRecord, SheetRecord

RESULT = {"names": {"ns": "A / B", "ew": "C / D"}, "winners": "ew", "totals": {"ns": 990, "ew": 1460},
          "rows": [], "flags": [{"deal": 4, "kind": "cumulative", "side": "ns", "written": 2870,
                                 "expected": 2880, "message": "deal 4: N/S cumulative 2870"}],
          "review": [{"deal": 3, "column": "cum_ns", "candidates": [[1250, 0.55]], "reason": "unsure"}]}


def scan(sha="a" * 64, status="done", sheets=None, **kw) -> ScanRecord:
    return ScanRecord(sha256=sha, source=kw.pop("source", "s.png"), status=status,
                      sheets=sheets if sheets is not None else
                      [SheetRecord(sheet_id=f"{sha[:12]}-p1", page=0, reading={"rows": []}, result=RESULT)],
                      **kw)


def test_record_and_query(tmp_path):
    with Ledger(tmp_path / "l.sqlite") as led:
        led.record_scan(scan(sender="x@y", subject="week 2", date="2026-01-02"), {"unfinished": "each",
                                                                               "partscore": 100})
        led.record_scan(scan("b" * 64, status="failed", sheets=[], error="time limit exceeded"))
        (ok, failed) = led.sheets()
        assert (ok.sender, ok.subject, ok.date, ok.status) == ("x@y", "week 2", "2026-01-02", "ok")
        assert ok.result["totals"] == {"ns": 990, "ew": 1460}
        assert ok.rules == {"unfinished": "each", "partscore": 100}
        assert (failed.sheet_id, failed.status, failed.error) == (None, "failed", "time limit exceeded")
        assert led.counts() == {"scans": 2, "sheets": 1, "flagged": 1, "review": 1, "failed": 1}
        row = led.db.execute("SELECT margin, n_flags, n_reviews FROM matches").fetchone()
        assert row == (470, 1, 1)
        assert led.db.execute("SELECT deal, kind, written, expected FROM flags").fetchall() == \
            [(4, "cumulative", "2870", "2880")]


def test_same_content_replaces_and_unhashed_failures_replace_by_source(tmp_path):
    with Ledger(tmp_path / "l.sqlite") as led:
        led.record_scan(scan())
        led.record_scan(scan(source="renamed.png"))
        led.record_scan(ScanRecord(sha256=None, source="gone.png", status="failed", error="e1"))
        led.record_scan(ScanRecord(sha256=None, source="gone.png", status="failed", error="e2"))
        rows = led.sheets()
        assert [(r.source, r.error) for r in rows] == [("renamed.png", None), ("gone.png", "e2")]
        assert led.db.execute("SELECT COUNT(*) FROM flags").fetchone() == (1,)  # cascaded
        assert led.has_scan("a" * 64) and not led.has_scan("c" * 64)


def test_set_result_replaces_flags_and_reviews(tmp_path):
    with Ledger(tmp_path / "l.sqlite") as led:
        led.record_scan(scan())
        led.set_result("aaaaaaaaaaaa-p1", {**RESULT, "flags": [], "review": []}, None)
        assert led.counts()["flagged"] == 0
        assert led.db.execute("SELECT COUNT(*) FROM reviews").fetchone() == (0,)


def test_settings_persist_and_schema_version_is_checked(tmp_path):
    path = tmp_path / "l.sqlite"
    with Ledger(path) as led:
        led.set_setting("rules", {"unfinished": "ahead", "partscore": 50})
    with Ledger(path) as led:
        assert led.get_setting("rules") == {"unfinished": "ahead", "partscore": 50}
    db = sqlite3.connect(path)
    db.execute("UPDATE schema_version SET version = 99")
    db.commit()
    db.close()
    with pytest.raises(LedgerError, match="schema version 99"):
        Ledger(path)


def test_scan_readers_come_from_the_stored_readings(tmp_path):
    with Ledger(tmp_path / "l.sqlite") as led:
        led.record_scan(scan())  # a reading stored before readings named their reader
        assert led.scan_readers("a" * 64) == {""}  # an earlier reader, whichever it was
        pages = [SheetRecord(sheet_id=f"bbbb-p{i}", page=i, reading={"rows": [], "meta": {"reader": v}}, result=RESULT)
                 for i, v in enumerate(("abc+def", "abc+def", "123"))]
        led.record_scan(scan("b" * 64, sheets=pages))
        assert led.scan_readers("b" * 64) == {"abc+def", "123"}
        assert led.scan_readers("c" * 64) == set()


def test_scans_recorded_together_are_one_transaction(tmp_path):
    """record_scans (a cluster's scans finished at once): all of them or, when one cannot be
    written, none -- never part of the group."""
    with Ledger(tmp_path / "l.sqlite") as led:
        led.record_scans([scan("a" * 64), scan("b" * 64, source="t.png")])
        assert [s.source for s in led.sheets()] == ["s.png", "t.png"]
        with pytest.raises(LedgerError):  # the second breaks the status check: neither is kept
            led.record_scans([scan("c" * 64, source="u.png"), scan("d" * 64, status="weird")])
        assert led.counts()["scans"] == 2 and led.scan_status("c" * 64) is None
