"""Synthetic candidate readings of a simulated sheet, for reconciliation tests and the bench
(test and bench support: not part of the installed package).

:func:`written_sheet` turns a :class:`scoring.simulate.SimulatedMatch` into the
values the players wrote, optionally with one planted mistake;
:func:`noisy_reading` turns written values into a :class:`SheetReading` with
reader-like N-best candidates (confusable digits, dropped or extra zeros).
Randomness only from the caller's ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from scoring.formspec import DEAL_COLUMNS as COLUMNS
from scoring.formspec import SEATS
from scoring.sheet import CellReading, RowReading, SheetReading

CONFUSABLE = {"1": "7", "7": "1", "3": "8", "8": "3", "5": "6", "6": "5", "0": "6", "4": "9",
              "9": "4", "2": "7"}
MISTAKE_KINDS = ("slip", "copy", "total", "winner", "missing_deal", "dealer", "score")


@dataclass
class Written:
    """What is on the paper: per row deal, dealer, ns, ew, cum_ns, cum_ew (None: empty row)."""

    rows: list[dict]
    total: dict | None  # {"ns": .., "ew": ..} when the form has a Total row
    winners: str | None
    planted: list[dict] = field(default_factory=list)  # {"kind", "deal", "side"}


def written_sheet(match, rng: random.Random, mistake: str | None = None,
                  total_row: bool = False) -> Written:
    """The sheet as the players would write ``match``, with one planted ``mistake`` kind."""
    rows = [{"deal": d.deal, "dealer": d.dealer, "ns": d.ns, "ew": d.ew,
             "cum_ns": d.cum_ns, "cum_ew": d.cum_ew} for d in match.deals]
    last = rows[-1]
    total = {"ns": last["cum_ns"], "ew": last["cum_ew"]} if total_row else None
    w = Written(rows, total, match.winner)
    if mistake:
        _plant(w, rng, mistake)
    return w


def written_from_content(content) -> Written:
    """A :class:`Written` from ``samples.content.SheetContent`` (another engineer's planted
    mistakes, kept in ``planted`` as their flag dicts)."""
    rows = [dict(r) for r in content.rows]
    total = dict(content.totals_written) if content.totals_written else None
    return Written(rows, total, content.winners_side, [dict(m) for m in content.mistakes])


def _plant(w: Written, rng: random.Random, kind: str) -> None:
    n = len(w.rows)
    side = rng.choice(("ns", "ew"))
    col = "cum_" + side
    k = rng.randrange(1, n - 1)
    if kind in ("slip", "copy"):
        delta = rng.choice((10, -10, 20, 100, -100, 200, 1000))
        if w.rows[k][col] + delta < 0:
            delta = -delta
        stop = n if kind == "slip" else k + 1
        for row in w.rows[k:stop]:
            row[col] += delta
        if kind == "slip" and w.total is not None:
            w.total[side] += delta
        w.planted.append({"kind": "cumulative", "deal": w.rows[k]["deal"], "side": side})
    elif kind == "total":
        w.total = w.total or {"ns": w.rows[-1]["cum_ns"], "ew": w.rows[-1]["cum_ew"]}
        w.total[side] += rng.choice((10, 100, -100, 1000))
        w.planted.append({"kind": "total", "deal": w.rows[-1]["deal"], "side": side})
    elif kind == "winner":
        w.winners = "ew" if w.winners == "ns" else "ns"
        w.planted.append({"kind": "winner", "deal": None, "side": w.winners})
    elif kind == "missing_deal":
        for row in w.rows[k:]:
            row["deal"] += 1
        w.planted.append({"kind": "missing_deal", "deal": w.rows[k - 1]["deal"] + 1, "side": None})
    elif kind == "dealer":
        right = w.rows[k]["dealer"]
        w.rows[k]["dealer"] = rng.choice([s for s in SEATS if s != right])
        w.planted.append({"kind": "dealer", "deal": w.rows[k]["deal"], "side": None})
    elif kind == "score" and rng.random() < 0.5 and _plant_unexplainable(w, rng):
        pass
    elif kind == "score":
        # both sides written on one deal without honours: an impossible pair
        ks = [i for i in range(1, n - 1) if (w.rows[i]["ns"] == 0) != (w.rows[i]["ew"] == 0)
              and w.rows[i]["ns"] not in (100, 150) and w.rows[i]["ew"] not in (100, 150)]
        k = rng.choice(ks)
        empty_side = "ns" if w.rows[k]["ns"] == 0 else "ew"
        extra = rng.choice((30, 50, 60, 90, 120))
        for row in w.rows[k:]:
            row["cum_" + empty_side] += extra
        w.rows[k][empty_side] = extra
        if w.total is not None:
            w.total[empty_side] += extra
        w.planted.append({"kind": "score", "deal": w.rows[k]["deal"], "side": None})
    else:
        raise ValueError(f"unknown mistake kind {kind!r}")


def _plant_unexplainable(w: Written, rng: random.Random) -> bool:
    """Change one deal's score (cumulatives kept consistent) so that no history of
    results explains the sheet from that deal on; False when no such change is found."""
    from scoring.inverse import check_sequence

    n = len(w.rows)
    for _ in range(20):
        k = rng.randrange(1, n - 1)
        side = "ns" if w.rows[k]["ns"] else "ew"
        old = w.rows[k][side]
        new = old + rng.choice((10, -10, 20, 30, 50, 300, 500, -50))
        if new <= 0:
            continue
        totals = [(r["ns"], r["ew"]) for r in w.rows]
        totals[k] = (new, totals[k][1]) if side == "ns" else (totals[k][0], new)
        if check_sequence(totals).first_unexplained != k:
            continue
        w.rows[k][side] = new
        for row in w.rows[k:]:
            row["cum_" + side] += new - old
        if w.total is not None:
            w.total[side] += new - old
        w.planted.append({"kind": "score", "deal": w.rows[k]["deal"], "side": side})
        return True
    return False


@dataclass(frozen=True)
class Noise:
    """How the synthetic reader errs (per number cell)."""

    p_low: float = 0.6  # probability of the right value is uniform in [p_low, p_high] ...
    p_high: float = 0.99
    # ... except this share of written cells, read surely: [sure_low, p_high] (as the real
    # reader: 71 % of number cells at 0.95-0.99, RESULTS-read.md)
    sure_share: float = 0.7
    sure_low: float = 0.95
    swap: float = 0.04  # the top candidate is a confusion, the right value second
    absent: float = 0.004  # the right value is not among the candidates ...
    absent_residual: float = 0.15  # ... and the reader knows it is unsure
    unreadable: float = 0.003  # the reader gives up on the cell
    residual: float = 0.02  # probability mass left for "something else"
    blank_low: float = 0.9  # an empty cell is read as blank with p in [blank_low, p_high]
    dealer_low: float = 0.98  # dealer letters (4 classes): p in [dealer_low, dealer_high]
    dealer_high: float = 0.9995
    dealer_swap: float = 0.0002
    none_listed: bool = False  # list the residual as a (None, p) candidate, as the real reader
    # does with its "none of these" floor (ocr/read.py NONE_FLOOR), instead of leaving it unlisted
    # When given, written cells follow these bands instead of the sure share / swap / absent above:
    # (low, high, share of written cells, share of them whose best value is wrong, share of them
    # whose truth is not listed at all); the best value's probability is uniform in [low, high).
    bands: tuple[tuple[float, float, float, float, float], ...] = ()


# The reader as measured on the 78,597 written number cells of 879 generated sheets
# (bench/bench_reader_ablation.py's cached readings, seeds 60000-60099, 70000-70179, 80000-80149,
# 90000-90149, 100000-100149, 110000-110149): the best value's probability by band, how often it
# is wrong there and how often the truth is missing from the list.  The default Noise above is a
# harsher reader: ~4 % of its cells, sure or not, are read wrong (this one: 1.8 %, and 0.02 % of
# those read >= 0.99).
MEASURED = Noise(residual=0.002, blank_low=0.99, p_high=0.999, none_listed=True, bands=(
    (0.99, 0.999, 0.752, 0.0002, 0.0002), (0.95, 0.99, 0.139, 0.0043, 0.0018),
    (0.90, 0.95, 0.032, 0.0129, 0.0027), (0.80, 0.90, 0.028, 0.0475, 0.0105),
    (0.60, 0.80, 0.026, 0.1476, 0.0251), (0.30, 0.60, 0.023, 0.5003, 0.1989)))


def confusions(value: int, rng: random.Random) -> list[int]:
    """Plausible misreadings of a handwritten ``value`` (digit swaps, dropped/extra zero)."""
    text = str(value)
    out: list[int] = []
    for i, ch in enumerate(text):
        if ch in CONFUSABLE:
            alt = text[:i] + CONFUSABLE[ch] + text[i + 1:]
            if alt[0] != "0" or len(alt) == 1:
                out.append(int(alt))
    if value and value % 100 == 0:
        out.append(value // 10)
    if value:
        out.append(value * 10)
    rng.shuffle(out)
    return [v for v in dict.fromkeys(out) if v != value]


def noisy_cell(value: int, rng: random.Random, noise: Noise) -> CellReading:
    """N-best candidates for a cell whose written value is ``value`` (0 = blank)."""
    if noise.bands:
        return _banded_cell(value, rng, noise)
    blank = value == 0
    low = noise.blank_low if blank else noise.p_low
    if not blank and rng.random() < noise.sure_share:
        low = noise.sure_low
    p = min(rng.uniform(low, noise.p_high), 1.0 - noise.residual - 0.005)
    alts = confusions(value, rng)[:3] if not blank else [rng.choice((10, 70, 100))]
    rest = 1.0 - p - noise.residual
    alt_ps = [rest * f for f in (0.7, 0.2, 0.1)][:len(alts)]
    cands: list[tuple[object, float]] = [(value, p)] + list(zip(alts, alt_ps, strict=False))
    r = rng.random()
    if r < noise.unreadable:
        cands = [(None, 0.7), (value, 0.2)]
    elif r < noise.unreadable + noise.absent and alts:
        spare = 1.0 - noise.absent_residual
        cands = [(a, q) for a, q in cands[1:]]
        scale = spare / sum(q for _, q in cands)
        cands = [(a, q * scale) for a, q in cands]
    elif r < noise.unreadable + noise.absent + noise.swap and len(cands) > 1:
        (v0, p0), (v1, p1) = cands[0], cands[1]
        cands[0], cands[1] = (v1, p0), (v0, p1)
    if noise.none_listed and all(v is not None for v, _ in cands):
        cands.append((None, max(1.0 - sum(q for _, q in cands), 0.0)))
    cands.sort(key=lambda vp: -vp[1])
    return CellReading(candidates=cands, blank=blank and cands[0][0] == 0)


def _banded_cell(value: int, rng: random.Random, noise: Noise) -> CellReading:
    """A written cell read as ``noise.bands`` say: the best value's probability from its band,
    the truth second (or missing) as often as the band's best value is wrong.  An empty cell is
    read empty, the rest "none of these" (as the real reader: no other value proposed)."""
    if value == 0:
        p = rng.uniform(noise.blank_low, noise.p_high)
        return CellReading(candidates=[(0, p), (None, 1.0 - p)])
    low, high, _, wrong, absent = rng.choices(noise.bands, weights=[b[2] for b in noise.bands])[0]
    p = rng.uniform(low, high)
    alts = confusions(value, rng)[:3] or [value * 10]
    rest = max(1.0 - p - noise.residual, 0.0)
    cands: list[tuple[object, float]] = [(value, p)] + [
        (a, rest * f) for a, f in zip(alts, (0.7, 0.2, 0.1), strict=False)]
    u = rng.random()
    if u < absent:  # a confusion on top, the truth nowhere
        cands = [(alts[0], p)] + cands[2:]
    elif u < wrong and len(cands) > 1:  # a confusion on top, the truth second
        cands[0], cands[1] = (cands[1][0], p), (value, cands[1][1])
    if noise.none_listed:
        cands.append((None, max(1.0 - sum(q for _, q in cands), 0.0)))
    cands.sort(key=lambda vp: -vp[1])
    return CellReading(candidates=cands)


def dealer_cell(seat: str, rng: random.Random, noise: Noise) -> CellReading:
    p = rng.uniform(noise.dealer_low, noise.dealer_high)
    alt = rng.choice([s for s in SEATS if s != seat])
    cands = [(seat, p), (alt, (1 - p) * 0.5)]
    if rng.random() < noise.dealer_swap:
        cands = [(alt, p), (seat, (1 - p) * 0.5)]
    return CellReading(candidates=cands)


def noisy_reading(w: Written, rng: random.Random, noise: Noise | None = None,
                  source: str = "synthetic") -> SheetReading:
    """A :class:`SheetReading` of the written sheet ``w`` as a fallible reader sees it."""
    noise = noise or Noise()
    rows = []
    for row in w.rows:
        if row["dealer"] is None and row["ns"] is None:  # a row left empty
            rows.append(RowReading(row["deal"], {c: CellReading([], blank=True) for c in COLUMNS}))
            continue
        cells = {c: noisy_cell(row[c], rng, noise) for c in ("ns", "ew", "cum_ns", "cum_ew")}
        cells["dealer"] = dealer_cell(row["dealer"], rng, noise)
        rows.append(RowReading(row["deal"], cells))
    total = None
    if w.total is not None:
        total = RowReading(0, {"cum_" + s: noisy_cell(w.total[s], rng, noise)
                               for s in ("ns", "ew")})
    return SheetReading(source=source, rows=rows, total=total, winners_hint=w.winners,
                        names={"ns": "North / South", "ew": "East / West"})


def exact_reading(w: Written, source: str = "exact") -> SheetReading:
    """A reading that is certain of every written value."""
    rows = []
    for row in w.rows:
        if row["dealer"] is None and row["ns"] is None:  # a row left empty
            rows.append(RowReading(row["deal"], {c: CellReading([], blank=True) for c in COLUMNS}))
            continue
        cells = {c: CellReading([(row[c], 1.0)], blank=row[c] == 0)
                 for c in ("ns", "ew", "cum_ns", "cum_ew")}
        cells["dealer"] = CellReading([(row["dealer"], 1.0)])
        rows.append(RowReading(row["deal"], cells))
    total = None
    if w.total is not None:
        total = RowReading(0, {"cum_" + s: CellReading([(w.total[s], 1.0)]) for s in ("ns", "ew")})
    return SheetReading(source=source, rows=rows, total=total, winners_hint=w.winners)
