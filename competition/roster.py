"""The pairs of a competition (PAIRS.csv, CONTRACT.md "The competition"): id, the two players'
names, grade, e-mail addresses and club or area.

``pair,names,grade,emails,area``: ``names`` like ``Hill / Cheater``; ``grade`` Jnr, Int or Open
(or each player's grade, ``Int/Jnr``); ``emails`` space-separated, may be empty; ``area`` may be
empty.  Pure logic: parsing and checking, no files but the text given.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from competition.csvin import ID, records

COLUMNS = ("pair", "names", "grade", "emails", "area")
GRADES = ("Jnr", "Int", "Open")
# The seed's recognition: a Junior pair is Jnr/Jnr, an Intermediate pair Int/Jnr or Int/Int.
CATEGORIES = ("Junior", "Intermediate", "Open")
_EMAIL = re.compile(r"^[^@\s<>(),;:\"]+@[^@\s<>(),;:\"]+\.[^@\s<>(),;:\"]+$")
SEPARATORS = re.compile(r"\s*(?:/|&|\+|\band\b|,)\s*", re.IGNORECASE)


class RosterError(ValueError):
    """A pairs file that cannot be taken as it is; the message names the line and the fix."""


@dataclass(frozen=True)
class Pair:
    pair: str  # the organiser's id, e.g. "P4"
    players: tuple[str, str]  # the two players' names as written in the roster
    grade: str  # "Jnr", "Int", "Open", or each player's: "Int/Jnr"
    emails: tuple[str, ...] = ()  # lower case
    area: str = ""

    @property
    def names(self) -> str:
        """The pair's names as the sheet's names line has them: "Hill / Cheater"."""
        return " / ".join(self.players)

    @property
    def category(self) -> str:
        """Junior (Jnr/Jnr), Intermediate (Int/Jnr or Int/Int) or Open (anyone else)."""
        grades = self.grade.split("/")
        if all(g == "Jnr" for g in grades):
            return "Junior"
        if all(g in ("Jnr", "Int") for g in grades):
            return "Intermediate"
        return "Open"


@dataclass
class Roster:
    pairs: list[Pair] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_id = {p.pair: p for p in self.pairs}
        self._by_email = {e: p for p in self.pairs for e in p.emails}

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self):
        return iter(self.pairs)

    def __contains__(self, pair_id: object) -> bool:
        return pair_id in self._by_id

    def get(self, pair_id: str | None) -> Pair | None:
        return self._by_id.get(pair_id) if pair_id else None

    def by_email(self, address: str | None) -> Pair | None:
        """The pair one of whose members has ``address`` (any case), or None."""
        return self._by_email.get(address.strip().lower()) if address else None

    def names(self, pair_id: str | None) -> str:
        pair = self.get(pair_id)
        return pair.names if pair else (pair_id or "")


def split_players(names: str) -> tuple[str, str] | None:
    """"Hill / Cheater" (or "Hill & Cheater", "Hill and Cheater") -> ("Hill", "Cheater");
    None when it is not two names."""
    parts = [p.strip() for p in SEPARATORS.split(names.strip()) if p.strip()]
    return (parts[0], parts[1]) if len(parts) == 2 else None


def _grade(text: str) -> str | None:
    """A pair's grade ("Jnr", "int", "Int/Jnr" ...) as stored, or None when it is not one."""
    canon = {g.lower(): g for g in GRADES}
    canon.update({"junior": "Jnr", "intermediate": "Int", "open": "Open"})
    parts = [p.strip().lower() for p in text.split("/")]
    if len(parts) not in (1, 2) or any(p not in canon for p in parts):
        return None
    return "/".join(canon[p] for p in parts)


def parse_pairs(text: str, source: str = "PAIRS.csv") -> Roster:
    """The roster in ``text`` (CSV with a header row); raises RosterError naming every bad line."""
    lines = records(text, COLUMNS, source, RosterError, " and a line per pair")
    errors: list[str] = []
    pairs: list[Pair] = []
    seen_ids: dict[str, int] = {}
    seen_emails: dict[str, str] = {}
    for n, cell in lines:
        where = f"{source}: line {n}"
        pid = cell["pair"]
        if not ID.match(pid):
            errors.append(f"{where}: pair id {pid!r} must be 1-32 letters, digits, '_', '.' or '-'")
            continue
        if pid in seen_ids:
            errors.append(f"{where}: pair {pid} is already on line {seen_ids[pid]}")
            continue
        seen_ids[pid] = n
        players = split_players(cell["names"])
        if players is None:
            errors.append(f"{where}: names {cell['names']!r} must be two players, like 'Hill / Cheater'")
            continue
        grade = _grade(cell["grade"])
        if grade is None:
            errors.append(f"{where}: grade {cell['grade']!r} must be Jnr, Int or Open "
                          "(or each player's, like Int/Jnr)")
            continue
        emails = tuple(dict.fromkeys(e.lower() for e in re.split(r"[\s;,]+", cell["emails"]) if e))
        bad = [e for e in emails if not _EMAIL.match(e)]
        if bad:
            errors.append(f"{where}: not an e-mail address: {', '.join(bad)}")
            continue
        shared = [f"{e} (also {seen_emails[e]})" for e in emails if e in seen_emails]
        if shared:
            errors.append(f"{where}: an address may belong to one pair only: {', '.join(shared)}")
            continue
        seen_emails.update({e: pid for e in emails})
        pairs.append(Pair(pid, players, grade, emails, cell["area"]))
    if errors:
        raise RosterError("\n".join(errors))
    if not pairs:
        raise RosterError(f"{source}: no pairs after the header")
    return Roster(pairs)


def pairs_csv(roster: Roster) -> str:
    """The roster as PAIRS.csv text (what parse_pairs reads)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for p in roster:
        w.writerow([p.pair, p.names, p.grade, " ".join(p.emails), p.area])
    return buf.getvalue()
