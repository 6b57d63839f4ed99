"""The competition's part of a batch folder's ledger (batch/ledger.py COMPETITION_SCHEMA): its
identity, the pairs, the draw, each sheet's match and the names lines' recogniser frames.

The only module of the package that touches the ledger; everything else works on plain data.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import numpy as np

from batch.ledger import Ledger
from competition.assign import Assignment
from competition.draw import Match
from competition.roster import Pair, Roster

INFO_KEY = "competition"  # the ledger's settings table: {"name", "code", "drawn": {round: when}}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def info(ledger: Ledger) -> dict | None:
    value = ledger.get_setting(INFO_KEY)
    return value if isinstance(value, dict) else None


def set_info(ledger: Ledger, value: dict) -> None:
    ledger.set_setting(INFO_KEY, value)


def _has_tables(ledger: Ledger) -> bool:
    """A ledger opened read-only may predate the competition's tables."""
    rows = ledger.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                             " AND name LIKE 'comp_%'").fetchall()
    return {"comp_pairs", "comp_draw", "comp_sheets", "comp_lines"} <= {r[0] for r in rows}


# ------------------------------------------------------------------------- the pairs
def save_roster(ledger: Ledger, roster: Roster) -> None:
    """Replace the pairs."""
    with ledger.db:
        ledger.db.execute("DELETE FROM comp_pairs")
        ledger.db.executemany(
            "INSERT INTO comp_pairs (pair, names, grade, emails, area, position) VALUES (?, ?, ?, ?, ?, ?)",
            [(p.pair, p.names, p.grade, " ".join(p.emails), p.area, i) for i, p in enumerate(roster)])


def load_roster(ledger: Ledger) -> Roster:
    if not _has_tables(ledger):
        return Roster([])
    rows = ledger.db.execute("SELECT pair, names, grade, emails, area FROM comp_pairs ORDER BY position")
    pairs = []
    for pid, names, grade, emails, area in rows.fetchall():
        a, _, b = names.partition(" / ")
        pairs.append(Pair(pid, (a, b), grade, tuple(emails.split()), area))
    return Roster(pairs)


# ------------------------------------------------------------------------- the draw
def save_draw(ledger: Ledger, matches: list[Match], rounds: set[int] | None = None) -> None:
    """Replace the matches of ``rounds`` (default: the rounds of ``matches``) by ``matches``; a
    round whose matches change is stamped with the time (the competition's info "drawn")."""
    rounds = {m.round for m in matches} if rounds is None else rounds
    before = load_draw(ledger)
    comp = info(ledger) or {}
    drawn = dict(comp.get("drawn") or {})
    for r in rounds:
        old = sorted((m.match, m.pair_a, m.pair_b) for m in before if m.round == r)
        new = sorted((m.match, m.pair_a, m.pair_b) for m in matches if m.round == r)
        if old != new or str(r) not in drawn:
            drawn[str(r)] = _now()
    if comp:
        set_info(ledger, {**comp, "drawn": drawn})
    with ledger.db:
        ledger.db.executemany("DELETE FROM comp_draw WHERE round = ?", [(r,) for r in sorted(rounds)])
        start = ledger.db.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM comp_draw").fetchone()[0]
        ledger.db.executemany(
            "INSERT OR REPLACE INTO comp_draw (match, round, pair_a, pair_b, deadline, position)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(m.match, m.round, m.pair_a, m.pair_b, m.deadline, start + i) for i, m in enumerate(matches)])


def load_draw(ledger: Ledger) -> list[Match]:
    if not _has_tables(ledger):
        return []
    rows = ledger.db.execute("SELECT round, match, pair_a, pair_b, deadline FROM comp_draw"
                             " ORDER BY round, position").fetchall()
    return [Match(r, m, a, b, d) for r, m, a, b, d in rows]


# ------------------------------------------------------------------------- each sheet's match
def save_assignments(ledger: Ledger, items: list[Assignment]) -> None:
    """Store the clues' answers; an organiser's answer already there is kept."""
    now = _now()
    with ledger.db:
        for a in items:
            row = ledger.db.execute("SELECT decided FROM comp_sheets WHERE sheet_id = ?",
                                    (a.sheet_id,)).fetchone()
            if row is not None and row[0] == "organiser" and a.decided != "organiser":
                continue
            ledger.db.execute(
                "INSERT OR REPLACE INTO comp_sheets (sheet_id, match, ns, weight, decided, candidates,"
                " winners, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (a.sheet_id, a.match, a.ns, a.weight, a.decided,
                 json.dumps({"candidates": a.candidates, "clues": a.clues}),
                 json.dumps(a.winners) if a.winners is not None else None, now))


def load_assignments(ledger: Ledger) -> dict[str, Assignment]:
    if not _has_tables(ledger):
        return {}
    out = {}
    for sid, match, ns, weight, decided, cands, winners in ledger.db.execute(
            "SELECT sheet_id, match, ns, weight, decided, candidates, winners FROM comp_sheets"):
        extra = json.loads(cands) if cands else {}
        out[sid] = Assignment(sid, match, ns, weight, decided, extra.get("candidates", []),
                              json.loads(winners) if winners else None, extra.get("clues", {}))
    return out


def forget_assignment(ledger: Ledger, sheet_id: str) -> None:
    with ledger.db:
        ledger.db.execute("DELETE FROM comp_sheets WHERE sheet_id = ?", (sheet_id,))


# ------------------------------------------------------------------------- names lines' frames
def load_frames(ledger: Ledger, sheet_id: str, model: str) -> dict[str, np.ndarray] | None:
    """The folded frames of a sheet's lines (competition/names.py) as the recogniser ``model``
    gave them, or None when they were not kept."""
    if not _has_tables(ledger):
        return None
    rows = ledger.db.execute("SELECT field, model, frames FROM comp_lines WHERE sheet_id = ?",
                             (sheet_id,)).fetchall()
    if not rows or any(m != model for _, m, _ in rows):
        return None
    out: dict[str, np.ndarray] = {}
    for name, _, blob in rows:
        if name == "":
            continue  # the marker of a sheet with no line to read
        arr = np.frombuffer(blob, np.float16).astype(np.float32)
        out[name] = arr.reshape(-1, _classes())
    return out


def save_frames(ledger: Ledger, sheet_id: str, model: str, frames: dict[str, np.ndarray]) -> None:
    with ledger.db:
        ledger.db.execute("DELETE FROM comp_lines WHERE sheet_id = ?", (sheet_id,))
        rows = [(sheet_id, name, model, np.asarray(f, np.float16).tobytes())
                for name, f in frames.items()]
        ledger.db.executemany(
            "INSERT INTO comp_lines (sheet_id, field, model, frames) VALUES (?, ?, ?, ?)",
            rows or [(sheet_id, "", model, b"")])


def _classes() -> int:
    from competition.names import CLASSES

    return CLASSES
