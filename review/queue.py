"""The review queue: every open question about every sheet, oldest sheet first.

A question is an :class:`Item`: the sheet it is about, its kind, the question in words, the
answers offered (:class:`Choice`) and a ``decide`` function that turns an answer into a decision
for the ledger (batch/decided.py says what each kind of decision does).  Items come from
providers (:class:`Provider`): the sheets' own (:class:`SheetItems`: their review items, flags
and tables not found) and any other (review/names.py is an example); the app shows and decides
them all alike, so a new kind of question joins by adding a provider, not by changing the app.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from batch.decided import (
    cell_target,
    check_value,
    decided_cells,
    flag_key,
    flag_target,
    open_items,
    parse_target,
)
from batch.ledger import Ledger, LedgerSheet
from scoring.formspec import SEATS, SIDE_NAMES

COLUMN_TITLES = {"dealer": "Dealer", "ns": "N/S", "ew": "E/W", "cum_ns": "Cum. N/S",
                 "cum_ew": "Cum. E/W"}
MISREAD_OR_MISTAKE = "a misread or the players' mistake"
MAX_CHOICES = 9  # keys 1-9


@dataclass
class Choice:
    """One answer offered as a button (key 1-9 by its place)."""

    label: str
    answer: dict  # handed to the item's decide function when chosen


@dataclass
class Item:
    """One open question.  ``decide(answer)`` returns the decision (kind, target, before, after,
    reason) for an answer -- ``{"choice": i}`` (the i-th choice), ``{"value": text}`` (typed) or
    ``{"action": "dismiss", "reason": text}`` -- or raises ValueError with what is wrong."""

    provider: str
    key: str  # unique among the sheet's items, stable across re-readings
    sheet_id: str
    kind: str  # review, inconsistency, row, winners, dealer, flag, table, name...
    question: str
    choices: list[Choice]
    decide: Callable[[dict], dict]
    cells: list[tuple[str, str]] = field(default_factory=list)  # (row, key) shown cut from the scan
    row: str | None = None  # the deal row shown in context
    typed: str | None = None  # what the field for another value asks (None: no field)
    dismiss: bool = False  # offers "dismiss, with a reason" (flags)


class Provider(Protocol):
    """A source of review items."""

    name: str

    def items(self, ctx: Context, sheet: LedgerSheet) -> Iterable[Item]:
        """The open items about ``sheet`` (its result and decisions in ``ctx``)."""


@dataclass
class Context:
    """What providers see of the batch folder: the ledger and each sheet's decisions."""

    ledger: Ledger
    decisions: dict[str, list[dict]]  # sheet id -> decisions in force
    cache: dict = field(default_factory=dict)  # a provider's look-ups, for one request

    def of(self, sheet_id: str) -> list[dict]:
        return self.decisions.get(sheet_id, [])


# --------------------------------------------------------------------------- the sheets' own
class SheetItems:
    """A sheet's review items, its flags, and a table not found."""

    name = "sheet"

    def items(self, ctx: Context, sheet: LedgerSheet) -> list[Item]:
        if sheet.sheet_id is None:
            return []
        if sheet.status != "ok" or not sheet.result:  # corners to click, or rows to type
            return [self._table(sheet)]
        result = sheet.result
        decisions = ctx.of(sheet.sheet_id)
        reading = None
        reviews, flags = open_items(result, decisions)
        out = []
        for r in reviews:
            if str(r.get("reason", "")).startswith(MISREAD_OR_MISTAKE) and reading is None:
                reading = ctx.ledger.reading(sheet.sheet_id) or {}
            out.append(review_item(sheet.sheet_id, result, r, reading))
        out.extend(flag_item(sheet.sheet_id, result, f) for f in flags)
        out.sort(key=lambda it: (_deal_order(it.row), it.kind != "flag", it.key))
        return out

    def _table(self, sheet: LedgerSheet) -> Item:
        def decide(answer: dict) -> dict:
            raise ValueError("click the table's four corners, or type the rows")

        return Item(self.name, "table", sheet.sheet_id, "table",
                    f"The table was not found on this page ({sheet.error}): click its four "
                    "corners, or type the rows by hand.", [], decide)


def _deal_order(row: str | None) -> tuple[int, str]:
    if row is not None and row.isdigit():
        return int(row), ""
    return (10 ** 6 if row == "total" else 10 ** 7), str(row)


def shown_value(result: dict, target: str) -> object:
    """What the result shows in the cell ``target`` (the value before a decision)."""
    label, key = parse_target(target)
    if target == "winners":
        return result.get("winners")
    if label == "total":
        return (result.get("totals") or {}).get(key.replace("cum_", ""))
    for r in result.get("rows") or []:
        if str(r.get("deal")) == label:
            return r.get(key)
    return None


def _read_value(reading: dict | None, target: str) -> object:
    """The reader's own best value of a cell (what it saw written)."""
    label, key = parse_target(target)
    if not reading:
        return None
    rows = [reading.get("total")] if label == "total" else [
        r for r in reading.get("rows") or [] if str(r.get("deal")) == label]
    for row in rows:
        cell = ((row or {}).get("cells") or {}).get(key)
        if cell and cell.get("candidates"):
            return cell["candidates"][0][0]
    return None


def where(target: str) -> str:
    """A cell's name in words: "deal 12, Cum. N/S", "Total row, E/W", "winners line"."""
    label, key = parse_target(target)
    if target == "winners":
        return "the winners line"
    if label == "total":
        return f"Total row, {SIDE_NAMES.get(key.replace('cum_', ''), key)}"
    return f"deal {label}, {COLUMN_TITLES.get(key, key)}"


def _cell_decider(target: str, before: object, choices: list[Choice]):
    """decide() for a cell: a choice's answer as it is, a typed value checked for the column."""
    column = parse_target(target)[1]

    def decide(answer: dict) -> dict:
        if "choice" in answer:
            i = int(answer["choice"])
            if not 0 <= i < len(choices):
                raise ValueError(f"there is no answer {i + 1}")
            d = dict(choices[i].answer)
        elif "value" in answer:
            d = {"kind": "value", "target": target, "after": check_value(column, answer["value"])}
        else:
            raise ValueError("choose an answer or type a value")
        d.setdefault("target", target)
        d.setdefault("before", before)
        return d

    return decide


def review_item(sheet_id: str, result: dict, r: dict, reading: dict | None) -> Item:
    """The question a review item asks, with its answers."""
    deal, column = r.get("deal"), str(r.get("column"))
    target = cell_target(deal, column)
    reason = str(r.get("reason") or "unsure reading")
    before = shown_value(result, target)
    cands = [(v, p) for v, p in (r.get("candidates") or []) if v is not None]
    choices: list[Choice] = []
    if column == "winners":
        first = [v for v, _ in cands if v in ("ns", "ew")]
        for side in first + [s for s in ("ns", "ew") if s not in first]:
            choices.append(Choice(f"{SIDE_NAMES[side]} won", {"kind": "winners", "after": side}))
        return Item("sheet", f"review:{target}", sheet_id, "winners",
                    f"The winners line: {reason}", choices,
                    _cell_decider(target, before, choices), cells=[("", "winners")])
    row = "total" if deal is None else str(deal)
    label, key = parse_target(target)
    kind = "review"
    if reason.startswith(MISREAD_OR_MISTAKE):
        kind = "inconsistency"
        written = _read_value(reading, target)
        other = next((v for v, _ in cands if v != written), None)
        if written is not None:
            choices.append(Choice(f"the players wrote {written}",
                                  {"kind": "written", "after": written}))
        if other is not None:
            choices.append(Choice(f"misread: it says {other}", {"kind": "misread", "after": other}))
    elif not cands and key in ("ns", "ew") and "row" in reason:
        kind = "row"
        target = f"{label}:ns"
        choices.append(Choice("the row is empty (a missing deal)",
                              {"kind": "blank_row", "target": f"{label}:row"}))
    elif key == "dealer":
        kind = "dealer"
        seats = [str(v) for v, _ in cands if str(v) in SEATS]
        for seat in seats + [s for s in SEATS if s not in seats]:
            choices.append(Choice(f"dealer {seat}", {"kind": "value", "after": seat}))
    else:
        for v, p in cands[:MAX_CHOICES]:
            choices.append(Choice(f"{v} ({float(p):.0%})", {"kind": "value", "after": v}))
    typed = "the dealer's seat" if key == "dealer" else "the number written"
    return Item("sheet", f"review:{cell_target(deal, column)}", sheet_id, kind,
                f"{where(target)}: {reason}", choices[:MAX_CHOICES],
                _cell_decider(target, before, choices), cells=[(row, key)], row=row, typed=typed)


def flag_item(sheet_id: str, result: dict, f: dict) -> Item:
    """A flag to confirm ("the players wrote this") or dismiss (a misread, or with a reason)."""
    key, target = flag_key(f), flag_target(f)
    written, expected = f.get("written"), f.get("expected")
    choices: list[Choice] = []
    deal = f.get("deal")
    row = "total" if f.get("kind") == "total" else (None if deal is None else str(deal))
    cells: list[tuple[str, str]] = []
    if target == "winners":
        cells = [("", "winners")]
        if written in ("ns", "ew"):
            choices.append(Choice(f"the sheet names {SIDE_NAMES[written]}: the players' mistake",
                                  {"kind": "winners", "after": written}))
        if expected in ("ns", "ew"):
            choices.append(Choice(f"misread: it names {SIDE_NAMES[expected]}",
                                  {"kind": "winners", "after": expected}))
    elif target is not None and written is not None:
        cells = [(parse_target(target)[0], parse_target(target)[1])]
        choices.append(Choice(f"the players wrote {written}: their mistake",
                              {"kind": "written", "after": written}))
        if expected is not None and expected != written:
            choices.append(Choice(f"misread: it says {expected}",
                                  {"kind": "misread", "after": expected}))
    else:
        choices.append(Choice("the players' mistake (confirm)",
                              {"kind": "flag", "target": key, "after": "confirmed"}))
        if row and row.isdigit():
            cells = [(row, c) for c in ("ns", "ew", "cum_ns", "cum_ew")]
    before = shown_value(result, target) if target else None
    cell_decide = _cell_decider(target or key, before, choices)

    def decide(answer: dict) -> dict:
        if answer.get("action") == "dismiss":
            reason = str(answer.get("reason") or "").strip()
            if not reason:
                raise ValueError("say why the flag is dismissed")
            return {"kind": "flag", "target": key, "before": f.get("message"),
                    "after": "dismissed", "reason": reason[:500]}
        if "value" in answer and target is None:
            raise ValueError("this flag is about no single cell: confirm or dismiss it")
        return cell_decide(answer)

    return Item("sheet", f"flag:{key}", sheet_id, "flag", str(f.get("message")), choices, decide,
                cells=cells, row=row,
                typed="the number written" if target not in (None, "winners") else None,
                dismiss=True)


# --------------------------------------------------------------------------- the queue
def oldest_first(sheets: Iterable[LedgerSheet]) -> list[LedgerSheet]:
    """Sheets by the date their e-mail was sent (else when they were read), then source, page."""
    return sorted((s for s in sheets if s.sheet_id),
                  key=lambda s: (s.date or s.processed_at or "", s.source, s.page))


def context(ledger: Ledger) -> Context:
    by_sheet: dict[str, list[dict]] = {}
    for d in ledger.decisions():
        by_sheet.setdefault(d["sheet_id"], []).append(d)
    return Context(ledger, by_sheet)


def sheet_items(ctx: Context, sheet: LedgerSheet, providers: Iterable[Provider]) -> list[Item]:
    """Every open item about one sheet, its own first."""
    out: list[Item] = []
    for provider in providers:
        out.extend(provider.items(ctx, sheet))
    return out


def answered_cells(ctx: Context, sheet_id: str) -> set[str]:
    """The cells a person has decided on this sheet (shown marked on its page)."""
    return decided_cells(ctx.of(sheet_id))
