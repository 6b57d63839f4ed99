"""Draw a scored match as the WE/THEY score pad a person keeps on paper.

WE is N/S, THEY is E/W.  For each rubber: above-the-line entries stacked upward
from the line (latest on top), the line, below-the-line entries in order with a
line drawn under each game, then the rubber's totals and the difference
(seed 001's worked example).  Pure: returns text.
"""

from __future__ import annotations

from itertools import groupby

from scoring.model import SIDES
from scoring.pad import DealLine, MatchScore

WIDTH = 9
NAMES = {"ns": "WE", "ew": "THEY"}


def _row(left: object = "", right: object = "") -> str:
    return f"{left!s:>{WIDTH}} | {right!s:<{WIDTH}}".rstrip()


def _rule(ch: str) -> str:
    return ch * (WIDTH + 1) + "+" + ch * (WIDTH + 1)


def _columns(cols: dict[str, list[int]], bottom: bool) -> list[str]:
    """Two columns of numbers side by side, aligned at the bottom or the top."""
    height = max(len(c) for c in cols.values())
    padded = {}
    for side, col in cols.items():
        blank = [""] * (height - len(col))
        padded[side] = blank + col if bottom else col + blank
    return [_row(a, b) for a, b in zip(padded["ns"], padded["ew"], strict=True)]


def render_rubber(number: int, lines: list[DealLine]) -> list[str]:
    """One rubber's pad."""
    above: dict[str, list[int]] = {s: [] for s in SIDES}
    games: list[dict[str, list[int]]] = [{s: [] for s in SIDES}]
    finished = False
    for line in lines:
        for item in line.score.items:
            if item.below:
                games[-1][item.side].append(item.amount)
            else:
                above[item.side].insert(0, item.amount)  # stacked upward
        if line.outcome.game_made:
            games.append({s: [] for s in SIDES})
        finished = finished or line.outcome.rubber_winner is not None
    title = f"Rubber {number}" + ("" if finished else " (unfinished)")
    out = [title, _row("WE", "THEY"), _rule("-")]
    out += _columns(above, bottom=True)
    out.append(_rule("="))
    closed = len(games) - 1  # games completed in this rubber
    for i, game in enumerate(games):
        out += _columns(game, bottom=False)
        if i < closed:
            out.append(_rule("-"))
    totals = {s: sum(line.total.of(s) for line in lines) for s in SIDES}
    out.append(_rule("="))
    out.append(_row(totals["ns"], totals["ew"]))
    out.append(_difference(totals["ns"], totals["ew"]))
    return out


def _difference(ns: int, ew: int) -> str:
    if ns == ew:
        return "level"
    lead = "ns" if ns > ew else "ew"
    return f"{NAMES[lead]} +{abs(ns - ew)}"


def render_pad(match: MatchScore) -> str:
    """The whole match: every rubber's pad, then the match totals."""
    blocks: list[str] = []
    for number, group in groupby(match.lines, key=lambda ln: ln.rubber):
        blocks.append("\n".join(render_rubber(number, list(group))))
    t = match.totals
    passed = sum(1 for ln in match.lines if ln.outcome.result.passed)
    summary = [
        f"Match after {len(match.lines)} deals ({passed} passed out): WE {t.ns}  THEY {t.ew}",
        "Result: " + _difference(t.ns, t.ew),
    ]
    return "\n\n".join(blocks + ["\n".join(summary)]) + "\n"
