"""rubberscan command line: wires the stages together, nothing more.

    rubberscan read   [--format json|jsonl|csv] PATH...     read sheets (CONTRACT.md)
    rubberscan score  [--format json|text] FILE|-           score a rubber from deal notation
    rubberscan form   [OUT.pdf]                              the blank summary sheet to print
    rubberscan batch  INPUT... --out DIR                     the organiser's batch run
    rubberscan audit  DIR                                    re-reconcile a batch's stored readings
    rubberscan export DIR --format csv                       one row per match
    rubberscan demo                                          what `make demo` runs
"""

from __future__ import annotations

import argparse
import sys

EXIT_OK = 0
EXIT_USAGE = 2


# --------------------------------------------------------------------------- score
def add_score_parser(sub) -> None:
    p = sub.add_parser("score", help="score a rubber-bridge match from deal notation")
    p.add_argument("file", help="deal notation file, or - for standard input")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.add_argument("--unfinished", action="store_true",
                   help="add the unfinished-rubber bonus to the last deal")
    p.set_defaults(func=cmd_score)


def cmd_score(args) -> int:
    raise SystemExit("rubberscan score: not built yet")


# --------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rubberscan", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_score_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
