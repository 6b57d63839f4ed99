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
class Settings:
    """The one settings object handed down the pipeline."""

    geometry: GeometrySettings = field(default_factory=GeometrySettings)
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    reconcile: ReconcileSettings = field(default_factory=ReconcileSettings)
