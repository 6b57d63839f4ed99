"""E-mails as pairs send them, for the mail tests: scans (the fake scans of tests/support.py,
which the fake reader reads in no time), a forwarded scan, a logo, a message without a scan, a
malformed one."""

from __future__ import annotations

import email.utils
from email.message import EmailMessage

from tests.support import consistent_rows, sheet_bytes

SCORES = [(0, 370), (120, 0), (0, 60), (530, 0), (0, 0), (90, 100)]


def fake_scan(n: int, ns: str | None = None, **kw) -> bytes:
    """A fake scan (see tests.support.fake_reader), different for each ``n``, big enough that
    batch.inputs does not take it for a logo; ``ns`` names the N/S pair."""
    names = (ns or f"Pair {n} / Smith", "Brown / Reid")
    raw = sheet_bytes(consistent_rows(SCORES), names=names, **kw)
    return raw + b" " * max(0, 2500 - len(raw))


def scan_message(n: int, scans: list[tuple[str, bytes]] | None = None, sender: str | None = None,
                 subject: str | None = None, message_id: str | None = None,
                 body: str = "Our sheet is attached.") -> EmailMessage:
    """Message ``n`` from a pair, with ``scans`` (name, bytes) attached (default: one fake scan)."""
    msg = EmailMessage()
    msg["From"] = sender or f"Player {n} <player{n}@pairs.test>"
    msg["To"] = "Organiser <org@club.test>"
    msg["Subject"] = subject if subject is not None else f"Match {n} sheet"
    msg["Date"] = email.utils.formatdate(1772000000 + n * 3600)
    msg["Message-ID"] = message_id or f"<sheet-{n}@pairs.test>"
    msg.set_content(body)
    for name, data in scans if scans is not None else [(f"match-{n}.png", fake_scan(n))]:
        msg.add_attachment(data, maintype="image", subtype="png", filename=name)
    return msg


def forwarded(original: EmailMessage, n: int) -> EmailMessage:
    """``original`` forwarded by someone else as an attachment (message/rfc822)."""
    msg = EmailMessage()
    msg["From"] = f"Captain {n} <captain{n}@pairs.test>"
    msg["To"] = "org@club.test"
    msg["Subject"] = "Fwd: " + str(original["Subject"])
    msg["Message-ID"] = f"<fwd-{n}@pairs.test>"
    msg.set_content("Forwarding the sheet my partner sent.")
    msg.add_attachment(original)
    return msg


def logo_and_text(n: int) -> EmailMessage:
    """A message with no scan: a tiny logo and a text file."""
    msg = scan_message(n, scans=[], subject="Can we play Tuesday?", body="No sheet yet, sorry.")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n" + b"\0" * 200, maintype="image", subtype="png",
                       filename="logo.png")
    msg.add_attachment(b"see you", maintype="text", subtype="plain", filename="notes.txt")
    return msg


def malformed(n: int) -> bytes:
    """A broken message: no Message-ID, a bad date, a truncated base64 attachment of an
    unknown kind, a multipart boundary that never closes."""
    return (b"From: =?utf-8?q?broken?= <<bad@@pairs.test>\r\n"
            b"To: org@club.test\r\n"
            b"Subject: sheet " + str(n).encode() + b"\r\n"
            b"Date: yesterday-ish\r\n"
            b"MIME-Version: 1.0\r\n"
            b'Content-Type: multipart/mixed; boundary="XX"\r\n\r\n'
            b"--XX\r\nContent-Type: text/plain\r\n\r\nhello\r\n"
            b"--XX\r\nContent-Type: image/png; name=\"s.png\"\r\n"
            b"Content-Transfer-Encoding: base64\r\n"
            b"Content-Disposition: attachment; filename=\"s.png\"\r\n\r\n"
            b"iVBORw0KGgo!!!!not base64 at all=\r\n" + b"QUJD!?" * 800)
