"""Explanations of each deal's score, checked against seed 001's worked rubber."""

from __future__ import annotations

import random

from samples.synth import exact_reading, written_sheet
from scoring.reconcile import reconcile
from scoring.reconcile.explain import MAX_LINES, explain_sheet
from scoring.simulate import random_match
from tests.support import SEED_001, running, sheet


def texts(result, deal):
    return [e["text"] for e in result.explanations[deal]]


def test_seed_rubber_explained_in_words():
    result = reconcile(sheet(running(SEED_001)))
    assert set(result.explanations) == set(range(1, 8))
    # deal 2: Arrow & Beatrice bid 6♠ and made it with all five honours (seed 001)
    assert any("6♠" in t and "honours 150 to E/W" in t and "game" in t for t in texts(result, 2))
    # deal 7: Frank & Lena's 1NT making 11 tricks wins the rubber 2-1
    assert any("1NT+4" in t or "3NT+2" in t for t in texts(result, 7))
    assert all("rubber 500 to N/S (2-1)" in t for t in texts(result, 7)[:1])
    for deal, items in result.explanations.items():
        assert 1 <= len(items) <= MAX_LINES
        for item in items:
            assert item["text"].split(" = ")[0] in {f"N/S {v}" for v, _ in SEED_001} | \
                {f"E/W {v}" for _, v in SEED_001}
        assert result.rows[deal - 1].explanation == [i["text"] for i in items]


def test_structured_fields_and_json():
    result = reconcile(sheet(running(SEED_001)))
    deal3 = result.explanations[3]
    # 300 to E/W: N/S went down (seed 001: 4♥ doubled, two down, not vulnerable)
    assert any(e.get("declarer") == "ns" and e.get("made") is False for e in deal3)
    obj = result.to_json(with_explanations=True)
    assert set(obj["explanations"]) == {str(d) for d in range(1, 8)}
    assert all(isinstance(e["text"], str) for e in obj["explanations"]["7"])


def test_passed_out_and_simulated_sheets():
    scores = [(0, 0)] + SEED_001
    result = reconcile(sheet(running(scores)))
    assert texts(result, 1)[0].startswith("0 = passed out")
    rng = random.Random(5)
    written = written_sheet(random_match(rng), rng)
    result = reconcile(exact_reading(written))
    assert len(result.explanations) == len(written.rows)
    again = explain_sheet(result)
    assert again == result.explanations
