"""Issue 33: every mistake shown at its deal; a mistake in clear writing is a flag, not a question.

A cell read as 0 surely does not hide a number; the classic slips of a person adding up (a carry,
a score in the wrong column) are flagged as such; a row never shows a value nobody wrote without
marking it; the dealer the players did not write is the rotation's, marked; a winners line read
loosely is a question, not a flag; review items say which inconsistency they are about."""

from __future__ import annotations

import random

from samples.content import sheet_content
from samples.synth import exact_reading, written_from_content
from scoring.reconcile import ReconcileSettings, reconcile
from scoring.sheet import CellReading
from tests.support import running, sheet

SCORES = [(100, 0), (0, 830), (0, 300), (170, 0), (60, 0), (0, 330), (660, 0), (0, 420), (120, 0),
          (0, 90)]


def _hard(rows, p=0.9, zero=(0, 0.999)):
    """``rows`` read as a hard sheet of real handwriting is: written numbers ``p`` sure, 0s (dashes)
    read ``zero`` -- not the reader's blank flag."""
    cells = {}
    for i, row in enumerate(rows):
        for j, col in enumerate(("ns", "ew", "cum_ns", "cum_ew")):
            cells[(i, col)] = [(row[j], p), (None, 1 - p)] if row[j] else [zero, (None, 1 - zero[1])]
    reading = sheet(rows, probs=cells)
    for row in reading.rows:
        for cell in row.cells.values():
            cell.blank = False
    reading.meta["doubt"] = 1 - p
    return reading


def test_a_carry_slip_beside_a_score_read_as_0_surely_is_flagged():
    """The issue's example: N/S cumulative written 5590 where 4590 + 0 = 4590, carried on, the N/S
    score a dash read as 0 at 0.999, on a sheet whose numbers are read 0.9 sure.  Flattened by the
    sheet's doubt like a written number, "that cell really holds 100" (honours) kept the slip in
    review at 0.79 and the row showed 100 in a cell with a dash."""
    rows = running(SCORES)
    rows = [r if i < 7 else (r[0], r[1], r[2] + 100, r[3]) for i, r in enumerate(rows)]
    result = reconcile(_hard(rows), explain=False)
    cum = [(f.deal, f.side, f.written, f.expected) for f in result.flags if f.kind == "cumulative"]
    assert cum == [(8, "ns", 1090, 990)]
    assert result.rows[7].values["ns"] == 0 and not result.rows[7].inferred
    assert not any(r.deal == 8 for r in result.review)
    # a 0 the reader doubts is still doubted: then a score of 100 there is a question
    doubtful = _hard(rows, zero=(0, 0.9))
    result = reconcile(doubtful, explain=False)
    assert not [f for f in result.flags if f.kind == "cumulative"]
    assert any(r.deal == 8 and r.kind == "cumulative" for r in result.review)


def test_a_score_in_the_wrong_column_is_one_flag():
    """A score written in the other side's column and added where it belongs: one "score" flag at
    its deal saying so, no cumulative flag, and the totals as the cumulatives have them."""
    rows = running(SCORES)
    rows[5] = (330, 0, rows[5][2], rows[5][3])  # E/W's 330 written in the N/S column
    result = reconcile(sheet(rows), explain=False)
    assert [(f.kind, f.deal, f.side, f.written, f.expected) for f in result.flags
            if f.kind != "missing_deal"] == [("score", 6, "ns", 330, 0)]
    flag = next(f for f in result.flags if f.kind == "score")
    assert "wrong column" in flag.message and "add it to E/W" in flag.message
    assert result.meta["arithmetic_totals"] == {"ns": rows[-1][2], "ew": rows[-1][3]}


def test_the_generators_wrong_column_sheets_are_flagged_exactly():
    for seed in range(6):
        c = sheet_content(random.Random(seed), "wide" if seed % 2 else "classic", mistakes=("wrong_column",))
        (m,) = c.mistakes
        result = reconcile(exact_reading(written_from_content(c)), explain=False)
        assert [(f.kind, f.deal, f.side, f.written) for f in result.flags] == \
            [("score", m["deal"], m["side"], m["written"])], seed


def test_a_value_nobody_wrote_is_marked_as_the_arithmetics():
    """A lone miscopy left in review: the row shows the arithmetic's value, marked in the JSON
    ("inferred"); values read as written are not marked."""
    rows = running(SCORES)
    rows[4] = (60, 0, 300, rows[4][3])  # 330 written as 300, deal 6 goes on from 330
    result = reconcile(sheet(rows, probs={(4, "cum_ns"): [(300, 0.95), (None, 0.05)]}), explain=False)
    row = result.rows[4].to_json()
    assert row["cum_ns"] == 330 and row["inferred"] == ["cum_ns"]
    assert all("inferred" not in r.to_json() for i, r in enumerate(result.rows) if i != 4)
    item = next(r for r in result.review if (r.deal, r.column) == (5, "cum_ns"))
    assert item.kind == "cumulative" and item.to_json()["kind"] == "cumulative"
    assert "If the sheet says 300, the players added up wrong" in item.reason


def test_an_unsure_reading_that_breaks_nothing_names_no_kind():
    rows = running(SCORES)  # the last deal: E/W 90, cumulative 1970 -- or 40 and 1920, as likely
    result = reconcile(sheet(rows, probs={(9, "ew"): [(90, 0.6), (80, 0.4)],
                                          (9, "cum_ew"): [(1970, 0.6), (1960, 0.4)]}), explain=False)
    item = next(r for r in result.review if (r.deal, r.column) == (10, "cum_ew"))
    assert item.reason == "unsure reading: is it 1970 or 1960? The shown 1970 is the likelier; look at the sheet"
    assert item.kind is None and "kind" not in item.to_json()


# ----------------------------------------------------------------------------- the dealer column
def _dealers(reading, written: dict[int, str]):
    """Only the dealers in ``written`` (row index -> seat) on the sheet, the others left empty."""
    for i, row in enumerate(reading.rows):
        row.cells["dealer"] = CellReading([(written[i], 0.99)]) if i in written \
            else CellReading([], blank=True)
    return reading


def test_dealers_not_written_are_the_rotations_and_marked():
    result = reconcile(_dealers(sheet(running(SCORES)), {0: "S"}), explain=False)
    rows = [r.to_json() for r in result.rows]
    assert [r["dealer"] for r in rows] == list("SWNESWNESW")
    assert "dealer_inferred" not in rows[0] and all(r["dealer_inferred"] is True for r in rows[1:])
    assert not [f for f in result.flags if f.kind == "dealer"]


def test_a_written_dealer_that_breaks_the_rotation_is_still_flagged():
    result = reconcile(_dealers(sheet(running(SCORES)), {0: "S", 5: "E"}), explain=False)
    # of the two written, the first is the anchor: the later one breaks the rotation
    assert [(f.deal, f.written, f.expected) for f in result.flags if f.kind == "dealer"] == [(6, "E", "W")]
    rows = [r.to_json() for r in result.rows]
    assert rows[5]["dealer"] == "E" and "dealer_inferred" not in rows[5]
    # nothing written after it: the deal went on round the table as it should have
    assert [r["dealer"] for r in rows] == list("SWNESENESW")


def test_no_dealer_written_anywhere_infers_nothing():
    result = reconcile(_dealers(sheet(running(SCORES)), {}), explain=False)
    assert all(r.values["dealer"] is None and not r.inferred for r in result.rows)


# ----------------------------------------------------------------------------- the winners line
def _winners(text, hint, names=("Smith / Jones", "Brown / Reid")):
    rows = running(SCORES)  # N/S 1110, E/W 1970: E/W won
    reading = sheet(rows, winners=hint)
    reading.winners_text, reading.names = text, {"ns": names[0], "ew": names[1]}
    return reconcile(reading, explain=False)


def test_a_clearly_read_winners_line_naming_the_losers_is_flagged():
    for text, names in (("N/S", None), ("ns", None), ("North / South", None), ("Smith / Jones", None),
                        ("Smith Jones", None), ("/ Jones Smith", None), ("Smith/Jones", ("Smith / Jones", None))):
        result = _winners(text, "ns", *([names] if names else []))
        assert [f.kind for f in result.flags if f.kind == "winner"] == ["winner"], text
        assert not any(r.column == "winners" for r in result.review)


def test_a_loosely_read_winners_line_naming_the_losers_is_a_question():
    """Half-read tokens and loose matches of the names give the reader's hint, not a flag."""
    for text, names in (("WS", ("Smith / Jones", "Brown / Reid")), ("Sm J", ("Smith / Jones", "Brown / Reid")),
                        ("Smth / Jns", ("Smith / Jones", None)), ("Smith / Jones", (None, "Brown / Reid"))):
        result = _winners(text, "ns", names)
        assert not [f for f in result.flags if f.kind == "winner"], text
        item = next(r for r in result.review if r.column == "winners")
        assert item.kind == "winner" and "seems to name N/S" in item.reason and "E/W have the higher" in item.reason
    # a loosely read line naming the winners is no question at all
    assert not any(r.column == "winners" for r in _winners("WE", "ew").review)


def test_the_value_written_as_the_readers_sixth_candidate_is_still_tried():
    """A cumulative the reader could not tell (its sixth candidate the value written), beside a
    score it misread (150 for 250, 250 its one-digit variant): the two together are the reading
    that adds up (generated sheet 140287 got a false flag at the next deal when only four
    candidates were tried)."""
    scores = [(100, 0), (0, 830), (250, 0), (0, 0), (0, 200)]
    rows = running(scores)
    probs = {(2, "ns"): [(150, 0.80), (550, 0.1), (350, 0.05), (None, 0.01)],
             (2, "cum_ns"): [(None, 0.24), (160, 0.19), (260, 0.15), (60, 0.13), (300, 0.13), (350, 0.07)]}
    reading = sheet(rows, probs=probs)
    reading.rows[2].cells["ns"].near = {250: -2.5}
    result = reconcile(reading, explain=False)
    assert not [f for f in result.flags if f.kind == "cumulative"]
    assert result.rows[2].values["cum_ns"] == 350 and result.rows[2].values["ns"] == 250


def test_a_winners_flag_needs_totals_the_readings_agree_on():
    """A clearly read winners line naming N/S (990), who are behind only if E/W's last score is 350
    (read 0.55) rather than 50 (0.45): the winners line is a question, not a flag."""
    rows = running([(100, 0), (0, 600), (0, 300), (170, 0), (60, 0), (660, 0), (0, 350)])
    assert (rows[-1][2], rows[-1][3]) == (990, 1250)
    sure = sheet(rows, winners="ns")
    assert [f.kind for f in reconcile(sure, explain=False).flags if f.kind == "winner"] == ["winner"]
    unsure = sheet(rows, winners="ns", probs={(6, "ew"): [(350, 0.55), (50, 0.45)],
                                               (6, "cum_ew"): [(1250, 0.55), (950, 0.45)]})
    result = reconcile(unsure, explain=False)
    assert not [f for f in result.flags if f.kind == "winner"]
    assert any(r.column == "winners" and r.kind == "winner" for r in result.review)


def _easy(rows, probs, doubt=0.005):
    reading = sheet(rows, probs=probs)
    reading.meta["doubt"] = doubt
    return reading


def test_a_carry_beside_a_score_whose_runner_up_would_explain_it_is_flagged_on_an_easy_sheet():
    """A carry of 100 beside a score read 0.98 as 50 with 150 at 0.65 %: on an easy sheet the
    reader claims such runner-ups far more often than they are written (generated sheet 140464:
    review at 0.17 before), so the players' slip is the likelier; on a hard sheet it stays a
    question."""
    scores = list(SCORES)
    scores[7] = (0, 50)
    rows = [(ns, ew, cn, ce + 100 if i >= 7 else ce) for i, (ns, ew, cn, ce) in enumerate(running(scores))]
    probs = {(7, "ew"): [(50, 0.98), (150, 0.0065), (550, 0.0035), (None, 0.01)]}
    result = reconcile(_easy(rows, probs), explain=False)
    assert [(f.deal, f.written, f.expected) for f in result.flags if f.kind == "cumulative"] == \
        [(8, rows[7][3], rows[7][3] - 100)]
    hard = reconcile(_easy(rows, probs, doubt=0.05), explain=False)
    assert not [f for f in hard.flags if f.kind == "cumulative"]
    assert any(r.deal == 8 and r.kind == "cumulative" for r in hard.review)


def test_both_cells_of_a_deal_misread_is_tried_before_a_mistake_on_the_next():
    """E/W's 250 read as 150 (250 the fourth of its one-digit variants the reader finds likely) and
    its cumulative read as nothing like 1410: reading both otherwise explains the sheet; a
    cumulative slip on the next deal (generated sheet 140568's false flag) does not."""
    rows = running([(100, 0), (0, 830), (0, 330), (250, 0), (0, 250), (620, 0), (0, 190)])
    i = 4
    assert rows[i][3] == 1410
    probs = {(i, "ew"): [(150, 0.58), (550, 0.16), (None, 0.12), (350, 0.05), (850, 0.02)],
             (i, "cum_ew"): [(140, 0.26), (190, 0.25), (10, 0.17), (None, 0.14), (40, 0.05), (1140, 0.03)]}
    reading = sheet(rows, probs=probs)
    reading.rows[i].cells["ew"].near = {250: -1.5, 350: -0.6, 450: -1.3, 550: -1.1, 850: -1.3,
                                        950: -1.4, 130: -1.2}
    result = reconcile(reading, explain=False)
    assert not [f for f in result.flags if f.kind == "cumulative"]
    assert result.rows[i].values["ew"] == 250 and result.rows[i].values["cum_ew"] == 1410
    assert set(result.rows[i].inferred) == {"ew", "cum_ew"}


def test_a_number_a_flag_rests_on_read_unsurely_is_named_for_a_check():
    """A slip flagged at deal 6 whose base -- deal 5's N/S cumulative -- the reader could hardly
    read: the flag stands (every other reading needs a mistake too), and deal 5's cumulative is a
    review item saying the mistake may be there (generated sheet 140387: a score of 8200 at deal 5,
    read as 200, was flagged as a slip at deal 6 and nothing pointed at deal 5)."""
    rows = running(SCORES)
    rows = [r if i < 5 else (r[0], r[1], r[2] + 1000, r[3]) for i, r in enumerate(rows)]
    probs = {(4, "cum_ns"): [(None, 0.3), (330, 0.15), (380, 0.1), (830, 0.1)]}
    result = reconcile(sheet(rows, probs=probs), explain=False)
    assert [(f.deal, f.side) for f in result.flags if f.kind == "cumulative"] == [(6, "ns")]
    item = next(r for r in result.review if (r.deal, r.column) == (5, "cum_ns"))
    assert item.kind == "cumulative" and item.reason.startswith("the flag at deal 6 rests on this number")
    # read surely, the same number is no question
    sure = reconcile(sheet(rows), explain=False)
    assert [(f.deal, f.side) for f in sure.flags if f.kind == "cumulative"] == [(6, "ns")]
    assert not any(r.deal == 5 for r in sure.review)


def test_a_carry_slip_is_not_explained_away_by_reading_a_number_as_nothing():
    """A carry slip (E/W's 100 of honours not added: the cumulative 100 short, carried on) beside
    that 100 read 0.97 sure on a hard sheet: "the 100 is really a blank" explained the cumulative
    as well, and sent the slip to review at 0.75.  The reader reads a number where nothing is
    written far more rarely than it misreads a digit (MisreadSettings.shape_blank)."""
    rows = running(SCORES)
    rows[3] = (170, 100, rows[3][2], rows[3][3])  # N/S 170, E/W 100 honours; E/W cumulative as before
    result = reconcile(_hard(rows, p=0.97), explain=False)
    assert [(f.kind, f.deal, f.side, f.written, f.expected) for f in result.flags
            if f.kind != "missing_deal"] == [("cumulative", 4, "ew", 1130, 1230)]
    assert result.rows[3].values["ew"] == 100


def test_a_sure_readings_unlikely_variant_does_not_explain_a_miscopy_away():
    """A lone miscopied cumulative (350 for 330, the next rows right again) read 0.97 sure, the
    reader finding 330 10 ** -4 as likely: the general line prices that variant as a misread as
    likely as the players' slip (a question); MisreadSettings.near_sure's steeper line for sure
    readings makes it the flag it is."""
    rows = running(SCORES)
    rows[5] = (rows[5][0], rows[5][1], rows[5][2] + 20, rows[5][3])
    reading = _hard(rows, p=0.97)
    reading.rows[5].cells["cum_ns"].near = {rows[5][2] - 20: -4.0}
    cum = [(f.deal, f.written, f.expected) for f in reconcile(reading, explain=False).flags
           if f.kind == "cumulative"]
    assert cum == [(6, 350, 330)]
    off = ReconcileSettings().with_values({"misread.near_sure": False})
    cum = [(f.deal, f.written, f.expected) for f in reconcile(reading, settings=off, explain=False).flags
           if f.kind == "cumulative"]
    assert cum == []


def test_an_empty_row_with_a_speck_read_as_0_is_still_an_empty_row():
    """A deal left out (its row empty, its score in the later cumulatives) where a speck in the N/S
    cumulative is read "0" at 0.52 (unreadable 0.44): taken for written, the row was a deal scoring
    nothing and the next deal's cumulatives were flagged; it is the missing deal, in question."""
    rows = running(SCORES)
    rows[6] = (0, 0, 0, 0)
    reading = sheet(rows, probs={(6, "cum_ns"): [(0, 0.52), (None, 0.44), (10, 0.04)]})
    reading.rows[6].cells["cum_ns"].blank = False
    reading.rows[6].cells["dealer"] = CellReading([(None, 1.0)], blank=True)
    result = reconcile(reading, explain=False)
    assert [f.kind for f in result.flags] == ["missing_deal"] and result.flags[0].deal == 11
    assert [(r.deal, r.kind) for r in result.review] == [(7, "missing_deal")]


def test_a_lone_miscopy_with_two_digits_swapped_is_flagged():
    """Generated sheet 190094: E/W's cumulative written 890 where 930 + 50 = 980, the next row
    going on from 980, read 0.93 sure on a sheet of real handwriting.  "The reader misread 980 as
    890" needs both digits misread, each as the other; a person swaps them in one slip
    (DecoderSettings.swap_discount) -- without it, a question."""
    rows = running(SCORES)
    rows[5] = (rows[5][0], rows[5][1], rows[5][2], 1640)  # 1460 written with 4 and 6 swapped
    result = reconcile(_hard(rows, p=0.93), explain=False)
    assert [(f.kind, f.deal, f.side, f.written, f.expected) for f in result.flags
            if f.kind != "missing_deal"] == [("cumulative", 6, "ew", 1640, 1460)]
    off = ReconcileSettings().with_values({"decoder.swap_discount": 0.0})
    result = reconcile(_hard(rows, p=0.93), settings=off, explain=False)
    assert not [f for f in result.flags if f.kind == "cumulative"]
    assert any(r.deal == 6 and r.kind == "cumulative" for r in result.review)
