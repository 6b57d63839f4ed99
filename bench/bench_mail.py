"""The mailbox input (batch/imap.py) against a real Dovecot on this machine: how fast messages
are fetched, how little memory that takes, how fast a rerun skips them and how fast they move.

    python -m bench.bench_mail [--messages 200] [--size-kb 1000] [--runs 3]

Each run starts a Dovecot of its own (tests/batch/mail/servers.py; TLS on 127.0.0.1), delivers
N messages with one attachment of SIZE KB each (a JPEG header and random bytes: what is measured
is the mail handling, not the reading), then times, in this process:

- fetch: iterating the batch's inputs over the mailbox (search, Message-IDs, every message
  fetched, parsed, its attachment spooled to disk and the message recorded in a ledger), and
  the peak resident memory above what the process held before (Linux: VmHWM after clear_refs);
- rerun: the same over a mailbox whose messages are all in the ledger (Message-IDs only);
- move: every message moved to another folder (``--move-to``).

The figures are the median of the runs.
"""

from __future__ import annotations

import argparse
import email.utils
import os
import platform
import statistics
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from batch.imap import MailboxOptions, MailInputs, open_mailboxes  # noqa: E402
from batch.ledger import LEDGER_NAME, Ledger  # noqa: E402
from batch.mailbook import MailBook  # noqa: E402
from tests.batch.mail.servers import PASSWORD, start_dovecot  # noqa: E402


def message(n: int, size: int) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"Player {n} <player{n}@pairs.test>"
    msg["To"] = "org@club.test"
    msg["Subject"] = f"Match {n}"
    msg["Date"] = email.utils.formatdate()
    msg["Message-ID"] = f"<bench-{n}@pairs.test>"
    msg.set_content("Our sheet.")
    msg.add_attachment(b"\xff\xd8\xff\xe0" + os.urandom(size), maintype="image", subtype="jpeg",
                       filename=f"match-{n}.jpg")
    return msg


def peak_rss_reset() -> None:
    """Start counting the peak resident memory afresh (Linux 4.0+)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def rss_mb(key: str) -> float:
    """VmRSS (now) or VmHWM (peak since the last reset) in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def one_run(ca, ca_file: Path, messages: int, size: int) -> dict:
    server = start_dovecot(ca)
    out = Path(tempfile.mkdtemp(prefix="bench-mail-"))
    try:
        server.append(message(n, size) for n in range(1, messages + 1))
        url = server.url()
        Ledger(out / LEDGER_NAME).close()  # as the batch makes it before reading its inputs

        def inputs(**kw) -> tuple[MailInputs, object]:
            boxes = open_mailboxes([url], MailboxOptions(ca=str(ca_file), **kw))
            return MailInputs([url], out, [out], boxes, progress=False), boxes[url].report

        items, report = inputs()
        base = rss_mb("VmRSS")
        peak_rss_reset()
        t0 = time.perf_counter()
        got = sum(1 for _ in items)
        fetch = time.perf_counter() - t0
        peak = rss_mb("VmHWM") - base
        assert got == messages and report.fetched == messages and not report.errors, report
        # the batch would read them now; here the ledger is only told the scans are done
        with Ledger(out / LEDGER_NAME) as ledger:
            ledger.db.executemany(
                "INSERT INTO scans (sha256, source, status, processed_at) VALUES (?, ?, 'done', '')",
                ledger.db.execute("SELECT sha256, source FROM mail_items").fetchall())
            ledger.db.commit()

        items, report = inputs(move_to="Done")
        t0 = time.perf_counter()
        assert sum(1 for _ in items) == 0
        rerun = time.perf_counter() - t0
        assert report.already == messages, report
        t0 = time.perf_counter()
        items.finish()
        move = time.perf_counter() - t0
        assert report.moved == messages and not report.errors, report
        with Ledger(out / LEDGER_NAME) as ledger:
            assert MailBook(ledger).db.execute(
                "SELECT COUNT(*) FROM mail_messages WHERE moved_to = 'Done'").fetchone()[0] == messages
        return {"fetch": fetch, "peak": peak, "rerun": rerun, "move": move}
    finally:
        server.cleanup()
        import shutil

        shutil.rmtree(out, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    import trustme

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--messages", type=int, default=200)
    p.add_argument("--size-kb", type=int, default=1000)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    os.environ["RUBBERSCAN_IMAP_PASSWORD"] = PASSWORD
    ca = trustme.CA()
    ca_file = Path(tempfile.mkdtemp()) / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    runs = [one_run(ca, ca_file, args.messages, args.size_kb * 1024) for _ in range(args.runs)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    n, mb = args.messages, args.messages * args.size_kb / 1024
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; median of {args.runs} runs")
    print(f"command: python -m bench.bench_mail --messages {n} --size-kb {args.size_kb} "
          f"--runs {args.runs}\n")
    print("| what | median | per message |")
    print("|---|---|---|")
    print(f"| fetch {n} messages of {args.size_kb} KB ({mb:.0f} MB), TLS | {med['fetch']:.2f} s "
          f"({n / med['fetch']:.0f} messages/s, {mb / med['fetch']:.0f} MB/s) | "
          f"{med['fetch'] / n * 1000:.1f} ms |")
    print(f"| peak memory above the start, during that fetch | {med['peak']:.0f} MB | |")
    print(f"| rerun: all {n} known by Message-ID | {med['rerun']:.2f} s | "
          f"{med['rerun'] / n * 1000:.2f} ms |")
    print(f"| move {n} messages to another folder | {med['move']:.2f} s | "
          f"{med['move'] / n * 1000:.2f} ms |")
    print("\nruns: " + "; ".join(", ".join(f"{k} {v:.2f}" for k, v in r.items()) for r in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
