"""Replies to the pairs: written as .eml files and sent through a real SMTP server (aiosmtpd,
conftest.py), each once, saying per sheet what is wrong and what to do."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest

import cli
from batch.imap import MailboxOptions, MailInputs, open_mailboxes
from batch.ledger import LEDGER_NAME, Ledger
from batch.mailbook import MailBook
from batch.mailurl import parse_mail_url, tls_context
from batch.replies import TODO, plan_replies, send_replies, sheet_issues, write_replies
from batch.runner import BatchOptions, run_batch
from scoring.sheet import Flag
from tests.batch.mail.messages import fake_scan, scan_message
from tests.batch.mail.servers import PASSWORD, SmtpSink
from tests.support import fake_reader, simple_reconciler

# aiosmtpd cannot tell that smtps (TLS from the first byte) is encrypted: its warning is moot here
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

RESCAN = ("14 of the 40 written numbers could not be read with confidence: the writing is too "
          "faint or broken up in this scan.")
WRONG_WINNERS = "the sheet names N/S as winners, but E/W have the higher total (530 v 740)"


def reconciler(reading, rules=None):
    """simple_reconciler, with the verdicts a real sheet can carry, chosen by the N/S names."""
    sheet = simple_reconciler(reading, rules)
    if reading.names["ns"].startswith("RESCAN"):
        sheet.rescan = RESCAN
    if reading.names["ns"].startswith("WINNERS"):
        sheet.flags.append(Flag("winner", WRONG_WINNERS, side="ns", written="ns", expected="ew"))
    return sheet


@pytest.fixture
def batch_dir(dovecot, ca_file, imap_env, tmp_path) -> Path:
    """A batch folder read from the mailbox: a sheet to scan again, one with the wrong winners,
    one unreadable, one fine; and a scan from a file with the wrong winners (no one to reply to)."""
    dovecot.append([
        scan_message(1, scans=[("faint.png", fake_scan(1, ns="RESCAN / A"))],
                     sender="Ann Pair <ann@pairs.test>", subject="Week 12: Ann v Bob"),
        scan_message(2, scans=[("week12.png", fake_scan(2, ns="WINNERS / B"))]),
        scan_message(3, scans=[("broken.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 3000)]),
        scan_message(4),
    ])
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "wrong.png").write_bytes(fake_scan(5, ns="WINNERS / file"))
    out = tmp_path / "out"
    inputs = [dovecot.url(), str(folder)]
    items = MailInputs(inputs, out, [out], open_mailboxes(inputs, MailboxOptions(ca=str(ca_file))),
                       progress=False)
    summary = run_batch(items, BatchOptions(out_dir=out, jobs=1, progress=False),
                        reader=fake_reader, reconciler=reconciler)
    items.finish()
    assert summary.sheets == 4 and summary.failed == 1
    return out


def read_eml(path: Path):
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def text_of(msg) -> str:
    """The reply's text with its lines joined (it is wrapped at 72 characters)."""
    body = msg.get_content()
    assert max(len(line) for line in body.splitlines()) <= 72
    return " ".join(body.split())


def test_replies_written_once_to_the_sender_quoting_the_subject(batch_dir, tmp_path):
    outbox = tmp_path / "outbox"
    with Ledger(batch_dir / LEDGER_NAME) as ledger:
        plan = plan_replies(ledger)
        written = write_replies(plan.replies, outbox, MailBook(ledger))
    assert len(written) == 3
    assert plan.no_address == ["files/wrong.png: not from an e-mail, nobody to reply to"]
    mails = {str(m["To"]): m for m in map(read_eml, written)}
    assert set(mails) == {"ann@pairs.test", "player2@pairs.test", "player3@pairs.test"}

    ann = mails["ann@pairs.test"]
    assert ann["Subject"] == "Re: Week 12: Ann v Bob"
    assert ann["From"] == "org@club.test"  # the address the pair wrote to
    assert ann["In-Reply-To"] == "<sheet-1@pairs.test>"
    assert ann["References"] == "<sheet-1@pairs.test>"
    assert ann["Auto-Submitted"] == "auto-generated"
    body = text_of(ann)
    assert 'your e-mail "Week 12: Ann v Bob" of 2026-' in body
    assert f"- faint.png: {RESCAN}" in body and f"What to do: {TODO['rescan']}." in body

    body = text_of(mails["player2@pairs.test"])
    assert f"- week12.png: {WRONG_WINNERS}" in body and TODO["winner"] in body
    body = text_of(mails["player3@pairs.test"])
    assert "- broken.png: it could not be read: not an image or PDF file What to do: " \
        f"{TODO['unreadable']}." in body

    # each reply is written once
    with Ledger(batch_dir / LEDGER_NAME) as ledger:
        again = plan_replies(ledger)
        assert write_replies(again.replies, outbox, MailBook(ledger)) == []
    assert len(list(outbox.iterdir())) == 3


def test_replies_sent_through_smtp_once_and_the_same_as_written(batch_dir, tmp_path, ca_file,
                                                                 smtp_sink):
    server = parse_mail_url(smtp_sink.url(), ("smtps", "smtp"))
    with Ledger(batch_dir / LEDGER_NAME) as ledger:
        plan = plan_replies(ledger)
        book = MailBook(ledger)
        written = {str(read_eml(p)["Message-ID"]) for p in write_replies(plan.replies,
                                                                         tmp_path / "ob", book)}
        result = send_replies(plan.replies, server, PASSWORD, tls_context(ca_file), book)
        assert result.errors == [] and len(result.sent) == 3
        assert send_replies(plan_replies(ledger).replies, server, PASSWORD, tls_context(ca_file),
                            book).sent == []
    assert len(smtp_sink.received) == 3 and smtp_sink.logins == ["org@club.test"]
    got = {}
    for mail_from, rcpts, data in smtp_sink.received:
        msg = email.message_from_bytes(data, policy=email.policy.default)
        assert mail_from == "org@club.test" and rcpts == [str(msg["To"])]
        got[str(msg["Message-ID"])] = msg
    assert set(got) == written  # what was sent is what was written


def test_a_refused_recipient_and_a_server_that_is_down(batch_dir, ca, ca_file, tmp_path):
    sink = SmtpSink(ca, implicit=True)
    server = parse_mail_url(sink.url(), ("smtps",))
    with Ledger(batch_dir / LEDGER_NAME) as ledger:
        book = MailBook(ledger)
        replies = plan_replies(ledger).replies
        down = send_replies(replies, server, PASSWORD, tls_context(ca_file), book)
        assert down.sent == [] and len(down.errors) == 1
        assert "cannot connect" in down.errors[0] and "nothing sent" in down.errors[0]

        sink.refuse = {"player2@pairs.test"}
        sink.start()
        try:
            first = send_replies(replies, server, PASSWORD, tls_context(ca_file), book)
            assert len(first.sent) == 2 and len(first.errors) == 1
            assert first.errors[0].startswith("to player2@pairs.test: refused by the server: 550")
            sink.refuse = set()
            second = send_replies(plan_replies(ledger).replies, server, PASSWORD,
                                  tls_context(ca_file), book)
            assert [r.to for r in second.sent] == ["player2@pairs.test"] and second.errors == []
        finally:
            sink.stop()
    assert sorted(r[1][0] for r in sink.received) == [
        "ann@pairs.test", "player2@pairs.test", "player3@pairs.test"]


def test_the_replies_command(batch_dir, tmp_path, ca_file, monkeypatch, capsys, ca):
    outbox = tmp_path / "outbox"
    assert cli.main(["replies", str(batch_dir)]) == cli.ExitCode.USAGE
    assert cli.main(["replies", str(tmp_path), "--out", str(outbox)]) == cli.ExitCode.USAGE
    assert cli.main(["replies", str(batch_dir), "--out", str(outbox), "--from",
                     "Club Organiser <organiser@club.test>"]) == cli.ExitCode.OK
    out, err = capsys.readouterr()
    assert out.count("wrote ") == 3 and "3 e-mails call for a reply: 3 written now" in err
    assert "no reply: " in err and "wrong.png: not from an e-mail" in err
    assert all(read_eml(p)["From"] == "Club Organiser <organiser@club.test>"
               for p in outbox.iterdir())

    sink = SmtpSink(ca, implicit=False)
    sink.start()
    try:
        monkeypatch.setenv("HOME", str(tmp_path))
        monkeypatch.delenv("RUBBERSCAN_SMTP_PASSWORD", raising=False)
        args = ["replies", str(batch_dir), "--smtp", sink.url(), "--smtp-ca", str(ca_file)]
        assert cli.main(args) == cli.ExitCode.USAGE  # no password anywhere
        assert "RUBBERSCAN_SMTP_PASSWORD" in capsys.readouterr().err
        monkeypatch.setenv("RUBBERSCAN_SMTP_PASSWORD", PASSWORD)
        assert cli.main(args) == cli.ExitCode.OK
        out, err = capsys.readouterr()
        assert out.count("sent to ") == 3 and "3 sent now" in err
        assert cli.main(args) == cli.ExitCode.OK
        assert "sent to" not in capsys.readouterr().out
    finally:
        sink.stop()
    assert len(sink.received) == 3
    assert PASSWORD not in out + err


def test_what_each_verdict_asks_for():
    result = {"missing": ["deals 24-30 are outside the photo",
                          {"message": "glare over deals 5-8: ask for another photo"}],
              "flags": [{"kind": "cumulative", "message": "not for the pair to mend"}]}
    issues = sheet_issues("photo.jpg", "s1", result, None)
    assert [(i.problem, i.todo) for i in issues] == [
        ("deals 24-30 are outside the photo", TODO["missing"]),
        ("glare over deals 5-8", TODO["glare"])]
    assert sheet_issues("a.png", "s2", None, "time limit exceeded (60 s per sheet)") == []
    assert sheet_issues("a.png", "s2", None, "internal error: KeyError") == []
    assert sheet_issues("a.png", "s3", {"flags": [], "review": [{"deal": 3}]}, None) == []


def test_replies_to_saved_e_mails_and_to_mbox_messages(tmp_path):
    """.eml and mbox inputs are kept like mailbox messages: their replies answer them too; a
    scan whose e-mail the ledger does not know (a ledger from before) is answered without
    In-Reply-To, to the sender its scan row names."""
    import mailbox

    (tmp_path / "in").mkdir()
    eml = scan_message(7, scans=[("w.png", fake_scan(7, ns="WINNERS / C"))],
                       sender="Cy <cy@pairs.test>")
    eml["Reply-To"] = "Cy's partner <di@pairs.test>"
    (tmp_path / "in" / "week.eml").write_bytes(eml.as_bytes())
    box = mailbox.mbox(tmp_path / "in" / "club.mbox")
    box.add(scan_message(8, scans=[("f.png", fake_scan(8, ns="RESCAN / D"))]))
    box.close()
    out = tmp_path / "out"
    items = MailInputs([str(tmp_path / "in")], out, [out], progress=False)
    run_batch(items, BatchOptions(out_dir=out, jobs=1, progress=False), reader=fake_reader,
              reconciler=reconciler)
    with Ledger(out / LEDGER_NAME) as ledger:
        replies = {r.to: r.email() for r in plan_replies(ledger).replies}
    assert set(replies) == {"di@pairs.test", "player8@pairs.test"}  # Reply-To first
    assert replies["di@pairs.test"]["In-Reply-To"] == "<sheet-7@pairs.test>"
    assert replies["player8@pairs.test"]["In-Reply-To"] == "<sheet-8@pairs.test>"

    out2 = tmp_path / "out2"
    run_batch(MailInputs([str(tmp_path / "in" / "week.eml")], out2, [out2], progress=False),
              BatchOptions(out_dir=out2, jobs=1, progress=False), reader=fake_reader,
              reconciler=reconciler)
    with Ledger(out2 / LEDGER_NAME) as ledger:
        ledger.db.execute("DELETE FROM mail_messages")
        ledger.db.commit()
        (reply,) = plan_replies(ledger, sender="org@club.test").replies
    msg = reply.email()
    assert (reply.to, msg["In-Reply-To"], msg["Subject"]) == ("cy@pairs.test", None,
                                                             "Re: Match 7 sheet")
