"""Every tuning value of the pipeline, in one frozen, grouped object.

Each stage takes the group it needs (``settings.geometry``, ``settings.reader``,
``settings.reconcile``, defined in scoring/reconcile/settings.py: scoring never imports ocr) as an
argument whose default is the values below; no stage reads a module constant a caller cannot
change, and benchmarks vary a value by building a new object (``dataclasses.replace``), never by
monkeypatching.  Each field carries a one-line reason; how a value was measured belongs in
bench/, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.reconcile.settings import ReconcileSettings


@dataclass(frozen=True)
class GeometrySettings:
    """Finding and straightening the page and the deal table, cutting cells (ocr/page.py,
    ocr/table)."""


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReaderSettings:
    """Reading cells into candidate values (ocr/read.py and the networks)."""


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadSettings:
    """Decoding input files into pages (ocr/load.py): limits bounding any file's memory and time."""

    max_pixels: int = 80_000_000  # one page: a 48 MP phone photo fits; ~240 MB as BGR at most
    max_file_pixels: int = 1_500_000_000  # all pages of a file: 200 PDF pages at the render cap fit
    min_side: int = 200  # pixels; a smaller image cannot hold a readable sheet
    max_pages: int = 200  # pages in one file: more than a batch should ever see in one file
    pdf_max_dpi: float = 300.0  # PDF rendering: finer adds nothing to the cells but time
    pdf_long_side: int = 3000  # PDF rendering: long side at most (a poster is not 300 dpi)


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The one settings object handed down the pipeline."""

    geometry: GeometrySettings = field(default_factory=GeometrySettings)
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    reconcile: ReconcileSettings = field(default_factory=ReconcileSettings)
    load: LoadSettings = field(default_factory=LoadSettings)
