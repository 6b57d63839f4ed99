"""Each match of the draw from the sheets matched to it: totals per pair, winner, margin, status
(CONTRACT.md: verified, flags, review, missing, overdue, tie) and the sheets it rests on.

A tie is played on two deals at a time (seed 000): the deals after 30 come on the same sheet (rows
past 30, when the reader has them) or on a second sheet of the match, whose cumulatives either go
on from the first sheet's totals or start again from nothing; both are counted.  The winners line
read against the two pairs' names (competition/assign.py) is checked against the final totals: a
line naming the losers is a flag of kind "winner", as reconciliation's are, and takes the place of
reconciliation's own winners verdicts on a line read surely.

Pure logic: sheets' results, assignments and the draw in, plain records out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from competition.assign import Assignment
from competition.draw import Match
from competition.roster import Roster
from competition.settings import MatchingSettings
from scoring.formspec import DEALS

STATUSES = ("verified", "flags", "review", "missing", "overdue", "tie")
# A sheet with at most this many deal rows is the extra deals of a tie, not a match's sheet.
EXTRA_DEALS_MAX = 12
MATCHING = MatchingSettings()


@dataclass
class SheetInfo:
    """One sheet read (a ledger row, as plain data)."""

    sheet_id: str
    label: str  # its source as the organiser knows it ("week3.mbox #2 > scan.jpg", "(page 2)")
    date: str | None  # when it was sent (or processed)
    result: dict  # the CONTRACT.md object


@dataclass
class MatchResult:
    round: int
    match: str
    pairs: tuple[str, ...]
    ns: str | None = None
    totals: dict[str, int] | None = None
    winner: str | None = None
    margin: int | None = None
    status: str = "missing"
    sheets: list[str] = field(default_factory=list)  # labels
    sheet_ids: list[str] = field(default_factory=list)
    deadline: str | None = None
    deals: int = 0  # deals counted, extra deals of a tie included
    flags: list[dict] = field(default_factory=list)  # the sheets' flags and the winners line's
    notes: list[str] = field(default_factory=list)  # why it is in review, what was combined
    winners_line: dict | None = None  # {"pair", "weight", "read"}

    @property
    def bye(self) -> bool:
        return len(self.pairs) == 1

    def to_json(self) -> dict:
        """Exactly CONTRACT.md's keys."""
        return {"round": self.round, "match": self.match, "pairs": list(self.pairs), "ns": self.ns,
                "totals": dict(self.totals) if self.totals is not None else None,
                "winner": self.winner, "margin": self.margin, "status": self.status,
                "sheets": list(self.sheets)}


def _pair_totals(result: dict, ns: str, ew: str) -> dict[str, int] | None:
    totals = result.get("totals") or {}
    tn, te = totals.get("ns"), totals.get("ew")
    if not isinstance(tn, int) or not isinstance(te, int):
        return None
    return {ns: tn, ew: te}


def _rows(result: dict) -> list[dict]:
    return [r for r in result.get("rows") or [] if isinstance(r.get("deal"), int)]


def _continues(extra: dict, ns: str, ew: str, before: dict[str, int]) -> bool:
    """Do the extra sheet's cumulatives go on from ``before`` (the totals so far)?"""
    rows = _rows(extra)
    if not rows:
        return False
    first = rows[0]
    pairs = {"ns": ns, "ew": ew}
    for side, pair in pairs.items():
        cum, score = first.get(f"cum_{side}"), first.get(side)
        if not isinstance(cum, int) or not isinstance(score, int) or cum != before[pair] + score:
            return False
    return True


def _adds_up(result: dict, before: dict[str, int] | None) -> bool:
    """Does every cumulative of a sheet of extra deals add up, from ``before`` (going on) or from
    nothing?  Then a nought in it is sure: the arithmetic says so."""
    rows = _rows(result)
    for side in ("ns", "ew"):
        run = before[side] if before is not None else 0
        for r in rows:
            score, cum = r.get(side), r.get(f"cum_{side}")
            if not isinstance(score, int) or not isinstance(cum, int) or cum != run + score:
                return False
            run = cum
    return bool(rows)


def match_results(draw: list[Match], roster: Roster, sheets: dict[str, SheetInfo],
                  assignments: dict[str, Assignment], today: date,
                  settings: MatchingSettings = MATCHING) -> list[MatchResult]:
    """One result per match of the draw, in draw order."""
    taken: dict[str, list[Assignment]] = {}
    for a in assignments.values():
        if a.match is not None and a.sheet_id in sheets and a.decided in ("auto", "organiser", "review"):
            taken.setdefault(a.match, []).append(a)
    return [_one(m, taken.get(m.match, []), sheets, roster, today, settings) for m in draw]


def _one(m: Match, assigned: list[Assignment], sheets: dict[str, SheetInfo], roster: Roster,
         today: date, settings: MatchingSettings) -> MatchResult:
    out = MatchResult(m.round, m.match, m.pairs, deadline=m.deadline)
    if m.bye:
        out.winner, out.status = m.pair_a, "verified"
        out.notes.append("a bye")
        return out
    assigned = sorted(assigned, key=lambda a: (sheets[a.sheet_id].date or "", a.sheet_id))
    out.sheets = [sheets[a.sheet_id].label for a in assigned]
    out.sheet_ids = [a.sheet_id for a in assigned]
    if not assigned:
        late = m.deadline is not None and date.fromisoformat(m.deadline) < today
        out.status = "overdue" if late else "missing"
        return out
    review = False
    unsure = [a for a in assigned if a.decided == "review"]
    if unsure:
        review = True
        out.notes.append(f"{len(unsure)} sheet(s) not surely this match: which match is it?")
    full = [a for a in assigned if len(_rows(sheets[a.sheet_id].result)) > EXTRA_DEALS_MAX]
    extra = [a for a in assigned if a not in full]
    if not full:  # only a short sheet: take it as the match's sheet all the same
        full, extra = extra[:1], extra[1:]
    main = full[-1]  # the latest full sheet: a resend replaces what came before
    totals = _pair_totals(sheets[main.sheet_id].result, main.ns, m.other(main.ns))
    for a in full[:-1]:
        earlier = _pair_totals(sheets[a.sheet_id].result, a.ns, m.other(a.ns))
        if earlier != totals:
            review = True
            out.notes.append(f"two different sheets of the whole match ({sheets[a.sheet_id].label}"
                             f" and {sheets[main.sheet_id].label}): which one stands?")
    out.ns = main.ns
    out.deals = len(_rows(sheets[main.sheet_id].result))
    dropped: dict[str, set] = {a.sheet_id: set() for a in assigned}
    sure_zeros: set[str] = set()  # extra-deal sheets whose noughts the arithmetic confirms
    if extra and totals is not None:
        for a in extra:
            result = sheets[a.sheet_id].result
            ew = m.other(a.ns)
            more = _pair_totals(result, a.ns, ew)
            if more is None:
                totals = None
                break
            going_on = _continues(result, a.ns, ew, totals)
            if _adds_up(result, {"ns": totals[a.ns], "ew": totals[ew]} if going_on else None):
                sure_zeros.add(a.sheet_id)
            if going_on:
                dropped[a.sheet_id].add(("cumulative", _rows(result)[0]["deal"]))
                out.notes.append(f"{sheets[a.sheet_id].label}: extra deals, cumulatives going on "
                                 "from the first sheet")
                totals = more
            else:
                out.notes.append(f"{sheets[a.sheet_id].label}: extra deals, added to the first sheet")
                totals = {p: totals[p] + more[p] for p in totals}
            out.deals += len(_rows(result))
    if totals is None:
        review = True
        out.notes.append("a total could not be read")
    out.totals = {p: totals[p] for p in m.pairs} if totals is not None else None
    level = totals is not None and len(set(totals.values())) == 1
    if totals is not None and not level:
        out.winner = max(totals, key=totals.get)
        out.margin = abs(totals[m.pair_a] - totals[m.pair_b])
    elif level:
        out.margin = 0
    # the winners line: the last sheet's (the extra deals' sheet when there is one)
    line_sheet = next((a for a in reversed(extra + [main]) if a.winners), None)
    sure = line_sheet is not None and line_sheet.winners["weight"] >= settings.winners_sure
    if line_sheet is not None:
        out.winners_line = dict(line_sheet.winners)
    # reconciliation judged each winners line on its sheet alone: a line read surely against the
    # pairs' names, every line of a tie played on over two sheets, and a level match's (whose line
    # has no one to name yet) are judged here instead
    ours = sure or bool(extra) or level
    for a in assigned:
        result = sheets[a.sheet_id].result
        for f in result.get("flags") or []:
            if f.get("kind") == "winner" and ours:
                continue
            if (f.get("kind"), f.get("deal")) in dropped[a.sheet_id]:
                continue
            if f.get("kind") == "missing_deal" and a in extra:
                continue  # the extra deals of a tie stop after two (or four ...) by design
            out.flags.append({**f, "sheet": sheets[a.sheet_id].label})
        values = {r["deal"]: r for r in _rows(result)}
        for r in result.get("review") or []:
            if r.get("column") == "winners" and ours:
                continue
            if a.sheet_id in sure_zeros and values.get(r.get("deal"), {}).get(r.get("column")) == 0:
                # the reader doubts the blanks of a sheet that is mostly empty rows (a table cut
                # in the wrong place?); on the extra deals of a tie that is what it is
                continue
            review = True
    if sure and totals is not None and (level or line_sheet.winners["pair"] != out.winner):
        named = line_sheet.winners["pair"]
        other = m.other(named)
        said = f"the winners line names {roster.names(named)} ({named})"
        message = (f"{said}, but the totals are level at {totals[named]}" if level else
                   f"{said}, but {roster.names(other)} ({other}) have the higher total "
                   f"({totals[other]} to {totals[named]})")
        out.flags.append({"kind": "winner", "side": "ns" if named == line_sheet.ns else "ew",
                          "written": named, "expected": out.winner,
                          "sheet": sheets[line_sheet.sheet_id].label, "message": message})
    if review:
        out.status = "review"
    elif level:
        out.status = "tie"
        out.notes.append(f"level at {next(iter(totals.values()))} after {out.deals} deals: two more "
                         "deals to play" + ("" if out.deals >= DEALS else f" (only {out.deals} read)"))
    elif out.flags:
        out.status = "flags"
    else:
        out.status = "verified"
    return out
