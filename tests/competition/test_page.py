"""The competition page and the draw to send render plain records, every text escaped."""

from __future__ import annotations

from report.competition import render_competition, render_draw

EVIL = '<script>alert("x")</script>'


def _view() -> dict:
    pair = {"id": "P1", "names": EVIL, "category": "Junior", "area": ""}
    other = {"id": "P2", "names": "Smith / Jones", "category": "Open", "area": ""}
    match = {"match": "R1-M1", "round": 1, "deadline": "2025-06-30", "bye": False,
             "pairs": [pair, other], "ns": "P1", "totals": {"P1": 4120, "P2": 3990},
             "winner": "P1", "margin": 130, "status": "flags", "deals": 30,
             "sheets": [{"label": EVIL + ".jpg", "href": "sheets/abc-p1.html"}],
             "flags": [EVIL], "notes": [], "winners_line": None}
    bye = {**match, "match": "R1-M2", "bye": True, "pairs": [other], "status": "verified",
           "winner": "P2", "totals": None, "sheets": [], "flags": []}
    return {"name": EVIL, "code": "abc123", "today": "2025-07-01", "pairs": 2,
            "rounds": [{"round": 1, "matches": [match, bye], "complete": True,
                        "through": [pair, other]}],
            "standings": {"still_in": [pair, other], "top_two": [pair, other], "complete_round": 1,
                          "best": {"Junior": [{"pair": pair, "won": 1, "lost_round": None,
                                               "lost_margin": None, "still_in": True}],
                                   "Intermediate": []}},
            "review": [{"kind": "match", "sheet_id": "x-p1", "source": EVIL, "question": "Which?",
                        "candidates": [{"match": None, "ns": None, "weight": 0.9, "label": EVIL}],
                        "clues": EVIL}],
            "unmatched": [{"label": EVIL, "href": "sheets/y-p1.html", "sender": EVIL,
                           "names": {"ns": EVIL, "ew": None}, "read": {}, "organiser": True}],
            "no_scan": [{"sender": EVIL, "subject": EVIL, "date": "2025-06-01", "pair": pair}],
            "failed": [{"label": EVIL, "error": EVIL, "sender": None}], "draw_csv": "", "notes": [EVIL]}


def test_every_text_is_escaped_and_every_part_is_there():
    page = render_competition(_view())
    assert "<script>" not in page and "&lt;script&gt;" in page
    for part in ("Round 1 (complete)", "Going through from round 1", "The top two",
                 "Best Junior pairs", "None entered.", "Sheets whose match is not sure",
                 "Sheets of no match in the draw", "E-mails without a scan",
                 "Files that could not be read", "the organiser said so", "(bye)"):
        assert part in page, part
    draw = render_draw(_view())
    assert "<script>" not in draw and "Round 1" in draw and "by 130" in draw
