"""The second reader (ocr/ppocr.py), its combination with the cell networks (ocr.ensemble.combine),
crops given on their own (ocr/crop.py) and ``rubberscan cell`` (ocr/cellread.py)."""

from __future__ import annotations

import json
import sys
import zipfile
from dataclasses import replace

import cv2
import numpy as np
import pytest

from ocr.crop import cell_image
from ocr.ctc import ALPHABET
from ocr.ensemble import combine, tempered
from ocr.ppocr import MODEL_PATH, LineReader, default_reader, extract, read_line
from ocr.read import read_cells
from ocr.runtime import onnx_metadata
from ocr.settings import ReaderSettings

needs_model = pytest.mark.skipif(not MODEL_PATH.exists(), reason="the second reader's model is installed by `make install`")


def _text_image(text: str, height: int = 64, scale: float = 1.6, thickness: int = 3) -> np.ndarray:
    """Grey, paper 250, ``text`` in a plain font (the second reader reads print as well as hands)."""
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    img = np.full((height, w + 40), 250, np.uint8)
    cv2.putText(img, text, (20, (height + h) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, 20, thickness, cv2.LINE_AA)
    return img


def test_metadata_is_parsed_without_the_onnx_package():
    """A hand-made ModelProto: field 14 entries (key 1, value 2) among other fields."""
    def ld(number: int, payload: bytes) -> bytes:
        return bytes([number << 3 | 2, len(payload)]) + payload

    entry = ld(1, b"character") + ld(2, "0\n1\n€".encode())
    model = bytes([1 << 3 | 0, 7]) + ld(7, b"graph bytes") + ld(14, entry) + ld(14, ld(1, b"other"))
    assert onnx_metadata(model) == {"character": "0\n1\n€", "other": ""}


def test_extract_checks_the_digest(tmp_path):
    wheel = tmp_path / "rapidocr-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("rapidocr/models/PP-OCRv6_rec_small.onnx", b"not the model")
    with pytest.raises(ValueError, match="SHA-256"):
        extract(wheel, tmp_path / "model.onnx")
    assert not (tmp_path / "model.onnx").exists()


@needs_model
@pytest.mark.parametrize("runtime", ["onnxruntime", "opencv"])
def test_the_model_split_before_its_last_layer_gives_its_probabilities(monkeypatch, runtime):
    """The reader runs the model to its last layer's features and computes the softmax head itself
    (ocr.runtime.split_softmax_head, written without the onnx package): the same probabilities as
    the whole model, in either runtime, and a cell's symbols read from their columns alone as from
    every character's."""
    from ocr.runtime import onnx_net, split_softmax_head

    monkeypatch.setenv("RUBBERSCAN_RUNTIME", runtime)
    model = MODEL_PATH.read_bytes()
    trunk, w, b = split_softmax_head(model)
    assert w.shape == (120, 18710) and b.shape == (18710,) and len(trunk) < len(model) - w.nbytes
    assert onnx_metadata(trunk) == onnx_metadata(model)  # the rest of the file as it was
    crops = [_text_image("1460"), _text_image("90", height=40), _text_image("2 310", height=56)]
    whole, reader = onnx_net(model), LineReader.load(MODEL_PATH)
    x = np.zeros((1, 3, 48, 320), np.float32)
    x[0, :, :, :200] = np.linspace(-1, 1, 200, dtype=np.float32)
    whole.setInput(x)
    z = reader.net()
    z.setInput(x)
    logits = z.forward()[0] @ w + b
    soft = np.exp(logits - logits.max(axis=1, keepdims=True))
    assert np.abs(soft / soft.sum(axis=1, keepdims=True) - whole.forward()[0]).max() < 1e-4
    settings = ReaderSettings(second_as_digit="S5 O0")
    full = [reader.cell_frames(p, settings) for p in reader.probs(crops)]
    cells = reader.cell_probs(crops, settings)
    for f, c in zip(full, cells, strict=True):
        assert f.shape == c.shape and np.abs(np.exp(f) - np.exp(c)).max() < 1e-5
    with pytest.raises(ValueError, match="softmax"):
        split_softmax_head(trunk)  # a model whose output is no softmax
    whole_reader = LineReader.load(MODEL_PATH)
    whole_reader._maps["head"] = (model, None, None)  # as a model that cannot be split runs: whole
    for c, f in zip(cells, whole_reader.cell_probs(crops, settings), strict=True):
        assert np.abs(np.exp(f) - np.exp(c)).max() < 1e-5


@needs_model
def test_installed_model_reads_printed_digits_and_words():
    reader = default_reader()
    assert reader is not None and reader.chars[0] == "" and "7" in reader.chars
    probs = reader.probs([_text_image("1460"), _text_image("Smith / Jones")])
    assert reader.text(probs[0])[0] == "1460"
    assert reader.text(probs[1])[0].replace(" ", "") == "Smith/Jones"
    lp = reader.mapped(probs[0], ALPHABET)
    assert lp.shape == (len(probs[0]), len(ALPHABET) + 1)
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0)
    assert read_line(_text_image("Lee & Stone"), reader)[0].replace(" ", "") == "Lee&Stone"
    assert read_line(np.full((40, 200), 245, np.uint8), reader) == ("", 1.0)


@needs_model
def test_onnxruntime_and_opencv_give_the_same_probabilities(monkeypatch):
    """The second reader runs through ONNX Runtime where it is installed and OpenCV's dnn module
    otherwise (RUBBERSCAN_RUNTIME=opencv forces it): both give the same frames."""
    pytest.importorskip("onnxruntime")
    from ocr.runtime import OrtNet

    crops = [_text_image("1460"), _text_image("70", height=80), _text_image("Smith / Jones")]
    frames = {}
    for runtime in ("onnxruntime", "opencv"):
        monkeypatch.setenv("RUBBERSCAN_RUNTIME", runtime)
        reader = LineReader.load(MODEL_PATH)
        assert isinstance(reader.net(), OrtNet) == (runtime == "onnxruntime")
        frames[runtime] = reader.probs(crops, batch=2)
    for a, b in zip(frames["onnxruntime"], frames["opencv"], strict=True):
        assert a.shape == b.shape and np.abs(a - b).max() < 1e-3
    monkeypatch.delenv("RUBBERSCAN_RUNTIME")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # not installed: OpenCV's dnn reads alike
    reader = LineReader.load(MODEL_PATH)
    assert not isinstance(reader.net(), OrtNet)
    assert np.abs(reader.probs(crops[:1])[0] - frames["onnxruntime"][0]).max() < 1e-3
    monkeypatch.setenv("RUBBERSCAN_RUNTIME", "onnxruntime")  # asked for by name: its absence is an error
    with pytest.raises(ImportError):
        LineReader.load(MODEL_PATH).net()
    monkeypatch.setenv("RUBBERSCAN_RUNTIME", "tflite")
    with pytest.raises(ValueError, match="RUBBERSCAN_RUNTIME"):
        LineReader.load(MODEL_PATH).net()


def _install(reader: LineReader, net) -> None:
    """``net`` (a stand-in answering frames' probabilities, as the whole model does) as ``reader``'s
    model, run whole (no last layer split off)."""
    import os

    reader._dnn[os.getpid()] = net
    reader._maps["head"] = (b"", None, None)


class _Net:
    """A stand-in for the model in OpenCV's dnn module: keeps its inputs, answers blank frames."""

    def __init__(self, classes: int) -> None:
        self.classes, self.inputs = classes, []

    def setInput(self, x):  # noqa: N802 - OpenCV's name
        self.inputs.append(x)

    def forward(self):
        x = self.inputs[-1]
        y = np.zeros((x.shape[0], x.shape[3] // 8, self.classes), np.float32)
        y[:, :, 0] = 1.0
        return y


def test_crops_are_padded_mid_grey_to_the_models_width():
    """PaddleOCR pads every line to at least 48 x 320, mid-grey (0 after normalisation); a crop
    padded only to its own width read ORAND's tight cheque amounts worse (RESULTS-read.md)."""

    reader = LineReader(("", "0", "1", "-", " "), b"", "test")
    net = _Net(len(reader.chars))
    _install(reader, net)
    narrow, wide = np.full((48, 96), 255, np.uint8), np.full((24, 300), 255, np.uint8)
    frames = reader.probs([narrow, wide])
    x = net.inputs[-1]
    assert x.shape == (2, 3, 48, 600)  # the widest crop (600 columns at 48 rows) sets the batch's width
    assert (x[0, :, :, :96] == 1.0).all() and (x[0, :, :, 96:] == 0.0).all()  # paper, then mid-grey
    assert [len(f) for f in frames] == [96 // 8 + 2, 600 // 8]
    reader.probs([narrow], min_width=320)
    assert net.inputs[-1].shape == (1, 3, 48, 320)


def test_a_line_far_wider_than_tall_is_padded_to_a_bounded_shape():
    """A winners field whose only long ink is a ruling's leftover: read_line shows the model a
    crop at most second_line_max_aspect x its height (a 48 x 3,626 crop cost ~200 MB of memory)."""

    reader = LineReader(("", "0", "1", "-", " "), b"", "test")
    net = _Net(len(reader.chars))
    _install(reader, net)
    field = np.full((40, 3000), 250, np.uint8)
    field[20:22, 10:2990] = 30  # a thin dark line across the field
    read_line(field, reader)
    x = net.inputs[-1]
    limit = ReaderSettings().second_line_max_aspect
    assert x.shape[2] == 48 and x.shape[3] <= limit * 48 + 1
    line = np.full((40, 300), 250, np.uint8)
    cv2.putText(line, "NS", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 20, 2)
    read_line(line, reader)  # an ordinary line is shown as it is
    assert net.inputs[-1].shape[3] == 240


def test_the_second_reader_reads_digits_and_nothing_else():
    """Separators, ticks and dashes the model reads count as "nothing here": a cheque's "1.500,-"
    is the number 1500, and a dash alone (worth 0) reads as a blank does."""
    reader = LineReader(("", "1", "5", "0", ".", "-", "A", " "), b"", "test")
    probs = np.zeros((5, len(reader.chars)))
    for t, c in enumerate((1, 4, 2, 5)):  # "1", ".", "5", "-"
        probs[t, c] = 1.0
    probs[4, [6, 0, 1]] = 0.9, 0.06, 0.04  # mostly "A", a little blank and "1"
    lp = np.exp(reader.mapped(probs, ALPHABET))
    assert lp[0, ALPHABET.index("1") + 1] == pytest.approx(1.0) and lp[2, ALPHABET.index("5") + 1] == pytest.approx(1.0)
    assert lp[1, 0] == pytest.approx(1.0) and lp[3, 0] == pytest.approx(1.0)  # "." and "-": nothing here
    assert lp[3, ALPHABET.index("-") + 1] < 1e-20
    assert lp[4, 0] == pytest.approx(0.6) and lp[4, ALPHABET.index("1") + 1] == pytest.approx(0.4)  # "A" left out


def _frames(path: list[int], sure: float = 0.98) -> np.ndarray:
    """Log-probabilities over the cell alphabet: each frame sure of the class in ``path``."""
    k = len(ALPHABET) + 1
    p = np.full((len(path), k), (1 - sure) / (k - 1))
    p[np.arange(len(path)), path] = sure
    return np.log(p)


def _path(s: str) -> list[int]:
    out = [0]
    for ch in s:
        out += [ALPHABET.index(ch) + 1, 0]
    return out + [0] * 3


def test_combination_settles_a_doubt_and_keeps_disagreement_unsure():
    nets = [("120", 0.55), ("170", 0.40)]
    st = ReaderSettings(second_share=0.5)
    agree = combine(nets, _frames(_path("120")), _frames(_path("120"), 0.6), st)
    assert agree[0][0] == "120" and agree[0][1] > 0.65  # the networks alone: 0.55
    other = combine(nets, _frames(_path("170")), _frames(_path("120"), 0.6), st)
    assert other[0][0] == "170" and other[0][1] < 0.75  # nets and second reader disagree: unsure
    # a string only the second reader proposes is listed, scored under the first network too
    new = combine(nets, _frames(_path("180")), _frames(_path("120"), 0.6), st)
    assert "180" in dict(new)
    assert sum(p for _, p in new) <= 1 + 1e-9
    # the product rule: agreement makes the reading surer than either reader alone
    prod = combine(nets, _frames(_path("120")), _frames(_path("120"), 0.6), ReaderSettings(second_share=0.0))
    assert prod[0][0] == "120" and prod[0][1] > 0.9


def test_second_reader_weighs_more_where_the_networks_are_lost():
    nets = [("120", 0.25), ("170", 0.2)]  # the networks hardly know: a hand unlike their training's
    second, first = _frames(_path("170"), 0.995), _frames(_path("120"), 0.4)
    lost = combine(nets, second, first, ReaderSettings(second_none=1.0))
    even = combine(nets, second, first, ReaderSettings(second_lost=0.0, second_none=1.0))
    assert lost[0][0] == even[0][0] == "170"
    assert lost[0][1] > 0.7 and even[0][1] < 0.5  # share 0.7 there, 0.3 elsewhere
    alone = combine(nets, second, first, ReaderSettings(second_share=1.0))  # the second reader alone stays alone
    assert alone[0][0] == "170" and alone[0][1] > 0.9
    # faint or fax-dotted ink: the networks lost, the second reader sees nothing -- no confident 0
    nothing = combine(nets, _frames([0] * 9, 0.995), first, ReaderSettings())
    assert nothing == combine(nets, _frames([0] * 9, 0.995), first, ReaderSettings(second_lost=0.0))
    assert all(p < 0.5 for s, p in nothing if s.strip("-").lstrip("0") == "")
    # where the networks are surer than second_lost the usual share holds
    assert combine([("120", 0.55), ("170", 0.4)], second, first, ReaderSettings()) == \
        combine([("120", 0.55), ("170", 0.4)], second, first, ReaderSettings(second_lost=0.0))


def test_calibration_tempers_certainty_and_keeps_the_order():
    found = [("120", 0.97), ("170", 0.02)]  # "none of these": the 0.01 left
    assert tempered(found, 1.0) == found
    soft = tempered(found, 0.5)
    assert [s for s, _ in soft] == ["120", "170"]
    assert 0.8 < soft[0][1] < 0.95 and soft[1][1] > 0.02  # below 0.95 now; the rest gains
    none = 1 - sum(p for _, p in soft)
    assert none > 0.01 and abs(none - 0.1 / (0.97 ** 0.5 + 0.02 ** 0.5 + 0.1)) < 1e-9
    assert tempered([], 0.5) == []
    # the reader applies each power where it belongs, and a reading's version says so
    cells = [cell_image(_text_image("880"))]
    sure = read_cells(cells, ReaderSettings(use_second=False))[0]
    cooled = read_cells(cells, ReaderSettings(use_second=False, nets_power=0.5))[0]
    assert cooled.best == sure.best == 880 and cooled.candidates[0][1] < sure.candidates[0][1]
    assert read_cells(cells, ReaderSettings(use_second=False, combined_power=0.5))[0].candidates == sure.candidates
    from ocr.ensemble import _version

    assert "power0.5-1" in _version(["a"], None, None, ReaderSettings(nets_power=0.5))
    assert "power" not in _version(["a"], None, None, ReaderSettings())


def test_crop_on_patterned_paper_with_an_underline_becomes_a_clean_cell():
    rng = np.random.default_rng(3)
    g = _text_image("3520", height=70).astype(np.float32)
    yy, xx = np.mgrid[: g.shape[0], : g.shape[1]]
    g = np.minimum(g, 200 + 30 * np.sin((xx + yy) / 3.0))  # a cheque's diagonal pattern
    g -= np.linspace(0, 40, g.shape[1])[None, :]  # shading across
    g[60:63, :] = 60  # an underline
    g += rng.normal(0, 3, g.shape)
    cell = cell_image(np.clip(g, 0, 255).astype(np.uint8))
    assert cell.dtype == np.uint8 and cell.ndim == 2
    assert np.percentile(cell, 50) == 255  # the pattern is paper now
    runs = cv2.morphologyEx((cell < 128).astype(np.uint8), cv2.MORPH_OPEN, np.ones((1, cell.shape[1] // 2), np.uint8))
    assert not runs.any()  # no underline left across it
    assert read_cells([cell])[0].best == 3520
    assert (cell_image(np.full((50, 120), 180, np.uint8) + rng.integers(0, 4, (50, 120)).astype(np.uint8)) == 255).all()


def test_read_cells_is_the_sheet_code_with_and_without_the_second_reader():
    cells = [cell_image(_text_image("880")), np.full((60, 150), 250, np.uint8)]
    for st in (ReaderSettings(use_second=False), ReaderSettings(second_unsure=1.01)):
        r = read_cells(cells, st)
        assert r[0].best == 880
        assert r[1].blank and r[1].best == 0


def test_cell_command(tmp_path, capsys):
    from cli import main

    good = tmp_path / "a.png"
    cv2.imwrite(str(good), cv2.cvtColor(_text_image("1460"), cv2.COLOR_GRAY2BGR))
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((40, 100), 250, np.uint8))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(good.read_bytes()[:100])
    text = tmp_path / "notes.txt"
    text.write_text("1460")
    assert main(["cell", str(good), str(tmp_path / "missing.png"), str(broken), str(text), str(blank)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["source"] for x in lines] == [str(good), str(tmp_path / "missing.png"), str(broken), str(text), str(blank)]
    assert lines[0]["value"] == 1460 and lines[0]["candidates"][0][0] == 1460
    assert all(isinstance(v, int) and 0 <= p <= 1 for v, p in lines[0]["candidates"])
    assert "no such file" in lines[1]["error"]
    assert "broken" in lines[2]["error"] or "truncated" in lines[2]["error"]
    assert "not an image" in lines[3]["error"]
    assert lines[4]["value"] == 0 and "error" not in lines[4]


def test_second_reader_can_be_switched_off(monkeypatch):
    default_reader.cache_clear()
    monkeypatch.setenv("RUBBERSCAN_SECOND", "0")
    try:
        assert default_reader() is None
        monkeypatch.setenv("RUBBERSCAN_SECOND", "maybe")
        default_reader.cache_clear()
        with pytest.raises(ValueError, match="RUBBERSCAN_SECOND"):
            default_reader()
    finally:
        default_reader.cache_clear()
    assert replace(ReaderSettings(), use_second=False).use_second is False


@needs_model
def test_version_names_the_second_reader():
    from ocr.ensemble import default_net
    from ocr.read import reader_version

    net = default_net()
    assert reader_version(net, None) == net.version
    from ocr.ensemble import PREPARE_MARK
    from ocr.ensemble import reader_version as default_version

    v = reader_version(net, LineReader.load(MODEL_PATH))
    assert "+second-" in v and v.endswith("+" + PREPARE_MARK) and "mix" in v
    assert v.replace(v.split("+")[-2] + "+", "") == net.version
    assert default_version() == v  # what batch/runner compares stored readings with


@needs_model
def test_winners_line_tesseract_left_unread_is_read_by_the_second_reader():
    from ocr.data import CellImage, Page, StraightPage, Table
    from ocr.read import read_table

    bgr = np.full((50, 50, 3), 255, np.uint8)
    straight = StraightPage(page=Page("w", 0, bgr), image=bgr, to_original=np.eye(3))
    quad = np.zeros((4, 2), np.float32)
    cells = [CellImage("ns", "1", np.full((40, 120), 255, np.uint8), quad),
             CellImage("winners", "", _text_image("Dunn / Grant", height=60, scale=1.2, thickness=2), quad)]
    texts = {"names_ns": "Lee / Stone", "names_ew": "Dunn / Grant", "winners": None}
    with_second = read_table(Table(straight=straight, cells=cells, texts=texts))
    assert with_second.winners_hint == "ew" and with_second.winners_text.replace(" ", "") == "Dunn/Grant"
    without = read_table(Table(straight=straight, cells=cells, texts=texts), settings=ReaderSettings(use_second=False))
    assert without.winners_hint is None and without.winners_text is None


def test_a_sliver_of_ink_is_shown_no_wider_than_the_aspect_limit():
    from ocr.ensemble import second_crop
    from ocr.prep import Cut

    ink = np.zeros((60, 900), np.float32)
    ink[30:33, 10:890] = 1.0  # a smear three pixels high across the cell
    s = ReaderSettings()
    crop = second_crop(Cut(x0=0, xscale=1.0, y0=30, y1=33, ink=ink), s)
    assert crop.shape[1] <= s.second_max_aspect * crop.shape[0] + 1
    assert (crop < 128).sum() == 3 * 880  # the ink kept whole, paper added above and below
    digits = np.zeros((60, 200), np.float32)
    digits[15:45, 20:180] = 1.0
    same = second_crop(Cut(x0=20, xscale=1.0, y0=15, y1=45, ink=digits, x1=180), s)
    pad = round(s.second_margin * 30) + 1
    assert same.shape == (30 + 2 * pad, 160 + 2 * pad)  # a number's crop as before


class _CountedChars(tuple):
    """A character list that counts how often it is walked through."""

    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()


def test_the_character_list_is_indexed_once_per_reader_not_per_cell():
    """The model's 18,710 characters were indexed for every cell it read (~8 ms a cell, most of a
    photo's second-reader time outside the network); the same frames map alike every time."""
    reader = LineReader(_CountedChars(("", "1", "5", "0", ".", "-", "A", " ")), b"", "test")
    probs = np.random.default_rng(1).dirichlet(np.ones(len(reader.chars)), size=6)
    first = reader.mapped(probs, ALPHABET)
    walks = _CountedChars.walks
    for _ in range(3):
        assert np.array_equal(reader.mapped(probs, ALPHABET), first)
    assert _CountedChars.walks == walks


def test_frames_passed_through_keep_as_each_batch_is_read_hold_no_batch_output():
    """A cell's full frames (18,710 characters each) were kept, as views into their batch's output,
    until every cell was read: ~280 MB for a photo's ~100 cells.  With ``keep`` each image's frames
    are reduced as soon as its batch is read, the same as reducing them afterwards."""

    reader = LineReader(("", "0", "1", "-", " "), b"", "test")
    net = _Net(len(reader.chars))
    _install(reader, net)
    crops = [np.full((48, w), 255, np.uint8) for w in (60, 300, 96, 200, 48)]
    full = reader.probs(crops, batch=2)
    kept = reader.probs(crops, batch=2, keep=lambda p: reader.mapped(p, ALPHABET))
    for f, k in zip(full, kept, strict=True):
        assert np.array_equal(reader.mapped(f, ALPHABET), k)
        assert k.base is None or k.base.shape[0] == k.shape[0]  # its own array, not a batch's view


def test_a_one_written_as_a_slanted_bar_is_read_as_a_1_not_dropped():
    """The model reads a 1 written as one slanted stroke as "/" (the sheets' "1210" as "12/0"); a
    separator mark that would drop the digit: with ``as_one`` it counts as a 1, other marks stay
    nothing and a symbol of the alphabet is never taken for a 1."""
    reader = LineReader(("", "1", "2", "0", "/", ".", "|", " "), b"", "test")
    probs = np.zeros((4, len(reader.chars)))
    for t, c in enumerate((1, 2, 4, 3)):  # "1", "2", "/", "0"
        probs[t, c] = 1.0
    dropped = np.exp(reader.mapped(probs, ALPHABET, ignored="./", as_one=""))
    assert dropped[2, 0] == pytest.approx(1.0)  # the "/" was nothing: "120"
    one = np.exp(reader.mapped(probs, ALPHABET, ignored="./", as_one="/|"))
    assert one[2, ALPHABET.index("1") + 1] == pytest.approx(1.0) and one[2, 0] < 1e-20  # "1210"
    assert np.allclose(one[[0, 1, 3]], dropped[[0, 1, 3]])
    probs[2] = 0.0
    probs[2, [5, 6]] = 0.7, 0.3  # mostly ".", some "|"
    mixed = np.exp(reader.mapped(probs, ALPHABET, ignored="./", as_one="/|"))
    assert mixed[2, 0] == pytest.approx(0.7) and mixed[2, ALPHABET.index("1") + 1] == pytest.approx(0.3)
    assert reader._columns(ALPHABET, "", "1/")[2] == [4]  # "1" itself is the digit's own column


def test_a_digit_read_as_a_look_alike_letter_counts_as_that_digit():
    """The model reads many a handwritten 5 as "S" and a 0 as "O"; in a number cell with
    ``as_digit`` those letters' probability goes to their digits -- also where the cell alphabet
    has the letter itself (the dealer's "S"), which then keeps none of it -- not lost to "none"."""
    from ocr.ctc import ctc_nbest
    from ocr.ensemble import NUMBER_SYMBOLS

    reader = LineReader(("", "1", "S", "O", "5", "0", "x", " "), b"", "test")
    probs = np.zeros((7, len(reader.chars)))
    for t, c in enumerate((1, 0, 2, 0, 3, 0, 0)):  # "1", "S", "O" between blanks
        probs[t, c] = 1.0
    plain = reader.mapped(probs, ALPHABET, ignored=".")
    read = [s for s, _ in ctc_nbest(plain, allowed=NUMBER_SYMBOLS)]
    assert "150" not in read  # the S stays the letter, the O is nothing: no number reads 150
    alike = reader.mapped(probs, ALPHABET, ignored=".", as_digit="S5 O0 x")  # "x": no pair, ignored
    best = ctc_nbest(alike, allowed=NUMBER_SYMBOLS)[0]
    assert best[0] == "150" and best[1] == pytest.approx(1.0)
    assert np.exp(alike[2, ALPHABET.index("S") + 1]) < 1e-20
    probs[2] = 0.0
    probs[2, [2, 4]] = 0.6, 0.4  # mostly "S", some "5": all of it the digit
    assert np.exp(reader.mapped(probs, ALPHABET, as_digit="S5")[2, ALPHABET.index("5") + 1]) == pytest.approx(1.0)
    # a cell's frames as the settings map them (the reading, the second look and the benches alike)
    settings = ReaderSettings(second_ignored=".", second_as_digit="S5 O0")
    assert np.array_equal(reader.cell_frames(probs, settings),
                          reader.mapped(probs, ALPHABET, ignored=".", as_digit="S5 O0"))
    assert not np.array_equal(reader.cell_frames(probs, settings), reader.cell_frames(probs, ReaderSettings(
        second_ignored=".", second_as_digit="")))
    from ocr.ppocr import mark

    assert mark("d", ReaderSettings(second_as_digit="S5")) != mark("d", ReaderSettings())


def test_the_second_reader_leads_where_it_is_sure_and_the_networks_are_not():
    nets = [("130", 0.8), ("30", 0.1)]  # fairly unsure, not lost; the two disagree on how many digits
    second, first = _frames(_path("30"), 0.999), _frames(_path("130"), 0.6)
    shipped = combine(nets, second, first, ReaderSettings(second_sure=1.01))
    sure = combine(nets, second, first, ReaderSettings(second_sure=0.95, second_share_sure=0.9))
    assert shipped[0][0] == "130" and sure[0][0] == "30" and sure[0][1] > 0.8
    # not where the second reader is less sure than second_sure, nor where the networks are surer
    unsure_second = _frames(_path("30"), 0.9)
    assert combine(nets, unsure_second, first, ReaderSettings(second_sure=0.999, second_share_sure=0.9)) == \
        combine(nets, unsure_second, first, ReaderSettings(second_sure=1.01))
    # nor where it reads nothing or a 0 (faint ink both readers miss)
    nothing = _frames([0] * 9, 0.9999)
    assert combine(nets, nothing, first, ReaderSettings(second_sure=0.9, second_share_sure=0.9)) == \
        combine(nets, nothing, first, ReaderSettings(second_sure=1.01))
    # where they disagree on a digit, not on how many, only at second_sure_same
    digit = _frames(_path("170"), 0.999)
    same = ReaderSettings(second_sure=0.95, second_share_sure=0.9, second_sure_same=1.01)
    assert combine(nets, digit, first, same) == combine(nets, digit, first, ReaderSettings(second_sure=1.01, second_sure_same=1.01))
    anylen = combine(nets, digit, first, replace(same, second_sure_same=0.99))
    assert anylen[0][0] == "170" and anylen[0][1] > 0.8
    assert combine(nets, digit, first, replace(same, second_sure_same=0.9995)) == combine(nets, digit, first, same)
    # "none of these" left by both readers is scaled by second_none, the strings' order kept
    half = combine(nets, digit, first, ReaderSettings(second_none=0.5))
    whole = combine(nets, digit, first, ReaderSettings(second_none=1.0))
    assert [s for s, _ in half] == [s for s, _ in whole]
    assert 1 - sum(p for _, p in half) < 1 - sum(p for _, p in whole)
    from ocr.ppocr import mark

    assert "-sure0.95-0.9" in mark("d", ReaderSettings(second_sure=0.95, second_share_sure=0.9))
    assert "-sure" not in mark("d", ReaderSettings(second_sure=1.01))


class _Says(_Net):
    """A stand-in model that reads every crop as "1/0" (a 1 written as a slanted stroke in the middle)."""

    def forward(self):
        y = super().forward()
        for t, c in ((1, 2), (3, 3), (5, 1)):  # "1", "/", "0" between blanks
            y[:, t, 0], y[:, t, c] = 0.0, 1.0
        return y


def test_the_sheet_code_maps_the_second_readers_marks_as_its_settings_say():
    """number_strings (what sheets and ``rubberscan cell`` read through) must map the second
    reader's frames with the settings' second_as_one, not the default's."""

    from ocr.ensemble import default_net, number_strings
    from ocr.prep import prepare_cut

    reader = LineReader(("", "0", "1", "/", " "), b"", "test")
    _install(reader, _Says(len(reader.chars)))
    net = default_net()
    for as_one, want in (("/", "110"), ("", "10")):
        st = ReaderSettings(second_unsure=1.01, second_share=1.0, second_as_one=as_one)
        x, cut = prepare_cut(cell_image(_text_image("110")), st)
        found, _, asked = number_strings(x[None], [cut], net.nets[0].read(x[None], st), net, reader, st)
        assert asked == 1 and found[0][0][0] == want
