"""The photo networks (ocr/models/photonet*.npz): a photographed table's cells are read by them, a
scan's by the scan networks, and they read photographed cells the scan networks misread."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from geometry_samples import photographed_table

from ocr.ensemble import NUMBER_SYMBOLS, default_net, photo_net
from ocr.load import load_pages
from ocr.page import straighten
from ocr.prep import clear_rulings, prepare_cut
from ocr.read import read_table, string_value
from ocr.settings import ReaderSettings
from ocr.table import find_table

ROOT = Path(__file__).resolve().parents[2]
FAST = ReaderSettings(use_second=False)  # the cell networks alone: the second reader is not what is tested
PHOTO_SEED = 3608004  # a looked-at wide-span photo, "camera" (blur, faint ink; bench/RESULTS-geometry.md, photonet)


@pytest.fixture(scope="module")
def photo_table():
    table, truth = photographed_table(PHOTO_SEED, "camera", span="wide")
    assert table.straight.grid is not None, "the photo's table is straightened from its lattice"
    return table, truth


def test_photo_networks_installed_and_distinct():
    photo = photo_net()
    assert photo is not None, "ocr/models/photonet.npz missing (make model)"
    assert len(photo.nets) == 2
    assert {n.digest for n in photo.nets}.isdisjoint(n.digest for n in default_net().nets)
    assert all(n.onnx is not None for n in photo.nets)


def test_photographed_table_read_by_photo_networks(photo_table):
    table, _ = photo_table
    reader = read_table(table, settings=FAST).meta["reader"]
    assert reader.startswith(photo_net().nets[0].digest)
    assert default_net().nets[0].digest not in reader
    # switched off, the photo reads with the scan networks
    off = read_table(table, settings=ReaderSettings(use_second=False, photo_networks=False)).meta["reader"]
    assert off.startswith(default_net().nets[0].digest)


def test_scan_read_by_scan_networks():
    path = ROOT / "samples" / "scans" / "01-classic-clean-mnist-blue.jpg"
    table = find_table(straighten(load_pages(path)[0]))
    assert table.straight.grid is None
    reader = read_table(table, settings=FAST).meta["reader"]
    assert reader.startswith(default_net().nets[0].digest)
    assert photo_net().nets[0].digest not in reader


def test_photo_networks_read_photographed_cells_better(photo_table):
    table, truth = photo_table
    rows = {r["deal"]: r for r in truth["rows"]}
    keys = ("ns", "ew", "cum_ns", "cum_ew")
    inputs, cuts, values = [], [], []
    for c in table.cells:
        if c.key in keys and c.row.isdigit() and rows[int(c.row)][c.key]:
            x, cut = prepare_cut(clear_rulings(c.image, FAST), FAST)
            if cut is not None:
                inputs.append(x)
                cuts.append(cut)
                values.append(rows[int(c.row)][c.key])
    batch = np.array(inputs)

    def right(net) -> int:
        found = net.nbest(batch, [NUMBER_SYMBOLS] * len(batch), beam=FAST.beam, cuts=cuts, settings=FAST)
        return sum(bool(f) and string_value(f[0][0]) == v for f, v in zip(found, values, strict=True))

    scan, photo = right(default_net()), right(photo_net())
    assert len(values) >= 60
    # measured: the scan networks read 39 of its 87 written numbers right, the photo networks 57
    assert photo >= scan + 0.1 * len(values), (scan, photo, len(values))



def test_photo_reading_counts_as_the_current_reader(photo_table):
    # a batch rerun must not report a photo read by the photo networks as "read by another version"
    from batch.runner import _accepted
    from ocr.ensemble import reader_version, reader_versions

    table, _ = photo_table
    settings = ReaderSettings()
    reader = read_table(table, settings=settings).meta["reader"]
    assert reader != reader_version(settings)
    assert reader in reader_versions(settings)
    assert reader in _accepted(reader_version())
    assert "older-networks+x" not in _accepted(reader_version())
