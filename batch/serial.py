"""SheetReading <-> JSON, so the ledger can re-reconcile a sheet without its image."""

from __future__ import annotations

import json

from scoring.sheet import CellReading, RowReading, SheetReading


def reading_to_json(reading: SheetReading) -> dict:
    """Every cell's candidates, the names and hints: all that reconciliation needs."""
    return {
        "source": reading.source,
        "form": reading.form,
        "names": dict(reading.names),
        "winners_text": reading.winners_text,
        "winners_hint": reading.winners_hint,
        "rows": [_row_to_json(r) for r in reading.rows],
        "total": _row_to_json(reading.total) if reading.total is not None else None,
        "meta": json.loads(json.dumps(reading.meta, default=str)),
    }


def reading_from_json(obj: dict) -> SheetReading:
    """Inverse of :func:`reading_to_json`; raises ValueError on a malformed object."""
    try:
        return SheetReading(
            source=obj["source"],
            rows=[_row_from_json(r) for r in obj["rows"]],
            total=_row_from_json(obj["total"]) if obj.get("total") else None,
            names=dict(obj.get("names") or {"ns": None, "ew": None}),
            winners_text=obj.get("winners_text"),
            winners_hint=obj.get("winners_hint"),
            form=obj.get("form", "summary"),
            meta=dict(obj.get("meta") or {}),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"stored reading is malformed: {exc!r}") from None


def _row_to_json(row: RowReading) -> dict:
    return {"deal": row.deal, "cells": {k: _cell_to_json(c) for k, c in row.cells.items()}}


def _row_from_json(obj: dict) -> RowReading:
    return RowReading(deal=int(obj["deal"]),
                      cells={k: _cell_from_json(c) for k, c in obj["cells"].items()})


def _cell_to_json(cell: CellReading) -> dict:
    out: dict = {"candidates": [[_plain(v), float(p)] for v, p in cell.candidates]}
    if cell.blank:
        out["blank"] = True
    if cell.typed:
        out["typed"] = True
    if cell.quad is not None:
        out["quad"] = [[float(x), float(y)] for x, y in cell.quad]
    if cell.near is not None:
        out["near"] = {str(int(v)): float(r) for v, r in cell.near.items()}
    return out


def _cell_from_json(obj: dict) -> CellReading:
    return CellReading(
        candidates=[(v, float(p)) for v, p in obj["candidates"]],
        blank=bool(obj.get("blank", False)),
        typed=bool(obj.get("typed", False)),
        quad=obj.get("quad"),
        near=({int(v): float(r) for v, r in obj["near"].items()}
              if obj.get("near") is not None else None),
    )


def _plain(value: object) -> object:
    """numpy scalars and the like -> JSON-native values."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "item"):
        return value.item()
    return str(value)
