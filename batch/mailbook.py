"""The ledger's record of e-mails (its ``mail_*`` tables, batch/ledger.py).

Each message read is kept once: by its Message-ID, or, when it has none, by its place (a mailbox
folder's UIDVALIDITY and UID, or the file it came in), with the inputs it brought.  A message is
*done* when every one of those inputs is safely in the ledger (a scan that may still be retried
does not count): only then is it skipped when it comes again, or moved to another folder.
The replies made for it are kept here too, so each is written or sent once.
"""

from __future__ import annotations

from datetime import datetime, timezone

from batch.inputs import InputProblem, Item, MailMessage, ScanInput, Skipped
from batch.ledger import Ledger, _sqlite_errors_said

# Messages recorded in one transaction.  A message recorded but not yet written when a run is
# killed is only fetched again by the next run (its scans are skipped by their content).
FLUSH_EVERY = 100


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def item_rows(items: list[Item]) -> list[tuple[str, str | None, str]]:
    """(kind, sha256, source) for each input of a message that ends up in the ledger: its scans,
    its attachments that could not be decoded, and "no scan" when it brought none."""
    rows: list[tuple[str, str | None, str]] = []
    for item in items:
        if isinstance(item, ScanInput):
            rows.append(("scan", item.sha256, item.source))
        elif isinstance(item, InputProblem):
            rows.append(("problem", item.sha256, item.source))
        elif isinstance(item, Skipped) and item.message:
            rows.append(("no_scan", None, item.source))
    return rows


@_sqlite_errors_said
class MailBook:
    """The e-mail tables of an open :class:`~batch.ledger.Ledger`."""

    def __init__(self, ledger: Ledger):
        self.path = ledger.path
        self.db = ledger.db
        self.pending: list[tuple[MailMessage, list[Item]]] = []

    # ------------------------------------------------------------------ messages
    def find(self, message: MailMessage) -> int | None:
        """The row of ``message``: by Message-ID, else by its place in a mailbox, else by the
        file it came in; None when it was never recorded."""
        if message.message_id:
            row = self.db.execute("SELECT id FROM mail_messages WHERE message_id = ?",
                                  (message.message_id,)).fetchone()
        elif message.mailbox is not None:
            row = self.db.execute(
                "SELECT id FROM mail_messages WHERE message_id IS NULL AND mailbox = ?"
                " AND uidvalidity = ? AND uid = ?",
                (message.mailbox, message.uidvalidity, message.uid)).fetchone()
        else:
            row = self.db.execute(
                "SELECT id FROM mail_messages WHERE message_id IS NULL AND mailbox IS NULL"
                " AND container = ?", (message.container,)).fetchone()
        return row[0] if row else None

    def record(self, message: MailMessage, items: list[Item]) -> None:
        """Keep ``message`` (its latest sighting) and the inputs it brought: in the ledger at the
        next :meth:`flush` (one transaction for many messages, each one costing a disk sync)."""
        self.pending.append((message, items))
        if len(self.pending) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write the messages recorded since the last flush."""
        if not self.pending:
            return
        with self.db:
            for message, items in self.pending:
                self._write(message, items)
        self.pending = []

    def _write(self, message: MailMessage, items: list[Item]) -> None:
        fields = (message.message_id, message.mailbox, message.uidvalidity, message.uid,
                  message.container, message.sender, message.reply_to, message.to,
                  message.subject, message.date, message.references, _now())
        row = self.find(message)
        if row is None:
            row = self.db.execute(
                "INSERT INTO mail_messages (message_id, mailbox, uidvalidity, uid, container,"
                " sender, reply_to, to_addr, subject, sent_date, refs, seen_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", fields).lastrowid
        else:
            self.db.execute(
                "UPDATE mail_messages SET message_id = ?, mailbox = ?, uidvalidity = ?,"
                " uid = ?, container = ?, sender = ?, reply_to = ?, to_addr = ?, subject = ?,"
                " sent_date = ?, refs = ?, seen_at = ? WHERE id = ?", (*fields, row))
            self.db.execute("DELETE FROM mail_items WHERE message = ?", (row,))
        self.db.executemany("INSERT INTO mail_items (message, kind, sha256, source)"
                            " VALUES (?, ?, ?, ?)",
                            [(row, *r) for r in item_rows(items)])

    def done(self, message: MailMessage, max_tries: int) -> bool:
        """Whether ``message`` was recorded and every input it brought is safely in the ledger
        (a scan whose last try timed out and that has tries left is not)."""
        row = self.find(message)
        return row is not None and self.row_done(row, max_tries)

    def row_done(self, row: int, max_tries: int) -> bool:
        q = self.db.execute
        items = q("SELECT kind, sha256, source FROM mail_items WHERE message = ?", (row,))
        for kind, sha256, source in items.fetchall():
            if kind == "no_scan":
                found = q("SELECT 1 FROM messages WHERE source = ?", (source,)).fetchone()
            elif sha256 is not None:
                found = q("SELECT retry, failures FROM scans WHERE sha256 = ?",
                          (sha256,)).fetchone()
                if found is not None and kind == "scan" and found[0] and found[1] < max_tries:
                    return False  # the runner will try it again
            else:
                found = q("SELECT 1 FROM scans WHERE sha256 IS NULL AND source = ?",
                          (source,)).fetchone()
            if found is None:
                return False
        return True

    def moved(self, rows: list[int], folder: str) -> None:
        """Note that the messages ``rows`` were moved to ``folder``."""
        with self.db:
            self.db.executemany("UPDATE mail_messages SET moved_to = ?, moved_at = ? WHERE id = ?",
                                [(folder, _now(), r) for r in rows])

    def message(self, row: int) -> MailMessage:
        (message_id, mailbox, uidvalidity, uid, container, sender, reply_to, to, subject, date,
         refs) = self.db.execute(
            "SELECT message_id, mailbox, uidvalidity, uid, container, sender, reply_to, to_addr,"
            " subject, sent_date, refs FROM mail_messages WHERE id = ?", (row,)).fetchone()
        return MailMessage(container=container, message_id=message_id, sender=sender,
                           reply_to=reply_to, to=to, subject=subject, date=date, references=refs,
                           mailbox=mailbox, uidvalidity=uidvalidity, uid=uid)

    def message_of(self, sha256: str | None, source: str) -> int | None:
        """The latest message that brought this scan (by content, else by source), or None."""
        if sha256 is not None:
            row = self.db.execute("SELECT MAX(message) FROM mail_items WHERE sha256 = ?",
                                  (sha256,)).fetchone()
        else:
            row = self.db.execute("SELECT MAX(message) FROM mail_items WHERE sha256 IS NULL"
                                  " AND source = ?", (source,)).fetchone()
        return row[0] if row else None

    # ------------------------------------------------------------------ replies
    def reply(self, key: str) -> dict | None:
        row = self.db.execute(
            "SELECT key, message, to_addr, subject, reply_id, content, written, sent_at"
            " FROM mail_replies WHERE key = ?", (key,)).fetchone()
        names = ("key", "message", "to", "subject", "reply_id", "content", "written", "sent_at")
        return dict(zip(names, row, strict=True)) if row else None

    def add_reply(self, key: str, message: int | None, to: str, subject: str, reply_id: str,
                  content: str) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO mail_replies (key, message, to_addr, subject, reply_id, content,"
                " made_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, message, to, subject, reply_id, content, _now()))

    def reply_written(self, key: str, file: str) -> None:
        with self.db:
            self.db.execute("UPDATE mail_replies SET written = ?, written_at = ? WHERE key = ?",
                            (file, _now(), key))

    def reply_sent(self, key: str, via: str) -> None:
        with self.db:
            self.db.execute("UPDATE mail_replies SET sent_at = ?, sent_via = ? WHERE key = ?",
                            (_now(), via, key))
