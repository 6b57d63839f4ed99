"""The competition, draw, results and form --match commands on a real ledger, without reading
scans: what they print, what they store, and a clear message for every bad input."""

from __future__ import annotations

import json

import pypdfium2 as pdfium
import pytest

import cli
from batch.ledger import Ledger
from competition.review import answer_match, match_review_items
from competition.store import load_assignments
from tests.competition.helpers import PAIRS


def run(capsys, *argv):
    capsys.readouterr()
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def comp(tmp_path, capsys):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(PAIRS)
    folder = tmp_path / "club"
    status, out, err = run(capsys, "competition", folder, "--pairs", pairs, "--name", "Club Cup")
    assert status == 0, err
    return folder, pairs


def test_set_up_draw_and_results_before_any_sheet(comp, capsys):
    folder, pairs = comp
    status, out, err = run(capsys, "draw", folder, "--round", "1", "--deadline", "2025-06-30",
                           "--seed", "3")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "round,match,pair_a,pair_b,deadline" and len(lines) == 4
    assert all(line.endswith(",2025-06-30") for line in lines[1:])
    status, out, err = run(capsys, "results", folder, "--today", "2025-06-01")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and [r["status"] for r in rows] == ["missing"] * 3
    assert rows[0] == {"round": 1, "match": "R1-M1", "pairs": rows[0]["pairs"], "ns": None,
                       "totals": None, "winner": None, "margin": None, "status": "missing",
                       "sheets": []}
    status, out, _ = run(capsys, "results", folder, "--today", "2025-07-01", "--format", "csv")
    assert out.splitlines()[0] == ("round,match,pair_a,pair_b,ns,total_a,total_b,winner,margin,"
                                   "status,sheets")
    assert out.count(",overdue,") == 3
    page = (folder / "competition.html").read_text()
    assert "Club Cup" in page and "Round 1" in page and "6 pairs still in" in page
    assert (folder / "draw.csv").read_text().count("\n") == 4
    # a second draw of round 1 with no sheet yet replaces it; round 2 waits for round 1
    assert run(capsys, "draw", folder, "--round", "1", "--seed", "4")[0] == 0
    status, _, err = run(capsys, "draw", folder, "--round", "2")
    assert status == 1 and "round 1 is not finished: R1-M1 (missing)" in err


def test_the_roster_and_draw_are_updated_by_running_it_again(comp, tmp_path, capsys):
    folder, pairs = comp
    draw = tmp_path / "draw.csv"
    draw.write_text("round,match,pair_a,pair_b,deadline\n1,A,P1,P2,\n1,B,P3,P4,\n1,C,P5,,\n")
    status, out, err = run(capsys, "competition", folder, "--pairs", pairs, "--draw", draw)
    assert status == 0 and "3 matches imported" in out, err
    draw.write_text("round,match,pair_a,pair_b,deadline\n2,D,P1,P3,2025-08-01\n")
    assert run(capsys, "competition", folder, "--pairs", pairs, "--draw", draw)[0] == 0
    status, out, _ = run(capsys, "results", folder, "--today", "2025-07-01")
    assert [json.loads(line)["match"] for line in out.splitlines()] == ["A", "B", "C", "D"]
    bye = json.loads(out.splitlines()[2])
    assert bye["pairs"] == ["P5"] and bye["winner"] == "P5" and bye["status"] == "verified"
    # a roster without a pair the draw names is refused, and nothing changes
    pairs.write_text("\n".join(PAIRS.splitlines()[:-1]) + "\n")  # P6 gone; the draw has none
    assert run(capsys, "competition", folder, "--pairs", pairs)[0] == 0
    pairs.write_text("\n".join(line for line in PAIRS.splitlines() if not line.startswith("P3,")))
    status, _, err = run(capsys, "competition", folder, "--pairs", pairs)
    assert status == 1 and "names pair(s) P3" in err
    with Ledger(folder / "ledger.sqlite", readonly=True) as ledger:
        from competition.store import load_roster
        assert "P3" in load_roster(ledger)


def test_bad_input_gets_a_clear_message_and_changes_nothing(tmp_path, capsys):
    folder = tmp_path / "club"
    status, _, err = run(capsys, "competition", folder)
    assert status == 2 and "give --pairs" in err
    status, _, err = run(capsys, "competition", folder, "--pairs", tmp_path / "nope.csv")
    assert status == 2 and "cannot read" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("pair,names,grade,emails,area\nP1,Hill,Jnr,,\n")
    status, _, err = run(capsys, "competition", folder, "--pairs", bad)
    assert status == 1 and "line 2" in err
    status, _, err = run(capsys, "results", tmp_path / "empty")
    assert status == 2 and "no ledger.sqlite" in err
    status, _, err = run(capsys, "draw", folder, "--round", "1")  # a ledger, no competition
    assert status == 2 and "no competition here" in err
    status, _, err = run(capsys, "results", folder, "--today", "June")
    assert status == 2 and "--today" in err
    status, _, err = run(capsys, "form", "--match", "R1-M1")
    assert status == 2 and "need --dir" in err


def test_match_forms_and_the_organisers_answer(comp, tmp_path, capsys):
    folder, _ = comp
    assert run(capsys, "draw", folder, "--round", "1", "--seed", "3")[0] == 0
    out_pdf = tmp_path / "forms.pdf"
    status, out, err = run(capsys, "form", out_pdf, "--round", "1", "--dir", folder, "--dpi", "150")
    assert status == 0 and "3 match forms" in out, err
    assert len(pdfium.PdfDocument(str(out_pdf))) == 3
    status, _, err = run(capsys, "form", out_pdf, "--match", "R9-M9", "--dir", folder)
    assert status == 2 and "no match R9-M9" in err
    status, _, err = run(capsys, "competition", folder, "--assign", "nosuchsheet=R1-M1")
    assert status == 1 and "no sheet nosuchsheet" in err
    with Ledger(folder / "ledger.sqlite") as ledger:
        assert match_review_items(ledger) == []
        with pytest.raises(ValueError, match="no sheet"):
            answer_match(ledger, "x-p1", "R1-M1")
        assert load_assignments(ledger) == {}
