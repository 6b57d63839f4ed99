"""How bench_mistakes names the cause of a flag that names no planted mistake."""

from __future__ import annotations

import pytest

from bench import bench_reader_ablation as ablation
from bench.bench_mistakes import (
    RANGES,
    TAG,
    cached_files,
    false_flag_cause,
    load,
    other_tree,
    parse_cached,
    seed_list,
    shown_conf,
)
from scoring.sheet import CellReading, RowReading, SheetReading


def _reading(cum_ns: CellReading) -> SheetReading:
    cells = {"ns": CellReading([(0, 0.999)]), "ew": CellReading([(90, 0.99)]), "cum_ns": cum_ns}
    return SheetReading("s", [RowReading(6, cells)])


FLAG = {"deal": 6, "kind": "cumulative", "side": "ns", "column": "cum_ns", "written": 120, "expected": 170}
WRITTEN = {("6", "cum_ns"): 170, ("6", "ns"): 0, ("6", "ew"): 90}


def test_a_flag_on_a_cell_read_surely_as_another_value_is_a_sure_misread():
    sure = _reading(CellReading([(120, 0.998), (None, 0.001)]))
    assert false_flag_cause(FLAG, WRITTEN, sure) == "sure misread"


def test_other_false_numbers_flags_say_how_their_cell_was_read():
    unsure = _reading(CellReading([(120, 0.95), (170, 0.04)]))
    assert false_flag_cause(FLAG, WRITTEN, unsure) == "numbers, cell misread less surely"
    right = _reading(CellReading([(170, 0.999)]))
    assert false_flag_cause(FLAG, WRITTEN, right) == "numbers, cell read as written"
    assert false_flag_cause({"kind": "winner", "side": "ns"}, WRITTEN, right) == "winner"


def test_cached_readings_are_named_by_range_and_digests_and_must_exist():
    assert parse_cached(["held-out-5=abc:def"]) == {"held-out-5": ("abc", "def")}
    for bad in ("held-out-99=abc:def", "held-out-5=abc", "held-out-5"):
        with pytest.raises(SystemExit, match="RANGE=TABLES:READINGS"):
            parse_cached([bad])
    with pytest.raises(SystemExit, match="no cached tables"):
        cached_files(180000, 100, "no-such-digest", "none")


def test_the_sheets_to_draw_again_are_those_given_a_non_empty_list(tmp_path):
    """bench.glyph_draws writes {seed: [texts written with the image]} for every MNIST sheet;
    --redraw and --leave-out take only the sheets that drew it."""
    path = tmp_path / "draws.json"
    path.write_text('{"200005": ["220"], "200006": [], "200017": ["20", "1290"]}')
    assert seed_list(str(path)) == {200005, 200017}
    assert RANGES["held-out-7"] == [(200000, 100), (200100, 100)]
    assert RANGES["held-out-8"] == [(210000, 100), (210100, 100)]
    assert RANGES["held-out-9"] == [(220000, 100), (220100, 100)]


def test_a_redrawn_sheet_cached_apart_by_other_code_is_taken_from_its_cache(tmp_path, monkeypatch):
    """--redrawn: a range's cached readings with the sheets --redraw names taken from the files
    other code cached each apart (no sheet made again)."""
    import pickle

    monkeypatch.setattr(ablation, "WORK", tmp_path)

    def put(kind, seed, count, digest, data):
        with open(tmp_path / f"{kind}-{seed}-{count}-{TAG}-{digest}.pkl", "wb") as fh:
            pickle.dump(data, fh)

    for first in (210000, 210100):
        put("tables", first, 100, "T", [(s, {"old": s}, None) for s in range(first, first + 100)])
        put("readings", first, 100, "R", [None] * 100)
    put("tables", 210005, 1, "T1", [(210005, {"new": 1}, "table")])
    put("readings", 210005, 1, "R1", ["reading"])
    data = load(["held-out-8"], None, None, {"held-out-8": ("T", "R")}, frozenset({210005}), ("T1", "R1"))
    assert len(data) == 200 and data[5] == (210005, {"new": 1}, "table", "reading")
    assert data[6] == (210006, {"old": 210006}, None, None)


def test_another_trees_reconciliation_takes_its_second_look_at_the_cached_table(tmp_path):
    # a stand-in tree whose reconcile reports the look it was given, and whose second look names
    # the table and reader settings it was asked about
    (tmp_path / "scoring" / "reconcile").mkdir(parents=True)
    (tmp_path / "ocr").mkdir()
    (tmp_path / "scoring" / "__init__.py").write_text("")
    (tmp_path / "ocr" / "__init__.py").write_text("")
    (tmp_path / "ocr" / "look.py").write_text("def second_look(table, rs):\n    return f'{table}/{rs}'\n")
    (tmp_path / "scoring" / "reconcile" / "__init__.py").write_text(
        "class _Out:\n"
        "    def __init__(self, look):\n        self.look = look\n"
        "    def to_json(self):\n        return {'look': self.look}\n"
        "def reconcile(r, explain=True, look=None):\n    return _Out(look)\n")
    data = [(1, {}, "table-1", SheetReading("s1", [])), (2, {}, None, SheetReading("s2", []))]
    assert other_tree(str(tmp_path), data, "rs") == {"s1": {"look": "table-1/rs"}}
    assert other_tree(str(tmp_path), data) == {"s1": {"look": None}}


def test_the_report_gives_numbers_right_apart_on_the_sheets_not_sent_back_for_a_rescan():
    """A faded fax the product sends back for a rescan loses dozens of numbers; the organiser reads
    only the others as they come, so their figure is given beside the whole one."""
    from bench.bench_mistakes import Sheets, report

    fax = Sheets(sheets=2, numbers=200, numbers_right=150, exact=1, reviews=[0, 40], rescan=1,
                 kept_numbers=100, kept_numbers_right=99)
    m = {"by_kind": {}, "by_scan": {}, "sheets": {"fax": fax, "all": fax}, "clean_by_hand": {}, "cpu": []}
    line = next(x for x in report(m, "t").splitlines() if x.startswith("| fax |"))
    assert "| 75.00 % | 99.00 % (1) |" in line


def test_the_numbers_shown_are_counted_by_the_confidence_shown_and_sent_back_ones_apart():
    """Each written number a sheet shows is counted in its confidence band, right or not (a blank
    written 0 and a number not shown are not); on a sheet sent back, those in review also apart."""
    from collections import Counter

    truth = {"rows": [{"deal": 1, "ns": 100, "ew": 0, "cum_ns": 100, "cum_ew": 0},
                      {"deal": 2, "ns": 50, "ew": 0, "cum_ns": 150, "cum_ew": 0}]}
    obj = {"rows": [{"deal": 1, "ns": 100, "ew": 0, "cum_ns": 100, "cum_ew": 0,
                     "confidence": {"ns": 0.99, "ew": 1.0, "cum_ns": 0.97, "cum_ew": 1.0}},
                    {"deal": 2, "ns": 60, "ew": 0, "cum_ns": None, "cum_ew": 0,
                     "confidence": {"ns": 0.5, "ew": 1.0, "cum_ns": 0.0, "cum_ew": 1.0}}],
           "review": [{"deal": 2, "column": "ns"}]}
    seen = Counter()
    shown_conf(obj, truth, seen)
    assert {k: v for k, v in seen.items() if v} == {"all >= 0.95": 2, "all >= 0.95 right": 2, "all 0.5-0.95": 1}
    shown_conf(dict(obj, rescan="send a clearer scan"), truth, seen)
    assert seen["in review, sent back 0.5-0.95"] == 1 and seen["all >= 0.95 right"] == 4

