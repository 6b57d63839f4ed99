"""The competition of a batch folder, brought up to date: every sheet matched to its match (an
organiser's answer kept), each match's result, the standings.  What `results`, `draw`, the
competition page and the review queue all start from.

An organiser's answer to "which match is this sheet?" is a ``match`` decision in the ledger's
decisions table (after: {"match", "ns"}), made by `rubberscan competition --assign` or the review
app alike: the latest in force wins, and one undone in the app gives the sheet back to the clues.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from batch.ledger import Ledger, LedgerSheet, ReviewChange
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
    answers = match_answers(ledger)
    matcher = Matcher(roster, draw, info.get("code"), settings.matching, info.get("drawn"))
    by_match = {m.match: m for m in draw}
    assignments: dict[str, Assignment] = {}
    taken: dict[str, int] = {}
    for ev in sorted(evidence, key=lambda e: (e.date or "", e.sheet_id)):
        kept = before.get(ev.sheet_id)
        answer = answers.get(ev.sheet_id)
        if answer is not None:
            a = Assignment(ev.sheet_id, answer[0], answer[1], None, "organiser")
            if kept is not None:
                a.candidates, a.clues = kept.candidates, kept.clues
        elif kept is not None and kept.decided == "organiser":  # an answer kept before decisions
            a = kept
        if answer is not None or kept is not None and kept.decided == "organiser":
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
    if writable:  # an answer stays a decision only, so that undoing it is heard
        store.save_assignments(ledger, [a for a in assignments.values() if a.sheet_id not in answers])
    sheets = {sid: SheetInfo(sid, sheet_label(s), s.date or s.processed_at, s.result)
              for sid, s in rows.items()}
    results = match_results(draw, roster, sheets, assignments, today or date.today(),
                            settings.matching)
    return State(info, roster, draw, assignments, sheets, results, standings(roster, draw, results),
                 senders={sid: s.sender for sid, s in rows.items()}, messages=ledger.messages(),
                 failed=[s for s in ledger.sheets() if s.status != "ok" or s.result is None],
                 lines_missing=lines.reader is None)


MATCH_KIND = "match"  # the decisions' kind of an answer to "which match is this sheet?"


def match_answers(ledger: Ledger) -> dict[str, tuple[str | None, str | None]]:
    """sheet id -> (match, ns) of the latest ``match`` decision in force on it."""
    out = {}
    for d in ledger.decisions():
        after = d["after"]
        if d["kind"] == MATCH_KIND and isinstance(after, dict):
            match, ns = after.get("match"), after.get("ns")
            out[d["sheet_id"]] = (match if isinstance(match, str) else None,
                                  ns if isinstance(ns, str) else None)
    return out


def check_answer(draw: list[Match], match: str | None, ns: str | None,
                 candidates: list[dict] = ()) -> tuple[str | None, str | None]:
    """(match, ns) of an answer, ``ns`` defaulted (the clues' choice for that match, else
    pair_a); ValueError for a match not to play or a pair not in it."""
    if match is None:
        return None, None
    m = next((m for m in draw if m.match == match), None)
    if m is None or m.bye:
        raise ValueError(f"no match {match} to play in the draw")
    if ns is None:
        cands = [c["ns"] for c in candidates if c["match"] == match]
        ns = cands[0] if cands else m.pair_a
    if ns not in m.pairs:
        raise ValueError(f"pair {ns} does not play in {match} ({' v '.join(m.pairs)})")
    return match, ns


def decide(ledger: Ledger, sheet_id: str, match: str | None, ns: str | None = None,
           who: str = "organiser") -> Assignment:
    """The organiser's answer to "which match is this sheet?" (``match`` None: no match of the
    draw); ``ns`` the pair that sat N/S (default: the clues' choice for that match, else pair_a),
    kept as a ``match`` decision.  Raises ValueError for an unknown sheet, match or pair."""
    if not any(s.sheet_id == sheet_id for s in ledger.sheets(sheet_id)):
        raise ValueError(f"no sheet {sheet_id} in {ledger.path.parent}")
    before = store.load_assignments(ledger).get(sheet_id)
    match, ns = check_answer(store.load_draw(ledger), match, ns,
                             before.candidates if before else [])
    ledger.write_review(ReviewChange(sheet_id, ledger.review_state(sheet_id)[0], decision={
        "kind": MATCH_KIND, "target": MATCH_KIND, "before": None,
        "after": {"match": match, "ns": ns}, "reason": None, "who": who}))
    a = Assignment(sheet_id, match, ns, None, "organiser")
    if before is not None:
        a.candidates, a.clues = before.candidates, before.clues
    return a
