"""File -> pages -> straight sheet -> table -> candidate readings -> reconciled results.

This is the only place the stages are chained.  :func:`read_file` runs the image stages, one
page at a time; :func:`read_results` adds reconciliation and is the one way a file becomes
results: ``rubberscan read``, the batch's workers and the review app all call it.  A page that
fails at any stage yields a result with ``error`` set and never stops the other pages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ocr.data import InputError, Page, Table
from ocr.settings import Settings
from scoring.sheet import ReconciledSheet, SheetReading

BLANK_PAGE = "blank page (nothing printed or written on it)"


@dataclass
class PageOutcome:
    source: str
    page: int  # 0-based page number within the file
    reading: SheetReading | None = None
    table: Table | None = None  # straightened image + cell positions, for the report
    error: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    # a blank page in a file with ink on another page (the back of a duplex scan): ``error`` says
    # so, and the CLI and the batch skip it instead of counting it as a sheet that could not be read
    blank_back: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def is_blank(page: Page, ink_fraction: float = 0.0005) -> bool:
    """True when a page carries (almost) no ink: e.g. the blank back of a scanned sheet.

    Ink is a pixel more than 60 grey levels darker than the paper (the 90th percentile of grey),
    counted on a coarse look at the page through a histogram of its grey levels (a float copy of
    the page and a percentile cost 23-25 ms per sheet, this 7 ms: bench/bench_load.py)."""
    image = page.image
    step = max(1, max(image.shape[:2]) // 800)  # a coarse look is enough
    small = image[::step, ::step]
    if small.ndim == 3:
        small = cv2.cvtColor(np.ascontiguousarray(small), cv2.COLOR_BGR2GRAY)
    hist = np.bincount(small.ravel(), minlength=256)
    # the paper: the grey level of the 90th percentile
    paper = int(np.searchsorted(np.cumsum(hist), 0.9 * small.size))
    return float(hist[: max(0, paper - 60)].sum()) < ink_fraction * small.size


def read_file(path: str | Path, data: bytes | None = None,
              name: str | None = None) -> Iterator[PageOutcome]:
    """Yield one outcome per page of ``path`` (or of ``data``, shown as ``name``)."""
    import time

    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.read import read_table
    from ocr.table import find_table

    source = name or str(path)
    try:
        pages = load_pages(path, data=data, name=source)
    except InputError as exc:
        yield PageOutcome(source=source, page=0, error=str(exc))
        return
    blank = [is_blank(page) for page in pages]
    for page, empty in zip(pages, blank, strict=True):
        outcome = PageOutcome(source=source, page=page.index, blank_back=empty and not all(blank))
        try:
            if empty:
                raise InputError(f"{source}" + (f" page {page.index + 1}" if len(pages) > 1 else "")
                                 + f": {BLANK_PAGE}")
            t0 = time.perf_counter()
            straight = straighten(page)
            t1 = time.perf_counter()
            table = find_table(straight)
            t2 = time.perf_counter()
            outcome.reading = read_table(table)
            t3 = time.perf_counter()
            outcome.table = table
            outcome.timings = {"straighten": t1 - t0, "table": t2 - t1, "read": t3 - t2}
        except InputError as exc:
            outcome.error = str(exc)
        yield outcome


@dataclass
class SheetResult:
    """One page of a file, read and reconciled: what the CLI prints, the batch keeps and the
    review app shows.  ``error`` set: the page could not be read (``reading`` None) or not
    reconciled (``reading`` kept, ``sheet`` None)."""

    source: str
    page: int  # 0-based page number within the file
    reading: SheetReading | None = None
    sheet: ReconciledSheet | None = None
    table: Table | None = None  # straightened image + cell positions, for the report
    error: str | None = None
    blank_back: bool = False  # a blank page beside a sheet: skipped, not a failure (PageOutcome)
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The CONTRACT.md object with each deal's explanations, or ``{"source", "error"}``."""
        if self.error is not None or self.sheet is None:
            return {"source": self.source, "error": self.error or "nothing read"}
        obj = self.sheet.to_json(with_explanations=True)
        obj["source"] = self.source
        return obj


# reader(path, data, name) -> page outcomes (read_file's signature); reconciler(reading, rules)
Reader = Callable[..., Iterable[PageOutcome]]
Reconciler = Callable[..., ReconciledSheet]


def read_results(path: str | Path | None, data: bytes | None = None, name: str | None = None,
                 rules=None, settings: Settings | None = None, *, reader: Reader | None = None,
                 reconciler: Reconciler | None = None) -> Iterator[SheetResult]:
    """Yield one reconciled result per page of ``path`` (or of ``data``, shown as ``name``);
    never raises.  ``rules`` are the house rules (scoring.model.HouseRules, None: accept every
    house rule); ``settings`` the tuning values (ocr.settings.Settings); ``reader`` and
    ``reconciler`` replace the real stages (the batch tests' doubles)."""
    settings = settings or Settings()
    reader = reader or read_file
    if reconciler is None:
        from scoring.reconcile import reconcile

        def reconciler(reading, rules=None):
            return reconcile(reading, rules, settings.reconcile)

    source = name or str(path)
    page = 0
    try:
        for outcome in reader(path, data, name):
            page = outcome.page + 1
            result = SheetResult(source=source, page=outcome.page, reading=outcome.reading,
                                 table=outcome.table, error=outcome.error,
                                 blank_back=outcome.blank_back, timings=dict(outcome.timings))
            if result.error is None and result.reading is None:
                result.error = "nothing read"
            if result.error is None:
                try:
                    result.sheet = reconciler(result.reading, rules)
                except Exception as exc:  # noqa: BLE001 - a bug in one page never stops the rest
                    result.error = f"reconciliation failed: {type(exc).__name__}: {exc}"
            yield result
    except Exception as exc:  # noqa: BLE001 - a bug in a stage: this page fails, the rest are kept
        yield SheetResult(source=source, page=page,
                          error=f"internal error: {type(exc).__name__}: {exc}")
