"""What a fresh `rubberscan` process pays before it reads: modules the read path does not need stay
unimported (bench/bench_fresh_read.py measures the whole process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SEED_001 = "3D N 11\n6S E 12 honours 150 EW\n4Hx N 8\n2Hx N 8\n2H N 8\n1NTx E 8\n1NT N 11\n"


def test_read_does_not_import_the_mail_modules(tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((400, 300), 255, np.uint8))
    code = ("import sys, cli; objs = cli.read_sheets(sys.argv[1]); "
            "print(repr(objs[0]['error'])); print(sorted(m for m in ('email', 'mailbox', 'batch.inputs') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(blank)], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert "blank page" in out[0]  # the read path ran
    assert out[1] == "[]"


def test_bench_fresh_read_measures_each_process(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_fresh_read

    deals = tmp_path / "deals.txt"
    deals.write_text(SEED_001)
    out = tmp_path / "runs.json"
    assert bench_fresh_read.main(["--command", "score", "--repeat", "2", "--json", str(out), str(deals)]) == 0
    runs = json.loads(out.read_text())["runs"]
    assert len(runs) == 2
    assert all(r["status"] == 0 and r["cpu"] > 0.05 and r["rss_mb"] > 10 for r in runs)
    assert runs[0]["output"] == runs[1]["output"]  # the same input scores the same


def test_a_rubberscan_process_reads_on_one_core_unless_told_otherwise():
    """cli.main first limits OpenCV's pool and OpenMP (Tesseract) to one thread each, before they
    load: on single files their threads cost ~18 % more CPU for no shorter wall time.  A limit set
    in the environment is kept."""
    import os

    code = ("import os, cli; cli.one_core(); import cv2; "
            "print(cv2.getNumThreads(), os.environ['OMP_THREAD_LIMIT'], os.environ['OMP_NUM_THREADS'])")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_THREAD_LIMIT", "OMP_NUM_THREADS", "OPENCV_FOR_THREADS_NUM")}
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, env=env)
    assert run.stdout.split() == ["1", "1", "1"]
    mine = dict(env, OPENCV_FOR_THREADS_NUM="2", OMP_NUM_THREADS="3")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, env=mine)
    assert run.stdout.split() == ["2", "1", "3"]
