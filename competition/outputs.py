"""Files the competition leaves in its batch folder, each written atomically: competition.html
(the page), draw.html (the draw to print or send) and draw.csv (the same, to edit and import back
with `rubberscan competition DIR --pairs PAIRS.csv --draw draw.csv`)."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from pathlib import Path

from batch.atomic import atomic_write_text
from batch.ledger import Ledger
from batch.outputs import COMPETITION_PAGE, write_index
from competition.run import State
from competition.view import view
from report.competition import render_competition, render_draw

PAGE_NAME, DRAW_HTML, DRAW_CSV = COMPETITION_PAGE[0], "draw.html", "draw.csv"
RESULT_COLUMNS = ("round", "match", "pair_a", "pair_b", "ns", "total_a", "total_b", "winner",
                  "margin", "status", "sheets")


def write_pages(out_dir: str | Path, state: State, today: date, ledger: Ledger | None = None) -> Path:
    """The three files from ``state``; returns the page's path.  With ``ledger``, the batch's
    report.html is written again too, so it links to the page."""
    out = Path(out_dir)
    v = view(state, today.isoformat())
    atomic_write_text(out / DRAW_CSV, v["draw_csv"])
    atomic_write_text(out / DRAW_HTML, render_draw(v))
    page = atomic_write_text(out / PAGE_NAME, render_competition(v))
    if ledger is not None:
        write_index(out, ledger)
    return page


def results_json_lines(state: State) -> str:
    return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in state.results)


def results_csv(state: State) -> str:
    """One row per match: CONTRACT.md's keys as columns (the two pairs and their totals side by
    side, the sheets joined by " | ")."""
    from report.csvfile import cell

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(RESULT_COLUMNS)
    for r in state.results:
        a = r.pairs[0]
        b = r.pairs[1] if len(r.pairs) > 1 else None
        totals = r.totals or {}
        w.writerow([cell(v) for v in (r.round, r.match, a, b, r.ns, totals.get(a),
                                      totals.get(b) if b else None, r.winner, r.margin, r.status,
                                      " | ".join(r.sheets))])
    return buf.getvalue()


def results_text(state: State) -> str:
    """For a person at a terminal: a line per match, by round, then what needs doing."""
    names = state.roster.names
    lines = []
    for rnd in sorted({r.round for r in state.results}):
        lines.append(f"Round {rnd}")
        for r in (r for r in state.results if r.round == rnd):
            if r.bye:
                lines.append(f"  {r.match:<8} {names(r.pairs[0])} ({r.pairs[0]}): a bye")
                continue
            a, b = r.pairs
            score = (f"{r.totals[a]}-{r.totals[b]}" if r.totals else "-")
            won = f"; {names(r.winner)} by {r.margin}" if r.winner else ""
            lines.append(f"  {r.match:<8} {names(a)} ({a}) v {names(b)} ({b}): {score}{won}  "
                         f"[{r.status}]")
            for f in r.flags:
                lines.append(f"           flag: {f.get('message')}")
            for note in r.notes:
                lines.append(f"           {note}")
    if not state.results:
        lines.append("No draw yet: `rubberscan draw DIR --round 1`.")
    for item in state.review_items:
        best = item["candidates"][0] if item["candidates"] else None
        lines.append(f"which match? {item['source']}: best {best['label'] if best else '-'} "
                     f"({best['weight']:.0%})" if best else f"which match? {item['source']}")
    for sid in state.unmatched:
        lines.append(f"no match of the draw: {state.sheets[sid].label}")
    return "\n".join(lines) + "\n"
