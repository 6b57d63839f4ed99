"""Plain dataclasses for a sheet's candidate readings and its reconciled result.

The reader (ocr/) produces a :class:`SheetReading`; reconciliation
(scoring/reconcile/run.py) turns it into a :class:`ReconciledSheet`, whose
``to_json()`` is the object ``rubberscan read`` prints (see shared/CONTRACT.md).
Pure data: no I/O, no images.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The cells of a deal row (scoring/formspec.py); "dealer" holds "N"/"E"/"S"/"W".
from scoring.formspec import DEAL_COLUMNS, NUMBER_COLUMNS

# A candidate reading: (value, probability).  value is an int for number cells
# (0 for a blank or a dash), "N"/"E"/"S"/"W" for dealer cells, and None for
# "cannot read".  Probabilities of one cell's candidates sum to <= 1, best first.
Candidate = tuple[object, float]


@dataclass
class CellReading:
    candidates: list[Candidate]  # N-best, most probable first
    blank: bool = False  # nothing written (reader's own view; blank reads as 0)
    typed: bool = False  # printed/typed text rather than handwriting
    quad: list[list[float]] | None = None  # cell outline on the original scan
    # one-digit variants of the best number -> log10 of how much less likely the reader finds them
    # (those it finds at least 1e-8 as likely; ocr/cellnet.variant_odds); None: not measured
    near: dict[int, float] | None = None
    # a person's reading (the review app): certain, so reconciliation never widens it
    person: bool = False

    @property
    def best(self) -> object:
        return self.candidates[0][0] if self.candidates else None

    @property
    def confidence(self) -> float:
        return float(self.candidates[0][1]) if self.candidates else 0.0


@dataclass
class RowReading:
    deal: int  # as printed on the sheet
    cells: dict[str, CellReading]  # keys from DEAL_COLUMNS (missing key = no such cell)


@dataclass
class SheetReading:
    source: str
    rows: list[RowReading]  # in printed order
    total: RowReading | None = None  # the printed Total row, when the form has one
    names: dict[str, str | None] = field(default_factory=lambda: {"ns": None, "ew": None})
    winners_text: str | None = None  # raw text of the winners line
    winners_hint: str | None = None  # "ns"/"ew" when the reader could tell, else None
    form: str = "summary"
    meta: dict = field(default_factory=dict)  # page size, layout, timings...


@dataclass
class Flag:
    """A mistake on the sheet itself (the players' arithmetic or scoring)."""

    kind: str  # cumulative, score, total, winner, missing_deal, dealer, ...
    message: str
    deal: int | None = None
    side: str | None = None  # "ns" / "ew"
    column: str | None = None
    written: object = None
    expected: object = None

    def to_json(self) -> dict:
        out: dict = {}
        if self.deal is not None:
            out["deal"] = self.deal
        out["kind"] = self.kind
        if self.side is not None:
            out["side"] = self.side
        if self.column is not None:
            out["column"] = self.column
        out["written"] = self.written
        out["expected"] = self.expected
        out["message"] = self.message
        return out


@dataclass
class ReviewItem:
    """Something a person should look at because the reading is unsure."""

    deal: int | None
    column: str
    candidates: list[Candidate]
    reason: str

    def to_json(self) -> dict:
        return {
            "deal": self.deal,
            "column": self.column,
            "candidates": [[v, round(float(p), 4)] for v, p in self.candidates],
            "reason": self.reason,
        }


@dataclass
class ReconciledRow:
    deal: int
    values: dict[str, object]  # DEAL_COLUMNS -> chosen value (None = unreadable)
    confidence: dict[str, float]  # NUMBER_COLUMNS -> probability of the chosen value
    explanation: list[str] = field(default_factory=list)  # readable results for the score

    def to_json(self) -> dict:
        out: dict = {"deal": self.deal}
        for col in DEAL_COLUMNS:
            out[col] = self.values.get(col)
        out["confidence"] = {c: round(float(self.confidence.get(c, 0.0)), 4)
                             for c in NUMBER_COLUMNS}
        return out


@dataclass
class ReconciledSheet:
    source: str
    rows: list[ReconciledRow]
    totals: dict[str, int | None]
    names: dict[str, str | None]
    winners: str | None
    flags: list[Flag] = field(default_factory=list)
    review: list[ReviewItem] = field(default_factory=list)
    form: str = "summary"
    explanations: dict[int, list[dict]] = field(default_factory=dict)  # deal -> results
    meta: dict = field(default_factory=dict)
    rescan: str | None = None  # why to ask for a better scan (scoring/reconcile/rescan.py), or None
    missing: list[str] = field(default_factory=list)  # what the picture does not show (partial.py)

    def to_json(self, with_explanations: bool = False) -> dict:
        out = {
            "source": self.source,
            "form": self.form,
            "names": dict(self.names),
            "winners": self.winners,
            "rows": [r.to_json() for r in self.rows],
            "totals": dict(self.totals),
            "flags": [f.to_json() for f in self.flags],
            "review": [r.to_json() for r in self.review],
        }
        # only on a sheet too poorly scanned to read well: CONTRACT.md's keys otherwise
        if self.rescan:
            out["rescan"] = self.rescan
        if self.missing:  # only on a sheet whose picture does not show all of it
            out["missing"] = list(self.missing)
        if with_explanations:
            out["explanations"] = {str(k): v for k, v in sorted(self.explanations.items())}
        return out
