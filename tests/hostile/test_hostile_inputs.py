"""Folder inputs decided by content (magic bytes), every skipped file named; e-mail headers kept."""

from __future__ import annotations

import email
import email.policy
import io
from pathlib import Path

import numpy as np
from PIL import Image

import cli
from batch.inputs import ScanInput, Skipped, collect_inputs, message_scans
from ocr.load import sniff


def _jpeg() -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.full((400, 300, 3), 230, np.uint8)).save(buf, "JPEG")
    return buf.getvalue()


def test_scans_are_found_by_content_whatever_their_names(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("phone.jfif", "no-suffix", "trailing.jpg ", "upper.JPEG", "renamed.txt"):
        (folder / name).write_bytes(_jpeg())
    (folder / "notes.txt").write_text("club notes")
    (folder / "truth.json").write_text("{}")
    items = list(collect_inputs([folder]))
    found = sorted(i.name for i in items if isinstance(i, ScanInput))
    assert found == ["no-suffix", "phone.jfif", "renamed.txt", "trailing.jpg", "upper.JPEG"]
    skipped = sorted(i.source for i in items if isinstance(i, Skipped))
    assert skipped == ["in/notes.txt", "in/truth.json"]


def test_every_skipped_file_is_named_on_stderr(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "notes.txt").write_text("club notes")
    (folder / "odd\nname").write_text("x")
    (folder / "bad.png").write_bytes(b"")  # a scan's name: the reader says it is empty
    assert cli.main(["batch", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "skipped: in/notes.txt: not an image, PDF or e-mail" in err
    assert "skipped: 'in/odd\\nname': not an image, PDF or e-mail" in err
    assert "2 files skipped (not a scan or e-mail: named above)" in err
    assert "failed: " in err and "bad.png" in err


def test_sniff_knows_each_format_load_reads_and_nothing_else():
    assert sniff(b"%PDF-1.7\n") == "PDF"
    assert sniff(_jpeg()) == "JPEG"
    assert sniff(b"II*\0" + b"\0" * 8) == "TIFF" and sniff(b"MM\0*" + b"\0" * 8) == "TIFF"
    assert sniff(b"P5\n# comment\n640 480\n255\n") == "PNM"
    assert sniff(b"\0\0\0\x18ftypheic\0\0\0\0mif1heic") == "HEIF"
    assert sniff(b"\0\0\0\x1cftypisom\0\0\0\0isomiso2mp41") is None  # an MP4 video
    for text in (b"BMW club notes", b"Pass the salt", b"", b"GIF"):
        assert sniff(text) is None


def test_a_malformed_from_keeps_the_address():
    for header, address in (("a@b@c.com", "a@b@c.com"), ('"Ann" <ann@@club.org>', "ann@@club.org"),
                            ("Ann Smith <ann@club.org", "ann@club.org")):
        msg = email.message_from_bytes(f"From: {header}\nSubject: week 3\n\nno scan".encode(),
                                       policy=email.policy.default)
        (item,) = message_scans(msg, container="m.eml")
        assert isinstance(item, Skipped) and address in item.sender and address in item.reason


def test_no_folder_of_the_organisers_machine_in_the_report_or_sheet_files(tmp_path):
    from batch.runner import BatchOptions, run_batch
    from tests.support import consistent_rows, fake_reader, sheet_bytes, simple_reconciler

    folder = tmp_path / "club" / "scans"
    (folder / "week1").mkdir(parents=True)
    (folder / "week1" / "a.png").write_bytes(sheet_bytes(consistent_rows([(0, 370), (120, 0)])))
    (folder / "b.png").write_bytes(b"junk")
    mail = tmp_path / "club" / "week2.eml"
    mail.write_text("From: pat@club.example\nSubject: no sheet\n\nsorry\n")
    out = tmp_path / "out"
    run_batch(collect_inputs([folder, mail], exclude=[out]), BatchOptions(out_dir=out, jobs=1, progress=False),
              reader=fake_reader, reconciler=simple_reconciler)  # absolute paths, as a shell expands ~
    written = [out / "report.html", *(out / "sheets").glob("*.json"), *(out / "sheets").glob("*.html")]
    assert len(written) == 4  # the report; a.png's JSON and page; b.png's page (failed)
    for path in written:
        text = path.read_text()
        assert str(tmp_path) not in text, path
    report = (out / "report.html").read_text()
    assert "scans/week1/a.png" in report and "scans/b.png" in report and "week2.eml" in report
    (sheet_json,) = (out / "sheets").glob("*.json")
    assert '"source": "scans/week1/a.png"' in sheet_json.read_text()


def test_read_finds_scans_in_folders_by_content_too(tmp_path):
    for name in ("phone.jfif", "no-suffix", "trailing.jpg "):
        (tmp_path / name).write_bytes(_jpeg())
    (tmp_path / "notes.txt").write_text("club notes")
    found = sorted(Path(p).name for p in cli.expand_paths([str(tmp_path)]))
    assert found == ["no-suffix", "phone.jfif", "trailing.jpg "]
