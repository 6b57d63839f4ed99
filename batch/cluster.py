"""A batch's scans (and an audit's readings) run on a Dask distributed cluster (``--cluster``).

The client -- the ``rubberscan batch`` process -- hands each scan to the cluster as a task:
its bytes, or with ``--shared-path`` its absolute path on storage every worker sees.  A worker
runs load -> geometry -> read -> reconcile (batch.worker.process_scan, the local pool's code)
and returns the plain ScanRecord with the report's JPEGs as bytes; only the client writes the
ledger, the report and the sheet files, so they stay exactly as a local run leaves them.

Dask schedules; this module only keeps the local pool's promises on top of it:
- a few scans per worker thread in flight, so the client holds little and workers never wait;
- the per-sheet time limit: each task tells the client (a Dask event) when it starts and as each
  page is done; a task past the limit is failed like the local pool fails it (the pages it
  finished kept) and its worker restarted through its nanny, which ends the stuck reading;
- a worker lost mid-run loses nothing: Dask runs its tasks again elsewhere, and a scan that
  keeps killing its workers ends as Dask's KilledWorker, recorded as "worker process died" (so
  a rerun retries it, as for the local pool);
- the reader's networks load once per worker (a worker plugin warms them as the worker joins).
"""

from __future__ import annotations

import logging
import os
import queue
import re
import resource
import signal
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from batch.inputs import ScanInput
from batch.ledger import ScanRecord, SheetRecord
from batch.runner import Finished, failed_record
from batch.worker import Reader, Reconciler, process_scan

try:  # the cluster extra; without it only --cluster is unavailable (require_dask says so)
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:
    WorkerPlugin = object

EXTRA = "pip install 'rubberscan[cluster]'"
# A scheduler that does not answer within this is reported, not waited for forever.
CONNECT_TIMEOUT_S = 20.0
REGISTER_TRIES = 3  # the reader plugin is sent this many times when a worker leaves as it is sent
# Scans submitted per worker thread: one running and one waiting keeps every worker busy while
# the client commits, and bounds the client's memory to a few scans' bytes.
IN_FLIGHT_PER_THREAD = 2
POLL_S = 0.2  # how often the client looks at time limits while nothing finishes
# A finished scan's result comes in milliseconds; one that takes longer went with its worker
# and is being computed again: the client goes on (time limits) and fetches it when it is done.
GATHER_TIMEOUT_S = 2.0
WORKERS_EVERY_S = 1.0  # how often the number of worker threads is asked again (workers come and go)
# A worker whose task ran past the time limit ends this long after handing back its pages.
STUCK_EXIT_DELAY_S = 0.2
# A local cluster closes a worker's nanny when the worker has not come back this long after it
# was lost (Dask's 15 s default can fire while a nanny restarts a worker a time-out ended, and the
# cluster would shrink for good); the nanny's own restart takes seconds.
LOCAL_LOST_WORKER_TIMEOUT = "1h"
AUDIT_CHUNK = 32  # stored readings re-reconciled per task (~0.07 s each: tasks of ~2 s)
PLUGIN_NAME = "rubberscan-reader"
# The workers' start and page events: one topic for every run (the scheduler keeps the last
# events of each topic it has seen), each task's key naming its run.
TOPIC = "rubberscan-batch"


class ClusterError(Exception):
    """``--cluster`` cannot be used: a malformed address, the extra not installed, or a scheduler
    that cannot be reached."""


@dataclass(frozen=True)
class ClusterSpec:
    """Where to run: a scheduler's address, or a local cluster of ``local_workers`` processes."""

    address: str | None = None
    local_workers: int | None = None

    def __str__(self) -> str:
        return self.address or f"local:{self.local_workers}"


def parse_cluster(text: str) -> ClusterSpec:
    """``tcp://HOST:PORT`` (a Dask scheduler; tls:// too) or ``local:N``; ClusterError otherwise."""
    text = text.strip()
    local = re.fullmatch(r"local:(\d+)", text)
    if local:
        n = int(local.group(1))
        if not 1 <= n <= 256:
            raise ClusterError(f"--cluster {text}: the number of local workers must be 1..256")
        return ClusterSpec(local_workers=n)
    if re.fullmatch(r"(tcp|tls)://[^\s/:]+(:\d+)?|(tcp|tls)://\[[0-9a-fA-F:.]+\](:\d+)?", text):
        return ClusterSpec(address=text)
    raise ClusterError(f"--cluster {text!r}: expected tcp://HOST:PORT (a Dask scheduler) or "
                       "local:N (a local cluster of N worker processes)")


def require_dask() -> None:
    """ClusterError naming the extra when Dask's distributed scheduler is not installed."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterError(f"--cluster needs Dask's distributed scheduler: {EXTRA}") from None


# --------------------------------------------------------------------------- worker side
class ReaderPlugin(WorkerPlugin):
    """On each worker: loads the reader's networks once as the worker joins (not once per sheet)
    and keeps the pages of the scans being read, so a scan past its time limit keeps its finished
    pages.  ``own_workers``: the client started these worker processes (local:N), so a Ctrl-C on
    the terminal is the client's to handle, not theirs."""

    idempotent = False

    def __init__(self, warm: bool, own_workers: bool):
        self.warm = warm
        self.own_workers = own_workers

    def setup(self, worker) -> None:
        self.partial: dict[str, _Partial] = {}
        self.lock = threading.Lock()  # the task's thread and the worker's event loop share it
        if self.own_workers and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        if self.warm:
            warm_reader()

    def begin(self, key: str) -> _Partial:
        with self.lock:
            return self.partial.setdefault(key, _Partial())

    def take(self, key: str) -> _Partial | None:
        with self.lock:
            return self.partial.pop(key, None)


@dataclass
class _Partial:
    """What a task finished of its scan so far: pages, blank pages, pictures."""

    pages: list[SheetRecord] = field(default_factory=list)
    blank: list[int] = field(default_factory=list)
    pictures: dict[str, bytes] = field(default_factory=dict)


def warm_reader() -> None:
    """Load the default reader's networks into this process (each is cached per process)."""
    from ocr.ensemble import default_net
    from ocr.ppocr import default_reader

    default_net()
    default_reader()


def _reader_version() -> str | None:
    """The default reader's version in this process (batch.runner: None when it cannot tell)."""
    from batch.runner import _reader_version as version

    return version()


def read_scan(key: str, topic: str, scan: ScanInput, reader: Reader, reconciler: Reconciler,
              rules: dict | None) -> tuple[ScanRecord, dict[str, bytes], int]:
    """The task: one scan read on a worker -> (record, {picture name: JPEG}, peak RSS KiB).
    Tells the client when it starts and as each page is done (the per-sheet time limit)."""
    from distributed import get_worker

    worker = get_worker()

    def tell(event: str, page: int | None = None) -> None:
        worker.log_event(topic, {"key": key, "worker": worker.address, "event": event,
                                 "page": page})

    plugin = worker.plugins.get(PLUGIN_NAME)
    partial = plugin.begin(key) if plugin is not None else _Partial()
    tell("start")

    def on_page(sheet: SheetRecord) -> None:
        partial.pages.append(sheet)
        tell("page", sheet.page)

    def on_blank(page: int) -> None:
        partial.blank.append(page)
        tell("blank", page)

    try:
        record = process_scan(scan, None, reader, reconciler, rules, on_page=on_page,
                              on_blank=on_blank, pictures=partial.pictures)
    finally:
        if plugin is not None:
            plugin.take(key)
    return record, partial.pictures, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def end_stuck(key: str, dask_worker=None) -> _Partial | None:
    """Run on a worker (Client.run, beside its task ``key``, which is past its time limit): hand
    back the pages the task finished and, when a nanny watches this worker, end the process a
    moment later -- the nanny starts a fresh one at once, as the local pool replaces a stuck
    worker (Dask's own restart first waits seconds for the task to stop, which it never does)."""
    plugin = dask_worker.plugins.get(PLUGIN_NAME) if dask_worker is not None else None
    partial = plugin.take(key) if plugin is not None else None
    if dask_worker is not None and dask_worker.nanny:
        threading.Timer(STUCK_EXIT_DELAY_S, os.kill, (os.getpid(), signal.SIGKILL)).start()
    return partial


def reconcile_chunk(items: list[tuple[str, dict, list[dict]]], reconciler: Reconciler,
                    rules: dict | None) -> list[tuple[str, dict | None, str | None]]:
    """The audit's task: (sheet id, stored reading, a person's decisions) re-reconciled, the
    decisions applied on top as batch/decided.py does -> (sheet id, result, error)."""
    from batch.decided import decided_result
    from batch.worker import house_rules

    house = house_rules(rules)
    out = []
    for sid, stored, decisions in items:
        try:
            new = decided_result(stored, decisions, house, reconciler)
        except Exception as exc:  # a stored reading the scorer rejects: reported, the rest go on
            out.append((sid, None, f"cannot re-reconcile: {type(exc).__name__}: {exc}"))
        else:
            out.append((sid, new, None))
    return out


# --------------------------------------------------------------------------- client side
@dataclass
class _Task:
    key: str
    scan: ScanInput
    future: object  # distributed.Future
    worker: str | None = None  # where it last started
    started: float | None = None  # when it started or last finished a page (monotonic)
    starts: int = 0


class Cluster:
    """A client of a Dask cluster (connected on first use), and the LocalCluster it started for
    ``local:N``; ``close()`` ends both."""

    def __init__(self, spec: ClusterSpec, warm: bool):
        self.spec = spec
        self.warm = warm
        self.client = None
        self.local = None
        self.config = None  # the Dask settings of a local cluster, undone by close()

    def connect(self):
        if self.client is not None:
            return self.client
        require_dask()
        from distributed import Client, LocalCluster

        _quiet_dask_logs()
        try:
            if self.spec.local_workers:
                import dask

                self.config = dask.config.set(
                    {"distributed.deploy.lost-worker-timeout": LOCAL_LOST_WORKER_TIMEOUT})
                # one thread per worker process: the reading is CPU work, and each process holds
                # its own networks; no dashboard (no port, no extra package)
                # (its scheduler's HTTP server, health checks only, on a free loopback port:
                # Dask's default 8787 is often taken, and it says so on stderr)
                self.local = LocalCluster(n_workers=self.spec.local_workers, threads_per_worker=1,
                                          processes=True, dashboard_address=None,
                                          scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                          silence_logs=logging.ERROR)
                self.client = Client(self.local, timeout=CONNECT_TIMEOUT_S)
            else:
                self.client = Client(self.spec.address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ClusterError(f"cannot reach the Dask scheduler at {self.spec}: {exc}") from None
        self._check_workers()
        plugin = ReaderPlugin(self.warm, own_workers=self.local is not None)
        for attempt in range(REGISTER_TRIES):
            try:
                self.client.register_plugin(plugin, name=PLUGIN_NAME)
                break
            except OSError as exc:
                # a worker leaving as the plugin is sent (one restarted after a scan killed it):
                # the scheduler keeps the plugin for the workers that join, so send it again
                if attempt == REGISTER_TRIES - 1:
                    self.close()
                    raise ClusterError(f"cannot set up the Dask workers at {self.spec}: {exc}") from None
                time.sleep(1.0)
        return self.client

    def _check_workers(self) -> None:
        """Every worker there now must run this rubberscan: ClusterError naming a worker that
        cannot; a note on stderr when some read with another reader than this machine's (their
        readings say which reader made them)."""
        here = _reader_version()
        answers = self.client.run(_reader_version, on_error="return")
        other = []
        for addr, answer in sorted(answers.items()):
            if isinstance(answer, OSError):  # a worker leaving (or replaced) as we ask: not ours
                continue
            if isinstance(answer, BaseException):
                self.close()
                raise ClusterError(
                    f"the Dask worker at {addr} cannot run rubberscan ({type(answer).__name__}: "
                    f"{answer}); install it there: {EXTRA}, the version this machine has")
            if answer != here:
                other.append(f"{addr} ({answer})")
        if other:
            print(f"note: {len(other)} of {len(answers)} Dask workers read with another reader "
                  f"than this machine's ({here}), e.g. {other[0]}; their readings are marked so",
                  file=sys.stderr)

    def threads(self) -> int:
        """Worker threads in the cluster now."""
        return sum(self.connect().nthreads().values())

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.close(timeout=10)
            except Exception:  # noqa: BLE001 - a scheduler gone already: nothing left to close
                pass
            self.client = None
        if self.local is not None:
            try:
                self.local.close(timeout=10)
            except Exception:  # noqa: BLE001 - its processes die with this one in any case
                pass
            self.local = None
        if self.config is not None:
            self.config.__exit__(None, None, None)
            self.config = None


def _quiet_dask_logs() -> None:
    """Dask's informational and warning lines (a worker restarted, a task rerun) would scroll
    through the progress bar; errors still show, and the summary counts the reruns."""
    for name in ("distributed", "distributed.client", "distributed.scheduler", "distributed.nanny",
                 "distributed.worker", "distributed.core"):
        logging.getLogger(name).setLevel(logging.ERROR)


class DaskExecutor:
    """The runner's executor on a Dask cluster (the local pool's counterpart, batch.runner._Pool):
    ``run`` yields the scans finished (batch.runner.Finished, their pictures with them: the
    client writes them); ``rerun_lost`` counts scans read again after their worker was lost."""

    def __init__(self, spec: ClusterSpec, reader: Reader, reconciler: Reconciler,
                 rules: dict | None, shared_path: bool = False, warm: bool = True):
        self.cluster = Cluster(spec, warm)
        self.reader, self.reconciler, self.rules = reader, reconciler, rules
        self.shared_path = shared_path
        self.topic = TOPIC
        self.events: queue.Queue = queue.Queue()
        self.tasks: dict[str, _Task] = {}
        self.rerun_lost = 0
        self._threads = (0.0, 0)  # (when asked, worker threads)
        self._waiting = False  # said that there are no workers

    # ----------------------------------------------------------------- the run
    def run(self, scans: deque, timeout: float) -> Iterator[list[Finished]]:
        """Yield the scans finished since the last look (every POLL_S at most), so the client
        commits them together however many workers finish at once."""
        if not scans:
            return
        from distributed import wait

        client = self.cluster.connect()
        client.subscribe_topic(self.topic, self.events.put)
        while scans or self.tasks:
            finished: list[Finished] = []
            while scans and len(self.tasks) < self._capacity():
                scan = scans.popleft()
                try:
                    self._submit(scan)
                except OSError as exc:  # the file went away or cannot be read since it was listed
                    reason = f"cannot read: {exc.strerror or exc}"
                    finished.append(Finished(failed_record(scan, [], [], reason)))
            try:
                done = wait([t.future for t in self.tasks.values()], timeout=POLL_S,
                            return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
            self._drain_events()
            for future in done:
                ended = self._finish(self.tasks[future.key])
                if ended is not None:
                    del self.tasks[future.key]
                    finished.append(ended)
            now = time.monotonic()
            for task in list(self.tasks.values()):
                if task.started is not None and now - task.started > timeout:
                    stopped = self._time_out(task, timeout)
                    if stopped is not None:
                        finished.append(stopped)
            if finished:
                yield finished

    def _capacity(self) -> int:
        when, threads = self._threads
        if time.monotonic() - when > WORKERS_EVERY_S:
            threads = self.cluster.threads()
            self._threads = (time.monotonic(), threads)
            self._note_when_no_workers(threads)
        return max(1, threads) * IN_FLIGHT_PER_THREAD

    def _note_when_no_workers(self, threads: int) -> None:
        """Say once per spell without workers that the batch waits for them."""
        if threads == 0 and not self._waiting:
            print(f"rubberscan batch: no Dask workers at {self.cluster.spec}: waiting for them "
                  f"(dask worker {self.cluster.spec} --nthreads 1; Ctrl-C stops)", file=sys.stderr)
        self._waiting = threads == 0

    def _submit(self, scan: ScanInput) -> None:
        """Send ``scan`` to the cluster: its bytes, or its absolute path with ``shared_path``."""
        if scan.data is None and scan.path is not None:
            if self.shared_path:
                scan = replace(scan, path=str(Path(scan.path).resolve()))
            else:
                scan = replace(scan, data=Path(scan.path).read_bytes(), path=None)
        key = f"rubberscan-scan-{scan.sha256[:16]}-{uuid.uuid4().hex[:12]}"
        client = self.cluster.connect()
        future = client.submit(read_scan, key, self.topic, scan, self.reader, self.reconciler,
                               self.rules, key=key, pure=False)
        self.tasks[key] = _Task(key=key, scan=scan, future=future)

    def _drain_events(self) -> None:
        """Starts and finished pages the workers told of since the last look."""
        while True:
            try:
                _, msg = self.events.get_nowait()
            except queue.Empty:
                return
            task = self.tasks.get(msg.get("key"))
            if task is None:
                continue
            if msg.get("event") == "start":
                task.starts += 1
                if task.starts == 2:  # its first worker was lost: Dask runs it again
                    self.rerun_lost += 1
            task.worker = msg.get("worker")
            task.started = time.monotonic()

    def _finish(self, task: _Task) -> Finished | None:
        """A task that ended: its record and pictures, or why it failed; None when it is pending
        again -- its result went with its worker before it came here, and Dask computes it again
        (it ends again later)."""
        future = task.future
        if future.status == "finished":
            try:
                record, pictures, rss = future.result(timeout=GATHER_TIMEOUT_S)
            except TimeoutError:
                return None
            future.release()
            return Finished(record, rss, pictures)
        if future.status == "error":
            exc = future.exception()
            if type(exc).__name__ == "KilledWorker":
                reason = "worker process died (every worker that tried it was lost)"
            else:
                reason = f"internal error on the cluster: {type(exc).__name__}: {exc}"
        elif future.status == "cancelled":  # by the cluster, e.g. the scheduler went away
            reason = "worker process died (the cluster dropped the task)"
        else:
            return None
        return Finished(failed_record(task.scan, [], [], reason))

    def _time_out(self, task: _Task, timeout: float) -> Finished | None:
        """Fail ``task`` past its time limit, keeping its finished pages, and end its worker (a
        fresh one takes its place: end_stuck); None when it is no longer running where it started (its
        worker was lost: the clock starts again when it starts elsewhere)."""
        client = self.cluster.connect()
        addr = task.worker
        try:
            running = set(client.processing([addr]).get(addr, ()))
        except KeyError:  # the scheduler no longer knows that worker
            running = set()
        if task.key not in running:
            task.started = None
            return None
        self.tasks.pop(task.key)
        client.cancel([task.future], force=True)
        try:
            partial = client.run(end_stuck, task.key, workers=[addr]).get(addr)
        except Exception:  # noqa: BLE001 - the worker is gone: its pages are read again on a retry
            partial = None
        partial = partial or _Partial()
        reason = f"time limit exceeded ({timeout:g} s per sheet)"
        return Finished(failed_record(task.scan, partial.pages, partial.blank, reason),
                        pictures=partial.pictures)

    def close(self) -> None:
        """Cancel what is still running (Ctrl-C, an error) and leave the cluster."""
        client = self.cluster.client
        if client is not None:
            if self.tasks:
                try:
                    client.cancel([t.future for t in self.tasks.values()], force=True)
                except Exception:  # noqa: BLE001 - a scheduler already gone cancels them itself
                    pass
            try:
                client.unsubscribe_topic(self.topic)
            except (ValueError, Exception):  # noqa: BLE001 - never subscribed, or gone
                pass
        self.tasks = {}
        self.cluster.close()


# --------------------------------------------------------------------------- audit
def reconcile_on_cluster(spec: ClusterSpec, readings: Iterable[tuple[str, dict, list[dict]]],
                         reconciler: Reconciler, rules: dict | None,
                         chunk: int = AUDIT_CHUNK) -> Iterator[tuple[str, dict | None, str | None]]:
    """Re-reconcile stored readings on the cluster, ``chunk`` a task and a few tasks per worker
    thread in flight, yielding (sheet id, result, error) in the order given (so the audit's
    lines come in the order a local audit prints them)."""
    from distributed import as_completed

    cluster = Cluster(spec, warm=False)
    try:
        client = cluster.connect()
        items = iter(readings)
        running = as_completed()
        order: dict[str, int] = {}
        results: dict[int, list] = {}
        submitted = following = 0
        while True:
            while len(order) < max(1, cluster.threads()) * IN_FLIGHT_PER_THREAD:
                batch = [item for _, item in zip(range(chunk), items, strict=False)]
                if not batch:
                    break
                future = client.submit(reconcile_chunk, batch, reconciler, rules, pure=False)
                order[future.key] = submitted
                submitted += 1
                running.add(future)
            if not order:
                return
            future = next(running)
            results[order.pop(future.key)] = future.result()
            future.release()
            while following in results:
                yield from results.pop(following)
                following += 1
    finally:
        cluster.close()
