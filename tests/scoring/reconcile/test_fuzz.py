"""Any reading, however odd, reconciles without an exception and keeps the contract shape."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.reconcile import reconcile
from scoring.sheet import CellReading, RowReading, SheetReading

values = st.one_of(st.none(), st.integers(-50, 20000), st.sampled_from([0, 10, 100, 150, 620]),
                   st.floats(allow_nan=True), st.text(max_size=4), st.sampled_from(["N", "E", "s", "W "]))
probs = st.floats(min_value=-0.5, max_value=1.5, allow_nan=False)
cells = st.builds(CellReading, candidates=st.lists(st.tuples(values, probs), max_size=5), blank=st.booleans())
columns = st.sampled_from(["dealer", "ns", "ew", "cum_ns", "cum_ew", "junk"])
rows = st.builds(RowReading, deal=st.integers(-2, 40), cells=st.dictionaries(columns, cells, max_size=6))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rows, max_size=12), st.one_of(st.none(), rows), st.sampled_from([None, "ns", "ew", "x"]))
def test_any_reading_reconciles(rs, total, hint):
    reading = SheetReading("fuzz", rs, total=total, winners_hint=hint)
    obj = reconcile(reading, explain=len(rs) < 4).to_json()
    assert list(obj)[:3] == ["source", "form", "names"]
    assert obj["winners"] in (None, "ns", "ew")
    for row in obj["rows"]:
        assert all(row[c] is None or isinstance(row[c], int) for c in ("ns", "ew", "cum_ns", "cum_ew"))
        assert row["dealer"] in (None, "N", "E", "S", "W")
    for flag in obj["flags"]:
        assert flag["kind"] and flag["message"]
