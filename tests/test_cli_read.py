"""`rubberscan read` exactly as ../shared/CONTRACT.md specifies, on the committed sample scans."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import cli

pytestmark = pytest.mark.slow  # reads the committed sample scans

SCANS = Path(__file__).resolve().parent.parent / "samples" / "scans"
TYPED = SCANS / "05-classic-typed-clean.pdf"  # planted: an impossible pair at deal 12
ROW_KEYS = ["deal", "dealer", "ns", "ew", "cum_ns", "cum_ew", "confidence"]
TOP_KEYS = {"source", "form", "names", "winners", "rows", "totals", "flags", "review"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def typed_sheet() -> dict:
    objs = cli.read_sheets(str(TYPED))
    assert len(objs) == 1
    return objs[0]


def test_one_path_json_is_one_object_with_the_contract_shape(capsys):
    status, out, _ = run(capsys, "read", "--format", "json", str(TYPED))
    assert status == 0
    obj = json.loads(out)  # one object, the whole of stdout
    assert TOP_KEYS <= set(obj)
    assert obj["source"] == str(TYPED)
    assert obj["form"] == "summary"
    assert set(obj["names"]) == {"ns", "ew"}
    assert obj["winners"] in ("ns", "ew", None)
    assert set(obj["totals"]) == {"ns", "ew"}
    assert [r["deal"] for r in obj["rows"]] == list(range(1, 31))
    for row in obj["rows"]:
        assert list(row) == ROW_KEYS
        assert set(row["confidence"]) == {"ns", "ew", "cum_ns", "cum_ew"}
        assert all(0.0 <= p <= 1.0 for p in row["confidence"].values())
        assert row["dealer"] in ("N", "E", "S", "W", None)
    for flag in obj["flags"]:
        assert {"kind", "message", "written", "expected"} <= set(flag)
    for item in obj["review"]:
        assert {"deal", "column", "candidates", "reason"} <= set(item)


def test_a_duplex_scan_is_one_sheet_and_its_blank_back_is_skipped(capsys):
    """A TIFF of the sheet and the blank back of the page (07): one JSON object, the sheet's; the
    blank page is named on stderr, not printed as a sheet that could not be read."""
    tiff = SCANS / "07-classic-fax-strokes-tiff.tiff"
    status, out, err = run(capsys, "read", "--format", "json", str(tiff))
    assert status == 0
    obj = json.loads(out)  # the whole of stdout: one object
    assert "error" not in obj and len(obj["rows"]) == 30 and "page" not in obj
    assert "page 2: blank page" in err and "skipped" in err


def test_typed_sheet_matches_its_truth_and_flags_the_planted_mistake(typed_sheet):
    truth = json.loads(TYPED.with_suffix(".truth.json").read_text())
    written = {r["deal"]: r for r in truth["rows"]}
    cells = right = 0
    for row in typed_sheet["rows"]:
        for key in ("dealer", "ns", "ew", "cum_ns", "cum_ew"):
            cells += 1
            right += row[key] == written[row["deal"]][key]
    assert right / cells >= 0.98, (right, cells)
    planted = truth["mistakes"][0]
    assert any(f["deal"] == planted["deal"] and f["kind"] == planted["kind"]
               for f in typed_sheet["flags"]), typed_sheet["flags"]
    assert typed_sheet["names"] == truth["names"]
    last = written[30]
    assert typed_sheet["totals"] == {"ns": last["cum_ns"], "ew": last["cum_ew"]}


def test_several_paths_give_one_line_each_in_input_order_errors_included(capsys, tmp_path):
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    junk = tmp_path / "junk.png"
    junk.write_text("not an image")
    status, out, _ = run(capsys, "read", "--format", "jsonl", str(empty), str(TYPED), str(junk))
    assert status == 0  # non-zero only for bad usage
    lines = [json.loads(line) for line in out.splitlines()]
    assert [o["source"] for o in lines] == [str(empty), str(TYPED), str(junk)]
    assert set(lines[0]) == {"source", "error"} and "empty" in lines[0]["error"]
    assert "error" not in lines[1] and len(lines[1]["rows"]) == 30
    assert set(lines[2]) == {"source", "error"}


def test_a_folder_expands_to_its_scans(tmp_path):
    (tmp_path / "notes.txt").write_text("not a scan")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.png").write_bytes(b"")
    (tmp_path / "a.JPG").write_bytes(b"")
    assert cli.expand_paths([str(tmp_path)]) == [str(tmp_path / "a.JPG"),
                                                  str(tmp_path / "sub" / "b.png")]


def test_csv_has_one_row_per_deal(capsys, typed_sheet):
    from report.csvfile import DEAL_ROW_COLUMNS, Writer, deal_rows

    buf = io.StringIO()
    Writer(buf, DEAL_ROW_COLUMNS).write(deal_rows(typed_sheet))
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert [int(r["deal"]) for r in rows] == list(range(1, 31))
    flagged = [r for r in rows if r["flag_messages"]]
    assert [int(r["deal"]) for r in flagged] == sorted({f["deal"] for f in typed_sheet["flags"]
                                                        if "deal" in f})


def test_text_format_shows_table_flags_and_totals(typed_sheet):
    from report.text import sheet_text

    text = sheet_text(typed_sheet)
    assert "Ross / Parker" in text
    for flag in typed_sheet["flags"]:
        assert flag["message"] in text
    assert f"N/S {typed_sheet['totals']['ns']}" in text


def test_bad_usage_exits_2(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        cli.main(["read"])
    assert exc.value.code == 2
    status, _, err = run(capsys, "read", str(tmp_path))  # a folder with no scans in it
    assert status == 2 and "no scan files" in err


def test_output_cut_short_by_the_reader_is_not_a_crash():
    """`rubberscan read ... | head -1`: the pipe closes early; no traceback, exit 0."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    scan = root / "samples" / "scans" / "05-classic-typed-clean.pdf"
    proc = subprocess.run(f"'{sys.executable}' cli.py read --format csv '{scan}' | head -1",
                          shell=True, cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.stdout.startswith("source,page,deal")
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
