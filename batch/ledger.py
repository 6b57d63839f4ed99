"""The results ledger: one SQLite file per batch folder (DIR/ledger.sqlite).

Tables: ``scans`` (one per input file, by content hash, with e-mail metadata, status and
error), ``sheets`` (one per page), ``readings`` (the SheetReading as JSON, every cell's
candidates, so a sheet can be re-reconciled without its image), ``matches`` (names,
winners, totals, margin and the full result object), ``flags``, ``reviews``, ``messages``
(e-mails that brought no scan: who sent no sheet), ``settings`` (the house rules last used)
and ``schema_version``; ``mail_messages``, ``mail_items`` and ``mail_replies`` keep every e-mail
read (batch/mailbook.py).  Every scan is written
in one transaction, so an interrupted batch keeps exactly the scans that finished.

The review app's tables (``decisions``: every decision a person made, undone ones kept;
``review_sheets``: each sheet's review status and version) are keyed by sheet id without a
foreign key, so re-reading a sheet (``batch --force``, a newer reader) never deletes them.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

SCHEMA_VERSION = 2
MIGRATES_FROM = (1,)  # older versions this code upgrades in place (only ever adding columns)
LEDGER_NAME = "ledger.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scans (
    id INTEGER PRIMARY KEY,
    sha256 TEXT UNIQUE,
    source TEXT NOT NULL,
    name TEXT,
    container TEXT,
    sender TEXT,
    subject TEXT,
    sent_date TEXT,
    attachment TEXT,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    error TEXT,
    seconds REAL,
    processed_at TEXT NOT NULL,
    retry INTEGER NOT NULL DEFAULT 0,  -- failed (a page or all) in a way another try may mend
    failures INTEGER NOT NULL DEFAULT 0  -- tries in a row that failed
);
CREATE TABLE IF NOT EXISTS sheets (
    id TEXT PRIMARY KEY,
    scan_id INTEGER NOT NULL REFERENCES scans(id) ON DELETE CASCADE,
    page INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error TEXT,
    image TEXT,
    layout TEXT
);
CREATE TABLE IF NOT EXISTS readings (
    sheet_id TEXT PRIMARY KEY REFERENCES sheets(id) ON DELETE CASCADE,
    reading TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    sheet_id TEXT PRIMARY KEY REFERENCES sheets(id) ON DELETE CASCADE,
    names_ns TEXT,
    names_ew TEXT,
    winners TEXT,
    total_ns INTEGER,
    total_ew INTEGER,
    margin INTEGER,
    n_flags INTEGER NOT NULL,
    n_reviews INTEGER NOT NULL,
    rules TEXT,
    result TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS flags (
    sheet_id TEXT NOT NULL REFERENCES sheets(id) ON DELETE CASCADE,
    deal INTEGER,
    kind TEXT NOT NULL,
    side TEXT,
    column_name TEXT,
    written TEXT,
    expected TEXT,
    message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reviews (
    sheet_id TEXT NOT NULL REFERENCES sheets(id) ON DELETE CASCADE,
    deal INTEGER,
    column_name TEXT,
    reason TEXT,
    candidates TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    source TEXT PRIMARY KEY,
    sender TEXT,
    subject TEXT,
    sent_date TEXT,
    reason TEXT NOT NULL,
    seen_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS flags_sheet ON flags(sheet_id);
CREATE INDEX IF NOT EXISTS reviews_sheet ON reviews(sheet_id);
"""

# E-mails (batch/mailbook.py): each message by its Message-ID (else its place in a mailbox or its
# file), the inputs it brought, where it was moved, and the replies written or sent.  Only added
# tables, made in any ledger that lacks them, so the schema version stays.
_MAIL_SCHEMA = """
CREATE TABLE IF NOT EXISTS mail_messages (
    id INTEGER PRIMARY KEY,
    message_id TEXT UNIQUE,  -- NULL when the message has none
    mailbox TEXT,  -- imaps://USER@HOST/FOLDER for a message read from a mailbox
    uidvalidity INTEGER,
    uid INTEGER,
    container TEXT NOT NULL,  -- the start of its scans' sources
    sender TEXT,
    reply_to TEXT,
    to_addr TEXT,
    subject TEXT,
    sent_date TEXT,
    refs TEXT,  -- its References header, for the replies' threading
    seen_at TEXT NOT NULL,
    moved_to TEXT,
    moved_at TEXT
);
CREATE INDEX IF NOT EXISTS mail_messages_place ON mail_messages(mailbox, uidvalidity, uid);
CREATE INDEX IF NOT EXISTS mail_messages_container ON mail_messages(container);
CREATE TABLE IF NOT EXISTS mail_items (
    message INTEGER NOT NULL REFERENCES mail_messages(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('scan', 'problem', 'no_scan')),
    sha256 TEXT,
    source TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mail_items_message ON mail_items(message);
CREATE INDEX IF NOT EXISTS mail_items_sha256 ON mail_items(sha256);
CREATE TABLE IF NOT EXISTS mail_replies (
    key TEXT PRIMARY KEY,  -- the message replied to and the issues the reply is about
    message INTEGER REFERENCES mail_messages(id) ON DELETE SET NULL,
    to_addr TEXT NOT NULL,
    subject TEXT,
    reply_id TEXT NOT NULL,  -- the reply's own Message-ID
    content TEXT NOT NULL,  -- the whole reply, so what is sent is what was written
    made_at TEXT NOT NULL,
    written TEXT,  -- the outbox file it was written to
    written_at TEXT,
    sent_at TEXT,
    sent_via TEXT
);
"""

# The review app's decisions (batch/decided.py says what each kind means).  Created in every
# ledger opened for writing, old ones included (no schema version change: only new tables).
_REVIEW_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY,
    sheet_id TEXT NOT NULL,  -- sheets.id (no foreign key: a decision outlives a re-reading)
    kind TEXT NOT NULL,  -- value, written, misread, blank_row, flag, winners, name, status, ...
    target TEXT NOT NULL,  -- what it is about: a cell "12:cum_ns", a flag's key, "winners"...
    before TEXT,  -- JSON: what was shown before
    after TEXT,  -- JSON: what the person decided
    reason TEXT,
    who TEXT NOT NULL,
    at TEXT NOT NULL,
    undone_at TEXT,  -- undo keeps the decision, marked
    undone_by TEXT
);
CREATE INDEX IF NOT EXISTS decisions_sheet ON decisions(sheet_id);
CREATE TABLE IF NOT EXISTS review_sheets (
    sheet_id TEXT PRIMARY KEY,  -- sheets.id (no foreign key, as decisions)
    status TEXT NOT NULL CHECK (status IN ('to check', 'verified', 'disputed')),
    version INTEGER NOT NULL,  -- bumped by every change: a decision on an older page is refused
    updated_at TEXT NOT NULL
);
"""
REVIEW_STATUSES = ("to check", "verified", "disputed")

# Tables added after schema version 2, each group made (in one transaction) in any ledger that
# lacks it, named by one of its tables: new groups join here instead of bumping the version.
_ADDED_SCHEMAS = (("mail_replies", _MAIL_SCHEMA), ("review_sheets", _REVIEW_SCHEMA))


# Failures another try may mend (a run killed for time or memory), as the runner words them.
RETRY_ERRORS = ("time limit exceeded", "worker process died")
_RETRY_SQL = " OR ".join(f"sh.error LIKE '{e}%'" for e in RETRY_ERRORS)


class LedgerError(Exception):
    """The ledger file cannot be opened, is damaged, is from an incompatible version, or another
    run holds its folder."""


class LedgerWriteError(OSError):
    """The ledger could not be written (read-only folder or file, disk full): the output folder
    cannot be written, like any other file of it."""


class LedgerBusy(LedgerError):
    """Another batch or audit is working in the folder."""


class VersionConflict(LedgerError):
    """A decision made on a page of a sheet that has changed since (another tab, another person,
    a batch or audit): nothing was written."""


class _FolderLock:
    """An exclusive, non-blocking lock on ``<ledger>.lock`` (flock: released when the process
    ends, however it ends).  The holder's pid is written in the file for the message."""

    def __init__(self, ledger_path: Path):
        self.path = ledger_path.with_name(ledger_path.name + ".lock")
        self.fd: int | None = None

    def acquire(self) -> None:
        import fcntl

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip()
            os.close(fd)
            raise LedgerBusy(f"{self.path.parent}: another rubberscan batch or audit is working in this "
                             f"folder{f' (process {holder})' if holder.isdigit() else ''}; "
                             "wait for it to finish") from None
        except OSError:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self.fd = fd
        # a forked worker inherits the descriptor, and an flock lives while any copy is open: the
        # child closes its copy, so the lock ends with the batch even while a worker lingers
        if not getattr(self, "_at_fork", False):  # once per lock (the review app reuses one)
            os.register_at_fork(after_in_child=self._close_in_child)
            self._at_fork = True

    def _close_in_child(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock
            self.fd = None


class FolderLock(_FolderLock):
    """The folder's lock, held for a moment at a time (the review app's decisions) as a context
    manager: LedgerBusy while a batch or audit holds it."""

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


@dataclass
class SheetRecord:
    """One page of a scan, as the runner produced it."""

    sheet_id: str
    page: int
    error: str | None = None
    reading: dict | None = None  # batch.serial.reading_to_json
    result: dict | None = None  # ReconciledSheet.to_json(with_explanations=True)
    image: str | None = None  # file name of the straightened JPEG under DIR/sheets/
    layout: dict | None = None  # {"width", "height", "cells": [[row, key, x, y, w, h], ...]}


@dataclass
class ScanRecord:
    """One input file (or attachment) and what became of it."""

    sha256: str | None
    source: str
    status: str  # "done" or "failed"
    error: str | None = None
    name: str | None = None
    container: str | None = None
    sender: str | None = None
    subject: str | None = None
    date: str | None = None
    attachment: str | None = None
    seconds: float | None = None
    sheets: list[SheetRecord] = field(default_factory=list)
    blank_pages: int = 0  # blank pages beside a sheet (the back of a duplex scan): skipped, not kept

    @property
    def retry(self) -> bool:
        """Whether it (or a page of it) failed in a way another try may mend (RETRY_ERRORS)."""
        errors = [self.error] + [s.error for s in self.sheets]
        return any(e and e.startswith(RETRY_ERRORS) for e in errors)

    @property
    def any_failed(self) -> bool:
        return self.status == "failed" or any(s.error for s in self.sheets)


@dataclass
class LedgerSheet:
    """A sheet joined with its scan's metadata and current result, for reports and export."""

    sheet_id: str | None  # None for a scan that failed before any page was read
    source: str
    page: int
    status: str  # "ok" or "failed"
    error: str | None
    sender: str | None
    subject: str | None
    date: str | None
    attachment: str | None
    processed_at: str
    image: str | None = None
    layout: dict | None = None
    result: dict | None = None
    rules: dict | None = None


def _said(path: Path, exc: sqlite3.Error) -> Exception:
    """An sqlite3 error as the exception to raise, with the ledger's path."""
    msg = str(exc)
    if "locked" in msg or "busy" in msg:
        return LedgerBusy(f"{path}: the ledger is in use by another program ({msg})")
    if isinstance(exc, sqlite3.OperationalError) and any(
            k in msg for k in ("readonly", "read-only", "full", "disk I/O", "unable to open")):
        return LedgerWriteError(f"{path}: cannot write the ledger ({msg})")
    return LedgerError(f"{path}: the ledger is damaged or unreadable ({msg})")


def _sqlite_errors_said(cls):
    """Every public method of ``cls`` turns an sqlite3 error into LedgerWriteError (cannot write)
    or LedgerError (damaged), with the ledger's path: never a bare sqlite3 traceback."""

    def guard(fn):
        @functools.wraps(fn)
        def guarded(self, *args, **kwargs):
            try:
                return fn(self, *args, **kwargs)
            except sqlite3.Error as exc:
                raise _said(self.path, exc) from None
        return guarded

    for name, fn in list(vars(cls).items()):
        if callable(fn) and not name.startswith("_") and name != "close":
            setattr(cls, name, guard(fn))
    return cls


@_sqlite_errors_said
class Ledger:
    """SQLite ledger of a batch folder; use as a context manager.

    A ledger is never replaced or emptied: a file that exists must be a ledger, or opening it is a
    :class:`LedgerError` (an empty or damaged file is not taken for a new ledger).  ``readonly``
    opens it for reading only (export; a folder the user may not write); ``lock`` takes the
    folder's lock first, so two batches (or a batch and an audit) never work in one folder at once.
    """

    def __init__(self, path: str | Path, readonly: bool = False, lock: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        self._lock = _FolderLock(self.path) if lock else None
        exists = self.path.exists()
        if exists and not self.path.is_file():
            raise LedgerError(f"{self.path}: not a file; a ledger is expected here")
        if exists and self.path.stat().st_size == 0:
            raise LedgerError(
                f"{self.path}: the ledger is empty (0 bytes): its results are gone from this file. "
                "Restore it from a backup, or move it away to start a new ledger in this folder")
        if readonly and not exists:
            raise LedgerError(f"{self.path}: no ledger here")
        if self._lock is not None:
            self._lock.acquire()
        if not exists:
            try:
                self._create()
            except LedgerError:
                self._release()
                raise
        mode = "ro" if readonly else "rw"
        try:
            self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode={mode}", uri=True, timeout=30)
        except sqlite3.Error as exc:
            self._release()
            raise LedgerError(f"{self.path}: cannot open ledger ({exc})") from None
        try:
            self.db.execute("PRAGMA foreign_keys = ON")
            self._check(readonly)
            if not readonly:
                self._migrate()
                self._probe_write()
        except LedgerError:
            self.close()
            raise
        except sqlite3.DatabaseError as exc:
            self.close()
            said = _said(self.path, exc)
            if type(said) is LedgerError:
                raise LedgerError(f"{self.path}: not a usable ledger ({exc})") from None
            raise said from None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()

    def _check(self, readonly: bool) -> None:
        """An existing file must be a whole ledger of a version this code reads."""
        ok = self.db.execute("PRAGMA quick_check").fetchone()
        if ok is None or ok[0] != "ok":
            raise LedgerError(f"{self.path}: the ledger is damaged ({ok[0] if ok else 'no answer'}); "
                              "restore it from a backup")
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_version" not in tables or "scans" not in tables:
            raise LedgerError(f"{self.path}: an SQLite file, but not a rubberscan ledger; "
                              "not touched (move it away to start a ledger here)")
        row = self.db.execute("SELECT version FROM schema_version").fetchone()
        readable = (SCHEMA_VERSION,) + ((1,) if readonly else MIGRATES_FROM)
        if row is None or row[0] not in readable:
            raise LedgerError(
                f"{self.path}: ledger schema version {row[0] if row else '(none)'}, "
                f"this rubberscan reads {SCHEMA_VERSION}")

    def _create(self) -> None:
        """A new ledger is made whole beside its place and linked in, so that nobody (an export,
        the review app) ever opens a half-made or 0-byte ledger at this path."""
        tmp = self.path.with_name(f".{self.path.name}.new-{os.getpid()}")
        added = "".join(schema for _, schema in _ADDED_SCHEMAS)
        try:
            db = sqlite3.connect(tmp)
            try:
                db.executescript("BEGIN;" + _SCHEMA + added +
                                 f"INSERT INTO schema_version (version) VALUES ({SCHEMA_VERSION});"
                                 "COMMIT;")
            finally:
                db.close()
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                pass  # another process made it meanwhile: that ledger stands
        except sqlite3.Error as exc:
            raise _said(self.path, exc) from None
        except OSError as exc:
            raise LedgerWriteError(f"{self.path}: cannot write the ledger ({exc.strerror or exc})"
                                   ) from None
        finally:
            tmp.unlink(missing_ok=True)

    def _migrate(self) -> None:
        """Upgrade an older ledger in place, each step in one transaction."""
        tables = self._tables()
        for sentinel, schema in _ADDED_SCHEMAS:
            if sentinel not in tables:
                self._script(schema)
        (version,) = self.db.execute("SELECT version FROM schema_version").fetchone()
        if version == 1:  # retry bookkeeping; earlier time-outs and dead workers become retries
            self._script(f"""
                ALTER TABLE scans ADD COLUMN retry INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE scans ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
                UPDATE scans SET failures = 1 WHERE status = 'failed' OR EXISTS
                    (SELECT 1 FROM sheets sh WHERE sh.scan_id = scans.id AND sh.status = 'failed');
                UPDATE scans SET retry = 1 WHERE failures > 0 AND EXISTS (SELECT 1 FROM sheets sh
                    WHERE sh.scan_id = scans.id AND ({_RETRY_SQL}));
                UPDATE schema_version SET version = {SCHEMA_VERSION};""")

    def _tables(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _probe_write(self) -> None:
        """Write (and roll back) the header's user version: a ledger that cannot be written (a
        read-only file or folder) says so now, before a batch reads anything, not at its first result."""
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        try:
            self.db.executescript(f"BEGIN IMMEDIATE; PRAGMA user_version = {int(version)}; ROLLBACK;")
        finally:
            if self.db.in_transaction:
                self.db.rollback()

    def _script(self, sql: str) -> None:
        """Run ``sql`` as one transaction: all of it or none of it."""
        try:
            self.db.executescript("BEGIN IMMEDIATE;" + sql + "COMMIT;")
        except BaseException:
            if self.db.in_transaction:
                self.db.rollback()
            raise

    # ----------------------------------------------------------------- settings
    def get_setting(self, key: str) -> object:
        row = self.db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_setting(self, key: str, value: object) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                            (key, json.dumps(value)))

    # ----------------------------------------------------------------- scans
    def has_scan(self, sha256: str) -> bool:
        return self.scan_status(sha256) is not None

    def scan_status(self, sha256: str) -> str | None:
        """"done", "failed", or None when this content was never processed."""
        row = self.db.execute("SELECT status FROM scans WHERE sha256 = ?", (sha256,)).fetchone()
        return row[0] if row else None

    def scan_readers(self, sha256: str) -> set[str]:
        """The reader versions (ocr.cellnet reader_version) that read this content's pages; "" for a
        page read before readings kept their reader (an earlier reader); empty when nothing was read."""
        rows = self.db.execute(
            "SELECT r.reading FROM readings r JOIN sheets s ON r.sheet_id = s.id JOIN scans c ON s.scan_id = c.id"
            " WHERE c.sha256 = ?", (sha256,)).fetchall()
        return {(json.loads(text).get("meta") or {}).get("reader") or "" for (text,) in rows}

    def scan_retry(self, sha256: str) -> tuple[bool, int]:
        """(whether this content's last try failed in a way another may mend, how many tries in a
        row failed); (False, 0) when it was never processed."""
        row = self.db.execute("SELECT retry, failures FROM scans WHERE sha256 = ?", (sha256,)).fetchone()
        return (bool(row[0]), int(row[1])) if row else (False, 0)

    def record_scan(self, scan: ScanRecord, rules: dict | None = None) -> None:
        """Replace any earlier record of the same content (or, unhashed, the same source),
        counting the tries in a row that failed."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self.db:
            if scan.sha256 is not None:
                where, key = "sha256 = ?", (scan.sha256,)
            else:
                where, key = "sha256 IS NULL AND source = ?", (scan.source,)
            before = self.db.execute(f"SELECT failures FROM scans WHERE {where}", key).fetchone()
            failures = (before[0] if before else 0) + 1 if scan.any_failed else 0
            self.db.execute(f"DELETE FROM scans WHERE {where}", key)
            cur = self.db.execute(
                "INSERT INTO scans (sha256, source, name, container, sender, subject, sent_date,"
                " attachment, status, error, seconds, processed_at, retry, failures)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (scan.sha256, scan.source, scan.name, scan.container, scan.sender, scan.subject,
                 scan.date, scan.attachment, scan.status, scan.error, scan.seconds, now,
                 int(scan.retry), failures))
            scan_id = cur.lastrowid
            for sheet in scan.sheets:
                self.db.execute("DELETE FROM sheets WHERE id = ?", (sheet.sheet_id,))
                self.db.execute(
                    "INSERT INTO sheets (id, scan_id, page, status, error, image, layout)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (sheet.sheet_id, scan_id, sheet.page, "failed" if sheet.error else "ok",
                     sheet.error, sheet.image, json.dumps(sheet.layout) if sheet.layout else None))
                if sheet.reading is not None:
                    self.db.execute("INSERT INTO readings (sheet_id, reading) VALUES (?, ?)",
                                    (sheet.sheet_id, json.dumps(sheet.reading, default=str)))
                if sheet.result is not None:
                    self._write_result(sheet.sheet_id, sheet.result, rules)
                self._review_changed(sheet.sheet_id, sheet.result)

    # ----------------------------------------------------------------- e-mails without a scan
    def record_message(self, source: str, reason: str, sender: str | None = None,
                       subject: str | None = None, date: str | None = None) -> None:
        """An e-mail with no scan attached (one row per source, the latest sighting)."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO messages (source, sender, subject, sent_date, reason, seen_at)"
                            " VALUES (?, ?, ?, ?, ?, ?)", (source, sender, subject, date, reason, now))

    def messages(self) -> list[dict]:
        """The e-mails without a scan, by date sent then source."""
        rows = self.db.execute("SELECT source, sender, subject, sent_date, reason, seen_at FROM messages"
                               " ORDER BY sent_date, source").fetchall()
        keys = ("source", "sender", "subject", "date", "reason", "seen_at")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def set_result(self, sheet_id: str, result: dict, rules: dict | None) -> None:
        """Replace a sheet's result (after re-reconciling it), flags and reviews included."""
        with self.db:
            self._write_result(sheet_id, result, rules)
            self._review_changed(sheet_id, result)

    def _write_result(self, sheet_id: str, result: dict, rules: dict | None) -> None:
        for table in ("matches", "flags", "reviews"):
            self.db.execute(f"DELETE FROM {table} WHERE sheet_id = ?", (sheet_id,))
        names = result.get("names") or {}
        totals = result.get("totals") or {}
        tn, te = totals.get("ns"), totals.get("ew")
        margin = abs(tn - te) if isinstance(tn, int) and isinstance(te, int) else None
        flags, reviews = result.get("flags") or [], result.get("review") or []
        self.db.execute(
            "INSERT INTO matches (sheet_id, names_ns, names_ew, winners, total_ns, total_ew, margin,"
            " n_flags, n_reviews, rules, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (sheet_id, names.get("ns"), names.get("ew"), result.get("winners"), tn, te, margin,
             len(flags), len(reviews), json.dumps(rules) if rules else None,
             json.dumps(result, default=str)))
        for f in flags:
            self.db.execute(
                "INSERT INTO flags (sheet_id, deal, kind, side, column_name, written, expected, message)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (sheet_id, f.get("deal"), f.get("kind", ""), f.get("side"), f.get("column"),
                 _text(f.get("written")), _text(f.get("expected")), f.get("message", "")))
        for r in reviews:
            self.db.execute(
                "INSERT INTO reviews (sheet_id, deal, column_name, reason, candidates)"
                " VALUES (?, ?, ?, ?, ?)",
                (sheet_id, r.get("deal"), r.get("column"), r.get("reason"),
                 json.dumps(r.get("candidates"), default=str)))

    # ----------------------------------------------------------------- queries
    def readings(self) -> list[tuple[str, dict]]:
        """(sheet id, stored reading JSON) for every sheet read successfully."""
        rows = self.db.execute("SELECT sheet_id, reading FROM readings ORDER BY sheet_id").fetchall()
        return [(sid, json.loads(text)) for sid, text in rows]

    def sheets(self, sheet_id: str | None = None) -> list[LedgerSheet]:
        """Every sheet (or just ``sheet_id``), and every scan that failed before yielding a
        sheet, in processing order."""
        out: list[LedgerSheet] = []
        where = "" if sheet_id is None else " WHERE sh.id = ?"
        rows = self.db.execute(
            "SELECT sh.id, sc.source, sh.page, sh.status, COALESCE(sh.error, sc.error), sc.sender,"
            " sc.subject, sc.sent_date, sc.attachment, sc.processed_at, sh.image, sh.layout,"
            " m.result, m.rules"
            " FROM scans sc LEFT JOIN sheets sh ON sh.scan_id = sc.id"
            " LEFT JOIN matches m ON m.sheet_id = sh.id" + where +
            " ORDER BY sc.id, sh.page", () if sheet_id is None else (sheet_id,)).fetchall()
        for (sid, source, page, status, error, sender, subject, date, attachment, at, image,
             layout, result, rules) in rows:
            out.append(LedgerSheet(
                sheet_id=sid, source=source, page=page or 0, status=status or "failed",
                error=error, sender=sender, subject=subject, date=date, attachment=attachment,
                processed_at=at, image=image, layout=json.loads(layout) if layout else None,
                result=json.loads(result) if result else None,
                rules=json.loads(rules) if rules else None))
        return out

    def overview(self) -> list[LedgerSheet]:
        """Every sheet with a light result -- names, winners, totals, flags and review items from
        their own tables, no rows or explanations, and no layout -- for lists over a whole season
        (the review app's index), in processing order."""
        flags: dict[str, list[dict]] = {}
        for sid, deal, kind, side, column, written, expected, message in self.db.execute(
                "SELECT sheet_id, deal, kind, side, column_name, written, expected, message"
                " FROM flags ORDER BY rowid"):
            flags.setdefault(sid, []).append(
                {"deal": deal, "kind": kind, "side": side, "column": column, "written": written,
                 "expected": expected, "message": message})
        reviews: dict[str, list[dict]] = {}
        for sid, deal, column, reason in self.db.execute(
                "SELECT sheet_id, deal, column_name, reason FROM reviews ORDER BY rowid"):
            reviews.setdefault(sid, []).append({"deal": deal, "column": column, "reason": reason})
        out = []
        for (sid, source, page, status, error, sender, subject, date, attachment, at,
             names_ns, names_ew, winners, total_ns, total_ew, has_result) in self.db.execute(
                "SELECT sh.id, sc.source, sh.page, sh.status, COALESCE(sh.error, sc.error),"
                " sc.sender, sc.subject, sc.sent_date, sc.attachment, sc.processed_at,"
                " m.names_ns, m.names_ew, m.winners, m.total_ns, m.total_ew, m.sheet_id"
                " FROM scans sc JOIN sheets sh ON sh.scan_id = sc.id"
                " LEFT JOIN matches m ON m.sheet_id = sh.id ORDER BY sc.id, sh.page"):
            result = None
            if has_result:
                result = {"names": {"ns": names_ns, "ew": names_ew}, "winners": winners,
                          "totals": {"ns": total_ns, "ew": total_ew},
                          "flags": flags.get(sid, []), "review": reviews.get(sid, [])}
            out.append(LedgerSheet(
                sheet_id=sid, source=source, page=page or 0, status=status or "failed",
                error=error, sender=sender, subject=subject, date=date, attachment=attachment,
                processed_at=at, result=result))
        return out

    def counts(self) -> dict[str, int]:
        """Totals for summaries: scans, sheets read, flagged, to review, failed."""
        q = self.db.execute
        return {
            "scans": q("SELECT COUNT(*) FROM scans").fetchone()[0],
            "sheets": q("SELECT COUNT(*) FROM sheets WHERE status = 'ok'").fetchone()[0],
            "flagged": q("SELECT COUNT(*) FROM matches WHERE n_flags > 0").fetchone()[0],
            "review": q("SELECT COUNT(*) FROM matches WHERE n_reviews > 0").fetchone()[0],
            "failed": q("SELECT COUNT(*) FROM scans sc WHERE sc.status = 'failed' OR EXISTS"
                        " (SELECT 1 FROM sheets sh WHERE sh.scan_id = sc.id"
                        " AND sh.status = 'failed')").fetchone()[0],
        }

    # ----------------------------------------------------------------- decisions (review app)
    def _has_review_tables(self) -> bool:
        """Whether this ledger has the review tables (one only ever read may be older)."""
        return self.db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"
                               " AND name IN ('decisions', 'review_sheets')").fetchone()[0] == 2

    def decisions(self, sheet_id: str | None = None, undone: bool = False) -> list[dict]:
        """The decisions in force on ``sheet_id`` (or on every sheet), oldest first; with
        ``undone`` those undone too.  Each: id, sheet_id, kind, target, before, after, reason,
        who, at, undone_at, undone_by (before and after as their JSON values)."""
        if not self._has_review_tables():
            return []
        where = [] if undone else ["undone_at IS NULL"]
        args: tuple = ()
        if sheet_id is not None:
            where.append("sheet_id = ?")
            args = (sheet_id,)
        rows = self.db.execute(
            "SELECT id, sheet_id, kind, target, before, after, reason, who, at, undone_at,"
            " undone_by FROM decisions" + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY id", args).fetchall()
        keys = ("id", "sheet_id", "kind", "target", "before", "after", "reason", "who", "at",
                "undone_at", "undone_by")
        out = []
        for row in rows:
            d = dict(zip(keys, row, strict=True))
            d["before"] = json.loads(d["before"]) if d["before"] is not None else None
            d["after"] = json.loads(d["after"]) if d["after"] is not None else None
            out.append(d)
        return out

    def reading(self, sheet_id: str) -> dict | None:
        """A sheet's stored reading (batch.serial.reading_to_json), or None."""
        row = self.db.execute("SELECT reading FROM readings WHERE sheet_id = ?",
                              (sheet_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def names_read(self) -> list[str]:
        """Every pair's names read on a sheet (one entry per sheet and side)."""
        return [n for row in self.db.execute("SELECT names_ns, names_ew FROM matches")
                for n in row if n]

    def decided_sheets(self) -> list[str]:
        """The sheets with a decision in force."""
        if not self._has_review_tables():
            return []
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT sheet_id FROM decisions WHERE undone_at IS NULL ORDER BY sheet_id")]

    def review_state(self, sheet_id: str) -> tuple[str, int]:
        """(review status, version) of a sheet; ("to check", 0) before anything was decided."""
        if not self._has_review_tables():
            return "to check", 0
        row = self.db.execute("SELECT status, version FROM review_sheets WHERE sheet_id = ?",
                              (sheet_id,)).fetchone()
        return (row[0], int(row[1])) if row else ("to check", 0)

    def review_states(self) -> dict[str, tuple[str, int]]:
        """sheet id -> (review status, version), for the sheets that have a row."""
        if not self._has_review_tables():
            return {}
        return {sid: (status, int(version)) for sid, status, version in self.db.execute(
            "SELECT sheet_id, status, version FROM review_sheets")}

    def write_review(self, change: ReviewChange) -> int:
        """Apply one change of a sheet's review in one transaction (see :class:`ReviewChange`);
        returns the sheet's new version.  VersionConflict (nothing written) when
        ``change.version`` is given and the sheet is at another version now."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        sid = change.sheet_id
        if change.status not in REVIEW_STATUSES:
            raise ValueError(f"unknown review status {change.status!r}")
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            row = self.db.execute("SELECT version FROM review_sheets WHERE sheet_id = ?",
                                  (sid,)).fetchone()
            version = int(row[0]) if row else 0
            if change.version is not None and change.version != version:
                raise VersionConflict(
                    "this sheet has changed since the page was loaded (another tab, another "
                    "person, or a batch or audit): nothing was changed; look again at the sheet "
                    "as it is now")
            decision_id = None
            d = change.decision
            if d is not None:
                cur = self.db.execute(
                    "INSERT INTO decisions (sheet_id, kind, target, before, after, reason, who, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (sid, d["kind"], d["target"], _json(d.get("before")), _json(d.get("after")),
                     d.get("reason"), d["who"], now))
                decision_id = cur.lastrowid
            if change.undo is not None:
                cur = self.db.execute(
                    "UPDATE decisions SET undone_at = ?, undone_by = ? WHERE id = ?"
                    " AND sheet_id = ? AND undone_at IS NULL",
                    (now, change.who or "", change.undo, sid))
                if cur.rowcount != 1:
                    raise VersionConflict(f"decision {change.undo} of this sheet is not in force "
                                          "(undone already?): nothing was changed")
            if change.sheet is not None:
                self._write_sheet_state(sid, change.sheet)
            if change.result is not None:
                self._write_result(sid, change.result, change.rules)
            self.db.execute(
                "INSERT INTO review_sheets (sheet_id, status, version, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT(sheet_id) DO UPDATE SET status = excluded.status,"
                " version = excluded.version, updated_at = excluded.updated_at",
                (sid, change.status, version + 1, now))
        change.decision_id = decision_id
        return version + 1

    def _review_changed(self, sid: str, result: dict | None) -> None:
        """A sheet a person has reviewed got a new result: its status follows it, and its
        version moves on (a page made before says so instead of deciding on stale values)."""
        if not self._has_review_tables() or self.db.execute(
                "SELECT 1 FROM review_sheets WHERE sheet_id = ?", (sid,)).fetchone() is None:
            return
        from batch.decided import sheet_status

        status = sheet_status(result, self.decisions(sid), failed=result is None)
        self.db.execute("UPDATE review_sheets SET status = ?, version = version + 1,"
                        " updated_at = ? WHERE sheet_id = ?",
                        (status, datetime.now(timezone.utc).isoformat(timespec="seconds"), sid))

    def _write_sheet_state(self, sid: str, state: SheetState) -> None:
        """A sheet read again from a person's input (corners clicked, rows typed) or put back."""
        self.db.execute("UPDATE sheets SET status = ?, error = ?, image = ?, layout = ?"
                        " WHERE id = ?",
                        ("failed" if state.error else "ok", state.error, state.image,
                         json.dumps(state.layout) if state.layout else None, sid))
        self.db.execute("DELETE FROM readings WHERE sheet_id = ?", (sid,))
        if state.reading is not None:
            self.db.execute("INSERT INTO readings (sheet_id, reading) VALUES (?, ?)",
                            (sid, json.dumps(state.reading, default=str)))
        if state.error:
            for table in ("matches", "flags", "reviews"):
                self.db.execute(f"DELETE FROM {table} WHERE sheet_id = ?", (sid,))
        # the scan is done once none of its pages failed, failed again when one does
        self.db.execute(
            "UPDATE scans SET status = CASE WHEN EXISTS (SELECT 1 FROM sheets s WHERE"
            " s.scan_id = scans.id AND s.status = 'failed') THEN 'failed' ELSE 'done' END,"
            " error = CASE WHEN EXISTS (SELECT 1 FROM sheets s WHERE s.scan_id = scans.id AND"
            " s.status = 'failed') THEN error ELSE NULL END"
            " WHERE id = (SELECT scan_id FROM sheets WHERE id = ?)", (sid,))


@dataclass
class SheetState:
    """A sheet's reading, picture and error, as a person's input (batch/decided.py) sets them."""

    reading: dict | None  # batch.serial.reading_to_json; None with ``error``
    error: str | None = None  # the page could not be read (again): the sheet failed
    image: str | None = None
    layout: dict | None = None


@dataclass
class ReviewChange:
    """One change of a sheet's review: a decision added or undone, with what follows from it
    (the sheet's new result, its status, its reading when corners or typed rows made a new one)."""

    sheet_id: str
    status: str  # REVIEW_STATUSES, after the change
    version: int | None = None  # the version the change was made on; None: no check (batch, audit)
    decision: dict | None = None  # kind, target, before, after, reason, who
    undo: int | None = None  # the id of a decision to undo
    who: str | None = None  # who undoes it
    result: dict | None = None
    rules: dict | None = None
    sheet: SheetState | None = None
    decision_id: int | None = None  # set by write_review: the new decision's id


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(value, default=str)


def _text(value: object) -> str | None:
    return None if value is None else str(value)
