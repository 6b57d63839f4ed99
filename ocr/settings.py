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

    # -- strings into values (ocr/read.py) --
    n_best: int = 5  # values kept per number cell (besides "none of these") for reconciliation
    beam: int = 12  # CTC prefix beam width: wider found nothing more on the benchmark sheets
    max_digits: int = 5  # a score cell holds 0-99999 (CONTRACT.md); a longer string is no value
    blank_prob: float = 0.995  # an inkless cell is blank this surely
    # a sheet whose number cells are more often blank than this was probably cut in the wrong place:
    # real sheets leave ~25 % blank, generated ones at most 29 %, misfound tables 50-92 %
    blank_sheet_share: float = 0.45
    suspect_blank_prob: float = 0.5  # ... and there a blank cell is only this sure
    # a sheet where this many cells' writing only the second look found (faint or fax-dotted) ...
    faint_sheet_cells: int = 3
    faint_sheet_doubt: float = 0.1  # ... and whose numbers were this hard doubts its blanks too
    # a winners line matching the one pair whose names were read less than this names the other pair
    other_pair_below: float = 0.3
    not_tens_prior: float = 0.01  # scores are multiples of 10 (soft: a misread last digit counts)
    leading_zero_prior: float = 0.05  # nobody writes "0120"
    stray_dash_prior: float = 0.3  # a flat mark beside digits read as a dash and ignored
    min_candidate: float = 0.005  # candidates less likely than this are dropped
    # "none of these": none_scale x the probability the readers left uncovered (or gave to no
    # number), at least none_floor; half the mass gave the truth the lowest NLL (RESULTS-read.md)
    none_floor: float = 0.001
    none_scale: float = 0.5

    # -- the second reader (ocr/ppocr.py) --
    use_second: bool = True  # read with it when it is installed (RUBBERSCAN_SECOND=0: never)
    # it reads the number cells the cell networks are less sure of than this (one cell costs it
    # ~10-20 ms: every cell of a sheet would be 1-2 s, over the 0.6 s a sheet may take; ~6 cells
    # of a generated sheet are below 0.95)
    second_unsure: float = 0.95
    # the two readers' string probabilities are combined as p_nets ** nets_weight x p_second **
    # second_weight, renormalised (fitted on held-out UNIPEN writers: bench/RESULTS-read.md)
    nets_weight: float = 1.0
    second_weight: float = 1.0
    # > 0: combined as a mixture instead, (1 - share) x p_nets + share x p_second -- what is used:
    # the product (or a larger share) read the sheets' MNIST hand worse (bench/RESULTS-read.md)
    second_share: float = 0.3
    second_beam: int = 8  # the second reader's own proposals per cell
    second_margin: float = 0.15  # paper around the writing it is shown, x the writing's height

    # -- a crop given on its own (``rubberscan cell``; ocr/crop.py) --
    crop_background: int = 15  # px: the paper's brightness is estimated over this window
    crop_faintest: float = 0.15  # a crop with no pixel 15 % darker than its paper is empty
    crop_writing_share: float = 0.85  # the writing is framed to fill this share of a cell's height


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
class CornersSettings:
    """A straight sheet from the deal table's four corners clicked by a person (ocr/corners.py)."""

    work_long: int = 2000  # long side of the straightened image: the geometry stage's own size
    # paper kept around the table, as shares of its width (left, right) and height (top, bottom):
    # the names and winners lines above it, the classic layout's scoring table to its right
    margin_left: float = 0.25
    margin_right: float = 0.9
    margin_top: float = 0.35
    margin_bottom: float = 0.1
    min_side: float = 40.0  # px on the page: corners closer than this enclose no table


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The one settings object handed down the pipeline."""

    geometry: GeometrySettings = field(default_factory=GeometrySettings)
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    reconcile: ReconcileSettings = field(default_factory=ReconcileSettings)
    load: LoadSettings = field(default_factory=LoadSettings)
    corners: CornersSettings = field(default_factory=CornersSettings)
