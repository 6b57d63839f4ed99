"""Seed 004: its rubber party and Chicago examples; duplicate scoring recognised."""

from scoring.model import Contract, Pair, Result
from scoring.notation import parse_deals
from scoring.pad import score_match
from scoring.systems import (
    chicago_scores,
    chicago_vulnerability,
    duplicate_entries,
    duplicate_explain,
)


def rubber_totals(text: str) -> Pair:
    lines = score_match(parse_deals(text), unfinished=False).lines
    assert lines[-1].outcome.rubber_winner  # each example ends its rubber
    return lines[-1].cumulative


# "You" = N/S.  Seed 004's party of three rubbers.
RUBBER_1 = "2NT N 9\n4S E 10\n2S N 8\n2D N 8\n6Dx E 10\n3NTx E 10\n"
RUBBER_2 = "6S N 12\n3H E 9\n5D N 10\n3NT N 9\n"
RUBBER_3 = "3Sx N 7 honours 100 NS\n4H E 11\n1NT N 7\n2D N 8\n3NT E 9\n"


def test_seed_004_rubber_party():
    # Rubber 1: the article says E/W win it by 320, but its own items for the last
    # deal (3NT doubled making 10: 200 below, 200 overtrick, "redoubled" in its text
    # although the contract was doubled) leave out the 50 for making a doubled
    # contract, which RULES.md and every other seed include: the true margin is 370.
    # (The article's 6S-doubled Chicago deal, 1260 for 1310, omits the same 50.)
    r1 = rubber_totals(RUBBER_1)
    assert r1 == (700, 1070) and r1.ew - r1.ns == 320 + 50
    # Rubber 2: N/S ahead by 970 after carrying the article's 320 deficit.
    r2 = rubber_totals(RUBBER_2)
    assert r2.ns - r2.ew - 320 == 970
    # Rubber 3: E/W win the party by 100 (taking the article's 970 carry).
    r3 = rubber_totals(RUBBER_3)
    assert r3 == (180, 1250) and (r3.ew - r3.ns) - 970 == 100


# Seed 004's eight Chicago deals, dealers N E S W N E S W.
CHICAGO = parse_deals("2S N 9\n3D N 9\n3NT E 9\n3H N 9\n6Sx N 13\n2NT E 9\n4H N 10\n3S E 9\n")


def test_seed_004_chicago_classic():
    got = chicago_scores(CHICAGO)
    # The article's table lists deals 1 and 6 without their overtrick (30, shown above
    # the table) and deal 5 as 1260 (without the 50 insult, see above).
    seed = [Pair(60 + 30, 0), Pair(360, 0), Pair(0, 400), Pair(190, 0),
            Pair(1260 + 50, 0), Pair(0, 70 + 30), Pair(620, 0), Pair(0, 190)]
    assert got == seed


def test_seed_004_chicago_per_deal():
    got = chicago_scores(CHICAGO, style="per_deal")
    seed = [Pair(140, 0), Pair(110, 0), Pair(0, 400), Pair(190, 0),
            Pair(1260 + 50, 0), Pair(0, 200), Pair(620, 0), Pair(0, 190)]
    assert got == seed


def test_chicago_vulnerability_seed_004():
    assert [tuple(chicago_vulnerability(i, d)) for i, d in enumerate("NESW", 1)] == [
        (0, 0), (0, 1), (1, 0), (1, 1)]
    assert tuple(chicago_vulnerability(2)) == (1, 0) and tuple(chicago_vulnerability(7)) == (0, 1)


def test_chicago_duplicate_style_seed_004_example():
    # seed 004: "1 Club redoubled ... made, 230 points are written"
    r = Result(Contract(1, "C", 2), "ns", 7)
    assert chicago_scores([r], style="duplicate") == [Pair(230, 0)]


def test_duplicate_sheet_recognised():
    four_spades = Result(Contract(4, "S"), "ns", 10)
    assert duplicate_entries(four_spades, False, False) == (420, 0)
    found = duplicate_explain(420, 0, False, False)
    assert four_spades in found and Result(Contract(4, "H"), "ns", 10) in found
    assert duplicate_explain(0, 500, True, True)  # 2 down doubled vulnerable, either way
    assert duplicate_explain(60, 0, False, False) == ()  # below 70 no made contract scores
    assert duplicate_explain(100, 100, True, True) == ()  # one side scores per deal
    assert duplicate_explain(0, 0, False, False) == (Result(None),)
