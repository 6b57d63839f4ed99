"""The competition's question in the review queue: "which match is this sheet, and which pair sat
N/S?" for the sheets whose clues (sender, names lines, QR code) do not settle it
(competition/review.py makes the records).  The answer is a ``match`` decision, which the
competition reads back (competition/run.py); the sheet's own result does not change with it.
"""

from __future__ import annotations

from batch.ledger import LedgerSheet
from competition.evidence import LinesReader
from competition.review import match_review_items
from competition.run import MATCH_KIND
from competition.store import info
from review.queue import MAX_CHOICES, Choice, Context, Item

NO_MATCH = "no match of the draw (a pair not entered, a friendly)"


class MatchQuestions:
    """A question per sheet of the folder's competition whose match is not sure."""

    name = "match"

    def __init__(self) -> None:
        self._lines: LinesReader | None = None  # the names recogniser, loaded once when needed

    def items(self, ctx: Context, sheet: LedgerSheet) -> list[Item]:
        if sheet.sheet_id is None:
            return []
        record = self._records(ctx).get(sheet.sheet_id)
        if record is None:
            return []
        choices = [Choice(f"{c['label']} ({100 * (c['weight'] or 0):.0f} %)",
                          {"match": c["match"], "ns": c["ns"]})
                   for c in record["candidates"] if c["match"] is not None][:MAX_CHOICES - 1]
        choices.append(Choice(NO_MATCH, {"match": None, "ns": None}))
        return [Item(self.name, MATCH_KIND, sheet.sheet_id, MATCH_KIND,
                     f"{record['question']} ({record['clues']})", choices, _decider(choices))]

    def _records(self, ctx: Context) -> dict[str, dict]:
        """The open questions by sheet id, made once per request (nothing written meanwhile)."""
        if "match_items" not in ctx.cache:
            records = {}
            if info(ctx.ledger) is not None:
                if self._lines is None:
                    self._lines = LinesReader.default()
                records = {r["sheet_id"]: r for r in
                           match_review_items(ctx.ledger, self._lines, writable=False)}
            ctx.cache["match_items"] = records
        return ctx.cache["match_items"]


def _decider(choices: list[Choice]):
    def decide(answer: dict) -> dict:
        if "choice" not in answer:
            raise ValueError("choose one of the matches offered (or `rubberscan competition "
                             "DIR --assign SHEET=MATCH:NS` for another)")
        i = int(answer["choice"])
        if not 0 <= i < len(choices):
            raise ValueError(f"there is no answer {i + 1}")
        return {"kind": MATCH_KIND, "target": MATCH_KIND, "before": None,
                "after": dict(choices[i].answer)}

    return decide
