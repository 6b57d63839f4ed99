"""The competition as plain records for the report (report/competition.py renders them and knows
nothing of where they come from): rounds and their matches, the winners going through, the
draw to send, the standings, and every sheet or e-mail that fits no match."""

from __future__ import annotations

from competition.assign import sender_address
from competition.draw import draw_csv
from competition.run import State


def _pair(state: State, pair_id: str | None) -> dict | None:
    if pair_id is None:
        return None
    p = state.roster.get(pair_id)
    return {"id": pair_id, "names": p.names if p else pair_id, "category": p.category if p else "",
            "area": p.area if p else ""}


def _sheet_link(state: State, sid: str) -> dict:
    return {"label": state.sheets[sid].label, "href": f"sheets/{sid}.html"}


def view(state: State, today: str) -> dict:
    """Everything the competition page and the printable draw show."""
    by_match = {r.match: r for r in state.results}
    rounds = []
    for rnd in sorted({m.round for m in state.draw}):
        matches = []
        for m in (m for m in state.draw if m.round == rnd):
            r = by_match[m.match]
            matches.append({
                "match": m.match, "round": rnd, "deadline": m.deadline, "bye": m.bye,
                "pairs": [_pair(state, p) for p in m.pairs], "ns": r.ns, "totals": r.totals,
                "winner": r.winner, "margin": r.margin, "status": r.status, "deals": r.deals,
                "sheets": [_sheet_link(state, sid) for sid in r.sheet_ids],
                "flags": [f.get("message", "") for f in r.flags], "notes": list(r.notes),
                "winners_line": r.winners_line})
        done = all(x["status"] in ("verified", "flags") for x in matches)
        rounds.append({"round": rnd, "matches": matches, "complete": done,
                       "through": [_pair(state, x["winner"]) for x in matches
                                   if done and x["winner"]]})
    st = state.standings
    best = {cat: [{"pair": _pair(state, r.pair), "won": r.won, "lost_round": r.lost_round,
                   "lost_margin": r.lost_margin, "still_in": r.still_in} for r in rows]
            for cat, rows in st.best.items()}
    unmatched = []
    for sid in state.unmatched:
        a = state.assignments[sid]
        result = state.sheets[sid].result
        unmatched.append({**_sheet_link(state, sid), "sender": state.senders.get(sid),
                          "names": result.get("names") or {},
                          "read": (a.clues or {}).get("names_read") or {},
                          "organiser": a.decided == "organiser"})
    no_scan = []
    for msg in state.messages:
        pair = state.roster.by_email(sender_address(msg.get("sender")))
        no_scan.append({**msg, "pair": _pair(state, pair.pair) if pair else None})
    notes = []
    if state.lines_missing:
        notes.append("The names recogniser is not installed (make install): names lines were not "
                     "read, sheets were matched by sender and code alone.")
    return {
        "name": state.info.get("name") or "Competition", "code": state.info.get("code"),
        "today": today, "pairs": len(state.roster), "rounds": rounds,
        "standings": {"still_in": [_pair(state, p) for p in st.still_in],
                      "top_two": [_pair(state, p) for p in st.top_two],
                      "complete_round": st.complete_round, "best": best},
        "review": state.review_items, "unmatched": unmatched, "no_scan": no_scan,
        "failed": [{"label": s.source, "error": s.error, "sender": s.sender} for s in state.failed],
        "draw_csv": draw_csv(state.draw), "notes": notes,
    }
