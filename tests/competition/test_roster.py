"""PAIRS.csv: parsing, every bad line named, the seed's categories."""

from __future__ import annotations

import pytest

from competition.roster import RosterError, pairs_csv, parse_pairs, split_players
from tests.competition.helpers import PAIRS


def test_pairs_are_read_with_their_players_grades_addresses_and_areas():
    roster = parse_pairs(PAIRS)
    assert len(roster) == 6
    p1 = roster.get("P1")
    assert p1.players == ("Hill", "Cheater") and p1.names == "Hill / Cheater"
    assert p1.emails == ("hill@a.nz", "cheater@a.nz") and p1.area == "Otaki"
    assert roster.get("P5").emails == () and roster.by_email("HILL@A.NZ") is p1
    assert roster.by_email("nobody@x.nz") is None


@pytest.mark.parametrize("grade, category", [("Jnr", "Junior"), ("Int", "Intermediate"),
                                             ("Int/Jnr", "Intermediate"), ("Int/Int", "Intermediate"),
                                             ("Open", "Open"), ("Open/Jnr", "Open"),
                                             ("Jnr/Jnr", "Junior")])
def test_the_seeds_categories(grade, category):
    roster = parse_pairs(f"pair,names,grade,emails,area\nP1,A / B,{grade},,\n")
    assert roster.get("P1").category == category


def test_a_byte_order_mark_other_column_order_and_separators_are_taken():
    text = "\ufeffarea,pair,grade,names,emails\nOtaki,X9,junior,Hill & Cheater,a@b.nz;c@d.nz\n"
    p = parse_pairs(text).get("X9")
    assert p.players == ("Hill", "Cheater") and p.grade == "Jnr" and p.emails == ("a@b.nz", "c@d.nz")


def test_every_bad_line_is_named():
    text = ("pair,names,grade,emails,area\n"
            "P1,Hill / Cheater,Jnr,,\n"
            "P1,Smith / Jones,Open,,\n"  # duplicate id
            "P2,Smith,Open,,\n"  # one name
            "P3,Brown / Reid,Expert,,\n"  # no such grade
            "P4,Taylor / Wilson,Int,not-an-address,\n"
            "P5,Walker / Clark,Open,hill@x.nz,\n"
            "P6,Hall / Young,Jnr,HILL@x.nz,\n"  # the same address as P5's
            "bad id!,Lee / Stone,Jnr,,\n")
    with pytest.raises(RosterError) as err:
        parse_pairs(text, "pairs.csv")
    said = str(err.value)
    for line in (3, 4, 5, 6, 8, 9):
        assert f"pairs.csv: line {line}:" in said
    assert "line 7" not in said and "already on line 2" in said and "also P5" in said


@pytest.mark.parametrize("text, message", [("", "empty"), ("pair,names,grade\nP1,A / B,Jnr\n", "no column emails, area"),
                                           ("pair,names,grade,emails,area\n", "no pairs")])
def test_an_empty_file_or_header_says_what_is_expected(text, message):
    with pytest.raises(RosterError, match=message):
        parse_pairs(text)


def test_the_roster_written_reads_back_the_same():
    roster = parse_pairs(PAIRS)
    again = parse_pairs(pairs_csv(roster))
    assert again.pairs == roster.pairs


def test_split_players():
    assert split_players("Hill/Cheater") == ("Hill", "Cheater")
    assert split_players("Jane Hill and Bob Cheater") == ("Jane Hill", "Bob Cheater")
    assert split_players("Hill") is None and split_players("A / B / C") is None
