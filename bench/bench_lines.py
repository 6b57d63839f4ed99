"""Names and winners lines: Tesseract (today's reader, ocr/printed.py in the geometry stage)
against the second reader's line reader (ocr.ppocr.read_line) on generated sheets.

    .venv/bin/python bench/bench_lines.py --count 40 --seed 60000

Each sheet goes through load -> straighten -> find_table; the table's names_ns, names_ew and
winners crops are read by both.  Per reader and hand: lines exactly right (case, spaces and the
separator's spacing ignored), the mean character error rate (edit distance / truth length), and
the second reader's CPU ms per line.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_read import CACHE, cached_sheet  # noqa: E402
from ocr.ppocr import default_reader, read_line  # noqa: E402

FIELDS = ("names_ns", "names_ew", "winners")


def norm(text: str | None) -> str:
    return "".join((text or "").lower().split())


def edits(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def main(argv: list[str]) -> int:
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=60000)
    args = ap.parse_args(argv)
    reader = default_reader()
    if reader is None:
        print("the second reader's model is not installed (make install)", file=sys.stderr)
        return 1
    tally: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, 0.0])  # (reader, group) -> lines, right, cer sum
    cpu: list[float] = []
    for seed in range(args.seed, args.seed + args.count):
        data, truth = cached_sheet(CACHE, seed)
        name = truth["source"]
        table = find_table(straighten(load_pages(name, data=data, name=name)[0]))
        want = {c["key"]: c for c in truth["cells"] if c["key"] in FIELDS}
        crops = {c.key: c.image for c in table.cells if c.key in FIELDS}
        for key, c in want.items():
            if not c["text"].strip():
                continue
            t0 = time.process_time()
            got_second = read_line(crops[key], reader)[0] if key in crops else None
            cpu.append(time.process_time() - t0)
            got = {"tesseract": (table.texts or {}).get(key), "second reader": got_second}
            for who, text in got.items():
                for group in ("all", f"hand={c.get('hand')}", f"field={key}"):
                    t = tally[(who, group)]
                    t[0] += 1
                    t[1] += norm(text) == norm(c["text"])
                    t[2] += min(1.0, edits(norm(text), norm(c["text"])) / max(1, len(norm(c["text"]))))
    print(f"{args.count} sheets from seed {args.seed}\n")
    print("| reader | group | lines | exactly right | mean character error rate |\n|---|---|---|---|---|")
    for (who, group), (n, ok, cer) in sorted(tally.items(), key=lambda kv: (kv[0][1] != "all", kv[0][1], kv[0][0])):
        print(f"| {who} | {group} | {n} | {100 * ok / n:.1f} % | {100 * cer / n:.1f} % |")
    cpu.sort()
    print(f"\nsecond reader: CPU median {1000 * cpu[len(cpu) // 2]:.1f} ms per line")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
