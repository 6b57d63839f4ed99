"""ocr.tess backends (in-process tesserocr, pytesseract) and ocr.printed on top of them."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from ocr import tess

HAVE_TESSEROCR = importlib.util.find_spec("tesserocr") is not None


@pytest.fixture
def fresh_engine(monkeypatch):
    """A clean backend state, restored afterwards (the engine is per process)."""
    saved = dict(tess._state)
    tess._state.update(pid=None, engine=None)
    yield monkeypatch
    tess._state.clear()
    tess._state.update(saved)


def _crop(text: str, w: int, h: int = 34, size: int = 20) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    from ocr.form import FONT_DIR

    font = ImageFont.truetype(str(FONT_DIR / "DejaVuSerif.ttf"), size)
    im = Image.new("L", (w, h), 255)
    ImageDraw.Draw(im).text((6, 5), text, font=font, fill=0)
    return np.asarray(im).copy()


@pytest.mark.parametrize("backend", ["pytesseract", "tesserocr"])
def test_each_backend_reads_the_deal_numbers_and_headers(fresh_engine, backend):
    if backend == "tesserocr" and not HAVE_TESSEROCR:
        pytest.skip("tesserocr not installed")
    from ocr.printed import read_printed

    fresh_engine.setenv(tess.ENV, backend)
    assert tess.backend() == backend
    labels = [_crop(str(n), 60) for n in range(1, 31)] + [_crop("", 60)]
    res = read_printed(_crop("Deal   Dealer   Score   Cumulative", 520), labels)
    assert res.labels[:30] == [str(n) for n in range(1, 31)] and res.labels[30] is None
    words = " ".join(w for w, _ in res.header_words).lower()
    assert "score" in words and "cumul" in words


@pytest.mark.skipif(not HAVE_TESSEROCR, reason="tesserocr not installed")
def test_in_process_engine_is_started_once_and_again_after_a_fork(fresh_engine):
    fresh_engine.setenv(tess.ENV, "tesserocr")
    img = _crop("12", 80)
    first = tess.words(img, whitelist="0123456789")
    engine = tess._state["engine"]
    assert engine is not None and [w.text for w in first] == ["12"]
    tess.words(_crop("Score", 120))  # whitelist dropped again: letters are read
    assert tess._state["engine"] is engine
    assert [w.text for w in tess.words(_crop("Score", 120))] == ["Score"]
    tess._state["pid"] = -1  # as seen from a forked child
    assert [w.text for w in tess.words(img)] == ["12"]
    assert tess._state["engine"] is not engine


@pytest.mark.skipif(not HAVE_TESSEROCR, reason="tesserocr not installed")
def test_word_boxes_agree_between_backends(fresh_engine):
    img = np.full((120, 600), 255, np.uint8)
    img[20:54, 10:130] = _crop("Dealer", 120)
    img[70:104, 300:420] = _crop("Score", 120)
    got = {}
    for backend in ("pytesseract", "tesserocr"):
        fresh_engine.setenv(tess.ENV, backend)
        tess._state.update(pid=None, engine=None)
        got[backend] = {w.text: (w.cx, w.cy) for w in tess.words(img)}
    assert set(got["pytesseract"]) == set(got["tesserocr"]) == {"Dealer", "Score"}
    for word, (x, y) in got["pytesseract"].items():
        x2, y2 = got["tesserocr"][word]
        assert abs(x - x2) <= 3 and abs(y - y2) <= 3


def test_tsv_words_are_parsed():
    tsv = ("1\t1\t0\t0\t0\t0\t0\t0\t600\t120\t-1\t\n"
           "5\t1\t1\t1\t1\t1\t10\t22\t118\t28\t96.5\tDealer\n"
           "5\t1\t1\t1\t1\t2\t300\t72\t100\t28\t91.0\t \n")
    assert tess._parse_tsv(tsv) == [tess.Word("Dealer", 10, 22, 118, 28, 96.5)]


@pytest.mark.parametrize("backend", ["pytesseract", "tesserocr"])
def test_table_carries_the_names_and_winners_read_with_the_printed_text(fresh_engine, backend):
    if backend == "tesserocr" and not HAVE_TESSEROCR:
        pytest.skip("tesserocr not installed")
    import ocr.printed as printed
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.table import find_table
    from samples.generate import generate_sheet

    fresh_engine.setenv(tess.ENV, backend)
    calls = []
    real = tess.words
    fresh_engine.setattr(printed.tess, "words", lambda *a, **k: calls.append(1) or real(*a, **k))
    data, truth = generate_sheet(50003, container="png", scan="clean", typed=True)
    table = find_table(straighten(load_pages("s.png", data=data)[0]))
    assert set(table.texts) == {"names_ns", "names_ew", "winners"}
    want = {"names_ns": truth["names"]["ns"], "names_ew": truth["names"]["ew"],
            "winners": truth["winners_text"]}
    key = "".join
    for k, v in want.items():
        assert key(table.texts[k].split()).lower() == key(v.split()).lower(), (k, table.texts)
    # one Tesseract process per sheet; in-process, printed text and fields are two reads
    assert len(calls) == (1 if backend == "pytesseract" else 2)


def test_a_short_winners_line_written_small_is_read_again_trimmed_to_its_writing(monkeypatch):
    """Generated sheet 80091 (a clean scan, our stroke hand): its winners line is a small "E/W".
    Scaled to FIELD_H with the whole writing area it is ~10 px high and Tesseract reads nothing;
    read again cut to its writing rows it names E/W.  Without the second look: unread."""
    import ocr.printed as printed
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.read import winners_hint
    from ocr.table import find_table
    from samples.generate import generate_sheet

    data, truth = generate_sheet(80091)
    assert truth["scan"] == "clean" and truth["winners_text"] == "E/W" and truth["winners"] == "ew"
    page = load_pages(f"s.{truth['format']}", data=data)[0]

    def hint() -> str | None:
        texts = find_table(straighten(page)).texts
        return winners_hint(texts["winners"], {"ns": texts["names_ns"], "ew": texts["names_ew"]})

    assert hint() == "ew"
    monkeypatch.setattr(printed, "_read_again", lambda fields, texts, settings: texts)
    assert hint() is None


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
