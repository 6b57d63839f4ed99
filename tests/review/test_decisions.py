"""The decision log and the re-reconciliation: a person's value enters as a certain reading, "the
players wrote this" makes the arithmetic flag it, a dismissed flag keeps its reason, undo keeps
the decision marked, and a decision made on a stale page changes nothing."""

from __future__ import annotations

import json
import re

import pytest

from batch.decided import apply, flag_key, open_items, sheet_status
from batch.ledger import (
    LEDGER_NAME,
    Ledger,
    ReviewChange,
    ScanRecord,
    SheetRecord,
    VersionConflict,
)
from batch.serial import reading_from_json
from review.folder import DecisionError, Folder
from review.providers import default_providers
from scoring.sheet import CellReading
from tests.support import SEED_001, running, sheet

ROWS = running(SEED_001)  # seven deals, 990 v 1460
# deal 3's E/W cumulative written 1140 (830 + 300 = 1130), the error carried on
MISTAKE = [(a, b, c, d + (10 if i >= 2 else 0)) for i, (a, b, c, d) in enumerate(ROWS)]


def unreadable() -> object:
    """Deal 5's N/S score could not be read (the arithmetic says 60)."""
    return sheet(ROWS, probs={(4, "ns"): [(None, 0.9)]})


def unsure_mistake() -> object:
    """Deal 3's E/W cumulative read 1140 (0.7) or 1130: a misread or the players' mistake."""
    return sheet(MISTAKE, probs={(2, "cum_ew"): [(1140, 0.7), (1130, 0.25)]})


def item(folder: Folder, sid: str, key: str):
    found = [it for it in folder.items(folder.sheet(sid)) if it.key == key]
    assert found, [it.key for it in folder.items(folder.sheet(sid))]
    return found[0]


def version(folder: Folder, sid: str) -> int:
    return folder.ledger().review_state(sid)[1]


def decide(folder: Folder, sid: str, key: str, answer: dict, who: str = "alice") -> dict:
    decision = item(folder, sid, key).decide(answer)
    folder.decide(sid, version(folder, sid), decision, who)
    return decision


def row(result: dict, deal: int) -> dict:
    return next(r for r in result["rows"] if r["deal"] == deal)


def test_a_chosen_value_enters_as_a_certain_reading_and_is_logged(folder_of):
    folder = folder_of({"s1": unreadable()})
    it = item(folder, "s1", "review:5:ns")
    assert it.kind == "review" and "could not be read" in it.question
    assert it.choices[0].label.startswith("60 ")
    decide(folder, "s1", "review:5:ns", {"choice": 0})
    result = folder.sheet("s1").result
    assert row(result, 5)["ns"] == 60 and row(result, 5)["confidence"]["ns"] == 1.0
    assert not [r for r in result["review"] if r["deal"] == 5]
    (d,) = folder.ledger().decisions("s1")
    assert (d["kind"], d["target"], d["before"], d["after"], d["who"]) == \
        ("value", "5:ns", None, 60, "alice")
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", d["at"]) and d["undone_at"] is None
    # the reading itself keeps the reader's candidates; the decision is applied on top
    stored = reading_from_json(folder.ledger().reading("s1"))
    assert stored.rows[4].cells["ns"].candidates == [(None, 0.9)]
    assert apply(stored, [d]).rows[4].cells["ns"].person


def test_a_person_value_wins_over_the_arithmetic_and_the_files_follow(folder_of):
    # a person says deal 5's N/S is 70: the arithmetic (60) cannot overrule a certain reading,
    # so the sheet's numbers disagree -- a players' mistake, flagged, not a misread
    folder = folder_of({"s1": unreadable()})
    decide(folder, "s1", "review:5:ns", {"value": "70"})
    result = folder.sheet("s1").result
    assert row(result, 5)["ns"] == 70
    flagged = [f for f in result["flags"] if f["deal"] == 5]
    assert flagged and flagged[0]["kind"] in ("cumulative", "score")
    # the sheet's own files at once, the report soon after (flushed here)
    sheet_json = json.loads((folder.out_dir / "sheets" / "s1.json").read_text())
    assert next(r for r in sheet_json["rows"] if r["deal"] == 5)["ns"] == 70
    folder.report.flush()
    assert flagged[0]["message"][:30] in (folder.out_dir / "sheets" / "s1.html").read_text()
    assert "scan-s1.png" in (folder.out_dir / "report.html").read_text()


def test_the_players_wrote_this_pins_the_written_value_and_the_rules_flag_it(folder_of):
    folder = folder_of({"s1": unsure_mistake()})
    it = item(folder, "s1", "review:3:cum_ew")
    assert it.kind == "inconsistency"
    assert [c.label for c in it.choices] == ["the players wrote 1140", "misread: it says 1130"]
    decide(folder, "s1", "review:3:cum_ew", {"choice": 0})
    result = folder.sheet("s1").result
    flag = next(f for f in result["flags"] if f["kind"] == "cumulative")
    assert (flag["deal"], flag["side"], flag["written"], flag["expected"]) == (3, "ew", 1140, 1130)
    reviews, flags = open_items(result, folder.ledger().decisions("s1"))
    assert flag_key(flag) not in {flag_key(f) for f in flags}  # the person said so already
    assert not [r for r in reviews if r["deal"] in (3, 4)]
    assert folder.ledger().decisions("s1")[0]["kind"] == "written"


def test_misread_pins_the_arithmetic_value(folder_of):
    folder = folder_of({"s1": unsure_mistake()})
    decide(folder, "s1", "review:3:cum_ew", {"choice": 1})
    result = folder.sheet("s1").result
    assert row(result, 3)["cum_ew"] == 1130
    assert not [f for f in result["flags"] if f["deal"] == 3]


def test_a_dismissed_flag_keeps_its_reason_and_leaves_the_flags(folder_of):
    folder = folder_of({"s1": sheet(MISTAKE)})
    key = "flag:cumulative:3:ew"
    it = item(folder, "s1", key)
    assert it.dismiss and it.choices[0].label == "the players wrote 1140: their mistake"
    with pytest.raises(ValueError, match="say why"):
        it.decide({"action": "dismiss", "reason": "  "})
    decide(folder, "s1", key, {"action": "dismiss", "reason": "the club lets it stand"}, "bob")
    result = folder.sheet("s1").result
    assert not [f for f in result["flags"] if f["kind"] == "cumulative"]
    (gone,) = result["dismissed_flags"]
    assert (gone["deal"], gone["reason"], gone["by"]) == (3, "the club lets it stand", "bob")
    with Ledger(folder.path) as ledger:  # the ledger's own tables agree
        assert ledger.db.execute("SELECT COUNT(*) FROM flags WHERE sheet_id = 's1' AND "
                                 "kind = 'cumulative'").fetchone()[0] == 0


def test_undo_restores_the_reading_and_keeps_the_decision_marked(folder_of):
    folder = folder_of({"s1": unreadable()})
    decide(folder, "s1", "review:5:ns", {"choice": 0})
    assert version(folder, "s1") == 1
    folder.undo("s1", 1, None, "carol")
    result = folder.sheet("s1").result
    assert [r for r in result["review"] if r["deal"] == 5]
    assert folder.ledger().decisions("s1") == []
    (d,) = folder.ledger().decisions("s1", undone=True)
    assert d["undone_by"] == "carol" and d["undone_at"]
    assert version(folder, "s1") == 2
    with pytest.raises(DecisionError, match="nothing to undo"):
        folder.undo("s1", 2, None, "carol")


def test_a_decision_made_on_a_stale_page_changes_nothing(folder_of):
    folder = folder_of({"s1": unreadable()})
    first = item(folder, "s1", "review:5:ns").decide({"choice": 0})
    second = item(folder, "s1", "review:5:ns").decide({"value": "80"})
    folder.decide("s1", 0, first, "tab one")
    with pytest.raises(DecisionError, match="changed since the page was loaded") as exc:
        folder.decide("s1", 0, second, "tab two")
    assert exc.value.status == 409
    assert [d["who"] for d in folder.ledger().decisions("s1")] == ["tab one"]
    assert row(folder.sheet("s1").result, 5)["ns"] == 60
    # the ledger refuses it too, inside its own transaction
    with Ledger(folder.path) as ledger, pytest.raises(VersionConflict):
        ledger.write_review(ReviewChange("s1", "to check", version=0,
                                         decision={**second, "who": "x"}))
    assert len(folder.ledger().decisions("s1", undone=True)) == 1


@pytest.mark.parametrize("typed, message", [("45", "end in 0"), ("12a", "not a number"),
                                            ("123450", "more than")])
def test_a_typed_value_is_checked(folder_of, typed, message):
    folder = folder_of({"s1": unreadable()})
    with pytest.raises(ValueError, match=message):
        item(folder, "s1", "review:5:ns").decide({"value": typed})


def test_status_to_check_verified_disputed(folder_of):
    folder = folder_of({"s1": unreadable()})
    ledger = folder.ledger()
    assert sheet_status(folder.sheet("s1").result, []) == "to check"
    with pytest.raises(DecisionError, match="still open"):
        Folder.status_decision("verify", "", 2)
    decide(folder, "s1", "review:5:ns", {"choice": 0})
    assert ledger.review_state("s1")[0] == "to check"  # the missing deal 8 is still open
    decide(folder, "s1", "flag:missing_deal:8:", {"choice": 0})  # confirmed
    assert ledger.review_state("s1")[0] == "verified"
    with pytest.raises(DecisionError, match="say why"):
        Folder.status_decision("dispute", " ", 0)
    folder.decide("s1", version(folder, "s1"),
                  Folder.status_decision("dispute", "E/W say deal 2 was 800", 0), "alice")
    assert ledger.review_state("s1")[0] == "disputed"


def test_rows_typed_by_hand_replace_the_reading_and_are_checked(folder_of):
    folder = folder_of({"s1": unreadable()})
    form = {}
    for deal, (ns, ew, cns, cew) in enumerate(MISTAKE, start=1):
        form.update({f"d{deal}_dealer": "NESW"[(deal - 1) % 4], f"d{deal}_ns": str(ns or "-"),
                     f"d{deal}_ew": str(ew or ""), f"d{deal}_cum_ns": str(cns),
                     f"d{deal}_cum_ew": str(cew)})
    form.update(names_ns="Frank / Lena", names_ew="Ann / Bob", winners="ew")
    decision = Folder.rows_decision(form, 30)
    assert len(decision["after"]["rows"]) == 7  # the rows left empty after deal 7 dropped
    folder.decide("s1", 0, decision, "alice")
    result = folder.sheet("s1").result
    assert [row(result, d)["cum_ew"] for d in (2, 3, 4)] == [830, 1140, 1140]
    assert result["names"] == {"ns": "Frank / Lena", "ew": "Ann / Bob"}
    assert [f["deal"] for f in result["flags"] if f["kind"] == "cumulative"] == [3]
    bad = dict(form, d2_ns="83")
    with pytest.raises(DecisionError, match="deal 2, ns"):
        Folder.rows_decision(bad, 30)


def test_rows_typed_replace_the_decisions_made_before_them(folder_of):
    folder = folder_of({"s1": unreadable()})
    decide(folder, "s1", "review:5:ns", {"value": "70"})  # then the whole table typed again
    form = {f"d{d}_{c}": str(v) for d, r in enumerate(ROWS, start=1)
            for c, v in zip(("ns", "ew", "cum_ns", "cum_ew"), r, strict=True)}
    form.update(names_ns="Frank / Lena", names_ew="Ann / Bob", winners="ew")
    folder.decide("s1", version(folder, "s1"), Folder.rows_decision(form, 30), "alice")
    assert row(folder.sheet("s1").result, 5)["ns"] == 60
    decide(folder, "s1", "flag:missing_deal:8:", {"choice": 0})  # and one after them counts
    assert folder.ledger().review_state("s1")[0] == "verified"


def test_the_names_provider_offers_the_names_read_elsewhere(folder_of):
    nameless = sheet(ROWS)
    nameless.names = {"ns": None, "ew": "Ann / Bob"}
    named = sheet(ROWS)
    named.names = {"ns": "Frank / Lena", "ew": "Ann / Bob"}
    folder = folder_of({"s1": nameless, "s2": named})
    it = item(folder, "s1", "name:names_ns")
    assert it.provider == "names" and [c.label for c in it.choices] == ["Frank / Lena"]
    folder.decide("s1", 0, it.decide({"choice": 0}), "alice")
    assert folder.sheet("s1").result["names"]["ns"] == "Frank / Lena"
    assert not [i for i in folder.items(folder.sheet("s1")) if i.provider == "names"]
    with pytest.raises(ValueError, match="at most"):
        it.decide({"value": "x" * 200})


def test_every_decision_is_kept_in_the_ledger_file(folder_of):
    folder = folder_of({"s1": unreadable()})
    decide(folder, "s1", "review:5:ns", {"choice": 0})
    with Ledger(folder.out_dir / LEDGER_NAME, readonly=True) as ledger:
        rows = ledger.db.execute("SELECT kind, target, before, after, who FROM decisions"
                                 ).fetchall()
    assert rows == [("value", "5:ns", None, "60", "alice")]


def test_a_row_said_to_be_empty_is_a_missing_deal_already_answered(folder_of):
    rows = ROWS[:3] + [(0, 0, 0, 0)] + ROWS[3:]  # deal 4 left empty, its 170 in the cumulatives
    reading = sheet(rows, probs={(3, c): [(0, 0.7), (None, 0.3)] for c in ("ns", "ew")})
    reading.rows[3].cells["dealer"] = CellReading([], blank=True)
    folder = folder_of({"s1": reading})
    it = item(folder, "s1", "review:4:ns")
    assert it.kind == "row" and it.choices[0].label == "the row is empty (a missing deal)"
    decide(folder, "s1", "review:4:ns", {"choice": 0})
    result = folder.sheet("s1").result
    assert [f["deal"] for f in result["flags"] if f["kind"] == "missing_deal"][0] == 4
    keys = [i.key for i in folder.items(folder.sheet("s1"))]
    assert not [k for k in keys if ":4:" in k or k.endswith(":4")], keys


def test_a_sheet_that_could_not_be_read_gets_its_rows_typed_and_back(tmp_path):
    out = tmp_path / "out"
    (out / "sheets").mkdir(parents=True)
    error = "scan.png: no summary score table found (no ruled table of deal rows)"
    with Ledger(out / LEDGER_NAME) as ledger:
        ledger.record_scan(ScanRecord(sha256="f" * 64, source="scan.png", status="failed",
                                      error=error, sheets=[SheetRecord("s1", 0, error=error)]))
    folder = Folder(out, default_providers())
    assert [it.kind for it in folder.items(folder.sheet("s1"))] == ["table"]
    form = {f"d{d}_{c}": str(v) for d, r in enumerate(ROWS, start=1)
            for c, v in zip(("ns", "ew", "cum_ns", "cum_ew"), r, strict=True)}
    form.update(names_ns="Frank / Lena", names_ew="Ann / Bob", winners="ew")
    folder.decide("s1", 0, Folder.rows_decision(form, 30), "alice")
    typed = folder.sheet("s1")
    assert typed.status == "ok" and typed.error is None and typed.result["winners"] == "ew"
    with Ledger(out / LEDGER_NAME) as ledger:
        assert ledger.counts()["failed"] == 0  # the scan is done now
        assert ledger.reading("s1")["meta"]["from"] == "rows"  # kept, so `audit` sees it
    folder.undo("s1", 1, None, "alice")
    back = folder.sheet("s1")
    assert (back.status, back.error, back.result) == ("failed", error, None)
    with Ledger(out / LEDGER_NAME) as ledger:
        assert ledger.counts()["failed"] == 1 and ledger.reading("s1") is None
