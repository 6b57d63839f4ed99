"""The rubber-bridge summary score sheet, specified once: its deals, columns, seats, text fields and
printed header words, and the files a scan of it may come in.

Every part of the tool takes these from here (the form drawn by ocr/form.py, the cells the table
finder cuts, reconciliation, the CLI's and the batch's file lists).  Plain data, no imports:
scoring, ocr, batch and report may all use it.
"""

from __future__ import annotations

# Deals in a match, and the deal rows printed on the sheet (after a tie play goes on two at a time).
DEALS = 30

# The two partnerships, as keys and as a club player writes them.
SIDES = ("ns", "ew")
SIDE_NAMES = {"ns": "N/S", "ew": "E/W"}

# The seats, clockwise: the dealing order (the dealer rotates N, E, S, W).
SEATS = ("N", "E", "S", "W")

# The number cells of a deal row: each side's score on the deal, then the running totals.
NUMBER_COLUMNS = ("ns", "ew", "cum_ns", "cum_ew")
# Every cell of a deal row, in the printed order.
DEAL_COLUMNS = ("dealer",) + NUMBER_COLUMNS
# How the columns are called in messages to the user.
COLUMN_NAMES = {"dealer": "dealer", "ns": "score N/S", "ew": "score E/W",
                "cum_ns": "cumulative N/S", "cum_ew": "cumulative E/W"}
# The printed columns of the deal table: the deal number, then a deal row's cells.
TABLE_COLUMNS = ("deal",) + DEAL_COLUMNS

# Free-text fields at the top of the sheet: each pair's names, and the winners.
TEXT_FIELDS = ("names_ns", "names_ew", "winners")

# Printed header words of the deal table (lower case), by the column they name ...
HEADER_WORDS = {"dealer": "dealer", "score": "score", "cumulative": "cumul"}
# ... and the stems of which two, read above a ruled table, confirm it is this form.
HEADER_STEMS = ("deal", "score", "cumul", "ns", "ew")

# Image files a scan may come in (what ocr/load.py decodes, HEIC through pillow-heif), and scans:
# those or a PDF.  A folder is searched for these suffixes (case-insensitive), and its other files
# by their content.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".jpe", ".jfif", ".tif", ".tiff", ".bmp",
                            ".webp", ".gif", ".pbm", ".pgm", ".ppm", ".pnm", ".heic", ".heif"})
SCAN_SUFFIXES = IMAGE_SUFFIXES | {".pdf"}
