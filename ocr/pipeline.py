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
from ocr.settings import GeometrySettings, Settings
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
    """Yield one outcome per page of ``path`` (or of ``data``, shown as ``name``), each page
    loaded only when the one before it is done."""
    from ocr.load import iter_pages

    source = name or str(path)
    try:
        pages = iter_pages(path, data=data, name=source)
    except InputError as exc:
        yield PageOutcome(source=source, page=0, error=str(exc))
        return
    # Pages stream one at a time (memory: one page).  A blank page is the back of a duplex scan
    # when another page has ink: blank pages before the first inked one wait (as numbers) until
    # it comes.
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

    from ocr.clues import sheet_clues
    from ocr.far import far_retry
    from ocr.page import straighten
    from ocr.read import read_table
    from ocr.table import find_table

    outcome = PageOutcome(source=source, page=page.index)
    try:
        t0 = time.perf_counter()
        try:
            straight = straighten(page)
            t1 = time.perf_counter()
            table = find_table(straight)
        except InputError as exc:
            # no table on a photo of a sheet too far off to read: sought again enlarged (its numbers
            # then all go to review), else a closer photo is asked for instead
            t1 = time.perf_counter()
            where = page.source + (f" page {page.index + 1}" if page.index else "")
            table, far = far_retry(page, where, GeometrySettings())
            if table is None:
                raise far or exc from None
        t2 = time.perf_counter()
        outcome.reading = read_table(table)
        t3 = time.perf_counter()
        # which match it is, for a competition (QR code, names lines): kept with the reading
        outcome.reading.meta["clues"] = sheet_clues(table)
        outcome.table = table
        outcome.timings = {"straighten": t1 - t0, "table": t2 - t1, "read": t3 - t2,
                           "clues": time.perf_counter() - t3}
    except InputError as exc:
        outcome.error = str(exc)
    return outcome


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

        def reconciler(reading, rules=None, look=None):
            return reconcile(reading, rules, settings.reconcile, look=look)
        reconciler.takes_look = True  # type: ignore[attr-defined]

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
                    result.sheet = _reconciled(reconciler, result.reading, rules, outcome.table,
                                               settings)
                except Exception as exc:  # noqa: BLE001 - a bug in one page never stops the rest
                    result.error = f"reconciliation failed: {type(exc).__name__}: {exc}"
            yield result
    except Exception as exc:  # noqa: BLE001 - a bug in a stage: this page fails, the rest are kept
        yield SheetResult(source=source, page=page,
                          error=f"internal error: {type(exc).__name__}: {exc}")


def _reconciled(reconciler: Reconciler, reading: SheetReading, rules, table: Table | None,
                settings: Settings) -> ReconciledSheet:
    """``reconciler``'s result; one that takes a look (``takes_look``) is given the second
    reader's look at the page's cells: before a number becomes a flag, the cells it rests on are
    read again (ocr/look.py, scoring/reconcile/look.py)."""
    if not getattr(reconciler, "takes_look", False) or table is None:
        return reconciler(reading, rules)
    from ocr.look import second_look

    return reconciler(reading, rules, look=second_look(table, settings.reader))
