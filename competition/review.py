"""The competition's questions for the review queue: "which match is this sheet, and which pair
sat N/S?", as plain records, and the answer back.  For the review app (review/) to list beside the
cells to check; nothing here knows how it shows them.

    items = match_review_items(ledger)      # [{"kind": "match", "sheet_id", "source", "question",
                                            #   "candidates": [{"match", "ns", "weight", "label"}],
                                            #   "clues"}], the sheets whose match is not sure
    answer_match(ledger, sheet_id, "R1-M3", ns="P9")   # or match=None: no match of the draw

The answer is a decision of kind ``match`` (competition.run.MATCH_KIND, after {"match", "ns"}) in
the ledger's decisions table: the review app records one through review/matches.py.
"""

from __future__ import annotations

from batch.ledger import Ledger
from competition.assign import Assignment
from competition.evidence import LinesReader
from competition.run import NoCompetition, decide, refresh


def match_review_items(ledger: Ledger, lines: LinesReader | None = None,
                       writable: bool | None = None) -> list[dict]:
    """The open "which match?" questions of the folder's competition ([] when it has none).  The
    ledger may be read-only, or ``writable`` False: nothing is stored then."""
    try:
        state = refresh(ledger, lines=lines,
                        writable=not ledger.readonly if writable is None else writable)
    except NoCompetition:
        return []
    return state.review_items


def answer_match(ledger: Ledger, sheet_id: str, match: str | None, ns: str | None = None) -> Assignment:
    """The organiser's answer, kept over any later reading of the clues; raises ValueError for a
    sheet, match or pair that is not there."""
    return decide(ledger, sheet_id, match, ns)
