"""Which match a sheet is, and which pair sat N/S, from every clue combined.

Hypotheses: each match of the draw with either pair at N/S, or "no match of the draw".  Each clue
multiplies in how likely it is under each hypothesis (log-likelihoods, summed):

- the sender (a pair member's address, CONTRACT.md's roster): a member of one of the match's two
  pairs sends its sheet ``sender_in_match`` of the time, a member of another pair
  ``sender_other_pair`` (an address no pair has says nothing);
- the N/S and E/W names lines read against every roster pair's names (competition/names.py): under
  a hypothesis, each line is its pair's names or, now and then, something else (a substitute, a
  nickname: ``names_other``), whose likelihood is the recogniser's own reading's less
  ``other_names_nats``;
- when it was read: a sheet read before a round was drawn is no match of it (``before_draw``);
- the QR code of a match's printed form: that match, unless the form was used for another
  (``wrong_form``), and the draw's first pair at N/S, where the form prints it
  (``printed_seats``).

The posterior decides: the best hypothesis at ``accept`` or more is taken, else the sheet's match
is a review item.  Pure logic: the clues come in as plain data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from email.utils import getaddresses

import numpy as np

from competition.draw import Match
from competition.ids import parse_payload
from competition.names import SIDE_VARIANTS, encode, pair_variants, score_line
from competition.roster import Roster
from competition.settings import MatchingSettings

NAME_FIELDS = {"ns": "names_ns", "ew": "names_ew"}
MATCHING = MatchingSettings()


@dataclass
class Assignment:
    """Which match one sheet is: decided by the clues ('auto'), left to a person ('review'), no
    match of the draw ('none'), or the organiser's answer ('organiser')."""

    sheet_id: str
    match: str | None
    ns: str | None  # the pair that sat N/S
    weight: float | None  # how sure the clues are of (match, ns); None for the organiser's answer
    decided: str
    candidates: list[dict] = field(default_factory=list)  # [{"match", "ns", "weight"}], best first
    winners: dict | None = None  # the winners line read: {"pair", "weight", "read"}
    clues: dict = field(default_factory=dict)  # what was seen: sender, qr, names read


@dataclass
class SheetEvidence:
    """What one sheet offers: its e-mail's sender, the QR texts found, its lines' folded frames."""

    sheet_id: str
    sender: str | None = None  # the From header as kept by the batch
    qr: list[str] = field(default_factory=list)
    lines: dict[str, np.ndarray] = field(default_factory=dict)  # names_ns/names_ew/winners frames
    date: str | None = None
    read_at: str | None = None  # when the batch read it (ISO, UTC): rounds drawn later are not it


def sender_address(sender: str | None) -> str | None:
    """The address in a From header ("Peter Hill <peter@hill.nz>" -> "peter@hill.nz")."""
    if not sender:
        return None
    found = [addr for _, addr in getaddresses([sender]) if "@" in addr]
    return found[0].strip().lower() if found else None


def _logsumexp(values: list[float]) -> float:
    m = max(values)
    return m + math.log(sum(math.exp(v - m) for v in values))


class Matcher:
    """Matches sheets against one roster and draw (the roster's name variants made once)."""

    def __init__(self, roster: Roster, draw: list[Match], code: str | None,
                 settings: MatchingSettings = MATCHING, drawn: dict | None = None):
        """``drawn``: round -> when it was drawn (ISO, UTC; competition/store.py keeps it)."""
        self.roster, self.code, self.settings = roster, code, settings
        self.drawn = {int(k): v for k, v in (drawn or {}).items()}
        self.matches = [m for m in draw if not m.bye]
        self.by_id = {m.match: m for m in self.matches}
        self.variants = {p.pair: pair_variants(p.players) for p in roster}

    # ------------------------------------------------------------------- one sheet
    def assign(self, ev: SheetEvidence, sheets_so_far: dict[str, int] | None = None) -> Assignment:
        """The sheet's Assignment; ``sheets_so_far``: match -> sheets already taken for it."""
        s = self.settings
        seen = sheets_so_far or {}
        clues: dict = {}
        hyps: list[tuple[str | None, str | None]] = [(None, None)]
        for m in self.matches:
            hyps += [(m.match, m.pair_a), (m.match, m.pair_b)]
        n = max(1, len(self.matches))
        score = {h: 0.0 for h in hyps}
        for h in hyps:
            if h[0] is None:
                score[h] = math.log(s.prior_none)
            else:
                score[h] = math.log((1 - s.prior_none) / n / 2)
                if seen.get(h[0]):
                    score[h] += math.log(s.second_sheet)
        self._timing(ev, hyps, score)
        self._sender(ev, hyps, score, clues)
        self._names(ev, hyps, score, clues)
        self._qr(ev, hyps, score, clues)
        total = _logsumexp(list(score.values()))
        post = {h: math.exp(v - total) for h, v in score.items()}
        ranked = sorted(post.items(), key=lambda kv: -kv[1])
        (match, ns), weight = ranked[0]
        candidates = [{"match": m, "ns": p, "weight": round(w, 6)} for (m, p), w in ranked[:6]
                      if w >= 1e-4 or (m, p) == (match, ns)]
        if weight >= s.accept:
            decided = "auto" if match is not None else "none"
        else:
            decided = "review"
        return Assignment(ev.sheet_id, match, ns, weight, decided, candidates, None, clues)

    def _timing(self, ev, hyps, score) -> None:
        """A sheet read before a round was drawn is no match of that round."""
        if not ev.read_at:
            return
        for h in hyps:
            m = self.by_id.get(h[0]) if h[0] else None
            drawn = self.drawn.get(m.round) if m is not None else None
            if drawn is not None and drawn > ev.read_at:
                score[h] += math.log(self.settings.before_draw)

    def _sender(self, ev, hyps, score, clues) -> None:
        s = self.settings
        address = sender_address(ev.sender)
        pair = self.roster.by_email(address)
        if address:
            clues["sender"] = address
        if pair is None:
            return
        clues["sender_pair"] = pair.pair
        others = max(1, len(self.roster) - 2)
        for h in hyps:
            m = self.by_id.get(h[0]) if h[0] else None
            inside = m is not None and pair.pair in m.pairs
            score[h] += math.log(s.sender_in_match / 2 if inside else s.sender_other_pair / others)

    def line_scores(self, frames: np.ndarray):
        """Every roster pair's names scored on one names line (competition.names.LineScores)."""
        return score_line(frames, self.variants, self.settings.temperature)

    def _names(self, ev, hyps, score, clues) -> None:
        s = self.settings
        read = {}
        for side, key in NAME_FIELDS.items():
            frames = ev.lines.get(key)
            if frames is None or len(frames) == 0:
                continue
            ls = self.line_scores(frames)
            read[side] = ls.read
            other = ls.free - s.other_names_nats
            keep, drop = math.log(1 - s.names_other), math.log(s.names_other)
            for h in hyps:
                if h[0] is None:
                    score[h] += other
                    continue
                m = self.by_id[h[0]]
                pair = h[1] if side == "ns" else m.other(h[1])
                mine = ls.scores.get(pair, -1e9)
                score[h] += float(np.logaddexp(keep + mine, drop + other))
        if read:
            clues["names_read"] = read

    def _qr(self, ev, hyps, score, clues) -> None:
        s = self.settings
        for text in ev.qr:
            parsed = parse_payload(text)
            if parsed is None:
                continue
            code, mid = parsed
            clues.setdefault("qr", []).append(mid if code == self.code else f"{code}:{mid}")
            if code != self.code or mid not in self.by_id:
                continue  # another competition's form, or a match no longer in the draw
            n = max(1, len(self.matches))
            first = self.by_id[mid].pair_a  # printed at N/S
            for h in hyps:
                if h[0] == mid:
                    seats = s.printed_seats if h[1] == first else 1 - s.printed_seats
                    score[h] += math.log((1 - s.wrong_form) * seats)
                else:
                    score[h] += math.log(s.wrong_form / n)

    # ------------------------------------------------------------------- the winners line
    def winners(self, frames: np.ndarray | None, match: Match, ns: str) -> dict | None:
        """Which pair the winners line names: {"pair", "weight", "read"}; None when there is no
        line.  Each pair's names, or N/S / E/W (the pair that sat there), or something else."""
        if frames is None or len(frames) == 0 or match.bye:
            return None
        s = self.settings
        ew = match.other(ns)
        cands = {match.pair_a: self.variants.get(match.pair_a, []),
                 match.pair_b: self.variants.get(match.pair_b, []),
                 "ns": [encode(v) for v in SIDE_VARIANTS["ns"]],
                 "ew": [encode(v) for v in SIDE_VARIANTS["ew"]]}
        ls = score_line(frames, cands, s.temperature)
        sides = {"ns": ns, "ew": ew}
        by_pair: dict[str, list[float]] = {match.pair_a: [], match.pair_b: []}
        for key, value in ls.scores.items():
            by_pair[sides.get(key, key)].append(value + math.log(0.5))
        other = ls.free - s.other_names_nats
        logs = {p: _logsumexp(v) for p, v in by_pair.items()}
        total = _logsumexp(list(logs.values()) + [other])
        best = max(logs, key=logs.get)
        return {"pair": best, "weight": round(math.exp(logs[best] - total), 6), "read": ls.read}


def review_item(a: Assignment, roster: Roster, draw: list[Match], source: str | None = None) -> dict:
    """A sheet whose match is not sure, as a plain record for the review queue: the question and
    the candidate matches with their weights (best first)."""
    by_id = {m.match: m for m in draw}
    cands = []
    for c in a.candidates:
        m = by_id.get(c["match"]) if c["match"] else None
        if m is None:
            label = "no match of the draw (a pair not entered, a friendly)"
        else:
            ew = m.other(c["ns"])
            label = (f"{m.match} (round {m.round}): {roster.names(c['ns'])} at N/S v "
                     f"{roster.names(ew)} at E/W")
        cands.append({"match": c["match"], "ns": c["ns"], "weight": c["weight"], "label": label})
    said = []
    if a.clues.get("sender"):
        who = roster.get(a.clues.get("sender_pair"))
        said.append(f"sent by {a.clues['sender']}" + (f" ({who.pair}: {who.names})" if who else
                                                       " (no pair's address)"))
    for side, text in (a.clues.get("names_read") or {}).items():
        said.append(f"{'N/S' if side == 'ns' else 'E/W'} names read as {text!r}")
    if a.clues.get("qr"):
        said.append("code on the form: " + ", ".join(a.clues["qr"]))
    return {"kind": "match", "sheet_id": a.sheet_id, "source": source,
            "question": "Which match is this sheet, and which pair sat N/S?",
            "candidates": cands, "clues": "; ".join(said) or "no clue: no sender, no names read"}
