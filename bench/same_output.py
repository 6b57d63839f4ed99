"""Does a change of structure change any output?  Every sheet's output, dumped and compared.

    python -m bench.same_output --out bench/_work/after.jsonl.gz
    git archive c6505b2 | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    python -m bench.same_output --tree /tmp/base --out bench/_work/before.jsonl.gz
    python -m bench.same_output --compare bench/_work/before.jsonl.gz bench/_work/after.jsonl.gz
    python -m bench.same_output --compare-batch BEFORE/batch-out AFTER/batch-out

A dump holds, one JSON object per sheet: reconciliation of bench_reconcile.py's 300 synthetic
sheets with each synthetic reader (seed 1; the first 30 with explanations), the real reader's
reading and the reconciled result of bench_end_to_end.py's 60 generated sheets (seeds
70000-70059, with explanations), and `rubberscan read`'s object for each committed sample scan.
``--tree DIR`` dumps with the code of another checkout (run with DIR's modules first on the
path).  ``--compare`` says which sheets differ: readings to the cell, results to the flag, the
timings the reader records in a reading's meta left out.  ``--compare-batch`` compares two
bench_batch.py output folders' sheets/*.json (the stored results, by content hash; the scans' own
folder left out of their source) the same way.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

SYNTH_SHEETS, SYNTH_SEED, MISTAKE_RATE, EXPLAINED = 300, 1, 0.3, 30
E2E_SEED, E2E_COUNT = 70000, 60


def dump(out: Path) -> int:
    """Every sheet's output with the code on the path; returns the number of objects."""
    import cv2

    import cli
    from batch.serial import reading_to_json
    from bench.bench_reconcile import sheet_for
    from ocr.pipeline import read_file
    from samples.generate import generate_sheet
    from scoring.reconcile import reconcile
    from scoring.simulate import random_match
    try:
        from samples.synth import MEASURED, Noise, noisy_reading, written_sheet
    except ImportError:  # a tree from before issue 32: the synthetic reader was in scoring/
        from scoring.recon_synth import MEASURED, Noise, noisy_reading, written_sheet

    cv2.setNumThreads(1)
    items: list[tuple[str, dict]] = []
    for name, noise in (("round3", Noise()), ("measured", MEASURED)):
        rng = random.Random(SYNTH_SEED)  # as bench_reconcile.run draws its sheets
        reconcile(noisy_reading(written_sheet(random_match(random.Random(0)), rng), rng))
        for i in range(SYNTH_SHEETS):
            reading = noisy_reading(sheet_for(i, rng, MISTAKE_RATE, "simulate"), rng, noise)
            result = reconcile(reading, explain=i < EXPLAINED)
            items.append((f"synth-{name}-{i}", result.to_json(with_explanations=i < EXPLAINED)))
    for seed in range(E2E_SEED, E2E_SEED + E2E_COUNT):
        data, _ = generate_sheet(seed)
        outcome = next(iter(read_file(f"sheet-{seed}", data=data, name=f"sheet-{seed}")))
        if not outcome.ok:
            items.append((f"e2e-{seed}", {"error": outcome.error}))
            continue
        items.append((f"e2e-{seed}-reading", reading_to_json(outcome.reading)))
        items.append((f"e2e-{seed}", reconcile(outcome.reading).to_json(with_explanations=True)))
    scans = Path("samples/scans")
    for scan in sorted(p for p in scans.iterdir() if not p.name.endswith(".json")):
        for k, obj in enumerate(cli.read_sheets(str(scan))):
            items.append((f"sample-{scan.name}-{k}", obj))
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt") as fh:
        for key, obj in items:
            fh.write(json.dumps({"key": key, "obj": obj}, ensure_ascii=False) + "\n")
    return len(items)


def load(path: Path) -> dict[str, object]:
    """key -> object of a dump, the reader's timings (meta "*_s") left out."""
    out = {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            item = json.loads(line)
            meta = item["obj"].get("meta") if isinstance(item["obj"], dict) else None
            if isinstance(meta, dict):
                for key in [k for k in meta if k.endswith("_s")]:
                    del meta[key]
            out[item["key"]] = item["obj"]
    return out


def compare(a: dict[str, object], b: dict[str, object]) -> list[str]:
    """Keys whose objects differ, or that only one side has."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def batch_results(folder: Path) -> dict[str, object]:
    """sheet id -> the stored result of a batch folder, its source by file name (the folders of
    two runs may hold the same files in different places)."""
    out = {}
    for path in sorted((folder / "sheets").glob("*.json")):
        obj = json.loads(path.read_text())
        obj["source"] = Path(obj.get("source") or "").name
        out[path.name] = obj
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write a dump here")
    ap.add_argument("--tree", type=Path, help="dump with this checkout's code")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    ap.add_argument("--compare-batch", nargs=2, type=Path, metavar=("A", "B"))
    args = ap.parse_args(argv)
    if args.compare or args.compare_batch:
        a, b = (load(p) for p in args.compare) if args.compare else \
            (batch_results(p) for p in args.compare_batch)
        differ = compare(a, b)
        print(f"{len(a)} and {len(b)} sheets; {len(differ)} differ")
        for key in differ[:20]:
            print(f"  {key}")
        return 1 if differ or len(a) != len(b) else 0
    if args.out is None:
        ap.error("--out, --compare or --compare-batch")
    if args.tree is not None:
        tree = args.tree.resolve()
        env = dict(os.environ, PYTHONPATH=str(tree))
        return subprocess.call([sys.executable, str(Path(__file__).resolve()), "--out",
                                str(args.out.resolve())], cwd=tree, env=env)
    print(f"{dump(args.out)} sheets written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
