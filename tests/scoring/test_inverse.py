"""The inverse (written totals -> results) and the sequence check."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.inverse import (
    ALL_RULES,
    check_sequence,
    explain,
    explain_sequence,
    initial_states,
    step,
)
from scoring.model import Contract, HouseRules, Result
from scoring.pad import FRESH, PadState, play, unfinished_bonus
from scoring.simulate import random_match

SEED_001 = [(100, 0), (0, 830), (0, 300), (170, 0), (60, 0), (0, 330), (660, 0)]

contracts = st.builds(Contract, st.integers(1, 7), st.sampled_from(["C", "D", "H", "S", "NT"]),
                      st.integers(0, 2))
states = st.builds(PadState, st.integers(0, 1), st.integers(0, 1),
                   st.sampled_from(range(0, 100, 10)), st.sampled_from(range(0, 100, 10)))


@st.composite
def results(draw):
    c = draw(contracts)
    hon = draw(st.sampled_from([0, 150] if c.strain == "NT" else [0, 100, 150]))
    return Result(c, draw(st.sampled_from(["ns", "ew"])), draw(st.integers(0, 13)), hon,
                  draw(st.sampled_from(["ns", "ew"])) if hon else None)


@settings(max_examples=300, deadline=None)
@given(results(), states)
def test_inverse_contains_forward_result(result, state):
    out = play(state, result)
    total = out.score.total
    found = explain(total.ns, total.ew, state)
    assert any(e.result == result and e.after == out.after for e in found)
    assert all(e.before == state for e in found)
    assert out.after in step({state}, total.ns, total.ew)


@settings(max_examples=150, deadline=None)
@given(results(), states, st.sampled_from(sorted(ALL_RULES, key=repr)))
def test_inverse_last_deal_with_unfinished_bonus(result, state, rules):
    out = play(state, result)
    total = out.score.total.plus(unfinished_bonus(out.after, rules))
    found = explain(total.ns, total.ew, state, last=True, rules=ALL_RULES)
    assert any(e.result == result and rules in e.rules for e in found)
    assert step({state}, total.ns, total.ew, last=True, rules=ALL_RULES)


@settings(max_examples=100, deadline=None)
@given(results(), states)
def test_every_explanation_reproduces_the_totals(result, state):
    total = play(state, result).score.total
    for e in explain(total.ns, total.ew, state):
        again = play(state, e.result)
        assert again.score.total == total and again.after == e.after


@pytest.mark.slow
def test_step_agrees_with_explain_on_simulated_sheets():
    rng = random.Random(7)
    for _ in range(5):
        totals = [(d.ns, d.ew) for d in random_match(rng).deals]
        states = initial_states()
        for i, (ns, ew) in enumerate(totals):
            last = i == len(totals) - 1
            nxt = step(states, ns, ew, last, ALL_RULES)
            ref = frozenset(e.after for s in states for e in explain(ns, ew, s, last, ALL_RULES))
            assert nxt == ref
            states = nxt


def test_seed_001_6s_with_honours_explained():
    found = explain(0, 830, FRESH)
    assert {str(e.result.contract) for e in found} == {"6S", "6H"}
    assert all(e.result.honours == 150 and e.game_made for e in found)
    assert "making 12" in found[0].describe()


def test_seed_001_sequence_and_its_rubber_bonus():
    check = check_sequence(SEED_001, unfinished_last=False)
    assert check.ok and check.first_unexplained is None
    assert FRESH in check.states[-1]  # the rubber can have been won on deal 7
    history = explain_sequence(SEED_001, unfinished_last=False)
    assert all(history)
    assert {str(e.result.contract) for e in history[1]} == {"6S", "6H"}
    rubbers = [e for e in history[-1] if e.rubber_bonus]
    assert rubbers and {(e.rubber_winner, e.rubber_bonus) for e in rubbers} == {("ns", 500)}
    assert any(e.result == Result(Contract(1, "NT"), "ns", 11) for e in rubbers)


def test_impossible_total_is_caught_at_its_deal():
    bad = list(SEED_001)
    bad[3] = (175, 0)  # not a multiple of 10
    assert check_sequence(bad).first_unexplained == 3
    bad[3] = (20, 20)  # both sides scoring needs honours (100 or 150) for one of them
    assert check_sequence(bad).first_unexplained == 3
    assert {str(e.result) for e in explain(0, 20)} == {"1C EW 7", "1D EW 7"}


def test_rubber_bonus_must_follow_a_game():
    # 4S + 700 on the first deal is not a rubber (no game yet); after a game it is.
    assert not any(e.rubber_bonus for e in explain(820, 0, FRESH))
    after_game = explain(820, 0, PadState(1, 0, 0, 0))
    assert any(e.rubber_bonus == 700 and e.result.contract == Contract(4, "S") for e in after_game)
    assert any(e.rubber_bonus == 500 for e in explain(620, 0, PadState(1, 1, 0, 0)))


def test_passed_out_always_explained_and_changes_nothing():
    states = frozenset([PadState(1, 0, 40, 0), FRESH])
    assert step(states, 0, 0) == states


def test_unfinished_bonus_house_rules_as_options():
    # N/S game, E/W 60 part-score, then the match stops on a passed-out deal.
    each = check_sequence([(120, 0), (0, 60), (300, 100)], rules=HouseRules("each"))
    assert each.ok
    laws_only = check_sequence([(120, 0), (0, 60), (300, 100)], rules=HouseRules("laws"))
    assert laws_only.ok  # the Laws give the 100 too: N/S has no part-score
    fifty = check_sequence([(120, 0), (0, 60), (300, 50)], rules=HouseRules())
    assert not fifty.ok and fifty.first_unexplained == 2
    assert check_sequence([(120, 0), (0, 60), (300, 50)]).ok  # some house rule allows 50


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_every_simulated_match_passes(seed):
    m = random_match(random.Random(seed))
    check = check_sequence([(d.ns, d.ew) for d in m.deals], rules=m.rules)
    assert check.ok, check.first_unexplained


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 29), st.sampled_from([5, 15, 1, 3, 7]))
def test_impossible_perturbation_caught_at_or_before_its_deal(seed, k, delta):
    m = random_match(random.Random(seed))
    totals = [(d.ns, d.ew) for d in m.deals]
    ns, ew = totals[k]
    totals[k] = (ns + delta, ew) if ns or not ew else (ns, ew + delta)  # no longer a multiple of 10
    check = check_sequence(totals)
    assert not check.ok and check.first_unexplained <= k
