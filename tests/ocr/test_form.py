"""The blank form: geometry returned matches what is drawn; the `form` command's PDF."""

from __future__ import annotations

import random

import numpy as np
import pypdfium2 as pdfium
import pytest

import cli
from ocr.data import DEAL_COLUMNS, TEXT_FIELDS
from ocr.form import FormStyle, random_style, render_form

STYLES = [FormStyle(), FormStyle(layout="wide", dpi=200)] + [
    random_style(random.Random(seed), layout, dpi)
    for seed, layout, dpi in ((1, "classic", 150), (2, "wide", 300), (3, "classic", 250), (4, "wide", 150))
]


def _ink(img: np.ndarray, box, shrink: int = 0) -> np.ndarray:
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    return img[y0 + shrink:y1 - shrink, x0 + shrink:x1 - shrink] < 128


@pytest.fixture(scope="module", params=range(len(STYLES)), ids=lambda i: f"style{i}")
def rendered(request):
    style = STYLES[request.param]
    img, geom = render_form(style)
    return style, img, geom


def test_every_cell_and_field_is_present(rendered):
    style, img, geom = rendered
    n_rows = 31 if style.layout == "wide" else 30
    assert geom.rows[:30] == [str(i) for i in range(1, 31)]
    assert len(geom.rows) == n_rows
    assert ("total" in geom.rows) == (style.layout == "wide")
    for row in geom.rows:
        for key in DEAL_COLUMNS:
            if row == "total" and key == "dealer":
                assert (row, key) not in geom.cells
            else:
                assert (row, key) in geom.cells
    assert set(geom.fields) == set(TEXT_FIELDS)
    assert img.shape == (geom.size[1], geom.size[0])
    # A4 at the requested resolution.
    assert abs(img.shape[1] - 210 / 25.4 * style.dpi) <= 1
    assert abs(img.shape[0] - 297 / 25.4 * style.dpi) <= 1


def test_deal_cells_are_blank_and_ruled_on_all_sides(rendered):
    _, img, geom = rendered
    for (row, key), box in geom.cells.items():
        x0, y0, x1, y1 = (int(round(v)) for v in box)
        assert x1 - x0 > 10 and y1 - y0 > 10, (row, key, box)
        assert not _ink(img, box).any(), f"ink inside blank cell {row}/{key}"
        mx, my = (x0 + x1) // 2, (y0 + y1) // 2
        # The pixel just outside each edge is a ruling line.
        assert img[my, x0 - 1] < 128 and img[my, x1] < 128, (row, key)
        assert img[y0 - 1, mx] < 128 and img[y1, mx] < 128, (row, key)


def test_printed_deal_numbers_lie_inside_their_label_boxes(rendered):
    _, img, geom = rendered
    for row in geom.rows:
        box = geom.row_labels[row]
        ink = _ink(img, box)
        assert ink.any(), f"no printed label for row {row}"
        # The label's ink stays clear of the box edges (it is inside, not on a ruling).
        assert not ink[:2].any() and not ink[-2:].any()
        assert not ink[:, :2].any() and not ink[:, -2:].any()
    # Longer numbers print wider: "10".."30" have more ink columns than "1".."9".
    width = {r: _ink(img, geom.row_labels[r]).any(axis=0).sum() for r in ("7", "17")}
    assert width["17"] > width["7"]


def test_rulings_are_where_the_geometry_says(rendered):
    _, img, geom = rendered
    x0, y0, x1, y1 = (int(round(v)) for v in geom.table_box)
    body_top = int(round(geom.row_y[1]))
    for x in geom.col_x:
        column = img[body_top + 2:y1 - 2, int(round(x))]
        if x == geom.col_x[1] and geom.layout == "wide":  # no Deal|Dealer line in the Total row
            column = img[body_top + 2:int(round(geom.row_y[-2])) - 2, int(round(x))]
        assert (column < 128).mean() > 0.98
    for y in geom.row_y:
        line = img[int(round(y)), x0 + 2:x1 - 2]
        assert (line < 128).mean() > 0.98
    # Halfway between two rulings there is no long line.
    for ya, yb in zip(geom.row_y[1:-1], geom.row_y[2:], strict=True):
        line = img[int(round((ya + yb) / 2)), x0 + 2:x1 - 2]
        assert (line < 128).mean() < 0.5


def test_classic_prints_the_scoring_table_beside_wide_prints_total(rendered):
    style, img, geom = rendered
    if style.layout == "classic":
        assert geom.scoring_box is not None
        sx0, sy0, sx1, sy1 = geom.scoring_box
        assert sx0 > geom.table_box[2]  # entirely to the right of the deal table
        assert sy1 - sy0 > 0.5 * (geom.table_box[3] - geom.table_box[1])
        region = img[int(sy0) + 5:int(sy1) - 5, int(sx0) + 5:int(sx1) - 5]
        assert (region < 128).mean() > 0.03  # text and rulings printed there
    else:
        assert geom.scoring_box is None
        # Right of the deal table there is only margin.
        assert not (img[:, int(geom.table_box[2]) + 5:] < 128).any()
        assert ("total", "cum_ns") in geom.cells


def test_text_fields_sit_on_their_underlines(rendered):
    _, img, geom = rendered
    for name, (x0, y0, x1, y1) in geom.fields.items():
        assert not _ink(img, (x0, y0, x1, y1), shrink=1).any(), name
        under = img[int(y1), int(x0) + 2:int(x1) - 2]
        assert (under < 128).mean() > 0.95, name
        assert y1 < geom.table_box[1]


def test_printings_differ_but_render_deterministically():
    a = random_style(random.Random(10), "classic", 200)
    b = random_style(random.Random(11), "classic", 200)
    img_a, geo_a = render_form(a)
    img_b, geo_b = render_form(b)
    assert geo_a.cells[("15", "cum_ns")] != geo_b.cells[("15", "cum_ns")]
    again, geo_again = render_form(random_style(random.Random(10), "classic", 200))
    assert np.array_equal(img_a, again)
    assert geo_again.cells == geo_a.cells


def test_bad_layout_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown layout"):
        render_form(FormStyle(layout="landscape"))


def test_tesseract_reads_the_printed_deal_numbers():
    """An outside reader (Tesseract) finds 1..30 in the boxes we say hold the deal numbers."""
    pytesseract = pytest.importorskip("pytesseract")
    img, geom = render_form(FormStyle(dpi=200))
    x0 = int(min(geom.row_labels[r][0] for r in geom.rows))
    x1 = int(max(geom.row_labels[r][2] for r in geom.rows))
    strip = np.full((len(geom.rows) * 40 + 20, x1 - x0 + 20), 255, np.uint8)
    for i, row in enumerate(geom.rows):
        bx0, by0, bx1, by1 = (int(round(v)) for v in geom.row_labels[row])
        crop = img[by0:by1, bx0:bx1][:40]
        strip[10 + i * 40:10 + i * 40 + crop.shape[0], 10 + bx0 - x0:10 + bx1 - x0] = crop
    text = pytesseract.image_to_string(strip, config="--psm 6 -c tessedit_char_whitelist=0123456789")
    assert [t for t in text.split()] == [str(i) for i in range(1, 31)]


@pytest.mark.parametrize("layout", ["classic", "wide"])
def test_form_command_writes_a_one_page_pdf_of_the_layout(tmp_path, capsys, layout):
    out = tmp_path / f"{layout}.pdf"
    assert cli.main(["form", str(out), "--layout", layout]) == 0
    assert "wrote" in capsys.readouterr().out
    pdf = pdfium.PdfDocument(str(out))
    try:
        assert len(pdf) == 1
        page = pdf[0]
        w_pt, h_pt = page.get_size()
        assert abs(w_pt - 595.3) < 2 and abs(h_pt - 841.9) < 2  # A4 portrait
        back = np.asarray(page.render(scale=150 / 72, grayscale=True).to_pil().convert("L"))
    finally:
        pdf.close()
    ref, geom = render_form(FormStyle(layout=layout, dpi=150))
    assert abs(back.shape[0] - ref.shape[0]) <= 2 and abs(back.shape[1] - ref.shape[1]) <= 2
    # The rulings come back where the 150-dpi geometry puts them.
    x0, _, x1, _ = (int(round(v)) for v in geom.table_box)
    for y in geom.row_y:
        yy = int(round(y))
        dark = (back[yy - 1:yy + 2, x0 + 3:x1 - 3] < 160).any(axis=0).mean()
        assert dark > 0.95
    has_scoring = (back[:, int(geom.table_box[2]) + 10:] < 128).mean() > 0.01
    assert has_scoring == (layout == "classic")


def test_form_command_reports_unwritable_path(tmp_path, capsys):
    assert cli.main(["form", str(tmp_path / "no" / "such" / "dir.pdf")]) == 1
    assert "cannot write" in capsys.readouterr().err
