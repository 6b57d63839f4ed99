"""What one `rubberscan read` (or `score`) costs as its own process: CPU (the child's user + sys) and
peak RSS of N fresh processes per input, median and max -- what an outside check timing one read
per photo or scan sees, fixed per-process costs (imports, tables, network sessions) included.

    nice -n 10 .venv/bin/python bench/bench_fresh_read.py \
        --repeat 3 bench/_work/photo/scene3d-16000/photo3d-1600[0-4].jpg samples/scans/01.png
    .venv/bin/python bench/bench_fresh_read.py --command score --repeat 5 FILE.txt
    .venv/bin/python bench/bench_fresh_read.py --tree /tmp/other-tree --json OUT.json PHOTO...

``--tree``: run that tree's cli.py (with this Python), to compare two trees on the same inputs;
``--json``: each process's figures and its output's SHA-256 (the same reading: the same digest).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from cli import THREAD_LIMITS  # noqa: E402


def run_once(tree: Path, command: str, path: str, extra: list[str]) -> dict:
    """One fresh process: its CPU seconds, peak RSS (MB), exit status and output digest."""
    # the environment as a user's (the product limits its own threads: cli.one_core); a tree from
    # before that change reads with OpenCV's and OpenMP's default threads, as its users saw
    env = {k: v for k, v in os.environ.items() if k not in THREAD_LIMITS}
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(tree / "cli.py"), command, *extra, path], cwd=tree,
                                stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        digest = hashlib.sha256(out.read()).hexdigest()[:16]
    return {"input": path, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
            "wall": wall, "status": os.waitstatus_to_exitcode(status), "output": digest}


def summary(rows: list[dict]) -> str:
    cpu = [r["cpu"] for r in rows]
    rss = [r["rss_mb"] for r in rows]
    return (f"{len(rows)} processes: CPU median {statistics.median(cpu):.3f} s, max {max(cpu):.3f} s; "
            f"peak RSS median {statistics.median(rss):.0f} MB, max {max(rss):.0f} MB")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("inputs", nargs="+", help="photos or scans (score: deal notation files)")
    p.add_argument("--command", choices=("read", "score"), default="read")
    p.add_argument("--repeat", type=int, default=3, help="fresh processes per input")
    p.add_argument("--tree", type=Path, default=ROOT, help="the tree whose cli.py to run")
    p.add_argument("--json", type=Path, help="write every process's figures here")
    args = p.parse_args(argv)
    extra = ["--format", "json"] if args.command == "read" else []
    rows = []
    for path in args.inputs:
        mine = [run_once(args.tree.resolve(), args.command, str(Path(path).resolve()), extra)
                for _ in range(args.repeat)]
        digests = sorted({r["output"] for r in mine})
        cpus = " ".join(f"{r['cpu']:.2f}" for r in mine)
        rss = " ".join(f"{r['rss_mb']:.0f}" for r in mine)
        print(f"{Path(path).name}: CPU {cpus} s; peak RSS {rss} MB; exit {mine[0]['status']}; "
              f"output {','.join(digests)}", flush=True)
        rows += mine
    print(summary(rows))
    per_input = [statistics.median(r["cpu"] for r in rows if r["input"] == i) for i in {r["input"] for r in rows}]
    print(f"median over inputs of each input's median CPU: {statistics.median(per_input):.3f} s; tree {args.tree.resolve()}")
    if args.json:
        args.json.write_text(json.dumps({"tree": str(args.tree.resolve()), "command": args.command, "runs": rows},
                                        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
