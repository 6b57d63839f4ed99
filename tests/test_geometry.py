"""ocr.page + ocr.table: the deal table is found and cut right on varied printings and scans.

Ground truth comes from ocr/form.py (another engineer's renderer, which returns every
cell's box); the scans are made here by warping its pages (skew, quarter turns, a
phone photo's perspective on a dark table, shadow + JPEG, fax-like binarisation).
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
import pytest

from ocr.data import DEAL_COLUMNS, InputError, Page
from ocr.form import random_style, render_form
from ocr.page import find_paper, straighten
from ocr.table import find_table

BACKGROUND = (60, 80, 100)  # a wooden table, BGR


def _handwriting(img: np.ndarray, geom, rng: random.Random) -> None:
    """Script-font numbers in most cells, some written across the ruling below."""
    for (_row, key), (x0, y0, x1, y1) in geom.cells.items():
        if rng.random() < 0.2:
            continue
        text = rng.choice("NESW") if key == "dealer" else str(rng.choice([0, 30, 120, 450, 1230]))
        h = y1 - y0
        scale = h / 30.0 * rng.uniform(0.8, 1.1)
        y = int(y1 + 0.15 * h) if rng.random() < 0.2 else int(y1 - rng.uniform(0.1, 0.3) * h)
        cv2.putText(img, text, (int(x0 + rng.uniform(0.05, 0.3) * (x1 - x0)), y),
                    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, scale, 40, max(1, int(scale * 2)), cv2.LINE_AA)


def make_scan(seed: int, layout: str, angle: float = 0.0, turns: int = 0, photo: bool = False,
              post: str = "", dpi: int = 200):
    """A filled sheet scanned or photographed; returns (Page, truth quads on Page.image)
    keyed by (row, key), with row "" for the text fields."""
    rng = random.Random(seed)
    img, geom = render_form(random_style(rng, layout, dpi=dpi))
    _handwriting(img, geom, rng)
    bgr = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = img.shape
    m = np.eye(3)
    if photo:
        pad = int(0.15 * w)
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = src + pad + np.float32([[rng.uniform(-0.06, 0.06) * w for _ in range(2)] for _ in range(4)])
        p = cv2.getPerspectiveTransform(src, dst)
        w, h = w + 2 * pad, h + 2 * pad
        bgr = cv2.warpPerspective(bgr, p, (w, h), borderValue=BACKGROUND)
        m = p @ m
    if angle:
        r = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        bgr = cv2.warpAffine(bgr, r, (w, h), borderValue=BACKGROUND if photo else (255, 255, 255))
        m = np.vstack([r, [0, 0, 1]]) @ m
    for _ in range(turns):
        bgr = cv2.rotate(bgr, cv2.ROTATE_90_CLOCKWISE)
        m = np.array([[0, -1, h - 1], [1, 0, 0], [0, 0, 1]], float) @ m
        w, h = h, w
    if post == "shadow+jpeg":
        ramp = np.linspace(0.55, 1.0, w, dtype=np.float32)[None, :, None]
        bgr = (bgr * ramp).astype(np.uint8)
        bgr = cv2.imdecode(cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 55])[1], 1)
    elif post == "fax":
        g = cv2.GaussianBlur(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        b = np.where(g < 150, 0, 255).astype(np.uint8)
        flip = np.random.default_rng(seed).random(b.shape) < 0.005
        b[flip] = 255 - b[flip]
        bgr = cv2.cvtColor(b, cv2.COLOR_GRAY2BGR)
    boxes = dict(geom.cells) | {("", k): b for k, b in geom.fields.items()}
    truth = {k: cv2.perspectiveTransform(geom.quad(b)[None].astype(np.float64), m)[0]
             for k, b in boxes.items()}
    return Page(source=f"synthetic-{seed}", index=0, image=bgr), truth


CASES = [
    ("classic", dict()),
    ("wide", dict(angle=2.4)),
    ("classic", dict(angle=-6.0, turns=1)),
    ("wide", dict(angle=0.8, turns=2)),
    ("classic", dict(turns=3, dpi=150)),
    ("classic", dict(photo=True, post="shadow+jpeg")),
    ("wide", dict(photo=True, angle=-3.0, post="shadow+jpeg")),
    ("classic", dict(angle=1.2, post="fax")),
]


@pytest.mark.parametrize("i, layout, kw", [(i, c[0], c[1]) for i, c in enumerate(CASES)])
def test_table_found_and_every_cell_in_its_truth_cell(i, layout, kw):
    page, truth = make_scan(1000 + i, layout, **kw)
    fields = {k: q for k, q in truth.items() if not k[0]}
    truth = {k: q for k, q in truth.items() if k[0]}
    straight = straighten(page)
    assert straight.rotated == (4 - kw.get("turns", 0)) % 4 * 90
    table = find_table(straight)

    expected_rows = [str(n) for n in range(1, 31)] + (["total"] if layout == "wide" else [])
    assert table.has_total_row == (layout == "wide")
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    got = {(c.row, c.key): c for c in table.cells if c.row}
    assert set(got) == set(truth)
    assert {r for r, _ in got} == set(expected_rows)
    for key, cell in got.items():
        cx, cy = cell.quad.mean(axis=0)
        inside = cv2.pointPolygonTest(truth[key].astype(np.float32), (float(cx), float(cy)), False)
        assert inside >= 0, f"cell {key} centre ({cx:.0f}, {cy:.0f}) outside its truth cell"
        assert cell.image.dtype == np.uint8 and cell.image.ndim == 2
        bx, by, bw, bh = cell.box
        assert cell.image.shape == (bh, bw)

    # residual skew: the truth rows, mapped onto the straight image, are level
    inv = np.linalg.inv(straight.to_original)
    angles = []
    for quad in truth.values():
        p = cv2.perspectiveTransform(quad[None], inv)[0]
        d = p[1] - p[0]
        angles.append(math.degrees(math.atan2(d[1], d[0])))
    assert abs(float(np.median(angles))) < 0.3

    found = {("", c.key): c for c in table.cells if not c.row}
    assert set(found) == set(fields)
    for key, cell in found.items():  # the writing area found covers the printed one's middle
        x, y, w, h = cell.box
        mid = cv2.perspectiveTransform(fields[key].mean(axis=0)[None, None], inv)[0, 0]
        assert x <= mid[0] <= x + w and y <= mid[1] <= y + h, f"field {key[1]} misplaced"


def test_cells_have_rulings_removed_but_keep_handwriting():
    page, _ = make_scan(7, "classic")
    table = find_table(straighten(page))
    for row in ("3", "17", "29"):
        for key in DEAL_COLUMNS:
            img = table.cell(row, key).image
            h, w = img.shape
            # a ruling would be a (nearly) full-length dark line along an edge
            rows_dark = (img < 128).mean(axis=1)
            cols_dark = (img < 128).mean(axis=0)
            assert rows_dark.max() < 0.7, f"horizontal ruling left in cell {row}/{key}"
            assert cols_dark.max() < 0.7, f"vertical ruling left in cell {row}/{key}"
            assert np.median(img) > 230  # paper stays white


def test_stroke_crossing_a_ruling_survives():
    rng = random.Random(3)
    img, geom = render_form(random_style(rng, "classic", dpi=200))
    x0, y0, x1, y1 = geom.cells[("5", "ns")]
    xm = int((x0 + x1) / 2)
    cv2.line(img, (xm, int(y0 + 0.3 * (y1 - y0))), (xm, int(y1 + 0.3 * (y1 - y0))), 0, 3)
    page = Page(source="cross", index=0, image=cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
    table = find_table(straighten(page))
    cell = table.cell("5", "ns")
    # the column of the stroke stays dark right down through the ruling at the cell bottom
    bx, by, bw, bh = cell.box
    sx = xm * table.straight.image.shape[1] / img.shape[1] - bx
    strip = cell.image[:, max(0, int(sx) - 3):int(sx) + 4].min(axis=1)
    lower = strip[int(0.4 * bh):]
    assert (lower < 128).mean() > 0.9


def _page(img: np.ndarray, name: str) -> Page:
    bgr = img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return Page(source=name, index=0, image=bgr)


def test_blank_page_is_not_a_sheet():
    with pytest.raises(InputError, match="no summary score table found"):
        find_table(straighten(_page(np.full((2339, 1654), 250, np.uint8), "blank")))


def test_random_texture_is_not_a_sheet():
    rng = np.random.default_rng(5)
    noise = rng.integers(0, 255, (300, 220, 3), np.uint8)
    photo = cv2.GaussianBlur(cv2.resize(noise, (1500, 2000), interpolation=cv2.INTER_CUBIC), (5, 5), 0)
    with pytest.raises(InputError, match="no summary score table found"):
        find_table(straighten(_page(photo, "texture")))


def test_scoring_table_alone_is_not_a_sheet():
    img, geom = render_form(random_style(random.Random(11), "classic", dpi=200))
    x0, y0, x1, y1 = (int(v) for v in geom.scoring_box)
    page = np.full_like(img, 255)
    page[y0 - 20:y1 + 20, 100:100 + (x1 - x0) + 40] = img[y0 - 20:y1 + 20, x0 - 20:x1 + 20]
    with pytest.raises(InputError, match="no summary score table found"):
        find_table(straighten(_page(page, "scoring-only")))


def test_other_ruled_form_is_not_a_sheet():
    # a plain ruled grid of 30 rows x 6 columns without printed deal numbers
    img = np.full((2339, 1654), 255, np.uint8)
    xs = [150 + 200 * i for i in range(7)]
    ys = [400 + 55 * j for j in range(31)]
    for x in xs:
        cv2.line(img, (x, ys[0]), (x, ys[-1]), 0, 3)
    for y in ys:
        cv2.line(img, (xs[0], y), (xs[-1], y), 0, 3)
    with pytest.raises(InputError, match="no summary score table found"):
        find_table(straighten(_page(img, "grid")))


def test_long_pen_stroke_down_a_column_does_not_lose_rows():
    # a player's line drawn down the N/S score column from row 12 to the end looks like a
    # ruling and splits those cells in two; the rows must still be found (not merely
    # interpolated: there is no intact row below them), cells merged per column
    rng = random.Random(21)
    img, geom = render_form(random_style(rng, "classic", dpi=200))
    x0, y0, x1, _ = geom.cells[("12", "ns")]
    y_end = geom.cells[("30", "ns")][3]
    xs = int(x0 + 0.35 * (x1 - x0))
    cv2.line(img, (xs, int(y0) + 4), (xs, int(y_end) - 4), 0, 3)
    table = find_table(straighten(_page(img, "stroke")))
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    sx = table.straight.image.shape[1] / img.shape[1]
    for row in ("12", "20", "30"):
        bx, by, bw, bh = table.cell(row, "ns").box
        gx0, _, gx1, _ = geom.cells[(row, "ns")]
        assert bx <= gx0 * sx + 8 and bx + bw >= gx1 * sx - 8  # the whole cell, not a piece


def test_paper_found_under_a_shadow():
    # a sheet on a mid-grey table, a dark shadow across one corner of the paper: the
    # bright region alone is cut short by the shadow; the paper's edges are still there
    img = np.full((1000, 800), 110, np.uint8)
    corners = np.array([[150, 90], [650, 120], [690, 900], [110, 870]], np.float64)
    cv2.fillConvexPoly(img, corners.astype(np.int32), 240)
    shadow = np.zeros(img.shape, np.float32)  # a soft shadow, as a hand or phone casts
    cv2.fillConvexPoly(shadow, np.array([[400, 0], [800, 0], [800, 500]], np.int32), 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 40)
    img = (img * (1.0 - 0.55 * shadow)).astype(np.uint8)
    found = find_paper(img)
    assert found is not None
    assert np.abs(found - corners).max() < 8


def test_row_whose_ruling_is_lost_is_still_cut_at_the_table_top():
    # the ruling between the header and deal 1 is missing: deal 1 merges with the header,
    # so it is found by extrapolation inside the table's frame
    rng = random.Random(31)
    img, geom = render_form(random_style(rng, "classic", dpi=200))
    y = geom.row_y[1]
    t = geom.line_px + 2
    img[int(y - t):int(y + t) + 1, int(geom.col_x[0] + 3 * t):int(geom.col_x[-1] - 3 * t)] = 255
    table = find_table(straighten(_page(img, "no-ruling")))
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    for key in DEAL_COLUMNS:  # quads are on the page image, here the rendered form
        x0, y0, x1, y1 = geom.cells[("1", key)]
        cx, cy = table.cell("1", key).quad.mean(axis=0)
        assert x0 <= cx <= x1 and y0 <= cy <= y1


def test_photo_cropped_inside_the_paper_is_straightened_by_its_rulings():
    # no paper edge in the picture: perspective is taken out using the table's rulings
    page, truth = make_scan(1200, "classic", photo=True)
    truth = {k: q for k, q in truth.items() if k[0]}
    pts = np.concatenate(list(truth.values()))  # truth has no deal-number column: keep it
    x0, y0 = (pts.min(axis=0) - [160, 60]).astype(int)
    x1, y1 = (pts.max(axis=0) + 60).astype(int)
    page.image = np.ascontiguousarray(page.image[y0:y1, x0:x1])
    straight = straighten(page)
    table = find_table(straight)
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    for key, quad in truth.items():
        cx, cy = table.cell(*key).quad.mean(axis=0)
        assert cv2.pointPolygonTest((quad - [x0, y0]).astype(np.float32), (float(cx), float(cy)), False) >= 0


def test_numbered_table_with_other_headers_is_not_a_sheet():
    # the same ruled grid with deal numbers, but another form's column headers
    img, geom = render_form(random_style(random.Random(41), "wide", dpi=200))
    x0, y0, x1, _ = (int(v) for v in geom.table_box)
    y_first = int(geom.row_y[1])
    img[y0 + 6:y_first - 4, x0 + 6:x1 - 6] = 255
    for i, word in enumerate(("Board", "Contract", "Lead", "Result", "Plus", "Minus")):
        x = int(geom.col_x[i]) + 10
        cv2.putText(img, word, (x, y_first - 25), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 0, 2, cv2.LINE_AA)
    with pytest.raises(InputError, match="no summary score table found"):
        find_table(straighten(_page(img, "other-form")))


def test_upside_down_straight_page_is_turned_over_by_the_deal_numbers():
    # if the quarter-turn guess is wrong by 180 degrees, the unreadable deal numbers make
    # find_table turn the page over and try once more
    from ocr.table import turned_over

    page, truth = make_scan(1300, "classic", angle=1.0)
    truth = {k: q for k, q in truth.items() if k[0]}
    wrong = turned_over(straighten(page))
    assert wrong.rotated == 180
    table = find_table(wrong)
    assert table.straight.rotated == 0
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    for key, quad in truth.items():
        cx, cy = table.cell(*key).quad.mean(axis=0)
        assert cv2.pointPolygonTest(quad.astype(np.float32), (float(cx), float(cy)), False) >= 0


def test_printed_numbers_and_header_read_in_one_tesseract_call(monkeypatch):
    from PIL import Image, ImageDraw, ImageFont

    import ocr.printed as printed
    from ocr.form import FONT_DIR

    font = ImageFont.truetype(str(FONT_DIR / "DejaVuSerif.ttf"), 20)

    def crop(text: str, w: int, h: int = 34) -> np.ndarray:
        im = Image.new("L", (w, h), 255)
        ImageDraw.Draw(im).text((6, 5), text, font=font, fill=0)
        return np.asarray(im).copy()

    calls = []
    real = printed._ocr_words
    monkeypatch.setattr(printed, "_ocr_words", lambda img: calls.append(img.shape) or real(img))
    labels = [crop(str(n), 60) for n in range(1, 31)] + [crop("", 60)]
    res = printed.read_printed(crop("Deal   Dealer   Score   Cumulative", 520), labels)
    assert len(calls) == 1
    assert res.labels[:30] == [str(n) for n in range(1, 31)] and res.labels[30] is None
    words = " ".join(w for w, _ in res.header_words).lower()
    assert "score" in words and "cumul" in words


def test_header_row_taken_for_deal_rows_still_finds_the_headers(monkeypatch):
    """A header ruled into six cells (its N/S E/W row) can pass for deal rows; the header
    band is then first looked for above them, and must be looked for again above the
    first numbered row."""
    import ocr.table as table_mod

    real = table_mod.deal_rows

    def with_header_rows(blobs, px_mm):
        rows = real(blobs, px_mm)
        if len(rows) < 2:
            return rows
        pitch = rows[1][0].y0 - rows[0][0].y0
        fake = [[table_mod.Blob(b.x0, b.y0 - k * pitch, b.x1, b.y1 - k * pitch) for b in rows[0]]
                for k in (2, 1)]
        return fake + rows

    monkeypatch.setattr(table_mod, "deal_rows", with_header_rows)
    reads = []
    real_header = table_mod.read_header
    monkeypatch.setattr(table_mod, "read_header", lambda *a: reads.append(1) or real_header(*a))
    page, truth = make_scan(1100, "classic")
    table = find_table(straighten(page))
    assert reads == [1]  # the fallback ran: the first header band (above the fakes) was wrong
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    for (row, key), quad in truth.items():
        if not row:
            continue
        cx, cy = table.cell(row, key).quad.mean(axis=0)
        assert cv2.pointPolygonTest(quad.astype(np.float32), (float(cx), float(cy)), False) >= 0


def _generated(seed: int):
    """A sheet from samples.generate through the loader, with its truth quads on the page."""
    from ocr.load import load_pages
    from samples.generate import generate_sheet

    data, truth = generate_sheet(seed)
    name = f"sheet-{seed}.{truth['format']}"
    page = load_pages(name, data=data, name=name)[truth.get("page", 0) or 0]
    tw, th = truth.get("image_size") or (page.image.shape[1], page.image.shape[0])
    scale = np.float32([page.image.shape[1] / tw, page.image.shape[0] / th])
    quads = {(c["row"], c["key"]): np.array(c["quad"], np.float32) * scale
             for c in truth["cells"] if c["row"]}
    return page, truth, quads


def test_fax_whose_rulings_are_dashes_with_long_gaps_is_found(monkeypatch):
    """Generated fax 2000103: a thin ruling a little off level comes out of the coarse fax
    scan lines as dashes with gaps of ~6 mm, longer than any closing that spares the
    handwriting; the horizontal rulings are drawn in where the columns agree."""
    import ocr.table as table_mod

    page, truth, quads = _generated(2000103)
    assert truth["scan"] == "fax"
    straight = straighten(page)
    table = find_table(straight)
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    assert table.has_total_row == (truth["layout"] == "wide")
    for (row, key), quad in quads.items():
        cx, cy = table.cell(row, key).quad.mean(axis=0)
        assert cv2.pointPolygonTest(quad, (float(cx), float(cy)), False) >= 0, (row, key)
    monkeypatch.setattr(table_mod, "table_lines", lambda *a: None)  # without the recovery
    with pytest.raises(InputError):
        find_table(straight)


def test_evenly_spaced_keeps_the_rulings_not_the_digit_tops_between_them():
    """table_lines' candidate heights: rulings every 25 px (one lost), plus the tops of
    digits written level across a few rows 8 px under a ruling."""
    from ocr.table import _evenly_spaced

    rulings = [100 + 25 * i for i in range(31) if i != 12]
    tops = [100 + 25 * i + 8 for i in (3, 4, 5, 9, 20)]
    got = _evenly_spaced(sorted(rulings + tops), mm=3.4)
    assert got == rulings


def test_handwriting_stacked_down_a_column_is_not_taken_for_a_ruling(monkeypatch):
    """Generated photo 5000048: right-aligned digits written large, touching across the
    rulings, line up into vertical strokes down the cumulative columns that split the
    cells of a dozen rows; strokes much shorter than the table's rulings are dropped."""
    import ocr.table as table_mod

    page, truth, quads = _generated(5000048)
    straight = straighten(page)
    table = find_table(straight)
    assert table.deal_rows == [str(n) for n in range(1, 31)]
    for (row, key), quad in quads.items():
        cx, cy = table.cell(row, key).quad.mean(axis=0)
        assert cv2.pointPolygonTest(quad, (float(cx), float(cy)), False) >= 0, (row, key)
    monkeypatch.setattr(table_mod, "long_verticals", lambda vert, mm: vert)  # without it
    with pytest.raises(InputError):
        find_table(straight)


@pytest.mark.parametrize("seed", [60006, 60041])
def test_fax_names_and_winners_lines_found_past_a_stray_segment(seed):
    """Generated faxes 60006 and 60041: the foot of the handwritten winners closes into a thin
    segment between the names and winners underlines (and on 60006 the N/S underline is left
    as dashes too short to find); the three fields were not found at all, so a winners line
    naming the losing pair went unread.  Each field's writing area must cover its truth
    field's middle."""
    from ocr.load import load_pages
    from samples.generate import generate_sheet

    data, truth = generate_sheet(seed)
    assert truth["scan"] == "fax"
    name = f"sheet-{seed}.{truth['format']}"
    page = load_pages(name, data=data, name=name)[truth.get("page", 0) or 0]
    tw, th = truth.get("image_size") or (page.image.shape[1], page.image.shape[0])
    scale = np.float32([page.image.shape[1] / tw, page.image.shape[0] / th])
    fields = {c["key"]: np.array(c["quad"], np.float32) * scale for c in truth["cells"] if not c["row"]}
    table = find_table(straighten(page))
    found = {c.key: c for c in table.cells if not c.row}
    assert set(found) == set(fields) == {"names_ns", "names_ew", "winners"}
    for key, cell in found.items():
        mid = fields[key].mean(axis=0)
        assert cv2.pointPolygonTest(cell.quad.astype(np.float32), (float(mid[0]), float(mid[1])), False) >= 0, key


def test_underlines_pass_over_a_stray_segment_and_follow_a_dashed_ns_line():
    """ocr.table._underlines_by_winners on drawn masks (4 px a mm): names N/S and E/W side by
    side, winners below under N/S, a stray thin segment between them (which _underlines, the
    two lowest lines, takes for the names line); then the same with the N/S underline only as
    dashes in the ink."""
    from ocr.table import _lines, _underlines, _underlines_by_winners

    mm = 4.0
    horiz = np.zeros((200, 800), np.uint8)
    cv2.line(horiz, (100, 100), (380, 100), 255, 2)  # N/S
    cv2.line(horiz, (440, 100), (760, 100), 255, 2)  # E/W
    cv2.line(horiz, (60, 160), (380, 160), 255, 2)  # winners
    cv2.line(horiz, (120, 140), (240, 140), 255, 2)  # the foot of a handwritten name
    assert _underlines(_lines(horiz, mm)) == {}
    got = _underlines_by_winners(_lines(horiz, mm), mm, horiz)
    assert set(got) == {"names_ns", "names_ew", "winners"}
    assert [abs(got[k][0] - x) <= 2 for k, x in (("names_ns", 100), ("names_ew", 440), ("winners", 60))] == [True] * 3
    assert abs(got["winners"][1] - 160) <= 2 and abs(got["names_ns"][1] - 100) <= 2

    horiz[95:106, :400] = 0  # a fax left only dashes of N/S: too short for a ruling ...
    ink = horiz.copy()
    for x in range(100, 380, 30):
        ink[99:101, x:x + 20] = 255  # ... but they are in the ink
    assert set(_underlines_by_winners(_lines(horiz, mm), mm, horiz)) == {"winners"}  # no dashes there
    got = _underlines_by_winners(_lines(horiz, mm), mm, ink)
    assert set(got) == {"names_ns", "names_ew", "winners"}
    x, _, w, _ = got["names_ns"]
    assert abs(x - 100) <= 2 and 385 <= x + w <= 392  # the last dash ends at 390


def test_underlines_placed_as_on_the_form_or_not_taken():
    """ocr.table._underlines (the two lowest lines): two overlapping stray segments over the
    winners line are not taken for the names line (generated fax 70043 had its names read
    from there), and of a winners line with a stray segment beside it the leftmost is the
    winners underline (130008 had the stray)."""
    from ocr.table import _lines, _underlines

    mm = 4.0
    horiz = np.zeros((200, 800), np.uint8)
    cv2.line(horiz, (100, 100), (380, 100), 255, 2)  # N/S
    cv2.line(horiz, (440, 100), (760, 100), 255, 2)  # E/W
    cv2.line(horiz, (60, 160), (380, 160), 255, 2)  # winners
    cv2.line(horiz, (450, 157), (560, 157), 255, 2)  # a stray beside it, a little higher
    got = _underlines(_lines(horiz, mm))
    assert abs(got["winners"][0] - 60) <= 2 and abs(got["names_ew"][0] - 440) <= 2
    horiz[95:106] = 0  # the names line lost ...
    cv2.line(horiz, (150, 140), (290, 140), 255, 2)  # ... and two strays over the winners line
    cv2.line(horiz, (200, 142), (330, 142), 255, 2)
    horiz[150:170, 400:] = 0
    assert _underlines(_lines(horiz, mm)) == {}
