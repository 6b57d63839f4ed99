"""Audit with the real reconciliation: changing the unfinished-rubber house rule changes results.

The sheet comes from the scoring core's match simulator under the "each" rule (both
sides take an unfinished-rubber bonus on the last deal).  Re-reconciled under "ahead"
(only the side ahead scores it) that last deal cannot be right any more, so the audit
must add a flag there; switching back removes it.
"""

from __future__ import annotations

import random

import pytest

from batch.audit import audit
from batch.inputs import collect_inputs
from batch.ledger import LEDGER_NAME, Ledger
from batch.runner import BatchOptions, run_batch
from scoring.model import HouseRules
from scoring.reconcile import reconcile
from scoring.simulate import random_match
from tests.support import fake_reader, make_reading, sheet_bytes

pytestmark = pytest.mark.slow  # the real reconciliation, through batch worker processes


def rule_sensitive_match() -> list[tuple]:
    """The first simulated "each" match whose reading reconcile flags under "ahead" only
    (checked directly here, so the test is about what the audit does with it)."""
    for seed in range(200):
        match = random_match(random.Random(seed), rules=HouseRules("each"))
        if match.totals == random_match(random.Random(seed), rules=HouseRules("ahead")).totals:
            continue  # the rule made no difference to this match
        rows = [(d.dealer, d.ns, d.ew, d.cum_ns, d.cum_ew) for d in match.deals]
        reading = make_reading("m", {"rows": rows, "names": ["A / B", "C / D"], "unsure": {}})
        if reconcile(reading, HouseRules("ahead")).flags and not reconcile(reading, HouseRules("each")).flags:
            return rows
    raise AssertionError("no simulated match depends on the unfinished-rubber rule")


def test_audit_after_house_rule_change_with_real_reconcile(tmp_path):
    rows = rule_sensitive_match()
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "match.png").write_bytes(sheet_bytes(rows))
    out = tmp_path / "out"
    summary = run_batch(collect_inputs([folder]),
                        BatchOptions(out_dir=out, jobs=1, progress=False, unfinished="each"),
                        reader=fake_reader)
    assert (summary.sheets, summary.flagged, summary.failed) == (1, 0, 0)
    changed = audit(out, unfinished="ahead")
    assert changed.changed_sheets == 1
    with Ledger(out / LEDGER_NAME) as ledger:
        (sheet,) = ledger.sheets()
    assert [f["deal"] for f in sheet.result["flags"]] == [len(rows)]
    assert sheet.rules == {"unfinished": "ahead", "partscore": 100}
    assert any(f"flag added: deal {len(rows)}" in c for c in changed.changes)
    back = audit(out, unfinished="each")
    assert back.changed_sheets == 1 and any(f"flag removed: deal {len(rows)}" in c for c in back.changes)
