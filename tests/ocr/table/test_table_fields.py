"""ocr.table.fields: the names and winners underlines."""

from __future__ import annotations

import cv2
import numpy as np


def test_underlines_pass_over_a_stray_segment_and_follow_a_dashed_ns_line():
    """ocr.table.fields.underlines_by_winners on drawn masks (4 px a mm): names N/S and E/W side by
    side, winners below under N/S, a stray thin segment between them (which _underlines, the
    two lowest lines, takes for the names line); then the same with the N/S underline only as
    dashes in the ink."""
    from ocr.table.fields import long_lines, underlines, underlines_by_winners

    mm = 4.0
    horiz = np.zeros((200, 800), np.uint8)
    cv2.line(horiz, (100, 100), (380, 100), 255, 2)  # N/S
    cv2.line(horiz, (440, 100), (760, 100), 255, 2)  # E/W
    cv2.line(horiz, (60, 160), (380, 160), 255, 2)  # winners
    cv2.line(horiz, (120, 140), (240, 140), 255, 2)  # the foot of a handwritten name
    assert underlines(long_lines(horiz, mm)) == {}
    got = underlines_by_winners(long_lines(horiz, mm), mm, horiz)
    assert set(got) == {"names_ns", "names_ew", "winners"}
    assert [abs(got[k][0] - x) <= 2 for k, x in (("names_ns", 100), ("names_ew", 440), ("winners", 60))] == [True] * 3
    assert abs(got["winners"][1] - 160) <= 2 and abs(got["names_ns"][1] - 100) <= 2

    horiz[95:106, :400] = 0  # a fax left only dashes of N/S: too short for a ruling ...
    ink = horiz.copy()
    for x in range(100, 380, 30):
        ink[99:101, x:x + 20] = 255  # ... but they are in the ink
    assert set(underlines_by_winners(long_lines(horiz, mm), mm, horiz)) == {"winners"}  # no dashes there
    got = underlines_by_winners(long_lines(horiz, mm), mm, ink)
    assert set(got) == {"names_ns", "names_ew", "winners"}
    x, _, w, _ = got["names_ns"]
    assert abs(x - 100) <= 2 and 385 <= x + w <= 392  # the last dash ends at 390


def test_underlines_placed_as_on_the_form_or_not_taken():
    """ocr.table.fields.underlines (the two lowest lines): two overlapping stray segments over the
    winners line are not taken for the names line (generated fax 70043 had its names read
    from there), and of a winners line with a stray segment beside it the leftmost is the
    winners underline (130008 had the stray)."""
    from ocr.table.fields import long_lines, underlines

    mm = 4.0
    horiz = np.zeros((200, 800), np.uint8)
    cv2.line(horiz, (100, 100), (380, 100), 255, 2)  # N/S
    cv2.line(horiz, (440, 100), (760, 100), 255, 2)  # E/W
    cv2.line(horiz, (60, 160), (380, 160), 255, 2)  # winners
    cv2.line(horiz, (450, 157), (560, 157), 255, 2)  # a stray beside it, a little higher
    got = underlines(long_lines(horiz, mm))
    assert abs(got["winners"][0] - 60) <= 2 and abs(got["names_ew"][0] - 440) <= 2
    horiz[95:106] = 0  # the names line lost ...
    cv2.line(horiz, (150, 140), (290, 140), 255, 2)  # ... and two strays over the winners line
    cv2.line(horiz, (200, 142), (330, 142), 255, 2)
    horiz[150:170, 400:] = 0
    assert underlines(long_lines(horiz, mm)) == {}
