"""ocr.dewarp.straighten_photo does no pass twice on the same inputs: pass one's thick retry links
again the paper patches the first try found on the same grey image and level, and pass two is not
run again to regrow a lattice when its first run was not taken -- with the same result."""

from __future__ import annotations

from collections import Counter

import numpy as np
from geometry_samples import photo3d

import ocr.dewarp as dewarp


def test_the_thick_retry_finds_each_images_patches_once_and_straightens_alike(monkeypatch):
    """3-D scene 6001 (a far sheet): pass one falls short on the photo and on it enlarged, and is
    tried again on both reaching across thick rulings; pass two's lattice is not taken.  Each
    (image, level)'s patches are found once (they were found twice, ~0.05 s each, and pass two's
    rough image's twice); the straightened page is the one made when the retry finds them afresh."""
    page, _ = photo3d(6001)
    found = Counter()
    find_cells = dewarp.find_cells

    def counted(ink, settings):
        found[ink.shape, int(ink.sum())] += 1
        return find_cells(ink, settings)

    monkeypatch.setattr(dewarp, "find_cells", counted)
    reused = dewarp.straighten_photo(page)
    assert reused is not None
    assert len(found) >= 8  # four levels on the photo and four on it enlarged, at least
    assert max(found.values()) == 1

    first_grid = dewarp.first_grid

    def afresh(grey, settings, thick=False, patches=None):
        return first_grid(grey, settings, thick)  # every call finds its own patches

    monkeypatch.setattr(dewarp, "first_grid", afresh)
    found.clear()
    fresh = dewarp.straighten_photo(page)
    assert max(found.values()) == 2  # the old way: the retry found the same patches again
    assert np.array_equal(fresh.image, reused.image)
    assert np.array_equal(fresh.grid, reused.grid)
    assert np.array_equal(fresh.to_original, reused.to_original)
