"""The winners line: is it read clearly enough to call a winners mistake the players'?

The reader tells which pair the winners line names from Tesseract's text (ocr/read.py
``winners_hint``), by rules that also take half-read tokens ("WS" for N/S) and loose matches of the
names.  Those are good enough to show the winners, not to tell the players they named the losers:
handwritten winners lines are read poorly, and a line read loosely that seems to name the losers is
a question for a person (a review item), not a flag.  Clear is a plain side token ("N/S", "EW",
"North/South") or the names of one pair, read closely alike on both lines and unlike the other
pair's.  Pure: no I/O.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from scoring.reconcile.settings import DEFAULT, WinnersSettings

_TOKENS = {
    "ns": re.compile(r"(n|north)\s*[/\\&+-]?\s*(s|south)", re.IGNORECASE),
    "ew": re.compile(r"(e|east)\s*[/\\&+-]?\s*(w|west)", re.IGNORECASE),
}


def similarity(a: str | None, b: str | None) -> float:
    """How alike two texts read (0-1): letters only, case ignored, the names in either order
    ("/ Jones Smith" is "Smith / Jones" read with its slash first)."""
    if not _letters(a) or not _letters(b):
        return 0.0
    return max(SequenceMatcher(None, _letters(a), _letters(b)).ratio(),
               SequenceMatcher(None, _words(a), _words(b)).ratio())


def _letters(text: str | None) -> str:
    return re.sub(r"[^a-z]", "", (text or "").lower())


def _words(text: str | None) -> str:
    return "".join(sorted(re.findall(r"[a-z]+", (text or "").lower())))


def clearly_named(text: str | None, hint: str | None, names: dict[str, str | None],
                  settings: WinnersSettings = DEFAULT.winners) -> bool:
    """Does the winners line, read as ``text``, plainly name the pair ``hint``?  A reading that
    gives the pair without the text it read (made by hand, or by a synthetic reader) is taken at
    its word."""
    if hint not in ("ns", "ew"):
        return False
    if text is None:
        return True
    if not text.strip():
        return False
    token = text.strip().strip(".:;,'\"")
    if _TOKENS[hint].fullmatch(token):
        return True
    other = "ew" if hint == "ns" else "ns"
    if not names.get(hint):
        return False
    if not names.get(other):  # the other pair's names not read: theirs to the letter
        return similarity(text, names[hint]) >= settings.name_alone
    return similarity(text, names[hint]) >= settings.name_match \
        and similarity(text, names[other]) <= settings.other_below
