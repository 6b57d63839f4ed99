"""The batch/audit/export commands' exit codes, atomic writes, and Ctrl-C keeping finished work."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import cli
from batch.atomic import atomic_write_bytes, atomic_write_json
from batch.ledger import LEDGER_NAME, Ledger
from tests.support import ROOT, consistent_rows, sheet_bytes


def test_missing_input_is_bad_usage(tmp_path, capsys):
    assert cli.main(["batch", str(tmp_path / "nope.png"), "--out", str(tmp_path / "out")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_an_output_folder_that_cannot_be_made_exits_5(tmp_path, capsys):
    """README: 5 when the output folder cannot be written (more cases in tests/hostile/)."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    (tmp_path / "a.png").write_bytes(b"x")
    assert cli.main(["batch", str(tmp_path / "a.png"), "--out", str(blocker / "out")]) == cli.ExitCode.WRITE_FAILED
    assert "cannot write output folder" in capsys.readouterr().err


def test_failed_inputs_exit_3_and_are_listed(tmp_path, capsys):
    bad = tmp_path / "in"
    bad.mkdir()
    (bad / "empty.png").write_bytes(b"")
    (bad / "junk.jpg").write_bytes(b"this is not a picture")
    out = tmp_path / "out"
    assert cli.main(["batch", str(bad), "--out", str(out), "--quiet", "--jobs", "1"]) == 3
    captured = capsys.readouterr()
    assert "empty.png" in captured.err and "junk.jpg" in captured.err
    assert "0 sheets read" in captured.err and "2 failed" in captured.err
    assert captured.out.strip() == f"report: {out / 'report.html'}"
    with Ledger(out / LEDGER_NAME) as ledger:
        errors = {Path(s.source).name: s.error for s in ledger.sheets()}
    assert errors["empty.png"] and errors["junk.jpg"]
    # export lists the failures too, to stdout or a file
    assert cli.main(["export", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("source,page,date,sender") and len(lines) == 3
    assert cli.main(["export", str(out), "--output", str(tmp_path / "x.csv")]) == 0
    assert (tmp_path / "x.csv").read_text().splitlines() == lines
    # rerun: nothing new to do, but the failures do not hide behind "already done"
    assert cli.main(["batch", str(bad), "--out", str(out), "--quiet"]) == 3
    assert "2 already done (--force to redo), 2 of them failed before" in capsys.readouterr().err


@pytest.mark.slow
def test_the_blank_back_of_a_duplex_scan_is_skipped_not_failed(tmp_path, capsys):
    """A TIFF of the sheet and the blank back of the page: one sheet read, exit 0, the blank page
    counted as skipped; a file with nothing but a blank page still fails (exit 3)."""
    scans = tmp_path / "in"
    scans.mkdir()
    tiff = ROOT / "samples" / "scans" / "07-classic-fax-strokes-tiff.tiff"
    (scans / tiff.name).write_bytes(tiff.read_bytes())
    out = tmp_path / "out"
    assert cli.main(["batch", str(scans), "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert "1 sheets read" in err and "0 failed" in err and "1 blank page skipped" in err
    with Ledger(out / LEDGER_NAME) as ledger:
        assert [(s.page, s.status) for s in ledger.sheets()] == [(0, "ok")]
    import cv2
    import numpy as np

    cv2.imwrite(str(scans / "back.png"), np.full((1400, 1000), 245, np.uint8))
    assert cli.main(["batch", str(scans), "--out", str(out), "--quiet", "--jobs", "1"]) == 3
    err = capsys.readouterr().err
    assert "back.png: blank page" in err and "1 failed" in err


def test_an_email_without_a_scan_is_listed(tmp_path, capsys):
    """A saved e-mail with nothing to read is named on stderr (who sent no sheet), not a failure."""
    eml = tmp_path / "reply.eml"
    eml.write_text("From: pat@club.example\nSubject: Re: week 12\n\nWe forgot the sheet, sorry!\n")
    out = tmp_path / "out"
    assert cli.main(["batch", str(eml), "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert f"no scan: {eml.name}: no scan attached (from pat@club.example, 'Re: week 12')" in err
    assert "0 failed, 1 e-mail without a scan" in err
    # kept in the ledger and listed in the report (who sent no sheet), once however often it is seen
    assert cli.main(["batch", str(eml), "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    with Ledger(out / LEDGER_NAME) as ledger:
        (kept,) = ledger.messages()
    assert (kept["source"], kept["sender"], kept["subject"]) == (eml.name, "pat@club.example", "Re: week 12")
    report = (out / "report.html").read_text()
    assert "E-mails without a scan" in report and "pat@club.example" in report and "Re: week 12" in report


def test_audit_and_export_need_a_batch_folder(tmp_path, capsys):
    assert cli.main(["audit", str(tmp_path)]) == 2
    assert cli.main(["export", str(tmp_path)]) == 2
    assert "ledger.sqlite" in capsys.readouterr().err
    (tmp_path / LEDGER_NAME).write_text("not sqlite at all " * 100)
    assert cli.main(["audit", str(tmp_path)]) == 2
    assert "not a usable ledger" in capsys.readouterr().err


def test_atomic_write_failure_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    atomic_write_json(target, {"v": 1})

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write_json(target, {"v": 2})
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_atomic_write_killed_midway_never_leaves_a_partial_file(tmp_path):
    target = tmp_path / "big.bin"
    size = 8_000_000
    code = textwrap.dedent(f"""
        from batch.atomic import atomic_write_bytes
        i = 0
        while True:
            atomic_write_bytes({str(target)!r}, (b"ab"[i % 2:i % 2 + 1]) * {size})
            i += 1
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)  # ROOT: the packages
    try:
        deadline = time.monotonic() + 20
        while not target.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
    finally:
        proc.kill()
        proc.wait()
    data = target.read_bytes()
    assert len(data) == size and data in (b"a" * size, b"b" * size)
    atomic_write_bytes(target, b"done")
    assert target.read_bytes() == b"done"


def test_ctrl_c_keeps_finished_sheets_and_exits_130(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    script = textwrap.dedent(f"""
        import sys
        from tests.support import consistent_rows, fake_reader, sheet_bytes, simple_reconciler
        from batch.inputs import collect_inputs
        from batch.runner import BatchOptions, run_batch
        s = run_batch(collect_inputs([{str(folder)!r}]),
                      BatchOptions(out_dir={str(tmp_path / 'out')!r}, jobs=2, progress=False),
                      reader=fake_reader, reconciler=simple_reconciler)
        print(s.line(), flush=True)
        sys.exit(130 if s.interrupted else 0)
    """)
    (folder / "a-fast.png").write_bytes(sheet_bytes(consistent_rows([(0, 370), (120, 0)])))
    for i in range(3):
        (folder / f"b-slow{i}.png").write_bytes(b"SLEEP 60 " + str(i).encode())
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=ROOT)
    ledger_path = tmp_path / "out" / LEDGER_NAME
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if ledger_path.exists() and ledger_path.stat().st_size > 0:  # (0 bytes: being made)
                with Ledger(ledger_path) as ledger:
                    if ledger.counts()["sheets"] == 1:
                        break
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)  # like Ctrl-C in a terminal: the whole group
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert out.startswith("interrupted: 1 sheets read")
    with Ledger(ledger_path) as ledger:
        assert ledger.counts()["sheets"] == 1
    assert "a-fast.png" in (tmp_path / "out" / "report.html").read_text()


@pytest.mark.slow
def test_rerun_tells_which_results_an_earlier_reader_made(tmp_path, capsys):
    """Every stored reading names the networks that read it; a rerun keeps the results (they stay
    auditable) but says how many came from another reader, which --force re-reads."""
    from ocr.cellnet import model_paths
    from ocr.ensemble import PREPARE_MARK, reader_version

    scan = ROOT / "samples" / "scans" / "05-classic-typed-clean.pdf"
    out = tmp_path / "out"
    args = ["batch", str(scan), "--out", str(out), "--quiet", "--jobs", "1"]
    assert cli.main(args) == 0
    capsys.readouterr()
    with Ledger(out / LEDGER_NAME) as ledger:
        (sheet_id, reading), = ledger.readings()
        assert reading["meta"]["reader"] == reader_version()
        models = ROOT / "ocr" / "models"  # every network's digest: the ensemble's cell networks', then the digit
        # network's, then the cell preparation's mark
        second = (models / "PP-OCRv6_rec_small.onnx").exists()  # the second reader's mark (ocr/ppocr.py)
        assert len(reader_version().split("+")) == len(model_paths()) + len(list(models.glob("digitnet.npz"))) + second + 1
        assert reader_version().endswith("+" + PREPARE_MARK)
        assert cli.main(args) == 0
        err = capsys.readouterr().err
        assert "1 already done" in err and "another version" not in err
        reading["meta"]["reader"] = "000000000000"
        with ledger.db:
            ledger.db.execute("UPDATE readings SET reading = ? WHERE sheet_id = ?", (json.dumps(reading), sheet_id))
    assert cli.main(args) == 0
    assert "1 of them read by another version of the reader (--force to re-read)" in capsys.readouterr().err
    assert cli.main(args + ["--force"]) == 0
    assert "1 sheets read" in capsys.readouterr().err
    with Ledger(out / LEDGER_NAME) as ledger:
        assert ledger.readings()[0][1]["meta"]["reader"] == reader_version()
