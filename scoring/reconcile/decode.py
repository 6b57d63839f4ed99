"""Joint decoding of a sheet's number cells: a beam search over the deals.

Each cell offers its N-best readings (cost = -log p), "unreadable" and, at a
price, a value the reader did not propose but the arithmetic implies.  The beam
state is the running total each side carries into the next deal, the set of
score-pad states the rule check allows, and the mistakes assumed so far.  A
mistake by the players is a hypothesis with a prior cost, so the decoder can
explain a broken sheet either as misreads or as players' mistakes, whichever is
more probable.

Cumulative mistakes come in two shapes: a *slip* (the wrong cumulative is carried
forward) and a *miscopy* (the next row continues from the right value); both
are flagged once, at the deal where they happen.  A deal's score written in the
other side's column, and added up where it belongs, is one mistake too (a
"score" of shape "column"), not two wrong cumulatives.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

from scoring.reconcile.cells import CellModel, misread_shape
from scoring.reconcile.check import DealChecker, pair_problem
from scoring.reconcile.settings import DEFAULT, DecoderSettings, ReconcileSettings


def carry_like(written: int, expected: int) -> bool:
    """Is ``written`` the classic slip of a person adding up ``expected``: a carry lost or added
    (exactly 100 or 1000 off), or two neighbouring digits swapped?"""
    if written < 0 or expected < 0:
        return False
    if abs(written - expected) in (100, 1000):
        return True
    a, b = str(written), str(expected)
    return len(a) == len(b) and misread_shape(written, expected) == "swap"


def slip_prior(written: int, expected: int, base_cost: float, s: DecoderSettings) -> float:
    """The prior cost of the players writing ``written`` for ``expected``: less for a carry or a
    swap (DecoderSettings.carry_discount), less again for a swap (swap_discount), more for a
    number unlike a person's slip."""
    if carry_like(written, expected):
        swap = misread_shape(written, expected) == "swap"
        return base_cost - s.carry_discount - (s.swap_discount if swap else 0.0)
    return base_cost + (0.0 if slip_like(written, expected) else s.cost_odd_slip)


def slip_like(written: int, expected: int) -> bool:
    """Does ``written`` look like a person's slip for ``expected``: one digit wrong, two
    neighbouring digits swapped, a 0 too many or too few, or off by a single digit's worth up
    to 2000 (10, 200, 1000...)?  A number off by 70000 (an extra leading digit) is more like a
    misread."""
    if written < 0 or expected < 0:
        return False
    gap = abs(written - expected)
    if len(str(gap).rstrip("0")) == 1 and gap <= 2000:
        return True
    a, b = str(written), str(expected)
    if abs(len(a) - len(b)) == 1:  # a 0 left out or written twice (600 as 60, 270 as 2700)
        short, long_ = sorted((a, b), key=len)
        return any(long_[i] == "0" and long_[:i] + long_[i + 1:] == short
                   for i in range(1, len(long_)))
    return len(a) == len(b) and misread_shape(written, expected) in ("digit", "swap")


@dataclass
class DealInput:
    deal: int
    cells: dict[str, CellModel]  # NUMBER_COLUMNS -> model
    skip: bool = False  # an empty row: not a deal, nothing to check


@dataclass(frozen=True)
class Mistake:
    """A mistake hypothesis: enough to write the flag."""

    deal: int
    kind: str  # cumulative, score, total
    side: str | None
    column: str | None
    written: object
    expected: object
    base: int | None = None  # cumulative: the running total before the deal
    score: int | None = None  # cumulative: the deal's score
    shape: str = ""  # cumulative: slip / copy; score: the reason

    @property
    def key(self) -> tuple:
        """Identity for counting a mistake's probability (a score's side is a guess)."""
        return (self.deal, self.kind, None if self.kind == "score" else self.side)


# A chosen cell: (value, source[, implied]) with source "read", "inferred" or "none";
# an unreadable cell may carry the value the arithmetic implies for it.
Choice = tuple


@dataclass
class Hypothesis:
    cost: float
    cells: list[dict[str, Choice]]  # per input deal (skipped rows: empty dict)
    mistakes: list[Mistake]
    totals: dict[str, Choice] = field(default_factory=dict)
    weight: float = 0.0
    bases: dict[str, int | None] = field(default_factory=dict)  # running totals at the end
    pads: list = field(default_factory=list)  # per input deal: pad states before it (None: unknown)


class _Node:
    __slots__ = ("cost", "b_ns", "b_ew", "pad", "keys", "parent", "cells", "mistakes")

    def __init__(self, cost, b_ns, b_ew, pad, keys, parent, cells, mistakes):
        self.cost = cost
        self.b_ns = b_ns
        self.b_ew = b_ew
        self.pad = pad
        self.keys = keys
        self.parent = parent
        self.cells = cells
        self.mistakes = mistakes


def _side_options(base, s_cell: CellModel, c_cell: CellModel, deal: int, side: str,
                  s: DecoderSettings) -> list[tuple]:
    """Ways to read one side's (score, cumulative) given the running total ``base``.

    Each: (cost, score value, score choice, cum choice, new base, mistake or None).
    """
    out: list[tuple] = []
    col = "cum_" + side
    s_opts = list(s_cell.choices)
    c_opts = list(c_cell.choices)
    if base is not None:
        # one-digit variants the reader itself finds likely: tried even where the other cell of
        # the pair must then be read otherwise too (both cells misread)
        for cell, opts in ((s_cell, s_opts), (c_cell, c_opts)):
            opts += [(v, cell.other(v), "near")
                     for v in cell.likely_variants(s.near_try_at, s.near_try)]
        # values the reader did not propose but the arithmetic implies
        for cv, _ccost, _csrc in list(c_opts):
            inferred = cv - base if cv is not None else None
            if inferred is not None and inferred >= 0 and inferred % 10 == 0 \
                    and inferred not in s_cell.values and s_cell.present:
                s_opts.append((inferred, s_cell.other(inferred), "inferred"))
        for sv, _scost, _ssrc in list(s_opts):
            if sv is not None and base + sv not in c_cell.values and c_cell.present:
                c_opts.append((base + sv, c_cell.other(base + sv), "inferred"))
    seen = set()
    for sv, scost, ssrc in s_opts:
        for cv, ccost, csrc in c_opts:
            if (ssrc == "inferred" and csrc == "inferred") or (ssrc == csrc == "near") \
                    or (sv, ssrc, cv, csrc) in seen:
                continue
            seen.add((sv, ssrc, cv, csrc))
            cost = scost + ccost
            schoice = (sv, "inferred" if ssrc == "near" else ssrc)
            cchoice = (cv, "inferred" if csrc == "near" else csrc)
            if base is None:
                out.append((cost, sv, schoice, cchoice, cv, None))
            elif sv is None:
                # unreadable score: the cumulative tells what it was, when it can
                if cv is None:
                    out.append((cost, None, schoice, cchoice, None, None))
                else:
                    diff = cv - base
                    s_val = diff if diff >= 0 and diff % 10 == 0 else None
                    out.append((cost, s_val, (None, "none", s_val), cchoice, cv, None))
            elif cv is None:
                out.append((cost, sv, schoice, (None, "none", base + sv), base + sv, None))
            elif cv == base + sv:
                out.append((cost, sv, schoice, cchoice, cv, None))
            elif csrc == "read" and ssrc == "read":  # a mistake rests on what was read
                prior = slip_prior(cv, base + sv, s.cost_cumulative, s)
                for shape, new_base in (("slip", cv), ("copy", base + sv)):
                    m = Mistake(deal, "cumulative", side, col, cv, base + sv, base, sv, shape)
                    out.append((cost + prior, sv, schoice, cchoice, new_base, m))
    out.sort(key=lambda t: t[0])
    if not out:
        return out
    cut = out[0][0] + s.window + s.cost_score  # the rule check may still cost the cheapest ones
    kept = [o for o in out[:s.side_options] if o[0] <= cut]
    if not any(o[4] is None for o in kept):
        # ... and the cheapest that leaves the running total unknown (cells that cannot be read):
        # the one way past two neighbouring misread cells, not to be crowded out by variants of
        # one misreading that each die on a later deal as a players' mistake
        kept += [o for o in out[s.side_options:] if o[4] is None and o[0] <= cut][:1]
    return kept


def _column_options(base: int, s_cell: CellModel, c_cell: CellModel, deal: int, side: str,
                    s: DecoderSettings) -> list[tuple]:
    """One side's (score, cumulative) read with the *other* side's score cell, for a score written
    in the wrong column: a score the reader proposed, a cumulative that adds up (read, or one it
    did not propose), no mistake of their own."""
    return [o for o in _side_options(base, s_cell, c_cell, deal, side, s)
            if o[5] is None and o[2][1] == "read" and o[3][1] in ("read", "inferred")]


def decode(deals: list[DealInput], totals: dict[str, CellModel] | None,
           checker: DealChecker, settings: ReconcileSettings = DEFAULT) -> list[Hypothesis]:
    """The most probable readings of the whole sheet, best first, with weights."""
    s = settings.decoder
    start = _Node(0.0, 0, 0, checker.initial(), (), None, {}, ())
    beam = [start]
    last_index = max((i for i, d in enumerate(deals) if not d.skip), default=-1)
    for index, d in enumerate(deals):
        if d.skip:
            # an empty row: whatever was played there is unknown; the next cumulatives re-sync
            pad = checker.anything()
            beam = [_Node(n.cost, None, None, pad, n.keys, n, {}, ()) for n in beam]
            continue
        beam = _expand(beam, d, checker, index == last_index, s)
    finals = _finish(beam, totals, s)
    finals.sort(key=lambda t: t[0])
    finals = finals[:s.hypotheses]
    if not finals:
        return []
    best = finals[0][0]
    hyps = []
    for cost, node, tot, extra in finals:
        cells, pads, mistakes = [], [], list(extra)
        walk = node
        while walk.parent is not None:
            cells.append(walk.cells)
            pads.append(walk.parent.pad)
            mistakes.extend(walk.mistakes)
            walk = walk.parent
        cells.reverse()
        pads.reverse()
        mistakes.sort(key=lambda m: (m.deal, m.kind, m.side or ""))
        hyps.append(Hypothesis(cost, cells, mistakes, tot, math.exp(best - cost),
                               {"ns": node.b_ns, "ew": node.b_ew}, pads))
    total_w = sum(h.weight for h in hyps)
    for h in hyps:
        h.weight /= total_w
    return hyps


def _expand(beam: list[_Node], d: DealInput, checker: DealChecker, last: bool,
            s: DecoderSettings, limit: float | None = None) -> list[_Node]:
    """The next beam: every way to read deal ``d`` after each node, best first.

    Combinations are visited in order of their arithmetic cost, so the (costlier)
    rule check runs only for those that can still enter the beam.
    """
    cells = d.cells
    memo: dict[tuple, list] = {}
    per_node = []
    for node in beam:
        ns_opts = memo.get(("ns", node.b_ns))
        if ns_opts is None:
            ns_opts = memo[("ns", node.b_ns)] = _side_options(
                node.b_ns, cells["ns"], cells["cum_ns"], d.deal, "ns", s)
        ew_opts = memo.get(("ew", node.b_ew))
        if ew_opts is None:
            ew_opts = memo[("ew", node.b_ew)] = _side_options(
                node.b_ew, cells["ew"], cells["cum_ew"], d.deal, "ew", s)
        if ns_opts and ew_opts:
            per_node.append((node, ns_opts, ew_opts, False))
        if node.b_ns is not None and node.b_ew is not None \
                and cells["ns"].present and cells["ew"].present:
            # the score written in the other side's column: each cumulative read with the
            # other score cell
            swapped = [memo.get(("ns~", node.b_ns)), memo.get(("ew~", node.b_ew))]
            if swapped[0] is None:
                swapped[0] = memo[("ns~", node.b_ns)] = _column_options(
                    node.b_ns, cells["ew"], cells["cum_ns"], d.deal, "ns", s)
            if swapped[1] is None:
                swapped[1] = memo[("ew~", node.b_ew)] = _column_options(
                    node.b_ew, cells["ns"], cells["cum_ew"], d.deal, "ew", s)
            if swapped[0] and swapped[1]:
                per_node.append((node, swapped[0], swapped[1], True))
    if limit is None:
        # the cheapest reading may still fail the rule check, so look that much further
        limit = min((n.cost + a[0][0] + b[0][0] for n, a, b, _ in per_node), default=math.inf) \
            + s.window + s.cost_score
    combos = []
    for node, ns_opts, ew_opts, swapped in per_node:
        for a in ns_opts:
            ca = node.cost + a[0]
            if ca > limit:
                break
            for b in ew_opts:
                cost = ca + b[0]
                if cost > limit:
                    break
                if swapped:
                    # the written pair: exactly one side's cell holds the score
                    if (a[2][0] == 0) == (b[2][0] == 0):
                        continue
                    cost += s.cost_column
                    if cost > limit:
                        continue
                combos.append((cost, id(a), id(b), node, a, b, swapped))
    combos.sort(key=lambda t: t[0])
    best: dict[tuple, _Node] = {}
    worst_kept: list[float] = []  # max-heap (negated) of the beam's best costs so far
    per_totals: dict[tuple, int] = {}
    floor = math.inf
    for cost, _ia, _ib, node, a, b, swapped in combos:
        if cost > floor + s.window or (len(worst_kept) >= s.beam and cost > -worst_kept[0]):
            break
        mistakes = tuple(m for m in (a[5], b[5]) if m is not None)
        if swapped:
            # a: N/S's cumulative read with the E/W score cell; b: E/W's with the N/S one
            where = "ns" if b[2][0] else "ew"
            value = b[2][0] or a[2][0]
            mistakes = (Mistake(d.deal, "score", where, where, value, 0, shape="column"),)
        pad = node.pad
        s_ns, s_ew = a[1], b[1]
        if s_ns is None or s_ew is None:
            pad = checker.anything()  # a score unknown: the pad could be anywhere now
        else:
            after = checker.step(pad, s_ns, s_ew, last)
            if after:
                pad = after
            else:
                meant = _zero_meant(d.deal, node.pad, s_ns, s_ew, last, checker)
                cost += s.cost_score - (s.zero_discount if meant is not None else 0.0)
                if cost > limit:
                    continue
                mistakes += (_score_mistake(d.deal, s_ns, s_ew, last, node.pad, checker)
                             if meant is None else meant,)
                pad = checker.anything()  # checking goes on from every state
        keys = node.keys + tuple(m.key for m in mistakes) if mistakes else node.keys
        key = (a[4], b[4], pad, keys)
        old = best.get(key)
        if old is None or cost < old.cost:
            choice = {"ns": b[2], "cum_ns": a[3], "ew": a[2], "cum_ew": b[3]} if swapped else \
                {"ns": a[2], "cum_ns": a[3], "ew": b[2], "cum_ew": b[3]}
            best[key] = _Node(cost, a[4], b[4], pad, keys, node, choice, mistakes)
            floor = min(floor, cost)
            # combos come cheapest first, so a key's first node is its best: count it once,
            # and only while its running totals have room in the beam
            totals = (a[4], b[4])
            seen = per_totals.get(totals, 0) if old is None else s.per_totals
            if seen < s.per_totals:
                per_totals[totals] = seen + 1
                heapq.heappush(worst_kept, -cost)
                if len(worst_kept) > s.beam:
                    heapq.heappop(worst_kept)
    nodes = sorted(best.values(), key=lambda n: n.cost)
    if not nodes:
        if limit == math.inf:
            raise ValueError(f"deal {d.deal}: no reading of the row at all")
        return _expand(beam, d, checker, last, s, math.inf)
    cut = nodes[0].cost + s.window
    kept: list[_Node] = []
    count: dict[tuple, int] = {}
    for n in nodes:
        if n.cost > cut or len(kept) >= s.beam:
            break
        totals = (n.b_ns, n.b_ew)
        if count.get(totals, 0) < s.per_totals:
            count[totals] = count.get(totals, 0) + 1
            kept.append(n)
    return kept


def zero_variants(value: int) -> list[int]:
    """What a person may have meant by the score ``value`` with a 0 too many or too few: 600 for
    6000, 600 for 60 (multiples of 10 only)."""
    return [v for v in (value // 10 if value % 100 == 0 else 0, value * 10) if v > 0]


def _zero_meant(deal: int, pad, ns: int, ew: int, last: bool,
                checker: DealChecker) -> Mistake | None:
    """The "score" mistake of a one-sided score the rules cannot explain as written but can with
    a 0 too many or too few (the meant value as its expected), or None."""
    if (ns == 0) == (ew == 0) or ns < 0 or ew < 0:
        return None
    side, value = ("ns", ns) if ns else ("ew", ew)
    for meant in zero_variants(value):
        if checker.step(pad, *((meant, 0) if side == "ns" else (0, meant)), last):
            return Mistake(deal, "score", side, side, value, meant, shape="zero")
    return None


def _score_mistake(deal: int, ns: int, ew: int, last: bool, pad, checker: DealChecker) -> Mistake:
    """The "score" mistake for a deal the rules cannot explain, with the side at fault
    when it can be told (for a pair, the side whose entry alone cannot be explained,
    else the smaller entry)."""
    reason = pair_problem(ns, ew, last)
    if ns and ew:
        alone_ok = {side: bool(checker.step(pad, *pair, last))
                    for side, pair in (("ns", (ns, 0)), ("ew", (0, ew)))}
        if alone_ok["ns"] != alone_ok["ew"]:
            side = "ew" if alone_ok["ns"] else "ns"
        else:
            side = "ns" if ns <= ew else "ew"
        return Mistake(deal, "score", side, side, ns if side == "ns" else ew, 0,
                       shape=reason or "rules", score=ew if side == "ns" else ns)
    side = "ns" if ns else "ew"
    return Mistake(deal, "score", side, side, ns if side == "ns" else ew, None,
                   shape=reason or "rules")


def _finish(beam: list[_Node], totals: dict[str, CellModel] | None,
            s: DecoderSettings) -> list[tuple]:
    """Add the Total row's cost to every final hypothesis: each way to read the Total row
    (within DecoderSettings.window of the best) is a hypothesis of its own, so a Total-row
    mistake has a posterior probability like any other."""
    out = []
    for node in beam:
        if not totals:
            out.append((node.cost, node, {}, ()))
            continue
        last_written = _last_written(node)
        combos = [(node.cost, {}, ())]
        for side, base in (("ns", node.b_ns), ("ew", node.b_ew)):
            cell = totals.get(side)
            if cell is None or not cell.present:
                continue
            ok_values = {base, last_written.get(side)} - {None}
            opts = []
            for o in cell.options:
                if o.value is None or base is None or o.value in ok_values:
                    source = "read" if o.value is not None else "none"
                    opts.append((o.cost, (o.value, source), None))
                else:
                    m = Mistake(0, "total", side, side, o.value, base)
                    prior = slip_prior(o.value, base, s.cost_total, s)
                    opts.append((o.cost + prior, (o.value, "read"), m))
            if base is not None and base not in cell.values:
                opts.append((cell.other(base), (base, "inferred"), None))
            opts.sort(key=lambda t: t[0])
            opts = [o for o in opts if o[0] <= opts[0][0] + s.window]
            combos = [(cost + c, {**chosen, side: choice}, extra + ((m,) if m is not None else ()))
                      for cost, chosen, extra in combos for c, choice, m in opts]
        out.extend((cost, node, chosen, extra) for cost, chosen, extra in combos)
    return out


def _last_written(node: _Node) -> dict[str, object]:
    walk = node
    while walk.parent is not None and not walk.cells:
        walk = walk.parent
    if not walk.cells:
        return {}
    return {s: walk.cells.get("cum_" + s, (None, ""))[0] for s in ("ns", "ew")}
