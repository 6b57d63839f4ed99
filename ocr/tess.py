"""Tesseract words from a grey image: in-process through tesserocr when it is installed,
else through pytesseract (one ``tesseract`` process per call; the path that always works).

Starting Tesseract costs ~0.1 s of CPU (mostly building its ambiguity tables, which no
option or trimmed traineddata avoids), more than recognising a sheet's printed text.
The in-process engine is created once per process (again after a fork) and reused, so
that cost is paid once, not per call.

``RUBBERSCAN_TESSERACT=pytesseract`` (or ``tesserocr``) forces one backend, e.g. to
measure both; the default (``auto``) takes tesserocr when it imports and finds the
English model, else pytesseract.
"""

from __future__ import annotations

import glob
import os
import subprocess
import threading
import time
from dataclasses import dataclass

import numpy as np

from ocr.data import InputError

ENV = "RUBBERSCAN_TESSERACT"
LANG = "eng"
# CPU seconds spent inside the in-process engine (start-up included), for benchmarks: a
# pytesseract call's CPU is its child process's instead (resource.RUSAGE_CHILDREN)
STATS = {"calls": 0, "cpu": 0.0}


@dataclass(frozen=True)
class Word:
    text: str
    left: int
    top: int
    width: int
    height: int
    conf: float

    @property
    def cx(self) -> float:
        return self.left + self.width / 2

    @property
    def cy(self) -> float:
        return self.top + self.height / 2


def words(img: np.ndarray, psm: int = 6, whitelist: str = "") -> list[Word]:
    """Words Tesseract finds in the grey uint8 image ``img`` (paper light, ink dark),
    read as one block (``psm``) with only ``whitelist`` characters (all when empty).

    Raises InputError when Tesseract is missing or fails."""
    img = np.ascontiguousarray(img, dtype=np.uint8)
    if img.ndim != 2:
        raise ValueError("words() takes a grey image")
    t0 = time.process_time()
    try:
        engine = _engine()
        if engine is not None:
            try:
                return engine.words(img, psm, whitelist)
            except RuntimeError as exc:
                raise InputError(f"Tesseract failed on this page ({exc})") from None
    finally:
        STATS["calls"] += 1
        STATS["cpu"] += time.process_time() - t0
    return _pytesseract_words(img, psm, whitelist)


def backend() -> str:
    """The backend :func:`words` uses in this process: "tesserocr" or "pytesseract"."""
    return "tesserocr" if _engine() is not None else "pytesseract"


# --------------------------------------------------------------------------- pytesseract
def _pytesseract_words(img: np.ndarray, psm: int, whitelist: str) -> list[Word]:
    import pytesseract
    from PIL import Image

    config = f"--psm {psm} -c tessedit_do_invert=0"
    if whitelist:
        config += f" -c tessedit_char_whitelist={whitelist}"
    picture = Image.fromarray(img)
    picture.format = "BMP"  # handed over uncompressed: PNG encoding cost more than it saved
    try:
        data = pytesseract.image_to_data(picture, config=config, output_type=pytesseract.Output.DICT)
    except pytesseract.TesseractNotFoundError:
        raise InputError("the Tesseract OCR program is not installed (apt install tesseract-ocr)") from None
    except (pytesseract.TesseractError, OSError, RuntimeError) as exc:
        raise InputError(f"Tesseract failed on this page ({exc})") from None
    cols = (data["text"], data["left"], data["top"], data["width"], data["height"], data["conf"])
    return [Word(t.strip(), int(x), int(y), int(w), int(h), float(c))
            for t, x, y, w, h, c in zip(*cols, strict=True) if t.strip()]


# --------------------------------------------------------------------------- tesserocr
class _Engine:
    """One tesserocr API, reused for every call in this process (not thread-safe by
    itself: calls are serialised)."""

    def __init__(self, tessdata: str):
        import tesserocr

        self.api = tesserocr.PyTessBaseAPI(path=tessdata, lang=LANG, init=True)
        self.api.SetVariable("tessedit_do_invert", "0")
        self.lock = threading.Lock()
        self.whitelist = ""

    def words(self, img: np.ndarray, psm: int, whitelist: str) -> list[Word]:
        h, w = img.shape
        with self.lock:
            api = self.api
            api.SetPageSegMode(psm)
            if whitelist != self.whitelist:
                api.SetVariable("tessedit_char_whitelist", whitelist)
                self.whitelist = whitelist
            api.SetImageBytes(img.tobytes(), w, h, 1, w)
            if not api.Recognize():
                raise RuntimeError("recognition failed")
            tsv = api.GetTSVText(0)
            api.Clear()
        return _parse_tsv(tsv)


def _parse_tsv(tsv: str) -> list[Word]:
    """Word rows (level 5) of Tesseract's TSV output (no header line)."""
    out = []
    for line in tsv.splitlines():
        f = line.split("\t")
        if len(f) < 12 or f[0] != "5":
            continue
        text = f[11].strip()
        if text:
            out.append(Word(text, int(f[6]), int(f[7]), int(f[8]), int(f[9]), float(f[10])))
    return out


_state: dict = {"pid": None, "engine": None}
_state_lock = threading.Lock()


def _engine() -> _Engine | None:
    """This process's tesserocr engine, or None for pytesseract."""
    choice = os.environ.get(ENV, "auto").strip().lower()
    if choice == "pytesseract":
        return None
    pid = os.getpid()
    if _state["pid"] == pid:
        return _state["engine"]
    with _state_lock:
        if _state["pid"] != pid:  # first call in this process (or in a forked child)
            _state["engine"] = _make_engine(strict=choice == "tesserocr")
            _state["pid"] = pid
    return _state["engine"]


def _make_engine(strict: bool) -> _Engine | None:
    try:
        import tesserocr  # noqa: F401
    except ImportError:
        if strict:
            raise InputError(f"{ENV}=tesserocr but the tesserocr package is not installed") from None
        return None
    tessdata = tessdata_dir()
    if tessdata is None:
        if strict:
            raise InputError(f"{ENV}=tesserocr but no {LANG}.traineddata was found")
        return None
    try:
        return _Engine(tessdata)
    except (RuntimeError, OSError) as exc:
        if strict:
            raise InputError(f"tesserocr could not start ({exc})") from None
        return None


def tessdata_dir() -> str | None:
    """The folder holding ``eng.traineddata``: $TESSDATA_PREFIX, the OS package's folder,
    or the one the ``tesseract`` program reports."""
    cands = [os.environ.get("TESSDATA_PREFIX", "")]
    cands += sorted(glob.glob("/usr/share/tesseract-ocr/*/tessdata"), reverse=True)
    cands += ["/usr/share/tesseract-ocr/tessdata", "/usr/share/tessdata",
              "/usr/local/share/tessdata", "/opt/homebrew/share/tessdata"]
    for d in cands:
        if d and os.path.isfile(os.path.join(d, f"{LANG}.traineddata")):
            return d.rstrip("/") + "/"
    try:
        out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    first = out.splitlines()[0] if out else ""
    if '"' in first:
        d = first.split('"')[1]
        if os.path.isfile(os.path.join(d, f"{LANG}.traineddata")):
            return d.rstrip("/") + "/"
    return None
