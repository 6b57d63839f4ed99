"""Each sheet to its match: generated competitions of 40 pairs, every match's sheet read by the
real pipeline and matched against the roster and the draw.

    OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 python -m bench.bench_competition \
        [--competitions 6] [--pairs 40] [--seed 2000] [--cache DIR] [--write]

Each competition: a roster (samples/competition.py: 80 players' surnames, near twins among them,
couples, shared surnames; most with addresses; areas), a whole knock-out draw (competition/draw.py;
the winners chosen at random; byes) and, per match, two sheets: one on the plain form with the
names written as players write them (either order, "&", capitals, initials ...), and one on the
match's printed form (`rubberscan form --match`: names printed, QR code).  Scans: the generator's
kinds (clean, skewed, phone photo, fax), the printed forms a third phone photos.  The winners
e-mail it: from a member of the winning pair (80 %), the losing pair (8 %), an address no pair has
(7 %), or it comes from a folder with no sender (5 %).  Eight sheets a competition are from pairs
not in the roster.  The sheets come round by round: each round is drawn when the one before is
over, its sheets are read before the next is drawn, and when one is matched the earlier rounds'
matches have their sheets (competition/run.py counts them); a sheet of no pair comes in round 1.
Measured (competition/assign.py, competition/names.py):

- plain forms: the right match, and the right match with the right pair at N/S, from names and
  sender together, and from the names alone; how many the clues settle (weight >= accept) and how
  many of those are wrong;
- printed forms: the same, QR code and names together;
- winners lines read as the right pair;
- sheets from no pair of the roster: left unmatched, asked about, or wrongly matched;
- CPU per sheet of the clues (QR code, line crops) at read time and of the names recogniser.

``--cache DIR`` keeps each sheet's clues and folded frames, so ``--from-cache`` re-runs only the
matching (for settings); ``--write`` puts the table in bench/RESULTS-competition.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from competition.assign import Matcher, SheetEvidence
from competition.draw import Match, make_draw
from competition.evidence import LinesReader
from competition.ids import qr_payload
from competition.roster import parse_pairs
from competition.settings import MatchingSettings
from ocr.matchform import MatchHeader
from ocr.pipeline import read_file
from samples.competition import jpeg, make_roster, match_sheet, roster_csv, written_names
from samples.content import MORE_SURNAMES, SURNAMES

RESULTS = Path(__file__).resolve().parent / "RESULTS-competition.md"
CODE = "bench7"
UNKNOWN_PER_COMPETITION = 8


def knockout(roster, seed: int) -> list[Match]:
    """A whole knock-out draw, each match's winner at random, until two pairs are left."""
    rng = random.Random(seed)
    pairs, draw, had_bye, rnd = list(roster), [], set(), 1
    while len(pairs) > 2:
        matches = make_draw(pairs, rnd, seed, None, frozenset(had_bye))
        draw += matches
        winners = []
        for m in matches:
            if m.bye:
                had_bye.add(m.pair_a)
                winners.append(m.pair_a)
            else:
                winners.append(rng.choice(m.pairs))
        pairs = [roster.get(p) for p in winners]
        rnd += 1
    return draw


def _sender(rng: random.Random, rows: dict, winner: str, loser: str) -> str | None:
    r = rng.random()
    pick = winner if r < 0.8 else loser if r < 0.88 else None
    if pick is not None and rows[pick]["emails"]:
        return f"Someone <{rng.choice(rows[pick]['emails'].split())}>"
    if r < 0.95:
        return "Club Secretary <secretary@club.example.net>"
    return None


def sheets_of(comp: int, seed: int, n_pairs: int):
    """Yield (kind, truth, image) for every sheet of competition ``comp``."""
    rng = random.Random(seed * 1000 + comp)
    rows = make_roster(rng, n_pairs)
    roster = parse_pairs(roster_csv(rows))
    byid = {r["pair"]: r for r in rows}
    draw = knockout(roster, seed * 1000 + comp)
    k = 0
    for m in draw:
        if m.bye:
            continue
        players = {p: roster.get(p).players for p in m.pairs}
        for kind in ("plain", "printed"):
            k += 1
            sheet_seed = seed * 100000 + comp * 1000 + k
            srng = random.Random(sheet_seed)
            if kind == "plain":
                ns = srng.choice(m.pairs)
                header = None
                scan = None
            else:
                ns = m.pair_a
                header = MatchHeader(qr_payload(CODE, m.match), f"Bench - round {m.round}, "
                                     f"match {m.match}", f"{roster.names(m.pair_a)} v "
                                     f"{roster.names(m.pair_b)}", roster.names(m.pair_a),
                                     roster.names(m.pair_b))
                scan = srng.choice(("photo", "photo", "clean", "skewed", "fax", "photo"))
            ew = m.other(ns)
            names = {"ns": written_names(srng, players[ns]), "ew": written_names(srng, players[ew])}
            side = srng.random() < 0.2  # the winners line says N/S or E/W
            image, t = match_sheet(sheet_seed, names=names, header=header, scan=scan,
                                   winners="side" if side else None)
            winner = ns if t["ahead"] == "ns" else ew
            sender = _sender(srng, byid, winner, m.other(winner))
            yield kind, {"comp": comp, "match": m.match, "ns": ns, "winner": winner,
                         "sender": sender, "names": names, "scan": t["scan"], "hand": t["hand"],
                         "seed": sheet_seed}, image, t
    strangers = [n for n in SURNAMES + MORE_SURNAMES
                 if n not in {p for r in rows for p in r["players"]}]
    for j in range(UNKNOWN_PER_COMPETITION):
        sheet_seed = seed * 100000 + comp * 1000 + 900 + j
        srng = random.Random(sheet_seed)
        a, b, c, d = srng.sample(strangers, 4)
        names = {"ns": f"{a} / {b}", "ew": f"{c} / {d}"}
        image, t = match_sheet(sheet_seed, names=names)
        sender = None if srng.random() < 0.5 else "A Stranger <stranger@example.com>"
        yield "unknown", {"comp": comp, "match": None, "ns": None, "winner": None,
                          "sender": sender, "names": names, "scan": t["scan"], "hand": t["hand"],
                          "seed": sheet_seed}, image, t


def read_sheet(image, truth, t, lines: LinesReader) -> dict:
    """Read one sheet through the pipeline; its clues and folded frames."""
    t0 = time.process_time()
    outcome = next(iter(read_file(None, data=jpeg(image, t["jpeg_quality"]), name="s.jpg")))
    t1 = time.process_time()
    if outcome.error:
        return {**truth, "error": outcome.error, "read_s": t1 - t0}
    clues = outcome.reading.meta.get("clues") or {}
    t2 = time.process_time()
    frames = lines.frames(clues.get("lines") or {})
    t3 = time.process_time()
    return {**truth, "qr": clues.get("qr") or [], "frames": frames,
            "read_s": t1 - t0, "clues_s": outcome.timings.get("clues", 0.0), "frames_s": t3 - t2}


def evaluate(items: list[dict], rosters: dict, draws: dict, settings: MatchingSettings) -> dict:
    out: dict = {}
    for label, kind, use_sender in (("plain, names + sender", "plain", True),
                                    ("plain, names alone", "plain", False),
                                    ("printed, QR + names + sender", "printed", True),
                                    ("unknown pairs", "unknown", True)):
        rows = [x for x in items if x["kind"] == kind]
        stats = {"sheets": len(rows), "match": 0, "match_ns": 0, "settled": 0, "settled_wrong": 0,
                 "none": 0, "review": 0, "unread": 0, "winners": 0, "winners_sure": 0,
                 "winners_sure_wrong": 0, "winners_lines": 0}
        for x in rows:
            if "error" in x:
                stats["unread"] += 1
                continue
            # sheets come round by round: a round is drawn when the one before is over, and its
            # sheets are read before the next is drawn; the earlier rounds' matches have theirs
            # (as competition/run.py counts them, in the order the sheets came)
            rnd = int(x["match"].split("-")[0][1:]) if x["match"] else 1
            drawn = {m.round: f"2025-{m.round:02d}-01" for m in draws[x["comp"]]}
            matcher = Matcher(rosters[x["comp"]], draws[x["comp"]], CODE, settings, drawn)
            ev = SheetEvidence("s", x["sender"] if use_sender else None, x["qr"], x["frames"],
                               read_at=f"2025-{rnd:02d}-15")
            a = matcher.assign(ev, {m.match: 1 for m in draws[x["comp"]] if m.round < rnd})
            right = a.match == x["match"]
            stats["match"] += right
            stats["match_ns"] += right and a.ns == x["ns"]
            if a.decided in ("auto", "none"):
                stats["settled"] += 1
                stats["settled_wrong"] += not (right and a.ns == x["ns"])
            stats["none"] += a.decided == "none"
            stats["review"] += a.decided == "review"
            if x["match"] is not None and use_sender:
                m = next(m for m in draws[x["comp"]] if m.match == x["match"])
                w = matcher.winners(x["frames"].get("winners"), m, x["ns"])
                if w is not None:
                    stats["winners_lines"] += 1
                    stats["winners"] += w["pair"] == x["winner"]
                    if w["weight"] >= settings.winners_sure:
                        stats["winners_sure"] += 1
                        stats["winners_sure_wrong"] += w["pair"] != x["winner"]
        out[label] = stats
    return out


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} % ({a}/{b})" if b else "-"


def table(res: dict, timing: dict, args, n_sheets: int) -> str:
    lines = ["| sheets | right match | right match and N/S | settled by the clues (weight >= "
             "accept) | of those wrong | to review | left unmatched |",
             "|---|---|---|---|---|---|---|"]
    for label, s in res.items():
        n = s["sheets"] - s["unread"]
        lines.append(f"| {label} ({s['sheets']}, {s['unread']} unread) | {_pct(s['match'], n)} | "
                     f"{_pct(s['match_ns'], n)} | {_pct(s['settled'], n)} | "
                     f"{s['settled_wrong']} | {s['review']} | {s['none']} |")
    lines += ["", "| winners lines | read as the right pair | read surely (>= winners_sure) | "
              "of those wrong |", "|---|---|---|---|"]
    for label in ("plain, names + sender", "printed, QR + names + sender"):
        s = res[label]
        lines.append(f"| {label.split(',')[0]} forms | {_pct(s['winners'], s['winners_lines'])} | "
                     f"{_pct(s['winners_sure'], s['winners_lines'])} | {s['winners_sure_wrong']} |")
    lines += ["", f"CPU per sheet, median: reading (load, geometry, reader) {timing['read']:.2f} s, "
              f"of which the clues (QR code, line crops) {1000 * timing['clues']:.0f} ms; the names "
              f"recogniser on the lines (once a sheet, kept in the ledger) {1000 * timing['frames']:.0f}"
              f" ms; matching {1000 * timing['match']:.1f} ms a sheet against a 40-pair roster."]
    return "\n".join(lines)


def save_cache(path: Path, items: list[dict]) -> None:
    path.mkdir(parents=True, exist_ok=True)
    meta = []
    arrays = {}
    for i, x in enumerate(items):
        meta.append({k: v for k, v in x.items() if k != "frames"})
        for f, arr in (x.get("frames") or {}).items():
            arrays[f"{i}:{f}"] = arr
    (path / "sheets.json").write_text(json.dumps(meta))
    np.savez_compressed(path / "frames.npz", **arrays)


def load_cache(path: Path) -> list[dict]:
    meta = json.loads((path / "sheets.json").read_text())
    arrays = np.load(path / "frames.npz")
    for i, x in enumerate(meta):
        x["frames"] = {k.split(":", 1)[1]: arrays[k] for k in arrays.files
                       if k.split(":", 1)[0] == str(i)}
    return meta


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--competitions", type=int, default=6)
    p.add_argument("--pairs", type=int, default=40)
    p.add_argument("--seed", type=int, default=2000)
    p.add_argument("--cache", type=Path, help="keep (or, with --from-cache, take) the clues here")
    p.add_argument("--from-cache", action="store_true")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a MatchingSettings value for this run")
    p.add_argument("--write", action="store_true")
    args = p.parse_args(argv)
    settings = MatchingSettings()
    for item in args.set:
        name, _, value = item.partition("=")
        settings = replace(settings, **{name: float(value)})
    rosters, draws = {}, {}
    for comp in range(args.competitions):
        rows = make_roster(random.Random(args.seed * 1000 + comp), args.pairs)
        rosters[comp] = parse_pairs(roster_csv(rows))
        draws[comp] = knockout(rosters[comp], args.seed * 1000 + comp)
    if args.from_cache:
        items = load_cache(args.cache)
    else:
        lines = LinesReader.default()
        if lines.reader is None:
            sys.exit("the names recogniser is not installed: make install")
        items = []
        t0 = time.time()
        for comp in range(args.competitions):
            for kind, truth, image, t in sheets_of(comp, args.seed, args.pairs):
                items.append({"kind": kind, **read_sheet(image, truth, t, lines)})
                print(f"\r{len(items)} sheets, {time.time() - t0:.0f} s", end="", file=sys.stderr)
        print(file=sys.stderr)
        if args.cache:
            save_cache(args.cache, items)
    t0 = time.process_time()
    res = evaluate(items, rosters, draws, settings)
    n_match = sum(1 for x in items if "error" not in x) * 4
    timing = {"read": statistics.median(x["read_s"] for x in items),
              "clues": statistics.median(x.get("clues_s", 0.0) for x in items if "error" not in x),
              "frames": statistics.median(x.get("frames_s", 0.0) for x in items if "error" not in x),
              "match": (time.process_time() - t0) / max(1, n_match)}
    text = table(res, timing, args, len(items))
    print(text)
    if args.write:
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d")
        cmd = ("OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 python -m bench.bench_competition "
               f"--competitions {args.competitions} --pairs {args.pairs} --seed {args.seed}"
               + "".join(f" --set {s}" for s in args.set))
        head = (f"## Seed {args.seed}: {args.competitions} competitions of {args.pairs} pairs, "
                f"{len(items)} sheets ({stamp})\n\n`{cmd}`\n\nMachine: {platform.machine()}, "
                f"{platform.python_version()}, {platform.system()} {platform.release()}.\n\n")
        old = RESULTS.read_text() if RESULTS.exists() else "# Each sheet to its match\n\n"
        RESULTS.write_text(old.rstrip() + "\n\n" + head + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
