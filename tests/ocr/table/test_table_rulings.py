"""ocr.table.rulings."""

from __future__ import annotations


def test_evenly_spaced_keeps_the_rulings_not_the_digit_tops_between_them():
    """table_lines' candidate heights: rulings every 25 px (one lost), plus the tops of
    digits written level across a few rows 8 px under a ruling."""
    from ocr.table.rulings import evenly_spaced

    rulings = [100 + 25 * i for i in range(31) if i != 12]
    tops = [100 + 25 * i + 8 for i in (3, 4, 5, 9, 20)]
    got = evenly_spaced(sorted(rulings + tops), mm=3.4)
    assert got == rulings
