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
    """Yield one outcome per page of ``path`` (or of ``data``, shown as ``name``), each page
    loaded only when the one before it is done."""
    from ocr.load import iter_pages

    source = name or str(path)
    try:
        pages = iter_pages(path, data=data, name=source)
    except InputError as exc:
        yield PageOutcome(source=source, page=0, error=str(exc))
        return
    # Pages stream one at a time (memory: one page).  A blank page is the back of a duplex scan when
    # another page has ink: blank pages before the first inked one wait (as numbers) until it comes.
    waiting: list[tuple[int, bool]] = []  # (page number, several pages in the file) of blank pages
    inked = False
    index = 0
    while True:
        try:
            page = next(pages, None)
        except InputError as exc:  # a page further on is damaged: the pages before it stand
            yield from (_blank(source, i, many, inked) for i, many in waiting)
            yield PageOutcome(source=source, page=index, error=str(exc))
            return
        if page is None:
            break
        number, many = page.index, page.meta.get("frames", 1) > 1
        index = number + 1
        if is_blank(page):
            del page  # not held while the next page is decoded
            if inked:
                yield _blank(source, number, many, True)
            else:
                waiting.append((number, many))
            continue
        if not inked:
            inked = True
            yield from (_blank(source, i, m, True) for i, m in waiting)
            waiting = []
        yield _read_page(source, page)
        del page
    yield from (_blank(source, i, many, False) for i, many in waiting)  # nothing but blank pages


def _blank(source: str, index: int, many: bool, back: bool) -> PageOutcome:
    """A blank page: the skipped back of a sheet (``back``), or an error when no page has ink."""
    where = f"{source}" + (f" page {index + 1}" if many else "")
    return PageOutcome(source=source, page=index, blank_back=back, error=f"{where}: {BLANK_PAGE}")


def _read_page(source: str, page: Page) -> PageOutcome:
    import time

    from ocr.page import straighten
    from ocr.read import read_table
    from ocr.table import find_table

    outcome = PageOutcome(source=source, page=page.index)
    try:
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
    return outcome
