"""A read sheet (the CONTRACT.md object) as text a club player can read in a terminal."""

from __future__ import annotations

from report.marks import UNSURE_NOTE, reading_unsure


def _cell(value) -> str:
    if value is None:
        return "?"
    return str(value)


def sheet_text(obj: dict) -> str:
    """Render one `rubberscan read` object: table, totals, flags, review, explanations."""
    source = obj.get("source", "")
    if "error" in obj:
        return f"{source}: cannot read: {obj['error']}\n"
    lines = [f"{source}" + (f" (page {obj['page']})" if "page" in obj else "")]
    names = obj.get("names") or {}
    lines.append(f"  N/S: {names.get('ns') or '?'}    E/W: {names.get('ew') or '?'}")
    winners = obj.get("winners")
    named = winners.upper().replace("NS", "N/S").replace("EW", "E/W") if winners else "?"
    lines.append(f"  winners: {named}")
    if obj.get("rescan"):
        lines.append(f"  ask for a better scan: {obj['rescan']}")
    for message in obj.get("missing") or []:  # part of the sheet not in the picture (issue 30)
        lines.append(f"  not read: {message}")
    flagged = {f.get("deal") for f in obj.get("flags", [])}
    unsure = {r.get("deal") for r in obj.get("review", [])}
    explanations = obj.get("explanations") or {}
    lines.append("")
    lines.append(f"  {'deal':>4} {'dlr':>3} {'N/S':>6} {'E/W':>6} {'cum N/S':>8} {'cum E/W':>8}")
    for row in obj.get("rows", []):
        deal = row.get("deal")
        mark = " !" if deal in flagged else (" ?" if deal in unsure else "")
        lines.append(
            f"  {deal:>4} {_cell(row.get('dealer')):>3} {_cell(row.get('ns')):>6} "
            f"{_cell(row.get('ew')):>6} {_cell(row.get('cum_ns')):>8} "
            f"{_cell(row.get('cum_ew')):>8}{mark}"
        )
        for item in explanations.get(str(deal), [])[:2]:
            text = item.get("text") if isinstance(item, dict) else str(item)
            if text:
                lines.append(f"{'':>13}{text}")
    totals = obj.get("totals") or {}
    lines.append(f"  totals: N/S {_cell(totals.get('ns'))}  E/W {_cell(totals.get('ew'))}")
    flags = obj.get("flags", [])
    lines.append("")
    lines.append(f"  mistakes on the sheet: {len(flags) or 'none'}")
    for flag in flags:
        note = f" ({UNSURE_NOTE})" if reading_unsure(flag, obj) else ""
        lines.append(f"    ! {flag.get('message')}{note}")
    review = obj.get("review", [])
    lines.append(f"  to check by eye: {len(review) or 'nothing'}")
    for item in review:
        cands = ", ".join(f"{v} ({p:.0%})" for v, p in item.get("candidates", [])[:3])
        where = f"deal {item.get('deal')} " if item.get("deal") is not None else ""
        lines.append(f"    ? {where}{item.get('column')}: {item.get('reason')} [{cands}]")
    return "\n".join(lines) + "\n"
