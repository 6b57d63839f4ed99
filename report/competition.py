"""The competition page (DIR/competition.html) and the draw to send (DIR/draw.html, printable):
rounds with their matches and statuses, the winners going through, the standings the seed asks
for, and every sheet or e-mail that fits no match.

Pure rendering of the plain records competition/view.py makes; every piece of text is escaped
(report/html.py's page: no scripts, no outside resources)."""

from __future__ import annotations

from report.html import e, page

STATUS_TEXT = {"verified": "verified", "flags": "flags (players' mistakes)",
               "review": "to review", "missing": "no sheet yet", "overdue": "overdue",
               "tie": "tie: two more deals"}
STATUS_CLASS = {"verified": "read", "flags": "flag", "review": "review", "missing": "",
                "overdue": "flag", "tie": "review"}
_PRINT = ("<style>@media print{a{color:inherit;text-decoration:none}.noprint{display:none}}"
          "td.w{font-weight:bold}td.d{white-space:nowrap}</style>")


def _names(pair: dict | None) -> str:
    if not pair:
        return "bye"
    return f"{e(pair['names'])} <span class=\"muted\">({e(pair['id'])})</span>"


def _score(m: dict) -> str:
    totals = m.get("totals")
    if not totals:
        return ""
    return " &ndash; ".join(e(totals.get(p["id"])) for p in m["pairs"] if p)


def _winner(m: dict) -> str:
    if m["bye"]:
        return _names(m["pairs"][0]) + " (bye)"
    if not m.get("winner"):
        return ""
    pair = next(p for p in m["pairs"] if p and p["id"] == m["winner"])
    return f"{_names(pair)}, by {e(m.get('margin'))}"


def _match_row(m: dict) -> str:
    a = m["pairs"][0]
    b = m["pairs"][1] if len(m["pairs"]) > 1 else None

    def seat(p: dict | None) -> str:
        return " <span class=\"muted\">N/S</span>" if p and m.get("ns") == p["id"] else ""

    sheets = "<br>".join(f'<a href="{e(s["href"])}">{e(s["label"])}</a>'
                         for s in m["sheets"])
    detail = "".join(f'<li class="flag">{e(f)}</li>' for f in m["flags"])
    detail += "".join(f"<li>{e(n)}</li>" for n in m["notes"] if n != "a bye")
    status = m["status"]
    return (f'<tr><td class="l">{e(m["match"])}</td><td class="l">{_names(a)}{seat(a)}</td>'
            f'<td class="l">{_names(b) if b else "<i>bye</i>"}{seat(b)}</td>'
            f'<td class="d">{_score(m)}</td><td class="l">{_winner(m)}</td>'
            f'<td class="{STATUS_CLASS[status]} l">{e(STATUS_TEXT[status])}</td>'
            f'<td class="l d">{e(m.get("deadline"))}</td><td class="l">{sheets}'
            + (f'<ul class="flags">{detail}</ul>' if detail else "") + "</td></tr>")


def _rounds(v: dict) -> str:
    if not v["rounds"]:
        return "<p>No draw yet: <code>rubberscan draw DIR --round 1</code> makes one.</p>"
    parts = []
    head = ("<tr><th class=\"l\">Match</th><th class=\"l\">Pair</th><th class=\"l\">Pair</th>"
            "<th>Score</th><th class=\"l\">Winner</th><th class=\"l\">Status</th>"
            "<th class=\"l\">Play by</th><th class=\"l\">Sheets</th></tr>")
    for rnd in v["rounds"]:
        counts: dict[str, int] = {}
        for m in rnd["matches"]:
            counts[m["status"]] = counts.get(m["status"], 0) + 1
        said = ", ".join(f"{n} {STATUS_TEXT[s]}" for s, n in sorted(counts.items()))
        done = " (complete)" if rnd["complete"] else ""
        parts.append(f"<h3>Round {e(rnd['round'])}{done}</h3><p class=\"muted\">{e(said)}</p>"
                     f"<table>{head}{''.join(_match_row(m) for m in rnd['matches'])}</table>")
        if rnd["complete"]:
            through = ", ".join(_names(p) for p in rnd["through"])
            parts.append(f"<p>Going through from round {e(rnd['round'])}: {through}</p>")
    return "".join(parts)


def _standings(v: dict) -> str:
    st = v["standings"]
    parts = ["<h2>Standings</h2>"]
    if st["top_two"]:
        parts.append("<p><b>The top two</b> (to the final rounds of the regional competition): "
                     + " and ".join(_names(p) for p in st["top_two"]) + "</p>")
    else:
        parts.append(f"<p>{len(st['still_in'])} pairs still in: "
                     + ", ".join(_names(p) for p in st["still_in"]) + "</p>")
    for cat, label in (("Junior", "Junior pairs (Jnr/Jnr)"),
                       ("Intermediate", "Intermediate pairs (Int/Jnr or Int/Int)")):
        rows = st["best"].get(cat) or []
        if not rows:
            parts.append(f"<h3>Best {e(label)}</h3><p>None entered.</p>")
            continue
        body = "".join(
            f'<tr><td>{i}</td><td class="l">{_names(r["pair"])}</td><td>{e(r["won"])}</td>'
            f'<td class="l">{"still in" if r["still_in"] else "out in round " + e(r["lost_round"])}'
            f'</td><td>{e(r["lost_margin"])}</td></tr>'
            for i, r in enumerate(rows, start=1))
        parts.append(f"<h3>Best {e(label)}</h3><p class=\"muted\">Not in the top two; ranked by "
                     "the round reached, then the losing margin.</p>"
                     "<table><tr><th></th><th class=\"l\">Pair</th><th>Won</th>"
                     f"<th class=\"l\">Reached</th><th>Lost by</th></tr>{body}</table>")
    return "".join(parts)


def _review(v: dict) -> str:
    if not v["review"]:
        return ""
    items = []
    for r in v["review"]:
        cands = "".join(f"<li>{e(c['label'])}: {float(c['weight']):.0%}</li>"
                        for c in r["candidates"])
        items.append(f'<li><a href="sheets/{e(r["sheet_id"])}.html">{e(r["source"])}</a>: '
                     f'{e(r["question"])} <span class="muted">({e(r["clues"])})</span>'
                     f"<ul>{cands}</ul></li>")
    return ("<h2>Sheets whose match is not sure</h2><p class=\"muted\">Answer with "
            "<code>rubberscan competition DIR --assign SHEET=MATCH[:NS_PAIR]</code> or in the "
            f"review app.</p><ul>{''.join(items)}</ul>")


def _unmatched(v: dict) -> str:
    parts = []
    if v["unmatched"]:
        rows = "".join(
            f'<tr><td class="l"><a href="{e(u["href"])}">{e(u["label"])}</a></td>'
            f'<td class="l">{e(u["sender"])}</td><td class="l">{e(u["names"].get("ns"))} v '
            f'{e(u["names"].get("ew"))}</td><td class="l">'
            f'{"the organiser said so" if u["organiser"] else "no pair of the draw"}</td></tr>'
            for u in v["unmatched"])
        parts.append("<h2>Sheets of no match in the draw</h2><table><tr><th class=\"l\">Sheet</th>"
                     "<th class=\"l\">From</th><th class=\"l\">Names on it</th><th class=\"l\">Why"
                     f"</th></tr>{rows}</table>")
    if v["no_scan"]:
        rows = "".join(
            f'<tr><td class="l">{e(m.get("sender"))}</td><td class="l">'
            f'{_names(m["pair"]) if m.get("pair") else "not a pair of the roster"}</td>'
            f'<td class="l">{e(m.get("subject"))}</td><td class="l">{e(m.get("date"))}</td></tr>'
            for m in v["no_scan"])
        parts.append("<h2>E-mails without a scan</h2><table><tr><th class=\"l\">From</th>"
                     "<th class=\"l\">Pair</th><th class=\"l\">Subject</th><th class=\"l\">Date"
                     f"</th></tr>{rows}</table>")
    if v["failed"]:
        rows = "".join(f'<tr><td class="l">{e(f["label"])}</td><td class="l">{e(f["sender"])}</td>'
                       f'<td class="l fail">{e(f["error"])}</td></tr>' for f in v["failed"])
        parts.append("<h2>Files that could not be read</h2><table><tr><th class=\"l\">File</th>"
                     f"<th class=\"l\">From</th><th class=\"l\">Reason</th></tr>{rows}</table>")
    return "".join(parts)


def render_competition(v: dict) -> str:
    """DIR/competition.html."""
    notes = "".join(f'<p class="fail">{e(n)}</p>' for n in v["notes"])
    body = (f'<p class="noprint"><a href="report.html">&larr; all sheets</a> &middot; '
            f'<a href="draw.html">the draw to send (print)</a> &middot; '
            f'<a href="draw.csv">the draw as CSV</a></p>'
            f"<h1>{e(v['name'])}</h1><p class=\"muted\">{e(v['pairs'])} pairs; as of "
            f"{e(v['today'])}.</p>{notes}<h2>Rounds</h2>{_rounds(v)}{_standings(v)}"
            f"{_review(v)}{_unmatched(v)}")
    return page(f"{v['name']}: the competition", _PRINT + body)


def render_draw(v: dict) -> str:
    """DIR/draw.html: the updated draw to print or send: each round's matches with their results,
    the latest round's with the date to play by."""
    parts = [f"<h1>{e(v['name'])}: the draw</h1><p class=\"muted\">As of {e(v['today'])}.</p>"]
    for rnd in reversed(v["rounds"]):
        rows = []
        for m in rnd["matches"]:
            a = m["pairs"][0]
            b = m["pairs"][1] if len(m["pairs"]) > 1 else None
            result = (_winner(m) if m["status"] in ("verified", "flags") or m["bye"]
                      else e(STATUS_TEXT[m["status"]]))
            rows.append(f'<tr><td class="l">{e(m["match"])}</td><td class="l">{_names(a)}</td>'
                        f'<td class="l">{_names(b) if b else "<i>bye</i>"}</td>'
                        f'<td class="l d">{e(m.get("deadline"))}</td><td class="d">{_score(m)}</td>'
                        f'<td class="l w">{result}</td></tr>')
        parts.append(f"<h2>Round {e(rnd['round'])}</h2><table><tr><th class=\"l\">Match</th>"
                     "<th class=\"l\">Pair</th><th class=\"l\">Pair</th>"
                     "<th class=\"l\">Play by</th><th>Score</th><th class=\"l\">Result</th></tr>"
                     f"{''.join(rows)}</table>")
    if not v["rounds"]:
        parts.append("<p>No draw yet.</p>")
    parts.append("<p>Arrange between yourselves where and when you play, so long as the match is "
                 "completed before the date on the draw. Winners: tell the organiser and e-mail a "
                 "scan of the completed score sheet.</p>")
    return page(f"{v['name']}: the draw", _PRINT + "".join(parts))
