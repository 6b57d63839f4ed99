"""Command-line input handling: exit statuses, option values, names in the log, `read --format
json` with several sheets, and `score` input (a byte-order mark, suit symbols, long or empty)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import cli
from batch.inputs import collect_inputs
from batch.runner import BatchOptions, effective_jobs, run_batch
from tests.support import fake_reader, simple_reconciler

ROOT = Path(__file__).resolve().parents[2]
SCANS = ROOT / "samples" / "scans"


@pytest.fixture
def scan(tmp_path):
    path = tmp_path / "a.png"
    path.write_bytes(b"not a picture")
    return path


def test_output_folder_that_is_a_file_exits_5(tmp_path, scan, capsys):
    out = tmp_path / "out"
    out.write_text("x")
    assert cli.main(["batch", str(scan), "--out", str(out)]) == cli.ExitCode.WRITE_FAILED
    assert "cannot write output folder" in capsys.readouterr().err and out.read_text() == "x"


def test_new_sub_folder_of_a_read_only_folder_exits_5(tmp_path, scan, capsys):
    parent = tmp_path / "ro"
    parent.mkdir()
    root = os.geteuid() == 0
    if root and shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: no way to make a folder read-only for root")
    subprocess.run(["chattr", "+i", str(parent)], check=True) if root else parent.chmod(0o555)
    try:
        assert cli.main(["batch", str(scan), "--out", str(parent / "new" / "out")]) == 5
    finally:
        subprocess.run(["chattr", "-i", str(parent)], check=True) if root else parent.chmod(0o755)
    assert "cannot write output folder" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--jobs", "0"], ["--jobs", "-3"], ["--timeout", "nan"],
                                    ["--timeout", "0"], ["--timeout", "-1"], ["--timeout", "inf"]])
def test_bad_option_values_are_bad_usage(tmp_path, scan, capsys, option):
    assert cli.main(["batch", str(scan), "--out", str(tmp_path / "out"), *option]) == cli.ExitCode.USAGE
    assert option[0] in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_jobs_are_capped_at_the_cores(tmp_path, scan, capsys):
    cores = effective_jobs(0)
    assert effective_jobs(10_000) == cores and effective_jobs(1) == 1
    assert cli.main(["batch", str(scan), "--out", str(tmp_path / "out"), "--jobs", "10000", "--quiet"]) == 3
    assert f"note: --jobs 10000: {cores} workers, one per CPU core" in capsys.readouterr().err


def test_a_newline_in_a_file_name_cannot_forge_a_log_line(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    forged = "x.png\nrubberscan batch: 30 sheets read, 0 flagged, 0 to review, 0 failed\n\x1b[2Ky"
    (folder / forged).write_bytes(b"\x89PNG\r\n\x1a\n cut off")  # a PNG by its content: fails, is named
    (folder / "trailing.png ").write_bytes(b"")
    assert cli.main(["batch", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 3
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert all(line.startswith(("failed: ", "rubberscan batch: ")) for line in lines), lines
    assert sum(line.startswith("rubberscan batch: ") for line in lines) == 1
    assert "\x1b" not in err
    assert repr("in/" + forged) + ": " in err  # quoted, escaped: the name can be told exactly
    assert repr("in/trailing.png ") + ": empty file" in err


def test_the_summary_keeps_plain_names_as_they_are(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "plain name.png").write_bytes(b"junk")
    summary = run_batch(collect_inputs([folder]), BatchOptions(out_dir=tmp_path / "out", jobs=1, progress=False),
                        reader=fake_reader, reconciler=simple_reconciler)
    assert summary.failures == ["in/plain name.png: not an image or PDF file"]


def test_read_format_json_with_several_sheets_prints_one_array(tmp_path, capsys):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"")
    assert cli.main(["read", "--format", "json", str(bad), str(tmp_path / "missing.png")]) == 0
    doc = json.loads(capsys.readouterr().out)  # the whole of stdout is one JSON document
    assert [o["source"] for o in doc] == [str(bad), str(tmp_path / "missing.png")]
    assert all("error" in o for o in doc)
    assert cli.main(["read", "--format", "json", str(bad)]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == str(bad)  # one: the object itself


def _score(tmp_path, capsys, data: bytes, *options):
    path = tmp_path / "deals.txt"
    path.write_bytes(data)
    status = cli.main(["score", "--format", "json", *options, str(path)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_score_takes_a_byte_order_mark_and_its_own_suit_symbols(tmp_path, capsys):
    plain = _score(tmp_path, capsys, b"4S N 10\n3NTx E 7\n2H W 8\n1C S 7 honours 100 NS\n")
    assert plain[0] == 0 and len(plain[1].splitlines()) == 4
    fancy = "\ufeff4♠ N 10\n3NTx E 7\n2♥ W 8\n1♣ S 7 honours 100 NS\n".encode()
    assert _score(tmp_path, capsys, fancy) == plain
    assert _score(tmp_path, capsys, "2♦x W 8\n".encode())[0] == 0


def test_score_names_a_huge_bad_line_without_echoing_it(tmp_path, capsys):
    status, out, err = _score(tmp_path, capsys, b"4S N 10\n" + b"x" * 1_600_000 + b"\n2H W 8\n")
    assert status == 1 and out == ""
    assert err.startswith(f"{tmp_path / 'deals.txt'}: line 2: too long to be a deal (1600000 characters")
    assert len(err) < 300


def test_score_a_5000_digit_number_is_a_clear_message(tmp_path, capsys):
    status, _, err = _score(tmp_path, capsys, b"4S N 1" + b"0" * 5000 + b"\n")
    assert status == 1 and "line 1: too long to be a deal" in err
    assert "int" not in err and "digits" not in err and len(err) < 300


def test_score_says_when_there_is_nothing_to_score(tmp_path, capsys):
    for data in (b"", b"\xef\xbb\xbf", b"# only a comment\n\n"):
        status, out, err = _score(tmp_path, capsys, data)
        assert (status, out) == (1, "") and "no deals" in err and "empty input" in err


def test_score_of_the_tools_own_examples_still_reads(tmp_path, capsys):
    status, out, _ = _score(tmp_path, capsys, b"4S N 10\n3NTx E 7\n6Hxx S 12 honours 150 NS\n2C W 8 honours 100 NS\npass\n")
    assert status == 0 and json.loads(out.splitlines()[0])["ns"] == 120


def test_read_names_a_skipped_blank_page_on_one_line_whatever_the_file_name(tmp_path, capsys):
    scan = tmp_path / "week 3\nrubberscan read: forged.tiff"
    scan.write_bytes((SCANS / "07-classic-fax-strokes-tiff.tiff").read_bytes())  # sheet + blank back
    assert cli.main(["read", "--format", "json", str(scan)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rubberscan read: ") and "\\n" in err
