"""Before a number becomes a flag the cells it rests on get a second look (scoring/reconcile/
look.py): where the second reader sees the value that makes the sheet add up, the reading was a
misread and there is no flag; where it confirms what was read, the flag stands."""

from __future__ import annotations

from scoring.reconcile import reconcile
from scoring.reconcile.look import asked_cells, seen_again
from scoring.reconcile.settings import LookSettings
from scoring.sheet import CellReading
from tests.support import running, sheet

SCORES = [(100, 0), (0, 830), (0, 300), (170, 0), (60, 0), (0, 330), (660, 0), (0, 420), (120, 0),
          (0, 90)]


def _misread_cumulative():
    """N/S's cumulative of deal 5 read 0.99 sure as a value one digit off (a 3 read as an 8) on an
    easy sheet: on its own a lone miscopied cumulative."""
    rows = running(SCORES)
    true = rows[4][2]
    wrong = true + 500
    reading = sheet(rows, probs={(4, "cum_ns"): [(wrong, 0.99), (None, 0.01)]})
    reading.meta["doubt"] = 0.01
    return reading, true, wrong


class _Second:
    """A second reader's opinion of one cell (a plain answer, as ocr.look's look gives it),
    recording what it was asked."""

    def __init__(self, where, opinion):
        self.where, self.opinion, self.asked = where, opinion, []

    def __call__(self, asked):
        self.asked += asked
        return {(row, key): self.opinion for row, key, _ in asked if (row, key) == self.where}


def test_without_a_second_look_the_sure_misread_is_a_flag():
    reading, true, wrong = _misread_cumulative()
    result = reconcile(reading, explain=False)
    assert [(f.kind, f.deal, f.written, f.expected) for f in result.flags
            if f.kind == "cumulative"] == [("cumulative", 5, wrong, true)]


def test_a_second_look_that_sees_the_consistent_value_undoes_the_flag():
    reading, true, wrong = _misread_cumulative()
    look = _Second(("5", "cum_ns"), {true: 0.8, wrong: 0.1, None: 0.1})
    result = reconcile(reading, explain=False, look=look)
    assert not [f for f in result.flags if f.kind == "cumulative"]
    assert result.rows[4].values["cum_ns"] == true
    # the flagged cell was asked about with both values, and its neighbours with theirs
    asked = {(r, k): v for r, k, v in look.asked}
    assert set(asked[("5", "cum_ns")]) >= {true, wrong}
    assert ("4", "cum_ns") in asked and ("6", "cum_ns") in asked
    assert result.meta["second_look"] >= 1


def test_a_second_look_that_confirms_the_reading_keeps_the_flag():
    reading, true, wrong = _misread_cumulative()
    look = _Second(("5", "cum_ns"), {true: 0.0001, wrong: 0.95, None: 0.05})
    result = reconcile(reading, explain=False, look=look)
    assert [(f.kind, f.deal, f.written, f.expected) for f in result.flags
            if f.kind == "cumulative"] == [("cumulative", 5, wrong, true)]


def test_no_numbers_flag_no_second_look():
    rows = running(SCORES)
    look = _Second(("5", "cum_ns"), {})
    result = reconcile(sheet(rows), explain=False, look=look)
    assert look.asked == [] and "second_look" not in result.meta
    assert asked_cells([], sheet(rows)) == []


def test_seen_again_mixes_the_second_readers_vote_among_the_values_in_question():
    cell = CellReading([(120, 0.9), (None, 0.1)], near={170: -3.0})
    again = seen_again(cell, {120: 0.1, 170: 0.8, 730: 0.05, 20: 0.01, None: 0.04}, [120, 170, 20])
    probs = dict(again.candidates)
    # 730 not in question, 20 below seen_at: neither is added
    assert set(probs) == {120, 170, None}
    assert abs(sum(probs.values()) - 1) < 1e-9
    # 120: what the second reader gave none of the values in question stays the reader's;
    # "none of these" as it was
    assert abs(probs[120] - 0.9 * ((1 - 0.3 * 0.9) + 0.3 * 0.1)) < 1e-9
    assert abs(probs[170] - 0.9 * 0.3 * 0.8) < 1e-9
    assert abs(probs[None] - 0.1) < 1e-9
    assert again.near == cell.near  # the best is still 120: its variants' odds still hold
    # a second reader that reads something else entirely leaves the cell as the reader read it
    other = seen_again(cell, {3480: 0.9, 120: 0.005}, [120, 170])
    assert other.candidates == cell.candidates
    turned = seen_again(CellReading([(120, 0.3), (None, 0.7)], near={170: -3.0}), {170: 0.99},
                        [120, 170], LookSettings(share=0.8))
    probs = dict(turned.candidates)
    assert probs[170] > probs[120] and probs[None] == 0.7 and turned.near is None


def test_on_a_sheet_sent_back_for_a_rescan_a_mistake_on_doubtful_writing_is_a_question():
    """A sheet with too much unread for a rescan (a fax of pencil): a cumulative mistake whose
    own cell was read 0.85 sure is a "misread or mistake?" review item at its deal, not a flag; on
    a sheet read well enough the same cells make a flag, and so does the rescan sheet when
    verdicts.rescan_sure is 0."""
    from scoring.reconcile import ReconcileSettings

    rows = running(SCORES)
    rows[2] = (rows[2][0], rows[2][1], rows[2][2], rows[2][3] + 1000)  # a slip carried on
    rows[3:] = [(r[0], r[1], r[2], r[3] + 1000) for r in rows[3:]]
    probs = {(2, "cum_ew"): [(rows[2][3], 0.85), (None, 0.15)]}
    bad = dict(probs)
    for i in range(5, 10):
        for col in ("ns", "ew", "cum_ns", "cum_ew"):
            bad[(i, col)] = [(None, 0.7), (rows[i][("ns", "ew", "cum_ns", "cum_ew").index(col)], 0.3)]
    well = reconcile(sheet(rows, probs=probs), explain=False)
    assert well.rescan is None
    assert [(f.kind, f.deal) for f in well.flags if f.kind == "cumulative"] == [("cumulative", 3)]
    faint = reconcile(sheet(rows, probs=bad), explain=False)
    assert faint.rescan is not None
    assert not [f for f in faint.flags if f.kind == "cumulative"]
    assert any(r.deal == 3 and r.kind == "cumulative" and "misread" in r.reason
               for r in faint.review)
    off = ReconcileSettings().with_values({"verdicts.rescan_sure": 0})
    faint = reconcile(sheet(rows, probs=bad), settings=off, explain=False)
    assert [(f.kind, f.deal) for f in faint.flags if f.kind == "cumulative"] == [("cumulative", 3)]


def test_a_second_look_that_reads_another_number_in_the_flagged_cell_makes_it_a_question():
    """The reader read the flagged cell 0.99 sure; the second reader, asked, reads a third number
    there (bench sheet 130093: 170 read 120 at 0.998, the second reader "10"): one reader's sure
    reading is no ground for a flag -- the deal is a "misread or mistake?" question instead."""
    from scoring.reconcile import ReconcileSettings

    reading, true, wrong = _misread_cumulative()
    opinion = {wrong: 0.002, true: 0.001, 12: 0.9, None: 0.097}
    result = reconcile(reading, explain=False, look=_Second(("5", "cum_ns"), opinion))
    assert not [f for f in result.flags if f.kind == "cumulative"]
    assert any(r.deal == 5 and r.kind == "cumulative" for r in result.review)
    # without the rule (doubt_below 0) the second reader's other number is ignored: a flag
    off = ReconcileSettings().with_values({"look.doubt_below": 0})
    result = reconcile(reading, settings=off, explain=False, look=_Second(("5", "cum_ns"), opinion))
    assert [(f.kind, f.deal) for f in result.flags if f.kind == "cumulative"] == [("cumulative", 5)]


def test_seen_again_doubts_a_flagged_cell_the_second_reader_reads_as_another_number():
    cell = CellReading([(120, 0.998), (None, 0.002)])
    opinion = {10: 0.863, 110: 0.084, 120: 0.002, 170: 0.001, None: 0.05}
    doubting = LookSettings(doubt_below=0.05, doubt_other=0.8)
    probs = dict(seen_again(cell, opinion, [120, 170], doubting, flagged=True).candidates)
    # the second reader's share (0.3) of what it read outside 120 and 170 is "none of these"
    assert abs(probs[120] - 0.998 * 0.7) < 1e-9
    assert abs(probs[None] - (0.002 + 0.998 * 0.3)) < 1e-9
    assert abs(sum(probs.values()) - 1) < 1e-9
    # not the cell the flag names, or a second reader that reads nothing it can name: as read
    assert seen_again(cell, opinion, [120, 170], doubting).candidates == cell.candidates
    unsure = {120: 0.002, 10: 0.3, None: 0.698}
    assert seen_again(cell, unsure, [120, 170], doubting, flagged=True).candidates == cell.candidates
    # a second reader that gives the reader's value its due confirms it
    # nor one that still gives the reader's value a fair share (bench sheet 140524: a legible
    # 130 the second reader reads "30" at 0.8, "130" at 0.19 -- its own misread)
    fair = {120: 0.19, 20: 0.8}
    assert seen_again(cell, fair, [120, 170], doubting, flagged=True).candidates[0][0] == 120
    assert dict(seen_again(cell, fair, [120, 170], doubting, flagged=True).candidates)[None] < 0.01
    agrees = {120: 0.6, 10: 0.4}
    assert dict(seen_again(cell, agrees, [120, 170], doubting, flagged=True).candidates)[120] > 0.99


def test_a_second_reader_losing_the_leading_1_does_not_doubt_a_flag():
    """Generated sheet 160101: a lone miscopied cumulative 11300 (11220 + 90 = 11310) read 0.99
    sure; the second reader, asked, reads "1300" -- the thin leading 1 it loses -- and its vote
    and doubt made the flag a question.  The reader's number without its leading 1 explains
    nothing there and is no doubt (LookSettings.trust_lost_one); where it is the value the sheet
    needs, it is still the second reader's vote."""
    from scoring.reconcile import ReconcileSettings

    rows = running(SCORES)
    assert rows[8][2] == 1110  # N/S's cumulative after deal 9, the next row going on from it
    rows[8] = (rows[8][0], rows[8][1], 1100, rows[8][3])
    reading = sheet(rows, probs={(8, "cum_ns"): [(1100, 0.99), (None, 0.01)]})
    reading.meta["doubt"] = 0.01
    opinion = {100: 0.9, 1100: 0.001, None: 0.099}
    result = reconcile(reading, explain=False, look=_Second(("9", "cum_ns"), opinion))
    assert [(f.kind, f.deal, f.written, f.expected) for f in result.flags
            if f.kind == "cumulative"] == [("cumulative", 9, 1100, 1110)]
    off = ReconcileSettings().with_values({"look.trust_lost_one": False})
    result = reconcile(reading, settings=off, explain=False, look=_Second(("9", "cum_ns"), opinion))
    assert not [f for f in result.flags if f.kind == "cumulative"]
    assert any(r.deal == 9 and r.kind == "cumulative" for r in result.review)


def test_seen_again_keeps_a_lost_leading_1_vote_where_it_is_the_value_expected():
    """... where the reader's own candidates give that value some weight too (reader_sees): alone, the
    second reader's "330" for a 1330 read 0.99 is the thin leading 1 it loses (210168: a carry
    slip 1100 for 100, left a question by that vote)."""
    cell = CellReading([(1330, 0.97), (330, 0.02), (None, 0.01)])
    opinion = {330: 0.9, 1330: 0.001, None: 0.099}
    on = LookSettings(trust_lost_one=True)
    # the flag expects 330, which the reader gives 0.02: the second reader's 330 is its vote
    assert seen_again(cell, opinion, [1330, 330], on, flagged=True, expected={330}).candidates[1][0] == 330
    # the reader gives 330 nothing: no vote, the reading stands as read
    alone = CellReading([(1330, 0.99), (None, 0.01)])
    assert seen_again(alone, opinion, [1330, 330], on, flagged=True, expected={330}).candidates == \
        alone.candidates
    # ... a vote again without lost_one_agree
    loose = LookSettings(trust_lost_one=True, lost_one_agree=False)
    assert seen_again(alone, opinion, [1330, 330], loose, flagged=True,
                      expected={330}).candidates[1][0] == 330
    # the flag expects 1320: 330 explains nothing, the reading stands as read
    assert seen_again(cell, opinion, [1330, 1320, 330], on, flagged=True, expected={1320}).candidates == \
        cell.candidates


def test_a_mistake_whose_own_cell_is_read_unsurely_is_a_question():
    """A cumulative slip carried on whose own cell the reader read at 0.4 (a fax read at 0.3-0.6:
    160079, "600" read "0") is writing the reader doubts: a "misread or mistake?" question at its
    deal, not a flag; the same slip read 0.95 sure (legible) is a flag, and so is the doubtful one
    with verdicts.own_sure 0."""
    from scoring.reconcile import ReconcileSettings

    rows = running(SCORES)
    rows[2:] = [(r[0], r[1], r[2], r[3] + 1000) for r in rows[2:]]  # a slip carried on
    slip = rows[2][3]
    doubtful = {(2, "cum_ew"): [(slip, 0.4), (slip - 990, 0.3), (None, 0.3)]}
    sure = {(2, "cum_ew"): [(slip, 0.95), (None, 0.05)]}
    unsure = reconcile(sheet(rows, probs=doubtful), explain=False)
    assert unsure.rescan is None
    assert not [f for f in unsure.flags if f.kind == "cumulative"]
    assert any(r.deal == 3 and r.kind == "cumulative" and "misread" in r.reason
               for r in unsure.review)
    legible = reconcile(sheet(rows, probs=sure), explain=False)
    assert [(f.kind, f.deal) for f in legible.flags if f.kind == "cumulative"] == [("cumulative", 3)]
    off = ReconcileSettings().with_values({"verdicts.own_sure": 0})
    unsure = reconcile(sheet(rows, probs=doubtful), settings=off, explain=False)
    assert [(f.kind, f.deal) for f in unsure.flags if f.kind == "cumulative"] == [("cumulative", 3)]


def test_a_value_a_reader_sees_in_the_flagged_cell_makes_the_flag_a_question():
    """Generated sheet 210065: an MNIST 8 written like a 6, E/W's cumulative 1890 read 1690 at 0.95
    with 1890 at 0.018 (the second reader, asked, 1690 too) -- on its own a lone miscopy, and
    flagged.  A reader that gives the value making the sheet add up real weight
    (LookSettings.reader_sees) sees it in the writing: a "misread or mistake?" question at its
    deal; a slip written clearly, that value given nothing, stays a flag, and so does the doubtful
    one with reader_sees 0."""
    from scoring.reconcile import ReconcileSettings

    rows = running(SCORES)
    true = rows[4][2]
    wrong = true + 500

    def reading(p_true):
        r = sheet(rows, probs={(4, "cum_ns"): [(wrong, 0.99 - p_true), (true, p_true), (None, 0.01)]})
        r.meta["doubt"] = 0.01
        return r

    second = {wrong: 0.97, true: 0.015, None: 0.015}  # a vote below seen_at: mixes nothing in
    doubted = reconcile(reading(0.018), explain=False, look=_Second(("5", "cum_ns"), second))
    assert not [f for f in doubted.flags if f.kind == "cumulative"]
    assert any(r.deal == 5 and r.column == "cum_ns" and r.kind == "cumulative"
               and "misread" in r.reason for r in doubted.review)
    clear = reconcile(reading(0.0), explain=False, look=_Second(("5", "cum_ns"), second))
    assert [(f.kind, f.deal, f.written, f.expected) for f in clear.flags
            if f.kind == "cumulative"] == [("cumulative", 5, wrong, true)]
    off = ReconcileSettings().with_values({"look.reader_sees": 0})
    kept = reconcile(reading(0.018), settings=off, explain=False,
                     look=_Second(("5", "cum_ns"), second))
    assert [(f.kind, f.deal) for f in kept.flags if f.kind == "cumulative"] == [("cumulative", 5)]


def test_a_score_the_second_reader_sees_adding_up_makes_the_cumulative_flag_a_question():
    """Generated sheet 210145: deal 30's E/W score 740, the 7's top cut off, read 140 at 0.999, so
    the cumulative written right is flagged.  Asked about the score that adds up to the cumulative
    as written, the second reader gives 740 0.044: it sees it in the writing
    (LookSettings.second_sees), and the flag is a question; where it gives it 0.01 (as it gives
    the value a clear slip expects: at most 0.01 on held-out-5 and -8) the flag stands."""
    from scoring.reconcile import ReconcileSettings

    rows = running(SCORES)
    assert rows[5][1] == 330
    reading = sheet(rows, probs={(5, "ew"): [(630, 0.999), (None, 0.001)]})
    reading.meta["doubt"] = 0.01

    def asked_score(p):
        look = _Second(("6", "ew"), {630: 0.95 - p, 330: p, None: 0.05})
        return look, reconcile(reading, explain=False, look=look)

    look, seen = asked_score(0.044)
    assert 330 in {v for r, k, vals in look.asked if (r, k) == ("6", "ew") for v in vals}
    assert not [f for f in seen.flags if f.kind == "cumulative"]
    assert any(r.deal == 6 and r.kind == "cumulative" for r in seen.review)
    _, unseen = asked_score(0.01)
    assert [(f.kind, f.deal, f.written, f.expected) for f in unseen.flags
            if f.kind == "cumulative"] == [("cumulative", 6, 1460, 1760)]
    off = ReconcileSettings().with_values({"look.second_sees": 0})
    kept = reconcile(reading, settings=off, explain=False, look=asked_score(0.044)[0])
    assert [(f.kind, f.deal) for f in kept.flags if f.kind == "cumulative"] == [("cumulative", 6)]


def test_a_leading_1_more_or_less_is_no_value_a_reader_sees():
    """Generated sheets 210168 and 180198: carry slips 1100 for 100 and 1190 for 190 read 0.997 and
    0.95; the second reader reads "100" at 0.36 (the thin leading 1 it loses), the reader gives
    190 0.017 (the same loss).  A leading 1 more or less is how both readers misread and how the
    players slip: no sign the writing is doubtful, the flag stands; another value given so much
    is."""
    from scoring.reconcile.look import seconded
    from scoring.sheet import Flag

    rows = running(SCORES)
    rows[1] = (rows[1][0], rows[1][1], rows[1][2] + 1000, rows[1][3])
    reading = sheet(rows, probs={(1, "cum_ns"): [(1100, 0.97), (100, 0.017), (1300, 0.01),
                                                 (None, 0.003)]})
    carry = Flag("cumulative", "", deal=2, side="ns", column="cum_ns", written=1100, expected=100)
    seen = {("2", "cum_ns"): {1100: 0.44, 100: 0.36, 1300: 0.04, None: 0.16}}
    assert seconded(reading, [carry], seen) == frozenset()
    other = Flag("cumulative", "", deal=2, side="ns", column="cum_ns", written=1100, expected=1300)
    assert seconded(reading, [other], seen) == frozenset({("2", "cum_ns", 1300)})
    assert seconded(reading, [other], seen, LookSettings(reader_sees=0)) == \
        frozenset({("2", "cum_ns", 1300)})
    assert seconded(reading, [other], seen, LookSettings(reader_sees=0, second_sees=0)) == \
        frozenset()


def test_a_blank_or_a_0_more_or_less_is_no_value_a_reader_sees():
    """Generated sheets 190049 and 190022 (legible, flagged): an impossible pair's N/S score 60,
    the second reader giving "nothing" (0) 0.10 in the written cell; a score 8000 for 800, the
    reader giving 800 0.009.  A blank, or a 0 more or less (the players' slip and the readers'
    loss alike), is no sign the writing is doubtful: both flags stand."""
    from scoring.reconcile.look import seconded
    from scoring.sheet import Flag

    rows = running(SCORES)
    rows[2] = (60, 300, rows[2][2] + 60, rows[2][3])
    rows[3:] = [(r[0], r[1], r[2] + 60, r[3]) for r in rows[3:]]
    reading = sheet(rows, probs={(2, "ns"): [(60, 0.98), (0, 0.01), (None, 0.01)],
                                 (3, "ns"): [(1700, 0.98), (170, 0.009), (None, 0.011)]})
    pair = Flag("score", "", deal=3, side="ns", column="ns", written=60, expected=0)
    zero = Flag("score", "", deal=4, side="ns", column="ns", written=1700, expected=170)
    seen = {("3", "ns"): {60: 0.85, 0: 0.1, None: 0.05}, ("4", "ns"): {1700: 0.9, 170: 0.05}}
    assert seconded(reading, [pair, zero], seen) == frozenset()
    # a value not a slip away from the reading, given as much, is seen
    other = Flag("score", "", deal=4, side="ns", column="ns", written=1700, expected=1200)
    seen[("4", "ns")][1200] = 0.05
    assert seconded(reading, [other], seen) == frozenset({("4", "ns", 1200)})
