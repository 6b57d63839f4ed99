"""The real pipeline behind `rubberscan batch`: one bundled typed sample sheet, end to end."""

from __future__ import annotations

import json
import re

import pytest

import cli
from batch.ledger import LEDGER_NAME, Ledger
from tests.support import SCANS

pytestmark = pytest.mark.slow  # reads the committed sample scans

SAMPLE = SCANS / "05-classic-typed-clean.pdf"


@pytest.mark.skipif(not SAMPLE.is_file(), reason="bundled sample scan missing")
def test_batch_reads_a_real_sample_with_the_real_pipeline(tmp_path, capsys):
    truth = json.loads(SAMPLE.with_name(SAMPLE.name.replace(".pdf", ".truth.json")).read_text())
    out = tmp_path / "out"
    assert cli.main(["batch", str(SAMPLE), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    assert "1 sheets read" in capsys.readouterr().err
    with Ledger(out / LEDGER_NAME) as ledger:
        (sheet,) = ledger.sheets()
        (sid, stored), = ledger.readings()
    assert sheet.status == "ok" and sid == sheet.sheet_id
    assert len(stored["rows"]) == 30 and stored["rows"][0]["cells"]["ns"]["candidates"]
    obj = json.loads((out / "sheets" / f"{sid}.json").read_text())
    assert obj["source"] == SAMPLE.name  # as given, without the folders of the machine
    assert [r["deal"] for r in obj["rows"]] == list(range(1, 31))
    assert obj["names"] == truth["names"]
    assert set(obj) >= {"form", "names", "winners", "rows", "totals", "flags", "review", "explanations"}
    page = (out / "sheets" / f"{sid}.html").read_text()
    assert len(re.findall(r'<rect class="cell (?:read|review|flag)"', page)) >= 150
    assert "data:image/jpeg;base64," in page
    assert (out / "sheets" / sheet.image).stat().st_size > 10_000
