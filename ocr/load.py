"""Decode one input file (image or PDF) into :class:`~ocr.data.Page` objects.

Every problem with the file itself becomes an :class:`~ocr.data.InputError` with a
message meant for the user; nothing else escapes.  Pages keep their decoded
resolution (PDF pages are rendered at up to 300 dpi, long side capped); the
geometry stage scales down to its working size and records the scale in its
homography, so cell outlines land on ``Page.image``.
"""

from __future__ import annotations

import io
import re
import struct
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

from ocr.data import InputError, Page

# Refuse images above this many pixels before decoding them (a 48 MP phone photo is fine).
MAX_PIXELS = 80_000_000
# Refuse images too small to hold a readable sheet.
MIN_SIDE = 200
# Refuse files with more pages than a batch should ever see in one file.
MAX_PAGES = 200
# PDF rendering: at most this dpi, and at most this many pixels on the long side.
PDF_MAX_DPI = 300
PDF_LONG_SIDE = 3000
# Formats Pillow may decode; anything else (EPS, PSD, ICO...) is refused.
IMAGE_FORMATS = ("PNG", "JPEG", "TIFF", "BMP", "DIB", "WEBP", "GIF", "PPM", "HEIF")
SUPPORTED = "PNG, JPEG, TIFF, BMP, WebP, GIF, PNM or PDF"
EXIF_ORIENTATION = 0x0112


def load_pages(path: str | Path, data: bytes | None = None, name: str | None = None) -> list[Page]:
    """Decode ``path`` (or ``data`` if given, shown as ``name``) into its pages."""
    source = name or str(path)
    if data is None:
        data = _read_bytes(Path(path), source)
    if not data:
        raise InputError(f"{source}: empty file (0 bytes)")
    if _looks_like_pdf(data):
        return _load_pdf(data, source)
    return _load_image(data, source)


def _read_bytes(path: Path, source: str) -> bytes:
    try:
        if path.is_dir():
            raise InputError(f"{source}: is a folder, not a file")
        return path.read_bytes()
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
def _load_image(data: bytes, source: str) -> list[Page]:
    """Decode with Pillow; a cut-off file is an error even if the caller has switched on
    Pillow's LOAD_TRUNCATED_IMAGES (the setting is restored afterwards)."""
    lenient = ImageFile.LOAD_TRUNCATED_IMAGES
    ImageFile.LOAD_TRUNCATED_IMAGES = False
    try:
        return _decode_image(data, source)
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = lenient


def _decode_image(data: bytes, source: str) -> list[Page]:
    _register_heif()
    Image.init()
    formats = [f for f in IMAGE_FORMATS if f in Image.OPEN]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im = Image.open(io.BytesIO(data), formats=formats)
            _check_size(im.size, source)
            fmt = im.format or "image"
            n_frames = getattr(im, "n_frames", 1) if fmt == "TIFF" else 1
            if n_frames > MAX_PAGES:
                raise InputError(f"{source}: {n_frames} pages; at most {MAX_PAGES} per file")
            pages = []
            for i in range(n_frames):
                im.seek(i)
                _check_size(im.size, source)
                bgr = _fast_decode(data, im) if n_frames == 1 else None
                if bgr is None:
                    im.load()
                    frame = _upright(im)
                    bgr = _to_bgr(frame)
                    if frame is not im:
                        frame.close()
                dpi = im.info.get("dpi")
                meta = {"format": fmt, "size": (bgr.shape[1], bgr.shape[0]), "frames": n_frames}
                if dpi:
                    meta["dpi"] = float(dpi[0])
                pages.append(Page(source=source, index=i, image=bgr, meta=meta))
            return pages
    except InputError:
        raise
    except UnidentifiedImageError:
        raise InputError(f"{source}: not a supported image or PDF (expected {SUPPORTED})") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise InputError(
            f"{source}: image too large (over {MAX_PIXELS // 1_000_000} megapixels); refused"
        ) from None
    except MemoryError:
        raise InputError(f"{source}: image too large to decode in memory") from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError, struct.error) as exc:
        msg = str(exc)
        if "truncated" in msg or isinstance(exc, EOFError):
            raise InputError(f"{source}: image file is truncated or damaged") from None
        raise InputError(f"{source}: damaged or unreadable image ({msg or type(exc).__name__})") from None


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


def _check_size(size: tuple[int, int], source: str) -> None:
    w, h = size
    if w * h > MAX_PIXELS:
        raise InputError(
            f"{source}: image too large ({w}x{h} pixels, limit {MAX_PIXELS // 1_000_000} megapixels)"
        )
    if min(w, h) < MIN_SIDE:
        raise InputError(f"{source}: image too small ({w}x{h} pixels) to hold a score sheet")


def _exif_turned(im: Image.Image) -> bool:
    """Whether ``im``'s EXIF orientation tag says to turn or mirror it for display."""
    return im.getexif().get(EXIF_ORIENTATION, 1) not in (0, 1)


def _upright(im: Image.Image) -> Image.Image:
    """``im`` turned as its EXIF orientation tag says (a copy only when it has to turn)."""
    if not _exif_turned(im):
        return im
    return ImageOps.exif_transpose(im)


def _to_bgr(im: Image.Image) -> np.ndarray:
    """Any Pillow mode as BGR uint8 (alpha composited on white), with few full-size copies."""
    mode = im.mode
    if mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        arr = np.asarray(im, dtype=np.float32)
        hi = float(arr.max()) or 1.0
        grey = np.clip(arr * (255.0 / hi), 0, 255).astype(np.uint8)
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    if mode in ("RGBA", "LA", "PA") or (mode == "P" and "transparency" in im.info):
        rgba = im.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        im = Image.alpha_composite(white, rgba)
    if im.mode in ("1", "L"):
        grey = np.asarray(im if im.mode == "L" else im.convert("L"), dtype=np.uint8)
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    arr = np.array(im if im.mode == "RGB" else im.convert("RGB"), dtype=np.uint8)
    cv2.cvtColor(arr, cv2.COLOR_RGB2BGR, dst=arr)  # in place
    return arr


def _register_heif() -> None:
    """Let Pillow open HEIC phone photos when the optional pillow-heif is installed."""
    try:
        from pillow_heif import register_heif_opener
    except ImportError:
        return
    register_heif_opener()


# --------------------------------------------------------------------------- PDF
def _load_pdf(data: bytes, source: str) -> list[Page]:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise InputError(f"{source}: broken, empty or encrypted PDF ({exc})") from None
    try:
        n = len(pdf)
        if n == 0:
            raise InputError(f"{source}: PDF has no pages")
        if n > MAX_PAGES:
            raise InputError(f"{source}: PDF has {n} pages; at most {MAX_PAGES} per file")
        pages = []
        for i in range(n):
            page = pdf[i]
            w_pt, h_pt = page.get_size()
            if min(w_pt, h_pt) <= 0:
                raise InputError(f"{source}: PDF page {i + 1} has no area")
            scale = min(PDF_MAX_DPI / 72.0, PDF_LONG_SIDE / max(w_pt, h_pt))
            bitmap = page.render(scale=scale, grayscale=False, fill_color=(255, 255, 255, 255))
            arr = np.asarray(bitmap.to_numpy())[:, :, :3]
            bgr = np.ascontiguousarray(arr if bitmap.mode.startswith("BGR") else arr[:, :, ::-1])
            page.close()
            if min(bgr.shape[:2]) < MIN_SIDE:
                raise InputError(f"{source}: PDF page {i + 1} too small to hold a score sheet")
            meta = {"format": "PDF", "size": (bgr.shape[1], bgr.shape[0]), "dpi": scale * 72.0,
                    "frames": n}
            pages.append(Page(source=source, index=i, image=bgr, meta=meta))
        return pages
    except InputError:
        raise
    except (pdfium.PdfiumError, ValueError, OSError, MemoryError) as exc:
        raise InputError(f"{source}: cannot render PDF ({exc})") from None
    finally:
        pdf.close()
