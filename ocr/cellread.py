"""``rubberscan cell IMAGE...``: one number read from each image crop (CONTRACT.md "Reading single
cells"), through the code that reads a sheet's number cells (ocr.read.read_cells), each crop first
made a cell as the geometry stage would cut it (ocr.crop.cell_image)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import cv2
import numpy as np

from ocr.crop import cell_image
from ocr.data import InputError
from ocr.read import read_cells
from ocr.settings import ReaderSettings

CHUNK = 64  # crops read together (one batch through the networks), then printed
MAX_PIXELS = 25_000_000  # a cell crop is small; a bigger image is refused before it is decoded


def cell_object(source: str, reading) -> dict:
    """A reading as the contract's object: the best value (null when nothing could be read) and
    the candidate values with their probabilities, best first ("none of these" left out)."""
    cands = [[v, round(float(p), 4)] for v, p in reading.candidates if v is not None]
    return {"source": source, "value": reading.best, "candidates": cands}


def load_crop(path: str) -> np.ndarray:
    """A crop file's pixels (BGR), upright as its EXIF says, or InputError with the reason.
    (ocr.load refuses images too small to hold a sheet; a crop is meant to be small.)"""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder, not an image") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise InputError(f"{path}: empty file")
    try:
        with Image.open(io.BytesIO(data)) as im:
            if im.width * im.height > MAX_PIXELS:
                raise InputError(f"{path}: {im.width}x{im.height} pixels, too large for one cell's crop")
            im = ImageOps.exif_transpose(im)
            im.load()
            rgb = np.asarray(im.convert("RGB"))
    except (UnidentifiedImageError, Image.DecompressionBombError):
        raise InputError(f"{path}: not an image this reads (PNG, JPEG, TIFF, BMP, WebP, GIF, PNM)") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise InputError(f"{path}: broken or truncated image ({exc})") from None
    if min(rgb.shape[:2]) < 4:
        raise InputError(f"{path}: {rgb.shape[1]}x{rgb.shape[0]} pixels, too small to hold writing")
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def read_crops(paths: list[str], settings: ReaderSettings | None = None) -> Iterator[dict]:
    """One contract object per path, in order; a file that cannot be read gives its error."""
    settings = settings or ReaderSettings()
    for start in range(0, len(paths), CHUNK):
        chunk = paths[start:start + CHUNK]
        images: dict[int, object] = {}
        errors: dict[int, str] = {}
        for k, path in enumerate(chunk):
            try:
                images[k] = cell_image(load_crop(path), settings)
            except InputError as exc:
                errors[k] = str(exc)
            except Exception as exc:  # noqa: BLE001 - one bad file never stops the others
                errors[k] = f"internal error: {type(exc).__name__}: {exc}"
        order = sorted(images)
        readings = dict(zip(order, read_cells([images[k] for k in order], settings), strict=True)) if order else {}
        for k, path in enumerate(chunk):
            yield {"source": path, "error": errors[k]} if k in errors else cell_object(path, readings[k])
