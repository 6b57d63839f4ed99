"""The generator's further planted mistakes (a carry slip, a score in the wrong column) and the
dealer column filled only on the first deal: what is written, against the true rows."""

from __future__ import annotations

import random

import pytest

from samples import generate
from samples.content import ALL_MISTAKES, MISTAKES, MORE_MISTAKES, sheet_content

SEATS = "NESW"


def _breaks(rows: list[dict]) -> set[tuple[int, str]]:
    """(deal, side) where a written cumulative is not the one before plus the written score."""
    out = set()
    for k, row in enumerate(rows):
        for side in ("ns", "ew"):
            prev = rows[k - 1][f"cum_{side}"] if k else 0
            if row[f"cum_{side}"] != prev + row[side]:
                out.add((row["deal"], side))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_a_carry_is_100_or_1000_off_and_carried_on(seed):
    c = sheet_content(random.Random(seed), "wide", mistakes=("carry",))
    (m,) = c.mistakes
    assert m["kind"] == "cumulative" and m["detail"] == "carry"
    k, col = m["deal"] - 1, m["column"]
    delta = m["written"] - m["expected"]
    assert abs(delta) in (100, 1000)
    assert c.rows[k][col] == m["written"] and c.true_rows[k][col] == m["expected"]
    # every later cumulative of that side is off by the same amount; nothing else changed
    for w, t in zip(c.rows, c.true_rows, strict=True):
        assert w[col] - t[col] == (delta if w["deal"] >= m["deal"] else 0)
        assert {key: w[key] for key in w if key != col} == {key: t[key] for key in t if key != col}
    assert _breaks(c.rows) == {(m["deal"], m["side"])}
    assert c.totals_written[m["side"]] == c.rows[-1][col]


@pytest.mark.parametrize("seed", range(12))
def test_a_score_in_the_wrong_column_leaves_the_cumulatives_right(seed):
    c = sheet_content(random.Random(seed), "classic", mistakes=("wrong_column",))
    (m,) = c.mistakes
    assert m["kind"] == "score" and m["detail"] == "wrong_column" and m["expected"] == 0
    k, side = m["deal"] - 1, m["side"]
    other = "ew" if side == "ns" else "ns"
    assert c.rows[k][side] == m["written"] == c.true_rows[k][other] > 0
    assert c.rows[k][other] == c.true_rows[k][side] == 0
    assert [{key: r[key] for key in r if key not in ("ns", "ew")} for r in c.rows] == \
        [{key: r[key] for key in r if key not in ("ns", "ew")} for r in c.true_rows]
    assert _breaks(c.rows) == {(m["deal"], "ns"), (m["deal"], "ew")}


@pytest.mark.parametrize("seed", range(6))
def test_only_the_first_dealer_written(seed):
    c = sheet_content(random.Random(seed), "classic", mistakes=("dealer",), dealers="first")
    (m,) = c.mistakes
    start = SEATS.index(c.true_rows[0]["dealer"])
    assert c.rows[0]["dealer"] == c.true_rows[0]["dealer"]
    for k, row in enumerate(c.rows[1:], start=1):
        if row["deal"] == m["deal"]:  # the one dealer written after the first is the wrong one
            assert row["dealer"] == m["written"] != m["expected"] == SEATS[(start + k) % 4]
        else:
            assert row["dealer"] is None
    assert all(r["dealer"] == SEATS[(start + k) % 4] for k, r in enumerate(c.true_rows))


def test_the_default_draw_is_unchanged_and_the_wider_one_draws_every_kind():
    assert set(ALL_MISTAKES) == set(MISTAKES) | set(MORE_MISTAKES)
    default = [tuple(m["detail"] for m in sheet_content(random.Random(s)).mistakes) for s in range(300)]
    assert not {d for ds in default for d in ds} & set(MORE_MISTAKES)
    # asking for the default pool explicitly draws exactly the same sheets
    same = [tuple(m["detail"] for m in sheet_content(random.Random(s), draw=tuple(MISTAKES)).mistakes)
            for s in range(300)]
    assert same == default
    wide = {m["detail"] for s in range(300)
            for m in sheet_content(random.Random(s), "wide", mistake_rate=0.6, draw=tuple(ALL_MISTAKES)).mistakes}
    assert wide == set(ALL_MISTAKES)


def test_unknown_kinds_and_dealer_styles_are_clear_errors():
    with pytest.raises(ValueError, match="unknown mistake"):
        sheet_content(random.Random(1), draw=("carry", "typo"))
    with pytest.raises(ValueError, match="unknown dealer style"):
        sheet_content(random.Random(1), dealers="some")


def test_generate_cli_takes_the_new_options(tmp_path):
    assert generate.main(["--out", str(tmp_path), "--count", "1", "--seed", "5", "--mistake-rate", "1",
                          "--mistake-kinds", "wrong_column", "--dealers", "first"]) == 0
    import json

    truth = json.loads((tmp_path / "sheet-5.truth.json").read_text())
    assert truth["dealers"] == "first" and [m["detail"] for m in truth["mistakes"]] == ["wrong_column"]
    dealers = [c for c in truth["cells"] if c["key"] == "dealer"]
    assert dealers[0]["text"] and not any(c["text"] for c in dealers[1:])
    with pytest.raises(SystemExit):
        generate.main(["--out", str(tmp_path), "--mistake-kinds", "typo"])
