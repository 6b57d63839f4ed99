"""ocr.pipeline: one outcome per page, errors per page, blank pages named as such."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from ocr.data import Page
from ocr.pipeline import is_blank, read_file
from samples.generate import render_sheet

SCANS = Path(__file__).resolve().parents[2] / "samples" / "scans"


def test_blank_back_page_of_a_tiff_is_named_and_the_front_is_read():
    outcomes = list(read_file(SCANS / "07-classic-fax-strokes-tiff.tiff"))
    assert [o.page for o in outcomes] == [0, 1]
    assert outcomes[0].ok and len(outcomes[0].reading.rows) == 30
    assert not outcomes[1].ok and "page 2: blank page" in outcomes[1].error
    # the back of a sheet: skipped by the CLI and the batch, not a sheet that failed
    assert [o.blank_back for o in outcomes] == [False, True]


def test_blank_png_gets_a_clear_error(tmp_path):
    noise = np.random.default_rng(1).normal(245, 4, (1400, 1000)).clip(0, 255)
    path = tmp_path / "blank.png"
    cv2.imwrite(str(path), noise.astype(np.uint8))
    (outcome,) = read_file(path)
    assert outcome.error == f"{path}: blank page (nothing printed or written on it)"
    assert not outcome.blank_back  # nothing else in the file: the file could not be read


@pytest.mark.parametrize("scan", ["clean", "skewed", "photo", "fax"])
def test_filled_sheets_are_not_blank(scan):
    image, _ = render_sheet(7100 + len(scan), scan=scan)
    assert not is_blank(Page(source="x", index=0, image=image))


@pytest.mark.parametrize("colour", [False, True])
def test_blank_is_a_share_of_ink_on_the_paper(colour):
    def page(ink_rows: int) -> Page:
        image = np.full((1600, 1200), 235, np.uint8)  # greyish paper: ink is judged against it
        image[100:100 + ink_rows, 200:600] = 120  # 60+ grey levels darker than the paper
        if colour:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        return Page(source="x", index=0, image=image)

    assert is_blank(page(0))
    assert is_blank(page(1))  # 0.02-0.04 % of the page: a hair, a fold
    assert not is_blank(page(4))  # 0.08 %: a short line of writing
