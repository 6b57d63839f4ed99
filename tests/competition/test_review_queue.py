"""The competition's "which match is this sheet?" in the review app's queue (review/matches.py),
over a real ledger: asked for a sheet the clues do not settle, answered there, counted by the
competition, undone there and asked again."""

from __future__ import annotations

from datetime import date

from batch.ledger import Ledger
from competition.draw import parse_draw
from competition.evidence import LinesReader
from competition.run import refresh
from competition.setup import set_up
from review.folder import Folder
from review.matches import MatchQuestions
from review.providers import default_providers
from tests.competition.helpers import roster
from tests.competition.test_run import DRAW, record


def test_a_match_question_is_asked_answered_and_undone_in_the_review_queue(tmp_path):
    no_lines = LinesReader(None)
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        set_up(ledger, roster(), parse_draw(DRAW, roster()), "Cup")
        sid = record(ledger, "a" * 64, "Ann <hill@a.nz>", (3000, 4000))  # match known, seats not
        sure = record(ledger, "b" * 64, None, (5000, 1000), qr=["RBS1:nosuchcode:R1-M3"])
    questions = MatchQuestions()
    questions._lines = no_lines  # no names recogniser needed: the sender and the codes only
    folder = Folder(tmp_path, [p for p in default_providers() if p.name != "match"] + [questions])
    items = [i for i in folder.items(folder.sheet(sid)) if i.kind == "match"]
    assert len(items) == 1
    (item,) = items
    labels = [c.label for c in item.choices]
    assert labels[-1].startswith("no match of the draw") and any("R1-M1" in x for x in labels)
    assert "hill@a.nz" in item.question
    pick = next(i for i, c in enumerate(item.choices) if c.answer == {"match": "R1-M1", "ns": "P2"})
    folder.decide(sid, folder.ledger().review_state(sid)[1], item.decide({"choice": pick}), "alice")

    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        state = refresh(ledger, today=date(2025, 6, 2), lines=no_lines)
        a = state.assignments[sid]
        assert (a.match, a.ns, a.decided) == ("R1-M1", "P2", "organiser")
        r = {x.match: x for x in state.results}["R1-M1"]
        assert r.sheets == [f"{'a' * 64}.jpg"]  # (the stand-in reading has no rows to total)
    assert [i for i in folder.items(folder.sheet(sid)) if i.kind == "match"] == []
    # the other sheet (a code of another competition: no clue) is asked about too, never dropped
    assert [i.kind for i in folder.items(folder.sheet(sure)) if i.kind == "match"] == ["match"]

    folder.undo(sid, folder.ledger().review_state(sid)[1], None, "alice")
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        assert refresh(ledger, today=date(2025, 6, 2), lines=no_lines).assignments[sid].decided \
            == "review"
    assert [i.kind for i in folder.items(folder.sheet(sid)) if i.kind == "match"] == ["match"]


def test_a_folder_without_a_competition_asks_nothing_and_loads_no_recogniser(tmp_path):
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        sid = record(ledger, "c" * 64, "Ann <hill@a.nz>", (3000, 4000))
    questions = MatchQuestions()
    folder = Folder(tmp_path, [questions])
    assert folder.items(folder.sheet(sid)) == [] and questions._lines is None
