"""`rubberscan batch imaps://...` end to end: a real scan read by the real reader from a real
Dovecot, the summary, the moves, and the password nowhere in what the run prints or writes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from batch.ledger import LEDGER_NAME, Ledger
from tests.batch.mail.messages import logo_and_text, scan_message
from tests.batch.mail.servers import PASSWORD
from tests.support import ROOT, SCANS

pytestmark = pytest.mark.slow  # reads a real scan (a worker loading the networks: seconds)


def batch(*args, home) -> subprocess.CompletedProcess:
    env = {**os.environ, "RUBBERSCAN_IMAP_PASSWORD": PASSWORD, "HOME": str(home),
           "OMP_NUM_THREADS": "1", "OMP_THREAD_LIMIT": "1"}
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), "batch", *args], env=env,
                          capture_output=True, text=True, timeout=300, cwd=home)


def test_batch_reads_a_real_scan_from_the_mailbox_once(dovecot, ca_file, tmp_path):
    scan = (SCANS / "01-classic-clean-mnist-blue.jpg").read_bytes()
    msg = scan_message(1, scans=[], sender="Frank <frank@pairs.test>", subject="Frank v Lena")
    msg.add_attachment(scan, maintype="image", subtype="jpeg", filename="sheet.jpg")
    dovecot.append([msg, logo_and_text(2)])
    out = tmp_path / "out"
    url = dovecot.url()
    run = batch(url, "--imap-ca", str(ca_file), "--out", str(out), "--jobs", "1", "--quiet",
                "--move-to", "Done", home=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert f"mailbox {url}: 2 messages, 2 fetched, 2 moved to Done" in lines
    assert f"no scan: {url};UID=2: no scan attached (from Player 2 <player2@pairs.test>, " \
           "'Can we play Tuesday?')" in lines
    assert any(line.startswith(f"skipped: {url};UID=2 > logo.png: tiny image") for line in lines)
    assert "1 sheets read" in lines[-1] and "0 failed" in lines[-1]
    with Ledger(out / LEDGER_NAME) as ledger:
        (sheet,) = [s for s in ledger.sheets() if s.result is not None]
    assert sheet.source == f"{url};UID=1 > sheet.jpg" and sheet.sender == "Frank <frank@pairs.test>"
    assert len(sheet.result["rows"]) >= 7
    assert dovecot.message_ids("INBOX") == [] and len(dovecot.message_ids("Done")) == 2

    # again, over the folder they were moved to: nothing is fetched, nothing read
    again = batch(dovecot.url("Done"), "--imap-ca", str(ca_file), "--out", str(out), "--quiet",
                  home=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"mailbox {dovecot.url('Done')}: 2 messages, 2 read before (by Message-ID), 0 fetched" \
        in again.stderr
    assert "0 sheets read" in again.stderr.splitlines()[-1]

    # the password is in nothing the runs printed or wrote
    assert PASSWORD not in run.stdout + run.stderr + again.stdout + again.stderr
    for path in out.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path
    assert not (out / ".mail-spool").exists()
