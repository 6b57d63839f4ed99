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
    # a crop is padded (mid-grey, as PaddleOCR pads) to at least this many columns at 48 rows: the
    # model's own input width; ORAND's first 540 (tight crops): 96 px 81.9 %, 160 83.0 %, 240
    # 85.0 %, 320 85.2 %, 480 85.6 % exact -- cost grows with the width (~35 ms at 320, 18 at 160)
    second_min_width: int = 320
    # marks it reads that are no digit count as "nothing here": separators, ticks and dashes (a
    # dash alone is worth 0, as a blank cell is; ORAND's first 540: 83.3 -> 83.5 % exact)
    second_ignored: str = ".,'`·:;/_-—–=~"

    # -- cell preparation (ocr/prep.py); the networks were trained on cells cut with these --
    writing_ink: float = 0.35  # ink (0 paper .. 1 the cell's darkest) above this is writing ...
    mark_tall: float = 0.3  # ... a mark of it counts when this share of the cell's height tall
    mark_area: float = 0.008  # ... or holding this many pixels x the height squared (>= 4)
    # the second look at a cell the first finds empty: writing at least this dark at the cell's
    # 99.5th percentile of ink (a robust "darkest" that one black speck does not set) ...
    faint_top: float = 0.1
    faint_close: float = 0.08  # ... its dots closed up by a dilation this share of its height
    faint_tall: float = 0.3  # ... into marks at least this share of the cell's height tall ...
    # ... holding this many ink pixels x the height squared: a chain of fax specks in an empty
    # cell holds 0.003-0.009, the sparsest dotted writing on 879 benchmark sheets 0.006-0.011
    faint_ink: float = 0.01
    # a digit fainter than its neighbours (ink above this, below writing_ink) widens the cut when
    # as tall as writing: a pale 5 beside a dark 0 was cut off and "50" read 0 (round 19)
    faint_mark_ink: float = 0.2
    cut_margin: float = 0.12  # paper kept each side of the writing, x the cell's height
    # faint ink in that margin is cleared unless it makes a stroke this tall (x the writing's
    # height) and at most this wide: a light 1 stays, a photo's shading goes ("600" read "6600")
    margin_stroke_tall: float = 0.4
    margin_stroke_wide: float = 0.35

    # -- the cell networks and the digit network (ocr/cellnet.py, ocr/digitnet.py, ocr/ensemble.py)
    # a network runs only as wide as the writing plus this many empty columns (the frames beyond
    # would read "nothing" anyway), in steps of run_step (32: the same readings, ~10 % slower)
    run_margin: int = 24
    run_step: int = 8
    # the ensemble's other networks read only the cells the first is less sure of than this (a
    # cascade: ~0.09 s a sheet saved; 879 sheets: results within one sheet of reading every cell)
    ensemble_unsure: float = 0.995
    # the digit network is asked about the number cells the first network is less sure of than
    # this (0.999 halved the wrong readings at >= 0.95 against 0.98, for ~0.03 s a sheet)
    digits_unsure: float = 0.999
    # this share of each string length's mass goes by the digit network's own view (a mixture: two
    # networks misreading a digit alike must not make each other surer; 0.6 best of 0.4-0.7)
    digit_share: float = 0.6
    digit_top_align: int = 3  # the first network's top strings whose digits the digit network reads
    # ... and a digit it finds this likely at a place of the best string proposes another string
    digit_variant_at: float = 0.05
    # one-digit variants of a cell's best number at least 10 ** near_floor as likely are kept
    # (CellReading.near): 243 of 261 unlisted one-digit misreads had the truth >= 1e-5
    near_floor: float = -8.0

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
class Settings:
    """The one settings object handed down the pipeline."""

    geometry: GeometrySettings = field(default_factory=GeometrySettings)
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    reconcile: ReconcileSettings = field(default_factory=ReconcileSettings)
    load: LoadSettings = field(default_factory=LoadSettings)
