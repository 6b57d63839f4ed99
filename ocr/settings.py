"""Every tuning value of the pipeline, in one frozen, grouped object.

Each stage takes the group it needs (``settings.geometry``, ``settings.reader``) as an argument
whose default is the values below; no stage reads a module constant a caller cannot change, and
benchmarks vary a value by building a new object (``dataclasses.replace``), never by monkeypatching.
Each field carries a one-line reason; how a value was measured belongs in bench/, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GeometrySettings:
    """Finding and straightening the page and the deal table, cutting cells (ocr/page.py, ocr/table)."""

    # --- the scan path: one homography from the paper's outline and the rulings (ocr/page.py) ---
    work_long: int = 2000  # long side of the straightened image (~6.7 px/mm on A4: what the reader was trained on)
    mid_long: int = 2500  # larger originals are first shrunk to this long side (one shrink serves all)
    analysis_long: int = 1000  # long side of the copy the ruling angles are measured on
    paper_long: int = 500  # long side of the copy the paper's outline is looked for on

    # --- the deal table on the straightened image (ocr/table) ---
    table_analysis: int = 2  # rulings and cells are found at 1/this of the straight resolution
    ruling_ink: int = 215  # rulings may be thin and faint: anything darker than the paper may be one
    ruling_breaks_mm: tuple[float, float] = (0.8, 3.5)  # ruling gaps bridged: first, then dashed (fax)
    line_cover: float = 0.4  # a fax's dashed ruling inks at least this share of its column's width ...
    line_agree: int = 4  # ... in at least this many of the six columns at the same height
    ns_gap_mm: float = 25.0  # the N/S underline ends at most this far left of the E/W one
    bend_max: float = 0.25  # rows whose cells' edges step by more than this share of a row are curved
    partial_min_rows: int = 5  # a photo's lattice with this many rows is a table, the rest outside
    lattice_vote_share: float = 0.12  # rows named by this share of agreeing deal numbers, when the
    #   table's shape is the form's (a blurred photo's print reads poorly; 1/3 otherwise)
    lattice_inset: float = 0.05  # a lattice row's cells stop this share of a row height short of its rulings
    outside_margin_px: float = 1.0  # a cell this far over the picture's edge is still in it

    # --- cells the light washed out (ocr/table/missing.py) ---
    faded_share: float = 0.35  # a cell whose rulings keep less than this share of the table's contrast ...
    faded_min_contrast: float = 40.0  # ... (on a table whose rulings have at least this much) is unreadable
    glare_level: int = 250  # a photo pixel this bright in every channel is burnt out by glare ...
    glare_cover: float = 0.05  # ... and a faded cell this much burnt out is under glare

    # --- printed text and the names/winners fields, read by Tesseract (ocr/printed.py) ---
    printed_per_line: int = 1  # deal-number crops per composite line (one: Tesseract cannot merge them)
    printed_target_h: int = 22  # printed digit height (px) Tesseract reads best at, roughly
    label_inset: float = 0.1  # a photo's printed deal numbers are read this share of a row inside their cells
    printed_sharpen: tuple[float, float] = (2.0, 1.5)  # unsharp mask (sigma px, amount) on a photo's print
    printed_ink_below: int = 140  # a pixel darker than this is ink, when a crop is trimmed to its writing
    header_sure_conf: float = 70.0  # a header word read this sure is a word, not a blur's guess
    field_h: int = 36  # names/winners crops are scaled to this height (px)
    field_gap: int = 24  # paper between them (px)
    field_min_conf: float = 10.0  # words Tesseract is less sure of are dropped from the fields
    # a field read as nothing is read again cut to the rows holding this share of its fullest
    # row's ink (fax specks and margins fall below; bench/RESULTS-geometry.md round 22)
    field_writing_row: float = 0.25

    # --- the photo path: the table's own ruling lattice (ocr/grid.py) ---
    grid_cell_min_px: int = 6  # a cell is at least this many pixels across (a row at ~2 px/mm is ~12)
    grid_cell_max_share: float = 0.02  # ... and at most this share of the analysed image
    grid_fill: tuple[float, float] = (0.8, 1.12)  # a cell's area over its four-cornered outline's
    grid_link_px: float = 4.0  # cells on either side of a ruling: their sides' midpoints this near ...
    grid_link_share: float = 0.5  # ... or this share of the smaller cell extent (about a row height)
    grid_gap_factor: float = 2.0  # a ruling is at most this many times as thick as the median one
    grid_sparse: float = 0.3  # a lattice column or row with fewer than this share of the fullest one's
    #   cells is a stray patch at the table's rim, not part of it
    grid_misfit: tuple[float, float] = (0.7, 1.35)  # a cell's width (height) over its column's (row's)
    #   median: outside, it is two cells merged or a piece of one, and is dropped
    grid_other_weight: float = 0.35  # a lattice not six columns wide weighs this share of its cells
    grid_min_cells: int = 12  # fewer linked cells than this are no table
    grid_thresholds: tuple[int, ...] = (230, 215, 200, 240)  # ink levels tried for the paper patches
    #   (thin rulings blurred by a phone reach ~215-225; dim, noisy photos need the darker levels)
    grid_enough_cells: int = 150  # a lattice this large holds most of the 186 deal cells: stop trying
    grid_parallel: float = 0.8  # cosine: neighbouring cells' shared sides are anti-parallel within ~37 deg
    grid_length_ratio: float = 1.4  # ... and about as long (a header cell two rows high is no neighbour)
    light_kernel_share: float = 1 / 150  # the light's background is taken at this share of the photo's
    #   long side (wider than any stroke; a closing keeps a hard shadow's edge sharp)

    # --- the photo path: straightening from the lattice (ocr/dewarp.py) ---
    photo_path: bool = True  # photos are straightened from their table's lattice (False: as scans)
    photo_light_ratio: float = 0.8  # a picture whose light varies more than this is a photo, not a scan
    photo_rim_saturation: float = 40.0  # ... or whose rim is this colourful (HSV saturation): a table top
    photo_analysis_long: int = 2000  # larger photos are shrunk to this long side to be analysed
    dewarp_ransac_px: float = 3.0  # a crossing further than this from the homography is an outlier
    dewarp_quadratic_rows: int = 12  # a curl's quadratic is fitted when the lattice spans this many rows
    dewarp_mesh_max: float = 0.2  # a crossing's residual beyond this share of a row height is not trusted
    dewarp_rough_px: tuple[float, float] = (14.0, 30.0)  # pass two's rough image: pixels a row height
    dewarp_tilt_px: int = 3  # rulings on the rough image may tilt this many pixels over an opening
    dewarp_ruling_rows: tuple[float, float] = (2.5, 5.0)  # a horizontal (vertical) ruling runs at least
    #   this many row heights; writing does not (digits stacked down a column touch across ~3 rows)
    photo_table_rows: int = 32  # rows of a whole deal table's lattice (N/S-E/W header row, 30 deals, Total)
    photo_rows_above: float = 9.0  # the title, names and winners lines sit within this many rows above
    photo_page_rows: tuple[float, float] = (36.0, 44.0)  # an A4 page is 28-35 x 40-50 row heights (6-7.4 mm)
    photo_row_px: float = 45.5  # straight canvas pixels a row height: ~6.7 px/mm, as the scan path's
    ink_percentile: float = 0.5  # the darkest this share (%) of a straightened photo is its ink ...
    ink_level: float = 40.0  # ... which is darkened to this grey level, as a scan's ink ...
    ink_gain: float = 3.0  # ... by at most this gain on the distance from white
    paper_noise: float = 2.0  # a straightened photo's paper is white from its median less this many spreads
    photo_grid_step: int = 8  # canvas pixels between the samples of the straightening map


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
