"""The deal notation of ``rubberscan score`` (shared/CONTRACT.md), parsed into results.

One deal a line: ``pass`` or ``CONTRACT DECLARER TRICKS [honours VALUE SIDE]``,
e.g. ``4S N 10``, ``3NTx E 7``, ``6Hxx S 12 honours 150 NS``.  Case does not
matter; ``N`` is accepted for NT; blank lines and ``#`` comments are skipped.
"""

from __future__ import annotations

import re

from scoring.model import PASS, SEATS, Contract, Result, side_of

_CONTRACT = re.compile(r"^(\d+)([A-Z]*?)(X*)$")
_STRAIN_NAMES = {"C": "C", "D": "D", "H": "H", "S": "S", "NT": "NT", "N": "NT"}


class NotationError(ValueError):
    """One or more bad lines; ``errors`` holds (line number, message) pairs."""

    def __init__(self, errors: list[tuple[int, str]]):
        self.errors = errors
        super().__init__("\n".join(f"line {n}: {msg}" for n, msg in errors))


def parse_contract(text: str) -> Contract:
    """``4S``, ``3NTx``, ``6Hxx``, ``1Nx`` -> Contract; ValueError with a reason otherwise."""
    m = _CONTRACT.match(text.upper())
    if not m:
        raise ValueError(f"bad contract {text!r}: expected level 1-7, strain C D H S NT, "
                         "then x or xx")
    level_s, strain_s, dbl = m.groups()
    level = int(level_s)
    if not 1 <= level <= 7:
        raise ValueError(f"bad contract {text!r}: level {level} is not 1-7")
    if strain_s not in _STRAIN_NAMES:
        raise ValueError(f"bad contract {text!r}: strain {strain_s or '(none)'!r} "
                         "is not C D H S NT")
    if len(dbl) > 2:
        raise ValueError(f"bad contract {text!r}: {dbl.lower()!r} is not x (doubled) "
                         "or xx (redoubled)")
    return Contract(level, _STRAIN_NAMES[strain_s], len(dbl))


def parse_deal(line: str) -> Result:
    """One line of notation -> Result; ValueError with a reason when it is not valid."""
    words = line.split()
    if not words:
        raise ValueError("empty line")
    if words[0].lower() == "pass":
        if len(words) > 1:
            raise ValueError(f"nothing may follow 'pass' (found {' '.join(words[1:])!r})")
        return PASS
    if len(words) < 3:
        raise ValueError(f"expected CONTRACT DECLARER TRICKS, got {line.strip()!r}")
    contract = parse_contract(words[0])
    seat = words[1].upper()
    if seat not in SEATS:
        raise ValueError(f"declarer {words[1]!r} is not N, E, S or W")
    if not re.fullmatch(r"\d+", words[2]) or int(words[2]) > 13:
        raise ValueError(f"tricks {words[2]!r} is not a number 0-13")
    tricks = int(words[2])
    honours, holder = 0, None
    rest = words[3:]
    if rest:
        if rest[0].lower() not in ("honours", "honors") or len(rest) != 3:
            raise ValueError("expected 'honours VALUE SIDE' after the tricks, "
                             f"got {' '.join(rest)!r}")
        if rest[1] not in ("100", "150"):
            raise ValueError(f"honours {rest[1]!r} is not 100 or 150")
        honours = int(rest[1])
        if contract.strain == "NT" and honours != 150:
            raise ValueError("honours at no-trump are 150 (four aces); there is no 100 at NT")
        holder = rest[2].lower()
        if holder not in ("ns", "ew"):
            raise ValueError(f"honours side {rest[2]!r} is not NS or EW")
    return Result(contract, side_of(seat), tricks, honours, holder, seat)


def parse_deals(text: str) -> list[Result]:
    """Every deal of a notation text, in order; NotationError lists every bad line."""
    results: list[Result] = []
    errors: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            results.append(parse_deal(line))
        except ValueError as exc:
            errors.append((number, str(exc)))
    if errors:
        raise NotationError(errors)
    return results
