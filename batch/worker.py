"""What one worker does with one scan: its pages read and reconciled (ocr.pipeline.read_results),
each kept as a ledger record with its picture.

Runs inside a worker process; returns a plain :class:`~batch.ledger.ScanRecord` that
the parent commits to the ledger.  Nothing here raises: every problem becomes the
record's error.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

import cv2
import numpy as np

from batch import keep
from batch.atomic import atomic_write_bytes
from batch.inputs import ScanInput
from batch.ledger import ScanRecord, SheetRecord
from batch.serial import reading_to_json
from ocr.pipeline import Reader, Reconciler, read_results

# Long side of the straightened picture kept for the report.
REPORT_IMAGE_SIDE = 1400
REPORT_JPEG_QUALITY = 80


def default_reader(path: str | None, data: bytes | None = None,
                   name: str | None = None) -> Iterable:
    """The real image pipeline."""
    from ocr.pipeline import read_file

    return read_file(path, data=data, name=name)


def default_reconciler(reading, rules=None, look=None):
    """The real scoring reconciliation (with the second reader's ``look`` at the page's cells,
    which ocr.pipeline.read_results gives it)."""
    from scoring.reconcile import reconcile

    return reconcile(reading, rules=rules, look=look)


default_reconciler.takes_look = True  # type: ignore[attr-defined]


def house_rules(rules: dict | None):
    """{"unfinished": ..., "partscore": ...} -> scoring.model.HouseRules (None: reconcile's
    default)."""
    if not rules:
        return None
    from scoring.model import HouseRules

    return HouseRules(unfinished=rules["unfinished"], partscore_bonus=int(rules["partscore"]))


def merge_rules(stored: dict | None, unfinished: str | None, partscore: int | None) -> dict | None:
    """The house rules to use: ``stored`` (or the scoring defaults) with any given overrides."""
    if unfinished is None and partscore is None:
        return stored
    from scoring.model import DEFAULT_RULES

    base = stored or {"unfinished": DEFAULT_RULES.unfinished,
                      "partscore": DEFAULT_RULES.partscore_bonus}
    merged = {"unfinished": unfinished or base["unfinished"],
              "partscore": int(partscore or base["partscore"])}
    house_rules(merged)  # raises ValueError on an unknown option
    return merged


def sheet_id(sha256: str | None, page: int) -> str:
    return f"{(sha256 or 'nohash')[:12]}-p{page + 1}"


def process_scan(scan: ScanInput, sheets_dir: Path | None, reader: Reader,
                 reconciler: Reconciler, rules: dict | None,
                 on_page: Callable[[SheetRecord], None] | None = None,
                 on_blank: Callable[[int], None] | None = None,
                 pictures: dict[str, bytes] | None = None) -> ScanRecord:
    """Read every page of ``scan`` (ocr.pipeline.read_results: the one read path), calling
    ``on_page`` as each is done (``on_blank`` with the page number of each blank page skipped);
    never raises.  Each page's picture is written to ``sheets_dir``, or, given ``pictures``, put
    there by file name instead (a cluster worker hands them back for the client to write)."""
    t0 = time.perf_counter()
    record = ScanRecord(sha256=scan.sha256, source=scan.source, status="done", name=scan.name,
                        container=scan.container, sender=scan.sender, subject=scan.subject,
                        date=scan.date, attachment=scan.attachment)
    try:
        house = house_rules(rules)
        for result in read_results(scan.path, scan.data, scan.source, rules=house, reader=reader,
                                   reconciler=reconciler):
            if result.blank_back:  # nothing to read there, nothing wrong
                record.blank_pages += 1
                if on_blank is not None:
                    on_blank(result.page)
                continue
            record.sheets.append(_sheet_record(scan, result, sheets_dir, pictures))
            if on_page is not None:
                on_page(record.sheets[-1])
    except Exception as exc:  # a bug here must not stop the batch
        record.error = f"internal error: {type(exc).__name__}: {exc}"
    failed = [s.error for s in record.sheets if s.error]
    if record.error or not record.sheets or len(failed) == len(record.sheets):
        record.status = "failed"
        record.error = record.error or "; ".join(failed) or "no pages found"
    record.seconds = time.perf_counter() - t0
    return record


def _sheet_record(scan: ScanInput, result, sheets_dir: Path | None,
                  pictures: dict[str, bytes] | None = None) -> SheetRecord:
    """The ledger's record of one page's result (ocr.pipeline.SheetResult), its picture saved
    (in ``sheets_dir``, or into ``pictures`` when given)."""
    sid = sheet_id(scan.sha256, result.page)
    if result.reading is None:
        page = keep.keep_page(scan.path, scan.data, scan.source, result.page, result.error,
                              sheets_dir, sid, pictures)  # for clicking its table's corners
        return SheetRecord(sheet_id=sid, page=result.page, error=result.error or "nothing read",
                           layout={"page": page} if page else None)
    record = SheetRecord(sheet_id=sid, page=result.page, reading=reading_to_json(result.reading))
    if result.sheet is None:  # read, but reconciliation failed: the reading is kept for `audit`
        record.error = result.error
        return record
    record.result = result.to_json()
    if result.table is not None:
        try:
            if pictures is None:
                record.image, record.layout = save_picture(result.table, sheets_dir, sid)
            else:
                record.image, jpeg, record.layout = encode_picture(result.table, sid)
                pictures[record.image] = jpeg
            full = keep.keep_cells(result.table, sheets_dir, sid, pictures)  # the review app's
            if full:
                record.layout["full"] = full
        except Exception as exc:  # the picture is a nicety; the result stands without it
            record.result.setdefault("report_notes", []).append(f"no picture: {exc}")
    return record


def save_picture(table, sheets_dir: Path, sid: str) -> tuple[str, dict]:
    """Downscaled JPEG of the straightened sheet written to ``sheets_dir`` + cell boxes on it."""
    name, jpeg, layout = encode_picture(table, sid)
    atomic_write_bytes(sheets_dir / name, jpeg)
    return name, layout


def encode_picture(table, sid: str) -> tuple[str, bytes, dict]:
    """The file name, bytes and layout (cell boxes) of the sheet's downscaled JPEG."""
    image = np.asarray(table.straight.image)
    h, w = image.shape[:2]
    scale = min(1.0, REPORT_IMAGE_SIDE / max(h, w))
    small = image if scale == 1.0 else cv2.resize(
        image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, REPORT_JPEG_QUALITY])
    if not ok:
        raise ValueError("JPEG encoding failed")
    cells = []
    for c in table.cells:
        x, y, cw, ch = c.box
        cells.append([c.row, c.key, round(x * scale, 1), round(y * scale, 1),
                      round(cw * scale, 1), round(ch * scale, 1)])
    return f"{sid}.jpg", buf.tobytes(), {"width": small.shape[1], "height": small.shape[0],
                                         "cells": cells}
