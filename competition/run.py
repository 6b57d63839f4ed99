"""The competition of a batch folder, brought up to date: every sheet matched to its match (an
organiser's answer kept), each match's result, the standings.  What `results`, `draw`, the
competition page and the review queue all start from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from batch.ledger import Ledger, LedgerSheet
from competition import store
from competition.assign import Assignment, Matcher, review_item
from competition.draw import Match
from competition.evidence import LinesReader, sheet_evidence
from competition.results import MatchResult, SheetInfo, match_results
from competition.roster import Roster
from competition.settings import DEFAULT, CompetitionSettings
from competition.standings import Standings, standings


class NoCompetition(LookupError):
    """The folder has no competition set up (`rubberscan competition DIR --pairs PAIRS.csv`)."""


@dataclass
class State:
    info: dict
    roster: Roster
    draw: list[Match]
    assignments: dict[str, Assignment]
    sheets: dict[str, SheetInfo]
    results: list[MatchResult]
    standings: Standings
    senders: dict[str, str | None] = field(default_factory=dict)  # sheet id -> From header
    messages: list[dict] = field(default_factory=list)  # e-mails without a scan (ledger.messages)
    failed: list[LedgerSheet] = field(default_factory=list)  # files that could not be read
    lines_missing: bool = False  # no names recogniser installed: names lines were not read

    @property
    def review_items(self) -> list[dict]:
        """The sheets whose match is not sure, as review records (competition.assign.review_item)."""
        return [review_item(a, self.roster, self.draw, self.sheets[a.sheet_id].label)
                for a in self.assignments.values()
                if a.sheet_id in self.sheets and a.decided == "review"]

    @property
    def unmatched(self) -> list[str]:
        """Sheet ids that are no match of the draw."""
        return [sid for sid, a in self.assignments.items() if sid in self.sheets and a.decided == "none"
                or sid in self.sheets and a.decided == "organiser" and a.match is None]


def sheet_label(sheet: LedgerSheet) -> str:
    return sheet.source + (f" (page {sheet.page + 1})" if sheet.page else "")


def refresh(ledger: Ledger, today: date | None = None, lines: LinesReader | None = None,
            settings: CompetitionSettings = DEFAULT, writable: bool = True) -> State:
    """The competition brought up to date from the ledger; the clues' answers kept when
    ``writable``.  Raises NoCompetition when the folder has none."""
    info = store.info(ledger)
    if info is None:
        raise NoCompetition(f"{ledger.path.parent}: no competition here; set one up with "
                            f"`rubberscan competition {ledger.path.parent} --pairs PAIRS.csv`")
    roster, draw = store.load_roster(ledger), store.load_draw(ledger)
    lines = lines or LinesReader.default()
    evidence, rows = sheet_evidence(ledger, lines, writable=writable)
    before = store.load_assignments(ledger)
    matcher = Matcher(roster, draw, info.get("code"), settings.matching, info.get("drawn"))
    by_match = {m.match: m for m in draw}
    assignments: dict[str, Assignment] = {}
    taken: dict[str, int] = {}
    for ev in sorted(evidence, key=lambda e: (e.date or "", e.sheet_id)):
        kept = before.get(ev.sheet_id)
        if kept is not None and kept.decided == "organiser":
            a = kept
            m = by_match.get(a.match) if a.match else None
            if a.match is not None and (m is None or m.bye or a.ns not in m.pairs):
                a = matcher.assign(ev, taken)  # the draw changed under the answer: ask again
        else:
            a = matcher.assign(ev, taken)
        m = by_match.get(a.match) if a.match else None
        if m is not None and a.ns in m.pairs:
            a.winners = matcher.winners(ev.lines.get("winners"), m, a.ns)
            if a.decided != "review":
                taken[a.match] = taken.get(a.match, 0) + 1
        assignments[ev.sheet_id] = a
    if writable:
        store.save_assignments(ledger, list(assignments.values()))
    sheets = {sid: SheetInfo(sid, sheet_label(s), s.date or s.processed_at, s.result)
              for sid, s in rows.items()}
    results = match_results(draw, roster, sheets, assignments, today or date.today(),
                            settings.matching)
    return State(info, roster, draw, assignments, sheets, results, standings(roster, draw, results),
                 senders={sid: s.sender for sid, s in rows.items()}, messages=ledger.messages(),
                 failed=[s for s in ledger.sheets() if s.status != "ok" or s.result is None],
                 lines_missing=lines.reader is None)


def decide(ledger: Ledger, sheet_id: str, match: str | None, ns: str | None = None) -> Assignment:
    """The organiser's answer to "which match is this sheet?" (``match`` None: no match of the
    draw); ``ns`` the pair that sat N/S (default: the clues' choice for that match, else pair_a).
    Raises ValueError for an unknown sheet, match or pair."""
    draw = {m.match: m for m in store.load_draw(ledger)}
    if not any(s.sheet_id == sheet_id for s in ledger.sheets(sheet_id)):
        raise ValueError(f"no sheet {sheet_id} in {ledger.path.parent}")
    before = store.load_assignments(ledger).get(sheet_id)
    if match is None:
        a = Assignment(sheet_id, None, None, None, "organiser")
    else:
        m = draw.get(match)
        if m is None or m.bye:
            raise ValueError(f"no match {match} to play in the draw")
        if ns is None:
            cands = [c["ns"] for c in (before.candidates if before else []) if c["match"] == match]
            ns = cands[0] if cands else m.pair_a
        if ns not in m.pairs:
            raise ValueError(f"pair {ns} does not play in {match} ({' v '.join(m.pairs)})")
        a = Assignment(sheet_id, match, ns, None, "organiser")
    if before is not None:
        a.candidates, a.clues = before.candidates, before.clues
    store.save_assignments(ledger, [a])
    return a
