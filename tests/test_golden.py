"""End to end on every committed sample scan: `rubberscan read`'s object, as stored in
tests/data/golden/ (made before the restructuring of issue 32; its confidences updated when the
second reader joined).

The stored objects agree with the truth files (samples/scans/*.truth.json) in every number and
dealer of every row, every planted mistake is flagged at its deal and no other flag is raised.
Where they differ from the truth, the differences are pinned in KNOWN below, so that a change in
them shows up as a failing test.  Probabilities are compared to 1e-3 (they are rounded to 4
places; other machines' arithmetic may differ in the last one), everything else exactly.

After a deliberate change in the output: ``python -m tests.test_golden --update`` (and check the
difference, and KNOWN, by eye).
"""

from __future__ import annotations

import json
import math
import sys

import pytest

import cli
from tests.support import ROOT, SCANS

GOLDEN = ROOT / "tests" / "data" / "golden"
SCAN_FILES = sorted(p for p in SCANS.iterdir() if not p.name.endswith(".json"))
# Where the stored output differs from the truth files: the names as Tesseract read them, and a
# cumulative the reader misread, shown as the arithmetic gives it and sent to review.
KNOWN = {
    "02-wide-photo-strokes-black": {"names.ew": ("/ Ward Smith", "Ward / Smith")},
    "07-classic-fax-strokes-tiff": {"names.ew": ("Dunn /Lee", "Dunn / Lee")},
    # deal 15's E/W score 730 read 130: the arithmetic's 730, its cumulative asked (a slip if 130)
    "01-classic-clean-mnist-blue": {"review": [(12, "cum_ns"), (15, "cum_ew")]},
    "08-classic-skewed-mnist-upside-down": {"review": [(19, "cum_ns")]},  # 2390 read 5390
}


def read(scan) -> dict:
    """The object `rubberscan read SCAN` prints, as JSON has it, its source the file's name."""
    [obj] = cli.read_sheets(str(scan))
    obj["source"] = scan.name
    return json.loads(json.dumps(obj, ensure_ascii=False))


def same(got, want, where: str = "") -> list[str]:
    """Where ``got`` differs from ``want`` (floats to 1e-3)."""
    if isinstance(want, float) or isinstance(got, float):
        ok = isinstance(got, (int, float)) and isinstance(want, (int, float)) \
            and math.isclose(got, want, abs_tol=1e-3)
        return [] if ok else [f"{where}: {got!r} != {want!r}"]
    if isinstance(want, dict) and isinstance(got, dict):
        keys = sorted(set(got) | set(want))
        return [d for k in keys for d in same(got.get(k), want.get(k), f"{where}.{k}")]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return [d for i, (g, w) in enumerate(zip(got, want, strict=True))
                for d in same(g, w, f"{where}[{i}]")]
    return [] if got == want else [f"{where}: {got!r} != {want!r}"]


def test_the_comparison_sees_a_difference():
    want = {"rows": [{"ns": 120, "confidence": {"ns": 0.9912}}], "flags": []}
    assert same({"rows": [{"ns": 120, "confidence": {"ns": 0.9915}}], "flags": []}, want) == []
    assert same({"rows": [{"ns": 170, "confidence": {"ns": 0.9912}}], "flags": []}, want) == [
        ".rows[0].ns: 170 != 120"]
    assert same({"rows": [{"ns": 120, "confidence": {"ns": 0.95}}], "flags": [{}]}, want) == [
        ".flags: [{}] != []", ".rows[0].confidence.ns: 0.95 != 0.9912"]


def test_every_sample_scan_has_a_golden_object():
    assert len(SCAN_FILES) == 8
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(p.stem for p in SCAN_FILES)


@pytest.mark.slow
@pytest.mark.parametrize("scan", SCAN_FILES, ids=lambda p: p.stem)
def test_read_gives_the_golden_object(scan):
    want = json.loads((GOLDEN / f"{scan.stem}.json").read_text())
    assert same(read(scan), want) == []


@pytest.mark.parametrize("scan", SCAN_FILES, ids=lambda p: p.stem)
def test_the_golden_object_matches_the_truth_but_for_the_known_differences(scan):
    golden = json.loads((GOLDEN / f"{scan.stem}.json").read_text())
    truth = json.loads(scan.with_name(scan.stem + ".truth.json").read_text())
    known = KNOWN.get(scan.stem, {})
    written = {r["deal"]: r for r in truth["rows"]}
    assert [r["deal"] for r in golden["rows"]] == sorted(written)
    true = {r["deal"]: r for r in truth["true_rows"]}
    for row in golden["rows"]:
        want = dict(written[row["deal"]])
        if row.get("dealer_inferred"):  # not written (an empty row): the rotation's, and marked so
            assert want["dealer"] is None
            want["dealer"] = true[row["deal"]]["dealer"]
        assert {k: row[k] for k in want} == want
    planted = sorted((m["kind"], m["deal"] if m["kind"] not in ("winner", "total") else None)
                     for m in truth["mistakes"])
    flagged = sorted((f["kind"], f.get("deal") if f["kind"] not in ("winner", "total") else None)
                     for f in golden["flags"])
    assert flagged == planted
    assert golden["winners"] == truth["winners"]
    for side in ("ns", "ew"):
        got, want = golden["names"][side], truth["names"][side]
        assert (got, want) == known.get(f"names.{side}", (want, want))
    assert [(r["deal"], r["column"]) for r in golden["review"]] == known.get("review", [])
    assert "rescan" not in golden


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    for path in SCAN_FILES:
        text = json.dumps(read(path), indent=1, ensure_ascii=False) + "\n"
        (GOLDEN / f"{path.stem}.json").write_text(text)
        print(f"wrote {GOLDEN / path.stem}.json")
