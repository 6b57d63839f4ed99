"""Helpers shared by the tests: where things are, readings built by hand for reconciliation,
and the batch tests' doubles (a fake page reader and a simple reconciler).

The fake reader understands tiny text "scans": ``SHEET {json}`` becomes one page with
a SheetReading and a drawn Table; ``SLEEP s`` sleeps; ``CRASH`` kills the worker
process; ``SPAWN pidfile`` starts a long helper process; anything else is an unreadable file.
It is injected into the runner as a parameter (no monkeypatching of production code).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import cv2
import numpy as np

from ocr.data import CellImage, Page, StraightPage, Table
from ocr.pipeline import PageOutcome
from scoring.sheet import (
    NUMBER_COLUMNS,
    CellReading,
    Flag,
    ReconciledRow,
    ReconciledSheet,
    ReviewItem,
    RowReading,
    SheetReading,
)

ROOT = Path(__file__).resolve().parent.parent
SCANS = ROOT / "samples" / "scans"  # the committed sample scans and their truth files
SEATS = ("N", "E", "S", "W")


# --------------------------------------------------------------------------- readings by hand
def sheet(rows, total=None, winners="auto", probs=None) -> SheetReading:
    """A reading of (ns, ew, cum_ns, cum_ew) tuples, dealers rotating from N, all read with
    certainty unless ``probs`` gives candidate lists for (row index, column); the winners line
    names the pair with the higher last cumulative unless ``winners`` says otherwise (None: the
    line was not read)."""
    probs = probs or {}
    if winners == "auto":
        last = rows[-1] if rows else (0, 0, 0, 0)
        winners = None if last[2] == last[3] else ("ns" if last[2] > last[3] else "ew")
    out = []
    for i, (ns, ew, cns, cew) in enumerate(rows):
        cells = {}
        for col, v in zip(("ns", "ew", "cum_ns", "cum_ew"), (ns, ew, cns, cew), strict=True):
            cells[col] = CellReading(probs.get((i, col), [(v, 0.995)]), blank=v == 0)
        cells["dealer"] = CellReading([(SEATS[i % 4], 0.99)])
        out.append(RowReading(i + 1, cells))
    tot = None
    if total:
        tot = RowReading(0, {"cum_ns": CellReading([(total[0], 0.99)]),
                             "cum_ew": CellReading([(total[1], 0.99)])})
    return SheetReading("test", out, total=tot, winners_hint=winners)


def running(scores):
    """Rows with correct cumulatives for a list of (ns, ew) scores."""
    rows, cn, ce = [], 0, 0
    for ns, ew in scores:
        cn, ce = cn + ns, ce + ew
        rows.append((ns, ew, cn, ce))
    return rows


# Seed 001's worked rubber, N/S = Frank & Lena: 990 v 1460 after seven deals.
SEED_001 = [(100, 0), (0, 830), (0, 300), (170, 0), (60, 0), (0, 330), (660, 0)]


# --------------------------------------------------------------------------- batch doubles
ROW_H, TOP, COL_X, COL_W = 40, 160, (60, 160, 330, 500, 670), (90, 160, 160, 160, 160)
COLS = ("dealer",) + NUMBER_COLUMNS


def sheet_bytes(rows: list[tuple], names=("Smith / Jones", "Brown / Reid"),
                unsure: dict | None = None,
                then_sleep: float = 0, then_blank: bool = False) -> bytes:
    """A fake scan: rows of (dealer, ns, ew, cum_ns, cum_ew); unsure maps "deal:col" to candidates;
    then_blank adds a blank page (the back of a duplex scan) after the sheet; then_sleep > 0 adds
    a page after those that takes that many seconds."""
    spec = {"rows": rows, "names": list(names), "unsure": unsure or {}, "then_sleep": then_sleep,
            "then_blank": then_blank}
    return b"SHEET " + json.dumps(spec).encode()


def consistent_rows(scores: list[tuple[int, int]]) -> list[tuple]:
    """Rows with correct cumulative columns for per-deal (ns, ew) scores."""
    rows, cn, ce = [], 0, 0
    for i, (ns, ew) in enumerate(scores):
        cn, ce = cn + ns, ce + ew
        rows.append(("NESW"[i % 4], ns, ew, cn, ce))
    return rows


def make_reading(source: str, spec: dict) -> SheetReading:
    rows = []
    for i, values in enumerate(spec["rows"]):
        deal = i + 1
        cells = {}
        for col, v in zip(COLS, values, strict=True):
            cands = spec["unsure"].get(f"{deal}:{col}")
            cells[col] = CellReading([tuple(c) for c in cands] if cands else [(v, 0.99)],
                                     blank=v == 0)
        rows.append(RowReading(deal, cells))
    ns, ew = spec["names"]
    return SheetReading(source=source, rows=rows, names={"ns": ns, "ew": ew})


def make_table(source: str, n_rows: int) -> Table:
    h, w = TOP + ROW_H * (n_rows + 1) + 60, 900
    img = np.full((h, w, 3), 250, np.uint8)
    cells = []
    for r in range(n_rows):
        y = TOP + r * ROW_H
        for col, x, cw in zip(COLS, COL_X, COL_W, strict=True):
            cv2.rectangle(img, (x, y), (x + cw, y + ROW_H), (40, 40, 40), 1)
            cv2.putText(img, str(r + 1), (x + 8, y + 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                        (90, 60, 20), 2)
            cells.append(CellImage(key=col, row=str(r + 1),
                                   image=np.full((ROW_H, cw), 255, np.uint8),
                                   quad=np.zeros((4, 2), np.float32), box=(x, y, cw, ROW_H)))
    page = Page(source=source, index=0, image=img)
    return Table(straight=StraightPage(page=page, image=img, to_original=np.eye(3)), cells=cells)


def fake_reader(path: str | None, data: bytes | None = None, name: str | None = None):
    source = name or str(path)
    raw = data if data is not None else Path(path).read_bytes()
    if raw.startswith(b"SLEEP"):
        time.sleep(float(raw.split()[1]))
    if raw.startswith(b"CRASH"):
        os._exit(9)
    if raw.startswith(b"SPAWN"):  # a helper process that outlives the time limit (like Tesseract)
        child = subprocess.Popen(["sleep", "60"])
        Path(raw.split()[1].decode()).write_text(str(child.pid))
        child.wait()
    if not raw.startswith(b"SHEET"):
        yield PageOutcome(source=source, page=0, error=f"{source}: not an image or PDF file")
        return
    spec = json.loads(raw[6:].strip())
    yield PageOutcome(source=source, page=0, reading=make_reading(source, spec),
                      table=make_table(source, len(spec["rows"])))
    page = 1
    if spec.get("then_blank"):
        yield PageOutcome(source=source, page=page, error=f"{source} page 2: blank page",
                          blank_back=True)
        page += 1
    if spec.get("then_sleep"):  # a page that takes this long
        time.sleep(spec["then_sleep"])
        yield PageOutcome(source=source, page=page, reading=make_reading(source, spec))


def simple_reconciler(reading: SheetReading, rules=None) -> ReconciledSheet:
    """Best candidates, cumulative-arithmetic flags, review below 0.9, and one house-rule
    dependent check: under unfinished="ahead" a last deal where both sides score is flagged."""
    out_rows, flags, review = [], [], []
    cn = ce = 0
    for row in reading.rows:
        values = {c: row.cells[c].best for c in COLS}
        conf = {c: row.cells[c].confidence for c in NUMBER_COLUMNS}
        for c in NUMBER_COLUMNS:
            if conf[c] < 0.9:
                review.append(ReviewItem(row.deal, c, row.cells[c].candidates, "unsure reading"))
        for side, prev in (("ns", cn), ("ew", ce)):
            expected = prev + int(values[side] or 0)
            if values[f"cum_{side}"] != expected:
                flags.append(Flag("cumulative", f"deal {row.deal}: {side} cumulative "
                                  f"{values[f'cum_{side}']}, but {prev} + {values[side]} "
                                  f"= {expected}",
                                  deal=row.deal, side=side, written=values[f"cum_{side}"],
                                  expected=expected))
        cn, ce = int(values["cum_ns"] or 0), int(values["cum_ew"] or 0)
        out_rows.append(ReconciledRow(row.deal, values, conf))
    last = reading.rows[-1] if reading.rows else None
    if rules is not None and rules.unfinished == "ahead" and last is not None \
            and last.cells["ns"].best and last.cells["ew"].best:
        flags.append(Flag("score", f"deal {last.deal}: both sides took an unfinished-rubber bonus",
                          deal=last.deal, side="ew"))
    winners = None if cn == ce else ("ns" if cn > ce else "ew")
    return ReconciledSheet(source=reading.source, rows=out_rows, totals={"ns": cn, "ew": ce},
                           names=dict(reading.names), winners=winners, flags=flags, review=review,
                           explanations={r.deal: [{"text": f"deal {r.deal} scored"}]
                                         for r in reading.rows})


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting for a reaper that never comes in a container
    counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
