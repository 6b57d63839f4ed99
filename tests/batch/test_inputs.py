"""Batch inputs: folders, .eml and mbox files, attachment filtering and safe names."""

from __future__ import annotations

import io
import mailbox
from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import format_datetime

import cv2
import numpy as np
import pytest
from PIL import Image

from batch.inputs import InputProblem, ScanInput, Skipped, collect_inputs, safe_name


def scan_png(w: int = 1240, h: int = 1754, seed: int = 0) -> bytes:
    """A page-sized picture with a ruled table and some noise (like a real scan)."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w), 245, np.uint8)
    for y in range(300, h - 200, 45):
        cv2.line(img, (80, y), (w - 80, y), 30, 2)
    img = np.clip(img.astype(int) + rng.integers(-12, 12, img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return buf.tobytes()


def logo_png(size: int = 64) -> bytes:
    """A small colourful picture, big enough in bytes not to be skipped for that alone."""
    rng = np.random.default_rng(size)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (size, size, 3), dtype=np.uint8)).save(buf, "PNG")
    return buf.getvalue()


def pdf_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (850, 1100), (255, 255, 255)).save(buf, "PDF", resolution=100)
    return buf.getvalue()


def message(sender: str, subject: str, attachments: list[tuple[str, str, bytes]],
            inline_logo: bool = False) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "organiser@club.example"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime(2026, 3, 14, 18, 30, tzinfo=timezone.utc))
    msg.set_content("Here is our sheet.\n-- \nJohn")
    if inline_logo:
        msg.add_alternative('<p>Here is our sheet.</p><img src="cid:sig1">', subtype="html")
        html_part = msg.get_payload()[1]
        html_part.add_related(logo_png(120), maintype="image", subtype="png", cid="<sig1>",
                              filename="signature.png")
    for name, ctype, data in attachments:
        maintype, subtype = ctype.split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return msg


def test_eml_keeps_scan_and_pdf_skips_logo_signature_and_text(tmp_path):
    msg = message("Ann Smith <ann@example.org>", "Sheet for week 11 — Smith/Jones v Brown/Reid",
                  [("scan.png", "image/png", scan_png()), ("logo.png", "image/png", logo_png()),
                   ("sheet.pdf", "application/pdf", pdf_bytes()),
                   ("notes.txt", "text/plain", b"we played 30 deals")],
                  inline_logo=True)
    eml = tmp_path / "week11.eml"
    eml.write_bytes(msg.as_bytes())
    items = list(collect_inputs([eml]))
    scans = [i for i in items if isinstance(i, ScanInput)]
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [s.name for s in scans] == ["scan.png", "sheet.pdf"]
    for s in scans:
        assert s.sender == "Ann Smith <ann@example.org>"
        assert s.subject == "Sheet for week 11 — Smith/Jones v Brown/Reid"
        assert s.date == "2026-03-14T18:30:00+00:00"
        assert s.container == eml.name and s.attachment == s.name and s.path is None  # no machine's folders
        assert s.data and len(s.sha256) == 64
    assert scans[1].data.startswith(b"%PDF")
    reasons = {i.source.rsplit("> ", 1)[1]: i.reason for i in skipped}
    assert set(reasons) == {"logo.png", "signature.png", "notes.txt"}
    assert "64x64" in reasons["logo.png"]
    assert "120x120" in reasons["signature.png"]
    assert "text/plain" in reasons["notes.txt"]


def test_mbox_with_several_messages(tmp_path):
    path = tmp_path / "inbox.mbox"
    box = mailbox.mbox(path)
    box.add(message("a@x.org", "week 1", [("one.png", "image/png", scan_png(seed=1))]).as_bytes())
    box.add(message("b@y.org", "no attachment, just chat", []).as_bytes())
    box.add(message("c@z.org", "week 1 again", [("two.jpg", "image/png", scan_png(seed=2)),
                                                 ("three.png", "image/png", scan_png(seed=3))]).as_bytes())
    box.flush()
    box.close()
    scans = [i for i in collect_inputs([path]) if isinstance(i, ScanInput)]
    assert [(s.sender, s.name) for s in scans] == [("a@x.org", "one.png"), ("c@z.org", "two.jpg"),
                                                   ("c@z.org", "three.png")]
    assert scans[0].container == f"{path.name} #1" and scans[1].container == f"{path.name} #3"
    assert len({s.sha256 for s in scans}) == 3


@pytest.mark.parametrize("raw, expected", [
    ("../../x.jpg", "x.jpg"),
    ("..\\..\\windows\\evil.png", "evil.png"),
    ("/etc/passwd", "passwd"),
    ("..", "attachment"),
    ("", "attachment"),
    ("a\x00b<c>.png", "a_b_c_.png"),
    ("  .hidden.png ", "hidden.png"),
])
def test_safe_name(raw, expected):
    assert safe_name(raw) == expected


def test_traversal_attachment_names_are_made_safe(tmp_path):
    msg = message("m@x.org", "sheets", [("../../x.jpg", "image/jpeg", scan_png(seed=4)),
                                        ("../../x.jpg", "image/jpeg", scan_png(seed=5))])
    eml = tmp_path / "m.eml"
    eml.write_bytes(msg.as_bytes())
    scans = [i for i in collect_inputs([eml]) if isinstance(i, ScanInput)]
    assert [s.name for s in scans] == ["x.jpg", "x-2.jpg"]
    assert all("/" not in s.source.split("> ")[1] for s in scans)


def test_folders_recurse_and_skip_hidden_other_files_and_the_output_folder(tmp_path):
    (tmp_path / "in" / "week1").mkdir(parents=True)
    (tmp_path / "in" / "week1" / "a.png").write_bytes(scan_png(seed=6))
    (tmp_path / "in" / "b.PDF").write_bytes(pdf_bytes())
    (tmp_path / "in" / "readme.txt").write_text("not a scan")
    (tmp_path / "in" / ".DS_Store").write_bytes(b"junk")
    (tmp_path / "in" / "out" / "sheets").mkdir(parents=True)
    (tmp_path / "in" / "out" / "sheets" / "old.jpg").write_bytes(scan_png(seed=7))
    (tmp_path / "in" / "week1" / "loop").symlink_to(tmp_path / "in", target_is_directory=True)
    items = list(collect_inputs([tmp_path / "in"], exclude=[tmp_path / "in" / "out"]))
    assert [i.name for i in items if isinstance(i, ScanInput)] == ["b.PDF", "a.png"]
    assert all(i.path for i in items if isinstance(i, ScanInput))
    # a file that is not a scan is named, not silently passed over (hidden ones are not entered)
    assert [(i.source, i.file) for i in items if isinstance(i, Skipped)] == [("in/readme.txt", True)]


def test_explicit_unknown_file_is_passed_on_and_unreadable_is_a_problem(tmp_path):
    odd = tmp_path / "scan.xyz"
    odd.write_bytes(b"whatever")
    items = list(collect_inputs([odd]))
    assert isinstance(items[0], ScanInput)  # the reader will say what is wrong with it
    locked = tmp_path / "locked.png"
    locked.write_bytes(b"x")
    locked.chmod(0)
    try:
        items = list(collect_inputs([locked]))
    finally:
        locked.chmod(0o644)
    if isinstance(items[0], InputProblem):  # root can read anything
        assert items[0].error == "permission denied"


def test_batch_over_traversal_names_writes_only_inside_dir(tmp_path):
    from batch.runner import BatchOptions, run_batch
    from tests.support import consistent_rows, fake_reader, sheet_bytes, simple_reconciler

    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    sheet = sheet_bytes(consistent_rows([(0, 370), (120, 0)]))
    msg = message("m@x.org", "sheets", [("../../x.pdf", "application/pdf", sheet),
                                        ("/tmp/abs.pdf", "application/pdf", sheet + b" ")])
    (work / "m.eml").write_bytes(msg.as_bytes())
    before = sorted(p for p in tmp_path.rglob("*"))
    summary = run_batch(collect_inputs([work / "m.eml"]),
                        BatchOptions(out_dir=work / "out", jobs=1, progress=False),
                        reader=fake_reader, reconciler=simple_reconciler)
    assert summary.sheets == 2
    new = [p for p in tmp_path.rglob("*") if p not in before]
    assert new and all(p.is_relative_to(work / "out") for p in new)


def test_a_message_without_a_scan_is_named_not_dropped(tmp_path):
    """An e-mail with no scan attached (chat, or only a signature logo) comes out as one Skipped
    message naming its sender and subject; one with a scan does not; the batch lists them apart
    from skipped attachments."""
    from batch.runner import BatchOptions, run_batch
    from tests.support import fake_reader, simple_reconciler

    path = tmp_path / "inbox.mbox"
    box = mailbox.mbox(path)
    box.add(message("a@x.org", "week 1", [("one.png", "image/png", scan_png(seed=1))]).as_bytes())
    box.add(message("b@y.org", "see you Tuesday", []).as_bytes())
    box.add(message("c@z.org", "oops", [("logo.png", "image/png", logo_png(64))]).as_bytes())
    box.flush()
    box.close()
    items = list(collect_inputs([path]))
    unscanned = [i for i in items if isinstance(i, Skipped) and i.message]
    assert [(i.source, i.reason) for i in unscanned] == [
        (f"{path.name} #2", "no scan attached (from b@y.org, 'see you Tuesday')"),
        (f"{path.name} #3", "no scan attached (from c@z.org, 'oops')")]
    assert [i.source for i in items if isinstance(i, Skipped) and not i.message] == [f"{path.name} #3 > logo.png"]
    summary = run_batch(iter([i for i in items if not isinstance(i, ScanInput)]),
                        BatchOptions(out_dir=tmp_path / "out", jobs=1, progress=False),
                        reader=fake_reader, reconciler=simple_reconciler)
    assert summary.no_scan == [f"{i.source}: {i.reason}" for i in unscanned] and summary.skipped == 1
    assert "2 e-mails without a scan" in summary.line() and "1 attachments skipped" in summary.line()


def test_maildir_folder(tmp_path):
    box = mailbox.Maildir(tmp_path / "Mail", create=True)
    box.add(message("d@x.org", "week 3", [("w3.png", "image/png", scan_png(seed=8))]).as_bytes())
    box.add(message("e@x.org", "hello", []).as_bytes())
    box.close()
    scans = [i for i in collect_inputs([tmp_path / "Mail"]) if isinstance(i, ScanInput)]
    assert [(s.sender, s.subject, s.name) for s in scans] == [("d@x.org", "week 3", "w3.png")]
