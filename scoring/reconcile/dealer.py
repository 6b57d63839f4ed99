"""The dealer column: the most probable reading under the N -> E -> S -> W rotation.

A small Viterbi over "the dealer expected on this row".  A written dealer that
breaks the rotation is either a misread (another candidate fits) or the players'
mistake, flagged once: a *slip* (the next rows rotate on from the wrong dealer)
or a *miscopy* (the next rows rotate on from the right one).  Where no dealer is
written (players often write only the first), the rotation gives it: ``expected``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from scoring.formspec import SEATS
from scoring.reconcile.settings import DEFAULT, DealerSettings


@dataclass(frozen=True)
class DealerCell:
    """A dealer cell's readings: seat -> probability; ``blank`` when nothing is written."""

    probs: dict[str, float]
    blank: bool = False
    settings: DealerSettings = field(default=DEFAULT.dealer, repr=False)

    def cost(self, seat: str) -> float:
        """-log p of ``seat`` written here; a seat not proposed shares the unread rest."""
        s = self.settings
        p = self.probs.get(seat)
        if p is not None:
            return -math.log(max(p, s.min_seat_p))
        rest = max(1.0 - sum(self.probs.values()), s.min_seat_p)
        return -math.log(rest) + s.other_seat_spread


@dataclass(frozen=True)
class DealerMistake:
    index: int  # row index
    written: str
    expected: str
    shape: str  # slip / copy


@dataclass
class DealerResult:
    seats: list[str | None]  # chosen written dealer per row (None: blank)
    mistakes: list[DealerMistake]
    confidence: list[float]  # probability of the chosen seat per row (1.0 when blank)
    # the rotation's dealer of each row (None where no dealer is written on the whole sheet)
    expected: list[str | None] = field(default_factory=list)


def next_seat(seat: str) -> str:
    return SEATS[(SEATS.index(seat) + 1) % 4]


def _offerer(table: dict):
    def offer(state: str, cost: float, path: list) -> None:
        if state not in table or cost < table[state][0]:
            table[state] = (cost, path)
    return offer


def decode_dealers(cells: list[DealerCell | None],
                   settings: DealerSettings = DEFAULT.dealer) -> DealerResult:
    """Most probable written dealers; None cells (no such cell) are skipped like blanks."""
    s = settings
    # state: expected dealer for the current row; value: (cost, back pointer list)
    paths: dict[str, tuple[float, list]] = {s: (0.0, []) for s in SEATS}
    for i, cell in enumerate(cells):
        new: dict[str, tuple[float, list]] = {}
        offer = _offerer(new)
        for expected, (cost, path) in paths.items():
            if cell is None or cell.blank or not cell.probs:
                offer(next_seat(expected), cost, path + [(None, None, expected)])
                continue
            offer(next_seat(expected), cost + cell.cost(expected),
                  path + [(expected, None, expected)])
            for seat, p in cell.probs.items():
                if seat == expected or seat not in SEATS or p < s.min_seat_p:
                    continue
                c = cost + cell.cost(seat) + s.cost_dealer
                offer(next_seat(seat), c,
                      path + [(seat, DealerMistake(i, seat, expected, "slip"), expected)])
                offer(next_seat(expected), c,
                      path + [(seat, DealerMistake(i, seat, expected, "copy"), expected)])
        paths = new
    # on a tie, fewer slips (where nothing written later tells, the deal went on round the table),
    # then the later mistake (of two dealers that disagree, the first written is the anchor)
    def tie(path: list) -> tuple:
        marks = [(i, m) for i, (_, m, _) in enumerate(path) if m is not None]
        return (sum(m.shape == "slip" for _, m in marks), -min((i for i, _ in marks), default=0))

    ranked = sorted(paths.values(), key=lambda t: (round(t[0], 9), tie(t[1])))
    best_cost, best_path = ranked[0]
    seats = [s for s, _, _ in best_path]
    mistakes = [m for _, m, _ in best_path if m is not None]
    expected = [e for _, _, e in best_path]
    if not any(seats):  # nothing written anywhere: the rotation has no start
        expected = [None] * len(cells)
    confidence = []
    for i, cell in enumerate(cells):
        seat = seats[i]
        if seat is None or cell is None:
            confidence.append(1.0)
        else:
            share = cell.probs.get(seat, 0.0) / max(sum(cell.probs.values()), s.min_seat_p)
            confidence.append(min(1.0, share))
    return DealerResult(seats, mistakes, confidence, expected)
