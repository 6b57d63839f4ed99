"""Every tuning value of the pipeline, in one frozen, grouped object.

Each stage takes the group it needs (``settings.geometry``, ``settings.reader``,
``settings.reconcile``, defined in scoring/reconcile/settings.py: scoring never imports ocr) as an
argument whose default is the values below; no stage reads a module constant a caller cannot
change, and benchmarks vary a value by building a new object (``dataclasses.replace``), never by
monkeypatching.  Each field carries a one-line reason; how a value was measured belongs in
bench/, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from scoring.reconcile.settings import ReconcileSettings


@dataclass(frozen=True)
class GeometrySettings:
    """Finding and straightening the page and the deal table, cutting cells (ocr/page.py,
    ocr/table)."""

    # --- the scan path: one homography from the paper's outline and the rulings (ocr/page.py) ---
    # long side of the straightened image (~6.7 px/mm on A4: what the reader was trained on)
    work_long: int = 2000
    # larger originals are first shrunk to this long side (one shrink serves all)
    mid_long: int = 2500
    analysis_long: int = 1000  # long side of the copy the ruling angles are measured on
    paper_long: int = 500  # long side of the copy the paper's outline is looked for on

    # --- the deal table on the straightened image (ocr/table) ---
    table_analysis: int = 2  # rulings and cells are found at 1/this of the straight resolution
    # rulings may be thin and faint: anything darker than the paper may be one
    ruling_ink: int = 215
    # ruling gaps bridged: first, then dashed (fax)
    ruling_breaks_mm: tuple[float, float] = (0.8, 3.5)
    # a fax's dashed ruling inks at least this share of its column's width ...
    line_cover: float = 0.4
    line_agree: int = 4  # ... in at least this many of the six columns at the same height
    ns_gap_mm: float = 25.0  # the N/S underline ends at most this far left of the E/W one
    # rows whose cells' edges step by more than this share of a row are curved
    bend_max: float = 0.25
    partial_min_rows: int = 5  # a photo's lattice with this many rows is a table, the rest outside
    lattice_vote_share: float = 0.12  # rows named by this share of agreeing deal numbers, when the
    #   table's shape is the form's (a blurred photo's print reads poorly; 1/3 otherwise)
    # ... or, on a lattice of the whole table (deal 1 one of its first rows), this many numbers
    lattice_few_votes: int = 2
    # rows ruled on a photo's canvas whose cells begin or end this share of a lattice column's width
    # inside it (in most rows) split the column: not the form's cells
    lattice_split_margin: float = 0.2
    #   read where one choice of deal 1's row puts them, none where another does
    # a lattice row's cells stop this share of a row height short of its rulings
    lattice_inset: float = 0.05
    # a first row of score cells alone is deal 1 (not the header's split row) when the score
    #   columns' middle rulings dip on this share of the row above's pixel rows (the Score and
    #   Cumulative titles over the split row cross them on a third at most)
    header_ruled_share: float = 0.8
    # ... a row height's share either side of where the lattice puts it: beside the lattice's row
    #   (its dip), above it (the canvas drifts past the lattice), around it (the paper's level); the
    #   row's top and bottom this far inside its rulings
    header_ruling_reach: tuple[float, float, float, float] = (0.12, 0.3, 0.5, 0.15)
    header_ruling_min: float = 8.0  # a ruling dipping less than this many grey levels tells nothing
    header_ruling_faint: float = 0.25  # ... or than this share of the ruling beside the row's cells
    outside_margin_px: float = 1.0  # a cell this far over the picture's edge is still in it
    cell_min_px: int = 4  # a cell the picture's edge leaves fewer pixels either way is not cut

    # --- cells the light washed out (ocr/table/missing.py) ---
    # a cell whose rulings keep less than this share of the table's contrast ...
    faded_share: float = 0.35
    # ... (on a table whose rulings have at least this much) is unreadable
    faded_min_contrast: float = 40.0
    glare_level: int = 250  # a photo pixel this bright in every channel is burnt out by glare ...
    glare_cover: float = 0.05  # ... and a faded cell this much burnt out is under glare
    # ... unless its writing keeps this many grey levels (the paper burns out long before the ink:
    #   writing the glare dimmed all over the cell, the spot's rim, is read) ...
    glare_ink_contrast: float = 40.0
    # ... but fewer than this (writing as dark as outside the glare, beside burnt paper: a spot's
    #   hard edge cuts it, and the spot may hide the rest)
    glare_ink_most: float = 110.0
    # a faded cell whose writing is this many grey levels darker than its paper on the photo is read
    #   (a pen's stroke outlasts a 1-px ruling; a washed-out cell keeps < 30: samples/photo.py),
    #   counted as if the paper were white (in dim light the writing's contrast shrinks with it)
    faded_ink_contrast: float = 40.0

    # --- printed text and the names/winners fields, read by Tesseract (ocr/printed.py) ---
    # deal-number crops per composite line (one: Tesseract cannot merge them)
    printed_per_line: int = 1
    printed_target_h: int = 22  # printed digit height (px) Tesseract reads best at, roughly
    # a photo's printed deal numbers are read this share of a row inside their cells
    label_inset: float = 0.1
    # unsharp mask (sigma px, amount) on a photo's print
    printed_sharpen: tuple[float, float] = (2.0, 1.5)
    # a pixel darker than this is ink, when a crop is trimmed to its writing
    printed_ink_below: int = 140
    header_sure_conf: float = 70.0  # a header word read this sure is a word, not a blur's guess
    field_h: int = 36  # names/winners crops are scaled to this height (px)
    field_gap: int = 24  # paper between them (px)
    field_min_conf: float = 10.0  # words Tesseract is less sure of are dropped from the fields
    # a field read as nothing is read again cut to the rows holding this share of its fullest
    # row's ink (fax specks and margins fall below; bench/RESULTS-geometry.md round 22)
    field_writing_row: float = 0.25

    # --- the photo path: the table's own ruling lattice (ocr/grid.py) ---
    # a cell is at least this many pixels across (a row at ~2 px/mm is ~12)
    grid_cell_min_px: int = 6
    grid_cell_max_share: float = 0.02  # ... and at most this share of the analysed image
    grid_fill: tuple[float, float] = (0.8, 1.12)  # a cell's area over its four-cornered outline's
    # cells on either side of a ruling: their sides' midpoints this near ...
    grid_link_px: float = 4.0
    # ... or this share of the smaller cell extent (about a row height)
    grid_link_share: float = 0.5
    # ... or, on a photo's threshold where the typical ruling (the median distance from a cell's
    # side to the nearest facing side) is thicker than grid_link_thick of the median cell's extent,
    # this many times that ruling, up to grid_link_most of the cell's extent: a far, blurred
    # sheet's rulings come out nearly as thick as its small cells are high (a near sheet's link as
    # before)
    grid_link_thick: float = 0.45
    grid_link_rulings: float = 1.5
    grid_link_most: float = 1.0
    grid_gap_factor: float = 2.0  # a ruling is at most this many times as thick as the median one
    # a lattice column or row with fewer than this share of the fullest one's
    grid_sparse: float = 0.3
    #   cells is a stray patch at the table's rim, not part of it
    # a cell's width (height) over its column's (row's)
    grid_misfit: tuple[float, float] = (0.7, 1.35)
    #   median: outside, it is two cells merged or a piece of one, and is dropped
    grid_other_weight: float = 0.35  # a lattice not six columns wide weighs this share of its cells
    grid_min_cells: int = 12  # fewer linked cells than this are no table
    # a lattice with three or more columns narrower than this share of its second widest is not
    grid_narrow_share: float = 0.5
    #   the deal table (it has two, deal number and dealer; score columns are ~2.5x as wide) but the
    #   scoring table's undertricks block (four value columns beside its wide label column) ...
    # ... nor is one none of whose columns is this many row heights wide (no score column: the
    grid_score_min: float = 2.0
    #   form's are 3.1-5.7; the scoring table's value columns alone are ~1.5)
    # ... nor one whose widest column is more than this many times its next widest (the deal
    grid_widest_ratio: float = 2.5
    #   table's columns side by side differ by at most 1.6x; the scoring table's label column is 4x)
    # a lattice more than this many cells across both ways is ruled paper (graph paper, a squared
    grid_max_across: int = 10
    #   notebook) under or around the sheet, never the six-column deal table
    # ink levels tried for the paper patches
    grid_thresholds: tuple[int, ...] = (230, 215, 200, 240)
    #   (thin rulings blurred by a phone reach ~215-225; dim, noisy photos need the darker levels)
    # a lattice this large holds most of the 186 deal cells: stop trying
    grid_enough_cells: int = 150
    # cosine: neighbouring cells' shared sides are anti-parallel within ~37 deg
    grid_parallel: float = 0.8
    # ... and about as long (a header cell two rows high is no neighbour)
    grid_length_ratio: float = 1.4
    # the light's background is taken at this share of the photo's
    light_kernel_share: float = 1 / 150
    #   long side (wider than any stroke; a closing keeps a hard shadow's edge sharp)

    # --- the photo path: straightening from the lattice (ocr/dewarp.py) ---
    photo_path: bool = True  # photos are straightened from their table's lattice (False: as scans)
    # a picture whose light varies more than this is a photo, not a scan
    photo_light_ratio: float = 0.8
    # ... or whose rim is this colourful (HSV saturation): a table top
    photo_rim_saturation: float = 40.0
    photo_analysis_long: int = 2000  # larger photos are shrunk to this long side to be analysed
    # a lattice of fewer cells than grid_enough_cells is sought again on the photo enlarged this
    photo_upsample: int = 2
    #   many times (cubic): a ~1 px faint ruling at ~2.4 px/mm then closes its cells
    # ... when the enlarged copy's long side is at most this: phone photos up to ~2.5 MP (1900 px
    photo_upsample_long: int = 3800
    #   long); a scan (2300+ px, or shrunk to photo_analysis_long) has pixels enough, keeps its time
    # a lattice still short of grid_enough_cells is sought on the page straightened by the sheet's
    #   outline when that shows whole (a far sheet: dewarp.paper_grid) ...
    photo_paper_seed: bool = True
    #   ... and covers at most this share of the photo: a near sheet's rulings are not what pass one
    #   lost, and the outline's lattice can put its rows one off there
    photo_paper_seed_share: float = 0.4
    # a photo on which no table is found, its sheet's rows (from its paper's outline, else its
    #   bright patch, else its rulings' lattice of at least far_sheet_cells cells) under this many
    #   photo pixels high, is asked for again from closer rather than called tableless: the
    #   reader would put rows that small in review anyway (ReaderSettings.small_writing_px;
    #   ocr/far.py); 0 turns it off
    far_sheet_row_px: float = 20.0
    far_sheet_cells: int = 12
    # ... but first, its table sought again on the photo enlarged by each of these factors in turn
    #   (cubic; ocr/far.py far_table): a far sheet's lattice and rows, at ~15 px a row, are lost or
    #   left unnamed by the noise of one resampling and found by another's; () turns it off
    far_retry_scales: tuple[float, ...] = (1.5, 2.0, 2.5)
    far_retry_long: int = 4200  # ... each at most this long (pixels): its memory bounded
    # ... as is a sheet's whose rows are a little higher, under this many pixels (its own error
    #   stands when none is found): a low-quality JPEG's ~22 px rows can lose their lattice too
    far_retry_row_px: float = 24.0
    #   ... the paper, where its outline is not found, as the photo's largest bright patch of little
    #   colour (ocr/far.py paper_patch): pixels at least as bright as this percentile of the photo
    #   (a far sheet covers ~10-30 % of it), under this saturation (0-255), sought on the photo
    #   shrunk to this long side; a patch under this share of the photo or of all such pixels is
    #   not trusted to be the sheet
    far_patch_bright: float = 70.0
    far_patch_saturation: int = 60
    far_patch_long: int = 800
    far_patch_area: float = 0.01
    far_patch_share: float = 0.6
    # a photo lattice's last column narrower than this share of its score columns is a part of one
    #   (the cumulative E/W is ~1.1 times a score column's width; a part cut at its writing, ~0.45)
    photo_part_column: float = 0.6
    # a five-column photo lattice whose first column is this share of its four score columns' width
    #   holds the deal-number and dealer columns as one (together ~0.6-0.7 of a score column)
    photo_labels_merged: tuple[float, float] = (0.45, 0.85)
    # ... split at this share of its width (the deal-number column is ~0.36-0.45 of the two)
    photo_deal_column_share: float = 0.4
    # a lattice's second of five columns this share of the last three's median width is a score
    photo_score_like: float = 0.8
    #   column (a dealer column is ~0.6 of one): the five are the dealer and four score columns ...
    # ... when a ruling runs on the left as deep as this share of the first column's own ...
    photo_ruling_left: float = 0.5
    # ... where the deal-number column would end: the form's is this share of the dealer column's
    photo_deal_of_dealer: float = 0.69
    dewarp_ransac_px: float = 3.0  # a crossing further than this from the homography is an outlier
    # a curl's quadratic is fitted when the lattice spans this many rows
    dewarp_quadratic_rows: int = 12
    # a crossing's residual beyond this share of a row height is not trusted
    dewarp_mesh_max: float = 0.2
    # pass two's rough image: pixels a row height
    dewarp_rough_px: tuple[float, float] = (14.0, 30.0)
    # pass two's mask thickens the rulings (dilated, closed): the four cells' corners around a
    #   crossing lie this much further apart than on the photo, and still mark one crossing ...
    dewarp_node_slack_px: float = 4.0
    dewarp_slack_rows: int = 24  # ... on a lattice of at least this many rows
    # pass two's mask, when its cells at the usual reach make less than pass one's lattice, is
    #   linked again across thick rulings (grid_link_thick): a far sheet's rough image enlarged to
    #   dewarp_rough_px a row draws its blurred rulings nearly as thick as its cells
    dewarp_thick_retry: bool = True
    # pass two runs again this many times at most on its own lattice while that holds part of the
    #   table (fewer than six columns or thirty rows) and grows: the model of a few columns
    #   straightens the rest of a far sheet too badly for its rulings to link
    dewarp_regrow: int = 3
    dewarp_regrow_gain: float = 1.25  # ... by at least this factor in cells
    # a lattice grown either way is kept only with this many rows: fewer, extrapolated to thirty
    #   on a far sheet, drift a row off (as dewarp_quadratic_rows: enough to pin a curl)
    dewarp_grown_rows: int = 12
    dewarp_tilt_px: int = 3  # rulings on the rough image may tilt this many pixels over an opening
    # a horizontal (vertical) ruling runs at least
    dewarp_ruling_rows: tuple[float, float] = (2.5, 5.0)
    #   this many row heights; writing does not (digits stacked down a column touch across ~3 rows)
    # a lattice of fewer than dewarp_stack_cols columns (too few to place the table by) is sought
    #   again with pass two's vertical strokes stripped of handwriting stacked down a column (a
    #   cumulative score repeated over many deals): bands wider than dewarp_stack_width row
    #   heights, strokes shorter than dewarp_stack_rows
    dewarp_stack_retry: bool = True
    dewarp_stack_cols: int = 4
    dewarp_stack_width: float = 0.4
    dewarp_stack_rows: float = 12.0
    # ... and, when the sheet's outline shows, by dewarp.paper_grid at these ink levels: rulings
    #   washed out by the light, ~15-25 levels under the flattened paper's 255, and blurred, break
    #   at every grid_thresholds level; () turns it off
    photo_faint_levels: tuple[int, ...] = (244, 248)
    # rows of a whole deal table's lattice (N/S-E/W header row, 30 deals, Total)
    photo_table_rows: int = 32
    # the title, names and winners lines sit within this many rows above
    photo_rows_above: float = 9.0
    # an A4 page is 28-35 x 40-50 row heights (6-7.4 mm)
    photo_page_rows: tuple[float, float] = (36.0, 44.0)
    # straight canvas pixels a row height: ~6.7 px/mm, as the scan path's
    photo_row_px: float = 45.5
    ink_percentile: float = 0.5  # the darkest this share (%) of a straightened photo is its ink ...
    ink_level: float = 40.0  # ... which is darkened to this grey level, as a scan's ink ...
    ink_gain: float = 3.0  # ... by at most this gain on the distance from white
    # a straightened photo's paper is white from its median less this many spreads
    paper_noise: float = 2.0
    # a photo straightened as a scan (ocr/table): its cells levelled as a photo canvas is when its
    # paper's spread (its MAD) is at least this many grey levels: dim light's mottle
    scan_photo_mottle: float = 3.0
    photo_grid_step: int = 8  # canvas pixels between the samples of the straightening map

    # --- a tie's deals written below deal 30 (ocr/table/extra.py) ---
    extra_max_rows: int = 12  # rows looked at below the table (a tie goes on two deals at a time)
    extra_inset: float = 0.15  # each cell's crop less this share of its size on every side
    extra_ink_share: float = 0.015  # a cell holds writing when this share of it is ink ...
    extra_ink_height: float = 0.3  # ... spread over this share of its height (not a stray line)


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
    # ~25 ms: every cell of a sheet would be 2-3 s, over the 0.6 s a sheet may take; ~4 cells of a
    # generated sheet are below 0.9; fit_reader: 0.9 read the fitting cells as well as 0.95)
    second_unsure: float = 0.9
    # ... and where the photo networks read a photographed table (photo_networks), less sure than
    # this: they are surer of photographed cells, and asking below 0.9 read no more numbers right on
    # the looked-at photos (bench/bench_second_ask.py; bench/RESULTS-geometry.md, photofast2)
    second_unsure_photo: float = 0.5
    # the two readers' string probabilities are combined as p_nets ** nets_weight x p_second **
    # second_weight, renormalised (fitted on held-out UNIPEN writers: bench/RESULTS-read.md)
    nets_weight: float = 1.0
    second_weight: float = 1.0
    # > 0: combined as a mixture instead, (1 - share) x p_nets + share x p_second -- what is used:
    # the product (or a larger share) read the sheets' MNIST hand worse (bench/RESULTS-read.md)
    second_share: float = 0.3
    # ... except where the networks' best is below second_lost (lost on a hand unlike their
    # training's): there the second reader's share is second_share_lost (fitted on UNIPEN part 1 and
    # generated sheets by bench/fit_reader.py: there the MNIST hand lost nothing by it)
    second_lost: float = 0.3
    second_share_lost: float = 0.7
    # ... and at least second_share_sure where the second reader's best string is surer than the
    # networks' best and at least second_sure sure where the two read another number of digits,
    # second_sure_same where as many (>1: never).  Fitted on UNIPEN part 1 and 40 generated sheets
    # by bench/fit_reader.py: at 0.95 (either) the sheets' MNIST hand lost by it, at 0.98 nothing;
    # a share of 0.9 made three of the benchmark sheets' misreads sure (>= 0.95), 0.7 none
    # (bench/RESULTS-read.md, round 39)
    second_sure: float = 0.98
    second_sure_same: float = 0.98
    second_share_sure: float = 0.7
    # the mixture's "none of these" (the mass both readers left off their strings) times this; 0.5
    # read real hands ~0.3-0.9 points better but made a scribbled-over cell a likely 0 instead of
    # "cannot read" (tests/review/test_browser.py's blotted sample): 1
    second_none: float = 1.0
    # calibration: the strings' probabilities (and "none of these") raised to this power and
    # renormalised, where the cell networks read alone / where both readers did; fitted by
    # bench/fit_reader.py: any power below 1 lowered how many readings are >= 0.95 without making
    # them more often right (their few errors are cells both readers misread alike), so 1
    nets_power: float = 1.0
    combined_power: float = 1.0
    second_beam: int = 8  # the second reader's own proposals per cell
    second_margin: float = 0.15  # paper around the writing it is shown, x the writing's height
    # a crop is padded (mid-grey, as PaddleOCR pads) to at least this many columns at 48 rows (the
    # model's own input width is 320); ORAND's first 540 (tight crops): 96 px 81.9 %, 160 83.0 %,
    # 240 85.0 %, 320 85.2 %, 480 85.6 % exact -- cost grows with the width (one crop: ~40 ms of
    # CPU at 320, 27 at 240, 22 at 160)
    second_min_width: int = 240
    # ... on a photographed table the photo networks read (photo_networks), where the second reader
    # is asked less (second_unsure_photo)
    second_min_width_photo: int = 240
    # a crop wider than this many times its height (a smear of ink a few pixels high across the
    # cell; ORAND's cheque amounts are at most 6.6) is padded with paper above and below to that
    # shape: the network's cost and memory grow with the width (a 2,093-column crop held ~450 MB)
    second_max_aspect: float = 12.0
    # the same for a names or winners line (ocr.ppocr.read_line): 25 x 48 rows = 1,200 columns, room
    # for ~50 handwritten characters; a photo's winners field whose only long ink was a ruling's
    # leftover made a 48 x 3,626 crop that raised a read's peak memory by ~200 MB
    second_line_max_aspect: float = 25.0
    # crops run through the network this many at a time: a batch of 8 at 320 columns held ~100 MB
    # more memory than one of 2, for no less CPU per crop
    second_batch: int = 2
    # marks it reads that are no digit count as "nothing here": separators, ticks and dashes (a
    # dash alone is worth 0, as a blank cell is; ORAND's first 540: 83.3 -> 83.5 % exact)
    second_ignored: str = ".,'`·:;/_-—–=~"
    # marks it reads that count as the digit 1 (taking precedence over second_ignored), e.g. "/": a
    # 1 written as one slanted stroke, which it reads so (the sheets' MNIST hand "1210" read
    # "12/0"); off -- "/" gained on the fitting cells and held-out writers but lost a written
    # number on the benchmark sheets (bench/RESULTS-read.md)
    second_as_one: str = ""
    # letters it reads that stand for a digit in a number cell, as pairs "letter digit": their
    # probability goes to that digit instead of being lost.  A handwritten 5 read as "S" is its
    # commonest non-digit reading of held-out UNIPEN writers' cells; OCR's other look-alikes (O0
    # B8 G6 Z2 g9 ...) read the fitting cells no better and blurred 3-D photos worse
    # (bench/RESULTS-read.md, round 39)
    second_as_digit: str = "S5 s5"

    # -- cell preparation (ocr/prep.py); the networks were trained on cells cut with these --
    writing_ink: float = 0.35  # ink (0 paper .. 1 the cell's darkest) above this is writing ...
    mark_tall: float = 0.3  # ... a mark of it counts when this share of the cell's height tall
    mark_area: float = 0.008  # ... or holding this many pixels x the height squared (>= 4)
    # a cell is normalised by its writing's darkest ink, not a speck's, where that is under this
    # share of the cell's darkest (by a black speck, grey writing's thin 1 fell apart: 1370 as 370)
    speck_darker: float = 0.7
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
    # a photographed cell (a photo straightened from its lattice) keeps leftovers of its rulings
    # that the networks read as 1s or frame the writing with: dark runs at least this tall (x the
    # cell) within this share of its width from either side, and runs at least photo_ruling_long x
    # its height (or a third of its width) long in this share of its rows at top or bottom, are
    # made paper before the cut (ocr/prep.py's clear_rulings; bench/RESULTS-geometry.md round 29)
    photo_ruling_tall: float = 0.55
    photo_ruling_edge: float = 0.15
    photo_ruling_long: float = 1.0
    photo_ruling_band: float = 0.3
    # a photographed number cell's ink is first scaled so that its 99.9th percentile is full ink,
    # at most this many times (1: off): pale pencil on a far photo was cut in part or read blank
    # (looked-at 3-D 19000-19039: written cells read right 1888 -> 1913, blank cells the same) ...
    photo_stretch_max: float = 3.0
    # ... unless that percentile is under this many grey levels (an empty cell's noise stays)
    photo_stretch_min: float = 25.0

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
    # a photographed table's cells (straightened from its lattice) are read by the photo networks
    # (ocr/models/photonet*.npz: the cell networks fine-tuned on photographed cells) when they are
    # installed; scans keep the scan networks (bench/RESULTS-geometry.md, photonet)
    photo_networks: bool = True
    # one-digit variants of a cell's best number at least 10 ** near_floor as likely are kept
    # (CellReading.near): 243 of 261 unlisted one-digit misreads had the truth >= 1e-5
    near_floor: float = -8.0
    # a photographed table's deal row whose number cells are fewer photo pixels high than this (the
    # median short side of their outlines on the photo) has writing too small to read surely: its
    # numbers are read but all go to review, and the sheet asks for a closer photo (ocr/legible.py;
    # bench/RESULTS-geometry.md, photosmall); 0 turns it off
    small_writing_px: float = 20.0
    # ... and every row where their median is under blurred_writing_px and the reader could not read
    # (best value under even) this share of the table's written numbers: small and blurred too
    blurred_writing_px: float = 26.0
    blurred_unread_share: float = 0.5
    # ... and every row, however high, where the reader could not read this share of them: writing
    # too faint or blurred to read (pencil in a dim or shaken photo; bench/RESULTS-geometry.md,
    # photofaint); 1.01 turns it off
    faint_unread_share: float = 0.5
    # ... or where at least this share of its number cells read blank or 0 (a filled-in sheet
    #   has about a third of them so: the score of the side that did not score); >1 turns it off
    faint_blank_share: float = 0.8

    # -- a crop given on its own (``rubberscan cell``; ocr/crop.py) --
    crop_background: int = 15  # px: the paper's brightness is estimated over this window
    crop_faintest: float = 0.15  # a crop with no pixel 15 % darker than its paper is empty
    crop_writing_share: float = 0.85  # the writing is framed to fill this share of a cell's height

    def for_photo_networks(self) -> ReaderSettings:
        """These settings as the photo networks read with them: the second reader asked below
        ``second_unsure_photo``, its crops padded to ``second_min_width_photo``."""
        return replace(self, second_unsure=self.second_unsure_photo,
                       second_min_width=self.second_min_width_photo)


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadSettings:
    """Decoding input files into pages (ocr/load.py): limits bounding any file's memory and time."""

    max_pixels: int = 80_000_000  # one page: a 48 MP phone photo fits; ~240 MB as BGR at most
    max_file_pixels: int = 1_500_000_000  # all pages of a file: 200 PDF pages at the render cap fit
    # a page decoded through Pillow (TIFF, BMP, WebP, ...) larger than this is shrunk by a whole
    # factor strip by strip as it is converted: the reading works at ~2,000 px a side, and a
    # full-size colour copy of an 80 MP page beside Pillow's held ~0.7 GB
    max_decoded_pixels: int = 24_000_000
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
