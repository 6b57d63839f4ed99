"""The form specification: one place for the deals, columns, seats, fields and file types."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from scoring import formspec

# Pillow's writer for each suffix (HEIC and HEIF through pillow-heif's plug-in)
WRITERS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".jpe": "JPEG", ".jfif": "JPEG",
           ".heic": "HEIF", ".heif": "HEIF", ".tif": "TIFF",
           ".tiff": "TIFF", ".bmp": "BMP", ".webp": "WEBP", ".gif": "GIF", ".pbm": "PPM",
           ".pgm": "PPM", ".ppm": "PPM", ".pnm": "PPM"}


def test_every_listed_image_suffix_is_a_file_the_loader_reads():
    """A folder is searched for SCAN_SUFFIXES: each must be something ocr/load.py decodes (a
    listed suffix it refuses would turn a folder's stray file into an error line)."""
    import pillow_heif

    from ocr.load import load_pages

    pillow_heif.register_heif_opener()
    assert set(WRITERS) == set(formspec.IMAGE_SUFFIXES)
    assert formspec.SCAN_SUFFIXES == formspec.IMAGE_SUFFIXES | {".pdf"}
    grey = (np.arange(400 * 300) % 251).astype(np.uint8).reshape(300, 400)
    for suffix, kind in WRITERS.items():
        image = Image.fromarray(grey).convert("1" if suffix == ".pbm" else "L")
        buf = io.BytesIO()
        image.save(buf, kind)
        pages = load_pages(f"x{suffix}", data=buf.getvalue(), name=f"x{suffix}")
        assert pages[0].image.shape[:2] == (300, 400), suffix


def test_names_agree():
    assert formspec.DEAL_COLUMNS == ("dealer",) + formspec.NUMBER_COLUMNS
    assert formspec.TABLE_COLUMNS[0] == "deal"
    assert set(formspec.SIDE_NAMES) == set(formspec.SIDES)
    assert all(c.endswith(formspec.SIDES) for c in formspec.NUMBER_COLUMNS)
