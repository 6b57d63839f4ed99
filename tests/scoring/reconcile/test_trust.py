"""How far reconciliation trusts the reader's list (scoring/reconcile/trust.py)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from scoring.reconcile import reconcile
from scoring.reconcile.settings import TrustSettings
from scoring.reconcile.trust import sheet_none_floor, trusted, widened
from scoring.sheet import CellReading, RowReading, SheetReading

T = TrustSettings()  # the committed values


def _none(cell: CellReading) -> float:
    return dict(cell.candidates).get(None, 0.0)


def test_a_sure_reading_keeps_the_floor_an_unsure_one_a_share_of_its_doubt():
    sure = widened(CellReading([(820, 0.995), (880, 0.004), (None, 0.001)]))
    assert _none(sure) == pytest.approx(T.none_floor) and sure.best == 820
    # the values keep their proportions: 0.995 : 0.004
    assert dict(sure.candidates)[820] == pytest.approx(0.995 / 0.999 * (1 - T.none_floor))
    assert 880 not in dict(sure.candidates) or dict(sure.candidates)[880] >= T.min_candidate
    unsure = widened(CellReading([(800, 0.86), (880, 0.13), (None, 0.01)]))
    best = dict(unsure.candidates)[800]
    assert unsure.best == 800 and _none(unsure) == pytest.approx(T.none_slope * (1 - 0.86 / 0.99 * (1 - T.none_floor)))
    assert best / dict(unsure.candidates)[880] == pytest.approx(0.86 / 0.13)
    assert sum(p for _, p in unsure.candidates) == pytest.approx(1.0)


def test_blank_and_unreadable_cells_are_left_alone():
    blank = CellReading([(0, 0.999), (None, 0.0)], blank=True)
    assert widened(blank) is blank
    unreadable = CellReading([(None, 1.0)])
    assert widened(unreadable) is unreadable


def _sheet(doubt, score=0.97, cum=0.999, total=False):
    """One deal: N/S scored 620, read ``score`` sure, and its cumulative 620 read ``cum`` sure (and
    so the Total row's, when ``total``); E/W's cells blank."""
    cells = {"ns": CellReading([(620, score), (None, 1 - score)]), "ew": CellReading([(0, 0.999), (None, 0.001)], blank=True),
             "cum_ns": CellReading([(620, cum), (None, 1 - cum)]), "cum_ew": CellReading([(0, 1.0)], blank=True)}
    meta = {} if doubt is None else {"doubt": doubt}
    return SheetReading("t", [RowReading(1, cells)], meta=meta,
                        total=RowReading(0, {"cum_ns": cells["cum_ns"]}) if total else None)


def test_the_sheets_doubt_sets_the_floor_and_a_reading_without_one_is_taken_as_it_is():
    hard = trusted(_sheet(0.4)).rows[0].cells
    assert _none(hard["cum_ns"]) == pytest.approx(T.none_sheet_cap) == sheet_none_floor(0.4)
    assert _none(hard["ns"]) == pytest.approx(max(T.none_sheet_cap, T.none_slope * (1 - 0.97 / 0.97 * (1 - T.none_sheet_cap))))
    assert hard["ew"].candidates == [(0, 0.999), (None, 0.001)]  # blank: as read
    easy = trusted(_sheet(0.0)).rows[0].cells
    assert _none(easy["ns"]) == pytest.approx(0.03)  # the reader's own "none of these", above the floor
    assert _none(easy["cum_ns"]) == pytest.approx(T.sure_floor)  # a sure cumulative (below)
    old = _sheet(None)  # an older reader widened its lists itself
    assert trusted(old) is old


def test_a_cell_read_empty_keeps_the_easy_floor_on_a_hard_sheet():
    """Whether a cell holds ink is not what a hard sheet makes doubtful (80074: "1000 written there,
    read as empty" at the sheet's floor explained away a carried slip)."""
    empty = CellReading([(0, 0.998), (None, 0.001)])  # read, and read as empty (not the reader's blank flag)
    on_hard = widened(empty, sheet_none_floor(0.4))
    # read that surely (a dash, a 0 or nothing): the floor for such cells (issue 33: "1000 written
    # in a cell read as empty" at 0.27 sent a legible carry slip to review)
    assert T.zero_floor < T.none_floor < T.none_sheet_cap and 0.998 >= T.zero_sure_at
    assert _none(on_hard) == pytest.approx(T.zero_floor + T.none_slope * 0.0)  # its doubt: ~0
    assert on_hard.best == 0
    less = widened(CellReading([(0, 0.98), (None, 0.02)]), sheet_none_floor(0.4))
    assert _none(less) == pytest.approx(max(0.02, T.none_slope * (1 - 0.98)))  # its own, above the plain floor
    unsure = widened(CellReading([(0, 0.7), (40, 0.29), (None, 0.01)]), sheet_none_floor(0.4))
    assert _none(unsure) == pytest.approx(T.none_slope * (1 - 0.7 / 0.99 * (1 - T.none_floor)))  # its doubt still counts
    written = widened(CellReading([(620, 0.998), (None, 0.001)]), sheet_none_floor(0.4))
    assert _none(written) == pytest.approx(T.none_sheet_cap)


def test_reconcile_decides_on_the_widened_lists():
    """A reading with the reader's doubt is reconciled as its widened copy without one."""
    sheet = _sheet(0.2)
    a = reconcile(sheet, explain=False).to_json()
    b = reconcile(dataclasses.replace(trusted(sheet), meta={}), explain=False).to_json()
    assert a == b and a["rows"][0]["cum_ns"] == 620


def test_a_sure_cumulative_on_an_easy_sheet_keeps_only_the_sure_floor():
    """A cumulative read >= T.sure_at sure is seldom misread where the sheet is not hard (70058: a lone
    miscopied 3990 read at 0.996 went to review as "3790 written, misread"); score cells, cells
    read less sure and hard sheets keep their floors."""
    def sheet(doubt, cum=0.999):
        return _sheet(doubt, score=0.999, cum=cum, total=True)

    assert T.sure_floor < T.none_floor <= sheet_none_floor(0.1) and T.sure_at <= 0.999
    easy = trusted(sheet(0.1))
    assert _none(easy.rows[0].cells["cum_ns"]) == pytest.approx(T.sure_floor)
    assert _none(easy.total.cells["cum_ns"]) == pytest.approx(T.sure_floor)  # the Total row's too
    assert _none(easy.rows[0].cells["ns"]) == pytest.approx(sheet_none_floor(0.1))  # a score keeps the sheet's
    hard = trusted(sheet(T.sure_doubt))
    assert _none(hard.rows[0].cells["cum_ns"]) == pytest.approx(sheet_none_floor(T.sure_doubt))
    less_sure = trusted(sheet(0.1, cum=0.985)).rows[0].cells["cum_ns"]
    assert _none(less_sure) == pytest.approx(sheet_none_floor(0.1))
    # the floor is only ever lowered to T.sure_floor: a reader's own larger "none of these" stays
    assert _none(widened(CellReading([(3990, 0.991), (None, 0.009)]), T.none_floor, T.sure_floor)) == pytest.approx(0.009)


def test_on_an_easy_sheet_a_sure_readings_runner_ups_are_discounted():
    """Where the reader is sure (best >= runner_best) on a sheet it finds easy, its runner-ups were
    the value written 3-35x less often than it claimed (bench/RESULTS-reconcile.md, round 22):
    they keep runner_scale of their share (the best value takes the rest), and the odds of its
    one-digit variants are lowered alike; a less sure cell, or one on a harder sheet, keeps its
    list."""
    from scoring.reconcile.trust import calibrated

    assert T.runner_scale < 1 and T.runner_best <= 0.98 and T.runner_doubt > 0.01
    cell = CellReading([(50, 0.98), (150, 0.0065), (550, 0.0035), (None, 0.01)], near={150: -2.0})
    easy = calibrated(cell)
    probs = dict(easy.candidates)
    assert probs[150] == pytest.approx(0.0065 * T.runner_scale) and probs[None] == 0.01
    assert probs[50] == pytest.approx(0.98 + 0.01 * (1 - T.runner_scale))
    assert easy.near[150] == pytest.approx(-2.0 + math.log10(T.runner_scale))
    unsure = CellReading([(50, 0.8), (150, 0.19), (None, 0.01)])
    assert calibrated(unsure) is unsure
    sheet = SheetReading("t", [RowReading(1, {"ns": cell})], meta={"doubt": 0.01})
    assert dict(trusted(sheet).rows[0].cells["ns"].candidates).get(150, 0.0) < 0.0065 * 0.2
    hard = dataclasses.replace(sheet, meta={"doubt": T.runner_doubt})
    assert dict(trusted(hard).rows[0].cells["ns"].candidates)[150] > 0.0065 * 0.9
