"""An example provider of review items beside the sheets' own: names lines nobody could read.

A sheet whose names line for a pair was not read at all asks "who played N/S here?", offering
the names read on the folder's other sheets (the most often read first) and a field to type
them.  The answer is a ``name`` decision (batch/decided.py): the sheet's names are re-reconciled
with it, and later readings keep it.  It shows how another kind of question -- the competition's
"which match is this sheet?" -- joins the queue: a provider with an ``items`` method, nothing
changed in the app.
"""

from __future__ import annotations

from collections import Counter

from batch.ledger import LedgerSheet
from review.queue import MAX_CHOICES, Choice, Context, Item
from scoring.formspec import SIDE_NAMES

MAX_NAME = 80  # characters: a pair's names, "Hill / Cheater"


class UnreadNames:
    """A question per pair whose names line was not read."""

    name = "names"

    def items(self, ctx: Context, sheet: LedgerSheet) -> list[Item]:
        result = sheet.result or {}
        if sheet.status != "ok" or not result or sheet.sheet_id is None:
            return []
        decided = {d["target"] for d in ctx.of(sheet.sheet_id) if d["kind"] == "name"}
        names = result.get("names") or {}
        out = []
        for side in ("ns", "ew"):
            target = f"names_{side}"
            if names.get(side) or target in decided:
                continue
            seen = [n for n, _ in self._seen(ctx).most_common()
                    if n not in (names.get("ns"), names.get("ew"))][:MAX_CHOICES]
            choices = [Choice(n, {"name": n}) for n in seen]
            out.append(Item(self.name, f"name:{target}", sheet.sheet_id, "name",
                            f"Who played {SIDE_NAMES[side]} on this sheet? Their names line was "
                            "not read.", choices, _decider(target, choices),
                            cells=[("", target)], typed="the names as written"))
        return out

    def _seen(self, ctx: Context) -> Counter:
        """Names read on the folder's sheets, counted (once per request)."""
        if "names_seen" not in ctx.cache:
            counts: Counter = Counter()
            counts.update(ctx.ledger.names_read())
            ctx.cache["names_seen"] = counts
        return ctx.cache["names_seen"]


def _decider(target: str, choices: list[Choice]):
    def decide(answer: dict) -> dict:
        if "choice" in answer:
            i = int(answer["choice"])
            if not 0 <= i < len(choices):
                raise ValueError(f"there is no answer {i + 1}")
            name = choices[i].answer["name"]
        else:
            name = " ".join(str(answer.get("value") or "").split())
        if not name:
            raise ValueError("type the names as written, e.g. Hill / Cheater")
        if len(name) > MAX_NAME or not name.isprintable():
            raise ValueError(f"a names line is at most {MAX_NAME} printable characters")
        return {"kind": "name", "target": target, "before": None, "after": name}

    return decide
