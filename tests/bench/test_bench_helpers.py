"""How the benchmarks judge a flag: one of the planted mistakes, or a real consequence of one."""

from __future__ import annotations

from bench.bench_end_to_end import flag_is_planted, flagged_right, score_sheet

ROWS = [{"deal": 1, "dealer": "N", "ns": 0, "ew": 620, "cum_ns": 0, "cum_ew": 620},
        {"deal": 2, "dealer": "E", "ns": 700, "ew": 0, "cum_ns": 1700, "cum_ew": 620}]  # 700 slipped to 1700
SLIP = {"deal": 2, "kind": "cumulative", "side": "ns", "column": "cum_ns", "written": 1700, "expected": 700}


def test_a_flag_is_judged_by_kind_and_deal():
    truth = {"rows": ROWS, "mistakes": [SLIP]}
    right = {"deal": 2, "kind": "cumulative", "side": "ns"}
    assert flag_is_planted(right, truth) and flagged_right(SLIP, [right])
    assert not flag_is_planted({"deal": 1, "kind": "cumulative", "side": "ns"}, truth)
    assert not flagged_right(SLIP, [{"deal": 1, "kind": "cumulative"}, {"deal": 2, "kind": "score"}])


def test_a_winners_line_the_slip_made_wrong_is_a_real_mistake_and_a_false_one_is_not():
    """The slip gives N/S 1700 v 620 on the sheet, so the players named N/S; the deals' scores
    make it 700 v 620 -- still N/S: a winner flag expecting E/W is false, one expecting N/S real."""
    truth = {"rows": ROWS, "mistakes": [SLIP]}
    assert flag_is_planted({"kind": "winner", "written": "ew", "expected": "ns"}, truth)
    assert not flag_is_planted({"kind": "winner", "written": "ns", "expected": "ew"}, truth)
    # on a mistake-free sheet every winner flag is false
    assert not flag_is_planted({"kind": "winner", "expected": "ns"}, {"rows": ROWS, "mistakes": []})


def test_score_sheet_counts_flags_and_the_planted_ones():
    truth = {"rows": ROWS, "mistakes": [SLIP]}
    obj = {"rows": ROWS, "flags": [{"deal": 2, "kind": "cumulative", "side": "ns"},
                                   {"deal": 1, "kind": "dealer"}], "review": []}
    score = score_sheet(obj, truth)
    assert (score.planted, score.caught, score.flags, score.flags_planted) == (1, 1, 2, 1)
    assert score.exact and score.numbers == score.numbers_right == 5  # the non-zero ones
    assert score.wrong == []


def test_score_sheet_names_each_number_shown_other_than_written():
    """A sheet is inexact by the cells whose shown value differs from the writing -- a blank shown
    as a number too -- and bench_mistakes --details lists those same cells."""
    from types import SimpleNamespace

    from bench.bench_mistakes import wrong_numbers

    shown = [dict(ROWS[0], ew=520), dict(ROWS[1], ew=50)]
    obj = {"rows": shown, "flags": [], "review": [{"deal": 1, "column": "ew", "candidates": [[520, 0.6]]}]}
    score = score_sheet(obj, {"rows": ROWS, "mistakes": []})
    assert not score.exact and score.wrong == [(1, "ew"), (2, "ew")]
    assert (score.numbers, score.numbers_right) == (5, 4)  # the blank shown as 50 is no written number
    lines = wrong_numbers(obj, {"rows": ROWS}, SimpleNamespace(rows=[], total=None), score.wrong)  # no cells read
    assert lines[0].startswith("deal 1 ew shown 520 written 620") and "review [[520, 0.6]]" in lines[0]
    assert lines[1].startswith("deal 2 ew shown 50 written 0") and lines[1].endswith("no review")


def test_bench_reconcile_write_keeps_the_hand_written_history():
    """`bench_reconcile.py --write` replaces only its own section of RESULTS-reconcile.md."""
    from bench.bench_reconcile import WRITTEN_END, WRITTEN_START, with_written_section

    doc = "# Reconciliation bench\n\n## Round 21\n\nhistory\n"
    once = with_written_section(doc, "| a | 1 |\n")
    assert once.startswith("# Reconciliation bench\n\n" + WRITTEN_START + "\n| a | 1 |\n" + WRITTEN_END)
    assert once.endswith("## Round 21\n\nhistory\n")
    twice = with_written_section(once, "| a | 2 |\n")
    assert "| a | 1 |" not in twice and "| a | 2 |" in twice
    assert twice.count(WRITTEN_START) == 1 and twice.endswith("## Round 21\n\nhistory\n")


def test_ablation_tables_cache_is_made_again_when_the_table_code_changes(monkeypatch, tmp_path):
    """bench_reader_ablation keeps each range's tables in bench/_work by the digest of the code
    that made them: after a change to that code (e.g. to how the names/winners fields are found)
    the old tables must not be measured again."""
    import types

    import bench.bench_reader_ablation as ablation

    made = []

    def fake_generate(seed):
        made.append(seed)
        return b"", {"seed": seed}

    monkeypatch.setattr(ablation, "WORK", tmp_path)
    monkeypatch.setattr(ablation, "generate_sheet", fake_generate)
    monkeypatch.setattr(ablation, "read_file", lambda *a, **k: iter([types.SimpleNamespace(ok=False, error="x")]))
    monkeypatch.setattr(ablation, "_table_code", lambda: b"version 1")
    first = ablation.tables(7, 2)
    assert [t for _, _, t in first] == [None, None] and made == [7, 8]
    assert ablation.tables(7, 2) == first and made == [7, 8]  # cached
    monkeypatch.setattr(ablation, "_table_code", lambda: b"version 2")
    ablation.tables(7, 2)
    assert made == [7, 8, 7, 8] and len(list(tmp_path.glob("tables-7-2-*.pkl"))) == 2


def test_ablation_cache_digests_cover_the_table_package():
    """The table finder is a package (ocr/table/): its modules must be part of the tables' and the
    readings' digests (a fixed file list naming ocr/table.py stopped working when it moved), and
    every pattern of TABLE_CODE must name code that exists."""
    import bench.bench_reader_ablation as ablation

    rows = (ablation.ROOT / "ocr" / "table" / "rows.py").read_bytes()
    assert rows in ablation._table_code() and rows in ablation.reader_code()
    for pattern in ablation.TABLE_CODE:
        assert list(ablation.ROOT.glob(pattern)), pattern


def test_ablation_tables_cache_can_be_read(monkeypatch, tmp_path):
    """A cached table keeps what the reader asks of its straightened page (whether it came from a
    photo's lattice: ``straight.grid``), so bench_mistakes can read a new range from it."""
    import bench.bench_reader_ablation as ablation
    from ocr.read import read_table

    monkeypatch.setattr(ablation, "WORK", tmp_path)
    monkeypatch.setattr(ablation, "_table_code", lambda: b"any")
    [(seed, truth, table)] = ablation.tables(60000, 1)
    assert table is not None and table.straight.grid is None  # a scan, not a photo's lattice
    reading = read_table(table)
    assert reading.rows and any(c.candidates for r in reading.rows for c in r.cells.values())


def test_bench_photo_numbers_sorts_photos_by_the_pixels_their_writing_got():
    """bench_photo_numbers' size bands: a photo's cell_px is the median short side of its truth's
    number cells in the photo; the photos cut right are counted per band, the others left out."""
    from bench.bench_photo_numbers import by_size, cell_px

    def quad(w, h):
        return [[0, 0], [w, 0], [w, h], [0, h]]

    truth = {"cells": [{"key": "ns", "quad": quad(40, 12)}, {"key": "cum_ew", "quad": quad(10, 50)},
                       {"key": "ew", "quad": quad(60, 14)}, {"key": "names_ns", "quad": quad(200, 3)}]}
    assert cell_px(truth) == 12  # of 10, 12, 14 (the names line is no number cell)
    assert cell_px({"cells": []}) is None
    results = [{"found": True, "right": True, "cell_px": 12.0, "numbers": {"right": 1, "read blank": 9},
                "shown": {"right": 1, "asked": 6, "silent": 3}},
               {"found": True, "right": True, "cell_px": 18.0, "numbers": {"right": 7, "misread, kept": 1},
                "shown": {"right": 7, "silent": 1}},
               {"found": True, "right": True, "cell_px": 25.0, "numbers": {"right": 9}, "shown": {"right": 9}},
               {"found": True, "right": False, "cell_px": 25.0, "numbers": {"right": 2, "read blank": 5},
                "shown": {"right": 2, "silent": 5}},
               {"found": False, "right": False, "numbers": {}}]
    assert by_size(results, [16, 20]) == [("< 16 px", 1, 10, 1, 6, 3), ("16-20 px", 1, 8, 7, 0, 1),
                                          (">= 20 px", 1, 9, 9, 0, 0)]


def test_bench_photo_numbers_tells_a_wrong_number_asked_about_from_one_shown_as_sure():
    """A wrong number with a review item or a flag on its cell (or named missing) is asked about;
    one without is shown as sure (silent)."""
    from types import SimpleNamespace

    from bench.bench_photo_numbers import numbers
    from scoring.sheet import CellReading, RowReading

    truth = {"visible_deals": [1, 2, 3], "glare_deals": [],
             "rows": [{"deal": d, "ns": 100 * d, "ew": 0, "cum_ns": 100 * d, "cum_ew": 0} for d in (1, 2, 3)]}
    cells = [SimpleNamespace(row=str(d), key=k) for d in (1, 2, 3) for k in ("ns", "cum_ns")]
    table = SimpleNamespace(missing=[], cells=cells)
    reading = SimpleNamespace(rows=[RowReading(d, {"ns": CellReading([(900, 0.99)]), "cum_ns": CellReading([(900, 0.99)])})
                                    for d in (1, 2, 3)])
    sure, asked = {"ns": 0.99, "cum_ns": 0.99}, {"ns": 0.5, "cum_ns": 0.99}
    sheet = {"rows": [{"deal": 1, "ns": 100, "cum_ns": 100, "confidence": sure},
                      {"deal": 2, "ns": 900, "cum_ns": 900, "confidence": asked},
                      {"deal": 3, "ns": 900, "cum_ns": 900, "confidence": sure}],
             "review": [{"deal": 2, "column": "ns"}],
             "flags": [{"deal": 3, "kind": "cumulative", "side": "ns", "column": "cum_ns"}]}
    out = numbers(truth, table, reading, sheet)
    assert out["shown"] == {"right": 2, "asked": 2, "silent": 2}
    # and by the confidence shown: 2 of the 5 shown at >= 0.95 right, the one at 0.5 wrong
    assert {k: v for k, v in out["confidence"].items() if v} == {"all >= 0.95": 5, "all >= 0.95 right": 2,
                                                                 "all 0.5-0.95": 1}
    sheet["rescan"] = "take another photo"
    out = numbers(truth, table, reading, sheet)
    assert out["confidence"]["in review, sent back 0.5-0.95"] == 1
    assert sorted((w[0], w[1]) for w in out["wrong"] if w[-1] == "silent") == [(2, "cum_ns"), (3, "ns")]
