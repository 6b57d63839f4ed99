"""Speed of the scoring core: lookup-table build, the whole-sheet sequence check, one step.

Prints a markdown table.  Sheets are simulated matches (scoring.simulate), so the
figures cover realistic state-set sizes.  CPU time (process_time) is reported next to
wall time because the machine is shared.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from scoring.inverse import ALL_RULES, check_sequence, prepare_tables, step
from scoring.simulate import random_match

SHEETS = 200
REPEATS = 5


def timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def main() -> int:
    wall, cpu = timed(prepare_tables)
    rows = [("lookup tables, built once per process", wall, cpu, 1)]
    sheets = [[(d.ns, d.ew) for d in random_match(random.Random(s)).deals] for s in range(SHEETS)]
    per_sheet_w: list[float] = []
    per_sheet_c: list[float] = []
    for totals in sheets:
        runs = [timed(lambda t=totals: check_sequence(t, ALL_RULES)) for _ in range(REPEATS)]
        per_sheet_w.append(statistics.median(r[0] for r in runs))
        per_sheet_c.append(statistics.median(r[1] for r in runs))
    per_sheet_w.sort()
    per_sheet_c.sort()
    n = len(per_sheet_w)
    rows.append(("check_sequence, 30-deal sheet, median", per_sheet_w[n // 2], per_sheet_c[n // 2], n))
    rows.append(("check_sequence, 30-deal sheet, 90th pct", per_sheet_w[n * 9 // 10],
                 per_sheet_c[n * 9 // 10], n))
    rows.append(("check_sequence, 30-deal sheet, worst", per_sheet_w[-1], per_sheet_c[-1], n))
    # one mid-sheet step from the largest state set (what reconciliation repeats per candidate)
    worst = max(sheets, key=lambda t: max(len(s) for s in check_sequence(t).states))
    states = check_sequence(worst).states
    k = max(range(len(states) - 1), key=lambda i: len(states[i]))
    ns, ew = worst[k + 1]
    runs = [timed(lambda: step(states[k], ns, ew)) for _ in range(20)]
    rows.append((f"step from {len(states[k])} states, median", statistics.median(r[0] for r in runs),
                 statistics.median(r[1] for r in runs), 20))
    # the last deal: its totals may include the unfinished-rubber bonus under any house rule
    lasts = [(check_sequence(t).states[-2], *t[-1]) for t in sheets if len(t) > 1 and check_sequence(t).ok]
    runs = [timed(lambda: [step(s, ns, ew, True, ALL_RULES) for s, ns, ew in lasts]) for _ in range(REPEATS)]
    rows.append((f"step for the last deal (unfinished bonus), mean of {len(lasts)}",
                 statistics.median(r[0] for r in runs) / len(lasts),
                 statistics.median(r[1] for r in runs) / len(lasts), REPEATS * len(lasts)))
    print("| measure | wall ms | cpu ms | runs |")
    print("|---|---:|---:|---:|")
    for name, w, c, count in rows:
        print(f"| {name} | {w * 1000:.2f} | {c * 1000:.2f} | {count} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
