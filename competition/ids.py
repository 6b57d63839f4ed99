"""The text of the QR code on a match's printed form: which competition, which match.

``RBS1:<competition code>:<match id>``: short, so the code stays small and a phone's photo reads it;
the competition's code (made when it is set up) keeps another season's forms from being taken for
this one's.
"""

from __future__ import annotations

import re
import secrets

PREFIX = "RBS1"
_CODE = re.compile(r"^[a-z0-9]{4,12}$")


def new_code() -> str:
    """A fresh competition code: 6 letters and digits."""
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l to confuse
    return "".join(secrets.choice(alphabet) for _ in range(6))


def qr_payload(code: str, match: str) -> str:
    if not _CODE.match(code):
        raise ValueError(f"competition code {code!r} must be 4-12 lower-case letters and digits")
    return f"{PREFIX}:{code}:{match}"


def parse_payload(text: str) -> tuple[str, str] | None:
    """(competition code, match id) of one of our codes, or None for any other text."""
    parts = text.strip().split(":")
    if len(parts) != 3 or parts[0] != PREFIX or not _CODE.match(parts[1]) or not parts[2]:
        return None
    return parts[1], parts[2]
