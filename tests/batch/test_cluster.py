"""`batch` and `audit` on a real Dask cluster (worker processes of a LocalCluster): the same
ledger and files as the local pool, the per-sheet time limit, a worker killed mid-run, reruns,
Ctrl-C, the real reader once (its networks loaded once per worker), and clear errors."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster, wait

import cli
from batch.audit import audit
from batch.cluster import (
    LOCAL_LOST_WORKER_TIMEOUT,
    ClusterError,
    ClusterSpec,
    DaskExecutor,
    _Task,
    parse_cluster,
)
from batch.inputs import ScanInput, collect_inputs
from batch.ledger import LEDGER_NAME, Ledger, ReviewChange
from batch.runner import BatchOptions, run_batch
from tests.batch.cluster_support import hold_reader, lost_once, path_reader
from tests.support import SCANS, alive, consistent_rows, fake_reader, sheet_bytes, simple_reconciler

ROOT = Path(__file__).resolve().parents[2]
GOOD = consistent_rows([(0, 370), (120, 0), (0, 60), (530, 0), (0, 0), (90, 100)])
WRONG = [r if r[0:1] != ("S",) else ("S", 0, 60, 120, 440) for r in GOOD]


@pytest.fixture(scope="module")
def local_cluster():
    """A cluster of two worker processes (each under a nanny that replaces it when it dies), as
    `dask scheduler` and `dask worker` would make it; a task is given up (KilledWorker) after it
    killed two workers, not Dask's four, to keep the test short, and each worker is given one
    task at a time (so no task waits on a worker that another task kills); a nanny is never
    closed while it restarts its worker (as for `--cluster local:N`)."""
    config = {"distributed.scheduler.allowed-failures": 1,
              "distributed.scheduler.worker-saturation": 1.0,
              "distributed.deploy.lost-worker-timeout": LOCAL_LOST_WORKER_TIMEOUT}
    with dask.config.set(config), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def scheduler(local_cluster):
    """The module's cluster's address, both workers up and idle: a worker an earlier test ended
    is back (its nanny restarts it) before the next test starts."""
    with Client(local_cluster) as client:
        client.wait_for_workers(2, timeout=60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(client.processing().values()):
            time.sleep(0.1)
    return local_cluster


def run(inputs, out, reader=fake_reader, **kw):
    options = BatchOptions(out_dir=out, progress=False, **kw)
    return run_batch(collect_inputs(inputs, exclude=[out]), options, reader=reader,
                     reconciler=simple_reconciler)


def make_inputs(folder: Path) -> Path:
    folder.mkdir()
    (folder / "a.png").write_bytes(sheet_bytes(GOOD))
    (folder / "b.png").write_bytes(sheet_bytes(WRONG, names=("Ann / Bob", "Cy / Di")))
    (folder / "c.png").write_bytes(sheet_bytes(GOOD, unsure={"2:cum_ns": [[120, 0.6], [170, 0.3]]},
                                               names=("<script>x</script>", "E / W")))
    (folder / "two-sided.pdf").write_bytes(sheet_bytes(GOOD, names=("P", "Q"), then_blank=True))
    (folder / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    return folder


def ledger_dump(out: Path) -> dict:
    """Everything a batch leaves, less when it ran and how long it took: the ledger's rows and
    each file under sheets/ (its bytes' digest; the pages' "processed" line and the readings'
    timings dropped)."""
    db = sqlite3.connect(out / LEDGER_NAME)
    dump = {
        "scans": sorted(db.execute("SELECT sha256, source, name, status, error, retry, failures"
                                   " FROM scans").fetchall(), key=str),
        "sheets": sorted(db.execute("SELECT sh.id, sc.sha256, sh.page, sh.status, sh.error,"
                                    " sh.image, sh.layout FROM sheets sh JOIN scans sc"
                                    " ON sc.id = sh.scan_id").fetchall(), key=str),
        "matches": sorted(db.execute("SELECT * FROM matches").fetchall(), key=str),
        "flags": sorted(db.execute("SELECT * FROM flags").fetchall(), key=str),
        "reviews": sorted(db.execute("SELECT * FROM reviews").fetchall(), key=str),
        "settings": sorted(db.execute("SELECT * FROM settings").fetchall()),
    }
    readings = {}
    for sid, text in db.execute("SELECT sheet_id, reading FROM readings"):
        reading = json.loads(text)
        reading["meta"] = {k: v for k, v in reading["meta"].items() if not k.endswith("_s")}
        readings[sid] = reading
    dump["readings"] = readings
    db.close()
    files = {}
    for path in sorted((out / "sheets").iterdir()):
        data = path.read_bytes()
        if path.suffix == ".html":
            data = b"\n".join(line for line in data.split(b"\n") if b"+00:00</td>" not in line)
        files[path.name] = hashlib.sha256(data).hexdigest()
    dump["files"] = files
    return dump


# --------------------------------------------------------------------------- without a cluster
def test_cluster_addresses_are_parsed_and_bad_ones_named():
    assert parse_cluster("tcp://sched.club.org:8786") == ClusterSpec(address="tcp://sched.club.org:8786")
    assert parse_cluster("tcp://[::1]:8786").address == "tcp://[::1]:8786"
    assert parse_cluster(" local:3 ") == ClusterSpec(local_workers=3)
    for bad in ("local:0", "local:x", "sched:8786", "http://h:1", "tcp://", "tcp://a b:1"):
        with pytest.raises(ClusterError, match="--cluster"):
            parse_cluster(bad)


@pytest.mark.parametrize("argv, message", [
    (["--cluster", "sched:8786"], "expected tcp://HOST:PORT"),
    (["--cluster", "local:2", "--jobs", "2"], "--jobs sets the local pool"),
    (["--shared-path"], "--shared-path needs --cluster"),
])
def test_bad_cluster_options_are_bad_usage(tmp_path, capsys, argv, message):
    (tmp_path / "a.png").write_bytes(b"x")
    assert cli.main(["batch", str(tmp_path / "a.png"), "--out", str(tmp_path / "o"), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_without_the_extra_cluster_names_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if dask[distributed] were absent
    (tmp_path / "a.png").write_bytes(b"x")
    assert cli.main(["batch", str(tmp_path / "a.png"), "--out", str(tmp_path / "o"),
                     "--cluster", "local:2"]) == 2
    assert "pip install 'rubberscan[cluster]'" in capsys.readouterr().err
    assert cli.main(["audit", str(tmp_path), "--cluster", "local:1"]) == 2
    assert "pip install 'rubberscan[cluster]'" in capsys.readouterr().err


def test_a_local_cluster_takes_a_free_port_without_a_warning():
    """Dask's default port 8787 taken (another cluster on the machine): a local cluster says
    nothing about it on stderr (Dask would warn 'Port 8787 is already in use')."""
    import socket
    import warnings

    from batch.cluster import Cluster

    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
    except OSError:
        pass  # taken already: the same case
    cluster = Cluster(ClusterSpec(local_workers=1), warm=False)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cluster.connect()
        assert not [w for w in caught if "already in use" in str(w.message)]
        assert cluster.local.scheduler.http_server.port != 8787
    finally:
        cluster.close()
        taken.close()


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("batch.cluster.CONNECT_TIMEOUT_S", 2.0)
    (tmp_path / "a.png").write_bytes(sheet_bytes(GOOD))
    status = cli.main(["batch", str(tmp_path / "a.png"), "--out", str(tmp_path / "o"),
                       "--cluster", "tcp://127.0.0.1:9", "--quiet"])  # nothing listens on port 9
    assert status == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err


@pytest.mark.slow
def test_a_worker_that_cannot_run_rubberscan_is_named(tmp_path, capsys):
    """A worker whose Python lacks rubberscan (here: its import blocked as the worker starts) is
    named with the install command before any scan is sent, not a failure per scan."""
    blocker = tmp_path / "no_rubberscan.py"
    blocker.write_text("import sys\nsys.modules['batch'] = None  # as if not installed\n")
    (tmp_path / "a.png").write_bytes(sheet_bytes(GOOD))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      preload=[str(blocker)], silence_logs=logging.ERROR) as cluster:
        status = cli.main(["batch", str(tmp_path / "a.png"), "--out", str(tmp_path / "o"),
                           "--cluster", cluster.scheduler_address, "--quiet"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "cannot run rubberscan" in err and "pip install 'rubberscan[cluster]'" in err
    with Ledger(tmp_path / "o" / LEDGER_NAME) as ledger:
        assert ledger.counts()["scans"] == 0  # nothing recorded as failed for it


# --------------------------------------------------------------------------- on a cluster
def test_the_same_ledger_and_files_as_the_local_pool(tmp_path, scheduler):
    inputs = make_inputs(tmp_path / "in")
    here = run([inputs], tmp_path / "local", jobs=2)
    there = run([inputs], tmp_path / "cluster", cluster=scheduler)
    assert (there.sheets, there.flagged, there.review, there.failed, there.blank_pages) == \
        (here.sheets, here.flagged, here.review, here.failed, here.blank_pages) == (4, 1, 1, 1, 1)
    assert sorted(there.failures) == sorted(here.failures)
    local, cluster = ledger_dump(tmp_path / "local"), ledger_dump(tmp_path / "cluster")
    names = cluster["files"]
    # the report's pictures came back, and the review app's straightened scans and cells
    assert sum(n.endswith(".jpg") and not n.endswith(".straight.jpg") for n in names) == 4
    assert sum(n.endswith(".straight.jpg") for n in names) == 4
    assert sum(n.endswith(".cells.png") for n in names) == 4
    assert cluster == local
    assert (tmp_path / "cluster" / "report.html").is_file()


def test_shared_path_workers_open_the_files_themselves(tmp_path, scheduler):
    inputs = make_inputs(tmp_path / "in")
    here = run([inputs], tmp_path / "local", jobs=1)
    there = run([inputs], tmp_path / "cluster", reader=path_reader, cluster=scheduler,
                shared_path=True)
    assert ledger_dump(tmp_path / "cluster") == ledger_dump(tmp_path / "local")
    assert there.failed == here.failed == 1  # corrupt.png alone


@pytest.mark.slow
def test_time_limit_crash_and_rerun_on_a_cluster(tmp_path, scheduler):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ok.png").write_bytes(sheet_bytes(GOOD))
    (folder / "hangs.png").write_bytes(b"SLEEP 600")
    (folder / "crash.png").write_bytes(b"CRASH")  # kills every worker that reads it
    (folder / "slow-page-2.pdf").write_bytes(sheet_bytes(GOOD, then_sleep=10))
    out = tmp_path / "out"
    t0 = time.monotonic()
    first = run([folder], out, cluster=scheduler, timeout=5)  # slack for a loaded machine: a sheet takes ~0.1 s
    assert time.monotonic() - t0 < 300  # the hung and slow scans were not waited for
    assert (first.sheets, first.failed) == (2, 3)
    text = "\n".join(sorted(first.failures))
    assert "crash.png: worker process died" in text
    assert "hangs.png: time limit exceeded (5 s per sheet)" in text
    assert "slow-page-2.pdf page 2: time limit exceeded (5 s per sheet)" in text
    with Ledger(out / LEDGER_NAME) as ledger:
        pages = [(s.page, s.status) for s in ledger.sheets() if s.source.endswith(".pdf")]
    assert pages == [(0, "ok"), (1, "failed")]  # the finished first page is kept
    # a rerun skips what is done and retries what timed out or lost its worker
    (folder / "hangs.png").write_bytes(b"SLEEP 0")  # same name, new content: read anew
    second = run([folder], out, cluster=scheduler, timeout=40)  # page 2's 10 s fit
    assert (second.already, second.retried, second.scans) == (1, 2, 3)
    assert (second.sheets, second.failed) == (2, 2)  # the PDF's two pages; crash and SLEEP 0 fail


def test_a_worker_leaving_as_the_reader_plugin_is_sent_does_not_fail_the_run(tmp_path, scheduler,
                                                                              monkeypatch):
    """A worker restarted after a scan killed it may drop its connection while the client sends the
    reader plugin (CommClosedError, an OSError): the plugin is sent again, the run goes on."""
    from distributed.comm.core import CommClosedError

    real = Client.register_plugin
    sent = []

    def flaky(self, plugin, name=None, **kw):
        sent.append(name)
        if len(sent) == 1:
            raise CommClosedError("in <TCP (closed) ConnectionPool.register_worker_plugin>: Stream is closed")
        return real(self, plugin, name=name, **kw)

    monkeypatch.setattr(Client, "register_plugin", flaky)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ok.png").write_bytes(sheet_bytes(GOOD))
    summary = run([folder], tmp_path / "out", cluster=scheduler, timeout=60)
    assert (summary.sheets, summary.failed) == (1, 0)
    assert len(sent) == 2 and sent[0] == sent[1]


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_nothing(tmp_path, scheduler):
    folder = tmp_path / "in"
    folder.mkdir()
    marker = tmp_path / "held-by.pid"
    (folder / "held.png").write_bytes(b"HOLD " + str(marker).encode())
    for i in range(4):
        (folder / f"s{i}.png").write_bytes(sheet_bytes(GOOD, names=(f"N{i}", "E")))

    def kill_the_holder():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not marker.exists():
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(int(marker.read_text()), signal.SIGKILL)

    killer = threading.Thread(target=kill_the_holder)
    killer.start()
    summary = run([folder], tmp_path / "out", reader=hold_reader, cluster=scheduler, timeout=120)
    killer.join()
    assert (summary.sheets, summary.failed, summary.rerun_lost) == (5, 0, 1)
    assert "1 read again after their worker was lost" in summary.line()
    with Ledger(tmp_path / "out" / LEDGER_NAME) as ledger:
        assert ledger.counts() == {"scans": 5, "sheets": 5, "flagged": 0, "review": 0, "failed": 0}


def test_a_scan_whose_worker_left_is_not_timed_out_before_it_starts_again(tmp_path, scheduler):
    """Its clock ran from its start on a worker now gone: it waits to start elsewhere (the clock
    starts again then), and asking the scheduler about the gone worker is no error."""
    executor = DaskExecutor(parse_cluster(scheduler), fake_reader, simple_reconciler, None,
                            warm=False)
    try:
        client = executor.cluster.connect()
        future = client.submit(time.sleep, 0, pure=False)
        scan = ScanInput(source="a.png", name="a.png", sha256="0" * 64, data=b"x")
        task = _Task(key=future.key, scan=scan, future=future, worker="tcp://127.0.0.1:9",
                     started=time.monotonic() - 100)
        executor.tasks[task.key] = task
        assert executor._time_out(task, 60) is None
        assert task.started is None and task.key in executor.tasks
    finally:
        executor.close()


@pytest.mark.slow
def test_a_result_lost_with_its_worker_is_awaited_not_failed_nor_blocking(tmp_path, scheduler):
    """A task finished, but its worker died before the client fetched the result: the client
    neither fails the scan nor blocks (time limits go on); Dask computes it again."""
    executor = DaskExecutor(parse_cluster(scheduler), fake_reader, simple_reconciler, None,
                            warm=False)
    try:
        client = executor.cluster.connect()
        future = client.submit(lost_once, str(tmp_path / "marker"), 5, pure=False)
        wait([future], timeout=30)
        [holder] = client.who_has([future])[future.key]
        os.kill(client.run(os.getpid, workers=[holder])[holder], signal.SIGKILL)
        scan = ScanInput(source="lost.png", name="lost.png", sha256="0" * 64, data=b"x")
        task = _Task(key=future.key, scan=scan, future=future)
        t0 = time.monotonic()
        assert executor._finish(task) is None  # pending again, not "failed"
        assert time.monotonic() - t0 < 4  # and the client was not held until it is done again
        wait([future], timeout=60)
        ended = executor._finish(task)
        assert ended is not None and ended.record.status == "done"
    finally:
        executor.close()


def test_audit_on_a_cluster_is_the_local_audit(tmp_path, scheduler):
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(5):  # the last deal scored by both sides: flagged under "ahead" (the double)
        scores = [(0, 370), (120, 0), (100 + 10 * i, 100)]
        (folder / f"m{i}.png").write_bytes(sheet_bytes(consistent_rows(scores)))
    run([folder], tmp_path / "local", jobs=1)
    with Ledger(tmp_path / "local" / LEDGER_NAME, lock=True) as ledger:  # a person's say
        sid = ledger.readings()[0][0]
        ledger.write_review(ReviewChange(sid, "to check", decision={
            "kind": "value", "target": "2:ns", "after": 150, "who": "test"}))
    shutil.copytree(tmp_path / "local", tmp_path / "cluster")
    here = audit(tmp_path / "local", unfinished="ahead", reconciler=simple_reconciler)
    there = audit(tmp_path / "cluster", unfinished="ahead", reconciler=simple_reconciler,
                  cluster=scheduler)
    assert (there.sheets, there.changed_sheets, there.errors) == (5, 5, [])
    assert there.changes == here.changes and len(here.changes) == 6
    assert sum("but 0 + 150 = 150" in line for line in there.changes) == 1  # the decision's
    assert ledger_dump(tmp_path / "cluster") == ledger_dump(tmp_path / "local")
    with Ledger(tmp_path / "cluster" / LEDGER_NAME, readonly=True) as ledger:
        result = next(s.result for s in ledger.sheets(sid))
    assert [r["ns"] for r in result["rows"] if r["deal"] == 2] == [150]  # the decision applied


@pytest.mark.slow
def test_sigterm_stops_a_cluster_batch_like_ctrl_c_and_its_workers_end(tmp_path):
    """--cluster local:2 in its own process: SIGTERM (what `timeout` sends; Ctrl-C alike) keeps
    the finished sheet, exits 130, and the worker processes it started end with it."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a-fast.png").write_bytes(sheet_bytes(GOOD))
    (folder / "b-slow.png").write_bytes(b"SLEEP 60")
    out = tmp_path / "out"
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}]
        from tests.support import fake_reader, simple_reconciler
        from batch.inputs import collect_inputs
        from batch.runner import BatchOptions, run_batch
        if __name__ == "__main__":
            s = run_batch(collect_inputs([{str(folder)!r}]),
                          BatchOptions(out_dir={str(out)!r}, cluster="local:2", progress=False),
                          reader=fake_reader, reconciler=simple_reconciler)
            print(s.line(), flush=True)
            sys.exit(130 if s.interrupted else 0)
    """)
    (tmp_path / "batch.py").write_text(script)
    proc = subprocess.Popen([sys.executable, str(tmp_path / "batch.py")], stdout=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (out / LEDGER_NAME).exists():
                with Ledger(out / LEDGER_NAME) as ledger:
                    if ledger.counts()["sheets"] == 1:
                        break
            time.sleep(0.1)
        workers = _children(proc.pid)
        assert len(workers) >= 2  # the two workers (and multiprocessing's resource tracker)
        os.kill(proc.pid, signal.SIGTERM)
        text, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and text.startswith("interrupted: 1 sheets read")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and [p for p in workers if alive(p)]:
        time.sleep(0.1)
    assert [p for p in workers if alive(p)] == []
    with Ledger(out / LEDGER_NAME) as ledger:
        assert ledger.counts()["sheets"] == 1


@pytest.mark.slow
@pytest.mark.skipif(not SCANS.is_dir(), reason="bundled sample scans missing")
def test_the_real_reader_on_a_cluster_reads_the_samples_as_the_local_pool(tmp_path, scheduler,
                                                                          capsys):
    """The committed scans through `rubberscan batch --cluster` and the local pool: the same
    ledger and files; each worker loaded the networks once and read several sheets with them."""
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    assert cli.main(["batch", str(SCANS), "--out", str(local), "--jobs", "2", "--quiet"]) == 0
    assert cli.main(["batch", str(SCANS), "--out", str(cluster), "--cluster", scheduler,
                     "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "8 sheets read" in err and "0 failed" in err
    assert ledger_dump(cluster) == ledger_dump(local)
    with Client(scheduler) as client:
        loads = client.run(_network_loads)
    assert len(loads) == 2 and all(misses == 1 for misses, _ in loads.values()), loads
    assert sum(hits for _, hits in loads.values()) >= 8, loads  # once at least for each sheet


def _network_loads() -> tuple[int, int]:
    """On a worker: (times the networks were loaded, times the loaded ones were reused)."""
    from ocr.ensemble import default_net

    info = default_net.cache_info()
    return info.misses, info.hits


def _children(pid: int) -> list[int]:
    """The child processes of every thread of ``pid`` (Dask starts its workers from a thread)."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out
