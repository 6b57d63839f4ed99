"""The competition brought up to date from a real ledger: sheets read earlier (here recorded by
hand, no scan read), the clues' answers kept, the organiser's answer outliving them."""

from __future__ import annotations

from datetime import date

from batch.ledger import Ledger, ReviewChange, ScanRecord, SheetRecord
from competition import store
from competition.draw import parse_draw
from competition.evidence import LinesReader
from competition.review import answer_match, match_review_items
from competition.run import match_answers, refresh
from competition.setup import set_up
from tests.competition.helpers import roster
from tests.competition.test_results import result

DRAW = "round,match,pair_a,pair_b,deadline\n1,R1-M1,P1,P2,\n1,R1-M2,P3,P4,\n1,R1-M3,P5,P6,\n"


def record(ledger: Ledger, sha: str, sender: str | None, totals: tuple[int, int], qr=()) -> str:
    res = result(*totals)
    reading = {"source": sha, "rows": [], "meta": {"clues": {"qr": list(qr), "lines": {}}}}
    sid = f"{sha[:12]}-p1"
    ledger.record_scan(ScanRecord(sha256=sha, source=f"{sha}.jpg", status="done", sender=sender,
                                  date="2025-06-01", sheets=[SheetRecord(sid, 0, reading=reading,
                                                                         result=res)]))
    return sid


def test_sender_and_code_clues_from_the_ledger_and_the_organisers_answer(tmp_path):
    no_lines = LinesReader(None)  # no names recogniser: senders and codes only
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        info = set_up(ledger, roster(), parse_draw(DRAW, roster()), "Cup")
        a = record(ledger, "a" * 64, "Ann <hill@a.nz>", (3000, 4000))
        b = record(ledger, "b" * 64, None, (5000, 1000), qr=[f"RBS1:{info['code']}:R1-M3"])
        c = record(ledger, "c" * 64, "someone@else.org", (100, 200))
        state = refresh(ledger, today=date(2025, 6, 2), lines=no_lines)
        assert state.lines_missing
        # the sender knows the match, not the seats: asked; the code settles match and seats
        assert state.assignments[a].decided == "review" and state.assignments[a].match == "R1-M1"
        assert (state.assignments[b].match, state.assignments[b].ns) == ("R1-M3", "P5")
        assert state.assignments[b].decided == "auto"
        items = match_review_items(ledger, lines=no_lines)
        assert {i["sheet_id"] for i in items} == {a, c}
        r = {x.match: x for x in state.results}
        assert r["R1-M1"].status == "review" and r["R1-M3"].winner == "P5"
        # the organiser answers; a later refresh keeps the answer
        answer_match(ledger, a, "R1-M1", ns="P2")
        answer_match(ledger, c, None)
        state = refresh(ledger, today=date(2025, 6, 2), lines=no_lines)
        assert match_answers(ledger) == {a: ("R1-M1", "P2"), c: (None, None)}
        assert state.assignments[a].decided == "organiser" and state.assignments[a].ns == "P2"
        r = {x.match: x for x in state.results}
        assert r["R1-M1"].to_json()["totals"] == {"P1": 4000, "P2": 3000}
        assert r["R1-M1"].status == "verified" and r["R1-M1"].winner == "P1"
        assert state.unmatched == [c] and match_review_items(ledger, lines=no_lines) == []
        # an answer undone (in the review app) gives the sheet back to the clues; a later one wins
        (first,) = [d for d in ledger.decisions(a) if d["kind"] == "match"]
        ledger.write_review(ReviewChange(a, "to check", undo=first["id"], who="bob"))
        state = refresh(ledger, today=date(2025, 6, 2), lines=no_lines)
        assert state.assignments[a].decided == "review"
        answer_match(ledger, c, "R1-M2", ns="P4")
        answer_match(ledger, c, "R1-M1", ns="P1")
        state = refresh(ledger, today=date(2025, 6, 2), lines=no_lines)
        assert (state.assignments[c].match, state.assignments[c].ns) == ("R1-M1", "P1")
        assert f"{'c' * 64}.jpg" in {x.match: x for x in state.results}["R1-M1"].sheets


def test_a_read_only_ledger_is_read_and_nothing_stored(tmp_path):
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        set_up(ledger, roster(), parse_draw(DRAW, roster()), "Cup")
        record(ledger, "d" * 64, "hill@a.nz", (1, 2))
    with Ledger(tmp_path / "ledger.sqlite", readonly=True) as ledger:
        items = match_review_items(ledger, lines=LinesReader(None))
        assert len(items) == 1 and store.load_assignments(ledger) == {}
