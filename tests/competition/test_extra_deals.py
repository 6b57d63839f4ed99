"""A tie's extra deals written on the first sheet, below deal 30 (ocr/table/extra.py), are read
and counted: the rows, their cumulatives and the sheet's totals."""

from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from ocr.form import FormStyle, render_form
from ocr.pipeline import read_file
from samples.competition import jpeg, tie_content
from samples.fill import Pen, fill_form
from scoring.reconcile import reconcile


@pytest.mark.slow
def test_deals_31_and_32_written_below_deal_30_are_read():
    style = replace(FormStyle(dpi=200), margins_mm=(12.0, 12.0, 12.0, 30.0))  # room below
    grey, geom = render_form(style)
    page = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    rng = random.Random(3)
    content, more = tie_content(rng, "classic")
    pen = Pen("typed", "black", rng, 200 / 25.4)
    np_rng = np.random.default_rng(3)
    fill_form(page, geom, content, [pen], 99, "dash", np_rng)
    # the players go on below the table: the deal number and the row, as the rows above
    y0, y1 = geom.row_y[-2], geom.row_y[-1]
    step = y1 - y0
    for k, row in enumerate(more, start=1):
        dy = k * step
        label = geom.row_labels["30"]
        pen.write(page, (label[0], label[1] + dy, label[2], label[3] + dy), str(row["deal"]), np_rng)
        for key in ("dealer", "ns", "ew", "cum_ns", "cum_ew"):
            x0, ya, x1, yb = geom.cells[("30", key)]
            value = row[key] if key == "dealer" else (str(row[key] + (
                content.rows[-1][key] if key.startswith("cum_") else 0)) if row[key] or
                key.startswith("cum_") else "-")
            pen.write(page, (x0, ya + dy, x1, yb + dy), str(value), np_rng)
    outcome = next(iter(read_file(None, data=jpeg(page), name="tie.jpg")))
    assert outcome.error is None
    deals = [r.deal for r in outcome.reading.rows]
    assert deals[-2:] == [31, 32]
    sheet = reconcile(outcome.reading)
    got = {r.deal: tuple(r.values[k] for k in ("ns", "ew", "cum_ns", "cum_ew")) for r in sheet.rows}
    tied = content.rows[-1]["cum_ns"]
    assert got[31] == (0, 60, tied, tied + 60)
    assert got[32] == (400, 0, tied + 400, tied + 60)
    assert (sheet.totals["ns"], sheet.totals["ew"]) == (tied + 400, tied + 60)


def test_nothing_below_deal_30_adds_no_row():
    grey, geom = render_form(replace(FormStyle(dpi=200), margins_mm=(12.0, 12.0, 12.0, 30.0)))
    page = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    rng = random.Random(4)
    content, _ = tie_content(rng, "classic")
    fill_form(page, geom, content, [Pen("typed", "black", rng, 200 / 25.4)], 99, "dash",
              np.random.default_rng(4))
    outcome = next(iter(read_file(None, data=jpeg(page), name="plain.jpg")))
    assert [r.deal for r in outcome.reading.rows][-1] == 30
