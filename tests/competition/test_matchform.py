"""A match's printed form: its QR code decoded by OpenCV, on the form and through the pipeline
(a phone photo and a fax), and the clues the reader keeps with each reading."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from competition.ids import parse_payload, qr_payload
from ocr.clues import QR_CORNER, QR_SIDE, decode_png, encode_png, line_crop, sheet_clues
from ocr.form import FormStyle, random_style, render_form
from ocr.matchform import MatchHeader, match_form_pdf_bytes, render_match_form
from ocr.pipeline import read_file
from ocr.ppocr import HEIGHT
from ocr.qr import decode_codes, may_hold_code
from samples.competition import jpeg, match_sheet

HEADER = MatchHeader(qr_payload("k7q2ab", "R2-M11"), "Kapiti Rubber Bridge - round 2, match R2-M11",
                     "Hill / Cheater (P4) v Smith / Jones (P9) - to be played by 2025-06-30",
                     "Hill / Cheater", "Smith / Jones")


def test_the_payload_names_competition_and_match_and_nothing_else_passes():
    assert parse_payload(qr_payload("k7q2ab", "R2-M11")) == ("k7q2ab", "R2-M11")
    for text in ("", "RBS1:k7q2ab", "RBS2:k7q2ab:R1-M1", "https://example.org", "RBS1:K!:R1"):
        assert parse_payload(text) is None
    with pytest.raises(ValueError):
        qr_payload("Not A Code", "R1-M1")


def test_the_printed_form_carries_its_code_and_the_names_in_their_fields():
    img, geom, box = render_match_form(HEADER, FormStyle(dpi=150))
    assert decode_codes(img) == [HEADER.payload]
    x0, y0, x1, y1 = box
    assert y1 < geom.fields["names_ns"][1] and 120 < x1 - x0 < 140  # above the names, 22 mm
    for key in ("names_ns", "names_ew"):
        fx0, fy0, fx1, fy1 = (int(v) for v in geom.fields[key])
        assert (img[fy0:fy1, fx0:fx1] < 128).sum() > 200, key
    fx0, fy0, fx1, fy1 = (int(v) for v in geom.fields["winners"])
    assert (img[fy0 + 3:fy1 - 3, fx0 + 3:fx1 - 3] < 128).sum() == 0  # left to write
    pdf = match_form_pdf_bytes([HEADER, HEADER], dpi=150)
    assert pdf[:4] == b"%PDF"


@pytest.mark.slow
@pytest.mark.parametrize("scan", ["photo", "fax"])
def test_the_code_is_read_from_a_scan_of_the_filled_form(scan):
    image, truth = match_sheet(7, names={"ns": "", "ew": ""}, header=HEADER, scan=scan)
    outcome = next(iter(read_file(None, data=jpeg(image, truth["jpeg_quality"]), name="s.jpg")))
    assert outcome.error is None
    clues = outcome.reading.meta["clues"]
    assert clues["qr"] == [HEADER.payload]
    assert {"names_ns", "names_ew"} <= set(clues["lines"])
    assert outcome.timings["clues"] < 2.0


@pytest.mark.slow
def test_a_plain_form_has_no_code_and_keeps_its_lines():
    image, truth = match_sheet(8, names={"ns": "Hill / Cheater", "ew": "Smith / Jones"},
                               scan="clean")
    outcome = next(iter(read_file(None, data=jpeg(image), name="s.jpg")))
    clues = outcome.reading.meta["clues"]
    assert clues["qr"] == [] and set(clues["lines"]) == {"names_ns", "names_ew", "winners"}
    crop = decode_png(clues["lines"]["names_ns"])
    assert crop.shape[0] == HEIGHT and crop.shape[1] > 3 * HEIGHT
    # a table without its straightened page (a damaged stage) still gives the lines it has
    outcome.table.straight = None
    assert set(sheet_clues(outcome.table)["lines"]) == set(clues["lines"])


def test_a_line_crop_is_the_writing_at_the_recognisers_height_and_none_for_an_empty_field():
    field = np.full((60, 500), 245, np.uint8)
    assert line_crop(field) is None
    cv2.putText(field, "Hill / Cheater", (40, 42), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.0, 185, 2)
    crop = line_crop(field)  # pencil: 60 grey levels darker than the paper
    assert crop is not None and crop.shape[0] == HEIGHT and 4 * HEIGHT < crop.shape[1] < 500
    assert (crop == 255).mean() > 0.5  # the paper whitened: a small PNG
    again = decode_png(encode_png(crop))
    assert np.array_equal(again, crop)
    with pytest.raises(ValueError):
        decode_png("not base64 !")
    with pytest.raises(ValueError):
        decode_png("aGVsbG8=")  # base64, not a PNG


def test_a_printed_label_taken_in_at_the_end_of_a_field_is_left_out():
    field = np.full((60, 700), 245, np.uint8)
    cv2.putText(field, "Stevens/Fox", (10, 42), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.0, 40, 2)
    alone = line_crop(field)
    cv2.putText(field, "E/W", (420, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.5, 40, 1)
    assert line_crop(field).shape == alone.shape
    words = np.full((60, 700), 245, np.uint8)  # a name's words, spaced as written, all kept
    cv2.putText(words, "Lee  /  Fox", (10, 42), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.0, 40, 2)
    assert line_crop(words).shape[1] > 4 * HEIGHT


def test_no_code_on_a_blank_or_random_page():
    assert decode_codes(np.full((400, 300), 255, np.uint8)) == []
    noise = np.random.default_rng(1).integers(0, 256, (300, 300)).astype(np.uint8)
    assert decode_codes(noise) == []
    assert decode_codes(np.zeros((0, 0), np.uint8)) == []


def test_only_a_corner_with_a_code_sized_block_is_searched():
    """The quick look before the detector: the printed form's corner, straightened to 2,000 px,
    holds the code's block; a plain form's corner (title, names lines, ruled table) holds none."""
    for header in (HEADER, None):
        style = random_style(random.Random(3), "classic", 200)
        img = render_match_form(header, style)[0] if header else render_form(style)[0]
        k = 2000 / max(img.shape[:2])
        page = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        h, w = page.shape[:2]
        corner = page[: round(QR_CORNER[0] * h), : round(QR_CORNER[1] * w)]
        side = (QR_SIDE[0] * max(h, w), QR_SIDE[1] * max(h, w))
        assert may_hold_code(corner, side) is (header is not None)
        assert decode_codes(corner) == ([HEADER.payload] if header else [])
    assert not may_hold_code(np.full((400, 300), 255, np.uint8), (50, 400))
    assert not may_hold_code(np.zeros((0, 0), np.uint8), (50, 400))


def test_every_random_printing_keeps_the_code_readable():
    for seed in range(3):
        style = random_style(random.Random(seed), "wide" if seed % 2 else "classic", 200)
        img, _, _ = render_match_form(HEADER, style)
        assert decode_codes(img[: img.shape[0] // 4, : img.shape[1] * 45 // 100]) == [HEADER.payload]


def test_a_names_field_of_thin_strokes_after_a_trimmed_speck_is_cropped_not_a_crash():
    """A phone photo's names field (bench seed 2002) whose only rows with two inked pixels were a
    speck trimmed as a stray label: the writing's rows are its thin strokes', not an IndexError."""
    field = cv2.imread(str(Path(__file__).parent / "data" / "names-field-thin-strokes.png"),
                       cv2.IMREAD_GRAYSCALE)
    crop = line_crop(field)
    assert crop is not None and crop.shape[0] == HEIGHT and crop.min() < 255
