"""The commands: `rubberscan review` (served by waitress, its address first, loopback only unless
--host, then with a token), `export --format csv|json` (verified values, each sheet's status) and
`rubberscan labels` (the cells people decided, as training data)."""

from __future__ import annotations

import csv
import http.cookiejar
import io
import json
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from review.folder import Folder
from review.providers import default_providers
from tests.review.conftest import ledger_with
from tests.support import SEED_001, running, sheet

ROOT = Path(__file__).resolve().parents[2]
ROWS = running(SEED_001)


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "cli.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, **kw)


@pytest.fixture
def decided(tmp_path) -> Path:
    """A folder with two sheets: one whose unreadable cell a person decided, one untouched."""
    out = ledger_with(tmp_path / "out", {"s1": sheet(ROWS, probs={(4, "ns"): [(None, 0.9)]}),
                                         "s2": sheet(ROWS)})
    folder = Folder(out, default_providers())
    it = next(i for i in folder.items(folder.sheet("s1")) if i.key == "review:5:ns")
    folder.decide("s1", 0, it.decide({"choice": 0}), "alice")
    return out


class Server:
    def __init__(self, *args: str):
        self.proc = subprocess.Popen([sys.executable, "cli.py", "review", *args], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.first = self.proc.stdout.readline().strip()

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=20)


def test_review_listens_on_loopback_only_and_says_where_first(decided):
    server = Server(str(decided), "--port", "0")
    try:
        assert server.first.startswith("http://127.0.0.1:") and server.first.endswith("/")
        port = int(server.first.rsplit(":", 1)[1].strip("/"))
        with urllib.request.urlopen(server.first, timeout=10) as answer:
            assert answer.status == 200 and answer.headers["Server"] == "rubberscan"
            page = answer.read().decode()
        assert 'data-sheet="s1"' in page and 'data-sheet="s2"' in page
        with pytest.raises(OSError):  # another loopback address: nobody listens there
            socket.create_connection(("127.0.0.2", port), timeout=2).close()
    finally:
        assert server.stop() == 0


def test_review_elsewhere_needs_its_token(decided):
    server = Server(str(decided), "--port", "0", "--host", "127.0.0.2")
    try:
        address, token = server.first.split("?token=")
        assert address.startswith("http://127.0.0.2:") and len(token) >= 20
        assert "token" in server.proc.stdout.readline()  # said once, with a warning
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(address, timeout=10)
        assert refused.value.code == 403
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(server.first, timeout=10) as answer:  # the token once, then the cookie
            assert answer.status == 200 and answer.url == address
        with opener.open(address + "sheet/s1", timeout=10) as answer:
            assert answer.status == 200
    finally:
        assert server.stop() == 0


def test_review_says_what_is_wrong(tmp_path, decided):
    missing = cli("review", str(tmp_path / "nowhere"), "--port", "0")
    assert missing.returncode == 2 and "no ledger.sqlite" in missing.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = cli("review", str(decided), "--port", str(taken.getsockname()[1]))
    assert busy.returncode == 1 and "cannot listen" in busy.stderr


def test_export_gives_the_verified_values_and_each_status(decided):
    rows = list(csv.DictReader(io.StringIO(cli("export", str(decided)).stdout)))
    by = {r["sheet_id"]: r for r in rows}
    assert by["s1"]["review_status"] == "to check"  # deal 8 is missing: a flag still open
    assert by["s1"]["decided_cells"] == "5:ns" and by["s1"]["decided_by"] == "alice"
    assert by["s2"]["review_status"] == "to check" and by["s2"]["decided_cells"] == ""
    exported = json.loads(cli("export", str(decided), "--format", "json").stdout)
    s1 = next(o for o in exported if o["sheet_id"] == "s1")
    deal5 = next(r for r in s1["rows"] if r["deal"] == 5)
    assert deal5["ns"] == 60 and deal5["decided"] == ["ns"]
    assert [(f["kind"], f["state"]) for f in s1["flags"]] == [("missing_deal", "open")]
    assert [d["after"] for d in s1["decisions"]] == [60] and s1["review"] == []
    written = decided / "season.json"
    done = cli("export", str(decided), "--format", "json", "--output", str(written))
    assert done.returncode == 0 and "2 sheets written" in done.stderr
    assert json.loads(written.read_text()) == exported


def test_labels_without_a_decided_cell_say_so(tmp_path):
    out = ledger_with(tmp_path / "out", {"s1": sheet(ROWS)})
    done = cli("labels", str(out), "--out", str(tmp_path / "l.npz"))
    assert done.returncode == 1 and "no cell has been confirmed" in done.stderr
    assert not (tmp_path / "l.npz").exists()


@pytest.mark.slow
def test_labels_are_the_decided_cells_as_the_reader_saw_them(scanned_copy, tmp_path):
    folder = Folder(scanned_copy, default_providers())
    sheet_ = next(s for s in folder.ledger().sheets() if s.source.endswith("blotted.jpg"))
    sid = sheet_.sheet_id
    for key, answer in (("review:3:cum_ns", {"choice": 0}), ("review:7:ns", {"value": "150"})):
        it = next(i for i in folder.items(folder.sheet(sid)) if i.key == key)
        folder.decide(sid, folder.ledger().review_state(sid)[1], it.decide(answer), "alice")
    out = tmp_path / "labels.npz"
    done = cli("labels", str(scanned_copy), "--out", str(out))
    assert done.returncode == 0, done.stderr
    with np.load(out) as npz:
        images, values, sources = npz["images"], npz["values"], npz["sources"]
    assert images.dtype == np.uint8 and values.dtype.kind == "U" and sources.dtype.kind == "U"
    assert list(values) == ["100", "150"] and "deal 3 cum_ns" in sources[0]
    # each image is the reader's own cell, centred on white, unscaled
    full = sheet_.layout["full"]
    boxes = {(r, k): (x, y, w, h) for r, k, x, y, w, h in full["cells"]}
    cells = cv2.imread(str(scanned_copy / "sheets" / full["cells_image"]), cv2.IMREAD_GRAYSCALE)
    for image, (row, key) in zip(images, (("3", "cum_ns"), ("7", "ns")), strict=True):
        x, y, w, h = boxes[(row, key)]
        ys, xs = (images.shape[1] - h) // 2, (images.shape[2] - w) // 2
        assert np.array_equal(image[ys:ys + h, xs:xs + w], cells[y:y + h, x:x + w])
        assert (image[:ys] == 255).all() and (image[:, :xs] == 255).all()
