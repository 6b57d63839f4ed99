"""Batch runs with an injected fake reader: failures, reruns, time limits, audit, export."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import time
from pathlib import Path

import pytest

from batch.audit import audit
from batch.export import EXPORT_COLUMNS, write_csv
from batch.inputs import collect_inputs
from batch.ledger import LEDGER_NAME, SCHEMA_VERSION, Ledger
from batch.runner import BatchOptions, run_batch
from report.csvfile import MATCH_COLUMNS as CSV_COLUMNS
from tests.support import consistent_rows, fake_reader, sheet_bytes, simple_reconciler

GOOD = consistent_rows([(0, 370), (120, 0), (0, 60), (530, 0), (0, 0), (90, 100)])
# deal 3: E/W cumulative written 440 where 370 + 60 = 430 (a players' mistake)
WRONG = [r if r[0:1] != ("S",) else ("S", 0, 60, 120, 440) for r in GOOD]


def run(inputs, out, **kw):
    options = BatchOptions(out_dir=out, jobs=kw.pop("jobs", 2), progress=False, **kw)
    return run_batch(collect_inputs(inputs, exclude=[out]), options, reader=fake_reader,
                     reconciler=simple_reconciler)


def make_inputs(folder):
    folder.mkdir()
    (folder / "a.png").write_bytes(sheet_bytes(GOOD))
    (folder / "b.png").write_bytes(sheet_bytes(WRONG, names=("Ann / Bob", "Cy / Di")))
    (folder / "c.png").write_bytes(sheet_bytes(GOOD, unsure={"2:cum_ns": [[120, 0.6], [170, 0.3]]},
                                               names=("<script>x</script>", "E / W")))
    (folder / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    return folder


def test_batch_records_failures_and_keeps_going(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    out = tmp_path / "out"
    summary = run([inputs], out)
    assert (summary.sheets, summary.flagged, summary.review, summary.failed) == (3, 1, 1, 1)
    assert "corrupt.png: " in summary.failures[0] and "not an image or PDF" in summary.failures[0]
    with Ledger(out / LEDGER_NAME) as ledger:
        rows = ledger.sheets()
        assert ledger.counts() == {"scans": 4, "sheets": 3, "flagged": 1, "review": 1, "failed": 1}
    by_name = {r.source.rsplit("/", 1)[1]: r for r in rows}
    assert by_name["corrupt.png"].status == "failed"
    assert "not an image or PDF" in by_name["corrupt.png"].error
    flags = by_name["b.png"].result["flags"]
    assert [(f["deal"], f["kind"], f["side"], f["written"], f["expected"]) for f in flags] == \
        [(3, "cumulative", "ew", 440, 430), (4, "cumulative", "ew", 430, 440)]
    # per-sheet outputs: CONTRACT object + explanations, page, picture
    sid = by_name["b.png"].sheet_id
    obj = json.loads((out / "sheets" / f"{sid}.json").read_text())
    assert obj["totals"] == {"ns": 740, "ew": 530} and obj["winners"] == "ns"
    assert obj["rows"][2] == {"deal": 3, "dealer": "S", "ns": 0, "ew": 60, "cum_ns": 120, "cum_ew": 440,
                              "confidence": {"ns": 0.99, "ew": 0.99, "cum_ns": 0.99, "cum_ew": 0.99}}
    assert obj["explanations"]["3"] == [{"text": "deal 3 scored"}]
    assert (out / "sheets" / f"{sid}.html").is_file() and (out / "sheets" / f"{sid}.jpg").is_file()
    report = (out / "report.html").read_text()
    assert "corrupt.png" in report and "not an image or PDF" in report
    assert "&lt;script&gt;x&lt;/script&gt;" in report and "<script>" not in report
    # no temp files left behind
    assert not [p for p in out.rglob("*.tmp")]


def test_rerun_skips_by_hash_and_force_redoes(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    out = tmp_path / "out"
    run([inputs], out)
    (inputs / "copy-of-a.png").write_bytes((inputs / "a.png").read_bytes())  # same content
    again = run([inputs], out)
    assert (again.sheets, again.already, again.scans) == (0, 5, 0)
    forced = run([inputs], out, force=True)
    assert (forced.sheets, forced.failed, forced.duplicates) == (3, 1, 1)
    with Ledger(out / LEDGER_NAME) as ledger:
        assert ledger.counts()["scans"] == 4  # replaced, not duplicated


def _running(pid: int) -> bool:
    """Alive and not a zombie (a container's init may be slow to reap orphans)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.1)
    return True


@pytest.mark.slow
def test_time_limit_and_crashed_worker_are_failures(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "slow.png").write_bytes(b"SLEEP 30")
    (folder / "crash.png").write_bytes(b"CRASH")
    (folder / "ok.png").write_bytes(sheet_bytes(GOOD))
    pidfile = tmp_path / "helper.pid"
    (folder / "spawn.png").write_bytes(b"SPAWN " + str(pidfile).encode())
    summary = run([folder], tmp_path / "out", timeout=1.5)
    assert summary.sheets == 1 and summary.failed == 3
    assert summary.seconds < 15
    assert not _running(int(pidfile.read_text())), "helper process outlived its killed worker"
    text = "\n".join(summary.failures)
    assert "slow.png: time limit exceeded (1.5 s per sheet)" in text
    assert "crash.png: worker process died" in text


@pytest.mark.slow
def test_time_limit_is_per_sheet_and_keeps_finished_pages(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "two-pages.pdf").write_bytes(sheet_bytes(GOOD, then_sleep=30))
    out = tmp_path / "out"
    summary = run([folder], out, timeout=2)
    assert (summary.sheets, summary.failed) == (1, 1)
    with Ledger(out / LEDGER_NAME) as ledger:
        first, second = ledger.sheets()
    assert (first.page, first.status, first.result["totals"]) == (0, "ok", {"ns": 740, "ew": 530})
    assert (second.page, second.status) == (1, "failed")
    assert second.error == "time limit exceeded (2 s per sheet)"


@pytest.mark.slow
def test_time_limit_after_a_blank_page_fails_the_right_page(tmp_path):
    """Sheet, blank back, then a page that hangs: the failed page is the third, and the blank
    page is still counted as skipped, not lost with the killed worker."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "three-pages.pdf").write_bytes(sheet_bytes(GOOD, then_blank=True, then_sleep=30))
    out = tmp_path / "out"
    summary = run([folder], out, timeout=2)
    assert (summary.sheets, summary.failed, summary.blank_pages) == (1, 1, 1)
    assert [f.split("/")[-1] for f in summary.failures] == [
        "three-pages.pdf page 3: time limit exceeded (2 s per sheet)"]
    with Ledger(out / LEDGER_NAME) as ledger:
        first, second = ledger.sheets()
    assert (first.page, first.status) == (0, "ok")
    assert (second.page, second.status, second.sheet_id[-3:]) == (2, "failed", "-p3")


def test_one_job_runs_in_order(tmp_path):
    summary = run([make_inputs(tmp_path / "in")], tmp_path / "out", jobs=1)
    assert summary.sheets == 3 and summary.peak_worker_rss_mb > 10


def test_audit_changes_results_when_house_rule_changes(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    # last deal: both sides scored (part-score bonus to each side under "each")
    (folder / "m.png").write_bytes(sheet_bytes(consistent_rows([(0, 370), (120, 0), (100, 100)])))
    out = tmp_path / "out"
    run([folder], out, unfinished="each", partscore=100)
    result = audit(out, unfinished="ahead", reconciler=simple_reconciler)
    assert result.sheets == 1 and result.changed_sheets == 1
    assert any("flag added: deal 3: both sides took" in c for c in result.changes)
    with Ledger(out / LEDGER_NAME) as ledger:
        (sheet,) = ledger.sheets()
        assert ledger.get_setting("rules") == {"unfinished": "ahead", "partscore": 100}
    assert sheet.rules == {"unfinished": "ahead", "partscore": 100}
    assert [f["kind"] for f in sheet.result["flags"]] == ["score"]
    assert json.loads((out / "sheets" / f"{sheet.sheet_id}.json").read_text())["flags"][0]["deal"] == 3
    assert "both sides took" in (out / "report.html").read_text() + \
        (out / "sheets" / f"{sheet.sheet_id}.html").read_text()
    back = audit(out, unfinished="each", reconciler=simple_reconciler)
    assert back.changed_sheets == 1 and "flag removed" in back.changes[0]
    assert audit(out, reconciler=simple_reconciler).changed_sheets == 0


def test_export_csv_one_row_per_match_and_failures(tmp_path):
    out = tmp_path / "out"
    run([make_inputs(tmp_path / "in")], out)
    buf = io.StringIO()
    with Ledger(out / LEDGER_NAME) as ledger:
        assert write_csv(ledger, buf) == 4
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert tuple(rows[0]) == EXPORT_COLUMNS and EXPORT_COLUMNS[:len(CSV_COLUMNS)] == CSV_COLUMNS
    by = {r["source"].rsplit("/", 1)[1]: r for r in rows}
    b = by["b.png"]
    assert (b["names_ns"], b["names_ew"], b["winners"], b["total_ns"], b["total_ew"], b["margin"],
            b["flags"], b["reviews"], b["status"]) == ("Ann / Bob", "Cy / Di", "ns", "740", "530",
                                                       "210", "2", "0", "ok")
    assert "deal 3: ew cumulative 440" in b["flag_messages"]
    assert by["c.png"]["reviews"] == "1"
    assert by["corrupt.png"]["status"] == "failed" and by["corrupt.png"]["error"]


def test_ledger_schema_and_stored_reading_round_trip(tmp_path):
    out = tmp_path / "out"
    run([make_inputs(tmp_path / "in")], out)
    db = sqlite3.connect(out / LEDGER_NAME)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"schema_version", "scans", "sheets", "readings", "matches", "flags", "reviews"} <= tables
    assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    (stored,) = [json.loads(r[0]) for r in db.execute(
        "SELECT reading FROM readings JOIN sheets ON sheets.id = readings.sheet_id "
        "JOIN scans ON scans.id = sheets.scan_id WHERE scans.source LIKE '%c.png'")]
    assert stored["rows"][1]["cells"]["cum_ns"]["candidates"] == [[120, 0.6], [170, 0.3]]
    db.close()


def test_describe_changes_in_words():
    from batch.audit import describe_changes

    old = {"winners": "ns", "totals": {"ns": 990, "ew": 960}, "flags": [{"message": "a"}], "review": [],
           "rows": [], "explanations": {"1": [{"text": "x"}]}}
    new = {"winners": "ew", "totals": {"ns": 990, "ew": 1460}, "flags": [{"message": "b"}],
           "review": [{}], "rows": [], "explanations": {"1": [{"text": "y"}]}}
    assert describe_changes(old, new) == [
        "winners ns -> ew", "totals N/S 990 E/W 960 -> N/S 990 E/W 1460", "flag removed: a",
        "flag added: b", "items to review 0 -> 1", "explanations changed for deal 1"]
    assert describe_changes(old, old) == []


def test_stored_reading_keeps_the_readers_variant_odds():
    """CellReading.near survives the ledger's JSON: measured odds, measured-but-none ({}: every
    variant below the floor) and not measured (None) are three different things to reconciliation."""
    from batch.serial import reading_from_json, reading_to_json
    from scoring.sheet import CellReading, RowReading, SheetReading

    cells = {"cum_ns": CellReading([(1480, 0.95), (None, 0.05)], near={1460: -2.5, 1780: -7.9}),
             "cum_ew": CellReading([(300, 0.99), (None, 0.01)], near={}),
             "ns": CellReading([(300, 0.99), (None, 0.01)])}
    reading = SheetReading("x", [RowReading(1, cells)])
    back = reading_from_json(json.loads(json.dumps(reading_to_json(reading))))
    got = back.rows[0].cells
    assert got["cum_ns"].near == {1460: -2.5, 1780: -7.9}
    assert got["cum_ew"].near == {} and got["ns"].near is None


def rescanning_reconciler(reading, rules=None):
    """simple_reconciler, and a request for a better scan on the sheets whose file name says faint."""
    sheet = simple_reconciler(reading, rules)
    if "faint" in reading.source:
        sheet.rescan = "30 of the 90 written numbers could not be read with confidence"
    return sheet


def test_sheets_to_scan_again_are_listed(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "faint.png").write_bytes(sheet_bytes(GOOD))
    (inputs / "fine.png").write_bytes(sheet_bytes(GOOD, names=("Ann / Bob", "Cy / Di")))
    out = tmp_path / "out"
    summary = run_batch(collect_inputs([inputs], exclude=[out]), BatchOptions(out_dir=out, jobs=1, progress=False),
                        reader=fake_reader, reconciler=rescanning_reconciler)
    assert summary.sheets == 2 and [s.rsplit("/", 1)[1] for s in summary.rescan] == ["faint.png"]
    assert "1 to scan again" in summary.line()
    with Ledger(out / LEDGER_NAME) as ledger:  # kept with the result: an audit or a new report sees it
        kept = {s.source.rsplit("/", 1)[1]: s.result.get("rescan") for s in ledger.sheets()}
    assert kept["faint.png"].startswith("30 of the 90") and kept["fine.png"] is None
    assert "1 to scan again" in (out / "report.html").read_text()
