"""Reconciliation against the sample generator's own planted mistakes (samples/content.py,
written independently): each one flagged at its deal with its kind, side, written and
expected value; no other flags."""

from __future__ import annotations

import random

import pytest

from samples.content import MISTAKES, sheet_content
from samples.synth import exact_reading, noisy_reading, written_from_content
from scoring.reconcile import reconcile

DETAILS = sorted(MISTAKES)


def matches(flag, m) -> bool:
    if flag.kind != m["kind"]:
        return False
    if m["kind"] == "winner":
        return flag.side == m["side"]
    if m["kind"] == "total":
        return (flag.side, flag.written, flag.expected) == (m["side"], m["written"], m["expected"])
    if flag.deal != m["deal"]:
        return False
    if m["kind"] in ("cumulative", "dealer"):
        return (flag.side, flag.written, flag.expected) == (m["side"], m["written"], m["expected"])
    if m["detail"] == "unexplainable":  # what the score should have been cannot be known
        return (flag.side, flag.written) == (m["side"], m["written"])
    return True


def content(seed: int, detail: str):
    layout = "wide" if detail == "total" or seed % 2 else "classic"
    return sheet_content(random.Random(seed), layout, mistakes=(detail,))


@pytest.mark.parametrize("detail", DETAILS)
def test_each_planted_kind_found_in_exact_readings(detail):
    for seed in range(4):
        c = content(seed, detail)
        result = reconcile(exact_reading(written_from_content(c)), explain=False)
        for m in c.mistakes:
            assert any(matches(f, m) for f in result.flags), (seed, m, [f.to_json() for f in result.flags])
        # nothing else, except a winner flag when the mistake changes who won
        others = [f for f in result.flags if not any(matches(f, m) for m in c.mistakes)]
        assert all(f.kind == "winner" for f in others), (seed, [f.to_json() for f in others])


def test_impossible_pair_names_a_side_with_expected_zero():
    c = content(1, "impossible_pair")
    m = c.mistakes[0]
    result = reconcile(exact_reading(written_from_content(c)), explain=False)
    flag = next(f for f in result.flags if f.kind == "score")
    assert flag.deal == m["deal"] and flag.expected == 0 and flag.side in ("ns", "ew")


@pytest.mark.slow
def test_noisy_readings_of_sample_sheets():
    found = planted = clean_flagged = clean = 0
    for seed in range(40):
        c = sheet_content(random.Random(500 + seed), "wide" if seed % 2 else "classic")
        reading = noisy_reading(written_from_content(c), random.Random(seed))
        result = reconcile(reading, explain=False)
        if not c.mistakes:
            clean += 1
            clean_flagged += bool(result.flags)
        for m in c.mistakes:  # flagged, or (cells read unsurely) in review at its deal
            planted += 1
            found += any(matches(f, m) for f in result.flags) or (
                m["deal"] is not None and any(r.deal == m["deal"] for r in result.review))
    assert clean and planted
    assert clean_flagged / clean <= 0.05
    assert found / planted >= 0.8
