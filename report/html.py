"""Self-contained HTML report: an index of matches and one page per sheet.

Pure rendering: plain data in, a string out.  Every piece of text (names read from
handwriting, e-mail headers, file names) is HTML-escaped; pages carry a Content
Security Policy that forbids scripts and any outside resource, and pictures are
embedded as base64, so a page opens straight from disk.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from report.marks import UNSURE_NOTE, cell_state, flagged_cells, reading_unsure, review_cells
from report.records import SheetEntry
from scoring.formspec import DEAL_COLUMNS as COLUMNS

COLOURS = {"read": "#1e9e3a", "review": "#f0a000", "flag": "#d62728"}
LABELS = {"read": "read", "review": "to review (unsure reading)",
          "flag": "flagged (mistake on the sheet)"}
COLUMN_TITLES = {"dealer": "Dealer", "ns": "N/S", "ew": "E/W", "cum_ns": "Cum. N/S",
                 "cum_ew": "Cum. E/W"}

_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'")
_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em} h2{font-size:1.2em;margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #bbb;padding:.25em .6em;text-align:right}
th{background:#f2f2f2} td.l,th.l{text-align:left}
.read{background:#e6f5e9} .review{background:#fff1cc} .flag{background:#fbdada}
.fail{color:#a00} .muted{color:#666;font-size:.9em}
.legend span{display:inline-block;padding:.1em .5em;margin-right:.5em;border:3px solid}
.scan{max-width:100%;border:1px solid #999}
ul.flags li{margin:.2em 0}
"""


def e(value: object) -> str:
    """HTML-escape anything for text or attribute context; None becomes an empty string."""
    return "" if value is None else html.escape(str(value), quote=True)


def page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{e(title)}</title><style>{_STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


# --------------------------------------------------------------------------- sheet page
def render_sheet(sheet: SheetEntry, image_b64: str | None) -> str:
    """The page for one sheet: picture with outlined cells, table as read, flags, explanations."""
    result = sheet.result or {}
    names = result.get("names") or {}
    title = f"{names.get('ns') or '?'} v {names.get('ew') or '?'}"
    parts = ['<p><a href="../report.html">&larr; all matches</a></p>',
             f"<h1>{e(title)}</h1>", _meta_table(sheet)]
    if sheet.status != "ok" or not result:
        parts.append(f'<p class="fail">Could not read this sheet: {e(sheet.error)}</p>')
        return page(title, "\n".join(parts))
    flagged, review = flagged_cells(result), review_cells(result)
    if result.get("rescan"):
        parts.append(f'<p class="fail">Ask for a better scan: {e(result["rescan"])}</p>')
    for message in result.get("missing") or []:  # part of the sheet not in the picture (issue 30)
        parts.append(f'<p class="fail">Not read: {e(message)}</p>')
    parts.append(_summary_line(result))
    parts.append(_picture(sheet, image_b64, flagged, review))
    parts.append(_table(result, flagged, review))
    parts.append(_flags(result))
    parts.append(_reviews(result))
    parts.append(_explanations(result))
    return page(title, "\n".join(parts))


def _meta_table(sheet: SheetEntry) -> str:
    rows = [("Source", sheet.source), ("Page", sheet.page + 1)]
    for label, value in (("From", sheet.sender), ("Subject", sheet.subject), ("Date", sheet.date),
                         ("Attachment", sheet.attachment)):
        if value:
            rows.append((label, value))
    if sheet.rules:
        rows.append(("House rules", f"unfinished rubber: {sheet.rules.get('unfinished')}, "
                                    f"part-score bonus {sheet.rules.get('partscore')}"))
    rows.append(("Processed", sheet.processed_at))
    body = "".join(f'<tr><th class="l">{e(k)}</th><td class="l">{e(v)}</td></tr>' for k, v in rows)
    return f"<table>{body}</table>"


def _summary_line(result: dict) -> str:
    totals = result.get("totals") or {}
    winners = {"ns": "N/S", "ew": "E/W"}.get(result.get("winners") or "", "unknown")
    ns, ew = (e(totals.get(k)) or "?" for k in ("ns", "ew"))
    return (f"<p>Totals: N/S <b>{ns}</b>, E/W <b>{ew}</b>; "
            f"winners: <b>{e(winners)}</b>; {len(result.get('flags') or [])} flags, "
            f"{len(result.get('review') or [])} to review.</p>")


def _legend() -> str:
    spans = "".join(f'<span style="border-color:{c}">{e(LABELS[k])}</span>'
                    for k, c in COLOURS.items())
    return f'<p class="legend">{spans}</p>'


def _picture(sheet: SheetEntry, image_b64: str | None, flagged: set, review: set) -> str:
    layout = sheet.layout or {}
    if not image_b64 or not layout:
        return '<p class="muted">No picture of this sheet was kept.</p>'
    w, h = int(layout["width"]), int(layout["height"])
    stroke = max(2, round(max(w, h) / 500))
    result = sheet.result or {}
    values = {(str(r.get("deal")), c): r.get(c) for r in result.get("rows") or [] for c in COLUMNS}
    names = result.get("names") or {}
    values.update({("", "names_ns"): names.get("ns"), ("", "names_ew"): names.get("ew")})
    rects = []
    for row, key, x, y, cw, ch in layout.get("cells", []):
        state = cell_state(str(row), str(key), flagged, review)
        c = COLOURS[state]
        value = values.get((str(row), str(key)))
        where = f"deal {row}" if str(row).isdigit() else str(row) or "heading"
        label = (f"{where}, {COLUMN_TITLES.get(key, key)}: "
                 f"{'?' if value is None else value} ({LABELS[state]})")
        rects.append(f'<rect class="cell {state}" x="{float(x):.1f}" y="{float(y):.1f}" '
                     f'width="{float(cw):.1f}" height="{float(ch):.1f}" fill="{c}" '
                     f'fill-opacity="0.12" '
                     f'stroke="{c}" stroke-width="{stroke}"><title>{e(label)}</title></rect>')
    return (f"<h2>The sheet as scanned (straightened)</h2>{_legend()}"
            f'<svg class="scan" viewBox="0 0 {w} {h}" width="{w}" '
            f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="straightened scan">'
            f'<image href="data:image/jpeg;base64,{image_b64}" x="0" y="0" width="{w}" '
            f'height="{h}"/>'
            + "".join(rects) + "</svg>")


def _table(result: dict, flagged: set, review: set) -> str:
    titles = "".join(f"<th>{e(COLUMN_TITLES[c])}</th>" for c in COLUMNS)
    head = f"<tr><th>Deal</th>{titles}</tr>"
    body = []
    for r in result.get("rows") or []:
        row = str(r.get("deal"))
        conf = r.get("confidence") or {}
        tds = []
        for col in COLUMNS:
            value = r.get(col)
            state = cell_state(row, col, flagged, review)
            shown = "?" if value is None else value
            tip = f"confidence {conf[col]:.2f}" if isinstance(conf.get(col), (int, float)) else ""
            tds.append(f'<td class="{state}" title="{e(tip)}">{e(shown)}</td>')
        body.append(f"<tr><th>{e(row)}</th>{''.join(tds)}</tr>")
    totals = result.get("totals") or {}
    total_tds = "".join(f'<td class="{cell_state("total", f"cum_{side}", flagged, review)}">'
                        f"{e(totals.get(side))}</td>" for side in ("ns", "ew"))
    body.append(f"<tr><th>Total</th><td></td><td></td><td></td>{total_tds}</tr>")
    return f"<h2>The table as read</h2><table>{head}{''.join(body)}</table>"


def _flags(result: dict) -> str:
    flags = result.get("flags") or []
    if not flags:
        return "<h2>Flags</h2><p>No mistakes found on the sheet.</p>"
    def item(f: dict) -> str:
        deal = f" (deal {e(f.get('deal'))})" if f.get("deal") is not None else ""
        note = f" &mdash; <i>{e(UNSURE_NOTE)}</i>" if reading_unsure(f, result) else ""
        return f'<li class="flag"><b>{e(f.get("kind"))}</b>{deal}: {e(f.get("message"))}{note}</li>'

    items = "".join(item(f) for f in flags)
    return f'<h2>Flags</h2><ul class="flags">{items}</ul>'


def _reviews(result: dict) -> str:
    items = []
    for r in result.get("review") or []:
        cands = ", ".join(f"{e(v)} ({float(p):.0%})" for v, p in (r.get("candidates") or []))
        where = f"deal {e(r.get('deal'))}, " if r.get("deal") is not None else ""
        column = COLUMN_TITLES.get(r.get("column"), r.get("column"))
        items.append(f'<li class="review">{where}{e(column)}'
                     f": {e(r.get('reason'))} &mdash; candidates {cands or 'none'}</li>")
    if not items:
        return ""
    return f'<h2>To review</h2><ul class="flags">{"".join(items)}</ul>'


def _explanations(result: dict) -> str:
    expl = result.get("explanations") or {}
    if not expl:
        return ""
    rows = []
    for deal, items in sorted(expl.items(), key=lambda kv: _deal_key(kv[0])):
        text = "<br>".join(e(_explain(item)) for item in (items or []))
        rows.append(f'<tr><th>{e(deal)}</th><td class="l">{text}</td></tr>')
    return ("<h2>What each deal's score can mean</h2>"
            f"<table><tr><th>Deal</th><th class=\"l\">Explanation</th></tr>{''.join(rows)}</table>")


def _explain(item: object) -> str:
    if isinstance(item, dict):
        for key in ("text", "message", "description", "summary"):
            if isinstance(item.get(key), str):
                return item[key]
        return "; ".join(f"{k}: {v}" for k, v in item.items())
    return str(item)


def _deal_key(deal: object) -> tuple[int, str]:
    text = str(deal)
    return (int(text), "") if text.isdigit() else (10**6, text)


# --------------------------------------------------------------------------- index
def render_index(sheets: Iterable[SheetEntry], counts: dict[str, int], rules: dict | None,
                 messages: Iterable[dict] = ()) -> str:
    """The batch's front page: every match, then every failure with its reason, then the e-mails
    that brought no scan (``messages``: dicts with date, sender, subject, source, reason)."""
    sheets = list(sheets)
    sheets.sort(key=lambda s: (s.date or "", s.source, s.page))
    ok = [s for s in sheets if s.status == "ok" and s.result]
    failed = [s for s in sheets if not (s.status == "ok" and s.result)]
    rescan = sum(bool(s.result.get("rescan")) for s in ok)
    rules_text = (f"unfinished rubber bonus: {rules.get('unfinished')}, part-score bonus "
                  f"{rules.get('partscore')}" if rules else "the scoring core's defaults")
    parts = [
        "<h1>rubberscan results</h1>",
        f"<p>{counts.get('sheets', 0)} sheets read, {counts.get('flagged', 0)} with flags, "
        f"{counts.get('review', 0)} to review, {counts.get('failed', 0)} failed"
        + (f", {rescan} to scan again (writing too faint to read)" if rescan else "") + ". "
        f'<span class="muted">House rules: {e(rules_text)}.</span></p>',
        "<h2>Matches</h2>",
    ]
    if ok:
        head = ("<tr><th class=\"l\">Sheet</th><th class=\"l\">From</th><th class=\"l\">Date</th>"
                "<th class=\"l\">N/S</th><th class=\"l\">E/W</th><th>Winners</th><th>N/S total</th>"
                "<th>E/W total</th><th>Margin</th><th>Flags</th><th>Review</th></tr>")
        rows = [_index_row(s) for s in ok]
        parts.append(f"<table>{head}{''.join(rows)}</table>")
    else:
        parts.append("<p>No sheets read yet.</p>")
    parts.append("<h2>Failed files</h2>")
    if failed:
        rows = "".join(
            f'<tr><td class="l">{e(s.source)}{" (page " + str(s.page + 1) + ")" if s.page else ""}'
            f'</td><td class="l">{e(s.sender)}{_subject(s)}</td>'
            f'<td class="l fail">{e(s.error)}</td></tr>'
            for s in failed)
        parts.append("<table><tr><th class=\"l\">File</th><th class=\"l\">From</th>"
                     f"<th class=\"l\">Reason</th></tr>{rows}</table>")
    else:
        parts.append("<p>None.</p>")
    messages = list(messages)
    if messages:
        rows = "".join(
            f'<tr><td class="l">{e(m.get("sender"))}</td><td class="l">{e(m.get("subject"))}</td>'
            f'<td class="l">{e(m.get("date"))}</td><td class="l">{e(m.get("source"))}</td></tr>'
            for m in messages)
        parts.append("<h2>E-mails without a scan</h2>"
                     "<table><tr><th class=\"l\">From</th><th class=\"l\">Subject</th>"
                     f"<th class=\"l\">Date</th><th class=\"l\">File</th></tr>{rows}</table>")
    return page("rubberscan results", "\n".join(parts))


def _subject(s: SheetEntry) -> str:
    return f'<br><span class="muted">{e(s.subject)}</span>' if s.subject else ""


def _index_row(s: SheetEntry) -> str:
    r = s.result or {}
    names, totals = r.get("names") or {}, r.get("totals") or {}
    tn, te = totals.get("ns"), totals.get("ew")
    margin = abs(tn - te) if isinstance(tn, int) and isinstance(te, int) else None
    winners = {"ns": "N/S", "ew": "E/W"}.get(r.get("winners") or "", "?")
    nf, nr = len(r.get("flags") or []), len(r.get("review") or [])
    label = s.source + (f" (page {s.page + 1})" if s.page else "")
    rescan = '<br><span class="fail">ask for a better scan</span>' if r.get("rescan") else ""
    return (f'<tr><td class="l"><a href="sheets/{e(s.sheet_id)}.html">{e(label)}</a></td>'
            f'<td class="l">{e(s.sender)}{_subject(s)}</td><td class="l">{e(s.date)}</td>'
            f'<td class="l">{e(names.get("ns"))}</td><td class="l">{e(names.get("ew"))}</td>'
            f"<td>{e(winners)}</td><td>{e(tn)}</td><td>{e(te)}</td><td>{e(margin)}</td>"
            f'<td class="{"flag" if nf else ""}">{nf}</td>'
            f'<td class="{"review" if nr else ""}">{nr}{rescan}</td></tr>')
