"""Loading hostile files: memory bounded by one page (pages stream, a pixel budget per file),
HEIC as iPhones send it, clear words for a broken PDF, EXIF turns without a second copy."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageOps

from ocr.data import InputError
from ocr.load import iter_pages, load_pages, sniff
from ocr.pipeline import read_file
from ocr.settings import LoadSettings

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
SIDE = (10_000, 7_900)  # 79 megapixels a frame, just under the per-page limit


def _peak_mb(path: Path, timeout: float = 300) -> tuple[float, str]:
    """Peak resident memory (MB) of `rubberscan read PATH` in a process of its own, as the process
    itself sees it on the way out (VmHWM; wait4's figure would count this test process's memory,
    inherited at the fork), and its stdout."""
    from bench.bench_hostile_memory import WRAP

    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_THREAD_LIMIT="1")
    proc = subprocess.run([sys.executable, "-c", WRAP, str(ROOT / "cli.py"), "read", "--format", "jsonl",
                           str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    (kb,) = [int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("PEAK_KB ")]
    return kb / 1024, proc.stdout


def _blank_tiff(path: Path, frames: int) -> Path:
    blank = Image.new("1", SIDE, 1)
    blank.save(path, format="TIFF", compression="group4", save_all=True, append_images=[blank] * (frames - 1))
    return path


@pytest.mark.slow
def test_a_tiff_of_thirty_79_megapixel_frames_is_refused_before_decoding(tmp_path):
    path = _blank_tiff(tmp_path / "bomb.tif", 30)
    assert path.stat().st_size < 200_000  # 150 KB that would decode to 7 GB as BGR
    peak, out = _peak_mb(path)
    (obj,) = [json.loads(line) for line in out.splitlines()]
    assert "2,370 megapixels in all; at most 1,500 per file" in obj["error"]
    assert peak < 250, peak  # before: 7.0 GB (bench/RESULTS-hostile.md)


@pytest.mark.slow
def test_pages_within_the_budget_are_decoded_one_at_a_time(tmp_path):
    path = _blank_tiff(tmp_path / "fifteen.tif", 15)  # 1.2 gigapixels: within the budget
    peak, out = _peak_mb(path)
    objs = [json.loads(line) for line in out.splitlines()]
    assert len(objs) == 15 and all("blank page" in o["error"] for o in objs)
    assert peak < 600, peak  # one frame (~240 MB as BGR) at a time; before: 3.6 GB


@pytest.mark.slow
def test_a_200_page_pdf_is_rendered_one_page_at_a_time(tmp_path):
    pdf = pdfium.PdfDocument.new()
    for _ in range(200):
        pdf.new_page(595, 842).close()
    path = tmp_path / "long.pdf"
    pdf.save(str(path))
    pdf.close()
    peak, out = _peak_mb(path)
    assert len(out.splitlines()) == 200
    assert peak < 300, peak  # before: 3.7 GB


def test_the_file_budget_counts_every_page_before_any_is_decoded():
    frames = [Image.new("L", (1000, 1000), 255) for _ in range(5)]
    buf = io.BytesIO()
    frames[0].save(buf, format="TIFF", save_all=True, append_images=frames[1:])
    tight = LoadSettings(max_file_pixels=4_000_000)
    with pytest.raises(InputError, match="5 pages of 5 megapixels in all; at most 4 per file"):
        iter_pages("x", data=buf.getvalue(), name="x.tif", settings=tight)  # raised at once
    assert len(load_pages("x", data=buf.getvalue(), name="x.tif")) == 5
    pdf = pdfium.PdfDocument.new()
    for _ in range(3):
        pdf.new_page(595, 842).close()
    out = io.BytesIO()
    pdf.save(out)
    with pytest.raises(InputError, match="3 PDF pages of 19 megapixels in all"):
        iter_pages("x", data=out.getvalue(), name="x.pdf", settings=LoadSettings(max_file_pixels=10_000_000))


def test_pages_come_one_by_one_and_those_before_a_damaged_page_stand():
    good = Image.new("L", (400, 600), 255)
    good.paste(0, (50, 50, 350, 60))  # some ink, so the page is not blank
    buf = io.BytesIO()
    good.save(buf, format="TIFF", save_all=True, append_images=[good, good], compression="tiff_deflate")
    data = bytearray(buf.getvalue())
    pages = iter_pages("x", data=bytes(data), name="x.tif")
    first = next(pages)
    assert first.index == 0 and first.meta["frames"] == 3
    # the third frame's pixels cut off: the first two pages are read, the third is an error
    with Image.open(io.BytesIO(bytes(data))) as im:
        im.seek(2)
        offset, size = im.tag_v2[273][0], im.tag_v2[279][0]  # the frame's strip: where, how long
    data[offset:offset + size] = b"\xff" * size
    outcomes = list(read_file("x.tif", data=bytes(data), name="x.tif"))
    assert [o.page for o in outcomes] == [0, 1, 2]
    assert "damaged or unreadable image" in outcomes[2].error
    assert all("damaged" not in (o.error or "") for o in outcomes[:2])


def test_an_empty_or_broken_pdf_says_so_in_words():
    for data in (b"%PDF-1.4\n", b"%PDF-1.7\n%%EOF\n", b"%PDF-" + b"\0" * 3000):
        with pytest.raises(InputError) as err:
            load_pages("x", data=data, name="e.pdf")
        assert str(err.value) == "e.pdf: not a readable PDF (damaged, cut off or empty)"


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_turns_match_pillows(orientation):
    rng = np.random.default_rng(orientation)
    im = Image.fromarray(rng.integers(0, 256, (300, 220, 3), dtype=np.uint8), "RGB")
    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    im.save(buf, format="PNG", exif=exif)  # lossless: the pixels can be compared exactly
    (page,) = load_pages("x", data=buf.getvalue(), name="t.png")
    expected = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(buf.getvalue()))).convert("RGB"))
    assert page.image.shape == expected.shape and page.image.flags["C_CONTIGUOUS"]
    assert np.array_equal(page.image[:, :, ::-1], expected)


def test_heic_as_iphones_send_it_is_read_like_any_photo():
    """A HEIC file made by pillow-heif (tests/hostile/data/README.md): found by its content, loaded
    and read through the whole pipeline."""
    path = DATA / "sheet-91400-photo.heic"
    data = path.read_bytes()
    assert sniff(data[:1024]) == "HEIF"
    (page,) = load_pages(path)
    assert page.meta["format"] == "HEIF" and page.image.shape == (2348, 1813, 3)
    (outcome,) = list(read_file(path))
    assert outcome.error is None
    truth = json.loads((DATA / "sheet-91400-photo.truth.json").read_text())
    written = {r["deal"]: r for r in truth["rows"]}
    cells = [(row.cells[k].best, written[row.deal][k]) for row in outcome.reading.rows
             for k in ("ns", "ew", "cum_ns", "cum_ew")]
    assert len(cells) == 120 and sum(a == b for a, b in cells) >= 114, cells


def test_a_heic_made_here_keeps_its_colours():
    import pillow_heif

    pillow_heif.register_heif_opener()
    arr = np.full((600, 400, 3), 255, np.uint8)
    arr[10:60, 10:200] = (200, 0, 0)  # red in RGB
    buf = io.BytesIO()
    Image.fromarray(arr, "RGB").save(buf, format="HEIF", quality=90)
    (page,) = load_pages("x", data=buf.getvalue(), name="red.heic")
    b, g, r = (int(v) for v in page.image[30, 100])
    assert r > 150 and b < 60 and g < 60 and int(page.image[500, 300].min()) > 230
