"""What is written on a sample sheet: a simulated match, names, and planted mistakes.

:func:`sheet_content` turns a seeded ``random.Random`` into a :class:`SheetContent`:
the rows as the players WROTE them (blank/dash = 0; a row left empty = None values),
the true rows, the written totals (wide layout) and the list of players' mistakes,
each ``{"deal", "kind", "side", "column", "written", "expected", "detail"}``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from scoring.formspec import SEATS, SIDES
from scoring.inverse import initial_states, step
from scoring.model import ALL_RULES
from scoring.simulate import random_match

ZERO_STYLES = ("blank", "dash", "zero")
# Mistakes: detail -> kind (CONTRACT.md flag kinds).
MISTAKES = {
    "slip_carried": "cumulative",  # a cumulative wrong, every later one off by the same amount
    "miscopy": "cumulative",  # one cumulative wrong, later rows right again
    "total": "total",  # the Total row does not match (wide layout only)
    "winner": "winner",  # the named winners have the lower total
    "impossible_pair": "score",  # both sides scoring on one deal without honours
    "unexplainable": "score",  # a deal score no rubber history can explain (an extra zero...)
    "missing_deal": "missing_deal",  # a row left empty in the middle
    "dealer": "dealer",  # a wrong dealer in the rotation
}
# More of the classic slips of a person adding up, planted only when asked for (``draw`` or
# ``mistakes``): the default draw above stays as it was, so earlier seeds give the same sheets.
MORE_MISTAKES = {
    "carry": "cumulative",  # a carry slip: a cumulative 100 or 1000 off, carried into the later ones
    "wrong_column": "score",  # a deal's score written in the other side's column, added where it belongs
}
ALL_MISTAKES = MISTAKES | MORE_MISTAKES
# How the players fill the dealer column: every row, or only the first deal's dealer.
DEALER_STYLES = ("every", "first")
SURNAMES = (
    "Smith", "Jones", "Brown", "Reid", "Taylor", "Wilson", "Walker", "Clark", "Hall", "Young",
    "King", "Wright", "Green", "Baker", "Hill", "Moore", "Wood", "Martin", "Kerr", "Scott",
    "Murray", "Hughes", "Lee", "Ward", "Price", "Bell", "Grant", "Stone", "Fox", "Nash",
    "Farley", "Burke", "Doyle", "Marsh", "Parker", "Shaw", "Ross", "Lamb", "Hunt", "Dunn",
)
# More surnames for a competition's roster (samples/competition.py: 40 pairs need 80 players),
# among them near twins of the first list (Hall/Hill, Reid/Reed, Clark/Clarke) so that picking a
# pair's names out of the roster is no easier than it is in a real club.
MORE_SURNAMES = (
    "Adams", "Allen", "Bailey", "Barker", "Barnes", "Bennett", "Black", "Bond", "Booth", "Bowen",
    "Boyd", "Browne", "Buckley", "Burton", "Byrne", "Campbell", "Carr", "Carter", "Chapman",
    "Clarke", "Cole", "Collins", "Cook", "Cooper", "Cox", "Craig", "Crawford", "Cross", "Curtis",
    "Davies", "Dawson", "Day", "Dixon", "Duncan", "Edwards", "Ellis", "Evans", "Fisher", "Fleming",
    "Ford", "Foster", "Fraser", "Gibson", "Gordon", "Graham", "Gray", "Griffin", "Hale", "Hamilton",
    "Harris", "Hart", "Harvey", "Hay", "Hayes", "Henderson", "Holmes", "Hopkins", "Howard", "Hull",
    "Hunter", "Irwin", "Jackson", "James", "Jenkins", "Johnson", "Kelly", "Kennedy", "Knight",
    "Lane", "Lawson", "Lewis", "Lloyd", "Long", "Lowe", "Mason", "Matthews", "Miller", "Mills",
    "Mitchell", "Morgan", "Morris", "Murphy", "Newman", "Nicholls", "Norris", "Owen", "Palmer",
    "Payne", "Pearce", "Perry", "Phillips", "Porter", "Powell", "Quinn", "Reed", "Reeves",
    "Richards", "Roberts", "Robinson", "Rogers", "Russell", "Ryan", "Sharp", "Simpson", "Smyth",
    "Spencer", "Stevens", "Stewart", "Sutton", "Thomas", "Thompson", "Tucker", "Turner", "Walsh",
    "Watson", "Webb", "Wells", "West", "White", "Williams", "Wong", "Woods", "Yates", "Ngata",
    "Tane", "Parata", "Walker-Smith", "O'Brien",
)
NUMBER_COLS = ("ns", "ew", "cum_ns", "cum_ew")


@dataclass
class SheetContent:
    names: dict[str, str]  # "ns"/"ew" -> "Smith / Jones"
    winners_text: str  # what is written on the Winners line
    winners_side: str  # the side the winners line names
    rows: list[dict]  # as written; a missing row has None values (an unwritten dealer: None)
    true_rows: list[dict]
    totals_written: dict[str, int] | None  # the Total row (wide layout) or None
    mistakes: list[dict] = field(default_factory=list)


def _row(deal: int, dealer: str | None, ns, ew, cum_ns, cum_ew) -> dict:
    return {"deal": deal, "dealer": dealer, "ns": ns, "ew": ew, "cum_ns": cum_ns, "cum_ew": cum_ew}


def _simulate(rng: random.Random) -> list[dict]:
    """A 30-deal match with a winner (tied matches, which need extra deals, are redrawn)."""
    while True:
        match = random_match(rng)
        if len(match.deals) == 30:
            return [_row(d.deal, d.dealer, d.ns, d.ew, d.cum_ns, d.cum_ew) for d in match.deals]


def _mistake(deal, detail: str, side=None, column=None, written=None, expected=None) -> dict:
    return {"deal": deal, "kind": ALL_MISTAKES[detail], "side": side, "column": column,
            "written": written, "expected": expected, "detail": detail}


def _slip(rng: random.Random, value: int) -> int:
    """A plausible wrong copy of ``value``: off by 10/20/100/1000 or two digits swapped."""
    s = str(value)
    if len(s) >= 3 and rng.random() < 0.3:
        i = rng.randrange(len(s) - 2)
        if s[i] != s[i + 1]:
            return int(s[:i] + s[i + 1] + s[i] + s[i + 2:])
    delta = rng.choice((10, 20, 100, 100, 200, 1000)) * rng.choice((-1, 1))
    return value + delta if value + delta > 0 else value + abs(delta)


def _unexplainable(rows: list[dict], candidates: list[int]) -> dict[int, int]:
    """Row index -> a slip of its one-sided score (an extra zero, or a duplicate-style bonus
    added) that no rubber history explains, by the scoring core's sequence check."""
    out: dict[int, int] = {}
    states = initial_states(ALL_RULES)
    for k, row in enumerate(rows[:-1]):
        if k in candidates:
            v = row["ns"] or row["ew"]
            for wrong in (v * 10, v + 50, v + 300, v + 500):
                pair = (wrong, 0) if row["ns"] else (0, wrong)
                if not step(states, *pair, False, ALL_RULES):
                    out[k] = wrong
                    break
        states = step(states, row["ns"], row["ew"], False, ALL_RULES)
    return out


def pick_deal(rng: random.Random, rows: list[dict], detail: str,
              taken: set[int]) -> tuple[int, int | None] | None:
    """A row index for ``detail`` (never the first or last, not next to another mistake),
    and for "unexplainable" the wrong score to write there."""
    free = [k for k in range(1, 29) if not {k - 1, k, k + 1} & taken]
    value = None
    if detail in ("impossible_pair", "unexplainable", "wrong_column"):
        # exactly one side scored, not honours
        free = [k for k in free if (rows[k]["ns"] == 0) != (rows[k]["ew"] == 0)
                and max(rows[k]["ns"], rows[k]["ew"]) not in (100, 150)]
    if detail == "unexplainable":
        wrong = _unexplainable(rows, free)
        free = sorted(wrong)
    if not free:
        return None
    k = rng.choice(free)
    if detail == "unexplainable":
        value = wrong[k]
    taken.add(k)
    return k, value


def plant(rng: random.Random, rows: list[dict], detail: str, k: int, value: int | None = None) -> dict:
    """Plant one mistake of kind ``detail`` at row index ``k`` of ``rows`` (in place);
    ``value`` is the wrong score for "unexplainable".

    Plant in increasing ``k``: a mistake only changes its own row and the rows after it.
    """
    row, side = rows[k], rng.choice(SIDES)
    col = f"cum_{side}"
    if detail == "slip_carried":
        wrong = _slip(rng, row[col])
        delta = wrong - row[col]
        for later in rows[k:]:
            later[col] += delta
        return _mistake(k + 1, detail, side, col, wrong, wrong - delta)
    if detail == "carry":
        # adding up (or copying the cumulative on a deal the side did not score), a carry is lost
        # or added: 100 or 1000 too many or too few, and the players go on from what they wrote
        delta = rng.choice((100, 1000)) * rng.choice((-1, 1))
        if row[col] + delta <= 0:
            delta = -delta
        for later in rows[k:]:
            later[col] += delta
        return _mistake(k + 1, detail, side, col, row[col], row[col] - delta)
    if detail == "wrong_column":
        # the score written in the other side's column; the cumulatives added where it belongs
        scorer = "ns" if row["ns"] else "ew"
        other = "ew" if scorer == "ns" else "ns"
        value = row[scorer]
        row[other], row[scorer] = value, 0
        return _mistake(k + 1, detail, other, other, value, 0)
    if detail == "miscopy":
        wrong = _slip(rng, row[col])
        expected = row[col]
        row[col] = wrong
        return _mistake(k + 1, detail, side, col, wrong, expected)
    if detail == "impossible_pair":
        side = "ns" if row["ns"] == 0 else "ew"
        row[side] = rng.choice((20, 30, 40, 50, 60, 70, 80, 90, 120, 200, 300))
        for later in rows[k:]:  # the players add what they wrote
            later[f"cum_{side}"] += row[side]
        return _mistake(k + 1, detail, side, side, row[side], 0)
    if detail == "unexplainable":
        side = "ns" if row["ns"] else "ew"
        expected = row[side]
        row[side] = value
        for later in rows[k:]:  # the players add what they wrote
            later[f"cum_{side}"] += value - expected
        return _mistake(k + 1, detail, side, side, value, expected)
    if detail == "missing_deal":
        true = dict(row)
        rows[k] = _row(row["deal"], None, None, None, None, None)
        return _mistake(k + 1, detail, None, None, None,
                        {c: true[c] for c in ("dealer",) + NUMBER_COLS})
    if detail == "dealer":
        # where only the first dealer is written, the rotation says whose deal it was
        expected = row["dealer"] or SEATS[(SEATS.index(rows[0]["dealer"]) + k) % 4]
        wrong = rng.choice([s for s in SEATS if s != expected])
        row["dealer"] = wrong
        return _mistake(k + 1, detail, None, "dealer", wrong, expected)
    raise ValueError(f"{detail!r} is not a per-deal mistake")


def random_names(rng: random.Random) -> dict[str, str]:
    picks = rng.sample(SURNAMES, 4)
    return {"ns": f"{picks[0]} / {picks[1]}", "ew": f"{picks[2]} / {picks[3]}"}


def sheet_content(rng: random.Random, layout: str = "classic", mistake_rate: float = 0.3,
                  mistakes: tuple[str, ...] | None = None, draw: tuple[str, ...] | None = None,
                  dealers: str = "every") -> SheetContent:
    """A filled sheet's content.  ``mistakes`` forces those kinds; else a random ~rate share,
    drawn from ``draw`` (default: MISTAKES, not MORE_MISTAKES).  ``dealers`` "first": the players
    write only the first deal's dealer (a dealer mistake is still written where it is planted)."""
    if dealers not in DEALER_STYLES:
        raise ValueError(f"unknown dealer style {dealers!r}; choose from {', '.join(DEALER_STYLES)}")
    pool = tuple(MISTAKES) if draw is None else tuple(draw)
    unknown = [m for m in (mistakes or ()) + pool if m not in ALL_MISTAKES]
    if unknown:
        raise ValueError(f"unknown mistake kind(s) {unknown}; choose from {', '.join(ALL_MISTAKES)}")
    true_rows = _simulate(rng)
    rows = [dict(r) for r in true_rows]
    if dealers == "first":
        for row in rows[1:]:
            row["dealer"] = None
    if mistakes is None:
        mistakes = ()
        if rng.random() < mistake_rate:
            kinds = [d for d in pool if d != "total" or layout == "wide"]
            mistakes = tuple(rng.sample(kinds, min(1 if rng.random() < 0.75 else 2, len(kinds))))
    planted: list[dict] = []
    taken: set[int] = set()
    want_total = want_winner = False
    chosen = []
    for detail in mistakes:
        if detail in ("total", "winner"):
            want_total |= detail == "total"
            want_winner |= detail == "winner"
            continue
        pick = pick_deal(rng, rows, detail, taken)
        if pick is not None:
            chosen.append((pick[0], detail, pick[1]))
    for k, detail, value in sorted(chosen, key=lambda c: c[0]):
        planted.append(plant(rng, rows, detail, k, value))
    final = rows[-1]
    totals = {s: final[f"cum_{s}"] for s in SIDES}
    totals_written = dict(totals) if layout == "wide" else None
    if want_total and totals_written is not None:
        side = rng.choice(SIDES)
        wrong = _slip(rng, totals[side])
        totals_written[side] = wrong
        planted.append(_mistake(None, "total", side, "total", wrong, totals[side]))
    # The winners line names the pair ahead on the sheet (the written totals).
    ahead = "ns" if totals["ns"] > totals["ew"] else "ew"
    named = ahead
    if want_winner and totals["ns"] != totals["ew"]:
        named = "ew" if ahead == "ns" else "ns"
        planted.append(_mistake(None, "winner", named, "winners", named, ahead))
    names = random_names(rng)
    winners_text = names[named] if rng.random() < 0.8 else ("N/S" if named == "ns" else "E/W")
    planted.sort(key=lambda m: (m["deal"] is None, m["deal"] or 0))
    return SheetContent(names=names, winners_text=winners_text, winners_side=named, rows=rows,
                        true_rows=true_rows, totals_written=totals_written, mistakes=planted)
