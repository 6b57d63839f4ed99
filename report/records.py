"""The records the reports render: plain data, whoever stores them (batch/ledger.py's
LedgerSheet is one).  Only the shape is fixed here, so report/ depends on no other package."""

from __future__ import annotations

from typing import Protocol


class SheetEntry(Protocol):
    """One sheet of a batch folder: its scan's metadata and its current result."""

    sheet_id: str | None  # None for a scan that failed before any page was read
    source: str
    page: int  # 0-based
    status: str  # "ok" or "failed"
    error: str | None
    sender: str | None
    subject: str | None
    date: str | None
    attachment: str | None
    processed_at: str
    image: str | None  # file name of the straightened JPEG under DIR/sheets/
    layout: dict | None  # {"width", "height", "cells": [[row, key, x, y, w, h], ...]}
    result: dict | None  # the CONTRACT.md object with explanations
    rules: dict | None  # the house rules it was reconciled under
