"""The worker pool: workers die with the batch however it ends (kill -9, SIGTERM); scans that
timed out or lost their worker are retried on a rerun, a few times, and the summary says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from batch.inputs import collect_inputs
from batch.ledger import LEDGER_NAME, Ledger
from batch.runner import BatchOptions, run_batch
from tests.support import alive, consistent_rows, fake_reader, sheet_bytes, simple_reconciler

ROOT = Path(__file__).resolve().parents[2]
GOOD = consistent_rows([(0, 370), (120, 0)])


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _start_batch(tmp_path: Path) -> tuple[subprocess.Popen, list[int]]:
    """A batch in its own process with two workers: one busy for a minute, one idle."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a-fast.png").write_bytes(sheet_bytes(GOOD))
    (folder / "b-slow.png").write_bytes(b"SLEEP 60")
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]
        from tests.support import fake_reader, simple_reconciler
        from batch.inputs import collect_inputs
        from batch.runner import BatchOptions, run_batch
        s = run_batch(collect_inputs([{str(folder)!r}]),
                      BatchOptions(out_dir={str(tmp_path / 'out')!r}, jobs=2, progress=False),
                      reader=fake_reader, reconciler=simple_reconciler)
        print(s.line(), flush=True)
        sys.exit(130 if s.interrupted else 0)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    ledger = tmp_path / "out" / LEDGER_NAME
    while time.monotonic() < deadline:  # until the fast scan is in and the slow one is being read
        if len(_children(proc.pid)) == 2 and ledger.exists():
            with Ledger(ledger) as led:
                if led.counts()["sheets"] == 1:
                    break
        time.sleep(0.1)
    workers = _children(proc.pid)
    assert len(workers) == 2, workers
    return proc, workers


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def test_workers_die_when_the_batch_is_killed_with_sigkill(tmp_path):
    proc, workers = _start_batch(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert _gone_within(workers, 10) == []
        with Ledger(tmp_path / "out" / LEDGER_NAME, lock=True):  # no stale lock left behind
            pass
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_sigterm_stops_the_batch_like_ctrl_c_keeping_finished_sheets(tmp_path):
    proc, workers = _start_batch(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGTERM)  # what `timeout` sends
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 130 and out.startswith("interrupted: 1 sheets read")
        assert _gone_within(workers, 10) == []
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    with Ledger(tmp_path / "out" / LEDGER_NAME) as led:
        assert led.counts()["sheets"] == 1


def flaky_reader(path, data=None, name=None):
    """Kills its worker on the first try of a file ``FLAKY <marker>``, reads a sheet on the next;
    ``CRASH`` kills its worker every time (tests.support.fake_reader)."""
    raw = Path(path).read_bytes()
    if raw.startswith(b"FLAKY"):
        marker = Path(raw.split()[1].decode())
        if not marker.exists():
            marker.write_text("tried")
            os._exit(9)
        return fake_reader(None, data=sheet_bytes(GOOD), name=name)
    return fake_reader(path, data, name)


def test_reruns_retry_scans_whose_worker_died_up_to_a_limit(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "crash.png").write_bytes(b"CRASH")
    (folder / "flaky.png").write_bytes(b"FLAKY " + str(tmp_path / "marker").encode())
    (folder / "junk.png").write_bytes(b"not a picture")  # fails for good: never retried
    out = tmp_path / "out"

    def run():
        return run_batch(collect_inputs([folder], exclude=[out]),
                         BatchOptions(out_dir=out, jobs=1, progress=False, max_tries=3),
                         reader=flaky_reader, reconciler=simple_reconciler)

    first = run()
    assert (first.sheets, first.failed, first.retried) == (0, 3, 0)
    second = run()  # crash and flaky retried; flaky reads now
    assert (second.sheets, second.failed, second.retried, second.already) == (1, 1, 2, 1)
    assert "2 retried (timed out or worker died before)" in second.line()
    third = run()  # crash: its third try
    assert (third.failed, third.retried, third.already, third.gave_up) == (1, 1, 2, 0)
    fourth = run()  # three tries failed: no more
    assert (fourth.scans, fourth.retried, fourth.already, fourth.gave_up) == (0, 0, 3, 1)
    assert "1 of them timed out or lost their worker on every try, not retried (--force" in fourth.line()
    with Ledger(out / LEDGER_NAME) as led:
        counts = {r.source.rsplit("/", 1)[1]: r.status for r in led.sheets()}
    assert counts == {"crash.png": "failed", "flaky.png": "ok", "junk.png": "failed"}


def test_a_timed_out_scan_is_retried_with_a_longer_limit(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "slow.png").write_bytes(sheet_bytes(GOOD, then_sleep=1.5))  # page 2 takes 1.5 s
    out = tmp_path / "out"

    def run(timeout):
        return run_batch(collect_inputs([folder], exclude=[out]),
                         BatchOptions(out_dir=out, jobs=1, progress=False, timeout=timeout),
                         reader=fake_reader, reconciler=simple_reconciler)

    first = run(0.5)
    assert first.failed == 1 and "time limit exceeded" in first.failures[0]
    second = run(10)
    assert (second.retried, second.failed, second.sheets) == (1, 0, 2)


def test_the_lifeline_watchdog_alone_ends_a_worker_whose_parent_died(tmp_path):
    """The fallback where the kernel's parent-death signal is missing (not Linux): the watchdog
    thread sees the end of the pipe only the parent held open, and ends the worker's group."""
    pidfile = tmp_path / "child.pid"
    script = textwrap.dedent(f"""
        import os, sys, threading, time
        sys.path[:0] = [{str(ROOT)!r}]
        from batch.runner import _watch_lifeline
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: its own group, the parent's end closed, no prctl
            os.setpgid(0, 0)
            os.close(w)
            threading.Thread(target=_watch_lifeline, args=(r,), daemon=True).start()
            open({str(pidfile)!r}, "w").write(str(os.getpid()))
            while True:
                time.sleep(1)
        while not os.path.exists({str(pidfile)!r}):
            time.sleep(0.05)
        time.sleep(0.3)
        os.kill(os.getpid(), 9)  # the parent dies as by kill -9
    """)
    subprocess.run([sys.executable, "-c", script], timeout=30)
    child = int(pidfile.read_text())
    try:
        assert _gone_within([child], 10) == []
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
