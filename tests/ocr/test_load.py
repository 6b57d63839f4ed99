"""ocr.load: every format loads, every kind of bad file gives a clear InputError."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from PIL import Image

from ocr.data import InputError
from ocr.load import MAX_PIXELS, load_pages


def _sheet_like(w: int = 400, h: int = 600) -> Image.Image:
    """A white page with a dark bar in the top-left corner (to see orientation)."""
    arr = np.full((h, w, 3), 255, np.uint8)
    arr[10:60, 10:200] = (200, 0, 0)  # red in RGB order
    return Image.fromarray(arr, "RGB")


def _encode(im: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    im.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _load(data: bytes, name: str = "x"):
    return load_pages("unused", data=data, name=name)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "TIFF", "BMP", "WEBP", "GIF", "PPM"])
def test_formats_load_as_bgr(fmt):
    pages = _load(_encode(_sheet_like(), fmt), f"a.{fmt.lower()}")
    assert len(pages) == 1
    img = pages[0].image
    assert img.shape == (600, 400, 3) and img.dtype == np.uint8
    # top-left bar is red in RGB, so in BGR the last channel is the large one
    b, g, r = (int(v) for v in img[30, 100])
    assert r > 150 and b < 100 and g < 100
    assert int(img[500, 300].min()) > 230
    assert pages[0].meta["format"] in (fmt, "MPO")


@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_jpeg_decoded_by_opencv_has_pillows_pixels_and_dpi(mode):
    rng = np.random.default_rng(3)
    arr = rng.integers(0, 256, (300, 200, 3), dtype=np.uint8)
    im = Image.fromarray(arr, "RGB").convert(mode)
    data = _encode(im, "JPEG", dpi=(150, 150), quality=80)
    (page,) = _load(data, "photo.jpg")  # OpenCV's decode (a plain JPEG)
    decoded = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))[:, :, ::-1]  # Pillow's, as BGR
    assert page.image.shape == (300, 200, 3) and page.image.flags["C_CONTIGUOUS"]
    assert int(np.abs(page.image.astype(int) - decoded).max()) <= 1
    assert page.meta["dpi"] == pytest.approx(150) and page.meta["format"] == "JPEG"


def test_colour_png_decoded_by_opencv_has_pillows_pixels():
    arr = np.random.default_rng(4).integers(0, 256, (300, 200, 3), dtype=np.uint8)
    (page,) = _load(_encode(Image.fromarray(arr, "RGB"), "PNG", dpi=(300, 300)), "scan.png")
    assert np.array_equal(page.image, arr[:, :, ::-1]) and page.meta["dpi"] == pytest.approx(300, abs=0.01)


def test_png_with_an_exif_turn_is_still_turned():
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 CW to display": Pillow's way, not the fast one
    (page,) = _load(_encode(_sheet_like(), "PNG", exif=exif.tobytes()), "phone.png")
    assert page.image.shape == (400, 600, 3)


def test_greyscale_16bit_and_alpha_load():
    grey16 = Image.fromarray((np.arange(400 * 300).reshape(300, 400) % 65535).astype(np.uint16))
    assert _load(_encode(grey16, "PNG"))[0].image.shape == (300, 400, 3)
    rgba = Image.new("RGBA", (300, 300), (0, 0, 0, 0))  # fully transparent -> white paper
    assert int(_load(_encode(rgba, "PNG"))[0].image.min()) == 255


def test_exif_orientation_applied():
    im = _sheet_like(400, 600)
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 CW to display"
    pages = _load(_encode(im, "JPEG", exif=exif.tobytes()), "phone.jpg")
    img = pages[0].image
    assert img.shape[:2] == (400, 600)  # width and height swapped
    # the bar that was top-left is now top-right after a 90 deg clockwise turn
    assert img[30:190, 540:590, 2].mean() > 150
    assert img[10:60, 10:200].min() > 200


def test_multipage_tiff_gives_all_pages():
    frames = [_sheet_like(), _sheet_like(500, 700), _sheet_like(300, 300)]
    buf = io.BytesIO()
    frames[0].save(buf, format="TIFF", save_all=True, append_images=frames[1:])
    pages = _load(buf.getvalue(), "scan.tif")
    assert [p.index for p in pages] == [0, 1, 2]
    assert [p.image.shape[:2] for p in pages] == [(600, 400), (700, 500), (300, 300)]


def test_pdf_gives_all_pages_rendered():
    pdf = _encode(_sheet_like(), "PDF", save_all=True, append_images=[_sheet_like()], resolution=100)
    pages = _load(pdf, "scan.pdf")
    assert len(pages) == 2
    h, w = pages[0].image.shape[:2]
    assert abs(h / w - 1.5) < 0.02 and h >= 600  # rendered at >= the embedded 100 dpi
    assert pages[0].meta["format"] == "PDF"


def test_reads_from_path(tmp_path):
    p = tmp_path / "s.png"
    p.write_bytes(_encode(_sheet_like(), "PNG"))
    assert load_pages(p)[0].source == str(p)


@pytest.mark.parametrize(
    "data, words",
    [
        (b"", "empty"),
        (b"hello, this is a text file, not an image\n" * 20, "not a supported image"),
        (b"%PDF-1.4\n%garbage that is not a pdf at all\n", "PDF"),
    ],
)
def test_bad_bytes(data, words):
    with pytest.raises(InputError, match=words):
        _load(data, "bad.bin")


def test_truncated_jpeg_is_refused():
    data = _encode(_sheet_like(800, 1000).rotate(3), "JPEG", quality=90)
    with pytest.raises(InputError, match="truncated|damaged"):
        _load(data[: len(data) // 2], "cut.jpg")


def test_truncated_jpeg_refused_even_when_pillow_is_told_to_accept_it():
    from PIL import ImageFile

    data = _encode(_sheet_like(800, 1000).rotate(3), "JPEG", quality=90)
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    try:
        with pytest.raises(InputError, match="truncated|damaged"):
            _load(data[: len(data) // 2], "cut.jpg")
        assert ImageFile.LOAD_TRUNCATED_IMAGES is True  # the caller's setting is restored
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = False


def test_truncated_png_is_refused():
    noisy = Image.fromarray(np.random.default_rng(0).integers(0, 255, (600, 600, 3), np.uint8))
    data = _encode(noisy, "PNG")
    with pytest.raises(InputError, match="truncated|damaged"):
        _load(data[: len(data) * 2 // 3], "cut.png")


def test_pdf_with_no_pages():
    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[]/Count 0>>"]
    body, offsets = b"%PDF-1.4\n", []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(body))
        body += b"%d 0 obj " % i + obj + b" endobj\n"
    xref = b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    trailer = b"trailer <</Size 3/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % len(body)
    with pytest.raises(InputError, match="no pages|empty"):
        _load(body + xref + trailer, "empty.pdf")


def test_decompression_bomb_refused_before_decoding():
    # A 20000x20000 PNG compresses to a few hundred kB; it must be refused from its header.
    side = 20000
    assert side * side > MAX_PIXELS
    im = Image.new("L", (side, 8), 255)  # build the header of a huge image cheaply
    data = bytearray(_encode(im, "PNG"))
    # Patch the IHDR height (bytes 20..24) to 20000 and fix the chunk's CRC: the
    # header now promises 400 megapixels whose data is missing; the size check must
    # fire from the header alone, before any decoding.
    data[20:24] = side.to_bytes(4, "big")
    data[29:33] = zlib.crc32(bytes(data[12:29])).to_bytes(4, "big")
    before = Image.MAX_IMAGE_PIXELS
    with pytest.raises(InputError, match="too large"):
        _load(bytes(data), "bomb.png")
    assert Image.MAX_IMAGE_PIXELS == before  # no global side effect


def test_unsupported_pillow_format_refused():
    ico = _encode(_sheet_like(256, 256), "ICO")
    with pytest.raises(InputError, match="not a supported image"):
        _load(ico, "icon.ico")


def test_tiny_image_refused():
    with pytest.raises(InputError, match="too small"):
        _load(_encode(Image.new("RGB", (40, 30), "white"), "PNG"), "tiny.png")


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_pages(tmp_path / "nope.png")
    with pytest.raises(InputError, match="folder"):
        load_pages(tmp_path)


def test_a_page_over_the_decoded_limit_is_shrunk_as_it_is_converted():
    from ocr.settings import LoadSettings

    rgb = np.full((1200, 900, 3), 255, np.uint8)
    rgb[600:, :, :] = (0, 0, 255)  # the lower half blue
    rgb[:, 450:451] = 0  # a one-pixel black line down the middle
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="TIFF", dpi=(600, 600))
    small = LoadSettings(max_decoded_pixels=300_000)  # 1.08 MP -> a factor of 2
    (page,) = load_pages("big.tif", data=buf.getvalue(), settings=small)
    assert page.image.shape == (600, 450, 3) and page.meta["shrunk"] == 2
    assert page.meta["dpi"] == 300.0
    assert tuple(page.image[500, 10]) == (255, 0, 0)  # blue as BGR, the halves where they were
    assert tuple(page.image[100, 10]) == (255, 255, 255)
    assert page.image[:, 225].max(axis=1).min() < 160  # the line averaged, not lost
    (full,) = load_pages("big.tif", data=buf.getvalue())
    assert full.image.shape == (1200, 900, 3) and "shrunk" not in full.meta
