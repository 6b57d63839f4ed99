"""scoring.inverse's lookup table, built the cheap way (each score once per declaring side and
vulnerability, Results made only when asked), against the plain construction it replaced: the
same keys, effects and results, in the same order, for every vulnerability."""

from __future__ import annotations

import pytest

from scoring import inverse
from scoring.model import SIDES, STRAINS, Contract, Pair, Result
from scoring.points import score_result

VULS = [(False, False), (True, False), (False, True), (True, True)]


def plain_results():
    """Every distinct result, enumerated as the table's first construction did."""
    for level in range(1, 8):
        for strain in STRAINS:
            honours = [(0, None)] + [(h, s) for h in ((150,) if strain == "NT" else (100, 150)) for s in SIDES]
            for doubled in range(3):
                contract = Contract(level, strain, doubled)
                for side in SIDES:
                    for tricks in range(14):
                        for value, holder in honours:
                            yield Result(contract, side, tricks, value, holder)


def plain_table(vul_ns: bool, vul_ew: bool):
    """The first construction, verbatim: a Result per entry, each scored through score_result."""
    table: dict = {}
    plain: dict = {}
    for r in plain_results():
        base = Result(r.contract, r.declarer, r.tricks)
        if base not in plain:
            s = score_result(base, vul_ns if r.declarer == "ns" else vul_ew)
            below = s.below.of(r.declarer)
            plain[base] = (s.total, (r.declarer if below else None, below))
        total, effect = plain[base]
        if r.honours:
            total = total.plus(Pair.one(r.honours_side, r.honours))
        table.setdefault(tuple(total), {}).setdefault(effect, []).append(r)
    return {k: {e: tuple(rs) for e, rs in v.items()} for k, v in table.items()}


def test_all_results_unchanged():
    assert list(inverse.all_results()) == list(plain_results())


@pytest.mark.parametrize("vul", VULS)
def test_table_identical_to_the_plain_construction(vul):
    old = plain_table(*vul)
    new = inverse._table(*vul)
    assert list(new) == list(old)  # the same keys in the same order
    n = 0
    for key, effects in old.items():
        assert list(new[key]) == list(effects)  # the same effects in the same order
        for effect, results in effects.items():
            got = inverse.results_of(*vul, key, effect)
            want = results + ((Result(None),) if key == (0, 0) and effect == (None, 0) else ())
            assert got == want
            n += len(results)
    assert n == len(list(plain_results()))
    # the effects each key's totals may have (the sequence check's table)
    effects = inverse._effects(*vul)
    assert {k: v for k, v in effects.items() if k != (0, 0)} == \
        {k: tuple(v) for k, v in old.items() if k != (0, 0)}
    assert effects[(0, 0)] == tuple(old.get((0, 0), {})) + ((None, 0),)
    # a key no result gives
    assert inverse.results_of(*vul, (10, 10), ("ns", 10)) == ()
