"""The mailbox as a batch input, against a real Dovecot server (conftest.py): every scan read
once, reruns fetch nothing, moves only after the ledger has the results, a server stopped mid-run
loses nothing."""

from __future__ import annotations

import sqlite3
import time
from datetime import date
from pathlib import Path

import pytest

from batch.imap import MailboxOptions, MailInputs, open_mailboxes
from batch.ledger import LEDGER_NAME, Ledger
from batch.mailurl import MailURLError
from batch.runner import BatchOptions, run_batch
from tests.batch.mail.messages import fake_scan, forwarded, logo_and_text, malformed, scan_message
from tests.batch.mail.servers import PASSWORD
from tests.support import fake_reader, simple_reconciler


def run(dovecot, out: Path, ca_file, *, force=False, timeout=30.0, on_message=None,
        url=None, **options):
    """One batch over the test's mailbox (and nothing else), with the fake reader."""
    url = url or dovecot.url()
    mailboxes = open_mailboxes([url], MailboxOptions(ca=str(ca_file), **options))
    items = MailInputs([url], out, [out], mailboxes, force=force, progress=False)
    items.on_message = on_message
    summary = run_batch(items, BatchOptions(out_dir=out, jobs=2, progress=False, force=force,
                                            timeout=timeout),
                        reader=fake_reader, reconciler=simple_reconciler)
    items.finish()
    return summary, items, mailboxes[url].report


def scans_in(out: Path) -> dict[str, str]:
    """source -> status of every scan in the ledger."""
    with Ledger(out / LEDGER_NAME) as ledger:
        return {r.source: r.status for r in ledger.sheets()}


def test_scans_forwarded_scan_no_scan_and_malformed_each_read_once(dovecot, ca_file, imap_env,
                                                                   tmp_path):
    first = scan_message(1)
    two_scans = scan_message(2, scans=[("front.png", fake_scan(2)), ("back.png", fake_scan(3))])
    dovecot.append([first, two_scans, forwarded(first, 9), logo_and_text(4), malformed(5)])
    out = tmp_path / "out"
    summary, items, report = run(dovecot, out, ca_file)

    assert (report.found, report.fetched, report.already, report.errors) == (5, 5, 0, [])
    # three different scans read; the forwarded copy of the first is the same content
    assert (summary.sheets, summary.duplicates) == (3, 1)
    sources = scans_in(out)
    base = dovecot.url()
    assert sources[f"{base};UID=1 > match-1.png"] == "ok"
    assert sources[f"{base};UID=2 > front.png"] == sources[f"{base};UID=2 > back.png"] == "ok"
    # the broken attachment of the malformed message is a failure with its reason, not a crash
    failed = [s for s in summary.failures if ";UID=5" in s]
    assert len(failed) == 1 and "s.png" in failed[0]
    # the message without a scan is named, and its logo and text file are named as skipped
    (no_scan,) = summary.no_scan
    assert ";UID=4" in no_scan and "Can we play Tuesday?" in no_scan
    assert any("UID=4 > logo.png" in s and "tiny image" in s for s in items.skipped)
    assert any("UID=4 > notes.txt" in s and "not an image or PDF" in s for s in items.skipped)
    with Ledger(out / LEDGER_NAME) as ledger:
        db = ledger.db
        ids = [r[0] for r in db.execute("SELECT message_id FROM mail_messages ORDER BY uid")]
        scan = db.execute("SELECT sender, subject FROM scans WHERE source LIKE ?",
                          ("%UID=1 >%",)).fetchone()
    assert ids == ["<sheet-1@pairs.test>", "<sheet-2@pairs.test>", "<fwd-9@pairs.test>",
                   "<sheet-4@pairs.test>", None]
    assert scan == ("Player 1 <player1@pairs.test>", "Match 1 sheet")
    assert not (out / ".mail-spool").exists()  # attachments spooled on disk, removed afterwards

    # a rerun fetches nothing and reads nothing
    again, _, report2 = run(dovecot, out, ca_file)
    assert (report2.found, report2.already, report2.fetched) == (5, 5, 0)
    assert (again.scans, again.sheets) == (0, 0)
    # nothing was deleted, nor marked read
    assert len(dovecot.message_ids()) == 5
    client = dovecot.client()
    client.select("INBOX", readonly=True)
    assert client.uid("SEARCH", "SEEN")[1] == [b""]
    client.logout()


def test_a_message_delivered_twice_and_a_new_message_later(dovecot, ca_file, imap_env, tmp_path):
    dovecot.append([scan_message(1)])
    out = tmp_path / "out"
    run(dovecot, out, ca_file)
    # the same message again (same Message-ID: delivered twice), and a new one
    dovecot.append([scan_message(1), scan_message(2)])
    summary, _, report = run(dovecot, out, ca_file)
    assert (report.found, report.already, report.fetched) == (3, 2, 1)
    assert summary.sheets == 1 and any("UID=3 > match-2.png" in s for s in scans_in(out))
    # --force fetches every message and reads every scan again
    summary, _, report = run(dovecot, out, ca_file, force=True)
    assert (report.found, report.already, report.fetched, summary.sheets) == (3, 0, 3, 2)


def test_move_to_only_after_the_results_are_in_the_ledger(dovecot, ca_file, imap_env, tmp_path):
    slow = scan_message(3, scans=[("slow.png", b"SLEEP 30 " + b" " * 2500)])
    dovecot.append([scan_message(1), scan_message(2), slow, logo_and_text(4)])
    out = tmp_path / "out"
    summary, _, report = run(dovecot, out, ca_file, move_to="Processed/2026", timeout=1.0)
    # the slow scan timed out: it may be retried, so its message stays in INBOX
    assert summary.failed == 1 and report.moved == 3 and report.errors == []
    assert dovecot.message_ids("INBOX") == ["<sheet-3@pairs.test>"]
    assert sorted(dovecot.message_ids("Processed.2026")) == [
        "<sheet-1@pairs.test>", "<sheet-2@pairs.test>", "<sheet-4@pairs.test>"]
    with Ledger(out / LEDGER_NAME) as ledger:
        moved = ledger.db.execute("SELECT COUNT(*) FROM mail_messages WHERE moved_to = ?",
                                  ("Processed/2026",)).fetchone()[0]
    assert moved == 3


def test_since_limits_the_search(dovecot, ca_file, imap_env, tmp_path):
    dovecot.append([scan_message(1)], when=time.mktime((2026, 1, 10, 12, 0, 0, 0, 0, -1)))
    dovecot.append([scan_message(2)], when=time.mktime((2026, 3, 2, 12, 0, 0, 0, 0, -1)))
    out = tmp_path / "out"
    summary, _, report = run(dovecot, out, ca_file, since=date(2026, 3, 1))
    assert (report.found, report.fetched, summary.sheets) == (1, 1, 1)
    assert list(scans_in(out)) == [f"{dovecot.url()};UID=2 > match-2.png"]


def test_server_stopped_mid_run_loses_nothing_and_the_next_run_finishes(dovecot, ca_file,
                                                                         imap_env, tmp_path):
    dovecot.append([scan_message(n) for n in range(1, 21)])
    out = tmp_path / "out"
    fetched = []

    def stop_after_eight(message):
        fetched.append(message.uid)
        if len(fetched) == 8:
            dovecot.stop()

    summary, items, report = run(dovecot, out, ca_file, on_message=stop_after_eight)
    assert report.fetched == 8 and summary.sheets == 8
    assert len(report.errors) == 1 and "after 8 of 20 messages" in report.errors[0]
    assert "run again" in report.errors[0]
    assert items.failures() == [f"{dovecot.url()}: {report.errors[0]}"]
    assert len(scans_in(out)) == 8

    dovecot.start()
    summary, items, report = run(dovecot, out, ca_file)
    assert (report.found, report.already, report.fetched, report.errors) == (20, 8, 12, [])
    assert summary.sheets == 12
    sources = scans_in(out)
    assert sorted(sources) == sorted(f"{dovecot.url()};UID={n} > match-{n}.png"
                                     for n in range(1, 21))
    assert set(sources.values()) == {"ok"}


def test_a_dropped_connection_is_made_again_and_the_run_finishes(dovecot, ca_file, imap_env,
                                                                 tmp_path):
    dovecot.append([scan_message(n) for n in range(1, 11)])
    out = tmp_path / "out"

    def cut_after_four(message):
        if message.uid == 4:
            dovecot.kill_sessions()  # the server stays up: only this connection is cut

    summary, _, report = run(dovecot, out, ca_file, on_message=cut_after_four)
    assert (report.fetched, report.errors, summary.sheets) == (10, [], 10)
    assert len(scans_in(out)) == 10


def test_a_message_gone_between_search_and_fetch_is_said_and_the_rest_read(dovecot, ca_file,
                                                                          imap_env, tmp_path):
    dovecot.append([scan_message(n) for n in range(1, 6)])
    out = tmp_path / "out"

    def delete_fourth(message):
        if message.uid == 2:
            dovecot.delete_file_of("<sheet-4@pairs.test>")

    summary, _, report = run(dovecot, out, ca_file, on_message=delete_fourth)
    assert report.fetched == 4 and summary.sheets == 4
    assert len(report.errors) == 1 and report.errors[0].startswith("UID 4: ")


def test_untrusted_certificate_wrong_password_and_plain_imap(dovecot, ca_file, imap_env,
                                                             tmp_path, monkeypatch):
    dovecot.append([scan_message(1)])
    out = tmp_path / "out"
    # the server's certificate is from a private CA this run was not told of
    mailboxes = open_mailboxes([dovecot.url()], MailboxOptions())
    items = MailInputs([dovecot.url()], out, [out], mailboxes, progress=False)
    summary = run_batch(items, BatchOptions(out_dir=out, jobs=1, progress=False),
                        reader=fake_reader, reconciler=simple_reconciler)
    (error,) = items.failures()
    assert "certificate is not trusted" in error and "--imap-ca" in error
    assert summary.sheets == 0

    with pytest.raises(MailURLError, match="--insecure-imap"):
        open_mailboxes([dovecot.url(plain=True)], MailboxOptions())
    summary, _, report = run(dovecot, out, ca_file, url=dovecot.url(plain=True), insecure=True)
    assert report.fetched == 1 and summary.sheets == 1

    # last: Dovecot makes the next login from an address that failed one wait
    monkeypatch.setenv("RUBBERSCAN_IMAP_PASSWORD", "wrong")
    _, items, report = run(dovecot, out, ca_file)
    assert len(report.errors) == 1 and "login failed for org@club.test" in report.errors[0]
    assert PASSWORD not in report.errors[0]


def test_a_folder_that_does_not_exist(dovecot, ca_file, imap_env, tmp_path):
    summary, items, report = run(dovecot, tmp_path / "out", ca_file,
                                 url=dovecot.url("Scores/Week 12"))
    assert len(report.errors) == 1 and "no folder 'Scores/Week 12'" in report.errors[0]
    # made, it is found: levels written with "/" whatever the server's separator, spaces quoted
    dovecot.append([scan_message(1)], folder="Scores.Week 12")
    _, _, report = run(dovecot, tmp_path / "out", ca_file, url=dovecot.url("Scores/Week%2012"))
    assert (report.found, report.fetched, report.errors) == (1, 1, [])


def test_ledger_tables_exist_in_a_ledger_made_before_them(tmp_path):
    path = tmp_path / LEDGER_NAME
    Ledger(path).close()
    db = sqlite3.connect(path)
    for table in ("mail_replies", "mail_items", "mail_messages"):
        db.execute(f"DROP TABLE {table}")
    db.commit()
    db.close()
    with Ledger(path) as ledger:
        tables = {r[0] for r in ledger.db.execute("SELECT name FROM sqlite_master")}
    assert {"mail_messages", "mail_items", "mail_replies"} <= tables


@pytest.mark.slow
def test_two_hundred_messages(dovecot, ca_file, imap_env, tmp_path):
    dovecot.append([scan_message(n) for n in range(1, 201)])
    out = tmp_path / "out"
    t0 = time.perf_counter()
    summary, _, report = run(dovecot, out, ca_file, move_to="Done")
    first = time.perf_counter() - t0
    assert (report.found, report.fetched, report.moved, report.errors) == (200, 200, 200, [])
    assert summary.sheets == 200 and len(scans_in(out)) == 200
    assert dovecot.message_ids("INBOX") == [] and len(dovecot.message_ids("Done")) == 200
    # the messages stay where they were moved: a rerun over that folder reads none, fetching
    # only their Message-IDs
    t0 = time.perf_counter()
    again, _, report = run(dovecot, out, ca_file, url=dovecot.url("Done"))
    rerun = time.perf_counter() - t0
    assert (report.found, report.already, report.fetched, again.scans) == (200, 200, 0, 0)
    assert rerun < first
