"""Who is still in, who went out where, and the recognition seed 000 asks for: the best Junior
(Jnr/Jnr) and Intermediate (Int/Jnr or Int/Int) pairs that do not make it to the top two.

A knock-out ranks the pairs it put out by how far they went: the round they lost in (later is
better), then how narrowly (the losing margin, smaller is better), then their total in that match.
The top two are the last two pairs left in.  Pure logic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from competition.draw import Match
from competition.results import MatchResult
from competition.roster import Roster

DECIDED = ("verified", "flags")  # a result that stands (flags are the players' own slips)


@dataclass
class PairRecord:
    pair: str
    names: str
    category: str
    won: int = 0  # matches won (byes included)
    lost_round: int | None = None  # the round it went out in; None while still in
    lost_margin: int | None = None
    lost_total: int | None = None
    still_in: bool = True
    top_two: bool = False
    matches: list[str] = field(default_factory=list)

    def rank_key(self) -> tuple:
        return (-(self.lost_round or 10**6), self.lost_margin if self.lost_margin is not None else -1,
                -(self.lost_total or 0), self.pair)


@dataclass
class Standings:
    pairs: list[PairRecord]  # every pair, in the order of the rank (still in first)
    still_in: list[str]
    top_two: list[str]  # set once a complete round leaves two pairs or fewer
    complete_round: int  # the last round whose every match has a result that stands (0: none)
    rounds: int  # rounds in the draw
    best: dict[str, list[PairRecord]]  # "Junior" / "Intermediate" -> pairs out of the top two, best first


def standings(roster: Roster, draw: list[Match], results: list[MatchResult]) -> Standings:
    by_match = {r.match: r for r in results}
    recs = {p.pair: PairRecord(p.pair, p.names, p.category) for p in roster}
    rounds = sorted({m.round for m in draw})
    entered = {p for m in draw for p in m.pairs}
    complete = 0
    top_two: list[str] = []
    for rnd in rounds:
        ms = [m for m in draw if m.round == rnd]
        done = True
        for m in ms:
            r = by_match.get(m.match)
            for p in m.pairs:
                if p in recs:
                    recs[p].matches.append(m.match)
            if r is None or r.status not in DECIDED or r.winner is None:
                done = False
                continue
            if r.winner in recs:
                recs[r.winner].won += 1
            loser = m.other(r.winner)
            if loser in recs:
                rec = recs[loser]
                rec.still_in, rec.lost_round, rec.lost_margin = False, rnd, r.margin
                rec.lost_total = (r.totals or {}).get(loser)
        if done and complete == rnd - 1:
            complete = rnd
            left = [p for p in entered if recs[p].still_in]
            if len(left) <= 2 and not top_two:  # the knock-out's last two (a final played after
                top_two = sorted(left)  # it, in an imported draw, changes nothing)
    for p, rec in recs.items():
        if draw and p not in entered:  # never drawn: not in the competition's knock-out
            rec.still_in = False
    still_in = [p for p, rec in recs.items() if rec.still_in]
    for p in top_two:
        recs[p].top_two = True
    ordered = sorted(recs.values(), key=PairRecord.rank_key)
    best = {cat: [r for r in ordered if r.category == cat and not r.top_two and r.pair in entered]
            for cat in ("Junior", "Intermediate")}
    return Standings(ordered, still_in, top_two, complete, len(rounds), best)
