"""Replies to the pairs whose e-mailed sheet needs something from them: a new scan or photo (the
sheet's record says why: ``rescan``, or ``missing`` parts of the table), a sheet that could not
be read at all, or a winners line that does not match the sheet's totals.

One reply per e-mail, To its sender (Reply-To when it has one), quoting its subject, In-Reply-To
its Message-ID, saying per sheet what is wrong and exactly what to do.  Replies are written as
ready-to-send ``.eml`` files to an outbox folder, or sent through an SMTP server (smtps://, or
smtp:// with STARTTLS; never unencrypted).  The ledger keeps each reply (batch/mailbook.py): it is
written once and sent once, and what is sent is what was written.
"""

from __future__ import annotations

import base64
import email
import email.policy
import email.utils
import hashlib
import json
import re
import smtplib
import ssl
import textwrap
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from batch.atomic import atomic_write_bytes
from batch.inputs import MailMessage, printable, safe_name
from batch.ledger import RETRY_ERRORS, Ledger
from batch.mailbook import MailBook
from batch.mailurl import MailServer, MailURLError, tls_problem

SCHEMES = ("smtps", "smtp")
PASSWORD_ENV = "RUBBERSCAN_SMTP_PASSWORD"
TIMEOUT_S = 60.0  # an SMTP server silent this long is taken as gone
# Failures that are ours, not the sender's: no reply asks them for anything.
OUR_FAILURES = RETRY_ERRORS + ("internal error",)
# What the photo reader appends to a "missing" message for the organiser; a reply says it itself.
_ASK_SUFFIX = ": ask for another photo"

TODO = {
    "missing": "please send another photo of the whole sheet, with all of the table inside the "
               "picture",
    "glare": "please send another photo of the whole sheet, with all of the table inside the "
             "picture and no glare on it (tilt the sheet away from the light)",
    "rescan": "please send a clearer scan or photo of the whole sheet: in good light, and not by "
              "fax (pencil does not survive one)",
    "unreadable": "please send a scan or photo of the whole sheet (JPEG, PNG or PDF)",
    "winner": "please check the totals and the winners line, and send the corrected sheet (or "
              "reply saying which pair won)",
}


@dataclass
class Issue:
    """One thing wrong with one sheet that the sender can put right."""

    key: str  # "<sheet id or scan source>:<kind>": what the ledger remembers replies by
    what: str  # the attachment as the sender knows it: "match.jpg", "match.pdf page 2"
    problem: str  # the sheet's record's own words
    todo: str


@dataclass
class Reply:
    key: str
    message: int | None  # the ledger's row of the e-mail replied to
    to: str
    subject: str
    content: bytes  # the whole e-mail, CRLF line ends
    file_name: str
    issues: list[Issue] = field(default_factory=list)

    def email(self) -> EmailMessage:
        return email.message_from_bytes(self.content, policy=email.policy.SMTP)


@dataclass
class Plan:
    replies: list[Reply] = field(default_factory=list)
    no_address: list[str] = field(default_factory=list)  # "source: why nobody can be told"


def sheet_issues(what: str, key: str, result: dict | None, error: str | None) -> list[Issue]:
    """What the sender of one sheet must put right, from the sheet's stored result (or the
    error it failed with)."""
    if result is None:
        if not error or error.startswith(OUR_FAILURES):
            return []
        return [Issue(f"{key}:unreadable", what, f"it could not be read: {error}",
                      TODO["unreadable"])]
    issues: list[Issue] = []
    missing = result.get("missing") or []
    for item in missing if isinstance(missing, list) else [missing]:
        text = item.get("message") if isinstance(item, dict) else str(item)
        if not text:
            continue
        text = text[:-len(_ASK_SUFFIX)] if text.endswith(_ASK_SUFFIX) else text
        kind = "glare" if "glare" in text else "missing"
        issues.append(Issue(f"{key}:missing:{text}", what, text, TODO[kind]))
    rescan = result.get("rescan")
    for text in rescan if isinstance(rescan, list) else [rescan] if rescan else []:
        issues.append(Issue(f"{key}:rescan", what, str(text), TODO["rescan"]))
    for flag in result.get("flags") or []:
        if flag.get("kind") == "winner":
            issues.append(Issue(f"{key}:winner", what, str(flag.get("message", "")),
                                TODO["winner"]))
    return issues


def plan_replies(ledger: Ledger, sender: str | None = None) -> Plan:
    """Every reply the ledger's sheets call for (written or sent before, or not); ``sender`` is
    the From address (default: the address the e-mail was sent to)."""
    book = MailBook(ledger)
    rows = ledger.db.execute(
        "SELECT sc.sha256, sc.source, sc.attachment, sc.container, sc.sender, sc.subject,"
        " sc.sent_date, sc.error, sh.id, sh.page, sh.error, m.result,"
        " (SELECT COUNT(*) FROM sheets s2 WHERE s2.scan_id = sc.id)"
        " FROM scans sc LEFT JOIN sheets sh ON sh.scan_id = sc.id"
        " LEFT JOIN matches m ON m.sheet_id = sh.id ORDER BY sc.id, sh.page").fetchall()
    groups: dict[str, tuple[int | None, MailMessage, list[Issue]]] = {}
    plan = Plan()
    for (sha256, source, attachment, container, from_, subject, date, scan_error, sid, page,
         sheet_error, result, pages) in rows:
        what = attachment or source.rpartition(" > ")[2] or source
        if pages > 1 and page is not None:
            what += f" page {page + 1}"
        error = _without_source(sheet_error or scan_error, source)
        issues = sheet_issues(what, sid or source, _json(result), error)
        if not issues:
            continue
        row = _message_row(book, sha256, source)
        message = book.message(row) if row is not None else MailMessage(
            container=container or source, sender=from_, subject=subject, date=date)
        if not (message.reply_to or message.sender):
            plan.no_address.append(f"{source}: not from an e-mail, nobody to reply to")
            continue
        group = groups.setdefault(str(row) if row is not None else message.container,
                                  (row, message, []))
        group[2].extend(issues)
    for (row, message, issues) in groups.values():
        reply = _compose(ledger, book, row, message, issues, sender)
        if isinstance(reply, str):
            plan.no_address.append(reply)
        else:
            plan.replies.append(reply)
    return plan


def _without_source(error: str | None, source: str) -> str | None:
    """The reader's error without the scan's source it starts with (the reply names the file)."""
    if error and error.startswith(source):
        error = re.sub(r"^( page \d+)?:\s*", "", error[len(source):])
    return error


def _json(text: str | None) -> dict | None:
    return json.loads(text) if text else None


def _message_row(book: MailBook, sha256: str | None, source: str) -> int | None:
    """The e-mail a scan came in: the one whose input is this very source, else the first."""
    row = book.db.execute("SELECT message FROM mail_items WHERE source = ? ORDER BY message DESC",
                          (source,)).fetchone()
    if row is not None:
        return row[0]
    if sha256 is None:
        return None
    row = book.db.execute("SELECT MIN(message) FROM mail_items WHERE sha256 = ?",
                          (sha256,)).fetchone()
    return row[0] if row else None


def _address(header: str | None) -> str | None:
    for _, addr in email.utils.getaddresses([header or ""]):
        if "@" in addr:
            return addr
    return None


def _compose(ledger: Ledger, book: MailBook, row: int | None, message: MailMessage,
             issues: list[Issue], sender: str | None) -> Reply | str:
    """The reply to ``message`` about ``issues`` (as first made, when the ledger has it), or
    why none can be made."""
    to = _address(message.reply_to) or _address(message.sender)
    if to is None:
        return f"{message.container}: no address to reply to in {message.sender!r}"
    keys = sorted({i.key for i in issues})
    key = f"{row if row is not None else message.container}|" + "|".join(keys)
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    file_name = safe_name(f"reply-{to}-{digest}.eml")
    stored = book.reply(key)
    if stored is not None:
        return Reply(key, row, stored["to"], stored["subject"], stored["content"].encode(),
                     file_name, issues)
    from_ = sender or _address(message.to)
    if from_ is None:
        return (f"{message.container}: no From address for the reply (the e-mail was sent to "
                f"{message.to!r}): give one with --from")
    subject = message.subject or "your score sheet"
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = from_
    msg["To"] = to
    msg["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    msg["Date"] = email.utils.formatdate(localtime=True)
    msg["Message-ID"] = email.utils.make_msgid("rubberscan", domain=from_.rpartition("@")[2])
    if message.message_id:
        msg["In-Reply-To"] = message.message_id
        msg["References"] = " ".join(x for x in (message.references, message.message_id) if x)
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: an autoresponder must not answer it
    body = _body(message, issues)
    msg.set_content(body, cte="7bit" if body.isascii() else "quoted-printable")
    content = msg.as_bytes()
    book.add_reply(key, row, to, str(msg["Subject"]), str(msg["Message-ID"]),
                   content.decode("ascii"))
    return Reply(key, row, to, str(msg["Subject"]), content, file_name, issues)


def _body(message: MailMessage, issues: list[Issue]) -> str:
    """The reply's text: per sheet what is wrong and what to do, in lines of at most 72."""
    when = f" of {message.date[:10]}" if re.match(r"\d{4}-\d\d-\d\d", message.date or "") else ""
    quoted = f'"{message.subject}"' if message.subject else "with your score sheet"
    wrap = textwrap.TextWrapper(width=72, break_long_words=False, break_on_hyphens=False)
    out = [wrap.fill(f"Thank you for your e-mail {quoted}{when}. Before your match can be "
                     "scored we need something more from you:")]
    for issue in issues:
        wrap.initial_indent, wrap.subsequent_indent = "- ", "  "
        out.append(wrap.fill(f"{issue.what}: {issue.problem}") + "\n" +
                   textwrap.fill(f"What to do: {issue.todo}.", 72, initial_indent="  ",
                                 subsequent_indent="  ", break_long_words=False))
    out.append(textwrap.fill("Please reply to this e-mail, with the new scan or photo attached "
                             "if one is asked for.", 72))
    return "Hello,\n\n" + "\n\n".join(out) + "\n\nThank you,\nThe organiser\n"


# --------------------------------------------------------------------------- writing, sending
def write_replies(replies: list[Reply], outbox: Path, book: MailBook) -> list[Path]:
    """Each reply not yet written, as ``OUTBOX/<file>.eml`` (atomically); the files written."""
    written = []
    for reply in replies:
        if (book.reply(reply.key) or {}).get("written"):
            continue
        path = atomic_write_bytes(Path(outbox) / reply.file_name, reply.content)
        book.reply_written(reply.key, str(path))
        written.append(path)
    return written


@dataclass
class SendResult:
    sent: list[Reply] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def send_replies(replies: list[Reply], server: MailServer, password: str | None,
                 context: ssl.SSLContext, book: MailBook, timeout: float = TIMEOUT_S) -> SendResult:
    """Send each reply not yet sent, each kept in the ledger as sent the moment the server takes
    it: a connection lost on the way loses nothing, and a rerun sends the rest."""
    todo = [r for r in replies if not (book.reply(r.key) or {}).get("sent_at")]
    result = SendResult()
    if not todo:
        return result
    try:
        smtp = _connect(server, password, context, timeout)
    except MailURLError as exc:
        result.errors.append(f"{server.text}: {exc}; nothing sent")
        return result
    try:
        for reply in todo:
            msg = reply.email()
            try:
                smtp.send_message(msg, from_addr=_address(str(msg["From"])), to_addrs=[reply.to])
            except (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused,
                    smtplib.SMTPDataError) as exc:
                result.errors.append(f"to {reply.to}: refused by the server: {_smtp_said(exc)}")
                continue
            book.reply_sent(reply.key, server.text)
            result.sent.append(reply)
    except (smtplib.SMTPException, OSError) as exc:
        left = len(todo) - len(result.sent)
        result.errors.append(f"{server.text}: connection lost ({_smtp_said(exc)}); {left} "
                             "not sent: run again to send them")
    finally:
        try:
            smtp.quit()
        except (smtplib.SMTPException, OSError):
            smtp.close()
    return result


def _connect(server: MailServer, password: str | None, context: ssl.SSLContext,
             timeout: float) -> smtplib.SMTP:
    """A connection over TLS (implicit, or STARTTLS: refused without it), logged in when the
    address names a user.  MailURLError says why not."""
    smtp: smtplib.SMTP | None = None
    try:
        if server.implicit_tls:
            smtp = smtplib.SMTP_SSL(server.host, server.port, timeout=timeout, context=context)
        else:
            smtp = smtplib.SMTP(server.host, server.port, timeout=timeout)
            smtp.ehlo()
            if not smtp.has_extn("starttls"):
                raise MailURLError("the server offers no STARTTLS: not sending unencrypted "
                                   "(use smtps:// if it takes TLS on another port)")
            smtp.starttls(context=context)
            smtp.ehlo()
        if server.user:
            _login(smtp, server.user, password or "")
        return smtp
    except ssl.SSLError as exc:
        _close(smtp)
        raise MailURLError(f"cannot connect: {tls_problem(exc, '--smtp-ca')}") from None
    except smtplib.SMTPAuthenticationError as exc:
        _close(smtp)
        raise MailURLError(f"login failed for {server.user}: {_smtp_said(exc)}") from None
    except (smtplib.SMTPException, OSError) as exc:
        _close(smtp)
        raise MailURLError(f"cannot connect to {server.host} port {server.port}: "
                           f"{_smtp_said(exc)}") from None
    except BaseException:
        _close(smtp)
        raise


def _login(smtp: smtplib.SMTP, user: str, password: str) -> None:
    """LOGIN; AUTH PLAIN by hand for a non-ASCII user or password (smtplib sends ASCII only)."""
    if user.isascii() and password.isascii():
        smtp.login(user, password)
        return
    smtp.ehlo_or_helo_if_needed()
    blob = base64.b64encode(f"\0{user}\0{password}".encode()).decode("ascii")
    code, said = smtp.docmd("AUTH", f"PLAIN {blob}")
    if code != 235:
        raise smtplib.SMTPAuthenticationError(code, said)


def _close(smtp: smtplib.SMTP | None) -> None:
    if smtp is not None:
        try:
            smtp.close()
        except OSError:
            pass


def _smtp_said(exc: BaseException) -> str:
    """An smtplib error as one printable line: the server's code and words."""
    if isinstance(exc, smtplib.SMTPResponseException):
        return printable(f"{exc.smtp_code} {_text(exc.smtp_error)}")[:300]
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        refused = "; ".join(f"{code} {_text(said)}" for code, said in exc.recipients.values())
        return printable(refused)[:300]
    return printable(str(exc) or type(exc).__name__)[:300]


def _text(said: bytes | str) -> str:
    return said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)
