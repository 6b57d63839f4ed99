"""Reconciliation on simulated sheets with reader-like noise and planted mistakes.

    python -m bench.bench_reconcile [--sheets 300] [--mistakes 0.3] [--seed 1] [--source samples]
        [--sure-share 0.7] [--sure-low 0.95] [--p-low 0.6] [--p-high 0.99] [--swap 0.04]
        [--none-listed] [--reader measured] [--write]

Each sheet: a random 30-deal match (scoring.simulate), written by the players with
one planted mistake on ~30 % of sheets (kinds in turn), read by a synthetic reader
(samples.synth.Noise: 70 % of written cells read surely, right value p 0.95-0.99,
the rest 0.6-0.99, as the real reader's reliability table in bench/RESULTS-read.md;
confusable digits, dropped or extra zeros, 4 % top-candidate swaps, 0.4 % right value
missing, 0.3 % unreadable; the noise options change these), half the sheets with a
Total row.  ``--reader measured`` reads them instead as today's reader does, band by band
(samples/synth.MEASURED: 1.8 % of written cells wrong, 0.02 % of those read >= 0.99).
Prints a markdown table; ``--write`` also puts it in bench/RESULTS-reconcile.md, replacing the
section an earlier ``--write`` left there (between WRITTEN_START and WRITTEN_END; at the top if
there is none) and keeping the rest -- the rounds' hand-written history -- as it is.
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import random
import statistics
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from samples.synth import (
    MEASURED,
    MISTAKE_KINDS,
    Noise,
    noisy_reading,
    written_from_content,
    written_sheet,
)
from scoring.reconcile import reconcile
from scoring.reconcile.explain import explain_sheet
from scoring.simulate import random_match

COLUMNS = ("ns", "ew", "cum_ns", "cum_ew")
EXPLAIN_SHEETS = 30  # explanations are timed on the first sheets only (they are slow)


def sheet_for(i: int, rng: random.Random, mistake_rate: float, source: str):
    """The written sheet number ``i``: our simulator + planting, or samples/content.py's."""
    if source == "samples":
        from samples.content import sheet_content

        return written_from_content(sheet_content(rng, "wide" if i % 2 == 0 else "classic", mistake_rate))
    kind = MISTAKE_KINDS[i % len(MISTAKE_KINDS)] if rng.random() < mistake_rate else None
    return written_sheet(random_match(rng), rng, mistake=kind, total_row=i % 2 == 0)


def found_flag(p: dict, flags) -> bool:
    """A planted mistake is found when a flag of its kind is at its deal (any deal for
    winner and total, whose deal the two generators record differently)."""
    return any(f.kind == p["kind"] and (p["kind"] in ("winner", "total") or f.deal == p["deal"])
               for f in flags)


def in_review(p: dict, review) -> bool:
    """A planted mistake left to a person: a review item at its deal (for a Total-row
    mistake, on that side's Total cell, whose review items carry no deal)."""
    if p["kind"] == "total" and any(r.column == "total_" + str(p.get("side")) for r in review):
        return True
    return p.get("deal") is not None and any(r.deal == p["deal"] for r in review)


def run(sheets: int, mistake_rate: float, seed: int, source: str = "simulate",
        noise: Noise | None = None) -> dict:
    rng = random.Random(seed)
    noise = noise or Noise()
    cells = right = exact = 0
    clean = clean_flagged = 0
    planted = found = reported = 0
    per_kind: Counter = Counter()
    per_kind_found: Counter = Counter()
    extra_flags = reviews = 0
    times: list[float] = []  # CPU time: the machine is shared, wall time is noisy
    walls: list[float] = []
    explain_times: list[float] = []
    reconcile(noisy_reading(written_sheet(random_match(random.Random(0)), rng), rng))  # warm tables
    for i in range(sheets):
        written = sheet_for(i, rng, mistake_rate, source)
        reading = noisy_reading(written, rng, noise)
        t0, c0 = time.perf_counter(), time.process_time()
        result = reconcile(reading, explain=False)
        times.append(time.process_time() - c0)
        walls.append(time.perf_counter() - t0)
        ok = True
        for row, w in zip(result.rows, written.rows, strict=False):
            for c in COLUMNS:
                cells += 1
                hit = row.values.get(c) == w[c]
                right += hit
                ok &= hit
            ok &= row.values.get("dealer") == w["dealer"]
        ok &= len(result.rows) == len(written.rows)
        exact += ok
        reviews += len(result.review)
        if i < EXPLAIN_SHEETS:
            c0 = time.process_time()
            explain_sheet(result)
            explain_times.append(time.process_time() - c0)
        if not written.planted:
            clean += 1
            clean_flagged += bool(result.flags)
            continue
        for p in written.planted:
            planted += 1
            per_kind[p["kind"]] += 1
            hit = found_flag(p, result.flags)
            found += hit
            reported += hit or in_review(p, result.review)
            per_kind_found[p["kind"]] += hit
        extra_flags += sum(1 for f in result.flags if not any(found_flag(p, [f]) for p in written.planted))
    return {
        "sheets": sheets, "cells": cells, "numbers_right": right / cells, "exact": exact / sheets,
        "planted": planted, "found": found / max(planted, 1),
        "reported": reported / max(planted, 1), "clean": clean,
        "clean_flagged": clean_flagged / max(clean, 1), "extra_flags": extra_flags,
        "reviews_per_sheet": reviews / sheets,
        "ms_median": statistics.median(times) * 1000, "wall_median": statistics.median(walls) * 1000,
        "explain_median": statistics.median(explain_times) * 1000, "ms_p95": sorted(times)[int(0.95 * len(times))] * 1000,
        "per_kind": {k: (per_kind_found[k], per_kind[k]) for k in sorted(per_kind)},
    }


def table(r: dict) -> str:
    lines = [
        "| measure | result | target |",
        "|---|---|---|",
        f"| written numbers right after reconciliation | {100 * r['numbers_right']:.2f} % of {r['cells']} | ≥ 99.5 % |",
        f"| planted mistakes flagged at the right deal | {100 * r['found']:.1f} % of {r['planted']} | ≥ 98 % |",
        f"| planted mistakes flagged, or in review at their deal (never lost) | {100 * r['reported']:.1f} % | |",
        f"| mistake-free sheets with any flag | {100 * r['clean_flagged']:.1f} % of {r['clean']} | ≤ 2 % |",
        f"| sheets read exactly (all numbers and dealers) | {100 * r['exact']:.1f} % of {r['sheets']} | ≥ 90 % |",
        f"| ms per sheet, median (p95), CPU time | {r['ms_median']:.1f} ({r['ms_p95']:.1f}) | ≤ 50 |",
        f"| ms per sheet, median, wall clock on the shared machine | {r['wall_median']:.1f} | |",
        f"| ms per sheet for the explanations (extra, CPU, median of {EXPLAIN_SHEETS}) | {r['explain_median']:.0f} | |",
        f"| flags on mistake sheets beyond the planted one | {r['extra_flags']} | |",
        f"| review items per sheet | {r['reviews_per_sheet']:.2f} | |",
        "",
        "| planted kind | flagged / planted |",
        "|---|---|",
    ]
    lines += [f"| {k} | {a} / {b} |" for k, (a, b) in r["per_kind"].items()]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=300)
    ap.add_argument("--mistakes", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", choices=("simulate", "samples"), default="simulate",
                    help="sheets from scoring.simulate + our planting, or from samples/content.py")
    ap.add_argument("--write", action="store_true",
                    help="put the table in bench/RESULTS-reconcile.md (its own section; the rest kept)")
    d = Noise()
    ap.add_argument("--sure-share", type=float, default=d.sure_share,
                    help="share of written cells read surely (the reader's reliability table: "
                    "bench/RESULTS-read.md)")
    ap.add_argument("--sure-low", type=float, default=d.sure_low, help="the sure band is [SURE_LOW, P_HIGH]")
    ap.add_argument("--p-low", type=float, default=d.p_low, help="the other cells: [P_LOW, P_HIGH]")
    ap.add_argument("--p-high", type=float, default=d.p_high)
    ap.add_argument("--swap", type=float, default=d.swap,
                    help="share of cells whose top candidate is a confusion (right value second)")
    ap.add_argument("--none-listed", action="store_true",
                    help="list each cell's residual as a (None, p) candidate, as the real reader does")
    ap.add_argument("--reader", choices=("round3", "measured"), default="round3",
                    help="round3: the noise options above (fitted to an early reader, ~4 %% of cells "
                    "read wrong however sure); measured: today's reader's bands as measured "
                    "(samples/synth.MEASURED; the options above then do not apply)")
    args = ap.parse_args(argv)
    noise = MEASURED if args.reader == "measured" else dataclasses.replace(
        d, sure_share=args.sure_share, sure_low=args.sure_low, p_low=args.p_low, p_high=args.p_high,
        swap=args.swap, none_listed=args.none_listed)
    r = run(args.sheets, args.mistakes, args.seed, args.source, noise)
    text = table(r)
    print(text)
    if args.write:
        cmd = "python -m bench.bench_reconcile " + " ".join(argv)
        head = (f"## Synthetic bench, last written by `--write`\n\n"
                f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC\n"
                f"- machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python "
                f"{platform.python_version()}, one core (shared with other jobs)\n- command: `{cmd.strip()}`\n"
                f"- sheets: {args.sheets}, planted-mistake rate {args.mistakes}, seed {args.seed}\n\n")
        path = Path(__file__).resolve().parent / "RESULTS-reconcile.md"
        old = path.read_text() if path.exists() else "# Reconciliation bench\n"
        tmp = path.with_suffix(".md.tmp")
        tmp.write_text(with_written_section(old, head + text + "\n"))
        tmp.replace(path)  # atomic: an interrupted run leaves the old file
    return 0


WRITTEN_START = "<!-- bench_reconcile.py --write: start -->"
WRITTEN_END = "<!-- bench_reconcile.py --write: end -->"


def with_written_section(document: str, section: str) -> str:
    """``document`` with ``section`` between the WRITTEN_START / WRITTEN_END markers, replacing what an
    earlier run put there; without markers, the section goes after the first line (the title)."""
    block = f"{WRITTEN_START}\n{section.rstrip()}\n{WRITTEN_END}"
    start, end = document.find(WRITTEN_START), document.find(WRITTEN_END)
    if start >= 0 and end > start:
        return document[:start] + block + document[end + len(WRITTEN_END):]
    title, _, rest = document.partition("\n")
    return f"{title}\n\n{block}\n\n{rest.lstrip()}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
