"""ReconcileSettings: every tuning value of reconciliation in one object that callers can vary."""

from __future__ import annotations

import dataclasses
import re

import pytest

from scoring.reconcile import ReconcileSettings, reconcile
from scoring.sheet import CellReading
from tests.support import ROOT, SEED_001, running, sheet

PACKAGE = ROOT / "scoring" / "reconcile"


def test_with_values_changes_only_what_it_names():
    base = ReconcileSettings()
    changed = base.with_values({"verdicts.flag_at": 0.7, "decoder.beam": "12"})
    assert changed.verdicts.flag_at == 0.7 and changed.decoder.beam == 12
    assert isinstance(changed.decoder.beam, int)
    assert {k: v for k, v in changed.values().items() if base.values()[k] != v} == {
        "verdicts.flag_at": 0.7, "decoder.beam": 12}
    assert base.verdicts.flag_at == 0.8  # frozen: the default object is untouched
    with pytest.raises(ValueError, match="no reconciliation setting"):
        base.with_values({"verdicts.flag_at_typo": 0.5})
    with pytest.raises(ValueError, match="no reconciliation setting"):
        base.with_values({"nogroup.flag_at": 0.5})
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.verdicts.flag_at = 0.5  # type: ignore[misc]
    assert hash(base) == hash(ReconcileSettings())  # usable as a cache key


def test_every_setting_is_used_by_reconciliation():
    """No setting is dead, and none is shadowed by a module constant of the same meaning."""
    code = "\n".join(p.read_text() for p in PACKAGE.glob("*.py") if p.name != "settings.py")
    unused = [name for name in ReconcileSettings().values()
              if not re.search(r"\." + name.split(".")[1] + r"\b", code)]
    assert unused == []


def test_reconcile_honours_its_settings():
    """A lone miscopied cumulative read 0.99 sure on an easy sheet is flagged with the committed
    settings; asking for more evidence (copy_flag_at) sends it to review instead, and the same
    mistake comes back when the threshold is lowered again -- the settings object decides."""
    rows = running(SEED_001)
    rows[4] = (60, 0, 300, 1130)  # 330 written as 300 on deal 5, later rows right again
    reading = sheet(rows, probs={(4, "cum_ns"): [(300, 0.99), (None, 0.01)]})
    flagged = reconcile(reading, explain=False)
    assert [f.deal for f in flagged.flags if f.kind == "cumulative"] == [5]
    strict = ReconcileSettings().with_values({"verdicts.copy_flag_at": 0.999})
    reviewed = reconcile(reading, settings=strict, explain=False)
    assert [f for f in reviewed.flags if f.kind == "cumulative"] == []
    assert any(r.deal == 5 and r.reason.startswith("a misread or") for r in reviewed.review)
    assert reconcile(reading, settings=strict.with_values({"verdicts.copy_flag_at": 0.8}),
                     explain=False).to_json() == flagged.to_json()


def test_rescan_settings_reach_the_rescan_advice():
    """Twelve unsure numbers ask for a rescan with the committed minimum (10), not with 20."""
    cells = {c: CellReading([(None, 0.6), (120, 0.3), (170, 0.1)]) for c in ("ns", "ew", "cum_ns")}
    reading = sheet(running(SEED_001[:4]))
    for row in reading.rows:
        row.cells.update(cells)
    assert reconcile(reading, explain=False).rescan is not None
    lenient = ReconcileSettings().with_values({"rescan.rescan_min": 20})
    assert reconcile(reading, settings=lenient, explain=False).rescan is None


def test_with_values_reads_a_flag_given_as_text():
    """bench --config passes text: "0" turned a flag on (bool("0") is True)."""
    s = ReconcileSettings()
    assert s.with_values({"misread.near_sure": "0"}).misread.near_sure is False
    assert s.with_values({"misread.near_sure": "false"}).misread.near_sure is False
    assert s.with_values({"look.questions": "1"}).look.questions is True
    assert s.with_values({"look.questions": True}).look.questions is True
    with pytest.raises(ValueError):
        s.with_values({"look.questions": "maybe"})
