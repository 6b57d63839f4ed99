"""Which match a sheet is: the clues combined, the pair at N/S, review when unsure, none for a
pair not entered."""

from __future__ import annotations

import pytest

from competition.assign import Matcher, SheetEvidence, review_item, sender_address
from competition.ids import qr_payload
from tests.competition.helpers import draw, frames, roster

CODE = "abc123"


def matcher():
    return Matcher(roster(), draw(), CODE)


def ev(ns=None, ew=None, sender=None, qr=(), winners=None):
    lines = {}
    if ns is not None:
        lines["names_ns"] = frames(ns)
    if ew is not None:
        lines["names_ew"] = frames(ew)
    if winners is not None:
        lines["winners"] = frames(winners)
    return SheetEvidence("s1", sender, list(qr), lines)


def test_the_names_alone_give_the_match_and_who_sat_ns():
    a = matcher().assign(ev("Smith / Jones", "Hill & Cheater"))
    assert (a.match, a.ns, a.decided) == ("R1-M1", "P2", "auto") and a.weight > 0.99
    assert a.clues["names_read"] == {"ns": "smith/jones", "ew": "hill/cheater"}


def test_one_names_line_and_the_sender_together_settle_it():
    one = matcher().assign(ev("Taylor / Wilson"))
    assert (one.match, one.ns) == ("R1-M2", "P4")
    both = matcher().assign(ev("Taylor / Wilson", sender="Ann Reid <REID@c.nz>"))
    assert (both.match, both.ns, both.decided) == ("R1-M2", "P4", "auto")
    assert both.clues["sender_pair"] == "P3" and both.clues["sender"] == "reid@c.nz"


def test_the_sender_alone_knows_the_match_but_not_the_seats():
    a = matcher().assign(ev(sender="hill@a.nz"))
    assert a.match == "R1-M1" and a.decided == "review"
    assert {c["ns"] for c in a.candidates[:2]} == {"P1", "P2"}
    assert a.candidates[0]["weight"] == pytest.approx(a.candidates[1]["weight"])


def test_the_qr_code_gives_the_match_and_the_printed_names_the_seats():
    a = matcher().assign(ev("Brown / Reid", "Taylor / Wilson", qr=[qr_payload(CODE, "R1-M2")]))
    assert (a.match, a.ns, a.decided) == ("R1-M2", "P3", "auto") and a.weight > 0.999
    assert a.clues["qr"] == ["R1-M2"]


def test_another_competitions_code_is_no_clue():
    a = matcher().assign(ev(qr=[qr_payload("zzz999", "R1-M2")]))
    assert a.decided == "review" and a.clues["qr"] == ["zzz999:R1-M2"]


def test_clues_that_disagree_go_to_review():
    # the N/S line names a pair of match 1, the E/W line and the sender a pair of match 3
    a = matcher().assign(ev("Hill / Cheater", "Hall / Young", sender="hall@f.nz"))
    assert a.decided == "review"
    assert {c["match"] for c in a.candidates[:3]} >= {"R1-M1", "R1-M3"}
    # a names line read surely outweighs a sender of another match (a club-mate sends it)
    b = matcher().assign(ev("Hill / Cheater", sender="hall@f.nz"))
    assert (b.match, b.ns) == ("R1-M1", "P1")


def test_a_sheet_of_pairs_not_entered_is_no_match_or_asked_about():
    a = matcher().assign(ev("Ngata / Parata", "Fox / Nash", sender="stranger@x.org"))
    assert a.match is None and a.decided in ("none", "review") and a.weight > 0.9
    # with a code of no match of this draw either, no doubt is left
    sure = matcher().assign(ev("Ngata / Parata", "Fox / Nash", qr=[qr_payload(CODE, "R9-M9")]))
    assert sure.match is None


def test_the_winners_line_names_a_pair_by_its_names_or_its_seat():
    m = draw()[0]
    w = matcher().winners(frames("Smith / Jones"), m, ns="P1")
    assert w["pair"] == "P2" and w["weight"] > 0.95 and w["read"] == "smith/jones"
    assert matcher().winners(frames("N/S"), m, ns="P2")["pair"] == "P2"
    assert matcher().winners(frames("E/W"), m, ns="P2")["pair"] == "P1"
    assert matcher().winners(None, m, ns="P1") is None


def test_a_review_item_is_a_plain_record_with_the_candidates_and_the_clues():
    a = matcher().assign(ev(sender="hill@a.nz"))
    item = review_item(a, roster(), draw(), "mail.eml > scan.jpg")
    assert item["kind"] == "match" and item["sheet_id"] == "s1"
    assert item["question"].startswith("Which match")
    assert item["candidates"][0]["label"].startswith("R1-M1 (round 1): ")
    assert "sent by hill@a.nz (P1: Hill / Cheater)" in item["clues"]
    assert sum(c["weight"] for c in item["candidates"]) <= 1.0 + 1e-9


@pytest.mark.parametrize("header, address", [("Peter Hill <PETER@hill.nz>", "peter@hill.nz"),
                                             ("peter@hill.nz", "peter@hill.nz"),
                                             ("Peter Hill", None), (None, None)])
def test_sender_address(header, address):
    assert sender_address(header) == address
