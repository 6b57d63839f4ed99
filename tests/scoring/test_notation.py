"""The deal notation of CONTRACT.md: valid lines and every kind of bad line."""

import pytest

from scoring.model import Contract, Result
from scoring.notation import NotationError, parse_deal, parse_deals


def test_contract_examples():
    text = "4S N 10\n3NTx E 7\n6Hxx S 12 honours 150 NS\n2C W 8 honours 100 NS\npass\n"
    rs = parse_deals(text)
    assert rs[0] == Result(Contract(4, "S"), "ns", 10, seat="N")
    assert rs[1] == Result(Contract(3, "NT", 1), "ew", 7, seat="E")
    assert rs[2] == Result(Contract(6, "H", 2), "ns", 12, 150, "ns", "S")
    assert rs[3] == Result(Contract(2, "C"), "ew", 8, 100, "ns", "W")
    assert rs[4].passed


def test_n_for_nt_case_blank_and_comments():
    rs = parse_deals("# match 1\n\n1nx w 8   # doubled\n  PASS \n3ntXX n 9 HONOURS 150 ew\n")
    assert [str(r) for r in rs] == ["1NTx W 8", "pass", "3NTxx N 9 honours 150 EW"]


@pytest.mark.parametrize("line,words", [
    ("8S N 10", "level 8"), ("0S N 10", "level 0"), ("3Z N 9", "strain 'Z'"),
    ("4S N 14", "0-13"), ("4S N -1", "0-13"), ("4S X 10", "declarer"),
    ("4Sxxx N 10", "'xxx'"), ("4S N", "CONTRACT DECLARER TRICKS"),
    ("3NT N 9 honours 100 NS", "no 100 at NT"), ("4S N 10 honours 120 NS", "120"),
    ("4S N 10 honours 100 XY", "side"), ("4S N 10 honours 100", "honours VALUE SIDE"),
    ("pass 4S", "nothing may follow"), ("S4 N 10", "bad contract"), ("4S N ten", "0-13"),
])
def test_bad_line_reason(line, words):
    with pytest.raises(ValueError) as exc:
        parse_deal(line)
    assert words in str(exc.value)


def test_every_bad_line_reported_with_its_number():
    text = "4S N 10\n\n8S N 10\n# note\n3NT N 9\n4S Q 10\n"
    with pytest.raises(NotationError) as exc:
        parse_deals(text)
    assert [n for n, _ in exc.value.errors] == [3, 6]
    assert "line 3:" in str(exc.value) and "line 6:" in str(exc.value)
