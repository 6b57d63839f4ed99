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


def test_evenly_spaced_pitch_is_its_peak_not_its_rising_side():
    """Generated fax 170155's candidate heights (analysis pixels): the deals' 31 rulings every
    ~21.3 px from 222, found as dashes a pixel or two off (775, 794, 818), digit tops between.  The spacings' first
    peak rises from 19 and 20 px to 21: a pitch taken on that rising side (20.9 px) left 794
    out of the run, and deals 27-30 were cut a row off."""
    from ocr.table.rulings import evenly_spaced

    ys = [204, 222, 243, 265, 286, 307, 328, 350, 371, 392, 413, 434, 456, 477, 498, 520, 541,
          562, 583, 604, 613, 626, 646, 668, 690, 697, 711, 718, 733, 754, 775, 794, 818, 839, 861]
    tops = {613, 697, 718}
    deals = [y for y in ys[1:] if y not in tops]  # 204 is the header's ruling, a shorter row above
    got = evenly_spaced(ys, mm=3.367)
    assert set(deals) <= set(got) and not tops & set(got)
