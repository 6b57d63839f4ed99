"""Helpers of the competition tests: rosters, draws and names-line frames made by hand."""

from __future__ import annotations

import numpy as np

from competition.draw import Match
from competition.names import BLANK, CLASSES, encode
from competition.roster import parse_pairs

PAIRS = """pair,names,grade,emails,area
P1,Hill / Cheater,Jnr,hill@a.nz cheater@a.nz,Otaki
P2,Smith / Jones,Open,smith@b.nz,Waikanae
P3,Brown / Reid,Int,brown@c.nz reid@c.nz,Otaki
P4,Taylor / Wilson,Int/Jnr,taylor@d.nz,Levin
P5,Walker / Clark,Open,,Waikanae
P6,Hall / Young,Jnr,hall@f.nz,Levin
"""


def roster():
    return parse_pairs(PAIRS)


def draw():
    return [Match(1, "R1-M1", "P1", "P2", "2025-06-30"), Match(1, "R1-M2", "P3", "P4", "2025-06-30"),
            Match(1, "R1-M3", "P5", "P6", "2025-06-30")]


def frames(text: str, sure: float = 0.97, spread: int = 2) -> np.ndarray:
    """Folded log-probabilities of a line a recogniser reads as ``text``: each character for
    ``spread`` frames, blanks between, the rest of each frame's mass spread over every class."""
    labels = encode(text)
    seq: list[int] = [BLANK]
    for c in labels:
        seq += [c] * spread + [BLANK]
    p = np.full((len(seq), CLASSES), (1 - sure) / (CLASSES - 1))
    for t, c in enumerate(seq):
        p[t, c] = sure
    return np.log(p).astype(np.float32)
