"""Which sheets' flags or review change between two reconciliation settings, on cached readings.

    OMP_NUM_THREADS=1 python -m bench.bench_settings_diff --before decoder.zero_discount=0 \
        [--after decoder.zero_discount=2] READINGS.pkl [READINGS.pkl ...]

READINGS are bench_reader_ablation's cached readings (bench/_work/readings-SEED-COUNT-TAG-*.pkl, any
reader version: both sides reconcile the same readings, without the second look).  Each changed
sheet is listed with its planted mistakes (the generator redrawn from its seed with
bench_mistakes' options), its flags before and after (True: a planted mistake) and its number of
review items; then the totals.
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
from pathlib import Path

from bench.bench_end_to_end import flag_is_planted, flagged_right
from bench.bench_mistakes import sheet_options
from samples.generate import generate_sheet
from scoring.reconcile import ReconcileSettings, reconcile


def settings(spec: list[str]) -> ReconcileSettings:
    return ReconcileSettings().with_values(dict(kv.split("=", 1) for kv in spec))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("readings", nargs="+", type=Path)
    ap.add_argument("--before", action="append", default=[], help="group.field=value")
    ap.add_argument("--after", action="append", default=[], help="group.field=value")
    args = ap.parse_args(argv)
    sides = {"before": settings(args.before), "after": settings(args.after)}
    totals = {name: {"flags": 0, "false": 0, "planted_flagged": 0, "review": 0} for name in sides}
    sheets = changed = planted = 0
    for path in args.readings:
        match = re.search(r"readings-(\d+)-", path.name)
        if match is None:
            print(f"{path}: not a readings file (readings-SEED-...)", file=sys.stderr)
            continue
        with path.open("rb") as fh:
            readings = pickle.load(fh)
        for seed, reading in enumerate(readings, int(match.group(1))):
            if reading is None:
                continue
            sheets += 1
            out = {name: reconcile(reading, settings=s, explain=False).to_json()
                   for name, s in sides.items()}
            truth = generate_sheet(seed, **sheet_options(seed))[1]
            planted += len(truth["mistakes"])
            for name, obj in out.items():
                t = totals[name]
                t["flags"] += len(obj["flags"])
                t["false"] += sum(not flag_is_planted(f, truth) for f in obj["flags"])
                t["planted_flagged"] += sum(flagged_right(m, obj["flags"]) for m in truth["mistakes"])
                t["review"] += len(obj["review"])
            shown = {name: (sorted(map(str, ((f["kind"], f.get("deal"), f.get("side"))
                                             for f in obj["flags"]))),
                            sorted(map(str, ((r.get("deal"), r.get("column")) for r in obj["review"]))))
                     for name, obj in out.items()}
            if shown["before"] != shown["after"]:
                changed += 1
                print(seed, "planted", [(m["detail"], m.get("deal"), m.get("written"), m.get("expected"))
                                        for m in truth["mistakes"]])
                for name, obj in out.items():
                    print(f"  {name}: flags", [(f["kind"], f.get("deal"), f.get("written"), f.get("expected"),
                                               flag_is_planted(f, truth)) for f in obj["flags"]],
                          f"review items {len(obj['review'])}")
    print(f"{sheets} sheets, {planted} planted mistakes, {changed} changed")
    for name, t in totals.items():
        print(f"  {name}: planted flagged {t['planted_flagged']}, flags {t['flags']} "
              f"(not planted {t['false']}), review items {t['review']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
