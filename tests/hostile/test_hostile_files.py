"""Files the batch writes: permissions as the umask gives them."""

from __future__ import annotations

import os
import stat

import cli
from batch.atomic import atomic_write_bytes
from batch.inputs import collect_inputs
from batch.runner import BatchOptions, run_batch
from tests.support import consistent_rows, fake_reader, sheet_bytes, simple_reconciler


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_atomic_writes_get_the_umask_permissions_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_bytes(tmp_path / "a.txt", b"x")
        os.umask(0o027)
        atomic_write_bytes(tmp_path / "b.txt", b"x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a.txt") == 0o644
    assert _mode(tmp_path / "b.txt") == 0o640


def test_report_sheets_and_export_are_readable_like_the_ledger(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.png").write_bytes(sheet_bytes(consistent_rows([(0, 370), (120, 0)])))
    out = tmp_path / "out"
    old = os.umask(0o022)
    try:
        run_batch(collect_inputs([folder], exclude=[out]), BatchOptions(out_dir=out, jobs=1, progress=False),
                  reader=fake_reader, reconciler=simple_reconciler)
        assert cli.main(["export", str(out), "--output", str(tmp_path / "season.csv")]) == 0
    finally:
        os.umask(old)
    written = [out / "report.html", tmp_path / "season.csv", *sorted((out / "sheets").iterdir())]
    assert len(written) >= 4  # report, CSV, a sheet's JSON, HTML and picture
    assert {p.name: _mode(p) for p in written} == {p.name: _mode(out / "ledger.sqlite") for p in written}
    assert _mode(out / "ledger.sqlite") == 0o644
