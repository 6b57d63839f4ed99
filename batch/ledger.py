"""The results ledger: one SQLite file per batch folder (DIR/ledger.sqlite).

Tables: ``scans`` (one per input file, by content hash, with e-mail metadata, status and
error), ``sheets`` (one per page), ``readings`` (the SheetReading as JSON, every cell's
candidates, so a sheet can be re-reconciled without its image), ``matches`` (names,
winners, totals, margin and the full result object), ``flags``, ``reviews``, ``messages``
(e-mails that brought no scan: who sent no sheet), ``settings`` (the house rules last used)
and ``schema_version``.  Every scan is written
in one transaction, so an interrupted batch keeps exactly the scans that finished.
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

# The competition (competition/store.py reads and writes these): its pairs, its draw, and each
# sheet's match.  A block of its own, created in every ledger opened for writing (new or old: CREATE
# ... IF NOT EXISTS changes nothing the schema version counts).  comp_sheets has no foreign key on
# purpose: an organiser's answer to "which match is this sheet?" outlives a re-read of the sheet.
COMPETITION_SCHEMA = """
CREATE TABLE IF NOT EXISTS comp_pairs (
    pair TEXT PRIMARY KEY,
    names TEXT NOT NULL,
    grade TEXT NOT NULL,
    emails TEXT NOT NULL DEFAULT '',
    area TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS comp_draw (
    match TEXT PRIMARY KEY,
    round INTEGER NOT NULL,
    pair_a TEXT NOT NULL,
    pair_b TEXT,
    deadline TEXT,
    position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS comp_sheets (
    sheet_id TEXT PRIMARY KEY,
    match TEXT,
    ns TEXT,
    weight REAL,
    decided TEXT NOT NULL CHECK (decided IN ('auto', 'review', 'none', 'organiser')),
    candidates TEXT NOT NULL,
    winners TEXT,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS comp_lines (
    sheet_id TEXT NOT NULL,
    field TEXT NOT NULL,
    model TEXT NOT NULL,
    frames BLOB NOT NULL,
    PRIMARY KEY (sheet_id, field)
);
"""

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
        os.register_at_fork(after_in_child=self._close_in_child)

    def _close_in_child(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock
            self.fd = None


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
        mode = "ro" if readonly else ("rw" if exists else "rwc")
        try:
            self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode={mode}", uri=True, timeout=30)
        except sqlite3.Error as exc:
            self._release()
            raise LedgerError(f"{self.path}: cannot open ledger ({exc})") from None
        try:
            self.db.execute("PRAGMA foreign_keys = ON")
            if exists:
                self._check(readonly)
            if not readonly:
                self._migrate(new=not exists)
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

    def _migrate(self, new: bool) -> None:
        """Create a new ledger, or upgrade an older one in place; each in one transaction."""
        if new:
            self._script(_SCHEMA + COMPETITION_SCHEMA
                         + f"INSERT INTO schema_version (version) VALUES ({SCHEMA_VERSION});")
            return
        if not {"comp_pairs", "comp_draw", "comp_sheets", "comp_lines"} <= self._tables():
            self._script(COMPETITION_SCHEMA)
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


def _text(value: object) -> str | None:
    return None if value is None else str(value)
