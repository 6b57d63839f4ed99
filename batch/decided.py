"""A person's decisions (the review app's, kept in the ledger) applied on top of a sheet's reading.

This is the one place a sheet's decided result is made: the review app after each decision,
`batch` after it reads a sheet again and `audit` all call it, so no re-reading and no change of
the reader or the house rules loses a person's decision.  A decided value enters reconciliation
as a certain reading of its cell (``CellReading.person``); the rules then do the rest (a value
"the players wrote" that the arithmetic contradicts becomes a flag).

Decisions (the ledger's ``decisions`` rows: kind, target, after, reason, who):

- ``value`` / ``written`` / ``misread``: the cell ``target`` ("12:cum_ns", "total:cum_ns",
  "3:dealer") holds ``after`` -- a value chosen or typed, the value as read ("the players wrote
  this") or the arithmetic's value ("misread");
- ``blank_row``: every number cell of row ``target`` ("12:row") is empty (a missing deal);
- ``winners``: the winners line names ``after`` ("ns" / "ew"); ``name``: the names line
  ``target`` ("names_ns") reads ``after``;
- ``flag``: the flag ``target`` (:func:`flag_key`) is ``after`` "confirmed" or "dismissed"
  (``reason`` says why); a dismissed flag moves to the result's ``dismissed_flags``;
- ``status``: the sheet is ``after`` "verified" or "disputed" (``reason``);
- ``corners``: the table's four corners clicked on the kept page (``after``: [[x, y] x 4]), read
  again from there (ocr/corners.py) when the batch found no table;
- ``rows``: the whole table typed by hand (``after``: {"rows": [...], "names", "winners"}), which
  replaces any reading.

Other kinds (the review queue's providers may add their own) are kept and shown, never applied.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from batch.ledger import Ledger, LedgerSheet, ReviewChange, SheetState
from batch.serial import reading_from_json, reading_to_json
from scoring.formspec import DEAL_COLUMNS, NUMBER_COLUMNS, SEATS
from scoring.sheet import CellReading, RowReading, SheetReading

CELL_KINDS = ("value", "written", "misread")  # each pins one cell to the value decided
SOURCE_KINDS = ("corners", "rows")  # each gives a sheet a reading of a person's making
FLAG_ANSWERS = ("confirmed", "dismissed")
STATUS_ANSWERS = ("verified", "disputed")
MAX_NUMBER = 99999  # the largest number a score cell holds (CONTRACT.md, reading single cells)


# --------------------------------------------------------------------------- names of things
def cell_target(deal: int | None, column: str) -> str:
    """The target naming a review item's cell: "12:cum_ns", "total:cum_ns" (a Total-row item,
    column "total_ns"), or the column itself for a sheet-wide item ("winners")."""
    if deal is None and column.startswith("total_"):
        return "total:cum_" + column[len("total_"):]
    if deal is None:
        return column
    return f"{deal}:{column}"


def flag_key(flag: dict) -> str:
    """A flag's name across re-readings: its kind, deal and side ("cumulative:14:ns")."""
    deal = flag.get("deal")
    return f"{flag.get('kind')}:{'' if deal is None else deal}:{flag.get('side') or ''}"


def flag_target(flag: dict) -> str | None:
    """The cell a flag points at ("14:cum_ns", "total:cum_ns", "winners"), or None (a missing
    deal, a flag on a whole row)."""
    kind, side = flag.get("kind"), flag.get("side")
    column, deal = flag.get("column"), flag.get("deal")
    if kind == "total" and side:
        return f"total:cum_{side}"
    if kind == "winner":
        return "winners"
    if column and deal is not None:
        return f"{deal}:{column}"
    return None


def parse_target(target: str) -> tuple[str, str]:
    """"12:cum_ns" -> ("12", "cum_ns"); "total:cum_ns" -> ("total", "cum_ns")."""
    row, _, key = target.partition(":")
    return row, key


def check_value(column: str, value: object) -> object:
    """A person's value for a cell of ``column``, checked: a seat for the dealer, otherwise a
    whole number 0-99999 that ends in 0 (blank or a dash: 0).  ValueError says what is wrong."""
    if column == "dealer":
        seat = str(value or "").strip().upper()[:1]
        if seat not in SEATS:
            raise ValueError(f"a dealer is one of {', '.join(SEATS)}")
        return seat
    text = str(value if value is not None else "").strip().replace(",", "")
    if text in ("", "-"):
        return 0
    if not text.isdigit():
        raise ValueError(f"{text!r} is not a number: type digits only (a blank or a dash is 0)")
    number = int(text)
    if number > MAX_NUMBER:
        raise ValueError(f"{number} is more than a score cell holds ({MAX_NUMBER})")
    if number % 10:
        raise ValueError(f"{number} does not end in 0: every bridge score does")
    return number


# --------------------------------------------------------------------------- applying them
def pinned(column: str, value: object, like: CellReading | None = None) -> CellReading:
    """A cell read by a person: ``value`` for certain (keeping the machine cell's outline)."""
    quad = like.quad if like is not None else None
    if column == "dealer":
        return CellReading([(value, 1.0)], quad=quad, person=True)
    return CellReading([(int(value), 1.0)], blank=int(value) == 0, quad=quad, person=True)


def typed_reading(source: str, typed: dict) -> SheetReading:
    """The reading of a table typed by hand (a ``rows`` decision): every cell certain."""
    rows = []
    for r in typed.get("rows") or []:
        cells = {}
        for col in DEAL_COLUMNS:
            value = r.get(col)
            if col == "dealer":
                if value:
                    cells[col] = pinned(col, value)
                continue
            cells[col] = pinned(col, value or 0)
        rows.append(RowReading(int(r["deal"]), cells))
    names = typed.get("names") or {}
    winners = typed.get("winners")
    return SheetReading(source=source, rows=rows,
                        names={"ns": names.get("ns") or None, "ew": names.get("ew") or None},
                        winners_text=winners,
                        winners_hint=winners if winners in ("ns", "ew") else None,
                        meta={"from": "rows"})


def apply(reading: SheetReading, decisions: list[dict]) -> SheetReading:
    """``reading`` with every decision that bears on it applied (later ones override earlier)."""
    typed = [i for i, d in enumerate(decisions) if d["kind"] == "rows"]
    if typed:  # the rows typed replace the reading, and the decisions made before them
        reading = typed_reading(reading.source, decisions[typed[-1]]["after"] or {})
        decisions = decisions[typed[-1] + 1:]
    reading = dataclasses.replace(
        reading, rows=[RowReading(r.deal, dict(r.cells)) for r in reading.rows],
        total=RowReading(reading.total.deal, dict(reading.total.cells)) if reading.total else None,
        names=dict(reading.names), meta=dict(reading.meta))
    by_deal = {str(r.deal): r for r in reading.rows}

    def row_of(label: str) -> RowReading | None:
        if label == "total":
            if reading.total is None:
                reading.total = RowReading(0, {})
            return reading.total
        if label not in by_deal and label.isdigit():  # a deal the reader found no row for
            by_deal[label] = RowReading(int(label), {c: CellReading([]) for c in DEAL_COLUMNS})
            reading.rows.append(by_deal[label])
            reading.rows.sort(key=lambda r: r.deal)
        return by_deal.get(label)

    for d in decisions:
        kind, target, after = d["kind"], d["target"], d.get("after")
        if kind in CELL_KINDS:
            label, column = parse_target(target)
            row = row_of(label)
            if row is not None and column in DEAL_COLUMNS:
                row.cells[column] = pinned(column, after, row.cells.get(column))
        elif kind == "blank_row":
            row = row_of(parse_target(target)[0])
            if row is not None:
                for column in NUMBER_COLUMNS:
                    row.cells[column] = pinned(column, 0, row.cells.get(column))
        elif kind == "winners" and after in ("ns", "ew"):
            reading.winners_hint = after
        elif kind == "name" and target in ("names_ns", "names_ew"):
            reading.names[target[len("names_"):]] = str(after or "").strip() or None
    return reading


def annotate(result: dict, decisions: list[dict]) -> dict:
    """The reconciled ``result`` with the flags a person dismissed moved to
    ``dismissed_flags`` (each with the reason and who)."""
    answers = {d["target"]: d for d in decisions if d["kind"] == "flag"}
    kept, dismissed = [], []
    for f in result.get("flags") or []:
        d = answers.get(flag_key(f))
        if d is not None and d.get("after") == "dismissed":
            dismissed.append({**f, "reason": d.get("reason"), "by": d.get("who")})
        else:
            kept.append(f)
    if dismissed:
        result = {**result, "flags": kept, "dismissed_flags": dismissed}
    return result


def decided_result(reading_json: dict, decisions: list[dict], rules=None,
                   reconciler=None) -> dict:
    """The CONTRACT.md object (with explanations) of a stored reading with ``decisions`` applied,
    reconciled under the house ``rules`` (scoring.model.HouseRules) by ``reconciler`` (default:
    scoring.reconcile.reconcile, as `batch` and `audit` use)."""
    if reconciler is None:
        from batch.worker import default_reconciler as reconciler
    reading = apply(reading_from_json(reading_json), decisions)
    return annotate(reconciler(reading, rules).to_json(with_explanations=True), decisions)


# --------------------------------------------------------------------------- what is still open
def decided_cells(decisions: list[dict]) -> set[str]:
    """The cells a person has given a value (targets), rows made blank included."""
    out = set()
    for d in decisions:
        if d["kind"] in CELL_KINDS:
            out.add(d["target"])
        elif d["kind"] == "blank_row":
            label = parse_target(d["target"])[0]
            out.update(f"{label}:{c}" for c in NUMBER_COLUMNS)
        elif d["kind"] == "winners":
            out.add("winners")
        elif d["kind"] == "name":
            out.add(d["target"])
    return out


def open_items(result: dict | None, decisions: list[dict]) -> tuple[list[dict], list[dict]]:
    """(review items, flags) of ``result`` no decision has answered yet: a review item whose cell
    has a person's value is answered, and so is a flag confirmed or dismissed, or whose cell a
    person has read, or a missing deal whose row a person said is empty."""
    if not result:
        return [], []
    cells = decided_cells(decisions)
    answered = {d["target"] for d in decisions if d["kind"] == "flag"}
    # a row a person said is empty: the missing deal it makes is what they said
    answered.update(f"missing_deal:{parse_target(d['target'])[0]}:" for d in decisions
                    if d["kind"] == "blank_row")
    reviews = [r for r in result.get("review") or []
               if cell_target(r.get("deal"), str(r.get("column"))) not in cells]
    flags = [f for f in result.get("flags") or []
             if flag_key(f) not in answered and flag_target(f) not in cells]
    return reviews, flags


def sheet_status(result: dict | None, decisions: list[dict], failed: bool = False) -> str:
    """"disputed" when a person said so last; "to check" while anything is open (or the sheet
    could not be read, or nobody has looked at it); else "verified"."""
    marks = [d["after"] for d in decisions if d["kind"] == "status"]
    if marks and marks[-1] == "disputed":
        return "disputed"
    if failed or not result:
        return "to check"
    reviews, flags = open_items(result, decisions)
    if reviews or flags or not decisions:
        return "to check"
    return "verified"


# --------------------------------------------------------------------------- settling a sheet
@dataclass
class Settled:
    """What follows from a sheet's decisions: its new reading and picture when a person's input
    made or undid one (``state``; None: unchanged), its result and its status."""

    state: SheetState | None
    result: dict | None
    status: str


def settle(ledger: Ledger, out_dir: Path, sheet: LedgerSheet, decisions: list[dict],
           rules: dict | None, reconciler=None) -> Settled:
    """Decide ``sheet``'s reading, result and status under ``decisions`` (those in force, a new
    one included): the stored reading, or for a sheet without one the corners clicked (read
    again, once per set of corners) or the rows typed by hand; a person's reading whose decision
    was undone gives way to the failure it replaced."""
    from batch.worker import house_rules

    stored = ledger.reading(sheet.sheet_id)
    made = (stored or {}).get("meta", {}).get("from") if stored else None
    source = [d for d in decisions if d["kind"] in SOURCE_KINDS]
    state = None
    if stored is None or made in SOURCE_KINDS:  # no reading of the machine's own to keep
        latest = source[-1] if source else None
        if latest is None and made:
            page = dict((sheet.layout or {}).get("page") or {})
            state = SheetState(None, error=page.get("error") or "no summary score table found",
                               layout={"page": page})
        elif latest is not None and latest["kind"] == "rows":
            state = _person_state(sheet, reading_to_json(
                typed_reading(sheet.source, latest["after"] or {})))
        elif latest is not None and latest["kind"] == "corners" and (
                made != "corners" or stored.get("meta", {}).get("corners") != latest["after"]):
            state = read_corners(out_dir, sheet, latest["after"])
    reading = state.reading if state is not None else stored
    result = None
    if reading is not None:
        result = decided_result(reading, decisions, house_rules(rules), reconciler)
    failed = reading is None or (state is not None and state.error is not None)
    return Settled(state, result, sheet_status(result, decisions, failed=failed))


def _person_state(sheet: LedgerSheet, reading: dict) -> SheetState:
    """A sheet given a reading of a person's making, remembering the failure it replaces."""
    layout = copy.deepcopy(sheet.layout or {})
    if sheet.status == "failed":
        layout.setdefault("page", {})["error"] = sheet.error
    return SheetState(reading, image=sheet.image, layout=layout)


def read_corners(out_dir: Path, sheet: LedgerSheet, corners: list) -> SheetState:
    """Read ``sheet`` again from the table corners clicked on its kept page (ocr/corners.py):
    its new reading and pictures, or the failure (what went wrong, the page still kept)."""
    import cv2

    from batch.keep import keep_cells
    from batch.worker import save_picture
    from ocr.corners import read_from_corners
    from ocr.data import Page

    sheets_dir = Path(out_dir) / "sheets"
    layout = copy.deepcopy(sheet.layout or {})
    page_info = layout.get("page") or {}
    if sheet.status == "failed":
        page_info["error"] = sheet.error
    name = page_info.get("image")
    image = cv2.imread(str(sheets_dir / Path(name).name)) if name else None
    if image is None:
        return SheetState(None, error="the page was not kept, so its corners cannot be used; "
                          "type the rows instead", layout=layout)
    result = read_from_corners(Page(source=sheet.source, index=sheet.page, image=image), corners)
    if result.reading is None or result.table is None:
        return SheetState(None, error=f"read from the corners clicked: {result.error}",
                          layout={**layout, "page": page_info})
    reading = reading_to_json(result.reading)
    reading["meta"]["from"] = "corners"
    reading["meta"]["corners"] = corners
    image_name, picture = save_picture(result.table, sheets_dir, sheet.sheet_id)
    full = keep_cells(result.table, sheets_dir, sheet.sheet_id)
    if full:
        picture["full"] = full
    picture["page"] = page_info
    return SheetState(reading, image=image_name, layout=picture)


def reapply(ledger: Ledger, out_dir: Path, sheet_ids: list[str], rules: dict | None,
            reconciler=None) -> int:
    """Apply the decisions in force again to each of ``sheet_ids`` just (re-)read by a batch;
    returns how many sheets had any.  Never raises for one sheet: a sheet it cannot settle keeps
    the batch's own result (its decisions stay in the ledger)."""
    done = 0
    for sid in sheet_ids:
        decisions = ledger.decisions(sid)
        if not decisions:
            continue
        sheet = next(iter(ledger.sheets(sid)), None)
        if sheet is None:
            continue
        try:
            settled = settle(ledger, out_dir, sheet, decisions, rules, reconciler)
        except Exception:  # noqa: BLE001 - one sheet's trouble never stops a batch
            continue
        ledger.write_review(ReviewChange(sid, settled.status, result=settled.result, rules=rules,
                                         sheet=settled.state))
        done += 1
    return done
