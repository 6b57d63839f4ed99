"""Parallel batch runs: a pool of worker processes, per-scan time limit, progress, Ctrl-C.

The runner plans what to read, hands the scans to an executor -- this module's local pool (the
default) or a Dask cluster (batch.cluster, ``--cluster``) -- and commits each finished scan: only
this process writes the ledger, the report and the sheet files.

Each local worker is a long-lived process fed one scan at a time over a pipe; a scan that
runs past the time limit (or crashes its worker) is recorded as failed and the worker
replaced; a rerun tries it again, up to ``BatchOptions.max_tries`` times in all.  Results
are committed to the ledger as each scan finishes, so an interrupted batch (Ctrl-C or
SIGTERM) keeps everything already done.  Workers die with the batch however it ends, even
by kill -9: the kernel kills them when their parent dies (Linux), and a watchdog thread in
each sees the end of a pipe only the parent holds open.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import re
import resource
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing.connection import wait
from pathlib import Path
from typing import Protocol

from tqdm import tqdm

from batch import decided, outputs
from batch.atomic import atomic_write_bytes
from batch.inputs import InputProblem, Item, ScanInput, Skipped, printable, shown
from batch.ledger import LEDGER_NAME, Ledger, ScanRecord, SheetRecord
from batch.worker import (
    Reader,
    Reconciler,
    default_reader,
    default_reconciler,
    merge_rules,
    process_scan,
    sheet_id,
)
from ocr.ensemble import reader_version, reader_versions

DEFAULT_TIMEOUT = 60.0
INDEX_EVERY_S = 2.0  # rewrite report.html at most this often while running
# ... and at most this share of the time: a season's report takes seconds to render, and the
# client's time goes to committing what the workers finish.
INDEX_TIME_SHARE = 0.1
# Threads writing a commit's files (pictures, per-sheet JSON and HTML): each file waits on its
# own disk sync, and concurrent syncs share the file system's journal commits.
WRITER_THREADS = 8
# A scan that timed out or whose worker died is tried at most this often in all (reruns retry it:
# the machine may have been busy, or memory short); then it stays failed until --force.
MAX_TRIES = 3


@dataclass
class BatchOptions:
    out_dir: Path
    jobs: int = 0  # 0 = one per CPU core; never more than the cores (see effective_jobs)
    timeout: float = DEFAULT_TIMEOUT
    force: bool = False
    max_tries: int = MAX_TRIES
    unfinished: str | None = None  # house rules; None = as last stored in the ledger
    partscore: int | None = None
    progress: bool = True
    cluster: str | None = None  # run on Dask: tcp://HOST:PORT or local:N (batch.cluster)
    shared_path: bool = False  # with cluster: workers open the files by path instead of bytes


@dataclass
class BatchSummary:
    scans: int = 0  # scans processed in this run
    sheets: int = 0  # sheets read
    flagged: int = 0
    review: int = 0
    rescan: list[str] = field(default_factory=list)  # sheets read whose scan is too poor to read well
    failed: int = 0  # scans or pages that could not be read
    already: int = 0  # skipped: already in the ledger
    failed_before: int = 0  # of those, how many failed when they were processed
    older_reader: int = 0  # of those, how many were read by other networks than this run's
    retried: int = 0  # read again: their last try timed out or its worker died
    rerun_lost: int = 0  # on a cluster: read again in this run after their worker was lost
    gave_up: int = 0  # of "already": failed that way max_tries times, not tried again
    duplicates: int = 0  # skipped: same content twice in this run
    skipped: int = 0  # attachments that were not scans (logos...)
    skipped_files: list[str] = field(default_factory=list)  # files in folders that are not scans: "name: why"
    blank_pages: int = 0  # blank pages beside a sheet (the back of a duplex scan), not read
    no_scan: list[str] = field(default_factory=list)  # e-mails with no scan attached: "source: reason"
    seconds: float = 0.0
    writing_seconds: float = 0.0  # of those, writing the ledger, the sheet files and the report
    interrupted: bool = False
    peak_worker_rss_mb: float = 0.0
    failures: list[str] = field(default_factory=list)
    rules_changed: bool = False  # earlier sheets were scored under other house rules

    def line(self) -> str:
        rate = self.sheets / self.seconds * 60 if self.seconds > 0 else 0.0
        parts = [f"{self.sheets} sheets read", f"{self.flagged} flagged", f"{self.review} to review",
                 f"{self.failed} failed"]
        if self.rescan:
            parts.append(f"{len(self.rescan)} to scan again (writing too faint to read: listed in the report)")
        if self.retried:
            parts.append(f"{self.retried} retried (timed out or worker died before)")
        if self.rerun_lost:
            parts.append(f"{self.rerun_lost} read again after their worker was lost")
        if self.already:
            parts.append(f"{self.already} already done (--force to redo)")
        if self.failed_before:
            parts.append(f"{self.failed_before} of them failed before (listed in the report)")
        if self.gave_up:
            parts.append(f"{self.gave_up} of them timed out or lost their worker on every try, "
                         "not retried (--force to try again)")
        if self.older_reader:
            parts.append(f"{self.older_reader} of them read by another version of the reader (--force to re-read)")
        if self.duplicates:
            parts.append(f"{self.duplicates} duplicates")
        if self.skipped:
            parts.append(f"{self.skipped} attachments skipped")
        if self.skipped_files:
            n = len(self.skipped_files)
            parts.append(f"{n} file{'s' if n > 1 else ''} skipped (not a scan or e-mail: named above)")
        if self.blank_pages:
            parts.append(f"{self.blank_pages} blank page{'s' if self.blank_pages > 1 else ''} skipped")
        if self.no_scan:
            parts.append(f"{len(self.no_scan)} e-mail{'s' if len(self.no_scan) > 1 else ''} without a scan")
        text = ", ".join(parts) + f" in {self.seconds:.1f} s ({rate:.1f} sheets/min)"
        return ("interrupted: " if self.interrupted else "") + text


def run_batch(items: Iterable[Item], options: BatchOptions, reader: Reader | None = None,
              reconciler: Reconciler | None = None) -> BatchSummary:
    """Read every scan in ``items`` into ``options.out_dir``; see the module docstring."""
    t0 = time.perf_counter()
    out_dir = Path(options.out_dir)
    (out_dir / "sheets").mkdir(parents=True, exist_ok=True)
    summary = BatchSummary()
    with Ledger(out_dir / LEDGER_NAME, lock=True) as ledger:
        stored = ledger.get_setting("rules")
        rules = merge_rules(stored, options.unfinished, options.partscore)
        if rules != stored:
            ledger.set_setting("rules", rules)
            summary.rules_changed = stored is not None
        todo = _plan(items, ledger, options.force, summary, None if reader else _reader_version(),
                     options.max_tries)
        pool = _executor(options, out_dir / "sheets", reader, reconciler, rules)
        # disable=None: a bar on a terminal, none in logs
        bar = tqdm(total=len(todo), unit="scan", file=sys.stderr,
                   disable=None if options.progress else True, dynamic_ncols=True)
        last_index, index_every = 0.0, INDEX_EVERY_S
        guard = _InterruptGuard()
        writer = ThreadPoolExecutor(WRITER_THREADS, thread_name_prefix="batch-writer")
        try:
            guard.install()
            for problem in [p for p in todo if isinstance(p, InputProblem)]:
                with guard.shielded():
                    _commit(ledger, out_dir, [Finished(_problem_record(problem))], rules, summary,
                            writer)
                bar.update(1)
            scans = deque(s for s in todo if isinstance(s, ScanInput))
            for done in pool.run(scans, options.timeout):
                for finished in done:
                    summary.peak_worker_rss_mb = max(summary.peak_worker_rss_mb,
                                                     finished.rss_kb / 1024)
                with guard.shielded():
                    _commit(ledger, out_dir, done, rules, summary, writer)
                bar.update(len(done))
                bar.set_postfix(failed=summary.failed, refresh=False)
                if time.monotonic() - last_index > index_every:
                    took = _timed(outputs.write_index, out_dir, ledger)
                    summary.writing_seconds += took
                    last_index, index_every = time.monotonic(), max(INDEX_EVERY_S,
                                                                    took / INDEX_TIME_SHARE)
        except KeyboardInterrupt:
            summary.interrupted = True
        finally:
            guard.restore()
            pool.close()
            writer.shutdown()
            summary.rerun_lost = pool.rerun_lost
            bar.close()
            summary.writing_seconds += _timed(outputs.write_index, out_dir, ledger)
    summary.seconds = time.perf_counter() - t0
    return summary


@dataclass
class Finished:
    """A scan an executor finished: its record, its worker's peak memory, and the report's
    pictures still to be written ({file name: JPEG}; a local worker writes its own)."""

    record: ScanRecord
    rss_kb: int = 0
    pictures: dict[str, bytes] = field(default_factory=dict)


class Executor(Protocol):
    """Where scans run: ``run`` yields the scans finished since it last yielded (committed
    together, in one ledger transaction), each page held to ``timeout`` seconds; ``close`` ends
    whatever still runs.  The local pool (_Pool) and the Dask cluster (batch.cluster)."""

    rerun_lost: int  # scans read again after their worker was lost (a cluster's resilience)

    def run(self, scans: deque, timeout: float) -> Iterator[list[Finished]]: ...

    def close(self) -> None: ...


def _executor(options: BatchOptions, sheets_dir: Path, reader: Reader | None,
              reconciler: Reconciler | None, rules: dict | None) -> Executor:
    """The local pool, or with ``options.cluster`` the Dask cluster (connected on first use)."""
    read, reconcile = reader or default_reader, reconciler or default_reconciler
    if options.cluster:
        from batch.cluster import DaskExecutor, parse_cluster

        return DaskExecutor(parse_cluster(options.cluster), read, reconcile, rules,
                            shared_path=options.shared_path, warm=reader is None)
    return _Pool(effective_jobs(options.jobs), sheets_dir, read, reconcile, rules)


def failed_record(scan: ScanInput, pages: list[SheetRecord], blank: list[int],
                  reason: str) -> ScanRecord:
    """A scan cut short (time limit, worker lost): the ``pages`` it finished kept, the page it
    was on failed for ``reason``, its ``blank`` pages counted."""
    page = max([s.page + 1 for s in pages] + [b + 1 for b in blank], default=0)
    sheets = [*pages, SheetRecord(sheet_id=sheet_id(scan.sha256, page), page=page, error=reason)]
    ok = any(s.error is None for s in sheets)
    return ScanRecord(sha256=scan.sha256, source=scan.source, status="done" if ok else "failed",
                      error=None if ok else reason, name=scan.name, container=scan.container,
                      sender=scan.sender, subject=scan.subject, date=scan.date,
                      attachment=scan.attachment, sheets=sheets, blank_pages=len(blank))


def effective_jobs(requested: int) -> int:
    """Worker processes for ``requested`` (0 = one per core): at most one per core, as the work
    is all CPU and each worker holds its own networks and page images (~250 MB)."""
    cores = _cores()
    return min(requested, cores) if requested > 0 else cores


def _cores() -> int:
    """CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _reader_version() -> str | None:
    """The default reader's version; None when it cannot be told (the workers report why)."""
    try:
        return reader_version()
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=4)
def _accepted(version: str) -> frozenset[str]:
    """The versions a scan read by this run's reader may carry: ``version``, and the photo
    networks' (a photographed table is read by them)."""
    try:
        return reader_versions() | {version}
    except (OSError, ValueError):
        return frozenset({version})


def _plan(items: Iterable[Item], ledger: Ledger, force: bool, summary: BatchSummary,
          version: str | None = None, max_tries: int = MAX_TRIES) -> list:
    """What to read; counts what is skipped.  ``version``: this run's reader (ocr.cellnet
    reader_version), to count scans kept from another one; None when the reader is not the default.
    A scan whose last try timed out or lost its worker is read again, up to ``max_tries`` tries."""
    todo: list = []
    seen: set[str] = set()
    for item in items:
        if isinstance(item, Skipped) and item.message:
            summary.no_scan.append(f"{shown(item.source)}: {printable(item.reason)}")
            ledger.record_message(item.source, item.reason, item.sender, item.subject, item.date)
        elif isinstance(item, Skipped) and item.file:
            summary.skipped_files.append(f"{shown(item.source)}: {item.reason}")
        elif isinstance(item, Skipped):
            summary.skipped += 1
        elif isinstance(item, InputProblem):
            todo.append(item)
        elif item.sha256 in seen:
            summary.duplicates += 1
        elif not force and (status := ledger.scan_status(item.sha256)) is not None \
                and not _retry(ledger, item.sha256, max_tries, summary):
            summary.already += 1
            summary.failed_before += status == "failed"
            if version and status == "done" and (readers := ledger.scan_readers(item.sha256)) \
                    and not readers <= _accepted(version):
                summary.older_reader += 1
        else:
            seen.add(item.sha256)
            todo.append(item)
    return todo


def _retry(ledger: Ledger, sha256: str, max_tries: int, summary: BatchSummary) -> bool:
    """Whether to read a scan already in the ledger again, counting it either way."""
    retry, failures = ledger.scan_retry(sha256)
    if retry and failures < max_tries:
        summary.retried += 1
        return True
    summary.gave_up += retry
    return False


def _problem_record(problem: InputProblem) -> ScanRecord:
    return ScanRecord(sha256=problem.sha256, source=problem.source, status="failed",
                      error=problem.error)


def _timed(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _commit(ledger: Ledger, out_dir: Path, done: list[Finished], rules: dict | None,
            summary: BatchSummary, writer: ThreadPoolExecutor) -> None:
    """Scans just finished into the ledger (one transaction) with their files: the pictures
    first (the ledger names them), then each sheet's JSON and HTML (made from the ledger's rows),
    the files written side by side (``writer``)."""
    t0 = time.perf_counter()
    sheets_dir = out_dir / "sheets"
    pictures = [(sheets_dir / Path(name).name, jpeg) for f in done for name, jpeg in f.pictures.items()]
    list(writer.map(lambda item: atomic_write_bytes(*item), pictures))
    ledger.record_scans([f.record for f in done], rules)
    decided.reapply(ledger, out_dir, [s.sheet_id for f in done for s in f.record.sheets],
                    rules)  # a person's decisions (the review app) applied again
    rows = [row for f in done for sheet in f.record.sheets for row in ledger.sheets(sheet.sheet_id)]
    list(writer.map(lambda row: outputs.write_sheet_files(out_dir, row), rows))
    summary.writing_seconds += time.perf_counter() - t0
    for f in done:
        _count(f.record, summary)


def _count(record: ScanRecord, summary: BatchSummary) -> None:
    summary.scans += 1
    summary.blank_pages += record.blank_pages
    if record.status == "failed":
        summary.failed += 1
        summary.failures.append(_with_source(record.source, record.error))
    for sheet in record.sheets:
        if sheet.error and record.status != "failed":
            summary.failed += 1
            summary.failures.append(_with_source(f"{record.source} page {sheet.page + 1}", sheet.error,
                                                 record.source))
        elif sheet.result is not None:
            summary.sheets += 1
            summary.flagged += bool(sheet.result.get("flags"))
            summary.review += bool(sheet.result.get("review"))
            if sheet.result.get("rescan"):
                summary.rescan.append(shown(record.source) + (f" page {sheet.page + 1}" if sheet.page else ""))


class _InterruptGuard:
    """Ctrl-C (or SIGTERM, e.g. from `timeout`) raises KeyboardInterrupt, except inside
    ``shielded()`` where it waits until the block ends, so a scan's ledger commit and its files
    are always finished together."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.shield = False
        self.pending = False
        self.previous: dict = {}

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self.previous = {sig: signal.signal(sig, self._handle) for sig in self.SIGNALS}

    def restore(self) -> None:
        for sig, previous in self.previous.items():
            signal.signal(sig, previous)
        self.previous = {}

    def _handle(self, signum, frame) -> None:
        if self.shield:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def shielded(self):
        self.shield = True
        try:
            yield
        finally:
            self.shield = False
        if self.pending:
            raise KeyboardInterrupt


def _with_source(where: str, error: str | None, source: str | None = None) -> str:
    """``where: error`` for the summary, the file's name quoted when it is not plain
    (batch.inputs.shown) and any copy of it at the start of the reader's message dropped."""
    error = error or "unknown error"
    source = where if source is None else source
    rest = error[len(source):] if error.startswith(source) else ""
    page = re.match(r" page \d+", rest)
    if page:
        where = where if where != source else where + page.group(0)
        rest = rest[page.end():]
    if rest.startswith(":"):
        error = rest[1:].lstrip()
    return f"{shown(source)}{where[len(source):]}: {printable(error)}"


# --------------------------------------------------------------------------- workers
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent_pid: int, lifeline: tuple[int, int]) -> None:
    """Make this worker (and, through its process group, whatever it started) end when the batch
    process ends, even by SIGKILL.  Linux: the kernel sends SIGKILL the moment the parent dies.
    Everywhere: a thread waits on ``lifeline``, a pipe whose write end only the parent keeps open
    (each worker closes its inherited copy first), and kills the group when it reads its end."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux
        pass
    read_end, write_end = lifeline
    os.close(write_end)
    if os.getppid() != parent_pid:  # the parent died before the line above was in place
        os._exit(1)
    threading.Thread(target=_watch_lifeline, args=(read_end,), name="lifeline", daemon=True).start()


def _watch_lifeline(fd: int) -> None:
    while True:
        try:
            if not os.read(fd, 64):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    try:
        if os.getpgrp() == os.getpid():  # only ever our own group, never the batch's
            os.killpg(os.getpid(), signal.SIGKILL)
    finally:
        os._exit(1)


def _worker_main(conn, sheets_dir: Path, reader: Reader, reconciler: Reconciler,
                 rules: dict | None, parent_pid: int | None = None,
                 lifeline: tuple[int, int] | None = None) -> None:
    """Worker loop: receive a scan, send ("page", SheetRecord) as each page is done and
    ("blank", page number) for each blank page skipped, then ("done", ScanRecord, peak RSS in
    KiB); None stops the worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and SIGTERM
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(os, "setpgid"):
        os.setpgid(0, 0)  # own process group, so a time-out also kills Tesseract children
    if lifeline is not None and parent_pid is not None:
        _die_with_parent(parent_pid, lifeline)
    while True:
        try:
            scan = conn.recv()
        except EOFError:
            return
        if scan is None:
            return
        record = process_scan(scan, sheets_dir, reader, reconciler, rules,
                              on_page=lambda sheet: conn.send(("page", sheet)),
                              on_blank=lambda page: conn.send(("blank", page)))
        conn.send(("done", record, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


class _Worker:
    def __init__(self, ctx, args: tuple):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, *args), daemon=True)
        self.proc.start()
        child.close()
        self.scan: ScanInput | None = None
        self.started = 0.0  # when the current page started
        self.pages: list[SheetRecord] = []  # pages of the current scan already done
        self.blank: list[int] = []  # blank pages of the current scan skipped

    def give(self, scan: ScanInput) -> None:
        self.scan, self.started, self.pages, self.blank = scan, time.monotonic(), [], []
        self.conn.send(scan)

    def stop(self, kill: bool) -> None:
        if kill:
            self._kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                self.proc.kill()
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self._kill()
            self.proc.join()
        self.conn.close()

    def _kill(self) -> None:
        """SIGKILL the worker and anything it started (its process group)."""
        try:
            if os.getpgid(self.proc.pid) == self.proc.pid:
                os.killpg(self.proc.pid, signal.SIGKILL)
                return
        except (AttributeError, OSError):
            pass
        self.proc.kill()


class _Pool:
    """Long-lived worker processes with a per-scan time limit (the default Executor)."""

    rerun_lost = 0  # a worker lost here fails its scan (retried on a rerun), never reruns it

    def __init__(self, jobs: int, sheets_dir: Path, reader: Reader, reconciler: Reconciler,
                 rules: dict | None):
        methods = mp.get_all_start_methods()
        self.ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        self.lifeline = os.pipe()  # see _die_with_parent; closed in close()
        inherited = self.ctx.get_start_method() == "fork"  # a spawned worker gets no fds
        self.args = (sheets_dir, reader, reconciler, rules, os.getpid(), self.lifeline if inherited else None)
        self.jobs = max(1, jobs)
        self.workers: list[_Worker] = []

    def run(self, scans: deque, timeout: float):
        """Yield [Finished] as each scan finishes, in completion order.
        ``timeout`` limits each page (sheet), so a long PDF is not cut short."""
        while len(self.workers) < min(self.jobs, len(scans)):
            self.workers.append(_Worker(self.ctx, self.args))
        for w in list(self.workers):
            if scans:
                self._give(w, scans.popleft())
        while any(w.scan is not None for w in self.workers):
            busy = {w.conn: w for w in self.workers if w.scan is not None}
            for conn in wait(list(busy), timeout=0.2):
                w = busy[conn]
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    w.proc.join(timeout=1)
                    yield [Finished(self._failed(w, f"worker process died (exit code {w.proc.exitcode})"))]
                    continue
                if message[0] in ("page", "blank"):
                    (w.pages if message[0] == "page" else w.blank).append(message[1])
                    w.started = time.monotonic()
                    continue
                _, record, rss = message
                w.scan = None
                yield [Finished(record, rss)]
                if scans:
                    self._give(w, scans.popleft())
            now = time.monotonic()
            for w in list(self.workers):
                if w.scan is not None and now - w.started > timeout:
                    yield [Finished(self._failed(w, f"time limit exceeded ({timeout:g} s per sheet)"))]
            for w in list(self.workers):
                if w.scan is None and scans:
                    self._give(w, scans.popleft())

    def _give(self, w: _Worker, scan: ScanInput) -> None:
        """Hand ``scan`` to ``w``, replacing ``w`` first if it died while idle."""
        try:
            w.give(scan)
        except OSError:
            w.stop(kill=True)
            fresh = _Worker(self.ctx, self.args)
            self.workers[self.workers.index(w)] = fresh
            fresh.give(scan)

    def _failed(self, w: _Worker, reason: str) -> ScanRecord:
        """Keep the pages ``w`` finished, fail the page it was on, and replace the worker."""
        scan = w.scan
        assert scan is not None
        w.stop(kill=True)
        self.workers[self.workers.index(w)] = _Worker(self.ctx, self.args)
        return failed_record(scan, w.pages, w.blank, reason)

    def close(self) -> None:
        for w in self.workers:
            w.stop(kill=w.scan is not None)
        self.workers = []
        for fd in self.lifeline:
            os.close(fd)
        self.lifeline = ()
