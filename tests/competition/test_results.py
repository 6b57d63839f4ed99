"""Each match's result from its sheets: statuses, ties over two sheets, the winners line."""

from __future__ import annotations

from datetime import date

import pytest

from competition.assign import Assignment
from competition.draw import Match
from competition.results import SheetInfo, match_results
from competition.standings import standings
from tests.competition.helpers import draw, roster

TODAY = date(2025, 6, 15)


def result(ns: int, ew: int, deals: int = 30, flags=(), review=(), first=None) -> dict:
    """A CONTRACT.md object whose last cumulatives are (ns, ew); ``first``: row 1's
    (ns, ew, cum_ns, cum_ew) when it matters."""
    rows = [{"deal": d, "dealer": "NESW"[(d - 1) % 4], "ns": 0, "ew": 0, "cum_ns": 0, "cum_ew": 0}
            for d in range(1, deals + 1)]
    if first is not None:
        rows[0].update(zip(("ns", "ew", "cum_ns", "cum_ew"), first, strict=True))
    rows[-1].update(cum_ns=ns, cum_ew=ew)
    return {"names": {"ns": None, "ew": None}, "winners": None, "rows": rows,
            "totals": {"ns": ns, "ew": ew}, "flags": list(flags), "review": list(review)}


def sheets_and_assignments(*specs):
    """specs: (sheet id, result, match, ns pair, decided, winners line or None, date)."""
    sheets, assigned = {}, {}
    for sid, res, match, ns, decided, winners, when in specs:
        sheets[sid] = SheetInfo(sid, f"{sid}.jpg", when, res)
        assigned[sid] = Assignment(sid, match, ns, 0.999, decided, [], winners)
    return sheets, assigned


def by_match(results):
    return {r.match: r for r in results}


def test_a_sheet_gives_totals_per_pair_winner_margin_and_the_contract_keys():
    sheets, assigned = sheets_and_assignments(
        ("s1", result(3990, 4120), "R1-M1", "P2", "auto", None, "2025-06-10"))
    r = by_match(match_results(draw(), roster(), sheets, assigned, TODAY))["R1-M1"]
    assert r.to_json() == {"round": 1, "match": "R1-M1", "pairs": ["P1", "P2"], "ns": "P2",
                           "totals": {"P1": 4120, "P2": 3990}, "winner": "P1", "margin": 130,
                           "status": "verified", "sheets": ["s1.jpg"]}


def test_no_sheet_is_missing_until_the_deadline_then_overdue():
    rs = by_match(match_results(draw(), roster(), {}, {}, TODAY))
    assert rs["R1-M2"].status == "missing" and rs["R1-M2"].to_json()["totals"] is None
    late = by_match(match_results(draw(), roster(), {}, {}, date(2025, 7, 1)))
    assert late["R1-M2"].status == "overdue" and late["R1-M2"].winner is None
    no_deadline = [Match(1, "X", "P1", "P2")]
    assert match_results(no_deadline, roster(), {}, {}, date(2030, 1, 1))[0].status == "missing"


def test_flags_review_and_an_unsure_match_set_the_status():
    flag = {"deal": 7, "kind": "cumulative", "side": "ns", "written": 1, "expected": 2,
            "message": "deal 7: ..."}
    item = {"deal": 3, "column": "ns", "candidates": [[120, 0.6]], "reason": "unsure reading"}
    sheets, assigned = sheets_and_assignments(
        ("a", result(100, 200, flags=[flag]), "R1-M1", "P1", "auto", None, "1"),
        ("b", result(100, 200, review=[item]), "R1-M2", "P3", "auto", None, "1"),
        ("c", result(100, 200), "R1-M3", "P5", "review", None, "1"))
    rs = by_match(match_results(draw(), roster(), sheets, assigned, TODAY))
    assert rs["R1-M1"].status == "flags" and rs["R1-M1"].flags[0]["sheet"] == "a.jpg"
    assert rs["R1-M2"].status == "review"
    assert rs["R1-M3"].status == "review" and "not surely this match" in rs["R1-M3"].notes[0]


def test_a_level_match_is_a_tie_with_no_winner():
    # reconciliation asks about the empty winners line; in a tie it has no one to name yet
    unread = {"deal": None, "column": "winners", "candidates": [], "reason": "winners line not read"}
    res = result(4000, 4000, review=[unread])
    sheets, assigned = sheets_and_assignments(("s", res, "R1-M1", "P1", "auto", None, "1"))
    r = by_match(match_results(draw(), roster(), sheets, assigned, TODAY))["R1-M1"]
    assert (r.status, r.winner, r.margin) == ("tie", None, 0)
    assert "two more deals" in r.notes[-1]


@pytest.mark.parametrize("going_on", [True, False])
def test_a_tie_played_on_over_a_second_sheet_counts_the_extra_deals(going_on):
    # 4000 all after 30 deals; deals 31-32 on a second sheet, where the other pair sat N/S:
    # P2 scores 120 then P1 50; the second sheet's cumulatives go on from 4000 or start at 0
    base = 4000 if going_on else 0
    first_row = (120, 0, base + 120, base)  # N/S (P2) 120
    extra = result(base + 120, base + 50, deals=2, first=first_row)
    extra["rows"][1].update(ns=0, ew=50)
    # reconciliation took the sheet alone: it stops at deal 2, and a match is 30 deals ...
    extra["flags"] = [{"deal": 3, "kind": "missing_deal", "written": None, "expected": 3,
                       "message": "deal 3: missing"}]
    # ... and the reader doubted its blanks (a sheet of empty rows): the arithmetic settles them
    extra["review"] = [{"deal": 1, "column": "ew", "candidates": [[0, 0.5], [None, 0.5]],
                        "reason": "blank?"}]
    if going_on:  # ... and its deal 1 cumulative looks wrong
        extra["flags"].append({"deal": 1, "kind": "cumulative", "side": "ns", "written": 4120,
                               "expected": 120, "message": "deal 1: ..."})
    sheets, assigned = sheets_and_assignments(
        ("s1", result(4000, 4000), "R1-M1", "P1", "auto", None, "2025-06-10"),
        ("s2", extra, "R1-M1", "P2", "auto", None, "2025-06-11"))
    r = by_match(match_results(draw(), roster(), sheets, assigned, TODAY))["R1-M1"]
    assert r.totals == {"P1": 4050, "P2": 4120}
    assert (r.winner, r.margin, r.status, r.deals) == ("P2", 70, "verified", 32)
    assert r.sheets == ["s1.jpg", "s2.jpg"] and r.ns == "P1"


def test_a_winners_line_naming_the_losers_is_a_winner_flag_in_place_of_reconciliations():
    theirs = {"kind": "winner", "side": "ns", "written": "ns", "expected": "ew", "message": "x"}
    res = result(3000, 4000, flags=[theirs])
    res["review"] = [{"deal": None, "column": "winners", "candidates": [], "reason": "unread"}]
    sheets, assigned = sheets_and_assignments(
        ("s", res, "R1-M1", "P1", "auto", {"pair": "P1", "weight": 0.99, "read": "hill/cheater"}, "1"))
    r = by_match(match_results(draw(), roster(), sheets, assigned, TODAY))["R1-M1"]
    assert r.status == "flags" and len(r.flags) == 1
    f = r.flags[0]
    assert (f["kind"], f["written"], f["expected"], f["side"]) == ("winner", "P1", "P2", "ns")
    assert f["message"] == ("the winners line names Hill / Cheater (P1), but Smith / Jones (P2) "
                            "have the higher total (4000 to 3000)")


def test_a_winners_line_read_surely_for_the_winners_clears_reconciliations_doubt():
    res = result(3000, 4000)
    res["review"] = [{"deal": None, "column": "winners", "candidates": [], "reason": "unread"}]
    sure = {"pair": "P2", "weight": 0.97, "read": "smith/jones"}
    sheets, assigned = sheets_and_assignments(("s", res, "R1-M1", "P1", "auto", sure, "1"))
    assert match_results(draw(), roster(), sheets, assigned, TODAY)[0].status == "verified"
    unsure = dict(sure, weight=0.6)
    sheets, assigned = sheets_and_assignments(("s", res, "R1-M1", "P1", "auto", unsure, "1"))
    assert match_results(draw(), roster(), sheets, assigned, TODAY)[0].status == "review"


def test_two_different_sheets_of_one_match_ask_which_stands_and_a_resend_does_not():
    sheets, assigned = sheets_and_assignments(
        ("a", result(3000, 4000), "R1-M1", "P1", "auto", None, "1"),
        ("b", result(3000, 4000), "R1-M1", "P1", "auto", None, "2"))
    assert match_results(draw(), roster(), sheets, assigned, TODAY)[0].status == "verified"
    sheets, assigned = sheets_and_assignments(
        ("a", result(3000, 4000), "R1-M1", "P1", "auto", None, "1"),
        ("b", result(3000, 4100), "R1-M1", "P1", "auto", None, "2"))
    r = match_results(draw(), roster(), sheets, assigned, TODAY)[0]
    assert r.status == "review" and r.totals == {"P1": 3000, "P2": 4100}


def test_a_bye_goes_through():
    r = match_results([Match(2, "R2-M3", "P5", None)], roster(), {}, {}, TODAY)[0]
    assert r.to_json()["pairs"] == ["P5"] and (r.winner, r.status) == ("P5", "verified")


def test_standings_rank_the_pairs_out_by_round_then_margin_and_name_the_top_two():
    r1 = draw() + [Match(2, "R2-M1", "P2", "P3"), Match(2, "R2-M2", "P6", None)]
    r2 = r1 + [Match(3, "R3-M1", "P3", "P6")]
    specs = [("a", result(100, 200), "R1-M1", "P1", "auto", None, "1"),  # P2 beats P1 by 100
             ("b", result(900, 200), "R1-M2", "P3", "auto", None, "1"),  # P3 beats P4 by 700
             ("c", result(100, 150), "R1-M3", "P5", "auto", None, "1"),  # P6 beats P5 by 50
             ("d", result(100, 130), "R2-M1", "P2", "auto", None, "2")]  # P3 beats P2 by 30
    sheets, assigned = sheets_and_assignments(*specs)
    half = standings(roster(), r1[:3], match_results(r1[:3], roster(), sheets, assigned, TODAY))
    assert half.still_in == ["P2", "P3", "P6"] and half.top_two == [] and half.complete_round == 1
    st = standings(roster(), r1, match_results(r1, roster(), sheets, assigned, TODAY))
    assert st.still_in == ["P3", "P6"] and st.complete_round == 2 and st.top_two == ["P3", "P6"]
    # a final played after all (an imported draw) leaves the top two as they were
    sheets, assigned = sheets_and_assignments(*specs, ("e", result(10, 20), "R3-M1", "P3", "auto", None, "3"))
    st = standings(roster(), r2, match_results(r2, roster(), sheets, assigned, TODAY))
    assert st.top_two == ["P3", "P6"] and st.still_in == ["P6"]
    # out of the top two: P2 (Open) in round 2, P4 (Int/Jnr) by 700 and P1 (Jnr) by 100 in round 1
    assert [r.pair for r in st.best["Intermediate"]] == ["P4"]
    assert [r.pair for r in st.best["Junior"]] == ["P1"]
    assert [r.pair for r in st.pairs][:2] == ["P6", "P3"]
    rec = next(r for r in st.pairs if r.pair == "P4")
    assert (rec.lost_round, rec.lost_margin, rec.still_in) == (1, 700, False)
