"""Readers for the cluster tests, importable by Dask's worker processes (tests.support's fake
reader understands the files; these add what a cluster test needs)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.support import consistent_rows, fake_reader, sheet_bytes

GOOD = consistent_rows([(0, 370), (120, 0), (0, 60)])


def hold_reader(path: str | None, data: bytes | None = None, name: str | None = None):
    """``HOLD <marker>``: on its first try writes its worker's pid to the marker and waits a
    minute (the test kills that worker meanwhile); on any later try (the marker exists) reads a
    good sheet.  Anything else: tests.support.fake_reader."""
    raw = data if data is not None else Path(path).read_bytes()
    if raw.startswith(b"HOLD"):
        marker = Path(raw.split()[1].decode())
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            time.sleep(60)
        return fake_reader(None, data=sheet_bytes(GOOD), name=name)
    return fake_reader(path, data, name)


def path_reader(path: str | None, data: bytes | None = None, name: str | None = None):
    """tests.support.fake_reader, refusing to be sent bytes: with --shared-path a worker must
    open the file itself, by its absolute path."""
    if data is not None or path is None or not os.path.isabs(path):
        raise AssertionError(f"expected an absolute path and no bytes, got {path!r}")
    return fake_reader(path, None, name)


def lost_once(marker: str, seconds: float):
    """A task's result in the shape batch.cluster.read_scan returns: at once the first time
    (the marker is made), after ``seconds`` when computed again."""
    from batch.ledger import ScanRecord

    if Path(marker).exists():
        time.sleep(seconds)
    Path(marker).write_text("done")
    return ScanRecord(sha256="0" * 64, source="lost.png", status="done"), {}, 0
