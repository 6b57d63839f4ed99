"""File -> pages -> straight sheet -> table -> candidate readings, one page at a time.

This is the only place the image stages are chained; the CLI and the batch runner call
:func:`read_file` and hand each reading to ``scoring.reconcile``.  A page that fails
at any stage yields an outcome with ``error`` set and never stops the other pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ocr.data import InputError, Page, Table
from scoring.sheet import SheetReading

BLANK_PAGE = "blank page (nothing printed or written on it)"


@dataclass
class PageOutcome:
    source: str
    page: int  # 0-based page number within the file
    reading: SheetReading | None = None
    table: Table | None = None  # straightened image + cell positions, for the report
    error: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    # a blank page in a file with ink on another page (the back of a duplex scan): ``error`` says so,
    # and the CLI and the batch skip it instead of counting it as a sheet that could not be read
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
    paper = int(np.searchsorted(np.cumsum(hist), 0.9 * small.size))  # grey level of the 90th percentile
    return float(hist[: max(0, paper - 60)].sum()) < ink_fraction * small.size


def read_file(path: str | Path, data: bytes | None = None, name: str | None = None) -> Iterator[PageOutcome]:
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
