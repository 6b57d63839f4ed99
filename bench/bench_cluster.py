"""Batch on a Dask cluster against the local pool: sheets per minute, the client's cost per sheet,
the ledger's write rate, and a scaling estimate to 8 and 32 worker machines.

    python -m bench.bench_cluster [--count 120] [--runs 3] [--seed 7000]

Generates ``--count`` sheets with samples/generate.py (cached in bench/_work/; seeds no reader or
reconciliation setting was tuned on), then, ``--runs`` times each in turn, runs the real batch
over them in a child process:

- ``pool``: the local pool, ``--jobs 2``;
- ``local:2``: ``--cluster local:2`` (the child starts and ends a LocalCluster of 2 workers);
- ``tcp``: ``--cluster tcp://...`` against a standing cluster this script started once --
  ``dask scheduler`` and ``dask worker --nworkers 2 --nthreads 1``, as on real machines -- so the
  client's own CPU time (the child's) and the scheduler's and workers' (their processes') are
  told apart.

Then it replays the records of the last run into fresh ledgers (the runner's own commit: the
ledger transaction, the pictures, each sheet's JSON and HTML) in groups of 1, 8 and 32 scans (a
cluster's client commits what finished since it last looked), and times the running report over a
ledger of 3,000 sheets.  Every child gets OMP_NUM_THREADS=1 and OMP_THREAD_LIMIT=1 (Dask's workers
get the first anyway).  Writes bench/RESULTS-cluster.md (what follows its NOTES heading is kept).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from bench.bench_batch import generate, machine

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "_work"
NOTES = "## Notes"
MODES = ("pool", "local:2", "tcp")
SMALL = 4  # files of the small run that tells the client's fixed costs (start, connect) apart
GROUPS = (1, 8, 32)
MACHINES = (8, 32)
CORES_PER_MACHINE = 2  # worker machines like this one


# --------------------------------------------------------------------------- one run (child)
def child(mode: str, inputs: str, out: str) -> None:
    """Run the batch in this process and print its figures as JSON (the parent measures it)."""
    from batch.inputs import collect_inputs
    from batch.ledger import LEDGER_NAME, Ledger
    from batch.runner import BatchOptions, run_batch

    cluster = None if mode == "pool" else mode
    options = BatchOptions(out_dir=Path(out), jobs=2 if mode == "pool" else 0, cluster=cluster,
                           timeout=300, progress=False)
    t0 = time.perf_counter()
    summary = run_batch(collect_inputs([inputs]), options)
    wall = time.perf_counter() - t0
    with Ledger(Path(out) / LEDGER_NAME) as ledger:
        pages = len(ledger.sheets())
    me, kids = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                    resource.RUSAGE_CHILDREN))
    print(json.dumps({
        "wall": wall, "pages": pages, "sheets": summary.sheets, "failed": summary.failed,
        "flagged": summary.flagged, "review": summary.review,
        "writing": summary.writing_seconds, "self_cpu": me.ru_utime + me.ru_stime,
        "children_cpu": kids.ru_utime + kids.ru_stime,
        "worker_rss_mb": summary.peak_worker_rss_mb}))


# --------------------------------------------------------------------------- the parent
def env() -> dict:
    return {**os.environ, "OMP_NUM_THREADS": "1", "OMP_THREAD_LIMIT": "1"}


def cpu_of(procs) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except Exception:  # noqa: BLE001 - a process gone between listing and asking
            pass
    return total


class StandingCluster:
    """`dask scheduler` and `dask worker --nworkers 2 --nthreads 1` on this machine's loopback."""

    def __init__(self, work: Path):
        import psutil

        self.file = work / "scheduler.json"
        self.file.unlink(missing_ok=True)
        dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
        self.scheduler = subprocess.Popen(
            [*dask, "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
             str(self.file)], env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not self.file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.address = json.loads(self.file.read_text())["address"]
        self.workers = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(self.file),
             "--nworkers", "2", "--nthreads", "1", "--no-dashboard"], env=env(),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(work))
        from distributed import Client

        with Client(self.address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        self.psutil = psutil

    def cpu(self) -> tuple[float, float]:
        """CPU seconds so far of (the scheduler, every worker process and nanny)."""
        sched = self.psutil.Process(self.scheduler.pid)
        top = self.psutil.Process(self.workers.pid)
        return cpu_of([sched]), cpu_of([top, *top.children(recursive=True)])

    def close(self) -> None:
        for proc in (self.workers, self.scheduler):
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def run_mode(mode: str, inputs: Path, out: Path, standing: StandingCluster | None) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    target = standing.address if mode == "tcp" else mode
    before = standing.cpu() if standing is not None else (0.0, 0.0)
    proc = subprocess.Popen([sys.executable, "-m", "bench.bench_cluster", "--child", target,
                             str(inputs), str(out)], cwd=str(ROOT), env=env(),
                            stdout=subprocess.PIPE, text=True)
    text = proc.communicate()[0]
    if proc.returncode != 0:
        raise SystemExit(f"{mode}: the batch child failed ({proc.returncode})")
    figures = json.loads(text.strip().splitlines()[-1])
    if mode == "tcp":
        after = standing.cpu()
        figures["scheduler_cpu"] = after[0] - before[0]
        figures["workers_cpu"] = after[1] - before[1]
    else:  # the pool's and a LocalCluster's workers are the child's own children
        figures["workers_cpu"] = figures["children_cpu"]
    return figures


def replay_rate(source: Path, group: int, count: int) -> tuple[float, float]:
    """(scans a second through the runner's commit, scans a second through the ledger's
    transaction alone) when ``count`` real records from ``source`` are committed ``group`` at a
    time into a new folder."""
    from batch.ledger import LEDGER_NAME, Ledger
    from batch.runner import WRITER_THREADS, BatchSummary, _commit

    groups = replay_groups(source, group, count)
    rates = []
    for whole in (True, False):
        out = WORK / f"cluster-replay-{group}"
        shutil.rmtree(out, ignore_errors=True)
        (out / "sheets").mkdir(parents=True)
        with Ledger(out / LEDGER_NAME, lock=True) as ledger, \
                ThreadPoolExecutor(WRITER_THREADS) as writer:
            t0 = time.perf_counter()
            for done in groups:
                if whole:
                    _commit(ledger, out, done, None, BatchSummary(), writer)
                else:
                    ledger.record_scans([f.record for f in done])
            rates.append(count / (time.perf_counter() - t0))
        shutil.rmtree(out, ignore_errors=True)
    return rates[0], rates[1]


def replay_groups(source: Path, group: int, count: int) -> list[list]:
    """``count`` scans made of the real sheets in ``source`` (each with its reading, result and
    picture, new ids), ``group`` to a list, as a cluster's executor hands them over."""
    from batch.ledger import LEDGER_NAME, Ledger, ScanRecord, SheetRecord
    from batch.runner import Finished

    with Ledger(source / LEDGER_NAME, readonly=True) as ledger:
        rows = [r for r in ledger.sheets() if r.result is not None and r.image]
        readings = dict(ledger.readings())
    jpegs = {r.image: (source / "sheets" / r.image).read_bytes() for r in rows}
    done = []
    for i in range(count):
        row = rows[i % len(rows)]
        sha = f"{i:064x}"
        sid = f"{sha[:12]}-p1"
        sheet = SheetRecord(sheet_id=sid, page=0, reading=readings[row.sheet_id],
                            result=row.result, image=f"{sid}.jpg", layout=row.layout)
        done.append(Finished(ScanRecord(sha256=sha, source=f"replay/{i}.png", status="done",
                                        sheets=[sheet]), pictures={f"{sid}.jpg": jpegs[row.image]}))
    return [done[i:i + group] for i in range(0, count, group)]


def index_seconds(source: Path, sheets: int) -> float:
    """Seconds to rewrite report.html over a ledger of ``sheets`` real results."""
    from batch import outputs
    from batch.ledger import LEDGER_NAME, Ledger, ScanRecord, SheetRecord

    with Ledger(source / LEDGER_NAME, readonly=True) as ledger:
        rows = [r for r in ledger.sheets() if r.result is not None]
    out = WORK / "cluster-index"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with Ledger(out / LEDGER_NAME) as ledger:
        for start in range(0, sheets, 500):
            ledger.record_scans([ScanRecord(
                sha256=f"{i:064x}", source=f"index/{i}.png", status="done",
                sheets=[SheetRecord(sheet_id=f"{i:012x}-p1", page=0, reading={"rows": []},
                                    result=rows[i % len(rows)].result)])
                for i in range(start, min(sheets, start + 500))])
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            outputs.write_index(out, ledger)
            times.append(time.perf_counter() - t0)
    shutil.rmtree(out, ignore_errors=True)
    return statistics.median(times)


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares a + b * group for the seconds a group of commits takes."""
    xs, ys = [g for g, _ in points], [g / rate for g, rate in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / \
        sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--replay", type=int, default=256, help="records replayed per group size")
    ap.add_argument("--results", default=str(ROOT / "bench" / "RESULTS-cluster.md"))
    ap.add_argument("--child", nargs=3, metavar=("MODE", "INPUTS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0

    load = os.getloadavg()[0]
    sheets_dir = WORK / "cluster-sheets"
    paths = generate(sheets_dir, args.count, args.seed)
    inputs, small = WORK / "cluster-inputs", WORK / "cluster-inputs-small"  # no truth files
    for folder, files in ((inputs, paths), (small, paths[:SMALL])):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for p in files:
            os.link(p, folder / p.name)
    standing = StandingCluster(WORK)
    runs: dict[str, list[dict]] = {m: [] for m in (*MODES, "tcp-small")}
    try:
        for r in range(args.runs):
            for mode in MODES[r % len(MODES):] + MODES[:r % len(MODES)]:  # rotate the order
                figures = run_mode(mode, inputs, WORK / f"cluster-out-{mode.replace(':', '')}",
                                   standing)
                runs[mode].append(figures)
                print(mode, json.dumps(figures), flush=True)
            figures = run_mode("tcp", small, WORK / "cluster-out-small", standing)
            runs["tcp-small"].append(figures)
            print("tcp-small", json.dumps(figures), flush=True)
    finally:
        standing.close()
    load_end = os.getloadavg()[0]

    source = WORK / "cluster-out-tcp"
    replay = {g: replay_rate(source, g, args.replay) for g in GROUPS}
    a, b = fit([(g, rate) for g, (rate, _) in replay.items()])
    index_3000 = index_seconds(source, 3000)

    def med(mode: str, key: str) -> float:
        return statistics.median(f[key] for f in runs[mode])

    pages = runs["pool"][0]["pages"]
    per_min = {m: statistics.median(f["pages"] / f["wall"] * 60 for f in runs[m]) for m in MODES}
    worker_cpu = {m: statistics.median(f["workers_cpu"] / f["pages"] for f in runs[m])
                  for m in MODES}
    def marginal(key: str) -> float:
        """The cost of one more sheet: (big run - small run) / (their difference in sheets),
        paired run by run; start-up, connecting and the final report fall out."""
        return statistics.median((big[key] - little[key]) / (big["pages"] - little["pages"])
                                 for big, little in zip(runs["tcp"], runs["tcp-small"],
                                                        strict=True))

    client_cpu, writing, sched_cpu = (marginal(k) for k in ("self_cpu", "writing",
                                                            "scheduler_cpu"))
    fixed_cpu = statistics.median(f["self_cpu"] for f in runs["tcp-small"])
    c = worker_cpu["tcp"]
    commit_max = 1 / b if b > 0 else float("inf")

    lines = [
        "# Batch on a Dask cluster (bench/bench_cluster.py)",
        "",
        f"- date: {datetime.now(timezone.utc).isoformat(timespec='minutes')}",
        f"- machine: {machine()}; load average {load:.1f} at the start, {load_end:.1f} at the end"
        " (the machine is shared with other work: wall times are slower than alone, CPU seconds"
        " less so)",
        f"- command: `python -m bench.bench_cluster --count {args.count} --runs {args.runs}"
        f" --seed {args.seed}`",
        f"- input: {len(paths)} files from samples/generate.py, seeds {args.seed}.."
        f"{args.seed + args.count - 1} = {pages} sheets (pages); median of {args.runs} runs of"
        " each mode, the order rotated between runs",
        "",
        "| mode | sheets/min | worker CPU s/sheet | runs (sheets/min) |",
        "|---|---|---|---|",
    ]
    names = {"pool": "local pool, --jobs 2", "local:2": "--cluster local:2 (starts its cluster)",
             "tcp": "--cluster tcp://... (a standing scheduler + 2 workers)"}
    for m in MODES:
        each = ", ".join(f"{f['pages'] / f['wall'] * 60:.0f}" for f in runs[m])
        lines.append(f"| {names[m]} | {per_min[m]:.1f} | {worker_cpu[m]:.2f} | {each} |")
    last = runs["tcp"][-1]
    lines += [
        "",
        f"Sheets read / flagged / to review / failed (every run alike): {last['sheets']} /"
        f" {last['flagged']} / {last['review']} / {last['failed']}.",
        "",
        "The client (the `rubberscan batch` process, on a standing cluster), per sheet the"
        f" difference between the {pages}-sheet runs and runs of the first {SMALL} files:",
        "",
        "| figure | value |",
        "|---|---|",
        f"| client CPU per sheet (sending the bytes, taking results, ledger, files) |"
        f" {client_cpu * 1000:.1f} ms |",
        f"| client wall time writing per sheet (ledger, pictures, sheet files, report) |"
        f" {writing * 1000:.1f} ms |",
        f"| scheduler CPU per sheet (its idle heartbeats over the run included) |"
        f" {sched_cpu * 1000:.1f} ms |",
        f"| client CPU once per run (start, plan, connect, final report; {SMALL} sheets) |"
        f" {fixed_cpu:.1f} s |",
        "",
        f"The ledger's write rate (the runner's commit of {args.replay} real records a size, into"
        " a new folder on this machine's disk):",
        "",
        "| scans committed together | scans/s, all of the commit | scans/s, ledger"
        " transaction alone |",
        "|---|---|---|",
    ]
    for g, (rate, ledger_rate) in replay.items():
        lines.append(f"| {g} | {rate:.0f} | {ledger_rate:.0f} |")
    lines += [
        "",
        f"Fitted: a commit of G scans takes {a * 1000:.0f} ms + {b * 1000:.1f} ms x G, so the"
        f" client commits at most ~{commit_max:.0f} scans/s however large the groups; the running"
        f" report over 3,000 sheets takes {index_3000:.2f} s to write (rewritten at most every"
        " 2 s and at most 10 % of the time: with a season's tens of thousands of sheets it is"
        " rewritten less often, not a cost per sheet).",
        "",
        f"## Scaling estimate ({CORES_PER_MACHINE}-core worker machines like this one)",
        "",
        f"From the measured worker CPU per sheet ({c:.2f} s), the client's CPU per sheet"
        f" ({client_cpu * 1000:.1f} ms), the scheduler's ({sched_cpu * 1000:.1f} ms) and the"
        f" client's commit ({a * 1000:.0f} ms + {b * 1000:.1f} ms a scan; at a rate r the client"
        " commits what finished in its 0.2 s look, r x 0.2 scans at a time):",
        "",
        "| worker machines | sheets/s the workers read | sheets/hour | client CPU busy |"
        " commit time busy | scheduler CPU busy | limit |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in MACHINES:
        rate = m * CORES_PER_MACHINE / c
        group = max(1.0, rate * 0.2)
        commit_busy = rate * (a / group + b)
        busy = {"client CPU": rate * client_cpu, "commit": commit_busy,
                "scheduler": rate * sched_cpu}
        limit = max(busy, key=busy.get)
        verdict = "the workers" if max(busy.values()) < 0.7 else limit
        lines.append(f"| {m} | {rate:.0f} | {rate * 3600:,.0f} | {busy['client CPU']:.0%} |"
                     f" {commit_busy:.0%} | {busy['scheduler']:.0%} | {verdict} |")
    lines += [
        "",
        "A share near or above 100 % would make that part the bottleneck; below ~70 % the workers"
        " are (more machines, more sheets per second).",
        "",
    ]
    text = "\n".join(lines)
    results = Path(args.results)
    old = results.read_text() if results.exists() else ""
    kept = old[old.index(NOTES):] if NOTES in old else ""
    results.write_text(text + ("\n" + kept if kept else ""))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
