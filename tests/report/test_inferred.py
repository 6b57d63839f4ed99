"""A value nobody wrote -- a dealer the rotation gives, a number the arithmetic gives -- is shown
in brackets and said so, in the HTML page and the text output; written values are not."""

from __future__ import annotations

import random
import re

from batch.ledger import LedgerSheet
from report.html import render_sheet
from report.marks import INFERRED_LEGEND
from report.text import sheet_text
from samples.content import sheet_content
from samples.synth import exact_reading, written_from_content
from scoring.reconcile import reconcile


def _result() -> dict:
    """A reconciled sheet where the players wrote only the first dealer."""
    c = sheet_content(random.Random(4), "classic", mistakes=(), dealers="first")
    return reconcile(exact_reading(written_from_content(c)), explain=False).to_json()


def test_inferred_dealers_in_brackets_on_the_sheet_page():
    result = _result()
    assert "dealer_inferred" not in result["rows"][0] and result["rows"][1]["dealer_inferred"]
    sheet = LedgerSheet(sheet_id="x-p1", source="s.png", page=0, status="ok", error=None, sender=None,
                        subject=None, date=None, attachment=None, processed_at="now", result=result)
    page = render_sheet(sheet, None)
    cells = re.findall(r'<td class="([^"]*)" title="([^"]*)">([^<]*)</td>', page)
    dealers = cells[0::5][:30]  # the first column of each deal row
    first, second = dealers[0], dealers[1]
    assert "inferred" not in first[0] and first[2] == result["rows"][0]["dealer"]
    assert "inferred" in second[0] and second[2] == f"({result['rows'][1]['dealer']})"
    assert "not written: the dealer rotation gives it" in second[1]
    assert INFERRED_LEGEND.split(":")[0] in page


def test_inferred_numbers_and_dealers_in_the_text_output():
    result = _result()
    result["rows"][2]["inferred"] = ["cum_ns"]
    text = sheet_text({"source": "s.png", **result})
    row3 = next(line for line in text.splitlines() if line.strip().startswith("3 "))
    assert f"({result['rows'][2]['dealer']})" in row3 and f"({result['rows'][2]['cum_ns']})" in row3
    assert f"({result['rows'][2]['ns']})" not in row3.split()[2:3]
    row1 = next(line for line in text.splitlines() if line.strip().startswith("1 "))
    assert "(" not in row1 and INFERRED_LEGEND in text
