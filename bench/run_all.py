"""Run every benchmark in bench/ one after another (what `make bench` runs:
`python -m bench.run_all [NAME...]`, each as `python -m bench.bench_NAME`).

Each bench_*.py prints its own markdown table; the figures we quote are collected in
bench/RESULTS.md together with the machine and the command.  Tesseract is limited to
one thread so per-sheet timings mean "one core".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# scripts run more than once, each time with these arguments (the others: once, with none)
RUNS = {"bench_reconcile.py": [[], ["--reader", "measured"]]}


def main(argv: list[str]) -> int:
    only = set(argv)
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        if only and script.stem not in only and script.stem.removeprefix("bench_") not in only:
            continue
        for extra in RUNS.get(script.name, [[]]):
            print(f"\n## {' '.join([script.name, *extra])}\n", flush=True)
            module = f"bench.{script.stem}"
            status = subprocess.call([sys.executable, "-m", module, *extra], env=env,
                                     cwd=HERE.parent)
            if status != 0:
                failed.append(" ".join([script.name, *extra]))
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
