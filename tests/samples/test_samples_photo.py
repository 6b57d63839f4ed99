"""samples/photo.py and samples/photo3d.py: the truth matches the picture."""

from __future__ import annotations

import numpy as np
import pytest

from samples.photo import CONDITIONS, SPANS, render_photo
from samples.photo3d import render_photo3d


def _ink_share(img: np.ndarray, quad) -> float:
    """The share of dark pixels inside a quad's bounding box (shrunk a little)."""
    q = np.array(quad)
    x0, y0 = q.min(axis=0) + 2
    x1, y1 = q.max(axis=0) - 2
    region = img[int(y0):int(y1), int(x0):int(x1)].min(axis=2)
    return float((region < 0.6 * np.median(region)).mean()) if region.size else 0.0


@pytest.mark.parametrize("render", [
    lambda s: render_photo(s, conditions=("curl", "perspective", "rotation"), span="wide"),
    lambda s: render_photo3d(s),
])
def test_written_cells_show_ink_where_the_truth_puts_them(render):
    """Over the cells the truth says were written in, the picture holds writing; over the blank
    ones, (nearly) none: the truth's quads follow the page through the curl and the camera."""
    img, truth = render(11)
    written = [c for c in truth["cells"] if c["row"].isdigit() and c["text"] not in ("", "-")]
    blank = [c for c in truth["cells"] if c["row"].isdigit() and c["text"] == ""]
    assert len(written) > 40
    inked = np.mean([_ink_share(img, c["quad"]) > 0.01 for c in written])
    assert inked > 0.9
    if blank:
        assert np.mean([_ink_share(img, c["quad"]) > 0.01 for c in blank]) < 0.3


def test_the_displacement_field_is_inverted_where_the_photo_is_rendered():
    import random

    from samples.photo import (
        PhotoGeometry,
        _displacement,
        photograph,  # noqa: F401  (the map the renderer inverts)
    )

    rng, np_rng = random.Random(3), np.random.default_rng(3)
    dx, dy, _ = _displacement(rng, np_rng, 1654, 2339, 0.025)
    geom = PhotoGeometry(np.array([[0.5, 0.05, 100], [-0.04, 0.5, 80], [1e-5, 2e-5, 1]]), dx, dy)
    pts = np.array([[100.0, 200.0], [800.0, 1200.0], [1600.0, 2300.0]])
    img = geom.forward(pts)
    back = np.column_stack(geom.inverse_grid(img[:, 0], img[:, 1]))
    assert np.abs(back - pts).max() < 0.5


def test_a_cut_puts_the_frame_edge_on_the_ruling_and_names_the_deals_outside():
    img, truth = render_photo(5, conditions=("perspective",), span="tune", cut=("bottom", 18))
    assert truth["visible_deals"] == list(range(1, 19))
    assert truth["outside_deals"] == list(range(19, 31))


def test_spans_and_conditions_are_checked():
    assert set(SPANS) == {"tune", "wide"} and "curl" in CONDITIONS
    with pytest.raises(ValueError, match="unknown condition"):
        render_photo(7, conditions=("fog",))
    with pytest.raises(ValueError, match="unknown span"):
        render_photo(7, span="extreme")


def test_a_thin_ruling_seen_from_afar_stays_a_line_not_dashes():
    """A 1-pixel ruling of the 200-dpi page seen at a third of its resolution and a slight tilt:
    each photo pixel gathers its footprint (the line comes out faint but unbroken), where sampling
    the page point by point hits the line only every few pixels."""
    import cv2

    from samples.photo3d import _sample_sheet

    page = np.full((600, 900, 3), 255, np.float32)
    page[300, :, :] = 0  # one ruling, a pixel thick
    h, w = 180, 270
    a = np.deg2rad(2.0)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = xx - w / 2, yy - h / 2
    sx = (np.cos(a) * cx - np.sin(a) * cy) * 3.3 + 450
    sy = (np.sin(a) * cx + np.cos(a) * cy) * 3.3 + 300
    sheet_map = np.stack([sx, sy], axis=-1).astype(np.float32)
    on = (sx >= 0) & (sx < 899) & (sy >= 0) & (sy < 599)
    seen = _sample_sheet(page, sheet_map, on)[..., 0]
    cols = range(40, w - 40)
    darkest = [seen[:, x].min() for x in cols]  # the line's pixel in each column
    assert max(darkest) < 235  # every column shows the line
    point = cv2.remap(page, sx.astype(np.float32), sy.astype(np.float32), cv2.INTER_LINEAR)[..., 0]
    assert max(point[:, x].min() for x in cols) > 250  # point sampling leaves gaps


def test_a_3d_scene_names_the_deals_its_specular_spot_washes_out():
    """Scene 9013's specular spot lies over the top of the table of a pencil sheet: the truth names
    deals 1-10 as washed out by samples/photo.py's rule, reckoned with the sheet's own (pencil) ink
    (so a reader naming them missing is not counted wrong); the photo itself leaves a written cell
    of each of those rows under 30 grey levels of contrast, and the rows far from the spot, not
    named, keep their writing's contrast.  (With dark ink assumed, only deals 1-4 were named.)"""
    img, truth = render_photo3d(9013)
    assert truth["inks"] == ["pencil"] and truth["glare_deals"] == list(range(1, 11))
    assert set(truth["glare_deals"]) <= set(truth["glare_touched_deals"]) <= set(truth["visible_deals"])
    darkest = img.min(axis=2)

    def region(quad) -> np.ndarray:
        q = np.array(quad)
        x0, y0 = q.min(axis=0) + 2
        x1, y1 = q.max(axis=0) - 2
        return darkest[int(y0):int(y1), int(x0):int(x1)]

    def contrast_of(c) -> float:
        return float(np.percentile(region(c["quad"]), 98) - np.percentile(region(c["quad"]), 2))

    for deal in truth["glare_deals"]:
        written = [c for c in truth["cells"] if c["row"] == str(deal) and c["text"] not in ("", "-")]
        assert min(contrast_of(c) for c in written) < 30
    far = [c for c in truth["cells"] if c["row"].isdigit() and int(c["row"]) > 15 and c["text"] not in ("", "-")]
    assert len(far) > 40 and not {int(c["row"]) for c in far} & set(truth["glare_touched_deals"])
    contrast = [contrast_of(c) for c in far]
    assert np.mean([v > 30 for v in contrast]) > 0.9
