"""The HTML report: escaping, cell states, and a real headless-browser screenshot."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest
from PIL import Image

from batch.inputs import collect_inputs
from batch.ledger import LEDGER_NAME, Ledger, LedgerSheet
from batch.runner import BatchOptions, run_batch
from report.html import render_index, render_sheet
from report.marks import UNSURE_NOTE, cell_state, flagged_cells, reading_unsure, review_cells
from report.text import sheet_text
from tests.support import consistent_rows, fake_reader, sheet_bytes, simple_reconciler

EVIL = '<img src=x onerror=alert(1)>"&\''


def test_everything_is_escaped():
    result = {"names": {"ns": EVIL, "ew": "E / W"}, "winners": "ns", "totals": {"ns": 10, "ew": 0},
              "rows": [{"deal": 1, "dealer": "N", "ns": 10, "ew": 0, "cum_ns": 10, "cum_ew": 0,
                        "confidence": {}}],
              "flags": [{"deal": 1, "kind": "score", "side": "ns", "message": EVIL}],
              "review": [{"deal": 1, "column": "ew", "candidates": [[EVIL, 0.5]], "reason": EVIL}],
              "explanations": {"1": [{"text": EVIL}]}}
    sheet = LedgerSheet(sheet_id="abc-p1", source=EVIL, page=0, status="ok", error=None, sender=EVIL,
                        subject=EVIL, date=EVIL, attachment=EVIL, processed_at="now",
                        image="abc-p1.jpg", layout={"width": 100, "height": 100,
                                                    "cells": [["1", "ns", 1, 1, 20, 20]]},
                        result=result)
    failed = LedgerSheet(sheet_id=None, source="bad.png", page=0, status="failed", error=EVIL,
                         sender=None, subject=None, date=None, attachment=None, processed_at="now")
    for html in (render_sheet(sheet, "AAAA"), render_index([sheet, failed], {}, None)):
        assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;&quot;&amp;&#x27;" in html
        assert "<script" not in html and "default-src 'none'" in html


def test_cell_states_from_flags_and_review():
    result = {"flags": [{"deal": 3, "kind": "cumulative", "side": "ew"},
                        {"deal": 5, "kind": "score", "side": "ns"},
                        {"deal": 7, "kind": "missing_deal"},
                        {"kind": "total", "side": "ns", "column": "cum_ns"}],
              "review": [{"deal": 2, "column": "cum_ns"}]}
    flagged, review = flagged_cells(result), review_cells(result)
    assert cell_state("3", "cum_ew", flagged, review) == "flag"
    assert cell_state("3", "cum_ns", flagged, review) == "read"
    assert cell_state("5", "ns", flagged, review) == "flag"
    assert cell_state("7", "dealer", flagged, review) == "flag"
    assert cell_state("total", "cum_ns", flagged, review) == "flag"
    assert cell_state("2", "cum_ns", flagged, review) == "review"
    assert cell_state("2", "ns", flagged, review) == "read"
    # a Total-row review item (named "total_ew", deal null) outlines the Total row's E/W cell
    review = review_cells({"review": [{"deal": None, "column": "total_ew"}, {"deal": None, "column": "winners"}]})
    assert cell_state("total", "cum_ew", set(), review) == "review"
    assert cell_state("total", "cum_ns", set(), review) == "read"
    assert cell_state("", "winners", set(), review) == "review"


def test_a_flag_on_a_cell_also_in_review_says_to_check_the_reading_first():
    """A flag whose cell is also unsure (a misread can look like a miscopied number) tells the
    organiser to check the reading before telling the players; a flag on a sure cell does not."""
    unsure = {"deal": 27, "kind": "cumulative", "side": "ew", "column": "cum_ew", "written": 1280,
              "expected": 1780, "message": "deal 27: E/W cumulative 1280, but 1780 + 0 = 1780"}
    sure = {"deal": 4, "kind": "cumulative", "side": "ns", "column": "cum_ns", "written": 520,
            "expected": 620, "message": "deal 4: N/S cumulative 520, but 520 + 100 = 620"}
    total = {"deal": 30, "kind": "total", "side": "ns", "written": 4000, "expected": 4620,
             "message": "Total N/S 4000, but the last cumulative is 4620"}
    result = {"rows": [], "totals": {}, "flags": [unsure, sure, total],
              "review": [{"deal": 27, "column": "cum_ew", "candidates": [[1280, 0.84], [1780, 0.16]],
                          "reason": "unsure reading"},
                         {"deal": 4, "column": "cum_ew", "candidates": [[90, 0.6]], "reason": "unsure reading"},
                         {"deal": None, "column": "total_ns", "candidates": [[4000, 0.7]], "reason": "unsure"}]}
    assert [reading_unsure(f, result) for f in (unsure, sure, total)] == [True, False, True]
    assert not reading_unsure(total, {**result, "review": result["review"][:2]})
    lines = [line for line in sheet_text({"source": "s.png", **result}).splitlines() if line.startswith("    ! ")]
    assert [UNSURE_NOTE in line for line in lines] == [True, False, True]
    sheet = LedgerSheet(sheet_id="abc-p1", source="s.png", page=0, status="ok", error=None, sender=None,
                        subject=None, date=None, attachment=None, processed_at="now", result=result)
    page = render_sheet(sheet, None)
    assert page.count(UNSURE_NOTE) == 2


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _screenshot(url: str, png: str) -> None:
    browser = _chromium()
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", f"--screenshot={png}", "--window-size=1280,1600",
             "--hide-scrollbars", url],
            check=True, capture_output=True, timeout=90, env={**os.environ, "HOME": profile})


def _has_colour(rgb: np.ndarray, target: tuple[int, int, int], tol: int = 40, min_px: int = 50) -> bool:
    diff = np.abs(rgb.astype(int) - np.array(target)).max(axis=2)
    return int((diff <= tol).sum()) >= min_px


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed (make browser installs it)")
def test_sheet_page_in_headless_chromium(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    rows = consistent_rows([(0, 370), (120, 0), (0, 60), (530, 0), (0, 0), (90, 100)])
    rows[2] = ("S", 0, 60, 120, 440)  # deal 3: E/W cumulative wrong -> red
    (folder / "m.png").write_bytes(sheet_bytes(rows, unsure={"2:cum_ns": [[120, 0.6], [170, 0.3]]}))
    out = tmp_path / "out"
    run_batch(collect_inputs([folder]), BatchOptions(out_dir=out, jobs=1, progress=False),
              reader=fake_reader, reconciler=simple_reconciler)
    with Ledger(out / LEDGER_NAME) as ledger:
        (sheet,) = ledger.sheets()
    page = out / "sheets" / f"{sheet.sheet_id}.html"
    png = tmp_path / "shot.png"
    _screenshot(page.as_uri(), str(png))
    rgb = np.asarray(Image.open(png).convert("RGB"))
    assert rgb.shape[:2] == (1600, 1280)
    assert rgb.std() > 10, "screenshot is blank"
    assert _has_colour(rgb, (0x1E, 0x9E, 0x3A)), "no green (read) outlines"
    assert _has_colour(rgb, (0xF0, 0xA0, 0x00)), "no amber (review) outline"
    assert _has_colour(rgb, (0xD6, 0x27, 0x28)), "no red (flagged) outline"
    index_png = tmp_path / "index.png"
    _screenshot((out / "report.html").as_uri(), str(index_png))
    assert np.asarray(Image.open(index_png).convert("L")).std() > 5


def test_a_sheet_to_scan_again_is_said_so_on_its_page_the_index_and_the_batch_line():
    from batch.runner import BatchSummary

    def sheet(sheet_id: str, rescan: str | None) -> LedgerSheet:
        result = {"names": {"ns": "A / B", "ew": "C / D"}, "winners": None, "totals": {"ns": 0, "ew": 0},
                  "rows": [], "flags": [], "review": []}
        if rescan:
            result["rescan"] = rescan
        return LedgerSheet(sheet_id=sheet_id, source=f"{sheet_id}.png", page=0, status="ok", error=None,
                           sender=None, subject=None, date=None, attachment=None, processed_at="now",
                           result=result)

    faint, fine = sheet("faint-p1", "40 of the 88 written numbers could not be read"), sheet("fine-p1", None)
    assert "Ask for a better scan: 40 of the 88" in render_sheet(faint, None)
    assert "better scan" not in render_sheet(fine, None)
    index = render_index([faint, fine], {"sheets": 2}, None)
    assert "1 to scan again" in index and index.count("ask for a better scan") == 1
    assert "to scan again" not in render_index([fine], {"sheets": 1}, None)
    assert "1 to scan again" in BatchSummary(sheets=2, rescan=["faint.png"]).line()
    assert "scan again" not in BatchSummary(sheets=2).line()
