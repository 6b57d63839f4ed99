"""The draw: the matches of each round (DRAW.csv: ``round,match,pair_a,pair_b,deadline``), and the
seeded random draw of the pairs still in (``rubberscan draw DIR --round N``), avoiding pairs of
one club or area and two Open pairs meeting where it can, with a bye when the number is odd.

Pure logic: parsing, checking, drawing; the ledger keeps the draw (competition/store.py).
"""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass
from datetime import date

from competition.csvin import ID, records
from competition.roster import Pair, Roster
from competition.settings import DrawSettings

COLUMNS = ("round", "match", "pair_a", "pair_b", "deadline")
DRAW = DrawSettings()


class DrawError(ValueError):
    """A draw that cannot be taken as it is; the message names the line and the fix."""


@dataclass(frozen=True)
class Match:
    round: int
    match: str  # e.g. "R1-M3"
    pair_a: str
    pair_b: str | None  # None: pair_a has a bye
    deadline: str | None = None  # ISO date

    @property
    def pairs(self) -> tuple[str, ...]:
        return (self.pair_a,) if self.pair_b is None else (self.pair_a, self.pair_b)

    @property
    def bye(self) -> bool:
        return self.pair_b is None

    def other(self, pair_id: str) -> str | None:
        return self.pair_b if pair_id == self.pair_a else self.pair_a


def match_id(round_no: int, k: int) -> str:
    return f"R{round_no}-M{k}"


def parse_deadline(text: str) -> str | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        return None


def parse_draw(text: str, roster: Roster, source: str = "DRAW.csv") -> list[Match]:
    """The matches in ``text`` (CSV with a header row), checked against ``roster``; raises
    DrawError naming every bad line."""
    lines = records(text, COLUMNS, source, DrawError)
    errors: list[str] = []
    matches: list[Match] = []
    ids: dict[str, int] = {}
    playing: dict[tuple[int, str], str] = {}
    for n, cell in lines:
        where = f"{source}: line {n}"
        if not cell["round"].isdigit() or int(cell["round"]) < 1:
            errors.append(f"{where}: round {cell['round']!r} must be a whole number from 1")
            continue
        rnd = int(cell["round"])
        mid = cell["match"]
        if not ID.match(mid):
            errors.append(f"{where}: match id {mid!r} must be 1-32 letters, digits, '_', '.' or '-'")
            continue
        if mid in ids:
            errors.append(f"{where}: match {mid} is already on line {ids[mid]}")
            continue
        ids[mid] = n
        a, b = cell["pair_a"], cell["pair_b"] or None
        unknown = [p for p in (a, b) if p and p not in roster]
        if not a:
            errors.append(f"{where}: pair_a is empty (a bye leaves pair_b empty)")
            continue
        if unknown:
            errors.append(f"{where}: no pair {', '.join(unknown)} in the pairs file")
            continue
        if a == b:
            errors.append(f"{where}: pair {a} cannot play itself")
            continue
        twice = [f"{p} (also {playing[(rnd, p)]})" for p in (a, b) if p and (rnd, p) in playing]
        if twice:
            errors.append(f"{where}: a pair plays one match a round: {', '.join(twice)}")
            continue
        playing.update({(rnd, p): mid for p in (a, b) if p})
        deadline = parse_deadline(cell["deadline"])
        if cell["deadline"] and deadline is None:
            errors.append(f"{where}: deadline {cell['deadline']!r} must be a date like 2025-06-30")
            continue
        matches.append(Match(rnd, mid, a, b, deadline))
    if errors:
        raise DrawError("\n".join(errors))
    return matches


def draw_csv(matches: list[Match]) -> str:
    """The draw as DRAW.csv text (what parse_draw reads)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for m in matches:
        w.writerow([m.round, m.match, m.pair_a, m.pair_b or "", m.deadline or ""])
    return buf.getvalue()


def pairing_cost(a: Pair, b: Pair, settings: DrawSettings = DRAW) -> float:
    """How much a draw would rather not have ``a`` meet ``b``."""
    cost = 0.0
    if a.area and a.area.strip().lower() == b.area.strip().lower():
        cost += settings.same_area_cost
    if a.category == "Open" and b.category == "Open":
        cost += settings.both_open_cost
    return cost


def make_draw(pairs: list[Pair], round_no: int, seed: int, deadline: str | None = None,
              had_bye: frozenset[str] = frozenset(),
              settings: DrawSettings = DRAW) -> list[Match]:
    """A seeded random draw of ``pairs`` (the pairs still in) for round ``round_no``: the pairs
    shuffled, a bye for one when the number is odd (one that had no bye yet, where it can), then the
    pairing improved by swapping partners between two matches while that lowers the total
    :func:`pairing_cost` -- so the draw stays random among the draws that avoid what it can."""
    if len(pairs) < 2:
        raise DrawError(f"round {round_no}: {len(pairs)} pair(s) still in; a draw needs two or more")
    rng = random.Random(f"{seed}:{round_no}")
    order = sorted(pairs, key=lambda p: p.pair)
    rng.shuffle(order)
    bye: Pair | None = None
    if len(order) % 2:
        fresh = [p for p in order if p.pair not in had_bye]
        bye = (fresh or order)[-1]
        order.remove(bye)
    games = [[order[i], order[i + 1]] for i in range(0, len(order), 2)]
    improved = True
    while improved:
        improved = False
        for i in range(len(games)):
            for j in range(i + 1, len(games)):
                (a, b), (c, d) = games[i], games[j]
                now = pairing_cost(a, b, settings) + pairing_cost(c, d, settings)
                for x, y in (((a, c), (b, d)), ((a, d), (b, c))):
                    if pairing_cost(*x, settings) + pairing_cost(*y, settings) < now - 1e-9:
                        games[i], games[j] = list(x), list(y)
                        improved = True
                        break
                if improved:
                    break
            if improved:
                break
    out = [Match(round_no, match_id(round_no, k), a.pair, b.pair, deadline)
           for k, (a, b) in enumerate(games, start=1)]
    if bye is not None:
        out.append(Match(round_no, match_id(round_no, len(out) + 1), bye.pair, None, deadline))
    return out


def draw_cost(matches: list[Match], roster: Roster, settings: DrawSettings = DRAW) -> float:
    """The total pairing cost of a round's matches (byes cost nothing)."""
    total = 0.0
    for m in matches:
        a, b = roster.get(m.pair_a), roster.get(m.pair_b)
        if a is not None and b is not None:
            total += pairing_cost(a, b, settings)
    return total
