"""The organiser's mailbox as a batch input: ``imaps://USER@HOST[:PORT]/FOLDER``.

Messages are fetched one at a time (bounded memory) with the standard library's imaplib, over
TLS with the certificate checked (plain ``imap://`` only when the user says so).  Each message is
read once: the ledger keeps its Message-ID and the inputs it brought (batch/mailbook.py), so a
rerun, a message delivered twice or copied into another folder is not fetched again; the same scan
forwarded twice is skipped by its content, as any scan is.  Messages are never deleted or marked
read (BODY.PEEK); ``--move-to`` moves a message only after the batch, and only once all its inputs
are safely in the ledger.  A dropped connection or a server error stops the fetching and is said
in the summary; what was fetched is read, and the next run fetches the rest.

An attachment is kept in a spool folder inside the batch folder until the batch has read it, so a
whole mailbox is never held in memory.
"""

from __future__ import annotations

import base64
import email
import email.parser
import email.policy
import imaplib
import re
import shutil
import ssl
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from batch.inputs import (
    InputProblem,
    Item,
    MailMessage,
    ScanInput,
    Skipped,
    collect_inputs,
    message_id,
    message_info,
    message_scans,
    printable,
    shown,
)
from batch.ledger import LEDGER_NAME, Ledger, LedgerError
from batch.mailbook import MailBook
from batch.mailurl import (
    MailServer,
    MailURLError,
    find_password,
    is_mail_url,
    parse_mail_url,
    tls_context,
    tls_problem,
)

SCHEMES = ("imaps", "imap")
PASSWORD_ENV = "RUBBERSCAN_IMAP_PASSWORD"
SPOOL_NAME = ".mail-spool"  # inside the batch folder; hidden, so never read as an input folder
TIMEOUT_S = 60.0  # a server silent this long (connecting, or mid-answer) is taken as gone
HEADER_CHUNK = 200  # Message-IDs asked for in one FETCH: one round trip per 200 messages
MOVE_CHUNK = 200  # messages moved in one command
# A message larger than this is not fetched (it would be held in memory whole): its attachments
# can be saved and given as files.  Phone photos are 2-12 MB; a message of a dozen is far below.
MAX_MESSAGE_BYTES = 100 * 1024 * 1024
RECONNECTS = 1  # after a dropped connection, tries to connect again before giving up for this run
_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.compat32)  # fast: the ids alone


@dataclass
class MailboxOptions:
    insecure: bool = False  # allow imap:// (no TLS): a local server, tests
    ca: str | None = None  # PEM file of a private certificate authority to trust
    since: date | None = None  # only messages that arrived on or after this day
    move_to: str | None = None  # folder to move each message to once it is done
    timeout: float = TIMEOUT_S


@dataclass
class MailboxReport:
    """What became of one mailbox in a run, for the summary."""

    mailbox: str
    found: int = 0  # messages the search found
    already: int = 0  # of those, recorded before and done (by Message-ID, else UID)
    fetched: int = 0
    moved: int = 0
    move_to: str | None = None
    errors: list[str] = field(default_factory=list)  # what failed and why, one line each

    def line(self) -> str:
        parts = [f"{self.found} message{'' if self.found == 1 else 's'}"]
        if self.already:
            parts.append(f"{self.already} read before (by Message-ID)")
        parts.append(f"{self.fetched} fetched")
        if self.move_to:
            parts.append(f"{self.moved} moved to {self.move_to}")
        return f"{self.mailbox}: " + ", ".join(parts)


class MailboxError(Exception):
    """The mailbox cannot be used now (connect, log in, select, or the connection was lost)."""


class _Lost(MailboxError):
    """The connection dropped, timed out, or the server said BYE: another connection may work."""


def imap_date(day: date) -> str:
    """IMAP's date (RFC 3501): 1-Mar-2026, in English whatever the locale."""
    months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
    return f"{day.day}-{months[day.month - 1]}-{day.year}"


def utf7_folder(name: str) -> str:
    """A folder name in IMAP's modified UTF-7 (RFC 3501 5.1.3): "Reçu" -> "Re&AOc-u"."""
    out: list[str] = []
    wide: list[str] = []

    def flush() -> None:
        if wide:
            raw = "".join(wide).encode("utf-16-be")
            coded = base64.b64encode(raw).decode("ascii").rstrip("=").replace("/", ",")
            out.append(f"&{coded}-")
            wide.clear()

    for ch in name:
        if 0x20 <= ord(ch) <= 0x7E:
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            wide.append(ch)
    flush()
    return "".join(out)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def uid_set(uids: list[int]) -> str:
    """1,2,3,7 -> "1:3,7"."""
    spans: list[list[int]] = []
    for u in sorted(uids):
        if spans and u == spans[-1][1] + 1:
            spans[-1][1] = u
        else:
            spans.append([u, u])
    return ",".join(str(a) if a == b else f"{a}:{b}" for a, b in spans)


class _Connection:
    """One logged-in IMAP connection with a folder selected; every failure becomes a
    MailboxError (or _Lost) whose text never holds the password."""

    def __init__(self, server: MailServer, password: str, options: MailboxOptions, readonly: bool):
        self.server = server
        try:
            if server.implicit_tls:
                self.imap = imaplib.IMAP4_SSL(server.host, server.port, timeout=options.timeout,
                                              ssl_context=tls_context(options.ca))
            else:
                self.imap = imaplib.IMAP4(server.host, server.port, timeout=options.timeout)
        except ssl.SSLError as exc:
            raise MailboxError(f"cannot connect: {tls_problem(exc, '--imap-ca')}") from None
        except (OSError, imaplib.IMAP4.error) as exc:
            where = f"{server.host} port {server.port}"
            raise _Lost(f"cannot connect to {where}: {_said(exc)}") from None
        try:
            self._login(password)
            self.capabilities = self._capabilities()
            self.delimiter = self._delimiter()
            self.folder = self.server_name(server.path or "INBOX")
            self.uidvalidity = self.select(self.folder, readonly)
        except BaseException:
            self.close()
            raise

    def _login(self, password: str) -> None:
        user = self.server.user or ""
        try:
            if "AUTH=PLAIN" in self.imap.capabilities:
                secret = f"\0{user}\0{password}".encode()
                self.imap.authenticate("PLAIN", lambda _challenge: secret)
            elif user.isascii() and password.isascii():
                self.imap.login(_quoted(user), password)
            else:
                raise MailboxError("the server offers no way to log in with a non-ASCII user "
                                   "or password")
        except imaplib.IMAP4.abort as exc:
            raise _Lost(f"connection lost while logging in: {_said(exc)}") from None
        except imaplib.IMAP4.error as exc:
            raise MailboxError(f"login failed for {user or '(no user)'}: {_said(exc)}") from None
        except OSError as exc:
            raise _Lost(f"connection lost while logging in: {_said(exc)}") from None

    def _capabilities(self) -> set[str]:
        typ, data = self._call("CAPABILITY", lambda: self.imap.capability())
        words = b" ".join(d for d in data if d).decode("ascii", "replace").split()
        return {w.upper() for w in words}

    def _delimiter(self) -> str | None:
        typ, data = self._call("LIST", lambda: self.imap.list('""', '""'))
        found = re.search(rb'\) (?:"((?:\\.|[^"])?)"|NIL)', data[0] or b"") if data else None
        return found.group(1).decode() if found and found.group(1) is not None else None

    def server_name(self, folder: str) -> str:
        """A folder as written in the address (levels split by "/") in the server's own form."""
        if self.delimiter and self.delimiter != "/":
            folder = folder.replace("/", self.delimiter)
        return _quoted(utf7_folder(folder))

    def select(self, folder: str, readonly: bool) -> int:
        typ, data = self._call("SELECT", lambda: self.imap.select(folder, readonly=readonly))
        if typ != "OK":
            raise MailboxError(f"no folder {self.server.path or 'INBOX'!r} on the server "
                               f"({_said(data)})")
        _, value = self.imap.response("UIDVALIDITY")
        try:
            return int(value[0])
        except (TypeError, ValueError, IndexError):
            return 0

    def _call(self, what: str, fn: Callable):
        """Run one imaplib call: a dropped connection is _Lost, a refusal a MailboxError."""
        try:
            return fn()
        except imaplib.IMAP4.abort as exc:
            raise _Lost(f"connection lost ({what}): {_said(exc)}") from None
        except imaplib.IMAP4.error as exc:
            raise MailboxError(f"the server refused {what}: {_said(exc)}") from None
        except OSError as exc:  # reset, timed out, TLS record error
            raise _Lost(f"connection lost ({what}): {_said(exc)}") from None

    def search(self, since: date | None) -> list[int]:
        criteria = ("SINCE", imap_date(since)) if since else ("ALL",)
        typ, data = self._call("SEARCH", lambda: self.imap.uid("SEARCH", *criteria))
        if typ != "OK":
            raise MailboxError(f"the server refused SEARCH: {_said(data)}")
        return sorted({int(u) for d in data if d for u in d.split()})

    def headers(self, uids: list[int]) -> dict[int, tuple[str | None, int]]:
        """uid -> (Message-ID or None, size in bytes) for the messages still there."""
        typ, data = self._call("FETCH", lambda: self.imap.uid(
            "FETCH", uid_set(uids), "(UID RFC822.SIZE BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])"))
        out: dict[int, tuple[str | None, int]] = {}
        for part in data or []:
            if not isinstance(part, tuple):
                continue
            uid = re.search(rb"UID (\d+)", part[0])
            size = re.search(rb"RFC822\.SIZE (\d+)", part[0])
            if uid is None:
                continue
            head = _HEADERS.parsebytes(part[1] or b"")
            out[int(uid.group(1))] = (message_id(str(head.get("Message-ID") or "")),
                                      int(size.group(1)) if size else 0)
        return out

    def fetch(self, uid: int) -> bytes:
        """One whole message, leaving its flags as they are (no \\Seen)."""
        typ, data = self._call("FETCH", lambda: self.imap.uid("FETCH", str(uid), "(BODY.PEEK[])"))
        for part in data or []:
            if isinstance(part, tuple) and b"BODY[]" in part[0]:
                return part[1] or b""
        raise MailboxError(f"the server gave no message for UID {uid} ({typ} {_said(data)}); "
                           "was it deleted meanwhile?")

    def move(self, uids: list[int], folder: str) -> None:
        """Move ``uids`` to ``folder`` (MOVE, else COPY + delete of those very messages)."""
        target = self.server_name(folder)
        typ, data = self._call("LIST", lambda: self.imap.list('""', target))
        if not any(d for d in data or []):
            typ, data = self._call("CREATE", lambda: self.imap.create(target))
            if typ != "OK":
                raise MailboxError(f"cannot create folder {folder!r}: {_said(data)}")
        which = uid_set(uids)
        if "MOVE" in self.capabilities:
            typ, data = self._call("MOVE", lambda: self.imap.uid("MOVE", which, target))
        elif "UIDPLUS" in self.capabilities:
            typ, data = self._call("COPY", lambda: self.imap.uid("COPY", which, target))
            if typ == "OK":
                typ, data = self._call("STORE", lambda: self.imap.uid(
                    "STORE", which, "+FLAGS.SILENT", r"(\Deleted)"))
            if typ == "OK":
                typ, data = self._call("EXPUNGE", lambda: self.imap.uid("EXPUNGE", which))
        else:
            raise MailboxError("the server can neither MOVE nor expunge single messages (UIDPLUS): "
                               "messages left where they are")
        if typ != "OK":
            raise MailboxError(f"cannot move messages to {folder!r}: {_said(data)}")

    def close(self) -> None:
        try:
            self.imap.logout()
        except Exception:  # gone already: nothing to close
            try:
                self.imap.shutdown()
            except Exception:
                pass


def _said(what: object) -> str:
    """An imaplib error or response as one printable line."""
    if isinstance(what, (list, tuple)):
        what = b" ".join(w if isinstance(w, bytes) else str(w).encode() for w in what if w)
    if isinstance(what, bytes):
        what = what.decode("utf-8", "replace")
    if isinstance(what, BaseException):
        what = str(what) or type(what).__name__
        what = re.sub(r"^b['\"](.*)['\"]$", r"\1", what)  # imaplib's errors are often bytes' repr
    return printable(str(what).strip())[:300] or "no reason given"


class Mailbox:
    """One ``imaps://`` input: its messages as batch items, then the moves."""

    def __init__(self, url: str, options: MailboxOptions, netrc_file: str | Path | None = None):
        """Checks the address, finds the password and the certificate file (MailURLError when
        one cannot be used): before anything is read."""
        self.server = parse_mail_url(url, SCHEMES)
        if self.server.scheme == "imap" and not options.insecure:
            raise MailURLError(f"{url}: imap:// sends the password unencrypted; use imaps://, or "
                               "--insecure-imap for a server on this machine or a test server")
        if options.move_to is not None and \
                options.move_to.strip("/") in (self.server.path or "INBOX", ""):
            raise MailURLError(f"--move-to {options.move_to!r}: give a folder other than the "
                               "one read")
        if options.ca is not None:
            tls_context(options.ca)  # an unusable file is bad usage, said now
        self.password = find_password(self.server, PASSWORD_ENV, netrc_file)
        self.options = options
        self.report = MailboxReport(self.server.text, move_to=options.move_to)
        self.seen: dict[int, MailMessage] = {}  # uid -> every message found and recorded
        self.lost = False  # the connection was lost or could not be made in the fetch

    def connect(self, readonly: bool = True) -> _Connection:
        return _Connection(self.server, self.password, self.options, readonly)

    def items(self, book: Callable[[], MailBook], spool: Path, force: bool, max_tries: int,
              on_message: Callable[[MailMessage], None] | None = None) -> Iterator[Item]:
        """Every new message's items, fetched one at a time; ``book`` opens the ledger's mail
        tables, ``on_message`` is told of each message recorded (a progress bar)."""
        reconnects = RECONNECTS
        conn: _Connection | None = None
        done = 0
        uids: list[int] = []
        try:
            conn = self.connect()
            uids = conn.search(self.options.since)
            self.report.found = len(uids)
            uidvalidity = conn.uidvalidity
            for start in range(0, len(uids), HEADER_CHUNK):
                chunk = uids[start:start + HEADER_CHUNK]
                while True:
                    try:
                        heads = conn.headers(chunk)
                        break
                    except _Lost:
                        if not reconnects:
                            raise
                        conn, reconnects = self._reconnect(conn, uidvalidity), reconnects - 1
                for uid in chunk:
                    if uid not in heads:  # deleted meanwhile
                        continue
                    mid, size = heads[uid]
                    known = MailMessage(container=self._container(uid), message_id=mid,
                                        mailbox=self.server.text, uidvalidity=uidvalidity, uid=uid)
                    if not force and book().done(known, max_tries):
                        self.report.already += 1
                        self.seen[uid] = known
                        done += 1
                        continue
                    while True:
                        try:
                            yield from self._message(conn, known, size, book, spool, on_message)
                            break
                        except _Lost:
                            if not reconnects:
                                raise
                            conn, reconnects = self._reconnect(conn, uidvalidity), reconnects - 1
                    done += 1
        except MailboxError as exc:
            self.lost = True
            where = f" after {done} of {len(uids)} messages" if uids else ""
            rest = "; run again to fetch the rest" if uids else ""
            self.report.errors.append(f"{exc}{where}{rest}")
        finally:
            if conn is not None:
                conn.close()

    def _reconnect(self, old: _Connection, uidvalidity: int) -> _Connection:
        old.close()
        conn = self.connect()
        if conn.uidvalidity != uidvalidity:
            conn.close()
            raise MailboxError("the folder was replaced on the server meanwhile (UIDVALIDITY)")
        return conn

    def _container(self, uid: int) -> str:
        return f"{self.server.text};UID={uid}"

    def _message(self, conn: _Connection, known: MailMessage, size: int,
                 book: Callable[[], MailBook], spool: Path,
                 on_message: Callable[[MailMessage], None] | None) -> Iterator[Item]:
        """One message: fetched, its scans spooled, recorded, yielded."""
        container = known.container
        if size > MAX_MESSAGE_BYTES:
            items: list[Item] = [InputProblem(
                container, f"message of {size / 2**20:.0f} MB, larger than the "
                f"{MAX_MESSAGE_BYTES // 2**20} MB fetched: save its attachments and give them "
                "as files")]
            info = known
        else:
            try:
                raw = conn.fetch(known.uid or 0)
            except _Lost:
                raise
            except MailboxError as exc:  # this message only: the next run tries it again
                self.report.errors.append(f"UID {known.uid}: {exc}")
                return
            try:
                msg = email.message_from_bytes(raw, policy=email.policy.default)
                info = message_info(msg, container)
                items = list(message_scans(msg, container))
                del msg
            except Exception as exc:  # a message the parser cannot take apart at all
                info = known
                why = f"cannot read this e-mail: {type(exc).__name__}: {exc}"
                items = [InputProblem(container, why)]
            del raw  # one message in memory at a time
        info.mailbox, info.uidvalidity, info.uid = known.mailbox, known.uidvalidity, known.uid
        info.message_id = info.message_id or known.message_id
        items = [_spooled(item, spool) for item in items]
        book().record(info, items)
        self.seen[known.uid or 0] = info
        self.report.fetched += 1
        if on_message is not None:
            on_message(info)
        yield from items

    def move_done(self, book: MailBook, max_tries: int) -> None:
        """Move every message found in this run whose inputs are all in the ledger to
        ``options.move_to``."""
        folder = self.options.move_to
        if not folder or not self.seen:
            return
        rows = {uid: book.find(message) for uid, message in self.seen.items()}
        todo = {uid: row for uid, row in rows.items() if row and book.row_done(row, max_tries)}
        if not todo:
            return
        try:
            conn = self.connect(readonly=False)
        except MailboxError as exc:
            self.report.errors.append(f"not moved to {folder}: {exc}; run again to move them")
            return
        try:
            uids = sorted(todo)
            for start in range(0, len(uids), MOVE_CHUNK):
                chunk = uids[start:start + MOVE_CHUNK]
                conn.move(chunk, folder)
                book.moved([todo[u] for u in chunk], folder)
                self.report.moved += len(chunk)
        except MailboxError as exc:
            left = len(todo) - self.report.moved
            self.report.errors.append(f"{left} not moved to {folder}: {exc}; "
                                      "run again to move them")
        finally:
            conn.close()


def _spooled(item: Item, spool: Path) -> Item:
    """A scan's bytes written to the spool folder, so the batch holds a path, not the bytes.
    Not synced to disk: after a crash the spool is emptied and the message fetched again."""
    if not isinstance(item, ScanInput) or item.data is None:
        return item
    spool.mkdir(parents=True, exist_ok=True)
    path = spool / f"{item.sha256[:40]}{Path(item.name).suffix.lower()[:16]}"
    path.write_bytes(item.data)
    item.path, item.data = str(path), None
    return item


def open_mailboxes(inputs: list[str], options: MailboxOptions,
                   netrc_file: str | Path | None = None) -> dict[str, Mailbox]:
    """The mailbox inputs among ``inputs``, each checked (MailURLError: bad usage)."""
    return {raw: Mailbox(raw, options, netrc_file) for raw in inputs if is_mail_url(raw, SCHEMES)}


def is_mailbox(text: str) -> bool:
    return is_mail_url(text, SCHEMES)


class MailInputs:
    """The batch's inputs, paths and mailboxes in the order given, with every e-mail among them
    recorded in the ledger as it is read (batch/mailbook.py); iterate once, then :meth:`finish`."""

    def __init__(self, inputs: list[str], out_dir: Path, exclude: list[Path],
                 mailboxes: dict[str, Mailbox] | None = None, force: bool = False,
                 progress: bool = True, max_tries: int | None = None):
        from batch.runner import MAX_TRIES

        self.inputs, self.out_dir, self.exclude = inputs, Path(out_dir), exclude
        self.mailboxes = mailboxes or {}
        self.force, self.progress = force, progress
        self.max_tries = MAX_TRIES if max_tries is None else max_tries
        self.spool = self.out_dir / SPOOL_NAME
        self.skipped: list[str] = []  # attachments that are not scans: "source: reason"
        self._ledger: Ledger | None = None
        self._book: MailBook | None = None
        self.on_message: Callable[[MailMessage], None] | None = None  # told of each mailbox message

    def book(self) -> MailBook:
        """The ledger's mail tables, opened at first use (inside the batch: the ledger exists)."""
        if self._book is None:
            self._ledger = Ledger(self.out_dir / LEDGER_NAME)
            self._book = MailBook(self._ledger)
        return self._book

    def _record(self, message: MailMessage, items: list[Item]) -> None:
        self.book().record(message, items)

    def __iter__(self) -> Iterator[Item]:
        shutil.rmtree(self.spool, ignore_errors=True)  # what an earlier run left (killed)
        try:
            for raw in self.inputs:
                if raw in self.mailboxes:
                    source = self._fetch(self.mailboxes[raw])
                else:
                    source = collect_inputs([raw], exclude=self.exclude, on_message=self._record)
                for item in source:
                    if isinstance(item, Skipped) and not item.message and not item.file:
                        self.skipped.append(f"{shown(item.source)}: {item.reason}")
                    yield item
        finally:
            self._close()

    def _fetch(self, mailbox: Mailbox) -> Iterator[Item]:
        from tqdm import tqdm

        bar = tqdm(unit="message", desc="fetching mail", file=sys.stderr, dynamic_ncols=True,
                   disable=None if self.progress else True)

        def told(message: MailMessage) -> None:
            bar.update(1)
            if self.on_message is not None:
                self.on_message(message)

        try:
            yield from mailbox.items(self.book, self.spool, self.force, self.max_tries, told)
        finally:
            bar.close()

    def _close(self) -> None:
        try:
            if self._book is not None:
                self._book.flush()
        finally:
            if self._ledger is not None:
                self._ledger.close()
            self._ledger = self._book = None

    def finish(self) -> None:
        """After the batch: move the messages that are done, and empty the spool."""
        try:
            movers = [m for m in self.mailboxes.values() if m.options.move_to and not m.lost]
            if movers:
                try:
                    with Ledger(self.out_dir / LEDGER_NAME, lock=True) as ledger:
                        book = MailBook(ledger)
                        for mailbox in movers:
                            mailbox.move_done(book, self.max_tries)
                except LedgerError as exc:
                    for mailbox in movers:
                        mailbox.report.errors.append(f"not moved: {exc}")
        finally:
            shutil.rmtree(self.spool, ignore_errors=True)

    def lines(self) -> list[str]:
        """One summary line per mailbox."""
        return [m.report.line() for m in self.mailboxes.values()]

    def failures(self) -> list[str]:
        """What failed in the mailboxes and why: "mailbox: reason"."""
        return [f"{m.report.mailbox}: {e}"
                for m in self.mailboxes.values() for e in m.report.errors]
