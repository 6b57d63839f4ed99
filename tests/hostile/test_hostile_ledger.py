"""The ledger is never discarded: an emptied, damaged or foreign file stops the run untouched;
two runs never work in one folder at once; audit in a read-only folder says so."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import cli
from batch.inputs import collect_inputs
from batch.ledger import (
    LEDGER_NAME,
    SCHEMA_VERSION,
    Ledger,
    LedgerBusy,
    LedgerError,
    LedgerWriteError,
    ScanRecord,
)
from batch.runner import BatchOptions, run_batch
from tests.support import consistent_rows, fake_reader, sheet_bytes, simple_reconciler

ROOT = Path(__file__).resolve().parents[2]


def _batch(folder: Path, out: Path, **kw):
    return run_batch(collect_inputs([folder], exclude=[out]),
                     BatchOptions(out_dir=out, jobs=1, progress=False, **kw),
                     reader=fake_reader, reconciler=simple_reconciler)


@pytest.fixture
def done(tmp_path):
    """A batch folder with one sheet read, and its input folder."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.png").write_bytes(sheet_bytes(consistent_rows([(0, 370), (120, 0)])))
    _batch(folder, tmp_path / "out")
    return folder, tmp_path / "out"


def _all_commands_refuse(folder: Path, out: Path, capsys, said: str) -> None:
    before = (out / LEDGER_NAME).read_bytes()
    assert cli.main(["batch", str(folder), "--out", str(out), "--quiet"]) == cli.ExitCode.USAGE
    assert said in capsys.readouterr().err
    assert cli.main(["audit", str(out)]) == cli.ExitCode.USAGE
    assert said in capsys.readouterr().err
    assert cli.main(["export", str(out)]) == cli.ExitCode.USAGE
    captured = capsys.readouterr()
    assert said in captured.err and "Traceback" not in captured.err
    assert (out / LEDGER_NAME).read_bytes() == before  # untouched, never replaced


def test_an_emptied_ledger_stops_every_command_and_is_kept(done, capsys):
    folder, out = done
    (out / LEDGER_NAME).write_bytes(b"")
    _all_commands_refuse(folder, out, capsys, "the ledger is empty (0 bytes)")


def test_a_damaged_ledger_stops_every_command_and_is_kept(done, capsys):
    folder, out = done
    data = bytearray((out / LEDGER_NAME).read_bytes())
    assert len(data) >= 4 * 4096
    data[2 * 4096:3 * 4096] = os.urandom(4096)  # a page in the middle overwritten, header intact
    (out / LEDGER_NAME).write_bytes(bytes(data))
    _all_commands_refuse(folder, out, capsys, "ledger")


def test_another_sqlite_file_is_not_taken_over(done, capsys):
    folder, out = done
    (out / LEDGER_NAME).unlink()
    db = sqlite3.connect(out / LEDGER_NAME)
    db.execute("CREATE TABLE mine (x)")
    db.commit()
    db.close()
    _all_commands_refuse(folder, out, capsys, "not a rubberscan ledger")
    with sqlite3.connect(out / LEDGER_NAME) as db:
        assert {r[0] for r in db.execute("SELECT name FROM sqlite_master")} == {"mine"}


def test_a_second_batch_in_the_same_folder_stops_with_a_clear_message(done, capsys):
    folder, out = done
    with Ledger(out / LEDGER_NAME, lock=True):  # a batch (or audit) at work in this folder
        for argv in (["batch", str(folder), "--out", str(out), "--quiet", "--force"], ["audit", str(out)]):
            assert cli.main(argv) == cli.ExitCode.USAGE
            err = capsys.readouterr().err
            assert "another rubberscan batch or audit is working in this folder" in err
            assert f"process {os.getpid()}" in err
        assert cli.main(["export", str(out)]) == 0  # reading needs no lock
        capsys.readouterr()
    assert _batch(folder, out, force=True).sheets == 1  # the lock is gone with its holder
    with pytest.raises(LedgerBusy), Ledger(out / LEDGER_NAME, lock=True), \
            Ledger(out / LEDGER_NAME, lock=True):
        pass


def test_the_lock_ends_with_the_batch_even_while_a_forked_worker_lingers(tmp_path):
    """A worker forked while the batch holds the folder lock inherits its descriptor; killed with
    -9, the batch must not leave the folder locked for as long as that worker takes to die."""
    import signal
    import textwrap
    import time

    script = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from batch.ledger import Ledger
        with Ledger(__import__("pathlib").Path({str(tmp_path / LEDGER_NAME)!r}), lock=True):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)  # a worker that has not noticed yet
                os._exit(0)
            print(pid, flush=True)
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker = int(proc.stdout.readline())
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        time.sleep(0.2)
        assert Path(f"/proc/{worker}").exists()  # the worker still lives ...
        with Ledger(tmp_path / LEDGER_NAME, lock=True):  # ... and the folder is free
            pass
    finally:
        os.kill(worker, signal.SIGKILL)


def test_an_old_ledger_is_upgraded_and_its_timeouts_become_retries(tmp_path):
    path = tmp_path / LEDGER_NAME
    with Ledger(path) as led:
        led.record_scan(ScanRecord(sha256="a" * 64, source="slow.png", status="failed",
                                   error="time limit exceeded (60 s per sheet)",
                                   sheets=[_failed_sheet("a", "time limit exceeded (60 s per sheet)")]))
        led.record_scan(ScanRecord(sha256="b" * 64, source="junk.png", status="failed",
                                   error="not an image", sheets=[_failed_sheet("b", "not an image")]))
    with sqlite3.connect(path) as db:  # as version 1 wrote it
        db.execute("ALTER TABLE scans DROP COLUMN retry")
        db.execute("ALTER TABLE scans DROP COLUMN failures")
        db.execute("UPDATE schema_version SET version = 1")
    with Ledger(path, readonly=True) as led:  # reading an old ledger changes nothing
        assert led.counts()["failed"] == 2
    with Ledger(path) as led:
        assert led.scan_retry("a" * 64) == (True, 1) and led.scan_retry("b" * 64) == (False, 1)
        assert led.db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


def _failed_sheet(c: str, error: str):
    from batch.ledger import SheetRecord

    return SheetRecord(sheet_id=f"{c * 12}-p1", page=0, error=error)


def test_a_ledger_that_is_a_folder_is_an_error_not_a_traceback(tmp_path):
    (tmp_path / LEDGER_NAME).mkdir()
    with pytest.raises(LedgerError, match="not a file"):
        Ledger(tmp_path / LEDGER_NAME)


@pytest.fixture
def read_only(tmp_path):
    """make(folder): the folder and everything in it read-only, for root too (root writes through
    permission bits: the immutable attribute, chattr +i, stops it); undone afterwards."""
    made: list[Path] = []
    root = os.geteuid() == 0
    if root and shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: no way to make a folder read-only for root")

    def make(folder: Path) -> None:
        items = [folder, *folder.rglob("*")] if folder.is_dir() else [folder]
        for p in sorted(items, key=lambda p: -len(p.parts)):
            if root:
                subprocess.run(["chattr", "+i", str(p)], check=True, capture_output=True)
            else:
                os.chmod(p, 0o555 if p.is_dir() else 0o444)
            made.append(p)

    yield make
    for p in made:
        if root:
            subprocess.run(["chattr", "-i", str(p)], capture_output=True)
        else:
            os.chmod(p, 0o755 if p.is_dir() else 0o644)


def test_audit_in_a_read_only_folder_is_a_clear_error(done, read_only):
    _, out = done
    before = (out / LEDGER_NAME).read_bytes()
    read_only(out)
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "audit", str(out)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == cli.ExitCode.WRITE_FAILED, proc.stderr
    assert "read-only" in proc.stderr and "Traceback" not in proc.stderr
    assert (out / LEDGER_NAME).read_bytes() == before
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "export", str(out)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("source,page"), proc.stderr  # reading is fine


def test_a_read_only_ledger_stops_the_batch_before_any_reading_with_exit_5(done, read_only, capsys, tmp_path):
    folder, out = done
    (folder / "b.png").write_bytes(b"junk")  # something new to read
    before = (out / LEDGER_NAME).read_bytes()
    read_only(out / LEDGER_NAME)
    calls = tmp_path / "reader-calls"

    def counting_reader(path, data=None, name=None):
        with calls.open("a") as fh:
            fh.write(f"{name}\n")
        return fake_reader(path, data, name)

    with pytest.raises(LedgerWriteError, match="cannot write the ledger"):
        run_batch(collect_inputs([folder], exclude=[out]),
                  BatchOptions(out_dir=out, jobs=1, progress=False, force=True),
                  reader=counting_reader, reconciler=simple_reconciler)
    assert not calls.exists()  # stopped at the start, not after reading everything
    assert cli.main(["batch", str(folder), "--out", str(out), "--quiet"]) == cli.ExitCode.WRITE_FAILED
    err = capsys.readouterr().err
    assert "cannot write the ledger" in err and "Traceback" not in err
    assert (out / LEDGER_NAME).read_bytes() == before


def test_a_new_ledger_appears_whole_never_as_an_empty_file(tmp_path, monkeypatch):
    """A reader polling the folder while a batch starts (an export, the review app, a test) must
    never find a 0-byte or schema-less ledger at the path: it is made aside and linked in."""
    import batch.ledger as ledger_module

    path = tmp_path / LEDGER_NAME
    seen = []
    real_link = os.link

    def link(src, dst):
        seen.append((path.exists(), sqlite3.connect(src).execute(
            "SELECT version FROM schema_version").fetchone()))
        real_link(src, dst)

    monkeypatch.setattr(ledger_module.os, "link", link)
    with Ledger(path) as led:
        assert led.counts()["sheets"] == 0
    assert seen == [(False, (SCHEMA_VERSION,))]  # complete before it had a name
    assert [p.name for p in tmp_path.iterdir()] == [LEDGER_NAME]  # nothing left beside it
