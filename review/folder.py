"""The batch folder under review: its ledger, pictures, house rules and queue, and the one way a
decision is made -- checked against the sheet's version, settled (batch/decided.py: the sheet
re-reconciled with every decision in force), written in one transaction with the sheet's new
result and status, and the sheet's files and the report written again.
"""

from __future__ import annotations

import getpass
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from batch import outputs
from batch.decided import check_value, open_items, settle, sheet_status
from batch.ledger import (
    LEDGER_NAME,
    FolderLock,
    Ledger,
    LedgerBusy,
    LedgerError,
    LedgerSheet,
    ReviewChange,
    VersionConflict,
)
from review.images import Pictures
from review.queue import Context, Item, Provider, context, oldest_first, sheet_items

MAX_REASON = 500  # characters of a reason kept
STALE = ("this sheet has changed since the page was loaded (another tab, another person, or a "
         "batch or audit): nothing was changed; look again at the sheet as it is now")


class DecisionError(Exception):
    """A decision that cannot be made as asked (a bad value, a busy folder, a stale page): the
    message says what to do; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class SheetSummary:
    """A line of the index: a sheet and what is open on it."""

    sheet: LedgerSheet
    reviews: int
    flags: int
    others: int
    status: str

    @property
    def open(self) -> int:
        return self.reviews + self.flags + self.others


def os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


class ReportWriter:
    """Writes DIR/report.html again after decisions, in the background (it lists every sheet of
    the season: seconds for a thousand, too long to wait for at each decision), at most once per
    ``delay`` seconds; :meth:`flush` writes what is pending now."""

    def __init__(self, folder: Folder, delay: float = 1.0):
        self.folder = folder
        self.delay = delay
        self._pending = threading.Event()
        self._writing = threading.Lock()
        self._thread: threading.Thread | None = None

    def touch(self) -> None:
        self._pending.set()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="report", daemon=True)
            self._thread.start()

    def flush(self) -> None:
        if self._pending.is_set():
            self._write()

    def _run(self) -> None:
        while True:
            self._pending.wait()
            time.sleep(self.delay)  # decisions in a row: one report
            try:
                if self._pending.is_set():  # (unless flushed meanwhile)
                    self._write()
            except Exception:  # noqa: BLE001 - the report is written again at the next decision
                pass

    def _write(self) -> None:
        with self._writing:
            self._pending.clear()
            outputs.write_index(self.folder.out_dir, self.folder.ledger())


class Folder:
    """One batch folder as the review app sees it (thread-safe: a ledger connection per thread,
    one decision at a time)."""

    def __init__(self, out_dir: str | Path, providers: list[Provider]):
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / LEDGER_NAME
        if not self.path.is_file():
            raise LedgerError(f"{self.out_dir}: no {LEDGER_NAME} here (is this a batch output "
                              "folder?)")
        self.providers = providers
        self.pictures = Pictures(self.out_dir)
        self._local = threading.local()
        self._write = threading.Lock()
        self._lock = FolderLock(self.path)
        self.report = ReportWriter(self)
        self.ledger()  # opened once now: a damaged ledger or a read-only folder says so at start

    def warm(self) -> None:
        """Reconcile one stored reading, unsaved, so the scoring tables the first decision needs
        are built while the first page is looked at (2-3 s otherwise added to it)."""
        try:
            from batch.decided import decided_result

            row = self.ledger().db.execute("SELECT reading FROM readings LIMIT 1").fetchone()
            if row:
                decided_result(json.loads(row[0]), [])
        except Exception:  # noqa: BLE001 - only a head start; the decision does it anyway
            pass

    def ledger(self) -> Ledger:
        """This thread's connection to the ledger."""
        ledger = getattr(self._local, "ledger", None)
        if ledger is None:
            ledger = self._local.ledger = Ledger(self.path)
        return ledger

    def rules(self) -> dict | None:
        return self.ledger().get_setting("rules")

    def sheet(self, sheet_id: str) -> LedgerSheet | None:
        return next(iter(self.ledger().sheets(sheet_id)), None)

    def context(self) -> Context:
        return context(self.ledger())

    # ------------------------------------------------------------------ the queue
    def summaries(self) -> list[SheetSummary]:
        """Every sheet, oldest first, with what is open on it (from the ledger's light overview:
        no sheet's full result is read)."""
        ctx = self.context()
        out = []
        for sheet in oldest_first(self.ledger().overview()):
            decisions = ctx.of(sheet.sheet_id)
            reviews, flags = open_items(sheet.result, decisions)
            others = sheet_items(ctx, sheet, [p for p in self.providers if p.name != "sheet"])
            failed = sheet.status != "ok" or not sheet.result
            out.append(SheetSummary(sheet, len(reviews) + int(failed), len(flags), len(others),
                                    sheet_status(sheet.result, decisions, failed=failed)))
        return out

    def items(self, sheet: LedgerSheet, ctx: Context | None = None) -> list[Item]:
        return sheet_items(ctx or self.context(), sheet, self.providers)

    def next_sheet(self, after: str | None = None) -> str | None:
        """The next sheet with anything open (after ``after`` in the queue's order, else the
        first)."""
        open_ids = [s.sheet.sheet_id for s in self.summaries() if s.open]
        if after in open_ids:
            i = open_ids.index(after)
            open_ids = open_ids[i + 1:] + open_ids[:i]
        return open_ids[0] if open_ids else None

    # ------------------------------------------------------------------ deciding
    def decide(self, sheet_id: str, version: int, decision: dict, who: str) -> int:
        """Record ``decision`` (kind, target, before, after, reason) on ``sheet_id``, made on a
        page of ``version``; returns the sheet's new version."""
        decision = {**decision, "who": who}
        if decision.get("reason"):
            decision["reason"] = str(decision["reason"])[:MAX_REASON]
        return self._commit(sheet_id, version, who, add=decision)

    def undo(self, sheet_id: str, version: int, decision_id: int | None, who: str) -> int:
        """Undo a decision in force on ``sheet_id`` (None: the last one)."""
        return self._commit(sheet_id, version, who, undo=-1 if decision_id is None else decision_id)

    def _commit(self, sheet_id: str, version: int, who: str, add: dict | None = None,
                undo: int | None = None) -> int:
        """Add ``add``, or undo the decision ``undo`` (-1: the last one in force)."""
        if not self._write.acquire(timeout=60):
            raise DecisionError("the app is busy with another decision; try again", 503)
        try:
            try:
                with self._lock:
                    return self._settle_and_write(sheet_id, version, who, add, undo)
            except LedgerBusy as exc:
                raise DecisionError(f"{exc}; nothing was changed: decide again when it has "
                                    "finished", 503) from None
            except VersionConflict as exc:
                raise DecisionError(str(exc), 409) from None
        finally:
            self._write.release()

    def check_version(self, sheet_id: str, version: int) -> None:
        """DecisionError (409) when the sheet has changed since a page of ``version`` was made."""
        if self.ledger().review_state(sheet_id)[1] != version:
            raise DecisionError(STALE, 409)

    def _settle_and_write(self, sheet_id: str, version: int, who: str, add: dict | None,
                          undo: int | None) -> int:
        ledger = self.ledger()
        if ledger.review_state(sheet_id)[1] != version:
            raise VersionConflict(STALE)
        sheet = self.sheet(sheet_id)
        if sheet is None:
            raise DecisionError(f"no sheet {sheet_id} in this folder", 404)
        decisions = ledger.decisions(sheet_id)
        undone = None
        if add is not None:
            decisions = decisions + [add]
        elif undo is not None:
            if not decisions:
                raise DecisionError("nothing to undo on this sheet")
            undone = decisions[-1]["id"] if undo == -1 else undo
            if undone not in {d["id"] for d in decisions}:
                raise DecisionError(f"decision {undone} is not in force on this sheet")
            decisions = [d for d in decisions if d["id"] != undone]
        rules = self.rules()
        settled = settle(ledger, self.out_dir, sheet, decisions, rules)
        if add is not None and add["kind"] == "corners" and settled.state is not None \
                and settled.state.error:
            raise DecisionError(f"{settled.state.error}. Nothing was changed: click the corners "
                                "again (the outer corners of the deal table), or type the rows",
                                422)
        new_version = ledger.write_review(ReviewChange(
            sheet_id, settled.status, version=version, decision=add, undo=undone, who=who,
            result=settled.result, rules=rules, sheet=settled.state))
        for row in ledger.sheets(sheet_id):
            outputs.write_sheet_files(self.out_dir, row)
        self.report.touch()
        return new_version

    # ------------------------------------------------------------------ answers into decisions
    @staticmethod
    def status_decision(action: str, reason: str, open_count: int) -> dict:
        """verify / dispute a sheet as a decision."""
        if action == "verify":
            if open_count:
                raise DecisionError(f"{open_count} item{'s' if open_count > 1 else ''} still "
                                    "open on this sheet: answer them first")
            return {"kind": "status", "target": "sheet", "after": "verified"}
        if action == "dispute":
            if not reason.strip():
                raise DecisionError("say why the sheet is disputed")
            return {"kind": "status", "target": "sheet", "after": "disputed", "reason": reason}
        raise DecisionError(f"unknown action {action!r}")

    @staticmethod
    def rows_decision(form: dict, deals: int) -> dict:
        """The table typed by hand (fields d<deal>_<column>, names_ns, names_ew, winners)."""
        rows = []
        errors = []
        for deal in range(1, deals + 1):
            row: dict = {"deal": deal}
            for col in ("dealer", "ns", "ew", "cum_ns", "cum_ew"):
                text = str(form.get(f"d{deal}_{col}") or "").strip()
                if not text:
                    row[col] = None
                    continue
                try:
                    row[col] = check_value(col, text)
                except ValueError as exc:
                    errors.append(f"deal {deal}, {col}: {exc}")
            rows.append(row)
        while rows and all(rows[-1].get(c) in (None, 0) for c in ("ns", "ew", "cum_ns", "cum_ew")):
            rows.pop()  # the printed rows left blank after the last deal played
        if errors:
            raise DecisionError("; ".join(errors[:5]))
        if not rows:
            raise DecisionError("type at least one deal")
        winners = str(form.get("winners") or "")
        return {"kind": "rows", "target": "table",
                "after": {"rows": rows,
                          "names": {s: " ".join(str(form.get(f"names_{s}") or "").split())[:80]
                                    or None for s in ("ns", "ew")},
                          "winners": winners if winners in ("ns", "ew") else None}}

    @staticmethod
    def corners_decision(text: str, error: str | None) -> dict:
        """Four clicked corners "x,y;x,y;x,y;x,y" (page pixels) as a decision."""
        try:
            points = [[round(float(v), 1) for v in p.split(",")] for p in text.split(";") if p]
        except ValueError:
            points = []
        if len(points) != 4 or any(len(p) != 2 for p in points):
            raise DecisionError("click the four corners of the deal table")
        return {"kind": "corners", "target": "table", "before": {"error": error},
                "after": points}
