"""Decode one input file (image or PDF) into :class:`~ocr.data.Page` objects, one page at a time.

Every problem with the file itself becomes an :class:`~ocr.data.InputError` with a
message meant for the user; nothing else escapes.  Pages keep their decoded
resolution (PDF pages are rendered at up to 300 dpi, long side capped); the
geometry stage scales down to its working size and records the scale in its
homography, so cell outlines land on ``Page.image``.

Memory is bounded by one page, whatever the file: :func:`iter_pages` decodes a page only when
asked for it and keeps nothing of it afterwards, and before decoding anything it refuses a file
whose pages would decode to more pixels in all than ``LoadSettings.max_file_pixels`` (a 150 KB
TIFF can hold thirty 79-megapixel frames).  A page goes from Pillow to BGR in strips of rows, so
no second full-size copy is made on the way.
"""

from __future__ import annotations

import functools
import io
import math
import re
import struct
import warnings
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageFile, UnidentifiedImageError

from ocr.data import InputError, Page
from ocr.settings import LoadSettings

# Formats Pillow may decode; anything else (EPS, PSD, ICO...) is refused.
IMAGE_FORMATS = ("PNG", "JPEG", "TIFF", "BMP", "DIB", "WEBP", "GIF", "PPM", "HEIF")
SUPPORTED = "PNG, JPEG, TIFF, BMP, WebP, GIF, PNM, HEIC/HEIF or PDF"
EXIF_ORIENTATION = 0x0112
DEFAULTS = LoadSettings()
# Kept for callers that name the per-page limit (the settings object is where it is set).
MAX_PIXELS = DEFAULTS.max_pixels


def load_pages(path: str | Path, data: bytes | None = None, name: str | None = None,
               settings: LoadSettings = DEFAULTS) -> list[Page]:
    """Every page of ``path`` (or ``data``, shown as ``name``) at once: for a few pages (tests,
    tools); readers of whole files use :func:`iter_pages`."""
    return list(iter_pages(path, data=data, name=name, settings=settings))


def iter_pages(path: str | Path, data: bytes | None = None, name: str | None = None,
               settings: LoadSettings = DEFAULTS) -> Iterator[Page]:
    """Decode ``path`` (or ``data`` if given, shown as ``name``) page by page.  Problems with the
    file as a whole (unreadable, too many pages or pixels) are raised before the first page; one
    found in a later page is raised when that page is reached."""
    source = name or str(path)
    if data is None:
        head = _read_bytes(Path(path), source, SNIFF_BYTES)
        if head and _looks_like_pdf(head):  # PDFium reads the file as it needs it, not all at once
            return _pdf_pages(str(path), source, settings)
        data = _read_bytes(Path(path), source)
    if not data:
        raise InputError(f"{source}: empty file (0 bytes)")
    if _looks_like_pdf(data):
        return _pdf_pages(data, source, settings)
    return _image_pages(data, source, settings)


def _read_bytes(path: Path, source: str, limit: int = -1) -> bytes:
    """The file's bytes (its first ``limit`` bytes when given)."""
    try:
        if path.is_dir():
            raise InputError(f"{source}: is a folder, not a file")
        with path.open("rb") as fh:
            return fh.read(limit)
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except PermissionError:
        raise InputError(f"{source}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{source}: cannot read file ({exc.strerror or exc})") from None


def _looks_like_pdf(data: bytes) -> bool:
    return b"%PDF-" in data[:1024]


SNIFF_BYTES = 1024  # how much of a file's start :func:`sniff` needs
_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"msf1")
_BMP_HEADERS = (12, 40, 52, 56, 64, 108, 124)  # the sizes of the DIB headers BMP files use


def sniff(head: bytes) -> str | None:
    """The format a file starting with ``head`` (its first SNIFF_BYTES) is in, by its magic
    bytes, whatever its name: "PDF", "PNG", "JPEG", "TIFF", "BMP", "GIF", "WEBP", "PNM", "HEIF";
    None for anything else.  Folders are read by content, so a .jfif, a file without a suffix
    or a name ending in a space is not missed."""
    if _looks_like_pdf(head):
        return "PDF"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head[:4] in (b"II*\0", b"MM\0*"):
        return "TIFF"
    if head.startswith(b"BM") and len(head) >= 18 and int.from_bytes(head[14:18], "little") in _BMP_HEADERS:
        return "BMP"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WEBP"
    if re.match(rb"P[1-6]\s+(#[^\n]*\s+)*\d", head):
        return "PNM"
    if head[4:8] == b"ftyp" and (head[8:12] in _HEIF_BRANDS or any(
            head[i:i + 4] in _HEIF_BRANDS for i in range(16, min(len(head), int.from_bytes(head[:4], "big")), 4))):
        return "HEIF"
    return None


# --------------------------------------------------------------------------- images
def _image_pages(data: bytes, source: str, settings: LoadSettings) -> Iterator[Page]:
    """Check every frame's size first (no pixels decoded), then decode frame by frame."""
    with _image_errors(source, settings):
        with _open_image(data) as im:
            fmt = im.format or "image"
            n_frames = getattr(im, "n_frames", 1) if fmt == "TIFF" else 1
            if n_frames > settings.max_pages:
                raise InputError(f"{source}: {n_frames} pages; at most {settings.max_pages} per file")
            sizes = []
            for i in range(n_frames):
                if i:
                    im.seek(i)
                _check_size(im.size, source, settings)
                sizes.append(im.size)
            _check_total(sizes, source, settings, "pages" if n_frames > 1 else "image")
    return _decode_frames(data, source, fmt, n_frames, settings)


def _decode_frames(data: bytes, source: str, fmt: str, n_frames: int,
                   settings: LoadSettings) -> Iterator[Page]:
    for i in range(n_frames):
        with _image_errors(source, settings):
            # a fresh decoder per frame: nothing of the last frame is held while this one is read
            with _open_image(data) as im:
                if i:
                    im.seek(i)
                bgr = _fast_decode(data, im) if n_frames == 1 else None
                factor = 1
                if bgr is None:
                    im.load()
                    factor = _factor(im.size, settings.max_decoded_pixels)
                    bgr = _upright(_to_bgr(im, factor), _orientation(im))
                dpi = im.info.get("dpi")
        meta = {"format": fmt, "size": (bgr.shape[1], bgr.shape[0]), "frames": n_frames}
        if factor > 1:
            meta["shrunk"] = factor
        if dpi:
            meta["dpi"] = float(dpi[0]) / factor
        yield Page(source=source, index=i, image=bgr, meta=meta)
        del bgr  # the caller has the page; keep no reference while it is being read


def _open_image(data: bytes) -> Image.Image:
    _register_heif()
    Image.init()
    formats = [f for f in IMAGE_FORMATS if f in Image.OPEN]
    return Image.open(io.BytesIO(data), formats=formats)


class _image_errors:
    """Turns Pillow's and the codecs' exceptions into InputError, and makes a cut-off file an
    error even if the caller has switched on Pillow's LOAD_TRUNCATED_IMAGES (restored after)."""

    def __init__(self, source: str, settings: LoadSettings):
        self.source, self.settings = source, settings

    def __enter__(self):
        self.lenient = ImageFile.LOAD_TRUNCATED_IMAGES
        ImageFile.LOAD_TRUNCATED_IMAGES = False
        self.warnings = warnings.catch_warnings()
        self.warnings.__enter__()
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        self.warnings.__exit__(None, None, None)
        ImageFile.LOAD_TRUNCATED_IMAGES = self.lenient
        if exc is None or isinstance(exc, InputError):
            return False
        source = self.source
        if isinstance(exc, UnidentifiedImageError):
            raise InputError(f"{source}: not a supported image or PDF (expected {SUPPORTED})") from None
        if isinstance(exc, (Image.DecompressionBombError, Image.DecompressionBombWarning)):
            raise InputError(f"{source}: image too large (over {self.settings.max_pixels // 1_000_000} "
                             "megapixels); refused") from None
        if isinstance(exc, MemoryError):
            raise InputError(f"{source}: image too large to decode in memory") from None
        if isinstance(exc, (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError, struct.error)):
            msg = str(exc)
            if "truncated" in msg or isinstance(exc, EOFError):
                raise InputError(f"{source}: image file is truncated or damaged") from None
            raise InputError(f"{source}: damaged or unreadable image ({msg or type(exc).__name__})") from None
        return False


PNG_END = b"IEND\xaeB`\x82"  # the last chunk of every complete PNG file


def _fast_decode(data: bytes, im: Image.Image) -> np.ndarray | None:
    """A plain page decoded by OpenCV straight to BGR, or None: anything else, or anything
    OpenCV cannot decode whole, goes through Pillow (which gives the error for a damaged file).

    Plain: a JPEG in RGB or grey not turned by EXIF, or an 8-bit RGB PNG without transparency or
    EXIF.  Pillow's decode plus the copy out of Pillow and the colour swap cost more, the pixels
    are the same (bench/bench_load.py: a bench photo 35 -> 21 ms, a colour PNG scan up to 270 ->
    220 ms).  A grey PNG (a fax) decodes as fast either way and stays with Pillow.  (Pillow's
    getexif() would decode a PNG whole to look for an EXIF chunk after the pixels, so a PNG's
    chunks are looked for in its bytes instead.)"""
    if im.format == "JPEG":
        if im.mode not in ("RGB", "L") or _exif_turned(im):
            return None
    elif im.format == "PNG":
        tile = im.tile[0] if len(im.tile) == 1 else None
        if im.mode != "RGB" or tile is None or tile.args != "RGB" or "transparency" in im.info:
            return None
        if b"eXIf" in data or b"Raw profile type exif" in data or not data.rstrip(b"\0").endswith(PNG_END):
            return None  # EXIF (maybe a turn): Pillow's way; cut off: libpng would only complain on stderr
    else:
        return None
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if bgr is None or bgr.shape[:2] != (im.size[1], im.size[0]):
        return None
    return bgr


def _check_size(size: tuple[int, int], source: str, settings: LoadSettings) -> None:
    w, h = size
    if w * h > settings.max_pixels:
        raise InputError(
            f"{source}: image too large ({w}x{h} pixels, limit {settings.max_pixels // 1_000_000} megapixels)"
        )
    if min(w, h) < settings.min_side:
        raise InputError(f"{source}: image too small ({w}x{h} pixels) to hold a score sheet")


def _check_total(sizes: list[tuple[int, int]], source: str, settings: LoadSettings, what: str) -> None:
    """Refuse, before decoding any, pages that would decode to more pixels in all than allowed."""
    total = sum(w * h for w, h in sizes)
    if total > settings.max_file_pixels:
        raise InputError(
            f"{source}: {len(sizes)} {what} of {total // 1_000_000:,} megapixels in all; at most "
            f"{settings.max_file_pixels // 1_000_000:,} per file (split it into smaller files)")


def _orientation(im: Image.Image) -> int:
    """The EXIF orientation tag (1 = upright; 2-8 turn or mirror it for display)."""
    try:
        value = im.getexif().get(EXIF_ORIENTATION, 1)
    except Exception:  # an EXIF block Pillow cannot parse: shown as stored
        return 1
    return value if value in range(1, 9) else 1


def _exif_turned(im: Image.Image) -> bool:
    """Whether ``im``'s EXIF orientation tag says to turn or mirror it for display."""
    return _orientation(im) != 1


def _upright(bgr: np.ndarray, orientation: int) -> np.ndarray:
    """``bgr`` turned as EXIF orientation ``orientation`` says (as Pillow's exif_transpose)."""
    if orientation == 1:
        return bgr
    turned = {
        2: lambda a: a[:, ::-1],  # mirrored left-right
        3: lambda a: a[::-1, ::-1],  # upside down
        4: lambda a: a[::-1],  # mirrored top-bottom
        5: lambda a: a.transpose(1, 0, 2),  # transposed
        6: lambda a: a.transpose(1, 0, 2)[:, ::-1],  # turned a quarter left: a quarter right
        7: lambda a: a[::-1, ::-1].transpose(1, 0, 2),  # transversed
        8: lambda a: a.transpose(1, 0, 2)[::-1],  # turned a quarter right: a quarter left
    }[orientation](bgr)
    return np.ascontiguousarray(turned)


STRIP_ROWS = 256  # rows converted at a time: a strip's copies are small beside the page


def _factor(size: tuple[int, int], limit: int) -> int:
    """The whole factor shrinking a page of ``size`` to at most ``limit`` pixels (1: none)."""
    return max(1, math.ceil(math.sqrt(size[0] * size[1] / limit)))


def _to_bgr(im: Image.Image, factor: int = 1) -> np.ndarray:
    """Any Pillow mode as BGR uint8 (alpha composited on white), converted strip by strip into
    the one output array (a full-size intermediate would double a large page's memory), each
    strip shrunk ``factor`` times (pixel areas averaged) on the way."""
    w, h = im.size
    ow, oh = w // factor, h // factor
    out = np.empty((oh, ow, 3), np.uint8)
    scale = None
    if im.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        lo, hi = im.getextrema()
        scale = 255.0 / (float(hi) or 1.0)
    rows = STRIP_ROWS // factor * factor
    for y0 in range(0, oh * factor, rows):
        with im.crop((0, y0, w, min(oh * factor, y0 + rows))) as strip:
            bgr = _strip_to_bgr(strip, scale, im.info)
            if factor > 1:
                bgr = cv2.resize(bgr[:, :ow * factor], (ow, bgr.shape[0] // factor),
                                 interpolation=cv2.INTER_AREA)
            out[y0 // factor:y0 // factor + bgr.shape[0]] = bgr
    return out


def _strip_to_bgr(im: Image.Image, scale: float | None, info: dict) -> np.ndarray:
    mode = im.mode
    if scale is not None:  # 16-bit or float grey, scaled by the whole page's brightest value
        grey = np.clip(np.asarray(im, dtype=np.float32) * scale, 0, 255).astype(np.uint8)
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    if mode in ("RGBA", "LA", "PA") or (mode == "P" and "transparency" in info):
        if mode == "P" and "transparency" in info:
            im.info["transparency"] = info["transparency"]
        rgba = im.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        im = Image.alpha_composite(white, rgba)
    if im.mode in ("1", "L"):
        grey = np.asarray(im if im.mode == "L" else im.convert("L"), dtype=np.uint8)
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    rgb = np.asarray(im if im.mode == "RGB" else im.convert("RGB"), dtype=np.uint8)
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


@functools.cache
def _register_heif() -> None:
    """Let Pillow open HEIC phone photos (pillow-heif, a dependency; without it HEIC is refused as
    an unsupported image).  Once per process."""
    try:
        from pillow_heif import register_heif_opener
    except ImportError:
        return
    register_heif_opener()


# --------------------------------------------------------------------------- PDF
PDF_ERRORS = {  # pypdfium2's error codes, in words (PDFium's own can say "Success" for a failure)
    4: "password-protected PDF: it cannot be read without its password",
    5: "PDF with a security handler PDFium does not support",
}


def _pdf_pages(data: bytes | str, source: str, settings: LoadSettings) -> Iterator[Page]:
    """Open the PDF (its bytes, or its path) and check it as a whole (pages, pixels in all)
    before rendering any page."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        reason = PDF_ERRORS.get(getattr(exc, "err_code", None), "not a readable PDF (damaged, cut off or empty)")
        raise InputError(f"{source}: {reason}") from None
    try:
        n = len(pdf)
        if n == 0:
            raise InputError(f"{source}: PDF has no pages")
        if n > settings.max_pages:
            raise InputError(f"{source}: PDF has {n} pages; at most {settings.max_pages} per file")
        scales, sizes = [], []
        for i in range(n):
            w_pt, h_pt = pdf.get_page_size(i)
            if min(w_pt, h_pt) <= 0:
                raise InputError(f"{source}: PDF page {i + 1} has no area")
            scale = min(settings.pdf_max_dpi / 72.0, settings.pdf_long_side / max(w_pt, h_pt))
            scales.append(scale)
            sizes.append((round(w_pt * scale), round(h_pt * scale)))
        _check_total(sizes, source, settings, "PDF pages")
    except InputError:
        pdf.close()
        raise
    except (pdfium.PdfiumError, ValueError, OSError, MemoryError) as exc:
        pdf.close()
        raise InputError(f"{source}: cannot read PDF ({exc})") from None
    return _render_pages(pdf, scales, source, settings)


def _render_pages(pdf, scales: list[float], source: str, settings: LoadSettings) -> Iterator[Page]:
    import pypdfium2 as pdfium

    n = len(scales)
    try:
        for i, scale in enumerate(scales):
            try:
                page = pdf[i]
                bitmap = page.render(scale=scale, grayscale=False, fill_color=(255, 255, 255, 255))
                arr = np.asarray(bitmap.to_numpy())[:, :, :3]
                bgr = np.ascontiguousarray(arr if bitmap.mode.startswith("BGR") else arr[:, :, ::-1])
                del arr
                bitmap.close()
                page.close()
            except (pdfium.PdfiumError, ValueError, OSError, MemoryError) as exc:
                raise InputError(f"{source}: cannot render PDF page {i + 1} ({exc})") from None
            if min(bgr.shape[:2]) < settings.min_side:
                raise InputError(f"{source}: PDF page {i + 1} too small to hold a score sheet")
            meta = {"format": "PDF", "size": (bgr.shape[1], bgr.shape[0]), "dpi": scale * 72.0, "frames": n}
            yield Page(source=source, index=i, image=bgr, meta=meta)
            del bgr
    finally:
        pdf.close()
