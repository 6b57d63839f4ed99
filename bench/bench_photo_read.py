"""Phone photos through the whole read, photo by photo: bench_photo.py's measures (table found and
cut right, written numbers right after reconciliation, CPU) kept per photo in a JSON file, so that
two trees (before / after) can be compared photo for photo, and bench_photo's table printed.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo_read.py --files DIR --json OUT.json
    OMP_THREAD_LIMIT=1 .venv/bin/python bench/bench_photo_read.py --per-condition 10 --seed 3800000 \
        --span wide --json OUT.json
    .venv/bin/python bench/bench_photo_read.py --compare BEFORE.json AFTER.json

Run it from the tree to measure (``python /path/to/tree/bench/bench_photo_read.py``): it imports
that tree's product and its bench_photo.py.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from cli import one_core  # noqa: E402

one_core()  # one thread for OpenCV and OpenMP, as the product reads (before they load)
sys.path.insert(0, str(ROOT / "bench"))


def measure(args) -> int:
    import bench_photo as bp

    from ocr import tess
    from ocr.settings import GeometrySettings

    if args.files:
        folder = args.files
        truths = sorted(folder.glob("*.truth.json"))
    else:
        folder = ROOT / "bench" / "_work" / "photo" / f"{args.span}-{args.seed}"
        truths = bp.generate(folder, args.per_condition, args.seed, args.span)
    settings = GeometrySettings()
    tess.backend()
    from ocr.ensemble import default_net
    default_net()
    results = []
    t0 = time.time()
    for tp in truths:
        truth = json.loads(tp.read_text())
        r = bp.evaluate(folder / truth["source"], truth, True, settings)
        r["source"] = truth["source"]
        results.append(r)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(bp.report(results, True))
    print(f"\nPeak RSS {rss:.0f} MB (this process, all photos); {len(results)} photos in {time.time() - t0:.0f} s "
          f"wall; tree {ROOT}")
    alone = read_alone([folder / r["source"] for r in results], args.rss_sample)
    if alone:
        print(f"Peak RSS of one `rubberscan read` of a photo ({len(alone)} photos across the set, each in its own "
              f"process): median {sorted(alone)[len(alone) // 2]:.0f} MB, max {max(alone):.0f} MB")
    if args.json:
        args.json.write_text(json.dumps({"rss_mb": rss, "read_alone_rss_mb": alone, "photos": results}, indent=1))
    return 0


# one photo read as a user reads it (the CLI, JSON out, nothing kept), its process's peak memory (kB)
# printed last -- VmHWM, its own address space's: getrusage's ru_maxrss would carry over the bench
# process's size from the fork
_ALONE = ("import io, sys, contextlib; sys.path.insert(0, sys.argv[1]); from cli import main\n"
          "with contextlib.redirect_stdout(io.StringIO()): main(['read', sys.argv[2], '--format', 'json'])\n"
          "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')))")


def read_alone(photos: list[Path], count: int) -> list[float]:
    """Peak RSS (MB) of ``count`` photos, spread evenly over ``photos``, each read by the CLI in a
    process of its own: what the issue's memory target is about (this process holds every photo's
    networks and caches at once)."""
    if count <= 0 or not photos:
        return []
    picks = [photos[round(i * (len(photos) - 1) / max(1, count - 1))] for i in range(min(count, len(photos)))]
    out = []
    for photo in dict.fromkeys(picks):
        done = subprocess.run([sys.executable, "-c", _ALONE, str(ROOT), str(photo)], capture_output=True,
                              text=True, env=dict(os.environ, OMP_THREAD_LIMIT="1", OMP_NUM_THREADS="1"))
        lines = done.stdout.strip().splitlines()
        if done.returncode == 0 and lines and lines[-1].isdigit():
            out.append(int(lines[-1]) / 1024)
        else:
            print(f"{photo.name}: read alone failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return out


def compare(before: Path, after: Path) -> int:
    """Photo for photo: what changed between two runs."""
    a = {r["source"]: r for r in json.loads(before.read_text())["photos"]}
    b = {r["source"]: r for r in json.loads(after.read_text())["photos"]}
    for src in sorted(a):
        x, y = a[src], b.get(src)
        if y is None:
            continue
        if (x["right"], x["numbers_right"], x["found"]) != (y["right"], y["numbers_right"], y["found"]):
            print(f"{src}: right {x['right']}->{y['right']}  numbers {x['numbers_right']}/{x['numbers']}"
                  f" -> {y['numbers_right']}/{y['numbers']}  {x['why'] or x['error'] or ''} -> "
                  f"{y['why'] or y['error'] or ''}")
    both = [s for s in a if s in b and a[s].get("digest") and b[s].get("digest")]
    differ = [s for s in both if a[s]["digest"] != b[s]["digest"]]
    print(f"output digests (readings, confidences, flags, cuts) compared on {len(both)} photos read by both: "
          f"{len(differ)} differ" + (f" ({', '.join(sorted(differ))})" if differ else ""))
    for name, d in (("before", a), ("after", b)):
        rs = [d[s] for s in d if s in a and s in b]
        n, nr = sum(r["numbers"] for r in rs), sum(r["numbers_right"] for r in rs)
        cpus = sorted(r["cpu"] for r in rs if r["cpu"] is not None)
        med = cpus[len(cpus) // 2] if cpus else float("nan")
        print(f"{name}: {len(rs)} photos, found {sum(r['found'] for r in rs)}, right "
              f"{sum(r['right'] for r in rs)}, numbers {nr}/{n} = {100.0 * nr / max(1, n):.1f} %, "
              f"whole-read CPU median {med:.3f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=Path, help="photos with truth in this folder")
    p.add_argument("--per-condition", type=int, default=10)
    p.add_argument("--seed", type=int, default=3800000)
    p.add_argument("--span", choices=("tune", "wide"), default="wide")
    p.add_argument("--json", type=Path, help="write the per-photo results here")
    p.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    p.add_argument("--rss-sample", type=int, default=5,
                   help="photos read again one per process by the CLI, for their own peak memory (0: none)")
    args = p.parse_args(argv)
    return compare(*args.compare) if args.compare else measure(args)


if __name__ == "__main__":
    sys.exit(main())
