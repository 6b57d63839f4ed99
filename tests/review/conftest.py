"""The review tests' folders: a real ledger holding hand-made readings (fast), and a batch folder
made by the real batch from the committed sample scans (tests/review/fixtures.py), shared by the
tests that read it and copied for each test that decides."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from batch.ledger import LEDGER_NAME, Ledger, ScanRecord, SheetRecord
from batch.serial import reading_to_json
from review.folder import Folder
from review.providers import default_providers
from scoring.reconcile import reconcile
from tests.review.fixtures import make_inputs


def ledger_with(out: Path, readings: dict[str, object]) -> Path:
    """A batch folder whose ledger holds ``readings`` (sheet id -> SheetReading), each
    reconciled as a batch would, one scan each."""
    (out / "sheets").mkdir(parents=True, exist_ok=True)
    with Ledger(out / LEDGER_NAME) as ledger:
        for i, (sid, reading) in enumerate(readings.items()):
            result = reconcile(reading).to_json(with_explanations=True)
            ledger.record_scan(ScanRecord(
                sha256=f"{i:064d}", source=f"scan-{sid}.png", status="done",
                sheets=[SheetRecord(sheet_id=sid, page=0, reading=reading_to_json(reading),
                                    result=result)]))
    return out


@pytest.fixture
def folder_of(tmp_path):
    """folder_of({sheet id: reading}) -> a review Folder over a fresh ledger holding them."""

    def make(readings: dict) -> Folder:
        return Folder(ledger_with(tmp_path / "out", readings), default_providers())

    return make


@pytest.fixture(scope="session")
def scanned(tmp_path_factory) -> Path:
    """A batch folder read by the real batch from three sample-based scans (read-only: copy it
    with ``scanned_copy`` to decide in it)."""
    from cli import run_batch_command

    root = tmp_path_factory.mktemp("review-batch")
    inputs = make_inputs(root / "in")
    status = run_batch_command([str(inputs)], str(root / "out"), jobs=1, progress=False)
    assert status == 3  # the turned page fails: its table is not found
    return root / "out"


@pytest.fixture
def scanned_copy(scanned, tmp_path) -> Path:
    """A copy of ``scanned`` to decide in (its inputs beside it, in ``../in``)."""
    out = tmp_path / "out"
    shutil.copytree(scanned, out)
    shutil.copytree(scanned.parent / "in", tmp_path / "in")
    (out / (LEDGER_NAME + ".lock")).unlink(missing_ok=True)
    return out
