"""Batch throughput: sheets per minute and peak memory per worker on generated sheets.

    python -m bench.bench_batch [--count 100] [--jobs 2] [--results bench/RESULTS-batch.md]

Generates ``--count`` filled sheets with samples/generate.py (cached in bench/_work/),
runs the real batch (reader + reconciliation + ledger + report) over them with
``--jobs`` worker processes, and writes the figures with the machine, command and
date to bench/RESULTS-batch.md (what follows its NOTES heading is kept).  Tesseract is limited
to one thread per worker.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTES = "## Notes and earlier runs"
os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before Tesseract is loaded

from batch.inputs import collect_inputs  # noqa: E402
from batch.ledger import LEDGER_NAME, Ledger  # noqa: E402
from batch.runner import BatchOptions, run_batch  # noqa: E402


def generate(folder: Path, count: int, seed: int) -> list[Path]:
    """``count`` generated sheets in ``folder`` (reused when already there).  Generation runs
    in a child process so the batch's parent (and its forked workers) stay small."""
    def existing() -> list[Path]:
        found = []
        for s in range(seed, seed + count):
            hits = [p for p in folder.glob(f"sheet-{s}.*") if not p.name.endswith(".json")]
            found += hits[:1]
        return found

    if len(existing()) < count:
        subprocess.run([sys.executable, str(ROOT / "samples" / "generate.py"), "--out", str(folder),
                        "--count", str(count), "--seed", str(seed)], check=True)
    return existing()


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--results", default=str(ROOT / "bench" / "RESULTS-batch.md"))
    args = ap.parse_args(argv)

    work = ROOT / "bench" / "_work"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    t0 = time.perf_counter()
    paths = generate(work / "batch-sheets", args.count, args.seed)
    gen_s = time.perf_counter() - t0
    out = work / "batch-out"
    shutil.rmtree(out, ignore_errors=True)
    summary = run_batch(collect_inputs(paths), BatchOptions(out_dir=out, jobs=args.jobs,
                                                           timeout=args.timeout, progress=True))
    with Ledger(out / LEDGER_NAME) as ledger:
        counts = ledger.counts()
        pages = ledger.sheets()
        failures = [str(s.error) for s in pages if s.status != "ok"]
    parent_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    per_min = len(pages) / summary.seconds * 60
    lines = [
        "# Batch throughput (bench/bench_batch.py)",
        "",
        f"- date: {datetime.now(timezone.utc).isoformat(timespec='minutes')}",
        f"- machine: {machine()}; load average {load:.1f} when the run started"
        " (the machine is shared with other work)",
        f"- command: `python -m bench.bench_batch --count {args.count} --jobs {args.jobs}`"
        " (OMP_THREAD_LIMIT=1)",
        f"- input: {len(paths)} sheets from samples/generate.py, seeds {args.seed}..{args.seed + args.count - 1}"
        f" (generated in {gen_s:.0f} s, cached in bench/_work/)",
        "",
        "| figure | value |",
        "|---|---|",
        f"| wall time, {len(paths)} files = {len(pages)} sheets (pages; {summary.blank_pages} blank back pages"
        f" skipped), --jobs {args.jobs} |"
        f" {summary.seconds:.1f} s |",
        f"| sheets per minute (every page, read or failed) | {per_min:.1f} |",
        f"| seconds per sheet per worker | {summary.seconds * args.jobs / len(pages):.2f} |",
        f"| peak memory (max RSS) of one worker | {summary.peak_worker_rss_mb:.0f} MiB |",
        f"| peak memory of the parent (ledger, report) | {parent_mb:.0f} MiB |",
        f"| sheets read / flagged / to review / failed | {counts['sheets']} / {counts['flagged']} /"
        f" {counts['review']} / {counts['failed']} |",
        "",
    ]
    if failures:
        lines += ["Failures (first 10):", ""] + [f"- {f}" for f in failures[:10]] + [""]
    text = "\n".join(lines)
    results = Path(args.results)
    old = results.read_text() if results.exists() else ""
    kept = old[old.index(NOTES):] if NOTES in old else ""  # the notes by hand survive a new run
    results.write_text(text + ("\n" + kept if kept else ""))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
