"""`rubberscan labels DIR --out FILE.npz`: every number cell a person confirmed or corrected in
the review app, as training data for the cell reader (`make model LABELS=FILE.npz`).

The archive holds ``images`` (N, H, W) uint8: each cell exactly as the reader saw it (grey, cut
from the straightened scan at full resolution, rulings removed: batch/keep.py), centred on white
padding to the largest cell's size, never scaled, so the writing keeps its size; ``values`` (N,)
unicode: the digits a person decided ("" for a blank or a dash); ``sources`` (N,) unicode: where
each came from ("scan.jpg p1 deal 12 cum_ns", and who decided).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from batch.atomic import atomic_write_bytes
from batch.decided import CELL_KINDS, parse_target
from batch.ledger import LEDGER_NAME, Ledger, LedgerError
from review.images import Pictures
from scoring.formspec import NUMBER_COLUMNS


@dataclass
class Labels:
    images: list[np.ndarray] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    missing: int = 0  # decided cells with no kept picture (sheets read before pictures were kept)


def person_cells(decisions: list[dict]) -> dict[tuple[str, str], tuple[int, str]]:
    """(row, column) -> (value, who) of each number cell a person decided (the last decision in
    force on it); a row made blank gives each of its number cells 0."""
    out: dict[tuple[str, str], tuple[int, str]] = {}
    for d in decisions:
        if d["kind"] in CELL_KINDS:
            row, column = parse_target(d["target"])
            if column in NUMBER_COLUMNS and isinstance(d.get("after"), int):
                out[(row, column)] = (d["after"], d.get("who") or "")
        elif d["kind"] == "blank_row":
            row = parse_target(d["target"])[0]
            for column in NUMBER_COLUMNS:
                out[(row, column)] = (0, d.get("who") or "")
    return out


def collect(out_dir: str | Path) -> Labels:
    """The labelled cells of a batch folder, sheet by sheet in processing order."""
    out_dir = Path(out_dir)
    path = out_dir / LEDGER_NAME
    if not path.is_file():
        raise LedgerError(f"{out_dir}: no {LEDGER_NAME} here (is this a batch output folder?)")
    pictures = Pictures(out_dir, cache_size=2)
    labels = Labels()
    with Ledger(path, readonly=True) as ledger:
        decided = set(ledger.decided_sheets())
        for sheet in ledger.sheets():
            if sheet.sheet_id not in decided:
                continue
            cells = person_cells(ledger.decisions(sheet.sheet_id))
            for (row, column), (value, who) in sorted(cells.items()):
                image = pictures.reader_cell(sheet, row, column)
                if image is None:
                    labels.missing += 1
                    continue
                labels.images.append(image)
                labels.values.append("" if value == 0 else str(value))
                where = f"deal {row}" if row.isdigit() else f"{row} row"
                labels.sources.append(f"{sheet.source} p{sheet.page + 1} {where} {column} "
                                      f"(decided by {who})")
    return labels


def padded(images: list[np.ndarray]) -> np.ndarray:
    """The images centred on white, all at the largest height and width (no scaling)."""
    h = max(i.shape[0] for i in images)
    w = max(i.shape[1] for i in images)
    out = np.full((len(images), h, w), 255, np.uint8)
    for k, image in enumerate(images):
        y, x = (h - image.shape[0]) // 2, (w - image.shape[1]) // 2
        out[k, y:y + image.shape[0], x:x + image.shape[1]] = image
    return out


def write_labels(out_dir: str | Path, out_file: str | Path) -> Labels:
    """Write the labelled cells of ``out_dir`` to ``out_file`` (an .npz, written atomically);
    ValueError when there are none."""
    labels = collect(out_dir)
    if not labels.images:
        raise ValueError("no cell has been confirmed or corrected in the review app yet"
                         + (f" ({labels.missing} decided cells have no kept picture: sheets "
                            "read before pictures were kept; `batch --force` keeps them)"
                            if labels.missing else ""))
    buf = io.BytesIO()
    np.savez_compressed(buf, images=padded(labels.images),
                        values=np.array(labels.values, dtype=np.str_),
                        sources=np.array(labels.sources, dtype=np.str_))
    atomic_write_bytes(out_file, buf.getvalue())
    return labels
