"""ocr.pipeline.read_results: the one way a file becomes results (CLI, batch, review app)."""

from __future__ import annotations

import json

import pytest

import cli
from batch.inputs import ScanInput
from batch.worker import process_scan
from ocr.pipeline import PageOutcome, read_results
from tests.support import (
    SCANS,
    consistent_rows,
    fake_reader,
    make_reading,
    sheet_bytes,
    simple_reconciler,
)


def test_every_page_is_reconciled_and_a_blank_back_is_marked():
    data = sheet_bytes(consistent_rows([(100, 0), (0, 430)]), then_blank=True)
    results = list(read_results(None, data, "scan.txt", reader=fake_reader,
                                reconciler=simple_reconciler))
    assert [(r.page, r.blank_back, r.error is None) for r in results] == [(0, False, True),
                                                                         (1, True, False)]
    obj = results[0].to_json()
    assert obj["source"] == "scan.txt" and obj["totals"] == {"ns": 100, "ew": 430}
    assert "explanations" in obj  # what the CLI prints and the batch stores: the same object


def test_a_reconciliation_failure_keeps_the_reading_and_the_other_pages():
    def fragile(reading, rules=None):
        if reading.source == "bad":
            raise ZeroDivisionError("boom")
        return simple_reconciler(reading, rules)

    spec = {"rows": consistent_rows([(100, 0)]), "names": ["A", "B"], "unsure": {}}

    def reader(path, data=None, name=None):
        yield PageOutcome(source="bad", page=0, reading=make_reading("bad", spec))
        yield PageOutcome(source="good", page=1, reading=make_reading("good", spec))

    first, second = read_results("f.png", reader=reader, reconciler=fragile)
    assert first.reading is not None and first.sheet is None
    assert first.error == "reconciliation failed: ZeroDivisionError: boom"
    assert first.to_json() == {"source": "f.png", "error": first.error}
    assert second.error is None and second.sheet is not None


def test_a_stage_that_crashes_keeps_the_pages_read_before_it():
    spec = {"rows": consistent_rows([(100, 0)]), "names": ["A", "B"], "unsure": {}}

    def reader(path, data=None, name=None):
        yield PageOutcome(source="f.png", page=0, reading=make_reading("f.png", spec))
        raise RuntimeError("a bug in page 2")

    results = list(read_results("f.png", reader=reader, reconciler=simple_reconciler))
    assert [r.page for r in results] == [0, 1]
    assert results[0].error is None
    assert results[1].error == "internal error: RuntimeError: a bug in page 2"


@pytest.mark.slow
def test_cli_and_batch_give_the_same_object_for_a_real_scan(tmp_path):
    """The CLI's JSON and the batch's stored result are one function's output."""
    scan = SCANS / "05-classic-typed-clean.pdf"
    [printed] = cli.read_sheets(str(scan))
    data = scan.read_bytes()
    record = process_scan(ScanInput(source=str(scan), name=scan.name, sha256="0" * 64, data=data),
                          tmp_path, None, None, None)
    assert record.status == "done" and len(record.sheets) == 1
    stored = record.sheets[0].result
    assert json.dumps(stored, sort_keys=True) == json.dumps(printed, sort_keys=True)
