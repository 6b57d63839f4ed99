"""When the second reader is asked on a photographed table: where the photo networks read it, below
``second_unsure_photo`` (they are surer of photographed cells than the scan networks); elsewhere
below ``second_unsure``, as before."""

from __future__ import annotations

import pytest
from geometry_samples import photographed_table

from ocr.read import read_table
from ocr.settings import ReaderSettings

PHOTO_SEED = 3608004  # a looked-at wide-span photo, "camera" (as tests/ocr/test_photonet.py)


@pytest.fixture(scope="module")
def photo_table():
    table, _ = photographed_table(PHOTO_SEED, "camera", span="wide")
    assert table.straight.grid is not None, "the photo's table is straightened from its lattice"
    return table


def test_photo_networks_ask_the_second_reader_below_their_own_threshold(photo_table):
    shipped = read_table(photo_table, settings=ReaderSettings())
    as_scans = read_table(photo_table, settings=ReaderSettings(second_unsure_photo=0.9))
    assert 0 < shipped.meta["second_read"] < as_scans.meta["second_read"]
    assert f"below{ReaderSettings().second_unsure_photo:g}-" in shipped.meta["reader"]
    assert "below0.9-" in as_scans.meta["reader"]
    # the scan networks on the same table keep the scan threshold
    scan_nets = read_table(photo_table, settings=ReaderSettings(photo_networks=False, second_unsure_photo=0.01))
    assert "below0.9-" in scan_nets.meta["reader"]
    assert scan_nets.meta["second_read"] > shipped.meta["second_read"]


def test_photo_networks_pad_the_second_readers_crops_to_their_own_width(photo_table, monkeypatch):
    """``second_min_width_photo``: the crops of a table the photo networks read are padded to it (the
    second reader's cost grows with the columns it runs over), the scan networks' to second_min_width."""
    from ocr.ppocr import LineReader

    widths = []
    features = LineReader._features

    def recorded(self, images, min_width, batch):
        widths.append(min_width)
        return features(self, images, min_width, batch)

    monkeypatch.setattr(LineReader, "_features", recorded)
    narrow = read_table(photo_table, settings=ReaderSettings(second_min_width_photo=160))
    assert narrow.meta["second_read"] > 0 and set(widths) == {160}
    assert "-pad160-" in narrow.meta["reader"]
    widths.clear()
    scan_nets = read_table(photo_table, settings=ReaderSettings(photo_networks=False, second_min_width_photo=160))
    assert set(widths) == {240} and "-pad240-" in scan_nets.meta["reader"]
